"""Benchmark: load times, the untap step against a hand-written reference, the conformance suite.

    python bench/run.py [--json] [--quick]

Prints one table (or, with --json, one JSON object) of medians of several runs:

- the load time of every shipped version and variant: cold (every in-process cache cleared,
  and any on-disk cache kept out of reach) and warm (a second load in the same process with
  only `load_version`'s cache cleared; and the first load of a new process, which is what a
  second start pays when an on-disk cache exists);
- one untap step on boards of 1,000, 10,000 and 100,000 permanents (bench/boards.py), by
  the interpreter under the 2026-09-25 rulebook, by bench/reference.py and by
  bench/fast_reference.py (the honest yardstick), timed in turn in the same run, with the
  ratios between them (`ratio_fast_10k`, `ratio_fast_100k`: interpreter / fast reference,
  the median over rounds), how each scales from 10,000 to 100,000, and each one's setup
  (timed apart from its step) beside its step at 100,000;
- scenario runs per second over the whole conformance suite;
- peak memory around the 100,000-permanent board.

Every measurement has a time budget: a run that would take longer is stopped and shown as
"> X s", so the script finishes in under five minutes (about one with --quick) whatever the
interpreter's speed. --quick makes fewer runs under tighter budgets and times the loading
of 2026-09-25 only. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TOTAL_BUDGET = 270.0  # seconds for the whole run; the five-minute promise leaves a margin
QUICK_BUDGET = 75.0
SIZES = (1_000, 10_000, 100_000)
SEED = 0
VERSION = "2026-09-25"
DISK_CACHE_ENV = ("HOME", "XDG_CACHE_HOME", "TMPDIR", "PHASING_CACHE_DIR")


# ====================================================================== time budgets


class OverBudget(BaseException):
    """Raised by the alarm inside a measured run (a BaseException, so no `except Exception` eats it)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    def ring(_signum, _frame):
        raise OverBudget()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Clock:
    def __init__(self, total: float):
        self.start = time.perf_counter()
        self.total = total

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float:
        return self.total - self.elapsed()


def repeat(once: Callable[[], float | None], *, max_runs: int, budget: float) -> list[float]:
    """Run `once` (which times its own measured part) at least once and at most `max_runs`
    times, starting another run only while the runs so far plus one more fit in `budget`;
    a run that gives None (it could not be timed) is the last."""
    times: list[float] = []
    spent = 0.0
    while len(times) < max_runs:
        gc.collect()
        started = time.perf_counter()
        measured = once()
        spent += time.perf_counter() - started
        if measured is None:
            break
        times.append(measured)
        if spent + spent / len(times) > budget:
            break
    return times


def median(times: list[float]) -> float:
    return statistics.median(times)


# ====================================================================== loading rulebooks


def clear_load_caches(*, everything: bool) -> None:
    """`load_version`'s cache; with `everything`, also the cards' and the grammar's."""
    from phasing_rules.interpreter.rulebook import loading as rulebook

    caches = [rulebook.load_version]
    if everything:
        from phasing_rules.dsl import parser as dsl_parser

        caches += [rulebook.load_cards, getattr(dsl_parser, "_parser", None)]
    for fn in caches:
        if hasattr(fn, "cache_clear"):
            fn.cache_clear()


def shipped_specs() -> list[str]:
    from phasing_rules.interpreter.rulebook.loading import available_variants, available_versions

    return available_versions() + available_variants()


def child_loads(mode: str, specs: list[str], budget: float, max_rounds: int) -> dict[str, list[float]]:
    """In a child process: the first load of each spec as a fresh process would make it.

    `cold`: the environment points HOME, XDG_CACHE_HOME, TMPDIR and PHASING_CACHE_DIR at an
    empty folder, emptied again before every load, so an on-disk cache kept there can't help.
    `fresh`: the ordinary environment, so an on-disk cache written by earlier loads is used.
    """
    from phasing_rules.interpreter.rulebook.loading import load_version

    scratch = os.environ.get("PHASING_CACHE_DIR") if mode == "cold" else None
    times: dict[str, list[float]] = {s: [] for s in specs}
    spent = 0.0
    for _round in range(max_rounds):
        started = time.perf_counter()
        for spec in specs:
            if scratch:
                for entry in Path(scratch).iterdir():
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
            clear_load_caches(everything=True)
            gc.collect()
            t0 = time.perf_counter()
            load_version(spec)
            times[spec].append(time.perf_counter() - t0)
        spent += time.perf_counter() - started
        if spent * (1 + 1 / (_round + 1)) > budget:
            break
    return times


