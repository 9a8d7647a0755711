"""Read-only views of a game, for what the API hands out (`Actions.game`).

A view reads the live game (it changes as play goes on; an object taken from `objects` is
the one under its name now, across zone changes) but cannot change it: setting or
deleting an attribute, or an item of one of its mappings, raises `ReadOnlyError`. Lists come
out as tuples, mappings as read-only mappings, and objects as `ReadOnlyObject`s. The game
changes only through the engine's actions (its store, `interpreter.game.store`).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Iterator

import attrs

from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from .calls import bad_argument, checked
from .model import Game, Permanent


class ReadOnlyError(DiagnosticError, TypeError):
    """A write through a read-only view of a game (`interpreter.game.readonly`): a `DiagnosticError`
    (the API's one error type), and a `TypeError` as a read-only mapping's writes are."""


def _refuse(what: str) -> ReadOnlyError:
    return ReadOnlyError(Diagnostic("error", f"{what} is read-only: the game changes only through its actions",
                                    Span("Actions.game", 0, 0, 0, 0),
                                    "call the actions (cast, resolve, move, next_turn, ...), or change a "
                                    "game of your own: game.copy()"))


class ReadOnlyObject:
    """An object of a game, read-only. Taken from `game.objects[name]`, it follows the name: it
    reads the object the game holds under that name now, so after a zone change it reads the
    new object (400.7: a new object, whose `previous` is the one before) rather than keep
    showing the old one. An earlier incarnation (`previous`) is read as it was left.

    `statuses` is every status the rules declare (`defaults`: name -> default, as the
    engine's rulebook gives them) with its value, or its default when it was never written, as
    `Actions.state()` gives them; `get_status(name, default)` reads one of them, and gives
    `default` only for a name that is no declared status."""

    __slots__ = ("_game", "_id", "_fixed", "_defaults")

    def __init__(self, o: Permanent, game: Game | None = None, defaults: Mapping[str, Any] | None = None):
        object.__setattr__(self, "_game", game)  # (None: this incarnation, not the name)
        object.__setattr__(self, "_id", o.id)
        object.__setattr__(self, "_fixed", o)
        object.__setattr__(self, "_defaults", defaults or {})

    def _live(self) -> Permanent:
        game = object.__getattribute__(self, "_game")
        if game is None:
            return object.__getattribute__(self, "_fixed")
        o = game.objects.get(object.__getattribute__(self, "_id"))
        if o is None:  # (only an undo to before it was made takes a name out of the game)
            raise DiagnosticError(Diagnostic(
                "error", f"the game has no object {self._id!r} now: it was undone", Span("Actions.game", 0, 0, 0, 0),
                "read play.game.objects again"))
        return o

    def _statuses(self) -> dict[str, Any]:
        return {**object.__getattribute__(self, "_defaults"), **self._live().statuses}

    @checked
    def get_status(self, name: str, default: Any = None) -> Any:
        """A status's value (its declared default when never written); `default` for a name
        that is no status of the rules. A name that cannot be one (a list: unhashable) is a
        `DiagnosticError` at `get_status(name)` (issue 43), said only once the lookup fails."""
        statuses = self._statuses()
        try:
            return statuses.get(name, default)
        except TypeError:  # (unhashable: no key of a mapping)
            raise bad_argument("get_status", "name", name, "a status's name, a string",
                               "give a status's name as the rules declare it; Actions.state() lists each "
                               "object's statuses") from None

    def __getattr__(self, name: str) -> Any:
        if name == "statuses":
            return ReadOnlyMapping(self._statuses(), _same, "statuses")
        value = getattr(self._live(), name)
        if name == "previous" and value is not None:
            return ReadOnlyObject(value, None, object.__getattribute__(self, "_defaults"))
        if inspect.ismethod(value):  # (get_status, copy, ...: a call they do not take is a DiagnosticError)
            return checked(value, name=name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise _refuse(f"permanent {self._id!r}")

    def __delattr__(self, name: str) -> None:
        raise _refuse(f"permanent {self._id!r}")

    def __eq__(self, other: object) -> bool:
        other = other._live() if isinstance(other, ReadOnlyObject) else other
        return self._live() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ReadOnly({self._live()!r})"


class ReadOnlyMapping(Mapping):
    """A mapping of a game read-only, each value shown through `wrap`."""

    __slots__ = ("_items", "_wrap", "_what")

    def __init__(self, items: Mapping, wrap: Callable[[Any], Any], what: str):
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_wrap", wrap)
        object.__setattr__(self, "_what", what)

    def __getitem__(self, key: Any) -> Any:
        return self._wrap(self._items[key])

    def __iter__(self) -> Iterator:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise _refuse(f"the game's {self._what}")

    def __delitem__(self, key: Any) -> None:
        raise _refuse(f"the game's {self._what}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise _refuse(f"the game's {self._what}")

    def __repr__(self) -> str:
        return f"ReadOnlyMapping({dict(self)!r})"

    # (the mapping methods a caller uses, their arguments checked as the API's are)
    get = checked(Mapping.get, name="get")
    keys = checked(Mapping.keys, name="keys")
    items = checked(Mapping.items, name="items")
    values = checked(Mapping.values, name="values")


def _same(value: Any) -> Any:
    return value  # (statuses' values, players, effects and last known information are immutable)


class ReadOnlyGame:
    """A game, read-only: its fields as they are now; `objects` read-only objects; `copy()` an
    independent game of one's own, which may be changed."""

    __slots__ = ("_game", "_defaults")

    def __init__(self, game: Game, defaults: Mapping[str, Any] | None = None):
        """`defaults`: each declared status's default (what an object's `statuses` shows for
        one never written); `Actions.game` gives its rulebook's."""
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "_defaults", dict(defaults or {}))

    def __getattr__(self, name: str) -> Any:
        game = object.__getattribute__(self, "_game")
        if name == "objects":
            defaults = object.__getattribute__(self, "_defaults")
            return ReadOnlyMapping(game.objects, lambda o: ReadOnlyObject(o, game, defaults), "objects")
        if name in ("players", "effects", "lki"):
            return ReadOnlyMapping(getattr(game, name), _same, name)
        if name in ("watchers", "delayed", "stack", "choices"):
            return tuple(getattr(game, name))
        if name == "pending":  # (copies: a pending ability's bindings are a dict)
            return tuple(attrs.evolve(t, env=dict(t.env)) for t in game.pending)
        if name == "store":
            raise _refuse("the game's store")
        value = getattr(game, name)  # order, active, turn, clock, cleanup_done; copy(), fingerprint(), ...
        return checked(value, name=name) if inspect.ismethod(value) else value

    def __setattr__(self, name: str, value: Any) -> None:
        raise _refuse("the game")

    def __delattr__(self, name: str) -> None:
        raise _refuse("the game")

    def __repr__(self) -> str:
        return f"ReadOnlyGame(turn {self._game.turn}, {len(self._game.objects)} objects)"


class ReadOnlyTrace(Sequence):
    """A game's trace (`interpreter.game.trace.Trace`), read-only: its events as they are now and as
    more are added, each an immutable `Event`; no way to add, remove or replace one."""

    __slots__ = ("_trace",)

    def __init__(self, trace: Sequence):
        object.__setattr__(self, "_trace", trace)

    def __getitem__(self, index):
        return self._trace[index]

    def __len__(self) -> int:
        return len(self._trace)

    def __iter__(self) -> Iterator:
        return iter(self._trace)

    def __eq__(self, other: object) -> bool:
        other = other._trace if isinstance(other, ReadOnlyTrace) else other
        return self._trace == other

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: Any) -> None:
        raise _refuse("the trace")

    # (the sequence methods a caller uses, their arguments checked as the API's are)
    index = checked(Sequence.index, name="index")
    count = checked(Sequence.count, name="count")

    def __repr__(self) -> str:
        return f"ReadOnlyTrace({len(self)} events)"
