"""Interpreter events: what changed, and which rule block (or card, or script step) caused it.

Traces, explanations and the JSON output are all read off these records.
"""

from __future__ import annotations

from functools import partial
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import attrs

from ...dsl import ast
from ...dsl.diagnostics import NOWHERE, Span
from ...dsl.printer import clause_lines


@attrs.frozen
class Cause:
    """Who did it: a rule block (`kind="rule"`, with its id and slug), a card (`label`: which of
    its activated abilities, `ability 2`, when one did it), or the script.
    `role`: for a block's `as` or `after` clause, the clause's head (`as x.A becomes V`).
    `origin`: for a clause an `amend` wrote, which rulebook amended the block and where."""

    kind: str
    id: str
    label: str = ""
    span: Span = attrs.field(default=NOWHERE, eq=False)
    role: str = attrs.field(default="", eq=False)
    origin: str = attrs.field(default="", eq=False)

    def __str__(self) -> str:
        if self.kind == "rule":
            return f"{self.id} {self.label}".strip() + (f", {self.origin}" if self.origin else "")
        if self.kind == "card":  # (one of its activated abilities, by `label`: `ability 2`)
            return f"card \"{self.id}\"" + (f", {self.label}" if self.label else "")
        return self.label or self.id


SCRIPT = Cause("script", "script", "scenario script")


def rule_cause(program: Any, rule: ast.Rule, clause: ast.Node) -> Cause:
    """The cause naming a rule block of a program's rulebook, pointing at one of its clauses
    (made once per clause, kept by the program: `interpreter.program.program.Program.causes`)."""
    known = program.causes.get(id(clause))
    if known is None:
        # an `as` or `after` clause is named by its head, for the trace to say how it acted
        role = clause_lines(clause)[0].split(":")[0] if isinstance(clause, (ast.AsClause, ast.After)) else ""
        amended = program.book.amended_by(rule, clause)  # a clause a variant's `amend` wrote: say so
        known = program.causes[id(clause)] = (clause, Cause("rule", rule.id, rule.slug, clause.span,
                                                                    role, amended.describe(clause) if amended else ""))
    return known[1]


def show_value(value: Any) -> str:
    """A stored value as traces, diffs and generated scenarios write it: none, true, {p1p1: 2}."""
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value) + "}"
    return str(value).lower() if isinstance(value, bool) else str(value)


class Event(NamedTuple):
    """One thing that happened, and its cause. A record: play makes many of them, so it is a
    named tuple (immutable, cheap to make)."""

    kind: str  # change, enters, leaves, attached, unattached, effect, effect-ends, draw, life, settle,
    # cast, resolve, trigger, target, fails, step
    subject: str
    text: str | None  # None for a change: `detail` is written from `data` when someone reads it
    cause: Cause
    step: int = 0
    data: tuple[Any, ...] = ()  # names and values in turn, names in order: ("attr", a, "new", v, "old", o)

    def values(self) -> dict[str, Any]:
        """`data` as a dictionary."""
        data = self.data
        return dict(zip(data[::2], data[1::2]))

    @property
    def detail(self) -> str:
        if self.text is None:
            values = self.values()
            return f"{values['attr']}: {show_value(values['old'])} -> {show_value(values['new'])}"
        return self.text

    def render(self) -> str:
        return f"[{self.cause}] {self.subject}: {self.detail}"

    def to_json(self) -> dict:
        """The event as plain data: a change keeps its structured fields (`object`,
        `attribute`, `old`, `new`, as stored values), and an event made in a batch its number
        (`batch`) and that of the batch it was made during (`follows`); one an `as` clause made,
        also `joins`: the event it is part of (its own batch). These are the game's numbers:
        `trace_json` numbers a trace's events as the trace shows them."""
        data = {
            "kind": self.kind,
            "subject": self.subject,
            "detail": self.detail,
            "cause": {"kind": self.cause.kind, "id": self.cause.id, "label": self.cause.label,
                      "clause": self.cause.role, **({"origin": self.cause.origin} if self.cause.origin else {})},
            "step": self.step,
        }
        values = self.values()
        if self.kind == "change":
            data.update({"object": self.subject, "attribute": values["attr"],
                         "old": json_value(values["old"]), "new": json_value(values["new"])})
        for name in ("batch", "follows", "turn"):
            if name in values:
                data[name] = values[name]
        if "batch" in values and joins(self.cause):
            data["joins"] = values["batch"]  # (an `as` clause's change is part of the event that woke it)
        return data


def event_numbers(events: Iterable[Event]) -> dict[int, int]:
    """Each batch's number in the game -> the number of its event as the trace shows it
    (`event 1`, `event 2`, ...: in the order the batches first appear in `events`)."""
    numbers: dict[int, int] = {}
    for e in events:
        if e.data:
            batch = e.values().get("batch")
            if batch is not None and batch not in numbers:
                numbers[batch] = len(numbers) + 1
    return numbers


