"""Generated Python against the closures that define it (`interpreter.program.codegen`).

The engine runs rule bodies (with their blocks' exemptions), `as` and `after` clauses,
assertions after a change and the state checks made again for changed objects (in one pass)
as Python written from the rule files once per rulebook (the "generated" backend of `interpreter.program.backends`, chosen when the `Program` is built; tests
choose one by `interpreter.program.program.DEFAULT_BACKEND`). The closures
of `interpreter.program.compiled` and `Compiler.compile_statement` stay the definition. These tests run
both and ask for the same outcome and the same trace, event for event, on:

- every scenario of the conformance suite, under every version and variant it names
  (every subrule of 702.26 and the rules around it, as the suite exercises them);
- untap steps on boards Hypothesis draws (chains of attachments, tokens, permanents phased
  out under other players), under the current rulebook;
- games of the property tests' generator (tests/test_game_properties.py), played from their
  text, under the current rulebook (the generated backend makes its statements' and `as`
  clauses' writes as runs, `Batch.bulks`, and commits most batches as them; the closures make
  a `Write` of each).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench.boards import build_board  # noqa: E402
from bench.engines import full_book, prepare  # noqa: E402
from phasing_rules.dsl import ast  # noqa: E402
from phasing_rules.interpreter.program import program  # noqa: E402
from phasing_rules.interpreter.engine.engine import Engine  # noqa: E402
from phasing_rules.interpreter.program.program import Program  # noqa: E402
from phasing_rules.interpreter.game.refs import Obj  # noqa: E402
from phasing_rules.interpreter.game.trace import SCRIPT, Cause, rule_cause  # noqa: E402
from phasing_rules.interpreter.rulebook.loading import available_variants, available_versions, load_version  # noqa: E402
from phasing_rules.interpreter.game.budget import Budget  # noqa: E402
from phasing_rules.interpreter.play.scenario import ScenarioRun  # noqa: E402
from phasing_rules.interpreter.play.suite import run_case, versions_for  # noqa: E402
from tests import test_engine  # noqa: E402
from tests.test_game_properties import RandomChooser, parse_scenario, play_generated  # noqa: E402
from tests.test_reference_differential import boards  # noqa: E402
from samples import shipped_suite  # noqa: E402

CASES, _PROBLEMS = shipped_suite()


def both_ways(monkeypatch, run):
    """`run()` with generated Python, then with the closures (each named: by default a small
    game would get the closures both times)."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated")
    generated = run()
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "closures")
    defined = run()
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated")
    return generated, defined


def scenario_pairs() -> list:
    """Every scenario under every version it runs under: under its newest one in the default
    run, under the others in the slow selection (the same comparison, the whole matrix)."""
    pairs: list = []
    for c in CASES:
        versions = list(versions_for(c, None))
        pairs += [(c, v) if i == len(versions) - 1 else pytest.param(c, v, marks=pytest.mark.slow)
                  for i, v in enumerate(versions)]
    return pairs


@pytest.mark.parametrize("case,version", scenario_pairs(),
                         ids=lambda x: x if isinstance(x, str) else f"{Path(x.path).stem}:{x.scenario.name[:50]}")
def test_a_scenario_runs_the_same_both_ways(monkeypatch, case, version):
    book = load_version(version)
    generated, defined = both_ways(monkeypatch, lambda: run_case(case, book))
    assert generated.passed == defined.passed
    assert [d.render() for d in generated.failures] == [d.render() for d in defined.failures]
    assert generated.trace == defined.trace, "the traces part ways"
    assert generated.final == defined.final
    assert generated.expectations == defined.expectations


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(board=boards())
def test_an_untap_step_runs_the_same_both_ways(monkeypatch, board):
    game, active = board
    book = full_book()

    def step():
        engine = prepare(book, game, program.DEFAULT_BACKEND)  # (the one `both_ways` names)
        engine.run_hook("untap step", active)
        return engine.trace, engine.game.objects, (engine.iterations_left, engine.writes_left)

    (trace, objects, left), (defined_trace, defined_objects, defined_left) = both_ways(monkeypatch, step)
    assert trace == defined_trace
    assert objects == defined_objects
    assert left == defined_left, "the same iterations and writes counted against the step's budget"


