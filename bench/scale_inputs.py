"""Time against size for the inputs issue 43 found slow out of proportion to their size.

    python bench/scale_inputs.py [--quick] [--case NAME ...] [--sizes N,N,...]

Each case builds inputs of growing size, times the operation on each (the least time of
three runs; one with --quick) and, beside it, the parsing of the same input
(`dsl.parser.parse` of the scenario text, with no parse cache), and prints a table: size,
seconds of the operation, seconds of parsing, their ratio, and the operation's seconds per
1,000 of size. Linear means the ratio stays about level (at most 2 at
the largest size: checking costs no more than parsing again) and the last column stays about
the same from the smallest size up; a quadratic step shows as a ratio and a column that grow
with the size.

Cases (the functions a common driver can call, each returning one dict per size with keys
`size`, `seconds`, `parse_seconds`):

- `chain`: `phasing check` (`api.check_paths`) of a scenario with an N-deep chain of
  attachments, a1 attached to a0, a2 to a1, ... (`rows_chain_check`; the check of the chain is
  `interpreter.play.actions.check_attachments`, CR 301.5 / 303.4);
- `chain-run`: running that scenario (`api.run_file`), which builds the game through the
  same check (`rows_chain_run`);
- `forge-chain`: `phasing import forge` (`interop.forge.import_state`) of a Forge state with
  an N-deep chain of `AttachedTo:` (`rows_forge_chain`); parsing is that of the scenario the
  import makes, which the import parses and checks before handing it back;
- `naming`: `phasing import forge` of N cards of one name, named grizzly_bears,
  grizzly_bears_2, ... by `dsl.builtins.first_free` (`rows_naming`);
- `naming-casts`: `phasing check` of a scenario whose script casts one permanent card N times
  (each cast makes a permanent named by the same rule) (`rows_naming_casts`). The script
  check names them through `first_free`; the type checker's `dsl.checker.made_by_casts` has
  a naming loop of its own, which this case shows as long as it tries every name from the
  first for each cast.

Every measurement reads its input from a new path, so the on-disk parse cache never answers
for it (the timed check parses, as a first check of a file does); the rulebook is loaded once
before the first measurement. --quick runs small sizes only (well under a minute); --sizes
gives the sizes for every case run instead.
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

if __name__ == "__main__":  # (run as a script: the project's root on the path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.arguments import ArgumentParser, positive  # noqa: E402

CHAIN_SIZES = (500, 1_000, 2_000, 5_000)
NAMING_SIZES = (2_000, 5_000, 10_000, 20_000)
CAST_SIZES = (500, 1_000, 2_000, 5_000)
QUICK_CHAIN_SIZES = (50, 100, 200, 400)
QUICK_NAMING_SIZES = (200, 500, 1_000, 2_000)
QUICK_CAST_SIZES = (50, 100, 200, 400)
ROUNDS = 3  # each time is the least of this many runs (a shared machine's noise only ever adds)

ROOT_CARD = "Grizzly Bears"  # the creature at the bottom of a chain
CHAIN_CARD = "Holy Strength"  # an Aura, each attached to the one before it
NAMED_CARD = "Grizzly Bears"  # the card N permanents are made of
NAMED_SLUG = "grizzly_bears"

Row = dict


# ====================================================================== inputs


def chain_scenario(n: int) -> str:
    """A scenario of one creature (a0) and n - 1 Auras, a{i} attached to a{i-1}."""
    lines = ['scenario "a chain of attachments" {', "  players Alice Bob", "  turn 1 of Alice",
             f'  permanent a0 = "{ROOT_CARD}", controller Alice']
    lines += [f'  permanent a{i} = "{CHAIN_CARD}", controller Alice, attached to a{i - 1}' for i in range(1, n)]
    lines += ["  script {", f"    expect a{n - 1}.attached_to is a{n - 2}" if n > 1 else "", "  }", "}"]
    return "\n".join(lines) + "\n"


def forge_chain_state(n: int) -> str:
    """A Forge state of one creature (Id 1) and n - 1 Auras, Id i+1 attached to Id i."""
    cards = [f"{ROOT_CARD}|Id:1"] + [f"{CHAIN_CARD}|Id:{i + 1}|AttachedTo:{i}" for i in range(1, n)]
    return "turn=1\nactiveplayer=human\nhumanbattlefield=" + ";".join(cards) + "\n"


def forge_named_state(n: int) -> str:
    """A Forge state of n cards of one name, none with an Id."""
    return "turn=1\nactiveplayer=human\nhumanbattlefield=" + ";".join([NAMED_CARD] * n) + "\n"


def casts_scenario(n: int) -> str:
    """A scenario whose script casts one permanent card n times."""
    lines = ['scenario "many casts of one card" {', "  players Alice Bob", "  turn 1 of Alice", "  script {"]
    lines += [f'    cast "{NAMED_CARD}" by Alice'] * n
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def permanent_name(k: int) -> str:
    """The name the k-th (from 1) permanent made of NAMED_CARD gets."""
    return NAMED_SLUG if k == 1 else f"{NAMED_SLUG}_{k}"


# ====================================================================== timing


def _fresh_file(folder: Path, name: str, text: str) -> Path:
    """`text` written to a path no measurement has used (the parse cache is keyed by path)."""
    where = Path(tempfile.mkdtemp(dir=folder))
    path = where / name
    path.write_text(text, encoding="utf-8")
    return path


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _measure(folder: Path, name: str, text: str, operation: Callable[[Path], object],
             parsed: Callable[[object], str], rounds: int) -> tuple[float, float, object]:
    """The least time of `rounds` runs of `operation` on `text` (each read from a new path),
    the least time of as many parses of the scenario text `parsed` gives of its result (no
    parse cache: `parse` is not `parse_file`), each parse right after a run so that both see
    the machine alike, and the last run's result."""
    from phasing_rules.dsl.parser import parse

    best, best_parse, result = float("inf"), float("inf"), None
    for _ in range(rounds):
        path = _fresh_file(folder, name, text)
        seconds, result = _timed(lambda: operation(path))
        best = min(best, seconds)
        scenario = parsed(result)
        best_parse = min(best_parse, _timed(lambda: parse(scenario, "bench.scenario"))[0])
    return best, best_parse, result


