"""Property tests on generated games: invariants of 702.26 that hold after every step.

Games are generated as scenario TEXT (players, a board with attachment chains, some of it
already phased out) and parsed by the ordinary scenario parser, so every generated game is
one a scenario file could describe. A script of 1-12 steps is then chosen step by step
(a "Slip Away" target is picked among what the game can see at that moment), each step is
written as a script line, parsed, and played with `ScenarioRun.do`. After every step the
invariants below are checked; each failure message names the subrule it comes from and
prints the generated scenario so far, so it can be pasted into a .scenario file.

Invariants (all read off the game state and the trace, never off the interpreter's code):

(a) 400.7 / 702.26d  no permanent is lost or duplicated; leaving the battlefield is always an
    event caused by a card, the script, or a rule block that moves objects.
(b) 702.26g          an indirectly phased-out permanent is attached to a phased-out permanent.
(c) 702.26a/g/n, 610.4  nothing phases in except in its untap step, with its host, by an
    effect, or by the leaving-player / "until" rules.
(d) 702.26d          counters (and stickers) never change by phasing.
(e) 702.26d          phasing is never perceived as entering or leaving the battlefield.
(f) 702.26b          a permanent that stays phased out through a step is untouched by it.
(g) 702.26a/m/n, 502.1  after an untap step everything due has phased in, everything with phasing
    the active player controls has phased out, and the active player's permanents are untapped;
    after a skipped untap step nothing has changed phase.
(h) 702.26k, 800.4a  a leaving player's permanents, phased out or not, leave with them, and no
    phased-out one triggers on it.
(i) 702.26j          phasing is never perceived as becoming attached or unattached.
(j) 702.26i, 704.5   after each step the state-based actions have seen every phased-in permanent.

One case of (b) is pinned separately (see the end of the file): an attachment phased out
indirectly on a host that leaves with a player stays phased out for good, since 702.26g only
ever phases it in along with its host (the 2026-09-25 version notes record this reading).
`test_the_invariants_catch_a_rulebook_missing_a_block` shows the invariants can fail.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from typing import Any, Sequence

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from phasing_rules.dsl import ast
from phasing_rules.dsl.checker import check_scenario
from phasing_rules.dsl.builtins import ZONES
from phasing_rules.dsl.parser import parse
from phasing_rules.dsl.printer import print_module
from phasing_rules.interpreter.engine.engine import RulesError
from phasing_rules.interpreter.game.model import Permanent
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import ScenarioRun, build_game
from phasing_rules.interpreter.game.trace import Event

VERSION = "2026-09-25"
PLAYER_NAMES = ("Alice", "Bob", "Carol", "Dave")

# Permanents that attach to nothing. Tokens are "Soldier Token" with the `token` flag.
CREATURES = ("Grizzly Bears", "Breezekeeper", "Phasing Sentinel", "Soldier Token", "Aven Riftwatcher",
             "Ertai's Familiar", "Attachment Watcher")
OTHERS = ("Plains", "Glorious Anthem")
AURAS_ON_AURAS = ("Holy Strength", "Aura Link", "Curse of Chains")  # what "Aura Link" may enchant
MAX_DEPTH = 3

PHASING_STATUSES = ("phase", "phased_out_under", "phased_indirectly", "phase_until", "returns_after_absence")
# Rule blocks allowed to move an object off the battlefield (state-based actions, players leaving).
MOVING_RULES = ("704.5", "800.4", "702.26k", "702.26n")
LEAVING_RULES = ("702.26k", "702.26n", "800.4a")
# Shrinking a generated game (dozens of interdependent draws) can take Hypothesis its full five
# minutes, so by default a failure is reported unshrunk: its message already prints the whole
# generated scenario. Set PHASING_SHRINK=1 to shrink it to a minimal game.
PHASES = tuple(p for p in Phase if p is not Phase.shrink or os.environ.get("PHASING_SHRINK"))
SETTINGS = settings(max_examples=150, deadline=None, phases=PHASES,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def book():
    return load_version(VERSION)


BOOK = load_version(VERSION)


# ============================================================== choosing: Hypothesis or a seeded RNG


class HypothesisChooser:
    """Choices drawn from Hypothesis, so failing games shrink."""

    def __init__(self, data):
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def pick(self, options: Sequence) -> Any:
        return self.data.draw(st.sampled_from(list(options)))

    def chance(self, percent: int) -> bool:
        return self.data.draw(st.integers(0, 99)) < percent


class RandomChooser:
    """The same choices from a seeded `random.Random`: one seed, one game."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, options: Sequence) -> Any:
        return self.rng.choice(list(options))

    def chance(self, percent: int) -> bool:
        return self.rng.randrange(100) < percent


# ============================================================== generating a board as scenario text


