"""Python's cycle collector, paused while a large piece of work makes many objects.

Parsing and checking a rule file, a step on a large board and a rewrite by `fmt` each make
tens or hundreds of thousands of objects that reference counting frees when the work ends;
none of them makes reference cycles of its own. The collector, left running, walks the live
ones again and again as more are made and promotes them to older generations, whose full
collections then walk everything the program keeps (a rule file's tree, a board, the
rulebooks loaded). Paused for the work, it runs as before once the work is done, and collects
then whatever cycles were made meanwhile.
"""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def collector_paused():
    """Pause the cycle collector (if it was running) for the block; resume it after."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
