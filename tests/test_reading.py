"""Reading rules: `phasing show VERSION BLOCK...`, `phasing history SLUG` and `show --cr FILE`
(issue 15, item 3).

The Comprehensive Rules file used here, tests/fixtures/cr-sample.txt, is written in the CR's
plain-text format with made-up sentences: the project ships no CR wording.
"""

from __future__ import annotations

import json
from pathlib import Path

from phasing_rules.interpreter.tools import reading
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import available_versions

ROOT = Path(__file__).resolve().parent.parent
CR = ROOT / "tests" / "fixtures" / "cr-sample.txt"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ------------------------------------------------------------------ show VERSION BLOCK...


def test_show_one_block_by_id_prints_that_block_only(capsys):
    status, out, err = run(capsys, "show", "2026-09-25", "702.26g")
    assert status == 0, err
    assert out.startswith('rule 702.26g indirect-phasing "')
    assert out.count("rule ") == 1  # no other block
    assert "status " not in out and "# " not in out  # nor the title, statuses and verbs of a whole rulebook
    assert out.rstrip().endswith("}")


def test_a_slug_selects_the_same_block_as_its_id(capsys):
    _, by_id, _ = run(capsys, "show", "2026-09-25", "702.26g")
    status, by_slug, _ = run(capsys, "show", "2026-09-25", "indirect-phasing")
    assert status == 0
    assert by_slug == by_id


def test_blocks_print_in_the_order_given_and_each_once(capsys):
    status, out, _ = run(capsys, "show", "2026-09-25", "702.26h", "502.3", "indirect-wins")
    assert status == 0
    assert out.count("rule ") == 2  # 702.26h and indirect-wins are the same block
    assert out.index("rule 702.26h indirect-wins") < out.index("rule 502.3 untap-permanents")


def test_a_block_is_printed_in_the_numbering_of_the_version_asked_for(capsys):
    # the same block is 702.25f in 2017-07-08 (phasing was 702.25 before the 2021 renumbering)
    status, out, _ = run(capsys, "show", "2017-07-08", "indirect-phasing")
    assert status == 0
    assert out.startswith("rule 702.25f indirect-phasing")


def test_an_unknown_block_is_an_error_naming_the_version_and_the_nearest_slug(capsys):
    status, out, err = run(capsys, "show", "2026-09-25", "indirect-phasin")
    assert status == 1
    assert out == ""  # nothing printed before the error
    assert "'indirect-phasin' is no block of 2026-09-25" in err
    assert "did you mean 'indirect-phasing'" in err


def test_an_unknown_id_suggests_the_nearest_ids(capsys):
    status, _, err = run(capsys, "show", "2026-09-25", "702.26z")
    assert status == 1
    assert "no block of 2026-09-25" in err and "702.26p" in err


def test_every_unknown_block_is_named_even_when_others_are_known(capsys):
    status, out, err = run(capsys, "show", "2026-09-25", "702.26g", "nope-one", "nope-two")
    assert status == 1 and out == ""
    assert "'nope-one'" in err and "'nope-two'" in err


def test_a_block_where_the_version_belongs_says_to_name_the_version_first(capsys):
    status, out, err = run(capsys, "show", "702.26g")
    assert status == 1 and out == ""
    assert "'702.26g' is a block, not a version" in err
    assert f"phasing show {available_versions()[-1]} 702.26g" in err


def test_an_unknown_version_with_blocks_is_still_an_unknown_version(capsys):
    status, _, err = run(capsys, "show", "1999-01-01", "702.26g")
    assert status == 1
    assert "unknown rules version or variant '1999-01-01'" in err


