"""What expressions evaluate to when they name an object or a player.

They are named tuples rather than attrs classes because the interpreter makes one for every
object a query looks at; equality and hashing are those of the tuple.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple


class Obj(NamedTuple):
    """A reference to an object. `sees_hidden` marks a reference obtained by naming a hiding status."""

    id: str
    sees_hidden: bool = False


class PlayerRef(NamedTuple):
    name: str


class Known(NamedTuple):
    """An object that has left the zone an effect expected it in, read as it last was there
    (608.2h, 113.7a): an ability's source gone from the battlefield. Reading it gives its last
    known information; an action cannot reach it (400.7: what is there now is a new object)."""

    id: str


# `obj_ref((id, sees_hidden))` makes the same Obj without the named tuple's Python-level __new__:
# the interpreter makes one for every object a query or a change looks at.
obj_ref = partial(tuple.__new__, Obj)
# the same for a player's reference, made as often as a query reads a controller or an owner
player_ref = partial(tuple.__new__, PlayerRef)

MISSING = object()  # a target that became illegal


# The values a condition counts as false.
FALSY = (None, False, 0, MISSING)

def stored(value):
    """How a value is kept in a game object: a reference as the object's id or the player's name."""
    if type(value) is Obj or type(value) is PlayerRef:
        return value[0]
    return value
