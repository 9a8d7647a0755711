"""The interpreter's way of changing a game, written out by hand for the current rules.

`bench/reference.py` is what an engine developer would write: one pass, one new object per
permanent that changes. The interpreter works differently, because the rule files say so:

- a step's selections make *writes* (one per attribute), collected in a batch;
- each write that changes something runs the `as` clauses that wait on it (702.26a records
  `phased_out_under`, 506.4 removes from combat, 702.26g takes the attachments along and
  brings them back, 702.26n and 610.4 clear their statuses), first in, first expanded;
- writes to the same attribute of the same object are settled (702.26h: indirectly wins);
- each object that changes becomes one new object, the indexes follow, and every change is
  recorded as an event naming the rule that made it;
- 502.3 untaps as a batch of its own, after phasing; then the state-based actions.

This module does exactly that for the 2026-09-25 rulebook, with no rule files and nothing
generic: every rule is inlined as the Python it amounts to. It measures what the
interpreter's event model costs when no interpretation is left, which is the most a
compiler from rule files to Python could win:

    python bench/event_model.py [permanents]

prints its time, the reference's and the interpreter's on the benchmark board, and checks
that all three leave every permanent the same (exit status 1 if not). The state-based
actions are the reference's own (704.5m, 704.5n, 704.5d), so they cost the same in both.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.arguments import board_and_rounds
from bench.boards import build_board
from bench.reference import _state_based_actions, untap_step as reference_untap_step
from phasing_rules.interpreter.game.model import Game, Permanent, merge_status

# The phasing statuses and their defaults, as rules/2026-09-25/vocabulary.rules declares them.
DEFAULTS: dict[str, Any] = {"phase": "in", "phased_out_under": None, "phased_indirectly": False,
                            "phase_until": None, "returns_after_absence": False}
BATTLEFIELD = "battlefield"


class Write:
    __slots__ = ("obj", "attr", "value", "cause", "old")

    def __init__(self, obj: str, attr: str, value: Any, cause: str):
        self.obj, self.attr, self.value, self.cause = obj, attr, value, cause
        self.old: Any = None


class Board:
    """A game's objects with the indexes an engine keeps: what is attached to what, and which
    objects carry each non-default status value."""

    def __init__(self, game: Game):
        self.game = game
        self.objects = dict(game.objects)
        self.attached: dict[str, set[str]] = defaultdict(set)
        self.by_status: dict[str, dict[Any, set[str]]] = defaultdict(lambda: defaultdict(set))
        for oid, o in self.objects.items():
            if o.attached_to is not None:
                self.attached[o.attached_to].add(oid)
            for key, value in o.status:
                if value != DEFAULTS[key]:
                    self.by_status[key][value].add(oid)
        self.order = {oid: i for i, oid in enumerate(self.objects)}
        self.trace: list[tuple] = []

    def attached_to(self, oid: str) -> list[str]:
        """What is attached to `oid`, in the game's order."""
        found = self.attached.get(oid, ())
        return sorted(found, key=self.order.__getitem__) if len(found) > 1 else list(found)

    def seen(self, oid: str) -> bool:  # 702.26b
        o = self.objects[oid]
        return o.zone == BATTLEFIELD and o.stored("phase", DEFAULTS) == "in"

    def apply(self, writes) -> None:
        """One new object per object that changes; index entries move; one event per change."""
        per_object: dict[str, list[Write]] = defaultdict(list)
        for w in writes:
            if w.old != w.value:
                per_object[w.obj].append(w)
        objects, by_status, trace = self.objects, self.by_status, self.trace
        for oid, ws in per_object.items():
            o = objects[oid]
            fields: dict[str, Any] = {}
            status: dict[str, Any] = {}
            for w in ws:
                trace.append(("change", oid, w.cause, w.attr, w.value, w.old))
                if w.attr in DEFAULTS:
                    status[w.attr] = w.value
                    default = DEFAULTS[w.attr]
                    if w.old != default:
                        by_status[w.attr][w.old].discard(oid)
                    if w.value != default:
                        by_status[w.attr][w.value].add(oid)
                else:
                    fields[w.attr] = w.value
            if status:
                fields["status"] = merge_status(o.status, status)
            objects[oid] = o.replace(**fields)


def phasing_batch(board: Board, player: str) -> list[Write]:
    """702.26a's two selections, all at once (610.4 exempts what phased out until an event)."""
    writes = []
    for oid, o in board.objects.items():
        if o.zone != BATTLEFIELD:
            continue
        phase = o.stored("phase", DEFAULTS)
        if phase == "in":
            if o.controller == player and "phasing" in o.keywords and o.stored("phase_until", DEFAULTS) is None:
                writes.append(Write(oid, "phase", "out", "702.26a"))  # the verb phase_out
                writes.append(Write(oid, "phased_indirectly", False, "702.26a"))
        elif o.stored("phased_out_under", DEFAULTS) == player and not o.stored("phased_indirectly", DEFAULTS) \
                and o.stored("phase_until", DEFAULTS) is None:
            writes.append(Write(oid, "phase", "in", "702.26a"))  # the verb phase_in
    return writes


