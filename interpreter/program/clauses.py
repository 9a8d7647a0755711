"""The clauses of a program as tables the engine looks up: the `as` and `after` clauses by the
change they wait on, the assertions, the state checks, and what changes are not perceived as.

`ClauseTables` belongs to one `Program` (`program.clauses`), beside its `Compiler`, and
works each table out once, from the rulebook alone (through the compiler for what runs:
closures or generated Python, as the program's backend writes them). The engine's parts
that react to changes (`interpreter.engine.reactions`, `assertions`, `state_checks`, `perception`)
look these up and run them; they write nothing into them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

import attrs

from ...dsl import ast
from . import codegen
from ..game.writes import UNREAD, Batch, Write
from .codegen import ANY_OLD
from ..game.trace import rule_cause

# Stored fields of an object that change only when a batch writes them (the engine itself
# stamps timestamp, entered_turn and controlled_since when an object is seen to enter).
CHANGED_ONLY_BY_WRITES = frozenset({"zone", "tapped", "counters", "stickers", "damage", "attached_to", "attacking", "blocking",
                                    "token", "card", "owner", "types"})

_UNBUILT: Any = object()


def waited_change(clause: ast.AsClause | ast.After) -> ast.Change:
    """The change an `as` or `after` clause waits on."""
    return clause.change if isinstance(clause, ast.AsClause) else clause.event


@attrs.frozen
class CheckPass:
    """The local state checks (by position in `ClauseTables.state_checks`), as generated
    Python:

    - `one_pass`: those that see no hidden object in one pass over some objects, for when
      they are made again for the changed objects the game sees
      (`codegen.compile_check_pass`: a function `(engine, ids, seen=False)` giving one list
      per check of the references it chooses); `hidden_pass`: likewise those that see hidden
      objects (`including hidden`, or a condition naming a hiding status), made again for
      every changed object (None when there is none); `seeing`: their positions;
    - `bodies`: by position, the check's place in those passes (the first pass's lists, then
      the second's) and what runs its body for what it chose (`codegen.compile_chosen`);
    - `counts`: by position, what the check's own selection of every object counts against
      the step's budget, giving back the candidates it counted
      (`codegen.compile_selection_count`), for a game's first check;
    - `shared` and `passes`: a game's first check makes each check in a pass over those
      candidates (or over `by_value`'s), not over every object, shared by the checks whose
      selections find the same candidates (`same_candidates`): by position, the first
      check of its pass and its place in it; by the first check's position, the pass;
    - `by_value`: by position, where the check's selection has a conjunct that reads only one
      stored field of the object and no index narrows it, the objects whose value of that
      field makes the conjunct hold (`codegen.compile_value_plan`), else None.
    """

    one_pass: Callable
    hidden_pass: Callable | None
    seeing: tuple[int, ...]
    bodies: dict[int, tuple[int, Callable]]
    counts: dict[int, Callable]
    shared: dict[int, tuple[int, int]]
    passes: dict[int, Callable]
    by_value: dict[int, Callable | None]


def same_candidates(q: Any) -> tuple | None:
    """What decides the candidates of query `q` (a `Selector` query of a state check, with no
    variable bound) when none of its index plans reads a value (types, keywords, flags and
    unions of them, which read nothing that differs between two selections): two queries with
    the same key find the same candidates. None when a plan reads a value."""
    def key(plan: Any) -> tuple | None:
        if plan.source is not None:
            return None
        alternatives = tuple(key(a) for a in plan.alternatives)
        if None in alternatives:
            return None
        return plan.kind, plan.attr, plan.name, plan.negated, alternatives

    keys = tuple(key(plan) for plan in q.plan.plans)
    if None in keys:
        return None
    return keys, q.sees_hidden, q.each.every_zone


class ClauseTables:
    """The tables of one program's clauses (see the module's doc)."""

    def __init__(self, program: Any):
        self.program = program  # (the `interpreter.program.program.Program` it belongs to, which makes it)
        self.compiler = program.compiler
        self.waiting: dict[str, tuple] = {}  # "assert" / "after" -> waiting_on_changes
        self.unchanged: dict[int, tuple[ast.Node, tuple]] = {}  # assertion -> unchanged_parts
        self.assertion_tests: dict[int, tuple[ast.Node, Callable | None]] = {}  # assertion -> assertion_test
        self.not_perceived_cache: dict[tuple, frozenset[str]] = {}  # (attr, type, old) -> not_perceived_as
        self._waited_on: Any = _UNBUILT
        self._as_clauses: Any = _UNBUILT
        self._expander: Any = _UNBUILT
        self._run_expander: Any = _UNBUILT
        self._follow_ups: Any = _UNBUILT
        self._state_checks: Any = _UNBUILT
        self._check_pass: Any = _UNBUILT

    # ---------------------------------------------------------------- changes waited on

    def change_key(self, pattern: ast.Change) -> tuple[str, Any]:
        """What a change must be to fit `x.attr becomes V`: the attribute and the stored V."""
        return pattern.attr, self.compiler.constant(pattern.value)

    def came_from(self, pattern: ast.Change) -> Any:
        """The stored value `x.A becomes V from W` says the change comes from, or ANY_OLD."""
        return ANY_OLD if pattern.old is None else self.compiler.constant(pattern.old)

    def matches(self, pattern: ast.Change, attr: str, old: Any, new: Any) -> bool:
        """Does a change of `attr` from `old` to `new` fit `x.attr becomes V [from W]`?"""
        constant = self.compiler.constant
        return (pattern.attr == attr and new == constant(pattern.value)
                and (pattern.old is None or old == constant(pattern.old)))

    def waiting_on_changes(self, kind: str) -> tuple:
        """The assertions ("assert") or `after` clauses ("after") that wait on a change, in
        rulebook order, each with the (attribute, value) it waits on."""
        known = self.waiting.get(kind)
        if known is None:
            index = self.program.index
            clauses = index.assertions if kind == "assert" else index.afters
            known = self.waiting[kind] = tuple(
                (rule, clause, self.change_key(clause.event)) for rule, clause in clauses
                if isinstance(clause, (ast.AssertAfter, ast.After)) and isinstance(clause.event, ast.Change))
        return known

    def waited_on(self) -> tuple[frozenset[str], set[tuple[str, Any]]]:
        """The changes assertions and `after` clauses wait on, as (attribute, stored value),
        and their attributes."""
        if self._waited_on is _UNBUILT:
            keys = {key for _rule, _clause, key in self.waiting_on_changes("assert") + self.waiting_on_changes("after")}
            self._waited_on = (frozenset(attr for attr, _value in keys), keys)
        return self._waited_on

    # ---------------------------------------------------------------- `as` and `after` clauses

    def reaction(self, rule: ast.Rule, clause: ast.AsClause | ast.After) -> tuple:
        """An `as` or `after` clause that waits on a change, as the closures run it (`Reactions.react`):
        (variable, compiled condition or None, the value the change must come from or ANY_OLD,
        compiled body, cause)."""
        pattern = waited_change(clause)
        return (pattern.var,
                None if pattern.cond is None else self.compiler.compiled_expr(pattern.cond),
                self.came_from(pattern),
                self.compiler.runner(clause.body),
                rule_cause(self.program, rule, clause))

    def as_clauses(self) -> dict[tuple[str, Any], tuple]:
        """The `as` clauses by the (attribute, stored value) change they wait on, in rulebook
        order, each as a `reaction` (generated code has them written into `expander`)."""
        if self._as_clauses is _UNBUILT:
            self._as_clauses = {key: tuple(self.reaction(*c) for c in entries)
                                for key, entries in self.as_clauses_by_change().items()}
        return self._as_clauses

    def as_clauses_by_change(self) -> dict[tuple[str, Any], list[tuple[ast.Rule, ast.AsClause]]]:
        """The `as` clauses, in rulebook order, by the (attribute, stored value) change they wait on."""
        keyed: dict[tuple, list] = defaultdict(list)
        for clauses in self.program.index.as_clauses_by_attr.values():
            for rule, clause in clauses:
                keyed[self.change_key(clause.change)].append((rule, clause))
        return keyed

    def expander(self) -> Callable[[Any, Batch, int], None]:
        """`Reactions.expand` with every `as` clause written in, as generated Python (written
        once per rulebook, `codegen.compile_expander`)."""
        if self._expander is _UNBUILT:
            keyed = {key: [self.clause_entry(*c) for c in entries] for key, entries in self.as_clauses_by_change().items()}
            try:
                fn = codegen.compile_expander(self.compiler, keyed, Write, UNREAD)
            except codegen.CannotCompile:  # (nested too deeply for Python: the closures run them)
                def fn(eng: Any, batch: Batch, limit: int) -> None:
                    eng.reactions.expand_by_closures(batch, limit)
                fn.write_sites = codegen.OPAQUE
            self._expander = fn
        return self._expander

    def run_expander(self) -> Callable[[Any, Batch, int], None] | None:
        """`expander` for a batch made of runs (`codegen.compile_expander` with `runs`),
        written once per rulebook; None where Python cannot take it or an `as` clause runs
        closures (the batch's runs are then taken in among its writes, for `expander`)."""
        if self._run_expander is _UNBUILT:
            keyed = {key: [self.clause_entry(*c) for c in entries] for key, entries in self.as_clauses_by_change().items()}
            try:
                self._run_expander = codegen.compile_expander(self.compiler, keyed, Write, UNREAD, runs=True)
            except codegen.CannotCompile:
                self._run_expander = None
        return self._run_expander

    def follow_ups(self) -> tuple:
        """The `after` clauses that wait on a change, in rulebook order: (the change's
        (attribute, stored value), what runs it as the backend does (`Backend.follow_up`: a
        function `(engine, object id, old value, batch)`), whether all it does is end the
        effects that track objects, which it cannot do while no effect exists)."""
        if self._follow_ups is _UNBUILT:
            def ends_tracking_only(after: ast.After) -> bool:
                body = after.body.stmts if isinstance(after.body, ast.Block) else (after.body,)
                return all(isinstance(s, ast.EndTracking) for s in body)

            backend = self.program.backend
            self._follow_ups = tuple((key, backend.follow_up(self, rule, after), ends_tracking_only(after))
                                     for rule, after, key in self.waiting_on_changes("after"))
        return self._follow_ups

    def closure_follow_up(self, rule: ast.Rule, after: ast.After) -> Callable:
        """An `after` clause run by its closures, as a function `(engine, object id, old value, batch)`."""
        closure = self.reaction(rule, after)
        return lambda eng, oid, old, batch: eng.reactions.react(closure, oid, old, batch)

    def generated_follow_up(self, rule: ast.Rule, after: ast.After) -> Callable:
        """An `after` clause as generated Python, called as `Reactions.react` would be (by its
        closures where Python cannot take it)."""
        try:
            return codegen.compile_reactions(self.compiler, [self.clause_entry(rule, after)], Write)
        except codegen.CannotCompile:  # (nested too deeply for Python: its closures run it)
            return self.closure_follow_up(rule, after)

    def clause_entry(self, rule: ast.Rule, clause: ast.AsClause | ast.After) -> tuple:
        """An `as` or `after` clause as `codegen.compile_reactions` takes it: (the change it
        waits on, its body, its cause, the value the change must come from or ANY_OLD)."""
        pattern = waited_change(clause)
        return pattern, clause.body, rule_cause(self.program, rule, clause), self.came_from(pattern)

    # ---------------------------------------------------------------- assertions

    def unchanged_parts(self, clause: ast.AssertAfter) -> tuple[list, bool, frozenset[str]]:
        """The `is unchanged` nodes of an assertion, each with the stored attribute it reads (if
        it reads one); whether the condition is nothing but such nodes joined by `and`; and the
        stored attributes they read, with `zone` (a zone change makes a new object, which
        changes them all)."""
        known = self.unchanged.get(id(clause))
        if known is None:
            var = clause.event.var
            parts = [(n, self.stored_attribute(n.value, var)) for n in clause.cond.walk() if isinstance(n, ast.Unchanged)]
            only = all(isinstance(c, ast.Unchanged) and self.stored_attribute(c.value, var)
                       for c in ast.conjuncts(clause.cond))
            read = frozenset(attr for _n, attr in parts if attr) | {"zone"}
            known = self.unchanged[id(clause)] = (clause, (parts, only, read))
        return known[1]

    def stored_attribute(self, expr: ast.Node, var: str) -> str | None:
        """A when `expr` is `var.A` and A changes only when written (a status, or a stored field
        other than those the engine stamps when an object is seen to enter)."""
        if isinstance(expr, ast.Attr) and isinstance(expr.obj, ast.Name) and expr.obj.id == var and (
                expr.name in self.program.book.statuses or expr.name in CHANGED_ONLY_BY_WRITES):
            return expr.name
        return None

    def assertion_test(self, clause: ast.AssertAfter) -> Callable[[Any, str, Any, dict], bool] | None:
        """An assertion after a change as a generated function `(engine, object id, old
        value, values read before) -> bool`: false when the change fits it and it fails
        (None when Python cannot take it: the closures judge it)."""
        known = self.assertion_tests.get(id(clause))
        if known is None:
            try:
                fn = codegen.compile_assertion(self.compiler, clause, self.came_from(clause.event))
            except codegen.CannotCompile:  # (nested too deeply for Python: judged as the closures judge it)
                fn = None
            known = self.assertion_tests[id(clause)] = (clause, fn)
        return known[1]

    # ---------------------------------------------------------------- state checks

    def state_checks(self) -> tuple:
        """The blocks hooked to state checks, in order, each as (whether it is local, whether
        its selection sees hidden objects, compiled body, cause); a local check is made again
        only for the objects changed since the last (a local check is one `each`)."""
        if self._state_checks is _UNBUILT:
            program, compiler = self.program, self.compiler
            self._state_checks = tuple(
                (program.local_check(during.body),
                 isinstance(during.body, ast.Each) and compiler.query(during.body).sees_hidden,
                 compiler.body_runner(during.body, rule_cause(program, rule, during)),
                 rule_cause(program, rule, during))
                for rule, during in program.index.hooks.get("state check", ()))
        return self._state_checks

    def check_pass(self) -> "CheckPass | None":
        """The local state checks, as generated Python (`CheckPass`). None when Python cannot
        take them: each check is then made on its own."""
        if self._check_pass is _UNBUILT:
            hooked = self.program.index.hooks.get("state check", ())
            checks = self.state_checks()
            local = [(position, hooked[position][1].body, cause)
                     for position, (is_local, _sees_hidden, _body, cause) in enumerate(checks) if is_local]
            seen_only = [check for check in local if not checks[check[0]][1]]
            seeing = [check for check in local if checks[check[0]][1]]
            fused = seen_only + seeing  # (the order of the passes' lists)
            compiler = self.compiler
            try:
                one_pass = codegen.compile_check_pass(compiler, [(each, cause) for _p, each, cause in seen_only])
                hidden_pass = codegen.compile_check_pass(
                    compiler, [(each, cause) for _p, each, cause in seeing], sees_hidden=True) if seeing else None
                bodies = {position: (k, codegen.compile_chosen(compiler, each, Write, cause))
                          for k, (position, each, cause) in enumerate(fused)}
                counts = {position: codegen.compile_selection_count(compiler, each, cause)
                          for position, each, cause in fused}
                by_value = {position: codegen.compile_value_plan(compiler, each) for position, each, _cause in fused}
                # (checks whose selections find the same candidates share a pass: keyed by their
                # index plans, or, with a plan by value, each its own)
                groups: dict[Any, list[tuple[int, ast.Each, Any]]] = {}
                for position, each, cause in fused:
                    key = None if by_value[position] is not None else same_candidates(compiler.query(each))
                    groups.setdefault(position if key is None else key, []).append((position, each, cause))
                shared, passes = {}, {}
                for members in groups.values():
                    lead = members[0][0]
                    passes[lead] = codegen.compile_check_pass(compiler, [(each, cause) for _p, each, cause in members],
                                                              sees_hidden=checks[lead][1])
                    for place, (position, _each, _cause) in enumerate(members):
                        shared[position] = (lead, place)
                self._check_pass = CheckPass(one_pass, hidden_pass, tuple(p for p, _each, _cause in seeing), bodies, counts, shared, passes, by_value)
            except codegen.CannotCompile:  # (nested too deeply for Python: each check runs on its own)
                self._check_pass = None
        return self._check_pass

    def state_check_writers(self) -> tuple[Callable, ...]:
        """The generated functions that may write into a round's batch of state checks: each
        check's body, and what runs the body of each check made in one pass (`check_pass`)."""
        fused = self.check_pass()
        return (tuple(body for _local, _sees, body, _cause in self.state_checks())
                + (tuple(run_chosen for _k, run_chosen in fused.bodies.values()) if fused is not None else ()))

    # ---------------------------------------------------------------- perception

    def not_perceived_as(self, attr: str, old: Any) -> frozenset[str]:
        """What a change of `attr` from `old` is not perceived as (worked out once per value)."""
        key = (attr, type(old), old)
        known = self.not_perceived_cache.get(key)
        if known is None:
            constant = self.compiler.constant
            known = self.not_perceived_cache[key] = frozenset(
                k for clause in self.program.index.not_perceived.get(attr, ())
                if clause.old is None or old == constant(clause.old) for k in clause.kinds)
        return known
