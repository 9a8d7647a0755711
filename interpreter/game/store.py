"""The one place that changes a game state, and its journal.

Every change of a `Game` goes through its `Store`: an object's attributes and statuses
(changed in place), objects added, replaced (a zone change makes a new incarnation, 400.7)
or removed, players, the game's own fields (turn, active player, clock, cleanup done),
continuous effects, watchers, delayed triggers, spells held on the stack, pending triggered
abilities, targets chosen in advance, and last known information. Each change is
appended to the journal as an entry that says what changed (`kind`, `obj`, `attr`), its old
value and its new one (`old`, `value`) and its cause (a `trace.Cause`, or the text naming a
card or script step). An engine's batch of writes is gathered, settled and then committed
through here, its writes (`batches.Write`, which have the same fields) being their own
journal entries.

A statement that writes one attribute of many objects can be journaled as one entry, a
`Bulk` (the attribute, the objects, the values each replaces, the new value or a column of
them, the cause), standing for the writes it holds: a journal position counts writes, not
entries, and each write of a bulk entry keeps the position it would have had as an entry of
its own, so that writes of several bulk entries may interleave as a batch made them. Undo,
reading objects back, checkpoints and the trace's blocks (`Block`) expand bulk entries into
those writes, in the order of their positions: the same writes, in the same order, as the
entries they stand for. Likewise the last known information a batch keeps of many objects is
one entry (`Remembered`) that takes a position for each object.

What engines work out from the objects and share, the game's indexes, the store keeps right
itself (`kept_for`): each write, bulk write, object put in place or added, and each change
undone is passed on to them (`interpreter.program.indexes.Indexes`, whose methods `move`,
`move_bulk`, `replace`, `removed` and `move_back` are what is asked of anything kept).

`mark()` names the journal's position; `undo(mark)` walks the journal back to it, restoring
the state exactly, and tells every engine playing on the game to forget what it worked out
from the state it leaves (`watched_by`: `ObjectWriter.restored`), so that an engine goes on
correctly after an undo, whoever called it. The journal is kept for the whole game, or (`keep = "checkpoint"`)
only back to the last `checkpoint()`, so that its memory stays bounded in long runs.
"""

from __future__ import annotations

import bisect
import weakref
from operator import attrgetter
from typing import Any, Callable, Collection, Iterable, Sequence

from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from .calls import checked, describe
from .model import DATA_FIELDS, Game, Permanent, lower_types


ABSENT = type("Absent", (), {"__repr__": lambda self: "ABSENT", "__slots__": ()})()  # no value (nothing was there)
MIXED = type("Mixed", (), {"__repr__": lambda self: "MIXED", "__slots__": ()})()  # (`Bulk.one_old`: no one value)
FIELD_NAMES = frozenset(DATA_FIELDS)
KEEPS = ("game", "checkpoint")  # how much of the journal a store keeps
LISTS = ("watchers", "delayed", "stack", "pending", "choices")  # the game's lists, changed by `add_to` ...
SETUP = "setup"  # the cause of the changes that set a game up before play
_AT = attrgetter("at")  # a `BulkWrite`'s position


class Entry:
    """One change in the journal: `kind` of thing changed ("status", "object", "player",
    "game", "effect", "lki", or one of the game's `LISTS`; the engine's writes of attributes are
    journaled as themselves, kind "write"), which one (`obj`: an object's id, a player's name,
    an effect's id, a position), the attribute or field (`attr`), the `old` and new (`value`)
    values (`ABSENT`: none), and the `cause`."""

    __slots__ = ("kind", "obj", "attr", "old", "value", "cause")

    def __init__(self, kind: str, obj: Any, attr: str | None, old: Any, value: Any, cause: Any):
        self.kind, self.obj, self.attr, self.old, self.value, self.cause = kind, obj, attr, old, value, cause

    def __repr__(self) -> str:
        return f"Entry({self.kind}, {self.obj!r}, {self.attr}, {self.old!r} -> {self.value!r}, {self.cause})"


