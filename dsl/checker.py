"""Static checks of a version's rule files, of cards and of scenarios.

Everything a rule file names must exist: statuses and their values, attributes, verbs,
hooks, perceptions, the blocks an `order` or `exempt` refers to. A version's blocks must
match its list of subrules exactly, with no id or slug used twice; a variant's block that
shares an inherited block's id must share its slug. Every expression has a type
(`dsl.types`), and what it is written to, compared with, added to or given to must fit it;
card types come from the game model's words and the cards' `types` lines. Verbs may not call
themselves, directly or through other verbs.
"""

from __future__ import annotations

import functools
import re

from collections import Counter, OrderedDict
from typing import Iterable

from . import ast, constant, types
from .builtins import (REFERENCE_KINDS, CARD_TYPES, KEYWORD_ABILITIES, CONSTANTS, GAME_HOOKS,
                       OBJECT_ATTRS, PERCEPTIONS, PERMANENT_TYPES, PLAYER_ATTRS, STATUS_TYPES, SUBTYPES,
                       WRITABLE, ZONES, card_slug, first_free)
from .diagnostics import Diagnostic, DiagnosticError, Span, close_names, did_you_mean, word_span
from .parser import hook_name, keywords
from .types import Type


# How many times verb bodies are read for what their parameters need (each round follows
# parameters one call further; verbs seldom call more than two deep).
NEEDS_ROUNDS = 4


