"""Expressions compiled once into Python closures, and query plans that use indexes.

`compile_expr` turns an expression node into `f(engine, env) -> value` with exactly the
meaning of `Engine.eval`, without walking the tree each time. `plan_query` looks at the
condition of an `each x where ...` for a conjunct an index can answer (`x.attached_to is
y`, `x.phase is out`, `x has phasing`, `x is a creature`, `x is y`), so a query visits a
handful of candidates instead of every object; the full condition is still checked on each.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs

from ...dsl import ast
from ...dsl.builtins import REFERENCE_KINDS
from ..game.characteristics import static_pump
from ..game.refs import Obj, PlayerRef

Compiled = Callable[[Any, dict], Any]
_UNSET = object()
# The environment entry that carries, for an assertion after a change, the values read before it.
BEFORE = "\0before"


def symbol_value(name: str) -> Any:
    """What a name stands for when it names no variable, object or player (and is not `turn`):
    none, true, false, or itself as a symbol (a status value, a zone, a keyword)."""
    if name == "none":
        return None
    if name in ("true", "false"):
        return name == "true"
    return name


def literal(expr: ast.Node) -> Any:
    """The value of a status default as written: a name's symbol, or a number."""
    if isinstance(expr, ast.Name):
        return symbol_value(expr.id)
    if isinstance(expr, ast.Number):
        return expr.value
    return None


# ------------------------------------------------------------------ what operators mean
# (shared by the closures below and by the Python `interpreter.program.codegen` writes)

COMPARISONS = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}


def is_same(eng, a: Any, b: Any) -> bool:
    """`a is b`: the same object, the same player, or equal values (`GameView.same`, with
    the commonest case, two values of one type, first)."""
    if type(a) is type(b):
        return a[0] == b[0] if type(a) is Obj or type(a) is PlayerRef else a == b
    return eng.same(a, b)


def is_of_type(eng, v: Any, wanted: str, where: ast.Node) -> bool:
    """`v is a T`: an object with card type T (lower case); `v is an object` and `v is a
    player`: what the reference names (an object in any zone, or one that has gone)."""
    if wanted == "object":
        return type(v) is Obj
    if wanted == "player":
        return isinstance(v, PlayerRef)
    return type(v) is Obj and wanted in eng.read(v, "types", where)


def has_keyword(eng, v: Any, keyword: str, where: ast.Node) -> bool:
    return type(v) is Obj and keyword in eng.read(v, "keywords", where)


def compare(a: Any, op: str, b: Any) -> bool:
    """`a < b` and the like: false unless both are numbers."""
    return isinstance(a, int) and isinstance(b, int) and COMPARISONS[op](a, b)


def add(eng, a: Any, b: Any, where: ast.Node) -> int:
    """`a + b`: numbers added, none (or false) counting as 0; anything else (a name, a
    player, an object) is an error of the rules at the expression."""
    a, b = a or 0, b or 0
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    raise eng.fail(f"'+' adds numbers, not {kind_of(a)} and {kind_of(b)}", where.span,
                   "add numbers: a count, a power or toughness, a number written out")


def kind_of(value: Any) -> str:
    """What a value is, as an error names it."""
    if type(value) is Obj:
        return "an object"
    if type(value) is PlayerRef:
        return "a player"
    if isinstance(value, int):
        return "a number"
    return "a name" if isinstance(value, str) else "a value"


def is_visible(eng, v: Any) -> bool:
    """`v is visible`: an object the game sees, or a player still in the game."""
    if type(v) is Obj:
        return eng.visible(v.id)
    if type(v) is PlayerRef:
        return eng.player_in_game(v.name)
    return False


def is_same_stored(eng, raw: Any, name: str, sees_hidden: bool, other: Any) -> bool:
    """`is_same` of a stored reference attribute's value, read as `GameView.wrap` reads it (a
    name: a player's if a player has it, else an object's), and `other`; without making the
    reference when `other` is a reference or none."""
    kind = type(other)
    if kind is PlayerRef:
        return raw == other[0] and raw in eng.game.players
    if kind is Obj:
        return raw == other[0] and raw not in eng.game.players
    if other is None:
        return raw is None
    return is_same(eng, eng.wrap(raw, name, sees_hidden), other)


