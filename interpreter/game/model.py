"""The general game model: players, permanents, continuous effects and the game state.

Nothing here is about any one keyword. Statuses that rules add to permanents live in
`Permanent.status`, keyed by the names the rule files declare.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from itertools import repeat
from operator import attrgetter
from typing import Any

import attrs

from ...dsl.builtins import OBJECT_ATTRS


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


# The stored fields of a permanent, in the order its constructor takes them (`status` last).
DATA_FIELDS = ("id", "card", "owner", "controller", "types", "power", "toughness", "keywords", "token", "zone",
               "tapped", "counters", "stickers", "damage", "attached_to", "timestamp", "entered_turn",
               "controlled_since", "attacking", "blocking")

# Object attributes read as they are stored (`GameView.getter`); the others are worked out
# (controller and characteristics after effects, counters as a dictionary) or become references.
PLAIN_FIELDS = frozenset(OBJECT_ATTRS) - {"controller", "owner", "attached_to", "keywords", "power", "toughness",
                                          "entered_this_turn", "summoning_sick", "counters", "stickers"}


def earlier_name(oid: str, incarnation: int) -> str:
    """The name of object `oid` as it was in incarnation `incarnation`, once a zone change has
    made it a new object (400.7). What was attached to it stays attached to that object, which
    is no longer in the game, rather than to the new one; no object is ever given such a name
    (a permanent's name cannot hold '@')."""
    return f"{oid}@{incarnation}"


class Permanent:
    """One object, changed in place (only through `interpreter.game.store`). `id` is the scenario's
    name for it; `card` names its card.

    Statuses live in `statuses`, a dict of what was written (name -> value; a status never
    written reads as its default), so that writing one is O(1); `status` is the same as a sorted
    tuple of (name, value), and the constructor takes either form. `incarnation` counts the
    times the object became a new object by changing zones (400.7), and `previous` is the
    object it was before the last such change (None for the first): an identity the game keeps
    beside the id, which stays the same.
    """

    __slots__ = DATA_FIELDS + ("statuses", "incarnation", "previous")

    def __init__(self, id: str, card: str, owner: str, controller: str, types=frozenset(), power: int | None = None,
                 toughness: int | None = None, keywords: tuple[str, ...] = (), token: bool = False,
                 zone: str = "battlefield", tapped: bool = False, counters: tuple = (), stickers: tuple = (),
                 damage: int = 0, attached_to: str | None = None, timestamp: int = 0, entered_turn: int = 0,
                 controlled_since: int = 0, attacking: bool = False, blocking: bool = False, status=(), incarnation: int = 0,
                 previous: "Permanent | None" = None):
        self.id, self.card, self.owner, self.controller = id, card, owner, controller  # (the default controller)
        self.types = lower_types(types)
        self.power, self.toughness, self.keywords, self.token, self.zone = power, toughness, keywords, token, zone
        self.tapped, self.counters, self.stickers, self.damage = tapped, counters, stickers, damage
        self.attached_to, self.timestamp, self.entered_turn = attached_to, timestamp, entered_turn
        self.controlled_since, self.attacking, self.blocking = controlled_since, attacking, blocking
        self.statuses: dict[str, Any] = dict(status)
        self.incarnation, self.previous = incarnation, previous

    @property
    def status(self) -> tuple[tuple[str, Any], ...]:
        """The statuses written, as a tuple of (name, value) sorted by name."""
        return tuple(sorted(self.statuses.items()))

    def stored(self, name: str, statuses: Mapping[str, Any]) -> Any:
        """The stored value of a field, or of a status (`statuses`: name -> default), as a write
        compares it."""
        return self.statuses.get(name, statuses[name]) if name in statuses else getattr(self, name)

    def get_status(self, name: str, default: Any) -> Any:
        return self.statuses.get(name, default)

    def copy(self) -> "Permanent":
        """An independent copy (same incarnation and link)."""
        new = _blank(Permanent)
        (new.id, new.card, new.owner, new.controller, new.types, new.power, new.toughness, new.keywords, new.token,
         new.zone, new.tapped, new.counters, new.stickers, new.damage, new.attached_to, new.timestamp,
         new.entered_turn, new.controlled_since, new.attacking, new.blocking) = _read_data(self)
        new.statuses = dict(self.statuses)
        new.incarnation, new.previous = self.incarnation, self.previous
        return new

    def replace(self, **changes: Any) -> "Permanent":
        """A new object with some fields changed (`status` in either form), the same incarnation."""
        new = self.copy()
        for name, value in changes.items():
            if name == "status":
                new.statuses = dict(value)
            elif name == "types":
                new.types = lower_types(value)
            else:
                setattr(new, _checked(name), value)
        return new

    def with_status(self, name: str, value: Any) -> "Permanent":
        """A new object with one status set."""
        new = self.copy()
        new.statuses[name] = value
        return new

    def counter(self, kind: str) -> int:
        return dict(self.counters).get(kind, 0)

    def values(self) -> tuple:
        """Every stored field in order, `status` (sorted) last: what two objects are equal by."""
        return read_fields(self)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Permanent:
            return NotImplemented
        return self.statuses == other.statuses and all(getattr(self, n) == getattr(other, n) for n in DATA_FIELDS)

    __hash__ = None  # type: ignore[assignment]  # (it changes)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(FIELDS, self.values()))
        return f"Permanent({shown})"


_blank = object.__new__
FIELDS = DATA_FIELDS + ("status",)
_read_data = attrgetter(*DATA_FIELDS)
read_fields = attrgetter(*FIELDS)


def _checked(name: str) -> str:
    if name not in DATA_FIELDS:
        raise TypeError(f"Permanent has no field {name!r}")
    return name


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
    duration: str  # "forever", "end of turn", "next turn", "next STEP" (a step's name), "as long as", "until leaves"
    player: str | None = None  # whose next turn or step, for "next turn" and "next STEP"
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


class LastKnownBook(MutableMapping):
    """`Game.lki`: last known information by object id, a mapping like a dict. What is kept
    of many objects at once (`keep_all`: a sequence of them, the information of each made
    when first read) is held as where to find it, an index into that sequence, and taken
    from there when someone reads it; anything else is held as it was given."""

    __slots__ = ("_held", "ids")

    def __init__(self, items: Any = ()):
        self._held: dict[str, Any] = {}  # id -> its information, or (a sequence, the index of its information there)
        self.ids = self._held.keys()  # the ids it holds information of (`oid in book.ids`: `in` without a call)
        self.update(items)

    def __getitem__(self, oid: str) -> Mapping[str, Any]:
        held = self._held[oid]
        return held[0][held[1]] if type(held) is tuple else held

    def get(self, oid: str, default: Any = None) -> Any:
        held = self._held.get(oid, _NOTHING)
        if held is _NOTHING:
            return default
        return held[0][held[1]] if type(held) is tuple else held

    def __contains__(self, oid: object) -> bool:
        return oid in self._held

    def __setitem__(self, oid: str, info: Mapping[str, Any]) -> None:
        if type(info) is tuple:  # (a tuple would read as where to find the information)
            raise TypeError(f"last known information of {oid!r} is a mapping of what it was, not a tuple")
        self._held[oid] = info

    def __delitem__(self, oid: str) -> None:
        del self._held[oid]

    def __iter__(self):
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def __repr__(self) -> str:
        return f"LastKnownBook({dict(self)!r})"

    def __reduce__(self) -> tuple:  # (copy.copy and copy.deepcopy: a book of its own, read as a dict)
        return (LastKnownBook, (dict(self),))

    def keep_all(self, oids: list[str], infos: Any, absent: Any) -> list:
        """Keep `infos[k]` (a sequence, read only when someone asks) as the information of
        each object `oids[k]`; what was held of each before, as `held` gives it (`absent`
        for nothing), in step with `oids`."""
        held = self._held
        if len(set(oids)) != len(oids):  # (an object twice: what it had before its second is its first)
            olds = []
            for k, oid in enumerate(oids):
                olds.append(held.get(oid, absent))
                held[oid] = (infos, k)
            return olds
        olds = list(map(held.get, oids, repeat(absent)))
        held.update(zip(oids, zip(repeat(infos), range(len(oids)))))
        return olds

    def held(self, oid: str, absent: Any) -> Any:
        """What is held for `oid` as it is held (for the journal to put back: `put_back`), or `absent`."""
        return self._held.get(oid, absent)

    def put_back(self, oid: str, held: Any, absent: Any) -> None:
        """Hold `held` (as `held` gave it) for `oid` again, or nothing if it is `absent`."""
        if held is absent:
            self._held.pop(oid, None)
        else:
            self._held[oid] = held


_NOTHING = object()


def _lki_book(value: Any) -> LastKnownBook:
    return value if type(value) is LastKnownBook else LastKnownBook(value)


@attrs.define
class Game:
    """A game state. Everything in it is changed through its store (`interpreter.game.store`),
    which journals each change; objects are changed in place."""

    players: dict[str, Player]
    order: tuple[str, ...]
    active: str
    turn: int = 1
    objects: dict[str, Permanent] = attrs.field(factory=dict)
    effects: dict[int, Effect] = attrs.field(factory=dict)
    watchers: list[Watcher] = attrs.field(factory=list)
    delayed: list[DelayedTrigger] = attrs.field(factory=list)
    lki: LastKnownBook = attrs.field(factory=LastKnownBook, converter=_lki_book)  # last known information
    # spells and abilities on the stack, the last one on top (405; `interpreter.engine.stack.StackObject`)
    stack: list = attrs.field(factory=list)
    # triggered abilities that triggered and wait to be put on the stack, first triggered first
    # (603.3; `interpreter.engine.triggers.PendingTrigger`)
    pending: list = attrs.field(factory=list)
    # targets chosen in advance for the next triggered ability of a card (603.3d): (card name,
    # `interpreter.engine.triggers.TargetChoice`), first chosen first
    choices: list = attrs.field(factory=list)
    clock: int = 0
    cleanup_done: bool = False
    # the step or phase of the turn the game is in ("": where a game begins, the turn's first
    # phase without steps: `interpreter.engine.turns.Turns.current`), and the steps this turn skips
    step: str = ""
    skipping: tuple[str, ...] = ()
    # steps added to this turn and still to come (500.8), and the step of the turn's own order
    # the game goes on from once they are over ("": none added)
    extra: tuple[str, ...] = ()
    resume: str = ""
    # this turn's combat: what attacks what, who blocks whom (`interpreter.engine.combat.CombatState`)
    combat: Any = None
    store: Any = attrs.field(default=None, eq=False, repr=False)  # its `interpreter.game.store.Store`, once asked for

    def copy(self) -> "Game":
        """An independent copy (its objects copied), with a journal of its own."""
        if self.store is not None:  # (last known information read back from the journal first, in one walk)
            self.store.read_back([r for info in self.lki.values() if (r := getattr(info, "recorded", None)) is not None])
        return attrs.evolve(
            self,
            players=dict(self.players),
            objects={oid: o.copy() for oid, o in self.objects.items()},
            effects=dict(self.effects),
            watchers=list(self.watchers),
            delayed=list(self.delayed),
            stack=list(self.stack),
            pending=[attrs.evolve(t, env=dict(t.env)) for t in self.pending],
            choices=list(self.choices),
            lki={oid: info.settled() if hasattr(info, "settled") else info for oid, info in self.lki.items()},
            store=None,
        )

    def fingerprint(self) -> int:
        """A hash of what the game is, leaving out when things happened (timestamps, the clock,
        effect ids, last known information): two states that differ only in those behave
        alike, so a run of changes that comes back to a fingerprint it had goes round in a
        circle (`Committer.never_settles`). Worked out over every object: for occasional use."""
        objects = tuple((oid, o.card, o.owner, o.controller, o.types, o.power, o.toughness, o.keywords, o.token,
                         o.zone, o.tapped, o.counters, o.stickers, o.damage, o.attached_to, o.attacking, o.blocking,
                         o.status)
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
