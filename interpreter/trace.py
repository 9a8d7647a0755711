"""Interpreter events: what changed, and which rule block (or card, or script step) caused it.

Traces, explanations and the JSON output are all read off these records.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import partial
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import attrs

from dsl.diagnostics import NOWHERE, Span


@attrs.frozen
class Cause:
    """Who did it: a rule block (`kind="rule"`, with its id and slug), a card, or the script."""

    kind: str
    id: str
    label: str = ""
    span: Span = attrs.field(default=NOWHERE, eq=False)

    def __str__(self) -> str:
        if self.kind == "rule":
            return f"{self.id} {self.label}".strip()
        if self.kind == "card":
            return f"card \"{self.id}\""
        return self.label or self.id


SCRIPT = Cause("script", "script", "scenario script")


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
        return {
            "kind": self.kind,
            "subject": self.subject,
            "detail": self.detail,
            "cause": {"kind": self.cause.kind, "id": self.cause.id, "label": self.cause.label},
            "step": self.step,
        }


# `_event((kind, subject, text, cause, step, data))`: an Event made without the named tuple's
# Python-level __new__.
_event = partial(tuple.__new__, Event)


def change_event(record: Any, step: int) -> Event:
    """The event of a change kept as a record with `obj`, `cause`, `attr`, `value` and `old`
    (the engine's writes are such records), made in `step`."""
    return _event(("change", record.obj, None, record.cause, step,
                   ("attr", record.attr, "new", record.value, "old", record.old)))


class Trace(Sequence[Event]):
    """The events of a game, in order, read as a sequence of `Event`s.

    A change is the one event play makes by the thousand: `changes` keeps the records it is
    given (the engine's writes), and each becomes its Event, in place, when the trace is read.
    Like a list's, an iteration goes on to what is added while it runs.
    """

    __slots__ = ("_items", "_made", "_starts", "_steps")

    def __init__(self, events: Iterable[Event] = ()):
        self._items: list = list(events)
        self._made = len(self._items)  # the items from the start that are Events already
        self._starts: list[int] = []  # where each run of change records begins in `_items`,
        self._steps: list[int] = []  # and the step it was made in

    def append(self, event: Event) -> None:
        self._items.append(event)

    def changes(self, step: int, records: list) -> None:
        """Add the change events made in `step`, as records with `obj`, `cause`, `attr`,
        `value` and `old`."""
        if records:
            self._starts.append(len(self._items))
            self._steps.append(step)
            self._items.extend(records)

    def _at(self, k: int) -> Event:
        """Item k, made an Event in place if it is a change record still."""
        item = self._items[k]
        if type(item) is not Event:
            step = self._steps[bisect_right(self._starts, k) - 1]
            item = self._items[k] = change_event(item, step)
        return item

    def _events(self) -> list[Event]:
        for k in range(self._made, len(self._items)):
            self._at(k)
        self._made = len(self._items)
        return self._items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):
        return self._events()[index]

    def __iter__(self) -> Iterator[Event]:
        k = 0
        while k < len(self._items):
            yield self._at(k)
            k += 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trace) and self._events() == other._events()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Trace({self._events()!r})"
