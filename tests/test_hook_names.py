"""Issue 45 item 5: one name for each step, the Comprehensive Rules' own (502 untap step, 503
upkeep step, 513 end step, 514 cleanup step), wherever a hook is written: `during`, `order`,
`assert during [skipped]`, `at next`, `at beginning of ... of you / of each player P`.

The older names `upkeep` and `cleanup` still read, as the same hook (the tree keeps the
engine's kinds, `upkeep` and `cleanup`); `phasing fmt` writes them by the current names,
keeping every comment; the printer (and so `phasing show`) writes only the current names. A
name that is no hook is a syntax error whose hint lists the hooks. The engine has no draw
step (`interpreter/engine/turns.py`), so there is no hook for one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.migrate import Vocabulary, comments, rewrite
from phasing_rules.dsl.parser import HOOK_NAMES, OLDER_HOOK_NAMES, parse
from phasing_rules.dsl.printer import print_module
from phasing_rules.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
NO_WORDS = Vocabulary({}, frozenset())

# Every place a hook is written, as a file with the hook's name at {h}, and where its kind is
# in the tree that file parses to.
PLACES = [
    ('rule 999.1 s "x" {{\n  during {h} of P: tap x\n}}\n', lambda m: m.items[0].clauses[0].hook.kind),
    ('rule 999.1 s "x" {{\n  order {h}: 502.3, 702.26a\n}}\n', lambda m: m.items[0].clauses[0].hook),
    ('rule 999.1 s "x" {{\n  assert during {h} of P: phase changes at most once\n}}\n',
     lambda m: m.items[0].clauses[0].hook.kind),
    ('rule 999.1 s "x" {{\n  assert during skipped {h} of P: no change of phase\n}}\n',
     lambda m: m.items[0].clauses[0].hook.kind),
    ('rule 999.1 s "x" {{\n  during state check: at next {h}: tap x\n}}\n', lambda m: m.items[0].clauses[0].body.hook),
    ('card "C" {{\n  types instant\n  spell: at next {h}: tap x\n}}\n', lambda m: m.items[0].entries[1].body.hook),
    ('card "C" {{\n  types creature\n  at beginning of {h} of you: tap this\n}}\n',
     lambda m: m.items[0].entries[1].trigger.step),
    ('card "C" {{\n  types creature\n  at beginning of {h} of each player P: tap this\n}}\n',
     lambda m: m.items[0].entries[1].trigger.step),
]


def assert_read_and_written_everywhere(name: str, kind: str) -> None:
    """`name` reads as the hook `kind` in every place a hook goes, and the printer writes the
    file back with `name` (the same tree again)."""
    for template, kind_of in PLACES:
        text = template.format(h=name)
        module = parse(text, "hooks.rules")
        assert kind_of(module) == kind, text
        printed = print_module(module)
        assert printed == text, (text, printed)
        assert parse(printed) == module


def test_the_untap_step_is_named_untap_step_everywhere():
    """CR 502 names the untap step: `untap step` in every place a hook is written."""
    assert HOOK_NAMES["untap step"] == "untap step"
    assert_read_and_written_everywhere("untap step", "untap step")


def test_the_upkeep_step_is_named_upkeep_step_everywhere():
    """CR 503 names the upkeep step: `upkeep step` (once a syntax error, 'unexpected step') in
    every place a hook is written; the tree keeps the engine's kind, `upkeep`."""
    assert HOOK_NAMES["upkeep"] == "upkeep step"
    assert_read_and_written_everywhere("upkeep step", "upkeep")


def test_the_end_step_is_named_end_step_everywhere():
    """CR 513 names the end step: `end step` in every place a hook is written."""
    assert HOOK_NAMES["end step"] == "end step"
    assert_read_and_written_everywhere("end step", "end step")