def test_a_selection_of_what_is_attached_counts_as_the_closures_count_it(monkeypatch):
    """702.26g's return-along clause, `each y where y.phase is out and y.phased_indirectly and
    y.attached_to is x`, as the bear phases in: generated code takes what is attached to the
    bear as its candidates, and counts against the step's budget only those the closures'
    indexes leave (phased out, and indirectly): the Aura here phased out on its own, so it is
    not counted, and neither is a Curse attached to a player. Likewise 702.26g's go-along
    clause counts no attachment the game does not see. Both backends end the step with the
    same iterations left."""
    book = full_book()
    run = test_engine.start(book, """
  permanent bear = "Breezekeeper", controller Alice, set phase = out, set phased_out_under = Alice
  permanent strength = "Holy Strength", controller Alice, attached to bear, set phase = out, set phased_out_under = Alice
  permanent djinn = "Breezekeeper", controller Alice
  permanent aside = "Holy Strength", controller Alice, attached to djinn, set phase = out, set phased_out_under = Bob
""", active="Alice")
    game = run.game

    def step():
        engine = prepare(book, game, program.DEFAULT_BACKEND)
        engine.run_hook("untap step", "Alice")
        return engine.iterations_left, engine.writes_left, engine.trace

    (left, writes, trace), (defined_left, defined_writes, defined_trace) = both_ways(monkeypatch, step)
    assert trace == defined_trace
    assert (left, writes) == (defined_left, defined_writes)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_generated_game_plays_the_same_both_ways(monkeypatch, seed):
    """A game of the property tests' generator (several players, spells that phase permanents
    out, turns with and without untap steps, players leaving), written out as a scenario and
    played from its text in each backend: the same trace, event for event, and the same final
    state (the generated backend makes writes in bulk, the closures never do)."""
    book = full_book()
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "closures")
    text = play_generated(RandomChooser(seed), book, checks=()).text()

    def play():
        run = ScenarioRun(parse_scenario(text), book, "<generated>")
        run.play()
        return run.final_state(), list(run.engine.trace), [d.render() for d in run.failures]

    generated, defined = both_ways(monkeypatch, play)
    assert generated[1] == defined[1], text  # (events: what they render, and their batches)
    assert generated == defined, text


def test_the_generated_source_is_kept_for_reading():
    """What the engine runs for 702.26a's selections can be read back (`source`)."""
    book = full_book()
    rule = book.rule("702.26a")
    during = next(c for c in rule.clauses if type(c).__name__ == "During")
    engine = Engine(Program.of(book, "generated"), build_board(30))  # (named: a board this small would get closures)
    source = engine.program.compiler.body_runner(during.body, rule_cause(engine.program, rule, during)).source
    assert source.startswith("def run_") and "eng.selector.candidates_seen(" in source and "'phase'" in source


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_a_verb_does_nothing_to_an_object_the_game_treats_as_not_existing(monkeypatch, generated):
    """702.26b: a variable naming a phased-out permanent reaches nothing; the trace says so."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated" if generated else "closures")
    book = full_book()
    game = build_board(30)
    hidden = next(oid for oid, o in game.objects.items() if o.get_status("phase", "in") == "out")
    engine = prepare(book, game, program.DEFAULT_BACKEND)
    before = engine.game.objects[hidden]
    engine.run(ast.Call("phase_in", (ast.Name("x"),)), {"x": Obj(hidden)}, SCRIPT)
    assert engine.game.objects[hidden] == before
    assert [(e.kind, e.subject) for e in engine.trace] == [("fails", hidden)]


ASSERTION_TESTS = [getattr(test_engine, name) for name in dir(test_engine) if name.startswith("test_assertion_")]


@pytest.mark.parametrize("check", ASSERTION_TESTS, ids=lambda f: f.__name__[len("test_assertion_"):])
def test_a_checked_assertion_fires_with_the_closures_too(monkeypatch, check):
    """tests/test_engine.py's assertion tests (702.26c, d, i, m, p) run with generated Python;
    here they run again with the closures."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "closures")
    check(load_version(test_engine.VERSION))


