"""Anchored static abilities worked out when what they name is read: `Statics.first_look`.

A new engine's first look at a board (every object of which is to be checked) leaves
unworked the sources whose every static ability gives fixed things to the object an
attribute stored on them names (an Aura's or an Equipment's `each x where this.attached_to
is x: x gets +1/+2`), counting against the step's budget what working them out would count;
each is worked out when the object it names is read, or, counting nothing, just before a
batch changes what it reaches or is (`Statics.before_changes`). None of that may change anything but when the work is done.
Here, on generated games played step by step (casts, turns, players leaving) and on the
untap-step boards of the benchmark's kind (settled, then an untap step), an engine that
defers and one that works every source out at once (`Statics.defers` off) leave, after each
step:

- the same trace (613: every characteristic read the same; 704.3: every state check the same);
- the same budget left (what a step counts does not depend on when the work is done);
- the same objects marked for the next state checks (what a check made again looks at
  decides what it counts);
- the same last known information of what the game stopped seeing (608.2h), with what
  static abilities gave it then;
- the same tables of what static abilities give, once every object is read.

Deferring is only for a look at a game every object of which is to be checked again: a
source that comes once the game has been checked is worked out at once, so that a -0/-2
Aura put onto a 2/1 bear sends it to the graveyard at the next check (704.5f).
"""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from phasing_rules.interpreter.program import program
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.model import Game, Permanent, Player
from phasing_rules.interpreter.engine.statics import Statics
from phasing_rules.interpreter.game.trace import Cause
from test_bounded_checks import CURSED
from phasing_rules.interpreter.play.scenario import ScenarioRun
from test_game_properties import BOOK, SETTINGS, HypothesisChooser, choose_step, parse_scenario, parse_step, start_game
from test_reference_differential import board_text, boards


def seen(engine: Engine) -> tuple:
    """What the two engines must agree on after a step (last known information too: what
    static abilities gave each object as the game stopped seeing it, 608.2h)."""
    lki = engine.game.lki
    return ([e.render() for e in engine.trace], engine.iterations_left,
            None if engine.dirty is None else sorted(engine.dirty), engine.game.fingerprint(),
            sorted((oid, sorted(dict(lki[oid]).items(), key=repr)) for oid in lki))


class Recorded:
    """A chooser that gives what `source` gives and keeps it, or (no source) gives back what
    another kept, in order: the same game played twice."""

    def __init__(self, source=None, kept: list | None = None):
        self.source, self.kept, self.at = source, [] if kept is None else kept, 0

    def _next(self, method: str, *args):
        if self.source is not None:
            value = getattr(self.source, method)(*args)
            self.kept.append(value)
            return value
        self.at += 1
        return self.kept[self.at - 1]

    def integer(self, lo: int, hi: int) -> int:
        return self._next("integer", lo, hi)

    def pick(self, options):
        return self._next("pick", options)

    def chance(self, percent: int) -> bool:
        return self._next("chance", percent)


def after_each_step(ch) -> list:
    """A generated game played with chooser `ch`: what `seen` finds at the start and after
    each step, with the tables of what static abilities give once every object is read."""
    game = start_game(ch, BOOK)
    engine = game.run.engine
    found = [seen(engine)]
    for _ in range(ch.integer(1, 6)):
        game.play(choose_step(ch, game))
        found.append(seen(engine) + (sorted(engine.statics.read_all().items()),))
    return found


@SETTINGS
@given(data=st.data())
def test_a_game_played_deferring_is_the_game_played_working_everything_out(data):
    """Step by step, a generated game leaves the same trace, budget, marks for the next
    checks and tables of what static abilities give (613) either way."""
    first = Recorded(HypothesisChooser(data))
    deferring = after_each_step(first)
    Statics.defers = False
    try:
        at_once = after_each_step(Recorded(kept=first.kept))
    finally:
        Statics.defers = True
    assert deferring == at_once