class Bulk:
    """Writes of attribute `attr` to many objects as one journal entry: object ids `objs`, the
    values they replace (`olds`, a status never written reading as its default, then flagged
    in `unset` by index, as a `batches.Write` is), the new value (`value`, one for all; or
    `values`, a column, one per object), the `cause`, and the journal position of each write
    (`positions`, ascending: a `range` when they follow one another). Bulk entries journaled
    together (`Store.journal_bulk`) are a group: `start` and `end` are the group's first
    position and the one after its last. `held`, until it is committed: the objects
    themselves, in the order of `objs`, where the engine held them as it made the entry
    (None: each is looked up by its id), so that applying it (`Store.apply_bulk`) does not
    look them up again, which on a large board is most of what applying costs (an id's place
    in the game's table of objects is wherever the id hashes, far from the last one's); the
    engine lets go of them once it has committed the entry (`Committer.commit_runs`): the
    journal keeps ids."""

    __slots__ = ("attr", "objs", "olds", "value", "values", "cause", "positions", "unset", "start", "end", "held")

    kind = "bulk"

    def __init__(self, attr: str, objs: list, olds: list, cause: Any, value: Any = None, values: list | None = None,
                 positions: Any = None, unset: frozenset[int] | set[int] = frozenset(), held: list | None = None):
        if values is not None and len(values) != len(objs) or len(olds) != len(objs):
            raise ValueError(f"Bulk({attr}): {len(objs)} objects but {len(olds)} old values"
                             + (f" and {len(values)} new ones" if values is not None else ""))
        if held is not None and len(held) != len(objs):
            raise ValueError(f"Bulk({attr}): {len(objs)} objects but {len(held)} held")
        self.attr, self.objs, self.olds, self.cause = attr, objs, olds, cause
        self.value, self.values = value, values
        self.positions = positions  # (relative to its group until journaled: `journal_bulk`)
        self.unset = unset
        self.start = self.end = 0
        self.held = held

    def __len__(self) -> int:
        return len(self.objs)

    def objects_in(self, objects: dict) -> Iterable:
        """Its objects, in the order of `objs`: those it holds (`held`), else each looked up
        in `objects` (the game's) as it is reached."""
        return self.held if self.held is not None else map(objects.__getitem__, self.objs)

    def one_old(self) -> Any:
        """The value every one of its writes replaces, when they all replace one (the
        commonest: a statement's run over objects chosen by that value); else `MIXED`, as
        with no writes. At C speed."""
        olds = self.olds
        return olds[0] if olds and olds.count(olds[0]) == len(olds) else MIXED

    def new(self, k: int) -> Any:
        """The new value of its `k`th write."""
        return self.value if self.values is None else self.values[k]

    def writes(self) -> list["BulkWrite"]:
        """Its writes, each as the record an entry of its own would be (in position order)."""
        unset, olds, objs, attr, cause = self.unset, self.olds, self.objs, self.attr, self.cause
        return [BulkWrite(objs[k], attr, olds[k], self.new(k), cause, position, k in unset)
                for k, position in enumerate(self.positions)]

    def __repr__(self) -> str:
        new = self.value if self.values is None else self.values
        return f"Bulk({self.attr}, {self.objs!r}, {self.olds!r} -> {new!r}, {self.cause}, at {self.positions})"


class BulkWrite:
    """One write of a `Bulk` entry, read as a journal entry of its own (kind "write", with the
    fields of a `batches.Write`) and its journal position (`at`)."""

    __slots__ = ("obj", "attr", "old", "value", "cause", "at", "unset")

    kind = "write"

    def __init__(self, obj: str, attr: str, old: Any, value: Any, cause: Any, at: int, unset: bool):
        self.obj, self.attr, self.old, self.value, self.cause, self.at, self.unset = obj, attr, old, value, cause, at, unset

    def __repr__(self) -> str:
        return f"BulkWrite({self.obj!r}, {self.attr}, {self.old!r} -> {self.value!r}, {self.cause}, at {self.at})"


class Remembered:
    """Last known information of many objects kept at once (`Store.remember_all`): one journal
    entry that takes a position for each object, as an entry of its own would (`start`: the
    first): the ids (`objs`), what `game.lki` held for each before (`olds`, as
    `LastKnownBook.held` gives it, ABSENT for nothing) and holds now (`infos[k]` for the k-th
    object: a sequence, which may hold more), the cause."""

    __slots__ = ("objs", "olds", "infos", "cause", "start")

    kind = "lki-group"

    def __init__(self, objs: list[str], olds: list, infos: Sequence, cause: Any, start: int):
        self.objs, self.olds, self.infos, self.cause, self.start = objs, olds, infos, cause, start

    def __len__(self) -> int:
        return len(self.objs)


class Mark(int):
    """A position of a journal that `Store.mark` gave (it is that position, as an int), with
    the journal (`journal`) and how many undos it had seen (`undos`): `Store.undo` refuses
    it when it is of another journal or of a branch since undone."""

    def __new__(cls, position: int, journal: "Store", undos: int) -> "Mark":
        made = super().__new__(cls, position)
        made.journal, made.undos = journal, undos
        return made

    def __repr__(self) -> str:
        return f"Mark({int(self)})"

    def __reduce__(self):  # (pickled or copied, it is the position it holds)
        return (int, (int(self),))


