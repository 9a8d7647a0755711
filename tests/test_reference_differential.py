"""Differential test: the interpreter's untap step against the hand-written reference.

`bench/reference.py` is a plain Python untap step for the current rules (702.26a with b, c,
d, g, h, i, j, then 502.3), written without the DSL; it is the yardstick of the benchmark.
Here Hypothesis draws small boards (2-4 players, Auras and Equipment in chains up to three
deep, some carrying phasing themselves, an Aura on a player, tokens, permanents phased out
directly under players other than their controller, attachments phased out directly on
hosts that are phased in or out) and an active player, and checks that
`Engine.run_hook("untap step", P)` under the 2026-09-25 rulebook leaves every object as the
reference does: phase, phased_indirectly, phased_out_under, tapped, attached_to and zone.

`run_hook` ends with the state-based actions, so it is compared with the reference's
`state_based=True` (704.5m/n/d); the rulebook without its state-check blocks is compared
with the reference's phasing and untapping alone, as the benchmark measures both.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench import event_model  # noqa: E402
from bench.boards import AURA, EQUIPMENT, PHASER, PLAIN, PLAYER_NAMES, permanent  # noqa: E402
from bench.engines import full_book, observed, untap_with_interpreter, without_state_checks  # noqa: E402
from bench.reference import untap_step  # noqa: E402
from phasing_rules.interpreter.game.model import Game, Player  # noqa: E402

CURSE = "Curse of Chains"  # an Aura that enchants a player


@st.composite
def boards(draw) -> tuple[Game, str]:
    players = PLAYER_NAMES[: draw(st.integers(2, 4))]
    active = draw(st.sampled_from(players))
    objects = {}
    out: set[str] = set()
    depth: dict[str, int] = {}
    stamp = 0

    def status(indirect_host: bool) -> dict:
        if indirect_host:  # phased out with its host; now and then phased out directly before that
            if draw(st.integers(0, 4)) == 0:
                return {"phase": "out", "phased_out_under": draw(st.sampled_from(players)), "phased_indirectly": False}
            return {"phase": "out", "phased_out_under": draw(st.sampled_from(players)), "phased_indirectly": True}
        if draw(st.integers(0, 3)) == 0:
            return {"phase": "out", "phased_out_under": draw(st.sampled_from(players)), "phased_indirectly": False}
        return {}

    for _ in range(draw(st.integers(1, 12))):
        stamp += 1
        pid = f"c{stamp}"
        controller = draw(st.sampled_from(players))
        owner = draw(st.sampled_from(players)) if draw(st.integers(0, 4)) == 0 else controller
        s = status(False)
        objects[pid] = permanent(pid, draw(st.sampled_from((PHASER, PLAIN))), controller, owner=owner,
                                 tapped=draw(st.booleans()), token=draw(st.integers(0, 3)) == 0,
                                 timestamp=stamp, status=s)
        depth[pid] = 0
        if s:
            out.add(pid)
    for _ in range(draw(st.integers(0, 18))):
        stamp += 1
        pid = f"a{stamp}"
        controller = draw(st.sampled_from(players))
        if draw(st.integers(0, 9)) == 0:  # a Curse on a player: a host that never phases
            objects[pid] = permanent(pid, CURSE, controller, tapped=draw(st.booleans()),
                                     attached_to=draw(st.sampled_from(players)), timestamp=stamp, status=status(False))
            continue
        hosts = sorted(h for h, d in depth.items() if d < 3)
        host = draw(st.sampled_from(hosts))
        s = status(host in out)
        extra = ("phasing",) if draw(st.integers(0, 3)) == 0 else ()  # 702.26h: direct and indirect at once
        objects[pid] = permanent(pid, draw(st.sampled_from((AURA, EQUIPMENT))), controller,
                                 tapped=draw(st.booleans()), token=draw(st.integers(0, 7)) == 0,
                                 attached_to=host, timestamp=stamp, status=s, extra_keywords=extra)
        depth[pid] = depth[host] + 1
        if s:
            out.add(pid)
    game = Game({p: Player(p) for p in players}, tuple(players), active, 1, objects)
    game.clock = stamp
    return game, active


def board_text(game: Game) -> str:
    lines = [f"players {' '.join(game.order)}, active {game.active}"]
    for o in game.objects.values():
        lines.append(f"  {o.id} {o.card!r} controller {o.controller} owner {o.owner} keywords {o.keywords}"
                     f"{' tapped' if o.tapped else ''}{' token' if o.token else ''}"
                     f"{f' attached to {o.attached_to}' if o.attached_to else ''} {dict(o.status)}")
    return "\n".join(lines)


def untap_steps(engine, active: str, turns: int):
    """The untap steps of `turns` turns on `engine`'s game, the first `active`'s, then each next
    player's in turn order: yields after each step, its player's."""
    player = active
    for _ in range(turns):
        engine.begin_step()
        engine.run_hook("untap step", player)
        yield player
        order = engine.game.order
        player = order[(order.index(player) + 1) % len(order)]


def differences(game: Game, active: str, book, state_based: bool) -> list[str]:
    mine = observed(untap_with_interpreter(book, game, active))
    ref = observed(untap_step(game, active, state_based=state_based))
    assert mine.keys() == ref.keys()
    return [f"{oid}: interpreter {mine[oid]} reference {ref[oid]}" for oid in mine if mine[oid] != ref[oid]]


class Books(dict):
    """The two rulebooks, by `state_based` (with a short repr for Hypothesis's reports)."""

    def __repr__(self) -> str:
        return "<2026-09-25 rulebook, with and without its state-check blocks>"


@pytest.fixture(scope="module")
def books():
    book = full_book()
    return Books({True: book, False: without_state_checks(book)})


@pytest.mark.parametrize("state_based", [True, False], ids=["with-state-based-actions", "phasing-and-untap-only"])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                   HealthCheck.function_scoped_fixture])
@given(board=boards())
def test_interpreter_untap_step_matches_the_reference(books, state_based, board):
    game, active = board
    note(board_text(game))
    diff = differences(game, active, books[state_based], state_based)
    assert not diff, "compared as (phase, phased_indirectly, phased_out_under, tapped, attached_to, zone):\n" + "\n".join(diff)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(board=boards())
