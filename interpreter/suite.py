"""Running scenario files as a suite: collect them, pick the rulebooks each names, run them."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import attrs

from dsl import ast
from dsl.checker import check_scenario
from dsl.diagnostics import Diagnostic, DiagnosticError, Span
from interpreter.budget import Budget
from interpreter.rulebook import Rulebook, available_versions, load_version
from interpreter.scenario import Outcome, load_scenarios, run_scenario, scenario_versions

SCENARIO_SUFFIX = ".scenario"


@attrs.frozen
class Case:
    """One scenario of one file, with the cards that file declares."""

    scenario: ast.Scenario
    path: str
    cards: tuple[ast.Card, ...]


def current_version() -> str:
    return available_versions()[-1]


def collect(paths: Iterable[str | Path]) -> tuple[list[Case], list[Diagnostic]]:
    """Every scenario under the given files or folders; syntax errors are returned, not raised."""
    cases, problems = [], []
    for root in paths:
        root = Path(root)
        if root.is_dir():
            files = sorted(root.rglob(f"*{SCENARIO_SUFFIX}"))
        elif root.exists():
            files = [root]
        else:
            problems.append(Diagnostic("error", f"no such file or folder: {root}", Span(str(root), 0, 0, 0, 0),
                                       "give a scenario file or a folder of them"))
            continue
        for file in files:
            try:
                scenarios, cards = load_scenarios(file)
            except DiagnosticError as exc:
                problems.extend(exc.diagnostics)
                continue
            cases.extend(Case(s, str(file), cards) for s in scenarios)
    return cases, problems


def versions_for(case: Case, override: list[str] | None) -> list[str]:
    named = list(scenario_versions(case.scenario)) or [current_version()]
    if override:
        return [v for v in override if not scenario_versions(case.scenario) or v in named]
    return named


def run_case(case: Case, book: Rulebook, budget: Budget | None = None) -> Outcome:
    full = book.with_cards(case.cards)
    problems = check_scenario(case.scenario, full)
    if problems:
        return Outcome(case.scenario.name, case.path, book.version.id, False, tuple(problems), (), (), {})
    return run_scenario(case.scenario, full, case.path, budget=budget)


def run_all(cases: list[Case], override: list[str] | None = None,
            books: dict[str, Rulebook] | None = None, newest_only: bool = False,
            budget: Budget | None = None) -> Iterator[Outcome]:
    """Each scenario under each version it names (or under `override`); with `newest_only`,
    under the newest of them alone; each step within `budget` (None: the default `Budget()`)."""
    books = books if books is not None else {}
    for case in cases:
        versions = versions_for(case, override)
        for version in versions[-1:] if newest_only else versions:
            if version not in books:
                try:
                    books[version] = load_version(version)
                except DiagnosticError as exc:
                    where = next((e.span for e in case.scenario.entries
                                  if isinstance(e, (ast.ScenarioRules, ast.ScenarioRange))), case.scenario.span)
                    named = override and version in override
                    problems = exc.diagnostics if named or "unknown rules" not in exc.diagnostics[0].message else [
                        attrs.evolve(exc.diagnostics[0], span=where)]
                    yield Outcome(case.scenario.name, case.path, version, False, tuple(problems), (), (), {})
                    continue
            yield run_case(case, books[version], budget)