def _undone_below(floors: list[tuple[int, int]], mark: Mark) -> int | None:
    """The lowest position an undo of a journal whose `Store.floors` are `floors` went back
    to since `mark` was taken, if it is below the mark's (its branch was undone), else None."""
    k = bisect.bisect_left(floors, mark.undos, key=lambda f: f[0])
    return floors[k][1] if k < len(floors) and floors[k][1] < mark else None


class JournalTrimmed(DiagnosticError):
    """A position the journal no longer holds (`undo` to it, or reading an object back as it
    was then): older than the last checkpoint of a store that keeps the journal only so far."""


def _trimmed(store: "Store", position: int, call: str) -> JournalTrimmed:
    return JournalTrimmed(Diagnostic(
        "error", f"{call}: the journal no longer holds position {position}: it was trimmed at a checkpoint "
        f"(it starts at {store.base})", Span(call, 0, 0, 0, 0),
        "keep the whole journal (Engine(..., journal='game')), or go back only to marks made since the "
        "current step or turn began"))


class Store:
    """Changes one game and journals each change (see the module's docstring)."""

    __slots__ = ("game", "entries", "base", "dropped", "extra", "bulk", "keep", "pending", "readers", "derived",
                 "keepers", "undos", "floors")

    def __init__(self, game: Game, keep: str = "game"):
        self.game = game
        self.entries: list = []  # the journal since position `base`
        self.base = 0  # how many positions (changes) were dropped at checkpoints
        self.dropped = 0  # how many entries were (as many as positions, but for `Bulk` entries)
        self.extra = 0  # how many more positions the entries held take than there are entries (`Bulk`, `Remembered`)
        self.bulk = 0  # how many `Bulk` entries it holds (none, and no `extra`: each entry is one position, read as itself)
        self.keep = keep
        self.pending: list[Recorded] = []  # objects recorded at a position, not yet read back
        self.readers: dict[int, Any] = {}  # id -> what holds blocks of the journal (traces), to `materialize`
        # what engines worked out from the game, each as a weak reference to the method that forgets it
        self.derived: list[weakref.WeakMethod] = []
        self.keepers: dict[Any, Any] = {}  # key -> what it keeps right as objects change (`kept_for`)
        self.undos = 0  # how many times it was undone (a mark says how many before it was taken)
        # (the n-th undo, the position it went back to), the lowest position of the undos from
        # each on: positions rising, so the first from undo n on is the lowest since (`_undone_below`)
        self.floors: list[tuple[int, int]] = []

    def kept_for(self, key: Any, make: Callable[[], Any]) -> Any:
        """What is kept for `key` (made by `make()` the first time): the game's indexes for a
        set of declared statuses. The store passes every change of an object on to it, as it
        makes the change or undoes it (see the module's docstring)."""
        keeper = self.keepers.get(key)
        if keeper is None:
            keeper = self.keepers[key] = make()
        return keeper

    # ------------------------------------------------------------ objects

    def journal_writes(self, writes: list) -> "Block":
        """Journal a batch's changes (records with `obj`, `attr`, `old`, `value`, `cause`, an
        `unset` flag and `kind` "write"; at most one per object and attribute), each as
        itself, in the order given, before they are applied (`write_object`, or one by one
        after `flag_unset` where an object changes zones): the block of the journal they fill,
        which the trace reads its change events from. A status never written on its object
        before is flagged `unset` as it is applied, to be left out again by an undo."""
        start, first = self.position(), self.dropped + len(self.entries)
        self.entries += writes
        return Block(self, start, start + len(writes), first, first + len(writes))

    def journal_bulk(self, group: list[Bulk], checked: bool = True) -> "Block":
        """Journal bulk entries as one group (see the module's docstring), before they are
        applied (`apply_bulk`): their positions, given from 0 (the group's first write) and
        together each position from 0 to one less than the number of their writes once, become
        the journal's (they follow what it holds). The block of the journal they fill, which
        reads as their writes in the order of their positions. (`checked=False`: the group's
        positions are not checked, for a caller that numbered them itself, as the engine's
        generated code does, `Committer.commit_runs`.)"""
        start, first = self.position(), self.dropped + len(self.entries)
        size = sum(len(b) for b in group)
        if checked:
            seen: set[int] = set()
            for b in group:
                positions = b.positions
                if positions is None or not len(b):
                    raise ValueError(f"journal_bulk(): {b!r} has no " + ("positions" if len(b) else "writes"))
                seen.update(positions)
            if len(seen) != size or (seen and (min(seen) != 0 or max(seen) != size - 1)):
                raise ValueError(f"journal_bulk(): the positions of the group's {size} writes are not 0 to {size - 1}, each once")
        for b in group:
            positions = b.positions
            b.positions = (range(start + positions.start, start + positions.stop, positions.step) if type(positions) is range
                           else [start + p for p in positions])
            b.start, b.end = start, start + size
        self.entries += group
        self.extra += size - len(group)
        self.bulk += len(group)
        return Block(self, start, start + size, first, first + len(group), True)

    def apply_bulk(self, b: Bulk, default: Any = ABSENT) -> None:
        """Apply a journaled bulk entry (`journal_bulk`) to its objects in place, flagging in its
        `unset` the writes to a status their object has never had written. (`default`: the
        status's default, if the caller knows it: where every object had one value other than
        it, each had it written, and none is looked at for that.)"""
        attr, held = b.attr, b.objects_in(self.game.objects)
        if attr in FIELD_NAMES:
            if b.values is None:
                value = lower_types(b.value) if attr == "types" else b.value
                for o in held:
                    setattr(o, attr, value)
            else:
                for o, value in zip(held, b.values):
                    setattr(o, attr, lower_types(value) if attr == "types" else value)
        else:
            of = [o.statuses for o in held]
            if default is ABSENT or (one := b.one_old()) is MIXED or one == default:
                b.unset = {k for k, statuses in enumerate(of) if attr not in statuses}
            if b.values is None:
                value = b.value
                for statuses in of:
                    statuses[attr] = value
            else:
                for statuses, value in zip(of, b.values):
                    statuses[attr] = value
        for keeper in self.keepers.values():
            keeper.move_bulk(b)

    def flag_unset(self, writes: Iterable) -> None:
        """Flag `unset` each of some journaled writes (of one object, not yet applied) to a
        status its object has never had written (`write_object` does this as it applies)."""
        for w in writes:
            if w.attr not in FIELD_NAMES and w.attr not in self.game.objects[w.obj].statuses:
                w.unset = True

    def write_object(self, o: Permanent, writes: Iterable) -> None:
        """Apply writes (records with `attr` and `value`, in order, none of them a zone,
        journaled already: `journal_writes`) to object `o` in place, flagging `unset` each to
        a status the object has never had written."""
        statuses = o.statuses
        for w in writes:
            attr = w.attr
            if attr in FIELD_NAMES:
                setattr(o, attr, lower_types(w.value) if attr == "types" else w.value)
            else:
                if attr not in statuses:
                    w.unset = True
                statuses[attr] = w.value
        for keeper in self.keepers.values():
            keeper.move(o.id, writes)

    def object_at(self, oid: str, mark: int) -> Permanent | None:
        """A copy of object `oid` as it was at journal position `mark` (None if there was none
        then), worked out by walking the journal back from now (`read_back`)."""
        recorded = Recorded(self, oid, mark)
        self.read_back([recorded])
        return recorded._object

    def read_back(self, recorded: Iterable["Recorded"]) -> None:
        """Read back many recorded objects at once (`Recorded.object`): one walk back over the
        journal, from now to the oldest of their positions, instead of one walk per object
        (a checkpoint after a step that remembered thousands of objects took seconds)."""
        todo = sorted((r for r in recorded if r._object is None), key=lambda r: r.mark, reverse=True)
        if not todo:
            return
        if todo[-1].mark < self.base:
            raise _trimmed(self, todo[-1].mark, "object_at()")
        objects = self.game.objects
        current: dict[str, Permanent | None] = {}  # each object still wanted, as it was where the walk is
        wanted: dict[str, int] = {}  # how many of the recorded name each object
        for r in todo:
            if r.oid not in current:
                o = objects.get(r.oid)
                current[r.oid] = o.copy() if o is not None else None
            wanted[r.oid] = wanted.get(r.oid, 0) + 1
        back = self._backwards()
        nxt = next(back, None)  # (its position, the entry there), latest first
        for r in todo:  # (latest position first)
            while nxt is not None and nxt[0] >= r.mark:
                e = nxt[1]
                nxt = next(back, None)
                kind = e.kind
                if kind == "object" or kind == "write" or kind == "status":
                    oid = e.obj
                    if oid in current:
                        if kind == "object":
                            current[oid] = None if e.old is ABSENT else e.old.copy()
                        elif (o := current[oid]) is not None:
                            _restore(o, e)
            wanted[r.oid] -= 1
            if wanted[r.oid]:  # (an older position of it is wanted too: a copy, as the walk goes on)
                o = current[r.oid]
                r._object = o.copy() if o is not None else None
            else:  # (its last: the object itself, which the walk no longer changes)
                r._object = current.pop(r.oid)

    def objects_changed_since(self, mark: int, attrs: Collection[str]) -> set[str]:
        """The objects a journal entry at position `mark` or after changed an attribute of
        `attrs` of, or put in place whole (added, or a new incarnation): what may read
        otherwise at `mark` than now. An entry is read as itself (a group of bulk entries by
        their attributes, never write by write), from the latest back."""
        if mark < self.base:
            raise _trimmed(self, mark, "objects_changed_since()")
        found: set[str] = set()
        entries, top, i = self.entries, self.position(), len(self.entries) - 1
        while i >= 0:
            e = entries[i]
            kind = e.kind
            first = e.start if kind == "bulk" else top - (len(e) if kind == "lki-group" else 1)
            if first < mark:
                break
            if kind == "bulk":
                if e.attr in attrs:
                    found.update(e.objs)
            elif kind == "object" or (kind in ("write", "status") and e.attr in attrs):
                found.add(e.obj)
            top, i = first, i - 1
        return found

    def _backwards(self) -> Iterable[tuple[int, Any]]:
        """(position, entry) of the journal's entries, latest first: a group of `Bulk`
        entries read as its writes (`Bulk.writes`), each at its position; a `Remembered`
        (which changes no object) once, at its first position."""
        entries, top = self.entries, self.position()
        if not self.extra and not self.bulk:  # (each entry takes one position)
            return zip(range(top - 1, self.base - 1, -1), reversed(entries))
        return self._backwards_expanding(top)

    def _backwards_expanding(self, top: int):
        entries = self.entries
        i = len(entries) - 1
        while i >= 0:
            e = entries[i]
            if e.kind != "bulk":
                top -= len(e) if e.kind == "lki-group" else 1  # (changes no object: read at its first)
                yield top, e
                i -= 1
                continue
            j = i
            while j > 0 and entries[j - 1].kind == "bulk" and entries[j - 1].end == e.end:
                j -= 1
            for w in _in_order(entries[j:i + 1], latest_first=True):
                yield w.at, w
            top, i = e.start, j - 1

    def recorded(self, oid: str) -> "Recorded":
        """Object `oid` as it is now, read back from the journal when asked (a copy made then)."""
        recorded = Recorded(self, oid, self.position())
        if self.keep == "checkpoint":
            self.pending.append(recorded)  # (to be read before the journal is trimmed past it)
        return recorded

    def write(self, oid: str, attr: str, value: Any, cause: Any) -> Any:
        """Set one attribute or status of object `oid` in place; its old value."""
        o = self.game.objects[oid]
        if attr in FIELD_NAMES:
            old = getattr(o, attr)
            e = Entry("write", oid, attr, old, value, cause)
            setattr(o, attr, lower_types(value) if attr == "types" else value)
        else:
            old = o.statuses.get(attr, ABSENT)
            e = Entry("status", oid, attr, old, value, cause)
            o.statuses[attr] = value
        self.entries.append(e)
        for keeper in self.keepers.values():
            keeper.move(oid, (e,))
        return old

    def apply_journaled(self, oid: str, attr: str, value: Any) -> Any:
        """`write` for a write the journal holds already (`journal_writes`: a batch's write
        applied on its own, as those of an object that changes zones are): the object is
        changed in place and nothing is journaled again; its old value."""
        o = self.game.objects[oid]
        if attr in FIELD_NAMES:
            old = getattr(o, attr)
            setattr(o, attr, lower_types(value) if attr == "types" else value)
        else:
            old = o.statuses.get(attr, ABSENT)
            o.statuses[attr] = value
        if self.keepers:
            moved = (Entry("write", oid, attr, old, value, None),)
            for keeper in self.keepers.values():
                keeper.move(oid, moved)
        return old

    def put_object(self, o: Permanent, cause: Any) -> Permanent | None:
        """Add object `o` to the game, or put it in place of the object with its id (a new
        incarnation of it); the object it replaces, if any."""
        objects = self.game.objects
        old = objects.get(o.id)
        self.entries.append(Entry("object", o.id, None, ABSENT if old is None else old, o, cause))
        objects[o.id] = o
        for keeper in self.keepers.values():
            keeper.replace(old, o)
        return old

    @staticmethod
    def new_incarnation(old: Permanent, **changes: Any) -> Permanent:
        """Object `old` as a new object (400.7), linked to it, with `changes`: to be put in its
        place in the game under the same id (`put_object`)."""
        new = old.replace(**changes)
        new.incarnation, new.previous = old.incarnation + 1, old
        return new

    # ------------------------------------------------------------ the rest of the game

    def set_player(self, name: str, player: Any, cause: Any) -> None:
        players = self.game.players
        self.entries.append(Entry("player", name, None, players.get(name, ABSENT), player, cause))
        players[name] = player

    def set_field(self, name: str, value: Any, cause: Any) -> None:
        """Set a field of the game itself (turn, active, clock, cleanup_done, delayed)."""
        self.entries.append(Entry("game", None, name, getattr(self.game, name), value, cause))
        setattr(self.game, name, value)

    def tick(self, cause: Any) -> int:
        """Advance the game's clock (timestamps) by one; the new time."""
        self.set_field("clock", self.game.clock + 1, cause)
        return self.game.clock

    def set_effect(self, eid: int, effect: Any, cause: Any) -> None:
        effects = self.game.effects
        self.entries.append(Entry("effect", eid, None, effects.get(eid, ABSENT), effect, cause))
        effects[eid] = effect

    def remove_effect(self, eid: int, cause: Any) -> None:
        effects = self.game.effects
        self.entries.append(Entry("effect", eid, None, effects.pop(eid), ABSENT, cause))

    def add_to(self, kind: str, item: Any, cause: Any) -> None:
        """Append to one of the game's lists (`LISTS`: watchers, delayed triggers, the stack,
        pending triggered abilities, targets chosen in advance)."""
        items = getattr(self.game, _list_kind(kind))
        self.entries.append(Entry(kind, len(items), None, ABSENT, item, cause))
        items.append(item)

    def remove_from(self, kind: str, item: Any, cause: Any) -> None:
        """Remove the first equal item from one of the game's lists."""
        self.remove_at(kind, getattr(self.game, _list_kind(kind)).index(item), cause)

    def remove_at(self, kind: str, position: int, cause: Any) -> Any:
        """Remove the item at `position` (negative: from the end) of one of the game's lists; the item."""
        items = getattr(self.game, _list_kind(kind))
        if not -len(items) <= position < len(items):
            raise IndexError(f"remove_at(): the game's {kind} list has no position {position} (it holds {len(items)})")
        position %= len(items)
        item = items.pop(position)
        self.entries.append(Entry(kind, position, None, item, ABSENT, cause))
        return item

    def replace_at(self, kind: str, position: int, item: Any, cause: Any) -> None:
        """Put `item` in place of the one at `position` of one of the game's lists."""
        items = getattr(self.game, _list_kind(kind))
        self.entries.append(Entry(kind, position, "replace", items[position], item, cause))
        items[position] = item

    def remember(self, oid: str, info: Any, cause: Any) -> None:
        """Keep last known information of object `oid`."""
        lki = self.game.lki
        self.entries.append(Entry("lki", oid, None, lki.held(oid, ABSENT), info, cause))
        lki[oid] = info

    def remember_all(self, oids: list[str], infos: Sequence, cause: Any) -> None:
        """Keep last known information `infos[k]` of each object `oids[k]`, in turn, as one
        journal entry that takes a position for each (`Remembered`); `infos` is a sequence
        (`characteristics.LastKnownGroup` makes each item when first asked), whose items
        `game.lki` takes only when read (`LastKnownBook.keep_all`). Each info's object is
        recorded at the position before its own (its `recorded`), and read back before the
        journal is trimmed past it."""
        if not oids:
            return
        olds = self.game.lki.keep_all(oids, infos, ABSENT)
        self.entries.append(Remembered(oids, olds, infos, cause, self.position()))
        self.extra += len(oids) - 1
        if self.keep == "checkpoint":
            self.pending += [r for k in range(len(oids)) if (r := infos[k].recorded) is not None]

    # ------------------------------------------------------------ journal positions

    def position(self) -> int:
        """The journal's position now (how many changes it has taken in all)."""
        return self.base + len(self.entries) + self.extra

    @checked(name="mark")  # (docs/api.md, "Undo and the journal": a call it does not take is a DiagnosticError)
    def mark(self) -> "Mark":
        """The journal's position now, to `undo` to: a `Mark`, which also knows this journal
        and how many undos it had seen, so that `undo` can tell a mark of a branch since
        undone (the journal went back before it, and what follows it was replaced)."""
        return Mark(self.base + len(self.entries) + self.extra, self, self.undos)

    def checkpoint(self) -> None:
        """With `keep = "checkpoint"`, forget the journal so far: the game cannot be undone to
        before this point. (With `keep = "game"`, it does nothing.)"""
        if self.keep == "checkpoint" and self.entries:
            self.read_back(self.pending)
            self.pending.clear()
            self._let_readers_copy()
            self.base = self.position()
            self.dropped += len(self.entries)
            self.entries.clear()
            self.extra = self.bulk = 0

    def watched_by(self, forget: Callable[[], None]) -> None:
        """`forget` (a bound method, held weakly: the engine it belongs to may go) is called after
        every `undo`: it drops what was worked out from the game as it was before."""
        self.derived = [ref for ref in self.derived if ref() is not None]
        self.derived.append(weakref.WeakMethod(forget))

    @checked(name="undo")  # (as `mark`)
    def undo(self, mark: int) -> None:
        """Walk the journal back to `mark`, restoring the game as it was then; then every engine
        on the game forgets what it worked out from the later state (`watched_by`). A `Mark`
        is checked (`check_mark`); a plain int is a raw position of the journal, at the store's
        own level (its tests walk back into the middle of a group), and may be inside an action:
        `ObjectWriter.undo`, the engine's, takes only marks. Anything else, or a position the
        journal never reached (past its end, or below 0), is a `DiagnosticError` (the value shown
        through `describe`: an int of more digits than Python writes out raised ValueError, issue 43)."""
        if isinstance(mark, Mark):
            self.check_mark(mark)
        if not isinstance(mark, int) or isinstance(mark, bool) or not 0 <= mark <= self.position():
            raise DiagnosticError(Diagnostic(
                "error", f"undo(): the mark must be a position of this game's journal, from 0 to {self.position()}, "
                f"not {describe(mark)}", Span("undo()", 0, 0, 0, 0),
                "take one with store.mark() before the changes to undo"))
        if mark < self.base:
            raise _trimmed(self, mark, "undo()")
        floors = self.floors
        while floors and floors[-1][1] >= mark:
            floors.pop()
        floors.append((self.undos, int(mark)))
        self.undos += 1
        game, entries, keepers = self.game, self.entries, self.keepers.values()
        objects = game.objects
        self._let_readers_copy()
        if self.pending:
            self.pending = [r for r in self.pending if r.mark <= mark]
        while self.base + len(entries) + self.extra > mark:
            e = entries.pop()
            kind = e.kind
            if kind == "bulk":
                self._undo_group(e, mark)
                continue
            if kind == "lki-group":
                self._undo_remembered(e, mark)
                continue
            key, old = e.obj, e.old
            if kind == "write" or kind == "status":
                self._set_back(e)
            elif kind == "game":
                setattr(game, e.attr, old)
            elif kind in LISTS:
                items = getattr(game, kind)
                if e.attr == "replace":
                    items[key] = old
                elif old is ABSENT:
                    del items[key]
                else:
                    items.insert(key, old)
            elif kind == "lki":
                game.lki.put_back(key, old, ABSENT)
            elif kind == "object":
                now = objects[key]
                if old is ABSENT:
                    del objects[key]
                    for keeper in keepers:
                        keeper.removed(key, now)
                else:
                    objects[key] = old
                    for keeper in keepers:
                        keeper.replace(now, old)
            else:
                container = {"player": game.players, "effect": game.effects}[kind]
                if old is ABSENT:
                    del container[key]
                else:
                    container[key] = old
        for ref in self.derived:
            forget = ref()
            if forget is not None:
                forget()

    def check_mark(self, mark: "Mark") -> None:
        """A `DiagnosticError` unless `mark` is a mark of this journal whose branch is still
        the journal's: no undo went back before it since it was taken."""
        if mark.journal is not self:
            raise DiagnosticError(Diagnostic(
                "error", f"undo(): mark {int(mark)} is a mark of another game's journal", Span("undo()", 0, 0, 0, 0),
                "take the mark with the store of the game to undo (play.engine.store.mark())"))
        below = _undone_below(self.floors, mark)
        if below is not None:
            raise DiagnosticError(Diagnostic(
                "error", f"undo(): mark {int(mark)} is of a branch that was undone: the game went back to "
                f"position {below} after it was taken, and what followed was replaced", Span("undo()", 0, 0, 0, 0),
                "undo only to a mark taken since the last undo before it, or to one taken before that position"))

    def _set_back(self, e: Any) -> None:
        """Undo one write of an object (an entry of kind "write" or "status", or a bulk entry's
        `BulkWrite`), and move the object back in what the store keeps (`kept_for`)."""
        restored = _restore(self.game.objects[e.obj], e)
        for keeper in self.keepers.values():
            keeper.move_back(e.obj, e.attr, e.value, restored)

    def _undo_remembered(self, e: Remembered, mark: int) -> None:
        """Undo the last known information `e` (just taken off the journal) kept at `mark` and
        after: what it kept before `mark` goes back on the journal."""
        lki, n = self.game.lki, len(e)
        self.extra -= n - 1
        keep = max(0, mark - e.start)
        for k in range(n - 1, keep - 1, -1):
            lki.put_back(e.objs[k], e.olds[k], ABSENT)
        if keep:  # (its first `keep` objects; `game.lki` reads their information from `infos`, whole)
            self.entries.append(Remembered(e.objs[:keep], e.olds[:keep], e.infos, e.cause, e.start))
            self.extra += keep - 1

    def _undo_group(self, last: Bulk, mark: int) -> None:
        """Undo the writes at `mark` and after of the group of bulk entries whose last entry,
        `last`, was just taken off the journal: the rest of the group, taken off too, goes back
        on it holding only the writes before `mark` (in position order, each write undone as
        its own entry would be)."""
        entries = self.entries
        group = [last]
        while entries and entries[-1].kind == "bulk" and entries[-1].end == last.end:
            group.append(entries.pop())
        group.reverse()
        self.bulk -= len(group)
        self.extra -= sum(len(b) for b in group) - len(group)
        for w in _in_order(group, latest_first=True):
            if w.at < mark:
                break
            self._set_back(w)
        if mark <= last.start:
            return
        kept = []  # what is left of each entry of the group: its writes before `mark`
        for b in group:
            ks = [k for k, position in enumerate(b.positions) if position < mark]
            if not ks:
                continue
            part = Bulk(b.attr, [b.objs[k] for k in ks], [b.olds[k] for k in ks], b.cause, b.value,
                        None if b.values is None else [b.values[k] for k in ks],
                        [b.positions[k] for k in ks], {n for n, k in enumerate(ks) if k in b.unset})
            part.start, part.end = b.start, mark
            kept.append(part)
        entries += kept
        self.bulk += len(kept)
        self.extra += sum(len(b) for b in kept) - len(kept)

    def __len__(self) -> int:
        """How many positions (changes) the journal holds now: a `Bulk` entry holds one per write."""
        return self.position() - self.base

    def read_by(self, reader: Any) -> None:
        """`reader` holds blocks of the journal: before entries are dropped (a checkpoint) or
        undone, it is asked to `materialize` what it holds."""
        self.readers[id(reader)] = reader

    def _let_readers_copy(self) -> None:
        for reader in self.readers.values():
            reader.materialize()
        self.readers.clear()


