"""What a journal of every write costs by itself: the fast reference, journaled.

Issue 17 asks for the interpreter's untap step within 3 times (goal 2) of
bench/fast_reference.py. The interpreter journals every write it makes, as one entry with
the object, the attribute, the old and new values and the cause: that is what its undo,
its trace and last known information read (`interpreter/game/store.py`). The fast reference
journals nothing. This module measures how much of the allowed distance the journal alone
takes: `JournaledBoard` is the fast reference's untap step, statement for statement, with
one journal entry appended for every slot it changes (a tuple of the same five things the
interpreter's entries hold) and nothing else added, and `undo` walks the entries back.

    python bench/journal_floor.py [permanents] [rounds]

prints the fast reference's step beside the journaled one, timed in turn in one run, with
the number of entries, and exits 1 unless both end in the same state and walking the
journal back gives the board the step started from. Both are timed without the state-based
actions after the step (`state_based=False`, the benchmark's "no state checks" rows): those
(`Board.settle`) stay the fast reference's own, unjournaled, so only the step itself, every
write of which is journaled, is compared.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fast_reference import Board
from bench.in_turn import run_in_turn, timed
from phasing_rules.interpreter.game.model import Game

# the causes entries name (blocks of rules/2026-09-25)
PHASE_OUT_AND_IN = "702.26a phase-out-and-in"
REMEMBER = "702.26a remember-controller"
FORGET = "702.26a forget-controller"
ALONG = "702.26g attachments-go-along"
RETURN_ALONG = "702.26g attachments-return-along"
CLEAR_INDIRECT = "702.26g clear-indirect-mark"
COMBAT = "506.4 removed-from-combat"
UNTAP = "502.3 untap-permanents"
# journal attribute -> the fast reference's slot, and how a slot's value reads in the journal
SLOTS = {"phase": "out", "phased_indirectly": "indirect", "phased_out_under": "under",
         "attacking": "attacking", "tapped": "tapped"}


class JournaledBoard(Board):
    """The fast reference with a journal: `journal` holds (object, attribute, old, new,
    cause) for every write of the last `untap_step`, in the order made."""

    __slots__ = ("journal",)

    def untap_step(self, player: str, *, state_based: bool = True) -> None:
        """`Board.untap_step`, with each write journaled as it is made."""
        journal = self.journal = []
        add = journal.append
        going = [o for o in self.phasing.get(player, ()) if not o.out]
        coming = self.out_under.get(player, ())

        stack = []
        for root in going:
            if root.children:
                stack.extend(root.children)
        while stack:
            c = stack.pop()
            if not c.out:
                add((c, "phase", "in", "out", ALONG))
                c.out = True
                add((c, "phased_indirectly", c.indirect, True, ALONG))
                c.indirect = True
                add((c, "phased_out_under", c.under, c.controller, REMEMBER))
                c.under = c.controller
                if c.attacking:
                    add((c, "attacking", True, False, COMBAT))
                    c.attacking = False
                if c.children:
                    stack.extend(c.children)
        directly = []
        for o in going:
            if not o.out:
                add((o, "phase", "in", "out", PHASE_OUT_AND_IN))
                o.out = True
                if o.indirect:
                    add((o, "phased_indirectly", True, False, PHASE_OUT_AND_IN))
                    o.indirect = False
                add((o, "phased_out_under", o.under, player, REMEMBER))
                o.under = player
                if o.attacking:
                    add((o, "attacking", True, False, COMBAT))
                    o.attacking = False
                directly.append(o)

        arrived = list(coming)
        for o in coming:
            add((o, "phase", "out", "in", PHASE_OUT_AND_IN))
            o.out = False
            add((o, "phased_out_under", o.under, None, FORGET))
            o.under = None
            if o.children:
                stack.extend(o.children)
        while stack:
            c = stack.pop()
            if c.out and c.indirect:
                add((c, "phase", "out", "in", RETURN_ALONG))
                c.out = False
                add((c, "phased_indirectly", True, False, CLEAR_INDIRECT))
                c.indirect = False
                add((c, "phased_out_under", c.under, None, FORGET))
                c.under = None
                arrived.append(c)
                if c.children:
                    stack.extend(c.children)
        self.out_under[player] = directly

        tapped = self.tapped.get(player)
        if tapped:
            still = set()
            for o in tapped:
                if o.out:
                    still.add(o)
                else:
                    add((o, "tapped", True, False, UNTAP))
                    o.tapped = False
            self.tapped[player] = still

        if state_based:
            pending = self.pending
            for o in arrived:
                if o.aura or o.equipment:
                    pending.append(o)
            self.settle()

    def undo(self) -> None:
        """Walk the last step's journal back: every slot it wrote gets its old value again
        (the indexes are not put back: what is compared is `observed()`)."""
        for o, attr, old, _new, _cause in reversed(self.journal):
            setattr(o, SLOTS[attr], old == "out" if attr == "phase" else old)
        self.journal = []


def one_round(game: Game, player: str) -> tuple[float, float, bool, str]:
    """A round of `main`: both boards made and settled untimed, both steps timed without the
    state checks, their states compared, the journal walked back to the start."""
    plain, journaled = Board.from_game(game), JournaledBoard.from_game(game)
    plain.settle()
    journaled.settle()
    start = journaled.observed()
    plain_time = timed(lambda: plain.untap_step(player, state_based=False))
    journaled_time = timed(lambda: journaled.untap_step(player, state_based=False))
    entries = len(journaled.journal)
    same = plain.observed() == journaled.observed()
    journaled.undo()
    return journaled_time, plain_time, same and journaled.observed() == start, f" ({entries:,} entries)"


def main(argv: list[str]) -> int:
    return run_in_turn(argv, "journaled (both without state checks)", one_round,
                       checked="same state and undo")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
