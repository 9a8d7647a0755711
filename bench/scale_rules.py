"""Time against size for two things issue 43 found out of proportion: `phasing versions` over
many variants on the rules path, and the memory of `phasing diff A B --search N`.

(a) `versions` with N variants (N files `house-NNNNN.rules` in a temporary folder given as
`--rules-path`, each extending 2026-09-25 with an `amend`, every fourth extending the
variant before it instead), beside the time to parse those N files (`dsl.parser.parse_file`
on each). Each figure is taken in a child process of its own, timed around the work alone
(not Python's start-up nor the imports); `versions` prints to /dev/null.

The parse cache (`dsl/cache.py`, the folder `$PHASING_CACHE_DIR`) is controlled, never the
user's own:
- `--cache off` (the default): PHASING_CACHE_DIR names a file, which the cache takes for a
  folder it cannot use (it says so once on stderr, shown only if the child fails): every file is really
  parsed, by `versions` (the shipped rules too) and by the parse alike, and nothing is stored;
- `--cache cold`: every child gets a copy of one cache folder that holds the shipped rules,
  so both really parse the N variants and store them (the folder is looked over once, at the
  first store, and again only when the entries pass the folder's bound: `dsl.cache`);
- `--cache warm`: the copy holds the N variants too, so both only read them from the cache.
Neither child profits from the other's entries.

(b) `search_witness` (what `diff --search N` runs) between 2011-02-04 and 2011-09-30, two
versions no game tells apart, so that all N games are played: the peak memory of the search
and its time, each size in a child process of its own. The peak is the child's maximum
resident set size (`resource.getrusage`), and the growth of it during the search is shown
beside it; `--tracemalloc` takes the peak of memory allocated during the search instead
(several times slower).

    python bench/scale_rules.py [--quick] [--cache off|cold|warm] [--only versions|search] [--repeat K] [--tracemalloc]

The functions `rows_versions(sizes)` and `rows_search_memory(sizes)` give the rows (dicts
with `size`, `seconds`, `parse_seconds`; and `games`, `peak_bytes`, `seconds`) to a driver.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.arguments import ArgumentParser  # noqa: E402

VERSION = "2026-09-25"
VERSION_SIZES = (100, 400, 1000, 2000, 5000)
VERSION_SIZES_QUICK = (25, 50, 100, 200)
SEARCH_SIZES = (1000, 3000, 10000)
SEARCH_SIZES_QUICK = (100, 300)
SEARCH_PAIR = ("2011-02-04", "2011-09-30")  # (the same rules renumbered: no game parts them)
RULES_PATH_ENV = "PHASING_RULES_PATH"  # (unset in the children: only the folder given is on the path)


def variant_text(i: int) -> str:
    """The i-th variant: its own title, note and summary; every fourth extends the one before."""
    name = f"house-{i:05d}"
    extends = f"house-{i - 1:05d}" if i % 4 == 3 else VERSION
    return f'''variant {name} {{
  title "House rule {i}"
  extends {extends}
  note "Variant number {i}: phasing restated."
}}

amend untap-step-phasing {{
  summary "In its controller's untap step ({i}), everything that phased out under that player phases in while a phased-in permanent with phasing phases out."
  replace clause phase-out-and-in: during untap step of P: simultaneously {{
    each x where x.phase is out and x.phased_out_under is P and not x.phased_indirectly: phase_in x
    each x where x.phase is in and x has phasing and x.controller is P: phase_out x
  }}
}}
'''


def write_variants(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"house-{i:05d}.rules"
        path.write_text(variant_text(i), encoding="utf-8")
        paths.append(path)
    return paths


# The children: each prints one JSON object on its last line of stderr's file (given as argv[1]).
_PARSE = """
import json, sys, time
from pathlib import Path
from phasing_rules.dsl.parser import parse_file
paths = sorted(Path(sys.argv[2]).glob("*.rules"))
start, cpu = time.perf_counter(), time.process_time()
for path in paths:
    parse_file(path)
