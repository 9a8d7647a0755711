"""Static checks of a version's rule files, of cards and of scenarios.

Everything a rule file names must exist: statuses and their values, attributes, verbs,
hooks, perceptions, the blocks an `order` or `exempt` refers to. A version's blocks must
match its list of subrules exactly, with no id or slug used twice.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from dsl import ast
from dsl.builtins import CONSTANTS, OBJECT_ATTRS, PERCEPTIONS, PLAYER_ATTRS, STATUS_TYPES, WRITABLE, ZONES, card_slug
from dsl.diagnostics import Diagnostic, DiagnosticError


class _Checker:
    def __init__(self, statuses: dict, verbs: dict, rule_ids: set[str], allow_missing: frozenset[str] = frozenset(),
                 zones: Iterable[str] = ()):
        self.statuses = statuses
        self.zones = set(ZONES) | set(zones)
        self.verbs = verbs
        self.rule_ids = rule_ids
        self.allow_missing = allow_missing
        self.problems: list[Diagnostic] = []
        self.symbols = set(CONSTANTS) | self.zones
        for decl in statuses.values():
            self.symbols.update(decl.values)

    def error(self, message: str, node: ast.Node, hint: str | None = None) -> None:
        self.problems.append(Diagnostic("error", message, node.span, hint))

    # ---------------------------------------------------------------- expressions

    def expr(self, e: ast.Node, bound: set[str], extra_names: Iterable[str] = ()) -> None:
        extra = set(extra_names)
        if isinstance(e, ast.Count):  # count(y where ...) binds y inside its condition only
            self.expr(e.cond, bound | {e.var}, extra)
            return
        if isinstance(e, ast.Attr) and e.name not in OBJECT_ATTRS | PLAYER_ATTRS and e.name not in self.statuses:
            if not (isinstance(e.obj, ast.Attr) and e.obj.name in ("counters", "stickers")):
                self.error(f"unknown attribute '{e.name}'", e, self._attr_hint())
        elif isinstance(e, ast.Name) and e.id not in bound and e.id not in self.symbols and e.id not in extra:
            self.error(f"unknown name '{e.id}'", e, "use a variable bound here, a status value, a zone, or none/true/false")
        for child in e.children():
            self.expr(child, bound, extra)

    def _attr_hint(self) -> str:
        declared = ", ".join(sorted(self.statuses)) or "none"
        return f"statuses declared by this version: {declared}; or a game attribute such as controller, zone, tapped"

    def status_value(self, attr: str, value: ast.Node) -> None:
        """A value named for an enum status must be one of its values."""
        decl = self.statuses.get(attr)
        if decl is not None and decl.type == "enum" and isinstance(value, ast.Name) and value.id not in decl.values:
            self.error(f"'{value.id}' is not a value of status '{attr}'", value, f"values: {', '.join(decl.values)}")

    def change(self, c: ast.Change, bound: set[str]) -> set[str]:
        if c.attr not in self.statuses and c.attr not in OBJECT_ATTRS:
            self.error(f"unknown status '{c.attr}'", c, self._attr_hint())
        self.status_value(c.attr, c.value)
        if c.old is not None:
            self.expr(c.old, bound)
        inner = bound | {c.var}
        if c.cond is not None:
            self.expr(c.cond, inner)
        return inner

    # ---------------------------------------------------------------- statements

    def stmt(self, s: ast.Node, bound: set[str], extra: Iterable[str] = ()) -> None:
        match s:
            case ast.Block(stmts=stmts) | ast.Simultaneously(stmts=stmts):
                for inner in stmts:
                    self.stmt(inner, bound, extra)
            case ast.Each(var=v, cond=c, body=b):
                self.expr(c, bound | {v}, extra)
                self.stmt(b, bound | {v}, extra)
            case ast.If(cond=c, body=b):
                self.expr(c, bound, extra)
                self.stmt(b, bound, extra)
            case ast.Delayed(body=b):
                self.stmt(b, bound, extra)
            case ast.Set(assigns=assigns):
                for a in assigns:
                    if a.var not in bound:
                        self.error(f"unknown name '{a.var}'", a, "set an attribute of a variable bound here")
                    if a.attr not in self.statuses and a.attr not in WRITABLE:
                        self.error(f"cannot set '{a.attr}'", a, self._attr_hint())
                    self.status_value(a.attr, a.value)
                    self.expr(a.value, bound, extra)
            case ast.Call(verb=name, args=args):
                verb = self.verbs.get(name)
                if verb is None:
                    known = ", ".join(sorted(self.verbs)) or "none"
                    self.error(f"unknown action '{name}'", s, f"verbs declared by this version: {known}")
                elif len(verb.params) != len(args):
                    self.error(f"'{name}' takes {len(verb.params)} argument(s), {len(args)} given", s,
                               f"declared as: verb {name} {' '.join(verb.params)}")
                for a in args:
                    self.expr(a, bound, extra)
            case ast.Move(obj=o, zone=z, duration=d):
                if z not in self.zones:
                    self.error(f"unknown zone '{z}'", s, f"zones: {', '.join(sorted(self.zones))}")
                self.expr(o, bound, extra)
                self.duration(d, bound, extra)
            case ast.Pump() | ast.SetBase() | ast.Grant():
                self.expr(s.obj, bound, extra)
                self.duration(s.duration, bound, extra)
            case ast.GainControl(player=p, obj=o, duration=d):
                self.expr(p, bound, extra)
                self.expr(o, bound, extra)
                self.duration(d, bound, extra)
            case _:
                for child in s.children():
                    self.expr(child, bound, extra)

    def duration(self, d: ast.Node | None, bound: set[str], extra) -> None:
        if isinstance(d, ast.ForAsLongAs):
            self.expr(d.cond, bound, extra)
        elif isinstance(d, (ast.UntilLeaves, ast.UntilNextTurn)):
            name = d.obj if isinstance(d, ast.UntilLeaves) else d.player
            if name == "your":  # "until your next turn"
                name = "you"
            if name not in bound and name not in extra:
                self.error(f"unknown name '{name}'", d, "a duration names a player or object bound here (you, this, a target)")

    # ---------------------------------------------------------------- declarations and blocks

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

    def rule(self, rule: ast.Rule) -> None:
        for c in rule.clauses:
            match c:
                case ast.Hide(var=v, cond=cond) | ast.Exclude(var=v, cond=cond):
                    self.expr(cond, {v})
                case ast.Exempt(var=v, rule=target, cond=cond):
                    self.expr(cond, {v})
                    self.known_rule(target, c)
                case ast.During(hook=h, body=b):
                    self.stmt(b, {h.var} if h.var else set())
                case ast.Along(change=ch, body=b):
                    self.stmt(b, self.change(ch, set()))
                case ast.After(event=ev, body=b):
                    bound = self.change(ev, set()) if isinstance(ev, ast.Change) else {ev.var}
                    self.stmt(b, bound)
                case ast.Prefer(attr=a, value=v):
                    if a not in self.statuses:
                        self.error(f"unknown status '{a}'", c, self._attr_hint())
                    self.expr(v, set())
                case ast.Quiet(attr=a, kinds=kinds):
                    if a not in self.statuses and a != "zone":
                        self.error(f"unknown status '{a}'", c, self._attr_hint())
                    for k in kinds:
                        if k not in PERCEPTIONS:
                            self.error(f"unknown perception '{k}'", c, f"perceptions: {', '.join(PERCEPTIONS)}")
                case ast.Lookback(change=ch):
                    self.change(ch, set())
                case ast.Order(rules=ids):
                    for rid in ids:
                        self.known_rule(rid, c)
                case ast.AssertAfter(event=ev, cond=cond):
                    bound = self.change(ev, set()) if isinstance(ev, ast.Change) else {ev.var}
                    self.expr(cond, bound)
                case ast.AssertOnce(attr=a) | ast.AssertSkipped(attr=a):
                    if a not in self.statuses and a not in OBJECT_ATTRS:
                        self.error(f"unknown status '{a}'", c, self._attr_hint())

    def known_rule(self, rid: str, where: ast.Node) -> None:
        if rid not in self.rule_ids and rid not in self.allow_missing:
            self.error(f"no block {rid} in this version", where, "refer to a rule id this version has")

    def card(self, card: ast.Card) -> None:
        targets = {e.var for e in card.entries if isinstance(e, ast.Target)}
        bound = {"this", "you"} | targets
        for e in card.entries:
            match e:
                case ast.Target(var=v, cond=c):
                    self.expr(c, {"this", "you", v})
                case ast.Static(body=b) | ast.Spell(body=b):
                    self.stmt(b, bound)
                case ast.Triggered(trigger=t, body=b):
                    if isinstance(t, ast.OnChange):
                        self.change(t.change, bound)
                    self.stmt(b, bound)


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
    from dsl.printer import expr_text

    return expr_text(e)


def check_rulebook(book, modules: list[ast.Module], allow_missing: frozenset[str] = frozenset(),
                   declared: list[ast.Rule] | None = None) -> None:
    """Raise DiagnosticError listing every problem in a version's files and its cards."""
    rule_ids = {r.id for r in book.rules}
    checker = _Checker(book.statuses, book.verbs, rule_ids, allow_missing, book.zones)
    problems = checker.problems
    seen_status: dict[str, ast.StatusDecl] = {}
    seen_verb: dict[str, ast.VerbDecl] = {}
    for module in modules:
        for item in module.items:
            if isinstance(item, ast.StatusDecl):
                if item.name in seen_status:
                    checker.error(f"status '{item.name}' is declared twice", item, f"first declared at {seen_status[item.name].span}")
                seen_status.setdefault(item.name, item)
                checker.status(item)
            elif isinstance(item, ast.VerbDecl):
                if item.name in seen_verb:
                    checker.error(f"verb '{item.name}' is declared twice", item, f"first declared at {seen_verb[item.name].span}")
                seen_verb.setdefault(item.name, item)
                for param in repeated(item.params):
                    checker.error(f"verb '{item.name}' names its parameter '{param}' twice", item,
                                  "give each parameter its own name: verb "
                                  f"{item.name} {' '.join(distinct_names(item.params))}")
                for s in item.body:
                    checker.stmt(s, set(item.params))
            elif isinstance(item, (ast.Card, ast.Scenario)):
                checker.error("cards and scenarios do not belong in a version's folder", item,
                              "put cards in rules/cards/ and scenarios in tests/scenarios/")
    ids: dict[str, ast.Rule] = {}
    slugs: dict[str, ast.Rule] = {}
    for rule in declared if declared is not None else book.rules:
        if rule.id in ids:
            checker.error(f"rule {rule.id} appears twice", rule, f"first at {ids[rule.id].span}")
        if rule.slug in slugs:
            checker.error(f"slug '{rule.slug}' is used by {slugs[rule.slug].id} and {rule.id}", rule, "every block needs its own slug")
        ids.setdefault(rule.id, rule)
        slugs.setdefault(rule.slug, rule)
        checker.rule(rule)
    for section in book.version.sections:
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


