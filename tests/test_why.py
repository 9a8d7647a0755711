"""`phasing why SCENARIO OBJECT [--at STEP]` (issue 15, item 5): which selections skipped an
object and which block made it invisible or exempt, and which blocks changed it."""

from __future__ import annotations

from pathlib import Path

from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import ScenarioRun
from phasing_rules.interpreter.play.suite import collect

ROOT = Path(__file__).resolve().parent.parent
NONEXISTENT = str(ROOT / "tests" / "scenarios" / "treated_as_nonexistent.scenario")
EFFECTS = str(ROOT / "tests" / "scenarios" / "phasing_effects.scenario")

WRATH_SKIPS = ('step 1: card "Wrath of God" (each x where x is a creature) skipped djinn: block 702.26b '
               'treated-as-nonexistent treats it as though it does not exist (hide x where x.phase is out)')


def why(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["why", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_wrath_of_god_skipping_a_phased_out_creature_names_702_26b(capsys):
    # 702.26b: a phased-out permanent is treated as though it does not exist, so "destroy
    # all creatures" leaves it alone; why says which selection skipped it and which block
    status, out, _ = why(capsys, NONEXISTENT, "djinn")
    assert status == 0
    assert 'why djinn: "destroy all creatures leaves a phased-out creature alone" under 2026-09-25' in out
    assert WRATH_SKIPS in out
    # 702.26a: it phases in in its controller's untap step; the bookkeeping joins that event
    assert "step 4, event 2: phase: out -> in, by 702.26a untap-step-phasing" in out
    assert ("step 4, event 2: phased_out_under: Bob -> none, by as x.phase becomes in (702.26a untap-step-phasing), "
            "joining the event caused by 702.26a untap-step-phasing") in out


def test_a_creature_wrath_destroys_was_not_left_out(capsys):
    # 702.26b does not apply to a phased-in creature: Wrath of God destroys it
    status, out, _ = why(capsys, NONEXISTENT, "bear", "--at", "1")
    assert status == 0
    block = out.split('why bear: "destroy all creatures leaves a phased-out creature alone"')[1].split("why bear:")[0]
    assert "left out:\n    nothing left it out" in block
    assert 'step 1, event 1: zone: battlefield -> graveyard, by card "Wrath of God"' in block


def test_at_limits_the_answer_to_one_step_of_the_script(capsys):
    status, out, _ = why(capsys, NONEXISTENT, "djinn", "--at", "4")
    assert status == 0 and ", script step 4" in out
    assert WRATH_SKIPS not in out and "left out:\n    nothing left it out" in out  # (the Wrath is step 1)
    assert "phase: out -> in" in out
    status, out, _ = why(capsys, NONEXISTENT, "djinn", "--at", "1")
    assert WRATH_SKIPS in out and "phase: out -> in" not in out


def test_a_count_skipping_a_phased_out_creature_is_named_too(capsys):
    # 702.26b: "draw a card for each creature you control" does not count it
    status, out, _ = why(capsys, NONEXISTENT, "bear3")
    assert status == 0
    assert ("a count (each x where x is a creature and x.controller is you) skipped bear3: block 702.26b "
            "treated-as-nonexistent treats it as though it does not exist") in out


def test_an_exempt_clause_is_named_as_what_left_it_out(capsys):
    # 610.4: a permanent phased out until an event does not phase in in untap steps: 610.4's
    # `exempt x from 702.26a` keeps it out of 702.26a's selection in Bob's untap step
    status, out, _ = why(capsys, EFFECTS, "bear", "--at", "4")
    assert status == 0
    assert ("step 4: 702.26a untap-step-phasing (each x where x.phase is out and x.phased_out_under is P and not "
            "x.phased_indirectly) skipped bear: block 610.4 phase-out-until exempts it "
            "(exempt x from 702.26a where x.phase_until is not none)") in out


def test_an_unknown_object_is_an_error_with_the_nearest_names(capsys):
    status, _, err = why(capsys, NONEXISTENT, "djin")
    assert status == 1
    assert "no object 'djin'" in err and "did you mean 'djinn'" in err and "treated_as_nonexistent.scenario:3:1" in err


def test_a_step_the_script_does_not_have_is_an_error(capsys):
    status, _, err = why(capsys, NONEXISTENT, "djinn", "--at", "99")
    assert status == 1 and "no script step 99" in err
    status, _, err = why(capsys, NONEXISTENT, "djinn", "--at", "0")
    assert status == 1 and "expected a step number, 1 or more" in err


def test_an_unknown_version_and_a_missing_file_are_errors(capsys):
    status, out, err = why(capsys, NONEXISTENT, "djinn", "--rules", "no-such-version")
    assert status == 1 and "unknown rules version or variant 'no-such-version'" in err and out == ""
    status, _, err = why(capsys, str(ROOT / "nowhere.scenario"), "djinn")
    assert status == 1 and "no such file" in err


def test_recording_is_off_unless_asked():
    # the engine keeps nothing of what its selections leave out unless `skips` is a list
    cases, _ = collect([NONEXISTENT])
    case = next(c for c in cases if c.scenario.name.startswith("destroy all creatures"))
    run = ScenarioRun(case.scenario, load_version("2026-09-25").with_cards(case.cards), case.path)
    run.play()
    assert Engine.skips is None and run.engine.skips is None
    run = ScenarioRun(case.scenario, load_version("2026-09-25").with_cards(case.cards), case.path, backend="closures")
    run.engine.skips = []
    run.play()
    assert [(s.oid, s.kind, s.rule.id) for s in run.engine.skips] == [("djinn", "hidden", "702.26b")]


HISTORY_2005 = str(ROOT / "tests" / "scenarios" / "history_2005.scenario")


def test_a_step_no_scenario_with_the_object_has_points_at_one_that_has_it(capsys):
    """--at beyond the script is an error at the scenario holding the object (the watcher of
    502.15d, at line 28), not at the file's first scenario, which has no watcher."""
    status, _, err = why(capsys, HISTORY_2005, "watcher", "--at", "99")
    assert status == 1 and "history_2005.scenario:29:1: error: no script step 99" in err


def test_a_scenario_that_cannot_run_under_the_rules_asked_is_passed_over(capsys):
    """Under 2017-07-08 (702.26d, no phased-out zone) the file's 2005-only scenarios cannot
    run; why still answers for the watcher, whose scenario runs there, and names what it
    passed over, each error saying the version it came from."""
    status, out, err = why(capsys, HISTORY_2005, "watcher", "--rules", "2017-07-08")
    assert status == 0, err
    assert out.startswith('why watcher: "in 2005 phasing out triggers leaves-play abilities') and "under 2017-07-08" in out
    assert "note: passed over \"in 2005 damage goes away with phasing out, and new lethal damage is still lethal\"" in out
    assert "unknown name 'phased_out'" in out and err == ""


def test_an_error_under_another_version_says_which(capsys):
    """A scenario checked under a version other than its own says which (502.15: the
    phased-out zone is a zone of 2005-02-01 alone); `test` runs none of the file's scenarios
    under 2017-07-08, for which none is written, and says so."""
    # (bear's first scenario plays a card of the file that reads the phased-out zone itself)
    status, out, err = why(capsys, HISTORY_2005, "bear", "--rules", "2017-07-08")
    said = "hint: under 2017-07-08, which this scenario is not written for (it is for 2005-02-01)"
    assert status == 1 and "unknown name 'phased_out'" in err and said in err, err
    assert main(["test", HISTORY_2005, "--rules", "2017-07-08"]) == 1
    assert "no scenario runs under 2017-07-08" in capsys.readouterr().err


def test_a_change_an_amended_as_clause_made_names_the_amend(capsys, tmp_path):
    """702.26g, amended: a variant replaces the `as` clause that takes attachments along (only
    Auras now) and adds one; why credits their changes to the amend that wrote each clause,
    as the trace does ("amended by VARIANT at FILE:LINE", a file given by --rules by its
    path), and the block's own clauses to the block alone."""
    variant = tmp_path / "mine.rules"
    variant.write_text("""\
variant mine {
  extends 2026-09-25
}

amend 702.26g {
  replace clause attachments-go-along: as x.phase becomes out: each y where y.attached_to is x and y is an aura: {
    set y.phase = out, y.phased_indirectly = true
  }
  drop clause clear-indirect-mark
  add clause clear-mark-later: as x.phase becomes in: set x.phased_indirectly = false
}
""", encoding="utf-8")
    scenario = tmp_path / "aura.scenario"
    scenario.write_text("""\
scenario "an Aura goes along with the creature it enchants" {
  rules from 2011-02-04
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to bear
  script {
    cast "Slip Away" by Alice targeting bear
    expect strength.phase is out
    next turn
    next turn
    expect strength.phase is in
  }
}
""", encoding="utf-8")
    status, out, _ = why(capsys, str(scenario), "strength", "--rules", str(variant))
    assert status == 0
    assert ("step 1, event 1: phase: in -> out, by as x.phase becomes out (702.26g indirect-phasing, "
            f"amended by mine at {variant}:6), joining the event caused by card \"Slip Away\"") in out
    assert ("phased_indirectly: true -> false, by as x.phase becomes in (702.26g indirect-phasing, "
            f"amended by mine at {variant}:10), joining the event caused by 702.26a untap-step-phasing") in out
    assert ("phased_out_under: none -> Alice, by as x.phase becomes out (702.26a untap-step-phasing), "
            "joining") in out  # (702.26a's clause is its own)


def test_an_unknown_object_hint_lists_the_objects_made_in_play(tmp_path, capsys):
    """The objects a scenario makes in play (a permanent spell that resolves: Banisher Priest)
    can be asked about as the declared ones can, so the hint for an unknown name lists them too."""
    scenario = tmp_path / "made.scenario"
    scenario.write_text('scenario "made in play" {\n  players Alice Bob\n  turn 1 of Alice\n'
                        '  permanent bear = "Grizzly Bears", controller Bob\n'
                        '  script {\n    choose "Banisher Priest" targeting bear\n    cast "Banisher Priest" by Alice\n  }\n}\n')
    status, _, err = why(capsys, str(scenario), "priest")
    assert status == 1
    assert "no object 'priest'" in err and "objects here: banisher_priest, bear" in err
    status, out, _ = why(capsys, str(scenario), "banisher_priest")
    assert status == 0 and "banisher_priest" in out
