"""Last known information of what static abilities gave, worked out from the journal when
first asked (`interpreter.engine.given_at.GivenAt`, made by `Statics.given_later`).

608.2h: last known information is the object as it last existed, with what static abilities
gave it then (613). Where every source on the board is read off itself (an Aura's or an
Equipment's `each x where this.attached_to is x: x gets ...`) and every hide rule reads a
stored status, the engine keeps only the journal position and works the gifts out from the
objects the journal gives back, when someone asks. These tests hold it to what
`Statics.given` works out at once, at the moment the information is kept:

- on generated games played step by step (casts, turns, board wipes, players leaving), and
  on boards of chained Auras and Equipment over several untap steps, each lazily kept
  record, asked only at the end, gives what `given` gave when it was kept;
- an Aura moved to another creature after its host phased out still counts for the host's
  last known toughness (the journal, not the index of attachments now, says what it named),
  after an undo that takes the move back and in a copy of the game made after it; an undo
  to before the step takes the record away; a store that keeps the journal only since a
  checkpoint works it out at once;
- `Store.objects_changed_since` finds what entries after a position changed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from phasing_rules.interpreter.program import program
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.engine.given_at import GivenAt
from phasing_rules.interpreter.game.model import Game, Permanent, Player
from phasing_rules.interpreter.engine.statics import Statics
from phasing_rules.interpreter.game.store import Bulk, store_of
from phasing_rules.interpreter.game.trace import Cause
from test_game_properties import BOOK, SETTINGS, HypothesisChooser, choose_step, start_game
from test_reference_differential import board_text, boards, untap_steps

SCRIPT = Cause("script", "test")


class Kept:
    """While in use, every `Statics.given_later` that keeps its work for later is also
    worked out at once (`Statics.given`, on the same objects, at the same moment): the pairs,
    to compare once play is over."""

    def __init__(self, monkeypatch):
        self.pairs: list[tuple[list[str], dict, GivenAt]] = []
        later = Statics.given_later

        def given_later(statics, oids):
            kept = later(statics, oids)
            if kept is not None:
                self.pairs.append((list(oids), statics.given(oids), kept))
            return kept

        monkeypatch.setattr(Statics, "given_later", given_later)

    def differences(self) -> list[str]:
        """Each object whose record, asked now, gives other than `given` gave then (an empty
        list and nothing given read alike: characteristics add nothing for either)."""
        found = []
        for oids, at_once, later in self.pairs:
            for oid in oids:
                then, now = list(at_once.get(oid, ())), list(later.get(oid, ()))
                if then != now:
                    found.append(f"{oid}: given {then} when kept, {now} worked out from the journal")
        return found


@SETTINGS
@given(data=st.data())
def test_generated_games_keep_what_was_given_then(data):
    """608.2h, 613: on a generated game played step by step, every record of what static
    abilities gave an object the game stopped seeing, worked out from the journal only once
    play is over, is what was worked out when it was kept."""
    with pytest.MonkeyPatch.context() as m:
        kept = Kept(m)
        ch = HypothesisChooser(data)
        game = start_game(ch, BOOK)
        for _ in range(ch.integer(1, 6)):
            game.play(choose_step(ch, game))
        assert kept.differences() == []


@pytest.mark.parametrize("backend", ["generated", "closures"])
@SETTINGS
@given(board=boards(), turns=st.integers(1, 3))
def test_untap_steps_keep_what_was_given_then(backend, board, turns):
    """702.26a, g, h and 608.2h: on a board of Auras and Equipment in chains, some phased out,
    the first check and untap steps of several turns (what phases out is remembered, with
    what its Auras and Equipment gave it; what phases in is checked again and may leave):
    every record, asked at the end, gives what was given when it was kept."""
    game, active = board
    note(board_text(game))
    with pytest.MonkeyPatch.context() as m:
        kept = Kept(m)
        engine = Engine(program.Program.of(BOOK, backend), game.copy())
        engine.settle()
        for _ in untap_steps(engine, active, turns):
            pass
        assert kept.differences() == []


def creature(oid: str, card: str, pt: tuple[int, int], *, keywords: tuple[str, ...] = (), stamp: int) -> Permanent:
    return Permanent(id=oid, card=card, owner="Alice", controller="Alice", types=frozenset({"creature"}),
                     power=pt[0], toughness=pt[1], keywords=keywords, timestamp=stamp)


def enchanted_djinn_phased_out(backend: str, journal: str = "game") -> tuple[Game, int]:
    """A 4/4 Breezekeeper enchanted by Holy Strength (+1/+2) beside a bear, played through
    Alice's untap step, in which the djinn phases out and the Aura with it (702.26a, g); and
    the journal's position before the step."""
    djinn = creature("djinn", "Breezekeeper", (4, 4), keywords=("flying", "phasing"), stamp=1)
    bear = creature("bear", "Grizzly Bears", (2, 2), stamp=2)
    aura = Permanent(id="aura", card="Holy Strength", owner="Alice", controller="Alice",
                     types=frozenset({"enchantment", "aura"}), attached_to="djinn", timestamp=3)
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice",
                objects={"djinn": djinn, "bear": bear, "aura": aura})
    engine = Engine(program.Program.of(BOOK, backend), game, journal=journal)
    engine.settle()
    engine.begin_step()
    before = store_of(game).mark()
    engine.run_hook("untap step", "Alice")
    assert game.objects["djinn"].get_status("phase", "in") == "out"
    return game, before


