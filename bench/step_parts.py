"""Where the interpreter's untap step spends its time, beside the fast reference's step and first state check.

    python bench/step_parts.py [permanents] [rounds]

Issue 17 asks for the step within 3 times bench/fast_reference.py's and, at 100,000
permanents, for the engine's setup to take no longer than its step. This script times, in
turn in one run (one run of each per round, each after a `gc.collect()`, as bench/in_turn.py
does), what decides whether either can be met by the design as built:

- the fast reference's step, and the first state check of every object as
  bench/fused_model.py writes it by hand (`FusedGame.state_checks` of all its objects: every
  check of the rulebook, 704.5d, f, g, m, n and 800.4c, on every object, as the
  interpreter's setup makes them; the fast reference's own first check looks only at what
  is attached or an Aura, since it makes only 704.5d, m and n), about the least a setup
  that checks every object when it is made can cost;
- the interpreter's step (2026-09-25, generated Python, as bench/run.py plays it: the engine
  made and settled on the game, the step, the game then undone through its journal), split
  into the statements (each statement's selection and its writes, made before its batch is
  committed: `Engine.run` less the commit it ends in), the `as` clauses' expansion of the
  batches made of runs (`ClauseTables.run_expander`'s function) and the rest (committing,
  the state checks after the step).

Printed: the medians, each part over the fast reference's whole step, and the bound the
first state check sets on a setup no longer than a step within 3 times the fast reference's.
The parts are timed by wrapping those two functions in this process only; nothing in the
interpreter knows of it. Exits 1 unless the interpreter and the fast reference end every
round in the same state.
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Iterator

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.arguments import board_and_rounds
from bench.boards import build_board
from bench.engines import full_book, observed
from bench.fast_reference import Board
from bench.fused_model import FusedGame
from phasing_rules.dsl import ast
from phasing_rules.interpreter.engine.batches import Committer
from phasing_rules.interpreter.program.clauses import ClauseTables
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.store import store_of

PARTS = ("statements", "expansion")


class PartClock:
    """Time spent in the statements and in the expansion of batches of runs, summed over a
    step: `Engine.run` of a statement (not a block) less the commits it makes, and the run
    expander's function (wrapped once per function, so that it stays one object)."""

    def __init__(self) -> None:
        self.spent = dict.fromkeys(PARTS, 0.0)
        self.commits = 0.0  # (time in commits made by statements, taken off their runs)
        self.depth = 0  # (commits being made, one inside another: only the outermost is timed)
        self.wrapped: dict[Any, Any] = {}

    @contextlib.contextmanager
    def installed(self) -> Iterator["PartClock"]:
        run, commit, run_expander = Engine.run, Committer.commit, ClauseTables.run_expander
        clock = self

        def timed_run(eng: Engine, stmt: ast.Node, env: dict, cause: Any) -> bool:
            if isinstance(stmt, ast.Block):
                return run(eng, stmt, env, cause)
            before = clock.commits
            t0 = time.perf_counter()
            try:
                return run(eng, stmt, env, cause)
            finally:
                clock.spent["statements"] += time.perf_counter() - t0 - (clock.commits - before)

        def timed_commit(committer: Committer, batch: Any) -> bool:
            clock.depth += 1
            t0 = time.perf_counter()
            try:
                return commit(committer, batch)
            finally:
                clock.depth -= 1
                if not clock.depth:
                    clock.commits += time.perf_counter() - t0

        def timed_expander(tables: ClauseTables) -> Any:
            fn = run_expander(tables)
            if fn is None:
                return None
            if fn not in clock.wrapped:
                def expand(eng: Any, batch: Any, limit: int) -> None:
                    t0 = time.perf_counter()
                    try:
                        fn(eng, batch, limit)
                    finally:
                        clock.spent["expansion"] += time.perf_counter() - t0
                clock.wrapped[fn] = expand
            return clock.wrapped[fn]

        Engine.run, Committer.commit, ClauseTables.run_expander = timed_run, timed_commit, timed_expander
        try:
            yield self
        finally:
            Engine.run, Committer.commit, ClauseTables.run_expander = run, commit, run_expander

    def reset(self) -> None:
        self.spent = dict.fromkeys(PARTS, 0.0)
        self.commits = 0.0


def one_round(game: Any, book: Any, clock: PartClock) -> dict[str, Any]:
    """One round: the hand-written first state check of every object (bench/fused_model.py),
    the fast reference's step, then the interpreter's step with its parts, on the same game,
    undone afterwards."""
    gc.disable()  # (as both models' setups do: the many new objects would set off full collections)
    try:
        fused = FusedGame(game)
    finally:
        gc.enable()
    everything = list(fused.objects.values())
    gc.collect()
    t0 = time.perf_counter()
    fused.state_checks(everything)
    first_check = time.perf_counter() - t0
    del fused, everything
    board = Board.from_game(game)
    board.settle()
    gc.collect()
    t0 = time.perf_counter()
    board.untap_step(game.active, state_based=True)
    fast = time.perf_counter() - t0
    store = store_of(game)
    start = store.mark()
    try:
        engine = Engine(book, game)
        engine.settle()
        clock.reset()
        gc.collect()
        t0 = time.perf_counter()
        engine.run_hook("untap step", game.active)
        step = time.perf_counter() - t0
        same = observed(game.objects) == board.observed()
    finally:
        store.undo(start)
    return {"fast_first_check": first_check, "fast": fast, "step": step, **clock.spent, "same": same}


def main(argv: list[str]) -> int:
    n, rounds = board_and_rounds(argv[1:], "bench/step_parts.py", __doc__.split("\n")[0], 11)
    game, book = build_board(n, 0), full_book()
    clock = PartClock()
    with clock.installed():
        found = [one_round(game, book, clock) for _ in range(rounds + 1)][1:]  # (the first writes the rulebook's Python)
    med = {key: statistics.median(r[key] for r in found) for key in ("fast_first_check", "fast", "step") + PARTS}
    over = {key: statistics.median(r[key] / r["fast"] for r in found) for key in ("step",) + PARTS}
    ms = {key: f"{value * 1e3:.2f} ms" for key, value in med.items()}
    rest = med["step"] - med["statements"] - med["expansion"]
    print(f"{n:,} permanents, {rounds} rounds (medians): fast reference's step {ms['fast']}; interpreter's step "
          f"{ms['step']} ({over['step']:.1f} times)")
    print(f"  statements {ms['statements']} ({over['statements']:.1f} times the fast reference's whole step), "
          f"`as` expansion {ms['expansion']} ({over['expansion']:.1f} times), together "
          f"{over['statements'] + over['expansion']:.1f} times; the rest {rest * 1e3:.2f} ms")
    print(f"  the first state check of every object, by hand (bench/fused_model.py): {ms['fast_first_check']}, "
          f"{med['fast_first_check'] / med['fast']:.1f} times the fast reference's step (a step within 3 times "
          f"it takes at most {3 * med['fast'] * 1e3:.2f} ms)")
    same = all(r["same"] for r in found)
    print(f"  same state every round: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
