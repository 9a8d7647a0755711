"""Work in proportion to the input (issue 43): `phasing versions` over many variants on the rules
path, and the memory of `phasing diff --search N`.

Nothing here is timed. Each test counts what the work is made of (the rulebooks checked, the
files parsed, the folder listings made, the games one run of Hypothesis plays and whether it
outlives its round), so that it fails on the old code, which listed the whole rules path at
every name it looked up, resolved and checked the version a variant extends again for every
variant, and played every game of a search in one run of Hypothesis that kept what it learnt of
each until the end. `bench/scale_rules.py` prints the times and the memory against size.
"""

from __future__ import annotations

import gc
import re
from collections import Counter
from pathlib import Path

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter import cli
from phasing_rules.interpreter.tools import compare
from phasing_rules.interpreter.rulebook import loading as rulebook
from phasing_rules.interpreter.rulebook.loading import load_version

VERSION = "2026-09-25"

AMEND = """
amend untap-step-phasing {{
  summary "In its controller's untap step ({n}), what phased out under that player phases in while phasing permanents phase out."
  replace clause phase-out-and-in: during untap step of P: simultaneously {{
    each x where x.phase is out and x.phased_out_under is P and not x.phased_indirectly: phase_in x
    each x where x.phase is in and x has phasing and x.controller is P: phase_out x
  }}
}}
"""


def house(n: int, extends: str = VERSION) -> str:
    """A variant named house-N that extends `extends`, with an amend of its own."""
    return (f'variant house-{n:03d} {{\n  title "House rule {n}"\n  extends {extends}\n'
            f'  note "Variant number {n}."\n}}\n' + AMEND.format(n=n))


def houses(folder: Path, count: int) -> Path:
    """`count` variants in `folder`: each extends 2026-09-25, every third the one before it."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        extends = f"house-{n - 1:03d}" if n % 3 == 2 else VERSION
        (folder / f"house-{n:03d}.rules").write_text(house(n, extends), encoding="utf-8")
    return folder


@pytest.fixture
def fresh():
    """No rulebook loaded nor file parsed before the test, none kept after it."""
    load_version.cache_clear()
    yield
    load_version.cache_clear()


def versions_counting(monkeypatch, capsys, folder: Path) -> dict:
    """Run `phasing versions --rules-path folder`, counting the rulebooks checked, the files
    parsed (by path) and the listings made of the rules folders (`folder`, the shipped rules and
    their variants; not of a version's own folder)."""
    load_version.cache_clear()
    counts = {"checked": 0, "parsed": Counter(), "listed": 0}
    check, parse, entries = rulebook.check_rulebook, rulebook.parse_file, rulebook._entries

    def counted_check(*args, **kwargs):
        counts["checked"] += 1
        return check(*args, **kwargs)

    def counted_parse(path):
        counts["parsed"][str(path)] += 1
        return parse(path)

    rules_folders = {folder.resolve(), rulebook.RULES_ROOT.resolve(), rulebook.VARIANTS_DIR.resolve()}

    def counted_entries(where):
        counts["listed"] += Path(where).resolve() in rules_folders
        return entries(where)

    monkeypatch.setattr(rulebook, "check_rulebook", counted_check)
    monkeypatch.setattr(rulebook, "parse_file", counted_parse)
    monkeypatch.setattr(rulebook, "_entries", counted_entries)
    monkeypatch.setattr(cli, "out", cli._console(width=400))
    monkeypatch.delenv("PHASING_RULES_PATH", raising=False)
    status = cli.main(["versions", "--rules-path", str(folder)])
    out = capsys.readouterr().out
    assert status == 0, out
    counts["rows"] = sum(1 for line in out.splitlines() if re.match(r"│ \S", line))  # (the header is ┃ ... ┃)
    return counts


def test_versions_checks_each_rulebook_once_and_parses_each_file_once(tmp_path, monkeypatch, capsys, fresh):
    """issue 43: `versions` over 400 variants took 22.6 s and over 5,000 more than 11 minutes,
    while each variant alone loads in a fraction of a second. Each variant resolved and checked
    the version it extends again (and an older version every version between it and the
    newest), and parsed its own file twice: the rulebooks checked grew with the variants times
    the length of their chains. Now every rulebook listed is checked exactly once, and no file
    is parsed twice, however many variants extend it."""
    for count in (4, 13):
        counts = versions_counting(monkeypatch, capsys, houses(tmp_path / f"n{count}", count))
        shipped = len(rulebook.shipped_sources())
        assert counts["rows"] == shipped + count
        assert counts["checked"] == counts["rows"], counts["checked"]
        assert max(counts["parsed"].values()) == 1, counts["parsed"].most_common(3)


def test_versions_lists_the_rules_path_a_fixed_number_of_times(tmp_path, monkeypatch, capsys, fresh):
    """issue 43: every name looked up (each variant's own, the name it extends, the key its
    load is kept under) listed every folder of the rules path again, so `versions` made a
    number of listings, each as long as the folder, that grew with the number of variants:
    quadratic time. Now the folders are listed once for the whole command: as many listings
    for 13 variants as for 2."""
    few = versions_counting(monkeypatch, capsys, houses(tmp_path / "few", 2))["listed"]
    many = versions_counting(monkeypatch, capsys, houses(tmp_path / "many", 13))["listed"]
    assert many == few
    assert few <= 4  # (the rules-path folder is probed and listed; the shipped rules are listed)


# The rows `versions` gives for the folder `behaviour_folder` makes (cells
# of each row, the folder's path written <folder>), and the errors it shows.
ROWS_BEFORE = [
    ["alpha (variant)", "702.26", "2026-09-25", "37", "<folder>", "Phasing restated, on the path."],
    ["beta (variant)", "702.26", "alpha", "37", "<folder>", "Stacked on alpha."],
    ["broken (variant)", "", "", "", "<folder>", "does not load: see the errors below"],
    ["delta (variant)", "702.26", "2026-09-25", "35", "<folder>", "Without indirect phasing."],
    ["gamma (variant)", "702.26", "end-step-phasing", "37", "<folder>", "Stacked on the shipped end-step-phasing."],
    ["misnamed (variant)", "", "", "", "<folder>", "does not load: see the errors below"],
]
ERRORS_BEFORE = [
    "<folder>/broken.rules:3:3: error: 'no-such-version' is not a version or variant in the rules folders",
    "<folder>/misnamed.rules:1:9: error: variant 'other-name' is in misnamed.rules: a variant's file is named after "
    "it (other-name.rules)",
]


def behaviour_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "alpha": ("variant alpha {\n  title \"Alpha\"\n  extends 2026-09-25\n"
                  "  note \"Phasing restated, on the path.\"\n}\n" + AMEND.format(n="alpha")),
        "beta": "variant beta {\n  title \"Beta\"\n  extends alpha\n  note \"Stacked on alpha.\"\n}\n",
        "gamma": ("variant gamma {\n  title \"Gamma\"\n  extends end-step-phasing\n"
                  "  note \"Stacked on the shipped end-step-phasing.\"\n}\n"),
        "delta": ("variant delta {\n  title \"Delta\"\n  extends 2026-09-25\n  drop indirect-phasing\n"
                  "  drop indirect-wins\n  section 702.26 subrules a b c d e f i j k m n p\n"
                  "  note \"Without indirect phasing.\"\n}\n"),
        "broken": "variant broken {\n  title \"Broken\"\n  extends no-such-version\n}\n",
        "misnamed": "variant other-name {\n  title \"Misnamed\"\n  extends 2026-09-25\n}\n",
    }
    for name, text in files.items():
        (folder / f"{name}.rules").write_text(text, encoding="utf-8")
    return folder