@pytest.mark.parametrize("backend", ["generated", "closures"])
def test_an_aura_moved_after_its_host_phased_out_still_counts_for_it(backend):
    """608.2h, 702.26a, 702.26g: the enchanted djinn phases out with its Aura, which is then
    moved onto a bear. The djinn's last known toughness is still 6: what the Aura named when
    the djinn was remembered is read back from the journal (the index of attachments now
    finds no Aura on the djinn: kept without the journal's changes, the djinn read 4)."""
    game, _before = enchanted_djinn_phased_out(backend)
    infos, k = game.lki.held("djinn", None)
    assert isinstance(infos.given, GivenAt)  # (kept for later: nothing asked yet)
    store_of(game).write("aura", "attached_to", "bear", SCRIPT)
    assert dict(game.lki["djinn"])["toughness"] == 6


def test_undo_and_copies_keep_what_was_given():
    """608.2h with the journal walked back and games copied: undone to just after the step
    (the Aura's move taken back), the djinn's last known toughness is 6; a copy of the game
    made after the move reads 6 too (worked out from the original's journal as it is
    copied); undone to before the step, the djinn has no last known information."""
    game, before = enchanted_djinn_phased_out("generated")
    store = store_of(game)
    after = store.mark()
    store.write("aura", "attached_to", "bear", SCRIPT)
    store.undo(after)
    assert game.objects["aura"].attached_to == "djinn"
    assert dict(game.lki["djinn"])["toughness"] == 6

    game, before = enchanted_djinn_phased_out("generated")
    store_of(game).write("aura", "attached_to", "bear", SCRIPT)
    copied = game.copy()
    assert dict(copied.lki["djinn"])["toughness"] == 6 and dict(game.lki["djinn"])["toughness"] == 6

    game, before = enchanted_djinn_phased_out("generated")
    store_of(game).undo(before)
    assert "djinn" not in game.lki


def test_a_journal_kept_since_a_checkpoint_works_it_out_at_once():
    """A store that keeps the journal only since the last checkpoint reads every record
    before it trims: what static abilities gave is worked out when kept (`Statics.given`),
    and the djinn's last known toughness is 6 after the Aura moved and a checkpoint."""
    game, _before = enchanted_djinn_phased_out("generated", journal="checkpoint")
    infos, k = game.lki.held("djinn", None)
    assert not isinstance(infos.given, GivenAt)
    store = store_of(game)
    store.write("aura", "attached_to", "bear", SCRIPT)
    store.checkpoint()
    assert dict(game.lki["djinn"])["toughness"] == 6


def test_objects_changed_since_reads_entries_after_a_position():
    """`Store.objects_changed_since`: the objects whose named attributes, or whole selves,
    entries at a position or after changed: a write, a status, a group of bulk entries read
    by its attributes, an object put in place; not entries before the position, nor
    attributes not asked about, nor last known information (which changes no object)."""
    objects = {oid: creature(oid, "Grizzly Bears", (2, 2), stamp=n) for n, oid in enumerate("abcdefg")}
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", objects=objects)
    store = store_of(game)
    store.write("a", "attached_to", "b", SCRIPT)  # (before the position)
    mark = store.mark()
    store.remember_all(["b"], [{"toughness": 2}], SCRIPT)
    store.write("c", "attached_to", "a", SCRIPT)
    store.write("d", "tapped", True, SCRIPT)  # (an attribute not asked about)
    group = [Bulk("attached_to", ["e"], [None], SCRIPT, value="a", positions=range(0, 1)),
             Bulk("phase", ["f"], ["in"], SCRIPT, value="out", positions=range(1, 2))]
    store.journal_bulk(group)
    for b in group:
        store.apply_bulk(b)
    store.put_object(creature("g", "Grizzly Bears", (3, 3), stamp=9), SCRIPT)
    assert store.objects_changed_since(mark, {"attached_to"}) == {"c", "e", "g"}
    assert store.objects_changed_since(mark, {"attached_to", "phase", "tapped"}) == {"c", "d", "e", "f", "g"}
    assert store.objects_changed_since(store.mark(), {"attached_to"}) == set()
    assert store.objects_changed_since(0, {"attached_to"}) == {"a", "c", "e", "g"}