def _warm() -> None:
    """The rulebook and the card library loaded, and every module imported, before any timing."""
    from phasing_rules.interop import forge  # noqa: F401
    from phasing_rules.interpreter import api

    api.load()


class _Setting:
    """A private parse-cache folder for the measurements (the user's is left alone)."""

    def __enter__(self) -> Path:
        self.folder = tempfile.TemporaryDirectory(prefix="phasing-scale-")
        self.before = os.environ.get("PHASING_CACHE_DIR")
        os.environ["PHASING_CACHE_DIR"] = str(Path(self.folder.name) / "cache")
        _warm()
        return Path(self.folder.name)

    def __exit__(self, *exc) -> None:
        if self.before is None:
            os.environ.pop("PHASING_CACHE_DIR", None)
        else:
            os.environ["PHASING_CACHE_DIR"] = self.before
        self.folder.cleanup()


def _fail(case: str, n: int, what: object) -> None:
    raise SystemExit(f"scale_inputs: {case} at {n}: the operation did not give the right result: {what}")


# ====================================================================== the cases


def _errors(problems) -> list:
    return [d for d in problems if d.kind != "warning"]


def rows_chain_check(sizes=CHAIN_SIZES, rounds: int = ROUNDS) -> list[Row]:
    """`api.check_paths` of a scenario with an N-deep chain of attachments, for each N."""
    from phasing_rules.interpreter import api

    rows = []
    with _Setting() as folder:
        for n in sizes:
            text = chain_scenario(n)
            seconds, parse_seconds, problems = _measure(folder, "chain.scenario", text, lambda path: api.check_paths([path]),
                                                        lambda _: text, rounds)
            if _errors(problems):
                _fail("chain", n, _errors(problems)[:3])
            rows.append({"size": n, "seconds": seconds, "parse_seconds": parse_seconds})
    return rows


def rows_chain_run(sizes=CHAIN_SIZES, rounds: int = ROUNDS) -> list[Row]:
    """`api.run_file` of the same scenario (building the game checks the chain), for each N."""
    from phasing_rules.interpreter import api

    rows = []
    with _Setting() as folder:
        for n in sizes:
            text = chain_scenario(n)
            seconds, parse_seconds, outcomes = _measure(folder, "chain.scenario", text, api.run_file, lambda _: text, rounds)
            if not outcomes or not all(o.passed for o in outcomes):
                _fail("chain-run", n, outcomes)
            rows.append({"size": n, "seconds": seconds, "parse_seconds": parse_seconds})
    return rows


def rows_forge_chain(sizes=CHAIN_SIZES, rounds: int = ROUNDS) -> list[Row]:
    """`import_state` of a Forge state with an N-deep chain of attachments, for each N."""
    from phasing_rules.interop.forge import import_state

    rows = []
    with _Setting() as folder:
        for n in sizes:
            seconds, parse_seconds, result = _measure(folder, "state.txt", forge_chain_state(n), import_state,
                                                      _scenario_made, rounds)
            lines = [line.strip() for line in result.scenario.splitlines() if line.strip().startswith("permanent ")]
            if len(lines) != n or (n > 1 and not lines[-1].endswith(f"attached to {_forge_chain_name(n - 2)}")):
                _fail("forge-chain", n, lines[-1:])
            rows.append({"size": n, "seconds": seconds, "parse_seconds": parse_seconds})
    return rows


