"""Unit tests for dsl/checker.py: a small rulebook written to a temporary folder is accepted,
and each kind of mistake in it is rejected with an error that points at the offending text
(file, line, column) and carries a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasing_rules.dsl.checker import check_scenario
from phasing_rules.dsl.diagnostics import Diagnostic, DiagnosticError
from phasing_rules.dsl.parser import parse, parse_file
from phasing_rules.interpreter.rulebook.loading import Rulebook, assemble, load_version

VERSION = """\
version 2030-01-01 {
  title "A test version"
  section 702.26 subrules a b
}
"""

RULES = """\
status phase: in | out = in
status phased_out_under: player = none

verb phase_out x {
  set x.phase = out
}

verb swap x y {
  tap x
  untap y
}

rule 702.26a untap-step-phasing "Phasing in the untap step." {
  during untap step of P: each x where x.phase is in and x has phasing and x.controller is P: do phase_out x
  as x.phase becomes out: set x.phased_out_under = x.controller
}

rule 702.26b treated-as-nonexistent "Phased-out permanents are hidden." {
  hide x where x.phase is out
}

rule 502.1 untap-step-order "Phasing comes first in the untap step." {
  order untap step: 702.26a, 502.3
}

rule 502.3 untap-permanents "The active player untaps." {
  during untap step of P: each x where x.controller is P: untap x
}
"""


def probe(*clauses: str, rule_id: str = "999.1", slug: str = "probe") -> str:
    """A block outside 702.26 (so the section check leaves it alone) holding the clauses."""
    body = "".join(f"  {c}\n" for c in clauses)
    return f'\nrule {rule_id} {slug} "A block under test." {{\n{body}}}\n'


class Book:
    """A rulebook folder in tmp_path: version.rules and rules.rules."""

    def __init__(self, tmp_path: Path, extra: str = "", *, version: str = VERSION, rules: str = RULES):
        self.folder = tmp_path / "version"
        self.folder.mkdir(exist_ok=True)
        self.version_file = self.folder / "version.rules"
        self.rules_file = self.folder / "rules.rules"
        self.version_text = version
        self.rules_text = rules + extra
        self.version_file.write_text(self.version_text, encoding="utf-8")
        self.rules_file.write_text(self.rules_text, encoding="utf-8")

    def assemble(self) -> Rulebook:
        modules = [parse_file(p) for p in sorted(self.folder.glob("*.rules"))]
        return assemble(modules, self.folder, {})

    def problems(self) -> list[Diagnostic]:
        with pytest.raises(DiagnosticError) as info:
            self.assemble()
        return info.value.diagnostics

    def error_at(self, fragment: str, needle: str, occurrence: int = 1) -> Diagnostic:
        """The one error whose message contains `fragment`, checked to point at the n-th
        `needle` of the rules file."""
        d = the_error(self.problems(), fragment)
        assert_at(d, self.rules_file, *where(self.rules_text, needle, occurrence))
        return d


def where(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based line and column of the n-th occurrence of `needle` in `text`."""
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def the_error(diagnostics: list[Diagnostic], fragment: str) -> Diagnostic:
    matching = [d for d in diagnostics if fragment in d.message]
    assert len(matching) == 1, f"expected one error containing {fragment!r}, got {diagnostics}"
    assert matching[0].kind == "error"
    return matching[0]


def assert_at(d: Diagnostic, path: Path, line: int, column: int | None = None) -> None:
    assert d.span.path == str(path)
    assert d.span.line == line, d
    if column is not None:
        assert d.span.column == column, d


# ------------------------------------------------------------------ the baseline is accepted


def test_baseline_rulebook_assembles_without_problems(tmp_path):
    book = Book(tmp_path).assemble()
    assert [r.id for r in book.rules] == ["502.1", "502.3", "702.26a", "702.26b"]
    assert set(book.statuses) == {"phase", "phased_out_under"}
    assert set(book.verbs) == {"phase_out", "swap"}


def test_baseline_with_a_correct_probe_block_is_accepted(tmp_path):
    extra = probe(
        "hide x where x.phase is out and x.phased_out_under is none",
        "prefer phase = in",
        "changes of phase are not zone-change, control-change, attachment-change",
        "exempt x from 702.26a where x.tapped",
        "during cleanup of P: each x where x.controller is P: do swap x, x",
        "as x.phase becomes in: set x.phased_out_under = none, x.tapped = false",
        "after x.phase becomes out and x.counters.feather > 0: x gets +1/+1 until x leaves the battlefield",
    )
    assert Book(tmp_path, extra).assemble().rule("probe") is not None


def test_shipped_current_version_loads_and_checks_clean():
    load_version.cache_clear()
    try:
        book = load_version("2026-09-25")
    finally:
        load_version.cache_clear()
    assert book.rule("702.26a") is not None


# ------------------------------------------------------------------ names and attributes


def test_unknown_attribute_in_a_condition_is_rejected_at_the_attribute_with_a_hint_listing_statuses(tmp_path):
    b = Book(tmp_path, probe("hide x where x.wobble is in"))
    d = b.error_at("unknown attribute 'wobble'", "x.wobble")
    assert d.hint and "phase" in d.hint


def test_unknown_attribute_in_a_statement_is_rejected(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: deal 1 damage to x.buddy"))
    d = b.error_at("unknown attribute 'buddy'", "x.buddy")
    assert d.hint


def test_unknown_name_in_a_condition_is_rejected_at_the_name_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("hide x where x.phase is sideways"))
    d = b.error_at("unknown name 'sideways'", "sideways")
    assert d.hint and "variable" in d.hint


def test_variable_not_bound_by_the_hook_is_an_unknown_name(tmp_path):
    b = Book(tmp_path, probe("during cleanup: tap zed"))
    d = b.error_at("unknown name 'zed'", "zed")
    assert d.hint


