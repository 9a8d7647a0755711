"""Fuzzing in the suite: a short derandomized campaign of each generator, a replay of every
saved crashing input, and checks that the oracle does flag what it is there to flag.

The oracle's rule (issue 14): whatever a user writes, every command answers with exit status
0 or 1 and never shows "internal error" or a traceback, nor lets an exception escape `main`.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from phasing_rules.interpreter import cli
from phasing_rules.interpreter.tools import fuzz

REGRESSIONS = Path(__file__).with_name("fuzz_regressions")
# A command on one input running longer than this is a hang: the limit `phasing fuzz` uses by
# default (--max-input-seconds). Every shipped input takes well under a second.
HANG_SECONDS = 10.0

# Derandomized, no shrinking (each example runs every command; a failure already says which
# input and command), no example database: the same inputs on every run.
SHORT = settings(max_examples=10, derandomize=True, deadline=None, database=None,
                 phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PHASING_DEBUG", raising=False)


def describe(findings: list[fuzz.Finding]) -> str:
    lines = []
    for f in findings:
        lines.append(f"{f.kind} at {f.where}: phasing {' '.join(f.command)} (exit {f.result.status}, from {f.item.origin})")
        lines += ["  " + line[:240] for line in f.result.first_lines(4).splitlines()]
        lines.append(f"  input starts: {f.item.files[0][1][:300]!r}")
    return "\n".join(lines)


def assert_clean(item: fuzz.Input) -> None:
    results, findings = fuzz.judge(item, max_seconds=HANG_SECONDS, main=cli.main)
    assert results, "the input ran through no command"
    if findings:
        pytest.fail("every command must exit 0 or 1 without an internal error:\n" + describe(findings))


# ---------------------------------------------------------------- a short campaign

@settings(SHORT, max_examples=7)
@given(fuzz.grammar_inputs())
def test_generated_inputs_get_clean_answers(item):
    assert_clean(item)


@pytest.mark.slow  # (over a second: every input through every command; in the slow selection)
@SHORT
@given(fuzz.mutated_inputs())
def test_mutated_shipped_files_get_clean_answers(item):
    assert_clean(item)


@pytest.mark.slow  # (over a second: Lark analyses the grammar for the strategy first; in the slow selection)
@settings(SHORT, max_examples=6)
@given(fuzz.lark_inputs())
def test_grammar_drawn_text_gets_clean_answers(item):
    assert_clean(item)


# ---------------------------------------------------------------- saved crashes

def regression_inputs() -> list[Path]:
    return sorted(p for p in REGRESSIONS.iterdir() if p.is_dir() or p.suffix in (".scenario", ".rules"))


def test_there_are_saved_crashes_to_replay():
    assert regression_inputs(), f"{REGRESSIONS} holds no saved input"


# Saved crashes that take seconds each to replay (thousands of tests or errors): slow selection.
HEAVY_CRASHES = ("thousands-of-joined-tests.rules", "two-thousand-errors-reported-per-scenario.rules")


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in HEAVY_CRASHES else [])
                                  for p in regression_inputs()])
def test_saved_crash_gets_a_clean_answer(path):
    """Each file here once crashed a command (its comment says which and how); every command
    that takes it must now exit 0 or 1 with no internal error or traceback."""
    item = fuzz.load_input(path)
    results, findings = fuzz.judge(item, max_seconds=HANG_SECONDS, main=cli.main)
    assert len(results) >= 5, "a saved input runs through check, run (plain, --trace, --json) and test at least"
    if findings:
        pytest.fail(describe(findings))
    assert all(r.status in (0, 1) for r in results)


# ---------------------------------------------------------------- the generators

def test_generators_are_reproducible_from_a_seed():
    import random
    for make in (fuzz.grammar_input, fuzz.mutated_input):
        assert make(random.Random(7)) == make(random.Random(7))


@pytest.mark.slow  # (several seconds: in the slow selection, which .ci/run runs)
def test_generated_inputs_include_well_formed_files():
    """Most generated text must parse, or the fuzzer would only ever test the parser's errors."""
    import random
    parsed = 0
    for n in range(40):
        item = fuzz.grammar_input(random.Random(n))
        results = fuzz.run_input(item, [("check", "{dir}/" + item.main)], max_seconds=30.0, main=cli.main)
        parsed += "syntax error" not in results[0].stderr and "unexpected" not in results[0].stderr
    assert parsed >= 10


