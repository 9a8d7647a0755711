"""Bad input never gets a traceback.

The promise: every malformed rule file, scenario or impossible game state is reported as

    path:line:col: error: message
        the source line
        ^^^^ (a caret under the column)
      hint: what to do about it

with exit status 1. Each test here runs the real `phasing` command in a subprocess on one
bad input and checks exactly that. Rule-file cases work on a copy of the current version
made in tmp_path, so nothing under rules/ is touched.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from samples import GOOD_SCENARIO

from phasing_rules.interpreter.rulebook.loading import RULES_ROOT

ROOT = Path(__file__).resolve().parent.parent
CURRENT = RULES_ROOT / "2026-09-25"  # (the shipped rules the command reads: the installed copy, or the checkout's)
TIMEOUT = 60


# ---------------------------------------------------------------------------- helpers


def phasing(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the command line in this process, as `phasing` would (its `main`, in the folder
    `cwd`, its output captured), without the debug switch that would let tracebacks through.
    What a separate process adds (the exit status the shell sees, a traceback printed by
    Python itself) is checked on a sample of the same inputs by `phasing_process`."""
    from phasing_rules.interpreter import cli

    out, err = io.StringIO(), io.StringIO()
    here, debug = os.getcwd(), os.environ.pop("PHASING_DEBUG", None)
    try:
        os.chdir(cwd or ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main([str(a) for a in args])
    finally:
        os.chdir(here)
        if debug is not None:
            os.environ["PHASING_DEBUG"] = debug
    return subprocess.CompletedProcess(["phasing", *map(str, args)], status, out.getvalue(), err.getvalue())


def phasing_process(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the command line in a process of its own, as a user would."""
    env = {k: v for k, v in os.environ.items() if k != "PHASING_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "phasing_rules.interpreter.cli", *map(str, args)],
        cwd=cwd or ROOT, capture_output=True, text=True, timeout=TIMEOUT, env=env,
    )


def show(result: subprocess.CompletedProcess) -> str:
    return f"exit status {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def assert_no_traceback(result: subprocess.CompletedProcess) -> None:
    both = result.stdout + result.stderr
    assert "Traceback" not in both, show(result)
    assert "internal error" not in both, show(result)


def assert_error(result, path: Path | str, line: int, col: int, message: str, hint: str | None = "",
                 status: int = 1) -> list[str]:
    """The positioned diagnostic: head, source line, caret under `col`, and (unless hint is None) a hint.

    `hint` is text the hint line must contain ("" for any hint). Returns the diagnostic's lines.
    """
    assert_no_traceback(result)
    assert result.returncode == status, show(result)
    lines = result.stderr.splitlines()
    head = f"{path}:{line}:{col}: error: "
    at = next((i for i, text in enumerate(lines) if text.startswith(head)), None)
    assert at is not None, f"no line starting with {head!r}\n{show(result)}"
    assert message in lines[at], f"{message!r} not in {lines[at]!r}"
    source = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
    assert at + 2 < len(lines), show(result)
    assert lines[at + 1] == "    " + source, show(result)
    assert re.fullmatch(" " * (4 + col - 1) + r"\^+", lines[at + 2]), f"caret not under column {col}\n{show(result)}"
    if hint is not None:
        assert at + 3 < len(lines) and lines[at + 3].startswith("  hint: "), f"no hint line\n{show(result)}"
        assert hint in lines[at + 3], f"{hint!r} not in {lines[at + 3]!r}"
    return lines[at:at + 4]


def where(path: Path, needle: str, nth: int = 1) -> tuple[int, int]:
    """1-based line and column of the nth line containing `needle`, and of `needle` on it."""
    found = 0
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in text:
            found += 1
            if found == nth:
                return number, text.index(needle) + 1
    raise AssertionError(f"{needle!r} not found in {path}")


def assert_checks_clean(path: Path) -> None:
    """`phasing check PATH` finds no problem."""
    result = phasing("check", path)
    assert result.returncode == 0 and "no problems found" in result.stdout, show(result)


def assert_clean_when_mended(path: Path, old: str, new: str) -> None:
    """`path` with `old` put right as `new` (written beside it) checks clean: the slip the
    test made was all that was wrong with it."""
    assert_checks_clean(write(path.with_name("mended-" + path.name), path.read_text(encoding="utf-8").replace(old, new)))


def write(path: Path, text: str) -> Path:
    path.write_text(text.lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def version(tmp_path: Path) -> Path:
    """A private copy of the current rules version, safe to break."""
    folder = tmp_path.resolve() / "variant"
    shutil.copytree(CURRENT, folder)
    return folder


def add_to_block(folder: Path, rule_id: str, *clauses: str) -> Path:
    """Insert clauses as the first lines of a rule block in the copy; returns the file changed."""
    for file in sorted(folder.glob("*.rules")):
        lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
        for i, text in enumerate(lines):
            if text.startswith(f"rule {rule_id} "):
                lines[i + 1:i + 1] = [c + "\n" for c in clauses]
                file.write_text("".join(lines), encoding="utf-8")
                return file
    raise AssertionError(f"no block {rule_id} in {folder}")


RULES_FILE = "702.26.rules"

GOOD = GOOD_SCENARIO


def test_the_unbroken_copy_has_no_problems(version):
    """The baseline every rule-file test breaks: if this fails, rules/ itself is broken."""
    result = phasing("check", version)
    assert result.returncode == 0 and "no problems found" in result.stdout, show(result)
    result = phasing("run", write(version.parent / "good.scenario", GOOD), "--rules", version)
    assert result.returncode == 0, show(result)


# ---------------------------------------------------------------------------- in a process of its own


@pytest.mark.slow  # (over a second: a child process per case; in the slow selection)
@pytest.mark.parametrize("make, argv", [
    (lambda folder: add_to_block(folder, "702.26p", "  prefer phased_indirectly = true;") and folder, ["check"]),
    (lambda folder: add_to_block(folder, "702.26p", "  during untap step of P: tap x.nothing") and folder, ["check"]),
    (lambda folder: write(folder.parent / "bad.scenario", GOOD.replace("players Alice Bob", "players Alice Alice")),
     ["run"]),
], ids=["syntax", "checker", "scenario"])
def test_a_separate_process_says_what_the_command_in_this_one_says(version, make, argv):
    """The bad-input cases here run the command line in this process (`phasing`); a sample of
    them also runs as the user runs it, in a process of its own: the same lines, the same exit
    status 1, and no traceback Python would print past the command's own handlers."""
    target = make(version)
    inside, alone = phasing(*argv, target), phasing_process(*argv, target)
    assert_no_traceback(alone)
    assert alone.returncode == inside.returncode == 1, show(alone)
    assert (alone.stdout, alone.stderr) == (inside.stdout, inside.stderr)


# ---------------------------------------------------------------------------- rule files: syntax


def test_rule_file_missing_closing_brace(version):
    file = version / RULES_FILE
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, text in enumerate(lines) if text.startswith("rule 702.26a "))
    close = next(i for i in range(start, len(lines)) if lines[i].rstrip() == "}")
    del lines[close]
    file.write_text("".join(lines), encoding="utf-8")
    line = next(i for i in range(close, len(lines)) if lines[i].startswith("rule ")) + 1
    result = phasing("check", version)
    assert_error(result, file, line, 1, "unexpected 'rule'", hint="'}'")
    assert "missing" in result.stderr


def test_rule_file_unexpected_token(version):
    file = add_to_block(version, "702.26p", "  during untap step of P: each x where x.phase is in: set x.phase out")
    line, col = where(file, "set x.phase out")
    result = phasing("check", version)
    assert_error(result, file, line, col + len("set x.phase "), "unexpected 'out'", hint="expected '='")


def test_rule_file_ends_inside_a_block(version):
    file = version / RULES_FILE
    text = file.read_text(encoding="utf-8").rstrip()
    assert text.endswith("}")
    file.write_text(text[:-1], encoding="utf-8")
    last = text[:-1].splitlines()
    result = phasing("check", version)
    assert_error(result, file, len(last), len(last[-1]) + 1, "unexpected end of file", hint="'}'")


def test_rule_file_stray_character(version):
    file = add_to_block(version, "702.26p", "  prefer phased_indirectly = true;")
    line, col = where(file, "true;")
    result = phasing("check", version)
    assert_error(result, file, line, col + 4, "unexpected character ';'", hint="expected")


# ---------------------------------------------------------------------------- rule files: meaning


def test_rule_file_unknown_attribute(version):
    file = add_to_block(version, "702.26p", "  hide x where x.phasse is out")
    line, col = where(file, "x.phasse")
    result = phasing("check", version)
    assert_error(result, file, line, col, "unknown attribute 'phasse'", hint="statuses declared by this version")


def test_rule_file_unknown_verb(version):
    file = add_to_block(version, "702.26p", "  after x.phase becomes out: do phase_sideways x")
    line, col = where(file, "do phase_sideways")
    result = phasing("check", version)
    assert_error(result, file, line, col, "unknown action 'phase_sideways'", hint="verbs declared by this version")


def test_rule_file_unknown_status_value(version):
    file = add_to_block(version, "702.26p", "  as x.phase becomes sideways: tap x")
    line, col = where(file, "as x.phase becomes sideways")
    result = phasing("check", version)
    assert_error(result, file, line, col + len("as x.phase becomes "), "'sideways' is not a value of status 'phase'",
                 hint="values: in, out")


def test_rule_file_duplicated_subrule_id(version):
    file = version / RULES_FILE
    first, _ = where(file, "rule 702.26p ")
    with file.open("a", encoding="utf-8") as handle:
        handle.write('\nrule 702.26p redundant-instances-again "The same subrule a second time." {\n}\n')
    line, _ = where(file, "rule 702.26p ", nth=2)
    result = phasing("check", version)
    assert_error(result, file, line, 1, "rule 702.26p appears twice", hint=f"first at {file}:{first}:1")


def test_rule_file_duplicated_slug(version):
    file = version / RULES_FILE
    text = file.read_text(encoding="utf-8")
    taken = re.search(r"^rule 702\.26h (\S+) ", text, re.M).group(1)
    text = re.sub(r"^rule 702\.26p \S+ ", f"rule 702.26p {taken} ", text, flags=re.M)
    file.write_text(text, encoding="utf-8")
    line, _ = where(file, "rule 702.26p ")
    result = phasing("check", version)
    assert_error(result, file, line, 1, f"slug '{taken}' is used by 702.26h and 702.26p", hint="its own slug")


def test_version_lists_a_subrule_with_no_block(version):
    manifest = version / "version.rules"
    text = manifest.read_text(encoding="utf-8")
    text = re.sub(r"^(\s*section 702\.26 subrules .*?)\s*$", r"\1 q", text, count=1, flags=re.M)
    manifest.write_text(text, encoding="utf-8")
    line, col = where(manifest, "section 702.26 ")
    result = phasing("check", version)
    assert_error(result, manifest, line, col, "subrule 702.26q is listed by the version but has no block",
                 hint="rule 702.26q")


def test_block_for_a_subrule_the_version_does_not_list(version):
    extra = write(version / "loop.rules", """
rule 702.26q not-a-subrule "There is no 702.26q in this version's list." {
  prefer phased_indirectly = true
}
""")
    result = phasing("check", version)
    assert_error(result, extra, 1, 1, "block 702.26q is not a subrule this version lists", hint="subrules")


# ---------------------------------------------------------------------------- rule files: one prefer per status


def test_a_prefer_that_contradicts_an_inherited_one_is_an_error_naming_it(tmp_path):
    """702.26h's `prefer phased_indirectly = true` settles conflicts of that status; a
    variant adding `prefer phased_indirectly = false` to another block would make the winner
    depend on the order blocks are read in. The later clause is an error naming the first."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  extends 2026-09-25
}
amend untap-step-phasing {
  add clause p2: prefer phased_indirectly = false
}
""")
    result = phasing("check", mine)
    lines = assert_error(result, mine, 5, 3, "'prefer phased_indirectly = false' contradicts 'prefer phased_indirectly = true' "
                         "of 702.26h indirect-wins, at ", hint="'drop indirect-wins' in the manifest")
    line, col = where(CURRENT / RULES_FILE, "prefer phased_indirectly = true")
    assert f"702.26.rules:{line}:{col}" in lines[0], show(result)
    assert_clean_when_mended(mine, "add clause p2: prefer phased_indirectly = false", 'summary "unchanged"')


