"""Selections: which objects an `each x where ...` chooses, found through the indexes, and
(when asked) which ones it left out and why."""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Collection, Iterable, NamedTuple

import attrs

from ...dsl import ast
from .compiled import Plan, QueryPlan
from .indexes import NOTHING
from ..game.refs import FALSY, Obj, obj_ref, stored
from ..game.trace import Cause


@attrs.frozen(slots=False)
class Query:
    """An `each x where ...` as the interpreter runs it: the index plans that find candidates
    and its compiled conjuncts, and whether it sees hidden objects (it is written `including
    hidden`, or names a hiding status)."""

    each: ast.Each
    plan: QueryPlan
    sees_hidden: bool

    @functools.cached_property
    def probe(self) -> Plan | None:
        """The first plan when it is one index lookup (`x.A is v`, A stored and not the
        controller, which effects change): when it finds nothing, nothing matches."""
        plans = self.plan.plans
        if plans and plans[0].kind == "equal" and not plans[0].negated and plans[0].attr != "controller":
            return plans[0]
        return None


def combine(within: list[set[str]], without: list[set[str]]) -> set[str]:
    """The objects in every set of `within` (at least one, smallest first) and in none of
    `without`."""
    ids = within[0].intersection(*within[1:]) if len(within) > 1 else within[0]
    return ids.difference(*without) if without else ids


class Skip(NamedTuple):
    """An object a selection left out, and the clause that made it: `kind` is "hidden" (a
    hide clause: the game treats it as not existing) or "exempt" (an exempt clause of the
    selecting block). `cause`: who ran the selection (None: an expression that counts)."""

    step: int
    each: ast.Each
    cause: Cause | None
    oid: str
    kind: str
    rule: ast.Rule
    clause: ast.Node