class _Checker:
    def __init__(self, statuses: dict, verbs: dict, rule_ids: set[str], allow_missing: frozenset[str] = frozenset(),
                 zones: Iterable[str] = (), card_types: Iterable[str] = (), hiding: Iterable[str] = ()):
        self.statuses = statuses
        self.zones = set(ZONES) | set(zones)
        self.verbs = verbs
        self.rule_ids = rule_ids
        self.allow_missing = allow_missing
        self.problems: list[Diagnostic] = []
        self.symbols = set(CONSTANTS) | self.zones
        for decl in statuses.values():
            self.symbols.update(decl.values)
        self.card_types = set(CARD_TYPES) | SUBTYPES | {t.lower() for t in card_types}
        self._needs: dict[str, dict[str, tuple[Type, ast.Node]]] | None = None
        self._verb: str | None = None  # the verb whose body is being read for what it needs
        self._needing: dict[str, tuple[Type, ast.Node]] = {}
        self._selecting: list[str] = []  # the variables of the selections whose condition is being read
        self.hiding = frozenset(hiding)  # the statuses a hide clause reads
        self._after_change = False  # reading the condition of an `assert after`, where `is unchanged` means something
        self._targets: set[str] = set()  # the names of the card's targets whose condition is being read
        self.observed: set[str] = set()  # (`reading_as_a_player`: the names a scenario's expectations read so)
        # what the rulebook observes and keeps no other way (`observed_only`): name -> its type
        self.observed_only: dict[str, Type] = {}
        # the steps and phases of the rulebook's turn, which hooks and a card's step triggers name
        # (None: no turn to check against, every name passes)
        self.turn: ast.TurnStructure | None = None

    def hook(self, kind: str, node: ast.Node) -> None:
        """A hook names a step or phase of the turn, or one of the game's own hooks; the error
        points at the name (a `Hook` node's own position, else the name's words in `node`)."""
        turn = self.turn
        if turn is None or kind in GAME_HOOKS or kind in turn.steps or self._verb is not None:
            return
        known = list(turn.steps) + list(GAME_HOOKS)
        at = node.span if isinstance(node, ast.Hook) else word_span(node.span, kind)
        self.problems.append(Diagnostic(
            "error", f"unknown step '{kind}': the turn of this rulebook has no such step or phase", at,
            did_you_mean(kind, known, "the steps and phases of the turn: " + ", ".join(turn.steps) +
                         "; the game's hooks: " + ", ".join(GAME_HOOKS), cutoff=0.6)))

    def share_words(self, other: "_Checker") -> None:
        """Take the card types and the verbs' needs of `other`, a checker of the same status,
        verb and zone declarations and the same cards (`checked_already`)."""
        self.card_types = other.card_types
        self._needs = other._needs

    def error(self, message: str, node: ast.Node, hint: str | None = None) -> None:
        if self._verb is None:  # (not while a verb body is read for what it needs)
            self.problems.append(Diagnostic("error", message, node.span, hint))

    # ---------------------------------------------------------------- types of expressions

    def expr(self, e: ast.Node, env: dict[str, Type]) -> Type:
        """Check an expression and return its type. `env` maps the names bound here to theirs."""
        match e:
            case ast.Name(id=name):
                if name in env:
                    return env[name]
                if name in ("true", "false"):
                    return types.BOOL
                if name == "none":
                    return types.NONE
                if name == "turn":
                    return types.NUMBER
                if name not in self.symbols:
                    self.error(f"unknown name '{name}'", e, "use a variable bound here, a status value, a zone, or none/true/false")
                    return types.ANY
                return types.symbol(name)
            case ast.Number(value=value):
                self.in_range(value, e)
                return types.NUMBER
            case ast.String():
                return types.TEXT
            case ast.Attr(obj=obj, name=name):
                return self.attr(e, self.expr(obj, env))
            case ast.Count(var=var, cond=cond):  # count(y where ...) binds y inside its condition only
                if cond is not None:
                    self.selection_cond(var, cond, {**env, var: types.OBJECT})
                return types.NUMBER
            case ast.Add(left=left, right=right):
                for side in (left, right):
                    t = self.expr(side, env)
                    if not types.numeric(t):
                        self.error(f"'+' adds numbers, and {ast_text(side)} is {t.describe()}", side,
                                   "add numbers: a count, a power or toughness, a number written out")
                return types.NUMBER
            case ast.Compare(op=op, left=left, right=right):
                for side in (left, right):
                    t = self.expr(side, env)
                    if not types.numeric(t):
                        self.error(f"'{op}' compares numbers, and {ast_text(side)} is {t.describe()}", side,
                                   "compare numbers; for other values use 'is' or 'is not'")
                return types.BOOL
            case ast.Is(left=left, right=right, negated=negated):
                lt, rt = self.expr(left, env), self.expr(right, env)
                if not types.comparable(lt, rt, self.zones):
                    self.incomparable(e, left, lt, right, rt, negated)
                return types.BOOL
            case ast.IsA(left=left, type=name, negated=negated) if name.lower() in REFERENCE_KINDS:
                t = self.expr(left, env)
                self.want(left, t, ("object", "player"), f"'is {'not ' if negated else ''}{'an' if name.lower() == 'object' else 'a'} {name}'")
                self.reference_kind(e, left, t, name.lower(), negated)
                return types.BOOL
            case ast.IsA(left=left, type=name, negated=negated):
                self.want(left, self.expr(left, env), ("object",), f"'is {'not ' if negated else ''}a'")
                self.card_type(name, e)
                return types.BOOL
            case ast.Has(left=left):
                self.want(left, self.expr(left, env), ("object",), "'has'")
                return types.BOOL
            case ast.Visible(obj=obj):
                self.want(obj, self.expr(obj, env), ("object", "player"), "'is visible'")
                return types.BOOL
            case ast.Unchanged(value=value):
                self.expr(value, env)
                if not self._after_change:
                    self.error(f"'{ast_text(value)} is unchanged' means nothing here: 'is unchanged' compares with the value "
                               "just before a change, which only an 'assert after' clause has", e,
                               "use it in 'assert after x.S becomes V: ... is unchanged'; elsewhere compare with "
                               "a value: " + f"{ast_text(value)} is ...")
                return types.BOOL
            case ast.And(items=items) | ast.Or(items=items):
                for item in items:
                    self.cond(item, env)
                return types.BOOL
            case ast.Not(item=item):
                self.cond(item, env)
                return types.BOOL
        for child in e.children():
            self.expr(child, env)
        return types.ANY

    def cond(self, e: ast.Node, env: dict[str, Type]) -> None:
        """A condition: an expression whose value can be false."""
        t = self.expr(e, env)
        if t.kind == "number":  # (not `types.condition`: said in words of its own)
            self.error(f"{ast_text(e)} is a number, and a condition is true or false", e,
                       f"compare it with a number: {ast_text(e)} > 0" + ("" if isinstance(e, ast.Number) else
                                                                          f", or {ast_text(e)} is 0"))
            return
        if not types.condition(t):
            self.error(f"{ast_text(e)} is {t.describe()}, which is never false: as a condition it always holds", e,
                       "compare it with a value: " + (f"{ast_text(e)} is {t.values[0]}" if t.kind == "enum" else f"{ast_text(e)} is ..."))
            return
        self.decided(e, env)

    # ---------------------------------------------------------------- conditions the text decides

    def status_values(self, env: dict[str, Type]) -> constant.ValuesOf:
        """What `X.S` can be, for X a variable holding an object and S an enum or bool status
        or attribute (None otherwise): what `dsl.constant` needs."""
        def values_of(attr: ast.Attr) -> tuple[str, ...] | None:
            if not (isinstance(attr.obj, ast.Name) and env.get(attr.obj.id) == types.OBJECT):
                return None
            decl = self.statuses.get(attr.name)
            t = types.status_type(decl) if decl is not None else types.object_attr(attr.name)
            if t is None:
                return None
            return t.values if t.kind == "enum" else ("true", "false") if t.kind == "bool" else None
        return values_of

    def decided(self, e: ast.Node, env: dict[str, Type]) -> None:
        """Reject a condition that always or never holds, whatever the game (`dsl.constant`)."""
        found = constant.constant(e, self.status_values(env))
        if found is None:
            return
        if found.outcome == "always":
            if (found.status is not None and found.status.name in self.hiding
                    and isinstance(found.status.obj, ast.Name) and found.status.obj.id in self._selecting):
                var = found.status.obj.id
                hint = (f"to reach every object, those the game treats as not existing included, write "
                        f"'each {var} including hidden' (or 'count({var} including hidden)') and leave this test out; "
                        f"'phasing fmt --write' rewrites it so")
            else:
                hint = "leave the test out, or write the one that was meant"
            self.error(f"this condition is always true: {found.why}", e, hint)
        else:
            self.error(f"this condition is never true: {found.why}", e,
                       "what it guards can never happen; write the test that was meant")

    def reference_kind(self, e: ast.IsA, left: ast.Node, t: Type, kind: str, negated: bool) -> None:
        """`T is a player` of a card's target T, a permanent (601.2c: what the runtime's
        `_target_names` takes): the condition is decided, and the target never chosen."""
        if kind != "player" or t.kind != "object" or not (isinstance(left, ast.Name) and left.id in self._targets):
            return
        outcome = "always" if negated else "never"
        self.error(f"this condition is {outcome} true: {left.id} is a target, and a target is a permanent "
                   f"(601.2c; a spell or ability here targets permanents on the battlefield)", e,
                   "a card's targets are permanents: to act on a player, use 'you' or a permanent's "
                   f"controller ({left.id}.controller)")

    def in_range(self, value: int, node: ast.Node, span=None) -> None:
        """A number written in the rules: within what any game can reach (`types.MAX_GAME_NUMBER`)."""
        if abs(value) > types.MAX_GAME_NUMBER and self._verb is None:
            self.problems.append(Diagnostic(
                "error", f"{value} is beyond any game's range: numbers here are at most {types.MAX_GAME_NUMBER:,}",
                span or node.span, types.MAX_GAME_NUMBER_HINT))

    def selection_cond(self, var: str, cond: ast.Node, env: dict[str, Type]) -> None:
        """The condition of `each VAR where ...` or `count(VAR where ...)`."""
        self._selecting.append(var)
        try:
            self.cond(cond, env)
        finally:
            self._selecting.pop()

    def attr(self, e: ast.Attr, of: Type) -> Type:
        name = e.name
        if name in self.observed_only and of.kind in ("object", "any", "ref"):
            return self.observed_only[name]  # (read through its observation, by rules and cards alike)
        if name in self.observed and of.kind in ("object", "any", "ref"):
            return types.ANY  # (what its cases give: a value of the rulebook's, as a player sees it)
        status = self.statuses.get(name)
        known = status is not None or name in OBJECT_ATTRS or name in PLAYER_ATTRS
        if of.kind == "counters":
            return types.NUMBER
        if not known:
            self.error(f"unknown attribute '{name}'", e, self._attr_hint())
            return types.ANY
        as_object = types.status_type(status) if status is not None else types.object_attr(name)
        as_player = types.player_attr(name)
        if of.kind == "any":
            self.need(e.obj, "player" if as_object is None else "object")
            return as_object or as_player
        if of.kind == "object":
            if as_object is None:
                self.error(f"{ast_text(e.obj)} is an object, and '{name}' is an attribute of a player", e,
                           "a permanent has its controller's: " + f"{ast_text(e.obj)}.controller.{name}")
                return as_player
            return as_object
        if of.kind == "player":
            if as_player is None:
                self.error(f"{ast_text(e.obj)} is a player, and a player has no attribute '{name}'", e,
                           f"a player has {', '.join(sorted(PLAYER_ATTRS | {'zone'}))}")
                return as_object
            return as_player
        if of.kind == "ref":
            return as_object or as_player
        self.error(f"{ast_text(e.obj)} is {of.describe()}: it has no attribute '{name}'", e,
                   "read attributes of an object or a player")
        return types.ANY

    def incomparable(self, e, left, lt: Type, right, rt: Type, negated: bool) -> None:
        outcome = "always holds" if negated else "never holds"
        for side, t, other in ((right, rt, lt), (left, lt, rt)):
            if t.kind == "symbol" and other.kind == "enum":  # the commonest: a value the status cannot take
                self.error(f"'{t.values[0]}' is not a value of status '{other.status}', so this test {outcome}", side,
                           f"values: {', '.join(other.values)}")
                return
        self.error(f"{ast_text(left)} is {lt.describe()} and {ast_text(right)} is {rt.describe()}: "
                   f"'is{' not' if negated else ''}' between them {outcome}", e,
                   "compare values of one type" + (f"; values of {lt.status}: {', '.join(lt.values)}" if lt.kind == "enum" else ""))

    def want(self, node: ast.Node, t: Type, kinds: tuple[str, ...], what: str) -> None:
        """`node`, of type `t`, is used where one of `kinds` (object, player) is needed."""
        if t.kind == "any":
            self.need(node, kinds[0] if len(kinds) == 1 else "ref")
            return
        if t.kind in kinds or t.kind == "ref" and set(kinds) & {"object", "player"}:
            return
        wanted = " or ".join(types.of_kind(k).describe() for k in kinds)
        self.error(f"{what} needs {wanted}, and {ast_text(node)} is {t.describe()}", node,
                   "name a variable bound to " + wanted)

    def need(self, node: ast.Node, kind: str) -> None:
        """While a verb's body is read for what its parameters need: note one."""
        if self._verb is not None and isinstance(node, ast.Name):
            self._needing.setdefault(node.id, (types.of_kind(kind), node))

    def card_type(self, name: str, where: ast.Node) -> None:
        if name.lower() in self.card_types:
            return
        hint = did_you_mean(name.lower(), self.card_types, "card types and subtypes are the game's (creature, artifact, "
                            "aura, equipment, ...) and those the cards' 'types' lines name")
        self.error(f"unknown card type or subtype '{name}'", where, hint)

    def _attr_hint(self) -> str:
        declared = ", ".join(sorted(self.statuses)) or "none"
        return f"statuses declared by this version: {declared}; or a game attribute such as controller, zone, tapped"

    # ---------------------------------------------------------------- writes

    def target_type(self, attr: str) -> Type | None:
        if attr in self.observed_only:
            return self.observed_only[attr]
        decl = self.statuses.get(attr)
        return types.status_type(decl) if decl is not None else types.object_attr(attr)

    def write(self, attr: str, value: ast.Node, vt: Type, verb: str = "set") -> None:
        """A value of type `vt` written to (or expected of) status or attribute `attr`."""
        target = self.target_type(attr)
        if target is None or types.assignable(target, vt, self.zones):
            return
        if vt.kind == "symbol" and target.kind == "enum":
            self.error(f"'{vt.values[0]}' is not a value of status '{attr}'", value, f"values: {', '.join(target.values)}")
            return
        decl = self.statuses.get(attr)
        what = f"status '{attr}'" if decl is not None else f"attribute '{attr}'"
        holds = f"an enum, one of {' | '.join(target.values)}" if target.kind == "enum" else target.describe()
        self.error(f"cannot {verb} {what} to {ast_text(value)}: {what} is {holds}, and {ast_text(value)} is {vt.describe()}",
                   value, self.values_hint(target))

    @staticmethod
    def values_hint(target: Type) -> str:
        return {
            "enum": f"values: {', '.join(target.values)}", "bool": "values: true, false",
            "player": "a player, or none", "object": "an object, or none", "ref": "an object, a player, or none",
            "number": "a number",
        }.get(target.kind, f"a value of {target.describe()}")

    def value(self, e: ast.Node, env: dict[str, Type]) -> Type:
        """The type of a value written or matched: a bare name no variable has is a symbol,
        which the write then checks against what the status can hold."""
        if isinstance(e, ast.Name) and e.id not in env and e.id not in CONSTANTS:
            return types.symbol(e.id)
        return self.expr(e, env)

    def status_value(self, attr: str, value: ast.Node, env: dict[str, Type] | None = None) -> None:
        """A value written to (or matched against) a status must be one it can hold."""
        self.write(attr, value, self.value(value, env or {}))

    def written_value(self, value: ast.Node) -> None:
        """A value a clause matches a change against or prefers is written as a value (a name
        or a number): the engine reads it once for the rulebook, not in a game."""
        if not (isinstance(value, (ast.Number, ast.String)) or isinstance(value, ast.Name) and value.id != "turn"):
            self.error("a changed value in a clause must be written as a value, not worked out", value,
                       "write the value itself: a name such as out or none, or a number")

    def change(self, c: ast.Change, env: dict[str, Type], watched: bool = False) -> dict[str, Type]:
        """A change a clause or a trigger matches. What the rulebook observes and keeps no other
        way (`observe`) changes as what it reads does: a triggered ability or a look-back
        (`watched`) may watch it, a clause that acts as it happens may not."""
        if c.attr in self.observed_only and not watched:
            self.error(f"'{c.attr}' is what a player sees of a permanent (`observe`), not something this rulebook keeps, "
                       "so no clause can act as it changes", c,
                       "act on a change of what its observation reads (`phasing show` lists the observations), "
                       "or watch it from a triggered ability")
        elif c.attr not in self.statuses and c.attr not in OBJECT_ATTRS and c.attr not in self.observed_only:
            self.error(f"unknown status '{c.attr}'", c, self._attr_hint())
        self.written_value(c.value)
        self.write(c.attr, c.value, self.value(c.value, env), "match")
        if c.old is not None:
            self.written_value(c.old)
            self.write(c.attr, c.old, self.value(c.old, env), "match")
        inner = {**env, c.var: types.OBJECT}
        if c.cond is not None:
            self.cond(c.cond, inner)
        return inner

    # ---------------------------------------------------------------- statements

    def stmt(self, s: ast.Node, env: dict[str, Type]) -> None:
        match s:
            case ast.Block(stmts=stmts) | ast.Simultaneously(stmts=stmts):
                for inner in stmts:
                    self.stmt(inner, env)
            case ast.Each(var=v, cond=c, body=b):
                inner = {**env, v: types.OBJECT}
                if c is not None:
                    self.selection_cond(v, c, inner)
                self.stmt(b, inner)
            case ast.If(cond=c, body=b):
                self.cond(c, env)
                self.stmt(b, env)
            case ast.Delayed(hook=h, body=b):
                self.hook(h, s)
                self.stmt(b, env)
            case ast.ExtraSteps(steps=steps):
                for step in steps:
                    if self.turn is not None and step not in self.turn.steps and self.turn.phase_of(step) is None \
                            and step not in {p.name for p in self.turn.phases}:
                        self.hook(step, s)
            case ast.Set(assigns=assigns):
                for a in assigns:
                    if a.var not in env:
                        self.error(f"unknown name '{a.var}'", a, "set an attribute of a variable bound here")
                    else:
                        self.want(ast.Name(a.var, span=a.span), env[a.var], ("object",), f"set {a.var}.{a.attr}")
                    if a.attr not in self.statuses and a.attr not in WRITABLE:
                        self.error(f"cannot set '{a.attr}'", a, self._attr_hint())
                    self.status_value(a.attr, a.value, env)
            case ast.Call(verb=name, args=args):
                verb = self.verbs.get(name)
                if verb is None:
                    known = ", ".join(sorted(self.verbs)) or "none"
                    self.error(f"unknown action '{name}'", s, f"verbs declared by this version: {known}")
                elif len(verb.params) != len(args):
                    self.error(f"'{name}' takes {len(verb.params)} argument(s), {len(args)} given", s,
                               f"declared as: verb {name} {' '.join(verb.params)}")
                needs = self.verb_needs().get(name, {}) if verb is not None and len(verb.params) == len(args) else {}
                for param, a in zip(verb.params if verb is not None else (), args):
                    t = self.expr(a, env)
                    if param in needs:
                        wanted, used = needs[param]
                        if t.kind == "any":
                            self.need(a, wanted.kind)
                        elif not types.assignable(wanted, t, self.zones):
                            self.error(f"'{name}' needs {wanted.describe()} for its parameter '{param}', and "
                                       f"{ast_text(a)} is {t.describe()}", a,
                                       f"the body of verb {name} uses {param} as {wanted.describe()} at {used.span}")
                for a in args[len(verb.params) if verb is not None else 0:]:
                    self.expr(a, env)
            case ast.Move(obj=o, zone=z, duration=d):
                if z not in self.zones:
                    self.error(f"unknown zone '{z}'", s, f"zones: {', '.join(sorted(self.zones))}")
                self.want(o, self.expr(o, env), ("object",), "move")
                self.duration(d, env)
            case ast.Pump() | ast.SetBase() | ast.Grant():
                self.want(s.obj, self.expr(s.obj, env), ("object",), "this statement")
                self.duration(s.duration, env)
                if not isinstance(s, ast.Grant):
                    for value in (s.power, s.toughness):
                        self.in_range(value, s)
            case ast.GainControl(player=p, obj=o, duration=d):
                self.want(p, self.expr(p, env), ("player",), "'gains control of'")
                self.want(o, self.expr(o, env), ("object",), "'gains control of'")
                self.duration(d, env)
            case ast.Attach(obj=o, to=t):
                self.want(o, self.expr(o, env), ("object",), "attach")
                self.want(t, self.expr(t, env), ("object", "player"), "attach ... to")
                if o == t:  # (nodes compare without their positions)
                    self.error(f"'attach {ast_text(o)} to {ast_text(t)}' attaches an object to itself, which the rules never "
                               "allow: an Aura can't enchant itself (303.4d), an Equipment can't equip itself (301.5c), "
                               "a Fortification can't fortify itself (301.6)", s,
                               "attach it to another object or a player: attach x to y")
            case ast.Draw(player=p, amount=n) | ast.GainLife(player=p, amount=n):
                self.want(p, self.expr(p, env), ("player",), "this statement")
                amount = self.expr(n, env)
                if not types.numeric(amount):
                    self.error(f"the amount must be a number, and {ast_text(n)} is {amount.describe()}", n,
                               "a number, a count(...) or a number attribute")
            case ast.EndUntilNextTurn(player=p) | ast.EndControl(player=p):
                self.want(p, self.expr(p, env), ("player",), "this statement")
            case (ast.Unattach(obj=o) | ast.Tap(obj=o) | ast.Untap(obj=o) | ast.RemoveFromCombat(obj=o)
                  | ast.RemoveDamage(obj=o) | ast.Destroy(obj=o) | ast.Cease(obj=o) | ast.EndTracking(obj=o)
                  | ast.EndLimited(obj=o) | ast.LoseDelayed(obj=o) | ast.DealDamage(obj=o) | ast.AddCounters(obj=o)
                  | ast.RemoveCounters(obj=o) | ast.AttackWith(obj=o)):
                self.want(o, self.expr(o, env), ("object",), "this statement")
                if isinstance(s, (ast.DealDamage, ast.AddCounters, ast.RemoveCounters)):
                    self.in_range(s.amount, s, word_span(s.span, str(s.amount)))
            case _:
                for child in s.children():
                    self.expr(child, env)

    def duration(self, d: ast.Node | None, env: dict[str, Type]) -> None:
        if isinstance(d, ast.ForAsLongAs):
            self.cond(d.cond, env)
        elif isinstance(d, (ast.UntilLeaves, ast.UntilNextTurn, ast.UntilNextStep)):
            if isinstance(d, ast.UntilNextStep):
                self.hook(d.step, d)
            name = d.obj if isinstance(d, ast.UntilLeaves) else d.player
            if name == "your":  # "until your next turn"
                name = "you"
            if name not in env:
                self.error(f"unknown name '{name}'", d, "a duration names a player or object bound here (you, this, a target)")

    # ---------------------------------------------------------------- verbs

    def verb_needs(self) -> dict[str, dict[str, tuple[Type, ast.Node]]]:
        """For each verb, what its body needs of its parameters (an object to set a status of,
        to tap or move; a player to draw): read once, from the statements that show it."""
        if self._needs is None:
            needs: dict[str, dict[str, tuple[Type, ast.Node]]] = {}
            self._needs = needs
            for _ in range(NEEDS_ROUNDS):  # a parameter passed on to another verb needs what that one's does
                changed = False
                for name, verb in self.verbs.items():
                    self._verb, self._needing = name, {}
                    try:
                        for s in verb.body:
                            self.stmt(s, {p: types.ANY for p in verb.params})
                    finally:
                        self._verb = None
                    changed |= self._needing.keys() != needs.get(name, {}).keys()
                    needs[name] = self._needing
                if not changed:
                    break
        return self._needs

    # ---------------------------------------------------------------- declarations and blocks

    def reading_as_a_player(self, observations: dict[str, ast.ObserveDecl]) -> None:
        """What is checked reads what the rulebook observes (`observe`) as a player sees it, as
        a scenario's expectations do: each name observed is an attribute, each word one of its
        cases gives a value."""
        self.observed = set(observations)
        self.symbols |= {v.id for decl in observations.values() for v in [c.value for c in decl.cases] + [decl.default]
                         if isinstance(v, ast.Name) and v.id != decl.var}

    def reading_observations(self, observations: dict[str, ast.ObserveDecl]) -> None:
        """What the rulebook observes and keeps no other way (`observed_only`) is an attribute
        every rule, card and expectation may read, through its observation: of the enum of the
        words its cases give where it gives only words."""
        self.observed_only = {}
        for name, decl in observed_only(observations, self.statuses).items():
            words = observed_words(decl)
            self.observed_only[name] = types.ANY if words is None else Type("enum", words, name)
            self.symbols |= set(words or ())

    def observation(self, decl: ast.ObserveDecl) -> None:
        """Each case's condition reads the permanent (`decl.var`) as the rules keep it (not
        through an observation: none may read another, or itself); each value is a word (one of
        the values a player sees: `out`, `battlefield`) or an expression of the permanent
        (`x.zone`)."""
        env = {decl.var: types.OBJECT}
        seen, self.observed_only = self.observed_only, {}
        try:
            for case in decl.cases:
                self.cond(case.cond, env)
            for value in [c.value for c in decl.cases] + [decl.default]:
                if not isinstance(value, ast.Name) or value.id == decl.var:
                    self.value(value, env)
        finally:
            self.observed_only = seen

    def status(self, decl: ast.StatusDecl) -> None:
        if decl.type not in STATUS_TYPES:
            self.error(f"unknown status type '{decl.type}'", decl, f"types: {', '.join(STATUS_TYPES)}, or values a | b")
        default = decl.default
        ok = {
            "enum": isinstance(default, ast.Name) and default.id in decl.values,
            "bool": isinstance(default, ast.Name) and default.id in ("true", "false"),
        }.get(decl.type, isinstance(default, ast.Name) and default.id == "none")
        if not ok:
            allowed = {"enum": " | ".join(decl.values), "bool": "true or false"}.get(decl.type, "none")
            self.error(f"'{ast_text(default)}' cannot be the default of status '{decl.name}'", default,
                       f"the default must be one of its values: {allowed}")

    def rule(self, rule: ast.Rule, passed: frozenset[int] | set[int] = frozenset()) -> None:
        """Check a block's clauses, but those in `passed` (ids of clauses a checker with the same
        words passed: `check_rulebook`); each clause is checked on its own."""
        obj = types.OBJECT
        for c in rule.clauses:
            if id(c) in passed:
                continue
            match c:
                case ast.Hide(var=v, cond=cond) | ast.Exclude(var=v, cond=cond):
                    self.cond(cond, {v: obj})
                case ast.Exempt(var=v, rule=target, cond=cond):
                    self.cond(cond, {v: obj})
                    self.known_rule(target, c)
                case ast.During(hook=h, body=b):
                    self.hook(h.kind, h)
                    self.stmt(b, {h.var: types.PLAYER} if h.var else {})
                case ast.AsClause(change=ch, body=b):
                    self.stmt(b, self.change(ch, {}))
                case ast.After(event=ev, body=b):
                    env = self.change(ev, {}) if isinstance(ev, ast.Change) else {ev.var: obj}
                    self.stmt(b, env)
                case ast.Prefer(attr=a, value=v):
                    if a not in self.statuses:
                        self.error(f"unknown status '{a}'", c, self._attr_hint())
                        self.expr(v, {})
                    else:
                        self.written_value(v)
                        self.write(a, v, self.value(v, {}), "prefer")
                case ast.NotPerceived(attr=a, kinds=kinds, old=old):
                    if a not in self.statuses and a != "zone":
                        self.error(f"unknown status '{a}'", c, self._attr_hint())
                    elif old is not None:
                        self.written_value(old)
                        self.write(a, old, self.value(old, {}), "match")
                    for k in kinds:
                        if k not in PERCEPTIONS:
                            self.error(f"unknown perception '{k}'", c, f"perceptions: {', '.join(PERCEPTIONS)}")
                case ast.Lookback(change=ch):
                    self.change(ch, {}, watched=True)
                case ast.Order(rules=ids):
                    self.hook(c.hook, c)
                    for rid in ids:
                        self.known_rule(rid, c)
                case ast.ForbidAttack() | ast.ForbidBlock():
                    _forbid(self, c)
                case ast.SkipStep(hook=h, cond=cond):
                    self.hook(h.kind, h)
                    self.cond(cond, {h.var: types.PLAYER} if h.var else {})
                case ast.AssertAfter(event=ev, cond=cond):
                    env = self.change(ev, {}) if isinstance(ev, ast.Change) else {ev.var: obj}
                    self._after_change = True
                    try:
                        self.cond(cond, env)
                    finally:
                        self._after_change = False
                case ast.AssertAlways(var=v, cond=cond):
                    self.cond(cond, {v: obj})
                case ast.AssertOnce(attr=a) | ast.AssertSkipped(attr=a):
                    self.hook(c.hook.kind, c.hook)
                    if a not in self.statuses and a not in OBJECT_ATTRS:
                        self.error(f"unknown status '{a}'", c, self._attr_hint())

    def known_rule(self, rid: str, where: ast.Node) -> None:
        if rid not in self.rule_ids and rid not in self.allow_missing:
            self.error(f"no block {rid} in this version", where,
                       did_you_mean(rid, self.rule_ids, "refer to a rule id this version has "
                                    "('phasing show VERSION' lists them)", cutoff=0.8))

    def target_cond(self, var: str, cond: ast.Node) -> None:
        """The condition of a card's or an ability's target: a permanent (601.2c; what
        interpreter/play/actions.py's `_target_names` takes)."""
        self._targets.add(var)
        try:
            self.cond(cond, {"this": types.OBJECT, "you": types.PLAYER, var: types.OBJECT})
        finally:
            self._targets.discard(var)

    def trigger_name(self, t: ast.Node, targets: dict[str, Type]) -> None:
        """A card's `when NAME ...` watches the permanent the ability is on when NAME is `this`
        (603.2, 603.6a), and any object's events otherwise, NAME bound to that object: it
        must not be a name the card gives something else (`you`, a target)."""
        name = ast.trigger_var(t)
        if name == "you" or name in targets:
            what = "its controller" if name == "you" else "a target of this card"
            self.error(f"'{name}' already names {what}: a trigger names the object it watches otherwise", t,
                       "write 'this' for the permanent the ability is on, or another name (such as x) for any object")

    def card(self, card: ast.Card) -> None:
        targets = {e.var: types.OBJECT for e in card.entries if isinstance(e, ast.Target)}
        env = {"this": types.OBJECT, "you": types.PLAYER, **targets}
        self.card_kind(card)
        for node in (n for e in card.entries for n in e.walk() if isinstance(n, ast.CombatDamage)):
            self.error("'deal combat damage' is the combat damage step's turn-based action (510.1): a rule block's, "
                       "not a card's", node, "a card deals damage with 'deal N damage to x'")
        for e in card.entries:
            match e:
                case ast.PT(power=power, toughness=toughness):
                    for value in (power, toughness):
                        self.in_range(value, e)
                case ast.Target(var=v, cond=c):
                    self.target_cond(v, c)
                case ast.Static(body=b):
                    self.stmt(b, env)
                    self.static_body(b)
                case ast.ForbidAttack() | ast.ForbidBlock():
                    _forbid(self, e, env)
                case ast.Spell(body=b):
                    self.stmt(b, env)
                case ast.Triggered(trigger=ast.OnStep() as t, body=b):
                    inner = dict(env)
                    if t.player is not None:
                        if t.player in inner:
                            self.error(f"'{t.player}' already names {'a target' if t.player in targets else 'something'} "
                                       "of this card", t, "name the player whose step it is otherwise, such as P")
                        inner[t.player] = types.PLAYER
                    self.trigger_step(t)
                    self.stmt(b, inner)
                case ast.Triggered(trigger=t, body=b, condition=condition):
                    inner = dict(env)
                    self.trigger_name(t, targets)
                    if isinstance(t, ast.OnChange):
                        inner = self.change(t.change, env, watched=True)
                    elif hasattr(t, "var"):
                        inner[t.var] = types.OBJECT
                        if isinstance(t, (ast.OnBlocks, ast.OnBlocked)):
                            if t.other in (t.var, "this", "you") or t.other in targets:
                                self.error(f"'{t.other}' already names something here: the other creature of a block "
                                           "needs a name of its own", t, "name it otherwise, such as y")
                            inner[t.other] = types.OBJECT
                        if t.cond is not None:
                            self.cond(t.cond, inner)
                    if condition is not None:
                        self.cond(condition, inner)
                    self.stmt(b, inner)
                case ast.Partial(text=text) if not text.strip():
                    self.error("a 'partial' entry with empty text names nothing the card leaves out", e,
                               "say in your own words which part of the real card this card does not model: "
                               "partial \"the ability that stops it phasing out\"")
                case ast.Activated(cost=cost, targets=own, body=b):
                    self.cost(cost)
                    inner = dict(env)
                    for t in own:
                        if t.var in ("this", "you"):
                            self.error(f"'{t.var}' already names {'this permanent' if t.var == 'this' else 'its controller'}",
                                       t, "name the ability's target another way: 'targeting t where ...'")
                        self.target_cond(t.var, t.cond)
                        inner[t.var] = types.OBJECT
                    for name in repeated([t.var for t in own]):
                        self.error(f"the ability names two targets '{name}'", e, "give each target a name of its own")
                    self.stmt(b, inner)

    def cost(self, cost: tuple[ast.Node, ...]) -> None:
        """Each part of an activated ability's cost is one the game knows how to pay: mana
        symbols ({2}{U}: generic mana as a number, and W, U, B, R, G, C), {T} on its own, or
        `pay N life` (602.1a, 107.4, 107.5, 119.4)."""
        for part in cost:
            match part:
                case ast.ManaCost(symbols=symbols):
                    odd = [s for s in symbols if not MANA_SYMBOL.fullmatch(s)]
                    if "T" in odd:
                        self.error("{T} is a cost part of its own", part,
                                   "separate it from the mana with a comma: {U}, {T}")
                    elif odd:
                        self.error(f"unknown mana symbol {{{odd[0]}}} in a cost", part, COST_HINT)
                case ast.OtherCost(words=words):
                    self.error(f"unknown cost part '{' '.join(words)}'", part, COST_HINT)
                case ast.LifeCost(amount=amount):
                    self.in_range(amount, part)

    def trigger_step(self, t: ast.OnStep) -> None:
        """A card's ability triggers at the beginning of a step of the turn in which players get
        priority: none does in one the turn gives no priority in (the untap step, 502.4), and an
        ability that would trigger then waits for a step they do. The error points at the step."""
        turn = self.turn
        if turn is None:
            return
        at = word_span(t.span, t.step)  # (the step's first word, as written)
        priority = [step for step in turn.steps if step not in turn.no_priority]
        if t.step in turn.steps and t.step not in turn.no_priority:
            return
        if t.step in turn.no_priority:
            later = turn.steps[turn.steps.index(t.step) + 1:] + turn.steps
            instead = next(step for step in later if step in priority)
            rule = " (502.4)" if t.step == "untap step" else ""
            message = f"nothing triggers at the beginning of the {t.step}: no player gets priority in it{rule}"
            hint = (f"an ability that would trigger then waits until a player gets priority: "
                    f"write 'at beginning of {instead}'")
        else:
            message = f"'{t.step}' is not a step of the turn a card's ability can trigger at the beginning of"
            hint = did_you_mean(t.step, priority, f"steps: {', '.join(priority)}", cutoff=0.6)
        if self._verb is None:
            self.problems.append(Diagnostic("error", message, at, hint))

    def static_body(self, s: ast.Node) -> None:
        """A static ability changes characteristics while its source is there (611.3a): it can
        only hold what `static_statement_problems` allows; each other statement is an error."""
        for node, message in static_statement_problems(s):
            self.error(message, node, STATIC_HINT)

    def card_kind(self, card: ast.Card) -> None:
        """An entry the card's kind never uses: a permanent spell becomes a permanent as it
        resolves (608.3), so a `spell:` line on it never runs; an instant or sorcery is never
        on the battlefield (its effect is its spell ability, 112.3a), so its static and
        triggered abilities never apply (113.6)."""
        kinds = {name for e in card.entries if isinstance(e, ast.Types) for name in e.names}
        permanent = sorted(kinds & PERMANENT_TYPES)
        if permanent:
            for e in card.entries:
                if isinstance(e, ast.Spell):
                    self.error(f"a {permanent[0]} card's 'spell:' line never runs: casting it makes a permanent (608.3)", e,
                               "'spell:' is what an instant or sorcery does; a permanent acts through "
                               "'when this enters: ...' (as it enters) or 'static: ...' (while it is there)")
            return
        for kind in ("instant", "sorcery"):
            if kind not in kinds:
                continue
            for e in card.entries:
                if isinstance(e, (ast.Static, ast.Triggered, ast.Activated)):
                    what = {ast.Static: "static", ast.Triggered: "triggered", ast.Activated: "activated"}[type(e)]
                    one = f"{'an' if kind == 'instant' else 'a'} {kind}"
                    never = "can never be activated" if what == "activated" else "never applies"
                    self.error(f"{one}'s {what} ability {never}: {one} is never on the battlefield (113.6)", e,
                               f"write what the {kind} does as it resolves with 'spell: ...'; static, triggered and activated "
                               f"abilities belong to permanent cards (types {', '.join(sorted(PERMANENT_TYPES))})")
            return


