"""Delayed triggered abilities that stop reaching an object (`delayed triggers lose X`).

A delayed trigger keeps the bindings its statement saw when it was made: the names of the
objects it will act on. Some rules say that, after some event, such an ability can no
longer affect an object it names even if that object is still around. Losing the object
rebinds each name that refers to it to MISSING, the value an illegal target has: an action
on it then finds nothing and does nothing, while the rest of the ability still happens.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..game.refs import MISSING, Obj
from ..game.model import Game
from ..game.store import store_of


def lose_reference(game: Game, oid: str, cause: Any = None) -> bool:
    """Make every delayed trigger of `game` lose object `oid` (for `cause`); True when one
    referred to it."""
    changed = False
    kept = []
    for d in game.delayed:
        if any(isinstance(v, Obj) and v.id == oid for _k, v in d.bindings):
            d = attrs.evolve(d, bindings=tuple((k, MISSING if isinstance(v, Obj) and v.id == oid else v)
                                               for k, v in d.bindings))
            changed = True
        kept.append(d)
    if changed:
        store_of(game).set_field("delayed", kept, cause)
    return changed
