"""Static abilities that give fixed things to the one object their source names, worked out
without evaluating them.

An Aura or an Equipment's `static: each x where this.attached_to is x: x gets +1/+1` is the
commonest static ability on a large board: the only object it can reach is the one its
source's `attached_to` names (an *anchored* ability, see `interpreter.engine.statics`), and what it
gives that object does not depend on anything. Evaluating it the general way (a selection
planned through the indexes, an environment, an expression per `gets`) costs tens of times
more than reading the one attribute, and a first look at a board of 100,000 permanents works
out some 30,000 of them.

`direct_gifts(card, ...)` recognises, among a card's static abilities, the ones of exactly
this shape: the condition is the single conjunct `this.A is x` (either way round), A a
stored attribute naming an object (`attached_to`, `owner`, or a status declared of type
object or player), and the body only `x gets +P/+T` and `x has K` (in a block or not).
When every static ability of the card is one, `give(...)` gives what `GameView.collect_static`
would, in the same order, with the same selection budget counted: the object named, if it is
an object of the game in a zone the selection looks in, gets each contribution.
`tests/test_direct_statics.py` checks on generated boards that the two agree.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import attrs

from ...dsl import ast

Contribution = tuple[str, Any]  # ("pump", (p, t)) or ("grant", keyword), as `interpreter.engine.statics` keeps them

# Stored attributes a static ability's anchor can read straight off its source (besides
# statuses that name objects or players): the controller is not one, since effects change it.
STORED_REFERENCES = frozenset({"attached_to", "owner"})


@attrs.frozen
class DirectGift:
    """One static ability `each x where this.A is x: x gets ...` worked out in advance:
    `attr` is A, `default` its default when it is a status (`status`), `gives` what the
    object named gets, in order, and `each` the selection (for its zone and its span)."""

    attr: str
    status: bool
    default: Any
    gives: tuple[Contribution, ...]
    each: ast.Each


def _contributions(stmt: ast.Node, var: str) -> list[Contribution] | None:
    """What a static ability's body gives the selected object, when it is only `var gets
    +P/+T` and `var has K` (None: anything else)."""
    if isinstance(stmt, ast.Block):
        out: list[Contribution] = []
        for s in stmt.stmts:
            found = _contributions(s, var)
            if found is None:
                return None
            out += found
        return out
    if isinstance(stmt, ast.Pump) and isinstance(stmt.obj, ast.Name) and stmt.obj.id == var:
        return [("pump", (stmt.power, stmt.toughness))]
    if isinstance(stmt, ast.Grant) and isinstance(stmt.obj, ast.Name) and stmt.obj.id == var:
        return [("grant", stmt.keyword)]
    return None


def direct_gift(entry: ast.Static, defaults: dict[str, Any], reference_statuses: set[str]) -> DirectGift | None:
    """The static ability `entry` as a `DirectGift`, or None when it is not of that shape
    (`defaults`: status -> default; `reference_statuses`: the statuses naming objects or players)."""
    each = entry.body
    if not isinstance(each, ast.Each) or each.var == "this" or len(ast.conjuncts(each.cond)) != 1:
        return None
    cond = each.cond
    if not isinstance(cond, ast.Is) or cond.negated:
        return None
    attr = None
    for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
        if (isinstance(side, ast.Attr) and isinstance(side.obj, ast.Name) and side.obj.id == "this"
                and isinstance(other, ast.Name) and other.id == each.var):
            attr = side.name
    if attr is None:
        return None
    status = attr in defaults
    if not (attr in reference_statuses if status else attr in STORED_REFERENCES):
        return None
    gives = _contributions(each.body, each.var)
    if gives is None:
        return None
    return DirectGift(attr, status, defaults.get(attr), tuple(gives), each)


def direct_gifts(card: ast.Card, defaults: dict[str, Any],
                 reference_statuses: set[str]) -> tuple[DirectGift, ...] | None:
    """The card's static abilities, each a `DirectGift`; None unless every one of them is."""
    gifts = []
    for entry in card.entries:
        if isinstance(entry, ast.Static):
            gift = direct_gift(entry, defaults, reference_statuses)
            if gift is None:
                return None
            gifts.append(gift)
    return tuple(gifts)


def gifts_of(direct: dict[str, tuple[DirectGift, ...] | None], view: Any, sources: Iterable[str],
             compute: Callable[[str], list]) -> list[tuple[str, list[tuple[str, Contribution]], str | None, list]]:
    """What each of `sources` gives, seen or not: (source, [(target, contribution), ...] as
    `Statics.compute` lists it, grouped by target in the order first reached, the one object
    it gives everything to or None (nothing, or several), and what it gives that one in order
    (a new list; else the empty tuple)). A battlefield source whose card's static abilities are
    all `DirectGift`s (`direct`: card -> its gifts, or None) is read off the source: with one
    (the commonest: an Aura or an Equipment) here, as `give` reads it, with several by `give`;
    any other is worked out by `compute`."""
    objects, players = view.game.objects, view.game.players
    out: list[tuple[str, list[tuple[str, Contribution]], str | None, list]] = []
    append = out.append
    for src in sources:
        o = objects.get(src)
        gifts = direct.get(o.card) if o is not None and o.zone == "battlefield" else None
        if gifts is None or len(gifts) != 1:
            now = compute(src) if gifts is None else give(gifts, view, o)
            first = now[0][0] if now else None
            if first is not None and all(target == first for target, _c in now):
                append((src, now, first, [c for _target, c in now]))
            else:
                append((src, now, None, ()))
            continue
        gift = gifts[0]
        target = reach(gift, view, o, objects, players)
        if target is None or not gift.gives:  # (it reaches nothing, or gives it nothing)
            append((src, [], None, ()))
        else:
            gives = gift.gives  # (one thing, the commonest, as a display: a comprehension is a call)
            append((src, [(target, gives[0])] if len(gives) == 1 else [(target, c) for c in gives], target, list(gives)))
    return out


def reach(gift: DirectGift, view: Any, o: Any, objects: dict, players: dict) -> str | None:
    """The object `gift` of battlefield object `o` gives its things to, or None: its anchor
    names no object of the game, or one in a zone its selection does not look in. An anchor
    naming an object counts one candidate against the step's selection budget, as
    `Selector.select` does."""
    raw = named_object(gift, o, objects, players)
    if raw is None:
        return None
    view.iterations_left -= 1
    if view.iterations_left < 0:
        raise view.over_budget("iterations", gift.each.span, None)
    return raw if looks_in(gift, objects[raw]) else None


def named_object(gift: DirectGift, o: Any, objects: dict, players: dict) -> str | None:
    """The id of the object of the game the anchor of `gift` names on its source `o` (a stored
    attribute or a status), or None: it names nothing, or a player (a name is read as the
    player's)."""
    # (`anchor`, written out: a first look at a large board asks this of every source)
    raw = o.get_status(gift.attr, gift.default) if gift.status else getattr(o, gift.attr)
    if not isinstance(raw, str) or raw in players or raw not in objects:
        return None
    return raw


def anchor(gift: DirectGift, o: Any) -> Any:
    """What the anchor of `gift` reads on its source `o` (a stored attribute or a status)."""
    return o.get_status(gift.attr, gift.default) if gift.status else getattr(o, gift.attr)


def looks_in(gift: DirectGift, target: Any) -> bool:
    """Whether the selection of `gift` looks in the zone `target` is in: the battlefield, or
    any zone but nowhere for `each object x`."""
    zone = target.zone
    return zone != "nowhere" and (zone == "battlefield" or gift.each.every_zone)


def give(gifts: tuple[DirectGift, ...], view: Any, o: Any) -> list[tuple[str, Contribution]]:
    """What the static abilities `gifts` of battlefield object `o` give, seen or not, as
    `Statics.compute` lists it: (target, contribution), grouped by target in the order first
    reached (`reach`: each counts against the step's selection budget)."""
    objects, players = view.game.objects, view.game.players
    reached: dict[str, list[Contribution]] = {}
    for gift in gifts:
        target = reach(gift, view, o, objects, players)
        if target is not None:
            reached.setdefault(target, []).extend(gift.gives)
    return [(target, c) for target, cs in reached.items() for c in cs]