MANA_SYMBOL = re.compile(r"\d+|[WUBRGC]")
COST_HINT = ("a cost is parts separated by commas: mana symbols such as {2}{U} (a number, W, U, B, R, G or C "
             "in braces), {T} (tap this permanent), or 'pay N life'")


STATIC_HINT = ("a static ability can hold 'X gets +N/+N' and 'X gains KEYWORD' (no duration), "
               "inside 'each x where ...:', 'if COND:' and '{ ... }'")


def static_statement_problems(s: ast.Node) -> list[tuple[ast.Node, str]]:
    """Each statement of a static ability's body that a static ability cannot hold, with what
    is wrong with it (none when all can). A static ability adds to power and toughness (`X
    gets +N/+N`) and grants keywords (`X gains K`) while its source is on the battlefield
    (611.3a), to the objects an `each` selects and under an `if`; anything else (setting power
    and toughness, a status, control, a one-shot action such as gaining life) is not something
    it can apply."""
    match s:
        case ast.Block(stmts=stmts):
            return [found for inner in stmts for found in static_statement_problems(inner)]
        case ast.Each(body=body) | ast.If(body=body):
            return static_statement_problems(body)
        case ast.Pump(duration=d) | ast.Grant(duration=d):
            if d is None:
                return []
            from .printer import duration_text

            return [(s, f"a static ability cannot last '{duration_text(d).strip()}': what it gives lasts while "
                        "its source is on the battlefield (611.3a)")]
    from .printer import stmt_lines

    text = stmt_lines(s)[0].rstrip(" {")
    return [(s, f"a static ability cannot '{text}': it can only add to power and toughness and grant keywords")]


