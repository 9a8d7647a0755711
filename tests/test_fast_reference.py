"""Differential test: bench/fast_reference.py against bench/reference.py and the interpreter.

The fast reference is the benchmark's honest yardstick: an untap step on mutable objects
with indexes kept from one step to the next. It is only a yardstick if it does the same
rules, so here Hypothesis draws the boards of `test_reference_differential` (chains of
Auras and Equipment, some with phasing, a Curse on a player, tokens, permanents phased out
directly under players other than their controller) and checks that the fast reference,
the reference and `Engine.run_hook("untap step", P)` under 2026-09-25 leave every object the
same (phase, phased_indirectly, phased_out_under, tapped, attached_to, zone):

- after one untap step, with the state-based actions (704.5m/n/d) and without them;
- after several untap steps in a row on one fast board, whose indexes (attachments by host,
  permanents with phasing by controller, directly phased-out permanents by who they phased
  out under, tapped permanents by controller) must stay right from step to step;
- after the setup the benchmark times (`Board.from_game` then `settle`), which must leave
  the board as the interpreter's own first state check (`Engine.settle`) does.

The rules are 702.26a (502.1), g, h and 502.3, then 704.5m, 704.5n and 704.5d.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench import reference  # noqa: E402
from bench.boards import AURA, EQUIPMENT, PHASER, permanent  # noqa: E402
from bench.engines import full_book, observed, prepare, without_state_checks  # noqa: E402
from bench.fast_reference import Board, untap_step  # noqa: E402
from phasing_rules.interpreter.game.model import Game, Player  # noqa: E402
from tests.test_reference_differential import Books, board_text, boards  # noqa: E402

COMPARED = "compared as (phase, phased_indirectly, phased_out_under, tapped, attached_to, zone)"
SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def books():
    book = full_book()
    return Books({True: book, False: without_state_checks(book)})


def differences(who: str, mine: dict, theirs: dict, other: str) -> list[str]:
    assert mine.keys() == theirs.keys()
    return [f"{oid}: {who} {mine[oid]} {other} {theirs[oid]}" for oid in mine if mine[oid] != theirs[oid]]


@pytest.mark.parametrize("state_based", [True, False], ids=["with-state-based-actions", "phasing-and-untap-only"])
@SETTINGS
@given(board=boards())
def test_one_untap_step_ends_in_the_same_state(books, state_based, board):
    game, active = board
    note(board_text(game))
    fast = untap_step(game, active, state_based=state_based)
    ref = observed(reference.untap_step(game, active, state_based=state_based))
    engine = prepare(books[state_based], game)
    engine.run_hook("untap step", active)
    interp = observed(engine.game.objects)
    diff = differences("fast", fast, ref, "reference") + differences("fast", fast, interp, "interpreter")
    assert not diff, COMPARED + ":\n" + "\n".join(diff)


@pytest.mark.parametrize("state_based", [True, False], ids=["with-state-based-actions", "phasing-and-untap-only"])
@SETTINGS
@given(board=boards(), data=st.data())
def test_several_untap_steps_in_a_row_end_in_the_same_state(books, state_based, board, data):
    """One fast board, one engine and the reference's chain of games, stepped together: the
    active players are drawn (any order, repeats allowed), so a permanent phases out in one
    step and comes back in a later one of the player it phased out under (702.26a), with what
    went with it (702.26g), and the fast board's indexes are read again after they changed."""
    game, _ = board
    players = list(game.order)
    actives = data.draw(st.lists(st.sampled_from(players), min_size=2, max_size=5), label="active players")
    note(board_text(game))
    fast = Board.from_game(game)
    engine = prepare(books[state_based], game)
    chain = game.copy()
    for step, active in enumerate(actives, 1):
        fast.untap_step(active, state_based=state_based)
        engine.run_hook("untap step", active)
        chain.objects = reference.untap_step(chain, active, state_based=state_based)
        mine = fast.observed()
        diff = (differences("fast", mine, observed(chain.objects), "reference")
                + differences("fast", mine, observed(engine.game.objects), "interpreter"))
        assert not diff, f"after step {step} ({active}), " + COMPARED + ":\n" + "\n".join(diff)


@SETTINGS
@given(board=boards())
def test_the_timed_setup_leaves_the_board_as_the_interpreters_first_state_check(books, board):
    """The benchmark's setup for the fast reference (the conversion, then a state check of
    everything, as `Engine.settle` does before the interpreter's clock starts) and the step
    after it end where the interpreter's do (704.5m/n/d, then 702.26a/g/h and 502.3)."""
    game, active = board
    note(board_text(game))
    fast = Board.from_game(game)
    fast.settle()
    engine = prepare(books[True], game)
    engine.settle()
    diff = differences("fast", fast.observed(), observed(engine.game.objects), "interpreter")
    assert not diff, "after the setup, " + COMPARED + ":\n" + "\n".join(diff)
    fast.untap_step(active)
    engine.run_hook("untap step", active)
    diff = differences("fast", fast.observed(), observed(engine.game.objects), "interpreter")
    assert not diff, "after the step, " + COMPARED + ":\n" + "\n".join(diff)


