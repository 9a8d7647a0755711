"""Source text to syntax tree: an LALR parser for `grammar.lark` (tables shipped as data, `dsl/tables.py`).

Syntax errors become diagnostics carrying the position, the offending token and a hint
drawn from what the parser expected there.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Callable, NamedTuple

import attrs
import lark
from lark import Token
from lark.exceptions import GrammarError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast, cache, limits, tables
from .builtins import GAME_HOOKS
from .diagnostics import Diagnostic, DiagnosticError, Span

GRAMMAR = Path(__file__).with_name("grammar.lark")


@functools.cache
def keywords() -> frozenset[str]:
    """The grammar's words (`each`, `tap`, `draws`, ...): a name spelt like one may be read as
    that word where the grammar allows it, so a verb cannot be named so and called without `do`."""
    import re

    return frozenset(re.findall(r'"([A-Za-z_][A-Za-z0-9_\-]*)"', GRAMMAR.read_text(encoding="utf-8")))


@functools.cache
def _parser() -> lark.Lark:
    # From the analysed tables shipped as data (`dsl/tables.py`): no pickle, no grammar cache
    # in the temporary folder, and no half-second table construction on a cold start.
    return tables.parser()


def _span(path: str, meta) -> Span:
    if getattr(meta, "empty", True):
        return Span(path, 1, 1, 1, 1)
    return Span(path, meta.line, meta.column, meta.end_line, meta.end_column)


def _token_span(path: str, token: Token) -> Span:
    return Span(path, token.line, token.column, token.end_line or token.line, token.end_column or token.column + 1)


def _unquote(token: Token) -> str:
    return str(token)[1:-1]


def _names(tokens) -> tuple[str, ...]:
    return tuple(str(t) for t in tokens if isinstance(t, Token))


class _Priority(NamedTuple):
    """A line of a turn declaration saying where players get priority: "none" (`no priority:`)
    or "after" (`priority only after triggers:`), and its steps."""

    kind: str
    steps: tuple[str, ...]


def step_name(token) -> str:
    """The name of a step or phase as written, with single spaces between its words."""
    return " ".join(str(token).split())


def _step_list(children) -> list[str]:
    """A list of steps written `A, B, C` (a rule of the grammar recursing on its left)."""
    return [name for part in children for name in (part if isinstance(part, list) else [step_name(part)])]


def _defenders(attackers) -> tuple:
    """What each attacker of `attack with` attacks (`at NAME`), or () when none says."""
    return tuple(d for _, d in attackers) if any(d is not None for _, d in attackers) else ()


def _distinct_labels(clauses, where: str) -> None:
    """No two clauses of one block share a label: an `amend` could not tell them apart."""
    first: dict[str, ast.Node] = {}
    for clause in clauses:
        if clause.label is None:
            continue
        if clause.label in first:
            raise DiagnosticError(Diagnostic(
                "error", f"{where} has two clauses labelled '{clause.label}'", clause.span,
                f"labels name one clause each within a block; the first is at {first[clause.label].span}"))
        first[clause.label] = clause


def _simple(cls):
    """The callback of a rule whose node takes its children as they are."""
    def build(self, meta, c):
        return cls(*c, **self._at(meta))

    return build


class _Callbacks:
    """What the callbacks of one part of the language share: the path of the file, for spans.
    Each public method is the callback of the grammar rule of its name, taking the node's
    position (`meta`) and its children (already built)."""

    def __init__(self, path: str, older: list[Token] | None = None):
        self.path = path
        self.older = older  # (when a list: each older form read is added to it, for `phasing fmt`)

    def _at(self, meta):
        return {"span": _span(self.path, meta)}

    def _label(self, meta, label: str, clause: ast.Node) -> ast.Node:
        """`clause NAME: CLAUSE`: the clause, carrying its label, spanning the label too."""
        if clause.label is not None:
            raise DiagnosticError(Diagnostic("error", f"this clause has two labels, '{label}' and '{clause.label}'",
                                             clause.span, "a clause has one label: keep one 'clause NAME:'"))
        return attrs.evolve(clause, label=label, **self._at(meta))


class _Declarations(_Callbacks):
    """Files and declarations: versions and variants, sections, statuses, verbs and rule blocks."""

    # --- module and vocabulary
    def start(self, meta, items):
        return ast.Module(tuple(items), **self._at(meta))

    def _manifest(self, meta, children, kind):
        vid, *entries = children
        pairs = [e for e in entries if isinstance(e, tuple)]
        problems, first = [], {}
        for key, _value, at in pairs:  # (a manifest has one of each of these; notes may be many)
            if key not in ("title", "extends", "reconstructed"):
                continue
            if key in first:
                problems.append(Diagnostic(
                    "error", f"'{key}' is given twice in the manifest of {vid}; the first is at line {first[key].line}",
                    at, f"keep one (a manifest has one title, one extends and one reconstructed; any number of notes); "
                        f"the first is at {first[key]}"))
            else:
                first[key] = at
        if problems:
            raise DiagnosticError(problems)
        title = next((v for k, v, _ in pairs if k == "title"), None)
        extends = next((v for k, v, _ in pairs if k == "extends"), None)
        sections = tuple(e for e in entries if isinstance(e, ast.Section))
        notes = tuple(v for k, v, _ in pairs if k == "note")
        renumbers = tuple(v for k, v, _ in pairs if k == "renumber")
        drops = tuple(v for k, v, _ in pairs if k == "drop")
        reconstructed = next((v for k, v, _ in pairs if k == "reconstructed"), None)
        return ast.Version(str(vid), title, extends, sections, notes, renumbers, drops, kind, reconstructed,
                           **self._at(meta))

    def version(self, meta, children):
        return self._manifest(meta, children, "version")

    def variant(self, meta, children):
        return self._manifest(meta, children, "variant")

    # A manifest entry is (what, value, where), for `_manifest` to tell a repeated one.
    def renumber(self, meta, c):
        node = ast.Renumber(str(c[0]), str(c[1]), **self._at(meta))
        return ("renumber", node, node.span)

    def drop(self, meta, c):
        node = ast.Drop(str(c[0]), **self._at(meta))
        return ("drop", node, node.span)

    def title(self, meta, c):
        return ("title", _unquote(c[0]), _span(self.path, meta))

    def extends(self, meta, c):
        node = ast.Extends(str(c[0]), **self._at(meta))
        return ("extends", node, node.span)

    def note(self, meta, c):
        return ("note", _unquote(c[0]), _span(self.path, meta))

    def reconstructed(self, meta, c):
        return ("reconstructed", _unquote(c[0]), _span(self.path, meta))

    def section(self, meta, c):
        return ast.Section(str(c[0]), _names(c[1:]), **self._at(meta))

    def status_decl(self, meta, c):
        name, (kind, values), default, *rest = c
        cites = rest[0] if rest else ()
        return ast.StatusDecl(str(name), kind, values, default, cites, **self._at(meta))

    def enum_type(self, _meta, c):
        return ("enum", _names(c))

    def named_type(self, _meta, c):
        return (str(c[0]), ())

    def cites(self, _meta, c):
        return _names(c)

    def verb_decl(self, meta, c):
        name = str(c[0])
        params = tuple(str(t) for t in c[1:] if isinstance(t, Token))
        cites = next((x for x in c[1:] if isinstance(x, tuple)), ())
        body = tuple(x for x in c[1:] if isinstance(x, ast.Node))
        return ast.VerbDecl(name, params, cites, body, **self._at(meta))

    # --- the turn
    def turn_structure(self, meta, c):
        marks = [x for x in c if isinstance(x, _Priority)]
        cites = next((x for x in c if isinstance(x, tuple) and not isinstance(x, _Priority)), ())
        phases = tuple(x for x in c if isinstance(x, ast.TurnPhase))
        no_priority = tuple(step for mark in marks if mark.kind == "none" for step in mark.steps)
        after = tuple(step for mark in marks if mark.kind == "after" for step in mark.steps)
        return ast.TurnStructure(phases, no_priority, after, cites, **self._at(meta))

    def turn_phase(self, meta, c):
        return ast.TurnPhase(step_name(c[0]), tuple(c[1]) if len(c) > 1 else (), **self._at(meta))

    def turn_steps(self, _meta, c):
        return _step_list(c)

    def no_priority(self, _meta, c):
        return _Priority("none", tuple(c[0]))

    def priority_after_triggers(self, _meta, c):
        return _Priority("after", tuple(c[0]))

    # --- rules
    def rule(self, meta, c):
        rid, slug, summary, *clauses = c
        _distinct_labels(clauses, f"block {rid}")
        return ast.Rule(str(rid), str(slug), _unquote(summary), tuple(clauses), **self._at(meta))

    def labelled(self, meta, c):
        return self._label(meta, str(c[0]), c[1])


class _Clauses(_Callbacks):
    """The clauses of a rule block (hooks, `as`, `after`, `prefer`, hide, assertions ...), zones, and `amend`."""

    # --- amending a block
    def amend(self, meta, c):
        return ast.Amend(str(c[0]), tuple(c[1:]), **self._at(meta))

    def amend_summary(self, meta, c):
        return ast.AmendSummary(_unquote(c[0]), **self._at(meta))

    def amend_replace(self, meta, c):
        return ast.ReplaceClause(self._label(meta, str(c[0]), c[1]), **self._at(meta))

    def amend_add(self, meta, c):
        return ast.AddClause(self._label(meta, str(c[0]), c[1]), **self._at(meta))

    def amend_drop(self, meta, c):
        return ast.DropClause(str(c[0]), **self._at(meta))

    def hide(self, meta, c):
        return ast.Hide(str(c[0]), c[1], **self._at(meta))

    def during(self, meta, c):
        return ast.During(c[0], c[1], **self._at(meta))

    def as_clause(self, meta, c):
        return ast.AsClause(c[0], c[1], **self._at(meta))

    def after(self, meta, c):
        return ast.After(c[0], c[1], **self._at(meta))

    def prefer(self, meta, c):
        return ast.Prefer(str(c[0]), c[1], **self._at(meta))

    def not_perceived(self, meta, c):
        old = next((x[1] for x in c[1:] if isinstance(x, tuple)), None)
        return ast.NotPerceived(str(c[0]), _names(c[1:]), old, **self._at(meta))

    def exempt(self, meta, c):
        return ast.Exempt(str(c[0]), str(c[1]), c[2], **self._at(meta))

    def exclude(self, meta, c):
        return ast.Exclude(str(c[0]), c[1], **self._at(meta))

    def lookback(self, meta, c):
        return ast.Lookback(c[0], **self._at(meta))

    def skip_step(self, meta, c):
        return ast.SkipStep(c[0], c[1], **self._at(meta))

    def forbid_attack(self, meta, c):
        return ast.ForbidAttack(str(c[0]), c[1], **self._at(meta))

    def forbid_block(self, meta, c):
        return ast.ForbidBlock(str(c[0]), str(c[1]), c[2], **self._at(meta))

    def order(self, meta, c):
        return ast.Order(c[0], _names(c[1:]), **self._at(meta))

    def assert_after(self, meta, c):
        return ast.AssertAfter(c[0], c[1], **self._at(meta))

    def assert_once(self, meta, c):
        return ast.AssertOnce(c[0], str(c[1]), **self._at(meta))

    def assert_skipped(self, meta, c):
        return ast.AssertSkipped(c[0], str(c[1]), **self._at(meta))

    def assert_always(self, meta, c):
        return ast.AssertAlways(str(c[0]), c[1], **self._at(meta))

    def hook(self, meta, c):
        var = str(c[1]) if len(c) > 1 else None
        return ast.Hook(c[0], var, **self._at(meta))

    def hook_kind(self, _meta, c):
        """A hook's name, as its kind in the tree (`HOOK_KIND_OF`): `upkeep step` and the older
        `upkeep` are one hook; a step's name is read with single spaces between its words."""
        written = " ".join(step_name(t) for t in c)
        if written in OLDER_HOOK_NAMES and self.older is not None:
            self.older.append(c[-1])
        return OLDER_HOOK_NAMES.get(written, written)

    def change(self, meta, c):
        var, attr, value, *rest = c
        old = next((x[1] for x in rest if isinstance(x, tuple)), None)
        cond = next((x for x in rest if not isinstance(x, tuple)), None)
        return ast.Change(str(var), str(attr), value, cond, old, **self._at(meta))

    def change_from(self, _meta, c):
        return ("from", c[0])

    def observe_decl(self, meta, c):
        name, var, *rest = c
        cites = rest.pop() if rest and isinstance(rest[-1], tuple) and not isinstance(rest[-1], ast.Node) else ()
        *cases, default = rest
        return ast.ObserveDecl(str(name), str(var), tuple(cases), default, cites, **self._at(meta))

    def observe_case(self, meta, c):
        return ast.ObserveCase(c[0], c[1], **self._at(meta))

    def zone_decl(self, meta, c):
        cites = c[2] if len(c) > 2 else ()
        return ast.ZoneDecl(str(c[0]), c[1], cites, **self._at(meta))

    def keeps_all(self, _meta, c):
        return ("all",)

    def keeps_some(self, _meta, c):
        return _names(c)

    def leaves_event(self, meta, c):
        return ast.LeavesEvent(str(c[0]), **self._at(meta))


