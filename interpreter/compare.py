"""Comparing two rulebooks: first as texts aligned by slug, then by what they make happen.

`rulebook_diff` says, block by block, what was added, removed, renumbered, reworded or
changed in meaning. `behaviour_diff` plays the conformance scenarios under both and lists
the ones that end differently. `search_witness` generates games until one ends differently,
shrinks it, and returns it as a scenario file.
"""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

import attrs

from dsl import ast
from dsl.checker import check_scenario
from dsl.parser import parse
from dsl.printer import clause_lines, item_lines
from interpreter.budget import Budget
from interpreter.rulebook import Rulebook, with_rule_refs
from interpreter.scenario import Outcome, run_scenario
from interpreter.suite import Case, collect, run_case
from interpreter.trace import show_value


@attrs.frozen
class BlockChange:
    slug: str
    kinds: tuple[str, ...]  # added, removed, renumbered, reworded, changed
    a_id: str | None
    b_id: str | None
    a_summary: str | None = None
    b_summary: str | None = None

    def to_json(self) -> dict:
        return attrs.asdict(self)


def _meaning(rule: ast.Rule, book: Rulebook) -> list[str]:
    """A block's clauses as text, with references to other blocks written as their slugs."""
    slugs = {r.id: r.slug for r in book.rules}
    return [line for c in rule.clauses for line in clause_lines(with_rule_refs(c, lambda r: slugs.get(r, r)))]


def rulebook_diff(a: Rulebook, b: Rulebook) -> list[BlockChange]:
    changes = []
    a_rules = {r.slug: r for r in a.rules}
    b_rules = {r.slug: r for r in b.rules}
    for slug in sorted(a_rules.keys() | b_rules.keys(), key=lambda s: (b_rules.get(s) or a_rules[s]).id):
        ra, rb = a_rules.get(slug), b_rules.get(slug)
        if ra is None:
            changes.append(BlockChange(slug, ("added",), None, rb.id, None, rb.summary))
            continue
        if rb is None:
            changes.append(BlockChange(slug, ("removed",), ra.id, None, ra.summary, None))
            continue
        kinds = []
        if ra.id != rb.id:
            kinds.append("renumbered")
        if ra.summary != rb.summary:
            kinds.append("reworded")
        if _meaning(ra, a) != _meaning(rb, b):
            kinds.append("changed")
        if kinds:
            changes.append(BlockChange(slug, tuple(kinds), ra.id, rb.id, ra.summary, rb.summary))
    for kind, table_a, table_b in (("status", a.statuses, b.statuses), ("verb", a.verbs, b.verbs)):
        for name in sorted(table_a.keys() | table_b.keys()):
            da, db = table_a.get(name), table_b.get(name)
            text = lambda d: None if d is None else "\n".join(item_lines(attrs.evolve(d, cites=())))  # noqa: E731
            if text(da) != text(db):
                what = "added" if da is None else "removed" if db is None else "changed"
                changes.append(BlockChange(f"{kind} {name}", (what,), None, None, text(da), text(db)))
    return changes


# ------------------------------------------------------------------ behaviour


def comparable(o: Outcome, statuses: set[str]) -> dict:
    """What counts as the outcome of a game: the final state, and the error that stopped it."""
    final = {}
    for name, p in o.final.get("players", {}).items():
        for key, value in p.items():
            final[f"{name}.{key}"] = value
    for oid, p in o.final.get("permanents", {}).items():
        for key, value in p.items():
            if key in ("statuses", "card", "visible"):
                continue
            final[f"{oid}.{key}"] = value
        for key, value in p.get("statuses", {}).items():
            if key in statuses:
                final[f"{oid}.{key}"] = value
    errors = [f.message for f in o.failures if not f.message.startswith("expected")]
    if errors:
        final["error"] = errors[0].split(" (at step")[0]
    return final


