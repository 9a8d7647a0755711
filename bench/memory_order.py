"""How the order in which objects are reached costs on a large board: the figures behind
docs/performance.md's "Where objects lie in memory".

On the benchmark's board the objects are made in the game's order and mostly lie in memory in
it; a set of ids holds them in the order the ids hash, and looking an id up in the game's
table of objects goes to wherever it hashes. Once the board no longer fits in the
processor's caches (100,000 permanents here), going to objects in a set's order, or looking
each up by id, costs several times what going over them in the game's order costs, while
the work done is the same. This script reads one field of objects each way, in turn, and
prints the medians side by side:

    python bench/memory_order.py [permanents] [rounds]

- every object, in the game's order (`objects.values()`);
- every object, looked up by id, the ids in the game's order;
- every object, looked up by id, the ids in the order a set holds them;
- a fifth of the objects, looked up by id, in the game's order and in a set's order.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Callable

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.arguments import board_and_rounds
from bench.boards import build_board
from bench.in_turn import timed


def readers(objects: dict) -> list[tuple[str, Callable[[], object]]]:
    """Each way of reading one field (`card`) of objects, named."""
    in_order = list(objects)
    in_a_set = list(set(in_order))  # (the order a set of the ids holds them)
    fifth = in_order[::5]
    fifth_in_a_set = list(set(fifth))
    return [
        ("every object, in the game's order", lambda: [o.card for o in objects.values()]),
        ("every object, by id, in the game's order", lambda: [objects[oid].card for oid in in_order]),
        ("every object, by id, in a set's order", lambda: [objects[oid].card for oid in in_a_set]),
        ("a fifth, by id, in the game's order", lambda: [objects[oid].card for oid in fifth]),
        ("a fifth, by id, in a set's order", lambda: [objects[oid].card for oid in fifth_in_a_set]),
    ]


def main(argv: list[str]) -> int:
    n, rounds = board_and_rounds(argv[1:], Path(argv[0]).name,
                                 "one field of the board's objects read in the game's order, by id and in a set's "
                                 "order, timed in turn", 7)
    objects = build_board(n, 0).objects
    ways = readers(objects)
    times: dict[str, list[float]] = {name: [] for name, _read in ways}
    for _ in range(rounds):
        for name, read in ways:
            times[name].append(timed(read))
    first = statistics.median(times[ways[0][0]])
    print(f"{n:,} permanents, {rounds} rounds (medians):")
    for name, _read in ways:
        took = statistics.median(times[name])
        print(f"  {name:42s} {took * 1e3:8.2f} ms  {took / first:5.1f} times the first")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
