"""A program: everything worked out once per rulebook, in one object built from a `Rulebook`.

A `Rulebook` is data: the declarations, blocks and cards of a version, which nothing writes
into. What is worked out from it lives here instead: the analyses of what the rules read and
reach (`index`, `defaults`, `hide_inputs`, `check_inputs`, `static_*` ...); the `compiler`
(`interpreter.program.compiler`: expressions, queries, statements as closures or generated Python)
and the `clauses` (`interpreter.program.clauses`: the tables of `as` and `after` clauses,
assertions and state checks), which compile from the rulebook alone, each entry the first
time a game needs it (the first game under a rulebook pays for it; later ones find it); and
the causes naming its clauses (`trace.rule_cause`). The engine reads a program and never
writes into it.

A program is built for one backend (`interpreter.program.backends`): closures, or generated Python.
`Program.of(book, backend)` gives the program for a rulebook, built once and kept for as long
as the rulebook lives; `Engine(program, game)` plays a game by it. `Engine(book, game)` takes
`Program.for_game(book, game)`: by default (`DEFAULT_BACKEND = "auto"`) the closures for a
game of fewer than `GENERATED_FROM` objects and generated Python from there on, since
writing and compiling the Python costs more than it saves on a small board (see
docs/performance.md, "Which backend").

The tables keyed by a node's `id` keep the node in their entry, so that an id is never reused
while it is cached.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from ...dsl import ast
from ...dsl.checker import observed_only
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from .backends import BACKENDS, Backend
from .clauses import ClauseTables
from .compiled import literal
from .compiler import Compiler
from ..rulebook.loading import ClauseIndex, Rulebook, anchor_of, attributes_read, build_index, local_body

# The backend `Program.of` builds for when none is named: "auto" chooses by the game's size
# (`backend_for`); tests/test_generated.py runs the suite under each backend by naming it here.
DEFAULT_BACKEND = "auto"
# With "auto": games of this many objects or more are played by generated Python, smaller ones
# by the closures (a game of 100 objects plays one untap step in 11 ms by the closures, 25 ms
# by generated Python written for it; at 1,000 the two are even, and ten steps favour the
# generated code two to one). A rulebook's program asked for with no game is generated Python.
GENERATED_FROM = 256
NO_GAME_BACKEND = "generated"  # (what "auto" means for a program asked for with no game)


# The programs built, by (id of the rulebook, backend name). A program holds its rulebook
# weakly; once the rulebook is gone, the entry is dropped the next time a program is built
# (not at once from a weakref callback: what a program frees then would be left for the
# next run of the cycle collector, which may be in the middle of a step).
_PROGRAMS: dict[tuple[int, str], "Program"] = {}


def backend_for(game: Any) -> str:
    """The backend a game is played in when none is named: `DEFAULT_BACKEND`, or with "auto"
    the closures below `GENERATED_FROM` objects and generated Python from there on."""
    if DEFAULT_BACKEND != "auto":
        return DEFAULT_BACKEND
    return "generated" if len(game.objects) >= GENERATED_FROM else "closures"


def _drop_dead_programs() -> None:
    """Forget the programs whose rulebooks are gone."""
    for key in [key for key, found in _PROGRAMS.items() if found._book() is None]:
        del _PROGRAMS[key]


def _bad_call(message: str, hint: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", f"Program.of(...): {message}", Span("Program.of", 0, 0, 0, 0), hint))


class Program:
    """What the engine works out once per rulebook, for one backend (see the module's doc)."""

    @classmethod
    def for_game(cls, book: Rulebook, game: Any, backend: str | None = None) -> "Program":
        """The program to play `game` by under `book`: in `backend` if one is named, else in
        the one `backend_for(game)` chooses."""
        return cls.of(book, backend_for(game) if backend is None else backend)

    @classmethod
    def of(cls, book: Rulebook, backend: str | None = None) -> "Program":
        """The program for `book` in `backend` ("generated" or "closures"; None: the default,
        `DEFAULT_BACKEND`, which "auto" makes generated Python when no game is given), built
        the first time it is asked for."""
        name = backend
        if name is None:
            name = NO_GAME_BACKEND if DEFAULT_BACKEND == "auto" else DEFAULT_BACKEND
        if not isinstance(book, Rulebook):
            raise _bad_call(f"the rulebook argument must be a Rulebook, not {type(book).__name__}",
                            "load a rulebook with interpreter.api.load(version)")
        if name not in BACKENDS:
            raise _bad_call(f"no backend named {name!r}",
                            "the backends are " + ", ".join(repr(b) for b in BACKENDS) + " (None: the default)")
        key = (id(book), name)
        found = _PROGRAMS.get(key)
        if found is None or found._book() is not book:
            _drop_dead_programs()
            found = _PROGRAMS[key] = cls(book, BACKENDS[name]())
        return found

    def __init__(self, book: Rulebook, backend: Backend):
        # (held weakly: `Program.of` keeps the program while the rulebook lives, not longer)
        self._book = weakref.ref(book)
        self.backend = backend
        self.causes: dict[int, tuple[ast.Node, Any]] = {}  # clause -> its Cause (trace.rule_cause)
        self.local_checks: dict[int, tuple[ast.Node, bool]] = {}  # local_check
        # what runs: the compiled expressions, queries and statements, and the clause tables
        self.compiler = Compiler(self)
        self.clauses = ClauseTables(self)

    @property
    def book(self) -> Rulebook:
        """The rulebook the program was built from (the engines playing by it keep it alive)."""
        book = self._book()
        if book is None:  # (an engine keeps its rulebook alive: only a program kept apart sees this)
            raise RuntimeError(f"{self!r}: its rulebook is gone")
        return book

    def __repr__(self) -> str:
        book = self._book()
        return f"<Program of {book.version.id if book is not None else 'a rulebook gone'} ({self.backend.name})>"

    # ---------------------------------------------------------------- analyses of the rules

    @functools.cached_property
    def defaults(self) -> dict[str, Any]:
        """Each declared status's default value."""
        return {name: literal(decl.default) for name, decl in self.book.statuses.items()}

    @functools.cached_property
    def reference_statuses(self) -> frozenset[str]:
        """The statuses whose values name players or objects (read back as references)."""
        return frozenset(name for name, decl in self.book.statuses.items() if decl.type in ("player", "object"))

    @functools.cached_property
    def enum_values(self) -> dict[str, tuple]:
        """For each enum status, its values other than the default (which objects store by
        leaving the status out)."""
        defaults = self.defaults
        return {name: tuple(v for v in decl.values if v != defaults[name])
                for name, decl in self.book.statuses.items() if decl.type == "enum"}

    @functools.cached_property
    def index(self) -> ClauseIndex:
        """The rulebook's clauses gathered by kind (`rulebook.build_index`)."""
        return build_index(self.book.rules)

    @functools.cached_property
    def observed_only(self) -> dict[str, ast.ObserveDecl]:
        """What the rulebook observes and keeps no other way (`dsl.checker.observed_only`): read
        through its observation wherever it is read."""
        return observed_only(self.book.observations, self.book.statuses)

    @functools.cached_property
    def observed_watched(self) -> dict[str, frozenset[str]]:
        """Of `observed_only`, the names a card's triggered ability watches change (`when
        this.phase becomes in`), each with the attributes its observation reads: a batch that
        writes one of them may change what a player sees (`observing.seen_before`)."""
        watched = {e.trigger.change.attr for c in self.book.cards.values() for e in c.entries
                   if isinstance(e, ast.Triggered) and isinstance(e.trigger, ast.OnChange)}
        return {name: frozenset().union(*(attributes_read(n) for n in [*(c.cond for c in decl.cases),
                                                                       *(c.value for c in decl.cases), decl.default]))
                for name, decl in self.observed_only.items() if name in watched}

    @functools.cached_property
    def static_cards(self) -> frozenset[str]:
        """Cards with static abilities: touching one of them may change how other objects look."""
        return frozenset(c.name for c in self.book.cards.values() if any(isinstance(e, ast.Static) for e in c.entries))

    @functools.cached_property
    def triggered_cards(self) -> frozenset[str]:
        """Cards with abilities that trigger on events: only their objects' events are looked at
        for triggers (an ability that triggers as a step begins is not one: `step_triggers`)."""
        return frozenset(c.name for c in self.book.cards.values()
                         if any(isinstance(e, ast.Triggered) and not isinstance(e.trigger, ast.OnStep) for e in c.entries))

    @functools.cached_property
    def watching_cards(self) -> dict[str, tuple[ast.Triggered, ...]]:
        """The cards with abilities that trigger on any object's events (`when x ...`, a name
        other than `this`), each with those abilities in the order the card lists them."""
        found: dict[str, tuple[ast.Triggered, ...]] = {}
        for card in self.book.cards.values():
            for e in card.entries:
                if isinstance(e, ast.Triggered) and not isinstance(e.trigger, ast.OnStep) and ast.trigger_var(e.trigger) != "this":
                    found[card.name] = found.get(card.name, ()) + (e,)
        return found

    @functools.cached_property
    def step_triggers(self) -> dict[str, dict[str, tuple[ast.Triggered, ...]]]:
        """For each step, the cards with abilities that trigger as it begins (`at beginning of
        STEP of ...`), each with those abilities in the order the card lists them. Only the
        steps of the turn in which players get priority (as the checker allows) have any."""
        found: dict[str, dict[str, tuple[ast.Triggered, ...]]] = {}
        turn = self.book.turn
        steps = {step for step in turn.steps if step not in turn.no_priority}
        for card in self.book.cards.values():
            for e in card.entries:
                if isinstance(e, ast.Triggered) and isinstance(e.trigger, ast.OnStep) and e.trigger.step in steps:
                    by_card = found.setdefault(e.trigger.step, {})
                    by_card[card.name] = by_card.get(card.name, ()) + (e,)
        return found

    @functools.cached_property
    def static_anchors(self) -> dict[str, frozenset[str | None]]:
        """For each card with static abilities, what each one is anchored on (see `statics`)."""
        return {c.name: frozenset(anchor_of(e) for e in c.entries if isinstance(e, ast.Static))
                for c in self.book.cards.values() if c.name in self.static_cards}

    @functools.cached_property
    def static_attrs(self) -> frozenset[str]:
        """Every attribute a static ability reads: a change to one may change what it reaches."""
        return frozenset(a for c in self.book.cards.values() for e in c.entries if isinstance(e, ast.Static)
                         for a in attributes_read(e))

    @functools.cached_property
    def static_reach(self) -> frozenset[str]:
        """The attributes a change to which may change what a static ability reaches: those
        they read, and zone (see `Statics.touched`)."""
        return self.static_attrs | {"zone"}

    @functools.cached_property
    def static_raises(self) -> frozenset[str]:
        """The characteristics (power, toughness) that static abilities can only raise: every
        `gets +P/+T` of a static ability adds nothing negative to it. While no effect exists
        and an object has no counters, its value is then at least the printed one (613.4c:
        the printed value, then what static abilities add), which can decide a comparison
        without working out what they give (`codegen.Emitter.bounded`)."""
        pumps = [n for c in self.book.cards.values() for e in c.entries if isinstance(e, ast.Static)
                 for n in e.walk() if isinstance(n, ast.Pump)]
        return frozenset(attr for attr in ("power", "toughness") if all(getattr(n, attr) >= 0 for n in pumps))

    @functools.cached_property
    def static_grants(self) -> bool:
        """Does any static ability grant a keyword? Then keyword indexes can't be trusted alone."""
        return bool(self.static_granting_cards)

    @functools.cached_property
    def static_granting_cards(self) -> frozenset[str]:
        """The cards with a static ability that grants a keyword: while no object of one is in
        the game, keywords are the printed ones and those resolved effects grant."""
        return frozenset(c.name for c in self.book.cards.values() for e in c.entries
                         if isinstance(e, ast.Static) and any(isinstance(n, ast.Grant) for n in e.walk()))

    @functools.cached_property
    def sight_follows_writes(self) -> bool:
        """True when whether the game sees an object changes only when the object itself is
        written something a hide rule reads (or an effect starts or ends): the hide rules look
        only at their own object, and at nothing a static ability changes."""
        by_statics = {"power", "toughness", "keywords"}
        return self.local_effects and not (self.static_cards and by_statics & self.hide_inputs)

    @functools.cached_property
    def local_effects(self) -> bool:
        """True when hide rules look only at the object itself (`x.status`), so that a change to
        one object can change only its own visibility (and others' looks only via static abilities)."""
        for _rule, hide in self.index.hides:
            for n in hide.cond.walk():
                if isinstance(n, ast.Attr) and not (isinstance(n.obj, ast.Name) and n.obj.id == hide.var):
                    return False
                if isinstance(n, ast.Count):
                    return False
        for card in self.book.cards.values():
            for entry in card.entries:
                if isinstance(entry, ast.Static):
                    allowed = {"this", "you"} | {n.var for n in entry.walk() if isinstance(n, ast.Each)}
                    if any(isinstance(n, ast.Count) or isinstance(n, ast.Name) and n.id not in allowed
                           and n.id not in ("none", "true", "false") for n in entry.walk() if not isinstance(n, ast.Each)):
                        return False
        return True

    @functools.cached_property
    def hide_inputs(self) -> frozenset[str]:
        """The attributes of an object a write to which may change whether a hide rule hides it."""
        return frozenset({"zone"}.union(*(attributes_read(hide.cond) for _rule, hide in self.index.hides)))

    @functools.cached_property
    def check_inputs(self) -> frozenset[str]:
        """The attributes a write to which may change what a state check made again only for
        changed objects (a local one) finds: those the checks read, what hide rules and static
        abilities read, what characteristics are worked out from, and zone and attachment."""
        names: set[str] = {"zone", "attached_to", "controller"} | set(self.static_attrs)
        names |= self.hide_inputs
        for _rule, during in self.index.hooks.get("state check", ()):
            names |= attributes_read(during.body)
        if names & {"power", "toughness", "keywords", "summoning_sick"}:
            names.add("counters")
        return frozenset(names)

    @functools.cached_property
    def always_asserted(self) -> tuple:
        """The `assert always` clauses, (rule, clause) each: conditions every permanent on
        the battlefield meets in every state."""
        return tuple((rule, clause) for rule, clause in self.index.assertions if isinstance(clause, ast.AssertAlways))

    @functools.cached_property
    def always_local_reads(self) -> frozenset[str] | None:
        """The stored attributes the `assert always` conditions read, when each reads nothing
        but constants and those of its permanent and of what that is attached to (`x.A`,
        `x.attached_to.A`; A a status or a stored field no effect changes): then a step can
        only have broken one for the permanents whose A it changed and what is attached to
        them. None when a condition reads anything else (every permanent is checked)."""
        stored = set(self.book.statuses) | LOCAL_FIELDS
        reads: set[str] = set()
        for _rule, clause in self.always_asserted:
            if not _reads_locally(clause.cond, clause.var, stored, reads):
                return None
        return frozenset(reads)

    @functools.cached_property
    def step_counted(self) -> frozenset[str]:
        """The attributes whose changes during a step an assertion counts (`S changes at most
        once`, `no change of S` in a skipped step)."""
        return frozenset(clause.attr for _rule, clause in self.index.assertions
                         if isinstance(clause, (ast.AssertOnce, ast.AssertSkipped)))

    def local_check(self, body: ast.Node) -> bool:
        """Can a state check be made again only for changed objects? Yes when it is one
        `each x where ...` that reads only x, what x is attached to, and x's controller."""
        known = self.local_checks.get(id(body))
        if known is None:
            known = self.local_checks[id(body)] = (body, local_body(body))
        return known[1]


# Stored fields no continuous effect changes: a condition reading only these (and statuses)
# reads what the journal says changed (`Program.always_local_reads`).
LOCAL_FIELDS = frozenset({"attached_to", "zone", "tapped", "damage", "attacking", "blocking", "token", "entered_turn",
                          "controlled_since", "timestamp"})


def _reads_locally(e: ast.Node, var: str, stored: set[str], reads: set[str]) -> bool:
    """Does `e` read only constants and `var.A` or `var.attached_to.A` (A in `stored`)? The
    attributes it reads go into `reads`."""
    match e:
        case ast.Or(items=items) | ast.And(items=items):
            return all(_reads_locally(item, var, stored, reads) for item in items)
        case ast.Not(item=a):
            return _reads_locally(a, var, stored, reads)
        case ast.Is(left=a, right=b):
            return _reads_locally(a, var, stored, reads) and _reads_locally(b, var, stored, reads)
        case ast.IsA(left=a, type=kind) if kind in ("object", "player"):
            return _reads_locally(a, var, stored, reads)
        case ast.Number() | ast.String():
            return True
        case ast.Name(id=name):
            return name == var or name != "turn"  # (a name other than the permanent's is a constant)
        case ast.Attr(obj=ast.Name(id=name), name=attr) if name == var and attr in stored:
            reads.add(attr)
            return True
        case ast.Attr(obj=ast.Attr(obj=ast.Name(id=name), name="attached_to"), name=attr) if name == var and attr in stored:
            reads.update(("attached_to", attr))
            return True
    return False