def test_two_prefers_for_one_status_in_one_block_are_an_error(tmp_path):
    """Two contradicting `prefer` clauses in one file: the second is the error, naming the first."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  extends 2026-09-25
}
amend indirect-phasing {
  add clause p2: prefer phase = in
  add clause p3: prefer phase = out
}
""")
    result = phasing("check", mine)
    lines = assert_error(result, mine, 6, 3, "'prefer phase = out' contradicts 'prefer phase = in' of 702.26g "
                         "indirect-phasing", hint="drop this one, or remove the other")
    assert f"{mine}:5:3" in lines[0], show(result)


def test_a_prefer_said_twice_is_an_error(tmp_path):
    """The same `prefer` twice says nothing the first does not (reference.md, `prefer`): an
    error at the second, so that a later edit of one cannot silently set the two apart."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  extends 2026-09-25
}
amend untap-step-phasing {
  add clause p2: prefer phased_indirectly = true
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 5, 3, "'prefer phased_indirectly = true' is said twice: 702.26h indirect-wins",
                 hint="drop this one")


# ---------------------------------------------------------------------------- rule files: constructs that mean nothing


def test_an_amend_that_drops_every_clause_of_a_block_is_an_error(tmp_path):
    """An amend that drops all four clauses of 702.26n would leave a block doing nothing,
    which `ablate` would call a definition: an error at the last drop, pointing to `drop`."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  extends 2026-09-25
}
amend absent-controller {
  drop clause exile-controlled-not-owned
  drop clause mark-for-return
  drop clause return-at-next-untap
  drop clause clear-return-mark
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 8, 3, "this amend drops every clause of 702.26n absent-controller",
                 hint="'drop absent-controller' in the manifest")
    # (mended: the clauses acting in the untap step and as a player leaves are kept, so the
    # orders of 502.1 and 800.4a still have 702.26n to put in order)
    assert_clean_when_mended(mine, "  drop clause exile-controlled-not-owned\n  drop clause mark-for-return\n"
                                   "  drop clause return-at-next-untap\n", "  drop clause mark-for-return\n")


def test_an_order_listing_a_block_twice_or_one_not_at_its_hook_is_an_error(tmp_path):
    """502.1 orders the blocks acting in the untap step: 702.26b acts at no hook, and 502.3
    named twice says nothing; each is an error at the id."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  extends 2026-09-25
}
rule 502.1 untap-step-order "Bad order." {
  order untap step: 702.26b, 502.3, 502.3
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 5, 37, "502.3 is listed twice in 'order untap step'", hint="order untap step: 702.26b, 502.3")
    assert_error(result, mine, 5, 21, "702.26b treated-as-nonexistent has no 'during untap step' clause",
                 hint="502.3, 702.26a, 702.26n")
    assert_clean_when_mended(mine, "702.26b, 502.3, 502.3", "702.26a, 702.26n, 502.3")


def test_a_section_listed_twice_in_a_manifest_is_an_error(tmp_path):
    """Two `section 702.26 subrules` lines in different orders: which letters the version
    has would depend on which is read; the second is an error naming the first."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  extends 2026-09-25
  section 702.26 subrules p n m k j i h g f e d c b a
  section 702.26 subrules a b c d e f g h i j k m n p
}
""")
    result = phasing("check", mine)
    lines = assert_error(result, mine, 4, 3, "section 702.26 is listed twice", hint="on one 'section 702.26 subrules")
    assert f"{mine}:3:3" in lines[0], show(result)


# ---------------------------------------------------------------------------- scenarios: starting states the rules never make


@pytest.mark.parametrize("command", ["check", "test"])
def test_a_permanent_starting_phased_out_under_no_one_breaks_702_26a_s_invariant(command, tmp_path):
    """702.26a: a permanent phases out under its controller, and phases in at that player's
    untap step; one set phased out with no `phased_out_under` would never phase in. The
    rulebook's `assert always` of 702.26a says so, at the permanent's line, naming the block."""
    path = write(tmp_path / "start.scenario", """
scenario "phased out under no one" {
  cites 702.26a
  players Alice Bob
  turn 2 of Bob
  permanent bear = "Grizzly Bears", controller Alice, set phase = out
  script {
    next turn
    expect bear.phase is in
  }
}
""")
    result = phasing(command, path)
    lines = assert_error(result, path, 5, 3, "'bear' starts in a state the rules never make: 702.26a untap-step-phasing "
                         "asserts 'x.phase is in or x.phased_out_under is not none'",
                         hint="(the condition reads bear.phase = out, bear.phased_out_under = none)")
    assert "702.26.rules:" in lines[0], show(result)
    assert_clean_when_mended(path, "set phase = out", "set phase = out, set phased_out_under = Alice")


def test_an_aura_starting_phased_out_indirectly_on_a_phased_in_host_breaks_702_26g_s_invariant(tmp_path):
    """702.26g: an Aura phased out indirectly phases in with its host; on a phased-in host it
    would stay out for ever. 702.26g's `assert always` reports it at the Aura's line."""
    path = write(tmp_path / "start.scenario", """
scenario "indirect aura on a phased-in host" {
  cites 702.26g
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  permanent s = "Holy Strength", controller Alice, attached to bear, set phase = out, set phased_indirectly = true, set phased_out_under = Alice
  script {
    expect s.phase is out
  }
}
""")
    result = phasing("check", path)
    assert_error(result, path, 5, 3, "'s' starts in a state the rules never make: 702.26g indirect-phasing asserts",
                 hint="phased_indirectly = true")
    assert "'bear'" not in result.stderr, show(result)
    mended = path.read_text(encoding="utf-8").replace("  permanent bear = \"Grizzly Bears\", controller Alice\n",
                                                      "  permanent bear = \"Grizzly Bears\", controller Alice, set phase = out, "
                                                      "set phased_out_under = Alice\n")
    assert_checks_clean(write(tmp_path / "mended.scenario", mended))


def test_a_start_state_refusal_shows_every_value_the_condition_reads_the_host_s_too(tmp_path):
    """702.26g: an Aura phased out indirectly comes back only with its host. When it fails the
    invariant because of its host's phase, the hint shows what the condition read of both:
    the Aura's statuses, what it is attached to, and that host's phase (it showed only the
    Aura's own statuses, which are not what is wrong)."""
    path = write(tmp_path / "start.scenario", """
scenario "indirect aura on a phased-in host" {
  cites 702.26g
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to bear, set phase = out, set phased_indirectly = true, set phased_out_under = Alice
  script {
    expect strength.phase is out
  }
}
""")
    assert_error(phasing("check", path), path, 5, 3, "'strength' starts in a state the rules never make: 702.26g",
                 hint="(the condition reads strength.phase = out, strength.phased_indirectly = true, "
                      "strength.attached_to = bear, bear.phase = in)")


@pytest.mark.parametrize("attached", [", attached to Alice", ""], ids=["on-a-player", "on-nothing"])
def test_a_permanent_starting_phased_out_indirectly_on_a_player_or_on_nothing_breaks_702_26g_s_invariant(attached, tmp_path):
    """702.26g: a permanent phases out indirectly only together with the permanent it is attached
    to, and phases in only with it. A Curse on a player (303.4) or an Aura attached to nothing,
    set phased out indirectly, would never come back: 702.26g's `assert always` refuses it at
    its line, as a start state the rules never make (for the Curse it read a player's phase,
    an error in the rule file with no scenario position; the Aura on nothing passed)."""
    card = "Curse of Chains" if attached else "Holy Strength"
    path = write(tmp_path / "start.scenario", f"""
scenario "phased out indirectly, with no permanent to come back with" {{
  cites 702.26g
  players Alice Bob
  permanent aura = "{card}", controller Bob{attached}, set phase = out, set phased_out_under = Bob, set phased_indirectly = true
  script {{
    expect aura.phase is out
  }}
}}
""")
    result = phasing("check", path)
    assert_error(result, path, 4, 3, "'aura' starts in a state the rules never make: 702.26g indirect-phasing asserts",
                 hint="give it statuses that meet that")
    assert_clean_when_mended(path, "set phased_indirectly = true", "set phased_indirectly = false")


HOST_SEEN = """
variant hostseen {
  extends 2026-09-25
}

amend indirect-phasing {
  add clause host-seen: assert always x: x.phase is in or x.attached_to.phase is out
}
"""


def test_an_assert_always_that_cannot_be_read_of_a_start_state_is_an_error_at_the_permanent(tmp_path):
    """A Curse enchants a player (303.4), and a player has no `phase`: a variant's `assert always`
    that reads x.attached_to.phase of a phased-out Curse on Alice cannot be judged. The error
    is at the permanent's line, naming the block and where the clause is, and what went
    wrong: not a bare error in the rule file with no position in the scenario."""
    write(tmp_path / "hostseen.rules", HOST_SEEN)
    path = write(tmp_path / "curse.scenario", """
scenario "a Curse phased out on a player" {
  players Alice Bob
  permanent curse = "Curse of Chains", controller Bob, attached to Alice, set phase = out, set phased_out_under = Bob
  script {
    expect curse.phase is out
  }
}
""")
    result = phasing("test", path, "--rules-path", tmp_path, "--rules", "hostseen")
    lines = assert_error(result, path, 3, 3, "curse cannot be judged by the assertion of 702.26g indirect-phasing "
                         "(at ", hint="test what it reads from")
    assert "hostseen.rules:6:3" in lines[0] and "a player has no attribute 'phase'" in lines[0], show(result)


def test_an_assert_always_that_cannot_be_read_during_play_is_an_error_at_the_clause_naming_the_object(tmp_path):
    """The same clause, read after Slip Away phases the Curse out (702.26a): the error is at
    the clause, names the object and the step, and says what could not be read."""
    write(tmp_path / "hostseen.rules", HOST_SEEN)
    path = write(tmp_path / "curse.scenario", """
scenario "a Curse slips away" {
  players Alice Bob
  turn 1 of Alice
  permanent curse = "Curse of Chains", controller Bob, attached to Alice
  script {
    cast "Slip Away" by Alice targeting curse
  }
}
""")
    result = phasing("test", path, "--rules-path", tmp_path, "--rules", "hostseen")
    lines = assert_error(result, tmp_path / "hostseen.rules", 6, 3,
                         "assertion of 702.26g indirect-phasing cannot be judged for curse: a player has no attribute 'phase'",
                         hint="test what it reads from")
    assert f"(at step 1, {path}:6:5)" in lines[0], show(result)


def test_only_the_versions_with_the_blocks_have_the_start_state_invariants():
    """702.26a and 702.26g of 2026-09-25 carry the `assert always` clauses; 2005-02-01
    (phasing as a zone, 502.15) writes its blocks itself and has none, so its scenarios are
    not judged by invariants on statuses it does not have."""
    from phasing_rules.dsl import ast
    from phasing_rules.interpreter.rulebook.loading import load_version

    assert [r.id for r in load_version("2026-09-25").rules if any(isinstance(c, ast.AssertAlways) for c in r.clauses)] \
        == ["702.26a", "702.26g"]
    assert not [r.id for r in load_version("2005-02-01").rules if any(isinstance(c, ast.AssertAlways) for c in r.clauses)]


# ---------------------------------------------------------------------------- variants: what a manifest drops


def test_variant_drops_a_block_its_base_does_not_have(tmp_path):
    """A misspelt `drop` is reported on its own line, with the names it may have meant."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  title "No indirect phasing, with a typo"
  extends 2026-09-25
  drop indirect-phasng
  section 702.26 subrules a b c d e f h i j k m n p
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 4, 3, "'indirect-phasng' is not a block, verb or status of 2026-09-25",
                 hint="did you mean 'indirect-phasing'")


def test_variant_extends_a_version_there_is_not(tmp_path):
    """A mistyped `extends` is reported on its own line, with the version it may have meant;
    one that names the variant itself is a cycle, said at the same line."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  title "Built on a date with its digits swapped"
  extends 2026-09-52
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 3, 3, "'2026-09-52' is not a version or variant in the rules folders",
                 hint="did you mean '2026-09-25'?")
    itself = write(tmp_path / "itself.rules", mine.read_text(encoding="utf-8").replace("2026-09-52", "mine"))
    assert_error(phasing("check", itself), itself, 3, 3, "'mine' extends itself through mine -> mine")
    assert_clean_when_mended(mine, "2026-09-52", "2026-09-25")


