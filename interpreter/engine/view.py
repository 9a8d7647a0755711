"""What the game looks like to the rules: reading a state, evaluating expressions, querying objects.

`GameView` holds a game and a rulebook and answers questions about the state: an object's
characteristics after continuous effects, whether a hide rule makes the game treat it as not
existing (and then what its last known information says), what an expression evaluates to,
which objects a query selects. Its parts, each holding the view: `selector` (selections,
`interpreter.program.selection`), `hiding` (hide rules, `interpreter.engine.hiding`) and `writer` (objects
replaced, with indexes and caches kept right, `interpreter.engine.writing`). The engine
(`interpreter.engine.engine`) builds on it to change the state.
"""

from __future__ import annotations

import typing
from operator import attrgetter
from typing import Any, Callable, Iterable

from ...dsl import ast
from ...dsl.builtins import PLAYER_ATTRS
from ...dsl.checker import STATIC_HINT, static_statement_problems
from ...dsl.diagnostics import Diagnostic, Span
from ..game.budget import BUDGET_HINT
from ..game.characteristics import characteristics, controller_of, granted_keywords
from ..program.compiled import BEFORE, symbol_value
from ..program.indexes import indexes_of
from ..game.store import store_of
from ..game.errors import RulesError
from ..game.model import PLAIN_FIELDS, Effect, Game, Permanent
from .hiding import Hiding
from .observing import observed
from ..game.refs import FALSY, MISSING, Known, Obj, PlayerRef, obj_ref, player_ref
from ..rulebook.loading import Rulebook
from ..program.selection import Selector, Skip
from .statics import Statics
from ..game.trace import Cause
from .writing import ObjectWriter

if typing.TYPE_CHECKING:
    from ..program.program import Program


# What each budget counts, as an error names it (`interpreter.game.budget`).
BUDGET_UNITS = {"iterations": "objects visited by selections", "writes": "changes written",
                "objects": "effects and triggers created"}


def encloses(outer: Span, inner: Span) -> bool:
    """Does span `outer` hold span `inner`?"""
    return (outer.path == inner.path and outer.line > 0
            and (outer.line, outer.column) <= (inner.line, inner.column) <= (outer.end_line, outer.end_column))


def blame(rulebook: "Rulebook", span: Span | None, cause: Cause | None) -> str:
    """What a statement belongs to, as an error names it: the block it runs for (`cause`),
    else the block, verb or card of `rulebook` whose text holds it."""
    if cause is not None and cause.kind == "rule":
        return f"block {cause.id} {cause.label}".strip()
    if span is not None and span.line:
        for rule in rulebook.rules:
            if encloses(rule.span, span):
                return f"block {rule.id} {rule.slug}"
        for verb in rulebook.verbs.values():
            if encloses(verb.span, span):
                return f"verb {verb.name}"
        for card in rulebook.cards.values():
            if encloses(card.span, span):
                return f"card \"{card.name}\""
    return str(cause) if cause is not None else "the rules"


