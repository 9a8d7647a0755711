"""The Python API under the command line, for engine developers.

    from interpreter import api
    book = api.load("2026-09-25")                 # a checked, indexed rulebook
    outcome = api.run_file("tests/scenarios/untap_step.scenario")[0]
    for event in outcome.trace: print(event.render())

    game = api.game_from_scenario(scenario, book) # or build a `model.Game` yourself
    engine = api.Engine(book, game)
    engine.next_turn()                            # apply events: turns, spells (via ScenarioRun), leaving
    engine.trace                                  # what happened, each event naming its rule block
"""

from __future__ import annotations

from pathlib import Path

from dsl import ast
from dsl.checker import check_cards, check_scenario
from dsl.diagnostics import Diagnostic, DiagnosticError, Span
from dsl.parser import parse_file
from interpreter.engine import Engine  # noqa: F401  (re-exported)
from interpreter.rulebook import (RULES_ROOT, VARIANTS_DIR, Rulebook, available_variants, available_versions,
                                  load_cards, load_version)
from interpreter.scenario import Outcome, build_game, scenario_versions
from interpreter.suite import collect, current_version, run_all

__all__ = ["load", "run_file", "game_from_scenario", "check_paths", "default_suite", "outcome_json", "Engine"]


def load(version: str | None = None) -> Rulebook:
    """A version by date (default: the newest) or by folder, parsed, checked and indexed."""
    return load_version(version or current_version())


def game_from_scenario(scenario, book: Rulebook):
    return build_game(scenario, book)


def run_file(path: str | Path, rules: str | None = None) -> list[Outcome]:
    cases, problems = collect([path])
    if problems:
        raise DiagnosticError(problems)
    return list(run_all(cases, [rules] if rules else None))


def default_suite() -> Path:
    """The conformance scenarios: the checkout's tests/scenarios, or the installed copy."""
    here = Path.cwd() / "tests" / "scenarios"
    if here.is_dir():
        return here
    checkout = Path(__file__).resolve().parent.parent / "tests" / "scenarios"
    if checkout.is_dir():  # an editable install runs from the checkout
        return checkout
    import importlib.util

    spec = importlib.util.find_spec("phasing_conformance")
    if spec is None or not spec.submodule_search_locations:
        raise DiagnosticError(Diagnostic("error", "the conformance scenarios are not installed", Span("phasing", 0, 0, 0, 0),
                                         "reinstall with 'pip install .', or name a scenario folder"))
    return Path(list(spec.submodule_search_locations)[0])


def check_paths(paths: list[str] | None) -> list[Diagnostic]:
    """Every problem in the given rule files, version folders, card files and scenarios."""
    problems: list[Diagnostic] = []
    if not paths:
        targets = [RULES_ROOT / v for v in available_versions()] + [RULES_ROOT / "cards" / "library.rules"]
        targets += [VARIANTS_DIR / f"{v}.rules" for v in available_variants()] + [default_suite()]
    else:
        targets = [Path(p) for p in paths]
    for target in targets:
        problems.extend(_check_one(target))
    return problems


def _guard(fn) -> list[Diagnostic]:
    try:
        fn()
    except DiagnosticError as exc:
        return exc.diagnostics
    return []


def _check_one(target: Path) -> list[Diagnostic]:
    if not target.exists():
        return [Diagnostic("error", f"no such file or folder: {target}", Span(str(target), 0, 0, 0, 0),
                           "give a rule file, a version folder, a scenario file, or a folder of them")]
    if target.is_dir() and (target / "version.rules").exists():
        return _guard(lambda: load_version(str(target.resolve()) if target.resolve().parent != RULES_ROOT else target.name))
    if target.is_dir():
        found = []
        for path in sorted(target.rglob("*")):
            if path.is_dir() and (path / "version.rules").exists():
                found += _check_one(path)
            elif path.suffix == ".scenario":
                found += _check_one(path)
            elif path.suffix == ".rules" and not (path.parent / "version.rules").exists():
                found += _check_one(path)
        return found
    if target.suffix == ".rules" and target.resolve().parent == VARIANTS_DIR.resolve():
        return _guard(lambda: load_version(target.stem))
    if target.suffix == ".scenario":
        return _check_scenarios(target)
    if target.suffix == ".rules":
        if (target.parent / "version.rules").exists():
            return _check_one(target.parent)
        found = _guard(lambda: parse_file(target))
        if not found and any(isinstance(i, ast.Version) for i in parse_file(target).items):
            return _guard(lambda: load_version(str(target)))  # a variant of one's own, resolved and checked
        if not found and target.resolve().parent == (RULES_ROOT / "cards").resolve():
            found = _guard(lambda: load_cards()) or check_cards(load_cards().values(), load(None))
        return found
    return [Diagnostic("error", f"not a rule file or scenario: {target}", Span(str(target), 0, 0, 0, 0),
                       "rule files end in .rules, scenarios in .scenario")]


def _check_scenarios(path: Path) -> list[Diagnostic]:
    cases, problems = collect([path])
    for case in cases:
        for version in scenario_versions(case.scenario) or [current_version()]:
            try:
                book = load_version(version).with_cards(case.cards)
            except DiagnosticError as exc:
                problems.extend(exc.diagnostics)
                continue
            found = check_scenario(case.scenario, book)
            problems.extend(found)
            if not found:
                problems.extend(_guard(lambda: build_game(case.scenario, book)))
    return problems


def outcome_json(o: Outcome, with_trace: bool = True) -> dict:
    data = {
        "scenario": o.scenario,
        "file": o.path,
        "rules": o.version,
        "passed": o.passed,
        "expectations": [{"expect": text, "ok": ok} for text, ok in o.expectations],
        "failures": [{"message": d.message, "at": str(d.span), "hint": d.hint} for d in o.failures],
        "final": o.final,
    }
    if with_trace:
        data["trace"] = [e.to_json() for e in o.trace]
    return data
