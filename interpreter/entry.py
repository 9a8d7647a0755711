"""The `phasing` console script: `interpreter.cli.main`, imported only once a Ctrl-C during its
imports (rich, lark, the rulebooks: a good part of a second) can be answered like one during a
command, with `phasing: error: interrupted` and status 130 rather than a traceback."""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from .cli import main as command
    except KeyboardInterrupt:
        sys.stderr.write("phasing: error: interrupted\n")
        return 130
    return command()


if __name__ == "__main__":
    sys.exit(main())
