"""What a journal of every write costs by itself: the fast reference, journaled.

Issue 17 asks for the interpreter's untap step within 3 times (goal 2) of
bench/fast_reference.py. The interpreter journals every write it makes, as one entry with
the object, the attribute, the old and new values and the cause: that is what its undo,
its trace and last known information read (`interpreter/store.py`). The fast reference
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

import gc
import statistics
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.boards import build_board
from bench.fast_reference import Board

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
PHASE = {True: "out", False: "in"}


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


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 10_000
    rounds = int(argv[2]) if len(argv) > 2 else 15
    game = build_board(n, 0)
    player = game.active
    plain_times, journaled_times = [], []
    same = True
    entries = 0
    for _ in range(rounds):
        plain = Board.from_game(game)
        plain.settle()
        journaled = JournaledBoard.from_game(game)
        journaled.settle()
        start = journaled.observed()
        gc.collect()
        t0 = time.perf_counter()
        plain.untap_step(player, state_based=False)
        plain_times.append(time.perf_counter() - t0)
        gc.collect()
        t0 = time.perf_counter()
        journaled.untap_step(player, state_based=False)
        journaled_times.append(time.perf_counter() - t0)
        entries = len(journaled.journal)
        same = same and plain.observed() == journaled.observed()
        journaled.undo()
        same = same and journaled.observed() == start
    p, j = statistics.median(plain_times), statistics.median(journaled_times)
    print(f"{n:,} permanents, {rounds} rounds, untap step without state checks: fast reference {p * 1e3:.2f} ms, "
          f"journaled {j * 1e3:.2f} ms ({entries:,} entries), ratio {j / p:.2f}; same state and undo: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