def repeated(names: Iterable[str]) -> list[str]:
    """The names given more than once, each once, in the order of their first repetition."""
    seen, twice = set(), []
    for name in names:
        if name in seen and name not in twice:
            twice.append(name)
        seen.add(name)
    return twice


def distinct_names(names: Iterable[str]) -> list[str]:
    """`names` with each repetition renamed (x, x -> x, x2): what a hint can suggest."""
    used: set[str] = set()
    result = []
    for name in names:
        candidate, n = name, 1
        while candidate in used:
            n += 1
            candidate = f"{name}{n}"
        used.add(candidate)
        result.append(candidate)
    return result


def ast_text(e: ast.Node) -> str:
    from .printer import expr_text

    return expr_text(e)


def card_vocabulary(cards: Iterable[ast.Card]) -> set[str]:
    """Every type and subtype the cards' `types` lines name."""
    return {name for card in cards for e in card.entries if isinstance(e, ast.Types) for name in e.names}


def observed_only(observations: dict[str, ast.ObserveDecl], statuses: dict) -> dict[str, ast.ObserveDecl]:
    """The observations of names the rulebook keeps no other way (not a status, not an
    attribute of the game's objects): 2005's `phase`, where its `zone` is kept as well."""
    return {name: decl for name, decl in observations.items() if name not in statuses and name not in OBJECT_ATTRS}


