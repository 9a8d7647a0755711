"""Triggered abilities: collecting them from a batch's events, and choosing their targets as
they are put on the stack (`interpreter.engine.stack` puts them there and resolves them)."""

from __future__ import annotations

from typing import Any

import attrs

from ...dsl import ast
from ..game.writes import Write
from .stack import StackObject
from ..game.refs import Obj, PlayerRef
from ..game.trace import Cause, Event, change_event


LEGAL_TARGET_HINT = "a target must exist, be seen by the game, and match the card's condition"


def targets_of(card: ast.Card) -> list[ast.Target]:
    """The targets a card declares, in order."""
    return [t for t in card.entries if isinstance(t, ast.Target)]


@attrs.frozen
class TargetChoice:
    """Targets chosen in advance for the next triggered ability of a card that needs them."""

    targets: tuple[str, ...]
    span: Any = None  # where the choice was made (a scenario step)


@attrs.frozen
class TriggerOrder:
    """The order chosen in advance for triggered abilities of these cards that one player puts
    on the stack together (603.3b): the first named resolves first."""

    cards: tuple[str, ...]
    span: Any = None  # where the choice was made (a scenario step)


@attrs.define
class PendingTrigger:
    source: str
    card: str
    body: ast.Node
    env: dict
    cause: Cause
    condition: ast.Node | None = None  # an intervening `if` (603.4), checked again as it resolves


