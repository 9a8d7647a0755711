"""The statements the engine performs itself, for the runners the program's compiler makes
(`interpreter.program.compiler`): actions, effects, durations and delayed triggers (`perform`)."""

from __future__ import annotations

from typing import Any

from ...dsl import ast
from ..game.writes import Batch
from .delayed import lose_reference
from ..game.model import DelayedTrigger, Watcher
from ..game.refs import Obj, PlayerRef, stored
from ..game.trace import Cause


def with_counters(counters: tuple, kind: str, n: int) -> tuple:
    """`counters` (sorted (kind, number) pairs) with `n` more of `kind` (fewer, for a negative
    `n`: as many as there are at most, 122.8; a kind with none left is left out)."""
    found = dict(counters)
    found[kind] = max(0, found.get(kind, 0) + n)
    return tuple(sorted((k, v) for k, v in found.items() if v))


class Statements:
    """Performs the statements that are not compiled (`perform`: actions, effects, durations,
    delayed triggers) for the runners the program's compiler makes (`interpreter.program.compiler`).
    A runner adds to a batch; nothing changes until the batch is committed
    (`interpreter.engine.batches`)."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def target(self, expr: ast.Node, env: dict, cause: Cause) -> Obj | None:
        """The object a statement acts on, or None when it can't be affected (a hide rule hides it)."""
        return self.eng.reachable(self.eng.eval(expr, env), expr.span, cause)

    def player_arg(self, expr: ast.Node, env: dict) -> str:
        """The name of the player expression `expr` stands for (else an error at it)."""
        v = self.eng.eval(expr, env)
        if isinstance(v, PlayerRef):
            return v.name
        raise self.eng.fail("this needs a player", expr.span)

    def write(self, batch: Batch, cause: Cause, oid: str, attr: str, value: Any) -> None:
        """Add a write to the batch with the value it replaces (`Batch.write_or_keep`): one
        that changes nothing (attaching to what it is attached to, no damage dealt, a move to
        the zone it is in) counts against no writes budget, as a `set` that changes nothing."""
        batch.write_or_keep(cause, oid, attr, value, self.eng.raw(oid, attr))

    def perform(self, stmt: ast.Node, env: dict, batch: Batch, cause: Cause) -> None:
        """The statements that are not compiled: actions, effects, durations, delayed triggers."""
        match stmt:
            case ast.Attach(obj=o, to=t):
                ref = self.target(o, env, cause)
                host = self.eng.eval(t, env)
                if ref is not None and isinstance(host, (Obj, PlayerRef)):
                    self.write(batch, cause, ref.id, "attached_to", stored(host))
            case ast.DealDamage(amount=n, obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    batch.add(cause, ref.id, "damage", lambda damage: damage + n, self.eng.raw(ref.id, "damage"))
            case ast.Destroy(obj=o):
                if (ref := self.target(o, env, cause)) is not None and "indestructible" not in self.eng.chars(ref.id)["keywords"]:
                    self.write(batch, cause, ref.id, "zone", "graveyard")
            case ast.Move(obj=o, zone=zone, duration=duration):
                if (ref := self.target(o, env, cause)) is not None:
                    if isinstance(duration, ast.UntilLeaves):
                        watched = self.eng.value_of(duration.obj, env)
                        if not (isinstance(watched, Obj) and self.eng.obj(watched.id).zone == "battlefield"):
                            return  # the event already happened: the object doesn't move (610.3a)
                        self.eng.made(stmt.span, cause)
                        self.eng.store.add_to("watchers", Watcher(watched.id, ref.id, "battlefield", str(cause)), cause)
                    self.write(batch, cause, ref.id, "zone", zone)
            case ast.Cease(obj=o):
                if (ref := self.target(o, env, cause)) is not None:
                    self.write(batch, cause, ref.id, "zone", "nowhere")
            case ast.AddCounters(amount=n, kind=kind, obj=o):
                if (ref := self.target(o, env, cause)) is not None and n:  # (no counters: no count of zero left behind)
                    batch.add(cause, ref.id, "counters", lambda counters: with_counters(counters, kind, n),
                              self.eng.raw(ref.id, "counters"))
            case ast.RemoveCounters(amount=n, kind=kind, obj=o):
                if (ref := self.target(o, env, cause)) is not None and n:
                    batch.add(cause, ref.id, "counters", lambda counters: with_counters(counters, kind, -n),
                              self.eng.raw(ref.id, "counters"))
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
            case ast.CombatDamage():
                self.eng.combat.deal(batch, cause)
            case ast.ExtraSteps(steps=steps):
                batch.op(cause, f"this turn gets {', '.join(steps)} more", self.eng.game.active,
                         lambda: self.eng.turns.add_extra(steps, cause), "turn")
            case ast.Delayed(hook=hook, body=body):
                self.eng.made(stmt.span, cause)
                self.eng.store.add_to("delayed", DelayedTrigger(hook, body, tuple(env.items()), None, str(cause)), cause)
            case _:
                raise self.eng.fail(f"cannot perform {type(stmt).__name__} here", stmt.span)