def test_show_blocks_as_json(capsys):
    status, out, _ = run(capsys, "show", "2026-09-25", "indirect-phasing", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["version"] == "2026-09-25"
    assert [(b["id"], b["slug"], b["kind"]) for b in data["blocks"]] == [("702.26g", "indirect-phasing", "operative")]
    assert data["blocks"][0]["text"].startswith("rule 702.26g indirect-phasing")


def test_show_an_unknown_block_as_json_prints_the_error_as_json(capsys):
    status, out, _ = run(capsys, "show", "2026-09-25", "nope", "--json")
    assert status == 1
    assert "is no block of 2026-09-25" in json.loads(out)["errors"][0]["message"]


# ------------------------------------------------------------------ history SLUG


def test_history_covers_every_version_the_block_is_in():
    found = reading.history("indirect-phasing")
    covered = [v for stage in found.stages for v in stage.versions]
    assert covered == available_versions()  # in every shipped version, in date order
    assert found.absent == ()


def test_history_groups_consecutive_versions_that_print_the_same():
    found = reading.history("indirect-phasing")
    newest = found.stages[-1]
    # 702.26g has printed the same since phasing became 702.26 (2021-04-22)
    assert newest.versions == ("2021-04-22", "2022-10-07", "2025-02-07", "2026-09-25")
    assert newest.changes == ("renumbered",) and (newest.since_id, newest.rule.id) == ("702.25g", "702.26g")
    for a, b in zip(found.stages, found.stages[1:]):  # each group differs from the one before
        assert a.versions[-1] == b.since and b.changes


def test_history_marks_a_change_of_meaning():
    found = reading.history("indirect-phasing")
    # 2005's 502.15i moved objects to a zone; from the Magic 2010 update (702.23f, the
    # reconstructed 2009-07-10 version) it sets a status instead
    second = found.stages[1]
    assert second.since == "2005-02-01" and second.versions[:2] == ("2009-07-10", "2011-02-04")
    assert "changed" in second.changes and "renumbered" in second.changes


def test_history_marks_a_block_only_reworded():
    found = reading.history("no-zone-change")
    reworded = [s for s in found.stages if s.changes == ("reworded",)]
    assert [s.versions[0] for s in reworded] == ["2017-08-25"]  # summary reworded, clauses the same


def test_history_says_an_order_follows_a_block_added_not_a_change_of_meaning(capsys):
    """502.1 (untap-step-order) and 800.4a (leaving-player) read the same in CR 2018-07-13 as
    in 2017-09-29 (800.4a only "he or she" -> "they"); their `order` clauses take in 702.25m,
    the block 2018-07-13 adds. History said MEANING CHANGED; it says the order follows it."""
    for slug in ("untap-step-order", "leaving-player"):
        [stage] = [s for s in reading.history(slug).stages if s.versions[0] == "2018-07-13"]
        assert stage.since == "2017-09-29" and "changed" not in stage.changes
        assert "follows" in stage.changes and stage.follows == ("added 702.25m",)
    status, out, _ = run(capsys, "history", "untap-step-order")
    assert status == 0 and "MEANING CHANGED" not in out
    assert "== 2018-07-13 (1 version); since 2017-09-29: order follows added 702.25m (same meaning)" in out
    assert "  order untap step: 702.25a, 702.25m, 502.2" in out  # the new order is printed in full
    status, out, _ = run(capsys, "history", "leaving-player", "--json")
    [stage] = [s for s in json.loads(out)["stages"] if s["from"] == "2018-07-13"]
    assert stage["changes"] == ["follows", "clause labels changed"] and stage["follows"] == ["added 702.25m"]


def test_history_lists_the_versions_without_the_block():
    found = reading.history("phase-out-until")
    assert found.absent and set(found.absent).isdisjoint(v for s in found.stages for v in s.versions)
    assert sorted(found.absent + tuple(v for s in found.stages for v in s.versions)) == available_versions()


def test_history_command_prints_each_group_under_its_dates(capsys):
    status, out, err = run(capsys, "history", "indirect-phasing")
    assert status == 0, err
    assert "History of indirect-phasing: in 15 of 15 versions" in out
    assert "== 2005-02-01 (1 version); first version with it" in out
    assert "== 2009-07-10 .. 2011-02-04 (2 versions); since 2005-02-01: renumbered 502.15i -> 702.23f, summary reworded, MEANING CHANGED" in out
    assert "== 2021-04-22 .. 2026-09-25 (4 versions); since 2020-08-07: renumbered 702.25g -> 702.26g" in out
    assert "Not in:" not in out
    # a group that differs only in its head line shows the head and points at the clauses above
    assert 'rule 702.26g indirect-phasing "Auras' in out and "(clauses as shown for 2009-07-10 .. 2011-02-04)" in out
    assert out.count("as x.phase becomes out") == 1  # the 2011-2026 clauses are printed once


def test_history_command_says_where_the_block_is_missing(capsys):
    status, out, _ = run(capsys, "history", "phase-out-until")
    assert status == 0
    assert "Not in: 2005-02-01, " in out


def test_history_as_json(capsys):
    status, out, _ = run(capsys, "history", "indirect-phasing", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["slug"] == "indirect-phasing" and data["absent"] == []
    assert data["stages"][-1]["to"] == "2026-09-25" and data["stages"][-1]["id"] == "702.26g"
    assert data["stages"][0]["changes"] == [] and data["stages"][0]["since"] is None


def test_history_of_an_unknown_slug_names_the_nearest(capsys):
    status, out, err = run(capsys, "history", "indirect-phasin")
    assert status == 1 and out == ""
    assert "no version has a block with the slug 'indirect-phasin'" in err
    assert "did you mean 'indirect-phasing'" in err


def test_history_of_an_id_says_which_slug_it_is(capsys):
    status, _, err = run(capsys, "history", "702.26g")
    assert status == 1
    assert "it numbers the block indirect-phasing in 2021-04-22 .. 2026-09-25: phasing history indirect-phasing" in err


# ------------------------------------------------------------------ show --cr FILE


def test_cr_text_is_printed_under_each_block(capsys):
    status, out, err = run(capsys, "show", "2026-09-25", "502.3", "702.26g", "--cr", str(CR))
    assert status == 0, err
    block_end = out.index("}\n", out.index("rule 502.3"))
    assert out[block_end:].startswith("}\n  CR 502.3: Sample sentence for the untap-step rule, written for the tests.")
    # the example paragraph after 702.26g belongs to it; the glossary's mention of 702.26g does not
    assert "  CR 702.26g: Sample sentence about things that are attached going along" in out
    assert "    Example: A made-up example line that belongs to the rule above." in out
    assert "glossary" not in out


def test_cr_reader_reads_the_date_past_a_byte_order_mark_and_the_rule_lines():
    assert CR.read_bytes().startswith(b"\xef\xbb\xbf")  # the fixture has a byte-order mark
    cr = reading.read_cr(CR)
    assert cr.date == "2026-09-25"
    assert cr.text("702.26h") == "Sample sentence for the next lettered rule."
    assert cr.text("702.26") == "Sample heading"  # a rule number written with its closing dot
    assert cr.text("702") is None  # a section heading is no rule


def test_cr_file_with_windows_line_ends_and_the_date_on_its_first_line(tmp_path):
    path = tmp_path / "cr.txt"
    path.write_bytes("\ufeffThese rules are effective as of February 7, 2025.\r\n\r\n702.26g Made up.\r\n".encode())
    cr = reading.read_cr(path)
    assert (cr.date, cr.text("702.26g")) == ("2025-02-07", "Made up.")
    assert cr.text("702.26g") == "Made up."  # no carriage return kept
    assert (cr.date_span.line, cr.date_span.column) == (1, 17)  # the mark is no column of the line


def test_cr_of_another_release_is_an_error_naming_both_dates(capsys):
    status, out, err = run(capsys, "show", "2025-02-07", "702.26g", "--cr", str(CR))
    assert status == 1 and out == ""
    assert "the Comprehensive Rules file is the release of 2026-09-25, not of 2025-02-07" in err
    assert f"{CR}:3:17:" in err  # pointing at the date line
    assert "phasing show 2026-09-25" in err  # the version that file goes with


def test_cr_of_a_release_no_version_is_dated_goes_with_the_version_in_force(capsys, tmp_path):
    """A release dated between two versions (2026-08-07: no version of this model has that
    date) was in force while the older one (2025-02-07) was the newest: `show 2025-02-07 --cr`
    takes it, with a line saying so; `show 2026-09-25 --cr` refuses it and names 2025-02-07."""
    path = tmp_path / "cr.txt"
    path.write_text("These rules are effective as of August 7, 2026.\n\n702.26g Made up.\n", encoding="utf-8")
    status, out, err = run(capsys, "show", "2025-02-07", "702.26g", "--cr", str(path))
    assert status == 0, err
    assert out.startswith("# the Comprehensive Rules file is the release of 2026-08-07; no version of this model "
                          "is dated then, and 2025-02-07, the newest before it, stands for it\n")
    assert "  CR 702.26g: Made up." in out
    status, out, err = run(capsys, "show", "2026-09-25", "702.26g", "--cr", str(path))
    assert status == 1 and out == ""
    assert "the Comprehensive Rules file is the release of 2026-08-07, not of 2026-09-25" in err
    assert f"phasing show 2025-02-07 ... --cr {path}" in err
    status, out, err = run(capsys, "show", "2025-02-07", "702.26g", "--cr", str(path), "--json")
    assert status == 0 and '"cr_note": "the Comprehensive Rules file is the release of 2026-08-07;' in out


def test_cr_with_a_variant_matches_the_version_it_is_built_on(capsys):
    # end-step-no-indirect extends end-step-phasing, which extends 2026-09-25
    status, out, err = run(capsys, "show", "end-step-no-indirect", "502.3", "--cr", str(CR))
    assert status == 0, err
    assert "  CR 502.3: Sample sentence for the untap-step rule, written for the tests." in out


def test_cr_without_a_date_line_says_what_was_looked_for(capsys, tmp_path):
    path = tmp_path / "undated.txt"
    path.write_text("Some rules\n\n702.26g Made up.\n", encoding="utf-8")
    status, _, err = run(capsys, "show", "2026-09-25", "702.26g", "--cr", str(path))
    assert status == 1
    assert "no 'effective as of' date line" in err
    assert "These rules are effective as of MONTH DAY, YEAR." in err


def test_cr_with_an_impossible_date_is_a_positioned_error(capsys, tmp_path):
    path = tmp_path / "bad-date.txt"
    path.write_text("Title\nThese rules are effective as of February 30, 2026.\n702.26g Made up.\n", encoding="utf-8")
    status, _, err = run(capsys, "show", "2026-09-25", "--cr", str(path))
    assert status == 1
    assert f"{path}:2:" in err and "February 30, 2026 is not a date" in err


def test_cr_that_is_not_utf8_is_a_positioned_error(capsys, tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"These rules are effective as of September 25, 2026.\n702.26g Caf\xe9.\n")
    status, _, err = run(capsys, "show", "2026-09-25", "--cr", str(path))
    assert status == 1
    assert f"{path}:2:12:" in err and "not UTF-8" in err


def test_cr_file_that_does_not_exist_is_an_error(capsys, tmp_path):
    status, _, err = run(capsys, "show", "2026-09-25", "702.26g", "--cr", str(tmp_path / "missing.txt"))
    assert status == 1
    assert "missing.txt" in err


def test_cr_without_rule_lines_is_an_error(capsys, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("These rules are effective as of September 25, 2026.\n\nNo rules here.\n", encoding="utf-8")
    status, _, err = run(capsys, "show", "2026-09-25", "--cr", str(path))
    assert status == 1
    assert "no rule found" in err


def test_a_block_whose_id_is_not_in_the_cr_file_says_so(capsys):
    status, out, _ = run(capsys, "show", "2026-09-25", "702.26b", "--cr", str(CR))
    assert status == 0
    assert f"  CR 702.26b: (no rule 702.26b in {CR})" in out


def test_cr_text_in_json(capsys):
    status, out, _ = run(capsys, "show", "2026-09-25", "702.26h", "--cr", str(CR), "--json")
    assert status == 0
    data = json.loads(out)
    assert data["cr"] == "2026-09-25"
    assert data["blocks"][0]["cr"] == "Sample sentence for the next lettered rule."


def test_cr_on_a_whole_rulebook_puts_each_blocks_text_under_it(capsys):
    status, out, _ = run(capsys, "show", "2026-09-25", "--cr", str(CR))
    assert status == 0
    assert out.startswith("# ")  # the whole rulebook, as without --cr
    assert out.count("  CR ") == out.count("\nrule ")  # one CR line per block


def test_the_first_text_of_a_rule_number_is_its_text(tmp_path):
    path = tmp_path / "cr.txt"
    path.write_text("These rules are effective as of September 25, 2026.\n\n702.26g Made up, in the rules.\n\n"
                    "Index\n\n702.26g a later line that only names the number\n", encoding="utf-8")
    assert reading.read_cr(path).text("702.26g") == "Made up, in the rules."


def test_cr_larger_than_the_limit_is_an_error_before_it_is_read_whole(capsys, tmp_path, monkeypatch):
    path = tmp_path / "big.txt"
    path.write_text("These rules are effective as of September 25, 2026.\n\n702.26g Made up.\n", encoding="utf-8")
    monkeypatch.setattr(reading, "CR_LIMIT", 40)  # the file is longer than 40 bytes
    status, _, err = run(capsys, "show", "2026-09-25", "--cr", str(path))
    assert status == 1
    assert "the Comprehensive Rules file is larger than" in err


def test_an_empty_block_or_slug_is_a_usage_error(capsys):
    status, _, err = run(capsys, "show", "2026-09-25", "")
    assert status == 1 and "'' is not a block id or slug" in err
    status, _, err = run(capsys, "history", " ")
    assert status == 1 and "' ' is not a block id or slug" in err