class _Statements(_Callbacks):
    """Statements and durations."""

    # --- statements
    def block(self, meta, c):
        return ast.Block(tuple(c), **self._at(meta))

    def simultaneously(self, meta, c):
        return ast.Simultaneously(tuple(c), **self._at(meta))

    def each(self, meta, c):
        return ast.Each(str(c[0]), c[1], c[2], **self._at(meta))

    def each_object(self, meta, c):
        return ast.Each(str(c[0]), c[1], c[2], True, **self._at(meta))

    def each_hidden(self, meta, c):
        cond = c[1] if len(c) > 2 else None
        return ast.Each(str(c[0]), cond, c[-1], False, True, **self._at(meta))

    def each_object_hidden(self, meta, c):
        cond = c[1] if len(c) > 2 else None
        return ast.Each(str(c[0]), cond, c[-1], True, True, **self._at(meta))

    def if_stmt(self, meta, c):
        return ast.If(c[0], c[1], **self._at(meta))

    def set_stmt(self, meta, c):
        return ast.Set(tuple(c), **self._at(meta))

    def assign(self, meta, c):
        return ast.Assign(str(c[0]), str(c[1]), c[2], **self._at(meta))

    attach = _simple(ast.Attach)
    unattach = _simple(ast.Unattach)
    tap = _simple(ast.Tap)
    untap = _simple(ast.Untap)
    remove_from_combat = _simple(ast.RemoveFromCombat)
    remove_damage = _simple(ast.RemoveDamage)
    destroy = _simple(ast.Destroy)
    cease = _simple(ast.Cease)
    end_tracking = _simple(ast.EndTracking)
    end_until_end_of_turn = _simple(ast.EndUntilEndOfTurn)
    end_until_next_turn = _simple(ast.EndUntilNextTurn)
    end_failed = _simple(ast.EndFailed)
    end_control = _simple(ast.EndControl)
    end_limited = _simple(ast.EndLimited)
    lose_delayed = _simple(ast.LoseDelayed)
    draw = _simple(ast.Draw)
    gain_life = _simple(ast.GainLife)
    attack = _simple(ast.AttackWith)
    until_end_of_turn = _simple(ast.UntilEndOfTurn)
    for_as_long_as = _simple(ast.ForAsLongAs)

    def move(self, meta, c):
        return ast.Move(c[0], str(c[1]), c[2] if len(c) > 2 else None, **self._at(meta))

    def delayed(self, meta, c):
        return ast.Delayed(c[0], c[1], **self._at(meta))

    def combat_damage(self, meta, c):
        return ast.CombatDamage(**self._at(meta))

    def extra_steps(self, meta, c):
        return ast.ExtraSteps(tuple(c[0]), **self._at(meta))

    def extra_list(self, _meta, c):
        return _step_list(c)

    def deal_damage(self, meta, c):
        return ast.DealDamage(int(c[0]), c[1], **self._at(meta))

    def pump(self, meta, c):
        return ast.Pump(c[0], int(c[1]), int(c[2]), c[3] if len(c) > 3 else None, **self._at(meta))

    def set_base(self, meta, c):
        return ast.SetBase(c[0], int(c[1]), int(c[2]), c[3] if len(c) > 3 else None, **self._at(meta))

    def grant(self, meta, c):
        return ast.Grant(c[0], str(c[1]), c[2] if len(c) > 2 else None, **self._at(meta))

    def gain_control(self, meta, c):
        return ast.GainControl(c[0], c[1], c[2] if len(c) > 2 else None, **self._at(meta))

    def add_counters(self, meta, c):
        return ast.AddCounters(int(c[0]), str(c[1]), c[2], **self._at(meta))

    def remove_counters(self, meta, c):
        return ast.RemoveCounters(int(c[0]), str(c[1]), c[2], **self._at(meta))

    def call(self, meta, c):
        return ast.Call(str(c[0]), tuple(c[1:]), **self._at(meta))

    def until_next_turn(self, meta, c):
        return ast.UntilNextTurn(str(c[0]), **self._at(meta))

    def until_next_step(self, meta, c):
        return ast.UntilNextStep(step_name(c[0]), str(c[1]), **self._at(meta))

    def until_leaves(self, meta, c):
        return ast.UntilLeaves(str(c[0]), **self._at(meta))