def test_unknown_name_in_a_duration_is_rejected_at_the_duration(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: x gets +1/+1 until Q next turn"))
    b.error_at("unknown name 'Q'", "until Q")


def test_unknown_name_in_a_duration_comes_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: x gets +1/+1 until Q next turn"))
    assert the_error(b.problems(), "unknown name 'Q'").hint


def test_unknown_attribute_after_a_count_is_still_rejected(tmp_path):
    b = Book(tmp_path, probe("hide x where count(y where y.phase is in) > 0 and x.wobble"))
    b.error_at("unknown attribute 'wobble'", "x.wobble")


def test_unknown_attribute_inside_a_count_is_rejected(tmp_path):
    b = Book(tmp_path, probe("hide x where count(y where y.wobble) > 0"))
    b.error_at("unknown attribute 'wobble'", "y.wobble")


# ------------------------------------------------------------------ verbs


def test_unknown_verb_is_rejected_at_the_call_with_a_hint_listing_verbs(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: do teleport x"))
    d = b.error_at("unknown action 'teleport'", "do teleport")
    assert d.hint and "phase_out" in d.hint and "swap" in d.hint


@pytest.mark.parametrize("call, message", [
    ("do phase_out x, P", "'phase_out' takes 1 argument(s), 2 given"),
    ("do swap x", "'swap' takes 2 argument(s), 1 given"),
])
def test_wrong_number_of_verb_arguments_is_rejected_at_the_call(tmp_path, call, message):
    b = Book(tmp_path, probe(f"during cleanup of P: each x where x.controller is P: {call}"))
    d = the_error(b.problems(), message)
    assert_at(d, b.rules_file, *where(b.rules_text, call))


def test_wrong_number_of_verb_arguments_comes_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: do swap x"))
    d = the_error(b.problems(), "'swap' takes 2 argument(s)")
    assert d.hint and "x y" in d.hint


def test_unknown_verb_inside_a_verb_body_is_rejected(tmp_path):
    b = Book(tmp_path, "\nverb wobble x {\n  do vanish x\n}\n")
    d = b.error_at("unknown action 'vanish'", "do vanish")
    assert d.hint


# ------------------------------------------------------------------ statuses and their values


def test_set_of_an_unknown_status_is_rejected_at_the_assignment_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("as x.phase becomes out: set x.shimmer = true"))
    d = the_error(b.problems(), "'shimmer'")
    assert "cannot set" in d.message or "unknown" in d.message
    assert_at(d, b.rules_file, *where(b.rules_text, "x.shimmer"))
    assert d.hint and "phase" in d.hint


def test_set_of_a_value_outside_the_status_enum_is_rejected_at_the_value(tmp_path):
    b = Book(tmp_path, probe("as x.phase becomes out: set x.phase = sideways"))
    d = b.error_at("'sideways' is not a value of status 'phase'", "sideways")
    assert d.hint == "values: in, out"


def test_change_to_a_value_outside_the_status_enum_is_rejected_at_the_value(tmp_path):
    b = Book(tmp_path, probe("as x.phase becomes sideways: tap x"))
    d = b.error_at("'sideways' is not a value of status 'phase'", "sideways")
    assert d.hint == "values: in, out"


def test_a_change_matched_against_a_worked_out_value_is_rejected_at_the_value(tmp_path):
    """`as x.phased_out_under becomes x.controller` names no value: which change the clause
    waits on is fixed once for the rulebook (702.26a's clause waits on `phase becomes out`), so
    the checker asks for the value itself, where the engine would otherwise fail in play."""
    b = Book(tmp_path, probe("as x.phased_out_under becomes x.controller: tap x"))
    d = b.error_at("a changed value in a clause must be written as a value", "x.controller: tap")
    assert "name" in d.hint


def test_change_of_an_unknown_status_is_rejected(tmp_path):
    b = Book(tmp_path, probe("look back on x.shimmer becomes out"))
    d = b.error_at("unknown status 'shimmer'", "x.shimmer")
    assert d.hint and "phase" in d.hint


def test_prefer_of_a_value_outside_the_status_enum_is_rejected(tmp_path):
    b = Book(tmp_path, probe("prefer phase = sideways"))
    d = b.error_at("'sideways'", "sideways")
    assert d.hint


def test_status_default_outside_its_enum_is_rejected_at_the_default(tmp_path):
    b = Book(tmp_path, "\nstatus glow: dim | bright = blinding\n")
    b.error_at("'blinding' cannot be the default of status 'glow'", "blinding")


def test_status_default_outside_its_enum_comes_with_a_hint_listing_values(tmp_path):
    b = Book(tmp_path, "\nstatus glow: dim | bright = blinding\n")
    d = the_error(b.problems(), "cannot be the default")
    assert d.hint and "dim" in d.hint and "bright" in d.hint


# ------------------------------------------------------------------ perceptions and rule ids


def test_unknown_perception_in_changes_are_not_is_rejected_with_a_hint_listing_perceptions(tmp_path):
    b = Book(tmp_path, probe("changes of phase are not zone-change, teleport-change"))
    d = the_error(b.problems(), "unknown perception 'teleport-change'")
    assert_at(d, b.rules_file, where(b.rules_text, "changes of phase")[0])
    assert d.hint and "zone-change" in d.hint and "attachment-change" in d.hint


def test_unknown_status_in_changes_are_not_is_rejected(tmp_path):
    b = Book(tmp_path, probe("changes of shimmer are not zone-change"))
    d = the_error(b.problems(), "unknown status 'shimmer'")
    assert_at(d, b.rules_file, where(b.rules_text, "changes of shimmer")[0])
    assert d.hint


def test_unknown_rule_id_in_order_is_rejected_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("order untap step: 702.26a, 702.26z"))
    d = b.error_at("no block 702.26z in this version", "order untap step: 702.26a, 702.26z")
    assert d.hint


def test_unknown_rule_id_in_exempt_is_rejected_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("exempt x from 123.4 where x.tapped"))
    d = b.error_at("no block 123.4 in this version", "exempt x from 123.4")
    assert d.hint


# ------------------------------------------------------------------ duplicates


def test_duplicated_rule_id_is_rejected_at_the_second_block_and_the_hint_points_at_the_first(tmp_path):
    b = Book(tmp_path, probe("hide x where x.tapped", rule_id="702.26b", slug="other-slug"))
    d = b.error_at("rule 702.26b appears twice", "rule 702.26b", 2)
    first_line = where(b.rules_text, "rule 702.26b", 1)[0]
    assert d.hint and f"{b.rules_file}:{first_line}:" in d.hint


def test_duplicated_rule_id_across_files_is_rejected(tmp_path):
    b = Book(tmp_path)
    (b.folder / "more.rules").write_text(probe("hide x where x.tapped", rule_id="502.3", slug="again"), encoding="utf-8")
    d = the_error(b.problems(), "rule 502.3 appears twice")
    # files are read in name order, so more.rules holds the first 502.3 and rules.rules the second
    assert_at(d, b.rules_file, *where(b.rules_text, "rule 502.3"))
    assert d.hint and f"first at {b.folder / 'more.rules'}:2:1" in d.hint


def test_duplicated_slug_is_rejected_at_the_second_block_with_a_hint(tmp_path):
    b = Book(tmp_path, probe("hide x where x.tapped", rule_id="999.2", slug="treated-as-nonexistent"))
    d = b.error_at("slug 'treated-as-nonexistent' is used by 702.26b and 999.2", "rule 999.2")
    assert d.hint


def test_status_declared_twice_is_rejected_at_the_second_declaration(tmp_path):
    b = Book(tmp_path, "\nstatus phase: in | out = out\n")
    d = b.error_at("status 'phase' is declared twice", "status phase:", 2)
    assert d.hint and f"{b.rules_file}:1:" in d.hint


# ------------------------------------------------------------------ a version's subrules


