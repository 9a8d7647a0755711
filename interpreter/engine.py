"""The rule engine: applies a rulebook's blocks and the cards' effects to a game state.

The engine knows Magic in general (zones, attachments, continuous effects and their
durations, triggered abilities, state-based checks, the turn structure) and a handful of
generic mechanisms the rule files switch on:

- *hide*: objects a rule says the game treats as not existing, unless a query names the
  status the rule hides them by;
- *as*: changes that happen at the same time as another change (expanded to a fixed point
  before anything is applied), with *prefer* to settle conflicting simultaneous writes;
- *after*: follow-up actions once a change or a departure has happened;
- *changes of X are not ...*: which perceptions (zone change, control change, attachment
  change) a change of status X does not produce;
- *exempt*, *exclude*, *look back*, *order*, and checked assertions.

Every change is recorded as an `Event` naming its cause. Each step runs within a budget
(`interpreter.budget`: objects visited by selections, changes written, effects and triggers
created); changes that keep causing changes are stopped when they come back to a state they
had ("the rules never settle", naming the blocks involved), or nest too deeply.
"""

from __future__ import annotations

import contextlib
import gc
import typing
from collections import Counter, defaultdict
from operator import itemgetter
from typing import Any, Callable, Iterable

import attrs

from dsl import ast
from dsl.builtins import PERCEPTIONS
from dsl.diagnostics import Diagnostic, DiagnosticError, Span
from dsl.printer import clause_lines
from interpreter import codegen
from interpreter.codegen import ANY_OLD, SIMPLE_WRITES
from interpreter.budget import Budget
from interpreter.delayed import lose_reference
from interpreter.model import DelayedTrigger, Effect, Game, Permanent, Watcher
from interpreter.rulebook import Rulebook
from interpreter.trace import SCRIPT, Cause, Event, Trace, change_event, show_value
from interpreter.refs import MISSING, Obj, PlayerRef, obj_ref, stored
from interpreter.view import FALSY, GameView, RulesError, Skip
from interpreter.write_sites import contested

__all__ = ["Engine", "RulesError", "Obj", "PlayerRef", "MISSING"]

# Stored fields of an object that change only when a batch writes them (the engine itself
# stamps timestamp, entered_turn and controlled_since when an object is seen to enter).
CHANGED_ONLY_BY_WRITES = frozenset({"zone", "tapped", "counters", "stickers", "damage", "attached_to", "attacking",
                                    "token", "card", "owner", "types"})
UNREAD = object()  # a write's old value before anyone has read it
# Rounds of state checks in one settling, or triggered abilities resolved in one go, after
# which the engine watches for the game coming back to a state it had (`never_settles`).
# Before that nothing is watched; however long it goes on, the step's budget bounds it.
MAX_SETTLE_ROUNDS = 64
MAX_REACTION_DEPTH = 100  # changes causing changes causing changes ... (after clauses, returns)
MAX_CALL_DEPTH = 32  # verbs calling verbs (the ones that can call themselves are never inlined)
STATEMENTS = frozenset(typing.get_args(ast.Stmt))

