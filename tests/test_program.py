"""A rulebook's `Program` (issue 17 items 1 and 2): what is worked out once per rulebook lives
in the program, the rulebook stays the data it was loaded as, and the way bodies run (closures
or generated Python) is a backend chosen when the program is built.

The outcomes these tests play are those of the conformance suite: under 702.26a the untap
step phases out a permanent with phasing and phases in one that phased out, and 502.3
untaps the active player's permanents; the architecture must not change any of them
(tests/test_generated.py checks the two backends trace for trace).
"""

from __future__ import annotations

import gc
import re
import sys
from pathlib import Path

import attrs
import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter.program import program as program_module
from phasing_rules.interpreter.program.backends import ClosureBackend, GeneratedBackend
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import ScenarioRun
from phasing_rules.interpreter.play.suite import collect, versions_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`
from bench.boards import build_board  # noqa: E402

SUITE = Path(__file__).parent / "scenarios"
INTERPRETER = Path(__file__).parent.parent / "interpreter"


def phasing_cases():
    cases, _problems = collect([SUITE])
    return [c for c in cases if "702.26a" in c.scenario.name or "untap" in c.scenario.name.lower()][:6]


@pytest.mark.parametrize("backend", ["generated", "closures"])
def test_nothing_is_written_into_a_rulebook_by_playing_under_it(backend, monkeypatch):
    """Scenarios of the untap step (702.26a, 502.3) play as the suite expects under a rulebook
    loaded for them; afterwards the rulebook holds only its declared fields (it is slotted and
    frozen: it has no `__dict__` to write into), and what the engine worked out is in the program."""
    monkeypatch.setattr(program_module, "DEFAULT_BACKEND", backend)
    cases = phasing_cases()
    assert cases, "premise: the suite has untap-step scenarios"
    for case in cases:
        for version in versions_for(case, None):
            book = load_version(version).with_cards(case.cards)
            run = ScenarioRun(case.scenario, book, case.path)
            run.play()
            assert run.failures == [] and all(ok for _what, ok in run.expectations), f"{case.scenario.name} under {version}"
            assert not hasattr(book, "__dict__")
            assert set(type(book).__slots__) - {"__weakref__"} == {f.name for f in attrs.fields(type(book))}
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                book.compiled = {}
            built = Program.of(book, backend)
            assert (built.compiler.runners if backend == "generated" else built.compiler.closures), \
                "what the engine ran was compiled and is kept by the program's compiler"


def test_a_program_is_built_once_per_rulebook_and_backend():
    book = load_version("2026-09-25")
    # (with no game to size, the default "auto" is generated Python)
    assert program_module.DEFAULT_BACKEND == "auto"
    assert Program.of(book) is Program.of(book) is Program.of(book, "generated")
    assert Program.of(book, "closures") is not Program.of(book, "generated")
    assert isinstance(Program.of(book, "closures").backend, ClosureBackend)
    assert isinstance(Program.of(book, "generated").backend, GeneratedBackend)


def test_a_program_goes_with_its_rulebook():
    """Ablation makes a rulebook per deleted block; their programs do not outlive them (for
    longer than until the next program is built)."""
    book = load_version("2026-09-25").without("702.26a")
    key = (id(book), "generated")
    engine = Engine(Program.of(book, "generated"), build_board(30))
    engine.settle()
    engine.run_hook("untap step", engine.game.active)
    assert key in program_module._PROGRAMS and Program.of(book, "generated").compiler.runners
    del book, engine
    gc.collect()
    other = load_version("2026-09-25").without("702.26b")
    Program.of(other, "closures")  # (building a program forgets the dead ones)
    assert key not in program_module._PROGRAMS


def test_an_engine_plays_by_the_program_it_is_given_or_its_rulebooks():
    book = load_version("2026-09-25")
    game = Engine(book, _empty_game()).game
    assert Engine(book, game).program is Program.of(book, "closures")  # (a small game: closures)
    engine = Engine(Program.of(book, "closures"), game)
    assert engine.program is Program.of(book, "closures") and engine.rulebook is book
    assert engine.backend is engine.program.backend


def test_the_default_backend_follows_the_size_of_the_game():
    """With DEFAULT_BACKEND "auto", a game of fewer than GENERATED_FROM objects is played by the
    closures and a larger one by generated Python (writing the code costs more than it saves
    on a small board: docs/performance.md, "Which backend"); a backend named is used as named."""
    book = load_version("2026-09-25")
    small, large = build_board(program_module.GENERATED_FROM - 1), build_board(program_module.GENERATED_FROM)
    assert Engine(book, small).program is Program.of(book, "closures")
    assert Engine(book, large).program is Program.of(book, "generated")
    assert Program.for_game(book, small, "generated") is Program.of(book, "generated")
    case = phasing_cases()[0]
    run = ScenarioRun(case.scenario, book.with_cards(case.cards), case.path)
    assert run.engine.program.backend.name == "closures"


def test_an_unknown_backend_is_a_positioned_error_naming_the_ones_there_are():
    book = load_version("2026-09-25")
    with pytest.raises(DiagnosticError, match="no backend named 'fast'") as caught:
        Program.of(book, "fast")
    assert "'closures', 'generated'" in caught.value.diagnostics[0].render()
    with pytest.raises(DiagnosticError, match="must be a Rulebook, not str"):
        Program.of("2026-09-25")


def test_the_engine_has_no_branch_on_the_backend():
    """Issue 17 item 2: the two ways to run are backend objects; no part of the engine asks
    which one it is (`generated` as a flag: `if ... generated`, `.generated`)."""
    found = [f"{path.name}:{n}: {line.strip()}" for path in sorted(INTERPRETER.rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r"\.generated\b|\bif\b[^#]*\bgenerated\b", line.split("#")[0]) and '"""' not in line]
    assert found == []


def _empty_game():
    from phasing_rules.interpreter.game.model import Game, Player
    return Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice")


def test_rulebooks_that_share_a_block_share_its_generated_code():
    """`phasing ablate` and `diff` build many rulebooks that share most of their blocks: the
    untap step (502.1, 702.26a) generated for each writes the same Python, which is compiled
    once (`codegen._compiled`) while each program keeps its own function and constants."""
    from phasing_rules.interpreter.program import codegen

    base = load_version("2026-09-25")
    variant = base.without(base.rules[-1].id)  # (a different rulebook: a program of its own)
    functions = []
    for book in (base, variant):
        game = build_board(60, 1)
        program = Program.of(book, "generated")
        engine = Engine(program, game)
        engine.run_hook("untap step", game.active)
        assert program is not Program.of(base, "generated") or book is base
        functions.append({fn.source: fn for _node, fn in program.compiler.runners.values() if hasattr(fn, "source")})
    shared = set(functions[0]) & set(functions[1])
    assert shared, "premise: both programs wrote some of the same functions"
    for source in shared:
        first, second = functions[0][source], functions[1][source]
        assert first is not second and first.__globals__ is not second.__globals__
        assert first.__code__ is second.__code__
    assert codegen._compiled.cache_info().hits > 0


def test_what_is_worked_out_per_node_is_kept_while_the_node_lives():
    """`ast.per_node` answers again from what it kept for the same node object, works out an
    equal but distinct node afresh, and forgets a node once it is gone."""
    from phasing_rules.dsl import ast

    calls = []

    @ast.per_node
    def names(n):
        calls.append(type(n).__name__)
        return len(list(n.walk()))

    one = ast.Attr(ast.Name("x"), "phase")
    assert names(one) == 2 and names(one) == 2 and len(calls) == 1
    twin = ast.Attr(ast.Name("x"), "phase")
    assert twin == one and names(twin) == 2 and len(calls) == 2
    key = id(one)
    assert key in names.results
    del one
    gc.collect()
    assert key not in names.results and id(twin) in names.results


def test_nothing_in_the_engine_writes_into_its_program():
    """Issue 17 item 1: what is worked out from a rulebook is the program's, made by the
    program itself (its analyses, `compiler.py`, `clauses.py`, and the causes `trace.rule_cause`
    names once per clause); the engine and its parts only read it. Every module of the
    interpreter is parsed, and any assignment into something reached through `program` (an
    attribute, or an item of one of its tables) outside those is listed."""
    import ast as pyast

    makers = {"program.py", "compiler.py", "clauses.py", "trace.py"}
    found = []
    for path in sorted(INTERPRETER.rglob("*.py")):
        if path.name in makers:
            continue
        for node in pyast.walk(pyast.parse(path.read_text())):
            targets = node.targets if isinstance(node, pyast.Assign) else \
                [node.target] if isinstance(node, (pyast.AugAssign, pyast.AnnAssign)) else []
            for target in targets:
                reached = target
                while isinstance(reached, (pyast.Attribute, pyast.Subscript)):
                    reached = reached.value
                    if isinstance(reached, pyast.Attribute) and reached.attr in ("program", "compiler", "clauses") \
                            or isinstance(reached, pyast.Name) and reached.id == "program":
                        found.append(f"{path.name}:{node.lineno}: {pyast.unparse(node).splitlines()[0]}")
                        break
    assert found == []


# The names issue 17 item 5 replaced by words a newcomer knows (docs/architecture.md, "Names").
RETIRED_NAMES = {"rb": "rulebook", "ix": "clause_index", "Along": "AsClause", "alongs": "as_clauses_by_attr",
                 "Quiet": "NotPerceived", "quiets": "not_perceived", "aware": "sees_hidden",
                 "kept": "unchanged_writes (of a Batch)"}


@pytest.mark.slow  # (over a second: reads every module; in the slow selection)
def test_the_engine_and_the_language_use_no_retired_name():
    """Issue 17 item 5: no attribute, class, function, parameter or grammar rule of `interpreter/`
    or `dsl/` is named by one of the retired short names (a local variable may still be
    called `kept`: the test looks at what other modules read, and at the AST's classes)."""
    import ast as pyast

    found = []
    for path in sorted([*INTERPRETER.rglob("*.py"), *(INTERPRETER.parent / "dsl").glob("*.py")]):
        for node in pyast.walk(pyast.parse(path.read_text())):
            names = []
            if isinstance(node, pyast.Attribute):
                names.append(node.attr)
            elif isinstance(node, (pyast.FunctionDef, pyast.ClassDef)):
                names.append(node.name)
                names += [a.arg for a in node.args.args + node.args.kwonlyargs] if isinstance(node, pyast.FunctionDef) else []
            found += [f"{path.name}:{node.lineno}: {name} (now {RETIRED_NAMES[name]})" for name in names
                      if name in RETIRED_NAMES]
    grammar = (INTERPRETER.parent / "dsl" / "grammar.lark").read_text()
    found += [f"grammar.lark: -> {name}" for name in re.findall(r"->\s*(\w+)", grammar) if name in RETIRED_NAMES
              or name in ("along", "quiet")]
    assert found == []


def test_the_compiler_needs_no_game():
    """The program's compiler works from the rulebook alone: the untap step's body (502.1,
    702.26a), its state checks and its `as` clauses compile before any game exists, and the
    code an engine then runs is that code."""
    book = load_version("2026-09-25").without("702.26b")  # (a rulebook of its own: nothing compiled yet)
    program = Program.of(book, "generated")
    assert not program.compiler.runners
    (rule, during), *_ = program.index.hooks["untap step"]
    from phasing_rules.interpreter.game.trace import rule_cause
    runner = program.compiler.body_runner(during.body, rule_cause(program, rule, during))
    checks = program.clauses.state_checks()
    expander = program.clauses.expander()
    assert hasattr(runner, "source") and checks and hasattr(expander, "source")
    game = build_board(40, 2)
    engine = Engine(program, game)
    engine.run_hook("untap step", game.active)
    assert program.compiler.body_runner(during.body, rule_cause(program, rule, during)) is runner
    assert program.clauses.expander() is expander
