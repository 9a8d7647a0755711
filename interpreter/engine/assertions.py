"""Checked assertions: `assert after` a change (with `is unchanged` read before it), and the
assertions about what changes during a step (`once`, `skipped`)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Iterable

from ...dsl import ast
from ...dsl.parser import hook_name
from .batches import WaitedInRuns
from ..game.errors import RulesError
from ..game.refs import obj_ref
from ..game.store import JournalTrimmed
from .turns import HookLog


NO_VALUES = MappingProxyType({})  # (what an assertion read before a change of an object it read nothing of)


class Assertions:
    """Checks the rulebook's assertions: those after a change (reading what `is unchanged`
    compares with before the batch is applied) and those about what changes during a step."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def assertion_before(self, clause: ast.AssertAfter, changes: list, written: set[tuple[str, str]]) -> dict:
        """What the `is unchanged` parts of an assertion read before `changes` (those it waits on)."""
        values = {}
        pattern = clause.event
        for w in changes:  # judged after the change: read for every match
            if self.eng.program.clauses.matches(pattern, w.attr, w.old, w.value):
                env = {pattern.var: obj_ref((w.obj, True))}
                new_object = (w.obj, "zone") in written
                for n, attr in self.eng.program.clauses.unchanged_parts(clause)[0]:
                    if attr is not None and not new_object and (w.obj, attr) not in written:
                        continue  # only a write changes it, and this batch makes none: it holds, unread
                    values[(w.obj, id(n.value))] = self.eng.eval(n.value, env)
        return values

    def holds_unread(self, clause: ast.AssertAfter, attrs_written: set[str]) -> bool:
        """True when the assertion is only `is unchanged` parts on stored attributes, and the
        batch wrote none of them (nor a zone: a new object) to any object: it holds unread."""
        _parts, only_unchanged, read = self.eng.program.clauses.unchanged_parts(clause)
        return only_unchanged and read.isdisjoint(attrs_written)

    def check_assertions(self, changes, before_values, attrs_written: set[str]) -> None:
        """Check the assertions that wait on this batch's changes (`changes`, by the change
        waited on), with what `is unchanged` parts read before them (`before_values`)."""
        for rule, clause, key in self.eng.program.clauses.waiting_on_changes("assert"):
            if key not in changes or self.holds_unread(clause, attrs_written):
                continue
            parts, only_unchanged, _read = self.eng.program.clauses.unchanged_parts(clause)
            holds_for = self.eng.backend.assertion_test(self.eng.program.clauses, clause)
            if holds_for is not None and not only_unchanged and isinstance(changes, WaitedInRuns):
                # (a batch of runs: what the test reads of each change, no `Write` made of it;
                # run by run, and again in the order of the changes only if one fails, to
                # name the first that does, or to raise what the first one to raise raises)
                if not self.holds_in_runs(holds_for, changes, key, before_values):
                    for oid, old in changes.objects_and_olds(key):
                        if not holds_for(self.eng, oid, old, before_values.get(oid, NO_VALUES)):
                            raise self.does_not_hold(rule, clause, oid)
                continue
            for w in changes.get(key, ()):
                before = before_values.get(w.obj, {})
                if only_unchanged and not any(id(n.value) in before for n, _stored in parts):
                    continue  # every part reads a stored attribute this batch didn't write: it holds
                if holds_for is not None:
                    holds = holds_for(self.eng, w.obj, w.old, before)
                elif (env := self.eng.reactions.fits(clause.event, w)) is None:
                    continue
                else:
                    holds = self.eng.truthy(self.eng.eval(clause.cond, env, before))
                if not holds:
                    raise self.does_not_hold(rule, clause, w.obj)

    def holds_in_runs(self, holds_for: Callable, changes: WaitedInRuns, key: tuple[str, Any], before_values: dict) -> bool:
        """Whether the test of an assertion (`holds_for`, generated: it only reads) holds
        for every change `key` names in a batch of runs, taken run by run; false if it fails,
        or raises, for one."""
        eng, before, value = self.eng, before_values.get, key[1]
        try:
            for b in changes.runs_of(key):
                if b.values is None:
                    for oid, old in zip(b.objs, b.olds):
                        if not holds_for(eng, oid, old, before(oid, NO_VALUES)):
                            return False
                else:
                    for oid, old, new in zip(b.objs, b.olds, b.values):
                        if new == value and not holds_for(eng, oid, old, before(oid, NO_VALUES)):
                            return False
        except RulesError:
            return False
        return True

    def does_not_hold(self, rule: ast.Rule, clause: ast.AssertAfter, oid: str) -> Exception:
        """The error of an assertion after a change that does not hold for object `oid`."""
        return self.eng.fail(f"assertion of {rule.id} {rule.slug} does not hold for {oid}", clause.span,
                             "the blocks this assertion restates no longer produce what it states")

    def check_always(self, since: int | None = None) -> None:
        """Check the `assert always` clauses on the permanents on the battlefield, seen or not:
        a state no rule should leave (the actions call this after each of them, `since` the
        journal's position when they began). Where the conditions read only stored attributes
        of a permanent and of what it is attached to (`Program.always_local_reads`), only the
        permanents the journal says changed one since then, and what is attached to those,
        are looked at; else every one."""
        eng = self.eng
        always = eng.program.always_asserted
        if not always:
            return
        objects = eng.game.objects
        ids: Iterable[str] = list(objects)
        reads = eng.program.always_local_reads
        if reads is not None and since is not None:
            try:
                changed = eng.store.objects_changed_since(since, reads)
            except JournalTrimmed:  # (a checkpoint within the step: look at every one)
                changed = None
            if changed is not None:
                attached = eng.indexes.attached
                ids = eng.indexes.sort(changed.union(*(attached(oid) for oid in changed)) & objects.keys())
        for oid in ids:
            if objects[oid].zone != "battlefield":
                continue
            for rule, clause in always:
                try:
                    holds = eng.truthy(eng.eval(clause.cond, {clause.var: obj_ref((oid, True))}))
                except RulesError as exc:  # (a condition that cannot be read of this object)
                    why = exc.diagnostics[0]
                    raise eng.fail(f"assertion of {rule.id} {rule.slug} cannot be judged for {oid}: {why.message} "
                                   f"(at {why.span})", clause.span,
                                   "the condition reads something this object's values do not have (a player's "
                                   "status, say): test what it reads from before it reads") from None
                if not holds:
                    raise self.does_not_hold(rule, clause, oid)

    def check_hook_assertions(self, kind: str, player: str, counts: HookLog, skipped: bool) -> None:
        """Check the assertions about what changed during a `kind` step (`counts`), or
        during one that was skipped."""
        for rule, clause in self.eng.clause_index.assertions:
            if isinstance(clause, ast.AssertOnce) and not skipped and clause.hook.kind == kind:
                twice = counts.first_twice(clause.attr)  # (the first, in the order of the changes)
                if twice is not None:
                    oid, n = twice
                    raise self.eng.fail(f"assertion of {rule.id} {rule.slug}: {oid}.{clause.attr} changed {n} times during one {hook_name(kind)}",
                                    clause.span)
            if isinstance(clause, ast.AssertSkipped) and skipped and clause.hook.kind == kind:
                if counts.changed(clause.attr):
                    raise self.eng.fail(f"assertion of {rule.id} {rule.slug}: {clause.attr} changed during a skipped {hook_name(kind)}",
                                    clause.span)