@dataclass
class Piece:
    name: str
    card: str
    controller: str
    owner: str
    host: str | None = None  # a piece name or a player name
    depth: int = 0
    token: bool = False
    tapped: bool = False
    counters: int = 0
    sticker: bool = False
    out: bool = False
    indirect: bool = False
    under: str | None = None

    def line(self) -> str:
        props = [f"controller {self.controller}", f"owner {self.owner}"]
        if self.token:
            props.append("token")
        if self.tapped:
            props.append("tapped")
        if self.counters:
            props.append(f"counter p1p1 = {self.counters}")
        if self.sticker:
            props.append("sticker name = 1")
        if self.host is not None:
            props.append(f"attached to {self.host}")
        if self.out:
            props += ["set phase = out", f"set phased_out_under = {self.under}"]
        if self.indirect:
            props.append("set phased_indirectly = true")
        return f'  permanent {self.name} = "{self.card}", ' + ", ".join(props)


def generate_board(ch) -> tuple[list[str], str, list[Piece]]:
    players = list(PLAYER_NAMES[: ch.integer(2, 4)])
    active = ch.pick(players)
    pieces: list[Piece] = []
    for i in range(ch.integer(1, 12)):
        name = f"p{i + 1}"
        controller = ch.pick(players)
        owner = controller if ch.chance(70) else ch.pick(players)
        creatures = [p for p in pieces if p.card in CREATURES]
        auras = [p for p in pieces if p.card in AURAS_ON_AURAS and p.depth < MAX_DEPTH]
        kind = ch.pick(("plain", "plain", "aura", "equipment", "link", "curse"))
        if kind == "aura" and creatures:
            host = creatures[ch.integer(0, len(creatures) - 1)]
            piece = Piece(name, "Holy Strength", controller, owner, host.name, host.depth + 1)
        elif kind == "equipment" and creatures:
            host = creatures[ch.integer(0, len(creatures) - 1)]
            piece = Piece(name, "Bonesplitter", controller, owner, host.name, host.depth + 1)
        elif kind == "link" and auras:
            host = auras[ch.integer(0, len(auras) - 1)]
            piece = Piece(name, "Aura Link", controller, owner, host.name, host.depth + 1)
        elif kind == "curse":
            piece = Piece(name, "Curse of Chains", controller, owner, ch.pick(players), 1)
        else:
            card = ch.pick(CREATURES + OTHERS)
            piece = Piece(name, card, controller, owner, token=card == "Soldier Token")
            piece.tapped = ch.chance(30)
            if card in CREATURES and ch.chance(30):
                piece.counters = ch.integer(1, 3)
                piece.sticker = ch.chance(50)
        pieces.append(piece)
    # Phased-out starts: hosts come before what is attached to them, so one pass suffices.
    by_name = {p.name: p for p in pieces}
    for piece in pieces:
        host = by_name.get(piece.host) if piece.host else None
        if host is not None and host.out:
            # 702.26g: what is attached to a phased-out permanent is phased out indirectly,
            # under the player who controlled it then (702.26a's "as" clause)
            piece.out, piece.indirect, piece.under = True, True, piece.controller
        elif ch.chance(25):
            piece.out, piece.under = True, ch.pick(players)
    return players, active, pieces


def board_text(players: list[str], active: str, pieces: list[Piece], script: Sequence[str] = ()) -> str:
    lines = ['scenario "generated game" {', f"  players {' '.join(players)}", f"  turn 1 of {active}"]
    lines += [p.line() for p in pieces]
    lines.append("  script {")
    lines += [f"    {s}" for s in script]
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def parse_scenario(text: str) -> ast.Scenario:
    (scn,) = [i for i in parse(text, "<generated>").items if isinstance(i, ast.Scenario)]
    return scn


def parse_step(line: str) -> ast.Node:
    scn = parse_scenario(f'scenario "step" {{\n  script {{\n    {line}\n  }}\n}}\n')
    (script,) = [e for e in scn.entries if isinstance(e, ast.Script)]
    (step,) = script.steps
    return step


# ============================================================== playing, with snapshots


@dataclass(frozen=True)
class Snapshot:
    objects: dict[str, Permanent]
    in_game: dict[str, bool]
    active: str


def snapshot(run: ScenarioRun) -> Snapshot:
    g = run.game
    # (objects change in place: the snapshot keeps copies)
    return Snapshot({oid: o.copy() for oid, o in g.objects.items()}, {n: p.in_game for n, p in g.players.items()}, g.active)


def status(o: Permanent, name: str) -> Any:
    decl = BOOK.statuses[name]
    default = decl.default.id if isinstance(decl.default, ast.Name) else None
    default = {"none": None, "true": True, "false": False}.get(default, default)
    return o.get_status(name, default)


