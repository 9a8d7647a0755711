"""`including hidden`: a selection or count that sees what a hide rule hides, whatever its
condition says (CR 702.26b: the game ignores a phased-out permanent, except for rules and
effects that look at phased-out permanents in particular).

Shipped, 514.2 writes `each x including hidden: remove damage from x` (its scenarios are in
tests/scenarios/treated_as_nonexistent.scenario). Here a variant narrows that selection with
a condition that does not mention the hiding status, and both backends (the closures and the
generated Python) must choose the same objects.
"""

from __future__ import annotations

from phasing_rules.interpreter import api
from phasing_rules.interpreter.program import program

VARIANT = """\
variant cleanup-own-creatures {
  extends 2026-09-25
}

rule 514.2 cleanup "In the cleanup step damage is removed from the active player's creatures only, phased-out ones included." {
  during cleanup of P: {
    each x including hidden where x is a creature and x.controller is P: remove damage from x
    end effects lasting until end of turn
  }
}
"""

SCENARIO = """\
scenario "a narrowed cleanup still reaches a phased-out creature it names" {
  cites 514.2, 702.26b
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice, damage 1, set phase = out, set phased_out_under = Alice
  permanent djinn = "Breezekeeper", controller Bob, damage 1, set phase = out, set phased_out_under = Bob
  permanent ox = "Grizzly Bears", controller Alice, damage 1
  script {
    cleanup
    # 514.2 (as the variant words it) with 702.26b's exception: the phased-out bear is reached
    expect bear.damage is 0
    expect ox.damage is 0
    # not the active player's: the condition still applies to hidden objects
    expect djinn.damage is 1
  }
}
"""


def run(tmp_path, monkeypatch, generated: bool):
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated" if generated else "closures")
    (tmp_path / "v.rules").write_text(VARIANT, encoding="utf-8")
    (tmp_path / "s.scenario").write_text(SCENARIO, encoding="utf-8")
    return api.run_file(tmp_path / "s.scenario", rules=str(tmp_path / "v.rules"))


def test_a_narrowed_selection_including_hidden_reaches_hidden_objects_both_ways(tmp_path, monkeypatch):
    generated = run(tmp_path, monkeypatch, True)
    defined = run(tmp_path, monkeypatch, False)
    assert [o.passed for o in generated] == [True], [d.render() for o in generated for d in o.failures]
    assert [o.passed for o in defined] == [True], [d.render() for o in defined for d in o.failures]
    assert generated[0].trace == defined[0].trace


def test_without_including_hidden_the_same_selection_skips_the_hidden_creature(tmp_path, monkeypatch):
    """702.26b: the same condition without `including hidden` (it names no hiding status)
    leaves the phased-out bear alone, so the expectation for it fails."""
    monkeypatch.setattr(program, "DEFAULT_BACKEND", "generated")
    (tmp_path / "v.rules").write_text(VARIANT.replace(" including hidden", ""), encoding="utf-8")
    (tmp_path / "s.scenario").write_text(SCENARIO, encoding="utf-8")
    (outcome,) = api.run_file(tmp_path / "s.scenario", rules=str(tmp_path / "v.rules"))
    assert not outcome.passed
    assert [text for text, held in outcome.expectations if not held] == ["bear.damage is 0"]


def test_why_names_a_selection_including_hidden_as_written():
    from phasing_rules.dsl import ast
    from phasing_rules.interpreter.tools.why import selection_text

    tap = ast.Tap(ast.Name("x"))
    assert selection_text(ast.Each("x", None, tap, False, True)) == "each x including hidden"
    assert selection_text(ast.Each("x", ast.Attr(ast.Name("x"), "token"), tap, False, True)) == \
        "each x including hidden where x.token"
