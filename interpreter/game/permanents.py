"""A card made a permanent: its printed characteristics read off the card, a fresh timestamp
(shared by a game's setup, a permanent spell resolving and the Python API)."""

from __future__ import annotations

from typing import Any, Iterable

from ...dsl import ast
from .model import Game, Permanent
from .store import SETUP, store_of


def card_types(card: ast.Card) -> set[str]:
    """The card's types and subtypes as written, in lower case."""
    return {t.lower() for entry in card.entries if isinstance(entry, ast.Types) for t in entry.names}


def new_permanent(name: str, card: ast.Card, game: Game, *, owner: str | None = None, controller: str | None = None,
                  extra_keywords: Iterable[str] = (), status: dict | None = None, counters: dict | None = None,
                  stickers: dict | None = None, cause: Any = SETUP, **fields: Any) -> Permanent:
    """A permanent of `card` called `name`, with its printed types, keywords and power and
    toughness, and a fresh timestamp. Without a word about it, a permanent belongs to whoever
    controls it, by default the active player. `fields` are `Permanent` fields (tapped, token,
    attacking, attached_to, damage, entered_turn, controlled_since, zone)."""
    types, keywords, power, toughness = frozenset(), (), None, None
    for entry in card.entries:
        if isinstance(entry, ast.Types):
            types = frozenset(t.lower() for t in entry.names)
        elif isinstance(entry, ast.Keywords):
            keywords = entry.names
        elif isinstance(entry, ast.PT):
            power, toughness = entry.power, entry.toughness
    controller = controller or owner or game.active
    owner = owner or controller
    return Permanent(
        id=name, card=card.name, owner=owner, controller=controller, types=types, power=power,
        toughness=toughness, keywords=tuple(keywords) + tuple(extra_keywords), timestamp=store_of(game).tick(cause),
        counters=tuple(sorted((counters or {}).items())), stickers=tuple(sorted((stickers or {}).items())),
        status=tuple(sorted((status or {}).items())), **fields,
    )