def test_saved_inputs_load_by_kind(tmp_path):
    (tmp_path / "a.scenario").write_bytes(b"x")
    (tmp_path / "b.rules").write_bytes(b"y")
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "version.rules").write_bytes(b"z")
    assert fuzz.load_input(tmp_path / "a.scenario").kind == "scenario"
    assert fuzz.load_input(tmp_path / "b.rules").kind == "variant"
    folder = fuzz.load_input(tmp_path / "v")
    assert folder.kind == "folder" and ("version/version.rules", b"z") in folder.files
    with pytest.raises(ValueError):
        fuzz.load_input(tmp_path / "c.txt")


# ---------------------------------------------------------------- the oracle can fail

def test_oracle_flags_an_internal_error(monkeypatch):
    def broken(args):
        raise RuntimeError("a planted bug")
    monkeypatch.setattr(cli, "cmd_check", broken)
    result = fuzz.run_command(["check", "x.scenario"], main=cli.main)
    assert result.status == 2 and result.finding == "internal-error"
    assert "a planted bug" in result.stderr


def test_oracle_finds_the_planted_bug_through_judge(monkeypatch):
    def broken(args):
        raise KeyError("planted")
    monkeypatch.setattr(cli, "cmd_run", broken)
    item = fuzz.Input("scenario", (("input.scenario", b'scenario "s" { players A B turn 1 of A script { } }'),), "test")
    _, findings = fuzz.judge(item, main=cli.main)
    assert {f.command[0] for f in findings} == {"run"}
    assert {f.kind for f in findings} == {"internal-error"}
    # located by the traceback of a rerun with PHASING_DEBUG=1: the planted function
    assert all(f.where == "KeyError at tests/test_fuzz.py:broken" for f in findings), [f.where for f in findings]


def test_oracle_flags_an_escaping_exception_a_bad_status_a_traceback_and_a_hang():
    def raises(argv):
        raise ValueError("escaped")

    def exits_2(argv):
        return 2

    def prints_traceback(argv):
        print("Traceback (most recent call last):\n  oops")
        return 1

    def spins(argv):
        while True:
            time.sleep(0.01)

    def system_exit(argv):
        raise SystemExit(2)

    assert fuzz.run_command(["x"], main=raises).finding == "exception"
    assert fuzz.run_command(["x"], main=exits_2).finding == "exit-status"
    assert fuzz.run_command(["x"], main=system_exit).finding == "exit-status"
    assert fuzz.run_command(["x"], main=prints_traceback).finding == "traceback"
    hang = fuzz.run_command(["x"], max_seconds=0.3, main=spins)
    assert hang.finding == "hang" and "spins" in hang.error


def test_oracle_passes_a_clean_answer():
    def fine(argv):
        print("no problems found")
        return 1
    result = fuzz.run_command(["x"], main=fine)
    assert result.finding is None and result.status == 1 and result.stdout == "no problems found\n"


def test_a_runaway_command_hits_the_memory_cap_not_the_machine():
    def hog(argv):
        hoard = []
        while True:
            hoard.append(bytearray(50 * 2**20))
    result = fuzz.run_command(["x"], main=hog, memory_mb=300)
    assert result.finding == "exception" and "MemoryError" in result.error


# ---------------------------------------------------------------- phasing fuzz