def _list_kind(kind: str) -> str:
    if kind not in LISTS:
        raise ValueError(f"{kind!r} is not one of a game's lists ({', '.join(LISTS)})")
    return kind


class Block:
    """A run of the journal (positions `start` to `end`; entries numbered `first` to `stop`
    counting those dropped at checkpoints), read as a sequence of its writes, in position
    order (`bulk`: its entries are `Bulk` entries, read as their writes), while the journal
    holds them."""

    __slots__ = ("store", "start", "end", "first", "stop", "bulk")

    def __init__(self, store: Store, start: int, end: int, first: int, stop: int, bulk: bool = False):
        self.store, self.start, self.end, self.first, self.stop, self.bulk = store, start, end, first, stop, bulk

    def __len__(self) -> int:
        return self.end - self.start

    def __iter__(self):
        store = self.store
        if self.start < store.base:
            raise _trimmed(store, self.start, "trace")
        entries = store.entries[self.first - store.dropped:self.stop - store.dropped]
        if not self.bulk:
            return iter(entries)
        return iter(_in_order(entries))


def _in_order(group: Iterable[Bulk], latest_first: bool = False) -> list["BulkWrite"]:
    """The writes of some bulk entries (`Bulk.writes`), in the order of their positions."""
    writes = [w for b in group for w in b.writes()]
    writes.sort(key=_AT, reverse=latest_first)
    return writes