@contextlib.contextmanager
def collector_paused():
    """Python's cycle collector paused (if it was running) while a step is played.

    A step on a large board makes hundreds of thousands of short-lived records (writes,
    environments, references) that reference counting frees as each batch ends; the engine
    makes no reference cycles. A collection in the middle of a batch would promote the live
    ones to older generations, whose full collections then walk the whole board again.
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


@attrs.define
class Write:
    obj: str
    attr: str
    value: Any
    cause: Cause
    old: Any = UNREAD  # the value it replaces: read as generated code writes it, else on expanding or applying


@attrs.define
class Op:
    describe: str
    subject: str
    apply: Callable[[], bool]
    cause: Cause
    kind: str = "effect"


@attrs.define
class Batch:
    """What one event does, gathered before anything changes.

    `writes` may hold writes that leave their value as it is. Generated code, which reads the
    value a write replaces as it writes, keeps those apart in `kept` as (how many writes came
    before it, (object, attribute), value, cause): they change nothing and wake no `as` clause,
    and matter only when a write in `writes` sets the same attribute to something else
    (a conflict, `settle_conflicts`), so they are kept only for the attributes in `contested`
    (when the batch's writers are known, `Engine.contested_by`)."""

    writes: list[Write] = attrs.field(factory=list)
    ops: list[Op] = attrs.field(factory=list)
    makes_effects: bool = False  # whether an op so far starts a continuous effect
    kept: list[tuple] = attrs.field(factory=list)
    # the attributes two writes of the batch could set to different values (`write_sites`):
    # generated code keeps a write that changes nothing only for those; None: for any
    contested: frozenset[str] | None = None

    def in_order(self, limit: int | None = None) -> list[Write]:
        """Every write (or the first `limit`), `kept` ones included, in the order they were made."""
        writes = self.writes
        if not self.kept:
            return writes[:limit]
        merged: list[Write] = []
        done = 0  # how many of `writes` are in `merged`
        for position, (oid, attr), value, cause in self.kept:
            merged += writes[done:position]
            done = position
            merged.append(Write(oid, attr, value, cause, value))
            if limit is not None and len(merged) >= limit:
                return merged[:limit]
        return (merged + writes[done:])[:limit]

    def write(self, cause: Cause, oid: str, attr: str, value: Any) -> None:
        self.writes.append(Write(oid, attr, value, cause))

    def op(self, cause: Cause, describe: str, subject: str, apply: Callable[[], bool], kind: str = "effect") -> None:
        self.ops.append(Op(describe, subject, apply, cause, kind))
        if kind == "effect":
            self.makes_effects = True


KEPT_KEY = itemgetter(1)  # the (object, attribute) of an entry of `Batch.kept`


def causes_of(batches: Iterable[Batch]) -> frozenset[str]:
    """The causes of the writes and operations of some batches, as they are named."""
    return frozenset(str(w.cause) for b in batches for w in b.writes) | {str(o.cause) for b in batches for o in b.ops}


class HookLog(defaultdict):
    """The changes made during a step (or as a turn begins) that assertions count: attribute ->
    a Counter of the ids of the objects whose attribute changed, in the order they first did.
    Made as `HookLog(Counter)`."""


Runner = Callable[["Engine", dict, Batch, Cause], None]


def waited_change(clause: ast.Along | ast.After) -> ast.Change:
    """The change an `as` or `after` clause waits on."""
    return clause.change if isinstance(clause, ast.Along) else clause.event


LEGAL_TARGET_HINT = "a target must exist, be seen by the game, and match the card's condition"


def targets_of(card: ast.Card) -> list[ast.Target]:
    """The targets a card declares, in order."""
    return [t for t in card.entries if isinstance(t, ast.Target)]


@attrs.frozen
class TargetChoice:
    """Targets chosen in advance for the next triggered ability of a card that needs them."""

    targets: tuple[str, ...]
    span: Any = None  # where the choice was made (a scenario step)


@attrs.define
class PendingTrigger:
    source: str
    card: str
    body: ast.Node
    env: dict
    cause: Cause


def check_arguments(rulebook: Any, game: Any, budget: Any) -> None:
    """`Engine(rulebook, game, budget)` is given a rulebook, a game and a budget (or None), else
    it fails at once with a `DiagnosticError` naming the argument."""
    for name, value, wanted, optional in (("rulebook", rulebook, Rulebook, False), ("game", game, Game, False),
                                          ("budget", budget, Budget, True)):
        if optional and value is None:
            continue
        if not isinstance(value, wanted):
            raise DiagnosticError(Diagnostic(
                "error", f"Engine(...): the {name} argument must be a {wanted.__name__} "
                f"({wanted.__module__}.{wanted.__name__}), not {type(value).__name__}", Span("Engine", 0, 0, 0, 0),
                {"rulebook": "load one with interpreter.api.load(version)",
                 "game": "build one with interpreter.api.game_from_scenario(scenario, book)",
                 "budget": "give an interpreter.budget.Budget, e.g. Budget.from_option('256'), or None"}[name]))


class Engine(GameView):
    """Changes a game by the rules: runs blocks and card effects as events, and records them.

    `generated`: run bodies and `as` clauses as Python written from them once per rulebook
    (`interpreter.codegen`); False runs the closures that define them. Both leave the same
    trace, event for event.

    Each step runs within `budget` (`interpreter.budget`; None: the default `Budget()`): a
    step begins with `begin_step()`, which the scenario runner calls before each step.
    Wrong argument types raise `DiagnosticError` at once, naming the argument.
    """

    generated = True

    def __init__(self, rulebook: Rulebook, game: Game, budget: Budget | None = None):
        check_arguments(rulebook, game, budget)
        super().__init__(rulebook, game)
        self.budget = budget if budget is not None else Budget()
        self.trace = Trace()
        self.pending: list[PendingTrigger] = []
        self.step = 0
        self.depth = 0
        self.batches: list[Batch] = []  # the batches being committed, outermost first
        # while a settling or a run of triggered abilities is watched for repetition (how many
        # are), the causes of each batch committed since the watch began
        self.watching = 0
        self.calls = 0  # verbs being called, one inside another
        self.cause_log: list[frozenset[str]] = []
        self.begin_step()  # (batches committed in this step: `commits`; the step's budget)
        # every batch committed gets the next number; the numbers of those being committed,
        # outermost first (the trace groups events by them)
        self.batch_no = 0
        self.batch_ids: list[int] = []
        # per step (or turn start) being run: attribute -> how often each object's changed, for
        # the assertions that count them (`Rulebook.step_counted`)
        self._hook_log: list[HookLog] = []
        self.stack: list[tuple] = []
        self.target_choices: dict[str, list[TargetChoice]] = defaultdict(list)

    # ================================================================ budgets

    def begin_step(self) -> None:
        """A new step: no batch committed yet, and its budget (`interpreter.budget`) afresh,
        worked out for the game as it is now."""
        self.commits = 0
        self.limits = self.budget.limits(len(self.game.objects), len(self.game.players), self.statement_count())
        self.iterations_left = self.limits.iterations
        self.writes_left = self.limits.writes
        self.objects_left = self.limits.objects

    def recursive_verbs(self) -> frozenset[str]:
        """The verbs that can call themselves, through others or directly (worked out once):
        generated code does not inline them, so their calls are counted alike both ways."""
        known = self.rb.compiled.get(("recursive verbs",))
        if known is None:
            calls = {name: {n.verb for s in verb.body for n in s.walk() if isinstance(n, ast.Call)}
                     for name, verb in self.rb.verbs.items()}
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
            known = self.rb.compiled[("recursive verbs",)] = (None, frozenset(found))
        return known[1]

    def statement_count(self) -> int:
        """How many statements the rulebook's blocks, verbs and cards hold (counted once)."""
        known = self.rb.compiled.get(("statement count",))
        if known is None:
            roots = list(self.rb.rules) + list(self.rb.verbs.values()) + list(self.rb.cards.values())
            count = sum(type(node) in STATEMENTS for root in roots for node in root.walk())
            known = self.rb.compiled[("statement count",)] = (None, count)
        return known[1]

    def made(self, span: Any, cause: Cause | None) -> None:
        """Something the rules create (an effect, a delayed or pending trigger, a return) is
        counted against the step's budget."""
        self.objects_left -= 1
        if self.objects_left < 0:
            raise self.over_budget("objects", span, cause)

    # ================================================================ statements

    def run(self, stmt: ast.Node, env: dict, cause: Cause) -> bool:
        """Run a body: a block is a sequence of events; any other statement is one event."""
        if isinstance(stmt, ast.Block):
            changed = False
            for s in stmt.stmts:
                changed |= self.run(s, env, cause)
            return changed
        batch = Batch()
        runner = self.body_runner(stmt, cause)
        if self.generated:  # its writes, and those of the `as` clauses, are all the batch's
            batch.contested = self.contested_by((runner,))
        runner(self, env, batch, cause)
        return self.commit(batch)

    def target(self, expr: ast.Node, env: dict, cause: Cause) -> Obj | None:
        """The object a statement acts on, or None when it can't be affected (a hide rule hides it)."""
        return self.reachable(self.eval(expr, env), expr.span, cause)

    def reachable(self, ref: Any, span, cause: Cause) -> Obj | None:
        """`ref` if it is an object an action can affect; None when it is gone or hidden."""
        if type(ref) is not Obj:
            if ref is None or ref is MISSING:
                return None
            raise self.fail("this needs an object", span)
        o = self.game.objects.get(ref[0])
        if o is None or o.zone == "nowhere":
            return None
        if not ref[1] and self.is_hidden(ref.id):
            self.record("fails", ref.id, "is treated as not existing; the action does nothing to it", cause)
            if self.skips is not None and (found := self.hiding_clause(ref.id)) is not None:
                self.skips.append(Skip(self.step, None, cause, ref.id, "hidden", *found))
            return None
        return ref

    def player_arg(self, expr: ast.Node, env: dict) -> str:
        v = self.eval(expr, env)
        if isinstance(v, PlayerRef):
            return v.name
        raise self.fail("this needs a player", expr.span)

    def runner(self, stmt: ast.Node) -> Runner:
        """A statement compiled once per rulebook into a closure `(engine, env, batch, cause)`."""
        known = self.rb.compiled.get(("statement", id(stmt)))
        if known is None:
            known = self.rb.compiled[("statement", id(stmt))] = (stmt, self.compile_statement(stmt))
        return known[1]

    def body_runner(self, stmt: ast.Node, cause: Cause) -> Runner:
        """How a body is run with a cause: as generated Python (`generated`), written for that
        cause, or as its closure."""
        if not self.generated:
            return self.runner(stmt)
        key = ("generated", id(stmt), cause)
        known = self.rb.compiled.get(key)
        if known is None:
            try:
                fn = codegen.compile_runner(self, stmt, Write, cause)
            except codegen.CannotCompile:  # (nested too deeply for Python: the closure runs it)
                fn = self.closure_runner(stmt)
            known = self.rb.compiled[key] = (stmt, fn)
        return known[1]

    def closure_runner(self, stmt: ast.Node) -> Runner:
        """The closure of `stmt` where generated code would run it but Python cannot take
        that code; what it writes is not known (`codegen.OPAQUE`)."""
        run = self.runner(stmt)

        def closure(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
            run(eng, env, batch, cause)
        closure.write_sites = codegen.OPAQUE
        return closure

    def contested_by(self, writers: tuple[Callable, ...]) -> frozenset[str] | None:
        """The attributes the writes of a batch made by generated functions `writers`, and by
        the `as` clauses (which can join any batch), could set to two values
        (`write_sites.contested`); worked out once per set of writers."""
        key = ("contested",) + tuple(id(w) for w in writers)
        known = self.rb.compiled.get(key)
        if known is None:
            sites = [w.write_sites for w in writers] + [self.expander().write_sites]
            known = self.rb.compiled[key] = (writers, contested(sites))  # (the writers kept: their ids stay theirs)
        return known[1]

    def compile_statement(self, stmt: ast.Node) -> Runner:
        """The statements rule blocks run most, as closures; the others go through `perform`."""
        match stmt:
            case ast.Block(stmts=stmts) | ast.Simultaneously(stmts=stmts):
                parts = [self.runner(s) for s in stmts]

                def block(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    for part in parts:
                        part(eng, env, batch, cause)
                return block
            case ast.Each(var=var, body=body_stmt):
                body = self.runner(body_stmt)

                def each(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    chosen = eng.select(stmt, env, cause)  # (counted against the budget's iterations)
                    if len(batch.writes) > eng.writes_left:
                        raise eng.over_budget("writes", stmt.span, cause)
                    if chosen:
                        scope = dict(env)  # rebound for each object: nothing the body makes keeps its scope
                        for ref in chosen:
                            scope[var] = ref
                            body(eng, scope, batch, cause)
                return each
            case ast.If(cond=cond_expr, body=body_stmt):
                cond, body = self.compiled_expr(cond_expr), self.runner(body_stmt)

                def if_(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    if cond(eng, env) not in FALSY:
                        body(eng, env, batch, cause)
                return if_
            case ast.Set(assigns=assigns):
                parts = [(a.var, a.attr, a.span, self.compiled_expr(a.value)) for a in assigns]

                def set_(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    for var, attr, span, value in parts:
                        ref = eng.reachable(env[var] if var in env else eng.resolve_name(var, env), span, cause)
                        if ref is not None:
                            batch.writes.append(Write(ref[0], attr, stored(value(eng, env)), cause))
                return set_
            case ast.Call(verb=name, args=args):
                verb = self.rb.verbs[name]
                arguments = [(p, self.compiled_expr(a)) for p, a in zip(verb.params, args)]
                body_parts: list[Runner] = []  # compiled on the first call (a verb may call itself)

                def call(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    if not body_parts and verb.body:
                        body_parts.extend(eng.runner(s) for s in verb.body)
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
                attr, value = SIMPLE_WRITES[type(stmt)]

                def simple(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    if (ref := eng.reachable(target(eng, env), span, cause)) is not None:
                        batch.writes.append(Write(ref[0], attr, value, cause))
                return simple
            case ast.EndTracking(obj=o):
                watched = self.compiled_expr(o)

                def end_tracking(eng: Engine, env: dict, batch: Batch, cause: Cause) -> None:
                    eng.end_tracking(watched(eng, env), batch, cause)
                return end_tracking
        return lambda eng, env, batch, cause: eng.perform(stmt, env, batch, cause)

    def may_track(self, batch: Batch) -> bool:
        """Can an effect be watching an object as `batch` is made? Only if one exists or the
        batch starts one."""
        return bool(self.game.effects) or batch.makes_effects

    def end_tracking(self, ref: Any, batch: Batch, cause: Cause) -> None:
        """`end effects tracking x`: the effects whose duration watches object `ref` end."""
        if type(ref) is Obj and self.may_track(batch):
            oid = ref[0]
            batch.op(cause, "effects watching it end", oid,
                     lambda: self.end_effects(lambda e: oid in e.tracked, cause), "effect-ends")

    def perform(self, stmt: ast.Node, env: dict, batch: Batch, cause: Cause) -> None:
        """The statements that are not compiled: actions, effects, durations, delayed triggers."""
        match stmt:
            case ast.Attach(obj=o, to=t):
                ref = self.target(o, env, cause)
                host = self.eval(t, env)
                if ref is not None and isinstance(host, (Obj, PlayerRef)):
                    batch.write(cause, ref.id, "attached_to", stored(host))
            case ast.DealDamage(amount=n, obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    batch.write(cause, ref.id, "damage", self.obj(ref.id).damage + n)
            case ast.Destroy(obj=o):
                if (ref := self.target(o, env, cause)) is not None and "indestructible" not in self.chars(ref.id)["keywords"]:
                    batch.write(cause, ref.id, "zone", "graveyard")
            case ast.Move(obj=o, zone=zone, duration=duration):
                if (ref := self.target(o, env, cause)) is not None:
                    if isinstance(duration, ast.UntilLeaves):
                        watched = self.value_of(duration.obj, env)
                        if not (isinstance(watched, Obj) and self.obj(watched.id).zone == "battlefield"):
                            return  # the event already happened: the object doesn't move (610.3a)
                        self.made(stmt.span, cause)
                        self.game.watchers.append(Watcher(watched.id, ref.id, "battlefield", str(cause)))
                    batch.write(cause, ref.id, "zone", zone)
            case ast.Cease(obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    batch.write(cause, ref.id, "zone", "nowhere")
            case ast.AddCounters(amount=n, kind=kind, obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    counters = dict(self.obj(ref.id).counters)
                    counters[kind] = counters.get(kind, 0) + n
                    batch.write(cause, ref.id, "counters", tuple(sorted(counters.items())))
            case ast.Draw(player=p, amount=a):
                who, n = self.player_arg(p, env), self.eval(a, env)
                batch.op(cause, f"draws {n}", who, lambda: self._player(who, hand=self.game.players[who].hand + n), "draw")
            case ast.GainLife(player=p, amount=a):
                who, n = self.player_arg(p, env), self.eval(a, env)
                batch.op(cause, f"gains {n} life", who, lambda: self._player(who, life=self.game.players[who].life + n), "life")
            case ast.Pump() | ast.SetBase() | ast.Grant() | ast.GainControl():
                self.create_effect(stmt, env, batch, cause)
            case ast.EndUntilEndOfTurn():
                batch.op(cause, "until-end-of-turn effects end", "game", lambda: self.end_effects(lambda e: e.duration == "end of turn", cause), "effect-ends")
            case ast.EndUntilNextTurn(player=p):
                who = self.player_arg(p, env)
                batch.op(cause, f"effects lasting until {who}'s next turn end", who,
                         lambda: self.end_effects(lambda e: e.duration == "next turn" and e.player == who, cause), "effect-ends")
            case ast.EndFailed():
                batch.op(cause, "for-as-long-as effects whose condition fails end", "game",
                         lambda: self.end_effects(lambda e: e.duration == "as long as" and not self.truthy(self.eval(e.condition, dict(e.bindings))), cause),
                         "effect-ends")
            case ast.EndLimited(obj=o):
                ref = self.eval(o, env)
                if isinstance(ref, Obj):
                    batch.op(cause, "its effects with a limited duration end", ref.id,
                             lambda: self.end_effects(lambda e: ref.id in e.affected and e.duration != "forever", cause), "effect-ends")
            case ast.LoseDelayed(obj=o):
                ref = self.eval(o, env)
                if isinstance(ref, Obj) and self.game.delayed:
                    batch.op(cause, "delayed triggers lose track of it", ref.id,
                             lambda: lose_reference(self.game, ref.id), "effect-ends")
            case ast.EndControl(player=p):
                who = self.player_arg(p, env)
                batch.op(cause, f"effects giving {who} control end", who,
                         lambda: self.end_effects(lambda e: e.kind == "control" and e.value == who, cause), "effect-ends")
            case ast.Delayed(hook=hook, body=body):
                self.made(stmt.span, cause)
                self.game.delayed.append(DelayedTrigger(hook, body, tuple(env.items()), None, str(cause)))
            case _:
                raise self.fail(f"cannot perform {type(stmt).__name__} here", stmt.span)

    def _player(self, name: str, **changes) -> bool:
        self.game.players[name] = attrs.evolve(self.game.players[name], **changes)
        if "in_game" in changes:  # what is attached to or controlled by a player may be affected
            self.invalidate()
        return True

    # ---------------------------------------------------------------- continuous effects

    def create_effect(self, stmt: ast.Node, env: dict, batch: Batch, cause: Cause) -> None:
        ref = self.eval(stmt.obj, env)
        if not isinstance(ref, Obj) or ref.id not in self.game.objects:
            return
        if self.obj(ref.id).zone != "battlefield":
            return
        if not ref.aware:
            for rule, ex in self.ix.excludes:
                if self.truthy(self.eval(ex.cond, {ex.var: Obj(ref.id, True)})):
                    self.record("fails", ref.id, "left out of the effect's affected objects", self.rule_cause(rule, rule))
                    return
        match stmt:
            case ast.Pump():
                kind, value = "pump", (stmt.power, stmt.toughness)
            case ast.SetBase():
                kind, value = "base", (stmt.power, stmt.toughness)
            case ast.Grant():
                kind, value = "grant", stmt.keyword
            case ast.GainControl():
                kind, value = "control", self.player_arg(stmt.player, env)
        duration, player, condition, bindings, tracked = "forever", None, None, (), frozenset()
        d = stmt.duration
        if isinstance(d, ast.UntilEndOfTurn):
            duration = "end of turn"
        elif isinstance(d, ast.UntilNextTurn):
            who = self.value_of("you" if d.player == "your" else d.player, env)
            if not isinstance(who, PlayerRef):
                raise self.fail("this needs a player", d.span)
            duration, player = "next turn", who.name
        elif isinstance(d, ast.ForAsLongAs):
            duration, condition = "as long as", d.cond
            names = {n.id for n in d.cond.walk() if isinstance(n, ast.Name)}
            bindings = tuple((k, v) for k, v in env.items() if k in names)
            tracked = frozenset(v.id for _k, v in bindings if isinstance(v, Obj))
        elif isinstance(d, ast.UntilLeaves):
            duration = "until leaves"
            watched = self.value_of(d.obj, env)
            tracked = frozenset([watched.id]) if isinstance(watched, Obj) else frozenset()
        source = env.get("this")
        self.made(stmt.span, cause)

        def make() -> bool:
            eid = self.game.tick()
            self.game.effects[eid] = Effect(
                eid, kind, frozenset([ref.id]), value, duration, player, condition, bindings, tracked,
                source.id if isinstance(source, Obj) else None, eid, str(cause),
            )
            return True

        text = {"pump": f"gets {value[0]:+d}/{value[1]:+d}" if kind == "pump" else "",
                "base": f"becomes {value[0]}/{value[1]}" if kind == "base" else "",
                "grant": f"gains {value}", "control": f"comes under {value}'s control"}[kind]
        batch.op(cause, f"{text} ({duration})", ref.id, make, "effect")

    def end_effects(self, which: Callable[[Effect], bool], cause: Cause) -> bool:
        if not self.game.effects:
            return False
        ending = [e for e in self.game.effects.values() if which(e)]
        for e in ending:
            del self.game.effects[e.id]
            subject = ", ".join(sorted(e.affected))
            self.record("effect-ends", subject, f"effect from {e.cause} ends ({e.kind}, {e.duration})", cause)
        if ending:
            self.invalidate()
        return bool(ending)

    # ================================================================ committing a batch

    def rule_cause(self, rule: ast.Rule, clause: ast.Node) -> Cause:
        """The cause naming a rule block, pointing at one of its clauses (made once per clause)."""
        known = self.rb.compiled.get(("cause", id(clause)))
        if known is None:
            # an `as` or `after` clause is named by its head, for the trace to say how it acted
            role = clause_lines(clause)[0].split(":")[0] if isinstance(clause, (ast.Along, ast.After)) else ""
            amended = self.rb.amended_by(rule, clause)  # a clause a variant's `amend` wrote: say so
            known = self.rb.compiled[("cause", id(clause))] = (clause, Cause("rule", rule.id, rule.slug, clause.span,
                                                                             role, amended.describe(clause) if amended else ""))
        return known[1]

    def record(self, kind: str, subject: str, detail: str, cause: Cause, **data) -> Event:
        """Add an event to the trace; one made while a batch is committed carries its number
        (`batch`), and, when that batch was made while another was committed, that one's
        (`follows`)."""
        ids = self.batch_ids
        if ids:
            data["batch"] = ids[-1]
            if len(ids) > 1:
                data["follows"] = ids[-2]
        event = Event(kind, subject, detail, cause, self.step, tuple(x for item in sorted(data.items()) for x in item))
        self.trace.append(event)
        return event

    def commit(self, batch: Batch) -> bool:
        """Expand, settle conflicts, apply, then let everything that watches the changes react."""
        self.commits += 1
        if self.depth > MAX_REACTION_DEPTH:  # each change caused by the one before, ever deeper
            raise self.never_settles(causes_of(self.batches + [batch]))
        self.depth += 1
        self.batches.append(batch)
        self.batch_no += 1
        self.batch_ids.append(self.batch_no)
        try:
            return self._commit(batch)
        finally:
            self.depth -= 1
            self.batches.pop()
            self.batch_ids.pop()

    def _commit(self, batch: Batch) -> bool:
        if not batch.writes and not batch.ops:
            return False  # nothing happens (what `kept` holds changes nothing): nothing to perceive, check or follow up
        self.expand(batch)
        self.writes_left -= len(batch.writes)
        if self.writes_left < 0:
            cause = batch.writes[-1].cause
            raise self.over_budget("writes", cause.span, cause)
        if self.watching:
            self.cause_log.append(causes_of([batch]))
        final, settled = self.settle_conflicts(batch)
        changes: list[Write] = []  # the writes that change something (each knows the value it replaces)
        by_object: dict[str, list[Write]] = defaultdict(list)
        attrs_written: set[str] = set()
        # the changes by (attribute, new value), in batch order, for the assertions and `after`
        # clauses that wait on them (only those some clause waits on)
        keyed: dict[tuple[str, Any], list[Write]] = defaultdict(list)
        attrs_waited, waited = self.waited_on()
        for w in final:
            old, value, attr = w.old, w.value, w.attr
            if old is UNREAD:
                old = w.old = self.raw(w.obj, attr)
            if old != value:
                changes.append(w)
                by_object[w.obj].append(w)
                attrs_written.add(attr)
                if attr in attrs_waited and (attr, value) in waited:
                    keyed[(attr, value)].append(w)
        if not changes and not batch.ops:
            return False  # every write leaves its value as it was: nothing happens
        touched = by_object.keys()
        # Can this batch change what the game sees, or what is attached to what? With hide rules
        # that look only at their own object (and nothing static abilities change), only a write
        # to something they read can (or an effect that starts or ends).
        sight = bool(batch.ops) or not self.rb.sight_follows_writes or not self.rb.hide_inputs.isdisjoint(attrs_written)
        perceived = (sight or "attached_to" in attrs_written) and not self.unperceived(changes, attrs_written, batch)
        if perceived:
            watch: Iterable[str] = touched | self.attachment_neighbours(touched)
        else:  # what the game sees of the objects changed, for their last known information
            watch = touched if sight else ()
        vis_before = self.sight(watch)
        edges_before = self.edges(watch, vis_before) if perceived else set()
        if sight:  # last known information, of what the game may stop seeing
            self.remember([oid for oid in touched if vis_before[oid]])
        before_values: dict[str, dict] = defaultdict(dict)
        written: set[tuple[str, str]] | None = None  # (object, attribute) of every change, when an assertion asks
        for _rule, clause, key in self.waiting_on_changes("assert"):
            if key not in keyed or self.holds_unread(clause, attrs_written) or not self.unchanged_parts(clause)[0]:
                continue  # (nothing to read before: no `is unchanged` part, or none that can fail)
            if written is None:
                written = {(w.obj, w.attr) for w in changes}
            for (oid, node), value in self.assertion_before(clause, keyed[key], written).items():
                before_values[oid][node] = value
        self.apply_writes(by_object, attrs_written)
        changed = bool(changes)
        ids = self.batch_ids
        self.trace.changes(self.step, changes, ids[-1], ids[-2] if len(ids) > 1 else 0)
        for subject, text, cause in settled:  # (after the changes it settled)
            self.record("settle", subject, text, cause)
        if self._hook_log and not self.rb.step_counted.isdisjoint(attrs_written):
            for attr in self.rb.step_counted & attrs_written:
                changed_objects = [w.obj for w in changes if w.attr == attr]
                for log in self._hook_log:
                    log[attr].update(changed_objects)
        for o in batch.ops:
            if o.apply():
                changed = True
                self.record(o.kind, o.subject, o.describe, o.cause)
                if o.kind in ("effect", "effect-ends"):
                    self.invalidate()
        zone_events: list[Event] = []
        attach_events: list[Event] = []
        if perceived:
            vis_after = self.sight(watch)
            zone_events = self.perceive_presence(by_object, vis_before, vis_after)
            attach_events = self.perceive_attachments(by_object, edges_before, self.edges(watch, vis_after))
        self.check_assertions(keyed, before_values, attrs_written)
        for event in zone_events:
            self.on_presence_event(event)
        self.collect_triggers(changes, zone_events + attach_events, vis_before)
        self.run_afters(keyed)
        return changed

    def constant(self, expr: ast.Node) -> Any:
        """The stored form of a value written in a rule (`out`, `true`, `none`), worked out once."""
        known = self.rb.compiled.get(("constant", id(expr)))
        if known is None:
            known = self.rb.compiled[("constant", id(expr))] = (expr, stored(self.eval(expr, {})))
        return known[1]

    def change_key(self, pattern: ast.Change) -> tuple[str, Any]:
        """What a change must be to fit `x.attr becomes V`: the attribute and the stored V."""
        return pattern.attr, self.constant(pattern.value)

    def waiting_on_changes(self, kind: str) -> tuple:
        """The assertions ("assert") or `after` clauses ("after") that wait on a change, in
        rulebook order, each with the (attribute, value) it waits on."""
        known = self.rb.compiled.get(("waiting", kind))
        if known is None:
            clauses = self.ix.assertions if kind == "assert" else self.ix.afters
            table = tuple((rule, clause, self.change_key(clause.event)) for rule, clause in clauses
                          if isinstance(clause, (ast.AssertAfter, ast.After)) and isinstance(clause.event, ast.Change))
            known = self.rb.compiled[("waiting", kind)] = (None, table)
        return known[1]

    def waited_on(self) -> tuple[frozenset[str], set[tuple[str, Any]]]:
        """The changes assertions and `after` clauses wait on, as (attribute, stored value),
        and their attributes."""
        waited = self.rb.compiled.get(("waited on",))
        if waited is None:
            keys = {key for _rule, _clause, key in self.waiting_on_changes("assert") + self.waiting_on_changes("after")}
            waited = self.rb.compiled[("waited on",)] = (None, (frozenset(attr for attr, _value in keys), keys))
        return waited[1]

    def came_from(self, pattern: ast.Change) -> Any:
        """The stored value `x.A becomes V from W` says the change comes from, or ANY_OLD."""
        return ANY_OLD if pattern.old is None else self.constant(pattern.old)

    def reaction(self, rule: ast.Rule, clause: ast.Along | ast.After) -> tuple:
        """An `as` or `after` clause that waits on a change, as the engine runs it: (variable,
        compiled condition or None, the value the change must come from or ANY_OLD, compiled
        body, cause)."""
        pattern = waited_change(clause)
        return (pattern.var,
                None if pattern.cond is None else self.compiled_expr(pattern.cond),
                self.came_from(pattern),
                self.runner(clause.body),
                self.rule_cause(rule, clause))

    def react(self, reaction: tuple, oid: str, old: Any, batch: Batch) -> None:
        """Run a `reaction` to object `oid` changing from `old` (to the value it waits on), if
        the change also fits what the clause says it comes from and its condition."""
        var, cond, wanted_old, body, cause = reaction
        if wanted_old is not ANY_OLD and old != wanted_old:
            return
        env = {var: obj_ref((oid, True))}
        if cond is None or cond(self, env) not in FALSY:
            body(self, env, batch, cause)

    def alongs(self) -> dict[tuple[str, Any], tuple]:
        """The `as` clauses by the (attribute, stored value) change they wait on, in rulebook
        order, each as a `reaction` (generated code has them written into `expander`)."""
        table = self.rb.compiled.get(("alongs",))
        if table is None:
            found = {key: tuple(self.reaction(*c) for c in entries) for key, entries in self.alongs_by_change().items()}
            table = self.rb.compiled[("alongs",)] = (None, found)
        return table[1]

    def alongs_by_change(self) -> dict[tuple[str, Any], list[tuple[ast.Rule, ast.Along]]]:
        """The `as` clauses, in rulebook order, by the (attribute, stored value) change they wait on."""
        keyed: dict[tuple, list] = defaultdict(list)
        for clauses in self.ix.alongs.values():
            for rule, along in clauses:
                keyed[self.change_key(along.change)].append((rule, along))
        return keyed

    def expander(self) -> Callable[["Engine", Batch, int], None]:
        """`expand` with every `as` clause written in, as generated Python (written once per
        rulebook, `codegen.compile_expander`)."""
        known = self.rb.compiled.get(("expander",))
        if known is None:
            keyed = {key: [self.clause_entry(*c) for c in entries] for key, entries in self.alongs_by_change().items()}
            try:
                fn = codegen.compile_expander(self, keyed, Write, UNREAD)
            except codegen.CannotCompile:  # (nested too deeply for Python: the closures run them)
                def fn(eng: Engine, batch: Batch, limit: int) -> None:
                    eng.expand_by_closures(batch, limit)
                fn.write_sites = codegen.OPAQUE
            known = self.rb.compiled[("expander",)] = (None, fn)
        return known[1]

    def follow_ups(self) -> tuple:
        """The `after` clauses that wait on a change, in rulebook order: (the change's
        (attribute, stored value), `reaction`, whether all it does is end the effects that
        track objects, which it cannot do while no effect exists)."""
        table = self.rb.compiled.get(("follow-ups", self.generated))
        if table is None:
            def ends_tracking_only(after: ast.After) -> bool:
                body = after.body.stmts if isinstance(after.body, ast.Block) else (after.body,)
                return all(isinstance(s, ast.EndTracking) for s in body)

            def reaction(rule: ast.Rule, after: ast.After) -> Any:  # generated: called as `react` would be
                if self.generated:
                    try:
                        return codegen.compile_reactions(self, [self.clause_entry(rule, after)], Write)
                    except codegen.CannotCompile:  # (nested too deeply for Python: its closures run it)
                        closure = self.reaction(rule, after)
                        return lambda eng, oid, old, batch: eng.react(closure, oid, old, batch)
                return self.reaction(rule, after)
            entries = tuple((key, reaction(rule, after), ends_tracking_only(after))
                            for rule, after, key in self.waiting_on_changes("after"))
            table = self.rb.compiled[("follow-ups", self.generated)] = (None, entries)
        return table[1]

    def clause_entry(self, rule: ast.Rule, clause: ast.Along | ast.After) -> tuple:
        """An `as` or `after` clause as `codegen.compile_reactions` takes it: (the change it
        waits on, its body, its cause, the value the change must come from or ANY_OLD)."""
        pattern = waited_change(clause)
        return pattern, clause.body, self.rule_cause(rule, clause), self.came_from(pattern)

    def matches(self, pattern: ast.Change, attr: str, old: Any, new: Any) -> bool:
        """Does a change of `attr` from `old` to `new` fit `x.attr becomes V [from W]`?"""
        return (pattern.attr == attr and new == self.constant(pattern.value)
                and (pattern.old is None or old == self.constant(pattern.old)))

    def fits(self, pattern: ast.Change, w: Write) -> dict | None:
        """The environment binding the pattern's variable, if write `w` fits it."""
        if not self.matches(pattern, w.attr, w.old, w.value):
            return None
        env = {pattern.var: obj_ref((w.obj, True))}
        if pattern.cond is not None and not self.truthy(self.eval(pattern.cond, env)):
            return None
        return env

    def never_settles(self, involved: Iterable[str]) -> RulesError:
        """The error for changes that keep causing further changes: a state that comes back
        (`watched`), or reactions nested ever deeper; `involved`: the causes of the changes
        that went round."""
        named = sorted(set(involved)) or ["(no change was written: only effects and triggers)"]
        return self.fail("the rules never settle: changes keep causing further changes", None,
                         "blocks involved: " + "; ".join(named))

    @contextlib.contextmanager
    def watched(self):
        """Watch a loop (rounds of state checks, triggered abilities resolving) for coming back
        to where it was: yields `again(key)`, to be called at the top of each turn of the loop
        with what, besides the game (`Game.fingerprint`), decides what the loop does next; it
        raises `never_settles`, naming the causes of every batch since then, when the loop has
        been there before."""
        seen: dict[int, int] = {}  # fingerprint -> how many batches the log held then
        self.watching += 1

        def again(key: Any) -> None:
            try:
                fingerprint = hash((self.game.fingerprint(), key))
            except TypeError:  # (a value that cannot be hashed: compared as written)
                fingerprint = hash((self.game.fingerprint(), repr(key)))
            if fingerprint in seen:
                raise self.never_settles(set().union(*self.cause_log[seen[fingerprint]:]))
            seen[fingerprint] = len(self.cause_log)
        try:
            yield again
        finally:
            self.watching -= 1
            if not self.watching:
                self.cause_log.clear()

    def expand(self, batch: Batch) -> None:
        """Add the changes that happen at the same time as the ones already in the batch ('as'
        clauses). Generated code does it in one function (`expander`); `expand_by_closures`
        is its definition."""
        limit = self.writes_left  # more writes than this: over the step's budget
        if self.generated:
            self.expander()(self, batch, limit)
            return
        self.expand_by_closures(batch, limit)

    def expand_by_closures(self, batch: Batch, limit: int) -> None:
        """`expand` by the closures of the `as` clauses: more than `limit` writes in the batch
        goes over the step's budget."""
        writes, objects, defaults = batch.writes, self.game.objects, self.defaults
        seen = set()
        alongs = self.alongs()
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
                raise self.over_budget("writes", reactions[-1][4].span, reactions[-1][4])

    def settle_conflicts(self, batch: Batch) -> tuple[list[Write], list[tuple]]:
        """The batch's writes with one per (object, attribute): where two set different
        values, the `prefer` rule for the attribute says which stands, else the batch fails;
        and what the `prefer` rules settled (subject, text, cause), for the trace to show after
        the changes."""
        final, settled, clash = self.settled(batch.writes)
        if batch.kept and not final.keys().isdisjoint(map(KEPT_KEY, batch.kept)):
            # a write that keeps its value meets one that changes it: settle them all in order
            final, settled, clash = self.settled(batch.in_order())
        if clash is not None:
            for subject, text, cause in settled:
                self.record("settle", subject, text, cause)
            other, w = clash
            raise self.fail(
                f"conflicting simultaneous changes: {w.obj}.{w.attr} set to {show_value(other.value)} by {other.cause} "
                f"and to {show_value(w.value)} by {w.cause}",
                w.cause.span if w.cause.span.line else None,
                f"add a rule that says which wins ('prefer {w.attr} = ...')",
            )
        return list(final.values()), settled

    def settled(self, writes: list[Write]) -> tuple[dict[tuple, Write], list[tuple], tuple | None]:
        """`settle_conflicts` without its effects: the write that stands per (object,
        attribute) so far, what the `prefer` rules settled (subject, text, cause), and the
        first two writes nothing settles, if any (there it stops)."""
        final: dict[tuple, Write] = {}
        settled: list[tuple] = []
        for w in writes:
            key = (w.obj, w.attr)
            other = final.setdefault(key, w)
            if other is w:
                continue  # the first write to it
            if other.value == w.value:
                continue  # the same value twice: the first write stands
            preferred = self.ix.prefers.get(w.attr)
            if preferred is not None:
                rule, clause = preferred
                wanted = self.constant(clause.value)
                if wanted in (w.value, other.value):
                    loser = other if w.value == wanted else w
                    final[key] = w if w.value == wanted else other
                    settled.append((w.obj, f"{w.attr} {show_value(wanted)} wins over {show_value(loser.value)} "
                                    f"(from {loser.cause})", self.rule_cause(rule, clause)))
                    continue
            return final, settled, (other, w)
        return final, settled, None

    def apply_writes(self, per_object: dict[str, list[Write]], attrs_written: set[str]) -> None:
        """One new object for each object the batch changes (`put_all`); an object whose zone
        changes (a new object, 400.7) takes its changes one at a time, in batch order."""
        if "zone" not in attrs_written:
            self.put_all(list(per_object.items()))
            return
        staying, moving = [], []
        for oid, ws in per_object.items():
            (moving if any(w.attr == "zone" for w in ws) else staying).append((oid, ws))
        self.put_all(staying)
        for _oid, ws in moving:
            for w in ws:
                self.apply_write(w)

    def apply_write(self, w: Write) -> None:
        o = self.obj(w.obj)
        if w.attr in self.rb.statuses:
            self.put(w.obj, o.with_status(w.attr, w.value))
            return
        if w.attr == "zone":
            self.change_zone(o, w.value)
            return
        self.put(w.obj, o.replace(**{w.attr: w.value}))

    def change_zone(self, o: Permanent, zone: str) -> None:
        """A real zone change makes a new object (400.7): it forgets its status, counters and effects.

        A zone a version declares may say what an object keeps moving between it and the
        battlefield; `keeps all` makes it the same object throughout.
        """
        declared = self.rb.zones.get(zone) or self.rb.zones.get(o.zone)
        if declared is not None and "battlefield" in (o.zone, zone) and "all" in declared.keeps:
            self.put(o.id, attrs.evolve(o, zone=zone))
            return
        self.new_object(o, zone)
        if declared is not None and "battlefield" in (o.zone, zone):
            kept = {name: getattr(o, name) for name in declared.keeps if name in attrs.fields_dict(Permanent)}
            kept["status"] = tuple((k, v) for k, v in o.status if k in declared.keeps)
            self.put(o.id, attrs.evolve(self.game.objects[o.id], **kept))

    def new_object(self, o: Permanent, zone: str) -> None:
        if o.zone == "battlefield":
            fresh = attrs.evolve(o, zone=zone, tapped=False, counters=(), damage=0, attached_to=None,
                                 attacking=False, status=(), controller=o.owner)
            for eid, e in list(self.game.effects.items()):
                if o.id in e.affected:
                    remaining = e.affected - {o.id}
                    if remaining:
                        self.game.effects[eid] = attrs.evolve(e, affected=remaining)
                    else:
                        del self.game.effects[eid]
            self.put(o.id, fresh)
        elif zone == "battlefield":
            stamp = self.game.tick()
            self.put(o.id, attrs.evolve(o, zone=zone, timestamp=stamp, entered_turn=self.game.turn,
                                        controlled_since=self.game.turn, controller=o.owner))
        else:
            self.put(o.id, attrs.evolve(o, zone=zone))

    # ---------------------------------------------------------------- perception of presence and attachment

    def unperceived(self, changes: list[Write], attrs_written: set[str], batch: Batch) -> bool:
        """True when no object can be perceived to enter, leave, change control or become
        attached or unattached: no zone or attachment is written, no effect starts or ends,
        whether the game sees an object follows its own writes, and every write that can
        change that is one the rules say is none of those (`changes of ... are not ...`)."""
        if batch.ops or not self.rb.sight_follows_writes or "zone" in attrs_written or "attached_to" in attrs_written:
            return False
        hide_inputs = self.rb.hide_inputs
        judged = set()
        for w in changes:
            if w.attr in hide_inputs and (w.attr, w.old) not in judged:
                if not self.quiet_for(w.attr, w.old).issuperset(PERCEPTIONS):
                    return False
                judged.add((w.attr, w.old))
        return True

    def quiet_kinds(self, writes: Iterable[Write]) -> frozenset[str]:
        """The perceptions that these changes, by the rules' `changes of ... are not ...`, do not produce."""
        quiets = self.ix.quiets
        kinds: frozenset[str] = frozenset()
        for w in writes:
            if w.attr in quiets:
                kinds = kinds | self.quiet_for(w.attr, w.old) if kinds else self.quiet_for(w.attr, w.old)
        return kinds

    def quiet_for(self, attr: str, old: Any) -> frozenset[str]:
        """What a change of `attr` from `old` is not perceived as (worked out once per value)."""
        key = ("quiet", attr, type(old), old)
        known = self.rb.compiled.get(key)
        if known is None:
            kinds = frozenset(k for clause in self.ix.quiets.get(attr, ())
                              if clause.old is None or old == self.constant(clause.old) for k in clause.kinds)
            known = self.rb.compiled[key] = (None, kinds)
        return known[1]

    def perceive_presence(self, by_object, vis_before, vis_after) -> list[Event]:
        """An object the game stops (or starts) seeing is, unless a rule says otherwise, seen to leave (or enter)."""
        events = []
        for oid, writes in by_object.items():
            if vis_before.get(oid) == vis_after.get(oid):
                continue
            real = any(w.attr == "zone" for w in writes)
            quiet = self.quiet_kinds(writes)
            cause = writes[0].cause
            entering = vis_after[oid]
            if "zone-change" not in quiet:
                if entering and not real:
                    o = self.obj(oid)
                    # seen as a new object on the battlefield: new timestamp, and new to its controller too
                    self.put(oid, attrs.evolve(o, entered_turn=self.game.turn, timestamp=self.game.tick(),
                                               controlled_since=self.game.turn))
                events.append(self.record("enters" if entering else "leaves", oid,
                                          ("enters the battlefield" if entering else "leaves the battlefield")
                                          + ("" if real else " (as the game sees it)"), cause))
            if entering and "control-change" not in quiet and not real:
                self.put(oid, attrs.evolve(self.obj(oid), controlled_since=self.game.turn))
        return events

    def attachment_neighbours(self, oids: set[str]) -> set[str]:
        out = set()
        for oid in oids:
            o = self.game.objects.get(oid)
            if o is not None and o.attached_to in self.game.objects:
                out.add(o.attached_to)
            out |= self.indexes.attached(oid)
        return out

    def edges(self, oids: set[str], seen: dict[str, bool]) -> set[tuple[str, str]]:
        """(attachment, host) for each of `oids` attached to something the game sees, both
        seen; `seen` says for the objects it holds whether the game sees them."""
        out = set()
        objects = self.game.objects
        for oid in oids:
            o = objects.get(oid)
            if o is None or o.attached_to is None or not seen.get(oid, False):
                continue
            host = o.attached_to
            if (host in objects and (seen[host] if host in seen else self.visible(host))) or self.player_in_game(host):
                out.add((oid, host))
        return out

    def perceive_attachments(self, by_object, before, after) -> list[Event]:
        events = []
        for kind, edges in (("attached", after - before), ("unattached", before - after)):
            for a, host in sorted(edges):
                writes = by_object.get(a, []) + by_object.get(host, [])
                real = any(w.attr == "attached_to" for w in writes)
                if not real and "attachment-change" in self.quiet_kinds(writes):
                    continue
                cause = writes[0].cause if writes else SCRIPT
                events.append(self.record(kind, a, f"{'becomes attached to' if kind == 'attached' else 'becomes unattached from'} {host}"
                                          + ("" if real else " (as the game sees it)"), cause, host=host))
        return events

    def on_presence_event(self, event: Event) -> None:
        if event.kind != "leaves":
            return
        for w in [w for w in self.game.watchers if w.watched == event.subject]:
            self.game.watchers.remove(w)
            if self.obj(w.obj).zone != "battlefield":
                batch = Batch([Write(w.obj, "zone", w.zone_back, Cause("engine", "610.3", "return at the end of an 'until' effect"))])
                self.commit(batch)
        for rule, after in self.ix.afters:
            if isinstance(after.event, ast.LeavesEvent):
                self.run(after.body, {after.event.var: Obj(event.subject, True)}, self.rule_cause(rule, after))

    def run_afters(self, changes: dict[tuple, list]) -> None:
        """The follow-ups of one batch's changes happen together, as one further event."""
        batch = Batch()
        for key, reaction, ends_tracking_only in self.follow_ups():
            if ends_tracking_only and not self.may_track(batch):
                continue  # it would end nothing
            for w in changes.get(key, ()):
                if self.generated:
                    reaction(self, w.obj, w.old, batch)
                else:
                    self.react(reaction, w.obj, w.old, batch)
        if batch.writes or batch.ops:
            self.commit(batch)

    # ---------------------------------------------------------------- assertions

    def assertion_before(self, clause: ast.AssertAfter, changes: list, written: set[tuple[str, str]]) -> dict:
        """What the `is unchanged` parts of an assertion read before `changes` (those it waits on)."""
        values = {}
        pattern = clause.event
        for w in changes:  # judged after the change: read for every match
            if self.matches(pattern, w.attr, w.old, w.value):
                env = {pattern.var: obj_ref((w.obj, True))}
                new_object = (w.obj, "zone") in written
                for n, attr in self.unchanged_parts(clause)[0]:
                    if attr is not None and not new_object and (w.obj, attr) not in written:
                        continue  # only a write changes it, and this batch makes none: it holds, unread
                    values[(w.obj, id(n.value))] = self.eval(n.value, env)
        return values

    def unchanged_parts(self, clause: ast.AssertAfter) -> tuple[list, bool, frozenset[str]]:
        """The `is unchanged` nodes of an assertion, each with the stored attribute it reads (if
        it reads one); whether the condition is nothing but such nodes joined by `and`; and the
        stored attributes they read, with `zone` (a zone change makes a new object, which
        changes them all)."""
        known = self.rb.compiled.get(("unchanged", id(clause)))
        if known is None:
            var = clause.event.var
            parts = [(n, self.stored_attribute(n.value, var)) for n in clause.cond.walk() if isinstance(n, ast.Unchanged)]
            only = all(isinstance(c, ast.Unchanged) and self.stored_attribute(c.value, var)
                       for c in ast.conjuncts(clause.cond))
            read = frozenset(attr for _n, attr in parts if attr) | {"zone"}
            known = self.rb.compiled[("unchanged", id(clause))] = (clause, (parts, only, read))
        return known[1]

    def stored_attribute(self, expr: ast.Node, var: str) -> str | None:
        """A when `expr` is `var.A` and A changes only when written (a status, or a stored field
        other than those the engine stamps when an object is seen to enter)."""
        if isinstance(expr, ast.Attr) and isinstance(expr.obj, ast.Name) and expr.obj.id == var and (
                expr.name in self.rb.statuses or expr.name in CHANGED_ONLY_BY_WRITES):
            return expr.name
        return None

    def holds_unread(self, clause: ast.AssertAfter, attrs_written: set[str]) -> bool:
        """True when the assertion is only `is unchanged` parts on stored attributes, and the
        batch wrote none of them (nor a zone: a new object) to any object: it holds unread."""
        _parts, only_unchanged, read = self.unchanged_parts(clause)
        return only_unchanged and read.isdisjoint(attrs_written)

    def check_assertions(self, changes, before_values, attrs_written: set[str]) -> None:
        for rule, clause, key in self.waiting_on_changes("assert"):
            if key not in changes or self.holds_unread(clause, attrs_written):
                continue
            parts, only_unchanged, _read = self.unchanged_parts(clause)
            holds_for = self.assertion_test(clause) if self.generated else None
            for w in changes.get(key, ()):
                before = before_values.get(w.obj, {})
                if only_unchanged and not any(id(n.value) in before for n, _stored in parts):
                    continue  # every part reads a stored attribute this batch didn't write: it holds
                if holds_for is not None:
                    holds = holds_for(self, w.obj, w.old, before)
                elif (env := self.fits(clause.event, w)) is None:
                    continue
                else:
                    holds = self.truthy(self.eval(clause.cond, env, before))
                if not holds:
                    raise self.fail(f"assertion of {rule.id} {rule.slug} does not hold for {w.obj}", clause.span,
                                    "the blocks this assertion restates no longer produce what it states")

    def assertion_test(self, clause: ast.AssertAfter) -> Callable[["Engine", str, Any, dict], bool] | None:
        """An assertion after a change as a generated function `(engine, object id, old
        value, values read before) -> bool`: false when the change fits it and it fails
        (None when Python cannot take it: the closures judge it)."""
        known = self.rb.compiled.get(("assertion", id(clause)))
        if known is None:
            try:
                fn = codegen.compile_assertion(self, clause, self.came_from(clause.event))
            except codegen.CannotCompile:  # (nested too deeply for Python: judged as the closures judge it)
                fn = None
            known = self.rb.compiled[("assertion", id(clause))] = (clause, fn)
        return known[1]

    def check_hook_assertions(self, kind: str, player: str, counts: HookLog, skipped: bool) -> None:
        for rule, clause in self.ix.assertions:
            if isinstance(clause, ast.AssertOnce) and not skipped and clause.hook.kind == kind:
                changed = counts.get(clause.attr)
                if changed and max(changed.values()) > 1:
                    oid, n = next((oid, n) for oid, n in changed.items() if n > 1)  # the first, in order
                    raise self.fail(f"assertion of {rule.id} {rule.slug}: {oid}.{clause.attr} changed {n} times during one {kind}",
                                    clause.span)
            if isinstance(clause, ast.AssertSkipped) and skipped and clause.hook.kind == kind:
                if counts.get(clause.attr):
                    raise self.fail(f"assertion of {rule.id} {rule.slug}: {clause.attr} changed during a skipped {kind}",
                                    clause.span)

    # ================================================================ triggers

    def collect_triggers(self, changes: list[Write], others: list[Event], vis_before: dict) -> None:
        """The abilities of cards on the objects a batch's events happened to (or the hosts an
        attachment event names) that trigger on them: its changes, then its other events."""
        triggered = self.rb.triggered_cards
        if not triggered or not any(self.indexes.lookup("card", name) for name in triggered):
            return  # no object in the game has a triggered ability
        events = [change_event(w, self.step) for w in changes] + others
        objects = self.game.objects
        for event in events:
            candidates = [event.subject]
            if event.kind in ("attached", "unattached"):
                candidates.append(event.values().get("host"))
            for oid in candidates:
                o = objects.get(oid)
                if o is None or o.card not in triggered:
                    continue
                card = self.rb.cards[o.card]
                for entry in card.entries:
                    if isinstance(entry, ast.Triggered) and self.trigger_matches(entry.trigger, oid, event, vis_before):
                        you = self.game.lki.get(oid, {}).get("controller") if not self.visible(oid) else self.controller(oid)
                        env = {"this": Obj(oid), "you": PlayerRef(you or o.controller)}
                        self.made(entry.span, Cause("card", card.name))
                        self.pending.append(PendingTrigger(oid, card.name, entry.body, env, Cause("card", card.name)))
                        self.record("trigger", oid, f"ability of {card.name} triggers", Cause("card", card.name))

    def trigger_matches(self, trigger, oid, event: Event, vis_before: dict) -> bool:
        was_visible = vis_before.get(oid, self.visible(oid))
        match trigger:
            case ast.OnEnters():
                return event.kind == "enters" and event.subject == oid and self.visible(oid)
            case ast.OnLeaves():
                return event.kind == "leaves" and event.subject == oid and was_visible
            case ast.OnAttached():
                return event.kind == "attached" and self.visible(oid)
            case ast.OnUnattached():
                return event.kind == "unattached" and was_visible
            case ast.OnChange(change=pattern):
                data = event.values()
                if event.kind != "change" or event.subject != oid:
                    return False
                if not self.matches(pattern, data.get("attr"), data.get("old"), data.get("new")):
                    return False
                looks_back = any(lb.attr == pattern.attr and self.constant(lb.value) == self.constant(pattern.value)
                                 for lb in self.ix.lookbacks)
                return was_visible if looks_back else self.visible(oid)
        return False

    def resolve_triggers(self) -> None:
        resolved = 0
        with contextlib.ExitStack() as stack:
            again = None
            while self.pending:
                resolved += 1
                if resolved > MAX_SETTLE_ROUNDS:  # many in a row: do they go round in a circle?
                    again = again or stack.enter_context(self.watched())
                    again(tuple((t.source, t.card, id(t.body), tuple(t.env.items())) for t in self.pending))
                self.resolve_trigger()

    def resolve_trigger(self) -> None:
        """Resolve the first pending triggered ability."""
        trig = self.pending.pop(0)
        card = self.rb.cards[trig.card]
        unchosen = [t for t in targets_of(card) if t.var not in trig.env]
        names = {t.var for t in unchosen}
        if names and any(isinstance(n, ast.Name) and n.id in names for n in trig.body.walk()):
            if not self.choose_targets(trig, unchosen):
                return
        self.record("resolve", trig.source, f"ability of {trig.card} resolves", trig.cause)
        self.run(trig.body, trig.env, trig.cause)
        self.settle()

    def choose_targets(self, trig: PendingTrigger, decls: list[ast.Target]) -> bool:
        """Targets for a triggered ability as it is put on the stack (603.3d), from the choices
        made for its card in advance (`TargetChoice`), first made, first used. Without one the
        ability is removed from the stack. A chosen target must be legal then, as when a spell
        is cast (601.2c)."""
        queue = self.target_choices.get(trig.card)
        if not queue:
            self.record("fails", trig.source, f"ability of {trig.card} has no target chosen and is removed", trig.cause)
            return False
        choice = queue.pop(0)
        if len(choice.targets) != len(decls):
            raise self.fail(f"the ability of \"{trig.card}\" needs {len(decls)} target(s), {len(choice.targets)} chosen",
                            choice.span, "choose as many targets as the card declares")
        for decl, name in zip(decls, choice.targets):
            if not self.legal_target(decl, name, trig.env):
                raise self.fail(f"'{name}' cannot be a target of the ability of \"{trig.card}\" when it triggers",
                                choice.span, LEGAL_TARGET_HINT)
            trig.env[decl.var] = Obj(name)
        self.record("target", trig.source, f"ability of {trig.card} targets {', '.join(choice.targets)}", trig.cause)
        return True

    def legal_target(self, decl: ast.Target, name: str, env: dict) -> bool:
        """A target must exist, be seen by the game and fit its card's condition (LEGAL_TARGET_HINT)."""
        if not self.visible(name):
            return False
        return self.truthy(self.eval(decl.cond, {**env, decl.var: Obj(name)}))

    # ================================================================ state checks, hooks and turns

    def settle(self) -> None:
        """Check state-based actions (and anything else hooked to state checks) until nothing changes.

        A check that looks only at an object, what it is attached to, and its controller is
        made again only for the objects changed since the last check settled.
        """
        rounds = 0
        with contextlib.ExitStack() as stack:
            again = None
            while True:
                rounds += 1
                if rounds > MAX_SETTLE_ROUNDS:  # a long settling: does it go round in a circle?
                    again = again or stack.enter_context(self.watched())
                    again(frozenset(self.dirty) if self.dirty is not None else None)
                if not self.settle_round():
                    return

    def settle_round(self) -> bool:
        """One round of state checks, as one batch; whether it changed anything."""
        checks = self.state_checks()
        fused = self.check_pass() if self.generated else None
        batch = Batch()
        if self.generated:
            batch.contested = self.contested_by(self.state_check_writers())
        self.statics.refresh()
        dirty, self.dirty = self.dirty, set()
        seen_dirty = None  # those of them the game sees: all a check that sees no hidden object looks at
        chosen = None  # what the checks made in one pass choose (`check_pass`), once worked out
        for position, (local, sees_hidden, body, cause) in enumerate(checks):
            if local and dirty is not None and not dirty:
                continue  # nothing changed since it was last made: it finds nothing new
            scope = dirty if local else None
            if scope is not None and not sees_hidden:
                if fused is not None:  # in one pass with the others like it (over the changed objects the game sees)
                    one_pass, bodies = fused
                    if chosen is None:  # (each check's choice put in game order, not all the objects first)
                        chosen = [self.indexes.sort_refs(refs) for refs in one_pass(self, dirty)]
                    k, run_chosen = bodies[position]
                    run_chosen(self, chosen[k], batch, cause)
                    continue
                if seen_dirty is None:
                    objects, is_hidden = self.game.objects, self.is_hidden
                    seen_dirty = {oid for oid in dirty if oid in objects and not is_hidden(oid)}
                scope = seen_dirty
            self.dirty_scope = scope
            try:
                body(self, {}, batch, cause)
            finally:
                self.dirty_scope = None
        return self.commit(batch)

    def state_check_writers(self) -> tuple[Callable, ...]:
        """The generated functions that may write into a round's batch of state checks: each
        check's body, and what runs the body of each check made in one pass (`check_pass`)."""
        fused = self.check_pass()
        return (tuple(body for _local, _sees, body, _cause in self.state_checks())
                + (tuple(run_chosen for _k, run_chosen in fused[1].values()) if fused is not None else ()))

    def state_checks(self) -> tuple:
        """The blocks hooked to state checks, in order, each as (whether it is local, whether
        its selection sees hidden objects, compiled body, cause); a local check is made again
        only for the objects changed since the last (a local check is one `each`)."""
        known = self.rb.compiled.get(("state checks", self.generated))
        if known is None:
            table = tuple((self.rb.local_check(during.body),
                           isinstance(during.body, ast.Each) and self.query(during.body).aware,
                           self.body_runner(during.body, self.rule_cause(rule, during)),
                           self.rule_cause(rule, during))
                          for rule, during in self.ix.hooks.get("state check", ()))
            known = self.rb.compiled[("state checks", self.generated)] = (None, table)
        return known[1]

    def check_pass(self) -> tuple[Callable, dict[int, tuple[int, Callable]]] | None:
        """The local state checks that see no hidden object, as generated Python written on
        first use, for when they are made again for the changed objects the game sees: all
        of them in one pass over those objects (`codegen.compile_check_pass`, a function
        `(engine, changed ids)` giving the references each check chooses), and by
        position in `state_checks`, the check's place in that pass and what runs its body
        for what it chose (`codegen.compile_chosen`). None when Python cannot take them: each
        check is then made on its own."""
        known = self.rb.compiled.get(("check pass",))
        if known is None:
            hooked = self.ix.hooks.get("state check", ())
            fused = [(position, hooked[position][1].body, cause)
                     for position, (local, sees_hidden, _body, cause) in enumerate(self.state_checks())
                     if local and not sees_hidden]
            try:
                one_pass = codegen.compile_check_pass(self, [(each, cause) for _p, each, cause in fused])
                bodies = {position: (k, codegen.compile_chosen(self, each, Write, cause))
                          for k, (position, each, cause) in enumerate(fused)}
                table = (one_pass, bodies)
            except codegen.CannotCompile:  # (nested too deeply for Python: each check runs on its own)
                table = None
            known = self.rb.compiled[("check pass",)] = (None, table)
        return known[1]

    def run_hook(self, kind: str, player: str | None) -> None:
        with collector_paused():
            self._hook_log.append(HookLog(Counter))
            try:
                for rule, during in self.ix.hooks.get(kind, ()):
                    env = {during.hook.var: PlayerRef(player)} if during.hook.var and player else {}
                    self.run(during.body, env, self.rule_cause(rule, during))
                for delayed in [d for d in self.game.delayed if d.hook == kind]:
                    self.game.delayed.remove(delayed)
                    self.run(delayed.body, dict(delayed.bindings), Cause("card", delayed.cause))
            finally:
                counts = self._hook_log.pop()
            self.check_hook_assertions(kind, player or "", counts, skipped=False)
            self.settle()

    def skip_hook(self, kind: str, player: str, counts: HookLog) -> None:
        """A skipped step; `counts` are the changes made so far in the part of the turn it belongs to."""
        self.record("step", player, f"{kind} is skipped", SCRIPT, turn=self.game.turn)
        self.check_hook_assertions(kind, player, counts, skipped=True)

    def cleanup(self) -> None:
        """The end of the turn: the end step, then the cleanup step."""
        self.record("step", self.game.active, "end step", SCRIPT, turn=self.game.turn)
        self.run_hook("end step", self.game.active)
        self.resolve_triggers()
        self.record("step", self.game.active, "cleanup step", SCRIPT, turn=self.game.turn)
        self.run_hook("cleanup", self.game.active)
        self.game.cleanup_done = True
        self.resolve_triggers()

    def next_turn(self, skip_untap: bool = False) -> None:
        if not self.game.cleanup_done:
            self.cleanup()
        current = self.game.active
        for _ in range(len(self.game.order)):
            current = self.game.next_player(current)
            if self.player_in_game(current):
                break
            self.record("step", current, "turn would have begun, but the player has left the game", SCRIPT)
            self.run_hook("turn would begin", current)
        self.game.active = current
        self.game.turn += 1
        self.game.cleanup_done = False
        self.record("step", current, f"turn {self.game.turn} begins", SCRIPT, turn=self.game.turn)
        self._hook_log.append(HookLog(Counter))  # what changes as the turn begins, for a skipped untap step
        try:
            self.run_hook("beginning of turn", current)
        finally:
            turn_start = self._hook_log.pop()
        if skip_untap:
            self.skip_hook("untap step", current, turn_start)
        else:
            self.record("step", current, "untap step", SCRIPT, turn=self.game.turn)
            self.run_hook("untap step", current)
        self.resolve_triggers()

    def player_leaves(self, name: str) -> None:
        self._player(name, in_game=False)
        self.record("step", name, "leaves the game", SCRIPT)
        self.run_hook("leaving the game", name)
        self.resolve_triggers()
