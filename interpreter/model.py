"""The general game model: players, permanents, continuous effects and the game state.

Nothing here is about any one keyword. Statuses that rules add to permanents live in
`Permanent.status`, keyed by the names the rule files declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import Any

import attrs


_LOWERED: dict[frozenset, frozenset] = {}


def lower_types(types) -> frozenset[str]:
    """Card types in lower case. Every new object passes through here, and boards share a few
    type lines, so each one is worked out once."""
    known = _LOWERED.get(types) if isinstance(types, frozenset) else None
    if known is None:
        known = frozenset(t.lower() for t in types)
        if isinstance(types, frozenset):
            _LOWERED[types] = known
        _LOWERED[known] = known
    return known


@attrs.frozen
class Player:
    name: str
    in_game: bool = True
    life: int = 20
    hand: int = 0


@attrs.frozen
class Permanent:
    """One object. `id` is the scenario's name for it; `card` names its card."""

    id: str
    card: str
    owner: str
    controller: str  # the controller before control-changing effects (its default controller)
    types: frozenset[str] = attrs.field(default=frozenset(), converter=lower_types)
    power: int | None = None
    toughness: int | None = None
    keywords: tuple[str, ...] = ()
    token: bool = False
    zone: str = "battlefield"
    tapped: bool = False
    counters: tuple[tuple[str, int], ...] = ()
    stickers: tuple[tuple[str, int], ...] = ()
    damage: int = 0
    attached_to: str | None = None
    timestamp: int = 0
    entered_turn: int = 0
    controlled_since: int = 0
    attacking: bool = False
    status: tuple[tuple[str, Any], ...] = ()

    def stored(self, name: str, statuses: dict[str, Any]) -> Any:
        """The stored value of a field, or of a status (`statuses`: name -> default), as a write
        compares it."""
        return self.get_status(name, statuses[name]) if name in statuses else getattr(self, name)

    def get_status(self, name: str, default: Any) -> Any:
        for key, value in self.status:
            if key == name:
                return value
        return default

    def with_status(self, name: str, value: Any) -> "Permanent":
        return self.replace(status=merge_status(self.status, {name: value}))

    def replace(self, **changes: Any) -> "Permanent":
        """A copy with some fields changed: `attrs.evolve` without its generality (it is called
        for every change an engine makes)."""
        values = list(read_fields(self))
        for name, value in changes.items():
            values[_POSITION[name]] = value
        return Permanent(*values)

    def written(self, writes, statuses: Mapping[str, Any]) -> "Permanent":
        """A copy with each write's value stored: `writes` are records with `attr` and `value`,
        in order, none of them a zone; `statuses` holds the names that are statuses."""
        values = list(read_fields(self))
        status = None
        for w in writes:
            attr = w.attr
            if attr in statuses:
                if status is None:
                    status = dict(self.status)
                status[attr] = w.value
            else:
                values[_POSITION[attr]] = w.value
        if status is not None:
            values[_STATUS] = tuple(sorted(status.items()))
        return Permanent(*values)

    def counter(self, kind: str) -> int:
        return dict(self.counters).get(kind, 0)


FIELDS = tuple(f.name for f in attrs.fields(Permanent))
read_fields = attrgetter(*FIELDS)
_POSITION = {name: i for i, name in enumerate(FIELDS)}
_STATUS = _POSITION["status"]


def merge_status(status: tuple[tuple[str, Any], ...], changes: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A status tuple (sorted by name) with some entries set."""
    merged = dict(status)
    merged.update(changes)
    return tuple(sorted(merged.items()))


@attrs.frozen
class Effect:
    """A continuous effect created by a resolving spell or ability.

    `affected` is the set of objects it was locked onto when it was created (611.2c);
    `tracked` the objects its for-as-long-as condition watches; `until_leaves` the object
    whose leaving the battlefield ends it (610.3), for an "until ... leaves" duration.
    """

    id: int
    kind: str  # "pump", "base", "grant", "control"
    affected: frozenset[str]
    value: Any
    duration: str  # "forever", "end of turn", "next turn", "as long as", "until leaves"
    player: str | None = None  # whose next turn, for "next turn"
    condition: Any = None  # an expression, for "as long as"
    bindings: tuple[tuple[str, Any], ...] = ()
    tracked: frozenset[str] = frozenset()
    source: str | None = None
    timestamp: int = 0
    cause: str = ""
    until_leaves: str | None = None


@attrs.frozen
class Watcher:
    """A one-shot 'until' effect (610.3): undo `action` once `watched` leaves the battlefield."""

    watched: str
    obj: str
    zone_back: str
    cause: str


@attrs.frozen
class DelayedTrigger:
    hook: str
    body: Any
    bindings: tuple[tuple[str, Any], ...]
    source: str | None
    cause: str


@attrs.define
class Game:
    """A game state. Objects inside are frozen; the containers are replaced as play goes on."""

    players: dict[str, Player]
    order: tuple[str, ...]
    active: str
    turn: int = 1
    objects: dict[str, Permanent] = attrs.field(factory=dict)
    effects: dict[int, Effect] = attrs.field(factory=dict)
    watchers: list[Watcher] = attrs.field(factory=list)
    delayed: list[DelayedTrigger] = attrs.field(factory=list)
    lki: dict[str, Mapping[str, Any]] = attrs.field(factory=dict)  # last known information
    clock: int = 0
    cleanup_done: bool = False

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def copy(self) -> "Game":
        return attrs.evolve(
            self,
            players=dict(self.players),
            objects=dict(self.objects),
            effects=dict(self.effects),
            watchers=list(self.watchers),
            delayed=list(self.delayed),
            lki=dict(self.lki),
        )

    def fingerprint(self) -> int:
        """A hash of what the game is, leaving out when things happened (timestamps, the clock,
        effect ids, last known information): two states that differ only in those behave
        alike, so a run of changes that comes back to a fingerprint it had goes round in a
        circle (`Committer.never_settles`). Worked out over every object: for occasional use."""
        objects = tuple((oid, o.card, o.owner, o.controller, o.types, o.power, o.toughness, o.keywords, o.token,
                         o.zone, o.tapped, o.counters, o.stickers, o.damage, o.attached_to, o.attacking, o.status)
                        for oid, o in self.objects.items())
        effects = tuple((e.kind, e.affected, e.value, e.duration, e.player, id(e.condition), e.bindings, e.tracked,
                         e.source, e.cause) for e in self.effects.values())
        delayed = tuple((d.hook, id(d.body), d.bindings, d.source, d.cause) for d in self.delayed)
        state = (objects, tuple(self.players.items()), self.active, self.turn, effects, tuple(self.watchers),
                 delayed, self.cleanup_done)
        try:
            return hash(state)
        except TypeError:  # a value that cannot be hashed (none the engine stores): compared as written
            return hash(repr(state))

    def next_player(self, after: str) -> str:
        index = self.order.index(after)
        return self.order[(index + 1) % len(self.order)]
