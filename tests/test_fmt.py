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

from phasing_rules.dsl.migrate import Vocabulary, migrated_tree, rewrite
from phasing_rules.dsl.parser import parse
from phasing_rules.dsl.printer import print_module
from phasing_rules.interpreter.cli import main

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


# ------------------------------------------------------------------ line endings (issue 43)

def with_line_end(text: str, line_end: str) -> str:
    return text.replace("\n", line_end)


ENDINGS = pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])


def test_a_cr_only_file_that_starts_with_a_comment_is_read_whole():
    """issue 43: in a file whose lines end in a lone CR (classic Mac OS), a first comment ran
    to the end of the file, so the file looked empty to fmt and nothing was rewritten."""
    before = "# first\rverb phase_in x {\r  tap x\r}\rverb v x {\r  do phase_in x\r}\r"
    assert rewrite(before, "v.rules", PHASE) == before.replace("do phase_in", "phase_in")


@ENDINGS
def test_fmt_write_rewrites_an_old_form_and_keeps_the_files_line_ends(tmp_path, capsys, line_end):
    """issue 43: `check` told to run fmt on a CR-only file, and fmt then failed with a false
    "unexpected end of file" (its comment ran to the end of the file). Each ending is read
    as a line end, and the file keeps its own: a comment moved to a line of its own ends
    with it too."""
    f = tmp_path / "a.rules"
    text = "verb v x {\n  tap x # c\n  each y where y.phase is in or # why\n    y.phase is out: tap y\n}\n"
    f.write_bytes(with_line_end(text, line_end).encode("utf-8"))
    status, out, err = run(capsys, "fmt", "--write", str(f))
    assert status == 0 and "1 file written" in out, err
    expected = "verb v x {\n  tap x # c\n  # why\n  each y including hidden: tap y\n}\n"
    assert f.read_bytes() == with_line_end(expected, line_end).encode("utf-8")


@pytest.mark.parametrize("line_end", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_parse_gives_the_same_tree_and_positions_whatever_the_line_ending(line_end):
    """issue 43: the parser reads LF, CRLF and a lone CR alike (as `check`, which opens files
    with universal newlines, always did): every node at the same line and column."""
    text = "# a comment\nverb v x {\n  # another\n  each y where y.phase is out: tap y\n}\n"
    lf, other = parse(text, "v.rules"), parse(with_line_end(text, line_end), "v.rules")
    assert [n.span for n in other.walk()] == [n.span for n in lf.walk()]
    assert other == lf


@ENDINGS
def test_a_syntax_error_is_placed_at_its_line_whatever_the_line_ending(line_end):
    """issue 43: line numbers in diagnostics are right for each line ending (a CR-only file
    was one line, its error at line 1)."""
    from phasing_rules.dsl.diagnostics import DiagnosticError

    text = with_line_end("# a comment\nverb v x {\n  tap x )\n}\n", line_end)
    with pytest.raises(DiagnosticError) as caught:
        parse(text, "v.rules")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 9)


def test_a_byte_that_is_not_utf8_is_placed_at_its_line_in_a_cr_only_file(tmp_path, capsys):
    """issue 43: lines counted for the encoding error as the parser counts them."""
    f = tmp_path / "a.rules"
    f.write_bytes(b"# one\r# two\r# th\xffree\r")
    status, _out, err = run(capsys, "fmt", str(f))
    assert status == 1 and f"{f}:3:5" in err, err


def test_check_gives_a_cr_only_file_the_diagnostics_of_its_lf_twin(tmp_path, capsys):
    """issue 43: `check` on a CR-only file and on the same file with LF (and CRLF) endings says
    the same: the always-true test at 9:18, with the hint to run fmt, which now reads the
    file as `check` does (the tests above). `check` opens files with universal newlines; this
    keeps it reading them as the parser does."""
    text = ('variant crtest {\n  title "x"\n  extends 2026-09-25\n}\n\n# a comment\n'
            'rule 999.1 old-forms "Older forms." {\n  during cleanup of P: {\n'
            '    each x where x.phase is in or x.phase is out: tap x\n  }\n}\n')
    said = {}
    for name, line_end in (("lf", "\n"), ("cr", "\r"), ("crlf", "\r\n")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "v.rules").write_bytes(with_line_end(text, line_end).encode("utf-8"))
        status, out, err = run(capsys, "check", str(folder / "v.rules"))
        said[name] = (status, out.replace(str(folder), "F"), err.replace(str(folder), "F"))
    assert said["cr"] == said["lf"] == said["crlf"]
    assert said["lf"][0] == 1 and "F/v.rules:9:18: error: this condition is always true" in said["lf"][2]


