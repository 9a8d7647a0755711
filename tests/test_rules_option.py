"""`--rules X` means "run under X" (issue 15, item 1): for `run`, `test`, `ablate` and
`api.run_file`, X a version, a variant name, a variant file or a version folder.

A scenario's home versions are those its `rules` line names (the newest shipped version
without one). Under X, the scenarios run whose home versions meet X and the rulebooks it is
built on down to the first shipped version V (`suite.judging_chain`), or that have `expect
for V` lines: under a shipped version, its own scenarios; under a variant or a version of
one's own (a new release), those of V too, judged by the expectations for the first of them
they have lines for, else for the first that is a home version. A failure says whose
expectation it was and which rulebook changed it (`suite.blamed`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter import api, cli
from phasing_rules.interpreter.rulebook.loading import RULES_ROOT
from phasing_rules.interpreter.play.suite import collect, home_versions

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "scenarios"
TOUR = SUITE / "tour.scenario"

# Without 702.26g an Aura does not phase out with its creature: it is attached to something
# the game can't see and goes to the graveyard (704.5m).
NO_INDIRECT = """\
variant my-variant {
  title "No indirect phasing, a user's own"
  extends 2026-09-25
  drop indirect-phasing
  drop indirect-wins
  section 702.26 subrules a b c d e f i j k m n p
}
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def variant(tmp_path) -> Path:
    path = tmp_path / "my-variant.rules"
    path.write_text(NO_INDIRECT, encoding="utf-8")
    return path


