"""`phasing diff` that explains (issue 15, item 6): what changed inside a changed block, clause
by clause; which block changes account for each scenario that ends differently; witnesses
that expect what a player sees first and cite the blocks involved; `--exit-code`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter import cli
from phasing_rules.interpreter.tools.compare import behaviour_diff, load_cases, rulebook_diff, search_witness, seen_first
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "scenarios"
TOKENS = [SUITE / "no_zone_change.scenario", SUITE / "history.scenario"]

# 702.26g changed in two ways: its first clause takes only Auras (the guide's house rule), and
# a second `as x.phase becomes out` clause is added (a harmless restatement of 702.26a's).
AURAS_ONLY = """\
variant auras-plus {
  title "Only Auras phase out indirectly"
  extends 2026-09-25
}

rule 702.26g indirect-phasing "Only Auras phase out with their permanent." {
  as x.phase becomes out: each y where y.attached_to is x and y is an aura: {
    set y.phase = out, y.phased_indirectly = true
  }
  as x.phase becomes in: each y where y.phase is out and y.phased_indirectly and y.attached_to is x: {
    do phase_in y
  }
  as x.phase becomes in: set x.phased_indirectly = false
  assert always x: x.phase is in or not x.phased_indirectly or x.attached_to is an object and x.attached_to.phase is not in
  as x.phase becomes out: set x.phased_out_under = x.controller
}
"""

SPLITTER = """\
scenario "Equipment stays behind under the house rule" {
  cites 702.26g, 704.5n
  rules 2026-09-25
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent splitter = "Bonesplitter", controller Alice, attached to bear
  script {
    cast "Slip Away" by Alice targeting bear
  }
}
"""

# Two changes that only work together: a new verb, and 702.26a using it. 702.26a alone names
# a verb the version lacks (it cannot be made on its own); the verb alone is never used.
TOGETHER = """\
variant together {
  title "Phasing out by a verb of its own"
  extends 2026-09-25
}

verb vanish x {
  set x.phase = out, x.phased_indirectly = true
}