def test_variant_drops_without_extending_anything(tmp_path):
    mine = write(tmp_path / "mine.rules", """
variant mine {
  title "Drops from nothing"
  drop indirect-phasing
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 3, 3, "renumber and drop need an 'extends'", hint="add 'extends VERSION'")


def test_variant_without_extends_is_an_error_at_its_manifest(tmp_path):
    """A variant is a patch over a version or another variant (reference.md, Version manifests
    and variants): without `extends` it has none of the vocabulary 702.26 declares, and every
    run under it used to fail in the shipped card library. `check` says so at the manifest."""
    child = write(tmp_path / "child.rules", """
variant child {
  title "a"
}
""")
    result = phasing("check", child)
    assert_error(result, child, 1, 1, "a variant needs 'extends VERSION'", hint="add 'extends 2026-09-25'")
    assert "library.rules" not in result.stderr and "1 error(s)" in result.stderr, show(result)
    run = phasing("run", ROOT / "tests" / "scenarios" / "tour.scenario", "--rules", child)
    assert_error(run, child, 1, 1, "a variant needs 'extends VERSION'")
    assert "library.rules" not in run.stderr, show(run)
    fixed = write(tmp_path / "fixed.rules", child.read_text(encoding="utf-8").replace(
        "variant child", "variant fixed").replace('"a"', '"a"\n  extends 2026-09-25'))
    assert_checks_clean(fixed)


@pytest.mark.parametrize("entry, first, second", [
    ("extends", "extends 2026-09-25", "extends 2025-02-07"),
    ("title", 'title "a"', 'title "b"'),
    ("reconstructed", 'reconstructed "from a bulletin"', 'reconstructed "from a later text"'),
])
def test_manifest_entry_given_twice_is_an_error_at_the_second(tmp_path, entry, first, second):
    """A manifest has one title, one extends and one reconstructed (reference.md, Version
    manifests and variants); the second was silently ignored. Notes may be several."""
    mine = write(tmp_path / "mine.rules",
                 f'variant mine {{\n  extends 2026-09-25\n  {first}\n  note "one"\n  note "two"\n  {second}\n}}\n'
                 .replace("  extends 2026-09-25\n  extends", "  extends"))
    line, col = where(mine, second)
    first_line = where(mine, first)[0]
    result = phasing("check", mine)
    assert_error(result, mine, line, col, f"'{entry}' is given twice in the manifest of mine; the first is at line {first_line}",
                 hint=f"the first is at {mine}:{first_line}:")
    assert "1 error(s)" in result.stderr, show(result)
    fixed = write(tmp_path / "fixed.rules", mine.read_text(encoding="utf-8").replace(
        "variant mine", "variant fixed").replace(f"  {second}\n", ""))
    assert_checks_clean(fixed)


def test_renumber_onto_a_number_another_inherited_block_has_is_an_error_at_the_renumber(tmp_path):
    """702.26h (indirect-wins) keeps its number when 702.26g is renumbered onto it: one error at
    the renumber naming the block there, not two blocks 702.26h in the shipped 702.26.rules."""
    rc = write(tmp_path / "rc.rules", "variant rc {\n  extends 2026-09-25\n  renumber 702.26g as 702.26h\n}\n")
    result = phasing("check", rc)
    assert_error(result, rc, 3, 3, "702.26h is already the number of a block of 2026-09-25: indirect-wins",
                 hint="'drop indirect-wins'")
    assert "1 error(s)" in result.stderr and "702.26.rules" not in result.stderr, show(result)
    both = write(tmp_path / "both.rules", "variant both {\n  extends 2026-09-25\n  renumber 702.26g as 702.26h\n"
                                          "  renumber 702.26f as 702.26h\n}\n")
    result = phasing("check", both)
    assert_error(result, both, 4, 3, "another renumber moves indirect-phasing (702.26g in 2026-09-25) there too")
    moved = write(tmp_path / "moved.rules", "variant moved {\n  extends 2026-09-25\n  renumber 702.26g as 702.26h\n"
                                            "  renumber 702.26h as 702.26q\n"
                                            "  section 702.26 subrules a b c d e f h i j k m n p q\n}\n")
    assert_checks_clean(moved)  # (renumbers are made all at once: h has moved out of the way)


def test_a_block_dropped_twice_is_said_to_be_dropped_twice(tmp_path):
    """indirect-wins (702.26h) is a block of 2026-09-25: a second drop of it, by slug or by id,
    is a repeat, not a name the version lacks."""
    dd = write(tmp_path / "dd.rules", "variant dd {\n  extends 2026-09-25\n  drop indirect-wins\n  drop indirect-wins\n"
                                      "  section 702.26 subrules a b c d e f g i j k m n p\n}\n")
    result = phasing("check", dd)
    assert_error(result, dd, 4, 3, "'indirect-wins' is dropped twice; the first is at line 3", hint=f"{dd}:3:3")
    assert "is not a block" not in result.stderr and "1 error(s)" in result.stderr, show(result)
    by_id = write(tmp_path / "by_id.rules", dd.read_text(encoding="utf-8").replace(
        "variant dd", "variant by_id").replace("  drop indirect-wins\n  drop indirect-wins", "  drop indirect-wins\n  drop 702.26h"))
    assert_error(phasing("check", by_id), by_id, 4, 3, "'702.26h' is dropped twice; the first is at line 3")
    once = write(tmp_path / "once.rules", dd.read_text(encoding="utf-8").replace(
        "variant dd", "variant once").replace("  drop indirect-wins\n  drop indirect-wins", "  drop indirect-wins"))
    assert_checks_clean(once)


def test_a_drop_by_the_number_a_renumber_moved_a_block_from_names_the_renumber(tmp_path):
    """The variant's own renumber moves 702.26h (indirect-wins) to 702.26q, so 'drop 702.26h'
    then named nothing; the error said '702.26h' was no block of 2026-09-25, which it is. It
    names the renumber and its line, and the number and slug to drop it by."""
    rd = write(tmp_path / "rd.rules", "variant rd {\n  extends 2026-09-25\n  renumber 702.26h as 702.26q\n"
                                      "  drop 702.26h\n  section 702.26 subrules a b c d e f g i j k m n p\n}\n")
    result = phasing("check", rd)
    assert_error(result, rd, 4, 3, "'702.26h' numbers no block here: this variant's own 'renumber 702.26h as 702.26q' "
                                   "(line 3) moves indirect-wins (702.26h in 2026-09-25) to 702.26q",
                 hint="drop it by its new number ('drop 702.26q') or by its slug ('drop indirect-wins')")
    assert "is not a block, verb or status" not in result.stderr and "1 error(s)" in result.stderr, show(result)
    assert_clean_when_mended(rd, "drop 702.26h", "drop 702.26q")
    assert_clean_when_mended(rd, "drop 702.26h", "drop indirect-wins")


SHIPPED_AT = re.compile(r"^\S*rules/2026-09-25/\S+: error: ", re.M)  # an error positioned in a shipped file


def test_a_drop_that_an_inherited_block_still_refers_to_is_an_error_at_the_drop(tmp_path):
    """502.1's order names 502.3 (CR 502.1: the untap step begins with phasing, then 502.3's
    untapping): dropping 502.3 used to be reported only in the shipped support.rules, with a
    hint to change it. The error is at the drop, names 502.1, notes where 502.1 refers to it,
    and says how to mend it in the variant; restating 502.1 without it, or dropping it too, is
    clean."""
    du = write(tmp_path / "du.rules", "variant du {\n  extends 2026-09-25\n  drop untap-permanents\n}\n")
    result = phasing("check", du)
    lines = assert_error(result, du, 3, 3, "'drop untap-permanents' takes away block 502.3 untap-permanents, which "
                                           "502.1 untap-step-order still refers to", hint="restate 502.1 untap-step-order")
    assert "drop untap-step-order too" in lines[3], show(result)
    support = CURRENT / "support.rules"
    line, col = where(support, "order untap step")
    assert f"  note: {support}:{line}:{col}: 502.1 untap-step-order lists 502.3" in result.stderr, show(result)
    assert not SHIPPED_AT.search(result.stderr) and "1 error(s)" in result.stderr, show(result)
    notes = json.loads(phasing("show", du, "--json").stdout)["errors"][0]["notes"]
    assert [(n["path"], n["line"], n["column"]) for n in notes] == [(str(support), line, col)]
    assert_clean_when_mended(du, "  drop untap-permanents\n", "  drop untap-permanents\n  drop untap-step-order\n")
    assert_clean_when_mended(du, "}\n", '}\nrule 502.1 untap-step-order "phasing only" {\n  order untap step: 702.26a, 702.26n\n}\n')


@pytest.mark.parametrize("name, kind, users, places", [
    ("phase_in", "verb", "610.4 phase-out-until, 702.26a untap-step-phasing, 702.26g indirect-phasing and "
                         "702.26n absent-controller still use", 4),
    ("phased_indirectly", "status", "702.26a untap-step-phasing, 702.26g indirect-phasing, 702.26h indirect-wins, "
                                    "702.26n absent-controller and verb phase_out still use", 8),
])
def test_a_dropped_verb_or_status_still_used_is_an_error_at_the_drop(tmp_path, name, kind, users, places):
    """The blocks of 702.26 (702.26a's untap step, 702.26g's attachments, ...) and the verbs that
    phase permanents use these words: a drop of one was 4 or 6 errors in the shipped files.
    It is one, at the drop, with each place as a note, and a hint to amend the labelled clauses
    in the variant (never to change a shipped file)."""
    mine = write(tmp_path / "mine.rules", f"variant mine {{\n  extends 2026-09-25\n  drop {name}\n}}\n")
    result = phasing("check", mine)
    lines = assert_error(result, mine, 3, 3, f"'drop {name}' takes away {kind} {name}, which {users}",
                         hint="untap-step-phasing (clause phase-out-and-in)")
    assert "  hint: in mine.rules: amend " in lines[3], show(result)
    assert not SHIPPED_AT.search(result.stderr) and "1 error(s)" in result.stderr, show(result)
    assert result.stderr.count("\n  note: ") == places, show(result)
    assert "remove the block" not in lines[3] and "replacing or dropping those clauses" in lines[3], show(result)


def test_renumber_off_a_subrule_the_inherited_sections_list_is_an_error_at_the_renumber(tmp_path):
    """702.26 lists subrules a to p (CR 702.26); renumbering 702.26g as 702.26z without a
    section line of the variant's own used to be reported at the shipped block 702.26g as
    'block 702.26z is not a subrule this version lists', hinting to remove it. It is said at the
    renumber, with the section line to give."""
    moved = write(tmp_path / "moved.rules", "variant moved {\n  extends 2026-09-25\n  renumber 702.26g as 702.26z\n}\n")
    result = phasing("check", moved)
    assert_error(result, moved, 3, 3, "'renumber 702.26g as 702.26z' moves indirect-phasing (702.26g) to 702.26z, but "
                                      "the sections inherited from 2026-09-25 still list 702.26g",
                 hint="'section 702.26 subrules a b c d e f h i j k m n p z'")
    assert not SHIPPED_AT.search(result.stderr) and "1 error(s)" in result.stderr, show(result)
    assert_clean_when_mended(moved, "  renumber 702.26g as 702.26z\n",
                             "  renumber 702.26g as 702.26z\n  section 702.26 subrules a b c d e f h i j k m n p z\n")
    into = write(tmp_path / "into.rules", "variant into {\n  extends 2026-09-25\n  renumber 502.3 as 702.26q\n}\n")
    assert_error(phasing("check", into), into, 3, 3, "moves untap-permanents (502.3) to 702.26q, which the sections "
                 "inherited from 2026-09-25 do not list", hint="'section 702.26 subrules a b c d e f g h i j k m n p q'")


def test_a_file_with_two_manifests_is_an_error_at_the_second(tmp_path):
    two = write(tmp_path / "twoman.rules", "variant twoman {\n  extends 2026-09-25\n}\n\n"
                                           "variant other {\n  extends 2026-09-25\n}\n")
    result = phasing("check", two)
    assert_error(result, two, 5, 1, "a version needs exactly one manifest, found 2",
                 hint=f"the first is 'variant twoman' at {two}:1:1")
    assert "1 error(s)" in result.stderr, show(result)


def test_scenario_cites_a_subrule_no_version_it_runs_under_has(tmp_path):
    """702.26 has no subrule z in 2026-09-25 (nor l or o); 610.3 is outside the sections the
    rulebook models and is taken as written; 702.26p, a subrule of it, is fine."""
    scenario = write(tmp_path / "cites.scenario", GOOD.replace(
        "  players Alice Bob\n", "  cites 702.26p, 610.3, 702.26z\n  players Alice Bob\n"))
    result = phasing("check", scenario)
    assert_error(result, scenario, 2, 3, "cites 702.26z, which is no subrule of 702.26 in 2026-09-25",
                 hint="702.26 has subrules a b c d e f g h i j k m n p")
    assert result.stderr.count(": error: ") == 1 and "1 error(s)" in result.stderr, show(result)  # (not 610.3, not 702.26p)
    assert_clean_when_mended(scenario, ", 702.26z", "")


def test_variant_orders_a_block_its_rulebook_does_not_have(tmp_path):
    """502.3 is the untap action in 2026-09-25; 502.9 is no block of it."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  title "An order with a mistyped rule"
  extends 2026-09-25
}

