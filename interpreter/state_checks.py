"""State checks: the blocks hooked to state checks, made in rounds until nothing changes
(a local check again only for the objects changed since the last round)."""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from dsl import ast
from interpreter import codegen
from interpreter.batches import MAX_SETTLE_ROUNDS, Batch, Write
from interpreter.program import UNBUILT
from interpreter.trace import rule_cause
from interpreter.turns import collector_paused


class StateChecks:
    """Makes the state checks (the blocks hooked to state checks) in rounds, each round one
    batch, until a round changes nothing; a local check is made again only for the objects
    changed since the last round, in one generated pass when it can be."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def settle(self) -> None:
        """Check state-based actions (and anything else hooked to state checks) until nothing changes.

        A check that looks only at an object, what it is attached to, and its controller is
        made again only for the objects changed since the last check settled.
        """
        rounds = 0
        # (as during a step, `collector_paused`: the first check of a large board makes the
        # indexes, what static abilities give and each object's characteristics, all of it
        # kept, none of it garbage for the cycle collector to walk the whole board for)
        with collector_paused(), contextlib.ExitStack() as stack:
            again = None
            while True:
                rounds += 1
                if rounds > MAX_SETTLE_ROUNDS:  # a long settling: does it go round in a circle?
                    again = again or stack.enter_context(self.eng.committer.watched())
                    again(frozenset(self.eng.dirty) if self.eng.dirty is not None else None)
                if not self.settle_round():
                    return

    def settle_round(self) -> bool:
        """One round of state checks, as one batch; whether it changed anything."""
        eng = self.eng
        checks = self.state_checks()
        fused = eng.backend.check_pass(eng)
        batch = Batch()
        eng.backend.contest_checks(eng, batch)
        eng.statics.refresh()
        dirty, eng.dirty = eng.dirty, set()
        if dirty is None:  # every check looks at every object: whether each is hidden, worked out at once
            eng.hiding.cache_every_object()
        seen_dirty = None  # those of them the game sees: all a check that sees no hidden object looks at
        chosen = None  # what the checks made in one pass choose (`check_pass`), once worked out
        for position, (local, sees_hidden, body, cause) in enumerate(checks):
            if local and dirty is not None and not dirty:
                continue  # nothing changed since it was last made: it finds nothing new
            scope = dirty if local else None
            if scope is not None and not sees_hidden:
                if fused is not None:  # in one pass with the others like it (over the changed objects the game sees)
                    one_pass, bodies = fused
                    if chosen is None:  # (each check's choice put in game order, not all the objects first)
                        chosen = [eng.indexes.sort_refs(refs) for refs in one_pass(eng, dirty)]
                    k, run_chosen = bodies[position]
                    run_chosen(eng, chosen[k], batch, cause)
                    continue
                if seen_dirty is None:
                    objects, is_hidden = eng.game.objects, eng.is_hidden
                    seen_dirty = {oid for oid in dirty if oid in objects and not is_hidden(oid)}
                scope = seen_dirty
            eng.dirty_scope = scope
            try:
                body(eng, {}, batch, cause)
            finally:
                eng.dirty_scope = None
        return eng.committer.commit(batch)

    def state_check_writers(self) -> tuple[Callable, ...]:
        """The generated functions that may write into a round's batch of state checks: each
        check's body, and what runs the body of each check made in one pass (`check_pass`)."""
        fused = self.check_pass()
        return (tuple(body for _local, _sees, body, _cause in self.state_checks())
                + (tuple(run_chosen for _k, run_chosen in fused[1].values()) if fused is not None else ()))

    def state_checks(self) -> tuple:
        """The blocks hooked to state checks, in order, each as (whether it is local, whether
        its selection sees hidden objects, compiled body, cause); a local check is made again
        only for the objects changed since the last (a local check is one `each`)."""
        known = self.eng.program.state_checks
        if known is UNBUILT:
            table = tuple((self.eng.program.local_check(during.body),
                           isinstance(during.body, ast.Each) and self.eng.selector.query(during.body).aware,
                           self.eng.statements.body_runner(during.body, rule_cause(self.eng.program, rule, during)),
                           rule_cause(self.eng.program, rule, during))
                          for rule, during in self.eng.ix.hooks.get("state check", ()))
            known = self.eng.program.state_checks = table
        return known

    def check_pass(self) -> tuple[Callable, dict[int, tuple[int, Callable]]] | None:
        """The local state checks that see no hidden object, as generated Python written on
        first use, for when they are made again for the changed objects the game sees: all
        of them in one pass over those objects (`codegen.compile_check_pass`, a function
        `(engine, changed ids)` giving the references each check chooses), and by
        position in `state_checks`, the check's place in that pass and what runs its body
        for what it chose (`codegen.compile_chosen`). None when Python cannot take them: each
        check is then made on its own."""
        known = self.eng.program.check_pass
        if known is UNBUILT:
            hooked = self.eng.ix.hooks.get("state check", ())
            fused = [(position, hooked[position][1].body, cause)
                     for position, (local, sees_hidden, _body, cause) in enumerate(self.state_checks())
                     if local and not sees_hidden]
            try:
                one_pass = codegen.compile_check_pass(self.eng, [(each, cause) for _p, each, cause in fused])
                bodies = {position: (k, codegen.compile_chosen(self.eng, each, Write, cause))
                          for k, (position, each, cause) in enumerate(fused)}
                table = (one_pass, bodies)
            except codegen.CannotCompile:  # (nested too deeply for Python: each check runs on its own)
                table = None
            known = self.eng.program.check_pass = table
        return known