Path(sys.argv[1]).write_text(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""

_VERSIONS = """
import json, sys, time
from pathlib import Path
from phasing_rules.interpreter import cli
start, cpu = time.perf_counter(), time.process_time()
status = cli.main(["versions", "--rules-path", sys.argv[2]])
Path(sys.argv[1]).write_text(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                                         "status": status}))
"""

_PRIME = """
import sys
from phasing_rules.interpreter import cli
sys.exit(cli.main(["versions"] + (["--rules-path", sys.argv[2]] if len(sys.argv) > 2 else [])))
"""

_SEARCH = """
import json, resource, sys, time, tracemalloc
from pathlib import Path
from phasing_rules.interpreter.tools import compare
from phasing_rules.interpreter.rulebook.loading import load_version
a, b = load_version(sys.argv[3]), load_version(sys.argv[4])
games, traced = int(sys.argv[2]), sys.argv[5] == "1"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if traced:
    tracemalloc.start()
start = time.perf_counter()
witness = compare.search_witness(a, b, games)
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1] if traced else None
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
Path(sys.argv[1]).write_text(json.dumps({"seconds": seconds, "maxrss_before": before, "maxrss": after,
                                         "traced_peak": peak, "witness": witness is not None}))
"""


def _child(code: str, args: list[str], cache: Path | None) -> dict:
    """Run `code` in a fresh Python with PHASING_CACHE_DIR=cache; its figures as a dict."""
    env = dict(os.environ)
    if cache is not None:
        env["PHASING_CACHE_DIR"] = str(cache)
    env.pop(RULES_PATH_ENV, None)
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as handle:
        result = Path(handle.name)
    try:
        done = subprocess.run([sys.executable, "-c", code, str(result), *args], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"a child failed (status {done.returncode}):\n{done.stderr[-3000:]}")
        text = result.read_text() if result.stat().st_size else "{}"
        return json.loads(text)
    finally:
        result.unlink(missing_ok=True)


def rows_versions(sizes=VERSION_SIZES, cache: str = "off", repeat: int = 1) -> list[dict]:
    """For each N of `sizes`: `versions` over N variants and the parse of those N files, each
    timed in a child of its own, with the parse cache off, or a copy of the same cache folder
    (`cache` "cold" or "warm": see the module's text). With `repeat` K, each pair of children
    runs K times, one after the other, and each figure is the least of its K (as `timeit`
    reports: what the machine's other work added is left out)."""
    rows = []
    for n in sizes:
        runs = [_rows_versions_once([n], cache)[0] for _ in range(max(1, repeat))]
        rows.append({key: min(r[key] for r in runs) if isinstance(runs[0][key], float) else runs[0][key]
                     for key in runs[0]})
    return rows


def _rows_versions_once(sizes, cache: str) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="phasing-scale-") as scratch:
        scratch = Path(scratch)
        shipped = scratch / "cache-shipped"
        if cache == "off":
            shipped.write_text("not a folder: the parse cache is off\n")
        else:
            _child(_PRIME, [], shipped)  # (the shipped rules in the cache: the same for every N)
        for n in sizes:
            folder = scratch / f"variants-{n}"
            write_variants(folder, n)
            if cache == "off":
                parsed = _child(_PARSE, [str(folder)], shipped)
                listed = _child(_VERSIONS, [str(folder)], shipped)
                rows.append(_row(n, parsed, listed, cache))
                shutil.rmtree(folder, ignore_errors=True)
                continue
            base = scratch / f"cache-{n}"
            shutil.copytree(shipped, base)
            if cache == "warm":
                _child(_PRIME, [str(folder)], base)
            parse_cache, versions_cache = scratch / f"cache-{n}-parse", scratch / f"cache-{n}-versions"
            shutil.copytree(base, parse_cache)
            shutil.copytree(base, versions_cache)
            parsed = _child(_PARSE, [str(folder)], parse_cache)
            listed = _child(_VERSIONS, [str(folder)], versions_cache)
            rows.append(_row(n, parsed, listed, cache))
            for path in (folder, base, parse_cache, versions_cache):
                shutil.rmtree(path, ignore_errors=True)
    return rows


