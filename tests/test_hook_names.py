"""Issue 45 item 5: one name for each step, the Comprehensive Rules' own (502 untap step, 503
upkeep step, 504 draw step, 508 declare attackers step, 513 end step, 514 cleanup step, 505
the main phases), wherever a hook is written: `during`, `order`, `assert during [skipped]`,
`at next`, `skip`, `at beginning of ... of you / of each player P`.

A hook names a step or phase by its whole name, as the rulebook's turn declares it (500.1,
`rules/<version>/turn.rules`), or one of the game's own hooks (`dsl.builtins.GAME_HOOKS`); the
tree's kind is that name. The older names `upkeep` and `cleanup` still read, as the same hook
(`upkeep step`, `cleanup step`); `phasing fmt` writes them by the current names, keeping every
comment; the printer (and so `phasing show`) writes only the current names. Words that are no
step's name (not ending in `step` or `phase`) where a hook goes are a syntax error whose hint
says what a hook is; a step's name the turn does not declare (`upkeep phase`, `untp step`) is
the checker's error, offering the step meant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from phasing_rules.dsl.builtins import GAME_HOOKS
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.migrate import Vocabulary, comments, rewrite
from phasing_rules.dsl.parser import HOOK_KIND_OF, OLDER_HOOK_NAMES, hook_name, parse
from phasing_rules.dsl.printer import print_module
from phasing_rules.interpreter import api
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import default_turn

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
    ('rule 999.1 s "x" {{\n  skip {h} of P where P.life < 1\n}}\n', lambda m: m.items[0].clauses[0].hook.kind),
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
    assert hook_name("untap step") == "untap step"
    assert_read_and_written_everywhere("untap step", "untap step")


def test_the_upkeep_step_is_named_upkeep_step_everywhere():
    """CR 503 names the upkeep step: `upkeep step` (once a syntax error, 'unexpected step') in
    every place a hook is written; the tree's kind is that name too (once the engine's `upkeep`)."""
    assert hook_name("upkeep") == "upkeep step" and HOOK_KIND_OF["upkeep"] == "upkeep step"
    assert_read_and_written_everywhere("upkeep step", "upkeep step")


def test_the_end_step_is_named_end_step_everywhere():
    """CR 513 names the end step: `end step` in every place a hook is written."""
    assert hook_name("end step") == "end step"
    assert_read_and_written_everywhere("end step", "end step")


def test_the_cleanup_step_is_named_cleanup_step_everywhere():
    """CR 514 names the cleanup step: `cleanup step` in every place a hook is written; the
    tree's kind is that name too (once the engine's `cleanup`)."""
    assert hook_name("cleanup") == "cleanup step" and HOOK_KIND_OF["cleanup"] == "cleanup step"
    assert_read_and_written_everywhere("cleanup step", "cleanup step")


@pytest.mark.parametrize("name", default_turn().steps)
def test_every_step_and_phase_of_the_turn_is_named_by_its_name_everywhere(name):
    """CR 500.1 names the phases and steps of the turn (501-514): each step, and each phase
    without steps (the main phases, 505.1), as the newest version's turn declares it, reads as
    the hook of that name in every place a hook is written and is written back so."""
    assert_read_and_written_everywhere(name, name)


@pytest.mark.parametrize("name", GAME_HOOKS)
def test_the_game_s_own_hooks_are_named_everywhere_a_rule_names_one(name):
    """The points of the game that are no step (a turn beginning, 500.1; a turn that would begin
    for a player who has left, 800.4; a player leaving, 800.4a; the state checks, 704.3) read
    as themselves in every place a rule block writes a hook."""
    assert_read_and_written_everywhere(name, name)


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


@pytest.mark.parametrize("text, column", [
    ('rule 999.1 s "x" {\n  during draw of P: tap x\n}', 10),
    ('rule 999.1 s "x" {\n  order combat: 502.3\n}', 9),
    ('rule 999.1 s "x" {\n  during state check: at next upkep: tap x\n}', 31),
    ('card "C" {\n  types creature\n  at beginning of combat of you: tap this\n}', 19),
])
def test_words_that_name_no_step_where_a_hook_goes_are_a_syntax_error_saying_what_a_hook_is(text, column):
    """CR 500.1 names each step and phase by words ending in `step` or `phase`: where a hook is
    written, words that are neither such a name nor one of the game's own hooks (`draw`,
    `combat`, `upkep`) are a syntax error at the first of them, whose hint says a hook is a
    step or phase by its whole name and lists the game's hooks."""
    with pytest.raises(DiagnosticError) as info:
        parse(text, "wrong.rules")
    (d,) = info.value.diagnostics
    assert d.message.startswith("unexpected ") and (d.span.line, d.span.column) == (text.count("\n"), column)
    assert "a hook is a step or phase the rulebook's turn declares, by its whole name" in d.hint
    assert "one of: " + ", ".join(GAME_HOOKS) in d.hint


