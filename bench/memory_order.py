"""How the order in which objects are reached costs on a large board: the figures behind
docs/performance.md's "Where objects lie in memory" and "What is left is memory".

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
- a fifth of the objects, looked up by id, in the game's order and in a set's order;
- a selection as the engine makes one (702.26a's phasing permanents of the active player
  that are phased in): three index sets intersected, the result put in the game's order and
  each object read, once with sets of ids as `interpreter.program.indexes` keeps them (the order
  read from a table of each id's place, each object looked up by id), once with sets of
  places in the game's order (sorted as they are, each object taken from a list by its
  place): the layout docs/architecture.md proposes for the indexes a compiled step reads.
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


def readers(objects: dict, active: str) -> list[tuple[str, Callable[[], object]]]:
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
        *selections(objects, active),
    ]


def selections(objects: dict, active: str) -> list[tuple[str, Callable[[], list]]]:
    """702.26a's selection of what phases out (phased in, with phasing, controlled by
    `active`) made the two ways the module's doc describes, each giving the ids it chose."""
    def sets(key: Callable[[str, object], object]) -> tuple[set, set, set]:
        phased_in, phasing, mine = set(), set(), set()
        for place, (oid, o) in enumerate(objects.items()):
            k = key(oid, place)
            if o.get_status("phase", "in") == "in":
                phased_in.add(k)
            if "phasing" in o.keywords:
                phasing.add(k)
            if o.controller == active:
                mine.add(k)
        return phased_in, phasing, mine

    place_of = {oid: place for place, oid in enumerate(objects)}
    in_place = list(objects.values())
    by_id = sets(lambda oid, place: oid)
    by_place = sets(lambda oid, place: place)

    def with_ids() -> list:
        phased_in, phasing, mine = by_id
        return [objects[oid].id for oid in sorted(phasing.intersection(phased_in, mine), key=place_of.__getitem__)]

    def with_places() -> list:
        phased_in, phasing, mine = by_place
        return [in_place[place].id for place in sorted(phasing.intersection(phased_in, mine))]

    return [("a selection, sets of ids", with_ids), ("a selection, sets of places", with_places)]


def main(argv: list[str]) -> int:
    n, rounds = board_and_rounds(argv[1:], Path(argv[0]).name,
                                 "one field of the board's objects read in the game's order, by id and in a set's "
                                 "order, and a selection made with sets of ids and of places, timed in turn", 7)
    game = build_board(n, 0)
    objects = game.objects
    ways = readers(objects, game.active)
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
