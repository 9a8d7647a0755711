"""What static abilities give, read afresh after a batch of runs only where the batch has not
read it afresh already (`Statics.touched_runs`' `afresh`, from `ObjectWriter.put_runs`).

613, 704.3: when an Aura or an Equipment starts or stops being seen (it phases in or out),
what it gives the object its anchor names changes, so that object's characteristics are read
afresh and the next state checks look at it again. A batch of runs has done both already for
every object it wrote that a state check reads (702.26g: a host and what goes along with it
phase together), so those are not looked at again. Here:

- on the untap-step boards of chained Auras and Equipment, some phased out, over several
  turns, the engine that skips them and one that looks at every object a source names leave
  the same trace, budget, marks for the next state checks, game and last known information
  after each step;
- an Aura giving -0/-2 that phases in on its own, onto a 2/1 bear that does not phase, still
  sends the bear to the graveyard (704.5f): the bear was not written, so it is read afresh;
- on a rulebook written for the test, where one batch shows a hidden -0/-2 Aura and untaps
  the bear it names, the bear is read afresh and checked too: the batch wrote it, but only
  whether it is tapped, which no state check reads, so nothing had marked it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from phasing_rules.interpreter.program import program
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.model import Game, Permanent, Player
from phasing_rules.interpreter.engine.statics import Statics
from test_bounded_checks import CURSE, CURSED
from test_budgets import book, rule
from test_deferred_statics import seen
from test_game_properties import BOOK, SETTINGS
from test_reference_differential import board_text, boards, untap_steps


def play(game: Game, active: str, turns: int) -> list:
    """`seen` after the first check and after each untap step, the players taking turns."""
    engine = Engine(program.Program.of(BOOK, "generated"), game.copy())
    engine.settle()
    found = [seen(engine)]
    for _ in untap_steps(engine, active, turns):
        found.append(seen(engine))
    return found


@SETTINGS
@given(board=boards(), turns=st.integers(1, 3))
def test_skipping_what_a_batch_read_afresh_changes_nothing(board, turns):
    """702.26a, g, h; 613; 704.3: with and without leaving out what the batch read afresh,
    every step leaves the same trace, budget, marks, game and last known information."""
    game, active = board
    note(board_text(game))
    skipping = play(game, active, turns)
    touched_runs = Statics.touched_runs
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Statics, "touched_runs", lambda statics, runs, masks, afresh=(): touched_runs(statics, runs, masks))
        looking = play(game, active, turns)
    assert skipping == looking


def test_an_aura_phasing_in_on_its_own_still_reaches_its_host():
    """702.26a, 613, 704.5f: a 2/1 bear enchanted by a -0/-2 Aura that phased out on its own
    under Alice. In Alice's untap step the Aura phases in and the bear, which does not phase,
    has toughness -1: the next state check puts it into its owner's graveyard."""
    bear = Permanent(id="bear", card="Grizzly Bears", owner="Alice", controller="Alice",
                     types=frozenset({"creature"}), power=2, toughness=1, timestamp=1)
    curse = Permanent(id="curse", card="Test Withering", owner="Alice", controller="Alice",
                      types=frozenset({"enchantment", "aura"}), attached_to="bear", timestamp=2,
                      status={"phase": "out", "phased_out_under": "Alice"})
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice",
                objects={"bear": bear, "curse": curse})
    engine = Engine(program.Program.of(CURSED, "generated"), game)
    engine.settle()
    assert game.objects["bear"].zone == "battlefield"  # (the Aura, phased out, gives nothing)
    engine.begin_step()
    engine.run_hook("untap step", "Alice")
    assert game.objects["curse"].get_status("phase", "in") == "in"
    assert game.objects["bear"].zone == "graveyard"


def test_an_object_written_only_where_no_check_reads_is_still_read_afresh():
    """613, 704.5f, on a rulebook of one hide rule (`x.mark is true`, whose changes the game
    does not perceive as an object entering or leaving, as 702.26d says of phasing), one state
    check and an untap step that, as one batch, clears the mark of what Alice controls and
    untaps it (committed as runs): the
    -0/-2 Aura on Alice's tapped 2/1 bear is seen again and the bear untapped in the same
    batch. The bear was written, but only its `tapped`, which no state check reads: it is
    read afresh and checked, and goes to the graveyard."""
    rules = book(rule("900.1", "hidden-by-mark", "hide x where x.mark is true",
                      "changes of mark are not zone-change, control-change, attachment-change")
                 + rule("900.2", "zero-toughness", "during state check: each x where x is a creature and x.toughness <= 0: "
                        "move x to graveyard")
                 + rule("900.3", "shown-and-untapped", "during untap step of P: simultaneously {",
                        "  each x where x.mark is true and x.controller is P: set x.mark = false",
                        "  each y where y.controller is P: untap y", "}"), CURSE)
    bear = Permanent(id="bear", card="Grizzly Bears", owner="Alice", controller="Alice",
                     types=frozenset({"creature"}), power=2, toughness=1, tapped=True, timestamp=1)
    curse = Permanent(id="curse", card="Test Withering", owner="Alice", controller="Alice",
                      types=frozenset({"enchantment", "aura"}), attached_to="bear", timestamp=2, status={"mark": True})
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice",
                objects={"bear": bear, "curse": curse})
    engine = Engine(program.Program.of(rules, "generated"), game)
    engine.settle()
    assert game.objects["bear"].zone == "battlefield"  # (the Aura, hidden, gives nothing)
    engine.begin_step()
    engine.run_hook("untap step", "Alice")
    assert not game.objects["bear"].tapped and game.objects["curse"].get_status("mark", False) is False
    assert game.objects["bear"].zone == "graveyard"