def trace_json(events: Sequence[Event]) -> list[dict]:
    """The events as plain data (`Event.to_json`), numbered as the trace and `phasing why` show
    them: `batch` and `joins` are the number of the event shown (`event N`), and `follows` that
    of the event it came after (left out when no event of that batch is shown before it); the
    game's own batch numbers count batches that changed nothing and are not shown."""
    numbers = event_numbers(events)
    found = []
    for e in events:
        data = e.to_json()
        if "batch" in data:
            data["batch"] = numbers[data["batch"]]
            if "joins" in data:
                data["joins"] = data["batch"]
        if "follows" in data:  # (as the trace says it: of an event shown before this one)
            if numbers.get(data["follows"], len(numbers) + 1) < data["batch"]:
                data["follows"] = numbers[data["follows"]]
            else:
                del data["follows"]
        found.append(data)
    return found


def json_value(value: Any) -> Any:
    """A stored value as JSON: a map (kept as pairs) becomes an object."""
    if isinstance(value, tuple):
        return {str(k): v for k, v in value}
    return value


# `_event((kind, subject, text, cause, step, data))`: an Event made without the named tuple's
# Python-level __new__.
_event = partial(tuple.__new__, Event)


def change_event(record: Any, step: int, batch: int = 0, follows: int = 0) -> Event:
    """The event of a change kept as a record with `obj`, `cause`, `attr`, `value` and `old`
    (the engine's writes are such records), made in `step` by batch number `batch` (0: none
    given), itself made while batch `follows` was committed (0: none)."""
    if not batch:
        data = ("attr", record.attr, "new", record.value, "old", record.old)
    elif follows:
        data = ("attr", record.attr, "batch", batch, "follows", follows, "new", record.value, "old", record.old)
    else:
        data = ("attr", record.attr, "batch", batch, "new", record.value, "old", record.old)
    return _event(("change", record.obj, None, record.cause, step, data))


class Trace(Sequence[Event]):
    """The events of a game, in order, read as a sequence of `Event`s.

    A change is the one event play makes by the thousand: `changes` keeps the records it is
    given (a batch's block of the game's journal, `store.Block`, whose entries are the
    engine's writes; or any sequence of such records), and they become Events only when the
    trace is read, or before the journal drops or undoes them (`materialize`). Like a list's,
    an iteration goes on to what is added while it runs.
    """

    __slots__ = ("_items", "_pending", "_count")

    def __init__(self, events: Iterable[Event] = ()):
        self._items: list = list(events)  # the events made so far
        # what was added since, in order: events, and runs of change records with the step,
        # batch and batch they follow
        self._pending: list = []
        self._count = len(self._items)

    def append(self, event: Event) -> None:
        (self._pending if self._pending else self._items).append(event)
        self._count += 1

    def changes(self, step: int, records: Sequence, batch: int = 0, follows: int = 0) -> None:
        """Add the change events made in `step` by batch number `batch` (made while batch
        `follows` was committed; 0: none), as records with `obj`, `cause`, `attr`, `value`
        and `old`: a block of the game's journal (read when the trace is), or a list."""
        if records:
            self._pending.append((records, step, batch, follows))
            self._count += len(records)
            store = getattr(records, "store", None)
            if store is not None:
                store.read_by(self)

    def materialize(self) -> None:
        """Make the events of every change record added so far (the journal holding them is
        about to be trimmed or undone)."""
        self._events()

    def cut(self, length: int) -> None:
        """Forget the events after the first `length` (an action that failed and was undone
        leaves none of its own: `interpreter.play.actions`)."""
        self._events()
        del self._items[length:]
        self._count = len(self._items)

    def _events(self) -> list[Event]:
        if self._pending:
            items, pending = self._items, self._pending
            self._pending = []
            for item in pending:
                if item.__class__ is Event:
                    items.append(item)
                else:
                    records, step, batch, follows = item
                    items += [change_event(r, step, batch, follows) for r in records]
        return self._items

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        return self._events()[index]

    def __iter__(self) -> Iterator[Event]:
        k = 0
        while k < self._count:
            yield (self._items if not self._pending else self._events())[k]
            k += 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trace) and self._events() == other._events()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Trace({self._events()!r})"


# ================================================================ the trace as a judge reads it


def joins(cause: Cause) -> bool:
    """Whether `cause` is an `as` clause: what it does joins the event that woke it."""
    return cause.role.startswith("as ")


