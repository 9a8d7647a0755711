"""The interpreter's side of the comparison: the untap step run by `Engine` under a rulebook.

`run.py` and the differential test both use these, so they measure and check the same thing.
"""

from __future__ import annotations

from phasing_rules.dsl import ast
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.model import Game, Permanent
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.rulebook.loading import Rulebook, load_version

VERSION = "2026-09-25"
COMPARED = ("phase", "phased_indirectly", "phased_out_under", "tapped", "attached_to", "zone")
DEFAULTS = {"phase": "in", "phased_indirectly": False, "phased_out_under": None}


def full_book() -> Rulebook:
    return load_version(VERSION)


def state_check_blocks(book: Rulebook) -> list[str]:
    """The ids of the blocks that run during state checks (the state-based actions)."""
    return [rule.id for rule in book.rules
            if any(isinstance(c, ast.During) and c.hook.kind == "state check" for c in rule.clauses)]


def without_state_checks(book: Rulebook) -> Rulebook:
    """The same rulebook with every state-check block deleted: `run_hook` then only phases and untaps."""
    for rule_id in state_check_blocks(book):
        book = book.without(rule_id)
    return book


def prepare(book: Rulebook, game: Game, backend: str = "generated") -> Engine:
    """An engine on a copy of `game` (`Game.copy` copies every permanent: they change in place),
    in `backend`: by default generated Python, which the benchmark's boards (1,000 permanents and
    more) are played in, named so that the tests' small boards are played in it too."""
    return Engine(Program.of(book, backend), game.copy())


def untap_with_interpreter(book: Rulebook, game: Game, player: str) -> dict[str, Permanent]:
    engine = prepare(book, game)
    engine.run_hook("untap step", player)
    return engine.game.objects


def observed(objects: dict[str, Permanent]) -> dict[str, tuple]:
    """What the comparison looks at, per object: the phasing statuses, tapped, attached_to, zone."""
    out = {}
    for oid, o in objects.items():
        out[oid] = tuple(o.get_status(name, DEFAULTS[name]) if name in DEFAULTS else getattr(o, name)
                         for name in COMPARED)
    return out
