"""Clause labels and `amend` (issue 15, item 8): a variant changes one clause of an inherited
block without restating the block.

The shipped end-step-phasing variant amends 702.26a (its summary and its clause
phase-out-and-in) instead of restating it; it must play every scenario of the suite exactly
as the whole restatement it replaced does. Every mistake in an amend is a positioned error;
the amended block keeps its id and slug, and what the amend wrote is traced to its file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.dsl import codec
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.parser import parse, parse_file
from phasing_rules.dsl.printer import clause_lines, item_lines, labelled_lines, print_module
from phasing_rules.interpreter import api, cli
from phasing_rules.interpreter.tools import reading, why
from phasing_rules.interpreter.tools.compare import comparable, rulebook_diff
from phasing_rules.interpreter.rulebook.loading import VARIANTS_DIR, load_version
from phasing_rules.interpreter.play.suite import collect, run_case

SUITE = Path(__file__).resolve().parent / "scenarios"

# end-step-phasing as it was before it used `amend`: 702.26a restated whole, with only the
# hook of its first clause (and its summary) changed, and the untap step's order (502.1)
# without it, as end-step-phasing has it.
RESTATED = """\
variant end-step-restated {
  title "Phasing in the end step (restated)"
  extends 2026-09-25
}

rule 702.26a untap-step-phasing "In its controller's end step, a phased-in permanent with phasing phases out while everything that phased out under that player phases in, all at once." {
  during end step of P: simultaneously {
    each x where x.phase is in and x has phasing and x.controller is P: do phase_out x
    each x where x.phase is out and x.phased_out_under is P and not x.phased_indirectly: do phase_in x
  }
  as x.phase becomes out: set x.phased_out_under = x.controller
  as x.phase becomes in: set x.phased_out_under = none
  assert always x: x.phase is in or x.phased_out_under is not none
}