def clause_name(cause: Cause, credit: bool = False) -> str:
    """An `as` or `after` clause with its block: `as x.A becomes V (702.26a slug)`; with
    `credit`, for a clause an `amend` wrote, the amend too: `(702.26g slug, amended by ...)`."""
    block = f"{cause.id} {cause.label}".strip()
    return f"{cause.role} ({block}{', ' + cause.origin if credit and cause.origin else ''})"


def start_turn(events: Sequence[Event], final_turn: int | None = None, final_active: str | None = None) -> str | None:
    """The turn the events begin in (`turn N, player`): read off the first step of the turn
    they show, else `final_turn` and `final_active`, the turn and active player the game
    ended with (nothing in the events moves the turn on). Without a player to name (a turn
    that begins before any other step shows, or no `final_active`), `turn N` alone."""
    for e in events:
        if e.kind == "step" and e.data:
            turn = e.values().get("turn")
            if turn is not None:
                return f"turn {turn - 1}" if e.detail == f"turn {turn} begins" else f"turn {turn}, {e.subject}"
    if final_turn is None:
        return None
    return f"turn {final_turn}" + (f", {final_active}" if final_active else "")


def grouped_lines(events: Sequence[Event], final_turn: int | None = None, indent: str = "  ",
                  final_active: str | None = None) -> list[str]:
    """The trace as a judge follows it: the steps of the turn as headers (`turn N, player:
    step`), and a header for each step of the scenario's script that does something outside
    them (`turn N, player: script step S`); each event (batch) as one group under its cause
    (`event K, caused by C:`), with the changes it made, then the `as` clauses it woke, each
    nested under the clause, which says it joined event K (the same event, at the same time),
    then what a `prefer` settled among them, then what the game saw happen (leaving, entering,
    attaching, effects). A batch made by an `after` clause (or otherwise while another was
    committed) is a group of its own that says which event it follows (a new event, once that
    one is done). Events outside any batch (casting, resolving) are lines of their own.
    Every event is written as `Event.render` writes it. `final_turn` and `final_active`: the
    turn the game ended in and its active player, for the headers when no step of the turn
    says them (a scenario that never changes step: `turn 1, Alice:`, `turn 1, Alice: script
    step 3`, as in one that does)."""
    lines: list[str] = []
    numbers: dict[int, int] = {}  # batch number -> the event number shown (1, 2, ... in order)
    label = start_turn(events, final_turn, final_active) or "start"  # the turn, and its player when known
    lines.append(f"{label}:")
    script_step = events[0].step if events else 0
    k = 0
    while k < len(events):
        e = events[k]
        values = e.values() if e.data else {}
        batch = values.get("batch")
        if e.kind == "step":
            turn = values.get("turn")
            script_step = e.step
            if turn is None:
                lines.append(f"{e.subject}: {e.detail}")
            elif e.detail == f"turn {turn} begins":
                label = f"turn {turn}, {e.subject}"
                lines.append(f"{label} begins:")
            else:
                label = f"turn {turn}, {e.subject}"
                lines.append(f"{label}: {e.detail}")
            k += 1
            continue
        if e.step != script_step:
            script_step = e.step
            lines.append(f"{label}: script step {script_step}")
        if batch is None:
            lines.append(indent + e.render())
            k += 1
            continue
        group = []
        while k < len(events) and events[k].data and events[k].values().get("batch") == batch:
            group.append(events[k])
            k += 1
        lines.extend(group_lines(group, batch, values.get("follows"), numbers, indent))
    return lines


def group_lines(group: list[Event], batch: int, follows: int | None, numbers: dict[int, int],
                indent: str) -> list[str]:
    """One batch's events as `grouped_lines` writes them."""
    shown = numbers.setdefault(batch, len(numbers) + 1)
    head = next((e.cause for e in group if not joins(e.cause)), group[0].cause)
    where = f"event {shown}"
    if follows in numbers and head.role.startswith("after "):
        title = f"{where}: {clause_name(head)} follows event {numbers[follows]} (a new event, once it is done):"
    elif follows in numbers:
        title = f"{where}, caused by {head} during event {numbers[follows]}:"
    else:
        title = f"{where}, caused by {head}:"
    own, joined, settled, seen = [], {}, [], []
    for e in group:
        if e.kind == "settle":
            settled.append(e)
        elif joins(e.cause):
            joined.setdefault((e.cause.id, e.cause.role), []).append(e)
        elif e.kind == "change":
            own.append(e)
        else:
            seen.append(e)
    inner = indent * 2
    lines = [indent + title] + [inner + e.render() for e in own]
    for events in joined.values():
        lines.append(inner + f"{clause_name(events[0].cause)} joined event {shown} (the same event, at the same time):")
        lines.extend(inner + indent + e.render() for e in events)
    lines.extend(inner + "settled: " + e.render() for e in settled)
    lines.extend(inner + e.render() for e in seen)
    return lines
