"""The upkeep step and abilities that trigger as a step begins (interpreter/engine/turns.py,
interpreter/engine/triggers.py `Triggers.step_begins`).

The turn runs the active player's upkeep step after the untap step (503.1), also when the
untap step is skipped: a block hooked `during upkeep of P` runs then, before the abilities the
step's beginning triggered resolve (they are put on the stack the next time a player would get
priority, once the step's own actions are done: 603.3). No shipped rule hooks the upkeep, so the
block here is a test block of a variant of the current rules; the scenarios of
tests/scenarios/steps.scenario pin the cards' side.
"""

from __future__ import annotations

import pytest

from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.engine.engine import Engine
from tests import test_engine

# A test block: in the upkeep, the active player's permanents become tapped.
UPKEEP_BLOCK = ('rule 503.9 upkeep-probe "A test block: in their upkeep the active player taps what they control." {\n'
                '  during upkeep of P: each x where x.controller is P: tap x\n'
                '}\n\n')
ANCHOR = "rule 704.5m illegal-aura"

COUNTER = '''
card "Test Tapped Counter" {
  # Test card: at the beginning of its controller's upkeep, they gain 1 life for each tapped permanent.
  types enchantment
  at beginning of upkeep of you: you gain count(x where x.tapped) life
}
'''

BOARD = """
  permanent bear = "Grizzly Bears", controller Alice
  permanent djinn = "Breezekeeper", controller Alice
  permanent away = "Grizzly Bears", controller Alice, set phase = out, set phased_out_under = Alice
  permanent rival = "Grizzly Bears", controller Bob
  permanent counter = "Test Tapped Counter", controller Alice
"""


@pytest.fixture(scope="module")
def book():
    base = test_engine.variant({"support.rules": [(ANCHOR, UPKEEP_BLOCK + ANCHOR)]})
    return base.with_cards(parse(COUNTER, "<cards>").items)


def tapped(run) -> dict[str, bool]:
    return {oid: o.tapped for oid, o in run.game.objects.items()}


@pytest.mark.parametrize("backend", ["closures", "generated"])
def test_the_upkeep_comes_after_the_untap_step_and_its_block_before_its_triggered_abilities(book, backend):
    """Alice's turn: in her untap step the djinn (phasing) phases out and the bear phased out
    under her phases in (702.26a); then her upkeep (503.1): the test block taps what she
    controls and the game sees (not the phased-out djinn, 702.26b; not Bob's bear), and only
    then does the counter's ability, triggered as the upkeep began, resolve: 3 tapped
    permanents (bear, away, the counter itself), 3 life."""
    run = test_engine.start(book, BOARD, active="Bob", backend=backend)
    test_engine.step(run, "next turn")
    assert tapped(run) == {"bear": True, "djinn": False, "away": True, "rival": False, "counter": True}
    assert run.game.players["Alice"].life == 23
    steps = [e.detail for e in run.engine.trace if e.kind == "step"]
    assert steps[-2:] == ["untap step", "upkeep step"]


@pytest.mark.parametrize("backend", ["closures", "generated"])
def test_a_skipped_untap_step_still_leaves_the_upkeep(book, backend):
    """`next turn skipping untap step`: nothing phases (702.26m), but the upkeep happens all
    the same: the djinn, still phased in, is tapped with the bear, and the phased-out bear is
    not (702.26b); the counter counts bear, djinn and itself."""
    run = test_engine.start(book, BOARD, active="Bob", backend=backend)
    test_engine.step(run, "next turn skipping untap step")
    assert tapped(run) == {"bear": True, "djinn": True, "away": False, "rival": False, "counter": True}
    assert run.game.players["Alice"].life == 23
    steps = [e.detail for e in run.engine.trace if e.kind == "step"]
    assert steps[-2:] == ["untap step is skipped", "upkeep step"]


def test_both_backends_leave_the_same_trace(book):
    traces = []
    for backend in ("closures", "generated"):
        run = test_engine.start(book, BOARD, active="Bob", backend=backend)
        test_engine.step(run, "next turn", "next turn", "next turn skipping untap step")
        traces.append(run.engine.trace)
    assert traces[0] == traces[1]


def test_run_hook_of_a_step_triggers_the_abilities_of_its_beginning(book):
    """An engine user who runs a step's hook (`Engine.run_hook("upkeep step", P)`) begins that
    step: the counter's ability triggers and waits with the other triggered abilities until
    they are resolved (603.3); Bob's upkeep triggers nothing of Alice's (603.2)."""
    run = test_engine.start(book, BOARD, active="Alice")
    engine: Engine = run.engine
    engine.run_hook("upkeep step", "Bob")
    assert not engine.game.pending
    engine.run_hook("upkeep step", "Alice")
    assert [t.source for t in engine.game.pending] == ["counter"]
    engine.resolve_triggers()
    # tapped by then: Bob's bear (in his upkeep), and Alice's bear, djinn and counter, not the
    # phased-out bear, which the block's selection does not see (702.26b)
    assert engine.game.players["Alice"].life == 24
    assert not engine.game.objects["away"].tapped
