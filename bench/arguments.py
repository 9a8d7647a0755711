"""The command lines of the bench scripts, read with argparse: `--help` says what each takes,
and a bad argument is a usage error with exit status 1, as the project's commands give it,
never a traceback."""

from __future__ import annotations

import argparse
import sys


class ArgumentParser(argparse.ArgumentParser):
    """argparse's, but a bad argument exits with status 1."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def positive(text: str) -> int:
    """A whole number above 0 (a board size, a number of rounds)."""
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


positive.__name__ = "positive whole number"  # (how argparse names the type in its error)


def board_and_rounds(argv: list[str], prog: str, description: str, rounds: int | None) -> tuple[int, int | None]:
    """`[permanents] [rounds]` from `argv` (the arguments after the script's name): the
    board's size, 10,000 unless given, and the number of rounds, `rounds` unless given (None:
    the script takes no number of rounds)."""
    parser = ArgumentParser(prog=prog, description=description)
    parser.add_argument("permanents", nargs="?", type=positive, default=10_000,
                        help="permanents on the benchmark's board (default 10,000)")
    if rounds is not None:
        parser.add_argument("rounds", nargs="?", type=positive, default=rounds,
                            help=f"rounds, each engine timed once a round (default {rounds})")
    args = parser.parse_args(argv)
    return args.permanents, getattr(args, "rounds", None)
