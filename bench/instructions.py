"""Machine instructions of one untap step, counted by valgrind: a measure that does not drift.

    python bench/instructions.py [permanents]
    python bench/instructions.py --goals [--json]

Wall-clock times on a shared machine drift by a fifth from minute to minute, which hides any
change worth less than that. Instruction counts are the same from run to run (with a fixed
hash seed), so they tell a change of 1% apart. Each engine is run twice under
`valgrind --tool=cachegrind`: once building the board and getting ready, once doing that and
then the untap step; the difference is the step's cost. Both runs end with `os._exit` as
soon as their work is done: Python's own ending (a last cycle collection over every object
left, and the freeing of all of them) differs between the two runs by what the step left
behind, would be counted as the step's, and is not on bench/run.py's clock either.
Engines: the reference (bench/reference.py, with its state-based actions), the fast reference
(bench/fast_reference.py, the same; its setup, `Board.from_game` and a first state check,
is part of getting ready), the event model (bench/event_model.py) and the interpreter
(2026-09-25, full rulebook). Needs valgrind; takes about a minute on two cores.

`--goals` counts what issue 17's three goals compare, as bench/run.py times them: the step
of the interpreter and of the fast reference at 10,000 and at 100,000 permanents (their
ratio, and how each scales from one board to the other), and the interpreter's setup at
100,000 (making the Engine on the board and its first state check, `Engine.settle`) beside
its step there, with the game's indexes (which the game's store keeps for every engine on
it, `interpreter.program.indexes.indexes_of`) counted apart, as bench/run.py times them. About four
minutes on two cores; `--json` prints the figures as one object.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

if __name__ == "__main__":  # (run as a script: the project's root on the path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.arguments import ArgumentParser, positive  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("reference", "fast reference", "event model", "interpreter")

# What the child does after building the board: get ready ("ready"), then the step ("step");
# for "interpreter setup", "ready" builds the game's indexes and stops before the Engine is
# made on the board, and "step" is the setup (the Engine and `settle`), as bench/run.py times
# it; for "game indexes", "step" is building the game's indexes.
CHILD = """
import gc, os, sys
sys.path.insert(0, {root!r})
from bench.boards import build_board
engine, n, step = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "step"
game = build_board(n)
if engine == "reference":
    from bench.reference import untap_step
    run = lambda: untap_step(game, game.active, state_based=True)
elif engine == "fast reference":
    from bench.fast_reference import Board
    board = Board.from_game(game)
    board.settle()
    run = lambda: board.untap_step(game.active, state_based=True)
elif engine == "event model":
    from bench import event_model
    from phasing_rules.dsl.collector import collector_paused
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
    if engine in ("interpreter setup", "game indexes"):
        from phasing_rules.interpreter.engine.engine import Engine
        from phasing_rules.interpreter.program.indexes import indexes_of
        from phasing_rules.interpreter.program.program import Program
        program = Program.of(book, "generated")
        if engine == "game indexes":
            run = lambda: indexes_of(game, program.defaults).ready()
        else:
            kept = indexes_of(game, program.defaults).ready()
            def run():
                engine = Engine(program, game)
                assert engine.indexes is kept and kept.by is not None  # (the game's, built already)
                engine.settle()
    else:
        e = prepare(book, game)
        e.settle()
        run = lambda: e.run_hook("untap step", game.active)
gc.collect()
if step:
    run()
# (both runs end here, without the interpreter's own ending: its last cycle collection and
# the freeing of every object, which differ by what the step left behind and which
# bench/run.py's clock does not time either)
sys.stdout.flush()
os._exit(0)
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