class _Expressions(_Callbacks):
    """Expressions."""

    # --- expressions
    def or_(self, meta, c):
        if len(c) == 1:
            return c[0]
        return ast.Or(tuple(c), **self._at(meta))

    def and_(self, meta, c):
        if len(c) == 1:
            return c[0]
        return ast.And(tuple(c), **self._at(meta))

    def not_(self, meta, c):
        return ast.Not(c[0], **self._at(meta))

    def is_(self, meta, c):
        return ast.Is(c[0], c[1], **self._at(meta))

    def is_not(self, meta, c):
        return ast.Is(c[0], c[1], True, **self._at(meta))

    def is_a(self, meta, c):
        return ast.IsA(c[0], str(c[1]), **self._at(meta))

    def is_not_a(self, meta, c):
        return ast.IsA(c[0], str(c[1]), True, **self._at(meta))

    def has(self, meta, c):
        return ast.Has(c[0], str(c[1]), **self._at(meta))

    def visible(self, meta, c):
        return ast.Visible(c[0], **self._at(meta))

    def not_visible(self, meta, c):
        """`x is not visible`: the same tree as `not (x is visible)`."""
        return ast.Not(ast.Visible(c[0], **self._at(meta)), **self._at(meta))

    def unchanged(self, meta, c):
        return ast.Unchanged(c[0], **self._at(meta))

    def compare(self, meta, c):
        return ast.Compare(str(c[1]), c[0], c[2], **self._at(meta))

    def add(self, meta, c):
        return ast.Add(c[0], c[1], **self._at(meta))

    def name(self, meta, c):
        return ast.Name(str(c[0]), **self._at(meta))

    def attr(self, meta, c):
        return ast.Attr(c[0], str(c[1]), **self._at(meta))

    def number(self, meta, c):
        return ast.Number(int(c[0]), **self._at(meta))

    def string(self, meta, c):
        return ast.String(_unquote(c[0]), **self._at(meta))

    def count(self, meta, c):
        return ast.Count(str(c[0]), c[1], **self._at(meta))

    def count_hidden(self, meta, c):
        return ast.Count(str(c[0]), c[1] if len(c) > 1 else None, True, **self._at(meta))


