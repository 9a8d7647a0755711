"""Indexes over the objects of a game, kept up to date as objects change.

Each index maps a value to the ids of the objects that have it: what an object is attached
to, who owns or (by default) controls it, its card, whether it is a token and whether it is
tapped, the value of each rule-declared status, its card types and its printed keywords.
Lookups return a superset of the matches where effects can change the answer (control and
keyword effects), so a query always re-checks its condition. (Selections do not plan on
whether an object is tapped, so that what they count against a step's budget stays as it
was; generated code uses that index to leave out of a selection whose only write is to
`tapped` the objects that have that value already: `codegen.Emitter.narrowed`.)

The game's store keeps them (`Store.kept_for`): one `Indexes` per set of declared statuses,
made the first time an engine on the game asks, built when first read, and kept right by
the store as it changes objects, adds them or undoes changes (it calls `move`, `move_bulk`,
`replace`, `removed` and `move_back`), so that every engine on the game shares them and
none builds them again, after an undo either.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

import attrs

from ..game.model import Game, Permanent, lower_types
from ..game.store import ABSENT, MIXED, Bulk, store_of

FIELDS = ("attached_to", "owner", "controller", "card", "token", "tapped")
FIELD_SET = frozenset(FIELDS)
COLUMNS = FIELDS + ("types", "keywords")  # (what `Indexes._build` reads of each object, in this order)
INDEXED = frozenset(COLUMNS)  # the stored fields indexed (declared statuses are too)
NOTHING: frozenset[str] = frozenset()  # what a lookup finds for a value no object has
_NO_DEFAULT = object()  # (a field's every value is indexed)
_KEYS = type({}.keys())


@attrs.frozen
class Moved:
    """One stored attribute of an object going from `old` to `value`."""

    attr: str
    old: Any
    value: Any


def _sets(lists: dict[Any, list[str]]) -> defaultdict[Any, set[str]]:
    """value -> the ids that have it, as sets, from each value's ids listed in game order: a
    set made at once from a list adds its items in the list's order, so each is the set that
    adding each id in turn makes, down to its order."""
    index: defaultdict[Any, set[str]] = defaultdict(set)
    for value, listed in lists.items():
        index[value] = set(listed)
    return index


def _spread(groups: dict[Any, set[str]]) -> defaultdict[Any, set[str]]:
    """element -> the ids whose value (a collection: types, keywords) holds it, from the ids
    grouped by whole value (a board shares a few type lines): each group's ids go to each
    element of its value, a set union at a time."""
    index: defaultdict[Any, set[str]] = defaultdict(set)
    for several, group in groups.items():
        for value in several:
            index[value] |= group
    return index


def indexes_of(game: Game, defaults: dict[str, Any]) -> "Indexes":
    """The game's indexes for the statuses a rulebook declares (name -> default): kept by the
    game's store (`Store.kept_for`) and shared by every engine on the game, made the first time
    one asks (built when first read)."""
    return store_of(game).kept_for(("indexes", tuple(defaults.items())), lambda: Indexes(game, defaults))


class Indexes:
    def __init__(self, game: Game, statuses: dict[str, Any]):
        self.game = game
        self.defaults = statuses  # status name -> default value
        self.by: dict[str, dict[Any, set[str]]] | None = None
        self.status_indexes: dict[str, tuple[dict[Any, set[str]], Any]] = {}  # status -> (its index, its default)
        self.order: dict[str, int] = {}  # id -> its place in the game's order
        self.end = 0  # the place the next object added to the game takes

    def _entries(self, o: Permanent) -> Iterable[tuple[str, Any]]:
        for name in FIELDS:
            yield name, getattr(o, name)
        for name, value in o.statuses.items():
            if name in self.defaults and value != self.defaults[name]:
                yield name, value
        for t in o.types:
            yield "types", t
        for k in o.keywords:
            yield "keywords", k

    def _build(self) -> None:
        """Index every object afresh (the same entries `_entries` gives each object), in one
        pass over the objects in game order: each field's ids listed by value, and the types
        and keywords by whole value, each list then made a set at once (`_sets`); each written
        status added to its index as met. One pass costs a third less than one per attribute
        on a large board, and far less than asking `_entries` of each object."""
        objects = self.game.objects
        self.by = by = defaultdict(lambda: defaultdict(set))
        self.status_indexes = indexes = {name: (by[name], default) for name, default in self.defaults.items()}
        self.order = dict(zip(objects, range(len(objects))))
        self.end = len(objects)
        lists: list[defaultdict[Any, list[str]]] = [defaultdict(list) for _ in COLUMNS]
        attached_to, owner, controller, card, token, tapped, types, keywords = lists
        for oid, o in objects.items():
            attached_to[o.attached_to].append(oid)
            owner[o.owner].append(oid)
            controller[o.controller].append(oid)
            card[o.card].append(oid)
            token[o.token].append(oid)
            tapped[o.tapped].append(oid)
            types[o.types].append(oid)
            keywords[o.keywords].append(oid)
            for name, value in o.statuses.items():  # (only the statuses written: the rest are at their defaults)
                status = indexes.get(name)
                if status is not None and value != status[1]:
                    status[0][value].add(oid)
        for name, listed in zip(COLUMNS, lists):
            by[name] = _sets(listed) if name in FIELD_SET else _spread(_sets(listed))

    def ready(self) -> "Indexes":
        """Built, if they were not: these indexes."""
        self._ready()
        return self

    def _ready(self) -> dict:
        if self.by is None or len(self.order) != len(self.game.objects):
            self._build()
        return self.by

    def replace(self, old: Permanent | None, new: Permanent) -> None:
        """Keep the indexes right as one object changes, whatever changed, or as an object
        new to the game is added (`old` None: it takes the next place in the game's order)."""
        if self.by is None:
            return
        if old is not None and new.id in self.order:
            self.move(new.id, [Moved(name, old.stored(name, self.defaults), new.stored(name, self.defaults))
                               for name in INDEXED.union(self.defaults)])
            return
        if new.id not in self.order:
            self.order[new.id] = self.end
            self.end += 1
        for name, value in self._entries(new):
            self.by[name][value].add(new.id)

    def removed(self, oid: str, o: Permanent) -> None:
        """Object `o` (id `oid`) is no longer in the game (an undo of its adding)."""
        if self.by is None:
            return
        for name, value in self._entries(o):
            self.by[name][value].discard(oid)
        self.order.pop(oid, None)

    def move_back(self, oid: str, attr: str, value: Any, old: Any) -> None:
        """Object `oid`'s `attr` set back from `value` to `old` by an undo (`ABSENT`: a status
        left out again)."""
        self.move(oid, (Moved(attr, value, old),))

    def move(self, oid: str, changes: Iterable[Moved]) -> None:
        """Object `oid`'s stored `attr` went from `old` to `value`, for each change (a `Moved`,
        or any record with those three fields, such as the engine's writes). (`ABSENT`, old or
        new: a status not written on the object, which reads as its default.)"""
        by, statuses = self.by, self.status_indexes
        if by is None:
            return
        for c in changes:
            name, a, b = c.attr, c.old, c.value
            if a == b:
                continue
            status = statuses.get(name)
            if status is not None:  # (a status's default is not indexed)
                index, default = status
                if a != default and a is not ABSENT:
                    index[a].discard(oid)
                if b != default and b is not ABSENT:
                    index[b].add(oid)
            elif name in FIELD_SET:
                by[name][a].discard(oid)
                by[name][b].add(oid)
            elif name in ("types", "keywords"):
                if name == "types":  # (as the object holds them)
                    a, b = lower_types(a), lower_types(b)
                for value in set(a) - set(b):
                    by[name][value].discard(oid)
                for value in set(b) - set(a):
                    by[name][value].add(oid)

    def move_bulk(self, b: Bulk) -> None:
        """`move` for the writes of a `store.Bulk` entry: one attribute of many objects,
        each going from its old value to the run's one value or to its own in a column."""
        by = self.by
        if by is None or not len(b):
            return
        attr, objs, olds, value, values = b.attr, b.objs, b.olds, b.value, b.values
        status = self.status_indexes.get(attr)
        if status is None and attr not in FIELD_SET:
            if attr in INDEXED:  # (types, keywords: each of their elements)
                news = values if values is not None else [value] * len(objs)
                for oid, old, new in zip(objs, olds, news):
                    self.move(oid, (Moved(attr, old, new),))
            return  # (anything else is not indexed)
        index, default = status if status is not None else (by[attr], _NO_DEFAULT)
        if values is not None:
            for oid, old, new in zip(objs, olds, values):
                if old != new:
                    if old != default:
                        index[old].discard(oid)
                    if new != default:
                        index[new].add(oid)
            return
        first = b.one_old()
        if first is not MIXED:  # (the commonest: every object had one value)
            if first != value:
                if first != default:
                    index[first].difference_update(objs)
                if value != default:
                    index[value].update(objs)
            return
        for oid, old in zip(objs, olds):
            if old != value and old != default:
                index[old].discard(oid)
        if value != default:
            index[value].update(oid for oid, old in zip(objs, olds) if old != value)

    def table(self, attr: str) -> dict[Any, set[str]]:
        """The index of `attr`: value -> the objects that have it, for every value some object
        has (a status's default is not one; a value no object has reads as nothing, or as an
        empty set). Not to be changed: `lookup` of many values of one attribute, read at once."""
        return self._ready()[attr]

    def lookup(self, attr: str, value: Any) -> set[str] | None:
        """Ids that may have `attr == value`; None when no index can answer (scan instead)."""
        if attr in self.defaults and value == self.defaults[attr]:
            return None
        return self._ready()[attr].get(value, NOTHING)

    def attachments(self) -> dict[str, set[str]]:
        """What is attached to what: host id -> the ids attached to it (`.get(host, NOTHING)`)."""
        by = self.by
        if by is None or len(self.order) != len(self.game.objects):
            by = self._ready()
        return by["attached_to"]

    def attached(self, oid: str) -> set[str] | frozenset[str]:
        """The ids of the objects attached to `oid`."""
        return self.attachments().get(oid, NOTHING)

    def sort(self, ids: Iterable[str]) -> list[str]:
        """Candidates in the game's own order, so that results don't depend on set order."""
        self._ready()
        if type(ids) is _KEYS and ids.mapping is self.game.objects:  # (the game's objects: in order already)
            return list(ids)
        if type(ids) in (set, frozenset) and len(ids) * 8 > len(self.order):
            # a large share of the board: the game's objects, in order, kept if they are among them
            found = list(filter(ids.__contains__, self.game.objects))
            if len(found) == len(ids):
                return found
        return sorted(ids, key=self.order.__getitem__)

    def sort_refs(self, refs: list) -> list:
        """References to objects (id first) in the game's order of their objects."""
        if len(refs) < 2:
            return refs
        self._ready()
        order = self.order
        return sorted(refs, key=lambda ref: order[ref[0]])
