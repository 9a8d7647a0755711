"""What the game looks like to the rules: reading a state, evaluating expressions, querying objects.

`GameView` holds a game and a rulebook and answers questions about the state: an object's
characteristics after continuous effects, whether a hide rule makes the game treat it as not
existing (and then what its last known information says), what an expression evaluates to,
which objects a query selects. It keeps indexes and caches right as objects are replaced.
The engine (`interpreter.engine`) builds on it to change the state.
"""

from __future__ import annotations

import functools
from operator import attrgetter
from typing import Any, Callable, Iterable, NamedTuple

import attrs

from dsl import ast
from dsl.builtins import OBJECT_ATTRS as BUILTIN_ATTRS, PLAYER_ATTRS
from dsl.diagnostics import Diagnostic, DiagnosticError, Span
from interpreter.budget import BUDGET_HINT
from interpreter.characteristics import LastKnown, characteristics, controller_of, granted_keywords
from interpreter.compiled import BEFORE, Plan, QueryPlan, compile_expr, plan_query, symbol_value
from interpreter.indexes import NOTHING, Indexes
from interpreter.model import Effect, Game, Permanent
from interpreter.refs import MISSING, Obj, PlayerRef, obj_ref, player_ref, stored
from interpreter.rulebook import Rulebook
from interpreter.statics import Statics
from interpreter.trace import Cause
from interpreter.write_bits import ANY, CHECKED, HIDES, REACHES, bits_of


class RulesError(DiagnosticError):
    """A rule set that misbehaves while running: conflicting writes, never settling, a failed assertion."""


FALSY = (None, False, 0, MISSING)
# Object attributes read as they are stored (`GameView.getter`); the others are worked out
# (controller and characteristics after effects, counters as a dictionary) or become references.
PLAIN_FIELDS = frozenset(BUILTIN_ATTRS) - {"controller", "owner", "attached_to", "keywords", "power", "toughness",
                                          "entered_this_turn", "summoning_sick", "counters", "stickers"}


@attrs.frozen(slots=False)
class Query:
    """An `each x where ...` as the interpreter runs it: the index plans that find candidates
    and its compiled conjuncts, and whether it sees hidden objects (it is written `including
    hidden`, or names a hiding status)."""

    each: ast.Each
    plan: QueryPlan
    aware: bool

    @functools.cached_property
    def probe(self) -> Plan | None:
        """The first plan when it is one index lookup (`x.A is v`, A stored and not the
        controller, which effects change): when it finds nothing, nothing matches."""
        plans = self.plan.plans
        if plans and plans[0].kind == "equal" and not plans[0].negated and plans[0].attr != "controller":
            return plans[0]
        return None


def hidden_by_status(o: Permanent, tests: tuple[tuple[str, Any, Any], ...]) -> bool:
    """Whether a hide rule hides battlefield object `o`, when every hide test reads one of its
    statuses (`GameView.stored_hide_tests`)."""
    if o.zone != "battlefield":
        return False
    for name, default, hides in tests:
        if o.get_status(name, default) == hides:
            return True
    return False


# What each budget counts, as an error names it (`interpreter.budget`).
BUDGET_UNITS = {"iterations": "objects visited by selections", "writes": "changes written",
                "objects": "effects and triggers created"}


class Skip(NamedTuple):
    """An object a selection left out, and the clause that made it: `kind` is "hidden" (a
    hide clause: the game treats it as not existing) or "exempt" (an exempt clause of the
    selecting block). `cause`: who ran the selection (None: an expression that counts)."""

    step: int
    each: ast.Each
    cause: Cause | None
    oid: str
    kind: str
    rule: ast.Rule
    clause: ast.Node


def encloses(outer: Span, inner: Span) -> bool:
    """Does span `outer` hold span `inner`?"""
    return (outer.path == inner.path and outer.line > 0
            and (outer.line, outer.column) <= (inner.line, inner.column) <= (outer.end_line, outer.end_column))