def attachment(snapshot: "Snapshot", value: Any) -> Any:
    """What `attached_to` means in `snapshot`: a player's name, None, or (id, incarnation) of the
    object, which is the object under that name then, or one it was before a zone change made
    it a new object (400.7; named `id@incarnation`, `interpreter.game.model.earlier_name`)."""
    if value is None or value in snapshot.in_game:
        return value
    oid, at, incarnation = value.partition("@")
    if at:
        return (oid, int(incarnation))
    o = snapshot.objects.get(oid)
    return (oid, o.incarnation if o is not None else None)


@dataclass
class StepResult:
    line: str
    before: Snapshot
    after: Snapshot
    events: list[Event]


@dataclass
class GeneratedGame:
    players: list[str]
    active: str
    pieces: list[Piece]
    run: ScenarioRun
    script: list[str] = field(default_factory=list)
    ids: frozenset[str] = frozenset()
    taken_by_leaving_players: set[str] = field(default_factory=set)

    def text(self) -> str:
        return board_text(self.players, self.active, self.pieces, self.script)

    def in_game(self) -> list[str]:
        return [n for n in self.players if self.run.game.players[n].in_game]

    def play(self, line: str) -> StepResult | None:
        """One script line. A cast whose target is illegal is skipped, as the brief allows."""
        step = parse_step(line)
        before = snapshot(self.run)
        start = len(self.run.engine.trace)
        self.run.engine.step = len(self.script) + 1
        self.run.engine.begin_step()
        try:
            self.run.do(step)
        except RulesError as exc:
            if "cannot be a target" not in exc.diagnostics[0].message:
                raise
            assert len(self.run.engine.trace) == start, "an illegal cast must not change the game"
            return None
        self.script.append(line)
        result = StepResult(line, before, snapshot(self.run), self.run.engine.trace[start:])
        for e in _changes(result, "zone"):
            if e.cause.kind == "rule" and e.cause.id in LEAVING_RULES and status(before.objects[e.subject], "phase") == "out":
                self.taken_by_leaving_players.add(e.subject)
        return result


def start_game(ch, book) -> GeneratedGame:
    players, active, pieces = generate_board(ch)
    scn = parse_scenario(board_text(players, active, pieces))
    assert check_scenario(scn, book) == []
    run = ScenarioRun(scn, book, "<generated>")
    return GeneratedGame(players, active, pieces, run, ids=frozenset(run.game.objects))


STEP_KINDS = ("next turn", "next turn skipping untap step", "slip away", "teferi", "time and tide", "wrath", "leaves",
              "hold slip away", "attack", "attack", "block", "damage")


def combat_step(ch, game: GeneratedGame, kind: str) -> str | None:
    """A step of combat (506-511) that the rules allow now, or None: an attack by creatures the
    active player controls that can attack (untapped, seen, not summoning sick, 508.1a); a block
    by a creature the defending player controls that no restriction forbids (509.1a-b); or the
    game going on to combat damage (510) or past combat."""
    e = game.run.engine
    ahead = e.turns.ahead()
    seen = [oid for oid in sorted(e.game.objects) if e.visible(oid) and "creature" in e.game.objects[oid].types]
    if kind == "attack" and "declare attackers step" in ahead and game.run.game.active in game.in_game():
        able = [oid for oid in seen if e.controller(oid) == e.game.active and not e.game.objects[oid].tapped
                and not e.truthy(e.eval(ast.Attr(ast.Name(oid), "summoning_sick"), {}))
                and e.combat.forbidden_attack(oid) is None]
        if able:
            return "attack with " + ", ".join(sorted({ch.pick(able) for _ in range(ch.integer(1, 2))}))
    if kind == "block" and "declare blockers step" in ahead:
        attacks = [a for a in e.combat.state.attacks if e.combat.attack_of(a.attacker) is not None and e.visible(a.attacker)]
        if attacks:
            attack = ch.pick(attacks)
            defending = e.combat.defending_player(attack)
            able = [oid for oid in seen if e.controller(oid) == defending and not e.game.objects[oid].tapped
                    and e.combat.forbidden_block(oid, attack.attacker) is None]
            if able:
                return f"declare blockers: {ch.pick(able)} blocks {attack.attacker}"
    if kind == "damage":
        for step in ("combat damage step", "end of combat step", "postcombat main phase"):
            if step in ahead:
                return f"to {step}"
    return None


