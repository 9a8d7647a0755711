"""Every command on missing or hostile arguments: a diagnostic and exit status 1, never a
traceback, never status 2, never silence (issue 14, item 7).

In-process (`interpreter.cli.main` returns the exit status), except where the process is what
is tested: a fresh process is the only way to see what Hypothesis writes on its first use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from phasing_rules.interpreter import cli
from phasing_rules.interpreter.rulebook.loading import RULES_ROOT
from samples import GOOD_SCENARIO

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "tests" / "scenarios" / "tour.scenario"

GOOD = GOOD_SCENARIO


def run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def assert_clean_failure(status: int, out: str, err: str) -> None:
    """Exit status 1 with something said on stderr, and no traceback or internal error."""
    assert status == 1, (status, out, err)
    assert err.strip(), "a failure must say why"
    assert "Traceback" not in out + err and "internal error" not in out + err, err


# ---------------------------------------------------------------------------- usage errors


USAGE_ERRORS = [
    [],
    ["bogus"],
    ["check", ""],
    ["run"],
    ["run", ""],
    ["run", "a.scenario", "b.scenario"],
    ["run", "x.scenario", "--budget"],
    ["test", "--rules"],
    ["versions", "extra"],
    ["show", "2026-09-25", "--cr"],
    ["diff"],
    ["diff", "2026-09-25"],
    ["diff", "2026-09-25", "2017-08-25", "--search", "-5"],
    ["diff", "2026-09-25", "2017-08-25", "--search", "many"],
    ["diff", "2026-09-25", "2017-08-25", "--search", "1e9"],
    ["ablate"],
    ["ablate", "2026-09-25", "--limit", "-1"],
    ["run", "--frobnicate"],
    ["run", "x.scenario", "--rules", ""],
    ["test", "--rules", " "],
    ["show", ""],
    ["diff", "", "2026-09-25"],
    ["ablate", ""],
    ["cards", "a.json", "b.json"],
    ["cards", "a.json", "--library"],
    ["cards", "a.json", "--library", ""],
]


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=" ".join)
def test_a_usage_error_exits_1_with_the_usage_and_a_positioned_message(argv, capsys):
    status, out, err = run(capsys, *argv)
    assert_clean_failure(status, out, err)
    lines = err.splitlines()
    assert lines[0].startswith("usage: phasing"), err
    assert any(line.startswith("phasing") and ": error: " in line for line in lines), err
    assert any(line.startswith("  hint: see 'phasing") for line in lines), err


def test_search_must_be_a_whole_number(capsys):
    status, out, err = run(capsys, "diff", "2026-09-25", "2017-08-25", "--search", "-5")
    assert_clean_failure(status, out, err)
    assert "argument --search: expected a whole number, zero or more, not '-5'" in err


def test_help_still_exits_0(capsys):
    """--help is not a mistake: main returns 0 (it does not raise SystemExit) after the usage."""
    status, out, _ = run(capsys, "run", "--help")
    assert status == 0 and "usage: phasing run" in out and "--budget VALUE" in out


# ---------------------------------------------------------------------------- hostile arguments


def test_every_command_on_a_missing_path(tmp_path, capsys):
    missing = tmp_path / "nowhere.scenario"
    for argv in (["check", missing], ["run", missing], ["test", missing],
                 ["diff", "2017-07-08", "2017-08-25", missing], ["ablate", "2026-09-25", missing],
                 ["cards", missing]):
        status, out, err = run(capsys, *argv)
        assert_clean_failure(status, out, err)
        assert f"no such file or folder: {missing}" in err, (argv, err)


def test_every_command_on_an_unknown_version(tmp_path, capsys):
    scenario = write(tmp_path / "good.scenario", GOOD)
    for argv in (["show", "1999-01-01"], ["ablate", "1999-01-01"], ["diff", "1999-01-01", "2026-09-25"],
                 ["diff", "2026-09-25", "1999-01-01"], ["run", scenario, "--rules", "1999-01-01"]):
        status, out, err = run(capsys, *argv)
        assert_clean_failure(status, out, err)
        assert "unknown rules version or variant '1999-01-01'" in err, (argv, err)


@pytest.mark.parametrize("command", ["check", "run", "test"])
def test_an_empty_scenario_file_is_an_error(command, tmp_path, capsys):
    empty = write(tmp_path / "empty.scenario", "")
    status, out, err = run(capsys, command, empty)
    assert_clean_failure(status, out, err)
    assert f"{empty}:1:1: error: this file holds no scenario" in err


def test_a_scenario_file_with_only_a_card_holds_no_scenario(tmp_path, capsys):
    cards = write(tmp_path / "cards.scenario", 'card "Plain Bear" {\n  types creature bear\n  pt 2/2\n}\n')
    status, out, err = run(capsys, "check", cards)
    assert_clean_failure(status, out, err)
    assert "this file holds no scenario" in err


@pytest.mark.parametrize("command", ["check", "run", "test"])
def test_a_folder_with_nothing_in_it_is_an_error(command, tmp_path, capsys):
    status, out, err = run(capsys, command, tmp_path)
    assert_clean_failure(status, out, err)
    assert str(tmp_path) in err


def test_an_unknown_version_in_a_rules_line_is_positioned_by_check(tmp_path, capsys):
    scenario = write(tmp_path / "future.scenario", 'scenario "from the future" {\n  rules 2099-01-01\n'
                                                    "  players Alice Bob\n}\n")
    status, out, err = run(capsys, "check", scenario)
    assert_clean_failure(status, out, err)
    lines = err.splitlines()
    assert lines[0] == f"{scenario}:2:3: error: unknown rules version or variant '2099-01-01'"
    assert lines[1] == "    " + "  rules 2099-01-01"
    assert lines[2].startswith("    " + "  ^")  # the caret under `rules`
    assert lines[3].startswith("  hint: known: ") and "2026-09-25" in lines[3]


# ---------------------------------------------------------------------------- --json on errors


def test_run_json_on_a_syntax_error_prints_the_diagnostics_as_json(tmp_path, capsys):
    broken = write(tmp_path / "broken.scenario", 'scenario "x" {\n  players Alice Bob\n  turn 1 of\n}\n')
    status, out, err = run(capsys, "run", broken, "--json")
    assert status == 1
    (error,) = json.loads(out)["errors"]
    assert (error["path"], error["line"], error["column"]) == (str(broken), 4, 1)  # `}` where a name belongs
    assert error["message"] == "unexpected '}'" and error["hint"]
    assert f"{broken}:4:1: error:" in err  # and the human-readable form on stderr


@pytest.mark.parametrize("argv", [["diff", "2026-09-25", "1999-01-01", "--json"], ["ablate", "1999-01-01", "--json"],
                                  ["run", "--json"]])
def test_every_json_command_prints_its_errors_as_json(argv, capsys):
    status, out, err = run(capsys, *argv)
    assert_clean_failure(status, out, err)
    errors = json.loads(out)["errors"]
    assert errors and all({"path", "line", "column", "message", "hint"} <= set(e) for e in errors)


# ---------------------------------------------------------------------------- --budget


@pytest.mark.parametrize("command", ["run", "test"])
@pytest.mark.parametrize("value", ["0", "-3", "lots", "iterations=", "bogus=4"])
def test_bad_budget_text_is_an_error(command, value, tmp_path, capsys):
    scenario = write(tmp_path / "good.scenario", GOOD)
    status, out, err = run(capsys, command, scenario, f"--budget={value}")
    assert_clean_failure(status, out, err)
    assert err.startswith("--budget: error: ") and "  hint: " in err


def test_run_under_a_tiny_budget_stops_with_a_positioned_error(tmp_path, capsys):
    """One iteration per step is too few for the first state check's selection (CR 704.5g)."""
    scenario = write(tmp_path / "good.scenario", GOOD)
    status, out, err = run(capsys, "run", scenario, "--budget", "iterations=1")
    assert status == 1
    assert "goes over the iterations budget" in err
    # (the shipped rules: the checkout's, or the installed copy's under a plain `pip install .`)
    assert any(line.startswith(str(RULES_ROOT)) and ":" in line for line in err.splitlines()), err


