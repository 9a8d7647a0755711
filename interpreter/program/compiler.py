"""Compiling a program's expressions, selections and statements, from the rulebook alone.

A `Compiler` belongs to one `Program` (`program.compiler`) and turns its nodes into what the
engine runs: expressions into closures (`interpreter.program.compiled`), `each x where ...` into
queries with index plans, statements into runners `(engine, env, batch, cause)` (closures,
or generated Python: `interpreter.program.codegen`), each once per program and kept in the
compiler's tables. It reads the rulebook and the program's analyses, never a game: what it
makes takes the engine as an argument when it runs. The engine asks the compiler; nothing
the engine does writes into it (no back edge from the runtime into the program).

The tables keyed by a node's `id` keep the node in their entry, so that an id is never reused
while it is cached.
"""

from __future__ import annotations

import typing
from typing import Any, Callable

from ...dsl import ast
from ...dsl.diagnostics import Diagnostic, DiagnosticError
from . import codegen
from ..game.writes import Batch, Write
from .codegen import MULTI_WRITES, SIMPLE_WRITES
from .compiled import compile_expr, plan_query, symbol_value
from ..game.refs import FALSY, MISSING, stored
from .selection import Query
from ..game.trace import Cause
from .write_sites import contested

Runner = Callable[[Any, dict, Batch, Cause], None]  # (engine, env, batch, cause)

MAX_CALL_DEPTH = 32  # verbs calling verbs (the ones that can call themselves are never inlined)

STATEMENTS = frozenset(typing.get_args(ast.Stmt))


@ast.per_node
def statements_in(root: ast.Node) -> int:
    """How many statements a block, verb or card holds (worked out once per node: the
    rulebooks a variant or an ablation builds share most of theirs)."""
    return sum(type(node) in STATEMENTS for node in root.walk())