def choose_step(ch, game: GeneratedGame) -> str:
    """The next step: with something held on the stack, a response (Slip Away, 117.3c) or
    `resolve`; else a step of the turn, a spell, one held on the stack (`hold`), or a player
    leaving."""
    players = game.in_game()
    caster = ch.pick(players)
    seen = sorted(oid for oid in game.run.game.objects if game.run.engine.visible(oid))
    if game.run.game.stack:
        if seen and ch.chance(40):
            return f'cast "Slip Away" by {caster} targeting {ch.pick(seen)}'
        return ch.pick(["resolve", "hold resolve"]) if len(game.run.game.stack) > 1 else "resolve"
    kind = ch.pick(STEP_KINDS)
    if game.run.engine.turns.current() == "declare attackers step" and ch.chance(80):
        kind = "block"  # (attackers declared: blockers most often next)
    if kind == "hold slip away":
        if seen:
            return f'hold "Slip Away" by {caster} targeting {ch.pick(seen)}'
        kind = "next turn"
    if kind == "slip away":
        seen = sorted(oid for oid in game.run.game.objects if game.run.engine.visible(oid))
        if seen:
            return f'cast "Slip Away" by {caster} targeting {ch.pick(seen)}'
        kind = "next turn"
    if kind in ("attack", "block", "damage"):
        return combat_step(ch, game, kind) or "next turn"
    if kind == "leaves" and len(players) <= 2 or kind == "wrath" and game.run.game.active not in players:
        kind = "next turn"  # (a sorcery is cast by the active player, 307.1: none while they have left)
    if kind == "wrath":  # (in a main phase, 307.1)
        mains = ("precombat main phase", "postcombat main phase")
        if game.run.engine.turns.current() not in mains:
            ahead = [m for m in mains if m in game.run.engine.turns.ahead()]
            return f"to {ahead[0]}" if ahead else "next turn"
    return {
        "next turn": "next turn",
        "next turn skipping untap step": "next turn skipping untap step",
        "teferi": f"cast \"Teferi's Protection\" by {caster}",
        "time and tide": f'cast "Time and Tide" by {caster}',
        "wrath": f'cast "Wrath of God" by {game.run.game.active}',  # (a sorcery: its caster's turn, 307.1)
        "leaves": f"{caster} leaves the game",
    }[kind]


# ============================================================== the invariants


def _data(e: Event) -> dict:
    return e.values()


def _where(game: GeneratedGame, r: StepResult) -> str:
    return f"\nafter step {r.line!r} of this game:\n{game.text()}"


def _changes(r: StepResult, attr: str) -> list[Event]:
    return [e for e in r.events if e.kind == "change" and _data(e).get("attr") == attr]


def _is_702_26(cause) -> bool:
    return cause.kind == "rule" and cause.id.startswith("702.26")


def check_conservation(game: GeneratedGame, r: StepResult) -> None:
    """(a) 400.7, 702.26d: objects are neither lost nor duplicated; they leave only through real moves."""
    ids = set(r.after.objects)
    assert ids == set(game.ids), (
        f"400.7/702.26d: the set of objects changed: lost {sorted(game.ids - ids)}, "
        f"new {sorted(ids - game.ids)}" + _where(game, r))
    for oid, o in r.after.objects.items():
        assert o.id == oid and isinstance(o.zone, str) and o.zone in ZONES, (
            f"400.7: object {oid} must be in exactly one known zone, found {o.zone!r}" + _where(game, r))
        if r.before.objects[oid].zone == "nowhere":
            assert o.zone == "nowhere", f"704.5d: token {oid} ceased to exist and came back" + _where(game, r)
    for e in _changes(r, "zone"):
        cause = e.cause
        allowed = cause.kind in ("card", "script") or (
            cause.kind == "rule" and any(cause.id.startswith(p) for p in MOVING_RULES))
        assert allowed, (f"702.26d: {e.subject} changed zone ({e.detail}) caused by {cause}, "
                         "which is not a card, the script or a rule that moves objects" + _where(game, r))
    for oid, o in r.after.objects.items():
        if r.before.objects[oid].zone == "battlefield" and o.zone != "battlefield":
            moves = [e for e in _changes(r, "zone") if e.subject == oid and _data(e)["old"] == "battlefield"]
            assert moves, (f"702.26d: {oid} left the battlefield (now {o.zone}) without a zone-change "
                           "event in the trace" + _where(game, r))


def check_indirect_hosts(game: GeneratedGame, r: StepResult) -> None:
    """(b) 702.26g: an indirectly phased-out permanent hangs on a phased-out permanent."""
    objs = r.after.objects
    for oid, o in objs.items():
        if o.zone != "battlefield" or status(o, "phase") != "out" or not status(o, "phased_indirectly"):
            continue
        meant = attachment(r.after, o.attached_to)
        host = objs.get(meant[0]) if isinstance(meant, tuple) else None
        if host is not None and host.id in game.taken_by_leaving_players:
            # Pinned by test_indirect_attachment_whose_host_left_with_a_player_stays_phased_out:
            # the host left with a player (702.26k, 702.26n, 800.4a) and 702.26g gives this
            # attachment no other way back.
            continue
        assert host is not None and host.incarnation == meant[1], (
            f"702.26g: {oid} is phased out indirectly but attached to {o.attached_to!r}, "
            "which is not a permanent" + _where(game, r))
        assert host.zone == "battlefield" and status(host, "phase") == "out", (
            f"702.26g: {oid} is phased out indirectly, but its host {host.id} is "
            f"{'phased ' + status(host, 'phase') if host.zone == 'battlefield' else 'in zone ' + host.zone}; "
            "an indirectly phased-out permanent phases in with its host and only then" + _where(game, r))


