"""Random games, as scenario text, for telling two rulebooks apart (`phasing diff --search`).

The strategy draws a board (players, permanents with and without phasing, tokens, Auras
and Equipment in chains, permanents already phased out under some player) and a script of
game events. Games are text so a witness can be printed as a scenario file as it is; and
Hypothesis shrinks them toward the smallest game that still tells the rulebooks apart.
"""

from __future__ import annotations

from hypothesis import strategies as st

PLAYER_NAMES = ("Alice", "Bob", "Carol", "Dana")
CREATURES = ("Grizzly Bears", "Breezekeeper", "Phasing Sentinel", "Soldier Token", "Aven Riftwatcher")
NONCREATURES = ("Glorious Anthem", "Plains")
ATTACHMENTS = ("Holy Strength", "Bonesplitter")


@st.composite
def boards(draw, status_phasing: bool = True):
    """Players and permanents: `(players, [(name, card, props)])`. With `status_phasing`, some
    permanents start phased out (for rulebooks that have the `phase` status)."""
    players = PLAYER_NAMES[: draw(st.integers(2, 4))]
    permanents = []
    n = draw(st.integers(1, 6))
    for i in range(n):
        card = draw(st.sampled_from(CREATURES + NONCREATURES))
        controller = draw(st.sampled_from(players))
        props = [f"controller {controller}"]
        if card == "Soldier Token":
            props.append("token")
        if draw(st.booleans()) and card != "Plains":
            props.append("tapped")
        out = status_phasing and draw(st.integers(0, 3)) == 0
        if out:
            props += ["set phase = out", f"set phased_out_under = {draw(st.sampled_from(players))}"]
        permanents.append([f"p{i}", card, props, out])
    hosts = [p for p in permanents if p[1] in CREATURES]
    extra = draw(st.integers(0, 3)) if hosts else 0
    for j in range(extra):
        host = draw(st.sampled_from(hosts))
        card = draw(st.sampled_from(ATTACHMENTS))
        props = [f"controller {draw(st.sampled_from(players))}", f"attached to {host[0]}"]
        if host[3]:  # an attachment of a phased-out host is phased out with it, indirectly
            props += ["set phase = out", f"set phased_out_under = {players[0]}", "set phased_indirectly = true"]
        permanents.append([f"a{j}", card, props, host[3]])
    return players, [(name, card, props) for name, card, props, _out in permanents]


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
}


@st.composite
def scripts(draw, players, names):
    steps = []
    leavers = list(players[2:])  # at least two players stay in the game
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["next turn", "next turn"] + list(STEPS)))  # shrinks toward "next turn"
        who = draw(st.sampled_from(players))
        target = draw(st.sampled_from(names))
        if kind == "leave":
            if leavers:
                steps.append(f"{leavers.pop()} leaves the game")
            continue
        steps.append(STEPS.get(kind, kind).format(who=who, target=target))
    return steps


@st.composite
def games(draw, status_phasing: bool = True):
    """A game as `(players, permanents, steps)`."""
    players, permanents = draw(boards(status_phasing))
    steps = draw(scripts(players, [name for name, _card, _props in permanents]))
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
