"""The rule engine: applies a rulebook's blocks and the cards' effects to a game state.

The engine knows Magic in general (zones, attachments, continuous effects and their
durations, triggered abilities, state-based checks, the turn structure) and a handful of
generic mechanisms the rule files switch on:

- *hide*: objects a rule says the game treats as not existing, unless a query names the
  status the rule hides them by;
- *as*: changes that happen at the same time as another change (expanded to a fixed point
  before anything is applied), with *prefer* to settle conflicting simultaneous writes;
- *after*: follow-up actions once a change or a departure has happened;
- *changes of X are not ...*: which perceptions (zone change, control change, attachment
  change) a change of status X does not produce;
- *exempt*, *exclude*, *look back*, *order*, and checked assertions.

Every change is recorded as an `Event` naming its cause. Each step runs within a budget
(`interpreter.game.budget`: objects visited by selections, changes written, effects and triggers
created); changes that keep causing changes are stopped when they come back to a state they
had ("the rules never settle", naming the blocks involved), or nest too deeply.

`Engine` is the façade: it owns the game, the view it reads it through (`GameView`, which it
extends) and one part per concern, each holding a reference to the engine:
`statements` (`interpreter.engine.statements`), `continuous` (`interpreter.engine.effects`), `committer`
(`interpreter.engine.batches`), `reactions`, `assertions`, `perception`, `triggers`, `priority`
(`interpreter.engine.stack`), `checks`
(`interpreter.engine.state_checks`) and `turns` (see docs/architecture.md, "The engine today").
"""

from __future__ import annotations

from typing import Any

from ...dsl import ast
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from .assertions import Assertions
from .batches import Committer
from .combat import Combat
from ..game.writes import Batch
from ..game.budget import Budget
from ..game.calls import checked, describe
from .effects import ContinuousEffects
from ..game.model import Game
from .perception import Perception
from ..program.program import Program
from .reactions import Reactions
from ..game.refs import MISSING, Known, Obj, PlayerRef
from ..rulebook.loading import Rulebook
from .state_checks import StateChecks
from ..game.store import KEEPS
from .statements import Statements
from ..game.trace import Cause, Event, Trace
from .stack import Priority
from .triggers import Triggers
from .turns import HookLog, Turns
from ..program.selection import Skip
from ..game.errors import RulesError
from .view import GameView

__all__ = ["Engine", "RulesError", "Obj", "PlayerRef", "MISSING"]


def check_arguments(rulebook: Any, game: Any, budget: Any, journal: Any = "game") -> None:
    """`Engine(rulebook, game, budget, journal)` is given a rulebook (or its program), a game,
    a budget (or None) and how much journal to keep, else it fails at once with a
    `DiagnosticError` naming the argument."""
    if journal not in KEEPS:
        raise DiagnosticError(Diagnostic(
            "error", f"Engine(...): the journal argument must be one of {', '.join(map(repr, KEEPS))}, "
            f"not {describe(journal)}",
            Span("Engine", 0, 0, 0, 0), "'game' keeps every change (the trace and undo need it); "
            "'checkpoint' only those since the last step or turn began"))
    if isinstance(rulebook, Program):
        rulebook = rulebook.book
    for name, value, wanted, optional in (("rulebook", rulebook, Rulebook, False), ("game", game, Game, False),
                                          ("budget", budget, Budget, True)):
        if optional and value is None:
            continue
        if not isinstance(value, wanted):
            raise DiagnosticError(Diagnostic(
                "error", f"Engine(...): the {name} argument must be a {wanted.__name__} "
                f"({wanted.__module__}.{wanted.__name__}), not {type(value).__name__}", Span("Engine", 0, 0, 0, 0),
                {"rulebook": "load one with interpreter.api.load(version)",
                 "game": "build one with interpreter.api.game_from_scenario(scenario, book)",
                 "budget": "give an interpreter.game.budget.Budget, e.g. Budget.from_option('256'), or None"}[name]))


