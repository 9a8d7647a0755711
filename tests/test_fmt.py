"""`phasing fmt` (issue 15 item 8): older forms rewritten to the current ones at the nodes'
positions, everything else kept byte for byte; a file that does not parse is never written.

The rewrites keep the tree (`do VERB`, `you draws`, `not (X is visible)`), or make the one
`dsl.migrate.migrated_tree` describes (a test of every value of a hiding status becomes
`including hidden`: both see phased-out permanents, CR 702.26b).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.migrate import Vocabulary, migrated_tree, rewrite
from dsl.parser import parse
from dsl.printer import print_module
from interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
PHASE = Vocabulary({"phase": ("in", "out"), "phased_indirectly": ("true", "false")}, frozenset({"phase"}))


def verb(body: str) -> str:
    return f"verb v x {{\n  {body}\n}}\n"


@pytest.mark.parametrize("old, new", [
    ("do phase_in x", "phase_in x"),
    ("do phase_in x, x", "phase_in x, x"),
    ("you draws 2", "you draw 2"),
    ("you gains 3 life", "you gain 3 life"),
    ("you gains control of x", "you gain control of x"),
    ("if not (x is visible): tap x", "if x is not visible: tap x"),
    ("if not (x.attached_to is visible): tap x", "if x.attached_to is not visible: tap x"),
    # 514.2's old way of reaching phased-out permanents (702.26b), whole and as one conjunct
    ("each y where y.phase is in or y.phase is out: tap y", "each y including hidden: tap y"),
    ("each y where (y.phase is out or y.phase is in) and y.tapped: tap y",
     "each y including hidden where y.tapped: tap y"),
    ("each y where y.tapped and (y.phase is out or y.phase is in) and (y.token or y.tapped): tap y",
     "each y including hidden where y.tapped and (y.token or y.tapped): tap y"),
    ("if count(y where y.phase is in or y.phase is out) > 1: tap x", "if count(y including hidden) > 1: tap x"),
])
def test_an_old_form_is_rewritten_to_the_current_one(old, new):
    assert rewrite(verb(old), "v.rules", PHASE) == verb(new)


@pytest.mark.parametrize("text", [
    "P draws 2",  # the -s form for any subject but `you` is current
    "do tap x",  # a verb named like a word of the language keeps `do`
    "each y where y.phase is out: tap y",  # a test of one value selects phased-out ones only
    "each y where y.phased_indirectly is true or y.phased_indirectly is false: tap y",  # not a hiding status
    "each y where y.attached_to.phase is in or y.attached_to.phase is out: tap y",  # not the query's object
    "if not (x is visible and x.tapped): tap x",
])
def test_current_forms_and_look_alikes_are_left_alone(text):
    assert rewrite(verb(text), "v.rules", PHASE) == verb(text)


def test_comments_blank_lines_and_layout_are_kept_byte_for_byte():
    before = (
        "\ufeff# heading comment\r\n"
        "verb   v x    {   # after the brace\r\n"
        "\r\n"
        "    do   phase_in   x     # a call\r\n"
        "\t you draws 1 # tab-indented\r\n"
        "}\r\n"
    )
    after = rewrite(before, "v.rules", PHASE)
    assert after == before.replace("do   phase_in", "phase_in").replace("you draws", "you draw")


def shipped_files() -> list[Path]:
    return sorted(p for folder in (ROOT / "rules", ROOT / "tests" / "scenarios")
                  for p in folder.rglob("*") if p.suffix in (".rules", ".scenario"))


@pytest.mark.parametrize("path", shipped_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_rewrites_to_the_tree_expected_and_then_stays(path):
    text = path.read_text(encoding="utf-8")
    after = rewrite(text, str(path), PHASE)
    assert parse(after, str(path)) == migrated_tree(parse(text, str(path)), PHASE)
    assert rewrite(after, str(path), PHASE) == after


# ------------------------------------------------------------------ generated trees, printed in the older forms

def older(text: str) -> str:
    """Current forms turned back into older ones (what files written before them say)."""
    return (text.replace("you draw ", "you draws ").replace("you gain ", "you gains ")
            .replace(" is not visible", " is visible@").replace("phase_in ", "do phase_in "))


def _old_visible(text: str) -> str:
    # `X is visible@` -> `not (X is visible)` for a simple X (a name, or a name's attribute)
    import re

    return re.sub(r"([A-Za-z_][\w.]*) is visible@", r"not (\1 is visible)", text)


_names = st.sampled_from(["x", "you", "P"])
_objects = st.sampled_from(["x", "x.attached_to"])
_simple = st.one_of(
    st.builds(lambda p, n: f"{p} draw {n}" if p == "you" else f"{p} draws {n}", _names, st.integers(0, 9)),
    st.builds(lambda p, n: f"{p} gain {n} life" if p == "you" else f"{p} gains {n} life", _names, st.integers(0, 9)),
    st.builds(lambda o: f"phase_in {o}", _objects),
    st.builds(lambda o: f"if {o} is not visible: tap x", _objects),
    st.builds(lambda v, rest: f"each {v} where {v}.phase is in or {v}.phase is out{rest}: tap {v}",
              st.sampled_from(["y", "z"]), st.just("")),
    st.builds(lambda v, rest: f"each {v} where ({v}.phase is in or {v}.phase is out) and {rest}: tap {v}",
              st.sampled_from(["y", "z"]), st.sampled_from(["y.tapped", "x.tapped or y.token"])),
    st.just("tap x  # a comment"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_simple, min_size=1, max_size=6), blank=st.lists(st.booleans(), min_size=6, max_size=6))
def test_generated_old_text_rewrites_to_the_expected_tree(lines, blank):
    body = "\n".join(("\n" if b else "") + "  " + _old_visible(older(line)) for line, b in zip(lines, blank))
    text = "verb phase_in x {\n  tap x\n}\n\nverb v x {\n" + body + "\n}\n"
    tree = parse(text, "g.rules")
    after = rewrite(text, "g.rules", PHASE)
    assert parse(after, "g.rules") == migrated_tree(tree, PHASE)
    # every line but the rewritten ones is as it was: comments and blank lines kept
    assert [ln for ln in after.splitlines() if "#" in ln or not ln.strip()] == \
        [ln for ln in text.splitlines() if "#" in ln or not ln.strip()]
    assert "do phase_in" not in after and "you draws" not in after and "not (" not in after
    assert print_module(parse(after, "g.rules")) == print_module(migrated_tree(tree, PHASE))


# ------------------------------------------------------------------ the command


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


OLD = "# kept\nverb v x {\n  do phase_in x  # kept too\n}\n\nverb phase_in x {\n  tap x\n}\n"


def test_fmt_shows_a_diff_and_counts_the_files_without_writing(tmp_path, capsys):
    f = tmp_path / "a.rules"
    f.write_text(OLD, encoding="utf-8")
    status, out, _err = run(capsys, "fmt", str(tmp_path))
    assert status == 0
    assert "-  do phase_in x  # kept too" in out and "+  phase_in x  # kept too" in out
    assert out.rstrip().endswith("1 file would be changed")
    assert f.read_text(encoding="utf-8") == OLD


def test_fmt_check_exits_1_when_a_file_would_change_and_0_when_none_would(tmp_path, capsys):
    f = tmp_path / "a.rules"
    f.write_text(OLD, encoding="utf-8")
    assert run(capsys, "fmt", "--check", str(f))[0] == 1
    f.write_text(OLD.replace("do phase_in", "phase_in"), encoding="utf-8")
    status, out, _err = run(capsys, "fmt", "--check", str(f))
    assert status == 0 and "0 files would be changed" in out


def test_fmt_write_rewrites_in_place_keeping_the_mode_and_says_so(tmp_path, capsys):
    f = tmp_path / "a.rules"
    f.write_text(OLD, encoding="utf-8")
    os.chmod(f, 0o640)
    status, out, _err = run(capsys, "fmt", "--write", str(f))
    assert status == 0
    assert f"wrote {f}" in out and "1 file written" in out
    assert f.read_text(encoding="utf-8") == OLD.replace("do phase_in", "phase_in")
    assert os.stat(f).st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.rules"]  # no temporary file left behind


def test_fmt_writes_through_a_link_to_its_file_and_keeps_the_link(tmp_path, capsys):
    store, linked = tmp_path / "store", tmp_path / "path"
    store.mkdir()
    linked.mkdir()
    target = store / "v.rules"
    target.write_text(OLD, encoding="utf-8")
    link = linked / "v.rules"
    link.symlink_to(Path("..") / "store" / "v.rules")
    status, out, _err = run(capsys, "fmt", "--write", str(linked))
    assert status == 0 and "1 file written" in out, out
    assert f"wrote {link}" in out and str(target.resolve()) in out
    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "store" / "v.rules")
    assert target.read_text(encoding="utf-8") == OLD.replace("do phase_in", "phase_in")


def test_a_link_and_its_file_in_one_folder_are_one_file_diffed_and_written_once(tmp_path, capsys):
    target = tmp_path / "v.rules"
    target.write_text(OLD, encoding="utf-8")
    (tmp_path / "w.rules").symlink_to("v.rules")
    status, out, _err = run(capsys, "fmt", str(tmp_path))
    assert status == 0 and out.count("+++ ") == 1 and "1 file would be changed" in out, out
    assert f"{target}" in out and "w.rules" not in out  # (shown under its own name)
    status, out, _err = run(capsys, "fmt", "--write", str(tmp_path))
    assert status == 0 and out.count("wrote ") == 1 and "1 file written" in out, out
    assert (tmp_path / "w.rules").is_symlink()
    assert target.read_text(encoding="utf-8") == OLD.replace("do phase_in", "phase_in")


def test_a_link_to_no_file_in_a_folder_is_an_error_not_skipped(tmp_path, capsys):
    (tmp_path / "a.rules").write_text(OLD, encoding="utf-8")
    (tmp_path / "gone.rules").symlink_to("nothing.rules")
    status, _out, err = run(capsys, "fmt", "--write", str(tmp_path))
    assert status == 1 and "gone.rules: error: a link to a file that does not exist" in err, err
    assert (tmp_path / "a.rules").read_text(encoding="utf-8") == OLD


def test_a_file_that_does_not_parse_is_a_positioned_error_and_nothing_is_written(tmp_path, capsys):
    good, bad = tmp_path / "a.rules", tmp_path / "b.rules"
    good.write_text(OLD, encoding="utf-8")
    bad.write_text("verb v x {\n  do phase_in x\n  tap x )\n}\n", encoding="utf-8")
    status, _out, err = run(capsys, "fmt", "--write", str(tmp_path))
    assert status == 1
    assert f"{bad}:3:9" in err and "^" in err and "no file was changed" in err
    assert good.read_text(encoding="utf-8") == OLD  # (not even the file that reads)
    assert bad.read_text(encoding="utf-8").startswith("verb v x {\n  do phase_in x")


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.rules", "no such file or folder"),
    (lambda d: (d / "notes.txt").write_text("x") and d / "notes.txt", "not a rule file or a scenario"),
    (lambda d: (d / "empty").mkdir() or d / "empty", "no .rules or .scenario file"),
])
def test_a_path_fmt_cannot_use_is_an_error_with_exit_1(tmp_path, capsys, make, message):
    status, _out, err = run(capsys, "fmt", str(make(tmp_path)))
    assert status == 1 and message in err


def test_fmt_needs_a_path_and_takes_one_mode(capsys):
    assert run(capsys, "fmt")[0] == 1
    assert run(capsys, "fmt", "--check", "--write", "rules")[0] == 1


def test_the_shipped_rules_and_scenarios_are_in_the_current_forms(capsys):
    """Migrated with `phasing fmt --write rules tests/scenarios`: nothing is left to rewrite."""
    status, out, _err = run(capsys, "fmt", "--check", str(ROOT / "rules"), str(ROOT / "tests" / "scenarios"))
    assert status == 0, out
    assert out.strip() == "0 files would be changed"
