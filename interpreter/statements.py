"""Statements as the engine runs them: compiled once per rulebook into closures or generated
Python, and the actions that are not compiled (`perform`)."""

from __future__ import annotations

import typing
from typing import Any, Callable

from dsl import ast
from interpreter import codegen
from interpreter.batches import Batch, Write
from interpreter.codegen import SIMPLE_WRITES
from interpreter.delayed import lose_reference
from interpreter.model import DelayedTrigger, Watcher
from interpreter.program import UNBUILT
from interpreter.refs import FALSY, Obj, PlayerRef, stored
from interpreter.trace import Cause
from interpreter.write_sites import contested


Runner = Callable[[Any, dict, Batch, Cause], None]  # (engine, env, batch, cause)

MAX_CALL_DEPTH = 32  # verbs calling verbs (the ones that can call themselves are never inlined)


STATEMENTS = frozenset(typing.get_args(ast.Stmt))


@ast.per_node
def statements_in(root: ast.Node) -> int:
    """How many statements a block, verb or card holds (worked out once per node: the
    rulebooks a variant or an ablation builds share most of theirs)."""
    return sum(type(node) in STATEMENTS for node in root.walk())


class Statements:
    """Turns statements into runners `(engine, env, batch, cause)`, each worked out once per
    rulebook: generated Python or closures, as the program's backend runs them (`interpreter.backends`); the statements that are not
    compiled are performed by `perform`. A runner adds to a batch; nothing changes until the
    batch is committed (`interpreter.batches`)."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def recursive_verbs(self) -> frozenset[str]:
        """The verbs that can call themselves, through others or directly (worked out once):
        generated code does not inline them, so their calls are counted alike both ways."""
        known = self.eng.program.recursive_verbs
        if known is UNBUILT:
            calls = {name: {n.verb for s in verb.body for n in s.walk() if isinstance(n, ast.Call)}
                     for name, verb in self.eng.rb.verbs.items()}
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
            known = self.eng.program.recursive_verbs = frozenset(found)
        return known

    def statement_count(self) -> int:
        """How many statements the rulebook's blocks, verbs and cards hold (counted once)."""
        known = self.eng.program.statement_count
        if known is UNBUILT:
            roots = list(self.eng.rb.rules) + list(self.eng.rb.verbs.values()) + list(self.eng.rb.cards.values())
            count = sum(statements_in(root) for root in roots)
            known = self.eng.program.statement_count = count
        return known

    def target(self, expr: ast.Node, env: dict, cause: Cause) -> Obj | None:
        """The object a statement acts on, or None when it can't be affected (a hide rule hides it)."""
        return self.eng.reachable(self.eng.eval(expr, env), expr.span, cause)

    def player_arg(self, expr: ast.Node, env: dict) -> str:
        """The name of the player expression `expr` stands for (else an error at it)."""
        v = self.eng.eval(expr, env)
        if isinstance(v, PlayerRef):
            return v.name
        raise self.eng.fail("this needs a player", expr.span)

    def runner(self, stmt: ast.Node) -> Runner:
        """A statement compiled once per rulebook into a closure `(engine, env, batch, cause)`."""
        known = self.eng.program.closures.get(id(stmt))
        if known is None:
            known = self.eng.program.closures[id(stmt)] = (stmt, self.compile_statement(stmt))
        return known[1]

    def body_runner(self, stmt: ast.Node, cause: Cause) -> Runner:
        """How a body is run with a cause, as the program's backend runs it
        (`interpreter.backends`): generated Python written for that cause, or its closure."""
        return self.eng.backend.body_runner(self.eng, stmt, cause)

    def generated_runner(self, stmt: ast.Node, cause: Cause) -> Runner:
        """A body as generated Python written for `cause` (its closure where Python cannot
        take that code), written once per program."""
        key = (id(stmt), cause)
        known = self.eng.program.runners.get(key)
        if known is None:
            try:
                fn = codegen.compile_runner(self.eng, stmt, Write, cause)
            except codegen.CannotCompile:  # (nested too deeply for Python: the closure runs it)
                fn = self.closure_runner(stmt)
            known = self.eng.program.runners[key] = (stmt, fn)
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
        known = self.eng.program.contested.get(key)
        if known is None:
            sites = [w.write_sites for w in writers] + [self.eng.reactions.expander().write_sites]
            known = self.eng.program.contested[key] = (writers, contested(sites))  # (the writers kept: their ids stay theirs)
        return known[1]

    def compile_statement(self, stmt: ast.Node) -> Runner:
        """The statements rule blocks run most, as closures; the others go through `perform`."""
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
                    if len(batch.writes) > eng.writes_left:
                        raise eng.over_budget("writes", stmt.span, cause)
                    if chosen:
                        scope = dict(env)  # rebound for each object: nothing the body makes keeps its scope
                        for ref in chosen:
                            scope[var] = ref
                            body(eng, scope, batch, cause)
                return each
            case ast.If(cond=cond_expr, body=body_stmt):
                cond, body = self.eng.compiled_expr(cond_expr), self.runner(body_stmt)

                def if_(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    if cond(eng, env) not in FALSY:
                        body(eng, env, batch, cause)
                return if_
            case ast.Set(assigns=assigns):
                parts = [(a.var, a.attr, a.span, self.eng.compiled_expr(a.value)) for a in assigns]

                def set_(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    for var, attr, span, value in parts:
                        ref = eng.reachable(env[var] if var in env else eng.resolve_name(var, env), span, cause)
                        if ref is not None:
                            batch.writes.append(Write(ref[0], attr, stored(value(eng, env)), cause))
                return set_
            case ast.Call(verb=name, args=args):
                verb = self.eng.rb.verbs[name]
                arguments = [(p, self.eng.compiled_expr(a)) for p, a in zip(verb.params, args)]
                body_parts: list[Runner] = []  # compiled on the first call (a verb may call itself)

                def call(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    if not body_parts and verb.body:
                        body_parts.extend(eng.statements.runner(s) for s in verb.body)
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
                target, span = self.eng.compiled_expr(stmt.obj), stmt.obj.span
                attr, value = SIMPLE_WRITES[type(stmt)]

                def simple(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    if (ref := eng.reachable(target(eng, env), span, cause)) is not None:
                        batch.writes.append(Write(ref[0], attr, value, cause))
                return simple
            case ast.EndTracking(obj=o):
                watched = self.eng.compiled_expr(o)

                def end_tracking(eng: Any, env: dict, batch: Batch, cause: Cause) -> None:
                    eng.continuous.end_tracking(watched(eng, env), batch, cause)
                return end_tracking
        return lambda eng, env, batch, cause: eng.statements.perform(stmt, env, batch, cause)

    def perform(self, stmt: ast.Node, env: dict, batch: Batch, cause: Cause) -> None:
        """The statements that are not compiled: actions, effects, durations, delayed triggers."""
        match stmt:
            case ast.Attach(obj=o, to=t):
                ref = self.target(o, env, cause)
                host = self.eng.eval(t, env)
                if ref is not None and isinstance(host, (Obj, PlayerRef)):
                    batch.write(cause, ref.id, "attached_to", stored(host))
            case ast.DealDamage(amount=n, obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    batch.write(cause, ref.id, "damage", self.eng.obj(ref.id).damage + n)
            case ast.Destroy(obj=o):
                if (ref := self.target(o, env, cause)) is not None and "indestructible" not in self.eng.chars(ref.id)["keywords"]:
                    batch.write(cause, ref.id, "zone", "graveyard")
            case ast.Move(obj=o, zone=zone, duration=duration):
                if (ref := self.target(o, env, cause)) is not None:
                    if isinstance(duration, ast.UntilLeaves):
                        watched = self.eng.value_of(duration.obj, env)
                        if not (isinstance(watched, Obj) and self.eng.obj(watched.id).zone == "battlefield"):
                            return  # the event already happened: the object doesn't move (610.3a)
                        self.eng.made(stmt.span, cause)
                        self.eng.store.add_to("watchers", Watcher(watched.id, ref.id, "battlefield", str(cause)), cause)
                    batch.write(cause, ref.id, "zone", zone)
            case ast.Cease(obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    batch.write(cause, ref.id, "zone", "nowhere")
            case ast.AddCounters(amount=n, kind=kind, obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    counters = dict(self.eng.obj(ref.id).counters)
                    counters[kind] = counters.get(kind, 0) + n
                    batch.write(cause, ref.id, "counters", tuple(sorted(counters.items())))
            case ast.Draw(player=p, amount=a):
                who, n = self.player_arg(p, env), self.eng.eval(a, env)
                batch.op(cause, f"draws {n}", who, lambda: self.eng.turns.update_player(who, cause, hand=self.eng.game.players[who].hand + n), "draw")
            case ast.GainLife(player=p, amount=a):
                who, n = self.player_arg(p, env), self.eng.eval(a, env)
                batch.op(cause, f"gains {n} life", who, lambda: self.eng.turns.update_player(who, cause, life=self.eng.game.players[who].life + n), "life")
            case ast.Pump() | ast.SetBase() | ast.Grant() | ast.GainControl():
                self.eng.continuous.create_effect(stmt, env, batch, cause)
            case ast.EndUntilEndOfTurn():
                batch.op(cause, "until-end-of-turn effects end", "game", lambda: self.eng.continuous.end_effects(lambda e: e.duration == "end of turn", cause), "effect-ends")
            case ast.EndUntilNextTurn(player=p):
                who = self.player_arg(p, env)
                batch.op(cause, f"effects lasting until {who}'s next turn end", who,
                         lambda: self.eng.continuous.end_effects(lambda e: e.duration == "next turn" and e.player == who, cause), "effect-ends")
            case ast.EndFailed():
                batch.op(cause, "for-as-long-as effects whose condition fails end", "game",
                         lambda: self.eng.continuous.end_effects(lambda e: e.duration == "as long as" and not self.eng.truthy(self.eng.eval(e.condition, dict(e.bindings))), cause),
                         "effect-ends")
            case ast.EndLimited(obj=o):
                ref = self.eng.eval(o, env)
                if isinstance(ref, Obj):
                    batch.op(cause, "its effects with a limited duration end", ref.id,
                             lambda: self.eng.continuous.end_effects(lambda e: ref.id in e.affected and e.duration != "forever", cause), "effect-ends")
            case ast.LoseDelayed(obj=o):
                ref = self.eng.eval(o, env)
                if isinstance(ref, Obj) and self.eng.game.delayed:
                    batch.op(cause, "delayed triggers lose track of it", ref.id,
                             lambda: lose_reference(self.eng.game, ref.id, cause), "effect-ends")
            case ast.EndControl(player=p):
                who = self.player_arg(p, env)
                batch.op(cause, f"effects giving {who} control end", who,
                         lambda: self.eng.continuous.end_effects(lambda e: e.kind == "control" and e.value == who, cause), "effect-ends")
            case ast.Delayed(hook=hook, body=body):
                self.eng.made(stmt.span, cause)
                self.eng.store.add_to("delayed", DelayedTrigger(hook, body, tuple(env.items()), None, str(cause)), cause)
            case _:
                raise self.eng.fail(f"cannot perform {type(stmt).__name__} here", stmt.span)