# ---------------------------------------------------------------- small boards, outcomes by rule


def two_player_game(*objects) -> Game:
    return Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", 1,
                {o.id: o for o in objects})


def test_attachments_go_and_come_back_with_their_host_across_steps():
    """702.26a/g/h over three steps. Alice's tapped Breezekeeper carries her Equipment with
    phasing, which carries Bob's Aura. In Alice's step all three phase out: the Breezekeeper
    directly under Alice, the Equipment indirectly although it has phasing (702.26h), the Aura
    indirectly under Bob, its controller. Bob's step changes none of them (the Aura phased out
    under Bob, but indirectly: 702.26g). In Alice's next step all three phase in and the
    Breezekeeper, now phased in, untaps (502.3)."""
    board = Board.from_game(two_player_game(
        permanent("djinn", PHASER, "Alice", timestamp=1, tapped=True),
        permanent("sword", EQUIPMENT, "Alice", attached_to="djinn", timestamp=2, extra_keywords=("phasing",)),
        permanent("aura", AURA, "Bob", attached_to="sword", timestamp=3),
    ))
    board.untap_step("Alice")
    after = board.observed()
    assert after["djinn"] == ("out", False, "Alice", True, None, "battlefield")
    assert after["sword"] == ("out", True, "Alice", False, "djinn", "battlefield")
    assert after["aura"] == ("out", True, "Bob", False, "sword", "battlefield")
    board.untap_step("Bob")
    assert board.observed() == after
    board.untap_step("Alice")
    back = board.observed()
    assert back["djinn"] == ("in", False, None, False, None, "battlefield")
    assert back["sword"] == ("in", False, None, False, "djinn", "battlefield")
    assert back["aura"] == ("in", False, None, False, "sword", "battlefield")


def test_a_directly_phased_out_aura_returns_onto_a_host_that_just_left_and_is_put_away(books):
    """702.26a/i and 704.5m, then the indexes after it. The Aura phased out directly under Alice
    on her Breezekeeper; in her step the Breezekeeper phases out and the Aura phases in (both
    at once), attached to something the game can't see, so it goes to the graveyard. The Aura
    was a token: 704.5d then ends it. The Equipment phased out the same way becomes unattached
    (704.5n). In Alice's next step the Breezekeeper comes back alone; nothing is still
    attached to it."""
    game = two_player_game(
        permanent("djinn", PHASER, "Alice", timestamp=1),
        permanent("aura", AURA, "Alice", attached_to="djinn", timestamp=2, token=True, tapped=True,
                  status={"phase": "out", "phased_out_under": "Alice", "phased_indirectly": False}),
        permanent("sword", EQUIPMENT, "Alice", attached_to="djinn", timestamp=3,
                  status={"phase": "out", "phased_out_under": "Alice", "phased_indirectly": False}),
    )
    board = Board.from_game(game)
    board.untap_step("Alice")
    after = board.observed()
    assert after["djinn"] == ("out", False, "Alice", False, None, "battlefield")
    assert after["aura"] == ("in", False, None, False, None, "nowhere")
    assert after["sword"] == ("in", False, None, False, None, "battlefield")
    engine = prepare(books[True], game)
    engine.run_hook("untap step", "Alice")
    assert observed(engine.game.objects) == after
    board.untap_step("Alice")
    assert board.observed()["djinn"] == ("in", False, None, False, None, "battlefield")
    assert board.objects["djinn"].children == []


def test_the_fast_reference_can_be_told_apart():
    """A fast board that forgets 702.26g (its attachments-by-host index emptied, so the Aura
    stays behind when its host phases out) ends in a different state from the reference's."""
    game = two_player_game(permanent("djinn", PHASER, "Alice", timestamp=1),
                           permanent("aura", AURA, "Alice", attached_to="djinn", timestamp=2))
    right = observed(reference.untap_step(game, "Alice"))
    assert right["aura"][:3] == ("out", True, "Alice")
    board = Board.from_game(game)
    board.objects["djinn"].children.clear()
    board.untap_step("Alice", state_based=False)
    assert board.observed()["aura"][:3] == ("in", False, None)
    assert board.observed() != right


def test_a_status_it_does_not_model_is_refused():
    """The fast reference leaves out 610.4's `phase_until`; a board carrying it is refused rather
    than stepped wrongly."""
    game = two_player_game(permanent("djinn", PHASER, "Alice", timestamp=1,
                                     status={"phase": "out", "phase_until": "bears", "phased_out_under": "Alice"}))
    with pytest.raises(ValueError, match="phase_until"):
        Board.from_game(game)