def spawn_loads(mode: str, specs: list[str], budget: float, max_rounds: int) -> dict[str, list[float]]:
    env = dict(os.environ)
    scratch = None
    if mode == "cold":
        scratch = tempfile.mkdtemp(prefix="phasing-bench-cold-")
        env.update({name: scratch for name in DISK_CACHE_ENV})
    try:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child-loads", mode, "--budget", str(budget),
             "--rounds", str(max_rounds), *specs],
            env=env, capture_output=True, text=True, timeout=budget * 3 + 120, cwd=str(ROOT),
        )
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} load measurement failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_loads(specs: list[str], quick: bool, progress) -> dict[str, Any]:
    from phasing_rules.interpreter.rulebook.loading import load_version

    progress("loading rulebooks cold (in a child process, caches out of reach)")
    cold = spawn_loads("cold", specs, budget=15 if quick else 50, max_rounds=1 if quick else 3)

    progress("loading rulebooks warm (same process)")
    warm: dict[str, list[float]] = {}
    for spec in specs:
        load_version(spec)  # the cards and the grammar are now cached (and any on-disk cache written)

        def once(spec=spec) -> float:
            clear_load_caches(everything=False)
            t0 = time.perf_counter()
            load_version(spec)
            return time.perf_counter() - t0

        warm[spec] = repeat(once, max_runs=1 if quick else 5, budget=1.0)

    # What a second process start pays: a new process's first load, after this one has loaded
    # everything. Without an on-disk cache that is the cold time, so it is probed on one version
    # and measured for all only when it comes out clearly faster than cold.
    progress("loading rulebooks in a new process (does an on-disk cache help?)")
    probe_spec = VERSION if VERSION in specs else specs[-1]
    probe = spawn_loads("fresh", [probe_spec], budget=5, max_rounds=1 if quick else 3)[probe_spec]
    disk_cache = median(probe) < 0.5 * median(cold[probe_spec])
    if disk_cache and len(specs) > 1:
        fresh = spawn_loads("fresh", specs, budget=15 if quick else 30, max_rounds=1 if quick else 3)
    else:
        fresh = {probe_spec: probe}
    return {"cold": cold, "warm": warm, "fresh": fresh, "disk_cache": disk_cache, "probe": probe_spec}


# ====================================================================== the untap step


def interpreter_run(book, game, player: str, cap: float, observe: bool = False) -> dict[str, Any]:
    """One untap step by the interpreter, capped at `cap` seconds: the time, or how it ended;
    its setup's time (making the Engine on the game, and its first state check: the game's
    indexes, which its store keeps, are built before the rounds, `game_indexes`); with
    `observe`, what the step leaves (`engines.observed`). The engine plays on `game` itself,
    which is then set back to where it started through its journal (`Store.undo`): every
    round, and the references, start from the same board without copying it."""
    from bench.engines import observed
    from phasing_rules.interpreter.engine.engine import Engine, RulesError
    from phasing_rules.interpreter.game.store import store_of

    store = store_of(game)
    start = store.mark()
    try:
        gc.collect()
        t0 = time.perf_counter()
        engine = Engine(book, game)
        engine.settle()  # the board as play leaves it before the step: state-based actions checked
        setup = time.perf_counter() - t0
        gc.collect()
        t0 = time.perf_counter()
        try:
            with time_limit(cap):
                engine.run_hook("untap step", player)
        except OverBudget:
            return {"over": cap, "setup": setup}
        except RulesError as exc:
            return {"error": exc.diagnostics[0].message, "after": time.perf_counter() - t0, "setup": setup}
        elapsed = time.perf_counter() - t0
        return {"time": elapsed, "observed": observed(game.objects) if observe else None, "setup": setup}
    finally:
        store.undo(start)