@pytest.mark.parametrize("command", ["run", "test"])
def test_a_generous_budget_changes_nothing(command, tmp_path, capsys):
    """CR 702.26a: the djinn phases out in its controller's untap step, budget or not."""
    scenario = write(tmp_path / "good.scenario", GOOD)
    status, out, err = run(capsys, command, scenario, "--budget", "scale=512,writes=100000")
    assert status == 0, err


def test_diff_takes_a_budget(capsys):
    """702.25k (tokens cease when phased out) is gone in 2017-08-25; the tour's token shows it."""
    status, out, err = run(capsys, "diff", "2017-07-08", "2017-08-25", TOUR, "--budget", "256", "--json")
    assert status == 0, err
    assert json.loads(out)["scenarios"]
    status, out, err = run(capsys, "diff", "2017-07-08", "2017-08-25", TOUR, "--budget", "none")
    assert_clean_failure(status, out, err)


def test_diff_plays_under_the_budget_it_is_given(capsys):
    """With one iteration per step both versions stop at the same budget error before the token
    is ever phased out, so the difference 702.25k makes no longer shows: the budget reached play.
    Such runs compare nothing: they are reported as stopped by the budget, and diff fails."""
    status, out, err = run(capsys, "diff", "2017-07-08", "2017-08-25", TOUR, "--budget", "iterations=1", "--json")
    assert status == 1, err
    assert json.loads(out)["scenarios"] == []
    assert len(json.loads(out)["stopped_by_budget"]) == 2


