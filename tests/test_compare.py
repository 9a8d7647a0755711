"""phasing diff: rulebooks aligned by slug, behaviour compared, witnesses that really tell apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from phasing_rules.dsl import ast as A
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.tools.compare import behaviour_diff, load_cases, rulebook_diff, search_witness
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import run_scenario
from phasing_rules.interpreter.tools.generate import games, scenario_text

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


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_behaviour_diff_lists_the_token_scenarios():
    """Under 2017-07-08 a phased-out token ceases to exist (702.25k); under 2017-08-25 it stays."""
    diffs = behaviour_diff(load_version("2017-07-08"), load_version("2017-08-25"), load_cases([SUITE]))
    names = {d.scenario for d in diffs}
    assert "a token stays on the battlefield while phased out and phases in normally" in names
    fields = {k: (a, b) for d in diffs for k, a, b in d.fields}
    assert fields["soldier.zone"] == ("nowhere", "battlefield")


@pytest.mark.slow  # (several seconds: in the slow selection, which .ci/run runs)
def test_behaviour_diff_of_a_renumbering_is_empty():
    assert behaviour_diff(load_version("2011-02-04"), load_version("2011-09-30"), load_cases([SUITE])) == []


@pytest.mark.slow
def test_search_finds_a_witness_that_passes_under_a_and_fails_under_b():
    a, b = load_version("2017-07-08"), load_version("2017-08-25")
    text = search_witness(a, b, 300)
    assert text is not None
    scenario = parse(text, "<witness>").items[0]
    assert run_scenario(scenario, a, "<witness>").passed
    assert not run_scenario(scenario, b, "<witness>").passed


@pytest.mark.slow  # (over a second: a search of generated games; in the slow selection)
def test_search_finds_nothing_between_identical_rules():
    assert search_witness(load_version("2011-02-04"), load_version("2011-09-30"), 60) is None


def ids(a: str, b: str) -> dict[str, tuple[str | None, str | None]]:
    return {c.slug: (c.a_id, c.b_id) for c in rulebook_diff(load_version(a), load_version(b)) if "renumbered" in c.kinds}


def test_diff_shows_support_blocks_renumbered():
    """Support rules keep each version's numbers, and diff lists their renumberings like the
    phasing blocks': the untap action is 502.2 in CR 2021-04-22 and 502.3 in CR 2022-10-07 (day
    and night took 502.2); the look-back rule moved from 603.6d (CR 2016-07-22) to 603.10b (CR
    2017-07-08); the Aura and Equipment state-based actions from 704.5n/704.5p (CR 2017-08-25,
    702.25h's cross-reference) to 704.5m/704.5n (CR 2017-09-29)."""
    assert ids("2021-04-22", "2022-10-07") == {"untap-permanents": ("502.2", "502.3")}
    assert ids("2016-07-22", "2017-07-08")["phase-out-triggers-look-back"] == ("603.6d", "603.10b")
    moved = ids("2017-08-25", "2017-09-29")
    assert moved["illegal-aura"] == ("704.5n", "704.5m") and moved["illegal-equipment"] == ("704.5p", "704.5n")


def test_diff_shows_a_declaration_citing_renumbered_rules():
    """The status rule is 110.6 in CR 2018-07-13 and 110.5 in CR 2020-08-07: the `phase` status
    means the same and cites the new number, which diff shows as a renumbering (not a change)."""
    found = {c.slug: c for c in rulebook_diff(load_version("2018-07-13"), load_version("2020-08-07"))}
    assert found["status phase"].kinds == ("renumbered",)
    assert (found["status phase"].a_id, found["status phase"].b_id) == ("110.6", "110.5")
    assert not found["status phase"].of_meaning


def test_800_4c_arrives_after_2011():
    """The 2011 texts' 800.4c is about objects created for a player who left; the exile of a
    permanent whose default controller left (800.4c) is first in CR 2015-01-23 of the texts kept."""
    assert kinds("2011-09-30", "2015-01-23")["default-controller-left"] == ("added",)
    assert load_version("2011-02-04").rule("default-controller-left") is None


def test_800_4c_names_the_default_controller_only_from_2020():
    """CR 800.4c of 2015-01-23..2018-07-13 exiles an object that entered the battlefield under
    a player who has left; 2020-08-07 first words it as the player who controlled it by
    default. The same player in this model, so 2020-08-07 rewords the block and nothing else."""
    for older in ("2015-01-23", "2017-09-29", "2018-07-13"):
        summary = load_version(older).rule("default-controller-left").summary
        assert "default" not in summary and "came onto the battlefield under" in summary, older
    assert "default controller" in load_version("2020-08-07").rule("default-controller-left").summary
    assert kinds("2018-07-13", "2020-08-07")["default-controller-left"] == ("reworded",)
    assert "changed" in kinds("2017-09-29", "2018-07-13")["default-controller-left"]  # 702.25m's pointer


def test_2005_support_rules_keep_their_slugs_into_2009():
    """2005's 216.3 (a token outside play ceases to exist) is the rule 704.5d became, and its
    418.3a (a resolved effect lasts as long as it says) is 611.2a's subject (610.2a in the
    reconstructed 2009-07-10): one slug each, so diff reports a renumbering, not a removal and
    an addition."""
    found = {c.slug: c for c in rulebook_diff(load_version("2005-02-01"), load_version("2009-07-10"))}
    for slug, old, new in (("token-outside-battlefield", "216.3", "704.5d"), ("stated-duration", "418.3a", "610.2a")):
        assert "renumbered" in found[slug].kinds and "added" not in found[slug].kinds, slug
        assert (found[slug].a_id, found[slug].b_id) == (old, new)
    assert "token-outside-play" not in found and "until-your-next-turn" not in found
    rule = load_version("2011-02-04").rule("611.2a")
    assert rule.slug == "stated-duration" and rule.summary.startswith("An effect from a resolved spell or ability lasts as long as it says")


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_diff_command_prints_the_support_renumbering(capsys):
    from phasing_rules.interpreter.cli import main

    assert main(["diff", "2021-04-22", "2022-10-07"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.strip().startswith("untap-permanents"))
    assert line.split()[1:] == ["renumbered", "502.2", "->", "502.3"]


def test_diff_shows_a_zone_declared_in_one_version_only():
    """The 2005 rules put a phased-out permanent in a zone of its own (217.8a of that time);
    from the Magic 2010 rules on phasing is a status (110.6 in CR 2011-02-04), with no such zone:
    diff lists the zone as removed, with its declaration."""
    found = {c.slug: c for c in rulebook_diff(load_version("2005-02-01"), load_version("2011-02-04"))}
    assert found["zone phased_out"].kinds == ("removed",)
    assert found["zone phased_out"].a_summary == "zone phased_out keeps all"


# ------------------------------------------------------------------ scenarios a rulebook cannot play

OUBLIETTE = """\
scenario "Oubliette phases a creature out until it leaves" {
  cites 610.4
  rules 2018-07-13, 2020-08-07
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Bob
  script {
    choose "Oubliette" targeting bear
    cast "Oubliette" by Alice
    expect bear.phase is out
  }
}
"""


def test_a_scenario_one_rulebook_cannot_play_is_not_counted_as_compared(tmp_path):
    """Oubliette phases out until it leaves (610.4, from CR 2020-08-07): 2018-07-13 has no such
    action, so the scenario cannot run there. It is left out of the comparison and reported,
    with the rulebook that cannot play it and why."""
    path = tmp_path / "oubliette.scenario"
    path.write_text(OUBLIETTE)
    not_run: list = []
    found = behaviour_diff(load_version("2018-07-13"), load_version("2020-08-07"), load_cases([path]), not_run=not_run)
    assert found == []
    assert [(n.scenario, n.version, n.message) for n in not_run] == [
        ("Oubliette phases a creature out until it leaves", "2018-07-13", "unknown action 'phase_out_until'")]


def test_diff_counts_only_what_it_compared_and_lists_what_one_side_cannot_play(tmp_path, capsys):
    """`diff 2018-07-13 2020-08-07` on an Oubliette scenario (610.4) said `0 of 1 scenarios end
    differently`: the scenario never ran under 2018-07-13. It is now out of the count and listed
    as running only under 2020-08-07; being written for later rules is no failure (exit 0), but
    the rulebooks that part them differ in text, which --exit-code counts."""
    from phasing_rules.interpreter.cli import main

    path = tmp_path / "oubliette.scenario"
    path.write_text(OUBLIETTE)
    assert main(["diff", "2018-07-13", "2020-08-07", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Behaviour: 0 of 0 scenarios play differently (1 not compared: run only under 2020-08-07)" in out
    assert "Not compared, as a rulebook cannot play them (1 scenario):" in out
    assert "  1 run only under 2020-08-07; under 2018-07-13: unknown action 'phase_out_until'" in out
    assert "    Oubliette phases a creature out until it leaves (oubliette.scenario)" in out
    assert main(["diff", "2018-07-13", "2020-08-07", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compared"] == 0 and data["scenarios"] == []
    assert data["cannot_run"] == [{"scenario": "Oubliette phases a creature out until it leaves", "file": str(path),
                                   "version": "2018-07-13", "error": "unknown action 'phase_out_until'"}]
    assert main(["diff", "2018-07-13", "2020-08-07", str(path), "--exit-code"]) == 1  # (their rule text differs)
    capsys.readouterr()
    # the same scenario under two rulebooks that both play it is compared (and ends the same)
    assert main(["diff", "2020-08-07", "2021-04-22", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compared"] == 1 and data["cannot_run"] == []


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_the_610_4_scenarios_of_the_suite_run_only_from_2020(capsys):
    """2020-08-07's main new rule, phasing out until an object leaves (610.4), shows in the
    suite's comparison with 2018-07-13 as the scenarios only 2020-08-07 can play. The suite's
    scenarios written for neither (the 2005 ones, with a phased-out zone) are not played: the
    comparison is on those `test --rules` runs under either."""
    from phasing_rules.interpreter.cli import main

    import re

    from phasing_rules.interpreter.api import default_suite
    from phasing_rules.interpreter.play.suite import collect, written_for

    assert main(["diff", "2018-07-13", "2020-08-07"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"Behaviour: 3 of (\d+) scenarios of the suite written for 2018-07-13 or 2020-08-07 play "
                      r"differently \((\d+) not compared: run only under 2020-08-07\)", out)
    assert found, out
    compared, only_2020 = int(found.group(1)), int(found.group(2))
    cases = collect([default_suite()])[0]
    assert compared + only_2020 == len(written_for(cases, ["2018-07-13", "2020-08-07"])) < len(cases)
    group = out.split(f"  {only_2020} run only under 2020-08-07; under 2018-07-13: unknown action 'phase_out_until'\n")[1]
    assert "a permanent phased out until Oubliette leaves skips untap steps and returns when it leaves" in group
    assert "run under neither" not in out and "in 2005" not in out


def test_a_scenario_neither_side_plays_is_no_difference(tmp_path, capsys):
    """An Oubliette scenario (610.4, from CR 2020-08-07) compared between 2018-07-13 and itself:
    neither plays it, so nothing differs (--exit-code gives 0), and it is listed as run under
    neither, not counted as compared."""
    from phasing_rules.interpreter.cli import main

    path = tmp_path / "oubliette.scenario"
    path.write_text(OUBLIETTE)
    assert main(["diff", "2018-07-13", "2018-07-13", str(path), "--exit-code"]) == 0
    out = capsys.readouterr().out
    assert "Behaviour: 0 of 0 scenarios play differently (1 not compared: run under neither)" in out
    assert "1 run under neither; under each: unknown action 'phase_out_until'" in out


@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(game=games())
def test_a_generated_game_casts_a_sorcery_only_in_its_casters_turn(game):
    """307.1: the games `diff --search` draws cast Wrath of God and Act of Treason by the
    player whose turn it is, so no generated step is refused for its timing."""
    (scn,) = [i for i in parse(scenario_text(game, "generated", ["2026-09-25"]), "<generated>").items
              if isinstance(i, A.Scenario)]
    outcome = run_scenario(scn, load_version("2026-09-25"), "<generated>")
    assert not [f.message for f in outcome.failures if "307.1" in f.message], scenario_text(game, "generated", [])
