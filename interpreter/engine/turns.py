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


class Turns:
    """Runs the hooks of the turn (its steps, a turn beginning, a player leaving) with the
    delayed triggers waiting on them, and moves the game from turn to turn."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def update_player(self, name: str, cause: Any, **changes) -> bool:
        """Player `name` with `changes` (life, cards in hand, in the game or not), for `cause`:
        true, as an operation of a batch that happened."""
        self.eng.store.set_player(name, attrs.evolve(self.eng.game.players[name], **changes), cause)
        if "in_game" in changes:  # what is attached to or controlled by a player may be affected
            self.eng.invalidate()
        return True

    def run_hook(self, kind: str, player: str | None) -> None:
        """Run the blocks hooked to `kind` (for `player`, the active one or the one leaving),
        then the delayed triggers waiting on it; check the assertions about what changed
        during it, and settle. A step's beginning first triggers the cards' abilities that
        trigger then (`Triggers.step_begins`), which wait to be resolved after it."""
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
            self.eng.checks.settle()

    def skip_hook(self, kind: str, player: str, counts: HookLog) -> None:
        """A skipped step; `counts` are the changes made so far in the part of the turn it belongs to."""
        self.eng.record("step", player, f"{kind} is skipped", SCRIPT, turn=self.eng.game.turn)
        self.eng.assertions.check_hook_assertions(kind, player, counts, skipped=True)

    def cleanup(self) -> None:
        """The end of the turn: the end step, then the cleanup step."""
        self.eng.record("step", self.eng.game.active, "end step", SCRIPT, turn=self.eng.game.turn)
        self.run_hook("end step", self.eng.game.active)
        self.eng.priority.receive(0, last=False)
        self.eng.record("step", self.eng.game.active, "cleanup step", SCRIPT, turn=self.eng.game.turn)
        self.run_hook("cleanup", self.eng.game.active)
        self.eng.store.set_field("cleanup_done", True, SCRIPT)
        self.eng.priority.receive(0, last=False)  # (514.3a: only when something triggered)

    def next_turn(self, skip_untap: bool = False) -> None:
        """End this turn (unless it is cleaned up) and begin the next player's still in the
        game: the beginning of the turn, then its untap step (or the untap step skipped), then
        its upkeep step."""
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
        self.eng.record("step", current, f"turn {self.eng.game.turn} begins", SCRIPT, turn=self.eng.game.turn)
        self.eng.hook_logs.append(HookLog())  # what changes as the turn begins, for a skipped untap step
        try:
            self.run_hook("beginning of turn", current)
        finally:
            turn_start = self.eng.hook_logs.pop()
        if skip_untap:
            self.skip_hook("untap step", current, turn_start)
        else:
            self.eng.record("step", current, "untap step", SCRIPT, turn=self.eng.game.turn)
            self.run_hook("untap step", current)
        self.upkeep(current)  # (no player receives priority in the untap step, 502.4: what triggered waits)

    def upkeep(self, player: str) -> None:
        """`player`'s upkeep step (503.1): what is hooked to it, the delayed triggers waiting on
        it; then the player receives priority (503.2), and the triggered abilities waiting (those
        of the untap step, and those its beginning triggered) go on the stack and resolve, unless
        the action holds them there."""
        self.eng.record("step", player, "upkeep step", SCRIPT, turn=self.eng.game.turn)
        self.run_hook("upkeep", player)
        self.eng.priority.receive(0)

    def player_leaves(self, name: str) -> None:
        """Player `name` leaves the game; what is hooked to a player leaving runs."""
        self.update_player(name, SCRIPT, in_game=False)
        self.eng.record("step", name, "leaves the game", SCRIPT)
        self.run_hook("leaving the game", name)
        self.eng.priority.receive()