def counted(runs: list[tuple[str, int]], count: Callable[[str, int, bool], int] = instructions) -> dict:
    """(engine, permanents) -> the instructions of its step there: each counted with and
    without the step, one valgrind per core."""
    jobs = [(engine, n, step) for engine, n in runs for step in (True, False)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        found = dict(zip(jobs, pool.map(lambda job: count(*job), jobs)))
    return {(engine, n): found[engine, n, True] - found[engine, n, False] for engine, n in runs}


def goals(count: Callable[[str, int, bool], int] = instructions) -> dict:
    """Issue 17's goals by instruction count (see the module's doc)."""
    runs = [(engine, n) for engine in ("interpreter", "fast reference") for n in (10_000, 100_000)]
    found = counted(runs + [("interpreter setup", 100_000), ("game indexes", 100_000)], count)
    step = {(engine, n): found[engine, n] for engine, n in runs}
    setup, indexes = found["interpreter setup", 100_000], found["game indexes", 100_000]
    return {
        "interpreter_step_10k": step["interpreter", 10_000],
        "fast_reference_step_10k": step["fast reference", 10_000],
        "ratio_fast_10k": step["interpreter", 10_000] / step["fast reference", 10_000],
        "interpreter_step_100k": step["interpreter", 100_000],
        "fast_reference_step_100k": step["fast reference", 100_000],
        "ratio_fast_100k": step["interpreter", 100_000] / step["fast reference", 100_000],
        "scaling_interpreter": step["interpreter", 100_000] / step["interpreter", 10_000],
        "scaling_fast_reference": step["fast reference", 100_000] / step["fast reference", 10_000],
        "interpreter_setup_100k": setup,
        "setup_over_step_100k": setup / step["interpreter", 100_000],
        "game_indexes_100k": indexes,
        "setup_with_indexes_over_step_100k": (setup + indexes) / step["interpreter", 100_000],
    }


def print_goals(found: dict) -> None:
    print("issue 17's goals, machine instructions (valgrind, PYTHONHASHSEED=0)")
    for n, key in ((10_000, "10k"), (100_000, "100k")):
        print(f"  step at {n:>7,}: interpreter {found[f'interpreter_step_{key}'] / 1e6:8.1f} M, fast reference "
              f"{found[f'fast_reference_step_{key}'] / 1e6:6.1f} M: {found[f'ratio_fast_{key}']:5.1f}x"
              + ("   (goal: at most 3)" if key == "10k" else ""))
    print(f"  100,000 / 10,000: interpreter {found['scaling_interpreter']:.1f}, fast reference "
          f"{found['scaling_fast_reference']:.1f}   (goal: the interpreter's at most 11)")
    print(f"  setup at 100,000: {found['interpreter_setup_100k'] / 1e6:.0f} M, "
          f"{found['setup_over_step_100k']:.1f}x the step   (goal: at most 1)")
    print(f"  the game's indexes at 100,000 (built once per game, kept by its store): "
          f"{found['game_indexes_100k'] / 1e6:.0f} M; with them, the setup is "
          f"{found['setup_with_indexes_over_step_100k']:.1f}x the step")


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="bench/instructions.py", description=__doc__.split("\n")[0])
    parser.add_argument("permanents", nargs="?", type=positive, default=10_000,
                        help="the board's size for the step of every engine (default 10,000)")
    parser.add_argument("--goals", action="store_true", help="count what issue 17's goals compare instead")
    parser.add_argument("--json", action="store_true", help="with --goals: the figures as one JSON object")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: this measure needs it (the timed benchmark is bench/run.py)")
        return 1
    if args.goals:
        found = goals()
        if args.json:
            print(json.dumps(found, indent=2))
        else:
            print_goals(found)
        return 0
    n = args.permanents
    counts = {engine: found for (engine, _n), found in counted([(engine, n) for engine in ENGINES]).items()}
    base = counts["reference"]
    print(f"untap step on {n:,} permanents, machine instructions (valgrind, PYTHONHASHSEED=0)")
    for engine in ENGINES:
        print(f"  {engine:<14} {counts[engine] / 1e6:8.1f} M  {counts[engine] / base:5.2f}x the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
