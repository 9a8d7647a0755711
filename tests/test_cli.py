"""The `phasing` command's good paths: what each subcommand prints and returns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from phasing_rules.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "tests" / "scenarios" / "tour.scenario"


def run(capsys, *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().out


def test_versions_lists_fifteen_versions_and_the_variants(capsys):
    status, out = run(capsys, "versions")
    assert status == 0
    for version in ("2005-02-01", "2011-02-04", "2017-07-08", "2017-08-25", "2020-08-07", "2026-09-25"):
        assert version in out
    assert out.count("(variant)") >= 4
    # the one version rebuilt from other sources than its own text is marked as such
    assert out.count("(reconstructed)") == 1 and "2009-07-10 (reconstructed)" in out


def test_show_prints_what_a_reconstructed_version_was_rebuilt_from(capsys):
    status, out = run(capsys, "show", "2009-07-10")
    assert status == 0
    assert "# reconstructed: " in out and "Update Bulletin" in out
    status, out = run(capsys, "show", "2011-02-04")
    assert "# reconstructed" not in out
    status, out = run(capsys, "show", "2009-07-10", "702.23b", "--json")
    assert status == 0 and "Update Bulletin" in json.loads(out)["reconstructed"]
    status, out = run(capsys, "show", "2011-02-04", "702.23b", "--json")
    assert json.loads(out)["reconstructed"] is None


@pytest.mark.slow
def test_diff_finds_a_witness_for_the_magic_2010_change(capsys):
    # the zone-to-status change of the Magic 2010 update (bulletin of July 2009) parts the two
    status, out = run(capsys, "diff", "2005-02-01", "2009-07-10", "--search", "2000")
    assert status == 0
    assert 'scenario "witness: 2005-02-01 and 2009-07-10 part here"' in out


def test_show_prints_the_resolved_rulebook_in_its_own_numbering(capsys):
    status, out = run(capsys, "show", "2017-07-08")
    assert status == 0
    assert "rule 702.25k phased-out-tokens-cease" in out  # 2017-07-08 still has the token rule
    assert out.index("rule 702.25a") < out.index("rule 702.25k") < out.index("rule 704.5d")


def test_run_with_trace_names_the_subrules_at_work(capsys):
    status, out = run(capsys, "run", str(TOUR), "--trace")
    assert status == 0
    assert "[702.26h indirect-wins] strength: phased_indirectly true wins over false" in out
    assert "[502.3 untap-permanents] bear: tapped: true -> false" in out
    assert "PASS tour" in out and out.count("Final state") == 1  # one run: the newest version it names


def test_run_json_is_machine_readable(capsys):
    status, out = run(capsys, "run", str(TOUR), "--json")
    data = json.loads(out)
    assert status == 0 and data[0]["passed"] and data[0]["rules"] == "2026-09-25"
    assert any(e["cause"]["id"] == "702.26g" for e in data[0]["trace"])


def test_test_ends_with_the_counts_line(capsys):
    status, out = run(capsys, "test", str(TOUR))
    assert status == 0
    assert out.strip().splitlines()[-1] == "8 passed, 0 failed"  # tour names 2017-08-25 onwards: 8 versions


def test_diff_json_has_rules_scenarios_and_witness(capsys):
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", str(TOUR), "--json")
    data = json.loads(out)
    assert status == 0 and set(data) == {"summary", "rules", "scenarios", "compared", "cannot_run", "witness",
                                         "differs"} and data["witness"] is None
    assert data["summary"]["scenarios_differ"] == 1 and data["summary"]["accounted"] == [
        {"by": ["phased-out-tokens-cease"], "together": False, "scenarios": 1}]
    assert data["compared"] == 1 and data["cannot_run"] == []
    assert data["differs"] is True
    assert any(r["slug"] == "phased-out-tokens-cease" and r["kinds"] == ["removed"] for r in data["rules"])
    # CR 702.25k (2017-07-08): a phased-out token ceases to exist; 2017-08-25 took that rule out.
    # The end state differs, and so does the tour's own expectation on the way.
    assert data["scenarios"][0]["differences"] == [
        {"what": "soldier.zone", "a": "nowhere", "b": "battlefield"},
        {"what": "line 19: expect soldier.zone is battlefield", "a": "fails", "b": "holds"}]


@pytest.mark.slow
def test_the_command_works_from_any_directory(tmp_path):
    """Installed, `phasing` finds the shipped rules and the conformance suite wherever it runs."""
    env = {k: v for k, v in os.environ.items() if k != "PHASING_DEBUG"}
    done = subprocess.run([sys.executable, "-m", "phasing_rules.interpreter.cli", "ablate", "2025-02-07", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["all_load_bearing"] is True


def test_check_says_which_rule_files_it_could_only_parse(tmp_path, capsys):
    """A rule file with no manifest outside a version folder is only parsed by `check` (an
    unbound `tap x1` in it means nothing until a version reads it): after its verdict, `check`
    says so for each such file, and for no variant, version folder or scenario."""
    loose = tmp_path / "loose.rules"
    loose.write_text('rule 702.26z untap-twice "s" {\n  during untap step of P: {\n    tap x1\n  }\n}\n')
    assert main(["check", str(loose), str(ROOT / "rules" / "variants" / "end-step-phasing.rules"),
                 str(ROOT / "rules" / "2026-09-25"), str(ROOT / "tests" / "scenarios" / "tour.scenario")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "no problems found"
    assert out[1:] == [f"note: {loose} was only parsed: a rule file with no manifest outside a version folder is "
                       "checked with its version folder, or give it a manifest (variant NAME { title ... extends VERSION })"]
    # with a manifest, the same block is checked, and its unbound name is an error
    variant = tmp_path / "mine.rules"
    variant.write_text('variant mine {\n  title "mine"\n  extends 2026-09-25\n}\n' + loose.read_text())
    assert main(["check", str(variant)]) == 1
    captured = capsys.readouterr()
    assert "unknown name 'x1'" in captured.err and "only parsed" not in captured.out


def run_err(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_date_between_versions_names_the_version_in_force_that_day(capsys):
    """A version is named by its effective date; a valid date that no version has is an error
    whose hint names the newest version dated on or before it (2018-07-13 was still in force
    on 2019-01-01), for every command that takes a version; a date that is no date says so."""
    for argv in (["show", "2019-01-01"], ["diff", "2019-01-01", "2026-09-25"],
                 ["run", str(TOUR), "--rules", "2019-01-01"]):
        status, out, err = run_err(capsys, *argv)
        assert status == 1 and "unknown rules version or variant '2019-01-01'" in err, (argv, err)
        assert "hint: 2018-07-13 was in force on 2019-01-01" in err, (argv, err)
    for day, version in (("2005-02-21", "2005-02-01"), ("2026-08-07", "2025-02-07")):
        status, out, err = run_err(capsys, "show", day)
        assert status == 1 and f"hint: {version} was in force on {day}" in err, err
    status, out, err = run_err(capsys, "show", "2030-01-01")
    assert status == 1 and "the newest, 2026-09-25, is the last version dated on or before 2030-01-01" in err
    status, out, err = run_err(capsys, "show", "2017-13-45")
    assert status == 1 and "error: '2017-13-45' is not a valid date (month must be in 1..12)" in err, err
    status, out, err = run_err(capsys, "show", "1999-01-01")  # before every version: only the known names
    assert status == 1 and "in force" not in err and "hint: known: 2005-02-01" in err


def test_an_id_of_another_version_suggests_the_same_block_as_this_version_numbers_it(capsys):
    """Blocks are aligned by slug across versions: 702.26g (indirect phasing, CR 2021-04-22 on)
    is 702.25f in CR 2017-07-08, and 702.26a (phasing in the untap step) is 502.15b in the 2005
    text; the hint suggests that id first, not the id most alike (702.25g, another block)."""
    status, out, err = run_err(capsys, "show", "2017-07-08", "702.26g")
    assert status == 1 and out == ""
    assert ("hint: did you mean '702.25f'? 702.26g is indirect-phasing in 2021-04-22 .. 2026-09-25, "
            "which 2017-07-08 numbers 702.25f") in err, err
    status, out, err = run_err(capsys, "show", "2005-02-01", "702.26a")
    assert "hint: did you mean '502.15b'? 702.26a is untap-step-phasing" in err, err
    status, out, err = run_err(capsys, "show", "2026-09-25", "INDIRECT-PHASING")
    assert "hint: did you mean 'indirect-phasing'?" in err, err


def test_history_of_an_id_lists_every_block_it_numbered(capsys):
    """702.25k was phased-out tokens ceasing (CR 2015-01-23..2017-07-08), the skipped untap
    step (2017-08-25..2018-07-13) and leaving with the owner (2020-08-07): all three are named,
    with their versions; a slug in capitals is suggested in small letters."""
    status, out, err = run_err(capsys, "history", "702.25k")
    assert status == 1 and out == ""
    assert ("it numbered 3 blocks: phased-out-tokens-cease in 2015-01-23 .. 2017-07-08, skipped-untap-step in "
            "2017-08-25 .. 2018-07-13, leaves-with-owner in 2020-08-07") in err, err
    status, out, err = run_err(capsys, "history", "INDIRECT-PHASING")
    assert status == 1 and "hint: did you mean 'indirect-phasing'?" in err, err


def test_show_prints_every_declaration_zones_included(capsys):
    """The 2005 rules phase a permanent out into a zone of its own (CR 217.8a, 502.15b): `show`
    prints the complete rulebook, so the zone declaration too, before the statuses and verbs;
    `--json` gives the zones, statuses and verbs as data."""
    status, out = run(capsys, "show", "2005-02-01")
    assert status == 0
    lines = out.splitlines()
    zone = lines.index("zone phased_out keeps all cites 217.8a, 217.8c")
    assert zone < lines.index("status phased_out_under: player = none cites 502.15b") < out.index("verb phase_out x")
    status, out = run(capsys, "show", "2005-02-01", "--json")
    data = json.loads(out)
    assert data["zones"] == [{"name": "phased_out", "cites": ["217.8a", "217.8c"],
                              "text": "zone phased_out keeps all cites 217.8a, 217.8c"}]
    assert [s["name"] for s in data["statuses"]] == ["phased_out_under", "phased_indirectly", "phased_in_under"]
    assert [v["name"] for v in data["verbs"]] == ["phase_out", "phase_in"]
    # (what a player sees of 2005's state: in the phased-out zone is phased out, 217.8a)
    assert [o["text"] for o in data["observations"]] == [
        "observe phase of x: out where x.zone is phased_out, otherwise in cites 217.8a",
        "observe zone of x: battlefield where x.zone is phased_out, otherwise x.zone cites 217.8a"]
    assert data["observations"][0]["text"] in lines  # (the text output prints them too)
    assert data["verbs"][1]["text"] == "verb phase_in x cites 502.15b {\n  move x to battlefield\n}"
    status, out = run(capsys, "show", "2026-09-25", "702.26g", "--json")
    assert [s["name"] for s in json.loads(out)["statuses"]][0] == "phase" and json.loads(out)["zones"] == []


def test_show_history_and_diff_take_options_anywhere_and_name_only_what_is_missing(capsys):
    """`show VERSION --json BLOCK` reads its options wherever they stand; `diff A` with B missing
    says only that B is required, not the optional scenario paths; a `--json` error is JSON on
    standard output and text on standard error, as commands.md says."""
    status, out = run(capsys, "show", "2026-09-25", "--json", "702.26g", "indirect-wins")
    assert status == 0 and [b["id"] for b in json.loads(out)["blocks"]] == ["702.26g", "702.26h"]
    status, out = run(capsys, "history", "--json", "indirect-wins")
    assert status == 0 and json.loads(out)["slug"] == "indirect-wins"
    status, out = run(capsys, "diff", "2025-02-07", "--json", "2026-09-25", str(TOUR))
    assert status == 0 and json.loads(out)["differs"] is False
    status, out, err = run_err(capsys, "diff", "2026-09-25")
    assert status == 1 and out == ""
    assert "error: the following arguments are required: b\n" in err, err
    status, out, err = run_err(capsys, "show", "2026-09-25", "--json", "nope")
    assert status == 1 and "'nope' is no block of 2026-09-25" in json.loads(out)["errors"][0]["message"]
    assert "nope: error: 'nope' is no block of 2026-09-25" in err


def test_a_failure_under_other_rules_that_fails_under_its_own_too(tmp_path, capsys):
    """Under --rules X (a variant built on V) judged by the scenario's own version V, an
    expectation that does not hold under V either is not said to be changed by X (702.26a:
    Slip Away phases the bear out under both, so `bear.phase is in` is wrong everywhere)."""
    path = tmp_path / "wrong.scenario"
    path.write_text('scenario "slip" {\n  cites 702.26a\n  players Alice Bob\n  turn 1 of Alice\n  rules 2026-09-25\n'
                    '  permanent bear = "Grizzly Bears", controller Alice\n  script {\n'
                    '    cast "Slip Away" by Alice targeting bear\n    expect bear.phase is in\n  }\n}\n')
    assert main(["test", str(path), "--rules", "tokens-cease-again"]) == 1
    err = capsys.readouterr().err
    assert "(expected under 2026-09-25, where it does not hold either)" in err
    assert "changed by" not in err


def closed_pipe_run(*argv: str) -> subprocess.CompletedProcess:
    """`phasing ARGV` writing into a pipe whose reader has already gone (as `| head -2` is
    once it has its lines): every write finds the pipe closed."""
    reader, writer = os.pipe()
    os.close(reader)
    env = {k: v for k, v in os.environ.items() if k != "PHASING_DEBUG"}
    try:
        return subprocess.run([sys.executable, "-m", "phasing_rules.interpreter.cli", *argv], stdout=writer, stderr=subprocess.PIPE,
                              cwd=ROOT, env=env, text=True, timeout=300)
    finally:
        os.close(writer)


@pytest.mark.slow  # (several seconds: in the slow selection, which .ci/run runs)
def test_a_reader_that_goes_away_ends_a_command_with_status_0():
    """`phasing show | head -2`: the reader has what it wanted, so the command stops with
    status 0 and nothing on stderr, whichever way it writes (rich's console, a table, json)."""
    for argv in (["show"], ["versions"], ["show", "--json"],
                 ["run", "tests/scenarios/attachments.scenario", "--trace"]):
        done = closed_pipe_run(*argv)
        assert (done.returncode, done.stderr) == (0, ""), argv


def test_a_failed_command_keeps_status_1_when_its_reader_goes_away():
    """An error is an error with no reader too: status 1, the error on stderr."""
    done = closed_pipe_run("run", "tests/scenarios/attachments.scenario", "--rules", "nosuch", "--json")
    assert done.returncode == 1
    assert "unknown rules version or variant 'nosuch'" in done.stderr


def test_diff_reports_runs_the_budget_stopped_and_fails(capsys):
    """A run the budget stops (CR 702.25k's token rule goes over one iteration here) tells
    nothing of either rulebook: `diff` lists it, naming the block, and exits 1, with or
    without --exit-code, where it used to say `0 of 1 scenarios play differently`, exit 0."""
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", str(TOUR), "--budget", "iterations=1", "--exit-code")
    assert status == 1
    assert "Behaviour: 0 of 0 scenarios play differently (1 not compared: stopped by the budget)" in out
    assert "Stopped by the budget (2 runs" in out
    assert "under 2017-07-08: block 704.5d token-outside-battlefield goes over the iterations budget" in out
    status, out = run(capsys, "diff", "2025-02-07", "2026-09-25", str(TOUR), "--budget", "writes=1", "--json")
    data = json.loads(out)
    assert status == 1 and data["scenarios"] == []
    assert [s["version"] for s in data["stopped_by_budget"]] == ["2025-02-07", "2026-09-25"]
    assert all("702.26g indirect-phasing goes over the writes budget" in s["error"] for s in data["stopped_by_budget"])


def test_ablate_reports_runs_the_budget_stopped_and_fails(capsys):
    """An ablation whose whole-rulebook runs the budget stops judges no block on them: each
    stopped run is listed (block named) and ablate exits 1; its rows stay as computed."""
    status, out = run(capsys, "ablate", "2026-09-25", str(TOUR), "--budget", "iterations=1", "--json")
    data = json.loads(out)
    assert status == 1 and len(data["stopped_by_budget"]) == 1
    assert "token-outside-battlefield goes over the iterations budget" in data["stopped_by_budget"][0]["error"]
    status, out = run(capsys, "ablate", "2026-09-25", str(TOUR), "--budget", "iterations=1")
    assert status == 1 and "Stopped by the budget (1 run;" in out
    status, out = run(capsys, "ablate", "2026-09-25", str(TOUR), "--json")
    assert "stopped_by_budget" not in json.loads(out)


@pytest.mark.slow
def test_the_default_suite_is_the_shipped_one_whatever_the_current_folder(tmp_path, monkeypatch, capsys):
    """`phasing test` with no path plays the conformance suite that ships with the command, as
    documented; a tests/scenarios folder in the current folder used to replace it silently."""
    mine = tmp_path / "tests" / "scenarios"
    mine.mkdir(parents=True)
    (mine / "one.scenario").write_text((ROOT / "tests" / "scenarios" / "attachments.scenario").read_text())
    monkeypatch.chdir(tmp_path)
    from phasing_rules.interpreter import api

    shipped = api.default_suite()  # (the checkout's, or, installed with `pip install .`, the package's copy)
    assert shipped.resolve() != mine.resolve()
    assert sorted(p.name for p in shipped.rglob("*.scenario")) == sorted(
        p.name for p in (ROOT / "tests" / "scenarios").rglob("*.scenario"))
    status, out = run(capsys, "test")
    assert status == 0
    assert str(mine) not in out
    passed = int(out.rsplit(" passed", 1)[0].split()[-1])
    assert passed > 100


UNKNOWN_EXPECT_FOR = """scenario "an expectation for a name no rulebook has" {
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  script {
    expect bear.zone is battlefield
    expect for 2026-09-52: bear.power is 3
    expect for 2026-09-52: bear.zone is graveyard
  }
}
"""


LEAVING_UNDER = """scenario "Carol leaves" {
  rules RULES
  players Alice Bob Carol
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Carol
  script {
    Carol leaves the game
    expect bear.zone is ZONE
  }
}
"""


def test_leaving_the_game_under_a_rulebook_without_a_block_for_it_is_a_warning(tmp_path, capsys):
    """2005-02-01 has no block run as a player leaves the game (800.4a came later): Carol's
    bear stays on the battlefield. `check`, `test` and `run` say so at the step, as a warning
    (exit 0: the rulebook leaves it out on purpose), rather than run it silently; under
    2026-09-25 the bear leaves the game with its owner (800.4a), and nothing is said."""
    scenario = tmp_path / "leaving.scenario"
    scenario.write_text(LEAVING_UNDER.replace("RULES", "2005-02-01").replace("ZONE", "battlefield"))
    for argv in (["check", str(scenario)], ["test", str(scenario)], ["run", str(scenario)]):
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0, captured.err
        assert (f"{scenario}:7:5: warning: no block of 2005-02-01 runs when a player leaves the game: "
                "Carol takes no more turns") in captured.err, argv
    status = main(["run", str(scenario), "--json"])
    (outcome,) = json.loads(capsys.readouterr().out)
    assert status == 0 and outcome["passed"]
    assert [(w["kind"], w["line"], w["column"]) for w in outcome["warnings"]] == [("warning", 7, 5)]
    assert outcome["warnings"][0]["message"].startswith("no block of 2005-02-01 runs when a player leaves the game")
    scenario.write_text(LEAVING_UNDER.replace("RULES", "2026-09-25").replace("ZONE", "outside"))
    for argv in (["check", str(scenario)], ["test", str(scenario)], ["run", str(scenario)]):
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0 and "warning" not in captured.err, captured.err


def test_outcome_json_of_the_api_is_what_run_json_prints_warnings_and_all(tmp_path, capsys):
    """docs/api.md: `api.outcome_json` gives an outcome as `run --json` does. A run with a
    warning (2005-02-01 has no block for a player leaving, 800.4a came later) has it under
    `warnings` from both; `test --json`'s run is the same without its trace. outcome_json
    gave no `warnings` at all: the command added them itself."""
    from phasing_rules.interpreter import api

    scenario = tmp_path / "leaving.scenario"
    scenario.write_text(LEAVING_UNDER.replace("RULES", "2005-02-01").replace("ZONE", "battlefield"))
    (outcome,) = api.run_file(scenario)
    assert main(["run", str(scenario), "--json"]) == 0
    (printed,) = json.loads(capsys.readouterr().out)
    assert json.loads(json.dumps(api.outcome_json(outcome))) == printed
    assert [w["message"][:41] for w in printed["warnings"]] == ["no block of 2005-02-01 runs when a player"]
    assert main(["test", str(scenario), "--json"]) == 0
    (run_of_test,) = json.loads(capsys.readouterr().out)["runs"]
    assert json.loads(json.dumps(api.outcome_json(outcome, with_trace=False))) == run_of_test


def test_a_run_that_never_began_has_an_empty_final_and_says_why(tmp_path, capsys):
    """docs/commands.md: `final` is `{}` for a run that never began (no board to give the
    keys it lists): here a scenario without a `players` line; `passed` is false and the
    failure says why. A run that began has every key `state()` gives."""
    scenario = tmp_path / "unplayable.scenario"
    scenario.write_text('scenario "no players" {\n  rules 2026-09-25\n  script {\n    next turn\n  }\n}\n')
    assert main(["run", str(scenario), "--json"]) == 1
    (outcome,) = json.loads(capsys.readouterr().out)
    assert outcome["final"] == {} and outcome["passed"] is False
    assert [f["message"] for f in outcome["failures"]] == ["a scenario needs a 'players' line"]
    assert main(["run", str(TOUR), "--json"]) == 0
    (outcome,) = json.loads(capsys.readouterr().out)
    assert set(outcome["final"]) == {"turn", "active", "step", "players", "permanents", "status_defaults"}


def test_an_expect_for_no_rulebook_has_is_a_warning_in_a_scenario_without_rules_line(tmp_path, capsys):
    """A scenario without a rules line runs under whatever it is given, so `expect for NAME:`
    with a NAME no version or variant has is no error, but its lines are never evaluated:
    `check` warns (did you mean, exit 0), `test` and `run` under 2026-09-25 warn that they
    were not evaluated (they used to say nothing)."""
    scenario = tmp_path / "typo.scenario"
    scenario.write_text(UNKNOWN_EXPECT_FOR)
    status = main(["check", str(scenario)])
    captured = capsys.readouterr()
    assert status == 0 and "no errors; 1 warning(s)" in captured.out
    assert f"{scenario}:6:16: warning: 'expect for 2026-09-52': no version or variant is named '2026-09-52'" in captured.err
    assert "not evaluated unless it runs under a rulebook of that name" in captured.err
    assert "did you mean '2026-09-25'" in captured.err
    for argv in (["test", str(scenario)], ["run", str(scenario)]):
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0, captured.err
        assert "so its 2 expectations are not evaluated under 2026-09-25" in captured.err
    from phasing_rules.interpreter import api

    assert [d.kind for d in api.check_paths(str(scenario))] == ["warning"]
    # the same lines run under a variant file of that name are that variant's expectations:
    # no warning, and they are judged (here they fail: the variant changes nothing)
    scenario.write_text(UNKNOWN_EXPECT_FOR.replace("2026-09-52", "mine"))
    variant = tmp_path / "mine.rules"
    variant.write_text("variant mine {\n  title \"the same rules\"\n  extends 2026-09-25\n}\n")
    status = main(["test", str(scenario), "--rules", str(variant)])
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    assert status == 1 and "FAIL expect bear.power is 3" in captured.out

OFF_THE_RULES_LINE = """scenario "a phased-out token before and after the Commander 2017 update" {
  cites 702.26d
  rules RULES
  players Alice Bob
  permanent soldier = "Soldier Token", controller Alice, token
  script {
    cast "Slip Away" by Alice targeting soldier
    expect for NAME: soldier.zone is nowhere
    expect for NAME: soldier.phase is out
  }
}
"""


def test_an_expect_for_a_known_name_off_the_rules_line_is_a_warning_or_an_error(tmp_path, capsys):
    """`expect for 2017-07-08` in a scenario whose rules line is 2017-08-25, 2026-09-25 is
    evaluated only under --rules 2017-07-08 (702.26d: a phased-out token ceases to exist before
    the Commander 2017 update): `check` warns at the name (exit 0), where it said "no problems
    found". A variant built on none of the scenario's rules (end-step-phasing, on 2026-09-25,
    for a scenario of 2017-08-25) would never be evaluated: an error at the name, in `check`
    and in `test`. A variant built on one of them is what --rules runs it under: nothing is
    said; one that only a variant of the line built on it is judged by is a warning naming it."""
    scenario = tmp_path / "history.scenario"
    scenario.write_text(OFF_THE_RULES_LINE.replace("RULES", "2017-08-25, 2026-09-25").replace("NAME", "2017-07-08"))
    status = main(["check", str(scenario)])
    captured = capsys.readouterr()
    assert status == 0 and "no errors; 1 warning(s)" in captured.out, captured.err
    assert (f"{scenario}:8:16: warning: 'expect for 2017-07-08': 2017-07-08 is not in the rules line of this "
            "scenario, so its 2 expectations are evaluated only when the scenario is run with --rules 2017-07-08") in captured.err
    assert "add 2017-07-08 to it" in captured.err
    from phasing_rules.interpreter import api

    assert [(d.kind, d.span.line, d.span.column, d.span.end_column) for d in api.check_paths(str(scenario))] == [("warning", 8, 16, 26)]
    scenario.write_text(OFF_THE_RULES_LINE.replace("RULES", "2017-08-25").replace("NAME", "end-step-phasing"))
    for argv in (["check", str(scenario)], ["test", str(scenario)]):
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 1, argv
        for line in (8, 9):
            assert (f"{scenario}:{line}:16: error: 'expect for end-step-phasing': never evaluated: no run of this "
                    "scenario is judged by the expectations for end-step-phasing (end-step-phasing is built on "
                    "2026-09-25, which its rules line does not name)") in captured.err, argv
    scenario.write_text(OFF_THE_RULES_LINE.replace("RULES", "2026-09-25").replace("NAME", "tokens-cease-again"))
    status, out = run(capsys, "check", str(scenario))
    assert status == 0 and "no problems found" in out
    scenario.write_text(OFF_THE_RULES_LINE.replace("RULES", "end-step-no-indirect").replace("NAME", "end-step-phasing"))
    status = main(["check", str(scenario)])
    captured = capsys.readouterr()
    assert status == 0 and "no errors; 1 warning(s)" in captured.out, captured.err
    assert "evaluated only when the scenario is run with --rules end-step-no-indirect" in captured.err


def test_test_and_run_give_the_off_the_rules_line_warning_too(tmp_path, capsys):
    """`phasing test` and `phasing run` of that scenario (rules line 2017-08-25, 2026-09-25,
    `expect for 2017-07-08` lines: 702.26d, a phased-out token ceases to exist before the
    Commander 2017 update) say what `check` says, that those lines were not evaluated, once
    however many runs there are; under `--rules 2017-07-08`, which evaluates them, nothing is
    said of them."""
    scenario = tmp_path / "history.scenario"
    scenario.write_text(OFF_THE_RULES_LINE.replace("RULES", "2017-08-25, 2026-09-25").replace("NAME", "2017-07-08"))
    warning = (f"{scenario}:8:16: warning: 'expect for 2017-07-08': 2017-07-08 is not in the rules line of this "
               "scenario, so its 2 expectations are evaluated only when the scenario is run with --rules 2017-07-08")
    for argv in (["test", str(scenario)], ["run", str(scenario)]):
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0, captured.err
        assert captured.err.count(warning) == 1, (argv, captured.err)
    main(["test", str(scenario), "--rules", "2017-07-08"])
    captured = capsys.readouterr()
    assert "not in the rules line" not in captured.err, captured.err


def _interrupted_after(seconds: float, *argv: str) -> subprocess.CompletedProcess:
    """Start `python -m phasing_rules.interpreter.cli ARGV`, send it SIGINT (Ctrl-C) after `seconds`."""
    import signal
    import time
    # The child starts with Ctrl-C's default action, as from a terminal: a pytest started in the
    # background of a non-interactive shell ignores SIGINT, and a child would inherit that (and
    # rightly go on: an ignored Ctrl-C is the caller's choice).
    child = subprocess.Popen([sys.executable, "-m", "phasing_rules.interpreter.cli", *argv], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(seconds)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


@pytest.mark.slow  # (over a second: a child process interrupted after 2 s; in the slow selection)
def test_ctrl_c_during_a_long_command_says_interrupted_and_exits_130():
    """Ctrl-C during a long command (the whole suite under every version) ended it with status
    130 and nothing said at all; now one line on stderr says so, and no traceback (also when
    it lands in a callback Python swallows it in, and the command runs on to its end)."""
    done = _interrupted_after(2, "test")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "phasing: error: interrupted\n"


def test_ctrl_c_under_json_prints_the_error_as_json_too(monkeypatch, capsys):
    """Under --json the interruption is also the documented JSON error on stdout."""
    from phasing_rules.interpreter import cli

    def interrupted(_args):
        raise KeyboardInterrupt

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_func(parser(), "show", interrupted))
    assert cli.main(["show", "2026-09-25", "--json"]) == 130
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "interrupted" in err
    assert json.loads(out) == {"errors": [{"kind": "error", "path": "phasing", "line": 0, "column": 0,
                                           "end_line": 0, "end_column": 0, "message": "interrupted",
                                           "hint": None}]}


def test_ctrl_c_while_the_console_script_imports_the_command_line(monkeypatch, capsys):
    """The `phasing` script (phasing_rules.interpreter.entry) imports phasing_rules.interpreter.cli under its own guard, so
    a Ctrl-C in the imports, before any command handler exists, ends like one during a command."""
    from phasing_rules.interpreter import entry

    class Interrupt:
        def find_spec(self, name, path=None, target=None):
            if name == "phasing_rules.interpreter.cli":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "phasing_rules.interpreter.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupt(), *sys.meta_path])
    assert entry.main() == 130
    assert capsys.readouterr().err == "phasing: error: interrupted\n"


def test_ctrl_c_that_python_swallowed_in_a_callback_still_ends_the_command_as_interrupted(monkeypatch, capsys):
    """Python swallows a KeyboardInterrupt raised in a weak reference's callback (the engine's
    caches have such callbacks), and the command ran on and ended with status 0 and an
    'Exception ignored' traceback: `main` remembers the Ctrl-C and ends it as interrupted."""
    from phasing_rules.interpreter import cli

    def versions_hit_in_a_callback(_args):
        try:
            cli._on_ctrl_c(2, None)  # (what the signal handler does)
        except KeyboardInterrupt:
            pass  # (what Python does with it in a callback)
        return 0

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_func(parser(), "versions", versions_hit_in_a_callback))
    assert cli.main(["versions"]) == 130
    assert capsys.readouterr().err == "phasing: error: interrupted\n"


