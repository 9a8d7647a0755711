"""Reactions to changes: the `as` clauses (changes that happen at the same time as another,
which join its batch) and the `after` clauses (follow-ups once a batch is applied)."""

from __future__ import annotations

from typing import Any

from ...dsl import ast
from ..game.writes import Batch, UNREAD, Write
from ..program.codegen import ANY_OLD
from ..game.refs import FALSY, obj_ref


class Reactions:
    """Runs the `as` clauses (while a batch is expanded: what they write joins the batch) and
    the `after` clauses (once a batch is applied, together as one further batch), from the
    program's tables of them by the change they wait on (`interpreter.program.clauses`), as closures
    or generated Python."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def react(self, reaction: tuple, oid: str, old: Any, batch: Batch) -> None:
        """Run a `reaction` to object `oid` changing from `old` (to the value it waits on), if
        the change also fits what the clause says it comes from and its condition."""
        eng = self.eng
        var, cond, wanted_old, body, cause = reaction
        if wanted_old is not ANY_OLD and old != wanted_old:
            return
        env = {var: obj_ref((oid, True))}
        if cond is None or cond(eng, env) not in FALSY:
            body(eng, env, batch, cause)

    def fits(self, pattern: ast.Change, w: Write) -> dict | None:
        """The environment binding the pattern's variable, if write `w` fits it."""
        if not self.eng.program.clauses.matches(pattern, w.attr, w.old, w.value):
            return None
        env = {pattern.var: obj_ref((w.obj, True))}
        if pattern.cond is not None and not self.eng.truthy(self.eng.eval(pattern.cond, env)):
            return None
        return env

    def expand(self, batch: Batch) -> None:
        """Add the changes that happen at the same time as the ones already in the batch ('as'
        clauses), as the backend does it: generated code in one function (`expander`);
        `expand_by_closures` is its definition."""
        self.eng.backend.expand(self.eng, batch, self.eng.writes_left)  # (more writes than that: over the budget)

    def expand_by_closures(self, batch: Batch, limit: int) -> None:
        """`expand` by the closures of the `as` clauses: more than `limit` writes in the batch
        goes over the step's budget."""
        eng = self.eng
        writes, objects, defaults = batch.writes, eng.game.objects, eng.defaults
        seen = set()
        alongs = self.eng.program.clauses.as_clauses()
        waited = {attr for attr, _value in alongs}  # the attributes some `as` clause waits on a change of
        for w in writes:  # the loop takes in the writes the clauses add
            attr = w.attr
            if attr not in waited:
                continue  # nothing happens along with it (the value it replaces is read as it is applied)
            oid = w.obj
            o = objects.get(oid)
            if o is None:
                continue
            value, old = w.value, w.old
            if old is UNREAD:
                old = w.old = o.stored(attr, defaults)  # (nothing changes until the batch is applied)
            if old == value:
                continue
            reactions = alongs.get((attr, value))
            if reactions is None:
                continue  # nothing happens along with this change
            key = (oid, attr, type(value), value)
            if key in seen:
                continue  # the same change again: its `as` clauses have run
            seen.add(key)
            for reaction in reactions:
                self.react(reaction, oid, old, batch)
            if len(writes) > limit:
                raise eng.over_budget("writes", reactions[-1][4].span, reactions[-1][4])

    def run_afters(self, changes: dict[tuple, list]) -> None:
        """The follow-ups of one batch's changes happen together, as one further event."""
        eng = self.eng
        batch = Batch()
        for key, reaction, ends_tracking_only in self.eng.program.clauses.follow_ups():
            if ends_tracking_only and not eng.continuous.may_track(batch):
                continue  # it would end nothing
            for w in changes.get(key, ()):
                reaction(eng, w.obj, w.old, batch)
        if batch.writes or batch.ops or batch.bulks:
            eng.committer.commit(batch)