def check_cards(cards: Iterable[ast.Card], book) -> list[Diagnostic]:
    """Cards are checked against the rulebook they are played under: a card may use a verb
    (say, "phase out until") that an older version does not have."""
    checker = _Checker(book.statuses, book.verbs, {r.id for r in book.rules}, zones=book.zones)
    for card in cards:
        checker.card(card)
    return checker.problems


def check_scenario(scn: ast.Scenario, book) -> list[Diagnostic]:
    """Names in a scenario's expectations must be its permanents, its players, or known values."""
    checker = _Checker(book.statuses, book.verbs, {r.id for r in book.rules}, zones=book.zones)
    names = set()
    for e in scn.entries:
        if isinstance(e, ast.Players):
            for name in repeated(e.names):
                checker.error(f"player '{name}' is named twice", e,
                              f"every player needs a name of their own: players {' '.join(distinct_names(e.names))}")
            names.update(e.names)
        elif isinstance(e, ast.PermanentDecl):
            names.add(e.name)
            for prop in e.props:
                if isinstance(prop, ast.PropStatus):
                    if prop.name not in book.statuses:
                        checker.error(f"unknown status '{prop.name}'", prop, checker._attr_hint())
                    checker.status_value(prop.name, prop.value)
    used = {e.card for e in scn.entries if isinstance(e, ast.PermanentDecl)}
    used |= {s.card for e in scn.entries if isinstance(e, ast.Script) for s in e.steps if isinstance(s, (ast.Cast, ast.Choose))}
    checker.problems.extend(check_cards([book.cards[c] for c in sorted(used) if c in book.cards], book))
    made = {card_slug(c) + suffix for c in used for suffix in ("", "_2", "_3")}  # what casting them makes
    for e in scn.entries:
        if isinstance(e, ast.Script):
            for s in e.steps:
                if isinstance(s, ast.Expect) and (not s.versions or book.version.id in s.versions):
                    checker.expr(s.cond, set(), names | made)
    return checker.problems
