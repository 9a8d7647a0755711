"""The records a change is made of: a `Write` (one attribute of one object, and its cause), an
`Op` (an operation the engine performs), and a `Batch` (what one event does, gathered before
anything changes), with the helpers that put a batch's runs of writes in position order.
The program builds them (compiled statements and clauses write into a batch); the engine
commits them (`interpreter.engine.batches`)."""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any, Callable, Iterable

import attrs

from .store import Bulk
from .trace import Cause


UNREAD = object()  # a write's old value before anyone has read it

@attrs.define
class Write:
    """A write of `value` to attribute (or status) `attr` of object `obj`, for `cause`; once
    applied, it is its own entry in the game's journal (`interpreter.game.store`)."""

    obj: str
    attr: str
    value: Any
    cause: Cause
    old: Any = UNREAD  # the value it replaces: read as generated code writes it, else on expanding or applying
    unset: bool = False  # applied to a status the object had never had written: undone by leaving it out

    kind = "write"  # (what kind of journal entry it is)


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

    A `set`, `tap` and the like read the value they replace as they write (`write_or_keep`,
    and generated code inline): a write that leaves its value as it is goes apart, to
    `unchanged_writes`, as (how many changes came before it, in `writes` and in runs: `made`,
    (object, attribute), value, cause): it changes nothing, wakes no `as` clause and counts
    against no writes budget, and
    matters only when a write in `writes` sets the same attribute to something else (a
    conflict, `settle_conflicts`), so it is kept only for the attributes in `contested` (when
    the batch's writers are known, `Compiler.contested_by`; None: kept). The engine's own
    statements (`Statements`) write the same way. A `Write` made without the value it
    replaces (`old` UNREAD) has it read as the batch is expanded or committed."""

    writes: list[Write] = attrs.field(factory=list)
    ops: list[Op] = attrs.field(factory=list)
    makes_effects: bool = False  # whether an op so far starts a continuous effect
    unchanged_writes: list[tuple] = attrs.field(factory=list)
    # the attributes two writes of the batch could set to different values (`write_sites`):
    # generated code keeps a write that changes nothing only for those; None: for any
    contested: frozenset[str] | None = None
    # runs of writes (`store.Bulk`, the journal entries they become), made by generated code
    # that writes to accumulators rather than making a `Write` per change (`codegen`, its
    # "runs"): each holds the position of each of its writes among all the writes of the
    # batch (`writes` fill the positions the runs leave, in order; see `take_in_bulks`)
    bulks: list[Bulk] = attrs.field(factory=list)
    in_bulk: int = 0  # how many writes `bulks` hold (the budget counts them with `writes`)
    # for each (object, attribute) that statements adding an amount wrote (`add`), the place
    # of that write in `writes`: a second addition builds on it rather than on the stored value
    added: dict = attrs.field(factory=dict)

    def made(self) -> int:
        """How many writes that change something the batch holds so far (in `writes` and in
        runs): the position the next one takes."""
        return len(self.writes) + self.in_bulk

    def take_in_bulks(self) -> None:
        """Put the writes of the runs among `writes`, each at its position (the writes
        already in `writes` keeping theirs, the places the runs leave, in order), as if each
        had been added as a `Write` when it was made."""
        if not self.bulks:
            return
        placed: list = [None] * self.made()
        for b in self.bulks:
            attr, cause, objs, olds = b.attr, b.cause, b.objs, b.olds
            if b.values is None:
                value = b.value
                for k, position in enumerate(b.positions):
                    placed[position] = Write(objs[k], attr, value, cause, olds[k])
            else:
                values = b.values
                for k, position in enumerate(b.positions):
                    placed[position] = Write(objs[k], attr, values[k], cause, olds[k])
        loose = iter(self.writes)
        self.writes[:] = [w if w is not None else next(loose) for w in placed]
        self.bulks.clear()
        self.in_bulk = 0

    def run_parents(self, which: dict[str, dict[Any, int]]) -> list[tuple]:
        """The writes of the runs that make a change some clause waits on (`which`: attribute
        -> value -> which clauses), in the order of their positions, as (object, attribute,
        value, the value it replaces, which clauses, the object where the run holds it:
        `Bulk.held`, else None): the changes an expander made for runs
        (`codegen.compile_expander`) goes through first."""
        ks: dict[int, int | None] = {}  # run (by id) -> which clauses its one value calls on (None: a column)
        for b in self.bulks:
            values = which.get(b.attr)
            if values is not None and (b.values is not None or (k := values.get(b.value)) is not None):
                ks[id(b)] = None if b.values is not None else k
        parents = by_position([b for b in self.bulks if id(b) in ks], lambda b: zip(
            b.objs, repeat(b.attr), repeat(b.value) if b.values is None else b.values, b.olds,
            repeat(ks[id(b)]) if b.values is None else map(which[b.attr].get, b.values),
            repeat(None) if b.held is None else b.held))
        if None in ks.values():  # (a column's values some clause does not wait on)
            parents = [p for p in parents if p[4] is not None]
        return parents

    def in_order(self, limit: int | None = None) -> list[Write]:
        """Every write (or the first `limit`), `unchanged_writes` included, in the order they were made."""
        writes = self.writes
        if not self.unchanged_writes:
            return writes[:limit]
        merged: list[Write] = []
        done = 0  # how many of `writes` are in `merged`
        for position, (oid, attr), value, cause in self.unchanged_writes:
            merged += writes[done:position]
            done = position
            merged.append(Write(oid, attr, value, cause, value))
            if limit is not None and len(merged) >= limit:
                return merged[:limit]
        return (merged + writes[done:])[:limit]

    def write_or_keep(self, cause: Cause, oid: str, attr: str, value: Any, old: Any) -> None:
        """Add a write of `value` to attribute `attr` of object `oid`, whose stored value is
        `old` (nothing changes while a batch is made): to `writes` when it changes it; else,
        changing nothing, to `unchanged_writes` when another write could set the attribute to
        something else (`contested`; None: any could), as generated code does with the writes
        it makes. So a `set` or `tap` that changes nothing counts against no writes budget in
        either backend."""
        if old != value:
            self.writes.append(Write(oid, attr, value, cause, old))
        elif self.contested is None or attr in self.contested:
            self.unchanged_writes.append((self.made(), (oid, attr), value, cause))

    def add(self, cause: Cause, oid: str, attr: str, adding: Callable[[Any], Any], old: Any) -> None:
        """A write that adds an amount to `attr` of `oid` (counters, damage): `adding` makes the
        value from the one it adds to. Several additions to one attribute in one event add up
        (the stored value `old`, then each in turn) into one write, rather than each adding to
        the value from before the event."""
        place = self.added.get((oid, attr))
        if place is not None and place < len(self.writes) and self.writes[place].obj == oid and self.writes[place].attr == attr:
            first = self.writes[place]
            self.writes[place] = Write(oid, attr, adding(first.value), first.cause, first.old)
            return
        value = adding(old)
        if value != old:
            self.added[(oid, attr)] = len(self.writes)
            self.writes.append(Write(oid, attr, value, cause, old))

    def op(self, cause: Cause, describe: str, subject: str, apply: Callable[[], bool], kind: str = "effect") -> None:
        """Add an operation (`apply` does it and says whether anything happened)."""
        self.ops.append(Op(describe, subject, apply, cause, kind))
        if kind == "effect":
            self.makes_effects = True


UNCHANGED_KEY = itemgetter(1)  # the (object, attribute) of an entry of `Batch.unchanged_writes`


def in_position_order(runs: list[Bulk]) -> list[tuple[Bulk, int]]:
    """(run, index in it) of each write of `runs` (runs of one batch: no two writes share a
    position), in the order of their positions."""
    return by_position(runs, lambda b: zip(repeat(b), range(len(b))))


def objects_in_position_order(runs: list[Bulk]) -> list[str]:
    """The object of each write of `runs`, in the order of their positions (`in_position_order`)."""
    return by_position(runs, OBJECTS)


OBJECTS = attrgetter("objs")


def by_position(runs: list[Bulk], items: Callable[[Bulk], Iterable]) -> list:
    """What `items(b)` gives for each run, one item (never None) per write, in the order of
    the writes' positions (runs of one batch: no two writes share a position; increasing
    within a run): each put in the slot of its position in a list spanning the runs'
    positions (journaled, a run's positions are the journal's: the list starts at the first
    of them rather than at the game's first write)."""
    runs = [b for b in runs if len(b)]
    if len(runs) < 2:
        return list(items(runs[0])) if runs else []
    low = min(b.positions[0] for b in runs)
    slots: list = [None] * (max(b.positions[-1] for b in runs) - low + 1)
    for b in runs:
        positions = b.positions
        first = positions[0] - low
        if positions[-1] - low - first + 1 == len(positions):  # (one stretch of positions: a slice at C speed)
            slots[first:first + len(positions)] = items(b)
            continue
        for position, item in zip(positions, items(b)):
            slots[position - low] = item
    if sum(map(len, runs)) == len(slots):  # (every slot taken: the runs hold every write between)
        return slots
    return [item for item in slots if item is not None]