def test_versions_output_is_unchanged(tmp_path, monkeypatch, capsys, fresh):
    """issue 43 made `versions` list the rules path once and load each rulebook once; what it
    prints is what it printed before: the same rows for variants on the path (stacked on a
    variant of the path and on a shipped one, with a drop, one that does not load and one in a
    file of another name), in the same order after the versions, and the same errors, exit 1."""
    folder = behaviour_folder(tmp_path / "rules")
    monkeypatch.setattr(cli, "out", cli._console(width=400))
    monkeypatch.delenv("PHASING_RULES_PATH", raising=False)
    status = cli.main(["versions", "--rules-path", str(folder)])
    captured = capsys.readouterr()
    assert status == 1
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in captured.out.splitlines()
            if re.match(r"│ \S", line)]  # (the header is ┃ ... ┃)
    where = str(folder.resolve())
    names = [row[0] for row in rows]
    kinds = ["variant" if name.endswith("(variant)") else "version" for name in names]
    assert kinds == sorted(kinds, key=lambda k: k == "variant")  # versions first, then variants
    mine = [[cell.replace(where, "<folder>") for cell in row] for row in rows if row[4] == where]
    assert mine == ROWS_BEFORE
    assert [n for n in names if n.endswith("(variant)")] == sorted(n for n in names if n.endswith("(variant)"))
    errors = [line.replace(where, "<folder>").replace(str(folder), "<folder>") for line in captured.err.splitlines()
              if ": error: " in line]
    assert errors == ERRORS_BEFORE


# ------------------------------------------------------------------ the search