def test_the_hand_written_event_model_matches_the_reference(board):
    """bench/event_model.py (the interpreter's batches, `as` expansion, settling and 502.3 batch,
    inlined by hand) leaves every object as the reference does, so the time it is measured at is
    the time of a correct untap step (702.26a-j, 502.3, then 704.5m/n/d)."""
    game, active = board
    note(board_text(game))
    mine = observed(event_model.untap_step(event_model.prepare(game), active))
    assert mine == observed(untap_step(game, active, state_based=True))


def test_the_comparison_can_fail(books):
    """A reference that forgets 702.26g (attachments staying behind) is told apart on a tiny board."""
    host = permanent("djinn", PHASER, "Alice", timestamp=1)
    aura = permanent("aura", AURA, "Alice", attached_to="djinn", timestamp=2)
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", 1, {"djinn": host, "aura": aura})
    mine = observed(untap_with_interpreter(books[False], game, "Alice"))
    assert mine["aura"][:2] == ("out", True)
    wrong = observed({**game.objects, "djinn": untap_step(game, "Alice")["djinn"]})
    assert wrong != mine


def test_a_directly_phased_out_aura_returning_onto_a_host_that_just_left(books):
    """702.26a/i and 704.5m: the Aura was phased out directly under Alice, its host phases out in
    the same untap step. The Aura is not phased in when its host phases out, so it doesn't go with
    it (702.26g); it phases in attached to a permanent the game can't see, and goes to the graveyard."""
    host = permanent("djinn", PHASER, "Alice", timestamp=1)
    aura = permanent("aura", AURA, "Alice", attached_to="djinn", timestamp=2,
                     status={"phase": "out", "phased_out_under": "Alice", "phased_indirectly": False})
    sword = permanent("sword", EQUIPMENT, "Alice", attached_to="djinn", timestamp=3,
                      status={"phase": "out", "phased_out_under": "Alice", "phased_indirectly": False})
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", 1,
                {"djinn": host, "aura": aura, "sword": sword})
    ref = observed(untap_step(game, "Alice", state_based=True))
    assert ref["djinn"][:3] == ("out", False, "Alice")
    assert ref["aura"] == ("in", False, None, False, None, "graveyard")
    assert ref["sword"] == ("in", False, None, False, None, "battlefield")
    assert differences(game, "Alice", books[True], True) == []


def test_indirect_wins_down_a_chain(books):
    """702.26g/h: a Breezekeeper carries an Equipment with phasing that carries an Aura. All three are
    Alice's; in her untap step the Equipment phases out directly and indirectly at once, so indirectly,
    and the Aura goes with it; Bob's Aura on Alice's Bears stays. Then (next untap step) all come back."""
    objects = {
        "djinn": permanent("djinn", PHASER, "Alice", timestamp=1, tapped=True),
        "sword": permanent("sword", EQUIPMENT, "Alice", attached_to="djinn", timestamp=2, extra_keywords=("phasing",)),
        "aura": permanent("aura", AURA, "Alice", attached_to="sword", timestamp=3, tapped=True),
        "bears": permanent("bears", PLAIN, "Alice", timestamp=4, tapped=True),
        "bobs": permanent("bobs", AURA, "Bob", attached_to="bears", timestamp=5, tapped=True),
    }
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", 1, objects)
    ref = observed(untap_step(game, "Alice", state_based=True))
    assert ref["djinn"] == ("out", False, "Alice", True, None, "battlefield")
    assert ref["sword"] == ("out", True, "Alice", False, "djinn", "battlefield")
    assert ref["aura"] == ("out", True, "Alice", True, "sword", "battlefield")
    assert ref["bears"] == ("in", False, None, False, None, "battlefield")
    assert ref["bobs"] == ("in", False, None, True, "bears", "battlefield")
    assert differences(game, "Alice", books[True], True) == []
    game.objects = untap_step(game, "Alice", state_based=True)
    back = observed(untap_step(game, "Alice", state_based=True))
    assert [back[k][:4] for k in ("djinn", "sword", "aura")] == [("in", False, None, False)] * 3
    assert differences(game, "Alice", books[True], True) == []