# ---------------------------------------------------------------------------- diff --search leaves no .hypothesis


@pytest.mark.slow
def test_diff_search_writes_nothing_into_the_current_folder(tmp_path):
    """Hypothesis keeps its storage (character tables, examples) in `./.hypothesis` unless told
    otherwise; a search run from a user's folder must leave the folder as it was. A fresh
    process, so that nothing Hypothesis cached in this one hides the write."""
    env = {k: v for k, v in os.environ.items() if k not in ("PHASING_DEBUG", "HYPOTHESIS_STORAGE_DIRECTORY")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-m", "phasing_rules.interpreter.cli", "diff", "2017-07-08", "2017-08-25", str(TOUR),
                           "--search", "5"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Behaviour:" in done.stdout
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- names no file can have

LONG = "a" * 300  # longer than any file name (255 bytes on common file systems)


def test_a_version_name_longer_than_a_file_name_is_an_unknown_version(tmp_path, capsys):
    """The error names the whole name where it says where it is, and the start of it in its
    message (a quote longer than 80 characters is shown cut: `dsl.diagnostics.SHOWN_QUOTE`)."""
    scenario = write(tmp_path / "good.scenario", GOOD)
    for argv in (["show", LONG], ["run", scenario, "--rules", LONG], ["diff", "2026-09-25", LONG]):
        status, out, err = run(capsys, *argv)
        assert_clean_failure(status, out, err)
        assert f"{LONG}: error: unknown rules version or variant '{LONG[:77]}...'" in err, (argv[0], err)


def test_a_path_longer_than_a_file_name_is_a_diagnostic(tmp_path, capsys):
    path = tmp_path / f"{LONG}.scenario"
    for argv in (["check", path], ["run", path], ["test", path], ["run", path, "--json"]):
        status, out, err = run(capsys, *argv)
        assert_clean_failure(status, out, err)
        assert str(path) in err and "  hint: " in err, (argv[0], err)


# ---------------------------------------------------------------------------- a broken rulebook under many runs

BROKEN_VARIANT = """\
variant broken-probe {
  title "one unknown name"
  extends 2026-09-25
}

rule 999.1 probe-block "names something unknown" {
  during end step of P: tap ghost
}
"""


@pytest.mark.parametrize("command", ["run", "test"])
def test_a_broken_rulebook_is_reported_once_however_many_runs_it_would_stop(command, tmp_path, capsys):
    """A variant given with --rules that does not load stops the command before any scenario
    runs, its error shown once (not once per scenario, nor a FAIL line each)."""
    variant = write(tmp_path / "variant.rules", BROKEN_VARIANT)
    scenarios = write(tmp_path / "three.scenario", "\n".join(
        GOOD.replace("a phasing creature", f"probe {i}: a phasing creature") for i in range(3)))
    status, out, err = run(capsys, command, scenarios, "--rules", variant)
    assert status == 1
    assert err.count(f"{variant}:7:") == 1, err  # `ghost`, shown once with its line and caret
    assert "FAIL" not in out and "passed" not in out, out  # stopped before any scenario ran


def test_ablate_plays_under_the_budget_it_is_given(tmp_path, capsys):
    """CR 702.26a is load-bearing for the djinn phasing out; with one iteration per step every
    run stops at the same budget error, so deleting 702.26a no longer changes anything: the
    budget reached every run ablate makes."""
    scenario = write(tmp_path / "good.scenario", GOOD)

    def changed_by_untap_phasing(*budget):
        status, out, err = run(capsys, "ablate", "2026-09-25", scenario, "--json", *budget)
        rows = {row["id"]: row for row in json.loads(out)["blocks"]} if status in (0, 1) else {}
        assert rows, err
        return rows["702.26a"]["changed"]

    assert changed_by_untap_phasing() != []
    assert changed_by_untap_phasing("--budget", "iterations=1") == []


def test_fuzz_is_a_subcommand_that_checks_its_options(capsys):
    """`phasing fuzz` is registered with the others and refuses a negative duration (exit 1)."""
    status, out, err = run(capsys, "fuzz", "--minutes", "-1")
    assert_clean_failure(status, out, err)
    assert "fuzz" in cli.build_parser().format_help()
