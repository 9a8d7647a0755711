"""Continuous effects: creating them from a statement (with their duration) and ending them."""

from __future__ import annotations

from typing import Any, Callable

from ...dsl import ast
from ..game.writes import Batch
from ..game.model import Effect
from ..game.refs import Obj, PlayerRef
from ..game.trace import Cause, rule_cause


class ContinuousEffects:
    """Creates continuous effects (a pump, a base power and toughness, a keyword, control)
    with their durations, as operations of a batch, and ends the effects a statement or a
    duration ends."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def may_track(self, batch: Batch) -> bool:
        """Can an effect be watching an object as `batch` is made? Only if one exists or the
        batch starts one."""
        return bool(self.eng.game.effects) or batch.makes_effects

    def end_tracking(self, ref: Any, batch: Batch, cause: Cause) -> None:
        """`end effects tracking x`: the effects whose duration watches object `ref` end."""
        if type(ref) is Obj and self.may_track(batch):
            oid = ref[0]
            batch.op(cause, "effects watching it end", oid,
                     lambda: self.end_effects(lambda e: oid in e.tracked, cause), "effect-ends")

    def create_effect(self, stmt: ast.Node, env: dict, batch: Batch, cause: Cause) -> None:
        """Add to `batch` the operation that starts the continuous effect `stmt` makes (a pump,
        a base, a keyword, control) with its duration; nothing when its object is gone, not on
        the battlefield, or left out by an `exclude` clause."""
        ref = self.eng.eval(stmt.obj, env)
        if not isinstance(ref, Obj) or ref.id not in self.eng.game.objects:
            return
        if self.eng.obj(ref.id).zone != "battlefield":
            return
        if not ref.sees_hidden:
            for rule, ex in self.eng.clause_index.excludes:
                if self.eng.truthy(self.eng.eval(ex.cond, {ex.var: Obj(ref.id, True)})):
                    self.eng.record("fails", ref.id, "left out of the effect's affected objects", rule_cause(self.eng.program, rule, rule))
                    return
        match stmt:
            case ast.Pump():
                kind, value = "pump", (stmt.power, stmt.toughness)
            case ast.SetBase():
                kind, value = "base", (stmt.power, stmt.toughness)
            case ast.Grant():
                kind, value = "grant", stmt.keyword
            case ast.GainControl():
                kind, value = "control", self.eng.statements.player_arg(stmt.player, env)
        duration, player, condition, bindings, tracked, until = "forever", None, None, (), frozenset(), None
        d = stmt.duration
        if isinstance(d, ast.UntilEndOfTurn):
            duration = "end of turn"
        elif isinstance(d, ast.UntilNextTurn):
            who = self.eng.value_of("you" if d.player == "your" else d.player, env)
            if not isinstance(who, PlayerRef):
                raise self.eng.fail("this needs a player", d.span)
            duration, player = "next turn", who.name
        elif isinstance(d, ast.UntilNextStep):
            who = self.eng.value_of("you" if d.player == "your" else d.player, env)
            if not isinstance(who, PlayerRef):
                raise self.eng.fail("this needs a player", d.span)
            duration, player = f"next {d.step}", who.name
        elif isinstance(d, ast.ForAsLongAs):
            duration, condition = "as long as", d.cond
            names = {n.id for n in d.cond.walk() if isinstance(n, ast.Name)}
            bindings = tuple((k, v) for k, v in env.items() if k in names)
            tracked = frozenset(v.id for _k, v in bindings if isinstance(v, Obj))
        elif isinstance(d, ast.UntilLeaves):
            duration = "until leaves"
            watched = self.eng.value_of(d.obj, env)
            until = watched.id if isinstance(watched, Obj) else None
        source = env.get("this")
        self.eng.made(stmt.span, cause)

        def make() -> bool:
            eid = self.eng.store.tick(cause)
            before = self.controllers([ref.id]) if kind == "control" else None
            self.eng.store.set_effect(eid, Effect(
                eid, kind, frozenset([ref.id]), value, duration, player, condition, bindings, tracked,
                source.id if isinstance(source, Obj) else None, eid, str(cause), until,
            ), cause)
            if before:
                self.eng.invalidate()
                self.came_under_control(before, cause)
            return True

        text = {"pump": f"gets {value[0]:+d}/{value[1]:+d}" if kind == "pump" else "",
                "base": f"becomes {value[0]}/{value[1]}" if kind == "base" else "",
                "grant": f"gains {value}", "control": f"comes under {value}'s control"}[kind]
        batch.op(cause, f"{text} ({duration})", ref.id, make, "effect")

    def end_effects(self, which: Callable[[Effect], bool], cause: Cause) -> bool:
        """End the continuous effects `which` picks, each recorded; whether any ended."""
        if not self.eng.game.effects:
            return False
        ending = [e for e in self.eng.game.effects.values() if which(e)]
        before = self.controllers(oid for e in ending if e.kind == "control" for oid in e.affected)
        for e in ending:
            self.eng.store.remove_effect(e.id, cause)
            subject = ", ".join(sorted(e.affected))
            self.eng.record("effect-ends", subject, f"effect from {e.cause} ends ({e.kind}, {e.duration})", cause)
        if ending:
            self.eng.invalidate()
        if before:
            self.came_under_control(before, cause)
        return bool(ending)

    def controllers(self, oids) -> dict[str, str]:
        """Who controls each of the objects `oids` on the battlefield now."""
        objects = self.eng.game.objects
        return {oid: self.eng.controller(oid) for oid in oids
                if oid in objects and objects[oid].zone == "battlefield"}

    def came_under_control(self, before: dict[str, str], cause: Cause) -> None:
        """An object whose controller a control effect's start or end changed has been under
        its new controller's control only since this turn (`controlled_since`, 302.6)."""
        for oid, was in before.items():
            if self.eng.controller(oid) != was:
                self.eng.writer.set(oid, cause, controlled_since=self.eng.game.turn)