def _with_func(parser, command, func):
    """`parser` with `command` run by `func`."""
    for action in parser._subparsers._group_actions:
        action.choices[command].set_defaults(func=func)
    return parser


FAILING = '''scenario "a bear with a counter" {
  cites 702.26d
  rules 2026-09-25
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice, counter p1p1 = 1
  script {
    expect bear.power is 3
    next turn
    expect bear.power is 4
    expect bear.controller is Bob
  }
}
'''


def test_run_json_expectations_say_where_which_step_and_what_was_found(capsys, tmp_path):
    """An expectation entry is located as `errors` are (path, line, column), with its step of
    the script and, when it failed, the value found; a failure is shaped as an error too."""
    path = tmp_path / "f.scenario"
    path.write_text(FAILING, encoding="utf-8")
    status, out = run(capsys, "run", str(path), "--json")
    (data,) = json.loads(out)
    held, power, controller = data["expectations"]
    assert status == 1 and held == {"expect": "bear.power is 3", "ok": True, "at": f"{path}:8:5", "path": str(path),
                                     "line": 8, "column": 5, "step": 1}
    assert (power["ok"], power["line"], power["step"], power["actual"]) == (False, 10, 3, 3)
    assert (controller["step"], controller["actual"]) == (4, "Alice")
    failure = data["failures"][0]
    assert (failure["path"], failure["line"], failure["column"], failure["at"]) == (str(path), 10, 5, f"{path}:10:5")
    assert {"kind", "end_line", "end_column", "message", "hint"} <= set(failure)


