"""Interpreter events: what changed, and which rule block (or card, or script step) caused it.

Traces, explanations and the JSON output are all read off these records.
"""

from __future__ import annotations

from functools import partial
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


# `change_event((kind, subject, text, cause, step, data))`: an Event made without the named
# tuple's Python-level __new__, for the one event every change makes.
change_event = partial(tuple.__new__, Event)