def search_spied(monkeypatch, a: str, b: str, games: int, round_size: int):
    """Search `games` games between `a` and `b` in rounds of `round_size`, recording for each run
    of Hypothesis the games it was given and the games it played, and how many runs of
    Hypothesis were still in memory (holding what they kept of their games) as it began."""
    import hypothesis
    import hypothesis.core
    from hypothesis.internal.conjecture.engine import ConjectureRunner

    monkeypatch.setattr(compare, "SEARCH_ROUND", round_size)
    runs: list[dict] = []
    find, outcome_of = hypothesis.core.find, compare._outcome_of  # (the real ones, whatever is patched)

    def spied_find(*args, settings, **kwargs):
        # (gc.get_objects() finds garbage not yet collected too: a run kept alive only by its cycles counts)
        alive = sum(1 for o in gc.get_objects() if isinstance(o, ConjectureRunner))
        runs.append({"given": settings.max_examples, "played": 0, "seed": kwargs.get("random"), "alive": alive})
        return find(*args, settings=settings, **kwargs)

    def spied_outcome(game, book, budget=None):
        if book is first:
            runs[-1]["played"] += 1
        return outcome_of(game, book, budget)

    monkeypatch.setattr(hypothesis, "find", spied_find)
    monkeypatch.setattr(compare, "_outcome_of", spied_outcome)
    first, second = load_version(a), load_version(b)
    gc.collect()  # (what earlier searches left is not this one's)
    return compare.search_witness(first, second, games), runs


@pytest.mark.slow  # (several seconds: in the slow selection, which .ci/run runs)
def test_the_search_plays_its_games_in_rounds_that_keep_nothing(monkeypatch):
    """issue 43: `diff --search N` grew about 12 KB of memory a game: one run of Hypothesis
    played all N games and kept a tree of its choices and a cache of results for each until it
    ended. Now no run plays more than SEARCH_ROUND games, and none is still in memory when the
    next round begins (not even as garbage awaiting collection), so what the search holds is
    bounded by one round, whatever N is. Checked on two
    versions no game tells apart (a renumbering), so every round is played."""
    witness, runs = search_spied(monkeypatch, "2011-02-04", "2011-09-30", 34, 12)
    assert witness is None
    assert [run["given"] for run in runs] == [12, 12, 10]
    assert sum(run["played"] for run in runs) == 34
    assert all(run["played"] <= 12 for run in runs)
    assert all(run["alive"] == 0 for run in runs), runs
    seeds = [run["seed"] for run in runs]
    assert seeds[0] is None and len({s.getstate() for s in seeds[1:]}) == len(seeds) - 1  # (each round its own games)


def test_search_rounds_add_up_to_the_games_asked_for():
    """issue 43: the rounds of a search play the number of games asked for, no more."""
    size = compare.SEARCH_ROUND
    assert compare.search_rounds(size) == [size]
    assert compare.search_rounds(1) == [1]
    assert compare.search_rounds(2 * size + 7) == [size, size, 7]
    assert compare.search_rounds(0) == []


# The witness the search found between 2005-02-01 and 2009-07-10 in 2,000 games before issue 43's
# change (one run of Hypothesis for all 2,000): the first round of 1,000 plays the same games.
WITNESS_BEFORE = """\
scenario "witness: 2005-02-01 and 2009-07-10 part here" {
  cites 502.15b
  rules 2005-02-01
  players Alice Bob Carol
  turn 1 of Alice
  permanent p0 = "Grizzly Bears", controller Alice
  script {
    cast "Slip Away" by Alice targeting p0
    # under 2009-07-10: p0.zone is battlefield
    expect p0.zone is phased_out
  }
}
"""


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_the_search_finds_the_witness_it_found_before():
    """issue 43 split a search of more than SEARCH_ROUND games into rounds; the first round
    plays the games the single run played, so the witness found there is the one found before,
    for the same (fixed) seed: comparing states as each rulebook keeps them (`raw`), the one
    between the zone and the status of Magic 2010. As a player sees it (2005's `observe`: the
    phased-out zone is phased out, on the battlefield) that is no difference, and the search
    finds another."""
    assert compare.SEARCH_ROUND < 2000
    old, new = load_version("2005-02-01"), load_version("2009-07-10")
    assert compare.search_witness(old, new, 2000, raw=True) == WITNESS_BEFORE
    seen = compare.search_witness(old, new, 2000)
    assert seen is not None and seen != WITNESS_BEFORE and "is phased_out" not in seen


