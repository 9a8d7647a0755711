"""Whether the game saw each object of a batch of runs, read off the runs (`Hiding.sight_of_runs`).

Before a batch of runs is applied, the engine asks whether the game sees each object it
writes: last known information is kept of those it sees (608.2h, 603.10b), and triggered
abilities compare with it. Where the one hide rule reads a status the runs write (702.26b:
`hide x where x.phase is out`), whether the game sees each object of those runs is read off
the value its write replaces, which is its value before the batch, and its zone; any other
object written is looked up as before (`Hiding.sight`). Here:

- on the untap-step boards of chained Auras and Equipment, some phased out, over several
  turns, every batch of runs sees what `sight` sees, object for object;
- on a rulebook written for the test, one batch both phases out what has phasing and untaps
  what does not (502.3): the untapped bear, written by no run of the phase, is looked up,
  and the last known information kept is that of exactly the objects the game saw;
- with two hide rules, nothing is read off the runs: `sight` answers (a creature hidden by
  the other rule, which a run of the first rule's status writes, was not seen).
"""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from phasing_rules.interpreter.program import program
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.engine.hiding import Hiding
from phasing_rules.interpreter.game.model import Game, Permanent, Player
from test_budgets import book, rule
from test_game_properties import BOOK, SETTINGS
from test_reference_differential import board_text, boards, untap_steps


def checking(m: pytest.MonkeyPatch) -> list[tuple[list[str], dict[str, bool]]]:
    """Every `sight_of_runs` asked from here on (through `m`), checked against `sight` of the
    same objects at the same point; the attributes of its runs and its answer, in order."""
    asked: list[tuple[list[str], dict[str, bool]]] = []
    of_runs = Hiding.sight_of_runs

    def checked(hiding, runs, touched):
        found = of_runs(hiding, runs, touched)
        assert found == hiding.sight(list(touched)), "read off the runs, the game saw otherwise"
        asked.append(([b.attr for b in runs], found))
        return found

    m.setattr(Hiding, "sight_of_runs", checked)
    return asked


def play(rules, game: Game, active: str, turns: int) -> Engine:
    engine = Engine(program.Program.of(rules, "generated"), game)
    engine.settle()
    for _ in untap_steps(engine, active, turns):
        pass
    return engine


@SETTINGS
@given(board=boards(), turns=st.integers(1, 3))
def test_what_the_runs_say_the_game_saw_is_what_it_saw(board, turns):
    """702.26a, b, g: every batch of runs of the untap step sees each object it writes as
    `sight` sees it, before the batch is applied."""
    game, active = board
    note(board_text(game))
    with pytest.MonkeyPatch.context() as m:
        asked = checking(m)
        play(BOOK, game.copy(), active, turns)
    phases = [found for attrs, found in asked if "phase" in attrs]
    assert all(isinstance(seen, bool) for found in phases for seen in found.values())


MIXED = book(rule("900.1", "hidden-by-mark", "hide x where x.mark is true",
                  "changes of mark are not zone-change, control-change, attachment-change")
             + rule("900.2", "marked-and-untapped", "during untap step of P: simultaneously {",
                    "  each x where x.mark is false and x.controller is P and x has phasing: set x.mark = true",
                    "  each y where y.controller is P and not y has phasing: untap y", "}"))


def mixed_game() -> Game:
    def creature(oid: str, card: str, keywords: tuple, stamp: int, **fields) -> Permanent:
        return Permanent(id=oid, card=card, owner="Alice", controller="Alice", types=frozenset({"creature"}),
                         power=1, toughness=1, keywords=keywords, timestamp=stamp, **fields)
    objects = {"phaser": creature("phaser", "Breezekeeper", ("phasing",), 1),
               "bear": creature("bear", "Grizzly Bears", (), 2, tapped=True),
               "gone": creature("gone", "Grizzly Bears", (), 3, tapped=True, zone="graveyard")}
    return Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", objects=objects)


def test_an_object_no_run_of_the_hidden_status_writes_is_looked_up(monkeypatch):
    """502.3 and a hide rule of the test's (`x.mark is true`): one batch marks the creature
    with phasing, which the game then stops seeing, and untaps the bear, which no run of
    `mark` writes: the bear is looked up (seen, on the battlefield), the marked creature read
    off its run (seen before the batch); the creature in the graveyard is written by neither
    (untap looks at every object the game sees, and a graveyard's are not among them).
    Last known information is kept of both objects the game saw."""
    compared = checking(monkeypatch)
    engine = play(MIXED, mixed_game(), "Alice", 1)
    assert [found for attrs, found in compared if "mark" in attrs] == [{"phaser": True, "bear": True}]
    assert engine.game.objects["phaser"].get_status("mark", False) is True
    assert not engine.game.objects["bear"].tapped and engine.game.objects["gone"].tapped
    assert {"phaser", "bear"} <= set(engine.game.lki)


def test_with_two_hide_rules_sight_answers(monkeypatch):
    """With a second hide rule of the test's (`x.veil is true`) beside `x.mark is true`, what
    a run of `mark` replaced does not say alone whether the game saw an object: a creature
    with phasing hidden by its veil, marked by a selection that includes hidden objects, was
    not seen before the batch, as `sight`, which answers for it, says."""
    two = book("status veil: bool = false cites 100.1\n"
               + rule("900.1", "hidden-by-mark", "hide x where x.mark is true",
                      "changes of mark are not zone-change, control-change, attachment-change")
               + rule("900.3", "hidden-by-veil", "hide x where x.veil is true")
               + rule("900.2", "marked", "during untap step of P: each x including hidden where x.mark is false "
                      "and x.controller is P and x has phasing: set x.mark = true"))
    game = mixed_game()
    game.objects["phaser"].statuses["veil"] = True
    compared = checking(monkeypatch)
    engine = play(two, game, "Alice", 1)
    assert len(engine.hiding.stored_hide_tests()) == 2
    assert compared == [(["mark"], {"phaser": False})]
    assert engine.game.objects["phaser"].get_status("mark", False) is True