def test_subrule_listed_by_the_version_without_a_block_is_rejected_at_the_section(tmp_path):
    b = Book(tmp_path, version=VERSION.replace("subrules a b", "subrules a b c"))
    d = the_error(b.problems(), "subrule 702.26c is listed by the version but has no block")
    assert_at(d, b.version_file, *where(b.version_text, "section 702.26"))
    assert d.hint and "rule 702.26c" in d.hint


def test_block_whose_letter_the_version_does_not_list_is_rejected_at_the_block(tmp_path):
    b = Book(tmp_path, probe("hide x where x.tapped", rule_id="702.26d", slug="extra-block"))
    d = b.error_at("block 702.26d is not a subrule this version lists", "rule 702.26d")
    assert d.hint and "section 702.26" in d.hint


def test_missing_and_extra_subrules_are_all_reported_together(tmp_path):
    b = Book(tmp_path, probe("hide x where x.tapped", rule_id="702.26e", slug="extra-block"),
             version=VERSION.replace("subrules a b", "subrules a b c d"))
    messages = sorted(d.message for d in b.problems())
    assert messages == [
        "block 702.26e is not a subrule this version lists",
        "subrule 702.26c is listed by the version but has no block",
        "subrule 702.26d is listed by the version but has no block",
    ]


def test_letter_listed_twice_is_rejected(tmp_path):
    b = Book(tmp_path, version=VERSION.replace("subrules a b", "subrules a b b"))
    d = the_error(b.problems(), "'b' is not a single subrule letter listed once")
    assert_at(d, b.version_file, *where(b.version_text, "section 702.26"))


def test_load_version_of_a_folder_reports_the_checkers_errors(tmp_path):
    b = Book(tmp_path, probe("hide x where x.wobble"))
    load_version.cache_clear()
    try:
        with pytest.raises(DiagnosticError) as info:
            load_version(str(b.folder))
    finally:
        load_version.cache_clear()
    d = the_error(info.value.diagnostics, "unknown attribute 'wobble'")
    assert_at(d, b.rules_file, *where(b.rules_text, "x.wobble"))


# ------------------------------------------------------------------ scenarios


SCENARIO = """\
scenario "checked" {
  players Alice Bob
  turn 1 of Alice
  permanent d = "Bear", controller Alice
  script {
    next turn
    expect d.phase is out and d.phased_out_under is Alice
EXTRA  }
}
"""


def scenario_problems(tmp_path, extra_steps: str = "", text: str = SCENARIO) -> tuple[str, list[Diagnostic]]:
    book = Book(tmp_path).assemble()
    source = text.replace("EXTRA", extra_steps)
    (scn,) = parse(source, "s.scenario").items
    return source, check_scenario(scn, book)


def test_valid_scenario_has_no_problems(tmp_path):
    assert scenario_problems(tmp_path)[1] == []


def test_scenario_expectation_with_unknown_name_is_rejected_at_the_name(tmp_path):
    source, problems = scenario_problems(tmp_path, "    expect ghost.phase is out\n")
    d = the_error(problems, "unknown name 'ghost'")
    assert d.span.path == "s.scenario"
    assert (d.span.line, d.span.column) == where(source, "ghost")
    assert d.hint


def test_scenario_expectation_with_unknown_attribute_is_rejected(tmp_path):
    source, problems = scenario_problems(tmp_path, "    expect d.shimmer is out\n")
    d = the_error(problems, "unknown attribute 'shimmer'")
    assert (d.span.line, d.span.column) == where(source, "d.shimmer")
    assert d.hint


def test_scenario_permanent_with_a_value_outside_the_status_enum_is_rejected(tmp_path):
    text = SCENARIO.replace('controller Alice\n', 'controller Alice, set phase = sideways\n')
    source, problems = scenario_problems(tmp_path, text=text)
    d = the_error(problems, "'sideways'")
    assert (d.span.line, d.span.column) == where(source, "sideways")
    assert d.hint


def test_a_player_named_twice_is_rejected_at_the_players_line_with_a_hint(tmp_path):
    """Two players with one name cannot be told apart by the script or the expectations."""
    text = SCENARIO.replace("players Alice Bob", "players Alice Alice Bob")
    source, problems = scenario_problems(tmp_path, text=text)
    d = the_error(problems, "player 'Alice' is named twice")
    assert (d.span.path, d.span.line, d.span.column) == ("s.scenario", *where(source, "players"))
    assert d.hint and "players Alice Alice2 Bob" in d.hint


def test_distinct_player_names_are_not_reported_as_repeated(tmp_path):
    assert not [d for d in scenario_problems(tmp_path)[1] if "named twice" in d.message]


def test_a_verb_parameter_named_twice_is_rejected_at_the_verb_with_a_hint(tmp_path):
    """`verb twice x x`: the body could never tell its two arguments apart."""
    b = Book(tmp_path, "\nverb twice x x {\n  tap x\n}\n")
    d = b.error_at("verb 'twice' names its parameter 'x' twice", "verb twice")
    assert d.hint and "verb twice x x2" in d.hint


# ------------------------------------------------------------------ verbs that call themselves


def test_a_verb_that_calls_itself_is_rejected_at_the_call(tmp_path):
    b = Book(tmp_path, "\nverb spin x {\n  do spin x\n}\n")
    d = b.error_at("verb 'spin' calls itself: spin -> spin", "do spin x")
    assert d.hint and "each" in d.hint


def test_verbs_that_call_each_other_in_a_cycle_are_rejected_at_the_call_that_closes_it(tmp_path):
    b = Book(tmp_path, "\nverb ping x {\n  do pong x\n}\n\nverb pong x {\n  tap x\n  do ping x\n}\n")
    b.error_at("verb 'ping' calls itself: ping -> pong -> ping", "do ping x")
    assert len([p for p in b.problems() if "calls itself" in p.message]) == 1  # one cycle, one error


def test_a_verb_calling_another_without_a_cycle_is_accepted(tmp_path):
    book = Book(tmp_path, "\nverb outer x {\n  do phase_out x\n  do swap x, x\n}\n").assemble()
    assert "outer" in book.verbs


# ------------------------------------------------------------------ a variant's slugs


VARIANT_TYPO = """\
variant typo-slug {
  extends 2026-09-25
}

rule 702.26g indirect-phasin "Attachments phase out with their host." {
  as x.phase becomes out: each y where y.attached_to is x: {
    set y.phase = out, y.phased_indirectly = true
  }
}
"""


def test_a_variant_block_whose_slug_matches_no_inherited_block_is_named_with_the_nearest_slug(tmp_path, capsys):
    """Not "rule 702.26g appears twice" with a hint into the installed rules: the slug is what is wrong."""
    from phasing_rules.interpreter.cli import main

    path = tmp_path / "typo.rules"
    path.write_text(VARIANT_TYPO, encoding="utf-8")
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    line, column = where(VARIANT_TYPO, "rule 702.26g")
    assert (f"{path}:{line}:{column}: error: no inherited block has slug 'indirect-phasin'; "
            "did you mean 'indirect-phasing'?") in err
    assert "appears twice" not in err and "first at" not in err


