"""The turn structure: hooks (steps of the turn), the next turn, cleanup, and a player
leaving the game."""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Any, Callable, Iterable

import attrs

from ...dsl.collector import collector_paused
from ..game.refs import PlayerRef
from ..game.trace import SCRIPT, Cause, rule_cause
from .batches import MAX_SETTLE_ROUNDS
from .combat import ATTACKERS_STEP


class HookLog:
    """The changes made during a step (or as a turn begins) that assertions count: for each
    attribute counted, each batch's changes to it, in order (ids, or a function giving them,
    for a batch of runs: worked out only if an assertion asks). A batch changes an attribute
    of an object at most once (the journal takes one change per object and attribute of a
    batch; `Committer.runs_by_attr` sends runs that write one twice to be settled), so an
    object changed more than once during the step was changed by two batches."""

    __slots__ = ("sources",)

    def __init__(self) -> None:
        self.sources: dict[str, list[Iterable[str] | Callable[[], Iterable[str]]]] = {}

    def add(self, attr: str, in_order: Iterable[str] | Callable[[], Iterable[str]]) -> None:
        """A batch changed `attr` of each object of `in_order` (ids in the order of the
        changes, or a function giving them)."""
        self.sources.setdefault(attr, []).append(in_order)

    def changed(self, attr: str) -> bool:
        """Did some object's `attr` change?"""
        return attr in self.sources

    def first_twice(self, attr: str) -> tuple[str, int] | None:
        """The object whose `attr` changed more than once and first changed before any other
        such, with how many times it changed (None: no object's changed twice)."""
        sources = self.sources.get(attr, ())
        if len(sources) < 2:
            return None  # (one batch changes an object's attribute once at most)
        changes = [list(source() if callable(source) else source) for source in sources]
        counts = Counter(chain.from_iterable(changes))
        return next(((oid, counts[oid]) for oid in chain.from_iterable(changes) if counts[oid] > 1), None)


# What ends an effect lasting until a step of a player's turn, as that step begins (611.2a).
STEP_DURATION = Cause("engine", "611.2a", "an effect lasting until this step ends as it begins (611.2a)")