def _restore(o: Permanent, e: Any) -> Any:
    """Undo one write or status entry `e` on object `o`; the value it holds again (`ABSENT`:
    a status left out again)."""
    attr = e.attr
    if attr in FIELD_NAMES:
        setattr(o, attr, e.old)
    elif e.old is ABSENT or getattr(e, "unset", False):
        # (it was not there before: a status entry with no old value, or a batch's write flagged
        # `unset` as it was applied; an `Entry` has no flag)
        o.statuses.pop(attr, None)
        return ABSENT
    else:
        o.statuses[attr] = e.old
    return e.old


class Recorded:
    """An object as it was at a position of a store's journal, read back (`object`) only when
    asked, or before the journal is trimmed past it."""

    __slots__ = ("store", "oid", "mark", "_object")

    def __init__(self, store: Store, oid: str, mark: int):
        self.store, self.oid, self.mark = store, oid, mark
        self._object: Permanent | None = None

    @property
    def recorded(self) -> "Recorded | None":
        """Itself while its object is still to be read back, None once read (as
        `LastKnown.recorded`: what is kept as last known information says so)."""
        return self if self._object is None else None

    def object(self) -> Permanent:
        if self._object is None:
            self.store.read_back([self])
        return self._object


def store_of(game: Game) -> Store:
    """The store of a game (made the first time it is asked for)."""
    store = game.store
    if store is None:
        store = game.store = Store(game)
    return store
