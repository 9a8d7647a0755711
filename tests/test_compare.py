"""phasing diff: rulebooks aligned by slug, behaviour compared, witnesses that really tell apart."""

from __future__ import annotations

from pathlib import Path

from dsl.parser import parse
from interpreter.compare import behaviour_diff, load_cases, rulebook_diff, search_witness
from interpreter.rulebook import load_version
from interpreter.scenario import run_scenario

SUITE = Path(__file__).parent / "scenarios"


def kinds(a: str, b: str) -> dict[str, tuple[str, ...]]:
    return {c.slug: c.kinds for c in rulebook_diff(load_version(a), load_version(b))}


def test_renumbering_is_only_renumbering():
    """2011-02-04 (702.23) and 2011-09-30 (702.24): every block renumbered, none changed in meaning."""
    found = kinds("2011-02-04", "2011-09-30")
    assert found["untap-step-phasing"] == ("renumbered",)
    assert all(k == ("renumbered",) for k in found.values())


def test_commander_2017_removes_the_token_rule_and_rewords_d():
    """2017-08-25 deletes 'phased-out tokens cease to exist' (702.25k) and re-letters k, m."""
    found = kinds("2017-07-08", "2017-08-25")
    assert found["phased-out-tokens-cease"] == ("removed",)
    assert found["no-zone-change"] == ("reworded",)
    assert found["skipped-untap-step"] == ("renumbered",)


def test_2020_adds_the_resolved_effects_rule_and_phase_out_until():
    found = kinds("2018-07-13", "2020-08-07")
    assert found["resolved-effects-skip"] == ("added",)
    assert found["phase-out-until"] == ("added",)


def test_2005_changes_the_untap_rule_in_meaning():
    """502.15b moved permanents to a zone; 702.23a changes a status: same slug, changed meaning."""
    found = kinds("2005-02-01", "2011-02-04")
    assert "changed" in found["untap-step-phasing"] and "renumbered" in found["untap-step-phasing"]


def test_behaviour_diff_lists_the_token_scenarios():
    """Under 2017-07-08 a phased-out token ceases to exist (702.25k); under 2017-08-25 it stays."""
    diffs = behaviour_diff(load_version("2017-07-08"), load_version("2017-08-25"), load_cases([SUITE]))
    names = {d.scenario for d in diffs}
    assert "a token stays on the battlefield while phased out and phases in normally" in names
    fields = {k: (a, b) for d in diffs for k, a, b in d.fields}
    assert fields["soldier.zone"] == ("nowhere", "battlefield")


def test_behaviour_diff_of_a_renumbering_is_empty():
    assert behaviour_diff(load_version("2011-02-04"), load_version("2011-09-30"), load_cases([SUITE])) == []


def test_search_finds_a_witness_that_passes_under_a_and_fails_under_b():
    a, b = load_version("2017-07-08"), load_version("2017-08-25")
    text = search_witness(a, b, 300)
    assert text is not None
    scenario = parse(text, "<witness>").items[0]
    assert run_scenario(scenario, a, "<witness>").passed
    assert not run_scenario(scenario, b, "<witness>").passed


def test_search_finds_nothing_between_identical_rules():
    assert search_witness(load_version("2011-02-04"), load_version("2011-09-30"), 60) is None