rule 702.26a untap-step-phasing "Phasing permanents vanish for good." {
  during untap step of P: simultaneously {
    each x where x.phase is in and x has phasing and x.controller is P: do vanish x
    each x where x.phase is out and x.phased_out_under is P and not x.phased_indirectly: do phase_in x
  }
  as x.phase becomes out: set x.phased_out_under = x.controller
  as x.phase becomes in: set x.phased_out_under = none
}
"""

DJINN = """\
scenario "a phasing creature in its controller's untap step" {
  cites 702.26a
  rules 2026-09-25
  players Alice Bob
  turn 1 of Alice
  permanent djinn = "Breezekeeper", controller Alice
  script {
    next turn
    next turn
  }
}
"""


def run(capsys, *argv) -> tuple[int, str]:
    status = cli.main([str(a) for a in argv])
    out, _err = capsys.readouterr()
    return status, out


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------ which change accounts for it


def test_the_removed_token_rule_accounts_for_every_token_scenario():
    """2017-08-25 deleted 702.25k (a phased-out token ceases to exist): each scenario that ends
    differently ends as under 2017-08-25 when only that block is deleted from 2017-07-08."""
    diffs = behaviour_diff(load_version("2017-07-08"), load_version("2017-08-25"), load_cases(TOKENS))
    assert len(diffs) == 3
    assert all(d.accounted_by == ("phased-out-tokens-cease",) for d in diffs)
    assert all(d.changed_by == () for d in diffs)


def test_the_command_names_the_removed_block(capsys):
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", *TOKENS)
    assert status == 0
    line = ("accounted for by: phased-out-tokens-cease (removed): made alone in 2017-07-08, "
            "gives 2017-08-25's outcome")
    assert out.count(line) == 3
    assert "no block change accounts for it" not in out


def test_json_lists_the_accounting_blocks(capsys):
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0], "--json")
    data = json.loads(out)
    assert status == 0 and data["differs"] is True
    assert [s["accounted_by"] for s in data["scenarios"]] == [["phased-out-tokens-cease"]]


def test_changes_that_only_work_together_are_named_together(tmp_path, capsys):
    """702.26a: the Breezekeeper (phasing) phases out in Alice's untap step and, in the variant,
    never comes back (phased indirectly). Neither the new verb nor the block using it does
    that alone; the two made together in 2026-09-25 do, and are named as a pair."""
    variant, scenario = write(tmp_path, "together.rules", TOGETHER), write(tmp_path, "djinn.scenario", DJINN)
    diffs = behaviour_diff(load_version("2026-09-25"), load_version(str(variant)), load_cases([scenario]))
    assert [d.accounted_by for d in diffs] == [()]
    assert [d.together for d in diffs] == [("verb vanish", "untap-step-phasing")]
    assert ("djinn.phased_indirectly", False, True) in diffs[0].fields
    status, out = run(capsys, "diff", "2026-09-25", variant, scenario)
    assert status == 0 and ("accounted for together by: verb vanish (added) + untap-step-phasing (changed): made "
                            "together in 2026-09-25, they give together's outcome (no one of them alone does)") in out
    assert "1 accounted for by verb vanish (added) + untap-step-phasing (changed), together" in out  # (the summary)


def test_a_scenario_no_change_accounts_for_says_so(tmp_path, capsys):
    """A difference no block change accounts for, alone or with another (here none can be made
    in A at all: the variant's only change is a block and the verb it needs, and a pair is not
    tried when pairs are limited to none), says so in its row and in the summary."""
    import phasing_rules.interpreter.tools.compare as compare

    variant, scenario = write(tmp_path, "together.rules", TOGETHER), write(tmp_path, "djinn.scenario", DJINN)
    original = compare.PAIRS_TRIED
    compare.PAIRS_TRIED = 0
    try:
        status, out = run(capsys, "diff", "2026-09-25", variant, scenario)
    finally:
        compare.PAIRS_TRIED = original
    assert status == 0 and "      no block change accounts for it, alone or with another" in out
    assert "    1 that no block change accounts for, alone or with another" in out


# ------------------------------------------------------------------ clause by clause


def test_a_changed_block_shows_its_changed_and_added_clauses(tmp_path):
    """Clauses are aligned by kind and pattern: the first `as x.phase becomes out` is changed,
    the second is new; the `as x.phase becomes in` clauses are the same and not listed."""
    variant = write(tmp_path, "auras-plus.rules", AURAS_ONLY)
    [change] = [c for c in rulebook_diff(load_version("2026-09-25"), load_version(str(variant)))
                if c.slug == "indirect-phasing"]
    assert "changed" in change.kinds
    assert [(c.kind, c.key) for c in change.clauses] == [("changed", "as phase becomes out"),
                                                          ("added", "as phase becomes out")]
    changed, added = change.clauses
    assert "y is an aura" in changed.b_text and "y is an aura" not in changed.a_text
    assert added.a_text is None and added.b_text == "as x.phase becomes out: set x.phased_out_under = x.controller"


def test_clause_changes_in_text_and_json(tmp_path, capsys):
    """704.5n unattaches the Bonesplitter when only Auras phase out with the bear (702.26g
    changed): the one block change accounts for it."""
    variant, scenario = write(tmp_path, "auras-plus.rules", AURAS_ONLY), write(tmp_path, "s.scenario", SPLITTER)
    status, out = run(capsys, "diff", "2026-09-25", variant, scenario)
    assert status == 0
    # named by its label in 2026-09-25 (the variant's block has none), with what it is about
    assert "      clause changed: attachments-go-along (as phase becomes out)" in out
    assert "        + as x.phase becomes out: each y where y.attached_to is x and y is an aura: {" in out
    assert "        - as x.phase becomes out: each y where y.attached_to is x: {" in out
    assert "      clause added: as phase becomes out" in out
    assert "accounted for by: indirect-phasing (changed)" in out
    status, out = run(capsys, "diff", "2026-09-25", variant, scenario, "--json")
    [block] = [b for b in json.loads(out)["rules"] if b["slug"] == "indirect-phasing"]
    assert [c["kind"] for c in block["clauses"]] == ["changed", "added"]


def test_a_changed_hook_is_one_changed_clause(capsys):
    """The end-step-phasing variant moves 702.26a's action from the untap step to the end step
    (and takes it out of 502.1's untap-step order, a change of its own)."""
    [change] = [c for c in rulebook_diff(load_version("2026-09-25"), load_version("end-step-phasing"))
                if c.slug == "untap-step-phasing"]
    assert [(c.kind, c.key) for c in change.clauses] == [("changed", "during untap step -> during end step")]


def test_renumbering_alone_shows_no_clause():
    """2011-02-04 -> 2011-09-30 renumbers 702.23 as 702.24; `order` and `exempt` refer to
    blocks by number, and that is not a change of any clause."""
    assert all(c.clauses == () for c in rulebook_diff(load_version("2011-02-04"), load_version("2011-09-30")))


REORDERED = """\
variant untap-reordered {
  title "Absent controllers' permanents return before the others phase"
  extends 2026-09-25
}

rule 502.1 untap-step-order "The untap step begins with phasing, before anything untaps." {
  order untap step: 702.26n, 702.26a, 502.3
}
"""


def test_an_order_that_only_takes_in_an_added_block_follows_it(capsys):
    """CR 2018-07-13 adds 702.25m (absent-controller); 502.1's and 800.4a's texts stay as they
    were, and their `order` clauses only list the new block among the others. That follows
    the added block and is no change of their meaning (before: `changed`); the clause lines
    still show it. 800.4c (default-controller-left) really changed."""
    found = {c.slug: c for c in rulebook_diff(load_version("2017-09-29"), load_version("2018-07-13"))}
    for slug in ("untap-step-order", "leaving-player"):
        assert found[slug].kinds == ("follows",) and not found[slug].of_meaning
        [clause] = found[slug].clauses
        assert (clause.kind, clause.follows) == ("follows", ("added 702.25m",))
        assert "702.25m" in clause.b_text and "702.25m" not in clause.a_text
    assert "changed" in found["default-controller-left"].kinds
    status, out = run(capsys, "diff", "2017-09-29", "2018-07-13", SUITE / "untap_step.scenario")
    assert status == 0
    assert any(line.split()[:5] == ["untap-step-order", "order", "follows", "added", "702.25m"] for line in out.splitlines())
    assert "      clause changed to follow added 702.25m: order untap step" in out
    assert "        + order untap step: 702.25a, 702.25m, 502.2" in out
    assert "      clause changed to follow added 702.25m: order-of-leaving (order leaving the game)" in out
    status, out = run(capsys, "diff", "2017-09-29", "2018-07-13", SUITE / "untap_step.scenario", "--json")
    [block] = [b for b in json.loads(out)["rules"] if b["slug"] == "untap-step-order"]
    assert block["kinds"] == ["follows"] and block["clauses"][0]["follows"] == ["added 702.25m"]


def test_an_order_that_only_drops_a_removed_block_follows_it():
    """Read backwards, 2018-07-13 -> 2017-09-29 removes 702.25m, and 502.1's order drops it."""
    found = {c.slug: c for c in rulebook_diff(load_version("2018-07-13"), load_version("2017-09-29"))}
    assert found["untap-step-order"].kinds == ("follows",)
    assert found["untap-step-order"].follows == ("removed 702.25m",)


def test_any_other_order_change_is_a_change(tmp_path):
    """502.1 listing the same blocks in another order (702.26n before 702.26a) changes what the
    untap step does first: a change of meaning, not a block followed."""
    variant = write(tmp_path, "untap-reordered.rules", REORDERED)
    found = {c.slug: c for c in rulebook_diff(load_version("2026-09-25"), load_version(str(variant)))}
    assert found["untap-step-order"].kinds == ("changed",)
    assert [(c.kind, c.follows) for c in found["untap-step-order"].clauses] == [("changed", ())]


# ------------------------------------------------------------------ witnesses


def test_witness_fields_come_in_the_order_a_player_sees_them():
    fields = [("p0.phased_out_under", "Alice", None), ("a0.tapped", True, False), ("p1.toughness", 4, 2),
              ("a0.attached_to", "p0", None), ("p1.power", 4, 2), ("p0.controller", "Bob", "Alice"),
              ("p0.phase", "out", "in"), ("p2.zone", "nowhere", "battlefield")]
    assert [k for k, _a, _b in seen_first(fields)] == [
        "p2.zone", "p1.power", "p1.toughness", "p0.controller", "a0.attached_to", "a0.tapped",
        "p0.phase", "p0.phased_out_under"]


@pytest.mark.slow
def test_a_witness_cites_the_block_that_accounts_for_it():
    """The witness between 2017-07-08 and 2017-08-25 is a phased-out token: it cites 702.25k
    (phased-out-tokens-cease, removed by 2017-08-25) and says that block accounts for it."""
    a, b = load_version("2017-07-08"), load_version("2017-08-25")
    text = search_witness(a, b, 30)
    assert text is not None
    assert "  cites 702.25k\n" in text
    assert "# accounted for by phased-out-tokens-cease (removed)" in text
    scenario = parse(text, "<witness>").items[0]
    assert run_scenario(scenario, a, "<witness>").passed and not run_scenario(scenario, b, "<witness>").passed


# ------------------------------------------------------------------ --exit-code


def test_exit_code_is_1_when_they_differ(capsys):
    assert run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0], "--exit-code")[0] == 1
    assert run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0], "--exit-code", "--json")[0] == 1


