"""Conditions whose outcome the text alone decides: always true, or never true.

A reader deletes a condition that always holds, and a condition that never holds makes its
statement dead, so the checker rejects both (`dsl.checker`). Found here, without running
anything:

- an `or` of `is` tests of one status of one object that covers every value the status can
  take (`x.s is a or x.s is b` for a status `s: a | b`): always true; an `or` of `is not` tests of two
  different values of it: always true;
- an `and` of `is` tests of two different values of one status of one object: never true; an
  `and` of `is not` tests covering every value: never true;
- `E or not E`: always true; `E and not E`: never true (`is not`, `is not a` count as the
  `not` of `is`, `is a`);
- `X is X`: always true; `X is not X`: never true.

What values a status can take comes from the caller (`values_of`): the checker knows each
expression's type.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from . import ast

# (the `X.S` an `is` test reads) -> the values S can take there, or None when they are not all known
ValuesOf = Callable[[ast.Attr], "tuple[str, ...] | None"]


class Finding(NamedTuple):
    """`outcome` is "always" or "never"; `why` says what decides it, in words; `status`: for a
    test of every value of one status, the `X.S` read (else None)."""

    outcome: str
    why: str
    status: ast.Attr | None = None


def status_test(e: ast.Node) -> tuple[ast.Attr, str, bool] | None:
    """(`X.S`, value, negated) when `e` is `X.S is V` or `X.S is not V` with V a bare name."""
    if isinstance(e, ast.Is):
        for side, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(side, ast.Attr) and isinstance(other, ast.Name):
                return side, other.id, e.negated
    return None


def complement(e: ast.Node) -> ast.Node:
    """The condition that holds exactly when `e` fails, as the parser would build it."""
    if isinstance(e, ast.Not):
        return e.item
    if isinstance(e, ast.Is):
        return ast.Is(e.left, e.right, not e.negated)
    if isinstance(e, ast.IsA):
        return ast.IsA(e.left, e.type, not e.negated)
    return ast.Not(e)


def _text(e: ast.Node) -> str:
    from .printer import expr_text

    return expr_text(e)


def covered_status(e: ast.Node, values_of: ValuesOf) -> ast.Attr | None:
    """The `X.S` when `e` is an `or` of `is` tests of status S of X that together name every
    value S can take (what `including hidden` replaces); else None."""
    if not isinstance(e, ast.Or):
        return None
    found = _by_status(e.items, values_of)
    for (_key, negated), (attr, values, every) in found.items():
        if not negated and every and set(values) >= set(every):
            return attr
    return None


def _by_status(items, values_of: ValuesOf) -> dict:
    """(the status read, negated) -> (its `X.S`, the values tested, every value it can take)."""
    found: dict = {}
    for item in items:
        test = status_test(item)
        if test is None:
            continue
        attr, value, negated = test
        every = values_of(attr)
        if every is None or value not in every:
            continue
        key = (attr, negated)  # (nodes compare without their positions)
        known = found.setdefault(key, (attr, [], every))
        if value not in known[1]:
            known[1].append(value)
    return found


def constant(e: ast.Node, values_of: ValuesOf) -> Finding | None:
    """Whether condition `e` (its own form, not its parts) is decided by its text."""
    match e:
        case ast.Is(left=left, right=right, negated=negated) if left == right:
            return Finding("never" if negated else "always", f"{_text(left)} is always itself")
        case ast.Or(items=items) | ast.And(items=items):
            either = isinstance(e, ast.Or)
            # the first item whose opposite is among the others, found through sets (nodes hash
            # and compare without their positions), so a long chain costs time in proportion
            present, complements = set(items), {complement(item) for item in items}
            for item in items:
                if complement(item) in present or item in complements:
                    return Finding("always" if either else "never",
                                   f"it joins {_text(item)} and its opposite with '{'or' if either else 'and'}'")
            for (attr, negated), (_attr, values, every) in _by_status(items, values_of).items():
                def name() -> str:
                    return f"{_text(attr)} ({' | '.join(every)})"
                if either and not negated and set(values) >= set(every):
                    return Finding("always", f"{name()} always has one of the values it is tested for", attr)
                if either and negated and len(values) > 1:
                    return Finding("always", f"{name()} cannot have two values at once, so it always lacks one of them")
                if not either and not negated and len(values) > 1:
                    return Finding("never", f"{name()} cannot have two values at once")
                if not either and negated and set(values) >= set(every):
                    return Finding("never", f"{name()} always has one of the values it is tested not to have")
    return None