class Engine(GameView):
    """Changes a game by the rules: runs blocks and card effects as events, and records them.

    It plays by a `Program` (`interpreter.program.program`): what is worked out once for the rulebook,
    for one backend (`interpreter.program.backends`: generated Python, or the closures that define
    the rules; both leave the same trace, event for event). Given a rulebook, it plays by
    `Program.for_game(rulebook, game)`: the closures on a small board, generated Python on a
    large one (`interpreter.program.program.backend_for`).

    Each step runs within `budget` (`interpreter.game.budget`; None: the default `Budget()`): a
    step begins with `begin_step()`, which the scenario runner calls before each script step
    and `interpreter.play.actions.Actions` before each action.
    Wrong argument types raise `DiagnosticError` at once, naming the argument.

    Every change goes through the game's store (`interpreter.game.store`), whose journal is kept
    for the whole game (`journal="game"`, the default), or only back to the last checkpoint
    (`journal="checkpoint"`: each step and each turn begins with one), so that memory stays
    bounded in long runs.
    """

    @checked(name="Engine")
    def __init__(self, rulebook: Rulebook | Program, game: Game, budget: Budget | None = None, journal: str = "game"):
        check_arguments(rulebook, game, budget, journal)
        program = rulebook if isinstance(rulebook, Program) else Program.for_game(rulebook, game)
        super().__init__(program, game)
        self.store.keep = journal
        self.backend = program.backend  # how bodies and clauses run: closures or generated Python
        # the parts of the engine, each with one concern (they change the game through it)
        self.statements = Statements(self)  # compiling and running statements
        self.continuous = ContinuousEffects(self)  # creating and ending continuous effects
        self.committer = Committer(self)  # committing a batch's writes together
        self.reactions = Reactions(self)  # `as` and `after` clauses: reactions to changes
        self.assertions = Assertions(self)  # checked assertions
        self.perception = Perception(self)  # what the game perceives of a batch's changes
        self.triggers = Triggers(self)  # triggered abilities: collecting them, choosing their targets
        self.priority = Priority(self)  # the stack and priority: putting objects there, resolving them
        self.checks = StateChecks(self)  # state checks and settling rounds
        self.turns = Turns(self)  # hooks, turns, cleanup, players leaving
        self.combat = Combat(self)  # attacks, blocks and combat damage
        self.budget = budget if budget is not None else Budget()
        self.trace = Trace()
        self.step = 0
        self.depth = 0
        self.batches: list[Batch] = []  # the batches being committed, outermost first
        # while a settling or a run of triggered abilities is watched for repetition (how many
        # are), the causes of each batch committed since the watch began
        self.watching = 0
        self.calls = 0  # verbs being called, one inside another
        self.cause_log: list[frozenset[str]] = []
        self.begin_step()  # (batches committed in this step: `commits`; the step's budget)
        # every batch committed gets the next number; the numbers of those being committed,
        # outermost first (the trace groups events by them)
        self.batch_no = 0
        self.batch_ids: list[int] = []
        # per step (or turn start) being run: attribute -> how often each object's changed, for
        # the assertions that count them (`Program.step_counted`)
        self.hook_logs: list[HookLog] = []

    # ================================================================ budgets

    def begin_step(self) -> None:
        """A new step: no batch committed yet, and its budget (`interpreter.game.budget`) afresh,
        worked out for the game as it is now; a checkpoint of the journal."""
        self.store.checkpoint()
        self.commits = 0
        self.limits = self.budget.limits(len(self.game.objects), len(self.game.players), self.program.compiler.statement_count())
        self.iterations_left = self.limits.iterations
        self.writes_left = self.limits.writes
        self.objects_left = self.limits.objects

    def made(self, span: Any, cause: Cause | None) -> None:
        """Something the rules create (an effect, a delayed or pending trigger, a return) is
        counted against the step's budget."""
        self.objects_left -= 1
        if self.objects_left < 0:
            raise self.over_budget("objects", span, cause)

    # ================================================================ statements

    def run(self, stmt: ast.Node, env: dict, cause: Cause) -> bool:
        """Run a body: a block is a sequence of events; any other statement is one event."""
        if isinstance(stmt, ast.Block):
            changed = False
            for s in stmt.stmts:
                changed |= self.run(s, env, cause)
            return changed
        batch = Batch()
        runner = self.program.compiler.body_runner(stmt, cause)
        self.backend.contest_body(self, batch, runner)
        runner(self, env, batch, cause)
        return self.committer.commit(batch)

    def reachable(self, ref: Any, span, cause: Cause) -> Obj | None:
        """`ref` if it is an object an action can affect; None when it is gone or hidden."""
        if type(ref) is not Obj:
            if ref is None or ref is MISSING or type(ref) is Known:  # (one known as it last was: no longer there, 400.7)
                return None
            raise self.fail("this needs an object", span)
        o = self.game.objects.get(ref[0])
        if o is None or o.zone == "nowhere":
            return None
        if not ref[1] and self.is_hidden(ref.id):
            self.record("fails", ref.id, "is treated as not existing; the action does nothing to it", cause)
            if self.skips is not None and (found := self.hiding.hiding_clause(ref.id)) is not None:
                self.skips.append(Skip(self.step, None, cause, ref.id, "hidden", *found))
            return None
        return ref

    def record(self, kind: str, subject: str, detail: str, cause: Cause, **data) -> Event:
        """Add an event to the trace; one made while a batch is committed carries its number
        (`batch`), and, when that batch was made while another was committed, that one's
        (`follows`)."""
        ids = self.batch_ids
        if ids:
            data["batch"] = ids[-1]
            if len(ids) > 1:
                data["follows"] = ids[-2]
        event = Event(kind, subject, detail, cause, self.step, tuple(x for item in sorted(data.items()) for x in item))
        self.trace.append(event)
        return event

    # ================================================================ the operations its users call

    def settle(self) -> None:
        """Make state checks until nothing changes (`StateChecks.settle`)."""
        self.checks.settle()

    def resolve_triggers(self) -> None:
        """A player receives priority: the triggered abilities waiting go on the stack, and
        players pass until they and what they cause have resolved (`Priority.receive`)."""
        self.priority.receive()

    def legal_target(self, decl: ast.Target, name: str, env: dict) -> bool:
        """Whether object `name` can be the target `decl` declares (`Triggers.legal_target`)."""
        return self.triggers.legal_target(decl, name, env)

    def run_hook(self, kind: str, player: str | None) -> None:
        """Run what is hooked to `kind` (a step, a turn beginning ...), then settle (`Turns.run_hook`)."""
        self.turns.run_hook(kind, player)

    def cleanup(self) -> None:
        """The rest of the turn, the end step and the cleanup step last (`Turns.cleanup`)."""
        self.turns.cleanup()

    def next_turn(self, skipping: tuple[str, ...] | bool = ()) -> None:
        """The next player's turn begins, up to its first step with priority, the upkeep step
        (`Turns.next_turn`); the steps of `skipping` are skipped (True: the untap step)."""
        self.turns.next_turn(("untap step",) if skipping is True else () if skipping is False else tuple(skipping))

    def player_leaves(self, name: str) -> None:
        """Player `name` leaves the game (`Turns.player_leaves`)."""
        self.turns.player_leaves(name)
