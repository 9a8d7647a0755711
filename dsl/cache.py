"""Parsed files kept between runs, as plain JSON data in a private per-user folder.

Safety: an entry is data read by `dsl.codec`, which builds only syntax tree nodes and checks
every field, so a planted or damaged file is at worst a cache miss, never code that runs.
The folder is `$PHASING_CACHE_DIR` if set, else the user's cache folder from platformdirs;
it is created with mode 0700, and it is not used (the run goes on without the cache, saying
so once on stderr) when it is owned by another user or writable by group or others, is not a
folder at all, or is (or lies below) a symbolic link to nothing.

Freshness: an entry's name is a sha256 over the package version, the grammar, the source of
the modules that turn text into trees (tables, parser, AST, codec, limits, this file), the
path and the file's text, so any change to one of them misses.

Size: an entry larger than MAX_ENTRY_BYTES is not stored; when the folder grows beyond
MAX_FOLDER_BYTES the least recently used entries (oldest mtime; a hit refreshes it) go, down
to EVICT_TO of it. The folder is looked over once, at a process's first store, and the process
then adds the size of each entry it stores to the total it found; only when that passes
MAX_FOLDER_BYTES is the folder looked over again (and entries evicted), so that storing N
entries costs time in proportion to N, not N squared (issue 43: every store listed the whole
folder). What other processes store meanwhile is found at that next look, or by them.

Reads are bounded: an entry is opened without blocking and without following a symbolic link,
and anything but a regular file (a FIFO or device planted under an entry's name) is a miss.

Writes are atomic: a temporary file created 0600 in the same folder, then `os.replace`; the
temporary file is removed on every failure.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import sys
import time
from pathlib import Path

from . import ast, codec
from .atomic import write_file

MAX_ENTRY_BYTES = 8 * 1024 * 1024
"""An encoded tree larger than this is not kept (parsing such a file again is cheap by comparison)."""

MAX_FOLDER_BYTES = 64 * 1024 * 1024
"""Entries are evicted, least recently used first, to keep the folder under this total."""

EVICT_TO = 0.75
"""When the folder has grown past MAX_FOLDER_BYTES, entries go until it holds at most this part
of it: the room left means the stores that follow need not look over the folder again at once."""

STALE_TEMPORARY_SECONDS = 3600
"""A temporary file this old was left by a process that died mid-write; eviction removes it."""

SUFFIX = ".json"
_OLD_SUFFIX = ".pickle"
_ENTRY_NAME = re.compile(r"(?P<temporary>\.tmp-[A-Za-z0-9_]+\.json)|[0-9a-f]{64}(?P<suffix>\.json|\.pickle)")
_TEMPORARY_PREFIX = ".tmp-"
_HERE = Path(__file__).resolve().parent
# The sources whose change can change the tree a text parses to.
_KEYED_SOURCES = (
    "grammar.lark", "tables.py", "parser.py", "ast.py", "codec.py", "limits.py", "diagnostics.py", "cache.py",
)

_warned = False


def folder() -> Path:
    """Where entries live: `$PHASING_CACHE_DIR`, else the per-user cache folder."""
    configured = os.environ.get("PHASING_CACHE_DIR")
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("phasing-rules", appauthor=False))


_DISTRIBUTION = "phasing_rules"


def package_version() -> str:
    """The installed package's version, "dev" when it is not installed.

    The same answer as `importlib.metadata.version("phasing-rules")` (the first
    `phasing_rules-<version>.dist-info` folder along sys.path) without importing
    importlib.metadata, whose import alone takes about three times a warm load.
    """
    prefix = _DISTRIBUTION + "-"
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as listing:
                names = sorted(item.name for item in listing
                               if item.name.startswith(prefix) and item.name.endswith(".dist-info"))
        except OSError:
            continue
        if names:
            return names[0][len(prefix):-len(".dist-info")]
    return "dev"


@functools.cache
def _fingerprint() -> bytes:
    """The package version and the parsing sources, hashed once per process."""
    version = package_version()
    digest = hashlib.sha256(version.encode())
    for name in _KEYED_SOURCES:
        try:
            data = (_HERE / name).read_bytes()
        except OSError:
            data = b"<missing>"
        digest.update(len(name).to_bytes(8, "big") + name.encode() + len(data).to_bytes(8, "big") + data)
    return digest.digest()


def key(path: str, text: str) -> str:
    """The entry name for `text` read from `path` (hex sha256)."""
    digest = hashlib.sha256(_fingerprint())
    for part in (path.encode("utf-8", "surrogatepass"), text.encode("utf-8", "surrogatepass")):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        sys.stderr.write(f"phasing: running without the parse cache: {message}\n")


def usable_folder() -> Path | None:
    """The cache folder, created if need be, or None when it must not or cannot be used."""
    where = folder()
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        pass  # something that is not a folder is there (exist_ok covers only folders): said below
    except NotADirectoryError:
        _warn_once(f"{where} is not a folder (a part of its path is a file)")
        return None
    except OSError:
        return _dangling(where)  # else a read-only or missing home: the cache only saves time; say nothing
    try:
        info = os.stat(where)
    except OSError:
        return _dangling(where)
    if not stat.S_ISDIR(info.st_mode):
        _warn_once(f"{where} is not a folder")
        return None
    if info.st_uid != os.getuid():
        _warn_once(f"{where} belongs to another user (uid {info.st_uid}); "
                   "point PHASING_CACHE_DIR at a folder only you can write")
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        _warn_once(f"{where} can be written by other users (mode {stat.S_IMODE(info.st_mode):o}); "
                   "point PHASING_CACHE_DIR at a folder only you can write")
        return None
    return where


def _dangling(where: Path) -> None:
    """None, having said so once when `where`, or a folder above it, is a symbolic link to
    nothing (issue 43: the cache was then off without a word; mkdir takes the link for
    something already there, and stat finds nothing behind it)."""
    for link in (where, *where.parents):
        try:
            if link.is_symlink() and not link.exists():
                what = f"{where} is" if link == where else f"{where} lies below {link},"
                _warn_once(f"{what} a symbolic link to {os.readlink(link)}, which does not exist; "
                           "point PHASING_CACHE_DIR at a folder only you can write")
                break
        except (OSError, ValueError):
            break
    return None


def load(path: str, text: str) -> ast.Module | None:
    """The tree a previous run stored for exactly this text at this path, or None."""
    where = usable_folder()
    if where is None:
        return None
    entry = where / (key(path, text) + SUFFIX)
    try:
        data = _read_entry(entry)
        if data is None:
            return None
        module = codec.decode(data, frozenset({path}))
    except Exception:  # absent, unreadable, damaged or planted: parse instead
        return None
    try:
        os.utime(entry)  # recently used: evicted last
    except OSError:
        pass
    return module


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_entry(entry: Path) -> bytes | None:
    """The bytes of `entry` if it is a regular file of at most MAX_ENTRY_BYTES, else None.

    Opened without waiting (a FIFO planted under an entry's name would otherwise block the
    open, and then the read, for ever) and without following a symbolic link (the cache writes
    only regular files), then checked on the open file, so what is read is what was checked."""
    descriptor = os.open(entry, _OPEN_FLAGS)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            return None
        chunks, size = [], 0
        while size <= MAX_ENTRY_BYTES:
            chunk = os.read(descriptor, MAX_ENTRY_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def store(path: str, text: str, module: ast.Module) -> None:
    """Keep `module` for the next run; any failure just leaves it out."""
    where = usable_folder()
    if where is None:
        return
    try:
        data = codec.encode(module).encode("ascii")
    except Exception:
        return
    if len(data) > MAX_ENTRY_BYTES:
        return
    try:
        write_file(where / (key(path, text) + SUFFIX), data, replace=True, private=True, durable=False,
                   temporary=(_TEMPORARY_PREFIX, SUFFIX))
    except Exception:
        return
    _stored(where, len(data))


# Each cache folder this process has stored in -> the bytes its entries held when it was last
# looked over, plus those of every entry stored in it since (an entry written over one of the
# same name counts twice: the total errs on the side of looking again early).
_folder_bytes: dict[str, int] = {}


def _stored(where: Path, size: int) -> None:
    """Count an entry of `size` bytes just stored in `where`; look the folder over (and evict)
    at the first store of the process there, and whenever the total passes MAX_FOLDER_BYTES."""
    name = os.fsdecode(where)
    total = _folder_bytes.get(name)
    if total is not None and total + size <= MAX_FOLDER_BYTES:
        _folder_bytes[name] = total + size
        return
    left = evict(where, down_to=int(MAX_FOLDER_BYTES * EVICT_TO))
    if left is None:  # (the folder could not be listed: look again next time)
        _folder_bytes.pop(name, None)
    else:
        _folder_bytes[name] = left


def evict(where: Path, limit: int | None = None, down_to: int | None = None) -> int | None:
    """When the folder holds more than `limit` bytes (MAX_FOLDER_BYTES when not given), remove
    the least recently used entries until it holds at most `down_to` (`limit` when not given);
    remove too temporary files left by crashed writers, and entries in the pickle format
    earlier versions wrote (never read: they cannot be trusted). The bytes the entries left
    hold, or None when the folder cannot be listed."""
    limit = MAX_FOLDER_BYTES if limit is None else limit
    down_to = limit if down_to is None else min(down_to, limit)
    entries = []
    total = 0
    now = time.time()
    try:
        with os.scandir(where) as listing:
            for item in listing:
                # Only names this module writes: a folder shared with other files loses none of them.
                owned = _ENTRY_NAME.fullmatch(item.name)
                if owned is None or not item.is_file(follow_symlinks=False):
                    continue
                info = item.stat(follow_symlinks=False)
                if owned["temporary"]:
                    if now - info.st_mtime > STALE_TEMPORARY_SECONDS:
                        _remove(item.path)
                elif owned["suffix"] == _OLD_SUFFIX:  # a pickle from before this format: never read, just space
                    _remove(item.path)
                else:
                    entries.append((info.st_mtime, item.path, info.st_size))
                    total += info.st_size
    except OSError:
        return None
    if total <= limit:
        return total
    for _, entry, size in sorted(entries):
        if total <= down_to:
            break
        if _remove(entry):
            total -= size
    return total


def _remove(entry: str) -> bool:
    try:
        os.unlink(entry)
        return True
    except OSError:
        return False