class GameView:
    """Reads a game under a rulebook (see the module's docstring); the engine extends it."""

    # What the step may still do (`interpreter.game.budget`; the engine sets them for each step):
    # unlimited for a view that only reads.
    iterations_left = writes_left = objects_left = 1 << 62
    limits = None

    # when asked (a list: `interpreter.tools.why`), what selections left out and why (`Skip`s);
    # None, the default, keeps nothing
    skips: list[Skip] | None = None

    def __init__(self, program: Program, game: Game):
        self.program = program  # what is worked out once for the rulebook
        self.rulebook = program.book
        self.clause_index = program.index
        self.game = game
        self.store = store_of(game)  # through which everything in the game is changed
        self._chars: dict[str, dict] = {}
        self._hidden: dict[str, bool] = {}
        self._write_bits: dict[str, int] = {}  # (see write_bits)
        self.compiler = program.compiler  # what compiles expressions, selections and statements
        self.defaults = program.defaults
        # statuses whose values name players or objects, read back as references
        self.reference_statuses = program.reference_statuses
        # enum statuses: the values other than the default (which objects store by leaving it out)
        self.enum_values = program.enum_values
        self.indexes = indexes_of(game, self.defaults)  # (kept by the store, shared by every engine on the game)
        # Objects changed since the last state check settled (None: anything may have changed).
        self.dirty: set[str] | None = None
        self.dirty_scope: set[str] | None = None
        # the parts of the view, each with one concern (they read the game through the view)
        self.selector = Selector(self)
        self.hiding = Hiding(self)
        self.writer = ObjectWriter(self)
        self.store.watched_by(self.writer.restored)  # (an undo of the game, by anyone, reaches this view)
        self.statics = Statics(self)
        self.hide_tests = [(hide.var, self.compiled_expr(hide.cond), self.hiding.status_test(hide.var, hide.cond))
                           for _rule, hide in self.clause_index.hides]
        self._getters: dict[str, Callable[[Permanent, Obj, ast.Node], Any]] = {}
        self._readers: dict[str, Callable[[Any, ast.Node], Any]] = {}

    # ================================================================ errors

    def fail(self, message: str, span: Span | None = None, hint: str | None = None) -> RulesError:
        return RulesError(Diagnostic("error", message, span or Span("<game>", 0, 0, 0, 0), hint))

    def over_budget(self, kind: str, span: Span | None, cause: Cause | None) -> RulesError:
        """The error for a step that goes over its `kind` budget ("iterations", "writes" or
        "objects") at the statement at `span`, run for `cause`."""
        limit = getattr(self.limits, kind, None)
        amount = f"more than {limit:,} {BUDGET_UNITS[kind]}" if limit is not None else BUDGET_UNITS[kind]
        return self.fail(f"{blame(self.rulebook, span, cause)} goes over the {kind} budget: {amount} in one step",
                         span if span is not None and span.line else None, BUDGET_HINT)

    # ================================================================ reading the state

    def obj(self, oid: str) -> Permanent:
        return self.game.objects[oid]

    def invalidate(self, oids: Iterable[str] | None = None) -> None:
        """Forget cached characteristics and visibility: of some objects, or of all of them.

        Touching one object changes how others look only through static abilities (when it
        is a source of one) or through rules that look beyond the object itself; the
        rulebook says whether any of its hide rules or static abilities do.
        """
        if oids is None or not self.program.local_effects:
            self._chars.clear()
            self._hidden.clear()
            self.statics.forget()
            self.dirty = None
            return
        if self.dirty is not None:
            for oid in oids:
                self.dirty.add(oid)
                self.dirty |= self.indexes.attached(oid)
        for oid in oids:
            self._hidden.pop(oid, None)
            self._chars.pop(oid, None)
            o = self.game.objects.get(oid)
            if o is None:
                self._chars.clear()
                self.statics.forget()
                self.dirty = None
                return

    def status_default(self, name: str) -> Any:
        return self.defaults[name]

    def raw(self, oid: str, attr: str) -> Any:
        """The stored value of a writable attribute or status, as a write would compare it."""
        return self.obj(oid).stored(attr, self.defaults)

    def is_hidden(self, oid: str) -> bool:
        """True when a hide rule says the game treats this battlefield object as not existing."""
        cached = self._hidden.get(oid)
        if cached is not None:
            return cached
        hidden = self._hidden[oid] = self.hiding.hidden_by_rules(oid, self.game.objects.get(oid))
        return hidden

    def visible(self, oid: str) -> bool:
        o = self.game.objects.get(oid)
        if o is None or o.zone != "battlefield":
            return False
        hidden = self._hidden.get(oid)  # (is_hidden's cache, read here: this is asked very often)
        return not (self.is_hidden(oid) if hidden is None else hidden)

    def player_in_game(self, name: str) -> bool:
        p = self.game.players.get(name)
        return p is not None and p.in_game

    # ---------------------------------------------------------------- characteristics

    def chars(self, oid: str) -> dict:
        """Controller, power, toughness and keywords after continuous effects."""
        statics = self.statics
        if statics.stale is None or statics.stale:  # (`pending`, written out: this is read very often)
            statics.refresh()  # before the cache is trusted: it drops what contributions changed
        cached = self._chars.get(oid)
        if cached is not None:
            return cached
        contributions = statics.of(oid) if self.visible(oid) else ()
        chars = self._chars[oid] = characteristics(self.game.objects[oid], self.effects_in_order(), contributions)
        return chars

    def collect_static(self, stmt: ast.Node, env: dict, out: dict) -> None:
        match stmt:
            case ast.Block(stmts=stmts):
                for s in stmts:
                    self.collect_static(s, env, out)
            case ast.Each():
                # every object the ability reaches, seen or not: whether it is seen is asked
                # when its characteristics are, so this map need not change when it hides
                for ref in self.selector.select(stmt, env, None, hidden_too=True):
                    self.collect_static(stmt.body, {**env, stmt.var: ref}, out)
            case ast.If():
                if self.truthy(self.eval(stmt.cond, env)):
                    self.collect_static(stmt.body, env, out)
            case ast.Pump():
                ref = self.eval(stmt.obj, env)
                if isinstance(ref, Obj):
                    out[ref.id].append(("pump", (stmt.power, stmt.toughness)))
            case ast.Grant():
                ref = self.eval(stmt.obj, env)
                if isinstance(ref, Obj):
                    out[ref.id].append(("grant", stmt.keyword))
            case _:
                _, message = static_statement_problems(stmt)[0]
                raise self.fail(message, stmt.span, STATIC_HINT)

    def controller(self, oid: str) -> str:
        """The controller alone (layer 2), without working out power and toughness."""
        cached = self._chars.get(oid)
        if cached is not None:
            return cached["controller"]
        return controller_of(self.obj(oid), self.effects_in_order())

    def keywords(self, oid: str) -> tuple[str, ...]:
        """Printed keywords and those granted by resolved effects (when no static ability grants any)."""
        return granted_keywords(self.obj(oid), self.effects_in_order())

    def granting_sources(self) -> bool:
        """Is an object of a card whose static ability grants a keyword in the game (in any
        zone: a superset of the sources that grant one now)?"""
        lookup = self.indexes.lookup
        for name in self.program.static_granting_cards:
            found = lookup("card", name)
            if found is None or found:
                return True
        return False

    def keywords_with_statics(self, oid: str) -> tuple[str, ...]:
        """What a keyword test reads when some static ability of the rulebook grants a keyword:
        the characteristics' keywords once an object of such a card is in the game, else the
        printed ones and those resolved effects grant (`keywords`), no static ability worked out."""
        return self.chars(oid)["keywords"] if self.granting_sources() else self.keywords(oid)

    def effects_in_order(self) -> list[Effect]:
        cached = self._chars.get("\0effects")
        if cached is None:
            cached = self._chars["\0effects"] = sorted(self.game.effects.values(), key=lambda e: e.timestamp)
        return cached

    # ================================================================ expressions

    def truthy(self, value: Any) -> bool:
        return value not in FALSY

    def value_of(self, name: str, env: dict) -> Any:
        """What a name stands for: a variable, else an object, a player or a symbol."""
        return env[name] if name in env else self.resolve_name(name, env)

    def resolve_name(self, name: str, env: dict) -> Any:
        if name in env:
            return env[name]
        if name in self.game.objects:
            return Obj(name, True)
        if name in self.game.players:
            return PlayerRef(name)
        if name == "turn":
            return self.game.turn
        return symbol_value(name)

    def compiled_expr(self, expr: ast.Node) -> Callable[["GameView", dict], Any]:
        """An expression compiled once per rulebook (`Compiler.compiled_expr`)."""
        return self.compiler.compiled_expr(expr)

    def eval(self, expr: ast.Node, env: dict, before: dict | None = None) -> Any:
        """The value of an expression; `before` holds what `is unchanged` compares with."""
        return self.compiled_expr(expr)(self, env if before is None else {**env, BEFORE: before})

    def same(self, a: Any, b: Any) -> bool:
        if isinstance(a, Obj) and isinstance(b, Obj):
            return a.id == b.id
        if isinstance(a, PlayerRef) and isinstance(b, PlayerRef):
            return a.name == b.name
        if isinstance(a, (Obj, PlayerRef)) or isinstance(b, (Obj, PlayerRef)):
            return False
        return a == b

    def getter(self, name: str) -> Callable[[Permanent, Obj, ast.Node], Any]:
        """How an attribute or status is read off an object, after continuous effects where
        they apply: decided once per name, then `get(object, reference, where)`."""
        known = self._getters.get(name)
        if known is not None:
            return known
        wrap = self._wrap
        if name in self.defaults:
            default = self.defaults[name]
            if name in self.reference_statuses:
                def get(o, ref, where):
                    return wrap(o.get_status(name, default), name, ref)
            else:
                def get(o, ref, where):
                    return o.get_status(name, default)
        elif name == "controller":
            def get(o, ref, where):
                return wrap(self.controller(o.id), name, ref)
        elif name in ("owner", "attached_to"):
            def get(o, ref, where):
                return wrap(getattr(o, name), name, ref)
        elif name == "keywords" and not self.program.static_grants:
            def get(o, ref, where):
                return self.keywords(o.id)
        elif name == "keywords":
            def get(o, ref, where):
                return self.keywords_with_statics(o.id)
        elif name in ("power", "toughness", "keywords"):
            def get(o, ref, where):
                return self.chars(o.id)[name]
        elif name == "entered_this_turn":
            def get(o, ref, where):
                return o.entered_turn == self.game.turn
        elif name == "summoning_sick":
            def get(o, ref, where):
                return o.controlled_since == self.game.turn and "haste" not in self.chars(o.id)["keywords"]
        elif name in ("counters", "stickers"):
            def get(o, ref, where):
                return dict(getattr(o, name))
        elif name in PLAIN_FIELDS:
            field = attrgetter(name)

            def get(o, ref, where):
                return field(o)
        elif name in self.program.observed_only:  # (kept no other way: read through its observation)
            def get(o, ref, where):
                return observed(self, ref, name)
        else:
            def get(o, ref, where):
                raise self.fail(f"objects have no attribute '{name}'", where.span)
        self._getters[name] = get
        return get

    def reader(self, name: str) -> Callable[[Any, ast.Node], Any]:
        """`read(value, name, where)` for one attribute name, with the common case (an object
        the game sees, or one named by a hiding status) worked out in advance (within
        `observing.as_a_player_sees`, the readers of what the rulebook observes)."""
        known = self._readers.get(name)
        if known is not None:
            return known
        game, slow, hidden, get = self.game, self.read, self.is_hidden, self.getter(name)

        def read(value: Any, where: ast.Node) -> Any:
            if type(value) is Obj:
                oid = value[0]
                o = game.objects.get(oid)
                if o is not None and (value[1] or oid not in game.lki.ids or not hidden(oid)):
                    return get(o, value, where)
            return slow(value, name, where)

        self._readers[name] = read
        return read

    def read(self, value: Any, name: str, where: ast.Node) -> Any:
        if type(value) is Obj:  # the common case first
            oid = value.id
            o = self.game.objects.get(oid)
            if o is None:
                return None
            if not value.sees_hidden and oid in self.game.lki and self.is_hidden(oid):
                return self._wrap(self.game.lki[oid].get(name), name, value)
            return self.getter(name)(o, value, where)
        if value is None or value is MISSING:
            return None
        if type(value) is Known:  # (an object read as it last was: 608.2h)
            info = self.game.lki.get(value.id)
            return None if info is None else self._wrap(info.get(name), name, (value.id, False))
        if isinstance(value, PlayerRef):
            p = self.game.players[value.name]
            if name in PLAYER_ATTRS:
                return getattr(p, name)
            if name == "zone":
                return "game" if p.in_game else "outside"
            raise self.fail(f"a player has no attribute '{name}'", where.span)
        if isinstance(value, dict):  # counters.feather
            return value.get(name, 0)
        raise self.fail(f"'{name}' is read from something that is not an object or a player", where.span)

    def _wrap(self, raw: Any, name: str, parent: Obj) -> Any:
        """Stored names become references: players, or objects (seeing hidden objects as `parent` does)."""
        return self.wrap(raw, name, parent[1])

    def wrap(self, raw: Any, name: str, sees_hidden: bool) -> Any:
        """A stored value of attribute `name` as read: a stored name becomes a reference to a
        player or to an object (`sees_hidden`: as one named by a hiding status)."""
        if isinstance(raw, str) and (name in ("controller", "owner", "attached_to") or name in self.reference_statuses):
            if raw in self.game.players:
                return player_ref((raw,))
            return obj_ref((raw, sees_hidden))
        if isinstance(raw, dict):
            return raw
        if name in ("counters", "stickers") and isinstance(raw, tuple):
            return dict(raw)
        return raw

    # ================================================================ selections

    # ================================================================ what selections left out (when asked)

