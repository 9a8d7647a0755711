"""The progress display of the long commands (`phasing ablate`, `diff --search N`, `test`): one
helper, `tracking`, that every command which takes a while uses the same way.

A command opens `tracking(console, title, enabled)` around its long call and hands the tool
the callback it yields; the tool calls it as it goes, `progress(done, total, what)` (`total`
None when not known; `what`, the thing at hand: a block, a scenario). The bar is drawn only
on a terminal (the console's `is_terminal`: stderr, so that stdout stays the command's
output), never when `enabled` is false (`--json`), and it is gone when the work is done
(transient): what is left on the screen is the command's output alone.

The tools never import this module (they are a layer below the command line): each long
tool function takes an optional callback of the `Callback` form, and calls `no_progress`'s
like when given none.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

WHAT_WIDTH = 40
"""The most characters of a `what` shown beside the title (the rest is cut, with an ellipsis)."""

Callback = Callable[..., None]
"""`progress(done: int, total: int | None, what: str = "")`: `done` of `total` units done so far."""


def no_progress(done: int, total: int | None = None, what: str = "") -> None:
    """The callback that shows nothing (piped output, --json, or a caller that wants none)."""


def shows_progress(console: Console, enabled: bool = True) -> bool:
    """Whether `tracking` draws a bar on `console`: only on a terminal, and only when `enabled`."""
    return enabled and console.is_terminal


@contextlib.contextmanager
def tracking(console: Console, title: str, enabled: bool = True,
             clean: Callable[[str], str] = str, redirect_stdout: bool = False) -> Iterator[Callback]:
    """A progress bar titled `title` on `console` while the block runs (see the module's text),
    yielding the callback that moves it; `no_progress` where no bar is drawn. `clean` makes
    the text of a `what` safe to print (the command line escapes control characters).
    `redirect_stdout`: what is written to sys.stdout meanwhile is printed above the bar (say
    so only when stdout is the same terminal: piped output must stay on stdout)."""
    if not shows_progress(console, enabled):
        yield no_progress
        return
    bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=console, transient=True,
                   redirect_stdout=redirect_stdout, redirect_stderr=False)
    with bar:
        task = bar.add_task(clean(title), total=None)

        def update(done: int, total: int | None = None, what: str = "") -> None:
            what = what if len(what) <= WHAT_WIDTH else what[:WHAT_WIDTH - 3] + "..."
            bar.update(task, completed=done, total=total,
                       description=clean(f"{title}: {what}" if what else title))

        yield update
