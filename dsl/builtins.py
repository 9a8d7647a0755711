"""The general game model's own vocabulary, shared by the checker and the engine.

These are Magic's words, not phasing's: what every object and player has, the zones, the
perceptions a change can produce. Statuses that rules add are declared in the rule files.
"""

import re

OBJECT_ATTRS = frozenset({
    "controller", "owner", "zone", "tapped", "power", "toughness", "damage", "attached_to", "token",
    "timestamp", "entered_turn", "entered_this_turn", "summoning_sick", "attacking", "counters", "stickers",
    "card", "types", "keywords",
})
PLAYER_ATTRS = frozenset({"life", "hand", "in_game"})
# Attributes a `set` statement may write directly (others change through actions or effects).
WRITABLE = frozenset({"tapped", "attacking", "damage", "attached_to"})
ZONES = ("battlefield", "graveyard", "exile", "hand", "library", "outside", "nowhere")
# What the rest of the game sees when an object stops or starts being seen.
PERCEPTIONS = ("zone-change", "control-change", "attachment-change")
STATUS_TYPES = ("enum", "bool", "player", "object")
CONSTANTS = frozenset({"none", "true", "false", "turn", "game"})


def card_slug(name: str) -> str:
    """The name a scenario gives the permanent a cast card makes: "Grizzly Bears" -> grizzly_bears
    (then grizzly_bears_2, _3, ... when the name is taken)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