def test_a_renumbering_is_a_difference_in_text(capsys):
    """No scenario ends differently, but the rule text does."""
    status, out = run(capsys, "diff", "2011-02-04", "2011-09-30", SUITE / "untap_step.scenario", "--exit-code")
    assert status == 1 and "Behaviour: 0 of" in out


def test_exit_code_is_0_when_they_do_not_differ(capsys):
    status, out = run(capsys, "diff", "2026-09-25", "2026-09-25", SUITE / "tour.scenario", "--exit-code")
    assert status == 0 and "no block differs" in out
    status, out = run(capsys, "diff", "2026-09-25", "2026-09-25", SUITE / "tour.scenario", "--exit-code", "--json")
    assert status == 0 and json.loads(out)["differs"] is False


def test_without_exit_code_a_difference_exits_0(capsys):
    assert run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0])[0] == 0


# A variant that adds a subrule 702.26q (a designer's house rule), and a scenario it changes.
GAINS_LIFE = """\
variant gains {
  extends 2026-09-25
  section 702.26 subrules a b c d e f g h i j k m n p q
}

rule 702.26q phase-in-gains-life "When a permanent phases in, its controller gains 1 life." {
  after x.phase becomes in: x.controller gains 1 life
}
"""

SLIPPED = """\
scenario "a bear slips away and comes back" {
  cites 702.26a
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    cast "Slip Away" by Alice targeting bear
    next turn
    next turn
    expect bear.phase is in
  }
}
"""