def check_phase_in_causes(game: GeneratedGame, r: StepResult) -> None:
    """(c) 702.26a, 702.26g, 702.26n, 610.4: the only ways to phase in."""
    tracked = {oid: {name: status(o, name) for name in PHASING_STATUSES} for oid, o in r.before.objects.items()}
    for oid, o in r.before.objects.items():
        tracked[oid].update(zone=o.zone, attached_to=o.attached_to)
    phased_in: set[str] = set()
    untap_step = r.line == "next turn"
    for e in r.events:
        if e.kind != "change":
            continue
        d = _data(e)
        oid, attr = e.subject, d["attr"]
        if attr == "phase" and d["new"] == "in":
            t, cause = tracked[oid], e.cause
            under = t["phased_out_under"]
            if cause.kind == "card":
                pass  # 702.26c: an effect phases it in (Time and Tide)
            elif cause.kind == "rule" and cause.id == "702.26a":
                assert untap_step and under == r.after.active and not t["phased_indirectly"], (
                    f"702.26a: {oid} phased in by 702.26a, but it phased out under {under}, "
                    f"indirectly={t['phased_indirectly']}, and the step was {r.line!r} with "
                    f"{r.after.active} active; it phases in only in the untap step of the player "
                    "it phased out under" + _where(game, r))
            elif cause.kind == "rule" and cause.id == "702.26g":
                host = t["attached_to"]
                assert t["phased_indirectly"] and host in phased_in, (
                    f"702.26g: {oid} phased in by 702.26g, but its host {host} did not phase in "
                    "before it in this step (or it was not phased out indirectly)" + _where(game, r))
            elif cause.kind == "rule" and cause.id == "702.26n":
                assert t["returns_after_absence"] and under is not None and not r.after.in_game[under], (
                    f"702.26n: {oid} phased in by 702.26n, but it phased out under {under}, who has "
                    "not left the game (or whose turn has not come round)" + _where(game, r))
            elif cause.kind == "rule" and cause.id == "610.4":
                anchor = t["phase_until"]
                assert anchor is not None and r.after.objects[anchor].zone != "battlefield", (
                    f"610.4: {oid} phased in by 610.4, but {anchor} has not left the battlefield" + _where(game, r))
            else:
                raise AssertionError(f"702.26a: {oid} phased in, caused by {cause}, which is none of its "
                                     "untap step, its host, an effect, 702.26n or 610.4" + _where(game, r))
            phased_in.add(oid)
        if oid in tracked and attr in tracked[oid]:
            tracked[oid][attr] = d["new"]
    # Every phase-in visible in the state is in the trace, and the other way round.
    for oid, o in r.after.objects.items():
        b = r.before.objects[oid]
        if b.zone == o.zone == "battlefield" and status(b, "phase") == "out" and status(o, "phase") == "in":
            assert oid in phased_in, (
                f"702.26c: {oid} went from phased out to phased in with no phase change in the trace"
                + _where(game, r))


def check_counters(game: GeneratedGame, r: StepResult) -> None:
    """(d) 702.26d: counters and stickers stay through phasing."""
    for e in _changes(r, "counters"):
        assert not _is_702_26(e.cause), (
            f"702.26d: {e.subject}'s counters changed ({e.detail}) by {e.cause}; phasing never "
            "adds or removes counters" + _where(game, r))
    moved = {e.subject for e in _changes(r, "zone")}
    recounted = {e.subject for e in _changes(r, "counters")}
    phased = {e.subject for e in _changes(r, "phase")}
    for oid, o in r.after.objects.items():
        b = r.before.objects[oid]
        if b.zone != "battlefield" or o.zone != "battlefield" or oid in moved or oid in recounted:
            continue
        assert (b.counters, b.stickers) == (o.counters, o.stickers), (
            f"702.26d: {oid} {'phased this step and ' if oid in phased else ''}has counters "
            f"{dict(b.counters)}/{dict(b.stickers)} before but {dict(o.counters)}/{dict(o.stickers)} after, "
            "with no counter event" + _where(game, r))


def check_no_zone_change_perceived(game: GeneratedGame, r: StepResult) -> None:
    """(e) 702.26d: a phase change is not seen as entering or leaving the battlefield."""
    moved = {e.subject for e in _changes(r, "zone")}
    for e in r.events:
        if e.kind in ("enters", "leaves"):
            assert e.subject in moved and not _is_702_26(e.cause), (
                f"702.26d: {e.subject} {e.detail} (caused by {e.cause}) without changing zone; phasing "
                "is not a zone change" + _where(game, r))