def is_visible_stored(eng, raw: Any) -> bool:
    """`is_visible` of a stored reference attribute's value, read as `GameView.wrap` reads it
    (a name: a player's if a player has it, else an object's), without making the reference."""
    if not isinstance(raw, str):
        return False  # (none, or no reference at all)
    player = eng.game.players.get(raw)
    return player.in_game if player is not None else eng.visible(raw)


def printed_or_changed(eng, o: Any, oid: str, attr: str) -> Any:
    """`x.power` or `x.toughness` of object `o` (id `oid`), as `GameView.chars` gives it: the
    printed value while nothing can change it (no continuous effect, no counters, no static
    ability giving it anything, with static abilities worked out), or, while only static
    abilities can, the printed value and their pumps (`characteristics.static_pump`), without
    working out the rest of its characteristics."""
    statics = eng.statics  # (not Statics.pending, written out: read for each creature a check looks at)
    if statics.stale is not None and not statics.stale:
        plain = not eng.game.effects and not o.counters
        if plain and oid not in statics.merged:
            return getattr(o, attr)
        cached = eng._chars.get(oid)  # (worked out already: a check reads toughness more than once)
        if cached is not None:
            return cached[attr]
        if plain:  # (only static abilities give it something: as `characteristics` adds their pumps)
            printed = getattr(o, attr)
            if printed is None or not eng.visible(oid):
                return printed
            return printed + static_pump(statics.of(oid))[attr == "toughness"]
    return eng.chars(oid)[attr]


def compile_expr(e: ast.Node, missing: object) -> Compiled:
    """`missing` is the engine's marker for an illegal target (falsy like None)."""
    falsy = (None, False, 0, missing)
    match e:
        case ast.Name(id=name) if name != "turn":
            fixed = symbol_value(name)

            def symbol(eng, env):
                value = env.get(name, _UNSET)
                if value is not _UNSET:
                    return value
                game = eng.game
                if name in game.objects or name in game.players:
                    return eng.resolve_name(name, env)
                return fixed
            return symbol
        case ast.Name(id=name):
            return lambda eng, env: env[name] if name in env else eng.resolve_name(name, env)
        case ast.Number(value=v) | ast.String(value=v):
            return lambda eng, env, v=v: v
        case ast.Attr(obj=ast.Name(id=name), name=attr):
            def attr_of_name(eng, env):  # x.attr, the commonest shape
                value = env.get(name, _UNSET)
                if value is _UNSET:
                    value = eng.resolve_name(name, env)
                return eng.reader(attr)(value, e)
            return attr_of_name
        case ast.Attr(obj=inner, name=attr):
            of = compile_expr(inner, missing)
            return lambda eng, env: eng.reader(attr)(of(eng, env), e)
        case ast.And(items=items):
            parts = [compile_expr(i, missing) for i in items]

            def and_(eng, env):
                for part in parts:
                    if part(eng, env) in falsy:
                        return False
                return True
            return and_
        case ast.Or(items=items):
            parts = [compile_expr(i, missing) for i in items]

            def or_(eng, env):
                for part in parts:
                    if part(eng, env) not in falsy:
                        return True
                return False
            return or_
        case ast.Not(item=item):
            inner_fn = compile_expr(item, missing)
            return lambda eng, env: inner_fn(eng, env) in falsy
        case ast.Is(left=l, right=r, negated=neg):
            fl, fr = compile_expr(l, missing), compile_expr(r, missing)
            return lambda eng, env: is_same(eng, fl(eng, env), fr(eng, env)) != neg
        case ast.IsA(left=l, type=t, negated=neg):
            fl, wanted = compile_expr(l, missing), t.lower()
            return lambda eng, env: is_of_type(eng, fl(eng, env), wanted, e) != neg
        case ast.Has(left=l, keyword=k):
            fl = compile_expr(l, missing)
            return lambda eng, env: has_keyword(eng, fl(eng, env), k, e)
        case ast.Compare(op=op, left=l, right=r):
            fl, fr = compile_expr(l, missing), compile_expr(r, missing)
            return lambda eng, env: compare(fl(eng, env), op, fr(eng, env))
        case ast.Add(left=l, right=r):
            fl, fr = compile_expr(l, missing), compile_expr(r, missing)
            return lambda eng, env: add(eng, fl(eng, env), fr(eng, env), e)
        case ast.Count(var=var, cond=cond, hidden=hidden):
            query = ast.Each(var, cond, ast.Block(()), hidden=hidden, span=e.span)  # (its selection, counted against the budget)
            return lambda eng, env: len(eng.selector.select(query, env, None))
        case ast.Visible(obj=inner):
            of = compile_expr(inner, missing)
            return lambda eng, env: is_visible(eng, of(eng, env))
        case ast.Unchanged(value=inner):
            of = compile_expr(inner, missing)

            def unchanged(eng, env):
                before = env.get(BEFORE)
                if before is None:
                    raise eng.fail("'is unchanged' only makes sense in an assertion after a change", e.span)
                then = before.get(id(inner), missing)
                return then is missing or eng.same(of(eng, env), then)
            return unchanged
    raise TypeError(f"not an expression: {type(e).__name__}")