def _row(n: int, parsed: dict, listed: dict, cache: str) -> dict:
    if listed.get("status") != 0:
        raise SystemExit(f"versions over {n} variants ended with status {listed.get('status')}")
    return {"size": n, "seconds": listed["seconds"], "parse_seconds": parsed["seconds"],
            "cpu_seconds": listed["cpu"], "parse_cpu_seconds": parsed["cpu"], "cache": cache}


def rows_search_memory(sizes=SEARCH_SIZES, traced: bool = False, pair=SEARCH_PAIR) -> list[dict]:
    """For each number of games: the search's peak memory and time, in a child of its own.
    `peak_bytes` is the child's maximum resident set size, or with `traced` the peak of
    memory allocated during the search (tracemalloc)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="phasing-scale-") as scratch:
        cache = Path(scratch) / "cache"
        for games in sizes:
            found = _child(_SEARCH, [str(games), pair[0], pair[1], "1" if traced else "0"], cache)
            rows.append({"games": games, "seconds": found["seconds"],
                         "peak_bytes": found["traced_peak"] if traced else found["maxrss"],
                         "growth_bytes": found["maxrss"] - found["maxrss_before"], "witness": found["witness"]})
    return rows


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="bench/scale_rules.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a check that it runs)")
    parser.add_argument("--cache", choices=("off", "cold", "warm"), default="off",
                        help="off: no parse cache; cold: the variants are parsed and stored by each child; "
                             "warm: read from the cache (default off)")
    parser.add_argument("--only", choices=("versions", "search"), help="one of the two benchmarks")
    parser.add_argument("--repeat", type=int, default=1, metavar="K",
                        help="run each child K times and take the least of each figure (default 1)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="the search's peak is that of memory allocated (tracemalloc), not the resident set")
    args = parser.parse_args(argv)
    if args.only in (None, "versions"):
        print(f"phasing versions over N variants on the rules path (parse cache: {args.cache})")
        print("(seconds: wall clock; cpu: the child's processor time, steadier on a shared machine; marginal: "
              "ms per variant added since the row above, flat on a straight line)")
        print(f"{'size':>6} {'seconds':>9} {'parse s':>9} {'ratio':>6} {'cpu s':>9} {'parse cpu':>9} "
              f"{'cpu ratio':>9} {'marginal':>9}")
        before = None
        for size in VERSION_SIZES_QUICK if args.quick else VERSION_SIZES:  # (a row as soon as it is measured)
            [row] = rows_versions([size], args.cache, args.repeat)
            marginal = (f"{1000 * (row['cpu_seconds'] - before['cpu_seconds']) / (size - before['size']):>9.2f}"
                        if before else f"{'':>9}")
            print(f"{row['size']:>6} {row['seconds']:>9.2f} {row['parse_seconds']:>9.2f} "
                  f"{row['seconds'] / row['parse_seconds']:>6.2f} {row['cpu_seconds']:>9.2f} "
                  f"{row['parse_cpu_seconds']:>9.2f} {row['cpu_seconds'] / row['parse_cpu_seconds']:>9.2f} {marginal}",
                  flush=True)
            before = row
    if args.only in (None, "search"):
        if args.only is None:
            print()
        what = "allocated during the search (tracemalloc)" if args.tracemalloc else "maximum resident set"
        print(f"diff {SEARCH_PAIR[0]} {SEARCH_PAIR[1]} --search N: peak memory ({what}) and time")
        print(f"{'games':>6} {'peak':>10} {'growth':>10} {'seconds':>9}")
        for games in SEARCH_SIZES_QUICK if args.quick else SEARCH_SIZES:
            [row] = rows_search_memory([games], args.tracemalloc)
            print(f"{row['games']:>6} {_mb(row['peak_bytes']):>10} {_mb(row['growth_bytes']):>10} "
                  f"{row['seconds']:>9.1f}" + ("  (a witness was found: not every game played)" if row["witness"] else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