def observed_words(decl: ast.ObserveDecl) -> tuple[str, ...] | None:
    """The words an observation gives, in order, where it gives only words (`out`, `in`);
    None where a case gives an expression (`x.zone`)."""
    values = [c.value for c in decl.cases] + [decl.default]
    if not all(isinstance(v, ast.Name) and v.id != decl.var and v.id not in CONSTANTS for v in values):
        return None
    return tuple(dict.fromkeys(v.id for v in values))


def _forbid(checker: "_Checker", f: ast.Node, env: dict | None = None) -> None:
    """A restriction on attacking or blocking: its condition, over the creatures it names."""
    env = dict(env or {})
    if isinstance(f, ast.ForbidBlock):
        if f.attacker == f.blocker:
            checker.error(f"'{f.attacker}' names both the attacker and the blocker", f,
                       "name them apart: forbid block of a by b where ...")
        env.update({f.attacker: types.OBJECT, f.blocker: types.OBJECT})
    else:
        env[f.var] = types.OBJECT
    checker.cond(f.cond, env)


def _check_turn(checker: "_Checker", turn: ast.TurnStructure) -> None:
    """A turn declaration has phases, names each step and phase once, and says where players
    get no priority (or get it only after triggers) of steps it declares, each once."""
    if not turn.phases:
        checker.error("the turn declares no phase", turn, "name its phases in order, e.g. beginning phase: untap "
                      "step, upkeep step, draw step")
        return
    seen: dict[str, ast.TurnPhase] = {}
    for phase in turn.phases:
        for name in dict.fromkeys((phase.name,) + phase.steps):
            if name in seen:
                checker.error(f"'{name}' is named twice in the turn", phase,
                              f"name each step and phase once; the first is at {seen[name].span}")
            seen.setdefault(name, phase)
        for name in repeated(phase.steps):
            checker.error(f"'{name}' is named twice in the turn", phase, "name each step and phase once")
    steps = turn.steps
    for kind, listed in (("no priority", turn.no_priority), ("priority only after triggers", turn.after_triggers)):
        for name in dict.fromkeys(listed):
            if name not in steps:
                checker.error(f"'{kind}' names '{name}', which the turn does not declare", turn,
                              did_you_mean(name, steps, f"its steps and phases: {', '.join(steps)}", cutoff=0.6))
        for name in repeated(listed):
            checker.error(f"'{kind}' names '{name}' twice", turn, "name each step once")
    for name in set(turn.no_priority) & set(turn.after_triggers):
        checker.error(f"'{name}' is both without priority and with priority after triggers", turn,
                      "keep it in one of the two lines")