def _scenario_made(result) -> str:
    """The scenario an import made (stopping the benchmark when it made none)."""
    if result.errors or result.scenario is None:
        raise SystemExit(f"scale_inputs: the import did not make a scenario: {result.errors[:3]}")
    return result.scenario


def _forge_chain_name(i: int) -> str:
    """The name the import gives the card of Id i + 1 of `forge_chain_state`."""
    return "grizzly_bears" if i == 0 else "holy_strength" if i == 1 else f"holy_strength_{i}"


def rows_naming(sizes=NAMING_SIZES, rounds: int = ROUNDS) -> list[Row]:
    """`import_state` of N cards of one name (each named by `first_free`), for each N."""
    from phasing_rules.interop.forge import import_state

    rows = []
    with _Setting() as folder:
        for n in sizes:
            seconds, parse_seconds, result = _measure(folder, "state.txt", forge_named_state(n), import_state,
                                                      _scenario_made, rounds)
            names = [line.split()[1] for line in result.scenario.splitlines() if line.strip().startswith("permanent ")]
            if names != [permanent_name(k) for k in range(1, n + 1)]:
                _fail("naming", n, names[:3] + names[-3:])
            rows.append({"size": n, "seconds": seconds, "parse_seconds": parse_seconds})
    return rows


def rows_naming_casts(sizes=CAST_SIZES, rounds: int = ROUNDS) -> list[Row]:
    """`api.check_paths` of a scenario casting one permanent card N times, for each N."""
    from phasing_rules.interpreter import api

    rows = []
    with _Setting() as folder:
        for n in sizes:
            text = casts_scenario(n)
            seconds, parse_seconds, problems = _measure(folder, "casts.scenario", text, lambda path: api.check_paths([path]),
                                                        lambda _: text, rounds)
            if _errors(problems):
                _fail("naming-casts", n, _errors(problems)[:3])
            rows.append({"size": n, "seconds": seconds, "parse_seconds": parse_seconds})
    return rows


CASES: dict[str, tuple[str, Callable[..., list[Row]], tuple[int, ...], tuple[int, ...]]] = {
    "chain": ("phasing check, N-deep attachment chain", rows_chain_check, CHAIN_SIZES, QUICK_CHAIN_SIZES),
    "chain-run": ("run of that scenario, N-deep attachment chain", rows_chain_run, CHAIN_SIZES, QUICK_CHAIN_SIZES),
    "forge-chain": ("import forge, N-deep AttachedTo chain", rows_forge_chain, CHAIN_SIZES, QUICK_CHAIN_SIZES),
    "naming": ("import forge, N cards of one name", rows_naming, NAMING_SIZES, QUICK_NAMING_SIZES),
    "naming-casts": ("phasing check, N casts of one permanent card", rows_naming_casts, CAST_SIZES, QUICK_CAST_SIZES),
}


# ====================================================================== the table


def table(title: str, rows: list[Row]) -> str:
    lines = [title, f"{'size':>8} {'seconds':>9} {'parse s':>9} {'ratio':>7} {'s per 1k':>9}"]
    for r in rows:
        ratio = r["seconds"] / r["parse_seconds"] if r["parse_seconds"] else float("inf")
        lines.append(f"{r['size']:>8,} {r['seconds']:>9.3f} {r['parse_seconds']:>9.3f} {ratio:>7.2f} "
                     f"{1000 * r['seconds'] / r['size']:>9.4f}")
    return "\n".join(lines)


def sizes_list(text: str) -> tuple[int, ...]:
    """`500,1000,2000`: whole numbers above 0, separated by commas."""
    return tuple(positive(part.strip()) for part in text.split(","))


sizes_list.__name__ = "list of sizes"  # (how argparse names the type in its error)


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="bench/scale_inputs.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--case", action="append", choices=sorted(CASES),
                        help="a case to run (may be given more than once; default all)")
    parser.add_argument("--sizes", type=sizes_list, help="the sizes to run, e.g. 500,1000,2000 (default: each case's)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    for name in args.case or list(CASES):
        title, rows_of, sizes, quick = CASES[name]
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows = rows_of(args.sizes or (quick if args.quick else sizes), rounds=1 if args.quick else ROUNDS)
        print(table(f"{name}: {title}", rows), flush=True)
        print(flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
