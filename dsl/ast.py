"""The syntax tree of the phasing-rules language.

Every node is a frozen attrs class. Its children are ordinary fields; its location is the
keyword-only field ``span``, which takes no part in equality, so a tree printed and parsed
again compares equal to the original (the printer/parser round trip).
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, Iterator, TypeVar, Union

import attrs

from .diagnostics import NOWHERE, Span


def node(cls):
    """Declare an AST node: frozen, with a location that equality ignores."""
    cls.__annotations__["span"] = Span
    cls.span = attrs.field(default=NOWHERE, eq=False, kw_only=True, repr=False)
    return attrs.frozen(cls, cache_hash=True)


def clause(cls):
    """Declare a clause of a rule block: a node whose last field is its optional label
    (`clause NAME: ...`), the name a variant's `amend` changes it by. The label takes part in
    equality (so the printer's round trip keeps it); what a clause means is read without it."""
    cls.__annotations__["label"] = "str | None"
    cls.label = attrs.field(default=None)
    return node(cls)


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """The fields of a node class that may hold children (all but its location)."""
    return tuple(f.name for f in attrs.fields(cls) if f.name != "span")


_T = TypeVar("_T")


def per_node(fn: Callable[["Node"], _T]) -> Callable[["Node"], _T]:
    """Remember what a pure function of one node gives, by the node's identity, for as long as
    the node lives (nodes are compared by value, which would walk whole trees to hash them;
    the same node object is shared by every rulebook built from one parse). The function's
    result must not be changed by whoever gets it."""
    cache: dict[int, tuple[weakref.ref, Any]] = {}

    def cached(n: "Node") -> _T:
        key = id(n)
        hit = cache.get(key)
        if hit is not None and hit[0]() is n:
            return hit[1]
        value = fn(n)
        cache[key] = (weakref.ref(n, lambda _gone, key=key: cache.pop(key, None)), value)
        return value

    cached.__doc__, cached.__name__, cached.__wrapped__ = fn.__doc__, fn.__name__, fn  # type: ignore[attr-defined]
    cached.results = cache  # type: ignore[attr-defined]  # (id of a node -> (weak reference to it, result))
    return cached


class Node:
    span: Span

    def children(self) -> Iterator["Node"]:
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if isinstance(value, Node):
                yield value
            elif isinstance(value, tuple):
                yield from (v for v in value if isinstance(v, Node))

    def walk(self) -> Iterator["Node"]:
        yield self
        for child in self.children():
            yield from child.walk()


# ------------------------------------------------------------------ expressions


@node
class Name(Node):
    id: str


@node
class Attr(Node):
    obj: "Expr"
    name: str


@node
class Number(Node):
    value: int


@node
class String(Node):
    value: str


@node
class Count(Node):
    """`count(x where C)`; `hidden`: written `including hidden`, it counts objects a hide
    rule hides too (then `cond` may be None: every object)."""

    var: str
    cond: "Expr | None"
    hidden: bool = False


@node
class Add(Node):
    left: "Expr"
    right: "Expr"


@node
class Is(Node):
    left: "Expr"
    right: "Expr"
    negated: bool = False


@node
class IsA(Node):
    left: "Expr"
    type: str
    negated: bool = False


@node
class Has(Node):
    left: "Expr"
    keyword: str


@node
class Visible(Node):
    obj: "Expr"


@node
class Unchanged(Node):
    value: "Expr"


@node
class Compare(Node):
    op: str
    left: "Expr"
    right: "Expr"


@node
class And(Node):
    items: tuple["Expr", ...]


@node
class Or(Node):
    items: tuple["Expr", ...]


@node
class Not(Node):
    item: "Expr"


Expr = Union[Name, Attr, Number, String, Count, Add, Is, IsA, Has, Visible, Unchanged, Compare, And, Or, Not]

# ------------------------------------------------------------------ durations


@node
class UntilEndOfTurn(Node):
    pass


@node
class UntilNextTurn(Node):
    player: str


@node
class UntilNextStep(Node):
    """`until next STEP of P`: the effect lasts until that step of P's turn next begins."""

    step: str
    player: str


@node
class ForAsLongAs(Node):
    cond: Expr


@node
class UntilLeaves(Node):
    obj: str


Duration = Union[UntilEndOfTurn, UntilNextTurn, UntilNextStep, ForAsLongAs, UntilLeaves]

# ------------------------------------------------------------------ statements


@node
class Block(Node):
    stmts: tuple["Stmt", ...]


@node
class Simultaneously(Node):
    stmts: tuple["Stmt", ...]


@node
class Each(Node):
    """`each x where C: body`; `every_zone`: `each object`, beyond the battlefield; `hidden`:
    written `including hidden`, it selects objects a hide rule hides too (then `cond` may be
    None: every object)."""

    var: str
    cond: Expr | None
    body: "Stmt"
    every_zone: bool = False
    hidden: bool = False


@node
class If(Node):
    cond: Expr
    body: "Stmt"


@node
class Assign(Node):
    var: str
    attr: str
    value: Expr


@node
class Set(Node):
    assigns: tuple[Assign, ...]


@node
class Attach(Node):
    obj: Expr
    to: Expr


@node
class Unattach(Node):
    obj: Expr


@node
class Tap(Node):
    obj: Expr


@node
class Untap(Node):
    obj: Expr


@node
class RemoveFromCombat(Node):
    obj: Expr


@node
class RemoveDamage(Node):
    obj: Expr


@node
class Destroy(Node):
    obj: Expr


@node
class Move(Node):
    obj: Expr
    zone: str
    duration: Duration | None = None


@node
class Cease(Node):
    obj: Expr


@node
class EndTracking(Node):
    obj: Expr


@node
class EndUntilEndOfTurn(Node):
    pass


@node
class EndUntilNextTurn(Node):
    player: Expr


@node
class EndFailed(Node):
    pass


@node
class EndLimited(Node):
    """End the effects with a limited duration that affect an object."""

    obj: Expr


@node
class LoseDelayed(Node):
    """Delayed triggered abilities made so far no longer reach an object: where one refers to
    it, that reference now finds nothing, so its actions on it do nothing."""

    obj: Expr


@node
class EndControl(Node):
    player: Expr


@node
class Delayed(Node):
    hook: str
    body: "Stmt"


@node
class DealDamage(Node):
    amount: int
    obj: Expr


@node
class Pump(Node):
    obj: Expr
    power: int
    toughness: int
    duration: Duration | None = None


@node
class SetBase(Node):
    obj: Expr
    power: int
    toughness: int
    duration: Duration | None = None


@node
class Grant(Node):
    obj: Expr
    keyword: str
    duration: Duration | None = None


@node
class GainControl(Node):
    player: Expr
    obj: Expr
    duration: Duration | None = None


@node
class Draw(Node):
    player: Expr
    amount: Expr


@node
class GainLife(Node):
    player: Expr
    amount: Expr


@node
class AddCounters(Node):
    amount: int
    kind: str
    obj: Expr


@node
class RemoveCounters(Node):
    """`remove N KIND counters from x`: as many as it has, N at most (122.8)."""

    amount: int
    kind: str
    obj: Expr


@node
class AttackWith(Node):
    obj: Expr


@node
class CombatDamage(Node):
    """`deal combat damage`: the attacking and blocking creatures deal their combat damage, all
    at once (510.1-510.2), as the combat damage step's turn-based action; in a first combat
    damage step (510.4) only those with first strike or double strike."""


@node
class ExtraSteps(Node):
    """`add extra STEP, ...`: steps or phases (a phase with its steps) added to this turn right
    after the step or phase it is in, in the order written (500.8)."""

    steps: tuple[str, ...]


@node
class Call(Node):
    verb: str
    args: tuple[Expr, ...]


Stmt = Union[
    Block, Simultaneously, Each, If, Set, Attach, Unattach, Tap, Untap, RemoveFromCombat, RemoveDamage,
    Destroy, Move, Cease, EndTracking, EndUntilEndOfTurn, EndUntilNextTurn, EndFailed, EndLimited, LoseDelayed, EndControl, Delayed,
    DealDamage, Pump, SetBase, Grant, GainControl, Draw, GainLife, AddCounters, RemoveCounters, AttackWith, CombatDamage, ExtraSteps, Call,
]

# ------------------------------------------------------------------ rule blocks


@node
class Hook(Node):
    kind: str  # a step or phase the turn declares ("untap step"), or "beginning of turn", "leaving the game", "turn would begin", "state check"
    var: str | None = None


@node
class Change(Node):
    var: str
    attr: str
    value: Expr
    cond: Expr | None = None
    old: Expr | None = None  # "becomes V from W": only changes away from W


@node
class LeavesEvent(Node):
    var: str


Event = Union[Change, LeavesEvent]


@clause
class Hide(Node):
    var: str
    cond: Expr


@clause
class During(Node):
    hook: Hook
    body: Stmt


@clause
class AsClause(Node):
    change: Change
    body: Stmt


@clause
class After(Node):
    event: Event
    body: Stmt


@clause
class Prefer(Node):
    attr: str
    value: Expr


@clause
class NotPerceived(Node):
    attr: str
    kinds: tuple[str, ...]
    old: Expr | None = None  # only changes away from this value


@clause
class Exempt(Node):
    var: str
    rule: str
    cond: Expr


@clause
class Exclude(Node):
    var: str
    cond: Expr


@clause
class Lookback(Node):
    change: Change


@clause
class Order(Node):
    hook: str
    rules: tuple[str, ...]


@clause
class AssertAfter(Node):
    event: Event
    cond: Expr


@clause
class AssertOnce(Node):
    hook: Hook
    attr: str


@clause
class AssertSkipped(Node):
    hook: Hook
    attr: str


@clause
class AssertAlways(Node):
    """`assert always x: COND`: every permanent x on the battlefield, seen or not, meets COND
    in every state of a game; a state a game starts from (which no rule made) is checked."""

    var: str
    cond: Expr


@clause
class ForbidAttack(Node):
    """`forbid attack by a where COND`: a creature for which COND holds cannot be declared as an
    attacker (508.1c). In a card, only while its permanent is one the game sees."""

    var: str
    cond: Expr


@clause
class ForbidBlock(Node):
    """`forbid block of a by b where COND`: the creature `b` cannot be declared as a blocker of the
    attacking creature `a` while COND holds (509.1b). In a card, only while its permanent is one
    the game sees."""

    attacker: str
    blocker: str
    cond: Expr


Forbid = Union[ForbidAttack, ForbidBlock]


@clause
class SkipStep(Node):
    """`skip STEP of P where COND`: the step is skipped when it would begin with COND holding
    (P: the active player), as 508.8 skips the declare blockers and combat damage steps of a
    combat with no attackers."""

    hook: Hook
    cond: Expr

Clause = Union[Hide, During, AsClause, After, Prefer, NotPerceived, Exempt, Exclude, Lookback, Order, AssertAfter, AssertOnce,
               AssertSkipped, AssertAlways, ForbidAttack, ForbidBlock, SkipStep]
ASSERTIONS = (AssertAfter, AssertOnce, AssertSkipped, AssertAlways)


@node
class Rule(Node):
    id: str
    slug: str
    summary: str
    clauses: tuple[Clause, ...]

    @property
    def kind(self) -> str:
        """"definition" (no clauses: its behaviour lives in another block), "assertion" (only
        checked consequences of other blocks) or "operative"."""
        if not self.clauses:
            return "definition"
        if all(isinstance(c, ASSERTIONS) for c in self.clauses):
            return "assertion"
        return "operative"


# ------------------------------------------------------------------ amending a block


@node
class AmendSummary(Node):
    """`summary "..."`: the block's summary, replaced."""

    summary: str


@node
class ReplaceClause(Node):
    """`replace clause LABEL: CLAUSE`: the clause labelled LABEL, replaced in its place
    (`clause` carries the label)."""

    clause: Clause


@node
class AddClause(Node):
    """`add clause LABEL: CLAUSE`: a new clause after the block's others (`clause` carries the label)."""

    clause: Clause


@node
class DropClause(Node):
    """`drop clause LABEL`: the clause labelled LABEL, removed."""

    label: str


AmendEntry = Union[AmendSummary, ReplaceClause, AddClause, DropClause]


@node
class Amend(Node):
    """`amend BLOCK { ... }`: changes to one inherited block (named by slug or rule id),
    made in the rulebook that inherits it; the block keeps its id and slug."""

    block: str
    entries: tuple[AmendEntry, ...]


# ------------------------------------------------------------------ vocabulary and versions


@node
class TurnPhase(Node):
    """A phase of the turn and its steps in order; a phase with none (a main phase) is a point
    of the turn itself, named by the phase's name."""

    name: str
    steps: tuple[str, ...] = ()

    @property
    def points(self) -> tuple[str, ...]:
        """The points of the turn this phase has: its steps, or itself."""
        return self.steps or (self.name,)


@node
class TurnStructure(Node):
    """`turn { ... }`: the phases of a turn in order with their steps (500.1), the steps in
    which no player receives priority (502.4), and those in which players receive it only once
    something has triggered (514.3a)."""

    phases: tuple[TurnPhase, ...]
    no_priority: tuple[str, ...] = ()
    after_triggers: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()

    @property
    def steps(self) -> tuple[str, ...]:
        """Every point of the turn in order: each step, and each phase without steps."""
        return tuple(point for phase in self.phases for point in phase.points)

    @property
    def main_phases(self) -> tuple[str, ...]:
        """The phases without steps (505.1: the main phases), in order."""
        return tuple(part.name for part in self.phases if not part.steps)

    def phase_of(self, step: str) -> str | None:
        return next((phase.name for phase in self.phases if step in phase.points), None)


@node
class ZoneDecl(Node):
    """A zone a version adds. `keeps` names what an object keeps moving in or out ("all": it stays the same object)."""

    name: str
    keeps: tuple[str, ...]
    cites: tuple[str, ...] = ()


@node
class ObserveCase(Node):
    """`VALUE where COND,` in an `observe` declaration."""

    value: Expr
    cond: Expr


@node
class ObserveDecl(Node):
    """`observe NAME of x: V where C, ..., otherwise D`: what a player sees of a permanent as
    NAME, read from how this rulebook keeps its state (the 2005 rules keep a phased-out
    permanent in a zone of its own; a player sees it on the battlefield, phased out). Read by a
    scenario's expectations and by `phasing diff`, never by rule blocks, which read the state."""

    name: str
    var: str
    cases: tuple[ObserveCase, ...]
    default: Expr
    cites: tuple[str, ...] = ()


@node
class StatusDecl(Node):
    name: str
    type: str  # "enum", "bool", "player", "object"
    values: tuple[str, ...]
    default: Expr
    cites: tuple[str, ...] = ()


@node
class VerbDecl(Node):
    name: str
    params: tuple[str, ...]
    cites: tuple[str, ...]
    body: tuple[Stmt, ...]


@node
class Section(Node):
    rule: str
    letters: tuple[str, ...]


@node
class Renumber(Node):
    """`renumber OLD as NEW` in a manifest: an inherited section (every block numbered OLD
    followed by a letter) or block numbered OLD takes the number NEW."""

    old: str
    new: str


@node
class Drop(Node):
    """`drop NAME` in a manifest: an inherited block (by slug or rule id), verb or status left
    out; a node of its own so that what is wrong with it is reported where it is written."""

    name: str


@node
class Extends(Node):
    """`extends NAME` in a manifest: the version or variant this one is built on, a node of its
    own so that a name that names nothing is reported where it is written."""

    name: str


@node
class Version(Node):
    """A version manifest (`kind="version"`, named by its CR date) or a variant (named freely).
    `extends` is the name in its `extends` clause (None without one)."""

    id: str
    title: str | None
    extends_clause: Extends | None
    sections: tuple[Section, ...]
    notes: tuple[str, ...]
    renumbers: tuple[Renumber, ...] = ()
    drops: tuple[Drop, ...] = ()
    kind: str = "version"
    # for a version rebuilt from other sources than its own text: what was rebuilt, and from what
    reconstructed: str | None = None

    @property
    def extends(self) -> str | None:
        return None if self.extends_clause is None else self.extends_clause.name


# ------------------------------------------------------------------ cards


@node
class OnEnters(Node):
    var: str
    cond: Expr | None = None  # (`and COND`: only objects it holds of)


@node
class OnLeaves(Node):
    var: str
    cond: Expr | None = None  # (`and COND`: only objects it holds of)


@node
class OnAttached(Node):
    var: str
    cond: Expr | None = None  # (`and COND`: only objects it holds of)


@node
class OnUnattached(Node):
    var: str
    cond: Expr | None = None  # (`and COND`: only objects it holds of)


@node
class OnTargeted(Node):
    """`NAME becomes the target of a spell` (`by`: "spell", "ability" or "spell or ability"):
    as a spell or ability targeting it is put on the stack (601.2c, 603.3d)."""

    var: str
    by: str
    cond: Expr | None = None


@node
class OnBlocks(Node):
    """`NAME blocks OTHER`: NAME is declared as a blocker of the attacking creature OTHER (509.3a)."""

    var: str
    other: str
    cond: Expr | None = None


@node
class OnBlocked(Node):
    """`NAME becomes blocked by OTHER`: the attacking creature NAME becomes blocked by OTHER, once
    for each creature declared as its blocker (509.3d)."""

    var: str
    other: str
    cond: Expr | None = None


@node
class OnChange(Node):
    change: Change


def trigger_var(trigger: Node) -> str:
    """The name a card's trigger watches: `this` (its own permanent), or another, bound to the
    object of any event that fits."""
    return trigger.change.var if isinstance(trigger, OnChange) else getattr(trigger, "var", "this")


@node
class OnStep(Node):
    """`at beginning of STEP of you` (`player` None: the step of the permanent's controller) or
    `at beginning of STEP of each player P` (every player's, with `P` bound to the player whose
    step it is). `step` is a step of the rulebook's turn; the checker allows only those in which
    players get priority."""

    step: str
    player: str | None = None


Trigger = Union[OnEnters, OnLeaves, OnAttached, OnUnattached, OnTargeted, OnBlocks, OnBlocked, OnChange, OnStep]


@node
class Types(Node):
    names: tuple[str, ...]


@node
class PT(Node):
    power: int
    toughness: int


@node
class Keywords(Node):
    names: tuple[str, ...]


@node
class Target(Node):
    var: str
    cond: Expr


@node
class Static(Node):
    body: Stmt


@node
class Spell(Node):
    body: Stmt


@node
class Triggered(Node):
    """`when TRIGGER: BODY`. The trigger's name is `this` (an event of the permanent the ability
    is on) or another name, bound to the object the event happened to (any object's event,
    with `and COND` saying which). `condition`: an intervening `if` (603.4), checked as the
    event happens and again as the ability resolves."""

    trigger: Trigger
    body: Stmt
    condition: Expr | None = None
    one_or_more: bool = False  # (`when one or more ...`: once for every batch of events that fit, 603.2c)


@node
class Partial(Node):
    """A part of the real card's text that this card does not model, in the library's own
    words. It changes nothing the card does; `phasing cards` reports it."""

    text: str


@node
class ManaCost(Node):
    """Mana symbols of a cost, as Oracle text writes them without braces: ("2", "U")."""

    symbols: tuple[str, ...]


@node
class TapCost(Node):
    """{T}: tapping the permanent whose ability it is (107.5)."""


@node
class LifeCost(Node):
    amount: int


@node
class OtherCost(Node):
    """Words the language has no cost part for: read so the checker can name them."""

    words: tuple[str, ...]


CostPart = Union[ManaCost, TapCost, LifeCost, OtherCost]


@node
class Activated(Node):
    """An activated ability (602): its cost, its own targets, and what it does as it resolves."""

    cost: tuple[CostPart, ...]
    targets: tuple[Target, ...]
    body: Stmt


CardEntry = Union[Types, PT, Keywords, Target, Static, Spell, Triggered, Partial, Activated, ForbidAttack, ForbidBlock]


@node
class Card(Node):
    name: str
    entries: tuple[CardEntry, ...]


# ------------------------------------------------------------------ scenarios


@node
class Flag(Node):
    name: str


@node
class PropPlayer(Node):
    key: str
    player: str


@node
class PropAttached(Node):
    target: str


@node
class PropCounter(Node):
    key: str
    kind: str
    amount: int


@node
class PropStatus(Node):
    name: str
    value: Expr


@node
class PropDamage(Node):
    amount: int


@node
class PropEntered(Node):
    turn: int


Prop = Union[Flag, PropPlayer, PropAttached, PropCounter, PropStatus, PropDamage, PropEntered]


@node
class NextTurn(Node):
    skipping: tuple[str, ...] = ()  # (steps of the turn that are skipped: `next turn skipping untap step`)
    hold: bool = False  # (the abilities that trigger wait on the stack for a response)


@node
class Cast(Node):
    card: str
    player: str
    targets: tuple[str, ...] = ()
    hold: bool = False


@node
class Activate(Node):
    """A player activates ability `ability` (numbered from 1 in the order the card writes them)
    of the permanent `name`."""

    name: str
    player: str
    ability: int = 1
    targets: tuple[str, ...] = ()
    hold: bool = False


@node
class Choose(Node):
    """Targets chosen in advance for the next triggered ability of `card` that needs them (603.3d)."""

    card: str
    targets: tuple[str, ...]


@node
class OrderStep(Node):
    """The order chosen in advance for triggered abilities of these cards that one player puts
    on the stack together (603.3b): the first named resolves first."""

    cards: tuple[str, ...]


@node
class Resolve(Node):
    hold: bool = False  # (the abilities it triggers wait on the stack for a response)


@node
class AttackStep(Node):
    names: tuple[str, ...]
    hold: bool = False  # (the abilities the attack triggers wait on the stack for a response)
    defenders: tuple[str | None, ...] = ()  # (what each attacks, `at NAME`: None, the next opponent)


@node
class BlockStep(Node):
    """`declare blockers: b blocks a, ...`: the defending players' blockers, each with the
    attacker it blocks (509.1a)."""

    pairs: tuple[tuple[str, str], ...]
    hold: bool = False


@node
class ToStep(Node):
    """`to STEP`: the game goes on, through the steps of this turn between, to the beginning of
    STEP, where the active player receives priority."""

    step: str
    hold: bool = False


@node
class PlayerLeaves(Node):
    player: str


@node
class MoveStep(Node):
    name: str
    zone: str


@node
class CleanupStep(Node):
    pass


@node
class Expect(Node):
    cond: Expr
    versions: tuple[str, ...] = ()  # only under these versions or variants; empty: under all


@node
class ExpectError(Node):
    message: str


Step = Union[NextTurn, Cast, Activate, Choose, OrderStep, Resolve, AttackStep, BlockStep, ToStep, PlayerLeaves, MoveStep, CleanupStep,
             Expect, ExpectError]


@node
class ScenarioCites(Node):
    rules: tuple[str, ...]


@node
class ScenarioRules(Node):
    versions: tuple[str, ...]


@node
class ScenarioRange(Node):
    """Every version from one CR date to another (or to the newest), both included."""

    first: str
    last: str | None = None


@node
class Players(Node):
    names: tuple[str, ...]


@node
class TurnDecl(Node):
    number: int
    player: str


@node
class PermanentDecl(Node):
    name: str
    card: str
    props: tuple[Prop, ...]


@node
class Script(Node):
    steps: tuple[Step, ...]


ScenarioEntry = Union[ScenarioCites, ScenarioRules, ScenarioRange, Players, TurnDecl, PermanentDecl, Script]


@node
class Scenario(Node):
    name: str
    entries: tuple[ScenarioEntry, ...]


Item = Union[Version, ZoneDecl, ObserveDecl, StatusDecl, VerbDecl, TurnStructure, Rule, Card, Scenario, Amend]


@node
class Module(Node):
    items: tuple[Item, ...]


def conjuncts(expr: Node | None) -> tuple[Node, ...]:
    """The parts of a condition joined by `and` (the condition itself when it is not one;
    none for no condition)."""
    if expr is None:
        return ()
    return expr.items if isinstance(expr, And) else (expr,)


def names_in(expr: Node | None) -> set[str]:
    """Every attribute name an expression reads (used to tell which queries name a status)."""
    if expr is None:
        return set()
    return {n.name for n in expr.walk() if isinstance(n, Attr)}