def game_indexes(book, game) -> float:
    """Build the game's indexes for the rulebook's statuses, which the game's store keeps
    (`interpreter.program.indexes.indexes_of`) for every engine on the game, if they are not built:
    the time it took (about none when an earlier measurement on the board built them)."""
    from phasing_rules.interpreter.program.indexes import indexes_of
    from phasing_rules.interpreter.program.program import Program

    defaults = Program.of(book, "generated").defaults
    gc.collect()
    t0 = time.perf_counter()
    indexes_of(game, defaults).ready()
    return time.perf_counter() - t0


def reference_run(game, player: str, state_based: bool) -> tuple[float, dict]:
    """One untap step by the reference: the time, and the objects it leaves. (It reads the
    game as it is and makes new objects for what changes, so it has no setup.)"""
    from bench.reference import untap_step

    gc.collect()
    t0 = time.perf_counter()
    objects = untap_step(game, player, state_based=state_based)
    return time.perf_counter() - t0, objects


def fast_run(game, player: str, state_based: bool) -> tuple[float, float, Any]:
    """One untap step by the fast reference: its setup's time (the conversion of the game into
    its own objects and indexes, and with `state_based` a first state check of everything, as
    the interpreter's setup makes), the step's time, and the board it leaves."""
    from bench.fast_reference import Board

    gc.collect()
    t0 = time.perf_counter()
    board = Board.from_game(game)
    if state_based:
        board.settle()
    setup = time.perf_counter() - t0
    gc.collect()
    t0 = time.perf_counter()
    board.untap_step(player, state_based=state_based)
    return setup, time.perf_counter() - t0, board


def measure_in_turn(book, game, player: str, state_based: bool, *, cap: float, budget: float,
                    max_rounds: int) -> tuple[list[float], dict[str, Any], dict[str, Any]]:
    """The reference, the fast reference and the interpreter timed in turn, one run of each per
    round (`repeat`), so that all see the machine as it is at the time: its speed drifts. The
    first runs of the fast reference and of the interpreter are checked against the reference's
    result. (reference times; fast reference entry: its times, setup times and whether the
    states agree; interpreter entry: its times, setup times, the ratio to the fast reference
    of each round, and whether the states agree, or how its run ended.)"""
    from bench.engines import observed

    ref_times: list[float] = []
    fast: dict[str, Any] = {"times": [], "setup": []}
    interp: dict[str, Any] = {"times": [], "setup": [], "ratio_fast": []}

    def one_round() -> float | None:
        ref_time, ref_objects = reference_run(game, player, state_based)
        ref_times.append(ref_time)
        expected = observed(ref_objects) if not interp["times"] else None
        del ref_objects  # (freed before the next clock starts)
        fast_setup, fast_time, board = fast_run(game, player, state_based)
        fast["times"].append(fast_time)
        fast["setup"].append(fast_setup)
        if expected is not None:
            fast["same"] = board.observed() == expected
        del board
        run = interpreter_run(book, game, player, cap, observe=expected is not None)
        interp["setup"].append(run["setup"])
        if "time" not in run:
            if not interp["times"]:  # stopped at its cap, or an error: no time to show
                interp.update((k, v) for k, v in run.items() if k != "setup")
            return None
        if expected is not None:
            interp["same"] = run["observed"] == expected
        interp["times"].append(run["time"])
        interp["ratio_fast"].append(run["time"] / fast_time)
        return ref_time + fast_time + run["time"]

    repeat(one_round, max_runs=max_rounds, budget=budget)
    return ref_times, fast, interp


def measure_untap(boards: dict[int, Any], clock: Clock, quick: bool, progress) -> dict[str, Any]:
    from bench.engines import full_book, without_state_checks

    books = {"full": full_book()}
    books["no-sba"] = without_state_checks(books["full"])
    variants = (("full", True), ("no-sba", False))  # (rulebook, the reference's state_based)
    results: dict[str, Any] = {}
    measurements_left = len(boards) * len(variants)
    reserve = 12.0 if quick else 25.0  # for the memory section and printing
    caps = {1_000: 10.0, 10_000: 15.0 if quick else 20.0, 100_000: 10.0 if quick else 45.0}
    for n, game in boards.items():
        player = game.active
        indexes_s = None  # (the first build of the game's indexes: the variants share them)
        for name, state_based in variants:
            progress(f"untap step, {n:,} permanents, {'full rulebook' if name == 'full' else 'without state checks'}")
            share = max(2.0, (clock.left() - reserve) / measurements_left)
            cap = min(caps[n], share)
            built = game_indexes(books[name], game)
            indexes_s = built if indexes_s is None else indexes_s
            ref_times, fast, interp = measure_in_turn(books[name], game, player, state_based, cap=cap,
                                                      budget=share, max_rounds=3 if quick else 7)
            measurements_left -= 1
            results[f"{n}/{name}"] = {"n": n, "variant": name, "reference": ref_times, "fast": fast,
                                      "interpreter": {**interp, "indexes": indexes_s}}
    return results