def test_run_json_says_whose_expectations_judged_the_run(capsys):
    """`[end-step-no-indirect, expectations of 2026-09-25]` in the text is `rules` and
    `expectations_of` in the JSON."""
    status, out = run(capsys, "run", str(TOUR), "--rules", "end-step-no-indirect", "--json")
    data = json.loads(out)
    assert {(d["rules"], d["expectations_of"]) for d in data} == {("end-step-no-indirect", "2026-09-25")}
    status, out = run(capsys, "run", str(TOUR), "--json")
    assert [(d["rules"], d["expectations_of"]) for d in json.loads(out)] == [("2026-09-25", "2026-09-25")]


def test_run_json_final_gives_every_object_the_same_keys(capsys):
    """702.26d: counters and stickers stay on a phased-out permanent, which `final` can now
    show; every object has the same keys (docs/commands.md lists them)."""
    status, out = run(capsys, "run", str(ROOT / "tests" / "scenarios" / "no_zone_change.scenario"), "--json")
    keys = {"card", "zone", "owner", "controller", "token", "tapped", "attached_to", "power", "toughness", "keywords",
            "damage", "counters", "stickers", "attacking", "blocking", "entered_turn", "visible", "statuses"}
    for outcome in json.loads(out):
        for name, entry in outcome["final"]["permanents"].items():
            assert set(entry) == keys, (outcome["scenario"], name)
    stickers = next(o for o in json.loads(out) if o["scenario"].startswith("counters and stickers"))
    djinn = stickers["final"]["permanents"]["djinn"]
    assert (djinn["counters"], djinn["stickers"], djinn["keywords"]) == ({"p1p1": 2}, {"name": 1}, ["flying", "phasing"])