def expand(board: Board, writes: list[Write]) -> None:
    """The `as` clauses, in rulebook order, for each write that changes something."""
    objects, attached_to, seen = board.objects, board.attached_to, board.seen
    done: set[tuple] = set()
    i = 0
    while i < len(writes):
        w = writes[i]
        i += 1
        o = objects[w.obj]
        old = w.old = o.stored(w.attr, DEFAULTS)
        if old == w.value or (w.obj, w.attr, w.value) in done:
            continue
        done.add((w.obj, w.attr, w.value))
        oid = w.obj
        if w.attr != "phase":
            continue
        if w.value == "out":
            writes.append(Write(oid, "phased_out_under", o.controller, "702.26a"))
            writes.append(Write(oid, "attacking", False, "506.4"))
            for y in attached_to(oid):
                if seen(y):
                    writes.append(Write(y, "phase", "out", "702.26g"))
                    writes.append(Write(y, "phased_indirectly", True, "702.26g"))
        else:
            writes.append(Write(oid, "phased_out_under", None, "702.26a"))
            for y in attached_to(oid):
                other = objects[y]
                if (other.zone == BATTLEFIELD and other.stored("phase", DEFAULTS) == "out"
                        and other.stored("phased_indirectly", DEFAULTS)):
                    writes.append(Write(y, "phase", "in", "702.26g"))
            writes.append(Write(oid, "phased_indirectly", False, "702.26g"))
            writes.append(Write(oid, "returns_after_absence", False, "702.26n"))
            writes.append(Write(oid, "phase_until", None, "610.4"))


def settle(writes: list[Write]) -> list[Write]:
    """One write per attribute of an object; 702.26h settles `phased_indirectly`."""
    final: dict[tuple[str, str], Write] = {}
    for w in writes:
        key = (w.obj, w.attr)
        other = final.get(key)
        if other is None or other.value == w.value:
            final.setdefault(key, w)
        elif w.attr == "phased_indirectly":
            final[key] = w if w.value is True else other
        else:
            raise ValueError(f"conflicting writes to {w.obj}.{w.attr}")
    return list(final.values())


def untap_batch(board: Board, player: str) -> list[Write]:
    """502.3: the permanents the active player controls that the game sees."""
    writes = []
    for oid, o in board.objects.items():
        if o.controller == player and o.zone == BATTLEFIELD and o.stored("phase", DEFAULTS) == "in":
            w = Write(oid, "tapped", False, "502.3")
            w.old = o.tapped
            writes.append(w)
    return writes


def prepare(game: Game) -> Board:
    """The board with its indexes built, as an engine has them before the step begins."""
    return Board(game)


def untap_step(board: Board, player: str) -> dict[str, Permanent]:
    writes = phasing_batch(board, player)
    expand(board, writes)
    board.apply(settle(writes))
    board.apply(untap_batch(board, player))
    children: dict[str, list[Permanent]] = defaultdict(list)
    for o in board.objects.values():
        if o.attached_to is not None and o.zone == BATTLEFIELD:
            children[o.attached_to].append(o)
    _state_based_actions(board.game, board.objects, children)
    return board.objects


def main(argv: list[str]) -> int:
    from bench.engines import full_book, observed, prepare as prepare_engine
    from phasing_rules.dsl.collector import collector_paused

    n, _rounds = board_and_rounds(argv, "bench/event_model.py", __doc__.split("\n")[0], None)
    game = build_board(n)
    book = full_book()
    times: dict[str, list[float]] = defaultdict(list)
    results: dict[str, dict] = {}
    for _ in range(7):
        # Each run starts from a collected heap with the previous results let go; the event
        # model pauses the cycle collector as the interpreter's run_hook does.
        results.clear()
        gc.collect()
        t0 = time.perf_counter()
        objects = reference_untap_step(game, game.active, state_based=True)
        times["reference"].append(time.perf_counter() - t0)
        results["reference"] = objects
        board = prepare(game)
        gc.collect()
        t0 = time.perf_counter()
        with collector_paused():  # (timed as run_hook is: its end, where the collector runs, included)
            objects = untap_step(board, game.active)
        times["event model"].append(time.perf_counter() - t0)
        results["event model"] = objects
        engine = prepare_engine(book, game)
        engine.settle()
        gc.collect()
        t0 = time.perf_counter()
        engine.run_hook("untap step", game.active)
        times["interpreter"].append(time.perf_counter() - t0)
        results["interpreter"] = engine.game.objects
        del engine, board, objects
    ref = statistics.median(times["reference"])
    print(f"untap step on {n:,} permanents, median of {len(times['reference'])} runs")
    for name in ("reference", "event model", "interpreter"):
        t = statistics.median(times[name])
        print(f"  {name:<12} {t * 1000:8.1f} ms  {t / ref:5.2f}x the reference")
    expected = observed(results["reference"])
    differ = [name for name in ("event model", "interpreter") if observed(results[name]) != expected]
    if differ:
        print("different results from the reference: " + ", ".join(differ))
        return 1
    print("all three leave every permanent the same")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