class _Cards(_Callbacks):
    """Cards: their characteristics, abilities, targets and triggers."""

    # --- cards
    def card(self, meta, c):
        return ast.Card(_unquote(c[0]), tuple(c[1:]), **self._at(meta))

    def types(self, meta, c):
        return ast.Types(_names(c), **self._at(meta))

    def pt(self, meta, c):
        return ast.PT(int(c[0]), int(c[1]), **self._at(meta))

    def keywords(self, meta, c):
        return ast.Keywords(_names(c), **self._at(meta))

    def target(self, meta, c):
        return ast.Target(str(c[0]), c[1], **self._at(meta))

    def partial(self, meta, c):
        return ast.Partial(_unquote(c[0]), **self._at(meta))

    static = _simple(ast.Static)
    spell = _simple(ast.Spell)

    def activated(self, meta, c):
        costs = tuple(x for x in c[:-1] if not isinstance(x, ast.Target))
        targets = tuple(x for x in c[:-1] if isinstance(x, ast.Target))
        return ast.Activated(costs, targets, c[-1], **self._at(meta))

    def mana_cost(self, meta, c):
        symbols = tuple(str(t) for t in c)
        if symbols == ("T",):
            return ast.TapCost(**self._at(meta))
        return ast.ManaCost(symbols, **self._at(meta))

    def mana_symbol(self, meta, c):
        return str(c[0])

    def life_cost(self, meta, c):
        return ast.LifeCost(int(c[0]), **self._at(meta))

    def other_cost(self, meta, c):
        return ast.OtherCost(_names(c), **self._at(meta))

    ability_target = target
    triggered = _simple(ast.Triggered)

    def on_blocks(self, meta, c):
        return ast.OnBlocks(str(c[0]), str(c[1]), c[2] if len(c) > 2 else None, **self._at(meta))

    def on_blocked(self, meta, c):
        return ast.OnBlocked(str(c[0]), str(c[1]), c[2] if len(c) > 2 else None, **self._at(meta))

    def on_targeted(self, meta, c):
        return ast.OnTargeted(str(c[0]), str(c[1]), c[2] if len(c) > 2 else None, **self._at(meta))

    def triggered_batch(self, meta, c):
        """`when one or more TRIGGER: BODY`: once for every batch of events that fit (603.2c)."""
        trigger, body = c
        return ast.Triggered(trigger, body, None, True, **self._at(meta))

    def triggered_if(self, meta, c):
        """`when TRIGGER, if COND: BODY`: an intervening `if` (603.4)."""
        trigger, condition, body = c
        return ast.Triggered(trigger, body, condition, **self._at(meta))
    on_change = _simple(ast.OnChange)

    def on_enters(self, meta, c):
        return ast.OnEnters(str(c[0]), c[1] if len(c) > 1 else None, **self._at(meta))

    def on_leaves(self, meta, c):
        return ast.OnLeaves(str(c[0]), c[1] if len(c) > 1 else None, **self._at(meta))

    def on_attached(self, meta, c):
        return ast.OnAttached(str(c[0]), c[1] if len(c) > 1 else None, **self._at(meta))

    def on_unattached(self, meta, c):
        return ast.OnUnattached(str(c[0]), c[1] if len(c) > 1 else None, **self._at(meta))

    def step_triggered(self, meta, c):
        """`at beginning of STEP of you: BODY`: a triggered ability whose trigger is a step of
        its controller's turn beginning."""
        step, body = c
        return ast.Triggered(ast.OnStep(step, **self._at(meta)), body, **self._at(meta))

    def step_triggered_each(self, meta, c):
        """`at beginning of STEP of each player P: BODY`: the same, at that step of every
        player's turn, with `P` the player whose turn it is."""
        step, player, body = c
        return ast.Triggered(ast.OnStep(step, str(player), **self._at(meta)), body, **self._at(meta))


