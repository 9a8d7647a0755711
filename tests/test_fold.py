"""`phasing fold VERSION`: a new release of one's own becomes the newest complete version, and
the version it extends is stored as the changes that lead back from it, as every older version
is (rules/2025-02-07 extends 2026-09-25, and so on down). Nothing is written unless the fold is
proved: every shipped version, the release and every shipped variant resolve to the same
rulebook after it, and the runs of the suite under each end as before.

The release used throughout moves 702.26a's phasing from the untap step to the upkeep step (an
`amend` of one clause) and takes 702.26a out of 502.1's untap-step order (restating 502.1), as
tests/test_rules_option.py's release does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from phasing_rules.dsl import ast, atomic
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.parser import parse_file
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, load_version, set_rules_path, shipped_sources
from phasing_rules.interpreter.tools import fold

SUITE = Path(__file__).parent / "scenarios"
# The proof runs these (every version's scenarios of one file) rather than the whole suite,
# which `phasing fold` runs by default (the guide's walkthrough, in the slow selection).
SCENARIOS = str(SUITE / "tour.scenario")

RELEASE = """\
# A release of one's own: 702.26a's phasing happens in the upkeep step.
version 2027-01-15 {
  title "A release of one's own: 702.26a in the upkeep"
  extends 2026-09-25
  note "702.26a moves from the untap step to the upkeep step; nothing else changes."
}

amend untap-step-phasing {
  summary "In its controller's upkeep step, a phased-in permanent with phasing phases out while everything that phased out under that player phases in, all at once."
  replace clause phase-out-and-in: during upkeep step of P: simultaneously {
    each x where x.phase is in and x has phasing and x.controller is P: phase_out x
    each x where x.phase is out and x.phased_out_under is P and not x.phased_indirectly: phase_in x
  }
}

# 502.1 without 702.26a, which no longer runs in the untap step.
rule 502.1 untap-step-order "The untap step begins with what phases in for a player who left the game, before anything untaps." {
  order untap step: 702.26n, 502.3
}
"""


def release(tmp_path: Path, text: str = RELEASE, name: str = "2027-01-15") -> Path:
    """A rules path holding one version folder of one's own."""
    folder = tmp_path / "my-rules" / name
    folder.mkdir(parents=True)
    (folder / "version.rules").write_text(text, encoding="utf-8")
    return folder.parent


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def rules_path_reset():
    yield
    set_rules_path(())