# The witness between 2017-07-08 and 2017-08-25 when rounds are of 2 games: the fifth round finds
# it (the first four play small games that do not part them).
LATER_WITNESS = """\
scenario "witness: 2017-07-08 and 2017-08-25 part here" {
  cites 702.25k
  rules 2017-07-08
  players Alice Bob Carol
  turn 1 of Alice
  permanent p0 = "Soldier Token", controller Alice, token
  script {
    cast "Teferi's Protection" by Alice
    # accounted for by phased-out-tokens-cease (removed): made alone in 2017-07-08, gives 2017-08-25's outcome
    # under 2017-08-25: p0.zone is battlefield
    expect p0.zone is nowhere
  }
}
"""


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_a_witness_found_in_a_later_round_is_the_same_every_time(monkeypatch):
    """issue 43: each round after the first is seeded by its number, so a search stays
    derandomized when the witness is found in a later round: the same two rulebooks give the
    same witness in every run and every process (pinned here for rounds of 2 games between
    2017-07-08 and 2017-08-25, where the thirteenth round finds a phased-out token that ceases
    to exist: 702.25k of 2017-07-08)."""
    witness, runs = search_spied(monkeypatch, "2017-07-08", "2017-08-25", 40, 2)
    assert len(runs) == 13 and [run["given"] for run in runs] == [2] * 13
    assert witness == LATER_WITNESS


# ------------------------------------------------------------------ blocks checked once


def rule_checks(monkeypatch, clauses: Counter | None = None) -> Counter:
    """Count the checks of each block (`_Checker.rule`), by rule id; and in `clauses`, the
    clauses each check of a block reads, by rule id."""
    from phasing_rules.dsl import checker

    counts: Counter = Counter()
    check = checker._Checker.rule

    def counted(self, rule, passed=frozenset()):
        counts[rule.id] += 1
        if clauses is not None:
            clauses[rule.id] += sum(1 for c in rule.clauses if id(c) not in passed)
        return check(self, rule, passed)

    monkeypatch.setattr(checker._Checker, "rule", counted)
    return counts


VARIANTS = {
    # (each declares or renumbers something that could change what an inherited block means)
    "renumbered": "  renumber 702.26 as 702.99\n}\n",
    "with-a-status": "}\n\nstatus house_mark: bool = false\n",
    "with-a-verb": "}\n\nverb house_tap x {\n  set x.tapped = true\n}\n",
    "dropping": "  drop indirect-phasing\n  drop indirect-wins\n  section 702.26 subrules a b c d e f i j k m n p\n}\n",
}
BROKEN = {
    # (an inherited block of 2026-09-25 is wrong only through what the variant changes)
    "status-retyped": ("}\n\nstatus phased_indirectly: player = none\n",
                       "cannot set status 'phased_indirectly' to true"),
    "verb-reshaped": ("}\n\nverb phase_in x y {\n  set x.phase = in\n}\n", "'phase_in' takes 2 argument(s), 1 given"),
}


def variant_file(folder: Path, name: str, rest: str) -> Path:
    path = folder / f"{name}.rules"
    path.write_text(f'variant {name} {{\n  title "{name}"\n  extends {VERSION}\n' + rest, encoding="utf-8")
    return path


def test_a_variant_checks_only_the_blocks_it_changes(tmp_path, monkeypatch, fresh):
    """issue 43: `versions` over 5,000 variants spent a quarter of its time checking again, in
    every variant, the thirty blocks it inherits unchanged, already checked in the version it
    extends. A variant that only amends a block now checks that block alone; one that declares
    a status or a verb, renumbers or drops (anything that could change what an inherited block
    means) still has every block checked, and an inherited block its change makes wrong is
    still reported, at the block. Of the block it amends, only the clause its amend replaces
    is checked: the others are the very clauses the version passed."""
    base = load_version(VERSION)
    clauses: Counter = Counter()
    counts = rule_checks(monkeypatch, clauses)
    amended = load_version(str(variant_file(tmp_path, "house-amend", '}\n' + AMEND.format(n=1))))
    block = amended.rule("untap-step-phasing")
    assert counts == Counter({block.id: 1})
    assert len(block.clauses) > 1 and clauses == Counter({block.id: 1})  # (replace clause phase-out-and-in)
    for name, rest in VARIANTS.items():
        counts.clear()
        book = load_version(str(variant_file(tmp_path, name, rest)))
        assert sum(counts.values()) == len(book.rules) and set(counts) == {r.id for r in book.rules}, name
    blocks = {r.span.path for r in base.rules}
    for name, (rest, message) in BROKEN.items():
        with pytest.raises(DiagnosticError) as caught:
            load_version(str(variant_file(tmp_path, name, rest)))
        found = [d for d in caught.value.diagnostics if message in d.message]
        assert found and all(d.span.path in blocks for d in found), (name, caught.value.diagnostics)


def test_versions_checks_each_block_once_over_many_variants(tmp_path, monkeypatch, capsys, fresh):
    """issue 43: the checks of blocks made by `versions` grew by about thirty for each variant
    (every block it inherits); now by one, the block its amend changes."""
    counts = rule_checks(monkeypatch)
    versions_counting(monkeypatch, capsys, houses(tmp_path / "n4", 4))
    few = sum(counts.values())
    counts.clear()
    versions_counting(monkeypatch, capsys, houses(tmp_path / "n13", 13))
    assert sum(counts.values()) - few == 13 - 4
