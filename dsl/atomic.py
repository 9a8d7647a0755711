"""Replacing a file all at once: the new contents go to a temporary file in the same folder
(created 0600 by `tempfile.mkstemp`), which is then renamed over the target, so a reader sees
the old file or the new one, never a part. Used by the parse cache and by `phasing fmt`."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def replace_file(target: Path, data: bytes, *, prefix: str, suffix: str, mode: int | None = None,
                 durable: bool = False) -> None:
    """Write `data` as the file `target`, atomically. `mode`: permission bits to give it
    (default: the temporary file's 0600); `durable`: flush it to disk before the rename (a
    user's own file, not a cache entry). Raises OSError; the temporary file never stays."""
    descriptor, temporary = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
