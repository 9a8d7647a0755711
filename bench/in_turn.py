"""Timing a hand-written model of the untap step in turn with the fast reference.

bench/set_model.py, bench/journal_floor.py and bench/fused_model.py each measure a way of
writing the step against bench/fast_reference.py, one run of each per round (so that a drift
in the machine's speed falls on both alike), each run after a `gc.collect()`, and check
that both end in the same state. `run_in_turn` is that loop and its report; a model gives it
one round (`Round`).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

if __name__ == "__main__":  # (a module the models import, not a script)
    print("bench/in_turn.py is the loop the models share; run one of them instead: bench/set_model.py, "
          "bench/journal_floor.py or bench/fused_model.py [permanents] [rounds]", file=sys.stderr)
    sys.exit(1)

from bench.arguments import board_and_rounds
from bench.boards import build_board
from phasing_rules.interpreter.game.model import Game

# One round: (the game, the active player) -> (the model's time, the fast reference's, whether
# they end in the same state (and, where the model undoes, whether its undo gives the start), a
# note on the model's run, such as how many journal entries it made).
Round = Callable[[Game, str], tuple[float, float, bool, str]]


def timed(run: Callable[[], Any]) -> float:
    """The time of `run()`, after a `gc.collect()`."""
    gc.collect()
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def run_in_turn(argv: list[str], name: str, one_round: Round, rounds: int = 15, checked: str = "same state") -> int:
    """`python bench/MODEL.py [permanents] [rounds]`: the rounds on the benchmark's board of
    that many permanents (10,000 unless given), the medians and their ratio printed; exits 1
    unless every round's check held."""
    n, rounds = board_and_rounds(argv[1:], Path(argv[0]).name, f"{name} against the fast reference, timed in turn", rounds)
    game = build_board(n, 0)
    model_times, fast_times, same, note = [], [], True, ""
    for _ in range(rounds):
        model_time, fast_time, agreed, note = one_round(game, game.active)
        model_times.append(model_time)
        fast_times.append(fast_time)
        same = same and agreed
    m, f = statistics.median(model_times), statistics.median(fast_times)
    print(f"{n:,} permanents, {rounds} rounds: {name} {m * 1e3:.2f} ms{note}, fast reference {f * 1e3:.2f} ms, "
          f"ratio {m / f:.2f}; {checked}: {same}")
    return 0 if same else 1