def _checker(book, cards: Iterable[ast.Card] = (), allow_missing: frozenset[str] = frozenset()) -> _Checker:
    checker = _Checker(book.statuses, book.verbs, {r.id for r in book.rules}, allow_missing, book.zones,
                       card_vocabulary(list(book.cards.values()) + list(cards)), _hiding(book))
    checker.reading_observations(getattr(book, "observations", {}))
    checker.turn = getattr(book, "turn", None)
    return checker


_PASSED: OrderedDict[int, tuple[object, _Checker]] = OrderedDict()  # id of a rulebook -> (it, the checker it passed), newest last
_PASSED_KEPT = 64
"""The rulebooks that passed `check_rulebook` (without allow_missing) most recently, each with
its checker: a rulebook that extends one of them with the same declarations and cards
(`checked_already`) is checked with the same words (its card types, what each verb needs of
its parameters) rather than working them out again."""


def _passed(book) -> _Checker | None:
    found = _PASSED.get(id(book))
    if found is None or found[0] is not book:
        return None
    _PASSED.move_to_end(id(book))  # (kept by its use: the version many variants extend)
    return found[1]


def verb_cycles(verbs: dict[str, ast.VerbDecl]) -> list[tuple[ast.Call, list[str]]]:
    """The calls that close a cycle of verbs (a verb calling itself, directly or through others),
    each with the verbs around its cycle, in the order the verbs are declared."""
    calls = {name: [n for s in verb.body for n in s.walk() if isinstance(n, ast.Call)] for name, verb in verbs.items()}
    state: dict[str, str] = {}  # "open" while on the path being followed, then "done"
    found: list[tuple[ast.Call, list[str]]] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for call in calls.get(name, ()):
            if call.verb not in verbs:
                continue
            if state.get(call.verb) == "open":
                found.append((call, path[path.index(call.verb):] + [call.verb]))
            elif call.verb not in state:
                visit(call.verb, path + [call.verb])
        state[name] = "done"

    for name in verbs:
        if name not in state:
            visit(name, [name])
    return found


def _hiding(book) -> set[str]:
    """The statuses the conditions of the rulebook's hide clauses read."""
    return {name for rule in book.rules for c in rule.clauses if isinstance(c, ast.Hide) for name in ast.names_in(c.cond)}


def _same_entries(mine: dict, theirs: dict) -> bool:
    """The two tables have the same names, each for the very same object."""
    return mine.keys() == theirs.keys() and all(theirs[name] is decl for name, decl in mine.items())


def checked_already(book, modules: list[ast.Module], extended) -> _Checker | None:
    """The checker `extended`, the rulebook `book` extends, passed `check_rulebook` with
    (without allow_missing), when the blocks the two share need no check again (issue 43):
    nothing a block's check reads can differ between them. None unless the manifest renumbers
    and drops nothing, the rulebook's own files declare no status, verb or zone, and the
    checker's words are those `extended` was checked with: the same status, verb and zone
    declarations (the same objects), the same cards, the same turn (the steps a hook may
    name), the same statuses read by hide clauses, and every block id `extended` has (a block added only makes more ids known). Otherwise
    every block is checked."""
    passed = _passed(extended) if extended is not None else None
    if passed is None or book.version.renumbers or book.version.drops:
        return None
    if any(isinstance(item, (ast.StatusDecl, ast.VerbDecl, ast.ZoneDecl, ast.ObserveDecl)) for m in modules
           for item in m.items):
        return None
    if not (_same_entries(book.statuses, extended.statuses) and _same_entries(book.verbs, extended.verbs)
            and _same_entries(book.zones, extended.zones) and _same_entries(book.cards, extended.cards)
            and getattr(book, "turn", None) == getattr(extended, "turn", None)):  # (the steps a hook may name)
        return None
    if not passed.rule_ids <= {r.id for r in book.rules} or _hiding(book) != passed.hiding:
        return None
    return passed


def check_rulebook(book, modules: list[ast.Module], allow_missing: frozenset[str] = frozenset(),
                   declared: list[ast.Rule] | None = None, composed: bool = False, extended=None) -> None:
    """Raise DiagnosticError listing every problem in a version's files and its cards.
    `composed`: the rulebook is put together from two others' blocks (by `diff`), and its
    `order` clauses are not written for it (orders_of_nothing is not asked of them).
    `extended`: the rulebook `book` extends; where it passed this check (without allow_missing)
    and nothing the check of the blocks they share reads can differ (`checked_already`), those
    blocks, and the clauses of its blocks an `amend` left in place, are not checked again and
    the checker's words are taken from its; everything else, the checks across blocks
    included, is checked."""
    shared = checked_already(book, modules, extended)
    if shared is None:
        checker = _checker(book, allow_missing=allow_missing)
        skip: set[int] = set()
        passed: set[int] = set()
    else:  # (the words of the checker `extended` passed, and its blocks not checked again)
        checker = _Checker(book.statuses, book.verbs, {r.id for r in book.rules}, allow_missing, book.zones,
                           (), shared.hiding)
        checker.share_words(shared)
        checker.reading_observations(getattr(book, "observations", {}))
        checker.turn = getattr(book, "turn", None)
        skip = {id(r) for r in extended.rules}
        passed = {id(c) for r in extended.rules for c in r.clauses}  # (the clauses an amend left in a block)
    problems = checker.problems
    seen_status: dict[str, ast.StatusDecl] = {}
    seen_verb: dict[str, ast.VerbDecl] = {}
    own_verbs: list[ast.VerbDecl] = []
    for module in modules:
        for item in module.items:
            if isinstance(item, ast.ObserveDecl):
                checker.observation(item)
            if isinstance(item, ast.StatusDecl):
                if item.name in seen_status:
                    checker.error(f"status '{item.name}' is declared twice", item, f"first declared at {seen_status[item.name].span}")
                seen_status.setdefault(item.name, item)
                checker.status(item)
            elif isinstance(item, ast.VerbDecl):
                if item.name in seen_verb:
                    checker.error(f"verb '{item.name}' is declared twice", item, f"first declared at {seen_verb[item.name].span}")
                seen_verb.setdefault(item.name, item)
                own_verbs.append(item)
                if item.name in keywords():
                    checker.error(f"a verb cannot be named '{item.name}': it is a word of the language", item,
                                  f"a verb is called by its name ('{item.name} x'), which would read as that word; "
                                  f"give it another name, such as {item.name}_it")
                for param in repeated(item.params):
                    checker.error(f"verb '{item.name}' names its parameter '{param}' twice", item,
                                  "give each parameter its own name: verb "
                                  f"{item.name} {' '.join(distinct_names(item.params))}")
                for s in item.body:
                    checker.stmt(s, {p: types.ANY for p in item.params})
            elif isinstance(item, ast.TurnStructure):
                _check_turn(checker, item)
            elif isinstance(item, (ast.Card, ast.Scenario)):
                where = "a variant's file" if book.version.kind == "variant" else "a version's folder"
                checker.error(f"cards and scenarios do not belong in {where}", item,
                              "put cards in a card file of their own (rules/cards/library.rules, or a file "
                              "of cards only, which 'phasing check' checks) and scenarios in a .scenario file")
    for call, cycle in verb_cycles(book.verbs) if shared is None else ():  # (else the verbs `extended` passed with)
        checker.error(f"verb '{call.verb}' calls itself: {' -> '.join(cycle)}", call,
                      "a verb may not call itself, directly or through other verbs: "
                      "write the repetition as an 'each x where ...' over what it should reach")
    rules = declared if declared is not None else list(book.rules)
    own_ids = {id(i) for m in modules for i in m.items if isinstance(i, ast.Rule)}
    inherited = [r for r in rules if id(r) not in own_ids]
    inherited_ids = {r.id: r for r in inherited}
    inherited_slugs = sorted({r.slug for r in inherited})
    misnamed = set()
    for rule in rules:
        twin = inherited_ids.get(rule.id)
        if id(rule) in own_ids and twin is not None and rule.slug not in inherited_slugs:
            # (the block with the same id is the likeliest one meant)
            suggestion = did_you_mean(rule.slug, inherited_slugs, first=twin.slug, n=1)
            suggestion = f"; {suggestion}" if suggestion else ""
            checker.error(f"no inherited block has slug '{rule.slug}'{suggestion}", rule,
                          f"a block replaces the inherited block with the same slug ({twin.id} is '{twin.slug}' in "
                          f"{book.version.extends or 'the version extended'}); to put a block of another slug in its place, "
                          f"'drop {twin.slug}' in the manifest; to add a block, give it a rule id of its own")
            misnamed.add(id(rule))
    ids: dict[str, ast.Rule] = {}
    slugs: dict[str, ast.Rule] = {}
    for rule in rules:
        if rule.id in ids and id(rule) not in misnamed:
            checker.error(f"rule {rule.id} appears twice", rule, f"first at {ids[rule.id].span}")
        if rule.slug in slugs:
            checker.error(f"slug '{rule.slug}' is used by {slugs[rule.slug].id} and {rule.id}", rule, "every block needs its own slug")
        ids.setdefault(rule.id, rule)
        slugs.setdefault(rule.slug, rule)
        if id(rule) not in skip:
            checker.rule(rule, passed)
    prefers_twice(checker, rules, modules)
    if not composed:
        stale_references(checker, book, rules, modules, allow_missing)
    sections_seen: dict[str, ast.Section] = {}
    for section in book.version.sections:
        if section.rule in sections_seen:
            first = sections_seen[section.rule]
            checker.error(f"section {section.rule} is listed twice; the first is at {first.span}", section,
                          f"list the subrules of {section.rule} on one 'section {section.rule} subrules ...' line")
            continue
        sections_seen[section.rule] = section
        wanted = {f"{section.rule}{letter}" for letter in section.letters}
        for letter, n in Counter(section.letters).items():
            if n > 1 or len(letter) != 1 or not letter.isalpha():
                checker.error(f"'{letter}' is not a single subrule letter listed once", section)
        have = {r.id for r in book.rules if r.id.startswith(section.rule) and r.id[len(section.rule):].isalpha()}
        for missing in sorted(wanted - have - allow_missing):
            checker.error(f"subrule {missing} is listed by the version but has no block", section,
                          f"write 'rule {missing} slug \"summary\" {{ ... }}' or drop the letter")
        for extra in sorted(have - wanted):
            checker.error(f"block {extra} is not a subrule this version lists", ids[extra],
                          f"add its letter to 'section {section.rule} subrules ...' or remove the block")
    if problems:
        raise DiagnosticError(problems)
    if not allow_missing and not composed:
        _PASSED[id(book)] = (book, checker)
        _PASSED.move_to_end(id(book))
        while len(_PASSED) > _PASSED_KEPT:
            _PASSED.popitem(last=False)


