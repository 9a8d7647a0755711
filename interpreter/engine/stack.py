"""The stack and priority (117, 405, 601.2, 602.2, 603.3, 608): spells and abilities as objects
on the stack, triggered abilities put there when a player is next about to get priority,
and players passing until what an action put there has resolved.

Every spell, activated ability and triggered ability on the stack is a `StackObject`, with its
controller, its source, its targets (chosen as it was put there, with the incarnation of each:
400.7) and what it does. `Priority` is the engine's part that

- puts the triggered abilities waiting (`game.pending`) on the stack when a player would
  receive priority (603.3b): the active player's first, then each other player's in turn
  order, so the last player's resolve first; each player's own in the order they triggered,
  the first to trigger on top. Each chooses its targets then (603.3d), from the choices made
  in advance for its card; one with no target chosen is removed;
- resolves the top object (608): its targets checked again (608.2b), and when every one is
  illegal it does nothing; an ability whose source has left reads it as it last was on the
  battlefield (608.2h, 113.7a);
- lets every player pass, after an action, until the stack is back to what it held before the
  action (`receive`), unless the action holds (`hold`): then it stops as soon as the
  triggered abilities are on the stack, so that a player can respond.
"""

from __future__ import annotations

import contextlib
from typing import Any

import attrs

from ...dsl import ast
from ...dsl.builtins import PERMANENT_TYPES, card_slug, first_free
from ..game.permanents import card_types, new_permanent
from ..game.refs import MISSING, Known, Obj, PlayerRef
from ..game.trace import Cause
from .batches import MAX_SETTLE_ROUNDS


@attrs.frozen
class StackObject:
    """A spell, activated ability or triggered ability on the stack (405.1)."""

    kind: str  # "spell", "ability" (activated: 602) or "trigger" (triggered: 603)
    card: ast.Card  # the spell's card, or the card whose ability it is
    controller: str  # who cast, activated, or controls the source of the trigger
    source: str | None  # the permanent an ability came from (a spell: None)
    incarnation: int  # the source's when the object was put on the stack (400.7; a spell: 0)
    body: ast.Node | None  # what it does as it resolves (a permanent spell: None, it becomes a permanent)
    bindings: tuple  # (name, value) pairs bound as it resolves, besides its targets
    decls: tuple[ast.Target, ...]  # the targets it declares, in order
    targets: tuple[str, ...]  # what was chosen for them, one each
    chosen: tuple[int, ...]  # the incarnation of each target when chosen (400.7)
    cause: Cause  # the card, or the card's ability, the trace names (its `activate` event says what was paid)
    number: int = 0  # an activated ability's number on its card
    condition: ast.Node | None = None  # a triggered ability's intervening `if` (603.4)

    def words(self) -> str:
        """What it is, in words: `"Slip Away"`, `ability 1 of "Vanishing"`, `triggered ability of "Shimmering Efreet"`."""
        if self.kind == "spell":
            return f'"{self.card.name}"'
        if self.kind == "ability":
            return f'ability {self.number} of "{self.card.name}"'
        return f'triggered ability of "{self.card.name}"'


def spell_targets(card: ast.Card) -> list[ast.Target]:
    """The targets a spell of `card` has: an instant's or a sorcery's (those its card declares,
    601.2c), an Aura's (the permanent it will enchant, 303.4a); any other permanent spell has
    none (608.3): the targets its card declares are its triggered abilities'."""
    types = card_types(card)
    if "aura" in types or not types & PERMANENT_TYPES:
        return [t for t in card.entries if isinstance(t, ast.Target)]
    return []


def apnap(order: tuple[str, ...], active: str) -> list[str]:
    """The players in APNAP order (101.4): the active player, then the others in turn order."""
    start = order.index(active) if active in order else 0
    return list(order[start:] + order[:start])


