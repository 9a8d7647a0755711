"""Runaway rules against the step budget: how long they take to stop, and the memory they use.

Each case adds one block, written by this script into a temporary folder, to the current
rulebook, and runs the untap step on a board of permanents (`bench.boards`):

- four `each` nested over the board (without budgets: billions of visits, gigabytes of writes);
- `count(...)` nested four deep in a selection's condition (without budgets: hangs);
- one block of 5,000 statements, which is finite and must run to the end.

Every case runs in a child process of its own, so that its peak memory is its own: the
figures are the wall-clock time from the start of the step to the error (or the end), the
child's maximum resident set size (`resource.getrusage`, the interpreter and rulebook
included), and the peak of memory allocated during the step (`tracemalloc`, a second run).

    python bench/runaway.py [--permanents N] [--budget TEXT]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

VERSION = "2026-09-25"
STATEMENTS = 5_000


def nested_each(depth: int = 4) -> str:
    names = "abcdefgh"[:depth]
    loops = " ".join(f"each {n} where {n}.controller is P:" for n in names)
    return f"  during untap step of P: {loops} tap {names[-1]}\n"


def nested_count(depth: int = 4) -> str:
    """`each a where count(b where count(c where count(d where d.controller is P) > 0) > 0) > 0`."""
    names = "abcdefgh"[:depth]
    expr = f"{names[-1]}.controller is P"
    for n in reversed(names[1:]):
        expr = f"count({n} where {expr}) > 0"
    return f"  during untap step of P: each {names[0]} where {expr}: tap {names[0]}\n"


def long_block(statements: int = STATEMENTS) -> str:
    """A block of `statements` statements, each its own event: tap, then untap, every
    permanent the active player controls, over and over (finite: it ends)."""
    lines = [f"    each x where x.controller is P: {'tap' if i % 2 == 0 else 'untap'} x\n" for i in range(statements)]
    return "  during untap step of P: {\n" + "".join(lines) + "  }\n"


CASES = {
    "four nested each": nested_each(),
    "nested count": nested_count(),
    f"a block of {STATEMENTS:,} statements": long_block(),
}


def rule_text(clause: str) -> str:
    return f'rule 100.1 runaway "A block added to the rulebook to see the step budget at work." {{\n{clause}}}\n'


def book_with(path: Path):
    """The current rulebook with the block in file `path` added."""
    from phasing_rules.dsl.parser import parse
    from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, assemble, load_cards

    modules = [parse(p.read_text(encoding="utf-8"), str(p)) for p in sorted((RULES_ROOT / VERSION).glob("*.rules"))]
    modules.append(parse(path.read_text(encoding="utf-8"), str(path)))
    return assemble(modules, folder=None, cards=load_cards())


def child(case: str, permanents: int, budget_text: str | None) -> dict:
    """Run one case (in this process) and return its figures."""
    from bench.boards import build_board
    from phasing_rules.dsl.diagnostics import DiagnosticError
    from phasing_rules.interpreter.game.budget import Budget
    from phasing_rules.interpreter.engine.engine import Engine

    budget = Budget.from_option(budget_text) if budget_text else None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runaway.rules"
        path.write_text(rule_text(CASES[case]), encoding="utf-8")
        book = book_with(path)
        game = build_board(permanents, 0)
        player = game.active

        def run() -> tuple[float, str]:
            engine = Engine(book, game.copy(), budget)
            engine.settle()
            engine.begin_step()
            start = time.perf_counter()
            try:
                engine.run_hook("untap step", player)
                outcome = "ran to the end"
            except DiagnosticError as exc:
                outcome = exc.diagnostics[0].render({str(path): path.read_text(encoding="utf-8")})
            return time.perf_counter() - start, outcome

        seconds, outcome = run()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # (Linux: kilobytes)
        tracemalloc.start()
        run()
        _now, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return {"case": case, "seconds": seconds, "max_rss": rss, "peak_traced": peak, "outcome": outcome}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--permanents", type=int, default=200, help="permanents on the board (default 200)")
    parser.add_argument("--budget", help="a --budget value for the engine (default: the default budget)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.permanents, args.budget)))
        return 0
    print(f"runaway rules, {args.permanents:,} permanents, rulebook {VERSION} plus one block, "
          f"budget {args.budget or 'default'}")
    for case in CASES:
        command = [sys.executable, __file__, "--child", case, "--permanents", str(args.permanents)]
        if args.budget:
            command += ["--budget", args.budget]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            print(f"\n{case}: the child failed (exit {done.returncode})\n{done.stderr}")
            return 1
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"\n{case}: {figures['seconds']:.2f} s, max RSS {figures['max_rss'] / 2**20:.0f} MB, "
              f"peak allocated during the step {figures['peak_traced'] / 2**20:.1f} MB")
        print("  " + figures["outcome"].replace("\n", "\n  "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