def check_phased_out_untouched(game: GeneratedGame, r: StepResult) -> None:
    """(f) 702.26b: a permanent that stays phased out through a step is treated as though it doesn't exist."""
    leaving_step = r.line.endswith("leaves the game")
    phased_in = {e.subject for e in _changes(r, "phase") if _data(e)["new"] == "in"}
    for oid, o in r.after.objects.items():
        b = r.before.objects[oid]
        if b.zone != "battlefield" or status(b, "phase") != "out" or oid in phased_in:
            continue
        if leaving_step and o.zone != "battlefield":
            continue  # 702.26k / 702.26n / 800.4a: a leaving player takes it along or exiles it
        fields = ("zone", "tapped", "controller", "owner", "counters", "stickers", "attacking")
        changed = [f for f in fields if getattr(b, f) != getattr(o, f)]
        if attachment(r.before, b.attached_to) != attachment(r.after, o.attached_to):
            changed.append("attached_to")  # (still attached to the same object though its host left: 400.7)
        assert not changed, (
            f"702.26b: {oid} stayed phased out through the step, yet its {', '.join(changed)} changed "
            f"({[(getattr(b, f), getattr(o, f)) for f in changed]})" + _where(game, r))
        assert status(o, "phase") == "out", f"702.26b: {oid} is phased in without a phase event" + _where(game, r)


def _skipped_players(order: Sequence[str], before: str, after: str) -> set[str]:
    """The players whose turns would have begun between `before`'s turn and `after`'s."""
    out, i = set(), order.index(before)
    while order[(i + 1) % len(order)] != after:
        i += 1
        out.add(order[i % len(order)])
    return out


def check_untap_step(game: GeneratedGame, r: StepResult) -> None:
    """(g) 702.26a, 702.26m, 702.26n, 502.1: what a turn's untap step does, and a skipped one doesn't."""
    if r.line == "next turn skipping untap step":
        moved = [e.subject for e in _changes(r, "phase")]
        assert not moved, f"702.26m: {moved} changed phase although the untap step was skipped" + _where(game, r)
        return
    if r.line != "next turn":
        return
    active = r.after.active
    skipped = _skipped_players(game.players, r.before.active, active)
    for oid, b in r.before.objects.items():
        o = r.after.objects[oid]
        if b.zone != "battlefield" or o.zone != "battlefield":
            continue
        if status(b, "phase") == "out":
            under = status(b, "phased_out_under")
            due = (under == active or status(b, "returns_after_absence") or under in skipped)
            if due and not status(b, "phased_indirectly") and status(b, "phase_until") is None:
                why = ("702.26a: it phased out under the active player" if under == active
                       else "702.26n: it phased out under a player who left the game and whose turn would have begun")
                assert status(o, "phase") == "in", (
                    f"{why.split(':')[0]}: {oid} is still phased out after {active}'s untap step "
                    f"({why.split(': ')[1]})" + _where(game, r))
        elif b.controller == active and "phasing" in b.keywords:
            assert status(o, "phase") == "out" and status(o, "phased_out_under") == active, (
                f"702.26a: {oid} has phasing and is controlled by {active}, yet it did not phase out "
                f"under {active} in {active}'s untap step" + _where(game, r))
        if status(o, "phase") == "in" and o.controller == active:
            assert not o.tapped, (
                f"502.1/502.3: {oid} is phased in and controlled by {active} but still tapped after the "
                "untap step; phasing comes first, then everything the player controls untaps" + _where(game, r))


def check_leaving_player(game: GeneratedGame, r: StepResult) -> None:
    """(h) 702.26k, 800.4a: a leaving player's phased-out permanents leave, and nothing triggers on it."""
    if not r.line.endswith("leaves the game"):
        return
    who = r.line.split()[0]
    for oid, b in r.before.objects.items():
        o = r.after.objects[oid]
        if b.zone == "battlefield" and b.owner == who:
            assert o.zone != "battlefield", (
                f"702.26k/800.4a: {oid} is owned by {who}, who left the game, but is still on the "
                f"battlefield (phase {status(b, 'phase')} before)" + _where(game, r))
    was_out = {oid for oid, b in r.before.objects.items() if b.zone == "battlefield" and status(b, "phase") == "out"}
    triggered = [e.subject for e in r.events if e.kind == "trigger" and e.subject in was_out]
    assert not triggered, (
        f"702.26k: {triggered} were phased out and triggered as they left the game; no zone-change "
        "ability triggers for them" + _where(game, r))


def check_no_attachment_perceived(game: GeneratedGame, r: StepResult) -> None:
    """(i) 702.26j: phasing in or out is never becoming attached or unattached."""
    reattached = {e.subject for e in _changes(r, "attached_to")} | {e.subject for e in _changes(r, "zone")}
    for e in r.events:
        if e.kind in ("attached", "unattached"):
            host = _data(e).get("host")
            assert e.subject in reattached or host in reattached, (
                f"702.26j: {e.subject} {e.detail} (caused by {e.cause}) though no attachment changed; "
                "phasing never counts as becoming attached or unattached" + _where(game, r))


