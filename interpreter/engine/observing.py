"""What a player sees of a permanent, where the rulebook keeps it otherwise (`observe`).

Within `as_a_player_sees(view)` (a scenario's expectations), an attribute the rulebook observes
is read through its observation: the value of the first case whose condition holds of the
permanent, else the `otherwise` value. The cases themselves read the state as the rules keep
it, as rule blocks always do.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from ...dsl import ast
from ..game.refs import Obj


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