def test_the_cleanup_step_is_named_cleanup_step_everywhere():
    """CR 514 names the cleanup step: `cleanup step` in every place a hook is written; the
    tree keeps the engine's kind, `cleanup`."""
    assert HOOK_NAMES["cleanup"] == "cleanup step"
    assert_read_and_written_everywhere("cleanup step", "cleanup")


@pytest.mark.parametrize("old, new", sorted(OLDER_HOOK_NAMES.items()))
def test_the_older_step_names_still_read_as_the_same_hook_and_print_by_the_current_name(old, new):
    """CR 503 (upkeep step) and 514 (cleanup step): a file written with the older `upkeep` or
    `cleanup` reads as the same tree as one with the current name, in every place a hook goes,
    and the printer writes the current name."""
    for template, _kind_of in PLACES:
        module = parse(template.format(h=old))
        assert module == parse(template.format(h=new))
        assert print_module(module) == template.format(h=new)


OLD_FILE = """\
# Written with the older names of the steps.
rule 999.1 s "Older step names." {
  order upkeep: 502.3   # the order
  during cleanup # between the step and its player
    of P: {
    at next upkeep: tap x # a delayed trigger
  }
  assert during skipped upkeep of P: no change of phase
  clause c: during upkeep of P: tap x
}

card "C" {
  types creature
  at beginning of upkeep of you: tap this   # a trigger
  at beginning of upkeep of each player P: tap this
}
"""

NEW_FILE = """\
# Written with the older names of the steps.
rule 999.1 s "Older step names." {
  order upkeep step: 502.3   # the order
  during cleanup step # between the step and its player
    of P: {
    at next upkeep step: tap x # a delayed trigger
  }
  assert during skipped upkeep step of P: no change of phase
  clause c: during upkeep step of P: tap x
}

card "C" {
  types creature
  at beginning of upkeep step of you: tap this   # a trigger
  at beginning of upkeep step of each player P: tap this
}
"""


def test_fmt_rewrites_the_older_upkeep_and_cleanup_keeping_every_comment():
    """CR 503 (upkeep step) and 514 (cleanup step): `phasing fmt` puts `step` after each older
    name, in every place a hook goes, and changes nothing else: every comment stays where it
    was (one between the step and `of P` too), and the tree is the same."""
    after = rewrite(OLD_FILE, "old.rules", NO_WORDS)
    assert after == NEW_FILE
    assert comments(after) == comments(OLD_FILE)
    assert parse(after) == parse(OLD_FILE)
    assert rewrite(after, "old.rules", NO_WORDS) == after  # (nothing older is left)


def test_fmt_rewrites_the_older_names_in_a_file_with_crlf_line_ends_and_a_bom():
    """CR 514 (cleanup step) and 503 (upkeep step): the rewrite finds the older names by the
    parser's line and column, so CRLF line ends and a byte-order mark stay as they are."""
    old = "\ufeff" + OLD_FILE.replace("\n", "\r\n")
    assert rewrite(old, "old.rules", NO_WORDS) == "\ufeff" + NEW_FILE.replace("\n", "\r\n")


def test_fmt_write_rewrites_the_older_step_names_in_place(tmp_path, capsys):
    """CR 514 (cleanup step): `phasing fmt --check` exits 1 on a file with an older step name,
    `--write` rewrites it with every comment kept, and the check then passes."""
    f = tmp_path / "old.rules"
    f.write_text(OLD_FILE, encoding="utf-8")
    assert main(["fmt", "--check", str(f)]) == 1
    assert "+  during cleanup step # between the step and its player" in capsys.readouterr().out
    assert main(["fmt", "--write", str(f)]) == 0
    assert f.read_text(encoding="utf-8") == NEW_FILE
    capsys.readouterr()
    assert main(["fmt", "--check", str(f)]) == 0


HOOK_LIST = ["beginning of turn", "untap step", "upkeep step", "end step", "cleanup step", "turn would begin",
             "leaving the game", "state check"]


