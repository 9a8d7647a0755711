"""The console prints what users wrote as text (issue 14, item 2).

Scenario, card and variant names, messages and paths come from files; rich must not read
them as markup (`[b]`, `[/x]`) or emoji codes (`:smile:`, and `:100:` inside a position
`path:100:100:`). Each test runs `interpreter.cli.main` in-process on a hostile file written
to tmp_path and checks that the text comes out exactly as written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.interpreter import cli, drawing

HOSTILE = "[/x] [b]bold[/b] :smile: [red]red"  # a closing tag with no opening one is a MarkupError in rich
CARD = "[/x] Gentle :bear: [i]Beast"

SCENARIO = f"""\
card "{CARD}" {{
  types creature bear
  pt 2/2
}}

scenario "{HOSTILE}" {{
  rules 2026-09-25
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  permanent beast = "{CARD}", controller Bob
  script {{
    next turn
    expect djinn.phase is out
  }}
}}
"""

FAILING = SCENARIO.replace("expect djinn.phase is out", "expect djinn.phase is in")


def hostile(tmp_path: Path, text: str = SCENARIO) -> Path:
    path = tmp_path / "[b]odd [x] :100: name.scenario"  # (a file name cannot hold a slash)
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_run_prints_hostile_names_literally(tmp_path, capsys):
    path = hostile(tmp_path)
    status, out, err = run(capsys, "run", path)
    assert status == 0, err  # a passing scenario (CR 702.26a: the djinn phases out in its controller's untap step)
    assert f'Final state of "{HOSTILE}" under 2026-09-25' in out  # the table title
    assert f"PASS {HOSTILE} [2026-09-25]  ({path})" in out
    assert CARD in out  # the card column of the state table
    assert "😄" not in out and "💯" not in out


def test_run_trace_prints_hostile_names_literally(tmp_path, capsys):
    status, out, err = run(capsys, "run", hostile(tmp_path), "--trace")
    assert status == 0, err
    assert f'Trace of "{HOSTILE}" under 2026-09-25:' in out
    assert "[702.26a " in out  # a trace line's cause in brackets is text too (CR 702.26a phases the djinn out)


def test_run_json_carries_hostile_names_unchanged(tmp_path, capsys):
    path = hostile(tmp_path)
    status, out, _ = run(capsys, "run", path, "--json")
    data = json.loads(out)
    assert status == 0
    assert data[0]["scenario"] == HOSTILE and data[0]["file"] == str(path)


def test_test_prints_hostile_names_literally(tmp_path, capsys):
    status, out, err = run(capsys, "test", hostile(tmp_path), "-v")
    assert status == 0, err
    assert f"PASS {HOSTILE} [2026-09-25]" in out
    assert out.splitlines()[-1] == "1 passed, 0 failed"


def test_a_failing_hostile_scenario_is_reported_literally(tmp_path, capsys):
    """The expectation is wrong on purpose (CR 702.26a phases the djinn out), so the run fails."""
    path = hostile(tmp_path, FAILING)
    status, out, err = run(capsys, "test", path)
    assert status == 1
    assert f"FAIL {HOSTILE} [2026-09-25]  ({path})" in out
    assert "  FAIL expect djinn.phase is in" in out
    assert f"{path}:" in err  # the failure's position, path written as it is


def test_an_error_on_line_100_column_100_keeps_its_position(tmp_path, capsys):
    """`:100:` is an emoji code to rich; the position must still read path:100:100:."""
    lines = ['scenario "deep" {', "  players Alice Bob", "  script {"]
    lines += ["    # filler"] * (99 - len(lines))
    lines.append(" " * 92 + "expect ghost.zone is battlefield")  # line 100; `ghost` starts at column 100
    lines += ["  }", "}"]
    path = tmp_path / "deep.scenario"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for command in ("check", "run"):
        status, _, err = run(capsys, command, path)
        assert status == 1, err
        assert f"{path}:100:100: error: unknown name 'ghost'" in err, err
        assert "💯" not in err
        head, source, caret = err.splitlines()[:3]
        assert caret.index("^") == source.index("ghost")  # the caret under the name, however the line is shown


def test_a_syntax_error_at_column_1234_keeps_its_position(tmp_path, capsys):
    path = tmp_path / "wide.scenario"
    path.write_text('scenario "wide" {\n' + " " * 1233 + "@\n}\n", encoding="utf-8")
    status, _, err = run(capsys, "check", path)
    assert status == 1
    assert f"{path}:2:1234: error:" in err, err


VARIANT = """\
variant odd-variant {
  title "[/x] [b]A title :smile:"
  extends 2026-09-25
  note "[/note] a note :100: with markup"
}
"""


def variant_file(tmp_path: Path) -> Path:
    path = tmp_path / "[b]odd.rules"
    path.write_text(VARIANT, encoding="utf-8")
    return path


def test_show_prints_a_variants_title_literally(tmp_path, capsys):
    status, out, err = run(capsys, "show", variant_file(tmp_path))
    assert status == 0, err
    assert out.splitlines()[0] == "# [/x] [b]A title :smile:"


def test_check_of_a_variant_with_markup_in_its_text(tmp_path, capsys):
    status, out, err = run(capsys, "check", variant_file(tmp_path))
    assert (status, out.strip()) == (0, "no problems found"), err


def test_versions_table_prints_names_and_notes_literally(tmp_path, capsys, monkeypatch):
    """`versions` lists the shipped versions and variants and those of the rules path; here the
    rules path is a folder of our own (with markup in its name) holding one variant, so the
    table's cells hold text with markup in it."""
    folder = tmp_path / "[b]mine"
    folder.mkdir()
    (folder / "odd-variant.rules").write_text(VARIANT, encoding="utf-8")
    monkeypatch.setattr(cli, "out", cli._console(width=400))  # wide enough that no cell wraps
    status, out, err = run(capsys, "versions", "--rules-path", folder)
    assert status == 0, err
    assert "odd-variant (variant)" in out
    assert str(folder.resolve()) in out
    assert "[/note] a note :100: with markup" in out
    assert "Rule versions" in out