class Triggers:
    """Collects the triggered abilities a batch's events trigger, and chooses their targets
    from the choices made in advance as they are put on the stack."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def collect_triggers(self, changes: list[Write], others: list[Event], vis_before: dict) -> None:
        """The abilities that a batch's events trigger (its changes, then its other events):
        those of cards on the objects the events happened to (or the hosts an attachment event
        names) watching their own permanent (`when this ...`), then those of every permanent
        whose card watches any object's events (`when x ...`), in the game's order of them."""
        eng = self.eng
        triggered = eng.program.triggered_cards
        if not triggered or not any(eng.indexes.lookup("card", name) for name in triggered):
            return  # no object in the game has a triggered ability
        events = [change_event(w, eng.step) for w in changes] + others
        objects = eng.game.objects
        watching = eng.program.watching_cards
        watchers: list[str] | None = None
        fired: set[tuple[str, int]] = set()  # (`when one or more ...`: once in a batch, 603.2c)
        for event in events:
            candidates = [event.subject]
            if event.kind in ("attached", "unattached"):
                candidates.append(event.values().get("host"))
            for oid in candidates:
                o = objects.get(oid)
                if o is None or o.card not in triggered:
                    continue
                card = eng.rulebook.cards[o.card]
                for entry in card.entries:
                    if isinstance(entry, ast.Triggered) and ast.trigger_var(entry.trigger) == "this":
                        env = self.trigger_matches(entry, oid, event, vis_before)
                        if env is not None:
                            self.triggers(oid, card, entry, env)
            if not watching:
                continue
            if watchers is None:  # (the permanents whose cards watch any object's events, once per batch)
                found: set[str] = set()
                for name in watching:
                    found.update(eng.indexes.lookup("card", name) or (oid for oid, o in objects.items() if o.card == name))
                watchers = eng.indexes.sort(found)
            for oid in watchers:
                card = eng.rulebook.cards[objects[oid].card]
                for entry in watching[card.name]:
                    if entry.one_or_more and (oid, id(entry)) in fired:
                        continue
                    env = self.trigger_matches(entry, oid, event, vis_before)
                    if env is not None:
                        if entry.one_or_more:
                            fired.add((oid, id(entry)))
                        self.triggers(oid, card, entry, env)

    def step_begins(self, step: str, player: str) -> None:
        """Step `step` of `player`'s turn begins: each ability that triggers then (`at beginning
        of STEP of you` on a permanent `player` controls, `at beginning of STEP of each player
        P` on any, with P bound to `player`) triggers once for each permanent with it that the
        game sees (603.2: one a hide rule hides has no abilities the game sees trigger), in the
        game's order of the permanents, and waits with the other triggered abilities."""
        eng = self.eng
        abilities = eng.program.step_triggers.get(step)
        if not abilities:
            return
        candidates: set[str] = set()
        for name in abilities:
            found = eng.indexes.lookup("card", name)
            candidates.update(found if found is not None else (oid for oid, o in eng.game.objects.items() if o.card == name))
        for oid in eng.indexes.sort(candidates):
            if not eng.visible(oid):
                continue
            card = eng.rulebook.cards[eng.game.objects[oid].card]
            you = eng.controller(oid)
            for entry in abilities[card.name]:
                whose = entry.trigger.player
                if whose is None and you != player:
                    continue  # (`of you`: only its controller's step)
                env = {"this": Obj(oid), "you": PlayerRef(you)}
                if whose is not None:
                    env[whose] = PlayerRef(player)
                self.triggers(oid, card, entry, env)

    def triggers(self, oid: str, card: ast.Card, entry: ast.Triggered, env: dict) -> None:
        """Ability `entry` of `card`, on object `oid`, triggers with `env`: it waits with the
        other triggered abilities to be put on the stack (603.3)."""
        eng = self.eng
        cause = Cause("card", card.name)
        eng.made(entry.span, cause)
        eng.store.add_to("pending", PendingTrigger(oid, card.name, entry.body, env, cause, entry.condition), cause)
        eng.record("trigger", oid, f"ability of {card.name} triggers", cause)

    def trigger_matches(self, entry: ast.Triggered, oid: str, event: Event, vis_before: dict) -> dict | None:
        """What ability `entry` of object `oid` resolves with, when `event` triggers it; None
        when it does not. Its trigger's name is `this` (the event must be `oid`'s own) or
        another, bound to the object the event happened to (any object's); `and COND` and an
        intervening `if` (603.4) must hold then. The ability's permanent must be one the game
        sees, or, for an ability that looks back (a leaving, a `look back on` change: 603.10),
        one it saw before the batch (`vis_before`)."""
        eng = self.eng
        trigger = entry.trigger
        var = ast.trigger_var(trigger)
        subject = event.subject
        if var == "this" and event.kind not in ("attached", "unattached") and subject != oid:
            return None
        was_visible = vis_before.get(oid, eng.visible(oid))
        cond = None
        match trigger:
            case ast.OnEnters(cond=cond):
                seen = event.kind == "enters" and eng.visible(oid)
            case ast.OnLeaves(cond=cond):
                seen = event.kind == "leaves" and was_visible
            case ast.OnAttached(cond=cond):
                seen = event.kind == "attached" and eng.visible(oid)
            case ast.OnUnattached(cond=cond):
                seen = event.kind == "unattached" and was_visible
            case ast.OnBlocks(cond=cond):
                seen = event.kind == "blocks" and eng.visible(oid)
            case ast.OnBlocked(cond=cond):
                seen = event.kind == "blocked" and eng.visible(oid)
            case ast.OnTargeted(by=by, cond=cond):
                seen = (event.kind == "targeted" and (by == "spell or ability" or event.values().get("by") == by)
                        and eng.visible(oid))
            case ast.OnChange(change=pattern):
                data = event.values()
                cond = pattern.cond
                if event.kind != "change" or not eng.program.clauses.matches(pattern, data.get("attr"), data.get("old"), data.get("new")):
                    return None
                looks_back = any(lb.attr == pattern.attr and eng.program.compiler.constant(lb.value) == eng.program.compiler.constant(pattern.value)
                                 for lb in eng.clause_index.lookbacks)
                seen = was_visible if looks_back else eng.visible(oid)
            case _:
                return None
        if not seen:
            return None
        o = eng.game.objects[oid]
        you = eng.game.lki.get(oid, {}).get("controller") if not eng.visible(oid) else eng.controller(oid)
        env: dict = {"this": Obj(oid), "you": PlayerRef(you or o.controller)}
        if var != "this":
            env[var] = Obj(subject)
        if isinstance(trigger, (ast.OnBlocks, ast.OnBlocked)):  # (the other creature of the block)
            env[trigger.other] = Obj(event.values()["other"])
        for test in (cond, entry.condition):
            if test is not None and not eng.truthy(eng.eval(test, env)):
                return None
        return env

    def to_stack(self, trig: PendingTrigger) -> StackObject | None:
        """A triggered ability waiting, as the `StackObject` it becomes as it is put on the
        stack, its targets chosen then (603.3d); None when it needs targets and none were
        chosen for it (it is removed from the stack)."""
        eng = self.eng
        card = eng.rulebook.cards[trig.card]
        unchosen = [t for t in targets_of(card) if t.var not in trig.env]
        names = {t.var for t in unchosen}
        decls: list[ast.Target] = []
        targets: tuple[str, ...] = ()
        if names and any(isinstance(n, ast.Name) and n.id in names for n in trig.body.walk()):
            chosen = self.choose_targets(trig, unchosen)
            if chosen is None:
                return None
            decls, targets = unchosen, chosen
        source = eng.game.objects.get(trig.source)
        return StackObject("trigger", card, trig.env["you"].name, trig.source, source.incarnation if source else 0,
                           trig.body, tuple(trig.env.items()), tuple(decls), targets,
                           tuple(eng.game.objects[t].incarnation for t in targets), trig.cause, condition=trig.condition)

    def choose_targets(self, trig: PendingTrigger, decls: list[ast.Target]) -> tuple[str, ...] | None:
        """Targets for a triggered ability as it is put on the stack (603.3d), from the choices
        made for its card in advance (`TargetChoice`), first made, first used. Without one the
        ability is removed from the stack (None). A chosen target must be legal then, as when a
        spell is cast (601.2c)."""
        choices = self.eng.game.choices
        position = next((k for k, (card, _choice) in enumerate(choices) if card == trig.card), None)
        if position is None:
            self.eng.record("fails", trig.source, f"ability of {trig.card} has no target chosen and is removed", trig.cause)
            return None
        _card, choice = self.eng.store.remove_at("choices", position, trig.cause)
        if len(choice.targets) != len(decls):
            raise self.eng.fail(f"the ability of \"{trig.card}\" needs {len(decls)} target(s), {len(choice.targets)} chosen",
                            choice.span, "choose as many targets as the card declares")
        env = dict(trig.env)
        for decl, name in zip(decls, choice.targets):
            if not self.legal_target(decl, name, env):
                raise self.eng.fail(f"'{name}' cannot be a target of the ability of \"{trig.card}\" as it is put on the stack",
                                choice.span, LEGAL_TARGET_HINT)
            env[decl.var] = Obj(name)
        return tuple(choice.targets)

    def legal_target(self, decl: ast.Target, name: str, env: dict) -> bool:
        """A target must exist, be seen by the game and fit its card's condition (LEGAL_TARGET_HINT)."""
        if not self.eng.visible(name):
            return False
        return self.eng.truthy(self.eng.eval(decl.cond, {**env, decl.var: Obj(name)}))