rule 999.1 probe-order "orders the untap step with a rule that is not there" {
  order untap step: 502.9, 702.26a
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 7, 3, "no block 502.9 in this version", hint="did you mean '502.3'")


def test_variant_renumbers_what_its_base_does_not_number(tmp_path):
    """A mistyped renumber used to move nothing, silently; it is reported on its own line,
    with the numbers it may have meant (2026-09-25's phasing section is 702.26)."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  title "Phasing under an older number, mistyped"
  extends 2026-09-25
  renumber 702.62 as 702.25
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 4, 3, "'renumber 702.62 as 702.25' moves nothing", hint="did you mean '702.26'")
    assert_clean_when_mended(mine, "702.62", "702.26")
    alone = write(tmp_path / "alone.rules", mine.read_text(encoding="utf-8").replace("  extends 2026-09-25\n", ""))
    assert_error(phasing("check", alone), alone, 3, 3, "renumber and drop need an 'extends'")


def test_variant_drops_a_block_the_sections_it_inherits_list(tmp_path):
    """702.26g's block (indirect phasing) dropped while the sections are inherited from 2026-09-25,
    which list 702.26g: said at the drop, the hint writing the section out without g."""
    mine = write(tmp_path / "mine.rules", """
variant mine {
  title "No indirect phasing, sections forgotten"
  extends 2026-09-25
  drop indirect-phasing
}
""")
    result = phasing("check", mine)
    assert_error(result, mine, 4, 3, "dropping 'indirect-phasing' leaves subrule 702.26g",
                 hint="'section 702.26 subrules a b c d e f h i j k m n p'")
    # the hint's section, written in, is all the manifest lacked; and a block of the variant's own
    # for 702.26g, in place of the one dropped, leaves nothing missing either
    assert_clean_when_mended(mine, "  drop indirect-phasing\n",
                             "  drop indirect-phasing\n  section 702.26 subrules a b c d e f h i j k m n p\n")
    own = write(tmp_path / "own.rules", mine.read_text(encoding="utf-8") + """
rule 702.26g no-indirect-here "In this variant nothing phases along with what it is attached to." {
}
""")
    assert_checks_clean(own)


def test_every_problem_in_a_version_is_reported(version):
    file = add_to_block(version, "702.26p", "  hide x where x.phasse is out", "  after x.phase becomes out: do phase_sideways x")
    result = phasing("check", version)
    assert_error(result, file, *where(file, "x.phasse"), "unknown attribute 'phasse'")
    assert_error(result, file, *where(file, "do phase_sideways"), "unknown action 'phase_sideways'")
    assert "2 error(s)" in result.stderr


def test_bad_rules_given_to_run_and_test(version, tmp_path):
    file = add_to_block(version, "702.26p", "  hide x where x.phasse is out")
    scenario = write(tmp_path / "good.scenario", GOOD)
    line, col = where(file, "x.phasse")
    assert_error(phasing("run", scenario, "--rules", version), file, line, col, "unknown attribute 'phasse'")
    result = phasing("test", scenario, "--rules", version)
    assert_error(result, file, line, col, "unknown attribute 'phasse'")


# ---------------------------------------------------------------------------- scenarios


SCENARIOS = {
    "syntax": ("""
scenario "a missing comma" {
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper" controller Alice
  script {
    next turn
  }
}
""", 4, 36, "unexpected 'controller'", "expected '}', 'cites', ','"),
    "unknown-card": ("""
scenario "a card nobody wrote" {
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeper", controller Alice
}
""", 4, 3, 'unknown card "Breezekeper"', "did you mean 'Breezekeeper'? Cards live in rules/cards/"),
    "unknown-player-in-turn": ("""
scenario "a turn of nobody" {
  players Alice Bob
  turn 1 of Carol
  permanent djinn = "Breezekeeper", controller Alice
}
""", 3, 3, "unknown player 'Carol'", "players are: Alice, Bob"),
    "unknown-controller": ("""
scenario "controlled by nobody" {
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Carol
}
""", 4, 37, "unknown player 'Carol'", "players are: Alice, Bob"),
    "unknown-status-value": ("""
scenario "half phased" {
  players Alice Bob
  permanent djinn = "Breezekeeper", controller Alice, set phase = sideways
}
""", 3, 67, "'sideways' is not a value of status 'phase'", "values: in, out"),
    "aura-attached-to-nothing": ("""
scenario "an Aura on a ghost" {
  players Alice Bob
  turn 1 of Bob
  permanent bears = "Grizzly Bears", controller Alice
  permanent might = "Holy Strength", controller Alice, attached to ghost
}
""", 5, 56, "'might' is attached to 'ghost', which does not exist", "attach to a permanent or player"),
    "attachment-cycle": ("""
scenario "two Auras on each other" {
  players Alice Bob
  permanent a = "Holy Strength", controller Alice, attached to b
  permanent b = "Holy Strength", controller Alice, attached to a
}
""", 3, 3, "attachment cycle: a -> b -> a", "attachment chain must end"),
    "name-used-twice": ("""
scenario "a permanent named like a player" {
  players Alice Bob
  permanent Alice = "Grizzly Bears"
}
""", 3, 3, "the name 'Alice' is already used", "its own name"),
    "unknown-name-in-expect": ("""
