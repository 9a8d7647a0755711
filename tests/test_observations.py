"""Observations (`observe NAME of x: ...`): what a player sees of a permanent, where a version
keeps it otherwise than the others. The 2005 rules keep a phased-out permanent in a zone of
their own (217.8a, 502.15b); from 2009 on it stays on the battlefield with the status `phase`
(702.26a today). 2005 declares how its state reads in those terms, so one scenario is judged
under both, and `phasing diff` does not count how the state is stored as a difference.
"""

from __future__ import annotations

import json

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter import api
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.tools.compare import rulebook_diff

# CR 502.15b (2005) and 702.26a (2026): a permanent with phasing phases out in its controller's
# untap step; a player sees it phased out, on the battlefield, either way.
BOTH = """\
scenario "a phasing creature is seen phased out under 2005 and today alike" {
  cites 702.26a
  rules 2005-02-01, 2026-09-25
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    next turn
    expect djinn.phase is out
    expect djinn.zone is battlefield
    next turn
    next turn
    expect djinn.phase is in
  }
}
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_one_scenario_expecting_what_a_player_sees_passes_under_2005_and_today(tmp_path):
    path = tmp_path / "both.scenario"
    path.write_text(BOTH, encoding="utf-8")
    outcomes = api.run_file(path)
    assert [(o.version, o.passed) for o in outcomes] == [("2005-02-01", True), ("2026-09-25", True)]
    # (as 2005 keeps it: in the phased-out zone; the outcome's raw final state says so)
    under_2005 = outcomes[0]
    assert under_2005.final["permanents"]["djinn"]["zone"] == "battlefield"  # (phased in again at the end)


def test_the_2005_state_is_kept_in_its_zone_and_seen_phased_out(tmp_path):
    """The raw state and the state as seen, mid-game: under 2005 the djinn is in the zone
    phased_out, seen phased out on the battlefield."""
    path = tmp_path / "once.scenario"
    path.write_text(BOTH.replace("    next turn\n    next turn\n    expect djinn.phase is in\n", ""), encoding="utf-8")
    first = api.run_file(path)[0]
    assert first.version == "2005-02-01" and first.passed
    assert first.final["permanents"]["djinn"]["zone"] == "phased_out"
    assert first.seen["permanents"]["djinn"]["zone"] == "battlefield"
    assert first.seen["permanents"]["djinn"]["statuses"]["phase"] == "out"
    assert "phase" not in first.final["permanents"]["djinn"]["statuses"]  # (2005 keeps no status phase)


def test_diff_compares_what_a_player_sees_and_raw_what_each_keeps(tmp_path, capsys):
    """Under both, the djinn ends phased out (702.26a / 502.15b): no difference as a player sees
    it; with --raw, 2005's zone phased_out against today's battlefield."""
    path = tmp_path / "once.scenario"
    path.write_text(BOTH.replace("    next turn\n    next turn\n    expect djinn.phase is in\n", ""), encoding="utf-8")
    status, out, _ = run(capsys, "diff", "2005-02-01", "2026-09-25", path, "--json")
    assert status == 0 and json.loads(out)["scenarios"] == []
    status, out, _ = run(capsys, "diff", "2005-02-01", "2026-09-25", path, "--json", "--raw")
    (scenario,) = json.loads(out)["scenarios"]
    assert {"what": "djinn.zone", "a": "phased_out", "b": "battlefield"} in scenario["differences"]


def test_rule_blocks_read_the_state_as_kept_not_as_seen():
    """2005's own blocks read `x.zone is phased_out` (502.15b): an observation named `zone` does
    not change what they read, or 2005 would not phase anything back in."""
    book = load_version("2005-02-01")
    assert set(book.observations) == {"phase", "zone"}
    assert "phase" not in book.statuses


@pytest.mark.parametrize("text, message", [
    ("observe seen of x: out where x.nothing is 1, otherwise in", "unknown attribute 'nothing'"),
    ("observe seen of x: out where x.zone is nowhere_at_all, otherwise in", "unknown name 'nowhere_at_all'"),
    ("observe seen of x: out where x.zone is phased_out, otherwise y.zone", "unknown name 'y'"),
])
def test_an_observation_that_reads_what_is_not_there_is_an_error(tmp_path, text, message):
    variant = tmp_path / "mine.rules"
    variant.write_text(f"variant mine {{\n  extends 2005-02-01\n}}\n\n{text}\n", encoding="utf-8")
    with pytest.raises(DiagnosticError) as info:
        load_version(str(variant))
    assert any(message in d.message for d in info.value.diagnostics), info.value.diagnostics


def test_a_variant_may_drop_an_observation(tmp_path):
    """Without 2005's `observe phase`, a scenario expecting `djinn.phase` under the variant is
    an error of its check: 2005 keeps no status phase. 502.15d's look-back watches what 2005
    keeps only as an observation, so the variant drops that clause too: a drop alone is an
    error naming the clause that still uses it."""
    variant = tmp_path / "no-phase.rules"
    variant.write_text("variant no-phase {\n  extends 2005-02-01\n  drop phase\n}\n", encoding="utf-8")
    with pytest.raises(DiagnosticError) as caught:
        load_version(str(variant))
    assert "502.15d no-zone-change still uses" in str(caught.value)
    variant.write_text("variant no-phase {\n  extends 2005-02-01\n  drop phase\n}\n"
                       "amend no-zone-change {\n  drop clause leaves-play-looks-back\n}\n", encoding="utf-8")
    book = load_version(str(variant))
    assert set(book.observations) == {"zone"}
    path = tmp_path / "both.scenario"
    path.write_text(BOTH.replace("rules 2005-02-01, 2026-09-25", "rules no-phase"), encoding="utf-8")
    outcomes = api.run_file(path, rules=str(variant))
    assert not outcomes[0].passed and "unknown attribute 'phase'" in outcomes[0].failures[0].message


@pytest.mark.slow  # (the suite's 2005 and 2026 scenarios under both: in the slow selection)
def test_2005_against_today_reports_no_difference_that_is_only_storage(capsys):
    """`diff 2005-02-01 2026-09-25 --meaning-only`: no row is a zone `phased_out` against the
    battlefield; with --raw there are such rows."""
    status, out, _ = run(capsys, "diff", "2005-02-01", "2026-09-25", "--meaning-only", "--json")
    data = json.loads(out)
    storage = [(s["scenario"], d) for s in data["scenarios"] for d in s["differences"]
               if d["what"].endswith(".zone") and "phased_out" in (d["a"], d["b"])]
    assert status == 0 and storage == []
    groups = data["summary"]["accounted"]
    unaccounted = sum(g["scenarios"] for g in groups if not g["by"])
    assert unaccounted * 3 < data["summary"]["scenarios_differ"]  # (fewer than a third)
    status, out, _ = run(capsys, "diff", "2005-02-01", "2026-09-25", "--raw", "--json")
    raw = json.loads(out)
    assert any(d["what"].endswith(".zone") and d["a"] == "phased_out" for s in raw["scenarios"] for d in s["differences"])


@pytest.mark.slow  # (two searches of generated games: in the slow selection)
def test_the_witness_search_finds_a_difference_of_meaning_not_of_storage():
    """Between 2005 and today, as a player sees it, the first witness is a token that phased
    out: in 2005 it went to the phased-out zone and ceased to exist there (217.8d); today it
    stays on the battlefield, phased out (702.26d: tokens stay). With `raw`, it is a Grizzly
    Bears kept in the phased-out zone against one on the battlefield, phased out: only how the
    state is stored."""
    from phasing_rules.interpreter.tools.compare import search_witness

    old, new = load_version("2005-02-01"), load_version("2026-09-25")
    seen = search_witness(old, new, 300)
    assert "cites 217.8d" in seen and "expect p0.zone is nowhere" in seen, seen
    assert "under 2026-09-25: p0.zone is battlefield" in seen
    assert "is phased_out" not in seen
    raw = search_witness(old, new, 300, raw=True)
    assert "expect p0.zone is phased_out" in raw


# What 2005 keeps only as an observation (`phase`) is read, and watched by triggered abilities,
# through it; no clause can act as it changes, and its values are those its cases give.

def variant_of_2005(tmp_path, body: str) -> str:
    path = tmp_path / "house.rules"
    path.write_text("variant house {\n  extends 2005-02-01\n}\n" + body, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("block, message", [
    # 502.15e's damage removal acts on what 2005 keeps (the zone); written on `phase`, which
    # nothing writes, it would never act: an error at the clause.
    ('rule 502.15e damage-removed "Phasing out removes all damage." {\n  as x.phase becomes out: remove damage from x\n}\n',
     "'phase' is what a player sees of a permanent (`observe`)"),
    # 2005's `observe phase` gives `out` or `in`: `x.phase is sideways` names no value a
    # player can see.
    ('rule 999.1 count-sideways "Each player gains 1 life for each sideways permanent." {\n'
     '  during upkeep of P: each object x where x.phase is sideways: P gains 1 life\n}\n',
     "unknown name 'sideways'"),
], ids=["acting-as-it-changes", "a-value-it-never-gives"])
def test_what_a_rule_cannot_do_with_an_observation_is_an_error(tmp_path, block, message):
    with pytest.raises(DiagnosticError) as caught:
        load_version(variant_of_2005(tmp_path, block))
    assert message in str(caught.value)


def test_a_rule_reads_an_observation_the_rulebook_keeps_no_other_way(tmp_path):
    """A house rule of 2005 that reads `x.phase` (no status of 2005) reads it through the
    observation: the phased-out djinn is seen `out` from the phased-out zone, and the rule
    (a made-up one: each player gains 1 life for each phased-out permanent at their upkeep)
    counts it."""
    path = variant_of_2005(tmp_path, 'rule 999.1 count-phased-out "Each player gains 1 life for each phased-out permanent." {\n'
                                     '  during upkeep of P: each object x where x.phase is out: P gains 1 life\n}\n')
    scenario = tmp_path / "s.scenario"
    scenario.write_text(BOTH.replace("rules 2005-02-01, 2026-09-25", "rules house")
                        .replace("    expect djinn.zone is battlefield\n", "    expect djinn.zone is battlefield\n    expect Alice.life is 21\n"),
                        encoding="utf-8")
    outcomes = api.run_file(scenario, rules=path)
    assert [(o.version, o.passed) for o in outcomes] == [("house", True)], [f.message for o in outcomes for f in o.failures]


def test_the_diff_lists_observations_a_version_declares_and_another_does_not():
    """From 2005-02-01 to 2011-02-04 the phased-out zone gives way to the status `phase` (702.23a
    in 2011): 2005's observations of `phase` and `zone` are removed with it, and listed so."""
    changes = {c.slug: c.kinds for c in rulebook_diff(load_version("2005-02-01"), load_version("2011-02-04"))}
    assert changes["observe phase"] == ("removed",) and changes["observe zone"] == ("removed",)
    assert changes["zone phased_out"] == ("removed",)