@pytest.mark.slow
def test_a_witness_saved_from_diff_passes_check(tmp_path, capsys):
    """The guide says a witness is ready to add to your scenarios. One accounted for by a block
    only B has (702.26q, added by the variant) cited 702.26q under `rules 2026-09-25`, and
    `phasing check` rejected it: 2026-09-25's 702.26 has no subrule q. It cites only what the
    rules it names number, says in a comment what it leaves out, and checks clean; it passes
    under A (CR 702.26c: the bear phases in; no life is gained)."""
    variant = write(tmp_path, "gains.rules", GAINS_LIFE)
    scenario = write(tmp_path, "slipped.scenario", SLIPPED)
    status, out = run(capsys, "diff", "2026-09-25", variant, scenario, "--search", "20")
    assert status == 0 and 'scenario "witness: 2026-09-25 and gains part here"' in out, out
    witness = write(tmp_path, "witness.scenario", out[out.index('scenario "witness'):])
    text = witness.read_text()
    assert "  rules 2026-09-25\n" in text and "cites 702.26q" not in text, text
    assert "# not cited: 702.26q, numbered so in gains only" in text, text
    assert run(capsys, "check", witness) == (0, "no problems found\n")
    assert run(capsys, "test", witness)[0] == 0


def test_without_an_accounting_block_a_witness_cites_the_blocks_that_changed_what_differs(tmp_path):
    """When no single change accounts for a game, the blocks cited are those that changed an
    object ending differently after the two games part: 702.26a phased the Breezekeeper out
    (under both) and, under the variant, left it phased out for good."""
    from phasing_rules.interpreter.tools.compare import comparable, differences, witness_cites
    from phasing_rules.interpreter.play.suite import run_case

    a, b = load_version("2026-09-25"), load_version(str(write(tmp_path, "together.rules", TOGETHER)))
    [case] = load_cases([write(tmp_path, "djinn.scenario", DJINN)])
    oa, ob = run_case(case, a), run_case(case, b)
    common = set(a.statuses) & set(b.statuses)
    fields = differences(comparable(oa, common), comparable(ob, common))
    assert witness_cites(a, b, (), oa, ob, fields) == ["702.26a"]
    assert witness_cites(a, b, ("indirect-phasing",), oa, ob, fields) == ["702.26g"]