scenario "a typo in an expectation" {
  players Alice Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    expect djin.phase is in
  }
}
""", 5, 12, "unknown name 'djin'", "a variable bound here"),
    "no-players": ("""
scenario "nobody plays" {
  script {
    next turn
  }
}
""", 1, 1, "a scenario needs a 'players' line", "players Alice Bob"),
}


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("case", list(SCENARIOS))
def test_bad_scenario(case, command, tmp_path):
    text, line, col, message, hint = SCENARIOS[case]
    scenario = write(tmp_path / f"{case}.scenario", text)
    assert_error(phasing(command, scenario), scenario, line, col, message, hint=hint)


def assert_folder_reported(cases: dict, folder: Path):
    """`phasing test` on a folder of bad scenarios: each reported in place, all counted as failed."""
    for case, (text, *_rest) in cases.items():
        write(folder / f"{case}.scenario", text)
    result = phasing("test", folder)
    for case, (_text, line, col, message, hint) in cases.items():
        assert_error(result, folder / f"{case}.scenario", line, col, message, hint=hint)
    assert result.stdout.splitlines()[-1] == f"0 passed, {len(cases)} failed", show(result)
    return result


def test_bad_scenarios_under_test(tmp_path):
    assert_folder_reported(SCENARIOS, tmp_path)


# Problems that only show when the script is played: `check` may pass them, `run` and `test` must not.
PLAYED = {
    "leaves-twice": ("""
scenario "Carol leaves twice" {
  players Alice Bob Carol
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    Carol leaves the game
    Carol leaves the game
  }
}
""", 7, 5, "'Carol' has already left the game", None),
    "cast-by-absent-player": ("""
scenario "Carol casts after leaving" {
  players Alice Bob Carol
  turn 1 of Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    Carol leaves the game
    cast "Giant Growth" by Carol targeting bears
  }
}
""", 7, 5, "'Carol' has left the game and cannot cast anything", "name a player still in the game"),
    "cast-by-unknown-player": ("""
scenario "Dave was never here" {
  players Alice Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    cast "Giant Growth" by Dave targeting bears
  }
}
""", 5, 5, "'Dave' is not a player of the game", "players are: Alice, Bob"),
    "unknown-player-leaves": ("""
scenario "Dave leaves" {
  players Alice Bob
  script {
    Dave leaves the game
  }
}
""", 4, 5, "unknown player 'Dave'", "players are: Alice, Bob"),
    "cast-unknown-card": ("""
scenario "a spell nobody wrote" {
  players Alice Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    cast "Giant Grwth" by Alice targeting bears
  }
}
""", 5, 5, 'unknown card "Giant Grwth"', "did you mean 'Giant Growth'? Cards live in rules/cards/"),
    "wrong-number-of-targets": ("""
scenario "a targeted spell without a target" {
  players Alice Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    cast "Giant Growth" by Alice
  }
}
""", 5, 5, '"Giant Growth" needs 1 target(s), 0 given', None),
    "choose-for-a-spell": ("""
scenario "targets chosen in advance for a spell" {
  players Alice Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    choose "Giant Growth" targeting bears
  }
}
""", 5, 5, '"Giant Growth" has no triggered ability with targets', "targets of a spell are chosen as it is cast"),
    "choose-too-many-targets": ("""
scenario "two targets for an ability with one" {
  players Alice Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    choose "Phase Warden" targeting bears, bears
  }
}
""", 5, 5, '"Phase Warden" needs 1 target(s), 2 given', "name its targets"),
    "choose-never-used": ("""
scenario "a choice nothing uses" {
  players Alice Bob
  turn 1 of Alice
  permanent warden = "Phase Warden", controller Alice
  permanent bears = "Grizzly Bears", controller Bob
  script {
    choose "Phase Warden" targeting bears
    expect warden.phase is in
  }
}
""", 7, 5, 'targets chosen for "Phase Warden" were never used', "play on until the ability triggers"),
    "choose-illegal-when-it-triggers": ("""
scenario "the chosen target has phased out by the time the ability triggers" {
  players Alice Bob
  turn 1 of Bob
  permanent warden = "Phase Warden", controller Alice, set phase = out, set phased_out_under = Alice
  permanent bears = "Grizzly Bears", controller Bob, set phase = out, set phased_out_under = Bob
  script {
    choose "Phase Warden" targeting bears
    next turn
  }
}
""", 7, 5, "'bears' cannot be a target of the ability of \"Phase Warden\" as it is put on the stack",
        "a target must exist, be seen by the game"),
    "nothing-to-resolve": ("""
scenario "resolve an empty stack" {
  players Alice Bob
  script {
    resolve
  }
}
""", 4, 5, "there is nothing on the stack to resolve", "'hold'"),
    "attack-with-nobody": ("""
scenario "attack with a permanent that isn't there" {
  players Alice Bob
  script {
    attack with nobody
  }
}
""", 4, 5, "unknown permanent 'nobody'", "name a permanent declared"),
    "attack-with-a-misspelt-permanent": ("""
scenario "attack with a bear, mistyped" {
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  script {
    attack with baer
  }
}
""", 5, 5, "unknown permanent 'baer'", "did you mean 'bear'? Name a permanent declared"),
    # 508.1a: without haste, a creature attacks only if its controller has controlled it
    # continuously since their most recent turn began (302.6).
    "attack-with-a-summoning-sick-creature": ("""
scenario "attack with a bear that came this turn" {
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice, entered turn 1
  script {
    attack with bear
  }
}
""", 6, 5, "'bear' cannot attack: it is summoning sick", "haste"),
    # 508.1: attackers are declared as the declare attackers step begins, once in the turn's
    # combat; with the game in that step already, a second declaration is refused.
    "attack-twice": ("""
scenario "attack with the same bear twice" {
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  script {
    attack with bear
    attack with bear
  }
}
""", 6, 5, "the game is in the declare attackers step already: what is done as it begins was done then (500.1)", "play on to the next turn"),
    # 508.1b: a creature attacks an opponent (or a planeswalker one controls), never the
    # active player.
    "attack-the-active-player": ("""
scenario "attack Alice on her own turn" {
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    attack with bear at Alice
  }
}
""", 6, 5, "'Alice' cannot be attacked: it is their own turn (508.1b)", "attack an opponent still in the game"),
    # 509.1a: the defending player declares blockers among the untapped creatures they control
    # (the shipped 509.1a untapped-blockers: `forbid block of a by b where b.tapped`).
    "block-with-a-tapped-creature": ("""
scenario "block with a tapped bear" {
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent wall = "Grizzly Bears", controller Bob, tapped
  script {
    attack with bear
    declare blockers: wall blocks bear
  }
}
""", 8, 5, "'wall' cannot block 'bear': block 509.1a untapped-blockers forbids it", "block with another creature"),
    # 702.9b: a creature with flying can be blocked only by creatures with flying or reach.
    "block-a-flyer": ("""
scenario "a bear blocks an angel" {
  players Alice Bob
  turn 1 of Alice
  permanent angel = "Serra Angel", controller Alice
  permanent bear = "Grizzly Bears", controller Bob
  script {
    attack with angel
    declare blockers: bear blocks angel
  }
}
""", 8, 5, "'bear' cannot block 'angel': block 702.9b flying forbids it", "block with another creature"),
    # 509.1a: the defending player blocks, with creatures they control.
    "block-with-the-attacker-s-own-creature": ("""
scenario "Alice blocks her own angel" {
  players Alice Bob
  turn 1 of Alice
  permanent angel = "Serra Angel", controller Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    attack with angel
    declare blockers: bear blocks angel
  }
}
""", 8, 5, "'bear' cannot block 'angel': Alice controls it, and 'angel' attacks Bob (509.1a)", "only creatures Bob controls"),
    # 509.1a: only an attacking creature is blocked.
    "block-a-creature-not-attacking": ("""
scenario "block a bear at home" {
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent other = "Grizzly Bears", controller Bob
  script {
    declare blockers: other blocks bear
  }
}
""", 7, 5, "'other' cannot block 'bear': it is not an attacking creature the game sees (509.1a)",
                                       "declared as an attacker this combat"),
    # 500.1: the steps of a turn come in order; one gone by comes again only next turn.
    "to-a-step-gone-by": ("""
scenario "back to the untap step" {
  players Alice Bob
  turn 1 of Alice
  script {
    to untap step
  }
}
""", 5, 5, "the untap step of this turn is over: the game is in the precombat main phase (500.1)",
                          "play on to the next turn ('next turn')"),
    # 500.1: the turn has the steps its rulebook declares (504: the draw step).
    "to-a-misspelt-step": ("""
scenario "to the drw step" {
  players Alice Bob
  turn 1 of Alice
  script {
    next turn
    to drw step
  }
}
""", 6, 5, "unknown step 'drw step': the turn of this rulebook has no such step", "did you mean 'draw step'"),
    "next-turn-skipping-a-misspelt-step": ("""
scenario "skip the drw step" {
  players Alice Bob
  turn 1 of Alice
  script {
    next turn skipping untap step, drw step
  }
}
""", 5, 5, "unknown step 'drw step': the turn of this rulebook has no such step", "did you mean 'draw step'"),
    # 702.26b: a phased-out permanent is treated as though it does not exist; the script
    # cannot move what the game does not see.
    "move-a-phased-out-permanent": ("""
scenario "move a bear that is phased out" {
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice, set phase = out, set phased_out_under = Alice
  script {
    move bear to graveyard
  }
}
""", 5, 5, "'bear' cannot be moved: it is treated by the game as not existing", "once the game sees it again"),
}

# Diagnostics that come without a hint today (interpreter/play/scenario.py gives none).
NO_HINT_YET = {"leaves-twice", "wrong-number-of-targets"}


@pytest.mark.parametrize("case", list(PLAYED))
def test_bad_script(case, tmp_path):
    text, line, col, message, hint = PLAYED[case]
    scenario = write(tmp_path / f"{case}.scenario", text)
    assert_error(phasing("run", scenario), scenario, line, col, message, hint=hint)


def test_bad_scripts_under_test(tmp_path):
    result = assert_folder_reported(PLAYED, tmp_path)
    for text, *_rest in PLAYED.values():
        assert f"FAIL {text.split(chr(34))[1]} [" in result.stdout, show(result)


@pytest.mark.parametrize("case", sorted(NO_HINT_YET))
def test_bad_script_has_a_hint(case, tmp_path):
    text, line, col, message, _ = PLAYED[case]
    scenario = write(tmp_path / f"{case}.scenario", text)
    assert_error(phasing("run", scenario), scenario, line, col, message, hint="")


def test_self_attachment(tmp_path):
    scenario = write(tmp_path / "self.scenario", """
scenario "an Aura on itself" {
  players Alice Bob
  permanent might = "Holy Strength", controller Alice, attached to might
}
""")
    assert_error(phasing("check", scenario), scenario, 3, 56, "'might' cannot be attached to itself", hint="")


def test_self_attachment_is_positioned(tmp_path):
    scenario = write(tmp_path / "self.scenario", """
