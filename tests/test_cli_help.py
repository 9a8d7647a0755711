"""A command line that shows its work (issue 45, item 5): every command's --help describes each
of its arguments and shows examples; `versions` gives one line a version; the trace and `why`
name an amend's file with its folder; and a rule file given to `run` or `test` is said to be
one."""

from __future__ import annotations

import argparse
import re

import pytest

from phasing_rules.interpreter import cli


def run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"phasing": parser, **sub.choices}


# ------------------------------------------------------------------ --help


@pytest.mark.parametrize("name", list(commands()))
def test_every_positional_has_help_and_every_help_has_examples(name, capsys):
    """Each command's --help describes every positional argument (`diff`'s A and B, `show`'s
    VERSION, ...) and ends with an `examples:` section of `phasing ...` lines."""
    parser = commands()[name]
    undescribed = [a.dest for a in parser._actions if not a.option_strings and not a.help]
    assert undescribed == []
    argv = ["--help"] if name == "phasing" else [name, "--help"]
    status, out, _err = run(capsys, *argv)
    assert status == 0
    examples = out.split("\nexamples:\n", 1)
    assert len(examples) == 2, out
    lines = [line for line in examples[1].splitlines() if line.strip()]
    assert lines and all(re.match(r"  (phasing |eval \"\$\(phasing )", line) for line in lines), lines
    if name != "phasing":
        assert any(line.startswith(f"  phasing {name}") for line in lines)


# ------------------------------------------------------------------ versions


def table_rows(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("│ ")]


def test_versions_gives_one_line_a_version_and_long_the_whole_notes(capsys, monkeypatch):
    """`versions` prints one line for each version and variant, its notes cut to their first
    sentence (2005-02-01's notes run to many lines); `--long` prints them whole, as before."""
    monkeypatch.setattr(cli, "out", cli._console(width=160))
    status, out, err = run(capsys, "versions")
    rows = table_rows(out)
    names = [row.split("│")[1].strip() for row in rows]
    assert names and all(names)  # (no row runs on to a second line, whose first cell is blank)
    first = next(row for row in rows if row.startswith("│ 2005-02-01 "))
    assert "Exact effective date unverified." in first and "Arcana" not in first
    assert all(len(row) <= 160 for row in rows)
    status, long_out, err = run(capsys, "versions", "--long")
    assert len(table_rows(long_out)) > len(rows) and "Arcana" in long_out


def test_first_sentence_and_cut():
    """The summary is the notes' first sentence (a full stop inside a rule number does not
    end it), cut at a word with " ..." when the line has no room for it."""
    assert cli.first_sentence("Phasing is 702.23; the example. More.") == "Phasing is 702.23; the example."
    assert cli.first_sentence("no full stop") == "no full stop"
    assert cli.cut_to("one two three four", 12) == "one two ..."
    assert cli.cut_to("short", 12) == "short"


# ------------------------------------------------------------------ where an amend is

VERSION = """\
version 2030-01-01 {
  title "A later text"
  extends 2026-09-25
  note "Auras alone go along."
}

amend 702.26g {
  replace clause attachments-go-along: as x.phase becomes out: each y where y.attached_to is x and y is an aura: {
    set y.phase = out, y.phased_indirectly = true
  }
}
"""

AURA = """\
scenario "an Aura goes along with the creature it enchants" {
  rules from 2011-02-04
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to bear
  script {
    cast "Slip Away" by Alice targeting bear
    expect strength.phase is out
  }
}
"""


def test_the_trace_and_why_name_an_amends_file_with_its_version_folder(tmp_path, capsys):
    """Every version folder has a version.rules: an amend in one is named
    `2030-01-01/version.rules:8` (relative to the rules-path folder), not `version.rules:8`."""
    folder = tmp_path / "rules" / "2030-01-01"
    folder.mkdir(parents=True)
    (folder / "version.rules").write_text(VERSION, encoding="utf-8")
    scenario = tmp_path / "aura.scenario"
    scenario.write_text(AURA, encoding="utf-8")
    common = ("--rules-path", tmp_path / "rules", "--rules", "2030-01-01")
    status, out, err = run(capsys, "why", scenario, "strength", *common)
    assert status == 0, err
    assert "amended by 2030-01-01 at 2030-01-01/version.rules:8)" in out
    status, out, err = run(capsys, "run", scenario, "--trace", *common)
    assert status == 0, err
    assert "[702.26g indirect-phasing, amended by 2030-01-01 at 2030-01-01/version.rules:8]" in out


def test_a_shipped_variants_amend_is_named_by_its_file(capsys):
    """A variant is found by its file's name in the variants folder: its amend is named so."""
    from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, rule_file_place

    assert rule_file_place(str(RULES_ROOT / "variants" / "end-step-phasing.rules")) == "end-step-phasing.rules"
    assert rule_file_place(str(RULES_ROOT / "2026-09-25" / "version.rules")) == "2026-09-25/version.rules"
    assert rule_file_place("/somewhere/else/mine.rules") == "/somewhere/else/mine.rules"


# ------------------------------------------------------------------ a rule file where a scenario belongs


@pytest.mark.parametrize("command", ["run", "test"])
def test_a_rule_file_given_to_run_or_test_is_said_to_be_one(command, tmp_path, capsys):
    """`phasing run FILE.rules` (here one holding an amend) says plainly it is given a rule
    file, at the file, with a hint to `phasing check`; not "'amend ...' in a scenario file"."""
    path = tmp_path / "mine.rules"
    path.write_text('amend 702.26a {\n  summary "x"\n}\n', encoding="utf-8")
    status, out, err = run(capsys, command, path)
    assert status == 1
    assert f"{path}: error: {path} is a rule file, not a scenario file" in err
    assert "hint: a scenario file ends in .scenario; check a rule file with `phasing check FILE`" in err
    assert "in a scenario file" not in err