class Selector:
    """Finds the objects a selection (`each x where ...`) chooses, in game order: through the
    view's indexes where they answer, checking the rest on each candidate, leaving out what the
    game does not see and what an `exempt` clause exempts, within the step's budget; and, when
    asked (`GameView.skips`), notes what it left out and why."""

    def __init__(self, view: Any):
        self.view = view  # the game view it reads and writes through
        # While the game cannot change (the checks of one round of state checks, `combining`):
        # what index sets combined gave, by the sets (their ids, the sets themselves kept so
        # that no other set takes an id while it lasts): checks whose selections combine the
        # same sets (704.5f's and 704.5g's creatures) combine them once.
        self.combined: dict[tuple, tuple] | None = None

    @contextlib.contextmanager
    def combining(self):
        """Within it, `candidates_seen` combines the same index sets once (`combined`); for a
        stretch in which nothing changes the game or its indexes."""
        self.combined = {}
        try:
            yield
        finally:
            self.combined = None

    def candidates(self, q: Query, env: dict, raw_reads: bool,
                   unseen_out: bool = False, unsorted: bool = False) -> tuple[Iterable[str], tuple[int, ...]]:
        """`candidates_seen` without whether they are all seen."""
        return self.candidates_seen(q, env, raw_reads, unseen_out, unsorted)[:2]

    def candidates_seen(self, q: Query, env: dict, raw_reads: bool, unseen_out: bool = False,
                        unsorted: bool = False) -> tuple[Iterable[str], tuple[int, ...], bool]:
        """The objects a query must look at, in game order, and the conjuncts still to check on
        each (their positions): those no index answered exactly. Indexes answer exactly when the query reads
        stored values (`raw_reads`: it never reads last known information) and no effect changes
        what they index; otherwise they give a superset and the conjunct is checked. With
        `unseen_out` (the caller looks at the battlefield and skips what the game does not
        see), the objects a hide rule hides by a stored status are left out of a set of
        candidates too, when every hide rule is one (`stored_hide_tests`); the caller still
        checks each candidate, unless the third part of the answer is true: every object a hide
        rule hides was left out so, through an index that holds exactly them, and the caller
        need not ask again. (`unsorted`: in no order, for what a selection counts when its
        choice is made elsewhere: `codegen.compile_selection_count`.)"""
        view = self.view
        sets = self.index_sets(q, env, raw_reads)
        if sets is None:
            return [], (), True  # nothing can match
        within, without, answered = sets
        only = view.dirty_scope  # a state check made again for the objects changed since the last one
        if only is not None:
            within.append(only)
        seen = self.leave_hidden_out(bool(within), without) if unseen_out else False
        residual = tuple(i for i in range(len(q.plan.parts)) if i not in answered)
        if not within:
            ids = view.game.objects.keys()
            if without:
                ids = set(ids).difference(*without)
            return (ids if unsorted else list(ids) if not without else view.indexes.sort(ids)), residual, seen
        within.sort(key=len)
        combined = self.combined
        if combined is not None and (len(within) > 1 or without):
            key = (tuple(map(id, within)), tuple(map(id, without)))
            made = combined.get(key)
            if made is None:
                made = combined[key] = (combine(within, without), within, without)
            ids = made[0]
        else:
            ids = combine(within, without)
        if only is not None:
            ids = ids & view.game.objects.keys()
        return (ids if unsorted else view.indexes.sort(ids) if len(ids) > 1 else list(ids)), residual, seen

    def index_sets(self, q: Query, env: dict, raw_reads: bool, but: Plan | None = None
                   ) -> tuple[list[set[str]], list[set[str]], set[int]] | None:
        """What the indexes say of `q`'s candidates: the sets each is in (`within`), the sets
        none is in (`without`), and the conjuncts they answer exactly (their positions); None
        when an index says no object can match. `but`: a plan left out (its set is known
        already)."""
        view = self.view
        within: list[set[str]] = []  # every object in the answer is in each of these
        without: list[set[str]] = []  # and in none of these
        answered: set[int] = set()
        for plan in q.plan.plans:
            if plan is but:
                continue
            if plan.kind == "same":
                v = plan.value(view, env)
                if not (isinstance(v, Obj) and v.id in view.game.objects):
                    return None
                within.append({v.id})
                answered.add(plan.part)
                continue
            found, exact = self.plan_set(plan, env, view.dirty_scope)
            exact = exact and raw_reads
            if found is None:
                others = view.enum_values.get(plan.attr) if plan.kind == "equal" else None
                if others and exact and not plan.negated:
                    # an enum status at its default: the objects with none of its other values
                    without.extend(view.indexes.lookup(plan.attr, v) for v in others)
                    answered.add(plan.part)
                continue
            if plan.negated:
                if exact:
                    without.append(found)
                    answered.add(plan.part)
            else:
                if not found:
                    return None
                within.append(found)
                if exact:
                    answered.add(plan.part)
        return within, without, answered

    def leave_hidden_out(self, narrowed: bool, without: list) -> bool:
        """With candidates the caller skips when the game does not see them (`unseen_out`):
        what a hide rule hides by a stored status added to `without`, when some set narrows
        the candidates (`narrowed`; else the whole board is taken in order, unsorted); whether
        every bit of what hide rules hide is left out so."""
        view = self.view
        if not narrowed or (hiding := view.hiding.stored_hide_tests()) is None:
            return False
        hidden = [view.indexes.lookup(status, hides) for status, _default, hides in hiding]
        without.extend(found or NOTHING for found in hidden)
        return None not in hidden  # (a status's default is not indexed: nothing is left out for it)

    def others_narrowing(self, q: Query, env: dict, unseen_out: bool) -> tuple[set | None, Collection[str]] | None:
        """For the candidates of `q` when its first plan (`Query.probe`: what is attached to
        one object) gave a set that is not empty: what `candidates_seen` would keep of it, as
        (the set it must be within, or None for no such set; the objects it must not hold),
        from the other plans' index sets and, with `unseen_out`, what hide rules hide; None
        when an index says no object can match. What generated code counts such a selection
        by, as `candidates_seen` counts it (`codegen.Emitter.each`)."""
        sets = self.index_sets(q, env, True, but=q.probe)
        if sets is None:
            return None
        within, without, _answered = sets
        if unseen_out:
            self.leave_hidden_out(True, without)
        within.sort(key=len)
        inside = (within[0].intersection(*within[1:]) if len(within) > 1 else within[0]) if within else None
        outside = (without[0] if len(without) == 1 else set().union(*without)) if without else NOTHING
        return inside, outside

    def plan_set(self, plan: Plan, env: dict, within: set[str] | None = None) -> tuple[set[str] | None, bool]:
        """The objects an index gives for one plan (None: it can't answer), and whether that
        is exactly the objects the conjunct holds for (else a superset). `within`: the
        candidates will be only objects of this set; a union is then made of each
        alternative's objects in it (a state check made again for a few changed objects
        does not copy the whole board's index of a type)."""
        view = self.view
        exact = True
        if plan.kind == "equal":
            value = plan.value(view, env)
            if type(value) is str and (plan.attr in ("attached_to", "owner", "controller")
                                       or plan.attr in view.reference_statuses):
                exact = False  # a bare name compared with a reference: let the conjunct decide
            found = view.indexes.lookup(plan.attr, stored(value))
            if found is not None and plan.attr == "controller" and view.game.effects:
                extra = self.affected_by("control")
                found, exact = (found | extra, False) if extra else (found, exact)
        elif plan.kind == "keyword":
            # the printed keywords' index, with what effects and static abilities may grant
            # (every object a static ability gives something to: its own check decides)
            found = view.indexes.lookup("keywords", plan.name)
            extra = self.affected_by("grant") if view.game.effects else set()
            if view.program.static_grants and view.granting_sources():
                extra |= view.statics.reaching()
            if found is not None and extra:
                found, exact = found | extra, False
        elif plan.kind == "type":
            found = view.indexes.lookup("types", plan.name)
        elif plan.kind == "union":
            found = set()
            for alternative in plan.alternatives:
                some, some_exact = self.plan_set(alternative, env, within)
                if some is None:
                    return None, False
                found |= some if within is None or len(some) <= len(within) else some & within
                exact = exact and some_exact
        else:
            found = None
        return found, exact

    def affected_by(self, kind: str) -> set[str]:
        """The objects the continuous effects of kind `kind` affect."""
        return {oid for e in self.view.game.effects.values() if e.kind == kind for oid in e.affected}

    def selection(self, q: Query, env: dict, skip_hidden: bool,
                  unseen_out: bool = False) -> tuple[Iterable[str], tuple[int, ...]]:
        """The candidates of a query in game order and the conjuncts still to check on each
        (see `candidates`, and its `unseen_out`); nothing when an index says no object can match."""
        view = self.view
        probe = q.probe
        if probe is not None:  # the commonest answer first: an index says no object can match
            found = view.indexes.lookup(probe.attr, stored(probe.value(view, env)))
            if found is not None and not found:
                return (), ()
        return self.candidates(q, env, raw_reads=q.sees_hidden or skip_hidden, unseen_out=unseen_out)

    def select(self, each: ast.Each, env: dict, cause: Cause | None, hidden_too: bool = False) -> list[Obj]:
        """The objects selection `each` chooses with environment `env`, in game order, run for
        `cause` (`hidden_too`: hidden objects too); what it visits counts against the step's budget."""
        view = self.view
        q = self.view.compiler.query(each)
        sees_hidden = q.sees_hidden
        skip_hidden = not sees_hidden and not hidden_too
        # What a hide rule hides by a stored status is left out of the candidates before they
        # are counted against the budget (as generated Python does), except when what is left
        # out is being noted (`skips`, for `why`): then they are visited, and counted as if not.
        unseen_out = skip_hidden and not each.every_zone
        ids, unanswered = self.selection(q, env, skip_hidden, unseen_out and view.skips is None)
        if not ids:
            return []
        counted = len(ids) if view.skips is None or not unseen_out else len(self.selection(q, env, skip_hidden, True)[0])
        view.iterations_left -= counted
        if view.iterations_left < 0:
            raise view.over_budget("iterations", each.span, cause)
        residual = [q.plan.parts[i] for i in unanswered]
        exemptions = self.view.compiler.exemptions(cause.id) if cause is not None and cause.kind == "rule" else ()
        chosen = []
        objects, is_hidden = view.game.objects, view.is_hidden
        every_zone = each.every_zone
        var = each.var
        scope = dict(env) if residual else env  # one scope, rebound for each candidate
        for oid in ids:
            zone = objects[oid].zone
            if (zone != "battlefield" and not every_zone) or zone == "nowhere":
                continue
            if skip_hidden and is_hidden(oid):
                if view.skips is not None:
                    self.note_hidden(each, env, residual, oid, cause)
                continue
            ref = obj_ref((oid, sees_hidden))
            if residual:
                scope[var] = ref
                if any(part(view, scope) in FALSY for part in residual):
                    continue
            if exemptions and any(test(view, {ex_var: obj_ref((oid, True))}) not in FALSY for ex_var, test in exemptions):
                if view.skips is not None:
                    self.note_exempt(each, oid, cause)
                continue
            chosen.append(ref)
        return chosen

    def note_hidden(self, each: ast.Each, env: dict, residual: list, oid: str, cause: Cause | None) -> None:
        """Keep in `skips` that selection `each` left out object `oid`, which it would have
        chosen (its condition holds when the object is seen), because a hide clause hides it."""
        view = self.view
        scope = dict(env)
        scope[each.var] = obj_ref((oid, True))
        if any(part(view, scope) in FALSY for part in residual):
            return  # (not one it would have chosen anyway)
        found = view.hiding.hiding_clause(oid)
        if found is not None:
            view.skips.append(Skip(getattr(view, "step", 0), each, cause, oid, "hidden", *found))

    def note_exempt(self, each: ast.Each, oid: str, cause: Cause | None) -> None:
        """Keep in `skips` that selection `each` left out object `oid` because an `exempt`
        clause of the block running it exempts it."""
        for rule, ex in self.view.clause_index.exempts.get(cause.id, ()):
            if self.view.compiled_expr(ex.cond)(self.view, {ex.var: obj_ref((oid, True))}) not in FALSY:
                self.view.skips.append(Skip(getattr(self.view, "step", 0), each, cause, oid, "exempt", rule, ex))
                return