def fuzz_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="phasing")
    # the command's entry looked up at each call, so a test's monkeypatch of cli.main is seen
    fuzz.register(parser.add_subparsers(dest="command", required=True), lambda argv: cli.main(argv))
    return parser.parse_args(["fuzz", *argv])


def test_fuzz_command_defaults():
    args = fuzz_args()
    assert (args.minutes, args.out, args.seed, args.max_input_seconds) == (1.0, "fuzz-findings", None, 10.0)
    assert args.func is fuzz.cmd_fuzz


@pytest.mark.slow
def test_fuzz_command_saves_findings_without_overwriting(tmp_path, monkeypatch, capsys):
    def broken(args):
        raise RuntimeError("planted for the campaign")
    monkeypatch.setattr(cli, "cmd_check", broken)
    out = tmp_path / "findings"
    out.mkdir()
    (out / "mine.txt").write_text("kept")
    args = fuzz_args("--minutes", "0.05", "--out", str(out), "--seed", "3", "--max-input-seconds", "20")
    assert fuzz.cmd_fuzz(args) == 1
    first = sorted(p.name for p in out.iterdir())
    assert "mine.txt" in first and len(first) >= 2
    saved = [p for p in out.iterdir() if p.is_dir()]
    assert any("planted for the campaign" in (p / "finding.txt").read_text() for p in saved)
    assert (out / "mine.txt").read_text() == "kept"
    printed = capsys.readouterr().out
    assert "generator" in printed and "FINDING internal-error" in printed and "command   check" in printed
    # a second campaign adds folders beside the first; nothing already there changes
    before = {p: (p / "finding.txt").read_text() for p in saved}
    assert fuzz.cmd_fuzz(args) == 1
    assert {p: (p / "finding.txt").read_text() for p in saved} == before
    assert len(list(out.iterdir())) > len(first)


@pytest.mark.slow
def test_fuzz_command_exits_0_when_nothing_is_found(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "main", lambda argv: 0)
    args = fuzz_args("--minutes", "0.02", "--out", str(tmp_path / "f"), "--seed", "1")
    assert fuzz.cmd_fuzz(args) == 0
    assert "no findings" in capsys.readouterr().out
    assert not (tmp_path / "f").exists() or not any((tmp_path / "f").iterdir())


@pytest.mark.parametrize("argv", [["--minutes", "0"], ["--minutes", "-5"], ["--minutes", "nan"],
                                  ["--max-input-seconds", "0"]])
def test_fuzz_command_rejects_a_bad_budget(argv, tmp_path, capsys):
    assert fuzz.cmd_fuzz(fuzz_args(*argv, "--out", str(tmp_path / "f"))) == 1
    assert "error:" in capsys.readouterr().err


def test_fuzz_command_leaves_the_real_cache_alone(tmp_path, monkeypatch):
    """The campaign points PHASING_CACHE_DIR at a temporary folder of its own, and puts it back."""
    seen = []
    monkeypatch.setattr(cli, "main", lambda argv: seen.append(os.environ.get("PHASING_CACHE_DIR")) or 0)
    fuzz.campaign(60, seed=0, max_inputs=3, generators=("grammar",), main=cli.main)
    assert seen and all(s and s != str(tmp_path / "cache") for s in seen)
    assert os.environ["PHASING_CACHE_DIR"] == str(tmp_path / "cache")
    assert not Path(seen[0]).exists()


def test_a_campaign_writes_nothing_into_the_current_folder(tmp_path, monkeypatch):
    """Hypothesis (the grammar-drawn inputs) would keep `.hypothesis/` in the current folder."""
    from hypothesis import configuration
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setattr(configuration, "__hypothesis_home_directory", None)
    monkeypatch.setattr(cli, "main", lambda argv: 0)
    fuzz.campaign(60, seed=0, max_inputs=2, generators=("lark",), main=cli.main)
    assert [p.name for p in tmp_path.iterdir() if p.name != "cache"] == []  # "cache": this file's fixture
