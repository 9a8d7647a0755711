"""What a player sees of a permanent, where the rulebook keeps it otherwise (`observe`).

Within `as_a_player_sees(view)` (a scenario's expectations), an attribute the rulebook observes
is read through its observation: the value of the first case whose condition holds of the
permanent, else the `otherwise` value. The cases themselves read the state as the rules keep
it, as rule blocks always do. A name the rulebook keeps no other way (2005's `phase`) is read
so everywhere (`GameView.getter`), and a triggered ability can watch it change: a batch that
writes what its observation reads is read before and after (`seen_before`, `seen_changes`),
and each difference is a change the triggers see.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from ...dsl import ast
from ..game.refs import Obj
from ..game.writes import Write


@contextlib.contextmanager
def as_a_player_sees(view: Any):
    """Within it, `view` reads what its rulebook observes as the observation says: the view's
    readers, by name, are those of the observations for the names observed (any other name is
    read as ever), and are put back after."""
    observations = view.rulebook.observations
    if not observations:
        yield
        return
    plain = view._readers
    view._readers = {**plain, **{name: observed_reader(view, name, plain) for name in observations}}
    try:
        yield
    finally:
        view._readers = plain


def observed(view: Any, obj: Obj, name: str, plain: dict | None = None) -> Any:
    """What a player sees as `name` of `obj` under `view`'s rulebook: its cases read with the
    view's `plain` readers (default: those it has), the state as the rules keep it."""
    decl = view.rulebook.observations[name]
    env = {decl.var: obj}
    outer = view._readers
    view._readers = outer if plain is None else plain
    try:
        for case in decl.cases:
            if view.truthy(view.eval(case.cond, env)):
                return view.eval(case.value, env)
        return view.eval(decl.default, env)
    finally:
        view._readers = outer


def observed_reader(view: Any, name: str, plain: dict) -> Callable[[Any, ast.Node], Any]:
    """The reader of an observed attribute: an object read through its observation; anything
    else (a player, a missing value) as usual."""
    def read(value: Any, where: ast.Node) -> Any:
        if type(value) is Obj:
            return observed(view, value, name, plain)
        return view.read(value, name, where)
    return read


def seen_before(view: Any, changes: list[Write], attrs_written: set[str]) -> dict[tuple[str, str], tuple[Any, Any]] | None:
    """Before a batch with `changes` is applied: for each object it changes whose card has a
    triggered ability, what a player sees of each name a triggered ability watches and kept
    only by observation (`Program.observed_watched`) whose observation reads an attribute the
    batch writes, with the cause of the object's first change. None where there is none."""
    watched = view.program.observed_watched
    names = [name for name, inputs in watched.items() if not inputs.isdisjoint(attrs_written)] if watched else None
    if not names:
        return None
    triggered, objects = view.program.triggered_cards, view.game.objects
    causes: dict[str, Any] = {}
    for w in changes:
        o = objects.get(w.obj)
        if o is not None and o.card in triggered:
            causes.setdefault(w.obj, w.cause)
    return {(oid, name): (observed(view, Obj(oid), name), cause) for oid, cause in causes.items() for name in names}


def seen_changes(view: Any, before: dict[tuple[str, str], tuple[Any, Any]] | None) -> list[Write]:
    """After the batch: each difference from `seen_before`, as a change of what a player sees
    (a `Write` the triggers read, not applied: the state changed as the rules keep it)."""
    if not before:
        return []
    found = []
    for (oid, name), (old, cause) in before.items():
        new = observed(view, Obj(oid), name) if oid in view.game.objects else None
        if new != old:
            found.append(Write(oid, name, new, cause, old=old))
    return found