class _Scenarios(_Callbacks):
    """Scenarios: their entries, the board and the script (its steps are `_Steps`)."""

    # --- scenarios
    def scenario(self, meta, c):
        return ast.Scenario(_unquote(c[0]), tuple(c[1:]), **self._at(meta))

    def scenario_cites(self, meta, c):
        return ast.ScenarioCites(_names(c), **self._at(meta))

    def scenario_rules(self, meta, c):
        return ast.ScenarioRules(_names(c), **self._at(meta))

    def scenario_range(self, meta, c):
        return ast.ScenarioRange(str(c[0]), str(c[1]) if len(c) > 1 else None, **self._at(meta))

    def players(self, meta, c):
        return ast.Players(_names(c), **self._at(meta))

    def turn(self, meta, c):
        return ast.TurnDecl(int(c[0]), str(c[1]), **self._at(meta))

    def permanent(self, meta, c):
        return ast.PermanentDecl(str(c[0]), _unquote(c[1]), tuple(c[2:]), **self._at(meta))

    def flag(self, meta, c):
        return ast.Flag(str(c[0]), **self._at(meta))

    def prop_player(self, meta, c):
        return ast.PropPlayer(str(c[0]), str(c[1]), **self._at(meta))

    def prop_attached(self, meta, c):
        return ast.PropAttached(str(c[0]), **self._at(meta))

    def prop_counter(self, meta, c):
        return ast.PropCounter(str(c[0]), str(c[1]), int(c[2]), **self._at(meta))

    def prop_status(self, meta, c):
        return ast.PropStatus(str(c[0]), c[1], **self._at(meta))

    def prop_damage(self, meta, c):
        return ast.PropDamage(int(c[0]), **self._at(meta))

    def prop_entered(self, meta, c):
        return ast.PropEntered(int(c[0]), **self._at(meta))

    def script(self, meta, c):
        return ast.Script(tuple(c), **self._at(meta))



