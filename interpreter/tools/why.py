"""`phasing why SCENARIO OBJECT [--at STEP]`: why did (or did not) something happen to an object.

The scenario is replayed with the engine keeping what its selections leave out
(`GameView.skips`): each object a selection would have chosen but a hide clause hides (the
game treats it as though it does not exist) or an `exempt` clause of the selecting block
exempts, and each action that did nothing to an object a hide clause hides. The replay runs
the closures that define the rules (the "closures" backend, `interpreter.program.backends`), whose
selections are where that is kept; both ways play the same game, event for event
(tests/test_generated.py).

The answer lists what left the object out, then what changed it, each change with its cause
(an `as` clause's change says which event it joined), then what else happened to it (leaving,
entering, effects, settlements), all read off the trace.
"""

from __future__ import annotations


import attrs

from ...dsl import ast
from ...dsl.checker import check_scenario
from ...dsl.diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ...dsl.printer import clause_lines, expr_text
from ..play.actions import guarded
from ..play.scenario import ScenarioRun, entries, under_rules
from ..play.suite import Case, home_versions
from ..rulebook.loading import load_version
from ..game.trace import Event, clause_name, joins
from ..program.selection import Skip


@attrs.frozen
class Answer:
    """The answer for one scenario: its name, the version it ran under, and the lines."""

    scenario: str
    version: str
    lines: tuple[str, ...]


def selection_text(each: ast.Each | None) -> str:
    """How a selection is named: `each x where COND` (None: an action on one object)."""
    if each is None:
        return "an action"
    head = f"each {each.var}" + (" including hidden" if each.hidden else "")
    return f"{head} where {expr_text(each.cond)}" if each.cond is not None else head


def skip_line(skip: Skip) -> str:
    """One thing that left the object out, as `why` says it."""
    who = "a count" if skip.cause is None else str(skip.cause)
    clause = clause_lines(skip.clause)[0]
    if skip.kind == "hidden":
        reason = f"block {skip.rule.id} {skip.rule.slug} treats it as though it does not exist ({clause})"
    else:
        reason = f"block {skip.rule.id} {skip.rule.slug} exempts it ({clause})"
    return f"step {skip.step}: {who} ({selection_text(skip.each)}) skipped {skip.oid}: {reason}"


def event_heads(trace: tuple[Event, ...]) -> dict[int, tuple[int, object]]:
    """Each batch's number -> (the number shown for it, its cause), as `grouped_lines` shows them."""
    heads: dict[int, tuple[int, object]] = {}
    for e in trace:
        batch = e.values().get("batch") if e.data else None
        if batch is None:
            continue
        if batch not in heads or (joins(heads[batch][1]) and not joins(e.cause)):
            shown = heads[batch][0] if batch in heads else len(heads) + 1
            heads[batch] = (shown, e.cause)
    return heads


def change_line(e: Event, heads: dict[int, tuple[int, object]]) -> str:
    """One change (or other event) of the object, with its cause and the event it was part of."""
    batch = e.values().get("batch") if e.data else None
    where = f"step {e.step}"
    if batch is None:
        return f"{where}: {e.detail}, by {e.cause}"
    shown, head = heads[batch]
    where += f", event {shown}"
    if joins(e.cause):
        return f"{where}: {e.detail}, by {clause_name(e.cause, credit=True)}, joining the event caused by {head}"
    if e.kind == "settle":
        return f"{where}: {e.detail}, settled by {e.cause}"
    if e.cause.role:  # an `after` clause: a new event, following the one it waited on
        return f"{where}: {e.detail}, by {clause_name(e.cause, credit=True)}"
    return f"{where}: {e.detail}, by {e.cause}"