class GameView:
    # What the step may still do (`interpreter.budget`; the engine sets them for each step):
    # unlimited for a view that only reads.
    iterations_left = writes_left = objects_left = 1 << 62
    limits = None

    # when asked (a list: `interpreter.why`), what selections left out and why (`Skip`s);
    # None, the default, keeps nothing
    skips: list[Skip] | None = None

    def __init__(self, rulebook: Rulebook, game: Game):
        self.rb = rulebook
        self.ix = rulebook.index
        self.game = game
        self._chars: dict[str, dict] = {}
        self._hidden: dict[str, bool] = {}
        self._write_bits: dict[str, int] = {}  # (see write_bits)
        self.defaults = {name: self.literal(decl.default) for name, decl in rulebook.statuses.items()}
        # statuses whose values name players or objects, read back as references
        self.reference_statuses = {name for name, decl in rulebook.statuses.items() if decl.type in ("player", "object")}
        # enum statuses: the values other than the default (which objects store by leaving it out)
        self.enum_values = {name: tuple(v for v in decl.values if v != self.defaults[name])
                            for name, decl in rulebook.statuses.items() if decl.type == "enum"}
        self.indexes = Indexes(game, self.defaults)
        # Objects changed since the last state check settled (None: anything may have changed).
        self.dirty: set[str] | None = None
        self.dirty_scope: set[str] | None = None
        self.statics = Statics(self)
        self.hide_tests = [(hide.var, self.compiled_expr(hide.cond), self.status_test(hide.var, hide.cond))
                           for _rule, hide in self.ix.hides]
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
        return self.fail(f"{self.blame(span, cause)} goes over the {kind} budget: {amount} in one step",
                         span if span is not None and span.line else None, BUDGET_HINT)

    def blame(self, span: Span | None, cause: Cause | None) -> str:
        """What a statement belongs to, as an error names it: the block it runs for (`cause`),
        else the block, verb or card whose text holds it."""
        if cause is not None and cause.kind == "rule":
            return f"block {cause.id} {cause.label}".strip()
        if span is not None and span.line:
            for rule in self.rb.rules:
                if encloses(rule.span, span):
                    return f"block {rule.id} {rule.slug}"
            for verb in self.rb.verbs.values():
                if encloses(verb.span, span):
                    return f"verb {verb.name}"
            for card in self.rb.cards.values():
                if encloses(card.span, span):
                    return f"card \"{card.name}\""
        return str(cause) if cause is not None else "the rules"

    # ================================================================ reading the state

    def obj(self, oid: str) -> Permanent:
        return self.game.objects[oid]

    def invalidate(self, oids: Iterable[str] | None = None) -> None:
        """Forget cached characteristics and visibility: of some objects, or of all of them.

        Touching one object changes how others look only through static abilities (when it
        is a source of one) or through rules that look beyond the object itself; the
        rulebook says whether any of its hide rules or static abilities do.
        """
        if oids is None or not self.rb.local_effects:
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

    def put(self, oid: str, new: Permanent) -> None:
        """Replace an object (objects are frozen), whatever changed in it, keeping indexes and
        caches right."""
        objects = self.game.objects
        old = objects.get(oid)
        objects[oid] = new
        self.indexes.replace(old, new)
        if self.statics.cards:
            self.statics.touched(oid, old, new, ANY)
        self.invalidate([oid])

    def put_all(self, changes: list[tuple[str, list]]) -> None:
        """Apply a batch's writes: (id, its writes in order) per object, each write a record
        with `attr`, `old` and `value`, none of them a zone, no object new to the game. Each
        object becomes one new object with its writes stored, and indexes and caches are kept
        right."""
        objects, indexes, rb, statics = self.game.objects, self.indexes, self.rb, self.statics
        statuses = rb.statuses
        old_ones, masks = [], []
        bits, work_out = self._write_bits, self.write_bits
        for oid, ws in changes:
            old = objects[oid]
            old_ones.append(old)
            objects[oid] = old.written(ws, statuses)
            mask = 0  # what the object's writes can change, read while they are at hand (`write_bits`)
            for w in ws:
                mask |= bits.get(w.attr) or work_out(w.attr)
            masks.append(mask)
        indexes.move_all(changes)  # every object's, before static abilities read the indexes
        if not rb.local_effects:
            for (oid, _ws), old, mask in zip(changes, old_ones, masks):
                statics.touched(oid, old, objects[oid], mask)
                self.invalidate([oid])
            return
        cards, hidden_by_rules = statics.cards, self.hidden_by_rules
        # when the hide rules read only what objects store, whether each is hidden now is read here
        stored_tests = self.stored_hide_tests() if rb.sight_follows_writes else None
        dirty, hidden, chars, attached = self.dirty, self._hidden, self._chars, indexes.attachments()
        for (oid, _ws), old, mask in zip(changes, old_ones, masks):
            if cards and (mask & REACHES or old.card in cards or objects[oid].card in cards):
                statics.touched(oid, old, objects[oid], mask)  # (it does nothing for any other change)
            # One object changed what it stores; hide rules and static abilities look only at
            # their own object, so nothing else needs forgetting.
            if mask & CHECKED and dirty is not None:
                dirty.add(oid)  # a state check may now find something else: about it, or what is attached to it
                if oid in attached:
                    dirty |= attached[oid]
            if mask & HIDES:  # hidden or not now
                if stored_tests is not None:
                    hidden[oid] = hidden_by_status(objects[oid], stored_tests)
                elif rb.sight_follows_writes:
                    hidden[oid] = hidden_by_rules(oid, objects[oid])
                else:
                    hidden.pop(oid, None)
            chars.pop(oid, None)

    def write_bits(self, attr: str) -> int:
        """What a write to `attr` can change (`interpreter.write_bits`), worked out once per attribute."""
        bits = self._write_bits[attr] = bits_of(attr, self.rb)
        return bits

    def status_default(self, name: str) -> Any:
        return self.defaults[name]

    def literal(self, expr: ast.Node) -> Any:
        if isinstance(expr, ast.Name):
            return symbol_value(expr.id)
        if isinstance(expr, ast.Number):
            return expr.value
        return None

    def raw(self, oid: str, attr: str) -> Any:
        """The stored value of a writable attribute or status, as a write would compare it."""
        return self.obj(oid).stored(attr, self.defaults)

    def is_hidden(self, oid: str) -> bool:
        """True when a hide rule says the game treats this battlefield object as not existing."""
        cached = self._hidden.get(oid)
        if cached is not None:
            return cached
        hidden = self._hidden[oid] = self.hidden_by_rules(oid, self.game.objects.get(oid))
        return hidden

    def hidden_by_rules(self, oid: str, o: Permanent | None) -> bool:
        """`is_hidden` of object `o` (id `oid`), worked out (not read from the cache)."""
        hidden = False
        if o is not None and o.zone == "battlefield":
            game = self.game
            for var, test, shape in self.hide_tests:
                if shape is not None and shape[2] not in game.objects and shape[2] not in game.players:
                    if o.get_status(shape[0], shape[1]) == shape[3]:  # `x.S is V`, read off the object
                        hidden = True
                        break
                    continue
                if test(self, {var: obj_ref((oid, True))}) not in FALSY:
                    hidden = True
                    break
        return hidden

    def stored_hide_tests(self) -> tuple[tuple[str, Any, Any], ...] | None:
        """The hide tests as (status, its default, the stored value that hides) when each is
        `x.S is V` with V naming no object or player now (`status_test`); else None."""
        game, tests = self.game, []
        for _var, _test, shape in self.hide_tests:
            if shape is None or shape[2] in game.objects or shape[2] in game.players:
                return None
            tests.append((shape[0], shape[1], shape[3]))
        return tuple(tests)

    def status_test(self, var: str, cond: ast.Node) -> tuple | None:
        """(status, its default, the name V, what V stands for) when `cond` is `var.S is V` for a
        status S stored as a plain value (not a reference) and V a name: then, unless V names an
        object or a player, the condition is the stored value equal to V's."""
        match cond:
            case ast.Is(left=ast.Attr(obj=ast.Name(id=name), name=status), right=ast.Name(id=symbol), negated=False) if (
                    name == var and status in self.defaults and status not in self.reference_statuses
                    and symbol not in (var, "turn")):
                return status, self.defaults[status], symbol, symbol_value(symbol)
        return None

    def visible(self, oid: str) -> bool:
        o = self.game.objects.get(oid)
        if o is None or o.zone != "battlefield":
            return False
        hidden = self._hidden.get(oid)  # (is_hidden's cache, read here: this is asked very often)
        return not (self.is_hidden(oid) if hidden is None else hidden)

    def sight(self, oids: Iterable[str]) -> dict[str, bool]:
        """`visible` for many objects at once: whether the game sees each of them."""
        objects, hidden, is_hidden = self.game.objects, self._hidden, self.is_hidden
        seen = {}
        for oid in oids:
            o = objects.get(oid)
            if o is None or o.zone != "battlefield":
                seen[oid] = False
            else:
                known = hidden.get(oid)
                seen[oid] = not (is_hidden(oid) if known is None else known)
        return seen

    def player_in_game(self, name: str) -> bool:
        p = self.game.players.get(name)
        return p is not None and p.in_game

    # ---------------------------------------------------------------- characteristics

    def chars(self, oid: str) -> dict:
        """Controller, power, toughness and keywords after continuous effects."""
        if self.statics.pending:
            self.statics.refresh()  # before the cache is trusted: it drops what contributions changed
        cached = self._chars.get(oid)
        if cached is not None:
            return cached
        contributions = self.statics.of(oid) if self.visible(oid) else ()
        chars = self._chars[oid] = characteristics(self.obj(oid), self.effects_in_order(), contributions)
        return chars

    def collect_static(self, stmt: ast.Node, env: dict, out: dict) -> None:
        match stmt:
            case ast.Block(stmts=stmts):
                for s in stmts:
                    self.collect_static(s, env, out)
            case ast.Each():
                # every object the ability reaches, seen or not: whether it is seen is asked
                # when its characteristics are, so this map need not change when it hides
                for ref in self.select(stmt, env, None, hidden_too=True):
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
                raise self.fail("a static ability can only modify characteristics", stmt.span)

    def contributions_changed(self, oids: Iterable[str]) -> None:
        """Static abilities now give these objects something else: read them afresh, check them
        again. Whether the game sees them changes too, unless no hide rule reads anything a
        static ability gives (`sight_follows_writes`)."""
        chars, hidden, dirty = self._chars, self._hidden, self.dirty
        attached = self.indexes.attachments() if dirty is not None else {}
        sight_kept = self.rb.sight_follows_writes
        for oid in oids:
            chars.pop(oid, None)
            if not sight_kept:
                hidden.pop(oid, None)
            if dirty is not None:
                dirty.add(oid)
                if oid in attached:
                    dirty |= attached[oid]

    def controller(self, oid: str) -> str:
        """The controller alone (layer 2), without working out power and toughness."""
        cached = self._chars.get(oid)
        if cached is not None:
            return cached["controller"]
        return controller_of(self.obj(oid), self.effects_in_order())

    def keywords(self, oid: str) -> tuple[str, ...]:
        """Printed keywords and those granted by resolved effects (when no static ability grants any)."""
        return granted_keywords(self.obj(oid), self.effects_in_order())

    def effects_in_order(self) -> list[Effect]:
        cached = self._chars.get("\0effects")
        if cached is None:
            cached = self._chars["\0effects"] = sorted(self.game.effects.values(), key=lambda e: e.timestamp)
        return cached

    def remember(self, oids: Iterable[str]) -> None:
        """Keep last known information (`game.lki`) of objects the game sees now: each object
        as it is, with what effects and static abilities give it, its characteristics worked
        out if someone asks."""
        lki, objects, effects = self.game.lki, self.game.objects, self.effects_in_order()
        given, defaults = self.statics.of, self.defaults
        for oid in oids:
            lki[oid] = LastKnown(objects[oid], effects, given(oid), defaults)

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
        """An expression compiled once per rulebook."""
        entry = self.rb.compiled.get(id(expr))
        if entry is None:
            entry = self.rb.compiled[id(expr)] = (expr, compile_expr(expr, MISSING))
        return entry[1]

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
        elif name == "keywords" and not self.rb.static_grants:
            def get(o, ref, where):
                return self.keywords(o.id)
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
        else:
            def get(o, ref, where):
                raise self.fail(f"objects have no attribute '{name}'", where.span)
        self._getters[name] = get
        return get

    def reader(self, name: str) -> Callable[[Any, ast.Node], Any]:
        """`read(value, name, where)` for one attribute name, with the common case (an object
        the game sees, or one named by a hiding status) worked out in advance."""
        known = self._readers.get(name)
        if known is not None:
            return known
        game, slow, hidden, get = self.game, self.read, self.is_hidden, self.getter(name)

        def read(value: Any, where: ast.Node) -> Any:
            if type(value) is Obj:
                oid = value[0]
                o = game.objects.get(oid)
                if o is not None and (value[1] or oid not in game.lki or not hidden(oid)):
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
            if not value.aware and oid in self.game.lki and self.is_hidden(oid):
                return self._wrap(self.game.lki[oid].get(name), name, value)
            return self.getter(name)(o, value, where)
        if value is None or value is MISSING:
            return None
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
        """Stored names become references: players, or objects (aware as `parent` is)."""
        return self.wrap(raw, name, parent[1])

    def wrap(self, raw: Any, name: str, aware: bool) -> Any:
        """A stored value of attribute `name` as read: a stored name becomes a reference to a
        player or to an object (`aware`: as one named by a hiding status)."""
        if isinstance(raw, str) and (name in ("controller", "owner", "attached_to") or name in self.reference_statuses):
            if raw in self.game.players:
                return player_ref((raw,))
            return obj_ref((raw, aware))
        if isinstance(raw, dict):
            return raw
        if name in ("counters", "stickers") and isinstance(raw, tuple):
            return dict(raw)
        return raw

    # ================================================================ selections

    def query(self, each: ast.Each) -> Query:
        """What the interpreter works out once about an `each x where ...`."""
        known = self.rb.plans.get(id(each))
        if known is None:
            indexable = {"attached_to", "owner", "controller", "token"} | set(self.rb.statuses)
            flags = {"token"} | {name for name, decl in self.rb.statuses.items() if decl.type == "bool"}
            known = self.rb.plans[id(each)] = Query(
                each, plan_query(each.var, each.cond, indexable, flags, MISSING),
                # a query written `including hidden` sees the objects hide rules hide, and so
                # does one whose condition names a hiding status
                aware=each.hidden or bool(ast.names_in(each.cond) & self.ix.hiding_attrs))
        return known

    def candidates(self, q: Query, env: dict, raw_reads: bool,
                   unseen_out: bool = False) -> tuple[Iterable[str], tuple[int, ...]]:
        """The objects a query must look at, in game order, and the conjuncts still to check on
        each (their positions): those no index answered exactly. Indexes answer exactly when the query reads
        stored values (`raw_reads`: it never reads last known information) and no effect changes
        what they index; otherwise they give a superset and the conjunct is checked. With
        `unseen_out` (the caller looks at the battlefield and skips what the game does not
        see), the objects a hide rule hides by a stored status are left out of a set of
        candidates too, when every hide rule is one (`stored_hide_tests`); the caller still
        checks each candidate."""
        within: list[set[str]] = []  # every object in the answer is in each of these
        without: list[set[str]] = []  # and in none of these
        answered: set[int] = set()
        for plan in q.plan.plans:
            if plan.kind == "same":
                v = plan.value(self, env)
                if not (isinstance(v, Obj) and v.id in self.game.objects):
                    return [], ()  # nothing can match
                within.append({v.id})
                answered.add(plan.part)
                continue
            found, exact = self.plan_set(plan, env)
            exact = exact and raw_reads
            if found is None:
                others = self.enum_values.get(plan.attr) if plan.kind == "equal" else None
                if others and exact and not plan.negated:
                    # an enum status at its default: the objects with none of its other values
                    without.extend(self.indexes.lookup(plan.attr, v) for v in others)
                    answered.add(plan.part)
                continue
            if plan.negated:
                if exact:
                    without.append(found)
                    answered.add(plan.part)
            else:
                if not found:
                    return [], ()  # nothing can match
                within.append(found)
                if exact:
                    answered.add(plan.part)
        only = self.dirty_scope  # a state check made again for the objects changed since the last one
        if only is not None:
            within.append(only)
        if unseen_out and within and (hiding := self.stored_hide_tests()) is not None:
            # (only to narrow a set of candidates: the whole board is taken in order, unsorted)
            without.extend(self.indexes.lookup(status, hides) or NOTHING for status, _default, hides in hiding)
        residual = tuple(i for i in range(len(q.plan.parts)) if i not in answered)
        if not within:
            ids = self.game.objects.keys()
            if without:
                ids = set(ids).difference(*without)
            return (list(ids) if not without else self.indexes.sort(ids)), residual
        within.sort(key=len)
        ids = within[0].intersection(*within[1:]) if len(within) > 1 else within[0]
        if without:
            ids = ids.difference(*without)
        if only is not None:
            ids = ids & self.game.objects.keys()
        return (self.indexes.sort(ids) if len(ids) > 1 else list(ids)), residual

    def plan_set(self, plan: Plan, env: dict) -> tuple[set[str] | None, bool]:
        """The objects an index gives for one plan (None: it can't answer), and whether that
        is exactly the objects the conjunct holds for (else a superset)."""
        exact = True
        if plan.kind == "equal":
            value = plan.value(self, env)
            if type(value) is str and (plan.attr in ("attached_to", "owner", "controller")
                                       or plan.attr in self.reference_statuses):
                exact = False  # a bare name compared with a reference: let the conjunct decide
            found = self.indexes.lookup(plan.attr, stored(value))
            if found is not None and plan.attr == "controller" and self.game.effects:
                extra = self.affected_by("control")
                found, exact = (found | extra, False) if extra else (found, exact)
        elif plan.kind == "keyword" and not self.rb.static_grants:
            found = self.indexes.lookup("keywords", plan.name)
            if self.game.effects:
                extra = self.affected_by("grant")
                found, exact = (found | extra, False) if extra else (found, exact)
        elif plan.kind == "type":
            found = self.indexes.lookup("types", plan.name)
        elif plan.kind == "union":
            found = set()
            for alternative in plan.alternatives:
                some, some_exact = self.plan_set(alternative, env)
                if some is None:
                    return None, False
                found |= some
                exact = exact and some_exact
        else:
            found = None
        return found, exact

    def affected_by(self, kind: str) -> set[str]:
        return {oid for e in self.game.effects.values() if e.kind == kind for oid in e.affected}

    def exemptions(self, rule_id: str) -> tuple:
        """What exempts an object from a block's selections (`exempt x from R where ...`):
        (variable, compiled condition) pairs."""
        known = self.rb.compiled.get(("exempt", rule_id))
        if known is None:
            tests = tuple((ex.var, self.compiled_expr(ex.cond)) for _rule, ex in self.ix.exempts.get(rule_id, ()))
            known = self.rb.compiled[("exempt", rule_id)] = (None, tests)
        return known[1]

    def selection(self, q: Query, env: dict, skip_hidden: bool) -> tuple[Iterable[str], tuple[int, ...]]:
        """The candidates of a query in game order and the conjuncts still to check on each
        (see `candidates`); nothing when an index says no object can match."""
        probe = q.probe
        if probe is not None:  # the commonest answer first: an index says no object can match
            found = self.indexes.lookup(probe.attr, stored(probe.value(self, env)))
            if found is not None and not found:
                return (), ()
        return self.candidates(q, env, raw_reads=q.aware or skip_hidden)

    def select(self, each: ast.Each, env: dict, cause: Cause | None, hidden_too: bool = False) -> list[Obj]:
        q = self.query(each)
        aware = q.aware
        skip_hidden = not aware and not hidden_too
        ids, unanswered = self.selection(q, env, skip_hidden)
        if not ids:
            return []
        self.iterations_left -= len(ids)
        if self.iterations_left < 0:
            raise self.over_budget("iterations", each.span, cause)
        residual = [q.plan.parts[i] for i in unanswered]
        exemptions = self.exemptions(cause.id) if cause is not None and cause.kind == "rule" else ()
        chosen = []
        objects, is_hidden = self.game.objects, self.is_hidden
        every_zone = each.every_zone
        var = each.var
        scope = dict(env) if residual else env  # one scope, rebound for each candidate
        for oid in ids:
            zone = objects[oid].zone
            if (zone != "battlefield" and not every_zone) or zone == "nowhere":
                continue
            if skip_hidden and is_hidden(oid):
                if self.skips is not None:
                    self.note_hidden(each, env, residual, oid, cause)
                continue
            ref = obj_ref((oid, aware))
            if residual:
                scope[var] = ref
                if any(part(self, scope) in FALSY for part in residual):
                    continue
            if exemptions and any(test(self, {ex_var: obj_ref((oid, True))}) not in FALSY for ex_var, test in exemptions):
                if self.skips is not None:
                    self.note_exempt(each, oid, cause)
                continue
            chosen.append(ref)
        return chosen

    # ================================================================ what selections left out (when asked)

    def hiding_clause(self, oid: str) -> tuple[ast.Rule, ast.Hide] | None:
        """The first hide clause that hides object `oid` (None: none does)."""
        for (rule, hide), (var, test, _shape) in zip(self.ix.hides, self.hide_tests):
            if test(self, {var: obj_ref((oid, True))}) not in FALSY:
                return rule, hide
        return None

    def note_hidden(self, each: ast.Each, env: dict, residual: list, oid: str, cause: Cause | None) -> None:
        """Keep in `skips` that selection `each` left out object `oid`, which it would have
        chosen (its condition holds when the object is seen), because a hide clause hides it."""
        scope = dict(env)
        scope[each.var] = obj_ref((oid, True))
        if any(part(self, scope) in FALSY for part in residual):
            return  # (not one it would have chosen anyway)
        found = self.hiding_clause(oid)
        if found is not None:
            self.skips.append(Skip(getattr(self, "step", 0), each, cause, oid, "hidden", *found))

    def note_exempt(self, each: ast.Each, oid: str, cause: Cause | None) -> None:
        """Keep in `skips` that selection `each` left out object `oid` because an `exempt`
        clause of the block running it exempts it."""
        for rule, ex in self.ix.exempts.get(cause.id, ()):
            if self.compiled_expr(ex.cond)(self, {ex.var: obj_ref((oid, True))}) not in FALSY:
                self.skips.append(Skip(getattr(self, "step", 0), each, cause, oid, "exempt", rule, ex))
                return