class _Steps(_Callbacks):
    """The steps of a scenario's script: the turn, spells and abilities, combat, expectations."""

    def next_turn(self, meta, c):
        return ast.NextTurn((), **self._at(meta))

    def next_turn_skip(self, meta, c):
        return ast.NextTurn(tuple(c[0]), **self._at(meta))

    def skipped_list(self, _meta, c):
        return _step_list(c)

    def hold_next_turn(self, meta, c):
        return ast.NextTurn((), True, **self._at(meta))

    def hold_next_turn_skip(self, meta, c):
        return ast.NextTurn(tuple(c[0]), True, **self._at(meta))

    def to_step(self, meta, c):
        return ast.ToStep(step_name(c[0]), **self._at(meta))

    def hold_to_step(self, meta, c):
        return ast.ToStep(step_name(c[0]), True, **self._at(meta))

    def attacker(self, _meta, c):
        return (str(c[0]), str(c[1]) if len(c) > 1 else None)

    def block_pair(self, _meta, c):
        return (str(c[0]), str(c[1]))

    def block_step(self, meta, c):
        return ast.BlockStep(tuple(c), **self._at(meta))

    def hold_block_step(self, meta, c):
        return ast.BlockStep(tuple(c), True, **self._at(meta))

    def hold_resolve(self, meta, c):
        return ast.Resolve(True, **self._at(meta))

    def hold_attack_step(self, meta, c):
        return ast.AttackStep(tuple(n for n, _ in c), True, _defenders(c), **self._at(meta))

    def cast(self, meta, c):
        return ast.Cast(_unquote(c[0]), str(c[1]), _names(c[2:]), False, **self._at(meta))

    def hold(self, meta, c):
        return ast.Cast(_unquote(c[0]), str(c[1]), _names(c[2:]), True, **self._at(meta))

    def activate_step(self, meta, c, hold: bool = False):
        ability = next((int(t) for t in c if isinstance(t, Token) and t.type == "INT"), 1)
        names = [str(t) for t in c if isinstance(t, Token) and t.type == "NAME"]
        return ast.Activate(names[0], names[1], ability, tuple(names[2:]), hold, **self._at(meta))

    def hold_activate_step(self, meta, c):
        return self.activate_step(meta, c, hold=True)

    def choose(self, meta, c):
        return ast.Choose(_unquote(c[0]), _names(c[1:]), **self._at(meta))

    def order_step(self, meta, c):
        return ast.OrderStep(tuple(_unquote(t) for t in c), **self._at(meta))

    def expect_for(self, meta, c):
        return ast.Expect(c[-1], _names(c[:-1]), **self._at(meta))

    resolve = _simple(ast.Resolve)
    cleanup_step = _simple(ast.CleanupStep)
    expect = _simple(ast.Expect)

    def expect_error(self, meta, c):
        return ast.ExpectError(_unquote(c[0]), **self._at(meta))

    def attack_step(self, meta, c):
        return ast.AttackStep(tuple(n for n, _ in c), False, _defenders(c), **self._at(meta))

    def player_leaves(self, meta, c):
        return ast.PlayerLeaves(str(c[0]), **self._at(meta))

    def move_step(self, meta, c):
        return ast.MoveStep(str(c[0]), str(c[1]), **self._at(meta))


_PARTS = (_Declarations, _Clauses, _Statements, _Expressions, _Cards, _Scenarios, _Steps)


@functools.cache
def _callback_names(part: type) -> tuple[str, ...]:
    """The rule callbacks a part of the builder defines: its public methods."""
    return tuple(name for name, value in vars(part).items() if callable(value) and not name.startswith("_"))


class _Builder:
    """Turns Lark's parse tree into `dsl.ast` nodes, each with its span: each node is built by
    the callback named after its grammar rule, found in the part of the language the rule
    belongs to (`_PARTS`)."""

    def __init__(self, path: str, older: list[Token] | None = None):
        self.callbacks: dict[str, Callable] = {}
        for part in _PARTS:
            built = part(path, older)
            for name in _callback_names(part):
                assert name not in self.callbacks, name  # (one callback per rule)
                self.callbacks[name] = getattr(built, name)

    def build_node(self, node: lark.Tree, children: list):
        """The callback of `node`'s rule on its built children; an exception it raises comes
        out as Lark's `VisitError` naming the node (a rule without a callback stays a tree)."""
        callback = self.callbacks.get(node.data)
        if callback is None:
            return lark.Tree(node.data, children, node.meta)
        try:
            return callback(node.meta, children)
        except GrammarError:
            raise
        except Exception as exc:
            raise VisitError(node.data, node, exc)

    def build(self, tree: lark.Tree):
        """The module a parse tree stands for, built without recursion: children first, each
        result handed to its parent."""
        results: list = []
        work: list = [(tree, False)]
        while work:
            node, ready = work.pop()
            if not isinstance(node, lark.Tree):
                results.append(node)  # tokens pass through; the rule callbacks convert them
            elif ready:
                count = len(node.children)
                children = results[len(results) - count:] if count else []
                del results[len(results) - count:]
                results.append(self.build_node(node, children))
            else:
                work.append((node, True))
                work.extend((child, False) for child in reversed(node.children))
        (module,) = results
        return module