def test_there_are_assertion_tests_to_run_both_ways():
    assert len(ASSERTION_TESTS) >= 5


def every_rulebook() -> list[str]:
    return available_versions() + available_variants()


@pytest.mark.parametrize("spec", every_rulebook())
def test_every_shipped_rulebook_and_card_compiles_to_python(spec):
    """Whatever no scenario runs is still written out: every block's hook bodies (with the
    block's cause), every `as` and `after` clause, every assertion after a change, the state
    checks made again for changed objects in one pass, and every
    spell and triggered ability of the card library the version can say; each function
    compiles and keeps its source."""
    book = load_version(spec)
    engine = Engine(Program.of(book, "generated"), build_board(30))  # (named: a board this small would get closures)
    functions = []
    for rule in book.rules:
        for clause in rule.clauses:
            if isinstance(clause, ast.During):
                functions.append(engine.program.compiler.body_runner(clause.body, rule_cause(engine.program, rule, clause)))
            elif isinstance(clause, ast.AssertAfter) and isinstance(clause.event, ast.Change):
                functions.append(engine.program.clauses.assertion_test(clause))
    functions += [engine.program.clauses.expander()] + [fn for _key, fn, _idle in engine.program.clauses.follow_ups()]
    fused = engine.program.clauses.check_pass()  # the state checks in one pass
    one_pass, bodies, counts = fused.one_pass, fused.bodies, fused.counts
    functions += ([one_pass] + [run for _k, run in bodies.values()] + list(counts.values())
                  + list(fused.passes.values()) + [plan for plan in fused.by_value.values() if plan is not None])
    for card in book.cards.values():
        if any(isinstance(n, ast.Call) and n.verb not in book.verbs for n in card.walk()):
            continue  # a card this version's words cannot say (the checker refuses it in a scenario)
        for entry in card.entries:
            if isinstance(entry, (ast.Spell, ast.Triggered)):
                functions.append(engine.program.compiler.body_runner(entry.body, Cause("card", card.name)))
    assert functions and all(callable(fn) and fn.source.startswith("def ") for fn in functions)