VARIANT = "variant hooks {\n  extends 2026-09-25\n}\n"


def checked(tmp_path: Path, text: str) -> list:
    """What `phasing check` reports on `text`: rule blocks in a variant of the newest version
    (below its three lines), or a file of cards."""
    path = tmp_path / "hooks.rules"
    path.write_text(text if text.startswith("card") else VARIANT + text, encoding="utf-8")
    return api.check_paths(path)


@pytest.mark.parametrize("text, written, meant", [
    ('rule 999.1 s "x" {\n  during upkeep phase of P: each x where x.controller is P: tap x\n}', "upkeep phase", "upkeep step"),
    ('rule 999.1 s "x" {\n  during upkep step of P: each x where x.controller is P: tap x\n}', "upkep step", "upkeep step"),
    ('rule 999.1 s "x" {\n  order end phase: 502.3\n}', "end phase", "end step"),
    ('rule 999.1 s "x" {\n  assert during untap phase of P: phase changes at most once\n}', "untap phase", "untap step"),
    ('rule 999.1 s "x" {\n  assert during skipped drw step of P: no change of phase\n}', "drw step", "draw step"),
    ('rule 999.1 s "x" {\n  during state check: at next cleanup phase: each x where x.tapped: untap x\n}', "cleanup phase",
     "cleanup step"),
    ('rule 999.1 s "x" {\n  skip declare blocker step of P where P.life < 1\n}', "declare blocker step", "declare blockers step"),
])
def test_a_step_the_turn_does_not_declare_is_the_checker_s_error_offering_the_step_meant(tmp_path, text, written, meant):
    """CR 500.1: the turn has the steps and phases its rulebook declares. A hook of words ending
    in `step` or `phase` parses, and a name the turn does not declare (`upkeep phase`, `drw
    step`, `declare blocker step`) is an error of `phasing check` on the hook's line, whose hint
    offers the step meant first and lists the turn's steps and the game's hooks."""
    (d,) = [d for d in checked(tmp_path, text) if d.message.startswith("unknown step")]
    assert d.message == f"unknown step '{written}': the turn of this rulebook has no such step or phase"
    assert d.span.line == 5 and d.span.path.endswith("hooks.rules")  # (the hook's line, below the variant's three)
    assert d.hint.startswith(f"did you mean '{meant}'"), d.hint
    assert ", ".join(default_turn().steps) in d.hint and ", ".join(GAME_HOOKS) in d.hint


@pytest.mark.parametrize("text", [
    'rule 999.1 s "x" {\n  during draw step of P: each x where x.controller is P: tap x\n}',
    'rule 999.1 s "x" {\n  assert during skipped draw step of P: no change of phase\n}',
    'rule 999.1 s "x" {\n  during postcombat main phase of P: each x where x.attacking: remove x from combat\n}',
    'card "C" {\n  types creature\n  at beginning of draw step of you: tap this\n}',
    'card "C" {\n  types creature\n  at beginning of beginning of combat step of each player P: tap this\n}',
])
def test_the_draw_step_and_the_combat_steps_are_hooks_now(tmp_path, text):
    """CR 504 (the draw step), 505 (the main phases) and 507 (the beginning of combat step): the
    turn the engine plays has them (they were once syntax errors, the engine having no draw
    step), and players get priority in each (504.2, 507.2), so a card's ability may trigger at
    their beginning: `phasing check` finds nothing wrong."""
    assert checked(tmp_path, text) == []


def test_the_hint_lists_the_hooks_through_phasing_check(tmp_path, capsys):
    """CR 503 (upkeep step): `phasing check` on `during upkeep phase of P` reports the step the
    turn has no such name for on the hook's line, the upkeep step first offered."""
    f = tmp_path / "wrong.rules"
    f.write_text(VARIANT + 'rule 999.1 s "x" {\n  during upkeep phase of P: each x where x.controller is P: tap x\n}\n',
                 encoding="utf-8")
    assert main(["check", str(f)]) == 1
    err = capsys.readouterr().err
    assert f"{f}:5:" in err and "error: unknown step 'upkeep phase': the turn of this rulebook has no such step or phase" in err
    assert "hint: did you mean 'upkeep step'?" in err


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
