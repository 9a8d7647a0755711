"""Writing what `phasing import` and `phasing export` make to `-o OUT`: never over a file a user
wrote, unless they said `--force`."""

from __future__ import annotations

from pathlib import Path

from dsl.atomic import replace_file
from dsl.diagnostics import Diagnostic, DiagnosticError, Span


def refusal(out: Path | None, force: bool) -> Diagnostic | None:
    """Why `out` cannot be written (a folder; a file that exists, without `force`), or None."""
    if out is None:
        return None
    if out.is_dir():
        return Diagnostic("error", f"{out} is a folder: nothing was written", Span(str(out), 0, 0, 0, 0),
                          "give -o the name of a file")
    if out.exists() and not force:
        return Diagnostic("error", f"{out} exists: nothing was written", Span(str(out), 0, 0, 0, 0),
                          "give another name, or --force to replace it")
    return None


def write(out: Path, text: str, force: bool) -> None:
    """`text` as the file `out`: a new file, or (with `force`) one replaced all at once, keeping
    its permissions. A file that appeared since `refusal` looked is not written over."""
    data = text.encode("utf-8")
    if force and out.exists():
        replace_file(out, data, prefix=".phasing-", suffix=".tmp", mode=out.stat().st_mode & 0o7777, durable=True)
        return
    try:
        with open(out, "xb") as handle:
            handle.write(data)
    except FileExistsError:
        raise DiagnosticError(refusal(out, False)) from None