def test_a_variant_block_with_an_inherited_slug_replaces_that_block(tmp_path, capsys):
    from phasing_rules.interpreter.cli import main

    path = tmp_path / "fixed.rules"
    path.write_text(VARIANT_TYPO.replace("indirect-phasin ", "indirect-phasing "), encoding="utf-8")
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


def test_a_variant_that_drops_the_inherited_block_may_put_a_block_of_another_slug_in_its_place(tmp_path, capsys):
    from phasing_rules.interpreter.cli import main

    path = tmp_path / "dropped.rules"
    path.write_text(VARIANT_TYPO.replace("extends 2026-09-25\n", "extends 2026-09-25\n  drop indirect-phasing\n"),
                    encoding="utf-8")
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


# ------------------------------------------------------------------ verbs called like built-ins (issue 15 item 8)


def test_a_verb_called_without_do_is_the_same_call(tmp_path):
    """`phase_out x` and `do phase_out x` both run the declared verb."""
    bare = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: phase_out x")).assemble()
    rule = next(r for r in bare.rules if r.id == "999.1")
    call = rule.clauses[0].body.body
    assert call.verb == "phase_out" and [a.id for a in call.args] == ["x"]


@pytest.mark.parametrize("name", ["tap", "draw", "each", "hidden"])
def test_a_verb_named_like_a_word_of_the_language_is_rejected_at_the_verb(tmp_path, name):
    """Called as `NAME x`, such a verb would be read as the word itself."""
    b = Book(tmp_path, f"\nverb {name} x {{\n  untap x\n}}\n")
    d = b.error_at(f"a verb cannot be named '{name}'", f"verb {name}")
    assert d.hint and f"{name}_it" in d.hint


