"""Writing what `phasing import` and `phasing export` make to `-o OUT`: never over a file that
exists unless the user said `--force`, and then only as `dsl.atomic.write_file` allows (a
regular file, its owner, group, mode and links kept; never a FIFO, a device or a folder)."""

from __future__ import annotations

from pathlib import Path

from ..dsl.atomic import target_problem, write_file
from ..dsl.diagnostics import Diagnostic


def refusal(out: Path | None, force: bool) -> Diagnostic | None:
    """Why `out` cannot be written (a folder, a FIFO or device, a link that leads nowhere; a file
    that exists, without `force`; a read-only file, without `force`), or None."""
    if out is None:
        return None
    problem = target_problem(out, replace=force, force=force)
    return None if problem is None else problem.diagnostics[0]


def write(out: Path, text: str, force: bool) -> None:
    """`text` as the file `out`: a new file, or (with `force`) one replaced all at once. A file
    that appeared since `refusal` looked is not written over without `force`. Raises
    `dsl.atomic.WriteRefused`, a `DiagnosticError`."""
    write_file(out, text.encode("utf-8"), replace=force, force=force)