@pytest.mark.parametrize("backend", ["generated", "closures"])
@SETTINGS
@given(board=boards())
def test_an_untap_step_deferring_is_the_step_working_everything_out(backend, board):
    """On a board of Auras and Equipment in chains, some phased out: the first check, then an
    untap step (702.26a, g, h), leave the same trace, budget, marks and tables either way."""
    game, active = board
    note(board_text(game))
    runs = []
    for defers in (True, False):
        Statics.defers = defers
        try:
            engine = Engine(program.Program.of(BOOK, backend), game.copy())
            engine.settle()
            after_setup = seen(engine)
            engine.begin_step()
            engine.run_hook("untap step", active)
            runs.append((after_setup, seen(engine), sorted(engine.statics.read_all().items())))
        finally:
            Statics.defers = True
    assert runs[0] == runs[1]


@pytest.mark.parametrize("defers", [True, False])
def test_an_aura_that_comes_later_is_worked_out_at_once(defers):
    """704.5f: a 2/1 bear, alone at the first check (nothing static to defer, nothing given);
    then an Aura giving -0/-2 comes attached to it. Its toughness is -1 at the next check,
    which sends it to the graveyard: a source that comes once the game has been checked is
    worked out at once, whose object it names is checked again (deferring it there left the
    bear on the battlefield)."""
    Statics.defers = defers
    try:
        bear = Permanent(id="bear", card="Grizzly Bears", owner="Alice", controller="Alice",
                         types=frozenset({"creature"}), power=2, toughness=1, timestamp=1)
        game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", objects={"bear": bear})
        engine = Engine(program.Program.of(CURSED, "generated"), game)
        engine.settle()
        curse = Permanent(id="curse", card="Test Withering", owner="Alice", controller="Alice",
                          types=frozenset({"enchantment", "aura"}), attached_to="bear", timestamp=2)
        engine.writer.put(curse, Cause("script", "test"))
        engine.settle()
        assert game.objects["bear"].zone == "graveyard"
        assert not engine.statics.unworked
    finally:
        Statics.defers = True


ANTHEM_AND_WRATH = """scenario "an anthem worked out again, Auras deferred on a phased-out token" {
  players Alice Bob
  turn 1 of Alice
  permanent anthem = "Glorious Anthem", controller Bob
  permanent soldier = "Soldier Token", controller Bob, token, set phase = out, set phased_out_under = Bob
  permanent first = "Holy Strength", controller Bob, attached to soldier, set phase = out, set phased_out_under = Bob, set phased_indirectly = true
  permanent second = "Holy Strength", controller Bob, attached to soldier, set phase = out, set phased_out_under = Bob, set phased_indirectly = true
  permanent familiar = "Ertai's Familiar", controller Bob
  script {
  }
}
"""


def test_an_anthem_worked_out_again_marks_a_deferred_target_only_if_it_changed():
    """Wrath of God destroys Bob's Familiar; Glorious Anthem, which gave it +1/+1, is worked
    out again (613) and still gives the phased-out token +1/+1. The token's Auras were left
    to work out when it is read: what the anthem gives it is unchanged, so it and its Auras
    are not checked again. Deferring or not, the step leaves the same trace, the same budget
    (800.4c's check sees phased-out permanents: checking three more counted three more
    iterations) and the same marks."""
    runs = []
    for defers in (True, False):
        Statics.defers = defers
        try:
            run = ScenarioRun(parse_scenario(ANTHEM_AND_WRATH), BOOK, "<anthem>")
            run.engine.step = 1
            run.engine.begin_step()
            run.do(parse_step('cast "Wrath of God" by Alice'))
            runs.append(seen(run.engine))
        finally:
            Statics.defers = True
    assert runs[0][0] == runs[1][0]  # (the same trace: the Familiar goes to the graveyard)
    assert runs[0][1] == runs[1][1]  # (the same budget left)
    assert runs[0] == runs[1]
