"""State checks: the blocks hooked to state checks, made in rounds until nothing changes
(a local check again only for the objects changed since the last round)."""

from __future__ import annotations

import contextlib
from typing import Any

from .batches import MAX_SETTLE_ROUNDS
from ..game.writes import Batch
from ...dsl.collector import collector_paused


class StateChecks:
    """Makes the state checks (the blocks hooked to state checks, as the program's clause
    tables hold them: `ClauseTables.state_checks`) in rounds, each round one batch, until a
    round changes nothing; a local check is made again only for the objects changed since the
    last round. With generated Python (`ClauseTables.check_pass`), the local checks are made
    in one pass over those objects (those that see hidden objects in a second pass:
    `made_again`), and on a game's first check in
    passes over their own selections' candidates, one pass for the checks whose candidates
    are the same (`first_choice`), each check's own selection still counted against the
    step's budget as if it were made alone.

    `whole_game_share`: a first check's pass whose candidates are at least this share of the
    game's objects goes over all of them instead, in the game's order (`first_choice`); the
    tests set it to 0 (always) and to more than 1 (never) to hold both to one outcome."""

    whole_game_share = 0.5

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
        with eng.selector.combining():  # (nothing changes the game until the batch is committed)
            self.make_checks(checks, fused, batch, dirty)
        return eng.committer.commit(batch)

    def make_checks(self, checks: tuple, fused: Any, batch: Any, dirty: set[str] | None) -> None:
        """The checks of one round (`settle_round`), each adding what it does to `batch`:
        `dirty`, the objects changed since the last round (None: every object)."""
        eng = self.eng
        seen_dirty = None  # those of them the game sees: all a check that sees no hidden object looks at
        chosen = None  # what the checks made in one pass choose (`CheckPass.one_pass`), once worked out
        made: dict = {}  # (a first check) what each shared pass chose (`first_choice`)
        for position, (local, sees_hidden, body, cause) in enumerate(checks):
            if local and dirty is not None and not dirty:
                continue  # nothing changed since it was last made: it finds nothing new
            scope = dirty if local else None
            if scope is not None and not sees_hidden:
                if seen_dirty is None:
                    seen_dirty = eng.hiding.not_hidden(dirty)
                scope = seen_dirty
            # made again for the changed objects (those the game sees, unless it sees hidden
            # ones), in one pass with the others like it (`made_again`; each check's choice
            # then put in the game's order); on a first check, in a pass over its selection's candidates
            # (`first_choice`); each check's own selection is still counted against the
            # step's budget as if made alone
            in_one_pass = local and fused is not None
            if in_one_pass and dirty is not None and chosen is None:
                if seen_dirty is None:
                    seen_dirty = eng.hiding.not_hidden(dirty)
                chosen = [eng.indexes.sort_refs(refs) for refs in self.made_again(fused, dirty, seen_dirty)]
            eng.dirty_scope = scope
            try:
                if in_one_pass:
                    candidates = fused.counts[position](eng, batch)  # (its selection, counted)
                else:
                    body(eng, {}, batch, cause)
            finally:
                eng.dirty_scope = None
            if in_one_pass:
                k, run_chosen = fused.bodies[position]
                these = chosen[k] if dirty is not None else self.first_choice(fused, position, candidates, made)
                run_chosen(eng, these, batch, cause)

    def made_again(self, fused: Any, dirty: set[str], seen_dirty: set[str]) -> list:
        """What the local checks choose made again for the changed objects (`dirty`), one list
        per check in the passes' order: those that see no hidden object in one pass over the
        changed objects the game sees (`seen_dirty`), those that see hidden ones in a pass over
        every changed object, or, where each has a plan by value (`CheckPass.by_value`: such
        as 800.4c's, the objects whose controller has left), over the changed objects among
        those it gives, most often none."""
        eng = self.eng
        passed = list(fused.one_pass(eng, seen_dirty, True))
        if fused.hidden_pass is not None:
            plans = [fused.by_value[position] for position in fused.seeing]
            found = [plan(eng) if plan is not None else None for plan in plans]
            passed += fused.hidden_pass(eng, dirty if None in found else dirty & set().union(*found))
        return passed

    def first_choice(self, fused: Any, position: int, candidates: Any, made: dict) -> list:
        """What the check at `position` chooses on a game's first check (every object), in the
        game's order: its pass (`CheckPass.passes`, shared with the checks whose selections
        find the same candidates, made once per round: `made`) over the candidates its
        selection counted (`candidates`: those, and whether they hold nothing hidden; None: an
        index says none can match), or, where its condition has a conjunct worked out once
        per value of a stored field (`CheckPass.by_value`), over the objects whose value makes
        it hold; where the candidates are many (`whole_game_share`), over every object. Each is
        a superset of what it chooses: the pass checks the whole condition on each, and leaves
        out what the game does not see."""
        eng = self.eng
        lead, place = fused.shared[position]
        found = made.get(lead)
        if found is None:  # (the first of its pass: the candidates are its own)
            by_value = fused.by_value[position]
            ids = by_value(eng) if by_value is not None else None
            seen = False  # (whether they hold nothing a hide rule hides: then none is asked about)
            if ids is None and candidates is not None:
                ids, seen = candidates
                objects = eng.game.objects
                if ids and len(ids) >= self.whole_game_share * len(objects):
                    # (half the game's objects or more: a pass over all of them, in the game's
                    # order, which is the order they were made in and mostly lie in memory in,
                    # takes less time than going to each candidate in the order its set holds
                    # it, 12 to 15 ms against 32 to 40 for the creatures of the benchmark's
                    # board of 100,000; the pass checks the whole condition on each, so it
                    # chooses the same, and the hide rules' test on each)
                    ids, seen = objects, False
            found = made[lead] = fused.passes[lead](eng, ids, seen) if ids else None
        return eng.indexes.sort_refs(found[place]) if found is not None else []