def measure_models(game, clock: Clock, quick: bool, progress) -> dict[str, Any]:
    """The hand-written models of the engine's design (bench/set_model.py, fused_model.py,
    journal_floor.py) on the 10,000-permanent board, each timed in turn with the fast
    reference (their own `one_round`): per model, the median over rounds of model ÷ fast
    reference in the same round, and whether every round ended in the same state."""
    from bench import fused_model, journal_floor, set_model

    results: dict[str, Any] = {}
    for name, module in (("set_model", set_model), ("fused_model", fused_model), ("journal_floor", journal_floor)):
        progress(f"hand-written model: bench/{name}.py, 10,000 permanents")
        ratios: list[float] = []
        same = True

        def one_round() -> float:
            nonlocal same
            model_time, fast_time, agreed, _note = module.one_round(game, game.active)
            same = same and agreed
            ratios.append(model_time / fast_time)
            return model_time

        repeat(one_round, max_runs=3 if quick else 7, budget=max(1.0, min(6.0, clock.left() / 20)))
        results[name] = {"ratio_fast": median(ratios) if ratios else None, "rounds": len(ratios), "same_state": same}
    return results


# ====================================================================== suite and memory


def measure_suite(quick: bool, progress) -> dict[str, Any]:
    from phasing_rules.interpreter.rulebook.loading import load_version
    from phasing_rules.interpreter.play.suite import collect, run_all

    progress("conformance suite")
    cases, problems = collect([ROOT / "tests" / "scenarios"])
    for spec in shipped_specs():
        load_version(spec)  # loading is measured above; here only the runs count
    outcomes: list = []

    def once() -> float:
        nonlocal outcomes
        t0 = time.perf_counter()
        outcomes = list(run_all(cases))
        return time.perf_counter() - t0

    times = repeat(once, max_runs=1 if quick else 3, budget=12 if quick else 30)
    return {"scenarios": len(cases), "runs": len(outcomes), "passed": sum(o.passed for o in outcomes),
            "problems": len(problems), "times": times}