@pytest.mark.parametrize("stream", ["out", "err"])
def test_the_consoles_read_no_markup_and_no_emoji(stream, capsys):
    console = getattr(cli, stream)
    console.print("[/x] :100: [b]b")  # a plain str, as any print path might pass one
    captured = capsys.readouterr()
    assert getattr(captured, stream).strip() == "[/x] :100: [b]b"


def test_terminal_escape_sequences_in_a_name_are_shown_not_sent(tmp_path, capsys):
    """A scenario name holding ESC [31m would recolour (or worse) the user's terminal."""
    path = tmp_path / "esc.scenario"
    path.write_text('scenario "esc \x1b[31mred\x1b[0m bell\x07" {\n  players Alice Bob\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "test", path, "-v")
    assert status == 0, err
    assert "PASS esc \\x1b[31mred\\x1b[0m bell\\x07 [2026-09-25]" in out
    assert "\x1b" not in out and "\x07" not in out


def test_bidirectional_and_invisible_marks_are_shown_as_escapes(tmp_path, capsys):
    """A right-to-left override would make a name read differently from what it is."""
    path = tmp_path / "bidi.scenario"
    path.write_text('scenario "abc\u202edef\u200bghi" {\n  players Alice Bob\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "test", path, "-v")
    assert status == 0, err
    assert "PASS abc\\u202edef\\u200bghi [2026-09-25]" in out


def test_the_caret_stays_under_its_column_when_the_line_before_it_is_escaped(tmp_path, capsys):
    """`\\u202e` before the error grows by five characters once escaped; so does the caret's indent."""
    path = tmp_path / "escaped.scenario"
    path.write_text('scenario "x" {\n  players Alice Bob\n  script {\n    expect error "\u202e" \x01\n  }\n}\n',
                    encoding="utf-8")
    status, _, err = run(capsys, "check", path)
    assert status == 1
    head, source, caret = err.splitlines()[:3]
    assert head.startswith(f"{path}:4:22: error: unexpected character")  # the \x01, after the string
    assert source == '        expect error "\\u202e" \\x01'
    assert caret.index("^") == source.index("\\x01") and caret.strip() == "^^^^"


def test_a_long_source_line_is_shown_around_its_caret(tmp_path):
    """A diagnostic on a very long line shows the part around the span, marked "..." where cut,
    with the caret still under the span (a fuzzed 34 kB line with hundreds of errors printed
    the whole line under each and took 23 s to report)."""
    from phasing_rules.dsl.diagnostics import SHOWN_LINE, Diagnostic, Span
    line = "a" * 900 + "WRONG" + "b" * 900
    path = tmp_path / "long.rules"
    path.write_text("first line\n" + line + "\n", encoding="utf-8")
    head, shown, caret, _hint = Diagnostic("error", "bad", Span(str(path), 2, 901, 2, 906), "h").render().splitlines()
    assert head.endswith(":2:901: error: bad")  # the position is the real one
    assert len(shown) <= 4 + SHOWN_LINE + 6 and shown.startswith("    ...") and shown.endswith("...")
    start = caret.index("^")
    assert shown[start:start + 5] == "WRONG" and caret[start:] == "^^^^^"
    # the start of a long line: cut at the end only, caret where it was
    _h, shown, caret, _ = Diagnostic("error", "bad", Span(str(path), 2, 3, 2, 4), "h").render().splitlines()
    assert shown.startswith("    aaa") and shown.endswith("...") and caret == "      ^"
    # a short line is shown whole
    _h, shown, caret, _ = Diagnostic("error", "bad", Span(str(path), 1, 7, 1, 11), "h").render().splitlines()
    assert shown == "    first line" and caret == "          ^^^^"


def test_a_long_name_quoted_in_a_message_is_shown_cut(tmp_path):
    """A message or hint quoting a name thousands of characters long shows its start and
    "..." (a fuzzed 25 MB rule file with 5,000 errors, each naming a 5,000-character name,
    wrote 27 MB of diagnostics); the source line under it still shows where it is, short
    quotes are shown whole, and the diagnostic itself keeps the whole message."""
    from phasing_rules.dsl.diagnostics import SHOWN_QUOTE, Diagnostic, Span
    name = "x" * 5000
    path = tmp_path / "long-name.rules"
    path.write_text(f"  tap {name}\n", encoding="utf-8")
    d = Diagnostic("error", f"unknown name '{name}'", Span(str(path), 1, 7, 1, 5007), f"did you mean '{name}y'? or 'none'")
    head, shown, caret, hint = d.render().splitlines()
    assert head.endswith(":1:7: error: unknown name '" + "x" * (SHOWN_QUOTE - 3) + "...'")
    assert hint == "  hint: did you mean '" + "x" * (SHOWN_QUOTE - 3) + "...'? or 'none'"
    assert shown.startswith("      tap xxx") and caret.index("^") == shown.index("x")
    assert d.message == f"unknown name '{name}'"  # (cut only as it is shown)
    exact = "y" * SHOWN_QUOTE  # (a quote of SHOWN_QUOTE characters is shown whole)
    assert Diagnostic("error", f"unknown name '{exact}'", Span(str(path), 0, 0, 0, 0)).render().endswith(f"'{exact}'")


def test_many_errors_naming_a_long_name_write_little(tmp_path, capsys):
    """`phasing check` of a variant with 200 errors, each naming a 2,000-character name,
    writes each error's message and hint with the name cut: a few hundred bytes an error, not
    the name in full under each."""
    name = "q" * 2000
    body = "".join(f"  tap {name}{i}\n" for i in range(200))
    path = tmp_path / "names.rules"
    path.write_text('variant names {\n  title "long names"\n  extends 2026-09-25\n}\n'
                    f'rule 702.26a untap-step-phasing "s" {{\n  during untap step of P: {{\n{body}  }}\n}}\n',
                    encoding="utf-8")
    status, _out, err = run(capsys, "check", path)
    assert status == 1
    assert err.count("error: unknown name 'qqq") == 200
    assert len(err) < 200 * 1000, f"{len(err)} bytes of diagnostics"


def test_many_errors_in_one_file_split_it_into_lines_once(tmp_path, capsys):
    """`check` of a fuzzed 68 kB rule file with 11,250 errors took 11 s, nearly half of it
    splitting the whole file into lines again under each error; the lines of a source are now
    worked out once per text (`dsl.diagnostics._lines`), and each error still shows its own
    line and caret."""
    from phasing_rules.dsl import diagnostics
    body = "".join(f"  tap x{i}\n" for i in range(2000))
    path = tmp_path / "many.rules"
    path.write_text('variant many {\n  title "many errors"\n  extends 2026-09-25\n}\n'
                    f'rule 702.26a untap-step-phasing "s" {{\n  during untap step of P: {{\n{body}  }}\n}}\n',
                    encoding="utf-8")
    diagnostics._lines.cache_clear()
    assert cli.main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("unknown name") == 2000 and f"{path}:2006:7: error: unknown name 'x1999'" in err
    assert "      tap x1999\n          ^^^^^\n" in err
    info = diagnostics._lines.cache_info()
    assert info.misses <= 2 and info.hits >= 1999  # (this file split once; another source at most once)


TABLE_CELLS = [("bear", "Grizzly Bears", "battlefield", "Alice", "3/4", "phase=out, phased_indirectly=true"),
               ("strength", "Holy Strength", "battlefield", "Alice", "", "attached_to=bear")]


def _column_texts(rendered: str) -> list[str]:
    """Each column of a drawn table's body, its pieces joined with the spaces dropped (a wrapped
    cell is cut into pieces over several lines)."""
    body = rendered.split("┩", 1)[1].split("└", 1)[0]
    lines = [line.split("│")[1:-1] for line in body.splitlines() if "│" in line]
    return ["".join(line[k] for line in lines).replace(" ", "") for k in range(len(lines[0]))]


@pytest.mark.parametrize("width", [200, 80, 64, 40, 20, 8])
def test_a_narrow_console_wraps_table_cells_and_cuts_none(width):
    """On an 80-column terminal the board table cut cells to `Grizz…` and at 20 columns showed
    them all empty: now each cell wraps, and below the width every column needs it becomes a
    list; either way every value is printed whole."""
    import io
    stream = io.StringIO()
    console = cli._console(file=stream, width=width)
    table = cli._table("Final state", ("permanent", "card", "zone", "controller", "p/t", "statuses"))
    for row in TABLE_CELLS:
        table.add_row(*(cli.plain(cell) for cell in row))
    drawing.show_table(table, console)
    rendered = stream.getvalue()
    assert "…" not in rendered
    if "┩" in rendered:
        columns = _column_texts(rendered)
        for k, column in enumerate(zip(*TABLE_CELLS)):
            assert columns[k] == "".join(column).replace(" ", "")
    else:
        for first, *rest in TABLE_CELLS:
            assert f"{first}\n" in rendered
            for name, cell in zip(("card", "zone", "controller", "p/t", "statuses"), rest):
                assert (f"  {name}: {cell}\n" in rendered) == bool(cell)


@pytest.mark.parametrize("width", [80, 40, 20])
def test_run_and_versions_print_whole_cells_on_a_narrow_terminal(width, capsys, monkeypatch):
    """`run`'s board and the `versions` table, drawn on a narrow terminal, cut no name short."""
    monkeypatch.setattr(cli, "out", cli._console(width=width))
    status, out, err = run(capsys, "run", "tests/scenarios/tour.scenario")
    assert status == 0, err  # (tour: CR 702.26a, 702.26d, 702.26e)
    assert "…" not in out
    cards = ("Grizzly Bears", "Holy Strength", "Soldier Token", "Breezekeeper")
    if "┩" in out:
        assert _column_texts(out)[1] == "".join(cards).replace(" ", "")
    else:
        assert all(f"  card: {card}\n" in out for card in cards)
    status, out, err = run(capsys, "versions")
    assert status == 0, err
    assert "…" not in out


INVISIBLE = ("\u061c", "\u2028", "\u2029", "\ufeff", "\u2060", "\u00ad", "\u034f", "\u3164", "\u180e",
             "\U000e0041", "\u115f", "\u1160", "\uffa0", "\x85", "\u200b", "\u202e", "\u2066")


def test_every_invisible_mark_in_a_name_is_shown_as_an_escape(tmp_path, capsys):
    """Arabic letter mark, line and paragraph separators, byte order mark, word joiner, soft
    hyphen, grapheme joiner, Hangul fillers, Mongolian vowel separator and tag characters were
    printed raw (only some zero-width and bidirectional marks were escaped)."""
    name = "a" + "".join(f"{mark}{k}" for k, mark in enumerate(INVISIBLE))
    path = tmp_path / "marks.scenario"
    path.write_text(f'scenario "{name}" {{\n  players Alice Bob\n}}\n', encoding="utf-8")
    status, out, err = run(capsys, "test", path, "-v")
    assert status == 0, err
    escaped = "a" + "".join(
        (f"\\x{ord(m):02x}" if ord(m) < 0x100 else f"\\u{ord(m):04x}" if ord(m) < 0x10000 else f"\\U{ord(m):08x}")
        + str(k) for k, m in enumerate(INVISIBLE))
    assert f"PASS {escaped} [2026-09-25]" in out
    assert not any(mark in out for mark in INVISIBLE)


HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=40))
def test_no_control_format_or_separator_character_reaches_the_terminal(text):
    """Whatever a user wrote, what `plain` prints holds no character of categories Cc, Cf, Zl,
    Zp (nor lone surrogates or invisible fillers) but newline and tab, and every other
    character is printed as written."""
    import unicodedata
    printed = cli.plain(text).plain
    assert not [ch for ch in printed if ch not in "\n\t"
                and (unicodedata.category(ch) in HIDDEN or ch in cli.BLANK_FILLERS)]
    if "\\" not in text:  # (a backslash the user wrote could be taken for an escape's)
        unescaped = re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})", "", printed)
        assert unescaped == "".join(ch for ch in text if ch in "\n\t" or not (
            unicodedata.category(ch) in HIDDEN or ch in cli.BLANK_FILLERS))


