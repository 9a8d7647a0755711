"""State checks: the blocks hooked to state checks, made in rounds until nothing changes
(a local check again only for the objects changed since the last round)."""

from __future__ import annotations

import contextlib
from typing import Any

from interpreter.batches import MAX_SETTLE_ROUNDS, Batch
from interpreter.turns import collector_paused


class StateChecks:
    """Makes the state checks (the blocks hooked to state checks, as the program's clause
    tables hold them: `ClauseTables.state_checks`) in rounds, each round one batch, until a
    round changes nothing; a local check is made again only for the objects changed since the
    last round. With generated Python (`ClauseTables.check_pass`), the local checks that see no
    hidden object are made in one pass over those objects, or over every object on a game's
    first check, each check's own selection still counted against the step's budget as if it
    were made alone."""

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
        checks = eng.program.clauses.state_checks()
        fused = eng.backend.check_pass(eng.program.clauses)
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
                if seen_dirty is None:
                    seen_dirty = eng.hiding.not_hidden(dirty)
                scope = seen_dirty
            # in one pass with the others like it, over the changed objects the game sees, or
            # over every object (in the game's order) on a first check; each check's own
            # selection is still counted against the step's budget as if made alone
            in_one_pass = local and not sees_hidden and fused is not None
            if in_one_pass and chosen is None:  # (each check's choice put in game order, not all the objects first)
                one_pass = fused[0]
                # (over every object, in the game's order; or over the changed objects the game
                # sees, `scope`, in no order, each check's choice then put in the game's order)
                chosen = (one_pass(eng, eng.game.objects) if dirty is None
                          else [eng.indexes.sort_refs(refs) for refs in one_pass(eng, scope, True)])
            eng.dirty_scope = scope
            try:
                if in_one_pass:
                    fused[2][position](eng, batch)  # (its selection, counted)
                else:
                    body(eng, {}, batch, cause)
            finally:
                eng.dirty_scope = None
            if in_one_pass:
                k, run_chosen = fused[1][position]
                run_chosen(eng, chosen[k], batch, cause)
        return eng.committer.commit(batch)
