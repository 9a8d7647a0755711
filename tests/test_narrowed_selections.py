"""A selection whose only write is one fixed value leaves out what has that value already.

In generated code (`codegen.Emitter.narrowed`), `each x where ...: untap x` (502.3), or
`each x where ...: set x.S = V` for a value V fixed for the whole selection, counts its
candidates against the step's budget as before and then loops only over those whose
attribute is not V yet, found through the index of that value (whether a permanent is
tapped is indexed for this; statuses are): for the others the write would change nothing,
and a batch keeps a write that changes nothing only where its writers contest the
attribute (`Batch.contested`, for `prefer` and conflicts), in which case nothing is left
out. Checked here:

- on Hypothesis's boards, the untap step played by generated code with and without the
  narrowing ends in the same state with the same trace, and leaves the same iterations and
  writes of the step's budget (the candidates counted are the same);
- where the attribute is contested (a `tap` and an `untap` of the same creatures at once),
  the write that changes nothing is still made, and the conflict is still found (CR 702.26h
  is the only `prefer` of the rulebook; two writers of `tapped` with no `prefer` are an error).
"""

from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, note, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench.engines import full_book, observed  # noqa: E402
from phasing_rules.interpreter.program import codegen  # noqa: E402
from phasing_rules.interpreter.program.backends import GeneratedBackend  # noqa: E402
from phasing_rules.interpreter.engine.engine import Engine, RulesError  # noqa: E402
from phasing_rules.interpreter.program.program import Program  # noqa: E402
from phasing_rules.interpreter.game.trace import SCRIPT, rule_cause  # noqa: E402
from tests.test_engine import ENCHANTED, start, statement  # noqa: E402
from tests.test_reference_differential import board_text, boards  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BOOK = full_book()
# A program of its own, whose code is written with no selection narrowed (`Program.of` would
# share the narrowed one): each of its statements is compiled the first time it runs, which is
# always inside `whole()`.
WHOLE = Program(BOOK, GeneratedBackend())


def whole():
    return mock.patch.object(codegen.Emitter, "narrowed", return_value=None)


def play(program: Program, game, active: str) -> tuple:
    engine = Engine(program, game.copy())
    engine.settle()
    engine.run_hook("untap step", active)
    return (engine.iterations_left, engine.writes_left, [e.render() for e in engine.trace],
            observed(engine.game.objects))


def test_the_untap_selection_is_narrowed_by_the_tapped_index():
    """502.3's selection, written as Python, leaves out the candidates already untapped where
    its batch keeps no unchanged write of tapped; the narrowing follows the count."""
    (rule, during) = next((r, d) for r, d in Program.of(BOOK).index.hooks["untap step"] if r.id == "502.3")
    program = Program.of(BOOK, "generated")
    source = program.compiler.body_runner(during.body, rule_cause(program, rule, during)).source
    count = source.index("eng.iterations_left -= len(")
    narrowed = source.index("eng.indexes.lookup('tapped', False)")
    assert count < narrowed < source.index("for oid_")
    assert "contested is None or 'tapped' in contested" in source


@SETTINGS
@given(board=boards())
def test_an_untap_step_ends_and_counts_as_without_the_narrowing(board):
    """502.3 untaps what the active player controls and the game sees, after 702.26a and n
    (502.1): with the selection narrowed or not, the same state, the same trace event for
    event, and the same iterations and writes left of the step's budget."""
    game, active = board
    note(board_text(game))
    narrowed = play(Program.of(BOOK, "generated"), game, active)
    with whole():
        unnarrowed = play(WHOLE, game, active)
    assert narrowed[3] == unnarrowed[3], "502.3: the same permanents untapped"
    assert narrowed[2] == unnarrowed[2], "the same trace"
    assert narrowed[:2] == unnarrowed[:2], "the same budget counted"


@pytest.mark.parametrize("setup", [ENCHANTED, ENCHANTED.replace('"Grizzly Bears", controller Alice',
                                                                 '"Grizzly Bears", controller Alice, tapped')])
def test_a_contested_attribute_is_not_narrowed(setup):
    """A `tap` and an `untap` of every creature at once contest tapped: the write that
    changes nothing (untapping an untapped bear, or tapping a tapped one) still meets the one
    that changes it, and the conflict is an error, with nothing applied, in generated code as
    with the closures."""
    for backend in ("generated", "closures"):
        run = start(BOOK, setup, backend=backend)
        before = run.game.objects["bear"].tapped
        with pytest.raises(RulesError, match="conflicting simultaneous changes: bear.tapped"):
            run.engine.run(statement("simultaneously { each x where x is a creature: untap x  "
                                     "each x where x is a creature: tap x }"), {}, SCRIPT)
        assert run.game.objects["bear"].tapped is before, "nothing was applied"