scenario "an Aura on itself" {
  players Alice Bob
  permanent might = "Holy Strength", controller Alice, attached to might
}
""")
    assert_error(phasing("check", scenario), scenario, 3, 56, "'might' cannot be attached to itself", hint=None)


def test_move_to_unknown_zone(tmp_path):
    scenario = write(tmp_path / "moon.scenario", """
scenario "to the moon" {
  players Alice Bob
  permanent bears = "Grizzly Bears", controller Alice
  script {
    move bears to moon
  }
}
""")
    assert_error(phasing("run", scenario), scenario, 5, 5, "unknown zone 'moon'", hint="zones:")


def test_scenario_names_an_unknown_version(tmp_path):
    scenario = write(tmp_path / "future.scenario", """
scenario "rules from the future" {
  rules 2099-01-01
  players Alice Bob
}
""")
    assert_error(phasing("run", scenario), scenario, 2, 3, "unknown rules version", hint="2026-09-25")


def test_unknown_rules_option(tmp_path):
    """A --rules value is not in any file: the diagnostic names the value and lists the known versions."""
    scenario = write(tmp_path / "good.scenario", GOOD)
    for command in ("run", "test"):
        result = phasing(command, scenario, "--rules", "1999-01-01")
        assert_no_traceback(result)
        assert result.returncode == 1, show(result)
        assert "1999-01-01: error: unknown rules version" in result.stderr, show(result)
        hint = next((line for line in result.stderr.splitlines() if line.startswith("  hint: ")), "")
        assert "2026-09-25" in hint, show(result)


def test_test_counts_bad_files_among_good_ones(tmp_path):
    write(tmp_path / "a_good.scenario", GOOD)
    bad = write(tmp_path / "b_bad.scenario", SCENARIOS["unknown-player-in-turn"][0])
    broken = write(tmp_path / "c_broken.scenario", SCENARIOS["syntax"][0])
    result = phasing("test", tmp_path)
    assert_error(result, bad, 3, 3, "unknown player 'Carol'", hint="players are")
    assert_error(result, broken, 4, 36, "unexpected 'controller'", hint="expected")
    assert result.stdout.splitlines()[-1] == "1 passed, 2 failed", show(result)


def test_scenario_not_utf8(tmp_path):
    scenario = tmp_path / "latin1.scenario"
    scenario.write_bytes(b'scenario "caf\xe9" {\n  players Alice Bob\n}\n')
    for command in ("check", "run", "test"):
        assert_error(phasing(command, scenario), scenario, 1, 14, "not UTF-8", hint="UTF-8")


# ---------------------------------------------------------------------------- paths


@pytest.mark.parametrize("command", ["check", "run", "test"])
def test_nonexistent_path(command, tmp_path):
    missing = tmp_path / "nowhere" / "missing.scenario"
    result = phasing(command, missing)
    assert_no_traceback(result)
    assert result.returncode == 1, show(result)
    assert f"error: no such file or folder: {missing}" in result.stderr, show(result)


@pytest.mark.parametrize("command", ["check", "run", "test"])
def test_nonexistent_path_is_named_first_with_a_hint(command, tmp_path):
    missing = tmp_path / "nowhere" / "missing.scenario"
    result = phasing(command, missing)
    lines = result.stderr.splitlines()
    assert lines[0] == f"{missing}: error: no such file or folder: {missing}", show(result)
    assert lines[1].startswith("  hint: "), show(result)


def test_check_rejects_a_file_that_is_neither_rules_nor_scenario(tmp_path):
    notes = write(tmp_path / "notes.txt", "rule 702.26a x \"y\" {\n}\n")
    result = phasing("check", notes)
    assert_no_traceback(result)
    assert result.returncode == 1, show(result)
    assert f"error: not a rule file or scenario: {notes}" in result.stderr, show(result)
    assert "  hint: rule files end in .rules, scenarios in .scenario" in result.stderr, show(result)


def test_check_names_the_file_that_is_neither_rules_nor_scenario(tmp_path):
    notes = write(tmp_path / "notes.txt", "hello\n")
    result = phasing("check", notes)
    assert result.stderr.startswith(f"{notes}: error: not a rule file or scenario"), show(result)


@pytest.mark.parametrize("command", ["run", "test"])
def test_run_on_a_text_file_reports_its_syntax(command, tmp_path):
    notes = write(tmp_path / "notes.txt", "hello world\n")
    assert_error(phasing(command, notes), notes, 1, 1, "unexpected 'hello'", hint="'scenario'")


# ---------------------------------------------------------------------------- rules that never settle

LOOP_SCENARIO = GOOD  # the djinn's first untap step, under rules that loop


SHOCK_SCENARIO = """
scenario "a damaged djinn under rules that loop" {
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    cast "Shock" by Bob targeting djinn
    expect djinn.damage is 2
  }
}
"""


def _settle_loop(version: Path) -> Path:
    """State checks that phase a damaged permanent out and straight back in, forever."""
    return add_to_block(
        version, "702.26p",
        "  during state check: each x where x.phase is in and x.damage > 0: do phase_out x",
        "  during state check: each x where x.phase is out and x.damage > 0: do phase_in x",
    )


@pytest.mark.parametrize("command", ["run", "test"])
def test_rules_that_never_settle(command, version, tmp_path):
    _settle_loop(version)
    scenario = write(tmp_path / "loop.scenario", SHOCK_SCENARIO)
    result = phasing(command, scenario, "--rules", version)
    assert_no_traceback(result)
    assert result.returncode == 1, show(result)
    assert "the rules never settle" in result.stderr, show(result)
    hint = next((line for line in result.stderr.splitlines() if line.startswith("  hint: ")), "")
    assert "702.26p" in hint, show(result)
    if command == "test":
        assert "0 passed, 1 failed" in result.stdout, show(result)


def test_rules_that_never_settle_point_at_the_step(version, tmp_path):
    _settle_loop(version)
    scenario = write(tmp_path / "loop.scenario", SHOCK_SCENARIO)
    assert_error(phasing("run", scenario, "--rules", version), scenario, 6, 5, "the rules never settle",
                 hint="702.26p")


def test_after_clauses_that_retrigger_each_other(version, tmp_path):
    add_to_block(version, "702.26p",
                 "  after x.phase becomes in: do phase_out x",
                 "  after x.phase becomes out: do phase_in x")
    scenario = write(tmp_path / "loop.scenario", LOOP_SCENARIO)
    result = phasing("run", scenario, "--rules", version)
    assert_no_traceback(result)
    assert result.returncode == 1, show(result)
    assert "the rules never settle" in result.stderr, show(result)
    assert "702.26p" in result.stderr, show(result)


def test_as_clauses_that_contradict_each_other(version, tmp_path):
    """'as' changes happen together, so a loop among them is a conflict inside one event, named at its block."""
    file = add_to_block(version, "702.26p",
                        "  as x.phase becomes in: do phase_out x",
                        "  as x.phase becomes out: do phase_in x")
    scenario = write(tmp_path / "loop.scenario", LOOP_SCENARIO)
    line, col = where(file, "as x.phase becomes out: do phase_in x")
    for command in ("run", "test"):
        result = phasing(command, scenario, "--rules", version)
        assert_error(result, file, line, col, "conflicting simultaneous changes: djinn.phase", hint="prefer phase")
        assert f"(at step 1, {scenario}:6:5)" in result.stderr, show(result)


# ---------------------------------------------------------------------------- scenario rules lines


RANGED = """
scenario "a rules range (702.25a)" {
  cites 702.25a
  players Alice Bob
  turn 1 of Alice
  RULES
  script {
    next turn
  }
}
"""


@pytest.mark.parametrize("command", ["check", "run", "test"])
@pytest.mark.parametrize("rules, message, hint", [
    ("rules from 2019-01-01 to 2019-12-31", "no version is dated in that range",
     "2018-07-13 was in force on 2019-01-01: write 'rules 2018-07-13' or a range that includes it"),
    ("rules from 2030-01-01", "no version is dated in that range", "write 'rules 2026-09-25'"),
    ("rules from 2018-07-13 to 2017-07-08", "the range ends before it begins",
     "write 'rules from 2017-07-08 to 2018-07-13'"),
])
def test_a_rules_range_that_names_no_version(command, rules, message, hint, tmp_path):
    """`rules from A to B` is every version dated in the range: one with none (empty, reversed
    or in the future) is an error at the rules line, not a run under the newest version (702.25a
    is only the scenario's cite)."""
    path = write(tmp_path / "range.scenario", RANGED.replace("RULES", rules))
    result = phasing(command, path)
    line, col = where(path, "rules from")
    assert_error(result, path, line, col, message, hint)
    assert "PASS" not in result.stdout and "no problems found" not in result.stdout, show(result)


def test_a_rules_range_with_no_date(tmp_path):
    """A date of a range that is no date (month 13) is an error under that date."""
    path = write(tmp_path / "range.scenario", RANGED.replace("RULES", "rules from 2017-13-45 to 2018-07-13"))
    line, col = where(path, "2017-13-45")
    assert_error(phasing("check", path), path, line, col, "'2017-13-45' is no date", "YEAR-MONTH-DAY")


EXPECT_FOR = """
scenario "an expectation for one variant (702.26a)" {
  cites 702.26a
  players Alice Bob
  turn 1 of Alice
  rules 2026-09-25, equip-off
  permanent bear = "Grizzly Bears", controller Alice
  script {
    cast "Slip Away" by Alice targeting bear
    expect for 2026-09-25, NAME: bear.phase is out
  }
}
"""


@pytest.mark.parametrize("command", ["check", "test"])
def test_an_expect_for_name_that_names_nothing(command, tmp_path):
    """An `expect for` name that is none of the scenario's versions or variants, nor any other
    known one, is an error at the name, not an expectation that is never checked (702.26a: the
    bear phases out under every version here)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    write(folder / "equip-off.rules", 'variant equip-off {\n  title "test"\n  extends 2026-09-25\n}\n')
    path = write(tmp_path / "for.scenario", EXPECT_FOR.replace("NAME", "equip-of"))
    result = phasing(command, path, "--rules-path", folder)
    line, col = where(path, "equip-of:")
    assert_error(result, path, line, col, "no version or variant is named 'equip-of'", "did you mean 'equip-off'?")
    assert "passed, 0 failed" not in result.stdout, show(result)
    right = write(tmp_path / "right.scenario", EXPECT_FOR.replace("NAME", "equip-off"))
    result = phasing(command, right, "--rules-path", folder)
    assert result.returncode == 0, show(result)


def test_an_expect_for_a_variant_given_by_its_file(tmp_path):
    """A variant known only by the file given with --rules may have expectations of its own."""
    own = write(tmp_path / "my-house.rules", 'variant my-house {\n  title "test"\n  extends 2026-09-25\n}\n')
    path = write(tmp_path / "own.scenario", EXPECT_FOR.replace("rules 2026-09-25, equip-off", "rules 2026-09-25")
                 .replace("2026-09-25, NAME:", "my-house:"))
    result = phasing("test", path, "--rules", own, "-v")
    assert result.returncode == 0 and "PASS" in result.stdout, show(result)


def test_rules_that_do_not_load_stop_test_before_any_run(tmp_path):
    """`phasing test --rules FILE` with a variant that does not load reports its error once
    and runs nothing (no FAIL line per scenario), as for an unknown version."""
    broken = write(tmp_path / "broken.rules", 'variant broken {\n  extends 2026-09-25\n  title "broken"\n}\n'
                   'rule 100.1 oops "taps nobody" {\n  during cleanup of P: tap nobody\n}\n')
    result = phasing("test", "--rules", broken)
    line, col = where(broken, "nobody", 2)
    assert_error(result, broken, line, col, "unknown name 'nobody'")
    assert result.stderr.count("unknown name 'nobody'") == 1, show(result)
    assert "FAIL" not in result.stdout and "passed" not in result.stdout, show(result)


BAD_CARD = '''
card "Bad Card" {
  types sorcery
  spell: each x where x.phse is in: phase_outt x
}
'''


def test_check_checks_a_card_file(tmp_path):
    """A file of cards given to `check` has its card bodies checked against the newest version,
    with positioned errors, and no note that it was only parsed."""
    path = write(tmp_path / "badcard.rules", BAD_CARD)
    result = phasing("check", path)
    line, col = where(path, "x.phse")
    assert_error(result, path, line, col, "unknown attribute 'phse'")
    line, col = where(path, "phase_outt")
    assert_error(result, path, line, col, "unknown action 'phase_outt'", "phase_out")
    assert "only parsed" not in result.stdout, show(result)
    good = write(tmp_path / "goodcard.rules", BAD_CARD.replace("phse", "phase").replace("outt", "out"))
    assert_checks_clean(good)


def test_a_scenario_file_s_own_card_is_checked_though_no_script_casts_it(tmp_path):
    """A card a scenario file declares is checked by `check` even when no scenario uses it,
    under the versions the file's scenarios name; its error is reported once, not once per
    scenario."""
    scenario = ('scenario "NAME" {\n  players Alice Bob\n  permanent bear = "Grizzly Bears", controller Alice\n'
                '  script {\n    expect bear.phase is in\n  }\n}\n')
    path = write(tmp_path / "own.scenario", BAD_CARD + scenario.replace("NAME", "one") + scenario.replace("NAME", "two"))
    line, col = where(path, "phase_outt")
    result = phasing("check", path)
    assert_error(result, path, line, col, "unknown action 'phase_outt'")
    assert result.stderr.count("unknown action 'phase_outt'") == 1, show(result)


STATIC_MISTAKES = """
card "Giant Curse" {
  types enchantment aura
  static: each x where this.attached_to is x: x becomes 5/5
}
card "Charm of Life" {
  types enchantment
  static: you gain 1 life
}
card "Charm of Theft" {
  types enchantment
  static: {
    each x where x is a creature: x gets +1/+1 until end of turn
    each x where x is a creature: if x.tapped: you gain control of x
  }
}
scenario "s" {
  cites 702.26b
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  permanent big = "Giant Curse", controller Alice, attached to bear
  script {
    expect bear.power is 5
  }
}
"""


@pytest.mark.parametrize("command", ["check", "test"])
def test_a_static_ability_holding_what_it_cannot_apply_is_an_error_at_the_statement(command, tmp_path):
    """A static ability adds to power and toughness and grants keywords while its source is
    on the battlefield (611.3a): setting power and toughness, gaining life, gaining control
    and a duration cannot be applied by one. Each is an error at the statement, with a hint
    saying what a static ability can hold, from `check` (every card of the file) and from
    `test` (the card its scenario uses)."""
    path = write(tmp_path / "statics.scenario", STATIC_MISTAKES)
    result = phasing(command, path)
    hint = "a static ability can hold 'X gets +N/+N' and 'X gains KEYWORD'"
    line, col = where(path, "x becomes 5/5")
    assert_error(result, path, line, col, "a static ability cannot 'x becomes 5/5': it can only add to power "
                 "and toughness and grant keywords", hint=hint)
    assert "can only modify characteristics" not in result.stderr, show(result)
    if command == "test":
        return
    line, col = where(path, "you gain 1 life")
    assert_error(result, path, line, col, "a static ability cannot 'you gain 1 life'", hint=hint)
    line, col = where(path, "x gets +1/+1 until end of turn")
    assert_error(result, path, line, col, "a static ability cannot last 'until end of turn'", hint=hint)
    line, col = where(path, "you gain control of x")
    assert_error(result, path, line, col, "a static ability cannot 'you gain control of x'", hint=hint)


def test_a_card_in_a_variant_file_is_an_error_that_names_a_variant(tmp_path):
    """Cards do not belong in a variant's file; the message says a variant's file (not a
    version's folder) and where cards go."""
    path = write(tmp_path / "v.rules", 'variant v {\n  title "v"\n  extends 2026-09-25\n}\n'
                 'card "X" {\n  types sorcery\n  spell: you draw 1\n}\n')
    result = phasing("check", path)
    assert_error(result, path, 5, 1, "cards and scenarios do not belong in a variant's file", "a card file")


def test_a_misspelt_keyword_on_a_card_is_an_error_with_the_keyword_meant(tmp_path):
    """A printed keyword no rule or card tests for, spelt like one that is (phasing, 702.26a),
    is a typo: the creature would never phase. A keyword like none of them (flying) is fine."""
    path = write(tmp_path / "kw.rules", 'card "Typo Bird" {\n  types creature bird\n  pt 1/1\n'
                 '  keywords flying, phasng\n}\n')
    result = phasing("check", path)
    line, col = where(path, "keywords")
    assert_error(result, path, line, col, "keyword 'phasng' is tested for or granted by no rule or card",
                 "did you mean 'phasing'?")
    assert "keyword 'flying'" not in result.stderr and result.stderr.count("error:") == 1, show(result)
    assert_clean_when_mended(path, "phasng", "phasing")


def test_a_misspelt_keyword_on_a_scenario_permanent_is_an_error_once(tmp_path):
    """`keyword phasng` on a scenario's permanent is the same typo (702.26a tests for
    phasing), reported once however many versions the scenario is checked under."""
    path = write(tmp_path / "kw.scenario", 'scenario "k" {\n  players Alice Bob\n  rules 2025-02-07, 2026-09-25\n'
                 '  permanent bear = "Grizzly Bears", controller Alice, keyword phasng, keyword flying\n'
                 '  script {\n    expect bear.phase is in\n  }\n}\n')
    result = phasing("check", path)
    line, col = where(path, "keyword phasng")
    assert_error(result, path, line, col, "keyword 'phasng'", "did you mean 'phasing'?")
    assert result.stderr.count("keyword 'phasng'") == 1, show(result)


CAST_MISTAKES = {
    "a-player-as-a-permanent-target": ("""
scenario "Shock aimed at a player" {
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    cast "Shock" by Alice targeting Bob
  }
}
""", 6, 5, "'Bob' is a player, and \"Shock\" targets a permanent (t where t is a creature)",
        "name a permanent of this game that fits 't where t is a creature'"),
    "a-dead-target": ("""
scenario "Slip Away aimed at a bear Wrath of God destroyed" {
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    cast "Wrath of God" by Alice
    cast "Slip Away" by Alice targeting bear
  }
}
""", 7, 5, "'bear' cannot be a target of \"Slip Away\" now: it is in the graveyard",
        "only a permanent on the battlefield"),
    "a-target-that-does-not-fit": ("""
scenario "Shock aimed at an enchantment" {
  players Alice Bob
  turn 1 of Alice
  permanent anthem = "Glorious Anthem", controller Alice
  script {
    cast "Shock" by Alice targeting anthem
  }
}
""", 6, 5, "'anthem' cannot be a target of \"Shock\" now: it does not fit 't where t is a creature'", "a target must"),
    "an-instant-with-no-spell-line": ("""
card "Blank Instant" {
  types instant
}

scenario "casting an instant that does nothing" {
  players Alice Bob
  turn 1 of Alice
  script {
    cast "Blank Instant" by Alice
  }
}
""", 9, 5, "\"Blank Instant\" cannot be cast", "give \"Blank Instant\" a 'spell:' line"),
}


@pytest.mark.parametrize("case", list(CAST_MISTAKES))
def test_a_cast_mistake_says_what_is_wrong_with_it(case, tmp_path):
    """A cast's targets are checked as it is cast (601.2c): a player named where the card
    targets a permanent is said to be a player, a target that left the battlefield is said to
    be where it went, one that does not fit is shown the card's condition; an instant with no
    spell ability gets a hint in the scenario language, not the Python API's."""
    text, line, col, message, hint = CAST_MISTAKES[case]
    scenario = write(tmp_path / f"{case}.scenario", text)
    result = phasing("run", scenario)
    assert_error(result, scenario, line, col, message, hint=hint)
    assert "new_game(" not in result.stderr, show(result)


def test_a_counter_kind_written_as_printed_gets_a_hint_that_it_is_a_name(tmp_path):
    """`counter +1/+1 = 1` does not parse (a kind is a name in a scenario); the hint says so
    and shows `counter p1p1 = 1`, instead of listing the words a scenario may begin a line with."""
    path = write(tmp_path / "c.scenario", 'scenario "c" {\n  players Alice Bob\n'
                 '  permanent bear = "Grizzly Bears", counter +1/+1 = 1\n}\n')
    line, col = where(path, "+1/+1")
    assert_error(phasing("check", path), path, line, col, "unexpected '+1'", "a counter's kind is a plain name: counter p1p1 = 1")
    assert_clean_when_mended(path, "+1/+1", "p1p1")


def test_a_counter_kind_that_is_p1p1_but_for_its_case_is_an_error_at_it(tmp_path):
    """`counter P1P1 = 1` was taken as a kind of its own, only counted (the bear stayed 2/2,
    as 613.4c's +1/+1 counters are p1p1), where new_game refuses {'P1P1': 1}: the same error,
    at the property, offering the kind that changes power and toughness."""
    path = write(tmp_path / "c.scenario", 'scenario "c" {\n  players Alice Bob\n'
                 '  permanent bear = "Grizzly Bears", counter P1P1 = 1\n  script {\n    expect bear.power is 3\n  }\n}\n')
    line, col = where(path, "counter P1P1")
    assert_error(phasing("check", path), path, line, col, "'P1P1' is not the counter kind 'p1p1'",
                 "did you mean 'counter p1p1 = 1'?")
    assert_clean_when_mended(path, "P1P1", "p1p1")


@pytest.mark.parametrize("command", ["run", "test"])
def test_a_scenario_path_that_is_no_regular_file_is_an_error_not_a_wait(command, tmp_path):
    """/dev/null ran nothing and said nothing (run: status 0), and a pipe named like a scenario
    waited for a writer for ever; both, given or found in a folder, are an error naming them."""
    result = phasing(command, "/dev/null")
    assert result.returncode == 1 and "not a scenario file: /dev/null is not a regular file" in result.stderr, show(result)
    folder = tmp_path / "suite"
    folder.mkdir()
    write(folder / "good.scenario", GOOD)
    os.mkfifo(folder / "pipe.scenario")
    result = phasing(command, folder)  # (within the helper's timeout: a wait would fail it)
    assert result.returncode == 1, show(result)
    assert f"not a scenario file: {folder / 'pipe.scenario'} is not a regular file" in result.stderr, show(result)


# Script steps that can only fail, which `phasing check` finds without playing the script:
# each reported at its step, as a run would report it.
CHECKED_STEPS = {
    "unknown-card": ('cast "Grizly Bears" by Alice', 'unknown card "Grizly Bears"', "did you mean 'Grizzly Bears'?"),
    "unknown-caster": ('cast "Slip Away" by Dave targeting bear', "'Dave' is not a player of the game",
                       "players are: Alice, Bob"),
    # 601.2c: a spell's targets are chosen as it is cast, one for each it asks for.
    "targets-missing": ('cast "Giant Growth" by Alice', '"Giant Growth" needs 1 target(s), 0 given', "targeting"),
    "targets-to-spare": ('cast "Wrath of God" by Alice targeting bear', '"Wrath of God" needs 0 target(s), 1 given',
                         "drop the 'targeting' part"),
    # 303.4a: an Aura spell targets the permanent it will enchant; a card that declares no
    # target for it (Teferi's Curse leaves what it may enchant out) cannot be cast.
    "aura-cast": ('cast "Teferi\'s Curse" by Alice targeting bear', "an Aura spell targets the one permanent it will enchant",
                  "target t where"),
    "unknown-target": ('cast "Giant Growth" by Alice targeting baer', "unknown permanent 'baer'", "did you mean 'bear'?"),
    "unknown-attacker": ("attack with nosuch", "unknown permanent 'nosuch'", "an earlier step makes"),
    "unknown-moved": ("move nosuch to graveyard", "unknown permanent 'nosuch'", "an earlier step makes"),
    "unknown-leaver": ("Dave leaves the game", "'Dave' is not a player of the game", "players are: Alice, Bob"),
    "unknown-chosen-card": ('choose "Phase Wardn" targeting bear', 'unknown card "Phase Wardn"', "Phase Warden"),
    # 508.1a: the active player's creatures attack, each once; a player is no permanent to move.
    "player-attacks": ("attack with Bob", "unknown permanent 'Bob': 'Bob' is a player, not a permanent", "name a permanent"),
    "player-moved": ("move Bob to exile", "unknown permanent 'Bob': 'Bob' is a player, not a permanent", "name a permanent"),
    "attacker-twice": ("attack with bear, bear", "a creature is named twice among the attackers", "name each attacking creature once"),
    # 509.1a: the defending player's creatures block.
    "unknown-blocker": ("declare blockers: nosuch blocks bear", "unknown permanent 'nosuch'", "an earlier step makes"),
    "unknown-blocked": ("declare blockers: bear blocks nosuch", "unknown permanent 'nosuch'", "an earlier step makes"),
}


@pytest.mark.parametrize("case", list(CHECKED_STEPS))
def test_check_reports_a_script_step_that_can_only_fail(case, tmp_path):
    """`phasing check` reports a step that fails whatever happens before it, at the step."""
    step, message, hint = CHECKED_STEPS[case]
    scenario = write(tmp_path / f"{case}.scenario", f"""
scenario "a step that can only fail" {{
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {{
    {step}
  }}
}}
""")
    assert_error(phasing("check", scenario), scenario, 6, 5, message, hint=hint)


def test_check_leaves_a_step_an_expect_error_follows_to_the_run(tmp_path):
    """`expect error` says the step before it must fail, so a step that can only fail is what a
    negative test is made of: `check` does not reject it (the run judges it), and the scenario
    passes. An Aura spell whose card declares no target cannot be cast (303.4a); Shock needs its
    target (601.2c); Carol is no player of the game."""
    scenario = write(tmp_path / "negative.scenario", """
scenario "steps meant to fail" {
  cites 601.2c
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    cast "Teferi's Curse" by Alice targeting bear
    expect error "cannot be cast"
    cast "Shock" by Alice
    expect error "target"
    cast "Shock" by Carol targeting bear
    expect error "not a player"
    move ghost to exile
    expect error "ghost"
    expect bear.zone is battlefield
  }
}
""")
    assert_checks_clean(scenario)
    result = phasing("test", scenario)
    assert result.returncode == 0 and "1 passed, 0 failed" in result.stdout, show(result)
    # without its `expect error`, the same step is still reported at its line
    bare = write(tmp_path / "bare.scenario", scenario.read_text().replace('    expect error "target"\n', ""))
    assert_error(phasing("check", bare), bare, 9, 5, '"Shock" needs 1 target(s), 0 given', hint="targeting")


@pytest.mark.parametrize("declared", ["", "  permanent grizzly_bears_2 = \"Grizzly Bears\", controller Bob\n"],
                         ids=["none-declared", "one-name-taken"])
def test_check_names_every_permanent_a_script_casts_as_the_run_does(declared, tmp_path):
    """Each Grizzly Bears that resolves (608.3) is a permanent named after the card, with the
    first free number after the first: four casts make grizzly_bears to grizzly_bears_4, and
    with grizzly_bears_2 declared, three casts make grizzly_bears, _3 and _4. An expectation
    about the fourth (the last) is valid: check used to know only the suffixes _2 and _3.
    A name no cast makes is still unknown."""
    casts = 3 if declared else 4
    scenario = write(tmp_path / "four.scenario", "scenario \"four bears\" {\n  players Alice Bob\n  turn 1 of Alice\n"
                     + declared + "  script {\n" + '    cast "Grizzly Bears" by Alice\n' * casts
                     + "    expect grizzly_bears_4.zone is battlefield and grizzly_bears.controller is Alice\n  }\n}\n")
    assert_checks_clean(scenario)
    result = phasing("test", scenario)
    assert result.returncode == 0, show(result)
    fifth = write(tmp_path / "five.scenario", scenario.read_text().replace("grizzly_bears_4.zone", "grizzly_bears_5.zone"))
    line = 5 + casts + (1 if declared else 0)
    assert_error(phasing("check", fifth), fifth, line, 12, "unknown name 'grizzly_bears_5'", hint="")


def test_check_counts_the_permanents_a_script_makes(tmp_path):
    """A permanent spell that resolves makes a permanent named after its card (a second one
    with _2): a later step may name it, and `check` does not call it unknown."""
    scenario = write(tmp_path / "made.scenario", """
scenario "steps name what casting made" {
  cites 508.1a
  players Alice Bob
  turn 1 of Alice
  script {
    cast "Grizzly Bears" by Alice
    cast "Grizzly Bears" by Alice
    next turn
    next turn
    attack with grizzly_bears, grizzly_bears_2
    move grizzly_bears to graveyard
  }
}
""")
    assert_checks_clean(scenario)
    result = phasing("check", write(tmp_path / "three.scenario", scenario.read_text().replace(
        "move grizzly_bears to", "move grizzly_bears_3 to")))
    assert_error(result, tmp_path / "three.scenario", 11, 5, "unknown permanent 'grizzly_bears_3'",
                 "did you mean 'grizzly_bears_2'")


# ---------------------------------------------------------------------------- phasing cards


def test_a_card_pool_that_is_not_json_is_a_positioned_error(tmp_path):
    pool = tmp_path / "pool.json"
    pool.write_text('[\n  {"name": "Oubliette", "features": [}\n]\n', encoding="utf-8")
    result = phasing("cards", pool)
    assert_no_traceback(result)
    assert_error(result, pool, 2, 38, "the card pool is not JSON", "a JSON list of objects")


def test_a_card_pool_of_the_wrong_shape_is_an_error_at_the_item(tmp_path):
    pool = tmp_path / "pool.json"
    pool.write_text('[\n  {"name": "Oubliette", "features": "mill"}\n]\n', encoding="utf-8")
    result = phasing("cards", pool)
    assert_no_traceback(result)
    assert_error(result, pool, 2, 37, 'item 0 of the card pool (\'Oubliette\'): "features" must be a list of strings',
                 '"features" (a list of strings)')


def test_a_card_pool_that_is_not_utf8_or_nests_too_deep_is_an_error(tmp_path):
    pool = tmp_path / "pool.json"
    pool.write_bytes(b'[{"name": "Oubliette\xff", "features": []}]')
    result = phasing("cards", pool)
    assert_no_traceback(result)
    assert result.returncode == 1 and f"{pool}:1:" in result.stderr, show(result)
    pool.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = phasing("cards", pool)
    assert_no_traceback(result)
    assert result.returncode == 1 and "nests too deeply" in result.stderr, show(result)


STEP_MISTAKES = '''
card "Early Watcher" {
  types creature
  at beginning of untap step of you: you gain 1 life
}
card "Late Watcher" {
  types creature
  at beginning of cleanup step of you: you gain 1 life
}
card "Typo Watcher" {
  types creature
  at beginning of upkep step of you: you gain 1 life
}
'''


def test_check_refuses_a_card_triggering_in_a_step_without_priority(tmp_path):
    """`phasing check` refuses an ability triggering at the beginning of the untap step (no
    player gets priority in it, 502.4), at the step's name, with a hint naming the step to
    write instead; and one triggering at a step the turn does not declare (a misspelt one), at
    its name, offering the step meant. An ability triggering at the beginning of the cleanup
    step is accepted: players get priority in it once something has triggered (514.3a). No
    traceback, exit status 1."""
    path = write(tmp_path / "steps.rules", STEP_MISTAKES)
    result = phasing("check", path)
    line, col = where(path, "untap step of you")
    assert_error(result, path, line, col, "nothing triggers at the beginning of the untap step", "at beginning of upkeep step")
    line, col = where(path, "upkep step of you")
    assert_error(result, path, line, col, "'upkep step' is not a step of the turn", "did you mean 'upkeep step'")
    line, _col = where(path, "cleanup step of you")
    assert "2 error(s)" in result.stderr and f"{path}:{line}:" not in result.stderr, show(result)
    typo = write(tmp_path / "typo.rules", 'card "Typo Watcher" {\n  types creature\n'
                 '  at beginning of upkep of you: you gain 1 life\n}\n')
    result = phasing("check", typo)
    line, col = where(typo, "upkep")
    assert_error(result, typo, line, col, "unexpected 'upkep'", "a hook is a step or phase the rulebook's turn declares")