# ------------------------------------------------------------------ query plans


@attrs.frozen
class Plan:
    """How an index answers one conjunct of a query's condition. `kind` is "equal" (an
    attribute equals a value computed from the environment), "same" (the variable is a given
    object), "keyword", "type" or "union"; `negated` for `not ...`; `part` is the conjunct's
    position."""

    kind: str
    attr: str | None = None
    value: Compiled | None = None
    name: str | None = None
    negated: bool = False
    part: int = 0
    alternatives: tuple["Plan", ...] = ()  # kind "union": `a or b or ...`, each answered by one plan
    source: ast.Node | None = None  # what `value` is compiled from (None for a flag's `true`)


@attrs.frozen
class QueryPlan:
    """The index plans of a query, most selective first, and each conjunct compiled, so that
    only the conjuncts no index answers exactly are evaluated per candidate."""

    plans: tuple[Plan, ...]
    parts: tuple[Compiled, ...]


def _mentions(e: ast.Node, var: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == var for n in e.walk())


def _plan_conjunct(c: ast.Node, var: str, indexable: set[str], flags: set[str], missing: object,
                   part: int) -> list[Plan]:
    def of_var(n: ast.Node) -> bool:
        return isinstance(n, ast.Name) and n.id == var

    if isinstance(c, ast.Or):
        alternatives = []
        for item in c.items:
            found = [p for p in _plan_conjunct(item, var, indexable, flags, missing, part)
                     if p.kind != "same" and not p.negated]
            if not found:
                return []
            alternatives.append(found[0])
        return [Plan("union", part=part, alternatives=tuple(alternatives))]
    if isinstance(c, ast.Not):
        inner = _plan_conjunct(c.item, var, indexable, flags, missing, part)
        return [attrs.evolve(p, negated=True) for p in inner if p.kind not in ("same", "union") and not p.negated
                and (p.kind != "equal" or p.attr in flags)]
    if isinstance(c, ast.Is) and not c.negated:
        found = []
        for side, other in ((c.left, c.right), (c.right, c.left)):
            if _mentions(other, var):
                continue
            if of_var(side):
                found.append(Plan("same", value=compile_expr(other, missing), part=part, source=other))
            elif isinstance(side, ast.Attr) and of_var(side.obj) and side.name in indexable:
                found.append(Plan("equal", side.name, compile_expr(other, missing), part=part, source=other))
        return found
    if isinstance(c, ast.Attr) and of_var(c.obj) and c.name in flags:  # a flag: `x.token`
        return [Plan("equal", c.name, lambda eng, env: True, part=part)]
    if isinstance(c, ast.Has) and of_var(c.left):
        return [Plan("keyword", name=c.keyword, part=part)]
    if isinstance(c, ast.IsA) and of_var(c.left) and c.type.lower() not in REFERENCE_KINDS:
        return [Plan("type", name=c.type.lower(), negated=c.negated, part=part)]
    return []


def plan_query(var: str, cond: ast.Node, indexable: set[str], flags: set[str], missing: object) -> QueryPlan:
    """Index plans for the conjuncts of `cond` (none: scan everything). `flags` are the
    attributes whose truth is exactly their index entry for `true`."""
    conjuncts = ast.conjuncts(cond)
    found: list[Plan] = []
    for part, c in enumerate(conjuncts):
        found.extend(_plan_conjunct(c, var, indexable, flags, missing, part))
    rank = {"same": 0, "equal": 1, "keyword": 2, "type": 3, "union": 4}
    # what is attached to one object is the smallest set an index gives
    return QueryPlan(tuple(sorted(found, key=lambda p: (p.negated, rank[p.kind], p.attr != "attached_to"))),
                     tuple(compile_expr(c, missing) for c in conjuncts))
