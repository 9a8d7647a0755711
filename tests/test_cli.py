"""The `phasing` command's good paths: what each subcommand prints and returns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from interpreter.cli import main

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
    assert status == 0 and set(data) == {"rules", "scenarios", "witness", "differs"} and data["witness"] is None
    assert data["differs"] is True
    assert any(r["slug"] == "phased-out-tokens-cease" and r["kinds"] == ["removed"] for r in data["rules"])
    assert data["scenarios"][0]["differences"] == [{"what": "soldier.zone", "a": "nowhere", "b": "battlefield"}]


def test_the_command_works_from_any_directory(tmp_path):
    """Installed, `phasing` finds the shipped rules and the conformance suite wherever it runs."""
    env = {k: v for k, v in os.environ.items() if k != "PHASING_DEBUG"}
    done = subprocess.run([sys.executable, "-m", "interpreter.cli", "ablate", "2025-02-07", "--json"],
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


def test_a_failure_under_other_rules_that_fails_under_its_own_too(tmp_path, capsys):
    """Under --rules X judged by the scenario's own version V, an expectation that does not
    hold under V either is not said to be changed by X (702.26a: Slip Away phases the bear
    out under both, so `bear.phase is in` is wrong everywhere)."""
    path = tmp_path / "wrong.scenario"
    path.write_text('scenario "slip" {\n  cites 702.26a\n  players Alice Bob\n  turn 1 of Alice\n  rules 2026-09-25\n'
                    '  permanent bear = "Grizzly Bears", controller Alice\n  script {\n'
                    '    cast "Slip Away" by Alice targeting bear\n    expect bear.phase is in\n  }\n}\n')
    assert main(["test", str(path), "--rules", "2025-02-07"]) == 1
    err = capsys.readouterr().err
    assert "(expected under 2026-09-25, where it does not hold either)" in err
    assert "changed by" not in err