class Compiler:
    """Compiles the expressions, selections and statements of one program (see the module's doc)."""

    def __init__(self, program: Any):
        self.program = program  # (the `interpreter.program.program.Program` it belongs to, which makes it)
        self.expressions: dict[int, tuple[ast.Node, Callable]] = {}  # expression -> its closure
        self.queries: dict[int, tuple[ast.Each, Query]] = {}  # `each` -> its Query
        self.closures: dict[int, tuple[ast.Node, Runner]] = {}  # statement -> its closure
        self.runners: dict[tuple[int, Any], tuple[ast.Node, Runner]] = {}  # (body, cause) -> generated runner
        self.constants: dict[int, tuple[ast.Node, Any]] = {}  # value written in a clause -> its stored form
        self.exempting: dict[str, tuple] = {}  # rule id -> its exemptions, compiled
        self.contested: dict[tuple[int, ...], tuple[tuple, frozenset[str] | None]] = {}  # writers -> contested
        self._recursive_verbs: frozenset[str] | None = None
        self._statement_count: int | None = None

    # ---------------------------------------------------------------- what the compilers read

    @property
    def rulebook(self) -> Any:
        """The rulebook."""
        return self.program.book

    @property
    def clause_index(self) -> Any:
        """The rulebook's clauses gathered by kind (`Program.index`)."""
        return self.program.index

    @property
    def defaults(self) -> dict[str, Any]:
        """Each declared status's default value (`Program.defaults`)."""
        return self.program.defaults

    @property
    def reference_statuses(self) -> frozenset[str]:
        """The statuses whose values name players or objects (`Program.reference_statuses`)."""
        return self.program.reference_statuses

    # ---------------------------------------------------------------- expressions and selections

    def compiled_expr(self, expr: ast.Node) -> Callable[[Any, dict], Any]:
        """An expression as a closure `(engine, env) -> value`, compiled once."""
        entry = self.expressions.get(id(expr))
        if entry is None:
            entry = self.expressions[id(expr)] = (expr, compile_expr(expr, MISSING))
        return entry[1]

    def query(self, each: ast.Each) -> Query:
        """What is worked out once about an `each x where ...`: its index plans, and whether it
        sees hidden objects."""
        known = self.queries.get(id(each))
        if known is None:
            statuses = self.rulebook.statuses
            indexable = {"attached_to", "owner", "controller", "token"} | set(statuses)
            flags = {"token"} | {name for name, decl in statuses.items() if decl.type == "bool"}
            known = self.queries[id(each)] = (each, Query(
                each, plan_query(each.var, each.cond, indexable, flags, MISSING),
                # a query written `including hidden` sees the objects hide rules hide, and so
                # does one whose condition names a hiding status
                sees_hidden=each.hidden or bool(ast.names_in(each.cond) & self.clause_index.hiding_attrs)))
        return known[1]

    def exemptions(self, rule_id: str) -> tuple:
        """What exempts an object from a block's selections (`exempt x from R where ...`):
        (variable, compiled condition) pairs."""
        known = self.exempting.get(rule_id)
        if known is None:
            known = self.exempting[rule_id] = tuple((ex.var, self.compiled_expr(ex.cond))
                                                    for _rule, ex in self.clause_index.exempts.get(rule_id, ()))
        return known

    def constant(self, expr: ast.Node) -> Any:
        """The stored form of a value a clause names (`x.phase becomes out`, `prefer phase =
        in`, `from 3`): a name stands for itself as a symbol (`none`, `true` and `false` for
        theirs), a number or text for itself, whatever game is played."""
        known = self.constants.get(id(expr))
        if known is None:
            match expr:
                case ast.Name(id=name) if name != "turn":
                    value = symbol_value(name)
                case ast.Number(value=value) | ast.String(value=value):
                    pass
                case _:
                    raise DiagnosticError(Diagnostic(
                        "error", "a changed value in a clause must be a name or a number", expr.span,
                        "write the value itself (`out`, `none`, `3`), not an expression"))
            known = self.constants[id(expr)] = (expr, stored(value))
        return known[1]

    # ---------------------------------------------------------------- statements

    def recursive_verbs(self) -> frozenset[str]:
        """The verbs that can call themselves, through others or directly (worked out once):
        generated code does not inline them, so their calls are counted alike both ways."""
        if self._recursive_verbs is None:
            calls = {name: {n.verb for s in verb.body for n in s.walk() if isinstance(n, ast.Call)}
                     for name, verb in self.rulebook.verbs.items()}
            found = set()
            for name in calls:
                reached, todo = set(), list(calls[name])
                while todo:
                    callee = todo.pop()
                    if callee not in reached:
                        reached.add(callee)
                        todo.extend(calls.get(callee, ()))
                if name in reached:
                    found.add(name)
            self._recursive_verbs = frozenset(found)
        return self._recursive_verbs

    def statement_count(self) -> int:
        """How many statements the rulebook's blocks, verbs and cards hold (counted once)."""
        if self._statement_count is None:
            roots = list(self.rulebook.rules) + list(self.rulebook.verbs.values()) + list(self.rulebook.cards.values())
            self._statement_count = sum(statements_in(root) for root in roots)
        return self._statement_count

    def body_runner(self, stmt: ast.Node, cause: Cause) -> Runner:
        """How a body is run with a cause, as the program's backend runs it
        (`interpreter.program.backends`): generated Python written for that cause, or its closure."""
        return self.program.backend.body_runner(self, stmt, cause)

    def runner(self, stmt: ast.Node) -> Runner:
        """A statement compiled once per rulebook into a closure `(engine, env, batch, cause)`."""
        known = self.closures.get(id(stmt))
        if known is None:
            known = self.closures[id(stmt)] = (stmt, self.compile_statement(stmt))
        return known[1]

    def generated_runner(self, stmt: ast.Node, cause: Cause) -> Runner:
        """A body as generated Python written for `cause` (its closure where Python cannot
        take that code), written once per program."""
        key = (id(stmt), cause)
        known = self.runners.get(key)
        if known is None:
            try:
                fn = codegen.compile_runner(self, stmt, Write, cause)
            except codegen.CannotCompile:  # (nested too deeply for Python: the closure runs it)
                fn = self.closure_runner(stmt)
            known = self.runners[key] = (stmt, fn)
        return known[1]

    def closure_runner(self, stmt: ast.Node) -> Runner:
        """The closure of `stmt` where generated code would run it but Python cannot take
        that code; what it writes is not known (`codegen.OPAQUE`)."""
        run = self.runner(stmt)

        def closure(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
            run(eng, env, batch, cause)
        closure.write_sites = codegen.OPAQUE
        return closure

    def contested_by(self, writers: tuple[Callable, ...]) -> frozenset[str] | None:
        """The attributes the writes of a batch made by generated functions `writers`, and by
        the `as` clauses (which can join any batch), could set to two values
        (`write_sites.contested`); worked out once per set of writers."""
        key = tuple(id(w) for w in writers)
        known = self.contested.get(key)
        if known is None:
            sites = [w.write_sites for w in writers] + [self.program.clauses.expander().write_sites]
            known = self.contested[key] = (writers, contested(sites))  # (the writers kept: their ids stay theirs)
        return known[1]

    def compile_statement(self, stmt: ast.Node) -> Runner:
        """The statements rule blocks run most, as closures; the others go through the
        engine's `perform` (`Statements.perform`)."""
        match stmt:
            case ast.Block(stmts=stmts) | ast.Simultaneously(stmts=stmts):
                parts = [self.runner(s) for s in stmts]

                def block(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    for part in parts:
                        part(eng, env, batch, cause)
                return block
            case ast.Each(var=var, body=body_stmt):
                body = self.runner(body_stmt)

                def each(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    chosen = eng.selector.select(stmt, env, cause)  # (counted against the budget's iterations)
                    if len(batch.writes) + batch.in_bulk > eng.writes_left:
                        raise eng.over_budget("writes", stmt.span, cause)
                    if chosen:
                        scope = dict(env)  # rebound for each object: nothing the body makes keeps its scope
                        for ref in chosen:
                            scope[var] = ref
                            body(eng, scope, batch, cause)
                return each
            case ast.If(cond=cond_expr, body=body_stmt):
                cond, body = self.compiled_expr(cond_expr), self.runner(body_stmt)

                def if_(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    if cond(eng, env) not in FALSY:
                        body(eng, env, batch, cause)
                return if_
            case ast.Set(assigns=assigns):
                parts = [(a.var, a.attr, a.span, self.compiled_expr(a.value)) for a in assigns]

                def set_(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    for var, attr, span, value in parts:
                        ref = eng.reachable(env[var] if var in env else eng.resolve_name(var, env), span, cause)
                        if ref is not None:
                            batch.write_or_keep(cause, ref[0], attr, stored(value(eng, env)), eng.raw(ref[0], attr))
                return set_
            case ast.Call(verb=name, args=args):
                verb = self.rulebook.verbs[name]
                arguments = [(p, self.compiled_expr(a)) for p, a in zip(verb.params, args)]
                body_parts: list[Runner] = []  # compiled on the first call (a verb may call itself)
                compiler = self

                def call(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    if not body_parts and verb.body:
                        body_parts.extend(compiler.runner(s) for s in verb.body)
                    scope = dict(env)
                    for param, value in arguments:
                        scope[param] = value(eng, env)
                    if eng.calls >= MAX_CALL_DEPTH:
                        raise eng.fail(f"verb {name} is called more than {MAX_CALL_DEPTH} deep (verbs calling verbs)",
                                       stmt.span, "a verb that calls itself needs a condition that ends the calls")
                    eng.calls += 1
                    try:
                        for part in body_parts:
                            part(eng, scope, batch, cause)
                    finally:
                        eng.calls -= 1
                return call
            case ast.Unattach() | ast.Tap() | ast.Untap() | ast.AttackWith() | ast.RemoveFromCombat() | ast.RemoveDamage():
                target, span = self.compiled_expr(stmt.obj), stmt.obj.span
                pairs = MULTI_WRITES.get(type(stmt)) or (SIMPLE_WRITES[type(stmt)],)

                def simple(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    if (ref := eng.reachable(target(eng, env), span, cause)) is not None:
                        for attr, value in pairs:
                            batch.write_or_keep(cause, ref[0], attr, value, eng.raw(ref[0], attr))
                return simple
            case ast.EndTracking(obj=o):
                watched = self.compiled_expr(o)

                def end_tracking(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    eng.continuous.end_tracking(watched(eng, env), batch, cause)
                return end_tracking
        return lambda eng, env, batch, cause: eng.statements.perform(stmt, env, batch, cause)
