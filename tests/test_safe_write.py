"""Every write goes through one routine, `dsl.atomic.write_file` (issue 43, SECURITY.md "Writing
files"): nothing a user wrote is lost or overwritten. Each test here is a case a careless or
hostile user met before the routine existed: an edit made while `fmt` ran was lost, a file
owned by another user was given to root, hard links were split, a read-only file was
rewritten without a word, `-o` through a link to nowhere ended in an internal error, `-o
--force` replaced a FIFO, and a refusal in a read-only folder named a temporary file.

FIFOs, device nodes and links are made in a temporary folder, never at a system path."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from phasing_rules.dsl import atomic, migrate
from phasing_rules.dsl.atomic import WriteRefused, target_problem, write_file
from phasing_rules.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
FORGE = ROOT / "tests" / "fixtures" / "forge"
OLD = "# kept\nverb v x {\n  do phase_in x  # kept too\n}\n\nverb phase_in x {\n  tap x\n}\n"
NEW = OLD.replace("do phase_in", "phase_in")
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root (CI runs as root)")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rules(folder: Path, name: str = "a.rules", text: str = OLD) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ fmt --write

def test_an_edit_made_while_fmt_runs_is_kept_and_the_write_refused(tmp_path, capsys, monkeypatch):
    """The file is read, rewritten in memory, and someone appends a line before fmt writes:
    fmt must see the file changed and write nothing over it (exit 1, the real file named)."""
    path = rules(tmp_path)
    rewrite = migrate.rewrite

    def rewrite_while_someone_edits(text, where, vocabulary):
        result = rewrite(text, where, vocabulary)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("# added meanwhile\n")
        return result

    monkeypatch.setattr(migrate, "rewrite", rewrite_while_someone_edits)
    status, out, err = run(capsys, "fmt", "--write", str(path))
    assert status == 1
    assert f"cannot write {path}: it changed since it was read; nothing was written" in err, err
    assert "Traceback" not in err and "wrote" not in out
    assert path.read_text(encoding="utf-8") == OLD + "# added meanwhile\n"


def test_a_file_with_other_hard_links_is_written_in_place_so_every_name_keeps_the_new_text(tmp_path, capsys):
    path = rules(tmp_path)
    other = tmp_path / "elsewhere.txt"
    os.link(path, other)
    inode = os.stat(path).st_ino
    status, out, _err = run(capsys, "fmt", "--write", str(path))
    assert status == 0 and "1 file written" in out
    assert path.read_text(encoding="utf-8") == NEW and other.read_text(encoding="utf-8") == NEW
    assert os.stat(path).st_ino == inode == os.stat(other).st_ino and os.stat(path).st_nlink == 2


def test_a_read_only_file_is_refused_without_force_and_kept_read_only_with_it(tmp_path, capsys):
    path, writable = rules(tmp_path), rules(tmp_path, "b.rules")
    os.chmod(path, 0o444)
    status, out, err = run(capsys, "fmt", "--write", str(tmp_path))
    assert status == 1 and "wrote" not in out
    assert f"cannot write {path}: it is read-only (mode 0444); nothing was written" in err, err
    assert "--force" in err and "no file was changed" in err
    assert path.read_text(encoding="utf-8") == OLD and writable.read_text(encoding="utf-8") == OLD  # neither
    status, out, _err = run(capsys, "fmt", "--write", "--force", str(tmp_path))
    assert status == 0 and "2 files written" in out
    assert path.read_text(encoding="utf-8") == NEW and stat.S_IMODE(os.stat(path).st_mode) == 0o444


@AS_ROOT
def test_the_owner_and_group_of_a_file_are_kept(tmp_path, capsys):
    """As root, the rename-based write used to give another user's file to root."""
    path = rules(tmp_path)
    os.chown(path, 4242, 4343)
    os.chmod(path, 0o640)
    status, _out, _err = run(capsys, "fmt", "--write", str(path))
    assert status == 0
    after = os.stat(path)
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (4242, 4343, 0o640)
    assert path.read_text(encoding="utf-8") == NEW


