"""Ablation: delete one block of a version, rerun the suite, and see which scenarios change.

A block whose deletion changes no scenario is not load-bearing: either the suite misses a
behaviour, or the block only restates others and should be written as an assertion.
Assertion blocks are reported as such; deleting them changes no outcome by design.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from ...dsl import ast
from ...dsl.checker import check_scenario
from ...dsl.diagnostics import DiagnosticError
from ..game.model import Game
from ..rulebook.loading import Rulebook, lineage, load_version
from ..play.scenario import Outcome
from ..game.budget import Budget
from ..play.scenario import build_game
from ..game.store import store_of
from ..play.suite import StoppedRun, Case, budget_stop, collect, plan, run_case


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
    base: str | None = None  # for a variant, the version or variant it extends
    own: frozenset[str] | None = None  # for a variant, the slugs of the blocks it writes or changes
    stopped: tuple[StoppedRun, ...] = ()  # runs of the whole rulebook the budget stopped

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
            **({"base": self.base, "own": sorted(self.own)} if self.own is not None else {}),
            **({"stopped_by_budget": [s.to_json() for s in self.stopped]} if self.stopped else {}),
        }


def _label(o: Outcome) -> str:
    return f"{o.scenario} ({Path(o.path).name})"


def own_blocks(book: Rulebook, base: Rulebook) -> frozenset[str]:
    """The slugs of the blocks a variant writes or changes: those its base has not, or has otherwise."""
    return frozenset(r.slug for r in book.rules if base.rule(r.slug) is None
                     or base.rule(r.slug).clauses != r.clauses or base.rule(r.slug).id != r.id)


def starting_game(case: Case, book: Rulebook) -> tuple[Game, int] | None:
    """The initial state of a case's scenario under `book` and the journal position it starts
    at, or None when it cannot be built (the run reports why)."""
    full = book.with_cards(case.cards)
    if check_scenario(case.scenario, full):
        return None
    try:
        game = build_game(case.scenario, full)
    except DiagnosticError:
        return None
    return game, store_of(game).mark()


def ablate(version: str, paths: list, budget: Budget | None = None,
           progress: Callable[..., None] | None = None) -> Result:
    """Delete each block of `version` in turn and rerun the scenarios `--rules version` runs
    (see `suite.plan`: for a variant, those written for it or the version it is built on),
    each judged as it is there; running no scenario is an error. `progress`, when given, is
    called as each block is taken up: `progress(blocks done, blocks, "ID SLUG")`."""
    book = load_version(version)
    cases, _problems = collect(paths)
    runs = plan(cases, [version])
    progress = progress or (lambda done, total=None, what="": None)
    progress(0, len(book.rules), "the whole rulebook")
    whole = {id(r): run_case(r.case, book, budget, r.judge) for r in runs}
    baseline = {key: o.signature() for key, o in whole.items()}
    # A run the budget stops under the whole rulebook shows nothing a deletion could change:
    # it is still rerun (and compared) as before, and reported, so that no block is judged on it unseen.
    stopped = tuple(s for o in whole.values() if (s := budget_stop(o)) is not None)
    # Deleting a block changes no card and no status, so each scenario starts from the same
    # game under every reduced rulebook: built once, and set back to its start after each run.
    starts = {id(r): starting_game(r.case, book) for r in runs}
    rows = []
    for number, rule in enumerate(book.rules):
        progress(number, len(book.rules), f"{rule.id} {rule.slug}")
        if rule.kind != "operative":
            rows.append(Row(rule, rule.kind, ()))
            continue
        reduced: Rulebook = book.without(rule.id)
        changed = []
        for r in runs:
            start = starts[id(r)]
            if start is None:
                o = run_case(r.case, reduced, budget, r.judge)
            else:
                game, mark = start  # (built: the scenario passed its check under the whole rulebook)
                try:
                    o = run_case(r.case, reduced, budget, r.judge, game=game, checked=True)
                finally:
                    store_of(game).undo(mark)
            if o.signature() != baseline[id(r)]:
                changed.append(_label(o))
        rows.append(Row(rule, "operative", tuple(changed)))
    progress(len(book.rules), len(book.rules), "")
    chain = lineage(version)
    if len(chain) == 1:
        return Result(book.version.id, len(runs), tuple(rows), stopped=stopped)
    return Result(book.version.id, len(runs), tuple(rows), chain[1], own_blocks(book, load_version(chain[1])), stopped)
