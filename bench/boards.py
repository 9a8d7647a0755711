"""Deterministic boards of N permanents for the untap-step benchmark.

`build_board(n, seed)` makes a `Game` that the interpreter and the reference both accept:

- 2 to 4 players; the first one is the active player;
- a third of the permanents are Auras ("Holy Strength") or Equipment ("Bonesplitter"),
  each attached to a creature or to another attachment, in chains of depth at most 3
  (an attachment only ever attaches to something made before it, so there are no cycles);
- of the rest (the creatures), half have phasing ("Breezekeeper") and half do not
  ("Grizzly Bears"); some are tokens, about half are tapped, and a few are owned by
  someone other than their controller;
- about a fifth of the creatures, and a few attachments, start phased out directly under
  some player (not always their controller); everything attached, at any depth, to a
  phased-out permanent is phased out indirectly with it, as 702.26g leaves it;
- every permanent has its own timestamp, in the order it was made.

The card's characteristics (types, power and toughness, keywords) come from the card
library, so the boards stay true to `rules/cards/library.rules`.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from phasing_rules.interpreter.game.model import Game, Permanent, Player

PLAYER_NAMES = ("Alice", "Bob", "Carol", "Dana")
PHASER = "Breezekeeper"  # has the phasing keyword
PLAIN = "Grizzly Bears"
AURA = "Holy Strength"
EQUIPMENT = "Bonesplitter"
MAX_DEPTH = 3  # attachments in a chain below its root creature


@functools.cache
def card_shape(name: str) -> tuple[frozenset[str], int | None, int | None, tuple[str, ...]]:
    """(types, power, toughness, keywords) of a library card, read from its AST."""
    from phasing_rules.dsl import ast
    from phasing_rules.interpreter.rulebook.loading import load_cards

    card = load_cards()[name]
    types: frozenset[str] = frozenset()
    power = toughness = None
    keywords: tuple[str, ...] = ()
    for entry in card.entries:
        if isinstance(entry, ast.Types):
            types = frozenset(t.lower() for t in entry.names)
        elif isinstance(entry, ast.Keywords):
            keywords = tuple(entry.names)
        elif isinstance(entry, ast.PT):
            power, toughness = entry.power, entry.toughness
    return types, power, toughness, keywords


def permanent(pid: str, card: str, controller: str, *, owner: str | None = None, tapped: bool = False,
              token: bool = False, attached_to: str | None = None, timestamp: int = 0,
              status: dict[str, Any] | None = None, extra_keywords: tuple[str, ...] = ()) -> Permanent:
    """A permanent of a library card, with the statuses given (only those that are set)."""
    types, power, toughness, keywords = card_shape(card)
    return Permanent(
        id=pid, card=card, owner=owner or controller, controller=controller, types=types, power=power,
        toughness=toughness, keywords=keywords + extra_keywords, token=token, tapped=tapped,
        attached_to=attached_to, timestamp=timestamp, status=tuple(sorted((status or {}).items())),
    )


def build_board(n: int, seed: int = 0) -> Game:
    """A game with `n` permanents on the battlefield, the same for the same (n, seed)."""
    rng = random.Random(f"untap-board/{n}/{seed}")
    players = PLAYER_NAMES[: rng.randint(2, 4)]
    n_attach = n // 3
    n_creatures = n - n_attach
    cards = [PHASER] * (n_creatures // 2) + [PLAIN] * (n_creatures - n_creatures // 2)
    rng.shuffle(cards)

    objects: dict[str, Permanent] = {}
    depth: dict[str, int] = {}
    out: set[str] = set()  # phased out, directly or indirectly
    stamp = 0

    def other_than(player: str) -> str:
        return rng.choice([p for p in players if p != player])

    for card in cards:
        stamp += 1
        pid = f"p{stamp}"
        controller = rng.choice(players)
        owner = other_than(controller) if rng.random() < 0.1 else controller
        status: dict[str, Any] = {}
        if rng.random() < 0.2:
            status = {"phase": "out", "phased_out_under": rng.choice(players), "phased_indirectly": False}
            out.add(pid)
        objects[pid] = permanent(pid, card, controller, owner=owner, tapped=rng.random() < 0.5,
                                 token=rng.random() < 0.1, timestamp=stamp, status=status)
        depth[pid] = 0

    creatures = list(objects)
    attachable: list[str] = []  # attachments that can carry another one (depth < MAX_DEPTH)
    for _ in range(n_attach):
        stamp += 1
        pid = f"p{stamp}"
        if attachable and rng.random() < 0.3:
            host = rng.choice(attachable)
        else:
            host = rng.choice(creatures)
        controller = rng.choice(players)
        status = {}
        if host in out:
            # It phased out with its host (702.26g), under whoever controlled it then.
            status = {"phase": "out", "phased_out_under": controller, "phased_indirectly": True}
            out.add(pid)
        elif rng.random() < 0.05:
            status = {"phase": "out", "phased_out_under": rng.choice(players), "phased_indirectly": False}
            out.add(pid)
        objects[pid] = permanent(pid, rng.choice((AURA, EQUIPMENT)), controller, tapped=rng.random() < 0.5,
                                 attached_to=host, timestamp=stamp, status=status)
        depth[pid] = depth[host] + 1
        if depth[pid] < MAX_DEPTH:
            attachable.append(pid)

    game = Game({p: Player(p) for p in players}, tuple(players), players[0], 1, objects)
    game.clock = stamp
    return game


def describe(game: Game) -> dict[str, int]:
    """Counts that say what a board is made of (for the benchmark's notes)."""
    objs = game.objects.values()
    return {
        "permanents": len(game.objects),
        "players": len(game.players),
        "attachments": sum(1 for o in objs if o.attached_to is not None),
        "with_phasing": sum(1 for o in objs if "phasing" in o.keywords),
        "phased_out": sum(1 for o in objs if o.get_status("phase", "in") == "out"),
        "phased_out_indirectly": sum(1 for o in objs if o.get_status("phased_indirectly", False)),
    }