AURA_CHECK = "rule 704.5m illegal-aura"


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_an_exemption_from_a_state_check_holds_when_the_check_is_made_again(monkeypatch, generated):
    """`exempt x from R where ...` (as 610.4 writes one for 702.26a) on a state check: made again
    only for the objects that changed (with generated Python, in one pass: ClauseTables.check_pass),
    the check still leaves the exempted ones out. A variant exempts token Auras from 704.5m;
    Wrath of God destroys the bear two Auras enchant: the token Aura stays on the battlefield,
    the other goes to the graveyard."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated" if generated else "closures")
    book = test_engine.variant({"support.rules": [(
        AURA_CHECK, 'rule 704.5z spared-auras "A test exemption." {\n  exempt x from 704.5m where x.token\n}\n\n' + AURA_CHECK)]})
    run = test_engine.start(book, '\n'.join([
        '  permanent bear = "Grizzly Bears", controller Alice',
        '  permanent halo = "Holy Strength", controller Alice, attached to bear, token',
        '  permanent plain = "Holy Strength", controller Alice, attached to bear',
    ]))
    assert run.engine.dirty is not None  # the first check has been made: the next is made again
    test_engine.step(run, 'cast "Wrath of God" by Alice')
    objects = run.game.objects
    assert (objects["bear"].zone, objects["halo"].zone, objects["plain"].zone) == ("graveyard", "battlefield", "graveyard")


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_a_comparison_with_something_that_is_no_number_is_false(monkeypatch, generated):
    """`<`, `<=`, `>`, `>=` compare numbers (docs/reference.md): with `none` on either side, as
    the toughness of a noncreature is, a comparison is false, and generated code (which writes
    the comparison out) says so as the closures do. A test state check taps what it holds for:
    Grizzly Bears (2/2, no damage) is tapped; Bonesplitter, an Equipment with no toughness,
    is not, whichever side its toughness is on."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated" if generated else "closures")
    probe = ('rule 704.5z probe-comparison "A test comparison." {\n'
             '  during state check: each x where x.toughness >= x.damage or x.damage <= x.toughness: tap x\n}\n\n')
    book = test_engine.variant({"support.rules": [(AURA_CHECK, probe + AURA_CHECK)]})
    run = test_engine.start(book, '  permanent bear = "Grizzly Bears", controller Alice\n'
                                  '  permanent blade = "Bonesplitter", controller Alice')
    objects = run.game.objects
    assert objects["blade"].toughness is None
    assert (objects["bear"].tapped, objects["blade"].tapped) == (True, False)


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_a_hide_rule_on_a_status_at_its_default_still_hides_from_a_selection(monkeypatch, generated):
    """`hide` (as 702.26b writes one) on a status left at its default value: no index holds
    the objects at a status's default, so a selection's candidates still hold them and each is
    checked (generated code skips that check only where an index left out every hidden one:
    `Selector.candidates_seen`). A variant declares `revealed` (false unless set) and hides
    what is not revealed; tapping each creature taps the revealed bear only."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated" if generated else "closures")
    book = test_engine.variant({
        "vocabulary.rules": [("status returns_after_absence: bool = false    cites 702.26n\n",
                              "status returns_after_absence: bool = false    cites 702.26n\n"
                              "status revealed: bool = false    cites 702.26b\n")],
        "support.rules": [(AURA_CHECK, 'rule 704.5z veiled "A test hide rule." {\n  hide x where x.revealed is false\n}\n\n'
                           + AURA_CHECK)]})
    run = test_engine.start(book, '  permanent shown = "Grizzly Bears", controller Alice, set revealed = true\n'
                                  '  permanent veiled = "Grizzly Bears", controller Alice')
    run.engine.run(test_engine.statement("each x where x is a creature: tap x"), {}, SCRIPT)
    assert (run.game.objects["shown"].tapped, run.game.objects["veiled"].tapped) == (True, False)


def test_a_verb_parameter_with_a_hyphen_is_written_out_as_python(tmp_path):
    """Names may hold '-'; generated code turns a verb's parameter into a local of letters,
    digits and underscores, so the block runs as generated code (no fall back to the
    closures) and taps the creature as the rule says."""
    from phasing_rules.interpreter.program import codegen
    from phasing_rules.interpreter.rulebook.loading import load_version
    from phasing_rules.interpreter.play.suite import collect, run_case

    (tmp_path / "v.rules").write_text(
        'variant hyphen-params {\n  extends 2026-09-25\n  title "a verb whose parameter has a hyphen"\n}\n'
        'verb tap-when the-thing the-flag { if the-flag is true: tap the-thing }\n'
        'rule 100.1 tapper "taps what its player controls at cleanup" {\n'
        '  during cleanup of P: each x where x.controller is P: do tap-when x, true\n}\n', encoding="utf-8")
    (tmp_path / "s.scenario").write_text(
        'scenario "a hyphenated verb parameter" {\n  cites 100.1\n  players Alice Bob\n  turn 1 of Alice\n'
        '  permanent bear = "Grizzly Bears", controller Alice\n'
        '  script {\n    cleanup\n    expect bear.tapped is true\n  }\n}\n', encoding="utf-8")
    fell_back = []
    original = codegen.CannotCompile.__init__

    def spy(self, *args, **kwargs):
        fell_back.append(args)
        original(self, *args, **kwargs)

    codegen.CannotCompile.__init__ = spy
    try:
        book = load_version(str(tmp_path / "v.rules"))
        [case], problems = collect([tmp_path / "s.scenario"])
        outcome = run_case(case, book)
    finally:
        codegen.CannotCompile.__init__ = original
    assert not problems and outcome.passed, outcome.failures
    assert fell_back == []


@pytest.mark.parametrize("size", [300, 3000])
def test_state_checks_made_in_one_pass_count_what_each_check_alone_would(monkeypatch, size):
    """The state checks generated Python makes in one pass over the objects (on a game's first
    check, every object; after a step, the objects it changed) still count each check's own
    selection against the step's budget, as each check made alone does (and as the closures
    do): the same iterations are left after the first check and after an untap step, and the
    game ends the same, with the one pass and without it."""
    from phasing_rules.interpreter.program.backends import GeneratedBackend

    book = full_book()
    game = build_board(size, 3)

    def play():
        engine = Engine(Program.of(book, "generated"), game.copy())
        engine.begin_step()
        engine.settle()  # the first check: every object
        first = engine.iterations_left
        engine.begin_step()
        engine.run_hook("untap step", engine.game.active)  # then those the step changed
        return first, engine.iterations_left, engine.game.fingerprint(), len(engine.trace)

    one_pass = play()
    monkeypatch.setattr(GeneratedBackend, "check_pass", lambda self, clauses: None)  # each check alone
    alone = play()
    assert one_pass == alone
    assert one_pass[0] < engine_budget(book, game), "premise: the first check visited objects"


def engine_budget(book, game) -> int:
    """The iterations a step may use on `game` (what `begin_step` gives)."""
    engine = Engine(Program.of(book, "closures"), game.copy())
    engine.begin_step()
    return engine.iterations_left


BUDGET_FILES = ("attachments.scenario", "continuous_effects.scenario", "tour.scenario")


@pytest.mark.slow  # (each limit replays a game both ways: the slow selection)
@pytest.mark.parametrize("limit", [f"iterations={n}" for n in (1, 2, 3, 5, 8, 13, 21)]
                         + [f"writes={n}" for n in (1, 2, 3, 5, 8, 13)])
def test_both_ways_run_out_of_a_tight_budget_at_the_same_place(monkeypatch, limit):
    """A step's budget counts the same in both ways of running the rules. Iterations: each
    selection's candidates, less what a hide rule hides by a stored status (as generated Python
    leaves them out before its loop), and the state checks made in one pass count their own
    selections. Writes: a `set` or `tap` that changes nothing is no write in either (the
    closures counted it), and every selection checks the writes so far, one an index finds
    empty too (generated Python skipped it). Under tight budgets every scenario of three files,
    under every version it names, passes or fails the same way, with the same error naming the
    same block, statement and step (of such runs of the whole suite, 260 of 2,270 differed on
    iterations and 682 of 1,362 on writes before)."""
    budget = Budget.from_option(limit)
    runs = [(c, v) for c in CASES if Path(c.path).name in BUDGET_FILES for v in versions_for(c, None)]
    assert len(runs) > 20, "premise: the files' scenarios"
    for case, version in runs:
        book = load_version(version)
        generated, defined = both_ways(monkeypatch, lambda: run_case(case, book, budget))
        assert [d.render() for d in generated.failures] == [d.render() for d in defined.failures], \
            (case.scenario.name, version)
        assert generated.passed == defined.passed and generated.trace == defined.trace


@pytest.mark.slow  # (over a second: every shipped rulebook's selections; in the slow selection)
def test_a_selection_counts_the_same_when_why_notes_what_it_leaves_out():
    """`phasing why` replays a scenario noting what each selection leaves out (`skips`), so the
    hidden candidates are visited there; they are counted as in any other run: every scenario
    of the suite, under the first version it names, uses the same iterations either way."""
    noted_somewhere = False
    for case in CASES:
        version = next(iter(versions_for(case, None)))
        book = load_version(version).with_cards(case.cards)

        def used(noting: bool) -> tuple[list[int], int]:
            """The iterations each step of the script used, and how many skips were noted."""
            run = ScenarioRun(case.scenario, book, case.path, Budget.from_option("iterations=100000"),
                              backend="closures")
            engine, per_step = run.engine, []
            engine.skips = [] if noting else None
            begin = engine.begin_step

            def begin_step():  # (each step starts the budget afresh: what the last one used first)
                per_step.append(100000 - engine.iterations_left)
                begin()
            engine.begin_step = begin_step
            run.play()
            return per_step + [100000 - engine.iterations_left], len(engine.skips or ())

        (quiet, _), (noting, noted) = used(False), used(True)
        noted_somewhere = noted_somewhere or noted > 0
        assert quiet == noting, (case.scenario.name, version)
    assert noted_somewhere, "premise: selections left phased-out permanents out (702.26b)"