def prefers_twice(checker: _Checker, rules: list[ast.Rule], modules: list[ast.Module]) -> None:
    """A rulebook has at most one `prefer` clause per status: with two, which value settles a
    conflict would depend on the order the blocks are read in, and with the same value twice
    one of them says nothing. The second is reported (a clause of the rulebook's own files
    after one it inherits), naming the first."""
    own_files = {item.span.path for m in modules for item in m.items}
    found = [(rule, c) for rule in rules for c in rule.clauses if isinstance(c, ast.Prefer)]
    found.sort(key=lambda rc: (rc[1].span.path in own_files, rc[1].span.path, rc[1].span.line, rc[1].span.column))
    first: dict[str, tuple[ast.Rule, ast.Prefer]] = {}
    for rule, clause in found:
        if clause.attr not in first:
            first[clause.attr] = (rule, clause)
            continue
        other_rule, other = first[clause.attr]
        where = f"{other_rule.id} {other_rule.slug}, at {other.span}"
        if ast_text(other.value) == ast_text(clause.value):
            checker.error(f"'prefer {clause.attr} = {ast_text(clause.value)}' is said twice: {where} already says it", clause,
                          f"a status has one 'prefer' clause in a rulebook: drop this one ({other_rule.slug} settles "
                          f"conflicts of {clause.attr} already)")
        else:
            if other.span.path in own_files:
                other_way = "remove the other"
            elif other.label:
                other_way = f"take the other away with 'amend {other_rule.slug} {{ drop clause {other.label} }}'"
            else:
                other_way = (f"take the other away with 'drop {other_rule.slug}' in the manifest, or by a block "
                             f"of its slug in its place")
            checker.error(f"'prefer {clause.attr} = {ast_text(clause.value)}' contradicts 'prefer {clause.attr} = "
                          f"{ast_text(other.value)}' of {where}", clause,
                          f"one 'prefer' per status: drop this one, or {other_way}")


def stale_references(checker: _Checker, book, rules: list[ast.Rule], modules: list[ast.Module],
                     allow_missing: frozenset[str]) -> None:
    """What a block says of another must still be true of it, inherited or not (issue 45).

    An `order HOOK: ...` puts in order the blocks that act at HOOK: a block listed twice, or
    one with no `during HOOK` clause, would be an order of nothing. An `exempt x from R`
    exempts objects from R's selections (its `each` and `count`, and those of the verbs it
    calls): a block that selects nothing has nothing to exempt from. An order or exemption
    the rulebook's own files write is reported where it is; an inherited one that a change of
    this rulebook's made stale (a block of its own in the place of the one named, an `amend`
    of it) is reported at that change, naming the clause and how to fix it. Linear: one pass
    over the blocks' clauses, and a walk of the blocks an `exempt` names only."""
    own_files = {item.span.path for m in modules for item in m.items}
    by_id: dict[str, ast.Rule] = {}
    acting: dict[str, dict[str, None]] = {}  # hook -> the ids of the blocks with a `during HOOK` clause, in order
    for rule in rules:
        by_id.setdefault(rule.id, rule)
        for c in rule.clauses:
            if isinstance(c, ast.During):
                acting.setdefault(c.hook.kind, {})[rule.id] = None
    for rule in rules:
        for clause in rule.clauses:
            if isinstance(clause, ast.Order):
                _stale_order(checker, book, rule, clause, by_id, acting.get(clause.hook, {}), own_files, allow_missing)
            elif isinstance(clause, ast.Exempt):
                target = by_id.get(clause.rule)
                if target is None or _selects(target, checker.verbs):
                    continue
                what = (f"{target.id} {target.slug} selects nothing (no 'each' or 'count', in its clauses or the "
                        f"verbs they call), so 'exempt {clause.var} from {target.id}' exempts nothing")
                fix = "drop the exempt clause, or exempt objects from the block whose selections are meant"
                _report_stale(checker, book, rule, clause, target, clause.rule, what, fix, own_files)


def _stale_order(checker: _Checker, book, rule: ast.Rule, clause: ast.Order, by_id: dict[str, ast.Rule],
                 acting: dict[str, None], own_files: set[str], allow_missing: frozenset[str]) -> None:
    own = clause.span.path in own_files
    for rid in repeated(clause.rules) if own else ():  # (an inherited order was checked where it is written)
        checker.problems.append(Diagnostic(
            "error", f"{rid} is listed twice in 'order {hook_name(clause.hook)}'", word_span(clause.span, rid, skip=1),
            f"name each block once: order {hook_name(clause.hook)}: {', '.join(dict.fromkeys(clause.rules))}"))
    listed = list(dict.fromkeys(clause.rules))
    stale = [rid for rid in listed if rid in by_id and rid not in acting and rid not in allow_missing]
    remaining = [rid for rid in listed if rid not in stale]
    for rid in stale:  # (a block this version has not: known_rule says so)
        target = by_id[rid]
        what = f"{rid} {target.slug} has no 'during {hook_name(clause.hook)}' clause, so 'order {hook_name(clause.hook)}' has nothing of it to put in order"
        if own:
            fix = f"list the blocks acting at {hook_name(clause.hook)}: {', '.join(acting) or 'none'}"
        else:
            fix = _order_fix(rule, clause, remaining)
        _report_stale(checker, book, rule, clause, target, rid, what, fix, own_files)


def _order_fix(rule: ast.Rule, clause: ast.Order, remaining: list[str]) -> str:
    """How a rulebook changes an inherited order clause so it lists only `remaining`."""
    new = f"order {hook_name(clause.hook)}: {', '.join(remaining)}"
    if clause.label is not None:
        change = (f"replace clause {clause.label}: {new}" if remaining else f"drop clause {clause.label}")
        return f"amend the order: 'amend {rule.slug} {{ {change} }}'"
    if remaining:
        others = "" if len(rule.clauses) == 1 else " (and its other clauses)"
        return (f"restate the block with the order changed: 'rule {rule.id} {rule.slug} \"...\" {{ {new} }}'{others}, "
                f"or 'drop {rule.slug}' in the manifest")
    return f"take the order away: 'drop {rule.slug}' in the manifest, or restate {rule.id} {rule.slug} without it"


def _report_stale(checker: _Checker, book, rule: ast.Rule, clause: ast.Node, target: ast.Rule, rid: str,
                  what: str, fix: str, own_files: set[str], skip: int = 0) -> None:
    """Report a clause of `rule` that names block `rid` (`target`) and no longer fits it: at
    the clause when the rulebook's own files wrote it (or nothing of theirs made it stale),
    else at the change of the rulebook's own that made it so."""
    if clause.span.path in own_files:
        checker.problems.append(Diagnostic("error", what, word_span(clause.span, rid, skip=skip), fix))
        return
    change = _own_change(book, target, own_files)
    if change is None:  # (stale where it is written: said there)
        checker.problems.append(Diagnostic("error", what, word_span(clause.span, rid, skip=skip), fix))
        return
    span, how = change
    checker.problems.append(Diagnostic(
        "error", f"{how} leaves an inherited clause stale: {what} ({rule.id} {rule.slug}, at {clause.span})", span, fix))