rule 502.1 untap-step-order "The untap step begins with what phases in for a player who left the game, before anything untaps; phasing itself happens in the end step." {
  order untap step: 702.26n, 502.3
}
"""

HEAD = "variant mine {\n  extends 2026-09-25\n}\n\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path) -> list:
    with pytest.raises(DiagnosticError) as caught:
        load_version(str(path))
    return caught.value.diagnostics


def unlabelled(rule):
    return [line for c in rule.clauses for line in clause_lines(c)]


# ------------------------------------------------------------------ the same rules as a restatement


def test_the_amended_block_is_the_restated_block(tmp_path):
    """702.26a under end-step-phasing: the restatement's summary and clauses, in the same
    order, under its own id and slug; only the labels (inherited) tell them apart."""
    amended = load_version("end-step-phasing").rule("untap-step-phasing")
    restated = load_version(str(write(tmp_path, "end-step-restated.rules", RESTATED))).rule("untap-step-phasing")
    assert (amended.id, amended.slug, amended.summary) == (restated.id, restated.slug, restated.summary)
    assert unlabelled(amended) == unlabelled(restated)
    assert [c.label for c in amended.clauses] == ["phase-out-and-in", "remember-controller", "forget-controller",
                                                   "out-under-someone"]
    assert amended.span.path.endswith("702.26.rules")  # the block is still 2026-09-25's ...
    assert amended.clauses[0].span.path.endswith("end-step-phasing.rules")  # ... its new clause the variant's
    assert amended.clauses[1].span.path.endswith("702.26.rules")


def without_provenance(detail: str) -> str:
    """An event's text without the ", amended by VARIANT at FILE:LINE" that credits a clause
    an amend wrote: the restatement has no amend to name, and is otherwise the same."""
    return re.sub(r", amended by [^ ]+ at [^ )]+", "", detail)


@pytest.mark.slow
def test_the_amend_plays_the_suite_as_the_restatement_does(tmp_path):
    """Every scenario of the suite ends the same way, event for event, under the amending
    variant and under the whole restatement (702.26a in the end step either way)."""
    amended = load_version("end-step-phasing")
    restated = load_version(str(write(tmp_path, "end-step-restated.rules", RESTATED)))
    cases, problems = collect([SUITE])
    assert cases and not problems
    statuses = set(amended.statuses)
    parted = 0
    for case in cases:
        # (the restatement judged by the expectations written for end-step-phasing)
        a, b = run_case(case, amended), run_case(case, restated, judge="end-step-phasing")
        assert comparable(a, statuses) == comparable(b, statuses), case.scenario.name
        assert a.expectations == b.expectations, case.scenario.name
        assert [(e.kind, e.subject, without_provenance(e.detail), e.cause.id) for e in a.trace] == \
               [(e.kind, e.subject, e.detail, e.cause.id) for e in b.trace], case.scenario.name
        parted += comparable(a, statuses) != comparable(run_case(case, load_version("2026-09-25")), statuses)
    assert parted, "no scenario tells the end-step rules from 2026-09-25's: the comparison shows nothing"


def test_diff_shows_the_one_labelled_clause_that_changed():
    """The diff from 2026-09-25 names the changed clause of 702.26a by its label (and shows
    502.1, whose untap-step order no longer names 702.26a, as the other change)."""
    changes = {c.slug: c for c in rulebook_diff(load_version("2026-09-25"), load_version("end-step-phasing"))}
    assert set(changes) == {"untap-step-phasing", "untap-step-order"}
    change = changes["untap-step-phasing"]
    assert "changed" in change.kinds
    [clause] = change.clauses
    assert (clause.kind, clause.label, clause.name) == (
        "changed", "phase-out-and-in", "phase-out-and-in (during untap step -> during end step)")


def test_a_stacked_variant_inherits_the_amended_block():
    """end-step-no-indirect extends end-step-phasing: its 702.26a is the amended one, and it
    still says who amended it."""
    book = load_version("end-step-no-indirect")
    rule = book.rule("702.26a")
    assert rule.clauses[0] == load_version("end-step-phasing").rule("702.26a").clauses[0]
    assert book.amended_by(rule).by == "end-step-phasing"


# ------------------------------------------------------------------ what each entry does


AMEND_ALL = HEAD + """\
amend 702.26g {
  summary "Only Auras phase out with their permanent."
  replace clause attachments-go-along: as x.phase becomes out: each y where y.attached_to is x and y is an aura: {
    set y.phase = out, y.phased_indirectly = true
  }
  drop clause clear-indirect-mark
  add clause clear-mark-later: as x.phase becomes in: set x.phased_indirectly = false
}
"""


def test_each_entry_in_order(tmp_path):
    """summary replaced; replace keeps the clause's place; drop removes; add appends; the
    block is named by rule id and keeps id and slug (702.26g)."""
    book = load_version(str(write(tmp_path, "mine.rules", AMEND_ALL)))
    rule = book.rule("indirect-phasing")
    assert (rule.id, rule.summary) == ("702.26g", "Only Auras phase out with their permanent.")
    assert [c.label for c in rule.clauses] == ["attachments-go-along", "attachments-return-along", "out-with-its-host",
                                                   "clear-mark-later"]
    assert "y is an aura" in clause_lines(rule.clauses[0])[0]
    amendment = book.amended_by(rule)
    assert amendment.by == "mine" and amendment.span.line == 5
    assert [text for text, _span in amendment.changes] == [
        "summary", "replace clause attachments-go-along", "drop clause clear-indirect-mark", "add clause clear-mark-later"]
    assert book.amended_by(rule, rule.clauses[1]) is None  # inherited as it was


def test_show_names_the_amend(tmp_path, capsys):
    """`show` prints the amended block after a comment saying who amended it, where."""
    path = write(tmp_path, "mine.rules", AMEND_ALL)
    assert cli.main(["show", str(path), "702.26g"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# amended by mine in {path}: summary (line 6), replace clause attachments-go-along "
                          "(line 7), drop clause clear-indirect-mark (line 10), add clause clear-mark-later (line 11)\n")
    assert "  clause clear-mark-later: as x.phase becomes in: set x.phased_indirectly = false" in out
    parse(out, "<shown>")  # what show prints still reads as rule text
    assert cli.main(["show", str(path), "702.26g", "--json"]) == 0
    [block] = json.loads(capsys.readouterr().out)["blocks"]
    assert block["amended"][0]["by"] == "mine" and block["amended"][0]["changes"][-1] == {
        "change": "add clause clear-mark-later", "line": 11}


def test_the_trace_and_why_name_the_variant_file_and_line():
    """The end-step change of phase is caused by 702.26a, through the clause the variant's
    amend wrote (end-step-phasing.rules, line 12)."""
    [case] = [c for c in collect([SUITE / "variants.scenario"])[0] if c.scenario.name.startswith("phasing in the end")]
    outcome = run_case(case, load_version("end-step-phasing"))
    step = [e for e in outcome.trace if e.subject == "djinn" and e.kind == "change" and e.cause.id == "702.26a"
            and e.values()["attr"] == "phase"]
    assert step and all(e.cause.origin == "amended by end-step-phasing at end-step-phasing.rules:12" for e in step)
    assert "[702.26a untap-step-phasing, amended by end-step-phasing at end-step-phasing.rules:12] djinn: phase:" \
        in step[0].render()
    assert step[0].to_json()["cause"]["origin"] == "amended by end-step-phasing at end-step-phasing.rules:12"
    answer = why.answer(case, "djinn", None, "end-step-phasing")
    assert any("amended by end-step-phasing at end-step-phasing.rules:12" in line for line in answer.lines)
    # the clauses the amend did not touch are the block's own
    kept = [e for e in outcome.trace if e.cause.id == "702.26a" and e.values().get("attr") == "phased_out_under"]
    assert kept and all(e.cause.origin == "" for e in kept)


def test_a_run_time_error_in_an_amended_clause_points_into_the_variant(tmp_path):
    """An assertion an amend adds (here one that cannot hold: a permanent that phased out is
    phased in) fails at its line in the variant file, naming the block."""
    path = write(tmp_path, "mine.rules", HEAD + """\