def check_state_based_actions(game: GeneratedGame, r: StepResult) -> None:
    """(j) 702.26b/c, 702.26i, 704.5: after a step, the state-based actions see every phased-in
    permanent (an Aura phased in on a gone host is in the graveyard) and none phased out."""
    e = game.run.engine
    for oid, o in r.after.objects.items():
        if o.zone != "battlefield" or status(o, "phase") != "in":
            continue
        host = o.attached_to
        host_there = host is not None and (e.visible(host) if host in r.after.objects else r.after.in_game.get(host, False))
        if "aura" in o.types:
            assert host_there, (
                f"702.26i/704.5m: Aura {oid} is phased in but attached to {host!r}, which is not there; "
                "the state-based action puts it into the graveyard" + _where(game, r))
        if "equipment" in o.types and host is not None:
            assert host_there, (
                f"702.26i/704.5n: Equipment {oid} is phased in and attached to {host!r}, which is not there; "
                "it becomes unattached" + _where(game, r))
        if "creature" in o.types:
            toughness = e.chars(oid)["toughness"]
            assert toughness > 0 and o.damage < toughness, (
                f"704.5f/704.5g: creature {oid} is phased in with toughness {toughness} and damage "
                f"{o.damage}; the state-based actions should have removed it" + _where(game, r))


INVARIANTS = (check_conservation, check_indirect_hosts, check_phase_in_causes, check_counters,
              check_no_zone_change_perceived, check_phased_out_untouched, check_untap_step,
              check_leaving_player, check_no_attachment_perceived, check_state_based_actions)


def play_generated(ch, book, checks=INVARIANTS) -> GeneratedGame:
    """A generated game played step by step, each step checked; what a `hold` left on the
    stack is resolved at the end (a script does not end with it there)."""
    game = start_game(ch, book)
    for _ in range(ch.integer(1, 12)):
        result = game.play(choose_step(ch, game))
        if result is None:
            continue
        for check in checks:
            check(game, result)
    while game.run.game.stack:
        result = game.play("resolve")
        for check in checks:
            check(game, result)
    return game


# ============================================================== the tests


@SETTINGS
@given(data=st.data())
def test_phasing_invariants_hold_after_every_step(book, data):
    """Invariants (a)-(j) hold after every step of a generated game, under the current rules."""
    ch = HypothesisChooser(data)
    game = start_game(ch, book)
    note(game.text())
    for _ in range(ch.integer(1, 12)):
        result = game.play(choose_step(ch, game))
        if result is None:
            continue
        note(f"step: {result.line}")
        for check in INVARIANTS:
            check(game, result)


def test_generator_reaches_the_interesting_cases(book):
    """The generator is not vacuous: across seeds it builds chains of depth 3, phased-out starts,
    and plays every kind of step (a spell held on the stack and resolved after responses too),
    including phasing in by 702.26a, 702.26g and an effect."""
    depths, starts, steps, causes = set(), set(), set(), set()
    for seed in range(60):
        game = play_generated(RandomChooser(seed), book, checks=())
        depths |= {p.depth for p in game.pieces}
        starts |= {("indirect" if p.indirect else "direct") for p in game.pieces if p.out}
        steps |= {line.split(" by ")[0] for line in game.script}
        causes |= {e.cause.id for e in game.run.engine.trace
                   if e.kind == "change" and _data(e).get("attr") == "phase" and _data(e)["new"] == "in"}
    assert MAX_DEPTH in depths, depths
    assert starts == {"direct", "indirect"}, starts
    assert {"next turn", "next turn skipping untap step", 'cast "Slip Away"', "cast \"Teferi's Protection\"",
            'cast "Time and Tide"', 'cast "Wrath of God"', 'hold "Slip Away"', "resolve", "to combat damage step"} <= steps, steps
    assert any(s.startswith("attack with ") for s in steps) and any(s.startswith("declare blockers: ") for s in steps), steps
    assert any(s.endswith("leaves the game") for s in steps), steps
    assert {"702.26a", "702.26g", "Time and Tide"} <= causes, causes


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_text_round_trips_and_replays_deterministically(book, seed):
    """A generated scenario parses, prints and parses back to the same tree, and one seed gives
    one game: the same text, and the same final state whether played step by step or as a file."""
    first = play_generated(RandomChooser(seed), book, checks=())
    second = play_generated(RandomChooser(seed), book, checks=())
    text = first.text()
    assert second.text() == text, "the same seed must generate the same scenario text"
    module = parse(text, "<generated>")
    assert parse(print_module(module), "<printed>") == module, "printer/parser round trip"
    replays = []
    for _ in range(2):
        run = ScenarioRun(parse_scenario(text), book, "<generated>")
        run.play()
        assert run.failures == [], f"the generated script must play without errors:\n{text}\n{run.failures}"
        replays.append((run.final_state(), [ev.render() for ev in run.engine.trace]))
    assert replays[0] == replays[1], "two runs of the same text must give the same final state and trace"
    assert replays[0][0] == first.run.final_state() == second.run.final_state(), (
        "playing the file must give the state reached step by step")