def test_meaning_only_leaves_out_rewordings_and_renumberings(capsys):
    """2017-08-25 rewords 702.25d (tokens stay) and renumbers 702.25m and n after removing
    702.25k (phased-out tokens cease to exist): with --meaning-only only the removal is listed,
    and the summary, first, counts what is listed."""
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0], "--json")
    every = {r["slug"]: r["kinds"] for r in json.loads(out)["rules"]}
    assert status == 0 and every["no-zone-change"] == ["reworded"] and "renumbered" in every["skipped-untap-step"]
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0], "--json", "--meaning-only")
    data = json.loads(out)
    assert status == 0 and [r["slug"] for r in data["rules"]] == ["phased-out-tokens-cease"]
    assert data["summary"]["rules"] == {"changed": 0, "added": 0, "removed": 1, "reworded": 0, "renumbered": 0,
                                        "follows": 0}
    status, out = run(capsys, "diff", "2017-07-08", "2017-08-25", TOKENS[0], "--meaning-only")
    assert out.splitlines()[:4] == [
        "Summary of 2017-07-08 -> 2017-08-25:",
        "  rules: 1 removed (changes of meaning only)",
        "  behaviour: 1 of 7 scenarios play differently",
        "    1 accounted for by phased-out-tokens-cease (removed)"]


@pytest.mark.slow  # (the suite's 2005 and 2026 scenarios under both, with pairs tried: in the slow selection)
def test_2005_against_today_starts_with_its_summary_and_names_pairs(capsys):
    """2005's phasing in gave a permanent haste (502.15f: it came back into play) and made it
    the permanent it was (same-permanent); today neither (702.26d). No one of those changes
    alone gives today's outcome; the two together do, and the summary groups the scenarios so."""
    status, out = run(capsys, "diff", "2005-02-01", "2026-09-25", "--meaning-only")
    assert status == 0 and out.startswith("Summary of 2005-02-01 -> 2026-09-25:\n  rules: ")
    assert "accounted for by same-permanent (removed) + phases-in-with-haste (removed), together" in out
    status, out = run(capsys, "diff", "2005-02-01", "2026-09-25", "--meaning-only", "--json")
    data = json.loads(out)
    assert all(set(r["kinds"]) & {"added", "removed", "changed"} for r in data["rules"])
    together = [g for g in data["summary"]["accounted"] if g["together"]]
    assert together and together[0]["by"] == ["same-permanent", "phases-in-with-haste"]
