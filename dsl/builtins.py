"""The general game model's own vocabulary, shared by the checker and the engine.

These are Magic's words, not phasing's: what every object and player has, the zones, the
perceptions a change can produce, the card types and the subtypes the game's own rules name.
Statuses that rules add are declared in the rule files.
"""

import re

# What each attribute of an object holds (the kinds of `dsl.types`): "ref" is an object or a
# player (an Aura may enchant a player), "counters" a table of counts read as X.counters.KIND,
# "names" a set of names (`is a`, `has` look into them).
OBJECT_ATTR_KINDS = {
    "controller": "player", "owner": "player", "zone": "zone", "tapped": "bool", "power": "number",
    "toughness": "number", "damage": "number", "attached_to": "ref", "token": "bool", "timestamp": "number",
    "entered_turn": "number", "controlled_since": "number", "entered_this_turn": "bool", "summoning_sick": "bool", "attacking": "bool", "blocking": "bool",
    "counters": "counters", "stickers": "counters", "card": "text", "types": "names", "keywords": "names",
}
# The counter kinds the game model gives a meaning (CR 122.1a, layer 7c of 613.4c): each of
# these counters adds its amount to power and toughness (`interpreter.game.characteristics`).
# Every other kind (charge, feather, ...) is only counted: rules and cards read it as
# X.counters.KIND. A kind is a plain name, as the scenario language writes one (`NAME`).
PT_COUNTERS = {"p1p1": 1, "m1m1": -1}
PT_COUNTER_SPELLINGS = {"+1/+1": "p1p1", "-1/-1": "m1m1"}  # (as printed on cards)


def pt_counter_meant(kind: str) -> str | None:
    """The kind of `PT_COUNTERS` that `kind` is but for its case (`P1P1`: p1p1), which would
    make it a kind of its own that is only counted; None when it is no such slip."""
    return kind.lower() if kind not in PT_COUNTERS and kind.lower() in PT_COUNTERS else None


KIND_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
PLAYER_ATTR_KINDS = {"life": "number", "hand": "number", "in_game": "bool"}
OBJECT_ATTRS = frozenset(OBJECT_ATTR_KINDS)
PLAYER_ATTRS = frozenset(PLAYER_ATTR_KINDS)
# Attributes a `set` statement may write directly (others change through actions or effects).
WRITABLE = frozenset({"tapped", "attacking", "blocking", "damage", "attached_to", "entered_turn", "controlled_since"})
ZONES = ("battlefield", "graveyard", "exile", "hand", "library", "outside", "nowhere")
# What the rest of the game sees when an object stops or starts being seen.
PERCEPTIONS = ("zone-change", "control-change", "attachment-change")
STATUS_TYPES = ("enum", "bool", "player", "object")
CONSTANTS = frozenset({"none", "true", "false", "turn", "game"})
# The points of the game a block can hook into besides the steps and phases its rulebook's turn
# declares (`during`, `order`, `at next`, the step assertions): a turn beginning, a turn that
# would begin for a player who has left, a player leaving, and every round of state checks.
GAME_HOOKS = ("beginning of turn", "turn would begin", "leaving the game", "state check")
# The card types (CR 300.1) and the subtypes the game's own rules refer to (Auras, Equipment
# and Fortifications in 301.5 and 303.4, 704.5m-n); a card library adds the subtypes its
# cards' `types` lines name.
CARD_TYPES = frozenset({
    "artifact", "battle", "conspiracy", "creature", "dungeon", "enchantment", "instant", "kindred", "land",
    "phenomenon", "plane", "planeswalker", "scheme", "sorcery", "tribal", "vanguard",
})
SUBTYPES = frozenset({"aura", "curse", "equipment", "fortification", "vehicle", "saga", "shrine", "class", "role",
                      # the basic land types (205.3i), which landwalk names (702.14c)
                      "plains", "island", "swamp", "mountain", "forest"})