@pytest.mark.parametrize("removed, cited", [
    ("702.26a", "702.26a"),
    ("702.26d", "702.26d"),
    ("702.26g", "702.26g"),
    ("702.26j", "702.26j"),
    ("702.26k", "702.26k"),
    ("502.1", "502.1"),
])
def test_the_invariants_catch_a_rulebook_missing_a_block(book, removed, cited):
    """The invariants can fail: with one block deleted, some generated game breaks the invariant
    that cites it (702.26a: untap-step phasing; 702.26d: no zone change; 702.26g: indirect phasing;
    702.26j: no attachment perception; 702.26k: phased-out permanents leave with their owner;
    502.1: phasing happens before untapping)."""
    broken = book.without(removed)
    assert len(broken.rules) == len(book.rules) - 1
    for seed in range(300):
        try:
            play_generated(RandomChooser(seed), broken)
        except AssertionError as exc:
            assert cited in str(exc).split(":")[0], f"seed {seed}: {str(exc).splitlines()[0]}"
            return
    pytest.fail(f"no generated game noticed that {removed} was missing")


def test_the_generated_board_is_what_the_text_says(book):
    """Sanity of the text format: a phased-out chain built by the generator is read back as such."""
    pieces = [
        Piece("p1", "Grizzly Bears", "Alice", "Alice", out=True, under="Bob", counters=2),
        Piece("p2", "Holy Strength", "Bob", "Alice", "p1", 1, out=True, indirect=True, under="Bob"),
        Piece("p3", "Aura Link", "Alice", "Alice", "p2", 2, out=True, indirect=True, under="Alice"),
    ]
    game = build_game(parse_scenario(board_text(["Alice", "Bob"], "Alice", pieces)), book)
    p1, p2, p3 = (game.objects[n] for n in ("p1", "p2", "p3"))
    assert (status(p1, "phase"), status(p1, "phased_out_under"), dict(p1.counters)) == ("out", "Bob", {"p1p1": 2})
    assert (p2.attached_to, p2.owner, status(p2, "phased_indirectly")) == ("p1", "Alice", True)
    assert (p3.attached_to, status(p3, "phased_out_under")) == ("p2", "Alice")


STRANDED = {
    # the host's owner leaves: 702.26k takes the phased-out host out of the game
    "owner leaves (702.26k)": (Piece("p1", "Grizzly Bears", "Bob", "Bob", out=True, under="Bob"), "outside"),
    # the host's controller (not its owner) leaves: 702.26n exiles the phased-out host
    "controller leaves (702.26n)": (Piece("p1", "Grizzly Bears", "Bob", "Carol", out=True, under="Bob"), "exile"),
    # a phased-out token host leaves with its owner and ceases to exist (704.5d)
    "token host (702.26k, 704.5d)": (Piece("p1", "Soldier Token", "Bob", "Bob", token=True, out=True, under="Bob"),
                                     "nowhere"),
}


@pytest.mark.parametrize("case", sorted(STRANDED))
def test_indirect_attachment_whose_host_left_with_a_player_stays_phased_out(book, case):
    """Found by the generator (invariant (b), 702.26g). Bob's phased-out host leaves the battlefield
    when Bob leaves the game; Alice's Holy Strength, phased out indirectly on it, is Alice's, so
    neither 702.26k, 702.26n nor 800.4a moves it, and 702.26g phases it in only along with its
    host, which is gone for good. The CR gives it no other way back (the pre-2017 rules said so
    outright for Auras on tokens: they "remain phased out for the rest of the game"), so it stays
    phased out; the 2026-09-25 version notes record this reading of an open case."""
    host, zone = STRANDED[case]
    pieces = [host, Piece("p2", "Holy Strength", "Alice", "Alice", "p1", 1, out=True, indirect=True, under="Alice")]
    run = ScenarioRun(parse_scenario(board_text(["Alice", "Bob", "Carol"], "Alice", pieces)), book, "<generated>")
    game = GeneratedGame(["Alice", "Bob", "Carol"], "Alice", pieces, run, ids=frozenset(run.game.objects))
    for line in ["Bob leaves the game", "next turn", "next turn", "next turn"]:
        game.play(line)
    aura = run.game.objects["p2"]
    assert run.game.objects["p1"].zone == zone, "the host left as the leaving-player rules say"
    assert aura.zone == "battlefield" and status(aura, "phase") == "out" and status(aura, "phased_indirectly"), (
        f"702.26g: p2 should still be phased out indirectly, attached to the departed p1 (zone {zone})")
    assert aura.attached_to == "p1@0", "400.7: attached to the object p1 was, not to p1's new object"