def shipped_runs_under_2026() -> int:
    """How many scenarios of the suite are written for 2026-09-25 (their home versions include it)."""
    cases, _ = collect([SUITE])
    return sum("2026-09-25" in home_versions(c) for c in cases)


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_a_variant_file_outside_the_repo_runs_the_shipped_suite(variant, capsys):
    """Every scenario written for 2026-09-25 runs under the variant; the failures are exactly
    the outcomes dropping 702.26g changes (an Aura stays phased in, 702.26g), each naming
    whose expectation it was and what changed it."""
    expected_runs = shipped_runs_under_2026()
    assert expected_runs >= 70
    status, out, err = run(capsys, "test", SUITE, "--rules", variant)
    assert status == 1, err
    passed, failed = (int(n) for n in out.strip().splitlines()[-1].replace(" passed,", "").replace(" failed", "").split())
    assert passed + failed == expected_runs
    assert 0 < failed < expected_runs
    assert "expected strength.phased_indirectly is true, but strength.phased_indirectly is false " \
           "(expected under 2026-09-25, changed by my-variant)" in err
    assert "FAIL tour: Teferi's Protection saves an enchanted creature and a token from a board wipe " \
           "[my-variant, expectations of 2026-09-25]" in out


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_a_variant_that_changes_nothing_the_suite_sees_passes_everything(tmp_path, capsys):
    """A variant restating 2026-09-25 (a note only) changes no outcome: all its runs pass."""
    path = tmp_path / "same.rules"
    path.write_text('variant same {\n  title "The same"\n  extends 2026-09-25\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "test", SUITE, "--rules", path)
    assert (status, out.strip().splitlines()[-1]) == (0, f"{shipped_runs_under_2026()} passed, 0 failed"), err


@pytest.mark.slow
def test_the_same_through_the_api(variant):
    outcomes = api.run_file(SUITE, rules=str(variant))
    assert len(outcomes) == shipped_runs_under_2026()
    failed = [o for o in outcomes if not o.passed]
    assert failed and all(o.version == "my-variant" and o.judge == "2026-09-25" for o in failed)
    tour = next(o for o in outcomes if o.path == str(TOUR))
    assert not tour.passed  # without 702.26g the Aura stays behind when its creature phases out
    assert ("strength.phased_indirectly is true", False) in tour.expectations


def test_the_api_takes_a_list_and_runs_under_each(variant):
    outcomes = api.run_file(TOUR, rules=[str(variant), "2026-09-25"])
    assert [(o.version, o.passed) for o in outcomes] == [("my-variant", False), ("2026-09-25", True)]


def test_the_api_rejects_an_unknown_name_and_a_run_of_nothing(tmp_path):
    with pytest.raises(DiagnosticError, match="unknown rules version or variant 'nope'"):
        api.run_file(TOUR, rules="nope")
    with pytest.raises(DiagnosticError, match="no scenario runs under end-step-phasing"):
        api.run_file(SUITE / "history_2005.scenario", rules="end-step-phasing")


def test_expectations_for_the_variant_judge_it_where_a_scenario_has_them(capsys):
    """variants.scenario has `expect for no-indirect-phasing` lines: under that variant they,
    not those for 2026-09-25, judge it, and it passes (702.26g, 704.5m, 704.5n)."""
    status, out, err = run(capsys, "test", SUITE / "variants.scenario", "--rules", "no-indirect-phasing", "-v")
    assert status == 0, out + err
    assert "PASS without indirect phasing, an Aura falls off a phased-out creature and Equipment comes off " \
           "[no-indirect-phasing]" in out


def test_a_stacked_variant_is_judged_by_its_parents_expectations(capsys):
    """end-step-no-indirect extends end-step-phasing: the end-step scenario (home 2026-09-25 and
    end-step-phasing) is judged by the expectations for end-step-phasing, and passes (702.26a)."""
    status, out, err = run(capsys, "test", SUITE / "variants.scenario", "--rules", "end-step-no-indirect", "-v")
    assert "PASS phasing in the end step instead of the untap step [end-step-no-indirect, expectations of " \
           "end-step-phasing]" in out, out + err


def test_under_a_shipped_version_only_the_scenarios_written_for_it_run(capsys):
    """history_2005.scenario is written for 2005-02-01 (and 2011-02-04): under 2005-02-01 every
    one of its scenarios runs and passes (502.15); under 2026-09-25, which it is not written
    for, none runs, and that is an error that says so (what 2026-09-25 changes since 2005 is
    what `phasing diff 2005-02-01 2026-09-25` shows, not a failure of the suite)."""
    cases, _ = collect([SUITE / "history_2005.scenario"])
    status, out, err = run(capsys, "test", SUITE / "history_2005.scenario", "--rules", "2005-02-01")
    assert status == 0 and out.strip().splitlines()[-1] == f"{len(cases)} passed, 0 failed", out + err
    status, out, err = run(capsys, "test", SUITE / "history_2005.scenario", "--rules", "2026-09-25")
    assert status == 1 and "no scenario runs under 2026-09-25" in err, out + err


@pytest.mark.slow  # (every shipped version over the whole suite: in the slow selection, which .ci/run runs)
def test_the_shipped_suite_passes_clean_under_every_shipped_version(capsys):
    """`phasing test tests/scenarios --rules V`, for each version V shipped: the scenarios
    written for V run, each judged by its own expectations, and none fails (each version's
    rules are those of its CR text, 702.26 and the rules it leans on)."""
    from phasing_rules.interpreter.rulebook.loading import shipped_sources
    for version in sorted(s.name for s in shipped_sources() if s.kind == "version"):
        status, out, err = run(capsys, "test", SUITE, "--rules", version)
        assert status == 0 and out.strip().endswith(" 0 failed"), (version, out[-2000:], err[-2000:])


UPKEEP_RELEASE = """version 2027-01-15 {
  title "A release of one's own: 702.26a in the upkeep"
  extends 2026-09-25
}

amend untap-step-phasing {
  replace clause phase-out-and-in: during upkeep step of P: simultaneously {
    each x where x.phase is in and x has phasing and x.controller is P: phase_out x
    each x where x.phase is out and x.phased_out_under is P and not x.phased_indirectly: phase_in x
  }
}

rule 502.1 untap-step-order "The untap step begins with what phases in for a player who left the game, before anything untaps." {
  order untap step: 702.26n, 502.3
}
"""

QUIET_RELEASE = """version 2027-01-15 {
  title "A release of one's own that changes nothing the suite sees"
  extends 2026-09-25
}
"""


def release(tmp_path: Path, text: str) -> Path:
    """A rules path holding a version of one's own, 2027-01-15, extending 2026-09-25."""
    folder = tmp_path / "rules-path" / "2027-01-15"
    folder.mkdir(parents=True)
    (folder / "version.rules").write_text(text, encoding="utf-8")
    return folder.parent


def failures(out: str) -> set[str]:
    return {line.split(" [")[0][len("FAIL "):] for line in out.splitlines() if line.startswith("FAIL ")}


@pytest.mark.slow  # (the suite under a new release, and under its base: in the slow selection)
def test_a_release_of_ones_own_fails_exactly_where_it_changes_the_version_it_extends(tmp_path, capsys):
    """A version of one's own extending 2026-09-25 that only moves 702.26a to the upkeep (and
    takes it out of 502.1's untap-step order, as `check` requires) runs
    the scenarios of 2026-09-25 (131 of the suite), judged by 2026-09-25's expectations; what
    fails is exactly what `phasing diff 2026-09-25 2027-01-15` reports, and every failed
    expectation is blamed on the release, never on an older change (702.26a: phasing happens
    in the untap step, before untapping)."""
    rules_path = release(tmp_path, UPKEEP_RELEASE)
    status, base_out, _ = run(capsys, "test", SUITE, "--rules", "2026-09-25", "-v")
    assert status == 0
    status, out, err = run(capsys, "test", SUITE, "--rules-path", rules_path, "--rules", "2027-01-15", "-v")
    assert status == 1
    ran = [line for line in out.splitlines() if line.startswith(("PASS ", "FAIL "))]
    assert len(ran) == len([line for line in base_out.splitlines() if line.startswith("PASS ")])
    failed = failures(out)
    assert "a permanent that phases in is untapped in the same untap step" in failed  # (702.26a before 502.3)
    errors = [line for line in err.splitlines() if ": error: expected " in line]
    assert errors and all(line.endswith("changed by 2027-01-15)") for line in errors), err
    assert all("holds under 2026-09-25" in line or "expected under 2026-09-25" in line for line in errors), err
    # exactly the scenarios `diff` reports between the version the release extends and the
    # release: those that play differently (another end, or an expectation held under one only)
    status, out, _ = run(capsys, "diff", "2026-09-25", "2027-01-15", "--rules-path", rules_path, "--json")
    reported = {s["scenario"] for s in json.loads(out)["scenarios"]}
    assert status == 0 and failed == reported


@pytest.mark.slow  # (the suite under a new release: in the slow selection)
def test_an_older_difference_is_never_blamed_on_a_new_release(tmp_path, capsys):
    """A release of one's own that changes nothing passes the suite clean: the scenarios
    written for older versions (2005's phased-out zone, 502.15; 2017's tokens ceasing to
    exist, 702.26d then) do not run under it, so no difference that arrived in an older
    version is laid at its door."""
    rules_path = release(tmp_path, QUIET_RELEASE)
    status, out, err = run(capsys, "test", SUITE, "--rules-path", rules_path, "--rules", "2027-01-15")
    assert status == 0 and out.strip().endswith(" 0 failed"), out[-2000:] + err[-2000:]
    assert "changed by" not in err


def test_a_change_is_blamed_on_the_rulebook_between_that_made_it(tmp_path, capsys):
    """A variant built on a release of one's own that moved 702.26a to the upkeep: a failure
    under the variant is blamed on the release, whose block accounts for it, not on the
    variant, which only adds a note (702.26a)."""
    rules_path = release(tmp_path, UPKEEP_RELEASE)
    (rules_path / "on-the-release.rules").write_text(
        'variant on-the-release {\n  extends 2027-01-15\n  note "Nothing of its own."\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "test", SUITE / "untap_step.scenario", "--rules-path", rules_path,
                           "--rules", "on-the-release")
    assert status == 1
    errors = [line for line in err.splitlines() if ": error: expected " in line]
    assert errors and all("changed by 2027-01-15)" in line for line in errors), err


OFF_THE_RULES_LINE = """scenario "a phased-out token before and after the Commander 2017 update" {
  cites 702.26d
  rules 2017-08-25, 2026-09-25
  players Alice Bob
  permanent soldier = "Soldier Token", controller Alice, token
  script {
    cast "Slip Away" by Alice targeting soldier
    expect for 2017-07-08: soldier.zone is nowhere
    expect for 2017-08-25, 2026-09-25: soldier.zone is battlefield
  }
}
"""


def test_expectations_for_a_version_off_the_rules_line_judge_a_run_under_it(tmp_path, capsys):
    """A scenario written for 2017-08-25 and 2026-09-25 with a line for 2017-07-08, where a
    phased-out token ceases to exist (702.26d before the Commander 2017 update): under
    --rules 2017-07-08 the line for 2017-07-08 judges it, and it passes. It used to be judged
    by 2017-08-25's lines ("changed by 2017-07-08") with the line for 2017-07-08 never read.
    A version it is not written for and has no lines for does not run it."""
    path = tmp_path / "token.scenario"
    path.write_text(OFF_THE_RULES_LINE, encoding="utf-8")
    status, out, err = run(capsys, "test", path, "--rules", "2017-07-08", "-v")
    assert status == 0, out + err
    assert "PASS a phased-out token before and after the Commander 2017 update [2017-07-08]" in out
    [outcome] = api.run_file(path, rules="2017-07-08")
    assert (outcome.judge, outcome.expectations) == ("", (("soldier.zone is nowhere", True),))
    status, out, err = run(capsys, "test", path, "--rules", "2016-07-22", "-v")
    assert status == 1 and "no scenario runs under 2016-07-22" in err  # (written for none of it)


def test_run_under_a_version_folder(capsys):
    status, out, err = run(capsys, "run", TOUR, "--rules", RULES_ROOT / "2026-09-25")
    assert status == 0, err
    assert "PASS tour: Teferi's Protection saves an enchanted creature and a token from a board wipe [2026-09-25]" in out


def test_run_json_under_a_folder_is_not_empty(capsys):
    status, out, err = run(capsys, "run", TOUR, "--rules", RULES_ROOT / "2026-09-25", "--json")
    assert status == 0, err
    assert [o["rules"] for o in json.loads(out)] == ["2026-09-25"]


def test_run_under_several_rules(variant, capsys):
    status, out, err = run(capsys, "run", TOUR, "--rules", "2026-09-25", "--rules", variant)
    assert status == 1
    assert "PASS tour" in out and "FAIL tour" in out


@pytest.mark.parametrize("command", ["run", "test"])
def test_an_unknown_rules_value_is_an_error_before_anything_runs(command, capsys):
    status, out, err = run(capsys, command, TOUR, "--rules", "no-such-version")
    assert status == 1
    assert "no-such-version: error: unknown rules version or variant 'no-such-version'" in err
    assert out == ""  # nothing ran


@pytest.mark.parametrize("command", ["run", "test"])
def test_running_nothing_is_an_error_that_says_why(command, capsys):
    """The 2005 scenarios are not written for 2026-09-25 nor for end-step-phasing."""
    status, out, err = run(capsys, command, SUITE / "history_2005.scenario", "--rules", "end-step-phasing")
    assert status == 1
    assert "no scenario runs under end-step-phasing" in err
    assert "2026-09-25 (the version it is built on)" in err


def test_ablate_a_variant_file_finds_its_load_bearing_blocks(tmp_path, capsys):
    """A variant that replaces 702.26g with a block that never applies: ablation runs the suite
    under it and reports that block as its own and not load-bearing, and 702.26b (what the
    game cannot see) as load-bearing."""
    path = tmp_path / "inert.rules"
    path.write_text(NO_INDIRECT.replace("my-variant", "inert").replace("  drop indirect-phasing\n  drop indirect-wins\n", "")
                    .replace(" subrules a b c d e f i j k m n p", " subrules a b c d e f g h i j k m n p"),
                    encoding="utf-8")
    status, out, err = run(capsys, "ablate", path, TOUR, "--json")
    data = json.loads(out)
    assert data["scenario_runs"] == 1 and data["base"] == "2026-09-25" and data["own"] == []
    rows = {row["id"]: row for row in data["blocks"]}
    assert rows["702.26g"]["changed"], err  # deleting indirect phasing changes the tour (702.26g)


def test_ablate_a_variant_with_a_block_of_its_own(tmp_path, capsys):
    """A variant's own block is marked; one that changes no scenario is reported NOT LOAD-BEARING."""
    path = tmp_path / "extra.rules"
    path.write_text(NO_INDIRECT.replace("my-variant", "extra").replace("  drop indirect-phasing\n  drop indirect-wins\n", "")
                    .replace(" subrules a b c d e f i j k m n p", " subrules a b c d e f g h i j k m n p q")
                    + '\nrule 702.26q idle-block "Does nothing the suite sees." {\n'
                      '  during end step of P: each x where x.damage > 1000: tap x\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "ablate", path, TOUR)
    assert status == 1, err
    assert "702.26q idle-block *" in out and "NOT LOAD-BEARING" in out
    assert "blocks marked * are extra's own" in out


def test_ablate_with_no_scenario_to_run_is_an_error(capsys):
    status, out, err = run(capsys, "ablate", "end-step-phasing", SUITE / "history_2005.scenario")
    assert status == 1
    assert "no scenario runs under end-step-phasing" in err
    assert "load-bearing" not in out


@pytest.mark.parametrize("command", ["run", "test"])
def test_a_rules_file_without_a_manifest_is_an_error_naming_it(command, tmp_path, capsys):
    """An empty variant file has no manifest to say what it extends: an error naming the file,
    before anything runs (found by `phasing fuzz`, an IndexError before)."""
    empty = tmp_path / "empty.rules"
    empty.write_text("", encoding="utf-8")
    status, out, err = run(capsys, command, TOUR, "--rules", empty)
    assert status == 1
    assert f"{empty}: error: a version needs exactly one manifest, found 0" in err
    assert "passed" not in out


def test_a_scenario_file_that_does_not_parse_is_reported_not_hidden_by_the_run_of_nothing(tmp_path, capsys):
    """Under --rules, a file whose only scenario does not parse is its own positioned error;
    'no scenario runs' is not said about it."""
    bad = tmp_path / "bad.scenario"
    bad.write_text('scenario "x" {\n  players Alice Bob\n  script { next turnn }\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "test", bad, "--rules", "2026-09-25")
    assert status == 1
    assert f"{bad}:3:23: error: unexpected '}}'" in err
    assert "no scenario runs" not in err
    assert out.strip() == "0 passed, 1 failed"


def test_a_rulebook_that_does_not_load_is_loaded_once_for_all_its_scenarios(tmp_path, monkeypatch):
    """A broken variant given as --rules is an error with its own errors before any scenario
    runs, and is read and checked once, not once per scenario (the fuzzer's
    two-thousand-errors input took seconds per scenario that way)."""
    from phasing_rules.interpreter.play import suite

    broken = tmp_path / "broken.rules"
    broken.write_text('variant broken {\n  extends 2026-09-25\n  title "a variant with a mistake"\n}\n'
                      'rule 100.1 oops "taps nothing at cleanup" {\n  during cleanup of P: tap nobody\n}\n',
                      encoding="utf-8")
    calls = []
    real = suite.load_version
    monkeypatch.setattr(suite, "load_version", lambda spec: calls.append(spec) or real(spec))
    cases, problems = suite.collect([SUITE / "untap_step.scenario"])
    assert not problems and len(cases) > 1
    with pytest.raises(DiagnosticError) as raised:
        list(suite.run_all(cases, [str(broken)]))
    assert [d.message for d in raised.value.diagnostics] == ["unknown name 'nobody'"]
    assert calls.count(str(broken)) == 1