_FRIENDLY = {
    "NAME": "a name", "STRING": "a quoted string", "RULEID": "a rule id such as 702.26a",
    "VERSION_ID": "a version date such as 2026-09-25", "INT": "a number", "SIGNED_INT": "a signed number such as +1",
    "LBRACE": "'{'", "RBRACE": "'}'", "COLON": "':'", "COMMA": "','", "DOT": "'.'", "EQUAL": "'='",
    "LPAR": "'('", "RPAR": "')'", "SLASH": "'/'", "VBAR": "'|'", "PLUS": "'+'", "COMPARE": "a comparison such as <=",
    "$END": "the end of the file",
}


# The older forms of hooks' names, still read, each with the name `phasing fmt` writes instead.
OLDER_HOOK_NAMES = {"upkeep": "upkeep step", "cleanup": "cleanup step"}
# The kind in the tree of each hook name the grammar reads: a step's or phase's name (as the
# rulebook's turn declares it, `dsl.builtins.GAME_HOOKS` besides), the older forms as the new.
HOOK_KIND_OF = {**{name: name for name in GAME_HOOKS}, **OLDER_HOOK_NAMES}
HOOK_LIST = ", ".join(GAME_HOOKS)


def hook_name(kind: str) -> str:
    """How the language writes the hook of `kind` (an older form as the newer: `upkeep` -> `upkeep step`)."""
    return OLDER_HOOK_NAMES.get(kind, kind)


# The first words of the game's hooks as terminals: where the parser expects all of these, it
# expects a hook.
_HOOK_WORDS = frozenset(name.split()[0].upper() for name in GAME_HOOKS) | {"STEP_NAME"}


def _hook_hint(found: str, before: list[str], expected: set[str]) -> str | None:
    """The hint at a word where a hook's name is expected (`during draw of P`): what a hook is."""
    if _HOOK_WORDS <= expected:
        skipped = " (or 'skipped' and one of them)" if "SKIPPED" in expected else ""
        return (f"a hook is a step or phase the rulebook's turn declares, by its whole name ('untap step', 'declare "
                f"blockers step', 'precombat main phase'), or one of: {HOOK_LIST}{skipped}")
    return None

_TOP_LEVEL = {"version", "variant", "zone", "status", "verb", "rule", "card", "scenario", "amend"}


def _describe(expected: set[str]) -> str:
    shown = []
    # A missing closing brace is the commonest slip: never let it fall off the end of the list.
    for name in sorted(expected, key=lambda n: (n != "RBRACE", n)):
        if name in _FRIENDLY:
            shown.append(_FRIENDLY[name])
        elif name.isupper():
            shown.append(f"'{name.lower()}'")
    return ", ".join(shown[:8]) + (", ..." if len(shown) > 8 else "")