def differences(a: dict, b: dict) -> list[tuple[str, object, object]]:
    """The fields that differ; for an object that ended in different zones, only its zone."""
    fields = [(k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    moved = {k.rsplit(".", 1)[0] for k, _va, _vb in fields if k.endswith(".zone")}
    return [(k, va, vb) for k, va, vb in fields if k.rsplit(".", 1)[0] not in moved or k.endswith(".zone")]


@attrs.frozen
class ScenarioDiff:
    scenario: str
    path: str
    fields: tuple[tuple[str, object, object], ...]

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "file": self.path,
                "differences": [{"what": k, "a": va, "b": vb} for k, va, vb in self.fields]}


def playable(o: Outcome) -> bool:
    """False when a scenario could not be played at all under a version (it names a status,
    zone or action that version does not have): that is not a difference in behaviour."""
    return not any(" (at step " not in f.message and not f.message.startswith("expected") for f in o.failures)


def behaviour_diff(a: Rulebook, b: Rulebook, cases: list[Case], budget: Budget | None = None) -> list[ScenarioDiff]:
    """The scenarios that end differently under `a` and `b`, each step within `budget`."""
    common = set(a.statuses) & set(b.statuses)
    found = []
    for case in cases:
        oa, ob = run_case(case, a, budget), run_case(case, b, budget)
        if not (playable(oa) and playable(ob)):
            continue
        fields = differences(comparable(oa, common), comparable(ob, common))
        if fields:
            found.append(ScenarioDiff(case.scenario.name, case.path, tuple(fields)))
    return found


# ------------------------------------------------------------------ search


def _outcome_of(game, book: Rulebook, budget: Budget | None = None) -> Outcome | None:
    """The generated game played under `book`, or None if it is not a game of that version
    (it plays a card the version's rules cannot express)."""
    from interpreter.generate import scenario_text

    text = scenario_text(game, "generated", [book.version.id])
    scenario = parse(text, "<generated>").items[0]
    if check_scenario(scenario, book):
        return None
    outcome = run_scenario(scenario, book, "<generated>", budget=budget)
    return outcome if playable(outcome) else None


EXPECTABLE = {"zone", "controller", "power", "toughness", "tapped", "attached_to", "damage", "attacking",
              "life", "hand", "in_game"}


@contextmanager
def _private_hypothesis_storage():
    """Hypothesis keeps caches (its character tables, an example database) under a storage
    folder, by default `.hypothesis/` in the current folder. A search must leave the user's
    folder as it found it: unless the caller chose a storage folder (HYPOTHESIS_STORAGE_DIRECTORY,
    or the test runner's settings), the search's storage is a temporary folder, removed after."""
    from hypothesis import configuration

    chosen = getattr(configuration, "__hypothesis_home_directory", None)  # set by set_hypothesis_home_dir
    if chosen is not None or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="phasing-search-") as folder:
        configuration.set_hypothesis_home_dir(folder)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(None)  # as it was: not chosen


def search_witness(a: Rulebook, b: Rulebook, examples: int, budget: Budget | None = None) -> str | None:
    """The smallest generated game that ends differently under `a` and `b`, as a scenario file;
    up to `examples` games are tried, each step of each within `budget`."""
    with _private_hypothesis_storage():
        return _search(a, b, examples, budget)


def _search(a: Rulebook, b: Rulebook, examples: int, budget: Budget | None) -> str | None:
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    from interpreter.generate import games, scenario_text

    common = set(a.statuses) & set(b.statuses)

    def differs(game) -> bool:
        oa, ob = _outcome_of(game, a, budget), _outcome_of(game, b, budget)
        if oa is None or ob is None:
            return False
        return bool(differences(comparable(oa, common), comparable(ob, common)))

    try:
        # derandomized: the same two rulebooks and budget always give the same answer
        game = find(games(), differs, settings=settings(max_examples=examples, database=None, deadline=None,
                                                       derandomize=True, suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return None
    oa, ob = _outcome_of(game, a, budget), _outcome_of(game, b, budget)
    fields = differences(comparable(oa, common), comparable(ob, common))
    expectations, comments = [], []
    for key, va, vb in fields:
        if key == "error":
            comments.append(f"under {a.version.id} play stops: {va}; under {b.version.id}: {vb or 'no error'}")
            continue
        name, attr = key.rsplit(".", 1)
        if attr in EXPECTABLE or attr in common:
            expectations.append(f"expect {name}.{attr} is {show_value(va)}")
            comments.append(f"under {b.version.id}: {name}.{attr} is {show_value(vb)}")
    stopped = next((f.message for f in oa.failures if " (at step " in f.message), None)
    if stopped:  # under `a` play stops at a step: the witness ends there, expecting that error
        step = int(re.search(r" \(at step (\d+)", stopped).group(1))
        players, permanents, steps = game
        game = (players, permanents, steps[:step])
        message = stopped.split(" (at step")[0]
        quoted = max(message.split('"'), key=len).strip()  # scenario strings cannot hold a double quote
        expectations.insert(0, f'expect error "{quoted}"')
    cites = sorted({c.a_id for c in rulebook_diff(a, b) if c.a_id and {"removed", "changed"} & set(c.kinds)})
    title = f"witness: {a.version.id} and {b.version.id} part here"
    return scenario_text(game, title, [a.version.id], cites or None, expectations, comments)


def load_cases(paths) -> list[Case]:
    cases, _problems = collect([Path(p) for p in paths])
    return cases