# ------------------------------------------------------------------ what fmt reads (issue 43)

def recorded_parses(monkeypatch) -> list[str]:
    """The paths `phasing fmt` parses besides the files it rewrites (`_readable_modules`)."""
    import phasing_rules.interpreter.cli as cli

    seen: list[str] = []
    real = cli.parse

    def parse_and_note(text, path="<string>"):
        seen.append(Path(path).name)
        return real(text, path)

    monkeypatch.setattr(cli, "parse", parse_and_note)
    return seen


def test_fmt_reads_no_other_file_for_a_file_without_a_hiding_test(tmp_path, capsys, monkeypatch):
    """issue 43: fmt parsed every rule file of the target's folder (1 KB beside 3.5 MB: 24 s).
    A file with no query testing a status with `or` needs no vocabulary: no other file is
    parsed, not even one that declares statuses, nor the newest version's."""
    seen = recorded_parses(monkeypatch)
    small = tmp_path / "small.rules"
    small.write_text(OLD, encoding="utf-8")
    (tmp_path / "big.rules").write_text("status phase: in | out = in\n" + verb("tap x") * 200, encoding="utf-8")
    status, out, _err = run(capsys, "fmt", str(small))
    assert status == 0 and "+  phase_in x  # kept too" in out
    assert seen == []


def test_fmt_reads_only_the_files_that_name_the_status_tested(tmp_path, capsys, monkeypatch):
    """issue 43: a query testing every value of `shade` needs to know `shade`'s values and
    whether a hide rule reads it: the folder's file declaring it is parsed (and counts: the
    form is rewritten), a sibling that never names `shade` is not, nor is the file itself
    twice."""
    seen = recorded_parses(monkeypatch)
    (tmp_path / "vocabulary.rules").write_text(
        "status shade: light | dark = light\n"
        'rule 999.2 shade-hides "A dark object is hidden." {\n  hide x where x.shade is dark\n}\n', encoding="utf-8")
    (tmp_path / "other.rules").write_text(verb("tap x") * 50, encoding="utf-8")
    target = tmp_path / "a.rules"
    target.write_text(verb("each y where y.shade is light or y.shade is dark: tap y"), encoding="utf-8")
    status, out, _err = run(capsys, "fmt", "--write", str(target))
    assert status == 0 and "1 file written" in out
    assert target.read_text(encoding="utf-8") == verb("each y including hidden: tap y")
    assert seen == ["vocabulary.rules"]


def test_the_vocabulary_is_asked_for_only_with_the_statuses_tested():
    """issue 43: `rewrite` calls a vocabulary given as a function only for a file with a query
    testing a status of its object with `or`, once, with those statuses' names."""
    asked: list[frozenset] = []

    def vocabulary(names, module):
        asked.append(names)
        return PHASE

    assert rewrite(verb("do phase_in x"), "v.rules", vocabulary) == verb("phase_in x")
    assert asked == []
    text = verb("each y where y.phase is in or y.phase is out: tap y") + verb(
        "each z where z.tapped and (z.phased_indirectly is true or z.token): tap z")
    assert rewrite(text, "v.rules", vocabulary) == text.replace("where y.phase is in or y.phase is out", "including hidden")
    assert asked == [frozenset({"phase", "phased_indirectly"})]


# ------------------------------------------------------------------ one parse, one pass (issue 43)

def test_nested_old_forms_are_rewritten_on_one_parse(monkeypatch):
    """issue 43: fmt was quadratic (a round of parsing per layer of nesting, `_innermost`
    comparing every edit with every other). Every edit is now found on one parse and made in
    one pass; the time is measured by bench/scale_fmt.py, never here. Forms nested three deep
    (a count in an each's condition, `not (...)` and `do` beside them) take one parse."""
    import phasing_rules.dsl.migrate as migrate

    calls: list[str] = []
    real = migrate.parse

    def counted(text, path="<string>", *rest):
        calls.append(path)
        return real(text, path, *rest)

    monkeypatch.setattr(migrate, "parse", counted)
    before = verb("each y where (y.phase is in or y.phase is out) and count(z where (z.phase is in or z.phase is out)"
                  " and not (z is visible)) > 0: do phase_in y")
    after = rewrite(before, "v.rules", PHASE)
    assert calls == ["v.rules"]
    assert after == verb("each y including hidden where count(z including hidden where z is not visible) > 0: phase_in y")