# The card types whose spells become permanents as they resolve (608.3): what the checker
# holds a card's entries to, and what the actions make a permanent of when it is cast.
# What `X is a K` may test besides card types: what a reference names (an object, in any zone or
# one that has gone, or a player); `none` is neither.
REFERENCE_KINDS = frozenset({"object", "player"})
PERMANENT_TYPES = frozenset({"creature", "artifact", "enchantment", "land", "planeswalker"})
# Keyword abilities of Magic (CR 702), spelt as the language writes a keyword (spaces as
# underscores; the landwalks each a word). A card may print one that no rule of the rulebook
# gives a meaning to (flanking, where there is no blocking yet): it is data, as printed. The
# checker takes a keyword nothing tests for and spelt like one something does for a typo
# (`flyng`), unless it is one of these: `flanking` is close to `flying` and no typo.
KEYWORD_ABILITIES = frozenset({
    "absorb", "affinity", "afflict", "afterlife", "aftermath", "amplify", "annihilator", "ascend", "assist",
    "awaken", "backup", "banding", "bargain", "battle_cry", "bestow", "blitz", "bloodthirst", "boast",
    "bushido", "buyback", "cascade", "casualty", "champion", "changeling", "cipher", "cleave", "companion",
    "compleated", "conspire", "convoke", "craft", "crew", "cumulative_upkeep", "cycling", "dash",
    "daybound", "deathtouch", "decayed", "defender", "delve", "demonstrate", "dethrone", "devoid", "devour",
    "disguise", "disturb", "double_strike", "dredge", "echo", "embalm", "emerge", "enchant", "encore",
    "enlist", "entwine", "epic", "equip", "escalate", "escape", "eternalize", "evoke", "evolve", "exalted",
    "exploit", "extort", "fabricate", "fading", "fear", "first_strike", "flanking", "flash", "flashback",
    "flying", "forecast", "foretell", "forestwalk", "fortify", "frenzy", "fuse", "gift", "graft",
    "gravestorm", "haste", "haunt", "hexproof", "hideaway", "horsemanship", "impending", "improvise",
    "indestructible", "infect", "ingest", "intimidate", "islandwalk", "jump_start", "kicker", "landwalk",
    "level_up", "lifelink", "living_weapon", "madness", "melee", "menace", "mentor", "miracle", "modular",
    "morph", "mountainwalk", "mutate", "myriad", "nightbound", "ninjutsu", "offering", "offspring",
    "outlast", "overload", "partner", "persist", "phasing", "plainswalk", "plot", "poisonous", "protection",
    "prototype", "provoke", "prowess", "prowl", "rampage", "ravenous", "reach", "read_ahead", "rebound",
    "recover", "reconfigure", "reinforce", "renown", "replicate", "retrace", "riot", "ripple", "saddle",
    "scavenge", "shadow", "shroud", "skulk", "soulbond", "soulshift", "spectacle", "splice", "split_second",
    "spree", "squad", "storm", "sunburst", "surge", "suspend", "swampwalk", "toxic", "training", "trample",
    "transfigure", "transmute", "tribute", "undaunted", "undying", "unearth", "unleash", "vanishing",
    "vigilance", "ward", "wither",
})


def card_slug(name: str) -> str:
    """The name a scenario gives the permanent a cast card makes: "Grizzly Bears" -> grizzly_bears
    (then grizzly_bears_2, _3, ... when the name is taken)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def first_free(slug: str, taken, tried: dict[str, int] | None = None) -> str:
    """`slug`, or the first of `slug_2`, `slug_3`, ... that `taken` does not hold: the name a
    permanent made of a card gets (a cast permanent spell, an imported card).

    `tried`, kept by a caller that names many permanents while `taken` only grows (names are
    added, never removed), remembers for each slug the number of the first name not yet found
    taken (1 for `slug` itself), so that the next call for the slug starts there: naming N
    permanents of one card then asks `taken` about O(N) names, not O(N^2) (issue 43). The names
    are the same as without it, since every name it skips was taken and still is."""
    n = tried.get(slug, 1) if tried is not None else 1
    name = slug if n == 1 else f"{slug}_{n}"
    while name in taken:
        n += 1
        name = f"{slug}_{n}"
    if tried is not None:
        tried[slug] = n
    return name