@pytest.mark.parametrize("text, meant", [
    ('rule 999.1 s "x" {\n  during draw of P: tap x\n}', None),
    ('rule 999.1 s "x" {\n  during draw step of P: tap x\n}', None),
    ('rule 999.1 s "x" {\n  during upkeep phase of P: tap x\n}', "upkeep step"),
    ('rule 999.1 s "x" {\n  during upkep step of P: tap x\n}', "upkeep step"),
    ('rule 999.1 s "x" {\n  order end phase: 502.3\n}', "end step"),
    ('rule 999.1 s "x" {\n  assert during untap phase of P: phase changes at most once\n}', "untap step"),
    ('rule 999.1 s "x" {\n  assert during skipped draw step of P: no change of phase\n}', None),
    ('rule 999.1 s "x" {\n  during state check: at next cleanup phase: tap x\n}', "cleanup step"),
    ('card "C" {\n  types creature\n  at beginning of draw step of you: tap this\n}', None),
    ('card "C" {\n  types creature\n  at beginning of combat of you: tap this\n}', None),
])
def test_a_name_that_is_no_hook_is_a_syntax_error_listing_the_hooks(text, meant):
    """CR 502, 503, 513 and 514 name the steps the engine plays (it has no draw step, 504): a
    name that is none of them nor an event of the game (`draw`, `draw step`, `upkeep
    phase`, `combat`) is a syntax error at the word that goes wrong, whose hint lists every
    hook by its name, the one meant first when the word is close to one."""
    with pytest.raises(DiagnosticError) as info:
        parse(text, "wrong.rules")
    (d,) = info.value.diagnostics
    assert d.message.startswith("unexpected ") and d.span.line == text.count("\n")  # (the hook's line)
    assert all(name in d.hint for name in HOOK_LIST), d.hint
    assert "a hook is one of: " + ", ".join(HOOK_LIST) in d.hint
    if meant is not None:
        assert d.hint.startswith(f"did you mean '{meant}'?"), d.hint
    else:
        assert "did you mean" not in d.hint, d.hint


def test_the_hint_lists_the_hooks_through_phasing_check(tmp_path, capsys):
    """CR 503 (upkeep step): `phasing check` on `during upkeep phase of P` says where the name
    goes wrong and lists the hooks, the upkeep step first offered."""
    f = tmp_path / "wrong.rules"
    f.write_text('rule 999.1 s "x" {\n  during upkeep phase of P: tap x\n}\n', encoding="utf-8")
    assert main(["check", str(f)]) == 1
    err = capsys.readouterr().err
    assert f"{f}:2:17: error: unexpected 'phase'" in err
    assert "did you mean 'upkeep step'? a hook is one of: " + ", ".join(HOOK_LIST) in err


def shipped_files() -> list[Path]:
    return sorted([*(ROOT / "rules").rglob("*.rules"), *(ROOT / "tests" / "scenarios").rglob("*.scenario")])


def test_the_shipped_rules_and_scenarios_use_only_the_current_step_names():
    """CR 503 (upkeep step) and 514 (cleanup step): no shipped rule file or scenario uses an
    older step name (the parser reports each one it reads)."""
    older: dict[str, list[str]] = {}
    for path in shipped_files():
        found: list = []
        parse(path.read_text(encoding="utf-8"), str(path), found)
        if found:
            older[str(path.relative_to(ROOT))] = [f"{t.line}:{t.column} {t}" for t in found]
    assert older == {}


def test_show_prints_the_steps_by_their_names(capsys):
    """CR 514 (cleanup step): `phasing show 2026-09-25` writes 514.2's hook `during cleanup
    step of P`, never the older `during cleanup of P`."""
    assert main(["show", "2026-09-25"]) == 0
    out = capsys.readouterr().out
    assert "during cleanup step of P" in out
    assert "cleanup of" not in out and "upkeep of" not in out and "at next cleanup:" not in out