def _own_change(book, target: ast.Rule, own_files: set[str]) -> tuple[Span, str] | None:
    """Where the rulebook's own files changed block `target`, and how, in words: a `during`
    clause its amend wrote, the block of its own in the place of the inherited one, or the
    amend (a clause it dropped)."""
    written = [c for c in target.clauses if c.span.path in own_files]
    if target.span.path in own_files:
        return target.span, f"this {target.id} {target.slug}"
    during = next((c for c in written if isinstance(c, ast.During)), None)
    if during is not None:
        return during.span, f"this amend of {target.id} {target.slug}"
    amendment = next((a for a in reversed(getattr(book, "amendments", {}).get(target.slug, ()))
                      if a.span.path in own_files), None)
    if amendment is not None:
        return amendment.span, f"this amend of {target.id} {target.slug}"
    if written:
        return written[0].span, f"this amend of {target.id} {target.slug}"
    return None


@ast.per_node
def _selections(rule: ast.Rule) -> tuple[bool, frozenset[str]]:
    """Whether the block's clauses select objects (`each`, `count`) themselves, and if not the
    verbs they call (a block that selects is known to without reading it all)."""
    called: set[str] = set()
    for c in rule.clauses:
        for n in c.walk():
            if isinstance(n, (ast.Each, ast.Count)):
                return True, frozenset()
            if isinstance(n, ast.Call):
                called.add(n.verb)
    return False, frozenset(called)


def _selects(rule: ast.Rule, verbs: dict[str, ast.VerbDecl]) -> bool:
    """Whether the block selects objects, in its clauses or in a verb they call (directly or not)."""
    found, called = _selections(rule)
    calls, seen = list(called), set(called)
    while not found and calls:
        verb = verbs.get(calls.pop())
        if verb is None:
            continue
        nodes = [n for s in verb.body for n in s.walk()]
        found = any(isinstance(n, (ast.Each, ast.Count)) for n in nodes)
        for n in nodes:
            if isinstance(n, ast.Call) and n.verb not in seen:
                seen.add(n.verb)
                calls.append(n.verb)
    return found


def check_cards(cards: Iterable[ast.Card], book) -> list[Diagnostic]:
    """Cards are checked against the rulebook they are played under: a card may use a verb
    (say, a verb only newer rules declare) that an older version does not have."""
    cards = list(cards)
    checker = _checker(book, cards)
    tested = tested_keywords(book, cards)
    for card in cards:
        checker.card(card)
        for entry in card.entries:
            if isinstance(entry, ast.Keywords):
                for name in dict.fromkeys(entry.names):
                    keyword_typo(checker, name, entry, tested)
    return checker.problems


def tested_keywords(book, cards: Iterable[ast.Card] = ()) -> set[str]:
    """The keywords a rule or card of the rulebook tests for (`has K`) or grants: those a
    printed keyword can mean something by (as interpreter/play/actions.py's known_keywords, less
    the keywords that are only printed)."""
    return set(_tested_by_rules(book.rules)).union(*map(_tested_by_card, (*book.cards.values(), *cards)))


def _keywords_of(nodes: Iterable[ast.Node]) -> frozenset[str]:
    return frozenset(n.keyword for node in nodes for n in node.walk() if isinstance(n, (ast.Has, ast.Grant)))


@functools.lru_cache(maxsize=4096)
def _tested_by_card(card: ast.Card) -> frozenset[str]:
    return _keywords_of((card,))


_TESTED: OrderedDict[int, tuple[object, frozenset[str]]] = OrderedDict()  # id of a rulebook's blocks -> (them, their keywords)


def _tested_by_rules(rules: tuple[ast.Rule, ...]) -> frozenset[str]:
    """The keywords a rulebook's blocks test for or grant, worked out once for the blocks of
    the last 64 rulebooks: every scenario played under a rulebook asks (a rulebook with a
    scenario's cards added shares its blocks with the rulebook)."""
    found = _TESTED.get(id(rules))
    if found is not None and found[0] is rules:
        _TESTED.move_to_end(id(rules))
        return found[1]
    keywords = _keywords_of(rules)
    _TESTED[id(rules)] = (rules, keywords)
    if len(_TESTED) > _PASSED_KEPT:
        _TESTED.popitem(last=False)
    return keywords


def keyword_typo(checker: _Checker, name: str, node: ast.Node, tested: set[str]) -> None:
    """A keyword nothing tests for, spelt like one something does, is taken for a typo: a
    permanent printed with it would never do what the other does. A keyword like none of
    them (`flying`, where no rule reads it) is fine: it just does nothing here; so is one of
    Magic's keyword abilities (`flanking`, close to `flying`), which is no typo."""
    if name not in tested and name not in KEYWORD_ABILITIES and close_names(name, tested):
        checker.error(f"keyword '{name}' is tested for or granted by no rule or card of this rulebook", node,
                      did_you_mean(name, tested, "A keyword nothing tests for does nothing"))


def check_scenario(scn: ast.Scenario, book) -> list[Diagnostic]:
    """Names in a scenario's expectations must be its permanents, its players, or known values;
    each expectation and each status a permanent is given must fit the types involved."""
    checker = _checker(book)
    checker.reading_as_a_player(getattr(book, "observations", {}))
    names: dict[str, Type] = {}
    for e in scn.entries:
        if isinstance(e, ast.Players):
            for name in repeated(e.names):
                checker.error(f"player '{name}' is named twice", e,
                              f"every player needs a name of their own: players {' '.join(distinct_names(e.names))}")
            names.update({n: types.PLAYER for n in e.names})
    props_may_name = names_for_props(scn)
    for e in scn.entries:
        if isinstance(e, ast.PermanentDecl):
            names[e.name] = types.OBJECT
            for prop in e.props:
                if isinstance(prop, ast.PropPlayer) and prop.key == "keyword":
                    keyword_typo(checker, prop.player, prop, tested_keywords(book))
                if isinstance(prop, ast.PropStatus):
                    if prop.name not in book.statuses:
                        checker.error(f"unknown status '{prop.name}'", prop, checker._attr_hint())
                    else:
                        checker.status_value(prop.name, prop.value, props_may_name)
    for e in scn.entries:  # (each number of the setup within what any game can reach, as in the rules)
        if isinstance(e, ast.TurnDecl):
            checker.in_range(e.number, e)
        for prop in e.props if isinstance(e, ast.PermanentDecl) else ():
            match prop:
                case ast.PropCounter(amount=n) | ast.PropDamage(amount=n) | ast.PropEntered(turn=n):
                    checker.in_range(n, prop)
    used = {e.card for e in scn.entries if isinstance(e, ast.PermanentDecl)}
    used |= {s.card for e in scn.entries if isinstance(e, ast.Script) for s in e.steps if isinstance(s, (ast.Cast, ast.Choose))}
    used |= {c for e in scn.entries if isinstance(e, ast.Script) for s in e.steps if isinstance(s, ast.OrderStep) for c in s.cards}
    checker.problems.extend(check_cards([book.cards[c] for c in sorted(used) if c in book.cards], book))
    env = {**made_by_casts(scn, book.cards), **names}
    for e in scn.entries:
        if isinstance(e, ast.Script):
            for s in e.steps:
                if isinstance(s, ast.Expect) and (not s.versions or book.version.id in s.versions):
                    checker.cond(s.cond, env)
    return checker.problems


def made_by_casts(scn: ast.Scenario, cards) -> dict[str, Type]:
    """The permanents a script's casts make, named as the runner names them: a permanent spell
    (an Aura too) that resolves becomes a permanent called after its card, or after it with
    the first free number of 2, 3, 4, ... when a permanent has that name already (one the
    scenario declares, or an earlier cast made). A cast an `expect error` follows makes none."""
    taken = {e.name for e in scn.entries if isinstance(e, ast.PermanentDecl)}
    tried: dict[str, int] = {}  # (`first_free`'s memory: `taken` only grows here)
    made: dict[str, Type] = {}
    steps = [s for e in scn.entries if isinstance(e, ast.Script) for s in e.steps]
    for step, after in zip(steps, steps[1:] + [None]):
        card = cards.get(step.card) if isinstance(step, ast.Cast) else None
        if card is None or isinstance(after, ast.ExpectError):
            continue
        kinds = {t.lower() for entry in card.entries if isinstance(entry, ast.Types) for t in entry.names}
        if not kinds & PERMANENT_TYPES:
            continue
        name = first_free(card_slug(card.name), taken, tried)
        taken.add(name)
        made[name] = types.OBJECT
    return made


def names_for_props(scn: ast.Scenario) -> dict[str, Type]:
    """What a permanent's `set S = V` may name: the scenario's players and permanents."""
    env: dict[str, Type] = {}
    for e in scn.entries:
        if isinstance(e, ast.Players):
            env.update({n: types.PLAYER for n in e.names})
        elif isinstance(e, ast.PermanentDecl):
            env[e.name] = types.OBJECT
    return env