amend no-zone-change {
  add clause never: assert after x.phase becomes out: x.phase is in
}
""")
    [case] = [c for c in collect([SUITE / "variants.scenario"])[0] if c.scenario.name.startswith("phasing in the end")]
    outcome = run_case(case, load_version(str(path)))
    [failure] = [f for f in outcome.failures if "702.26d" in f.message]
    assert (failure.span.path, failure.span.line) == (str(path), 6)


# ------------------------------------------------------------------ mistakes


@pytest.mark.parametrize("body, line, message, hint", [
    ('amend indirect-phasin {\n  summary "x"\n}\n', 5, "'indirect-phasin' is no block mine inherits",
     "did you mean 'indirect-phasing'"),
    ("amend 702.26g {\n  replace clause attachments-go-alon: prefer phased_indirectly = true\n}\n", 6,
     "block 702.26g indirect-phasing has no clause labelled 'attachments-go-alon'",
     "did you mean 'attachments-go-along'"),
    ("amend 702.26g {\n  drop clause clear-mark\n}\n", 6, "has no clause labelled 'clear-mark'",
     "did you mean 'clear-indirect-mark'"),
    ("amend 702.26b {\n  drop clause hide\n}\n", 6, "702.26b treated-as-nonexistent has no clause labelled 'hide'",
     "has no labelled clause"),
    ("amend 702.26g {\n  add clause clear-indirect-mark: prefer phased_indirectly = true\n}\n", 6,
     "already has a clause labelled 'clear-indirect-mark'", "'replace clause clear-indirect-mark: ...' changes it"),
    ('amend 702.26g {\n  summary "a"\n  summary "b"\n}\n', 7, "the summary of indirect-phasing is given twice",
     "the first is at"),
    ('amend 702.26g {\n  summary "a"\n}\namend indirect-phasing {\n  summary "b"\n}\n', 8,
     "block indirect-phasing is amended twice in mine", "put all its changes there"),
    ("amend indirect-wins {\n}\n", 5, "this amend of indirect-wins changes nothing", "give it an entry"),
    ('amend 702.26h {\n  summary "a"\n}\n\nrule 702.26h indirect-wins "b" {\n  prefer phased_indirectly = true\n}\n', 5,
     "block indirect-wins is both restated (at", "amend it, or restate it whole"),
])
def test_a_mistake_in_an_amend_is_a_positioned_error(tmp_path, body, line, message, hint):
    path = write(tmp_path, "mine.rules", HEAD + body)
    [problem] = load_error(path)
    assert (problem.span.path, problem.span.line) == (str(path), line)
    assert message in problem.message, problem.message
    assert hint in problem.hint, problem.hint


def test_amending_a_block_the_manifest_drops_is_an_error(tmp_path):
    path = write(tmp_path, "mine.rules", """\
