"""The one routine that writes a file: every write the project makes goes through `write_file`
(`phasing fmt --write`, `-o OUT` of `import` and `export`, the parse cache, the fuzzer's
findings, the files `import forge` checks, the folders `phasing fold` writes), and every file
it removes through `remove_file` (`phasing fold`, a version's file it no longer needs).

What it promises (SECURITY.md, "Writing files"):

- a reader sees the old text or the new, never a part: the new text goes to a temporary file
  in the same folder, which is renamed over the target;
- a symbolic link is written through: the file it leads to gets the new text, the link stays;
- the file keeps its owner, group and permission bits; where they cannot be kept (a user who
  is not root cannot give a file to another user) nothing is written and the refusal says why;
- a file with other hard links is written in place, so every name keeps showing one file;
- nothing but a regular file is ever replaced: a folder, a FIFO, a device, a socket, or a link
  to one of them is refused whatever `force` says; so is a link that leads nowhere;
- a file whose mode bits make it read-only (its owner's write bit clear) is refused unless
  `force`; the bits decide, not an access check, which says yes to root for every file;
- a file that changed since it was read (`expected`) is not written over;
- every refusal is a `WriteRefused` (a `DiagnosticError`) naming the real file and saying
  "cannot write"; the temporary file never stays and is never named.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from .diagnostics import Diagnostic, DiagnosticError, Span


class WriteRefused(DiagnosticError):
    """A write `write_file` would not or could not make; nothing was written."""


def _refused(shown: Path, real: Path, why: str, hint: str) -> WriteRefused:
    followed = os.path.realpath(shown) != os.path.abspath(shown)
    name = f"{real} (where {shown} leads)" if followed else str(shown)
    return WriteRefused(Diagnostic("error", f"cannot write {name}: {why}; nothing was written",
                                   Span(str(shown), 0, 0, 0, 0), hint))


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (a named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a link that leads round in a loop"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _reason(exc: OSError) -> str:
    return exc.strerror or os.strerror(exc.errno or 0) or type(exc).__name__


def target_problem(target: str | Path, *, replace: bool, force: bool = False) -> WriteRefused | None:
    """Why `write_file(target, ..., replace=replace, force=force)` would be refused before it
    writes anything, or None: the checks of the name alone (what is there, its mode bits)."""
    return _inspect(Path(target), replace=replace, force=force)[2]


def _inspect(shown: Path, *, replace: bool, force: bool) -> tuple[Path, os.stat_result | None, WriteRefused | None]:
    """The real file `shown` leads to, its status (None: nothing there), and the refusal the
    name alone earns."""
    real = Path(os.path.realpath(shown))
    try:
        status = os.lstat(real)
    except FileNotFoundError:
        status = None
    except OSError as exc:
        return real, None, _refused(shown, real, f"cannot look at it ({_reason(exc)})", "check the path and its folders")
    if status is None:
        if os.path.islink(shown):
            return real, None, _refused(shown, real, f"{shown} is a link to {os.readlink(shown)}, which does not exist",
                                        "mend or remove the link, or give another name")
        if not real.parent.is_dir():
            return real, None, _refused(shown, real, f"its folder {real.parent} does not exist", "create the folder first")
        return real, None, None
    if not stat.S_ISREG(status.st_mode):
        return real, status, _refused(shown, real, f"it is {_kind(status.st_mode)}, and only a regular file is ever replaced",
                                      "give the name of a regular file, or a new name")
    if not replace:
        return real, status, _refused(shown, real, "it exists", "give another name, or --force to replace it")
    if not status.st_mode & stat.S_IWUSR and not force:
        return real, status, _refused(shown, real, f"it is read-only (mode {stat.S_IMODE(status.st_mode):04o})",
                                      "make it writable (chmod u+w), or give --force to write it all the same")
    return real, status, None


def write_file(target: str | Path, data: bytes, *, replace: bool, expected: bytes | None = None,
               force: bool = False, durable: bool = True, mode: int | None = None,
               private: bool = False, temporary: tuple[str, str] | None = None) -> Path:
    """Write `data` as the file `target` and return the real file written.

    `replace`: whether a regular file already there may be written over (else it is refused as
    existing); `expected`: the text the caller read from it, when the write is an edit of that
    text (refused if the file now holds anything else, or is gone); `force`: write a read-only
    file all the same; `durable`: flush the file and its folder to disk (a user's file; the
    cache does without); `mode`: the permission bits of a new file (default: 0666 less the
    umask); `private`: the name is an entry of a folder the program keeps for itself (the
    parse cache): whatever is under that name is replaced by a new file of `mode`, never
    followed or written into; `temporary`: the prefix and suffix of the temporary file's name
    (the cache's, so it can clear what a crash left). Raises `WriteRefused`."""
    shown = Path(target)
    if private:
        try:
            _write_by_rename(shown, shown, data, None, None, durable, 0o600 if mode is None else mode, new=False,
                             temporary=temporary)
        except OSError as exc:
            raise _refused(shown, shown, _reason(exc), "check the folder's permissions and free space") from None
        return shown
    real, status, problem = _inspect(shown, replace=replace, force=force)
    if problem is not None:
        raise problem
    if expected is not None:
        if status is None:
            raise _refused(shown, real, "it was removed since it was read", "run the command again")
        _check_unchanged(shown, real, expected)
    try:
        if status is not None and status.st_nlink > 1:
            _write_in_place(shown, real, data, expected, durable)
        else:
            _write_by_rename(shown, real, data, status, expected, durable,
                             _default_mode() if mode is None else mode, temporary=temporary)
    except WriteRefused:
        raise
    except OSError as exc:
        raise _refused(shown, real, _reason(exc), "check the file's and its folder's permissions and free space") from None
    return real


def remove_file(target: str | Path, *, expected: bytes, durable: bool = True) -> Path:
    """Remove the regular file `target`, which the caller read as `expected` (refused, nothing
    removed, if it now holds anything else, is gone, or is not a regular file; a link is not
    followed: the link itself would go, so it is refused). Raises `WriteRefused`."""
    shown = Path(target)
    real, status, problem = _inspect(shown, replace=True, force=False)
    if problem is not None:
        raise problem
    if status is None:
        raise _refused(shown, real, "it was removed since it was read", "run the command again")
    if os.path.islink(shown):
        raise _refused(shown, real, f"{shown} is a link, and only a regular file is removed", "remove the link yourself")
    _check_unchanged(shown, real, expected)
    try:
        os.unlink(real)
    except OSError as exc:
        raise _refused(shown, real, _reason(exc), "check the folder's permissions") from None
    if durable:
        _sync_folder(real.parent)
    return real


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _check_unchanged(shown: Path, real: Path, expected: bytes) -> None:
    try:
        with open(real, "rb") as handle:
            now = handle.read(len(expected) + 1)
    except OSError as exc:
        raise _refused(shown, real, f"it cannot be read again to see that it is unchanged ({_reason(exc)})",
                       "check its permissions") from None
    if now != expected:
        raise _refused(shown, real, "it changed since it was read", "run the command again on the file as it is now")


def _write_in_place(shown: Path, real: Path, data: bytes, expected: bytes | None, durable: bool) -> None:
    """A file with other hard links: its own bytes rewritten, so every name sees the new text."""
    descriptor = os.open(real, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "r+b") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise _refused(shown, real, "it stopped being a regular file", "give the name of a regular file")
        if expected is not None and handle.read(len(expected) + 1) != expected:
            raise _refused(shown, real, "it changed since it was read", "run the command again on the file as it is now")
        handle.seek(0)
        handle.write(data)
        handle.truncate()
        handle.flush()
        if durable:
            os.fsync(handle.fileno())


def _write_by_rename(shown: Path, real: Path, data: bytes, status: os.stat_result | None, expected: bytes | None,
                     durable: bool, mode: int, new: bool = True, temporary: tuple[str, str] | None = None) -> None:
    """The new text in a temporary file beside `real`, then put in its place: renamed over the
    old file (`status`: the old file's, whose identity it takes), or linked in under a new
    name (`new`), or renamed over whatever the name holds (neither)."""
    folder = real.parent
    prefix, suffix = temporary or (f".{real.name}.", ".tmp")
    try:
        descriptor, scratch = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    except OSError as exc:
        raise _refused(shown, real, f"no new file can be made in its folder {folder} ({_reason(exc)})",
                       "the file is replaced through a new file beside it: make the folder writable") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            if status is not None:
                _keep_identity(shown, real, handle.fileno(), status)
            else:
                os.fchmod(handle.fileno(), mode)
            if durable:
                os.fsync(handle.fileno())
        if expected is not None:
            _check_unchanged(shown, real, expected)
        if status is None and new:
            # A new name: linked into place, so a file that appeared meanwhile is never replaced.
            try:
                os.link(scratch, real)
            except FileExistsError:
                raise _refused(shown, real, "it appeared while it was being written", "give another name, or --force") from None
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                    raise
                _create_exclusively(shown, real, data, mode)
            os.unlink(scratch)
        else:
            os.replace(scratch, real)
        if durable:
            _sync_folder(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise


def _keep_identity(shown: Path, real: Path, descriptor: int, status: os.stat_result) -> None:
    """Give the new file the old one's owner, group and permission bits, or refuse."""
    now = os.fstat(descriptor)
    if (now.st_uid, now.st_gid) != (status.st_uid, status.st_gid):
        try:
            os.fchown(descriptor, status.st_uid, status.st_gid)
        except PermissionError:
            owner = "owner" if now.st_uid != status.st_uid else "group"
            raise _refused(shown, real, f"its {owner} could not be kept (the file belongs to user {status.st_uid}, "
                                        f"group {status.st_gid}, and this user may not give a file to them)",
                           "run the command as the file's owner") from None
    os.fchmod(descriptor, stat.S_IMODE(status.st_mode))


def _create_exclusively(shown: Path, real: Path, data: bytes, mode: int) -> None:
    """Where the file system has no hard links: the new file made under its name, never over one."""
    try:
        descriptor = os.open(real, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise _refused(shown, real, "it appeared while it was being written", "give another name, or --force") from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
