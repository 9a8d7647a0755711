"""Machine instructions of one untap step, counted by valgrind: a measure that does not drift.

    python bench/instructions.py [permanents]

Wall-clock times on a shared machine drift by a fifth from minute to minute, which hides any
change worth less than that. Instruction counts are the same from run to run (with a fixed
hash seed), so they tell a change of 1% apart. Each engine is run twice under
`valgrind --tool=cachegrind`: once building the board and getting ready, once doing that and
then the untap step; the difference is the step's cost. Engines: the reference
(bench/reference.py, with its state-based actions), the event model (bench/event_model.py) and
the interpreter (2026-09-25, full rulebook). Needs valgrind; takes about a minute on two cores.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("reference", "event model", "interpreter")

CHILD = """
import gc, sys
sys.path.insert(0, {root!r})
from bench.boards import build_board
engine, n, step = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "step"
game = build_board(n)
if engine == "reference":
    from bench.reference import untap_step
    run = lambda: untap_step(game, game.active, state_based=True)
elif engine == "event model":
    from bench import event_model
    from interpreter.turns import collector_paused
    board = event_model.prepare(game)
    def run():
        with collector_paused():
            event_model.untap_step(board, game.active)
else:
    from bench.engines import full_book, prepare
    book = full_book()
    # the rulebook's Python is written on first use: a first step on the same board (another
    # engine, on its own copy of the game) writes all the step needs, as the first of
    # bench/run.py's runs does, whose medians leave it out
    warm = prepare(book, game)
    warm.settle()
    warm.run_hook("untap step", game.active)
    del warm
    e = prepare(book, game)
    e.settle()
    run = lambda: e.run_hook("untap step", game.active)
gc.collect()
if step:
    run()
"""


def instructions(engine: str, n: int, step: bool) -> int:
    proc = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", CHILD.format(root=str(ROOT)), engine, str(n), "step" if step else "ready"],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"valgrind run failed for {engine}:\n{proc.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str]) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: this measure needs it (the timed benchmark is bench/run.py)")
        return 1
    n = int(argv[0]) if argv else 10_000
    runs = [(engine, step) for engine in ENGINES for step in (True, False)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # one valgrind per core
        found = dict(zip(runs, pool.map(lambda run: instructions(run[0], n, run[1]), runs)))
    counts = {engine: found[engine, True] - found[engine, False] for engine in ENGINES}
    base = counts["reference"]
    print(f"untap step on {n:,} permanents, machine instructions (valgrind, PYTHONHASHSEED=0)")
    for engine in ENGINES:
        print(f"  {engine:<12} {counts[engine] / 1e6:8.0f} M  {counts[engine] / base:5.2f}x the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
