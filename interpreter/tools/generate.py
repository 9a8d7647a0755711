"""Random games, as scenario text, for telling two rulebooks apart (`phasing diff --search`).

The strategy draws a board (players, permanents of the card library, tokens, Auras and
Equipment in chains up to depth 3) and a script of game events, all cards and steps any
version can express. Cards of your own (`--cards`, the rules path's cards/ folders) that are
permanents (neither an Aura nor an Equipment) are drawn too, after the shipped ones. Nothing here knows a rule: whatever a version makes of these events
is the version's business. Games are text so a witness can be printed as a scenario file
as it is, and Hypothesis shrinks them toward the smallest game that tells two rulebooks apart.
"""

from __future__ import annotations

from hypothesis import strategies as st

PLAYER_NAMES = ("Alice", "Bob", "Carol", "Dana")
CREATURES = ("Grizzly Bears", "Breezekeeper", "Phasing Sentinel", "Soldier Token", "Aven Riftwatcher")
NONCREATURES = ("Glorious Anthem", "Plains")
ATTACHMENTS = ("Holy Strength", "Bonesplitter")


def own_permanents(cards) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of `cards` (cards of your own) a board may hold, by name order: (the
    creatures, the other permanents); an Aura or Equipment (which needs a host) is not drawn."""
    from ...dsl import ast
    from ...dsl.builtins import PERMANENT_TYPES

    creatures, others = [], []
    for card in sorted(cards, key=lambda c: c.name):
        kinds = {t.lower() for e in card.entries if isinstance(e, ast.Types) for t in e.names}
        if not kinds & PERMANENT_TYPES or kinds & {"aura", "equipment"} or '"' in card.name:
            continue
        (creatures if "creature" in kinds else others).append(card.name)
    return tuple(creatures), tuple(others)


@st.composite
def boards(draw, own: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())):
    """Players and permanents: `(players, [(name, card, props)])`; `own`: the creatures and
    other permanents of your own cards drawn as well (`own_permanents`)."""
    creatures = CREATURES + own[0]
    players = PLAYER_NAMES[: draw(st.sampled_from([3, 4, 2]))]  # multiplayer first: more rules come into play
    permanents = []
    for i in range(draw(st.integers(1, 6))):
        card = draw(st.sampled_from(creatures + NONCREATURES + own[1]))
        props = [f"controller {draw(st.sampled_from(players))}"]
        if draw(st.booleans()):  # often controlled by someone other than its owner
            props.append(f"owner {draw(st.sampled_from(players))}")
        if card == "Soldier Token":
            props.append("token")
        if draw(st.booleans()) and card != "Plains":
            props.append("tapped")
        permanents.append((f"p{i}", card, props))
    hosts = [name for name, card, _props in permanents if card in creatures]
    for j in range(draw(st.integers(0, 3)) if hosts else 0):
        host = draw(st.sampled_from(hosts + [f"a{k}" for k in range(j)]))  # chains: attachments on attachments
        card = draw(st.sampled_from(ATTACHMENTS))
        permanents.append((f"a{j}", card, [f"controller {draw(st.sampled_from(players))}", f"attached to {host}"]))
    return players, permanents


# The game events a generated script draws from; `leave` makes a player leave the game.
STEPS = {
    "next turn": "next turn",
    "skip": "next turn skipping untap step",
    "protect": 'cast "Teferi\'s Protection" by {who}',
    "tide": 'cast "Time and Tide" by {who}',
    "wrath": 'cast "Wrath of God" by {who}',
    "slip": 'cast "Slip Away" by {who} targeting {target}',
    "treason": 'cast "Act of Treason" by {who} targeting {target}',
    "ward": 'cast "Vanishing Ward" by {who} targeting {target}',
    "growth": 'cast "Giant Growth" by {who} targeting {target}',
    "leave": "",
    "respond": "",
    "combat": "",
}

# A spell held on the stack, another cast in response, and the two resolving, the response
# first (117.3c, 405.5).
RESPONSE = ('hold "Slip Away" by {who} targeting {target}', 'cast "Vanishing Ward" by {other} targeting {second}', "resolve")


# The steps whose spell is a sorcery: cast by the player whose turn it is, in a main phase (307.1).
SORCERIES = ("wrath", "treason")


def combat_steps(draw, active: str, defender: str, pieces: dict) -> list[str]:
    """A combat (506-511): the active player attacks with one of the creatures they control
    that started untapped, the defending player (the next in turn order still in the game)
    may block it with one of theirs, and the game goes on past combat damage to the
    postcombat main phase. Empty when the active player has no such creature."""
    mine = [n for n, (card, controller, tapped) in pieces.items() if controller == active and not tapped and card in CREATURES]
    if not mine:
        return []
    attacker = draw(st.sampled_from(mine))
    steps = [f"attack with {attacker}"]
    theirs = [n for n, (card, controller, tapped) in pieces.items() if controller == defender and not tapped and card in CREATURES]
    if theirs and draw(st.booleans()):
        steps.append(f"declare blockers: {draw(st.sampled_from(theirs))} blocks {attacker}")
    steps.append("to postcombat main phase")
    return steps


@st.composite
def scripts(draw, players, names, pieces: dict | None = None):
    """A script of game events on a board of `players` and permanents `names` (`pieces`: the
    card, controller and whether it starts tapped of each, for combats), the first player's
    precombat main phase first: a sorcery is cast by the player whose turn it is in a main
    phase (none while that player has left), a combat comes before the postcombat main phase,
    players leave (at least two stay)."""
    steps = []
    leavers = list(players[2:])  # at least two players stay in the game
    active, left = players[0], set()
    stage = "main"  # (where in the turn: "upkeep" after a next turn, "main" in a main phase, "after combat")
    for _ in range(draw(st.integers(1, 8))):
        # shrinks toward "next turn"; leaving and targeted phasing are drawn more often
        kind = draw(st.sampled_from(["next turn", "next turn"] + list(STEPS) + ["leave", "slip"]))
        who = draw(st.sampled_from(players))
        target = draw(st.sampled_from(names))
        if kind == "leave":
            if leavers:
                left.add(leavers[-1])
                steps.append(f"{leavers.pop()} leaves the game")
            continue
        if kind == "respond":
            other, second = draw(st.sampled_from(players)), draw(st.sampled_from(names))
            steps.extend(line.format(who=who, target=target, other=other, second=second) for line in RESPONSE)
            continue
        if kind == "combat":
            if active in left or stage == "after combat" or not pieces:
                continue
            at = players.index(active)
            defender = next(p for p in players[at + 1:] + players[:at] if p not in left)
            fight = combat_steps(draw, active, defender, pieces)
            if fight:
                steps.extend(fight)
                stage = "after combat"
            continue
        if kind in SORCERIES:
            if active in left:
                continue
            who = active
            if stage == "upkeep":
                steps.append("to precombat main phase")
                stage = "main"
        if kind in ("next turn", "skip"):  # (the next player still in the game: 800.4)
            at = players.index(active)
            active = next(p for p in players[at + 1:] + players[:at + 1] if p not in left)
            stage = "upkeep"
        steps.append(STEPS.get(kind, kind).format(who=who, target=target))
    return steps


@st.composite
def games(draw, own: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())):
    """A game as `(players, permanents, steps)`; `own` as `boards` takes it."""
    players, permanents = draw(boards(own))
    pieces = {name: (card, next(p.split()[1] for p in props if p.startswith("controller ")), "tapped" in props)
              for name, card, props in permanents}
    steps = draw(scripts(players, [name for name, _card, _props in permanents], pieces))
    return players, permanents, steps


def scenario_text(game, title: str, rules: list[str], cites: list[str] | None = None,
                  expectations: list[str] | None = None, comments: list[str] | None = None) -> str:
    players, permanents, steps = game
    lines = [f'scenario "{title}" {{']
    if cites:
        lines.append(f"  cites {', '.join(cites)}")
    lines.append(f"  rules {', '.join(rules)}")
    lines.append(f"  players {' '.join(players)}")
    lines.append(f"  turn 1 of {players[0]}")
    for name, card, props in permanents:
        lines.append(f'  permanent {name} = "{card}"' + "".join(f", {p}" for p in props))
    lines.append("  script {")
    lines += [f"    {s}" for s in steps]
    for comment in comments or []:
        lines.append(f"    # {comment}")
    lines += [f"    {e}" for e in expectations or []]
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"