def test_version_prints_the_package_and_the_rules_it_ships(capsys):
    """`phasing --version` (docs/commands.md) says which package and which rules versions and
    variants it ships, exit 0."""
    status, out = run(capsys, "--version")
    lines = out.strip().splitlines()
    assert status == 0 and lines[0].startswith("phasing ")
    assert "2026-09-25" in lines[1] and "2005-02-01" in lines[1] and "end-step-phasing" in lines[2]


def test_test_json_gives_every_run_and_the_counts(capsys, tmp_path):
    """`test --json` is what `test` plays as data: each run of the tour under each of its
    versions (as run --json gives it, without the trace), a file that cannot run among the
    problems, counted as a failure as the text counts it."""
    broken = tmp_path / "broken.scenario"
    broken.write_text('scenario "x" {\n  players Alice Bob\n  permanent bear = \n}\n', encoding="utf-8")
    status, out = run(capsys, "test", str(TOUR), "--json")
    data = json.loads(out)
    assert status == 0 and (data["passed"], data["failed"], data["problems"]) == (8, 0, [])
    assert len(data["runs"]) == 8 and all("trace" not in r and r["expectations"][0]["step"] for r in data["runs"])
    assert {r["rules"] for r in data["runs"]} >= {"2017-08-25", "2026-09-25"}
    status, out = run(capsys, "test", str(TOUR), str(broken), "--json")
    data = json.loads(out)
    assert status == 1 and (data["passed"], data["failed"], len(data["runs"])) == (8, 1, 8)
    (problem,) = data["problems"]
    assert (problem["path"], problem["line"]) == (str(broken), 4)
    text_status, text = run(capsys, "test", str(TOUR), str(broken))
    assert text.strip().splitlines()[-1] == f"{data['passed']} passed, {data['failed']} failed" and text_status == 1