def test_an_unknown_verb_called_without_do_is_rejected_at_the_call(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: each x where x.controller is P: vanish x"))
    b.error_at("unknown action 'vanish'", "vanish x")


# ------------------------------------------------------------------ conditions the text decides (issue 15 item 8)
# A condition that always holds reads as if it could be deleted; one that never holds makes
# what it guards dead. The checker knows each status's values from its declaration.


@pytest.mark.parametrize("condition, fragment", [
    # phase is `in | out` (RULES above): testing both values covers every value
    ("x.phase is in or x.phase is out", "always true: x.phase (in | out) always has one"),
    ("x.tapped or x.phase is out or x.phase is in", "always true: x.phase (in | out)"),
    ("x.phase is not in or x.phase is not out", "always true: x.phase (in | out) cannot have two values"),
    ("x.tapped or not x.tapped", "always true: it joins x.tapped and its opposite"),
    ("x is a creature or not (x is a creature)", "always true: it joins x is a creature and its opposite"),
    ("x is x", "always true: x is always itself"),
    ("x.phase is in and x.phase is out", "never true: x.phase (in | out) cannot have two values"),
    ("x.phase is not in and x.phase is not out", "never true: x.phase (in | out) always has one of the values it is tested not"),
    ("x.tapped and not x.tapped", "never true: it joins x.tapped and its opposite"),
    ("x.phase is in and x.phase is not in", "never true: it joins x.phase is in and its opposite"),
    ("x is not x", "never true: x is always itself"),
    ("x.tapped is true or x.tapped is false", "always true: x.tapped (true | false)"),
])
def test_a_condition_that_always_or_never_holds_is_rejected_where_it_is(tmp_path, condition, fragment):
    b = Book(tmp_path, probe(f"during cleanup of P: each x where x.controller is P: if {condition}: tap x"))
    d = b.error_at(fragment, condition)
    assert d.hint


def test_the_514_2_tautology_comes_with_a_hint_to_write_including_hidden(tmp_path):
    """514.2 once read `each x where x.phase is in or x.phase is out`: a reader deletes the
    condition and loses the phased-out permanents (702.26b). The hint names the form made for it."""
    b = Book(tmp_path, probe("during cleanup of P: each x where x.phase is in or x.phase is out: remove damage from x"))
    d = b.error_at("this condition is always true", "x.phase is in or")
    assert "each x including hidden" in d.hint and "phasing fmt" in d.hint


def test_a_test_of_every_value_of_a_status_no_hide_rule_reads_is_not_sent_to_including_hidden(tmp_path):
    """`including hidden` would change what such a query selects: the hint does not offer it."""
    b = Book(tmp_path, probe("during cleanup of P: each x where x.phased_indirectly is true or "
                             "x.phased_indirectly is false: untap x"), rules=RULES.replace(
        "status phased_out_under: player = none", "status phased_out_under: player = none\nstatus phased_indirectly: bool = false"))
    d = b.error_at("this condition is always true", "x.phased_indirectly is true or")
    assert "including hidden" not in d.hint


def test_the_same_tautology_in_a_count_points_at_including_hidden_too(tmp_path):
    b = Book(tmp_path, probe("during cleanup of P: if count(y where y.phase is out or y.phase is in) > 1: untap P"))
    d = b.error_at("this condition is always true", "y.phase is out or")
    assert "count(y including hidden)" in d.hint


@pytest.mark.parametrize("condition", [
    "x.phase is in or x.tapped",  # a value left untested
    "x.attached_to.phase is in or x.attached_to.phase is out",  # x.attached_to may be none or a player
    "x.phase is in and x.phase is in",  # the same value twice: merely redundant
    "x is x.attached_to",
])
def test_conditions_that_can_go_either_way_pass(tmp_path, condition):
    Book(tmp_path, probe(f"during cleanup of P: each x where x.controller is P: if {condition}: tap x")).assemble()


def test_the_command_line_rejects_a_tautology_with_exit_status_1(tmp_path, capsys):
    from phasing_rules.interpreter.cli import main

    (tmp_path / "v.rules").write_text(
        "variant v {\n  extends 2026-09-25\n}\n" + probe("during cleanup of P: each x where x.phase is in or x.phase is out: untap x"),
        encoding="utf-8")
    assert main(["check", str(tmp_path / "v.rules")]) == 1
    err = capsys.readouterr().err
    assert "v.rules:6:" in err and "always true" in err and "including hidden" in err


@pytest.mark.slow
@pytest.mark.parametrize("version", ["2026-09-25", "2005-02-01", "no-indirect-phasing"])
def test_a_scenario_that_checks_under_a_rulebook_checks_with_any_block_deleted(version):
    """`phasing ablate` checks each scenario once, under the whole rulebook, and not again under
    each rulebook with a block deleted (`run_case(..., checked=True)`): a scenario's check reads
    the declarations and the cards, which deleting a block leaves as they are. Every scenario
    of the suite that checks cleanly under `version` still does with each of its blocks gone."""
    from phasing_rules.interpreter.play.suite import collect, plan

    book = load_version(version)
    cases, _problems = collect([Path(__file__).parent / "scenarios"])
    clean = [r.case for r in plan(cases, [version]) if not check_scenario(r.case.scenario, book.with_cards(r.case.cards))]
    assert len(clean) > 10, "premise: scenarios run under this version"
    for rule in book.rules:
        reduced = book.without(rule.id)
        for case in clean:
            assert check_scenario(case.scenario, reduced.with_cards(case.cards)) == [], (rule.id, case.scenario.name)


# ------------------------------------------------------------------ what a card's kind uses

KINDS = """\
card "Bear Spell" {
  types creature bear
  pt 2/2
  spell: you draw 1
}

card "Odd Sorcery" {
  types sorcery
  when this enters: you gain 1 life
  static: each x where x is a creature: x gets +1/+1
  spell: you draw 1
}

card "Fine Instant" {
  types instant
  spell: you draw 1
}

card "Fine Enchantment" {
  types enchantment
  static: each x where x is a creature: x gets +1/+1
  when this enters: you gain 1 life
}
"""


def test_entries_a_card_s_kind_never_uses_are_rejected_where_written(tmp_path):
    """A permanent spell becomes a permanent as it resolves (608.3), so a creature's `spell:`
    line would never run; an instant or sorcery is never on the battlefield (112.3a, 113.6), so
    its static and triggered abilities would never apply. Each is an error at its line, with a
    hint naming what the card language models; the cards that use their kind's entries pass."""
    from phasing_rules.dsl.checker import check_cards

    path = tmp_path / "kinds.rules"
    path.write_text(KINDS)
    cards = [item for item in parse_file(path).items]
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    spell = the_error(found, "'spell:' line never runs")
    assert_at(spell, path, *where(KINDS, "spell: you draw 1"))
    assert "creature" in spell.message and "when this enters" in spell.hint
    trigger = the_error(found, "sorcery's triggered ability never applies")
    assert_at(trigger, path, *where(KINDS, "when this enters"))
    static = the_error(found, "sorcery's static ability never applies")
    assert_at(static, path, *where(KINDS, "static:"))
    assert "spell: ..." in static.hint
    assert len(found) == 3, found


# ------------------------------------------------------------------ partial entries

PARTIALS = """\
card "Half Familiar" {
  types creature
  pt 2/2
  partial "its mill trigger"
  partial ""
  partial "   "
}
"""


STEP_TRIGGERS = """\
card "Untap Watcher" {
  types creature
  at beginning of untap step of you: you gain 1 life
}

card "Cleanup Watcher" {
  types creature
  at beginning of cleanup of each player P: P gains 1 life
}

card "Draw Watcher" {
  types creature
  at beginning of draw step of you: you gain 1 life
  at beginning of beginning of combat step of each player P: P gains 1 life
  at beginning of postcombat main phase of you: you gain 1 life
}

card "Typo Watcher" {
  types creature
  at beginning of upkep step of you: you gain 1 life
}

card "Turn Watcher" {
  types creature
  at beginning of beginning of turn of you: you gain 1 life
}

card "Target Shadow" {
  types creature
  target t where t is a creature
  at beginning of upkeep of each player t: t gains 1 life
}

card "Upkeep Scroll" {
  types sorcery
  at beginning of upkeep of you: you draw 1
}

card "Fine Watcher" {
  types enchantment
  at beginning of upkeep of you: you draw 1
  at beginning of end step of each player P: P gains 1 life
}
"""


def test_a_blank_partial_entry_is_an_error_at_the_entry(tmp_path):
    """A `partial` entry names a part of the real card the library's card leaves out: empty or
    blank text names nothing, so it is an error at that entry (each of them); one with text
    is no problem, and changes nothing the card does."""
    from phasing_rules.dsl.checker import check_cards

    path = tmp_path / "partials.rules"
    path.write_text(PARTIALS)
    cards = [item for item in parse_file(path).items]
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    assert len(found) == 2, found
    assert_at(found[0], path, *where(PARTIALS, 'partial ""'))
    assert_at(found[1], path, *where(PARTIALS, 'partial "   "'))
    assert all("partial" in d.message and "empty" in d.message for d in found), found
    assert found[0].hint and "own words" in found[0].hint


def test_a_card_s_step_trigger_names_a_step_in_which_players_get_priority(tmp_path):
    """A card's ability triggers at the beginning of a step of the rulebook's turn in which a
    player gets priority: none does in the untap step (502.4), so such an ability is an error
    at the step's name whose hint names the step to write (the upkeep step, the next with
    priority); a hook that is no step of the turn (`beginning of turn`) or a misspelt step is
    one too, listing the steps with priority (the misspelt one's meant first). In the cleanup
    step players get priority once something has triggered (514.3a), so an ability triggering
    at its beginning is accepted, as are the upkeep, draw (504.2), beginning of combat (507.2)
    and end steps and the postcombat main phase (117.3a: the active player receives priority at
    the beginning of most steps and phases). `each player P` binds a name of its own
    (a target's is refused), and an instant or sorcery has no such ability (113.6)."""
    from phasing_rules.dsl.checker import check_cards

    path = tmp_path / "steps.rules"
    path.write_text(STEP_TRIGGERS)
    cards = list(parse_file(path).items)
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    untap = the_error(found, "beginning of the untap step")
    assert_at(untap, path, *where(STEP_TRIGGERS, "untap step of you"))
    assert "502.4" in untap.message and "at beginning of upkeep step" in untap.hint
    assert not [d for d in found if "cleanup" in d.message or d.span.line in
                (where(STEP_TRIGGERS, "cleanup of each")[0], where(STEP_TRIGGERS, "draw step of you")[0],
                 where(STEP_TRIGGERS, "beginning of combat step")[0], where(STEP_TRIGGERS, "postcombat main")[0])], found
    turn = the_error(found, "'beginning of turn' is not a step")
    assert_at(turn, path, *where(STEP_TRIGGERS, "beginning of turn"))
    # (the steps with priority by their CR names, in the turn's order: 503, 504, 505, ...)
    assert "upkeep step, draw step, precombat main phase, beginning of combat step" in turn.hint
    assert "untap step" not in turn.hint
    typo = the_error(found, "'upkep step' is not a step")
    assert_at(typo, path, *where(STEP_TRIGGERS, "upkep step"))
    assert typo.hint.startswith("did you mean 'upkeep step'"), typo.hint
    shadow = the_error(found, "'t' already names a target")
    assert_at(shadow, path, *where(STEP_TRIGGERS, "at beginning of upkeep of each player t"))
    scroll = the_error(found, "sorcery's triggered ability never applies")
    assert_at(scroll, path, *where(STEP_TRIGGERS, "at beginning of upkeep of you: you draw 1"))
    assert len(found) == 5, found


def test_a_step_trigger_s_body_is_checked_with_the_player_it_binds(tmp_path):
    """`at beginning of upkeep of each player P` binds P to a player: a body that uses it as a
    player passes, one that names a player the trigger does not bind is an unknown name."""
    from phasing_rules.dsl.checker import check_cards

    text = ('card "Loose Realm" {\n  types enchantment\n'
            '  at beginning of upkeep of each player P: Q gains 1 life\n}\n')
    path = tmp_path / "loose.rules"
    path.write_text(text)
    cards = list(parse_file(path).items)
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    unknown = the_error(found, "unknown name 'Q'")
    assert_at(unknown, path, *where(text, "Q gains"))


def test_a_keyword_ability_of_magic_is_no_typo_even_when_spelt_like_a_tested_one(tmp_path):
    """A card may print a keyword ability no rule gives a meaning to (flanking, 702.25, where
    the game has no blocking yet): it is data, as printed, and no typo of `flying`, which a
    card grants. A word that is no keyword ability and is spelt like a tested one still is
    (`flyng`: a creature printed with it would never fly)."""
    from phasing_rules.dsl.checker import check_cards

    text = ('card "Winged Grant" {\n  types instant\n  target t where t is a creature\n  spell: t gains flying\n}\n'
            'card "Flanker" {\n  types creature\n  pt 2/2\n  keywords flanking\n}\n'
            'card "Misprint" {\n  types creature\n  pt 2/2\n  keywords flyng\n}\n')
    path = tmp_path / "keywords.rules"
    path.write_text(text)
    cards = list(parse_file(path).items)
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    assert [d.message for d in found] == ["keyword 'flyng' is tested for or granted by no rule or card of this rulebook"]
    assert_at(found[0], path, *where(text, "keywords flyng"))


# ------------------------------------------------------------------ holes the checker closes (issue 45, item 3)
# Each row: what kind of text, the text, a fragment of the one error expected, the text it
# points at (its line and column), and where the expectation comes from. Every row was
# accepted by `check` before issue 45 and failed (or did nothing) when run.

# A variant over 2026-09-25 whose amend moves 702.26a (untap-step-phasing) out of the untap
# step, while 502.1's inherited `order untap step: 702.26a, 702.26n, 502.3` still names it.
STALE_BY_AMEND = """\
variant stale-order {
  extends 2026-09-25
}

amend untap-step-phasing {
  replace clause phase-out-and-in: during end step of P: each x where x.phase is in and x has phasing and x.controller is P: phase_out x
}
"""

# The same through a block of the variant's own in 702.26a's place.
STALE_BY_BLOCK = """\
variant stale-block {
  extends 2026-09-25
}

rule 702.26a untap-step-phasing "Phasing in the end step." {
  during end step of P: each x where x.phase is in and x has phasing and x.controller is P: phase_out x
}
"""

CARD_HEAD = 'card "Probe Card" {\n  types creature\n  pt 2/2\n'

HOLES = [
    # 1. `order HOOK` orders the blocks acting at HOOK (language: "order"; CR 502.1 puts
    # phasing first in the untap step): a block it names must still act there, inherited or not.
    pytest.param("variant", STALE_BY_AMEND, "leaves an inherited clause stale: 702.26a untap-step-phasing has no "
                 "'during untap step' clause", "replace clause phase-out-and-in", "order untap step: 702.26n, 502.3",
                 id="inherited-order-made-stale-by-an-amend"),
    pytest.param("variant", STALE_BY_BLOCK, "this 702.26a untap-step-phasing leaves an inherited clause stale",
                 "rule 702.26a", "rule 502.1 untap-step-order", id="inherited-order-made-stale-by-a-block"),
    # 1. `exempt x from R` exempts objects from R's selections (language: "exempt"; CR 610.4
    # is the shipped use): a block with no selection has nothing to exempt from.
    pytest.param("rules", probe("exempt x from 502.1 where x.tapped"), "502.1 untap-step-order selects nothing",
                 "502.1 where", "drop the exempt clause", id="exempt-from-a-block-that-selects-nothing"),
    # 2. A condition is true or false (language: "Conditions"; CR 608.2c: an instruction's
    # "if" is a test that holds or not): a number is neither.
    pytest.param("rules", probe("during end step of P: if 1: untap P"), "1 is a number, and a condition is true or false",
                 "1: untap", "1 > 0", id="number-as-if-condition"),
    pytest.param("rules", probe("during end step of P: each x where x.controller is P: if x.damage: untap x"),
                 "x.damage is a number", "x.damage: untap", "x.damage > 0", id="attribute-number-as-condition"),
    pytest.param("rules", probe("during end step of P: each x where 1: untap x"), "1 is a number",
                 "1: untap", "> 0", id="number-as-selection"),
    # 3. `X.S is unchanged` compares with the value just before a change: only an `assert after`
    # has one (language: "`X.S is unchanged` ... in `assert after` only"; the runtime fails elsewhere).
    pytest.param("rules", probe("during end step of P: each x where x.tapped is unchanged: untap x"),
                 "'x.tapped is unchanged' means nothing here", "x.tapped is unchanged", "assert after",
                 id="unchanged-in-a-selection"),
    pytest.param("rules", probe("as x.phase becomes out: if x.tapped is unchanged: untap x"),
                 "'x.tapped is unchanged' means nothing here", "x.tapped is unchanged", "assert after",
                 id="unchanged-in-an-as-clause"),
    # 4. An object is never attached to itself (CR 303.4d: an Aura can't enchant itself;
    # 301.5c: an Equipment can't equip itself; 301.6: a Fortification can't fortify itself).
    pytest.param("rules", probe("during state check: each x where x is an aura and x.attached_to is none: attach x to x"),
                 "attaches an object to itself", "attach x to x", "attach x to y", id="attach-to-itself"),
    # 5. A number beyond any game's range (dsl.types.MAX_GAME_NUMBER, 2**31 - 1: what Magic's
    # digital games hold; CR 107.1 has the game use whole numbers, and none comes near it).
    pytest.param("rules", probe("during end step of P: each x where x.controller is P: deal 999999999999999999999999 "
                                "damage to x"), "999999999999999999999999 is beyond any game's range",
                 "999999999999999999999999", "2**31 - 1", id="damage-out-of-range"),
    pytest.param("rules", probe("during state check: each x where x.power > 3000000000: untap x"),
                 "3000000000 is beyond any game's range", "3000000000", "2**31 - 1", id="comparison-out-of-range"),
    # 6. A card's triggered ability watches the permanent it is on (`this`, CR 603.2, 603.6a) or
    # any object's events, the name bound to that object: not to a name the card gives its
    # controller (`you`) or a target.
    pytest.param("cards", CARD_HEAD + "  when you enters: you gain 1 life\n}\n", "'you' already names its controller",
                 "you enters", "another name (such as x)", id="enters-trigger-naming-you"),
    pytest.param("cards", CARD_HEAD + "  target t where t is a creature\n  when t.phase becomes out: you draw 1\n}\n",
                 "'t' already names a target of this card", "t.phase becomes", "another name (such as x)",
                 id="change-trigger-naming-a-target"),
    # 7. A card's target is a permanent (CR 601.2c; interpreter/play/actions.py `_target_names`
    # refuses a player's name): `target p where p is a player` can never be chosen.
    pytest.param("cards", 'card "Probe Spell" {\n  types instant\n  target p where p is a player\n  spell: p draws 1\n}\n',
                 "p is a target, and a target is a permanent", "p is a player", "'you'", id="target-player"),
]


@pytest.mark.parametrize("kind, text, fragment, needle, hint", HOLES)
def test_a_hole_of_the_checker_is_an_error_at_its_text(tmp_path, kind, text, fragment, needle, hint):
    """issue 45, item 3: each row is one error, positioned (path, line, column) at `needle`,
    with a hint containing `hint`."""
    from phasing_rules.dsl.checker import check_cards

    if kind == "rules":
        book = Book(tmp_path, text)
        d = book.error_at(fragment, needle)
    else:
        path = tmp_path / ("stale-order.rules" if "stale-order" in text else
                           "stale-block.rules" if "stale-block" in text else "probe.rules")
        path.write_text(text, encoding="utf-8")
        if kind == "variant":
            with pytest.raises(DiagnosticError) as info:
                load_version(str(path))
            found = info.value.diagnostics
        else:
            cards = list(parse_file(path).items)
            found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
        d = the_error(found, fragment)
        assert_at(d, path, *where(text, needle))
    assert d.hint and hint in d.hint, d.hint


@pytest.mark.parametrize("clause", [
    "during end step of P: each x where x.controller is P and x.damage > 0: untap x",
    "during state check: each x where x is an aura and x.attached_to is none: each y where y is a creature: attach x to y",
    "during end step of P: each x where x.controller is P: deal 2147483647 damage to x",
    "assert after x.phase becomes in: x.tapped is unchanged",
    "exempt x from 502.3 where x.tapped",
])
def test_what_the_holes_leave_alone_passes(tmp_path, clause):
    """The forms next to each hole are fine: a number compared, attaching to another object,
    the largest number allowed, `is unchanged` in an `assert after`, an exemption from a block
    that selects."""
    Book(tmp_path, probe(clause)).assemble()


def test_a_variant_that_fixes_the_order_it_makes_stale_passes(tmp_path):
    """end-step-phasing's fix: 502.1 restated without 702.26a (issue 45)."""
    fixed = STALE_BY_AMEND + ('\nrule 502.1 untap-step-order "Untap step order." {\n'
                              '  order untap step: 702.26n, 502.3\n}\n')
    path = tmp_path / "stale-order.rules"
    path.write_text(fixed, encoding="utf-8")
    assert load_version(str(path)).rule("untap-step-order").clauses[0].rules == ("702.26n", "502.3")


def test_a_card_with_a_target_and_this_triggers_passes(tmp_path):
    from phasing_rules.dsl.checker import check_cards

    text = (CARD_HEAD + "  when this enters: you gain 1 life\n  when this.phase becomes out: you draw 1\n}\n"
            'card "Probe Spell" {\n  types instant\n  target t where t is a creature and t.controller is you\n'
            "  spell: t.controller draws 1\n}\n")
    path = tmp_path / "fine.rules"
    path.write_text(text, encoding="utf-8")
    cards = list(parse_file(path).items)
    assert check_cards(cards, load_version("2026-09-25").with_cards(cards)) == []


@pytest.mark.parametrize("setup, needle", [
    ("turn 3000000000 of Alice", "turn 3000000000 of Alice"),
    ('permanent bear = "Grizzly Bears", controller Alice, damage 3000000000', "damage 3000000000"),
    ('permanent bear = "Grizzly Bears", controller Alice, counter p1p1 = 3000000000', "counter p1p1 = 3000000000"),
    ('permanent bear = "Grizzly Bears", controller Alice, entered turn 3000000000', "entered turn 3000000000"),
], ids=["turn", "damage", "counters", "entered-turn"])
def test_a_setup_number_beyond_any_game_is_an_error_at_it(setup, needle):
    """A scenario's setup, like a rule, holds only numbers a game can reach (at most 2**31 - 1:
    `dsl.types.MAX_GAME_NUMBER`): a turn, damage, counters or the turn a permanent entered
    beyond it is an error at the number's property, as in the rule files."""
    source = ('scenario "s" {\n  cites 702.26a\n  players Alice Bob\n'
              + ("" if setup.startswith("turn") else "  turn 1 of Alice\n") + f"  {setup}\n  script {{\n    next turn\n  }}\n}}\n")
    (scn,) = parse(source, "s.scenario").items
    problems = check_scenario(scn, load_version("2026-09-25"))
    assert [p.message for p in problems] == ["3000000000 is beyond any game's range: numbers here are at most 2,147,483,647"]
    line = source.splitlines()[problems[0].span.line - 1]
    assert line[problems[0].span.column - 1:].startswith(needle)


# ------------------------------------------------------------------ the turn: steps, restrictions, skipped steps


def covers(d: Diagnostic, text: str, needle: str) -> None:
    """`d` is on the line of `needle` in `text`, and its span takes in all of it."""
    line, column = where(text, needle)
    assert d.span.line == line and d.span.column <= column and d.span.end_column >= column + len(needle), d


@pytest.mark.parametrize("clause, written, meant", [  # (`written`: the step's name as the clause writes it)
    ("during untp step of P: each x where x.controller is P: untap x", "untp step", "untap step"),
    ("order upkeep phase: 502.3", "upkeep phase", "upkeep step"),
    ("assert during drw step of P: phase changes at most once", "drw step", "draw step"),
    ("assert during skipped end phase of P: no change of phase", "end phase", "end step"),
    ("during state check: at next cleanup phase: each x where x.tapped: untap x", "cleanup phase", "cleanup step"),
    ("skip declare blocker step of P where P.life < 1", "declare blocker step", "declare blockers step"),
    ("clause c: during  precombat  main step of P: each x where x.controller is P: untap x", "precombat  main step",
     "precombat main phase"),
])
def test_a_hook_naming_a_step_the_turn_does_not_declare_is_an_error_at_the_hook(tmp_path, clause, written, meant):
    """500.1: the turn has the steps and phases its rulebook declares (here, having none of its
    own, the newest version's: `default_turn`). A hook naming another, in any place a hook is
    written, is an error on the hook's line taking in the name, whose hint offers the step meant
    first and lists the turn's steps and the game's own hooks. The name is read with single
    spaces between its words."""
    from phasing_rules.dsl.builtins import GAME_HOOKS
    from phasing_rules.interpreter.rulebook.loading import default_turn

    b = Book(tmp_path, probe(clause))
    kind = " ".join(written.split())
    d = the_error(b.problems(), f"unknown step '{kind}'")
    assert d.message == f"unknown step '{kind}': the turn of this rulebook has no such step or phase"
    assert d.span.path == str(b.rules_file)
    covers(d, b.rules_text, written)
    assert d.hint.startswith(f"did you mean '{meant}'"), d.hint
    assert ", ".join(default_turn().steps) in d.hint and ", ".join(GAME_HOOKS) in d.hint


def test_the_unknown_step_error_starts_at_the_step_s_name(tmp_path):
    """An error points at the offending text: the step's name, as a card's step trigger's does."""
    b = Book(tmp_path, probe("during untp step of P: each x where x.controller is P: untap x"))
    b.error_at("unknown step 'untp step'", "untp step")


def test_the_rulebook_s_own_turn_decides_which_steps_a_hook_may_name(tmp_path):
    """500.1: a rulebook that declares its turn (`turn { ... }`) has those steps and phases and
    no others: without a draw step, `during draw step` is an unknown step whose hint lists that
    turn's steps; its own steps are hooks (a step only it has too)."""
    turn = ("turn cites 500.1 {\n  beginning phase: untap step, upkeep step\n  main phase\n"
            "  ending phase: end step, cleanup step, reckoning step\n  no priority: untap step\n}\n")
    (tmp_path / "version").mkdir()
    (tmp_path / "version" / "turn.rules").write_text(turn, encoding="utf-8")
    b = Book(tmp_path, probe("during draw step of P: each x where x.controller is P: untap x"))
    d = the_error(b.problems(), "unknown step 'draw step'")
    assert "untap step, upkeep step, main phase, end step, cleanup step, reckoning step" in d.hint
    b = Book(tmp_path, probe("during reckoning step of P: each x where x.controller is P: untap x",
                             "during main phase of P: each x where x.controller is P: untap x"))
    assert b.assemble().turn.steps[-1] == "reckoning step"


def test_a_rulebook_without_a_turn_plays_the_newest_version_s(tmp_path):
    """A rulebook that declares no turn has the newest shipped version's (500.1: five phases),
    so the draw step (504) and the combat steps (507-511) are hooks of it."""
    from phasing_rules.interpreter.rulebook.loading import default_turn

    book = Book(tmp_path, probe("during draw step of P: each x where x.controller is P: untap x",
                                "skip combat damage step of P where count(x where x.attacking) < 1")).assemble()
    assert book.turn == default_turn() == load_version("2026-09-25").turn
    assert [p.name for p in book.turn.phases] == ["beginning phase", "precombat main phase", "combat phase",
                                                  "postcombat main phase", "ending phase"]


def test_a_turn_declared_twice_is_an_error_at_the_second(tmp_path):
    """A rulebook has one turn (500.1): a second `turn { ... }` is an error at it, whose hint
    points at the first."""
    twice = "\nturn {\n  main phase\n}\n\nturn {\n  other phase\n}\n"
    with pytest.raises(DiagnosticError) as info:
        Book(tmp_path, twice).assemble()
    d = the_error(info.value.diagnostics, "the turn is declared twice")
    assert_at(d, tmp_path / "version" / "rules.rules", *where(RULES + twice, "turn {\n  other"))
    assert f"rules.rules:{where(RULES + twice, 'turn {')[0]}" in d.hint


@pytest.mark.parametrize("turn", [
    "turn {\n  beginning phase: untap step, upkeep step, untap step\n  main phase\n}\n",
    "turn {\n  beginning phase: untap step, upkeep step\n  main phase\n  no priority: untp step\n}\n",
])
def test_a_turn_declaration_naming_a_step_twice_or_an_undeclared_step_is_an_error(tmp_path, turn):
    """500.1: a turn names each of its steps once, and says where no player gets priority
    (502.4) of steps it declares: anything else is an error of the declaration."""
    (tmp_path / "version").mkdir()
    (tmp_path / "version" / "turn.rules").write_text(turn, encoding="utf-8")
    with pytest.raises(DiagnosticError):
        Book(tmp_path).assemble()


def test_forbid_and_skip_clauses_are_accepted_with_what_they_bind(tmp_path):
    """508.1c and 509.1b (restrictions on attacking and blocking) bind the creatures they name;
    508.8 (a step skipped) binds the player whose turn it is, as `during` does."""
    extra = probe("forbid attack by a where a.tapped and a.power < 1",
                  "forbid block of a by b where a has flying and not b has flying and not b has reach",
                  "skip combat damage step of P where count(x where x.attacking and x.controller is P) < 1",
                  "during combat damage step of P: deal combat damage")
    book = Book(tmp_path, extra).assemble()
    clauses = book.rule("probe").clauses
    assert [type(c).__name__ for c in clauses] == ["ForbidAttack", "ForbidBlock", "SkipStep", "During"]


@pytest.mark.parametrize("clause, fragment, needle", [
    ("forbid block of a by a where a.tapped", "'a' names both the attacker and the blocker", "forbid block of a by a"),
    ("forbid attack by a where a.wobble", "unknown attribute 'wobble'", "a.wobble"),
    ("forbid block of a by b where c.tapped", "unknown name 'c'", "c.tapped"),
    ("skip draw step where P.life < 1", "unknown name 'P'", "P.life"),
])
def test_a_forbid_or_skip_clause_is_checked_at_its_mistake(tmp_path, clause, fragment, needle):
    """509.1b: a restriction on blocking names two creatures apart (one creature blocking
    itself is none); the conditions of `forbid` and `skip` (508.8) are checked with what the
    clause binds and nothing else: a name it does not bind is unknown at the name."""
    b = Book(tmp_path, probe(clause))
    d = b.error_at(fragment, needle)
    assert d.hint


def test_a_card_s_forbid_entry_is_checked_as_a_rule_s_is(tmp_path):
    """702.9b-style restrictions a card states (509.1b): checked with its creatures bound, and
    `this` (the card's permanent); a mistake in it is an error at the mistake."""
    from phasing_rules.dsl.checker import check_cards

    text = ('card "Wall of Probes" {\n  types creature wall\n  pt 0/4\n'
            "  forbid attack by a where a is this\n"
            "  forbid block of a by b where b is this and a.wobble\n}\n")
    path = tmp_path / "forbid.rules"
    path.write_text(text, encoding="utf-8")
    cards = list(parse_file(path).items)
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    d = the_error(found, "unknown attribute 'wobble'")
    assert_at(d, path, *where(text, "a.wobble"))
    assert len(found) == 1, found