def answer(case: Case, oid: str, at: int | None, version: str | None = None,
           names: set[str] | None = None) -> Answer | None:
    """Why for object `oid` in one scenario (None: the scenario has no such object, and the
    names of the objects it has, those made in play too, are added to `names`), under
    `version` (default: the newest version it names), at script step `at` only (None: all)."""
    book = load_version(version or home_versions(case)[-1]).with_cards(case.cards)
    problems = check_scenario(case.scenario, book)
    if problems:
        raise DiagnosticError(under_rules(problems, book.version.id, home_versions(case)))
    run = ScenarioRun(case.scenario, book, case.path, backend="closures")  # (their selections keep what they leave out)
    engine = run.engine
    engine.skips = []
    run.play()
    trace = tuple(engine.trace)
    known = oid in engine.game.objects or any(e.subject == oid for e in trace)
    if not known:
        if names is not None:
            names.update(engine.game.objects)
        return None
    skips = []
    for skip in engine.skips:
        if skip.oid == oid and (at is None or skip.step == at):
            line = skip_line(skip)
            amended = book.amended_by(skip.rule, skip.clause)  # a clause a variant's `amend` wrote
            line += f" ({amended.describe(skip.clause)})" if amended else ""
            if line not in skips:  # (a selection made again, as state checks are, says it once)
                skips.append(line)
    heads = event_heads(trace)
    mine = [e for e in trace if e.subject == oid and (at is None or e.step == at)]
    changes = [change_line(e, heads) for e in mine if e.kind == "change"]
    others = [change_line(e, heads) for e in mine if e.kind != "change"]
    lines = ["left out:"] + ["  " + s for s in skips or ["nothing left it out"]]
    lines += ["changed:"] + ["  " + c for c in changes or ["nothing changed it"]]
    lines += ["happened:"] + ["  " + o for o in others or ["nothing else happened to it"]]
    return Answer(case.scenario.name, book.version.id, tuple(lines))


def script_steps(case: Case) -> int:
    """How many steps the scenario's script has."""
    return sum(len(e.steps) for e in entries(case.scenario, ast.Script))


def declares(case: Case, oid: str) -> bool:
    """Whether a scenario names `oid` as one of its permanents or players."""
    return any(isinstance(e, ast.PermanentDecl) and e.name == oid or isinstance(e, ast.Players) and oid in e.names
               for e in case.scenario.entries)


def explain(cases: list[Case], oid: str, at: int | None, version: str | None = None,
            passed_over: list[tuple[Case, tuple[Diagnostic, ...]]] | None = None) -> list[Answer]:
    """`answer` for every scenario of `cases` that has object `oid`. An object no scenario
    has, or a step none of the scenarios that have it has, is an error (exit 1), positioned
    at the first scenario with the object (at the first scenario when none has it). A
    scenario that cannot run (under `version`, say) is an error when it declares `oid`;
    otherwise it is passed over, and added with its errors to `passed_over` when given; when
    no scenario answers, its errors are reported with the missing object's."""
    if not cases:
        raise DiagnosticError(Diagnostic("error", "no scenario to ask about"))
    found: list[tuple[Case, Answer]] = []
    names: set[str] = set()
    failed: list[tuple[Case, tuple[Diagnostic, ...]]] = []
    for case in cases:
        try:
            got = guarded_answer(case, oid, at, version, names)
        except DiagnosticError as exc:
            if declares(case, oid):
                raise
            failed.append((case, tuple(exc.diagnostics)))
            names.update(e.name for e in case.scenario.entries if isinstance(e, ast.PermanentDecl))
            continue
        if got is not None:
            found.append((case, got))
    if not found:
        hint = did_you_mean(oid, names) or f"objects here: {', '.join(sorted(names)) or 'none'}"
        missing = Diagnostic("error", f"no object '{oid}' in {'this scenario' if len(cases) == 1 else 'these scenarios'}",
                             cases[0].scenario.span, hint)
        raise DiagnosticError(list(dict.fromkeys(d for _, problems in failed for d in problems)) + [missing])
    if at is not None:
        most = max(script_steps(c) for c, _ in found)
        if not 1 <= at <= most:
            raise DiagnosticError(Diagnostic(
                "error", f"no script step {at}: the scenario's script has {most} step(s)", found[0][0].scenario.span,
                "give --at a step number from 1 (the steps of the script, in order)"))
    if passed_over is not None:
        passed_over.extend(failed)
    return [a for _, a in found]


def guarded_answer(case: Case, oid: str, at: int | None, version: str | None, names: set[str]) -> Answer | None:
    """`answer`, also gathering the object names the scenario knows into `names`."""
    result: list[Answer | None] = []
    guarded(lambda: result.append(answer(case, oid, at, version, names)))
    if result[0] is None:
        names.update(e.name for e in case.scenario.entries if isinstance(e, ast.PermanentDecl))
    return result[0]
