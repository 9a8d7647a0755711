"""The types of the rules language's expressions, as the checker works them out.

Every expression has a type: a truth value (bool), a number, the value of an enum status
(with its values), an object, a player, a reference that may be either (what an Aura is
attached to), a zone, a text (a card's name), none, a table of counters, or a set of names
(card types, keywords). A bare name that is no variable is a *symbol*: a status value, a
zone or `game`; what it may stand for depends on what it is compared with or written to.
`any` is what the checker cannot tell (a verb's parameter), and matches everything.
"""

from __future__ import annotations

import attrs

from .builtins import OBJECT_ATTR_KINDS, PLAYER_ATTR_KINDS


@attrs.frozen
class Type:
    """`kind` is one of bool, number, enum, object, player, ref, zone, text, none, counters,
    names, symbol, any. An enum carries its status and values; a symbol its name."""

    kind: str
    values: tuple[str, ...] = ()
    status: str | None = None

    def describe(self) -> str:
        """How an error names the type: "enum status 'phase' (in | out)", "a number", ..."""
        if self.kind == "enum":
            return f"enum status '{self.status}' ({' | '.join(self.values)})"
        if self.kind == "symbol":
            return f"the name '{self.values[0]}'"
        return DESCRIPTIONS[self.kind]


DESCRIPTIONS = {
    "bool": "a bool (true or false)", "number": "a number", "object": "an object", "player": "a player",
    "ref": "an object or a player", "zone": "a zone", "text": "a text", "none": "none",
    "counters": "a table of counters (read one kind: X.counters.KIND)", "names": "a set of names",
    "any": "anything",
}

BOOL, NUMBER, OBJECT, PLAYER, REF = Type("bool"), Type("number"), Type("object"), Type("player"), Type("ref")
ZONE, TEXT, NONE, COUNTERS, NAMES, ANY = Type("zone"), Type("text"), Type("none"), Type("counters"), Type("names"), Type("any")
_BY_KIND = {t.kind: t for t in (BOOL, NUMBER, OBJECT, PLAYER, REF, ZONE, TEXT, NONE, COUNTERS, NAMES, ANY)}

# The kinds that may be none (an attribute nobody set: no controller of a status, no power).
NULLABLE = frozenset({"object", "player", "ref", "number", "text", "none", "any"})
REFERENCES = frozenset({"object", "player", "ref"})


def symbol(name: str) -> Type:
    return Type("symbol", (name,))


def of_kind(kind: str) -> Type:
    return _BY_KIND[kind]


def status_type(decl) -> Type:
    """The type of a declared status (a `dsl.ast.StatusDecl`)."""
    if decl.type == "enum":
        return Type("enum", tuple(decl.values), decl.name)
    return _BY_KIND[decl.type] if decl.type in ("bool", "player", "object") else ANY


def object_attr(name: str) -> Type | None:
    kind = OBJECT_ATTR_KINDS.get(name)
    return None if kind is None else _BY_KIND[kind]


def player_attr(name: str) -> Type | None:
    if name == "zone":
        return ZONE
    kind = PLAYER_ATTR_KINDS.get(name)
    return None if kind is None else _BY_KIND[kind]


def symbol_fits(name: str, t: Type, zones: set[str]) -> bool:
    """May the bare name `name` stand for a value of type `t`?"""
    if t.kind == "enum":
        return name in t.values
    if t.kind == "zone":
        return name in zones or name == "game"
    return t.kind in ("any", "symbol")


def comparable(a: Type, b: Type, zones: set[str]) -> bool:
    """Can `A is B` ever be true for values of these types?"""
    if "any" in (a.kind, b.kind):
        return True
    if a.kind == "symbol" and b.kind == "symbol":
        return True
    if a.kind == "symbol":
        return symbol_fits(a.values[0], b, zones)
    if b.kind == "symbol":
        return symbol_fits(b.values[0], a, zones)
    if a.kind == "none" or b.kind == "none":
        return (b if a.kind == "none" else a).kind in NULLABLE
    if a.kind in REFERENCES and b.kind in REFERENCES:
        return "ref" in (a.kind, b.kind) or a.kind == b.kind
    if a.kind == "enum" and b.kind == "enum":
        return bool(set(a.values) & set(b.values))
    return a.kind == b.kind


def assignable(target: Type, value: Type, zones: set[str]) -> bool:
    """May a value of type `value` be written where `target` is stored?"""
    if value.kind == "any" or target.kind == "any":
        return True
    if value.kind == "symbol":
        return symbol_fits(value.values[0], target, zones)
    if value.kind == "none":
        return target.kind in NULLABLE
    if target.kind == "ref":
        return value.kind in REFERENCES
    if target.kind == "player":  # a reference that may be a player (what an Aura enchants)
        return value.kind in ("player", "ref")
    if target.kind == "object":
        return value.kind in ("object", "ref")
    if target.kind == "enum" and value.kind == "enum":
        return set(value.values) <= set(target.values)
    return target.kind == value.kind


def numeric(t: Type) -> bool:
    """May a value of this type be added or compared with `<`? (none counts as 0.)"""
    return t.kind in ("number", "none", "any")


def condition(t: Type) -> bool:
    """May a value of this type stand alone as a condition? Not a value that is never false
    (an enum status's value, a zone, a name, a table, a set of names): that condition would
    always hold; nor a number, which is no truth value (`if x.damage:` is `x.damage > 0`
    or `x.damage is 0`: the reader cannot tell which, so it is written). A reference
    may stand alone: it holds unless it is none."""
    return t.kind in ("bool", "object", "player", "ref", "none", "any")


# The largest number a rule, a card or a scenario may write: 2**31 - 1, the largest count of
# life, damage, counters or power Magic's own digital games (Arena, Magic Online) hold, far
# beyond what any game reaches (CR 107.1 sets no bound: the game uses whole numbers).
MAX_GAME_NUMBER = 2**31 - 1
MAX_GAME_NUMBER_HINT = (f"no game's life, damage, counters, power or turns come near {MAX_GAME_NUMBER:,} "
                        "(2**31 - 1, what Magic's digital games hold): write the number meant")