class Turns:
    """Plays the turn the rulebook declares (`Rulebook.turn`): each of its steps, in order,
    each with what is hooked to it and the delayed triggers waiting on it, priority in those
    that give it, the steps skipped (a rule's `skip` clause, or a turn begun skipping them);
    and moves the game from turn to turn."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    @property
    def turn(self) -> Any:
        return self.eng.rulebook.turn

    def current(self) -> str:
        """The step or phase the game is in: where it began, the turn's first phase without
        steps (a main phase), if it has not moved yet."""
        if self.eng.game.step:
            return self.eng.game.step
        mains = self.turn.main_phases
        return mains[0] if mains else self.turn.steps[-1]

    def ahead(self) -> tuple[str, ...]:
        """The steps and phases of this turn still to come, in order: those added to it first
        (500.8), then those of the turn's own order after where it is (or went on from)."""
        steps = self.turn.steps
        here = self.eng.game.resume or self.current()
        return self.eng.game.extra + (steps[steps.index(here) + 1:] if here in steps else ())

    def add_extra(self, added: tuple[str, ...], cause: Any) -> bool:
        """Steps or phases (a phase: its steps) come right after the one the game is in, before
        any added earlier (500.8); an operation of a batch that happened."""
        turn, store, game = self.turn, self.eng.store, self.eng.game
        points = tuple(point for name in added
                       for point in next((p.points for p in turn.phases if p.name == name), (name,)))
        if not game.resume:
            store.set_field("resume", self.current(), cause)
        store.set_field("extra", points + game.extra, cause)
        return True

    def update_player(self, name: str, cause: Any, **changes) -> bool:
        """Player `name` with `changes` (life, cards in hand, in the game or not), for `cause`:
        true, as an operation of a batch that happened."""
        self.eng.store.set_player(name, attrs.evolve(self.eng.game.players[name], **changes), cause)
        if "in_game" in changes:  # what is attached to or controlled by a player may be affected
            self.eng.invalidate()
        return True

    def run_hook(self, kind: str, player: str | None, since: int | None = None) -> None:
        """Run the blocks hooked to `kind` (for `player`, the active one or the one leaving),
        then the delayed triggers waiting on it; check the assertions about what changed
        during it, and settle. A step's beginning first triggers the cards' abilities that
        trigger then (`Triggers.step_begins`), which wait to be resolved after it. `since`: the
        journal's position when the game was last settled, if it was; when nothing has been
        written since, there is nothing new for the state checks to find, and they are not made."""
        if player is not None:
            self.eng.triggers.step_begins(kind, player)
        with collector_paused():
            self.eng.hook_logs.append(HookLog())
            try:
                for rule, during in self.eng.clause_index.hooks.get(kind, ()):
                    env = {during.hook.var: PlayerRef(player)} if during.hook.var and player else {}
                    self.eng.run(during.body, env, rule_cause(self.eng.program, rule, during))
                for delayed in [d for d in self.eng.game.delayed if d.hook == kind]:
                    cause = Cause("card", delayed.cause)
                    self.eng.store.remove_from("delayed", delayed, cause)
                    self.eng.run(delayed.body, dict(delayed.bindings), cause)
            finally:
                counts = self.eng.hook_logs.pop()
            self.eng.assertions.check_hook_assertions(kind, player or "", counts, skipped=False)
            if since is None or self.eng.store.position() != since:
                self.eng.checks.settle()

    def skip_hook(self, kind: str, player: str, counts: HookLog) -> None:
        """A skipped step; `counts` are the changes made so far in the part of the turn it belongs to."""
        self.eng.record("step", player, f"{kind} is skipped", SCRIPT, turn=self.eng.game.turn)
        self.eng.assertions.check_hook_assertions(kind, player, counts, skipped=True)

    def skipped(self, step: str, player: str) -> Any:
        """Why `step` of `player`'s turn is skipped as it would begin: the turn began skipping it
        (SCRIPT), or a rule's `skip` clause holds (its cause); None when it is not."""
        if step in self.eng.game.skipping:
            return SCRIPT
        for rule, clause in self.eng.clause_index.skips.get(step, ()):
            env = {clause.hook.var: PlayerRef(player)} if clause.hook.var else {}
            if self.eng.truthy(self.eng.eval(clause.cond, env)):
                return rule_cause(self.eng.program, rule, clause)
        return None

    def enter(self, step: str, declare: Callable[[], None] | None = None, last: bool = True,
              counts: HookLog | None = None) -> bool:
        """Step (or phase) `step` of the active player's turn begins, unless it is skipped: its
        turn-based action declared by a player (`declare`: attackers, blockers), what is hooked
        to it and the delayed triggers waiting on it; then, if players get priority in it, the
        active player does (117.3a), and the triggered abilities waiting go on the stack and
        resolve (unless the action holds there, and this is its `last` step). Whether it was
        played and is one in which players always get priority."""
        eng, game, turn = self.eng, self.eng.game, self.turn
        player = game.active
        if game.extra and game.extra[0] == step:
            eng.store.set_field("extra", game.extra[1:], SCRIPT)
        elif game.resume:  # (the added steps are over: the turn goes on in its own order)
            eng.store.set_field("resume", "", SCRIPT)
        eng.store.set_field("step", step, SCRIPT)
        settled = eng.store.position() if not game.pending and not game.stack else None  # (`run_hook`'s `since`)
        if self.skipped(step, player) is not None:
            self.skip_hook(step, player, counts or HookLog())
            return False
        eng.record("step", player, step, SCRIPT, turn=game.turn)
        phase = next((p for p in turn.phases if step in p.points), None)
        if phase is not None and phase.points[0] == step and ATTACKERS_STEP in phase.points:
            eng.combat.reset(SCRIPT)  # (a combat phase begins: a combat of its own, 506.1)
        ending = f"next {step}"
        if any(e.duration == ending and e.player == player for e in game.effects.values()):
            eng.continuous.end_effects(lambda e: e.duration == ending and e.player == player, STEP_DURATION)
        if declare is not None:
            declare()
        damage_step = step in eng.clause_index.damage_steps
        another = damage_step and eng.combat.begin_damage_step(SCRIPT)
        self.run_hook(step, player, None if damage_step else settled)
        if step in turn.no_priority:
            return False  # (502.4: what triggered waits for the next step in which a player gets priority)
        if step in turn.after_triggers:
            self.again_after_triggers(step, player, last)
            return False
        eng.priority.receive(0, last=last)
        if another:  # (510.4: the second combat damage step)
            eng.record("step", player, f"{step} (the second, 510.4)", SCRIPT, turn=game.turn)
            self.run_hook(step, player)
            eng.priority.receive(0, last=last)
        return True

    def again_after_triggers(self, step: str, player: str, last: bool) -> None:
        """A step in which players get priority only once something has triggered (the cleanup
        step, 514.3a): while something has, the active player receives priority, what is on the
        stack resolves, and the step is played again (unless the action holds there)."""
        eng = self.eng
        rounds = 0
        while eng.game.pending:
            eng.priority.receive(0, last=last)
            if eng.game.stack:  # (held for a response: the step goes on once it has resolved)
                return
            rounds += 1
            if rounds > MAX_SETTLE_ROUNDS:
                raise eng.fail(f"the {step} is played again and again: something triggers in each (514.3a)", None,
                               "a rule or card that triggers in every such step never lets the turn end")
            eng.record("step", player, f"{step} (again, 514.3a)", SCRIPT, turn=eng.game.turn)
            self.run_hook(step, player)

    def go_to(self, target: str, declare: Callable[[], None] | None = None) -> None:
        """The game goes on through this turn's steps to the beginning of `target` (`declare`:
        the turn-based action a player makes as it begins); what is held, is held there."""
        while True:  # (one step at a time: a step may add others, 500.8)
            step = self.ahead()[0]
            self.enter(step, declare if step == target else None, last=step == target)
            if step == target:
                return

    def cleanup(self) -> None:
        """The end of the turn: every step still to come in it, the cleanup step last."""
        while self.ahead():  # (one step at a time: a step may add others, 500.8)
            self.enter(self.ahead()[0], last=False)
        self.eng.store.set_field("cleanup_done", True, SCRIPT)

    def next_turn(self, skipping: tuple[str, ...] = ()) -> None:
        """End this turn (unless it is cleaned up) and begin the next player's still in the
        game: the beginning of the turn, then its steps (those in `skipping` skipped) up to the
        first in which a player receives priority (the upkeep step)."""
        if not self.eng.game.cleanup_done:
            self.cleanup()
        current = self.eng.game.active
        for _ in range(len(self.eng.game.order)):
            current = self.eng.game.next_player(current)
            if self.eng.player_in_game(current):
                break
            self.eng.record("step", current, "turn would have begun, but the player has left the game", SCRIPT)
            self.run_hook("turn would begin", current)
        store = self.eng.store
        store.checkpoint()  # (with a journal kept only back to checkpoints, a turn is one)
        store.set_field("active", current, SCRIPT)
        store.set_field("turn", self.eng.game.turn + 1, SCRIPT)
        store.set_field("cleanup_done", False, SCRIPT)
        store.set_field("skipping", tuple(skipping), SCRIPT)
        store.set_field("extra", (), SCRIPT)
        store.set_field("resume", "", SCRIPT)
        self.eng.combat.reset(SCRIPT)
        self.eng.record("step", current, f"turn {self.eng.game.turn} begins", SCRIPT, turn=self.eng.game.turn)
        self.eng.hook_logs.append(HookLog())  # what changes as the turn begins, for a skipped step
        try:
            self.run_hook("beginning of turn", current)
        finally:
            turn_start = self.eng.hook_logs.pop()
        for step in self.turn.steps:
            if self.enter(step, counts=turn_start):
                break

    def player_leaves(self, name: str) -> None:
        """Player `name` leaves the game; what is hooked to a player leaving runs."""
        self.update_player(name, SCRIPT, in_game=False)
        self.eng.record("step", name, "leaves the game", SCRIPT)
        self.run_hook("leaving the game", name)
        self.eng.priority.receive()