def measure_memory(game, clock: Clock, quick: bool, progress) -> dict[str, Any]:
    from bench.engines import full_book
    from bench.reference import untap_step
    from phasing_rules.interpreter.engine.engine import Engine

    progress("memory, 100,000 permanents")
    out: dict[str, Any] = {}
    gc.collect()
    tracemalloc.start()
    untap_step(game, game.active, state_based=True)
    out["reference_peak"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    # as in a long run: the journal kept only since the step began (a checkpoint)
    engine = Engine(full_book(), game.copy(), journal="checkpoint")
    engine.settle()  # as for the timings: the board as play leaves it before the step
    engine.begin_step()
    cap = max(2.0, min(10.0 if quick else 40.0, clock.left() - 8))
    gc.collect()
    tracemalloc.start()
    try:
        with time_limit(cap):
            engine.run_hook("untap step", game.active)
        out["interpreter_over"] = None
    except OverBudget:
        out["interpreter_over"] = cap
    except Exception as exc:  # a rules error at this size is reported with the timings
        out["interpreter_over"] = None
        out["interpreter_error"] = str(exc)
    out["interpreter_peak"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del engine
    out["max_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    return out


def build_boards(sizes, progress) -> tuple[dict[int, Any], dict[str, Any]]:
    from bench.boards import build_board, describe

    boards, info = {}, {}
    for n in sizes:
        progress(f"building a board of {n:,} permanents")
        if n == max(sizes):
            gc.collect()
            tracemalloc.start()
            t0 = time.perf_counter()
            boards[n] = build_board(n, SEED)
            built = time.perf_counter() - t0
            info["board_bytes"] = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
        else:
            t0 = time.perf_counter()
            boards[n] = build_board(n, SEED)
            built = time.perf_counter() - t0
        info[n] = {**describe(boards[n]), "build_seconds": round(built, 2)}
    return boards, info


# ====================================================================== report


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1e3:,.1f} ms"
    return f"{seconds:,.2f} s"


def fmt_bytes(n: float | None) -> str:
    return "—" if n is None else f"{n / 2**20:,.1f} MB"


def untap_figures(entry: dict) -> dict[str, Any]:
    interp = entry["interpreter"]
    fast = entry["fast"]
    ref = median(entry["reference"])
    fast_t = median(fast["times"])
    fig: dict[str, Any] = {"reference_s": ref, "reference_runs": len(entry["reference"]),
                           "fast_reference_s": fast_t, "fast_reference_runs": len(fast["times"]),
                           "fast_reference_setup_s": median(fast["setup"]),
                           "fast_reference_same_result": fast["same"],
                           "reference_over_fast_reference": ref / fast_t,
                           "interpreter_setup_s": median(interp["setup"]) if interp["setup"] else None,
                           "interpreter_indexes_s": interp.get("indexes")}
    if interp["times"]:
        t = median(interp["times"])
        fig.update(interpreter_s=t, interpreter_runs=len(interp["times"]), ratio=t / ref,
                   ratio_fast=median(interp["ratio_fast"]), same_result=interp["same"])
    elif "over" in interp:
        fig.update(interpreter_s=None, interpreter_over_s=interp["over"], ratio_over=interp["over"] / ref,
                   ratio_fast_over=interp["over"] / fast_t)
    else:
        fig.update(interpreter_s=None, interpreter_error=interp["error"], error_after_s=interp["after"])
    return fig


def scaling(small: dict, big: dict, key: str) -> tuple[float | None, float | None]:
    """(time(big)/time(small), lower bound when the big run was stopped at its cap)."""
    a = small.get(f"{key}_s")
    if a is None:
        return None, None
    b = big.get(f"{key}_s")
    if b is not None:
        return b / a, None
    if big.get(f"{key}_over_s") is not None:
        return None, big[f"{key}_over_s"] / a
    return None, None


def summarise(loads, untap, suite, memory, boards_info, elapsed, quick, models=None) -> dict[str, Any]:
    specs = list(loads["cold"])
    load_rows = {}
    for spec in specs:
        load_rows[spec] = {
            "cold_ms": median(loads["cold"][spec]) * 1e3,
            "warm_same_process_ms": median(loads["warm"][spec]) * 1e3,
            "warm_new_process_ms": median(loads["fresh"][spec]) * 1e3 if spec in loads["fresh"] else None,
            "runs": [len(loads["cold"][spec]), len(loads["warm"][spec])] + (
                [len(loads["fresh"][spec])] if spec in loads["fresh"] else []),
        }
        load_rows[spec]["warm_ms"] = (load_rows[spec]["warm_new_process_ms"] if loads["disk_cache"]
                                      else load_rows[spec]["warm_same_process_ms"])
    figures = {key: untap_figures(entry) for key, entry in untap.items()}
    scale = {}
    for variant in ("full", "no-sba"):
        small, big = figures.get(f"10000/{variant}"), figures.get(f"100000/{variant}")
        if small and big:
            for who in ("interpreter", "reference", "fast_reference"):
                exact, lower = scaling(small, big, who)
                scale[f"{who}/{variant}"] = {"factor": exact, "at_least": lower}
    ten = figures.get("10000/full", {})
    hundred = figures.get("100000/full", {})
    suite_time = median(suite["times"])
    return {
        "quick": quick,
        "seconds": round(elapsed, 1),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "loads": load_rows,
        "warm_kind": "new process (on-disk cache detected)" if loads["disk_cache"] else "same process",
        "disk_cache_detected": loads["disk_cache"],
        "boards": {str(k): v for k, v in boards_info.items() if isinstance(k, int)},
        "untap": figures,
        "ratio_10k": ten.get("ratio"),
        "ratio_10k_at_least": ten.get("ratio_over"),
        "ratio_10k_without_state_checks": figures.get("10000/no-sba", {}).get("ratio"),
        "scaling_interpreter": scale.get("interpreter/full", {}).get("factor"),
        "scaling_interpreter_at_least": scale.get("interpreter/full", {}).get("at_least"),
        "scaling_reference": scale.get("reference/full", {}).get("factor"),
        "ratio_fast_10k": ten.get("ratio_fast"),
        "ratio_fast_10k_at_least": ten.get("ratio_fast_over"),
        "ratio_fast_10k_without_state_checks": figures.get("10000/no-sba", {}).get("ratio_fast"),
        "ratio_fast_100k": hundred.get("ratio_fast"),
        "ratio_fast_100k_at_least": hundred.get("ratio_fast_over"),
        "scaling_fast_reference": scale.get("fast_reference/full", {}).get("factor"),
        "setup_100k": {
            "interpreter": {"setup_s": hundred.get("interpreter_setup_s"), "step_s": hundred.get("interpreter_s"),
                            "step_over_s": hundred.get("interpreter_over_s"),
                            "game_indexes_s": hundred.get("interpreter_indexes_s")},
            "fast_reference": {"setup_s": hundred.get("fast_reference_setup_s"),
                               "step_s": hundred.get("fast_reference_s")},
            "reference": {"setup_s": 0.0 if hundred else None, "step_s": hundred.get("reference_s")},
        },
        "scaling": scale,
        "models_10k": models or {},
        "suite": {"scenarios": suite["scenarios"], "runs": suite["runs"], "passed": suite["passed"],
                  "seconds": suite_time, "runs_per_second": suite["runs"] / suite_time,
                  "repeats": len(suite["times"])},
        "memory": {"board_100k_bytes": boards_info.get("board_bytes"), **memory},
    }


def print_table(s: dict[str, Any]) -> None:
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=132)
    table = Table(box=box.SIMPLE_HEAD, title="phasing-rules benchmark" + (" (--quick)" if s["quick"] else ""),
                  title_justify="left", show_header=False)
    for name, justify in (("", "left"), ("interpreter", "right"), ("reference", "right"), ("fast reference", "right"),
                          ("ratio", "right"), ("ratio fast", "right"), ("notes", "left")):
        table.add_column(name, justify=justify)

    def head(*cells: str) -> None:
        table.add_row(*[f"[bold cyan]{c}[/]" for c in cells])

    def times(x: float | None) -> str:
        return "—" if x is None else f"{x:.1f}×" if x < 10 else f"{x:,.0f}×"

    head("load (median)", "cold", "warm¹", "new process²", "", "", "runs cold/warm/new")
    for spec, row in s["loads"].items():
        table.add_row(spec, fmt_time(row["cold_ms"] / 1e3), fmt_time(row["warm_same_process_ms"] / 1e3),
                      fmt_time(row["warm_new_process_ms"] / 1e3) if row["warm_new_process_ms"] is not None else "",
                      "", "", "/".join(map(str, row["runs"])))
    table.add_section()
    head("untap step (median)³", "interpreter", "reference", "fast ref.⁵", "÷ ref.", "÷ fast⁵",
         "runs interp/ref/fast, result check")
    labels = {"full": "full rulebook", "no-sba": "no state checks"}
    for key, f in s["untap"].items():
        n, variant = key.split("/")
        label = f"{int(n):,} · {labels[variant]}"
        ref = fmt_time(f["reference_s"])
        fast = fmt_time(f["fast_reference_s"])
        fast_check = "" if f["fast_reference_same_result"] else "; [red]FAST REFERENCE: DIFFERENT STATE[/]"
        if f["interpreter_s"] is not None:
            check = "same state" if f["same_result"] else "[red]DIFFERENT STATE[/]"
            table.add_row(label, fmt_time(f["interpreter_s"]), ref, fast, times(f["ratio"]), times(f["ratio_fast"]),
                          f"{f['interpreter_runs']}/{f['reference_runs']}/{f['fast_reference_runs']}, {check}"
                          + fast_check)
        elif "interpreter_over_s" in f:
            table.add_row(label, f"> {f['interpreter_over_s']:.0f} s", ref, fast, f"> {f['ratio_over']:,.0f}×",
                          f"> {f['ratio_fast_over']:,.0f}×",
                          f"stopped at its time budget/{f['reference_runs']}/{f['fast_reference_runs']}" + fast_check)
        else:
            table.add_row(label, f"error after {fmt_time(f['error_after_s'])}", ref, fast, "—", "—",
                          f"[red]{escape(f['interpreter_error'][:60])}[/]")
    for variant in ("full", "no-sba"):
        shown = []
        for who in ("interpreter", "reference", "fast_reference"):
            sc = s["scaling"].get(f"{who}/{variant}", {})
            shown.append(f"{sc['factor']:.1f}×" if sc.get("factor") is not None
                         else f"> {sc['at_least']:.1f}×" if sc.get("at_least") is not None else "—")
        table.add_row(f"100k ÷ 10k · {labels[variant]}", *shown, "", "", "scaling: linear would be 10×")
    head("setup, 100,000 (median)⁶", "interpreter", "reference", "fast ref.", "", "", "")
    for variant in ("full", "no-sba"):
        f = s["untap"].get(f"100000/{variant}")
        if not f:
            continue
        ratios = []
        for who, name in (("interpreter", "interp."), ("fast_reference", "fast")):
            setup, step = f.get(f"{who}_setup_s"), f.get(f"{who}_s")
            if setup is not None and step:
                ratios.append(f"{name} {times(setup / step)}")
        steps = ", ".join(ratios) + " its step" if ratios else ""
        if f.get("interpreter_indexes_s") is not None:
            steps += f"; the game's indexes {fmt_time(f['interpreter_indexes_s'])}, once"
        table.add_row(f"100,000 · {labels[variant]}", fmt_time(f["interpreter_setup_s"]), "none",
                      fmt_time(f["fast_reference_setup_s"]), "", "", steps)
    table.add_section()
    if s["models_10k"]:
        head("the design, by hand, 10,000⁷", "", "", "", "", "÷ fast", "")
        for name, what in (("set_model", "set by set"), ("fused_model", "fused, indexes per selection"),
                           ("journal_floor", "fast ref. + journal, no checks")):
            m = s["models_10k"].get(name)
            if m:
                table.add_row(what, "", "", "", "", times(m["ratio_fast"]),
                              f"{name}.py, {m['rounds']} rounds" + ("" if m["same_state"] else ", STATES DIFFER"))
        table.add_section()
    su = s["suite"]
    head("conformance suite", "runs / s", "", "", "", "", "")
    table.add_row(f"{su['scenarios']} scenarios, {su['runs']} runs", f"{su['runs_per_second']:,.1f}", "", "", "", "",
                  f"{su['passed']}/{su['runs']} pass, {fmt_time(su['seconds'])} per suite, {su['repeats']} repeats⁴")
    table.add_section()
    m = s["memory"]
    head("memory, 100,000 permanents", "interpreter", "reference", "", "", "", "")
    table.add_row("the board itself", fmt_bytes(m["board_100k_bytes"]), "", "", "", "", "tracemalloc, while building it")
    interp_peak = fmt_bytes(m["interpreter_peak"])
    if m.get("interpreter_over"):
        interp_peak = f"≥ {interp_peak}"
    table.add_row("peak during one untap step", interp_peak, fmt_bytes(m["reference_peak"]), "", "", "",
                  "tracemalloc, above the board" + (f"; interpreter stopped at {m['interpreter_over']:.0f} s"
                                                     if m.get("interpreter_over") else ""))
    table.add_row("process max RSS", fmt_bytes(m["max_rss"]), "", "", "", "", "whole run (getrusage)")
    console.print(table)
    notes = [
        "¹ warm: a second load in the same process, only load_version's cache cleared (the cards and the "
        "grammar stay cached).",
        "² new process: the first load in a fresh process once every version has been loaded, imports not "
        "counted: what a second start pays. "
        + ("An on-disk cache was detected, so it is measured for every version."
           if s["disk_cache_detected"] else
           f"It comes out like cold (no on-disk cache detected), so it is measured for {next(k for k, r in s['loads'].items() if r['warm_new_process_ms'] is not None)} only."),
        "  cold: every in-process cache cleared (load_version, load_cards, the Lark parser), in a child "
        "process whose HOME, XDG_CACHE_HOME, TMPDIR and PHASING_CACHE_DIR point at an emptied folder.",
        "³ interpreter: Engine(rulebook, game).run_hook('untap step', P) under 2026-09-25 ('full rulebook'), "
        "which runs 702.26a, 702.26n and 502.3 and then the state-based actions until nothing changes; 'no state "
        "checks' is the same rulebook without its state-check blocks, so the run only phases and untaps. The engine "
        "has checked state-based actions on the board once before the clock starts, as play would have, and the "
        "board is set back afterwards through the game's journal (Store.undo). reference: "
        "bench/reference.py, with its 704.5m/n/d pass for 'full rulebook' and without it for 'no state checks'. "
        "The three are timed in turn (a reference run, a fast reference run, then an interpreter run, each round), "
        "so that all see the machine at the same speed. The states after the first interpreter and fast reference "
        "runs are compared with the reference's (phase, phased_indirectly, phased_out_under, tapped, attached_to, "
        "zone of every object).",
        "⁴ scenario runs: every scenario under every version it names; rulebooks already loaded.",
        "⁵ fast reference: bench/fast_reference.py, the same rules on its own mutable objects with indexes kept "
        "across steps, its state checks only for what changed: the honest yardstick. '÷ fast' is the median over "
        "rounds of interpreter ÷ fast reference in the same round (ratio_fast_10k and ratio_fast_100k in --json).",
        "⁶ setup: what each takes before its clock starts, timed apart. interpreter: Engine(rulebook, game) and "
        "its first state check (Engine.settle); the game's indexes, which the game's store keeps for every engine "
        "on it, are built once per board before the rounds and shown apart ('once'). fast reference: the conversion of the game into its "
        "objects and indexes (Board.from_game), and for 'full rulebook' a first state check of everything. "
        "reference: none, it reads the game's objects as they are and makes new ones for what it changes.",
        "⁷ the design of the engine's next step, hand-written and timed in turn with the fast reference: "
        "bench/set_model.py (batches set by set), bench/fused_model.py (set by set, fused, an index per selection, "
        "a journal in bulk, all the rulebook's state-based actions), bench/journal_floor.py (the fast reference "
        "with one journal entry per write, without state checks): what the interpreter could reach "
        "(models_10k in --json; see docs/performance.md).",
        f"boards: seed {SEED}; " + "; ".join(f"{int(n):,}: {b['players']} players, {b['attachments']:,} attached, "
                                              f"{b['with_phasing']:,} with phasing, {b['phased_out']:,} phased out"
                                              for n, b in s["boards"].items()) + ".",
        f"{s['cpus']} CPUs, Python {s['python']}, {s['seconds']:.0f} s in all.",
    ]
    for line in notes:
        console.print(line, style="dim", highlight=False)


# ====================================================================== main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--quick", action="store_true", help="fewer runs, tighter budgets, and load times for 2026-09-25 only (about a minute)")
    parser.add_argument("--child-loads", choices=("cold", "fresh"), help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=float, default=30.0, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("specs", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child_loads:
        print(json.dumps(child_loads(args.child_loads, args.specs, args.budget, args.rounds)))
        return 0

    clock = Clock(QUICK_BUDGET if args.quick else TOTAL_BUDGET)
    from rich.console import Console

    err = Console(stderr=True)

    def progress(text: str) -> None:
        err.print(f"[dim]{clock.elapsed():6.1f} s  {text}[/]", highlight=False)

    specs = shipped_specs()
    if args.quick:
        specs = [VERSION]
    loads = measure_loads(specs, args.quick, progress)
    suite = measure_suite(args.quick, progress)
    boards, boards_info = build_boards(SIZES, progress)
    untap = measure_untap(boards, clock, args.quick, progress)
    models = measure_models(boards[10_000], clock, args.quick, progress)
    memory = measure_memory(boards[max(SIZES)], clock, args.quick, progress)
    summary = summarise(loads, untap, suite, memory, boards_info, clock.elapsed(), args.quick, models)
    progress("done")
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        print_table(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
