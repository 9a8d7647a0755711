"""Ablation: delete one block of a version, rerun the suite, and see which scenarios change.

A block whose deletion changes no scenario is not load-bearing: either the suite misses a
behaviour, or the block only restates others and should be written as an assertion.
Assertion blocks are reported as such; deleting them changes no outcome by design.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from dsl import ast
from interpreter.rulebook import Rulebook, load_version
from interpreter.scenario import Outcome
from interpreter.budget import Budget
from interpreter.suite import collect, run_case, versions_for


@attrs.frozen
class Row:
    rule: ast.Rule
    kind: str  # "operative", "assertion" or "definition"
    changed: tuple[str, ...]

    @property
    def load_bearing(self) -> bool:
        return self.kind != "operative" or bool(self.changed)


@attrs.frozen
class Result:
    version: str
    scenarios: int
    rows: tuple[Row, ...]

    @property
    def all_load_bearing(self) -> bool:
        return all(r.load_bearing for r in self.rows)

    def summary(self) -> str:
        operative = [r for r in self.rows if r.kind == "operative"]
        bearing = [r for r in operative if r.changed]
        assertions = sum(r.kind == "assertion" for r in self.rows)
        definitions = sum(r.kind == "definition" for r in self.rows)
        return (f"{len(bearing)} of {len(operative)} operative blocks are load-bearing; "
                f"{assertions} assertion blocks are checked after every change"
                + (f"; {definitions} definition blocks carry no behaviour of their own" if definitions else ""))

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "scenario_runs": self.scenarios,
            "blocks": [{"id": r.rule.id, "slug": r.rule.slug, "kind": r.kind, "changed": list(r.changed)} for r in self.rows],
            "all_load_bearing": self.all_load_bearing,
        }


def _label(o: Outcome) -> str:
    return f"{o.scenario} ({Path(o.path).name})"


def ablate(version: str, paths: list, budget: Budget | None = None) -> Result:
    book = load_version(version)
    cases, _problems = collect(paths)
    cases = [c for c in cases if book.version.id in versions_for(c, [book.version.id])]
    baseline = {id(c): run_case(c, book, budget).signature() for c in cases}
    rows = []
    for rule in book.rules:
        if rule.kind != "operative":
            rows.append(Row(rule, rule.kind, ()))
            continue
        reduced: Rulebook = book.without(rule.id)
        changed = []
        for c in cases:
            o = run_case(c, reduced, budget)
            if o.signature() != baseline[id(c)]:
                changed.append(_label(o))
        rows.append(Row(rule, "operative", tuple(changed)))
    return Result(book.version.id, len(cases), tuple(rows))