@AS_ROOT
def test_where_the_owner_cannot_be_kept_nothing_is_written_and_the_refusal_says_why(tmp_path, capsys, monkeypatch):
    path = rules(tmp_path)
    os.chown(path, 4242, 4242)

    def not_allowed(*_args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", not_allowed)
    status, _out, err = run(capsys, "fmt", "--write", str(path))
    assert status == 1 and "its owner could not be kept" in err and "user 4242" in err, err
    assert path.read_text(encoding="utf-8") == OLD and os.stat(path).st_uid == 4242
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_a_refusal_in_a_folder_where_no_file_can_be_made_names_the_file_not_a_temporary_one(tmp_path, capsys, monkeypatch):
    """(A read-only folder; root may write anywhere, so the folder's refusal is simulated.)"""
    path = rules(tmp_path)

    def read_only_folder(*, prefix, suffix, dir):
        raise PermissionError(13, "Permission denied", os.path.join(dir, prefix + "x1y2z3" + suffix))

    monkeypatch.setattr(tempfile, "mkstemp", read_only_folder)
    status, _out, err = run(capsys, "fmt", "--write", str(path))
    assert status == 1
    assert f"cannot write {path}: no new file can be made in its folder {tmp_path} (Permission denied)" in err, err
    assert "x1y2z3" not in err and "cannot read" not in err
    assert path.read_text(encoding="utf-8") == OLD


# ------------------------------------------------------------------ -o OUT

def forge_import(capsys, out: Path, *more: str) -> tuple[int, str, str]:
    return run(capsys, "import", "forge", str(FORGE / "library-board.pzl"), "-o", str(out), *more)


def forge_export(capsys, out: Path, *more: str) -> tuple[int, str, str]:
    return run(capsys, "export", "forge", str(ROOT / "tests" / "scenarios" / "tour.scenario"), "-o", str(out), *more)


@pytest.mark.parametrize("command", [forge_import, forge_export])
def test_o_through_a_link_to_nowhere_is_a_clear_refusal(tmp_path, capsys, command):
    """It used to end in `internal error: TypeError` with exit status 2."""
    out = tmp_path / "out.txt"
    out.symlink_to(tmp_path / "missing" / "target.txt")
    for more in ((), ("--force",)):
        status, _printed, err = command(capsys, out, *more)
        assert status == 1, err
        assert "internal error" not in err and "Traceback" not in err
        assert "is a link to" in err and "which does not exist" in err and "cannot write" in err
        assert out.is_symlink() and not (tmp_path / "missing").exists()


@pytest.mark.parametrize("command", [forge_import, forge_export])
def test_o_force_never_replaces_a_fifo_or_a_link_to_one(tmp_path, capsys, command):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "to-pipe"
    link.symlink_to(fifo)
    for out in (fifo, link):
        status, _printed, err = command(capsys, out, "--force")
        assert status == 1 and "a FIFO (a named pipe), and only a regular file is ever replaced" in err, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()


@AS_ROOT
def test_o_force_never_replaces_a_device_node(tmp_path, capsys):
    """A device node made here (what `/dev/null` is), never the system's own."""
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    status, _printed, err = forge_import(capsys, node, "--force")
    assert status == 1 and "a character device" in err, err
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_o_force_writes_through_a_link_and_keeps_the_files_mode(tmp_path, capsys):
    real = tmp_path / "real.scenario"
    real.write_text("# mine\n", encoding="utf-8")
    os.chmod(real, 0o600)
    link = tmp_path / "board.scenario"
    link.symlink_to(real.name)
    status, printed, _err = forge_import(capsys, link)
    assert status == 1 and real.read_text(encoding="utf-8") == "# mine\n"  # exists: not without --force
    status, printed, _err = forge_import(capsys, link, "--force")
    assert status == 0 and link.is_symlink() and 'scenario "A library board"' in real.read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o600


def test_o_makes_a_new_file_with_the_usual_permissions(tmp_path, capsys):
    out = tmp_path / "new.scenario"
    umask = os.umask(0o022)
    try:
        status, _printed, _err = forge_import(capsys, out)
    finally:
        os.umask(umask)
    assert status == 0 and stat.S_IMODE(os.stat(out).st_mode) == 0o644


# ------------------------------------------------------------------ the routine itself

def test_write_file_refuses_a_folder_and_a_link_loop_whatever_force_says(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    for target, kind in ((tmp_path, "a folder"), (loop, "a link that leads round in a loop")):
        with pytest.raises(WriteRefused) as caught:
            write_file(target, b"x", replace=True, force=True)
        assert kind in str(caught.value)
    assert loop.is_symlink()


def test_write_file_refuses_a_new_name_that_appeared_meanwhile(tmp_path, monkeypatch):
    """`-o OUT` without --force: a file made between the look and the write is not replaced."""
    out = tmp_path / "out.txt"
    assert target_problem(out, replace=False) is None
    out.write_text("theirs", encoding="utf-8")
    with pytest.raises(WriteRefused, match="it exists"):
        write_file(out, b"mine", replace=False)
    assert out.read_text(encoding="utf-8") == "theirs"


def test_a_failed_write_leaves_no_temporary_file_and_the_old_text(tmp_path, monkeypatch):
    path = rules(tmp_path)

    def full_disk(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(WriteRefused, match="No space left on device"):
        write_file(path, b"new", replace=True, expected=OLD.encode())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.rules"] and path.read_text(encoding="utf-8") == OLD


def test_the_cache_replaces_whatever_is_under_its_own_entry_name_without_following_it(tmp_path):
    """A private entry (the parse cache's): a link planted under its name is replaced by a file,
    and the file the link led to is untouched."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    entry = tmp_path / "entry.json"
    entry.symlink_to(victim)
    write_file(entry, b"{}", replace=True, private=True, durable=False)
    assert not entry.is_symlink() and entry.read_bytes() == b"{}" and victim.read_text(encoding="utf-8") == "keep"
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o600


def test_no_write_of_the_project_bypasses_the_routine():
    """Every file the shipped code writes goes through `dsl.atomic.write_file` (the bench
    scripts, which write scratch boards, and the tests aside)."""
    offenders = []
    for folder in ("dsl", "interpreter", "interop"):
        for source in sorted((ROOT / folder).rglob("*.py")):
            if source.name == "atomic.py":
                continue
            text = source.read_text(encoding="utf-8")
            for needle in (".write_text(", ".write_bytes(", "os.replace(", "os.rename(", '"w")', '"wb")', '"xb")',
                           '"a")', "shutil.copy", "shutil.move"):
                if needle in text:
                    offenders.append(f"{source.relative_to(ROOT)}: {needle}")
    assert offenders == []
    assert atomic.write_file is write_file
