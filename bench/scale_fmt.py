"""`phasing fmt` against the size of the file: rewriting a rule file of N blocks, each in
the older forms, beside parsing the same file.

Issue 43 found fmt quadratic in the number of rewrites (8,000 blocks 118 s, 20,000 more than
10 minutes, while parsing took 5.7 s) and asks for time in proportion to the file: at 20,000
blocks at most twice the parse, and a straight line from the smallest size up. Each block
here needs every kind of rewrite `dsl.migrate` makes, with comments in the text they edit:

- `not # ...` / `(X is visible)` (a comment between `not` and its parenthesis);
- `do VERB X` (a declared verb called the old way);
- a test of every value of `phase` as the whole condition of an `each`, spread over two
  lines with a comment, and as one conjunct of a `count`'s condition;
- `you draws N`, `you gains N life`.

For each size the script times `dsl.migrate.rewrite` (what `phasing fmt` runs on each file:
one parse, then the edits) and `dsl.parser.parse` of the same text, in turn, each the best
of a few runs while they are short, in CPU seconds of the process (see `best_times`), and
prints N, the times and their ratio. `rewrite` pauses Python's cycle collector (which,
left running, makes the time per block grow with the file: `parse` alone shows that bend),
so the parse is also timed so paused, the like-for-like comparison. A bend in the fmt
column, or a ratio that grows with N, is a regression. No test times anything: this is read
by a person (or a driver that calls `rows`).

    python bench/scale_fmt.py [SIZES...] [--quick]
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.arguments import ArgumentParser, positive  # noqa: E402
from phasing_rules.dsl import migrate  # noqa: E402
from phasing_rules.dsl.parser import parse  # noqa: E402

SIZES = (1_000, 2_000, 5_000, 10_000, 20_000)
QUICK_SIZES = (200, 500, 1_000)
VERSION = ROOT / "rules" / "2026-09-25"
BUDGET = 4.0  # seconds of repeated rounds while a round is short (the best run of each is kept)


def block(i: int) -> str:
    """Block `i`: every older form fmt rewrites, comments inside them."""
    return (
        f'rule 999.{i} old-forms-{i} "Older forms, block {i}." {{\n'
        f"  during cleanup of P: {{\n"
        f"    # block {i}\n"
        f"    each x where x.controller is P and not # keep {i}\n"
        f"       (x.attached_to is visible): do phase_out x   # phases out\n"
        f"    each y where y.phase is in or # both values {i}\n"
        f"      y.phase is out: tap y\n"
        f"    if count(z where (z.phase is in or z.phase is out) and z.tapped) > 0: you draws 1\n"
        f"    you gains 1 life\n"
        f"  }}\n"
        f"}}\n"
    )


def text_of(size: int) -> str:
    return "# A rule file in the older forms, for bench/scale_fmt.py.\n\n" + "\n".join(block(i) for i in range(size))


def vocabulary() -> migrate.Vocabulary:
    """The newest version's statuses and hide rules, as `phasing fmt` reads them."""
    return migrate.Vocabulary.of(parse(migrate.read(p), str(p)) for p in sorted(VERSION.glob("*.rules")))


def best_times(*runs: Callable[[], object]) -> list[float]:
    """The shortest time of each of `runs`, run in turn (first, second, first, ...) for a few
    rounds while a round is short (one round when it takes two seconds or more), garbage
    collected before each run so one run's leftovers are not timed in the next. Times are
    the CPU time of this process, which a busy machine shared with others changes far less
    than the clock on the wall; taking turns lets whatever drift there is touch both alike."""
    best = [float("inf")] * len(runs)
    spent = 0.0
    rounds = 0
    while rounds == 0 or (spent / rounds < 2.0 and spent < BUDGET and rounds < 5):
        for i, run in enumerate(runs):
            gc.collect()
            start = time.process_time()
            run()
            took = time.process_time() - start
            best[i] = min(best[i], took)
            spent += took
        rounds += 1
    return best


def parse_paused(text: str):
    """`parse`, with Python's cycle collector paused as `migrate.rewrite` pauses it."""
    running = gc.isenabled()
    gc.disable()
    try:
        return parse(text, "scale.rules")
    finally:
        if running:
            gc.enable()


def rows(sizes) -> list[dict]:
    """For each size N: {"size": N, "seconds": fmt's rewrite of N blocks, "parse_seconds":
    parsing the same text, "parse_paused_seconds": the same with the cycle collector paused
    (as fmt parses), "ratio": fmt's time over the parse's, "ratio_paused": over the paused
    parse's, "rewrites": the forms rewritten, six a block}."""
    words = vocabulary()
    found: list[dict] = []
    for size in sizes:
        text = text_of(size)
        after = migrate.rewrite(text, "scale.rules", words)  # (checked once, untimed)
        left = [old for old in ("do phase_out", "you draws", "you gains", "not #", " or ") if old in after]
        if left or after.count("including hidden") != 2 * size or after.count("is not visible") != size:
            raise SystemExit(f"bench/scale_fmt.py: the rewrite of {size} blocks left older forms: {left}")
        del after
        seconds, parse_seconds, paused = best_times(lambda: migrate.rewrite(text, "scale.rules", words),
                                                    lambda: parse(text, "scale.rules"), lambda: parse_paused(text))
        found.append({"size": size, "seconds": seconds, "parse_seconds": parse_seconds, "parse_paused_seconds": paused,
                      "ratio": seconds / parse_seconds, "ratio_paused": seconds / paused, "rewrites": 6 * size})
    return found


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="bench/scale_fmt.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=positive, metavar="N",
                        help=f"blocks in the file, one row each (default {', '.join(map(str, SIZES))})")
    parser.add_argument("--quick", action="store_true",
                        help=f"small sizes only ({', '.join(map(str, QUICK_SIZES))}), when no size is given")
    args = parser.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    print("CPU seconds; 'paused': the parse with Python's cycle collector paused, as fmt runs it")
    print(f"{'blocks':>8}  {'fmt s':>8}  {'parse s':>8}  {'paused s':>8}  {'fmt/parse':>9}  {'fmt/paused':>10}"
          f"  {'fmt ms per 1,000 blocks':>23}")
    for size in sizes:  # (a row printed as soon as it is measured)
        (row,) = rows([size])
        print(f"{row['size']:>8,}  {row['seconds']:>8.2f}  {row['parse_seconds']:>8.2f}  {row['parse_paused_seconds']:>8.2f}"
              f"  {row['ratio']:>9.2f}  {row['ratio_paused']:>10.2f}  {1e6 * row['seconds'] / row['size']:>23.0f}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