def _drawn(table, width: int, color: bool) -> str:
    import io
    stream = io.StringIO()
    console = cli._console(file=stream, width=width, force_terminal=color, color_system="truecolor" if color else None)
    drawing.show_table(table, console)
    return stream.getvalue()


def _drawn_by_rich(table, width: int, color: bool) -> str:
    """rich's own drawing of `table`, with the widths `show_table` chose."""
    import io
    from rich.table import Table
    stream = io.StringIO()
    console = cli._console(file=stream, width=width, force_terminal=color, color_system="truecolor" if color else None)
    drawn = Table(title=table.title, title_justify=table.title_justify)
    for column, chosen in zip(table.columns, drawing.column_widths(table, width)):
        drawn.add_column(column.header, overflow=column.overflow, width=chosen)
    for row in range(table.row_count):
        drawn.add_row(*(list(column.cells)[row] for column in table.columns))
    console.print(drawn)
    return stream.getvalue()


CELL_TEXT = st.text(alphabet=st.sampled_from("ab -/é漢\n\t"), max_size=30)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(CELL_TEXT, CELL_TEXT, CELL_TEXT), max_size=8),
       width=st.integers(min_value=22, max_value=90), color=st.booleans(), styled=st.booleans())
def test_a_table_is_drawn_as_rich_draws_it(rows, width, color, styled):
    """`show_table` lets rich draw the title and header and draws the rows itself (rich takes
    about a millisecond a row): whatever the cells (wide characters, tabs, line breaks, words
    longer than a column, styles, no rows at all), on a terminal or not, the output is exactly
    rich's drawing of the whole table with the same column widths."""
    table = cli._table("A title", ("one", "two", "three"))
    for row in rows:
        cells = [cli.plain(cell) for cell in row]
        if styled:
            cells[0].stylize("bold", 0, 1)
        table.add_row(*cells)
    assert _drawn(table, width, color) == _drawn_by_rich(table, width, color)


@pytest.mark.parametrize("width, widths", [(200, [30, 2, 120]), (80, [30, 2, 38]), (40, [14, 2, 14])])
def test_column_widths_fit_the_console_and_keep_narrow_columns_whole(width, widths):
    """Where the widest cells fit, each column is as wide as its widest cell; where they do
    not, the table is as wide as the console (a border and two spaces a column, and one more
    border) and the widest columns are narrowed to one common width, the others kept whole."""
    table = cli._table("t", ("name", "n", "what it is"))
    table.add_row(*(cli.plain(c) for c in ("end-step-no-indirect (variant)", "30", "x " * 60)))
    assert drawing.column_widths(table, width) == widths
