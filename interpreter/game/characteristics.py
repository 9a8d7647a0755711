"""An object's characteristics after continuous effects, and its last known information.

`characteristics` is a pure function of the object, the resolved effects in timestamp order
and what static abilities give it, so last known information can keep those three (all
immutable) and work the characteristics out only if someone asks: most objects that leave
the game's sight are never asked about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence as SequenceABC
from typing import Any, Iterable, Iterator, Sequence

from ...dsl.builtins import PT_COUNTERS
from .model import FIELDS, Effect, Permanent, read_fields
from .store import Recorded


def controller_of(o: Permanent, effects: Sequence[Effect]) -> str:
    """Layer 2 alone: the default controller, then control effects in timestamp order."""
    controller = o.controller
    for e in effects:
        if e.kind == "control" and o.id in e.affected:
            controller = e.value
    return controller


def granted_keywords(o: Permanent, effects: Sequence[Effect]) -> tuple[str, ...]:
    """Printed keywords and those granted by resolved effects."""
    if not effects:
        return o.keywords
    return o.keywords + tuple(e.value for e in effects if e.kind == "grant" and o.id in e.affected)


def static_pump(contributions: Iterable[tuple[str, Any]]) -> tuple[int, int]:
    """What static abilities' contributions add to power and toughness (their pumps summed,
    layer 7c)."""
    dp = dt = 0
    for kind, value in contributions:
        if kind == "pump":
            dp, dt = dp + value[0], dt + value[1]
    return dp, dt


def characteristics(o: Permanent, effects: Sequence[Effect], contributions: Sequence[tuple[str, Any]]) -> dict:
    """Controller, power, toughness and keywords, from effects and static contributions."""
    if not effects and not o.counters:
        if not contributions:  # the printed values, as they are
            return {"controller": o.controller, "power": o.power, "toughness": o.toughness, "keywords": o.keywords}
        # only static abilities: their pumps summed (layer 7c) and their keywords after the printed ones
        dp, dt = static_pump(contributions)
        granted = [value for kind, value in contributions if kind == "grant"]
        power, toughness = o.power, o.toughness
        return {"controller": o.controller, "power": None if power is None else power + dp,
                "toughness": None if toughness is None else toughness + dt,
                "keywords": tuple(o.keywords) + tuple(granted) if granted else tuple(o.keywords)}
    power, toughness = o.power, o.toughness
    keywords = list(granted_keywords(o, effects))
    dp = dt = 0
    for e in effects:
        if o.id not in e.affected:
            continue
        if e.kind == "base":
            power, toughness = e.value
        elif e.kind == "pump":
            dp, dt = dp + e.value[0], dt + e.value[1]
    for kind, value in contributions:
        if kind == "pump":
            dp, dt = dp + value[0], dt + value[1]
        elif kind == "grant":
            keywords.append(value)
    counters = sum(o.counter(kind) * sign for kind, sign in PT_COUNTERS.items()) if o.counters else 0
    if power is not None:
        power += dp + counters
    if toughness is not None:
        toughness += dt + counters
    return {"controller": controller_of(o, effects), "power": power, "toughness": toughness,
            "keywords": tuple(keywords)}


class LastKnown(Mapping):
    """Last known information (608.2h): the object as it last existed, worked out when read.
    The object is a copy, or a position in the game's journal (`store.Recorded`) that is read
    back only when someone asks."""

    __slots__ = ("_object", "_effects", "_contributions", "_statuses", "_values")

    def __init__(self, o: Permanent | Recorded, effects: Sequence[Effect], contributions: Sequence[tuple[str, Any]],
                 statuses: dict[str, Any]):
        self._object, self._effects, self._contributions = o, effects, contributions
        self._statuses = statuses  # status name -> default
        self._values: dict | None = None

    def _worked_out(self) -> dict:
        if self._values is None:
            o = self.settled()._object
            values = dict(zip(FIELDS, read_fields(o)))
            del values["status"]  # (its statuses are read one by one below)
            values.update(characteristics(o, self._effects, self._contributions))
            for name, default in self._statuses.items():
                values[name] = o.get_status(name, default)
            self._values = values
        return self._values

    def __getitem__(self, name: str) -> Any:
        return self._worked_out()[name]

    @property
    def recorded(self) -> Recorded | None:
        """The journal position its object is still to be read back from (None once read)."""
        o = self._object
        return o if o.__class__ is Recorded else None

    def settled(self) -> "LastKnown":
        """Itself, its object read back from the journal now if it was not yet (before the
        game it belongs to is copied)."""
        if self._object.__class__ is Recorded:
            self._object = self._object.object()
        return self

    def __iter__(self) -> Iterator[str]:
        return iter(self._worked_out())

    def __len__(self) -> int:
        return len(self._worked_out())


class LastKnownGroup(SequenceABC):
    """Last known information of many objects kept at once (`Store.remember_all`), as one
    record: the objects (`oids`), the journal position the first is read back from (`start`;
    the k-th's is `start + k`), the continuous effects then, what static abilities gave each
    object then (`given`: id -> its contributions, for those given something, read with
    `get`: a dict, or a `given_at.GivenAt` that works them out from the journal when first
    asked), the statuses' defaults. Item k, each object's `LastKnown` (its object recorded
    at `start + k`), is made the first time someone asks."""

    __slots__ = ("store", "oids", "start", "effects", "given", "statuses", "_made")

    def __init__(self, store: Any, oids: list[str], start: int, effects: Sequence[Effect],
                 given: Any, statuses: dict[str, Any]):
        self.store, self.oids, self.start, self.effects = store, oids, start, effects
        self.given, self.statuses = given, statuses
        self._made: list[LastKnown | None] = [None] * len(oids)

    def __getitem__(self, k: int) -> LastKnown:  # (an index, never a slice)
        if k < 0:
            k += len(self.oids)
        made = self._made[k]
        if made is None:
            oid = self.oids[k]
            made = self._made[k] = LastKnown(Recorded(self.store, oid, self.start + k), self.effects,
                                             self.given.get(oid, ()), self.statuses)
        return made

    def __len__(self) -> int:
        return len(self.oids)
