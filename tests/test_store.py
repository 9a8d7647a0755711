"""The game store (interpreter/store.py): the one place that changes a game state, and its
journal (issue 17, item 4).

- No module of the interpreter but the store writes into a game: its containers, its fields
  or an object's attributes (checked on the source, with the ast module).
- Undo walks the journal back and restores the state exactly; played again from there, the
  game makes the same trace event for event.
- With checkpoints the journal stays bounded; without, it grows with the game.
- A zone change makes a new incarnation of the object, linked to the old one (400.7), and
  changes nothing the scenarios see.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, note, strategies as st

from interpreter.model import DATA_FIELDS, Game
from interpreter.store import ABSENT, JournalTrimmed, store_of

INTERPRETER = Path(__file__).resolve().parent.parent / "interpreter"

CONTAINERS = {"objects", "players", "effects", "lki"}  # a game's dicts
LISTS = {"watchers", "delayed"}  # a game's lists
GAME_FIELDS = {"turn", "active", "clock", "cleanup_done"} | LISTS | CONTAINERS
OBJECT_FIELDS = set(DATA_FIELDS) | {"statuses", "incarnation", "previous"}
LIST_CHANGES = {"append", "insert", "extend", "remove", "pop", "clear"}
DICT_CHANGES = {"pop", "clear", "update", "setdefault", "popitem", "__setitem__", "__delitem__"}


def _holder(node: ast.AST) -> str | None:
    """The name a container is reached by: `x.objects` or a local `objects`."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _on_self(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "self"


def game_writes(source: str, module: str) -> list[str]:
    """The places in a module's source that write into a game state: assigning or deleting
    into a game's `objects`, `players`, `effects` or `lki` (or an object's `statuses`),
    changing its `watchers` or `delayed` lists, assigning a game field or an object's
    attribute (other than on `self`), or any `setattr`. model.py's Permanent class, which
    builds new objects, may assign their attributes."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    if module == "model.py":
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "Permanent":
                allowed |= {n.lineno for n in ast.walk(node) if hasattr(n, "lineno")}
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in allowed:
            continue
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]:
            if isinstance(t, ast.Subscript) and (_holder(t.value) in CONTAINERS or
                                                 isinstance(t.value, ast.Attribute) and t.value.attr == "statuses"):
                found.append(f"{module}:{node.lineno}: {ast.unparse(t)} is assigned")
            elif isinstance(t, ast.Attribute) and not _on_self(t) and t.attr in GAME_FIELDS | OBJECT_FIELDS:
                found.append(f"{module}:{node.lineno}: {ast.unparse(t)} is assigned")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            holder, method = _holder(node.func.value), node.func.attr
            if (holder in LISTS and method in LIST_CHANGES) or \
                    ((holder in CONTAINERS or holder == "statuses" and isinstance(node.func.value, ast.Attribute))
                     and method in DICT_CHANGES):
                found.append(f"{module}:{node.lineno}: {ast.unparse(node.func)}() changes a game")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_the_store_writes_into_a_game():
    found = []
    for path in sorted(INTERPRETER.glob("*.py")):
        if path.name != "store.py":
            found += game_writes(path.read_text(), path.name)
    assert found == [], "every change of a game goes through interpreter/store.py:\n" + "\n".join(found)


@pytest.mark.parametrize("planted", [
    "game.objects[o.id] = o",
    "del self.eng.game.effects[eid]",
    "objects = game.objects\n    objects['x'] = o",
    "self.eng.game.watchers.append(w)",
    "game.delayed.remove(d)",
    "game.lki.pop('x')",
    "self.eng.game.turn += 1",
    "game.active = 'Bob'",
    "o.tapped = True",
    "o.statuses['phase'] = 'out'",
    "setattr(o, 'zone', 'graveyard')",
])
def test_a_write_planted_outside_the_store_is_found(planted):
    """The check fails when a module writes into a game directly (planted in writing.py)."""
    source = (INTERPRETER / "writing.py").read_text() + f"\n\ndef planted(game, o, self, w, d, eid):\n    {planted}\n"
    assert game_writes((INTERPRETER / "writing.py").read_text(), "writing.py") == []
    assert game_writes(source, "writing.py") != []
