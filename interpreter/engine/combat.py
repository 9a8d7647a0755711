"""Combat (506-511): what attacks what, who blocks whom, whether a declaration is legal, and
the combat damage the creatures deal, all at once.

The turn's steps are the rulebook's (`interpreter.engine.turns`); this part is what happens in
the combat steps that the rules of every version share and that are no one keyword's:

- attackers are declared as the declare attackers step begins (508.1): each attacks a player
  or a planeswalker (by default the next player in turn order still in the game), and the
  rulebook's and the cards' `forbid attack` restrictions are checked (508.1c);
- blockers are declared as the declare blockers step begins (509.1): each blocks one attacker
  whose defending player controls it, and the `forbid block` restrictions are checked
  (509.1b); an attacker with a blocker declared is blocked for the rest of the combat, even
  once its blockers have left it (509.1h);
- `deal combat damage` (the combat damage step's turn-based action in the rulebook, 510.1):
  every attacking and blocking creature the game sees with power above zero deals its damage,
  all at once (510.2). An unblocked attacker deals it to what it attacks; a blocked one to its
  blockers in the order they were declared, each given lethal damage before the next (510.1c),
  the rest to what it attacks if it has trample (702.19b), and none when no blocker is left
  unless it has trample (702.19e); a blocker deals its damage to the attacker it blocks.
  Damage to a player is life lost (120.3a), to a planeswalker loyalty counters removed
  (120.3c), to a creature damage marked on it (120.3e). When a creature in combat has first
  strike or double strike as the step begins, there are two combat damage steps (510.4): in
  the first only those creatures deal damage, in the second those without first strike and
  those with double strike (702.4b, 702.7b).

What is no one's to declare (which creatures leave combat and when) is the rulebook's: its
`remove x from combat` clauses (506.4 and 511.3 in the shipped rules).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from ...dsl import ast
from ..game.refs import Obj, PlayerRef
from ..game.store import SETUP, store_of
from ..game.trace import Cause

FIRST_STRIKE, DOUBLE_STRIKE, TRAMPLE = "first_strike", "double_strike", "trample"
# The steps at whose beginning the active player declares attackers (508.1) and the defending
# players declare blockers (509.1), by the names the turn declares them with.
ATTACKERS_STEP, BLOCKERS_STEP = "declare attackers step", "declare blockers step"


@attrs.frozen
class Attack:
    """One attacking creature: what it attacks (a player's name, or a planeswalker's id), its
    blockers in the order they were declared, and whether it became blocked (509.1h)."""

    attacker: str
    incarnation: int
    defender: str
    blockers: tuple[str, ...] = ()
    blocked: bool = False


@attrs.frozen
class CombatState:
    """This turn's combat: its attacks in the order declared, and how many combat damage steps
    have been played (510.4: two with first strike)."""

    attacks: tuple[Attack, ...] = ()
    damage_steps: int = 0
    first_strike: bool = False  # (this combat has a first combat damage step, 510.4)


def next_opponent(game: Any) -> str | None:
    """The player an attacker attacks when nothing says whom (508.1b): the next in turn order
    after the active player who is still in the game; None when there is none."""
    order = game.order
    at = order.index(game.active)
    return next((p for p in order[at + 1:] + order[:at] if game.players[p].in_game), None)


def combat_at_start(game: Any, turn: Any) -> None:
    """A game set up with creatures of the active player attacking (a scenario's `attacking`,
    `new_game`'s, a Forge state's) begins in the declare attackers step of its turn (`turn`, the
    rulebook's), those creatures declared as attackers of the next player in turn order
    (508.1b): they can be blocked and deal combat damage as the next steps come. (Another
    player's creature set up attacking, which no declaration can make, 508.1a, keeps only its
    `attacking` flag.)"""
    attackers = [o for o in game.objects.values()
                 if o.attacking and o.zone == "battlefield" and o.controller == game.active]
    if not attackers or ATTACKERS_STEP not in turn.steps:
        return
    defender = next_opponent(game) or game.active
    store = store_of(game)
    store.set_field("combat", CombatState(tuple(Attack(o.id, o.incarnation, defender) for o in attackers)), SETUP)
    store.set_field("step", ATTACKERS_STEP, SETUP)


class Combat:
    """The engine's part for combat (see the module's docstring)."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    @property
    def state(self) -> CombatState:
        return self.eng.game.combat or CombatState()

    def reset(self, cause: Cause) -> None:
        """A turn begins with no combat."""
        if self.eng.game.combat is not None:
            self.eng.store.set_field("combat", None, cause)

    # ---------------------------------------------------------------- reading

    def defending_player(self, attack: Attack) -> str:
        """The player an attacker attacks, or the controller of the planeswalker it attacks."""
        if attack.defender in self.eng.game.players:
            return attack.defender
        return self.eng.controller(attack.defender)

    def attack_of(self, attacker: str) -> Attack | None:
        """The attack of `attacker` while it is attacking (the same object it was declared as)."""
        o = self.eng.game.objects.get(attacker)
        if o is None or not o.attacking:
            return None
        return next((a for a in self.state.attacks if a.attacker == attacker and a.incarnation == o.incarnation), None)

    def blockers_of(self, attack: Attack) -> list[str]:
        """The creatures still blocking `attack`'s attacker, in the order declared."""
        objects = self.eng.game.objects
        return [b for b in attack.blockers if b in objects and objects[b].blocking and self.blocked_by(b) == attack.attacker]

    def blocked_by(self, blocker: str) -> str | None:
        """The attacker `blocker` blocks (None: it blocks none)."""
        o = self.eng.game.objects.get(blocker)
        if o is None or not o.blocking:
            return None
        return next((a.attacker for a in self.state.attacks if blocker in a.blockers), None)

    def forbids(self, kind: type) -> list[tuple[ast.Node, dict, ast.Rule | ast.Card]]:
        """The restrictions of `kind` in force, each with what binds its names and whose it is:
        the rulebook's clauses, and those of the cards of the permanents the game sees (with
        `this` and `you` bound)."""
        eng = self.eng
        found = [(clause, {}, rule) for rule in eng.rulebook.rules for clause in rule.clauses if isinstance(clause, kind)]
        carded = {name for name, card in eng.rulebook.cards.items() if any(isinstance(e, kind) for e in card.entries)}
        if carded:
            for oid, o in eng.game.objects.items():
                if o.card in carded and o.zone == "battlefield" and eng.visible(oid):
                    card = eng.rulebook.cards[o.card]
                    env = {"this": Obj(oid), "you": PlayerRef(eng.controller(oid))}
                    found += [(e, env, card) for e in card.entries if isinstance(e, kind)]
        return found

    def forbidden_attack(self, attacker: str) -> tuple[ast.ForbidAttack, ast.Rule | ast.Card] | None:
        """The first restriction that forbids `attacker` to attack (508.1c), and whose it is; or None."""
        for clause, env, owner in self.forbids(ast.ForbidAttack):
            if self.eng.truthy(self.eng.eval(clause.cond, {**env, clause.var: Obj(attacker)})):
                return clause, owner
        return None

    def forbidden_block(self, blocker: str, attacker: str) -> tuple[ast.ForbidBlock, ast.Rule | ast.Card] | None:
        """The first restriction that forbids `blocker` to block `attacker` (509.1b), and whose it
        is; or None."""
        for clause, env, owner in self.forbids(ast.ForbidBlock):
            bound = {**env, clause.attacker: Obj(attacker), clause.blocker: Obj(blocker)}
            if self.eng.truthy(self.eng.eval(clause.cond, bound)):
                return clause, owner
        return None

    # ---------------------------------------------------------------- declaring

    def declare_attackers(self, attackers: Sequence[tuple[str, str]], cause: Cause, tap: Cause) -> None:
        """Each (attacker, what it attacks) becomes an attacking creature (508.1a); those
        without vigilance become tapped (508.1f). Nothing is checked here (the caller has)."""
        eng = self.eng
        attacks = tuple(Attack(a, eng.game.objects[a].incarnation, d) for a, d in attackers)
        eng.store.set_field("combat", attrs.evolve(self.state, attacks=self.state.attacks + attacks), cause)
        for a, d in attackers:
            eng.record("combat", a, f"attacks {d}", cause)
        eng.run(ast.Simultaneously(tuple(ast.AttackWith(ast.Name(a)) for a, _ in attackers)), {}, cause)
        tapping = [a for a, _ in attackers if "vigilance" not in eng.chars(a)["keywords"]]
        if tapping:
            eng.run(ast.Simultaneously(tuple(ast.Tap(ast.Name(a)) for a in tapping)), {}, tap)

    def declare_blockers(self, pairs: Sequence[tuple[str, str]], cause: Cause) -> None:
        """Each (blocker, attacker) blocks (509.1a); an attacker with a blocker becomes blocked
        (509.1h). Nothing is checked here (the caller has)."""
        eng = self.eng
        attacks = []
        for attack in self.state.attacks:
            mine = tuple(b for b, a in pairs if a == attack.attacker)
            attacks.append(attrs.evolve(attack, blockers=attack.blockers + mine, blocked=attack.blocked or bool(mine))
                           if mine else attack)
        eng.store.set_field("combat", attrs.evolve(self.state, attacks=tuple(attacks)), cause)
        if not pairs:
            return
        eng.run(ast.Simultaneously(tuple(ast.Set((ast.Assign(b, "blocking", ast.Name("true")),)) for b, _ in pairs)),
                {name: Obj(name) for name, _ in pairs}, cause)
        events = [eng.record("blocks", b, f"blocks {a}", cause, other=a) for b, a in pairs]
        events += [eng.record("blocked", a, f"becomes blocked by {b}", cause, other=b) for b, a in pairs]
        eng.triggers.collect_triggers([], events, {})  # (509.3: abilities that trigger on blocking)

    # ---------------------------------------------------------------- combat damage

    def in_combat(self) -> list[str]:
        """The creatures attacking or blocking that the game sees, attackers first."""
        eng = self.eng
        attackers = [a.attacker for a in self.state.attacks if self.attack_of(a.attacker) is not None]
        blockers = [b for a in self.state.attacks for b in a.blockers if self.blocked_by(b) == a.attacker]
        return [oid for oid in dict.fromkeys(attackers + blockers) if eng.visible(oid)]

    def begin_damage_step(self, cause: Cause) -> bool:
        """A combat damage step begins: whether another one follows it (510.4: this one is the
        first, for creatures with first strike or double strike)."""
        state = self.state
        first = state.damage_steps == 0 and any(
            {FIRST_STRIKE, DOUBLE_STRIKE} & set(self.eng.chars(oid)["keywords"]) for oid in self.in_combat())
        self.eng.store.set_field("combat", attrs.evolve(state, damage_steps=state.damage_steps + 1,
                                                        first_strike=state.first_strike or first), cause)
        return first

    def deals_now(self, oid: str) -> bool:
        """Whether creature `oid` deals combat damage in this combat damage step (510.4)."""
        keywords = set(self.eng.chars(oid)["keywords"])
        state = self.state
        if not state.first_strike:
            return True
        if state.damage_steps == 1:
            return bool({FIRST_STRIKE, DOUBLE_STRIKE} & keywords)
        return FIRST_STRIKE not in keywords or DOUBLE_STRIKE in keywords

    def deal(self, batch: Any, cause: Cause) -> None:
        """`deal combat damage`: every creature dealing combat damage in this step deals it,
        all at once (510.1-510.2), as writes and operations of one batch."""
        eng = self.eng
        to_objects: dict[str, int] = {}
        to_players: dict[str, int] = {}
        dealt: list[tuple[str, str, int]] = []

        def hit(source: str, target: str, amount: int) -> None:
            if amount <= 0:
                return
            dealt.append((source, target, amount))
            if target in eng.game.players:
                to_players[target] = to_players.get(target, 0) + amount
            else:
                to_objects[target] = to_objects.get(target, 0) + amount

        for attack in self.state.attacks:
            a = attack.attacker
            if self.attack_of(a) is None or not eng.visible(a) or not self.deals_now(a):
                continue
            power = eng.chars(a)["power"] or 0
            trample = TRAMPLE in eng.chars(a)["keywords"]
            defender = attack.defender if self.defender_there(attack.defender) else None
            if not attack.blocked:
                if defender is not None:
                    hit(a, defender, power)
                continue
            blockers = [b for b in self.blockers_of(attack) if eng.visible(b)]
            if not blockers:
                if trample and defender is not None:
                    hit(a, defender, power)  # (702.19e)
                continue
            left = power
            for k, b in enumerate(blockers):
                last = k == len(blockers) - 1
                lethal = max(0, (eng.chars(b)["toughness"] or 0) - eng.obj(b).damage - to_objects.get(b, 0))
                given = left if last and not trample else min(left, lethal)
                hit(a, b, given)
                left -= given
            if left > 0 and defender is not None:
                hit(a, defender, left)
        for attack in self.state.attacks:
            if self.attack_of(attack.attacker) is None or not eng.visible(attack.attacker):
                continue
            for b in self.blockers_of(attack):
                if eng.visible(b) and self.deals_now(b):
                    hit(b, attack.attacker, eng.chars(b)["power"] or 0)
        for source, target, amount in dealt:
            eng.record("damage", source, f"deals {amount} combat damage to {target}", cause)
        for oid, amount in to_objects.items():
            o = eng.obj(oid)
            if "planeswalker" in o.types and "creature" not in o.types:
                counters = dict(o.counters)
                counters["loyalty"] = max(0, counters.get("loyalty", 0) - amount)
                eng.statements.write(batch, cause, oid, "counters", tuple(sorted((k, v) for k, v in counters.items() if v)))
            else:
                eng.statements.write(batch, cause, oid, "damage", o.damage + amount)
        for who, amount in to_players.items():
            batch.op(cause, f"loses {amount} life", who,
                     lambda who=who, amount=amount: eng.turns.update_player(who, cause, life=eng.game.players[who].life - amount),
                     "life")

    def defender_there(self, defender: str) -> bool:
        """A player still in the game, or a planeswalker the game still sees on the battlefield."""
        eng = self.eng
        if defender in eng.game.players:
            return eng.player_in_game(defender)
        o = eng.game.objects.get(defender)
        return o is not None and o.zone == "battlefield" and eng.visible(defender)