variant mine {
  extends 2026-09-25
  drop indirect-wins
  section 702.26 subrules a b c d e f g i j k m n p
}

amend indirect-wins {
  summary "x"
}
""")
    [problem] = load_error(path)
    assert problem.span.line == 7 and "since its manifest drops it" in problem.message


def test_amending_a_block_by_the_number_a_renumber_moved_it_from_names_the_renumber(tmp_path):
    """702.26g renumbered as 702.26z is no longer 702.26g: the error said '702.26g' was no
    block and hinted to amend a rule id of 2026-09-25 (which 702.26g is). It names the
    variant's own renumber, its line, and the block's new number and slug; amending by
    either is clean."""
    head = ("variant mine {\n  extends 2026-09-25\n  renumber 702.26g as 702.26z\n"
            "  section 702.26 subrules a b c d e f h i j k m n p z\n}\n\n")
    path = write(tmp_path, "mine.rules", head + 'amend 702.26g {\n  summary "x"\n}\n')
    [problem] = load_error(path)
    assert (problem.span.path, problem.span.line) == (str(path), 7)
    assert problem.message == ("'702.26g' numbers no block mine inherits: its own 'renumber 702.26g as 702.26z' "
                               "(line 3) moves indirect-phasing (702.26g in 2026-09-25) to 702.26z")
    assert "'amend 702.26z'" in problem.hint and "'amend indirect-phasing'" in problem.hint, problem.hint
    for name in ("702.26z", "indirect-phasing"):
        fixed = write(tmp_path, f"fixed-{name}.rules", head.replace("variant mine", "variant fixed")
                      + f'amend {name} {{\n  summary "x"\n}}\n')
        assert load_version(str(fixed)).rule("indirect-phasing").summary == "x"


def test_every_mistake_is_reported_at_once(tmp_path):
    path = write(tmp_path, "mine.rules", HEAD + "amend nope {\n}\namend 702.26g {\n  drop clause nope\n}\n")
    assert [p.span.line for p in load_error(path)] == [5, 8]


def test_an_amended_clause_is_checked_like_any_other(tmp_path):
    """A type mistake in a clause an amend writes is the checker's error, at its line."""
    path = write(tmp_path, "mine.rules", HEAD + "amend 702.26g {\n  replace clause clear-indirect-mark: "
                                               "as x.phase becomes in: set x.phased_indirectly = 3\n}\n")
    [problem] = load_error(path)
    assert problem.span.line == 6 and "phased_indirectly" in problem.message


def test_an_amend_where_nothing_is_inherited_is_an_error(tmp_path):
    """A version that extends nothing has no block to amend."""
    folder = tmp_path / "2030-01-01"
    folder.mkdir()
    write(folder, "version.rules", 'version 2030-01-01 {\n  title "x"\n}\n\namend 702.26a {\n  summary "x"\n}\n')
    [problem] = load_error(folder)
    assert problem.span.line == 5 and "which extends nothing" in problem.message


def test_an_amend_in_a_scenario_file_is_an_error(tmp_path, capsys):
    path = write(tmp_path, "s.scenario", 'amend 702.26a {\n  summary "x"\n}\n\nscenario "s" {\n  cites 702.26a\n'
                                         "  players Alice\n  script {\n    expect Alice.life is 20\n  }\n}\n")
    assert cli.main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1:1: error: 'amend 702.26a' in a scenario file" in err
    with pytest.raises(DiagnosticError, match="in a scenario file"):
        api.run_file(path)


