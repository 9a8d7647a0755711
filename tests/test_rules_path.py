"""A rules path (issue 15, item 2): the folders of `--rules-path DIR` and PHASING_RULES_PATH are
searched before the shipped rules when a name is resolved - by `--rules`, by a scenario's
`rules` line and by a variant's `extends` - so a user's own folder of variants and scenarios
works from any working folder. `phasing versions` says where each name was found."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter import api, cli
from phasing_rules.interpreter.rulebook.loading import available_variants, load_version

# Without 702.26g an Aura does not phase out with its creature; it goes to the graveyard as a
# state-based action (704.5m).
BASE = """\
variant my-base {
  title "No indirect phasing (mine)"
  extends 2026-09-25
  drop indirect-phasing
  drop indirect-wins
  section 702.26 subrules a b c d e f i j k m n p
  note "my own base variant"
}
"""

# ... and on top of it, a phased-out token ceases to exist (704.5d as it was until 2017).
ON_TOP = """\
variant my-top {
  title "Also tokens cease"
  extends my-base
  note "stacked on my-base"
}

rule 704.5d token-outside-battlefield "A token that is phased out, or in a zone other than the battlefield, ceases to exist." {
  during state check: each object x where x.token and (x.phase is out or x.zone is not battlefield) and x.zone is not nowhere: cease x
}
"""

SCENARIO = """\
scenario "my variants: the Aura falls off and the token ceases to exist" {
  cites 702.26g, 704.5m, 704.5d
  rules my-base, my-top
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to bear
  permanent soldier = "Soldier Token", controller Alice, token
  script {
    cast "Slip Away" by Alice targeting bear
    expect bear.phase is out
    expect strength.zone is graveyard
    cast "Teferi's Protection" by Alice
    expect for my-base: soldier.zone is battlefield
    expect for my-top: soldier.zone is nowhere
  }
}
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def mine(tmp_path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my-base.rules").write_text(BASE, encoding="utf-8")
    (folder / "my-top.rules").write_text(ON_TOP, encoding="utf-8")
    (folder / "mine.scenario").write_text(SCENARIO, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return folder


def test_a_scenario_naming_variants_in_the_folder_passes_from_anywhere(mine, monkeypatch, capsys):
    """With PHASING_RULES_PATH set, the scenario's `rules my-base, my-top` finds both variants,
    my-top extending my-base; it passes under each, from another working folder."""
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    monkeypatch.chdir(mine.parent / "elsewhere")
    status, out, err = run(capsys, "test", mine / "mine.scenario", "-v")
    assert (status, out.strip().splitlines()[-1]) == (0, "2 passed, 0 failed"), out + err
    assert "[my-base]" in out and "[my-top]" in out


def test_without_the_path_the_names_are_unknown(mine, monkeypatch, capsys):
    monkeypatch.delenv("PHASING_RULES_PATH", raising=False)
    monkeypatch.chdir(mine.parent / "elsewhere")
    status, out, err = run(capsys, "test", mine / "mine.scenario")
    assert status == 1
    assert "unknown rules version or variant 'my-base'" in err


def test_the_option_does_what_the_variable_does_and_only_for_its_command(mine, monkeypatch, capsys):
    monkeypatch.delenv("PHASING_RULES_PATH", raising=False)
    monkeypatch.chdir(mine.parent / "elsewhere")
    status, out, err = run(capsys, "test", mine / "mine.scenario", "--rules-path", mine)
    assert (status, out.strip().splitlines()[-1]) == (0, "2 passed, 0 failed"), out + err
    assert "my-base" not in available_variants()  # the folder was for that command alone


def test_rules_names_a_variant_on_the_path_and_the_api_sees_the_variable(mine, monkeypatch, capsys):
    """`--rules my-top` runs the shipped tour under the stacked variant; through the API too."""
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    monkeypatch.chdir(mine.parent / "elsewhere")
    status, out, err = run(capsys, "test", api.default_suite() / "tour.scenario", "--rules", "my-top")
    assert status == 1 and "changed by my-top" in err  # the Aura no longer phases out (702.26g)
    outcomes = api.run_file(mine / "mine.scenario", rules="my-top")
    assert [(o.version, o.passed) for o in outcomes] == [("my-top", True)]


def test_the_cache_follows_the_path(mine, tmp_path, monkeypatch):
    """The same name in two folders: the rulebook loaded is the one the current path leads to."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "my-base.rules").write_text(BASE.replace("my own base variant", "the other one"), encoding="utf-8")
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    assert load_version("my-base").version.notes == ("my own base variant",)
    monkeypatch.setenv("PHASING_RULES_PATH", str(other))
    assert load_version("my-base").version.notes == ("the other one",)
    monkeypatch.setenv("PHASING_RULES_PATH", os.pathsep.join([str(mine), str(other)]))
    assert load_version("my-base").version.notes == ("my own base variant",)  # the first folder wins


def test_versions_lists_them_with_their_folder(mine, monkeypatch, capsys):
    monkeypatch.setattr(cli, "out", cli._console(width=400))
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    status, out, err = run(capsys, "versions")
    assert status == 0, err
    top = next(line for line in out.splitlines() if "my-top (variant)" in line)
    assert str(mine.resolve()) in top and "my-base" in top  # found in the folder; extends my-base
    shipped = next(line for line in out.splitlines() if "end-step-phasing (variant)" in line)
    assert "shipped" in shipped


def test_a_version_folder_on_the_path(mine, monkeypatch, capsys):
    """DIR/DATE/ is a version: a copy of 2026-09-25 under a later date becomes the newest, so
    the tour's `rules from 2017-08-25` reaches it and it is judged by its own expectations."""
    from phasing_rules.interpreter.rulebook.loading import RULES_ROOT

    later = mine / "2099-01-01"
    later.mkdir()
    for f in (RULES_ROOT / "2026-09-25").glob("*.rules"):
        text = f.read_text(encoding="utf-8").replace("version 2026-09-25", "version 2099-01-01")
        (later / f.name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    status, out, err = run(capsys, "run", api.default_suite() / "tour.scenario", "--rules", "2099-01-01")
    assert status == 0, err
    assert "PASS tour: Teferi's Protection saves an enchanted creature and a token from a board wipe [2099-01-01]" in out


@pytest.mark.parametrize("how", ["variable", "option"])
def test_a_folder_that_does_not_exist_is_an_error_naming_it(how, tmp_path, monkeypatch, capsys):
    missing = tmp_path / "no-such-folder"
    argv = ["versions"]
    if how == "variable":
        monkeypatch.setenv("PHASING_RULES_PATH", str(missing))
    else:
        argv += ["--rules-path", missing]
    status, out, err = run(capsys, *argv)
    assert status == 1
    assert f"no such rules folder: {missing}" in err
    assert ("PHASING_RULES_PATH" if how == "variable" else "--rules-path") in err


@pytest.mark.parametrize("command", ["versions", "check"])
def test_a_folder_that_cannot_be_read_is_an_error_naming_it(command, mine, monkeypatch, capsys):
    """A folder of the rules path the user may not read (chmod 000) was skipped by `versions`,
    and `check` blamed a file in it; both say the folder cannot be read, exit 1. The listing
    is made to fail as it does without permission (tests may run as root, whom modes do not stop)."""
    from phasing_rules.interpreter.rulebook import loading as rulebook

    listing = rulebook._entries

    def refused(folder):
        if Path(folder).resolve() == mine.resolve():
            raise PermissionError(13, "Permission denied", str(folder))
        return listing(folder)

    monkeypatch.setattr(rulebook, "_entries", refused)
    monkeypatch.chdir(mine.parent)
    status, out, err = run(capsys, command, "--rules-path", "mine")
    assert status == 1, out + err
    assert err.startswith("mine: error: cannot read rules folder: Permission denied"), err
    assert "my-base.rules" not in out + err


@pytest.mark.slow
def test_a_variant_on_the_path_in_a_file_of_another_name_is_an_error_at_its_name(mine, monkeypatch, capsys):
    """`othername.rules` holding `variant mismatch` was listed and named as othername and ran as
    mismatch. On the rules path a variant's file is named after it (commands.md): check, and
    loading it by name, say so at the manifest's name. Given by path elsewhere, it may be
    named freely."""
    (mine / "othername.rules").write_text(BASE.replace("my-base", "mismatch"), encoding="utf-8")
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    expected = (f"{mine.resolve() / 'othername.rules'}:1:9: error: variant 'mismatch' is in othername.rules: "
                "a variant's file is named after it (mismatch.rules)")
    for argv in (["check"], ["check", mine / "othername.rules"],
                 ["run", api.default_suite() / "tour.scenario", "--rules", "othername"]):
        status, out, err = run(capsys, *argv)
        assert status == 1 and expected in err, (argv, out, err)
    free = mine.parent / "elsewhere" / "draft.rules"
    free.write_text(BASE.replace("my-base", "mismatch"), encoding="utf-8")
    monkeypatch.delenv("PHASING_RULES_PATH")
    status, out, err = run(capsys, "check", free)
    assert (status, out.strip()) == (0, "no problems found"), err


def test_the_api_reports_a_missing_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_RULES_PATH", str(tmp_path / "gone"))
    with pytest.raises(DiagnosticError, match="no such rules folder"):
        api.load("2026-09-25")


def test_versions_lists_a_variant_that_does_not_load_and_shows_its_error(mine, monkeypatch, capsys):
    """A broken file on the rules path does not hide the others: it is listed, its error is
    shown with its position, and the command exits 1."""
    (mine / "broken.rules").write_text(BASE.replace("my-base", "broken").replace("drop indirect-wins", "drop no-such-block"),
                                       encoding="utf-8")
    monkeypatch.setattr(cli, "out", cli._console(width=400))
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    status, out, err = run(capsys, "versions")
    assert status == 1
    assert "broken (variant)" in out and "does not load" in out and "my-top (variant)" in out
    assert "'no-such-block' is not a block, verb or status of 2026-09-25" in err


@pytest.mark.slow
def test_check_without_paths_checks_the_rules_path_too(mine, monkeypatch, capsys):
    """`phasing check` with no path checks the shipped rules and the user's folders: a broken
    variant there is reported with its position; the intact folder checks clean, its scenario
    resolving `rules my-base, my-top` through the path."""
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    status, out, err = run(capsys, "check")
    assert (status, out.strip()) == (0, "no problems found"), err
    (mine / "broken.rules").write_text(BASE.replace("my-base", "broken").replace("extends 2026-09-25", "extends nowhere-1"),
                                       encoding="utf-8")
    status, out, err = run(capsys, "check")
    assert status == 1
    assert f"{mine.resolve() / 'broken.rules'}:3:3: error: 'nowhere-1' is not a version or variant" in err, err


def test_a_file_given_as_a_rules_folder_is_an_error_naming_it(tmp_path, capsys):
    afile = tmp_path / "my-base.rules"
    afile.write_text(BASE, encoding="utf-8")
    status, out, err = run(capsys, "test", "--rules-path", afile)
    assert status == 1
    assert f"not a folder: {afile} (from --rules-path)" in err
    assert out == ""


def _later_version(mine: Path) -> Path:
    """A copy of 2026-09-25 dated 2099-01-01 in the rules folder `mine`."""
    from phasing_rules.interpreter.rulebook.loading import RULES_ROOT

    later = mine / "2099-01-01"
    later.mkdir()
    for f in (RULES_ROOT / "2026-09-25").glob("*.rules"):
        text = f.read_text(encoding="utf-8").replace("version 2026-09-25", "version 2099-01-01")
        (later / f.name).write_text(text, encoding="utf-8")
    return later


def _lock(monkeypatch, folder: Path) -> None:
    """Make `folder` behave as chmod 000 makes it for a user other than root: listing it, and
    looking up anything in it, fail with PermissionError (the folder itself can still be
    seen). Tests run as root in CI, where the mode bits would stop nothing."""
    locked = {os.path.abspath(folder), os.path.realpath(folder)}  # (computed before os.lstat is patched)

    def refusing(real, itself: bool):
        def call(path=".", *args, **kwargs):
            try:
                text = os.path.abspath(os.fsdecode(os.fspath(path)))
            except TypeError:  # (a file descriptor)
                return real(path, *args, **kwargs)
            if any(text.startswith(f + os.sep) or (itself and text == f) for f in locked):
                raise PermissionError(13, "Permission denied", os.fsdecode(os.fspath(path)))
            return real(path, *args, **kwargs)
        return call

    for name, itself in (("stat", False), ("lstat", False), ("scandir", True), ("listdir", True)):
        monkeypatch.setattr(os, name, refusing(getattr(os, name), itself))


def test_a_version_folder_that_cannot_be_read_is_said_to_be_unreadable_not_unknown(mine, monkeypatch, capsys):
    """issue 43: a version folder the user may not read (chmod 000), named by path or by its
    date on the rules path, was reported as an unknown version (the glob and the probe for
    version.rules pass over what they cannot read). It is an error at the folder saying it
    cannot be read, with a hint, exit 1; `versions` lists it as not loading, with that error."""
    later = _later_version(mine)
    _lock(monkeypatch, later)
    monkeypatch.chdir(mine.parent / "elsewhere")
    with pytest.raises(DiagnosticError) as info:
        api.load("2099-01-01")  # (not on the rules path, nor a folder here: still unknown)
    assert "unknown rules version" in info.value.diagnostics[0].message
    with pytest.raises(DiagnosticError) as info:
        api.load(str(later))
    (d,) = info.value.diagnostics
    assert (d.span.path, d.span.line) == (str(later), 0)
    assert d.message == f"cannot read version folder {later}: Permission denied" and "chmod" in d.hint
    monkeypatch.setenv("PHASING_RULES_PATH", str(mine))
    for argv in (["run", api.default_suite() / "tour.scenario", "--rules", "2099-01-01"], ["show", "2099-01-01"],
                 ["run", api.default_suite() / "tour.scenario", "--rules", later]):
        status, out, err = run(capsys, *argv)
        folder = later.resolve() if argv[-1] == "2099-01-01" else later
        assert status == 1, (argv, out, err)
        assert err.startswith(f"{folder}: error: cannot read version folder {folder}: Permission denied\n"), (argv, err)
        assert "unknown" not in err and "Traceback" not in err
    monkeypatch.setattr(cli, "out", cli._console(width=400))
    status, out, err = run(capsys, "versions")
    assert status == 1 and "does not load" in out
    assert f"cannot read version folder {later.resolve()}: Permission denied" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its mode: the test above simulates it")
def test_a_version_folder_of_mode_000_is_said_to_be_unreadable(mine, capsys):
    """issue 43: the same as the test above, with the mode bits themselves (as a user other than root)."""
    later = _later_version(mine)
    later.chmod(0)
    try:
        status, out, err = run(capsys, "show", later)
    finally:
        later.chmod(0o755)
    assert status == 1 and f"cannot read version folder {later}: Permission denied" in err, err
