"""Hide rules: whether the game treats a battlefield object as not existing, worked out
from the rulebook's hide clauses (read through a status when each is one)."""

from __future__ import annotations

from typing import Any, Iterable

from ...dsl import ast
from ..program.compiled import symbol_value
from ..game.model import Permanent
from ..game.refs import FALSY, obj_ref


def hidden_by_status(o: Permanent, tests: tuple[tuple[str, Any, Any], ...]) -> bool:
    """Whether a hide rule hides battlefield object `o`, when every hide test reads one of its
    statuses (`Hiding.stored_hide_tests`)."""
    if o.zone != "battlefield":
        return False
    statuses = o.statuses
    for name, default, hides in tests:
        if statuses.get(name, default) == hides:
            return True
    return False


def hidden_by_status_all(os: Iterable[Permanent], tests: tuple[tuple[str, Any, Any], ...]) -> list[bool]:
    """`hidden_by_status` of each of many objects, in turn (with one hide test, read in one
    comprehension)."""
    if len(tests) == 1:
        ((name, default, hides),) = tests
        return [o.zone == "battlefield" and o.statuses.get(name, default) == hides for o in os]
    return [hidden_by_status(o, tests) for o in os]


class Hiding:
    """Answers whether hide rules hide an object, working out the hide tests of the rulebook (a
    test that only reads a stored status is read off the object), and which hide clause hides
    it. `GameView.is_hidden` and `GameView.visible` cache its answers."""

    def __init__(self, view: Any):
        self.view = view  # the game view it reads and writes through

    def hidden_by_rules(self, oid: str, o: Permanent | None) -> bool:
        """`is_hidden` of object `o` (id `oid`), worked out (not read from the cache)."""
        view = self.view
        hidden = False
        if o is not None and o.zone == "battlefield":
            game = view.game
            for var, test, shape in view.hide_tests:
                if shape is not None and shape[2] not in game.objects and shape[2] not in game.players:
                    if o.get_status(shape[0], shape[1]) == shape[3]:  # `x.S is V`, read off the object
                        hidden = True
                        break
                    continue
                if test(view, {var: obj_ref((oid, True))}) not in FALSY:
                    hidden = True
                    break
        return hidden

    def stored_hide_tests(self) -> tuple[tuple[str, Any, Any], ...] | None:
        """The hide tests as (status, its default, the stored value that hides) when each is
        `x.S is V` with V naming no object or player now (`status_test`); else None."""
        view = self.view
        game, tests = view.game, []
        for _var, _test, shape in view.hide_tests:
            if shape is None or shape[2] in game.objects or shape[2] in game.players:
                return None
            tests.append((shape[0], shape[1], shape[3]))
        return tuple(tests)

    def cache_every_object(self) -> None:
        """Fill the view's cache of `is_hidden` for every object at once, when every hide rule
        reads one stored status (`stored_hide_tests`) whose hiding value an index answers: the
        objects hidden are those on the battlefield the indexes give for those values, and no
        other. For a state check of every object, which would otherwise work each object out
        in turn; the cache is kept right from then on as any entry of it is."""
        view = self.view
        tests = self.stored_hide_tests()
        if tests is None:
            return
        found = []
        for status, _default, hides in tests:
            ids = view.indexes.lookup(status, hides)
            if ids is None:  # (the hiding value is the default, which is not indexed)
                return
            found.append(ids)
        objects = view.game.objects
        fresh = dict.fromkeys(objects, False)
        for ids in found:
            for oid in ids:
                if objects[oid].zone == "battlefield":
                    fresh[oid] = True
        if view._hidden:
            view._hidden.update(fresh)
        else:  # (nothing cached yet, the commonest: the cache is this one)
            view._hidden = fresh

    def status_test(self, var: str, cond: ast.Node) -> tuple | None:
        """(status, its default, the name V, what V stands for) when `cond` is `var.S is V` for a
        status S stored as a plain value (not a reference) and V a name: then, unless V names an
        object or a player, the condition is the stored value equal to V's."""
        match cond:
            case ast.Is(left=ast.Attr(obj=ast.Name(id=name), name=status), right=ast.Name(id=symbol), negated=False) if (
                    name == var and status in self.view.defaults and status not in self.view.reference_statuses
                    and symbol not in (var, "turn")):
                return status, self.view.defaults[status], symbol, symbol_value(symbol)
        return None

    def sight(self, oids: Iterable[str]) -> dict[str, bool]:
        """`visible` for many objects at once: whether the game sees each of them."""
        view = self.view
        objects, hidden, is_hidden = view.game.objects, view._hidden, view.is_hidden
        seen = {}
        for oid in oids:
            o = objects.get(oid)
            if o is None or o.zone != "battlefield":
                seen[oid] = False
            else:
                known = hidden.get(oid)
                seen[oid] = not (is_hidden(oid) if known is None else known)
        return seen

    def sight_of_runs(self, runs: list, touched: dict[str, None]) -> dict[str, bool]:
        """`sight` of the objects a batch of runs writes (`touched`: all of them; the runs not
        applied yet, at most one write per object and attribute), where the one hide test
        reads a status some of the runs write: whether the game sees each object of those runs
        is read off the value its write replaces (the object's value now) and its zone, with
        no lookup by id; the rest as `sight` reads them. (At 100,000 permanents `sight` of
        the objects of the untap step's batch, looked up by id in the game's table and in the
        cache of what is hidden, took 8 ms, 25 times what it took at 10,000.)"""
        tests = self.stored_hide_tests()
        if tests is None or len(tests) != 1:
            return self.sight(touched)
        ((status, _default, hides),) = tests
        objects = self.view.game.objects
        seen: dict[str, bool] = {}
        for b in runs:
            if b.attr == status:
                seen.update(zip(b.objs, [o.zone == "battlefield" and not old == hides
                                         for o, old in zip(b.objects_in(objects), b.olds)]))
        if len(seen) != len(touched):
            seen.update(self.sight(touched.keys() - seen.keys()))
        return seen

    def not_hidden(self, oids: Iterable[str]) -> set[str]:
        """Those of `oids` that are objects of the game no hide rule hides (`is_hidden`, its
        cache read first)."""
        view = self.view
        objects, hidden, is_hidden = view.game.objects, view._hidden, view.is_hidden
        return {oid for oid in oids
                if oid in objects and not (known if (known := hidden.get(oid)) is not None else is_hidden(oid))}

    def hiding_clause(self, oid: str) -> tuple[ast.Rule, ast.Hide] | None:
        """The first hide clause that hides object `oid` (None: none does)."""
        view = self.view
        for (rule, hide), (var, test, _shape) in zip(view.clause_index.hides, view.hide_tests):
            if test(view, {var: obj_ref((oid, True))}) not in FALSY:
                return rule, hide
        return None