def checkout_copy(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the shipped version folders, standing for a checkout's rules/ to fold into."""
    copy = tmp_path / "checkout-rules"
    for source in shipped_sources():
        if source.kind == "version":
            shutil.copytree(source.path, copy / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fold, "checkout_rules", lambda: copy)
    return copy


def meaning(name: str) -> tuple:
    """What a rulebook means, without where it was read from."""
    book = load_version(name)
    v = book.version
    return (v.title, v.sections, v.notes, book.rules, book.statuses, book.verbs, book.zones)


def test_a_release_folds_into_a_complete_version_and_its_base_into_the_changes_back(tmp_path, capsys, rules_path_reset):
    mine = release(tmp_path)
    into = tmp_path / "folded"
    before = {}
    set_rules_path([str(mine)])
    for name in ("2027-01-15", "2026-09-25", "2025-02-07", "2005-02-01", "end-step-phasing"):
        before[name] = meaning(name)
    set_rules_path(())

    status, out, err = run(capsys, "fold", "2027-01-15", SCENARIOS, "--rules-path", str(mine), "--into", str(into))
    assert status == 0, err
    assert "proved:" in out and f"wrote {into / '2027-01-15' / 'version.rules'}" in out

    # The release stands alone: no extends, its sections written out, every block in it.
    (manifest,) = [i for i in parse_file(into / "2027-01-15" / "version.rules").items if isinstance(i, ast.Version)]
    assert manifest.extends is None and manifest.title == "A release of one's own: 702.26a in the upkeep"
    assert [s.rule for s in manifest.sections] == ["702.26"]
    assert (into / "2027-01-15" / "version.rules").read_text().startswith("# A release of one's own")
    assert sorted(p.name for p in (into / "2027-01-15").iterdir()) == \
        sorted(p.name for p in (RULES_ROOT / "2026-09-25").iterdir() if p.suffix == ".rules")
    assert "during upkeep step of P" in (into / "2027-01-15" / "702.26.rules").read_text()

    # 2026-09-25 now extends the release and restates only what the release changed: 702.26a
    # and 502.1; its vocabulary is all inherited, so its file is gone.
    base = into / "2026-09-25"
    assert "extends 2027-01-15" in (base / "version.rules").read_text()
    assert not (base / "vocabulary.rules").exists()
    restated = {i.slug for p in base.glob("*.rules") for i in parse_file(p).items if isinstance(i, ast.Rule)}
    assert restated == {"untap-step-phasing", "untap-step-order"}

    # Read from the folded folder, each means what it meant (CR 702.26a under 2026-09-25 still
    # in the untap step; under 2027-01-15 in the upkeep).
    set_rules_path([str(into)])
    for name, was in before.items():
        assert meaning(name) == was, name
    assert "upkeep" in load_version("2027-01-15").rule("702.26a").clauses[0].hook.kind
    assert "untap" in load_version("2026-09-25").rule("702.26a").clauses[0].hook.kind

    # Only the release's folder and its base's are new: 2025-02-07 and older are copied as written.
    for source in shipped_sources():
        if source.kind == "version" and source.name != "2026-09-25":
            for path in source.path.glob("*.rules"):
                assert (into / source.name / path.name).read_bytes() == path.read_bytes(), path


def test_a_release_that_adds_a_block_and_renumbers_folds_with_drops_and_renumbers_back(tmp_path, capsys, rules_path_reset):
    """A release that renumbers phasing to 702.27 and adds a block: its base drops the block and
    renumbers 702.27 back to 702.26 (CR 702.26 is the section 2026-09-25 numbers)."""
    text = """\
version 2027-01-15 {
  title "Phasing renumbered, with a new rule"
  extends 2026-09-25
  renumber 702.26 as 702.27
  section 702.27 subrules a b c d e f g h i j k m n p q
}

rule 702.27q quiet-rule "A phased-out permanent is remembered with the player it phased out under." {
  assert always x: x.phase is in or x.phased_out_under is not none
}
"""
    into = tmp_path / "folded"
    status, out, err = run(capsys, "fold", "2027-01-15", SCENARIOS, "--rules-path", str(release(tmp_path, text)),
                           "--into", str(into))
    assert status == 0, err
    base = (into / "2026-09-25" / "version.rules").read_text()
    assert "renumber 702.27 as 702.26" in base and "drop quiet-rule" in base
    set_rules_path([str(into)])
    assert load_version("2027-01-15").rule("quiet-rule").id == "702.27q"
    assert load_version("2026-09-25").rule("quiet-rule") is None
    assert load_version("2026-09-25").rule("untap-step-phasing").id == "702.26a"


def test_in_place_the_checkout_rules_are_replaced_and_a_file_left_with_nothing_removed(tmp_path, monkeypatch,
                                                                                       rules_path_reset):
    """Without --into the fold writes into the checkout's rules/ (here a copy of it), through
    the safe routine: the release's folder new, the base's files replaced, the file it no
    longer needs removed (the proof is the other tests')."""
    copy = checkout_copy(tmp_path, monkeypatch)
    set_rules_path([str(release(tmp_path))])
    planned = fold.plan_fold("2027-01-15")
    done = fold.write(planned, None)
    assert f"removed {copy / '2026-09-25' / 'vocabulary.rules'} (2026-09-25 inherits all of it from 2027-01-15)" in done
    assert {p.name: p.read_text() for p in (copy / "2027-01-15").iterdir()} == planned.new_files
    assert {p.name: p.read_text() for p in (copy / "2026-09-25").iterdir()} == planned.base_files
    assert "still defines 2027-01-15" in fold.shadowing_note(planned, None)


def test_in_place_a_base_file_edited_since_it_was_read_stops_the_fold_before_anything_is_written(tmp_path, monkeypatch, rules_path_reset):
    copy = checkout_copy(tmp_path, monkeypatch)
    set_rules_path([str(release(tmp_path))])
    planned = fold.plan_fold("2027-01-15")
    support = copy / "2026-09-25" / "support.rules"
    support.write_text(support.read_text() + "\n# an edit of one's own\n")  # (made after the fold read it)
    with pytest.raises(DiagnosticError, match="support.rules: it changed since it was read"):
        fold.write(planned, None)
    assert support.read_text().endswith("# an edit of one's own\n")
    assert not (copy / "2027-01-15").exists()  # (nothing written)


@pytest.mark.parametrize("setup, argv, message", [
    (lambda tmp: release(tmp), ["2027-02-01"], "no version '2027-02-01' on the rules path"),
    (lambda tmp: release(tmp, RELEASE.replace("2027-01-15", "2026-09-25"), "2026-09-25"), ["2026-09-25"],
     "is a shipped version"),
    (lambda tmp: release(tmp, RELEASE.replace("extends 2026-09-25", "extends 2025-02-07")), ["2027-01-15"],
     "extends 2025-02-07, not the newest shipped version 2026-09-25"),
    (lambda tmp: release(tmp, RELEASE.replace("2027-01-15", "2026-01-01"), "2026-01-01"), ["2026-01-01"],
     "2026-01-01 is not dated after 2026-09-25"),
    (lambda tmp: release(tmp, RELEASE + '\nzone limbo keeps all\n'), ["2027-01-15"],
     "declares zone 'limbo', which 2026-09-25 does not have"),
])
def test_what_cannot_be_folded_is_an_error_and_nothing_is_written(tmp_path, capsys, rules_path_reset, setup, argv, message):
    mine = setup(tmp_path)
    into = tmp_path / "folded"
    status, out, err = run(capsys, "fold", *argv, SCENARIOS, "--rules-path", str(mine), "--into", str(into))
    assert status == 1 and message in err, err
    assert not into.exists()


def test_into_a_folder_that_holds_something_is_refused_before_the_proof_and_nothing_is_written(tmp_path, capsys,
                                                                                          rules_path_reset):
    into = tmp_path / "folded"
    into.mkdir()
    (into / "mine.txt").write_text("keep me")
    status, _out, err = run(capsys, "fold", "2027-01-15", SCENARIOS, "--rules-path", str(release(tmp_path)),
                            "--into", str(into))
    assert status == 1 and "is not an empty folder" in err
    assert [p.name for p in into.iterdir()] == ["mine.txt"]


def test_an_installed_package_is_not_folded_into(tmp_path, capsys, monkeypatch, rules_path_reset):
    monkeypatch.setattr(fold, "checkout_rules", lambda: None)
    status, _out, err = run(capsys, "fold", "2027-01-15", SCENARIOS, "--rules-path", str(release(tmp_path)))
    assert status == 1 and "give --into DIR" in err


def test_a_fold_that_would_change_a_version_is_refused_and_nothing_is_written(tmp_path, capsys, monkeypatch,
                                                                             rules_path_reset):
    """The proof is what stands between a wrong fold and the rules: staged with 2026-09-25's
    title changed, it fails naming the version and what differs, and nothing is written."""
    real = fold.stage

    def wrong(planned, folder):
        real(planned, folder)
        manifest = folder / "2026-09-25" / "version.rules"
        manifest.write_text(manifest.read_text().replace("Comprehensive Rules of 2026-09-25", "Another title"))

    monkeypatch.setattr(fold, "stage", wrong)
    into = tmp_path / "folded"
    status, _out, err = run(capsys, "fold", "2027-01-15", SCENARIOS, "--rules-path", str(release(tmp_path)),
                            "--into", str(into))
    assert status == 1 and "would change what 1 version(s) mean: 2026-09-25: its title" in err, err
    assert not into.exists()


def test_a_fold_that_would_leave_a_version_that_does_not_load_is_refused(tmp_path, capsys, monkeypatch,
                                                                         rules_path_reset):
    """Staged without 2026-09-25's restatement of 702.26a, 2026-09-25 would inherit the upkeep's
    phasing while its 502.1 still orders 702.26a in the untap step: it would not load, and the
    fold says so, naming the version, not the temporary folder it was staged in."""
    real = fold.stage

    def wrong(planned, folder):
        real(planned, folder)
        (folder / "2026-09-25" / "702.26.rules").unlink()

    monkeypatch.setattr(fold, "stage", wrong)
    into = tmp_path / "folded"
    status, _out, err = run(capsys, "fold", "2027-01-15", SCENARIOS, "--rules-path", str(release(tmp_path)),
                            "--into", str(into))
    assert status == 1 and "folding 2027-01-15 would leave 2026-09-25 not loading" in err, err
    assert "has no 'during untap step' clause" in err and "phasing-fold-" not in err
    assert not into.exists()


def test_remove_file_refuses_a_file_changed_since_it_was_read_a_link_or_a_folder(tmp_path):
    """The one safe routine removes only the regular file the caller read."""
    path = tmp_path / "a.rules"
    path.write_text("old")
    with pytest.raises(atomic.WriteRefused, match="changed since it was read"):
        atomic.remove_file(path, expected=b"other")
    link = tmp_path / "link.rules"
    link.symlink_to(path)
    with pytest.raises(atomic.WriteRefused, match="is a link"):
        atomic.remove_file(link, expected=b"old")
    with pytest.raises(DiagnosticError, match="only a regular file"):
        atomic.remove_file(tmp_path, expected=b"")
    assert path.read_text() == "old" and link.is_symlink()
    atomic.remove_file(path, expected=b"old")
    assert not path.exists()