def test_labels_are_one_per_clause_and_distinct_within_a_block():
    twice = 'rule 702.26a s "x" {\n  clause a: hide x where x.phase is out\n  clause a: prefer p = true\n}\n'
    with pytest.raises(DiagnosticError) as caught:
        parse(twice, "t.rules")
    [problem] = caught.value.diagnostics
    assert (problem.span.line, problem.message) == (3, "block 702.26a has two clauses labelled 'a'")
    with pytest.raises(DiagnosticError, match="this clause has two labels, 'a' and 'b'"):
        parse('rule 702.26a s "x" {\n  clause a: clause b: hide x where x.phase is out\n}\n', "t.rules")


# ------------------------------------------------------------------ the text and the cache


def test_the_shipped_amend_prints_and_parses_back_and_survives_the_cache():
    module = parse_file(VARIANTS_DIR / "end-step-phasing.rules")
    assert parse(print_module(module), "<printed>") == module
    assert codec.decode(codec.encode(module)) == module
    shipped = parse_file(Path(load_version("2026-09-25").rule("702.26a").span.path))
    assert codec.decode(codec.encode(shipped)) == shipped


def test_history_says_when_only_labels_changed(tmp_path, monkeypatch):
    """A block printed with labels where the version before had none is a new stage, marked
    as only relabelled (702.26p means the same)."""
    write(tmp_path, "labelled.rules", """\
variant labelled {
  extends 2026-09-25
}

rule 702.26p redundant-instances "Several instances of phasing on one permanent act as one." {
  clause at-most-once: assert during untap step of P: phase changes at most once
}
""")
    monkeypatch.setenv("PHASING_RULES_PATH", str(tmp_path))
    load_version.cache_clear()
    try:
        found = reading.history("redundant-instances", ["2026-09-25", "labelled"])
    finally:
        load_version.cache_clear()
    assert [s.changes for s in found.stages] == [(), (reading.LABELS,)]


def test_a_mistake_in_an_amend_fails_check_with_exit_1(tmp_path, capsys):
    path = write(tmp_path, "mine.rules", HEAD + "amend 702.26g {\n  drop clause clear-mark\n}\n")
    assert cli.main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:6:3: error: block 702.26g indirect-phasing has no clause labelled 'clear-mark'" in err
    assert "      drop clause clear-mark\n      ^^^^^^^^^^^^^^^^^^^^^^" in err
    assert "hint: did you mean 'clear-indirect-mark'?" in err


def test_an_amend_in_a_file_with_no_manifest_fails_check_at_the_amend(tmp_path, capsys):
    """An amend changes a block of the version a variant extends (702.26a's block here): a
    file with no manifest says of no version what it changes, so `check` reports it at the
    amend (it said "no problems found", and loading the file then failed elsewhere)."""
    path = write(tmp_path, "loose.rules", "amend untap-step-phasing {\n  summary \"Another summary.\"\n}\n")
    assert cli.main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1:1: error: amend untap-step-phasing: an amend changes a block of the version a variant " in err
    assert "hint: begin the file with a manifest: variant NAME" in err
    assert cli.main(["show", str(path)]) == 1  # loaded as a rulebook: the error names the file itself
    assert f"{path}: error: a version needs exactly one manifest, found 0" in capsys.readouterr().err


# ------------------------------------------------------------------ an invariant

LABELLED = [(r.slug, c.label) for r in load_version("2026-09-25").rules for c in r.clauses if c.label is not None]


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(LABELLED), st.booleans())
def test_replacing_a_clause_by_itself_changes_nothing(tmp_path_factory, target, by_id):
    """An amend that replaces a labelled clause of 2026-09-25 by its own text (naming the block
    by slug or by id) gives a rulebook that differs from 2026-09-25 in no block, and whose
    amended block prints as the original."""
    slug, label = target
    base = load_version("2026-09-25")
    rule = base.rule(slug)
    [clause] = [c for c in rule.clauses if c.label == label]
    text = "\n".join(labelled_lines(clause))
    path = write(tmp_path_factory.mktemp("same"), "mine.rules",
                 HEAD + f"amend {rule.id if by_id else slug} {{\n  replace {text}\n}}\n")
    book = load_version(str(path))
    assert rulebook_diff(base, book) == []
    assert item_lines(book.rule(slug)) == item_lines(rule)
    assert book.amended_by(book.rule(slug)).by == "mine"
