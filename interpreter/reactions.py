"""Reactions to changes: the `as` clauses (changes that happen at the same time as another,
which join its batch) and the `after` clauses (follow-ups once a batch is applied)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from dsl import ast
from interpreter import codegen
from interpreter.batches import UNREAD, Batch, Write
from interpreter.codegen import ANY_OLD
from interpreter.program import UNBUILT
from interpreter.refs import FALSY, obj_ref, stored
from interpreter.trace import rule_cause


def waited_change(clause: ast.Along | ast.After) -> ast.Change:
    """The change an `as` or `after` clause waits on."""
    return clause.change if isinstance(clause, ast.Along) else clause.event


class Reactions:
    """The `as` clauses (run while a batch is expanded: what they write joins the batch) and
    the `after` clauses (run once a batch is applied, together as one further batch), worked
    out once per rulebook as tables keyed by the change they wait on, or as generated Python."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def constant(self, expr: ast.Node) -> Any:
        """The stored form of a value written in a rule (`out`, `true`, `none`), worked out once."""
        known = self.eng.program.constants.get(id(expr))
        if known is None:
            known = self.eng.program.constants[id(expr)] = (expr, stored(self.eng.eval(expr, {})))
        return known[1]

    def change_key(self, pattern: ast.Change) -> tuple[str, Any]:
        """What a change must be to fit `x.attr becomes V`: the attribute and the stored V."""
        return pattern.attr, self.constant(pattern.value)

    def waiting_on_changes(self, kind: str) -> tuple:
        """The assertions ("assert") or `after` clauses ("after") that wait on a change, in
        rulebook order, each with the (attribute, value) it waits on."""
        known = self.eng.program.waiting.get(kind)
        if known is None:
            clauses = self.eng.ix.assertions if kind == "assert" else self.eng.ix.afters
            table = tuple((rule, clause, self.change_key(clause.event)) for rule, clause in clauses
                          if isinstance(clause, (ast.AssertAfter, ast.After)) and isinstance(clause.event, ast.Change))
            known = self.eng.program.waiting[kind] = table
        return known

    def waited_on(self) -> tuple[frozenset[str], set[tuple[str, Any]]]:
        """The changes assertions and `after` clauses wait on, as (attribute, stored value),
        and their attributes."""
        waited = self.eng.program.waited_on
        if waited is UNBUILT:
            keys = {key for _rule, _clause, key in self.waiting_on_changes("assert") + self.waiting_on_changes("after")}
            waited = self.eng.program.waited_on = (frozenset(attr for attr, _value in keys), keys)
        return waited

    def came_from(self, pattern: ast.Change) -> Any:
        """The stored value `x.A becomes V from W` says the change comes from, or ANY_OLD."""
        return ANY_OLD if pattern.old is None else self.constant(pattern.old)

    def reaction(self, rule: ast.Rule, clause: ast.Along | ast.After) -> tuple:
        """An `as` or `after` clause that waits on a change, as the engine runs it: (variable,
        compiled condition or None, the value the change must come from or ANY_OLD, compiled
        body, cause)."""
        pattern = waited_change(clause)
        return (pattern.var,
                None if pattern.cond is None else self.eng.compiled_expr(pattern.cond),
                self.came_from(pattern),
                self.eng.statements.runner(clause.body),
                rule_cause(self.eng.program, rule, clause))

    def react(self, reaction: tuple, oid: str, old: Any, batch: Batch) -> None:
        """Run a `reaction` to object `oid` changing from `old` (to the value it waits on), if
        the change also fits what the clause says it comes from and its condition."""
        eng = self.eng
        var, cond, wanted_old, body, cause = reaction
        if wanted_old is not ANY_OLD and old != wanted_old:
            return
        env = {var: obj_ref((oid, True))}
        if cond is None or cond(eng, env) not in FALSY:
            body(eng, env, batch, cause)

    def as_clauses(self) -> dict[tuple[str, Any], tuple]:
        """The `as` clauses by the (attribute, stored value) change they wait on, in rulebook
        order, each as a `reaction` (generated code has them written into `expander`)."""
        table = self.eng.program.as_clauses
        if table is UNBUILT:
            found = {key: tuple(self.reaction(*c) for c in entries) for key, entries in self.as_clauses_by_change().items()}
            table = self.eng.program.as_clauses = found
        return table

    def as_clauses_by_change(self) -> dict[tuple[str, Any], list[tuple[ast.Rule, ast.Along]]]:
        """The `as` clauses, in rulebook order, by the (attribute, stored value) change they wait on."""
        keyed: dict[tuple, list] = defaultdict(list)
        for clauses in self.eng.ix.alongs.values():
            for rule, along in clauses:
                keyed[self.change_key(along.change)].append((rule, along))
        return keyed

    def expander(self) -> Callable[["Any", Batch, int], None]:
        """`expand` with every `as` clause written in, as generated Python (written once per
        rulebook, `codegen.compile_expander`)."""
        known = self.eng.program.expander
        if known is UNBUILT:
            keyed = {key: [self.clause_entry(*c) for c in entries] for key, entries in self.as_clauses_by_change().items()}
            try:
                fn = codegen.compile_expander(self.eng, keyed, Write, UNREAD)
            except codegen.CannotCompile:  # (nested too deeply for Python: the closures run them)
                def fn(eng: Any, batch: Batch, limit: int) -> None:
                    eng.reactions.expand_by_closures(batch, limit)
                fn.write_sites = codegen.OPAQUE
            known = self.eng.program.expander = fn
        return known

    def follow_ups(self) -> tuple:
        """The `after` clauses that wait on a change, in rulebook order: (the change's
        (attribute, stored value), what runs it as the backend does (`Backend.follow_up`: a
        function `(engine, object id, old value, batch)`), whether all it does is end the
        effects that track objects, which it cannot do while no effect exists)."""
        table = self.eng.program.follow_ups
        if table is UNBUILT:
            def ends_tracking_only(after: ast.After) -> bool:
                body = after.body.stmts if isinstance(after.body, ast.Block) else (after.body,)
                return all(isinstance(s, ast.EndTracking) for s in body)

            backend = self.eng.backend
            table = self.eng.program.follow_ups = tuple(
                (key, backend.follow_up(self.eng, rule, after), ends_tracking_only(after))
                for rule, after, key in self.waiting_on_changes("after"))
        return table

    def closure_follow_up(self, rule: ast.Rule, after: ast.After) -> Callable:
        """An `after` clause run by its closures, as a function `(engine, object id, old value, batch)`."""
        closure = self.reaction(rule, after)
        return lambda eng, oid, old, batch: eng.reactions.react(closure, oid, old, batch)

    def generated_follow_up(self, rule: ast.Rule, after: ast.After) -> Callable:
        """An `after` clause as generated Python, called as `react` would be (by its closures
        where Python cannot take it)."""
        try:
            return codegen.compile_reactions(self.eng, [self.clause_entry(rule, after)], Write)
        except codegen.CannotCompile:  # (nested too deeply for Python: its closures run it)
            return self.closure_follow_up(rule, after)

    def clause_entry(self, rule: ast.Rule, clause: ast.Along | ast.After) -> tuple:
        """An `as` or `after` clause as `codegen.compile_reactions` takes it: (the change it
        waits on, its body, its cause, the value the change must come from or ANY_OLD)."""
        pattern = waited_change(clause)
        return pattern, clause.body, rule_cause(self.eng.program, rule, clause), self.came_from(pattern)

    def matches(self, pattern: ast.Change, attr: str, old: Any, new: Any) -> bool:
        """Does a change of `attr` from `old` to `new` fit `x.attr becomes V [from W]`?"""
        return (pattern.attr == attr and new == self.constant(pattern.value)
                and (pattern.old is None or old == self.constant(pattern.old)))

    def fits(self, pattern: ast.Change, w: Write) -> dict | None:
        """The environment binding the pattern's variable, if write `w` fits it."""
        if not self.matches(pattern, w.attr, w.old, w.value):
            return None
        env = {pattern.var: obj_ref((w.obj, True))}
        if pattern.cond is not None and not self.eng.truthy(self.eng.eval(pattern.cond, env)):
            return None
        return env

    def expand(self, batch: Batch) -> None:
        """Add the changes that happen at the same time as the ones already in the batch ('as'
        clauses), as the backend does it: generated code in one function (`expander`);
        `expand_by_closures` is its definition."""
        self.eng.backend.expand(self.eng, batch, self.eng.writes_left)  # (more writes than that: over the budget)

    def expand_by_closures(self, batch: Batch, limit: int) -> None:
        """`expand` by the closures of the `as` clauses: more than `limit` writes in the batch
        goes over the step's budget."""
        eng = self.eng
        writes, objects, defaults = batch.writes, eng.game.objects, eng.defaults
        seen = set()
        alongs = self.as_clauses()
        waited = {attr for attr, _value in alongs}  # the attributes some `as` clause waits on a change of
        for w in writes:  # the loop takes in the writes the clauses add
            attr = w.attr
            if attr not in waited:
                continue  # nothing happens along with it (the value it replaces is read as it is applied)
            oid = w.obj
            o = objects.get(oid)
            if o is None:
                continue
            value, old = w.value, w.old
            if old is UNREAD:
                old = w.old = o.stored(attr, defaults)  # (nothing changes until the batch is applied)
            if old == value:
                continue
            reactions = alongs.get((attr, value))
            if reactions is None:
                continue  # nothing happens along with this change
            key = (oid, attr, type(value), value)
            if key in seen:
                continue  # the same change again: its `as` clauses have run
            seen.add(key)
            for reaction in reactions:
                self.react(reaction, oid, old, batch)
            if len(writes) > limit:
                raise eng.over_budget("writes", reactions[-1][4].span, reactions[-1][4])

    def run_afters(self, changes: dict[tuple, list]) -> None:
        """The follow-ups of one batch's changes happen together, as one further event."""
        eng = self.eng
        batch = Batch()
        for key, reaction, ends_tracking_only in self.follow_ups():
            if ends_tracking_only and not eng.continuous.may_track(batch):
                continue  # it would end nothing
            for w in changes.get(key, ()):
                reaction(eng, w.obj, w.old, batch)
        if batch.writes or batch.ops:
            eng.committer.commit(batch)