class Priority:
    """The engine's part for the stack and priority (see the module's docstring)."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of
        self.holding = False  # (`hold`: the action under way stops once its objects are on the stack)

    # ---------------------------------------------------------------- putting objects on the stack

    def put(self, obj: StackObject) -> None:
        """`obj` goes on top of the stack."""
        eng = self.eng
        eng.store.add_to("stack", obj, obj.cause)
        aimed = f", targeting {', '.join(obj.targets)}" if obj.targets else ""
        below = eng.game.stack[-2::-1]
        under = f" (under it: {', '.join(entry.words() for entry in below)})" if below else ""
        eng.record("stack", obj.source or obj.controller, f"{obj.words()} is put on the stack{aimed}{under}", obj.cause)
        if obj.targets:  # (each becomes its target: abilities that trigger on that wait above it)
            by = "spell" if obj.kind == "spell" else "ability"
            events = [eng.record("targeted", name, f"becomes the target of {obj.words()}", obj.cause, by=by)
                      for name in dict.fromkeys(obj.targets)]
            eng.triggers.collect_triggers([], events, {})

    def triggers_to_stack(self) -> None:
        """A player is about to get priority: every triggered ability waiting is put on the stack
        (603.3b), in APNAP order, each choosing its targets as it goes there (603.3d)."""
        eng = self.eng
        if not eng.game.pending:
            return
        waiting = list(eng.game.pending)
        for trig in waiting:
            eng.store.remove_at("pending", 0, trig.cause)
        players = apnap(eng.game.order, eng.game.active)
        groups = [self.in_chosen_order([t for t in waiting if t.env["you"].name == player]) for player in players]
        groups.append([t for t in waiting if t.env["you"].name not in players])  # (controllers no longer in the order)
        for group in groups:
            for trig in reversed(group):  # (the first to trigger, or named, on top: it resolves first)
                obj = eng.triggers.to_stack(trig)
                if obj is not None:
                    self.put(obj)

    def in_chosen_order(self, mine: list) -> list:
        """One player's triggered abilities going on the stack together, in the order they
        resolve: as an order chosen in advance (`TriggerOrder`, the first made whose cards are
        all among them) names their cards, the others after, in the order they triggered."""
        eng = self.eng
        if len(mine) < 2:
            return mine
        names = {t.card for t in mine}
        position = next((k for k, (card, choice) in enumerate(eng.game.choices)
                         if card == "" and set(choice.cards) <= names), None)
        if position is None:
            return mine
        _card, order = eng.store.remove_at("choices", position, mine[0].cause)
        rank = {name: k for k, name in enumerate(order.cards)}
        return sorted(mine, key=lambda t: rank.get(t.card, len(rank)))

    # ---------------------------------------------------------------- priority

    @contextlib.contextmanager
    def held(self, hold: bool):
        """Within it, an action holds (`hold`): its last priority stops once the triggered
        abilities are on the stack, for a response."""
        self.holding = hold
        try:
            yield
        finally:
            self.holding = False

    def receive(self, depth: int | None = None, last: bool = True) -> None:
        """A player receives priority: the triggered abilities waiting go on the stack; then,
        unless the action under way holds (and this is its `last` priority), every player
        passes in turn, and the top object resolves, until the stack holds `depth` objects
        (None: as many as before the triggered abilities went there)."""
        eng = self.eng
        depth = len(eng.game.stack) if depth is None else depth
        resolved = 0
        with contextlib.ExitStack() as stack:
            again = None
            while True:
                self.triggers_to_stack()
                if (self.holding and last) or len(eng.game.stack) <= depth:
                    return
                resolved += 1
                if resolved > MAX_SETTLE_ROUNDS:  # many in a row: do they go round in a circle?
                    again = again or stack.enter_context(eng.committer.watched())
                    again(tuple((o.kind, o.source, o.card.name, id(o.body), o.bindings, o.targets) for o in eng.game.stack))
                self.resolve_top()

    # ---------------------------------------------------------------- resolving

    def resolve_top(self) -> None:
        """The top object of the stack resolves (608.2): a spell, an activated ability or a
        triggered ability."""
        eng = self.eng
        obj = eng.game.stack[-1]
        eng.store.remove_at("stack", -1, obj.cause)
        if obj.kind == "spell":
            self.resolve_spell(obj)
        else:
            self.resolve_ability(obj)

    def resolve_spell(self, obj: StackObject) -> None:
        """A spell resolves, its targets checked again (608.2b): an instant or sorcery does
        what its spell ability says; a permanent spell becomes a permanent (608.3), an Aura
        attached to its target (303.4f, 608.3c)."""
        eng = self.eng
        card, cause = obj.card, obj.cause
        env: dict = {"you": PlayerRef(obj.controller)}
        legal = self.recheck(obj, env)
        if obj.decls and not legal:
            eng.record("fails", card.name, "does nothing: every target is illegal", cause)
            return
        eng.record("resolve", obj.controller, f"{card.name} resolves", cause)
        types = card_types(card)
        if types & PERMANENT_TYPES:
            oid = first_free(card_slug(card.name), eng.game.objects)
            eng.store.put_object(new_permanent(oid, card, eng.game, owner=obj.controller, zone="hand", cause=cause), cause)
            eng.invalidate()
            if "aura" in types and obj.decls:
                host = env[obj.decls[0].var]
                eng.run(ast.Attach(ast.Name(oid), ast.Name("host")), {"host": host}, cause)
            eng.run(ast.Move(ast.Name(oid), "battlefield"), {}, cause)
        else:
            for entry in card.entries:
                if isinstance(entry, ast.Spell):
                    eng.run(entry.body, env, cause)
        eng.settle()

    def resolve_ability(self, obj: StackObject) -> None:
        """An activated or triggered ability resolves, its targets checked again (608.2b). It
        does so whether or not its source is still there (113.7a); a source that has left the
        battlefield since is read as it last was there (608.2h): `this` names its last known
        information."""
        eng = self.eng
        env = dict(obj.bindings)
        if obj.kind == "ability" and obj.source is not None:
            if eng.game.objects[obj.source].incarnation != obj.incarnation:
                env["this"] = Known(obj.source)  # (608.2h: as it last was on the battlefield)
        if obj.condition is not None and not eng.truthy(eng.eval(obj.condition, env)):
            eng.record("fails", obj.source or obj.controller, f"{obj.words()} does nothing: its condition no longer holds (603.4)", obj.cause)
            return
        if obj.decls and not self.recheck(obj, env):
            eng.record("fails", obj.source or obj.controller, f"{obj.words()} does nothing: every target is illegal", obj.cause)
            return
        eng.record("resolve", obj.source or obj.controller, f"{obj.words()} resolves", obj.cause)
        eng.run(obj.body, env, obj.cause)
        eng.settle()

    def recheck(self, obj: StackObject, env: dict) -> int:
        """The targets of `obj` checked again as it resolves (608.2b), each bound in `env`
        (MISSING when no longer legal): each must still be the object it was when chosen
        (one that has changed zones since is a new object, 400.7) and still fit. How many
        are legal."""
        eng = self.eng
        legal = 0
        for decl, name, incarnation in zip(obj.decls, obj.targets, obj.chosen):
            if eng.game.objects[name].incarnation != incarnation:
                env[decl.var] = MISSING
                eng.record("fails", name, "is no longer a legal target: it changed zones, a new object (400.7)", obj.cause)
            elif eng.legal_target(decl, name, env):
                env[decl.var] = Obj(name)
                legal += 1
            else:
                env[decl.var] = MISSING
                eng.record("fails", name, "is no longer a legal target", obj.cause)
        return legal