def parse(text: str, path: str = "<string>", older: list[Token] | None = None) -> ast.Module:
    """Parse one file. Raises DiagnosticError with a positioned message on bad syntax, on
    nesting beyond `dsl.limits` and on numbers too long to be counts. `older`, a list: the
    last word of each older form of a hook's name read (`upkeep` of `during upkeep of P`) is
    added to it, in order (`dsl.migrate` rewrites them; the tree is the same either way)."""
    if text.startswith(BOM):  # a UTF-8 byte-order mark some editors write: not part of the text
        text = text[len(BOM):]
    text = one_line_ending(text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise DiagnosticError(_syntax_diagnostic(exc, text, path)) from None
    _check_limits(tree, path)
    try:
        return _Builder(path, older).build(tree)
    except VisitError as exc:  # a construct the builder cannot convert: point at it
        if isinstance(exc.orig_exc, DiagnosticError):  # one it refuses, with its own diagnostic
            raise exc.orig_exc from None
        meta = getattr(exc.obj, "meta", None)
        span = _token_span(path, exc.obj) if isinstance(exc.obj, Token) else _span(path, meta)
        raise DiagnosticError(Diagnostic("error", f"cannot read this: {exc.orig_exc}", span)) from None


BOM = "\ufeff"

# The line endings read as one: LF, CRLF and a lone CR (classic Mac OS), as Python's own
# universal newlines read them (`parse_file` opens files so), whatever way the text came in.
LINE_BREAK = re.compile(r"\r\n?|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n?|\n")


def one_line_ending(text: str) -> str:
    """`text` with every CRLF and lone CR written as LF: what the grammar reads as a line end
    (a comment runs to one). Lines, and so every diagnostic's line and column, are the same
    whichever ending a file uses."""
    if "\r" not in text:
        return text
    return LINE_BREAK.sub("\n", text)


# Lark rules that are one level of expression (`and_` only when it joins two or more parts;
# `or_` always: it stands for each expression slot and each parenthesis).
_EXPRESSION_LEVEL = frozenset({
    "or_", "not_", "is_", "is_not", "is_a", "is_not_a", "has", "visible", "not_visible", "unchanged", "compare", "add", "attr",
    "count", "count_hidden",
})
# Lark rules whose statements are one block deeper than the construct itself.
_BLOCK_LEVEL = frozenset({
    "verb_decl", "during", "as_clause", "after", "static", "spell", "triggered", "triggered_if", "triggered_batch", "step_triggered",
    "step_triggered_each",
    "each", "each_object", "each_hidden", "each_object_hidden", "if_stmt", "simultaneously", "delayed",
})
_INTEGER_TOKENS = frozenset({"INT", "SIGNED_INT"})


def _too_deep(what: str, limit: int, span: Span, hint: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", f"nested too deeply: {what} may nest at most {limit} levels", span, hint))


def _check_limits(tree: lark.Tree, path: str) -> None:
    """Nesting depth and number length, measured on Lark's tree without recursion, before
    anything recursive (the builder, the printer, the checker, the interpreter) meets it."""
    stack = [(tree, 0, 0)]
    while stack:
        node, expression, block = stack.pop()
        data = node.data
        if data in _EXPRESSION_LEVEL or (data == "and_" and len(node.children) > 1):
            expression += 1
            if expression > limits.MAX_EXPRESSION_DEPTH:
                raise _too_deep("expressions", limits.MAX_EXPRESSION_DEPTH, _span(path, node.meta),
                                "remove redundant parentheses, or split the expression into simpler conditions")
        if data in _BLOCK_LEVEL:
            block += 1
            if block > limits.MAX_BLOCK_DEPTH:
                raise _too_deep("blocks", limits.MAX_BLOCK_DEPTH, _span(path, node.meta),
                                "move the inner statements into a verb (`verb name ... { ... }`) and call it by its name (`name ...`)")
        for child in reversed(node.children):
            if type(child) is not Token:
                stack.append((child, expression, block))
            elif child.type in _INTEGER_TOKENS and len(child) > limits.MAX_INTEGER_DIGITS:
                digits = len(child.lstrip("+-"))
                if digits > limits.MAX_INTEGER_DIGITS:
                    raise DiagnosticError(Diagnostic(
                        "error", f"number too long: numbers may have at most {limits.MAX_INTEGER_DIGITS} digits",
                        _token_span(path, child), "no count, amount or turn needs more; check for a stray digit run"))


def _syntax_diagnostic(exc: UnexpectedInput, text: str, path: str) -> Diagnostic:
    line, column = getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        # `accepts` (what the parser really takes here) is narrower than `expected` when available.
        expected = set(getattr(exc, "accepts", None) or exc.expected or ())
        if token.type == "$END":
            lines = text.splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
            span = Span(path, line, column, line, column + 1)
            found = "end of file"
        else:
            span = _token_span(path, token)
            found = f"'{token}'"
        hint = f"expected {_describe(expected)}" if expected else None
        before = text.splitlines()[line - 1][:column - 1].split() if token.type != "$END" else []
        if token.type != "$END":  # (a step misspelt or misnamed: `during upkep of P`, `during draw of P`)
            hint = _hook_hint(str(token), before, expected) or hint
        if "RBRACE" in expected and (token.type == "$END" or str(token) in _TOP_LEVEL):
            hint = f"a '}}' is probably missing before this; {hint}"
        if before and before[-1] in ("counter", "sticker") and before[0] == "permanent" and "NAME" in expected:
            # (a kind spelt as printed, `counter +1/+1 = 1`: the kind is a name in the script)
            example = "counter p1p1 = 1 (p1p1 for +1/+1, m1m1 for -1/-1)" if before[-1] == "counter" else "sticker name = 1"
            hint = f"a {before[-1]}'s kind is a plain name: {example}"
        return Diagnostic("error", f"unexpected {found}", span, hint)
    if isinstance(exc, UnexpectedCharacters):
        char = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else "?"
        hint = f"expected {_describe(set(exc.allowed))}" if exc.allowed else None
        return Diagnostic("error", f"unexpected character {char!r}", Span(path, line, column, line, column + 1), hint)
    if isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        return Diagnostic("error", "unexpected end of file", Span(path, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2),
                          f"expected {_describe(set(exc.expected))}")
    return Diagnostic("error", str(exc).splitlines()[0], Span(path, line, column, line, column + 1))


def parse_file(path: str | Path) -> ast.Module:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DiagnosticError(_encoding_diagnostic(exc, str(path))) from None
    except OSError as exc:
        raise DiagnosticError(Diagnostic("error", f"cannot read file: {exc.strerror or exc}", Span(str(path), 0, 0, 0, 0),
                                         "give a readable rule file (.rules) or scenario (.scenario)")) from None
    return _cached_parse(text, str(path))


def _cached_parse(text: str, path: str) -> ast.Module:
    """Parse, or take the tree a previous run made of exactly this text at this path (`dsl.cache`)."""
    module = cache.load(path, text)
    if module is None:
        module = parse(text, path)
        cache.store(path, text, module)
    return module


def _encoding_diagnostic(exc: UnicodeDecodeError, path: str) -> Diagnostic:
    """Point at the first byte that is not UTF-8."""
    data = exc.object
    before = data[: exc.start]
    breaks = list(_LINE_BREAK_BYTES.finditer(before))  # (LF, CRLF or a lone CR, as `parse` reads them)
    line = len(breaks) + 1
    column = len(before[breaks[-1].end() if breaks else 0:].decode("utf-8", errors="replace")) + 1
    return Diagnostic("error", f"this file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be read",
                      Span(path, line, column, line, column + 1), "save the file as UTF-8")
