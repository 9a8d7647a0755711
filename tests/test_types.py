"""The checker knows types (issue 15, item 4): every misuse of a type in a variant or a
scenario is rejected by `phasing check` with a positioned error and exit 1.

Each case is a small variant of the current rules (or a scenario under them) with one
mistake in it: a status written a value it cannot hold, a comparison that can never hold, an
addition of something that is not a number, a card type nobody declared, a verb given what
its body cannot use. The issue measured that 28 of 30 such misuses passed `check`; all of
these must now be rejected at the text that is wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from phasing_rules.dsl import types
from phasing_rules.interpreter.cli import main

VARIANT = """\
variant probe-types {
  extends 2026-09-25
}

"""


def block(*clauses: str) -> str:
    """A block outside 702.26 (so no subrule list is disturbed) holding the clauses."""
    return 'rule 999.1 probe "A block under test." {\n' + "".join(f"  {c}\n" for c in clauses) + "}\n"


def each(stmt: str) -> str:
    """A statement run for every permanent x of the player P whose untap step it is."""
    return block(f"during untap step of P: each x where x.controller is P: {stmt}")


SCENARIO = """\
scenario "probe" {
  rules 2026-09-25
  players Alice Bob
  turn 1 of Alice
  permanent d = "Grizzly Bears", controller AlicePROPS
  script {
    next turn
    expect EXPECT
  }
}
"""


def scenario(expect: str = "d.phase is in", props: str = "") -> str:
    return SCENARIO.replace("PROPS", props).replace("EXPECT", expect)


# (id, file kind, text, the text the error must point at, a fragment of its message)
MISUSES = [
    # writes: a status set to a value of the wrong type
    ("bool-status-set-to-number", "rules", each("set x.phased_indirectly = 3"), "= |3",
     "cannot set status 'phased_indirectly' to 3: status 'phased_indirectly' is a bool"),
    ("enum-status-set-to-number", "rules", each("set x.phase = 7"), "= |7",
     "cannot set status 'phase' to 7: status 'phase' is an enum, one of in | out"),
    ("enum-status-set-to-a-zone", "rules", each("set x.phase = battlefield"), "= |battlefield",
     "'battlefield' is not a value of status 'phase'"),
    ("enum-status-set-to-true", "rules", each("set x.phase = true"), "= |true",
     "cannot set status 'phase' to true"),
    ("player-status-set-to-number", "rules", each("set x.phased_out_under = 3"), "= |3",
     "cannot set status 'phased_out_under' to 3: status 'phased_out_under' is a player"),
    ("player-status-set-to-object", "rules", each("set x.phased_out_under = x"), "= |x",
     "cannot set status 'phased_out_under' to x"),
    ("object-status-set-to-player", "rules", each("set x.phase_until = P"), "= |P",
     "cannot set status 'phase_until' to P: status 'phase_until' is an object"),
    ("bool-attribute-set-to-number", "rules", each("set x.tapped = 1"), "= |1",
     "cannot set attribute 'tapped' to 1"),
    ("number-attribute-set-to-bool", "rules", each("set x.damage = true"), "= |true",
     "cannot set attribute 'damage' to true"),
    ("status-of-a-player-set", "rules", block("during untap step of P: set P.phase = out"), "P.phase",
     "set P.phase needs an object, and P is a player"),
    ("prefer-enum-number", "rules", block("prefer phase = 7"), "= |7",
     "cannot prefer status 'phase' to 7"),
    ("prefer-bool-enum-value", "rules", block("prefer phased_indirectly = out"), "= |out",
     "cannot prefer status 'phased_indirectly' to out"),
    ("change-pattern-enum-to-bool", "rules", block("as x.phase becomes true: tap x"), "becomes |true",
     "cannot match status 'phase' to true"),
    ("change-pattern-bool-to-enum-value", "rules", block("as x.phased_indirectly becomes in: tap x"), "becomes |in",
     "cannot match status 'phased_indirectly' to in"),
    ("change-pattern-from-number", "rules", block("as x.phase becomes out from 3: tap x"), "from |3",
     "cannot match status 'phase' to 3"),
    ("quiet-from-a-value-the-status-cannot-take", "rules", block("changes of phase from sideways are not zone-change"),
     "from |sideways", "'sideways' is not a value of status 'phase'"),
    # comparisons that can never hold
    ("enum-compared-with-number", "rules", block("hide x where x.phase is 1"), "x.phase is 1",
     "x.phase is enum status 'phase' (in | out) and 1 is a number"),
    ("enum-compared-with-a-zone", "rules", block("hide x where x.phase is battlefield"), "is |battlefield",
     "'battlefield' is not a value of status 'phase', so this test never holds"),
    ("enum-is-not-a-zone-always-holds", "rules", block("hide x where x.phase is not exile"), "not |exile",
     "'exile' is not a value of status 'phase', so this test always holds"),
    ("zone-compared-with-an-enum-value", "rules", block("hide x where x.zone is out"), "x.zone is out",
     "x.zone is a zone and out is the name 'out'"),
    ("player-compared-with-object", "rules", block("hide x where x.controller is x"), "x.controller is x",
     "x.controller is a player and x is an object"),
    ("bool-compared-with-number", "rules", block("hide x where x.tapped is 2"), "x.tapped is 2",
     "x.tapped is a bool (true or false) and 2 is a number"),
    ("bool-compared-with-enum-value", "rules", block("hide x where x.tapped is not in"), "x.tapped is not in",
     "x.tapped is a bool (true or false) and in is the name 'in'"),
    ("enum-compared-with-less-than", "rules", block("hide x where x.phase > 0"), "x.phase >",
     "'>' compares numbers, and x.phase is enum status 'phase'"),
    ("text-compared-with-less-than", "rules", block("hide x where x.card < 3"), "x.card <",
     "'<' compares numbers, and x.card is a text"),
    ("counters-compared-with-number", "rules", block("assert after x.phase becomes in: x.counters is 1"),
     "x.counters is 1", "x.counters is a table of counters"),
    ("enum-inside-a-count", "rules", block("during state check: each x where count(y where y.phase is 3) > 0: tap x"),
     "y.phase is 3", "y.phase is enum status 'phase' (in | out) and 3 is a number"),
    # arithmetic on what is not a number
    ("arithmetic-on-a-status", "rules", block("hide x where x.phase + 1 is 2"), "x.phase +",
     "'+' adds numbers, and x.phase is enum status 'phase'"),
    ("arithmetic-on-a-player", "rules", block("hide x where x.power + x.controller > 1"), "x.controller >",
     "'+' adds numbers, and x.controller is a player"),
    ("arithmetic-on-a-bool", "rules", block("hide x where x.tapped + 1 > 1"), "x.tapped +",
     "'+' adds numbers, and x.tapped is a bool"),
    # card types and keywords
    ("unknown-card-subtype", "rules", block("hide x where x is an aurra"), "x is an aurra",
     "unknown card type or subtype 'aurra'"),
    ("unknown-card-type-negated", "rules", block("hide x where x is not a sorcry"), "x is not a sorcry",
     "unknown card type or subtype 'sorcry'"),
    ("is-a-of-a-player", "rules", block("hide x where x.controller is a creature"), "x.controller is a",
     "'is a' needs an object, and x.controller is a player"),
    ("has-of-a-player", "rules", block("hide x where x.controller has flying"), "x.controller has",
     "'has' needs an object, and x.controller is a player"),
    # attributes of things that have none, and values that are never false
    ("enum-alone-as-a-condition", "rules", block("hide x where x.phase"), "x.phase\n",
     "x.phase is enum status 'phase' (in | out), which is never false"),
    ("attribute-of-an-enum-value", "rules", block("hide x where x.phase.zone is battlefield"), "x.phase.zone",
     "x.phase is enum status 'phase' (in | out): it has no attribute 'zone'"),
    ("status-of-a-player", "rules", block("hide x where x.controller.phase is in"), "x.controller.phase",
     "x.controller is a player, and a player has no attribute 'phase'"),
    ("player-attribute-of-an-object", "rules", block("hide x where x.life > 3"), "x.life",
     "x is an object, and 'life' is an attribute of a player"),
    # statements and verbs given the wrong kind of thing
    ("tap-a-player", "rules", block("during untap step of P: tap P"), "tap |P",
     "this statement needs an object, and P is a player"),
    ("an-object-draws", "rules", each("x draws 1"), "x draws",
     "this statement needs a player, and x is an object"),
    ("draw-an-object-many-cards", "rules", each("P draws x"), "draws |x",
     "the amount must be a number, and x is an object"),
    ("end-control-effects-for-an-object", "rules", each("end control effects for x"), "for |x",
     "this statement needs a player, and x is an object"),
    ("verb-given-a-player-where-its-body-needs-an-object", "rules", block("during untap step of P: do phase_out P"),
     "phase_out |P", "'phase_out' needs an object for its parameter 'x', and P is a player"),
    ("verb-given-too-many-arguments", "rules", each("do phase_out x, x"), "do phase_out",
     "'phase_out' takes 1 argument(s), 2 given"),
    # scenarios: what a permanent is given and what an expectation compares
    ("scenario-enum-status-set-to-number", "scenario", scenario(props=", set phase = 7"), "= |7",
     "cannot set status 'phase' to 7"),
    ("scenario-bool-status-set-to-number", "scenario", scenario(props=", set phased_indirectly = 3"), "= |3",
     "cannot set status 'phased_indirectly' to 3"),
    ("scenario-player-status-set-to-object", "scenario", scenario(props=", set phased_out_under = d"), "= |d",
     "cannot set status 'phased_out_under' to d"),
    ("scenario-expect-enum-number", "scenario", scenario("d.phase is 1"), "d.phase is 1",
     "d.phase is enum status 'phase' (in | out) and 1 is a number"),
    ("scenario-expect-unknown-subtype", "scenario", scenario("d is an aurra"), "d is an aurra",
     "unknown card type or subtype 'aurra'"),
    ("scenario-expect-arithmetic-on-status", "scenario", scenario("d.phase + 1 is 2"), "d.phase +",
     "'+' adds numbers, and d.phase is enum status 'phase'"),
    ("scenario-expect-status-of-a-player", "scenario", scenario("Alice.phase is in"), "Alice.phase",
     "Alice is a player, and a player has no attribute 'phase'"),
    ("scenario-expect-player-is-object", "scenario", scenario("d.controller is d"), "d.controller is d",
     "d.controller is a player and d is an object"),
]


def test_the_table_holds_at_least_thirty_misuses_each_named_once():
    names = [m[0] for m in MISUSES]
    assert len(names) >= 30 and len(set(names)) == len(names)


def where(text: str, needle: str) -> tuple[int, int]:
    """Line and column of the first `needle` in `text`; a `|` in the needle marks the column."""
    index = text.index(needle.replace("|", "")) + max(needle.find("|"), 0)
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def write(tmp_path: Path, kind: str, text: str) -> tuple[Path, str]:
    if kind == "rules":
        text = VARIANT + text
        path = tmp_path / "probe.rules"
    else:
        path = tmp_path / "probe.scenario"
    path.write_text(text, encoding="utf-8")
    return path, text


@pytest.mark.parametrize("name, kind, text, needle, message", MISUSES, ids=[m[0] for m in MISUSES])
def test_each_misuse_is_rejected_by_check_at_the_wrong_text(tmp_path, capsys, name, kind, text, needle, message):
    path, full = write(tmp_path, kind, text)
    status = main(["check", str(path)])
    err = capsys.readouterr().err
    assert status == 1, err
    line, column = where(full, needle)
    heads = [ln for ln in err.splitlines() if ln.startswith(f"{path}:") and ": error: " in ln]
    matching = [h for h in heads if message in h]
    assert matching, f"no error containing {message!r} in:\n{err}"
    assert matching[0].startswith(f"{path}:{line}:{column}: error: "), err
    # the diagnostic is shown with its source line, a caret and a hint
    block_text = err[err.index(matching[0]):]
    assert "^" in block_text.splitlines()[2] and block_text.splitlines()[3].lstrip().startswith("hint:"), err


def test_an_unknown_subtype_suggests_the_declared_one_it_is_close_to(tmp_path, capsys):
    path, _ = write(tmp_path, "rules", block("hide x where x is an aurra"))
    assert main(["check", str(path)]) == 1
    assert "did you mean 'aura'?" in capsys.readouterr().err


def test_a_subtype_a_card_of_the_library_declares_is_known(tmp_path, capsys):
    """`bear` is no word of the game model's; Grizzly Bears' `types creature bear` declares it."""
    path, _ = write(tmp_path, "rules", block("hide x where x is a bear and x.phase is out"))
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


def test_a_subtype_a_scenarios_own_card_declares_is_known(tmp_path, capsys):
    text = scenario("d is not a wombat").replace('scenario "probe"', 'card "Wombat" {\n  types creature wombat\n  pt 1/1\n}\n\nscenario "probe"')
    path, _ = write(tmp_path, "scenario", text)
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


def test_is_an_object_and_is_a_player_test_references_and_take_nothing_else(tmp_path, capsys):
    """`X is an object` / `X is a player` say what a reference names (an Aura may enchant a
    player, 303.4, so `x.attached_to` may be either); they take an object or a player: a
    number is an error at it, and they are no card types to look up."""
    path, _ = write(tmp_path, "rules", block("hide x where x.attached_to is an object and x.attached_to.phase is out "
                                             "or x.attached_to is a player and x.power > 3"))
    assert main(["check", str(path)]) == 0, capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    path, _ = write(tmp_path / "bad", "rules", block("hide x where x.power is an object"))
    assert main(["check", str(path)]) == 1
    assert "'is an object' needs an object or a player, and x.power is a number" in capsys.readouterr().err


# ------------------------------------------------------------------ what is right stays right


@pytest.mark.parametrize("text", [
    each("set x.phased_out_under = P, x.phased_indirectly = false, x.phase = out"),
    each("set x.phase_until = x.attached_to"),
    block("hide x where x.phase_until is not none and x.attached_to is none"),
    block("hide x where x.zone is not exile and x.controller is not none"),
    block("hide x where x.counters.feather + x.power + 1 > turn"),
    block("hide x where x.attached_to.phase is out"),
    block("prefer phased_out_under = none"),
    each("do phase_out_until x, x.attached_to"),
], ids=lambda t: t.splitlines()[1].strip()[:60])
def test_well_typed_text_is_accepted(tmp_path, capsys, text):
    path, _ = write(tmp_path, "rules", text)
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.slow
def test_every_shipped_rule_file_variant_card_file_and_scenario_still_checks_clean(capsys):
    """`phasing check` with no arguments checks every version, variant, card and scenario shipped."""
    assert main(["check"]) == 0, capsys.readouterr().err


# ------------------------------------------------------------------ the type rules themselves


ZONES = {"battlefield", "exile"}


def test_comparable_types():
    phase = types.Type("enum", ("in", "out"), "phase")
    assert types.comparable(phase, types.symbol("out"), ZONES)
    assert not types.comparable(phase, types.symbol("exile"), ZONES)
    assert not types.comparable(phase, types.NUMBER, ZONES)
    assert types.comparable(types.ZONE, types.symbol("exile"), ZONES)
    assert types.comparable(types.ZONE, types.symbol("game"), ZONES)  # a player's zone
    assert types.comparable(types.REF, types.PLAYER, ZONES) and types.comparable(types.REF, types.OBJECT, ZONES)
    assert not types.comparable(types.PLAYER, types.OBJECT, ZONES)
    assert types.comparable(types.OBJECT, types.NONE, ZONES)
    assert not types.comparable(types.BOOL, types.NONE, ZONES)
    assert types.comparable(types.ANY, types.NUMBER, ZONES)


def test_assignable_types():
    phase = types.Type("enum", ("in", "out"), "phase")
    assert types.assignable(phase, types.symbol("in"), ZONES)
    assert not types.assignable(phase, types.NUMBER, ZONES)
    assert types.assignable(types.PLAYER, types.NONE, ZONES)
    assert not types.assignable(types.BOOL, types.NONE, ZONES)
    assert types.assignable(types.OBJECT, types.REF, ZONES)
    assert not types.assignable(types.OBJECT, types.PLAYER, ZONES)


def test_a_verb_passing_its_parameter_on_needs_what_the_verb_it_calls_needs(tmp_path, capsys):
    """`relay` hands its x to phase_out, which sets a status of it: x must be an object."""
    text = "verb relay x {\n  do phase_out x\n}\n\n" + block("during untap step of P: do relay P")
    path, full = write(tmp_path, "rules", text)
    assert main(["check", str(path)]) == 1
    line, column = where(full, "relay |P")
    assert f"{path}:{line}:{column}: error: 'relay' needs an object for its parameter 'x', and P is a player" in capsys.readouterr().err


def test_a_status_of_an_unknown_type_reports_the_type_and_nothing_else(tmp_path, capsys):
    """`status glow: symbol = none` is an unknown status type; writes to it are not guessed at."""
    path, full = write(tmp_path, "rules", "status glow: symbol = none\n\n" + each("set x.glow = 3"))
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "unknown status type 'symbol'" in err and "error(s)" in err and "Traceback" not in err
