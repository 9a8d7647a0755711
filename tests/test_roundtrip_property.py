"""Property tests: Hypothesis builds syntax trees of every kind the grammar can produce, and
printing then parsing each one gives back an equal tree: parse(print_module(m)) == m.

Names come from a small alphabet that is never a keyword in the position it is used in;
strings never contain a double quote or a newline (the grammar has no escapes).

Every node class has its own strategy in `BY_CLASS`; the strategies for whole expressions,
statements, clauses, items and modules are unions of those, so a class that is registered is
also generated inside larger trees. `test_strategies_cover_every_node_class_of_the_ast` fails
when dsl/ast.py gains a class that has no strategy here."""

from __future__ import annotations

import inspect

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.dsl import ast as A
from phasing_rules.dsl.builtins import GAME_HOOKS
from phasing_rules.dsl.parser import HOOK_KIND_OF, _parser, parse
from phasing_rules.dsl.printer import expr_text, print_module

SETTINGS = settings(max_examples=200, deadline=None)

# ------------------------------------------------------------------ terminals

# Safe in every NAME position: no grammar keyword, covers upper case, digits, '_' and '-',
# and a vowel-initial word (printed with "an" by `is a`).
NAMES = st.sampled_from(["x", "y", "P", "Q", "foo", "bar_2", "owl", "baz-qux", "T1"])
LETTERS = st.sampled_from(list("abcdefghijkmnpz"))


def grammar_hook_kinds() -> list[str]:
    """The alternatives of the grammar's `hook_kind` rule of fixed words, as the parser joins
    them (the game's own hooks and the older names of two steps); the one read by a pattern,
    a step's name, is `STEP_NAMES` below."""
    parser = _parser()
    return sorted(
        " ".join(parser.get_terminal(sym.name).pattern.value for sym in rule.expansion)
        for rule in parser.rules if rule.origin.name == "hook_kind"
        and all(parser.get_terminal(sym.name).pattern.type == "str" for sym in rule.expansion)
    )


# A step's or phase's name (the grammar's STEP_NAME): lower-case words ending in `step` or
# `phase`, the words before drawn from the steps' own and from the language's keywords that
# come near a step's name (`to`, `hold`, `next`, `of`, `no`, `turn`, `state`), never `skipped`
# first (which `assert during skipped` reads).
STEP_WORDS = st.sampled_from(["untap", "upkeep", "draw", "end", "of", "combat", "beginning", "declare", "blockers",
                              "main", "precombat", "to", "hold", "next", "no", "turn", "state", "reckoning"])
STEP_NAMES = st.builds(lambda words, last: " ".join([*words, last]), st.lists(STEP_WORDS, min_size=1, max_size=3),
                       st.sampled_from(["step", "phase"]))
# The kinds a tree holds: a step's or phase's name, or one of the game's own hooks (an older
# name reads as the current one, which the printer writes: `upkeep` as `upkeep step`).
HOOK_KINDS = st.sampled_from(sorted({HOOK_KIND_OF[name] for name in grammar_hook_kinds()} | set(GAME_HOOKS))) | STEP_NAMES
RULE_IDS = st.builds(
    lambda a, b, letter: f"{a}.{b}{letter}",
    st.integers(100, 999), st.integers(0, 120), st.sampled_from(["", "a", "b", "n", "p"]),
)
VERSION_IDS = st.builds(
    lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}", st.integers(1993, 2099), st.integers(1, 12), st.integers(1, 28)
)
# Anything but '"' and newline; '#', braces and parentheses must stay inside the string.
TEXT = st.text(alphabet=st.sampled_from(list("abcXYZ019 .,:;'#{}()-+/|_!?")), max_size=16)
# A version or variant as `extends`, `rules` and `expect for` name it.
RULES_REFS = VERSION_IDS | NAMES
SMALL = st.integers(0, 99)
SIGNED = st.integers(-20, 20)
COMPARE_OPS = st.sampled_from(["<", "<=", ">", ">="])


def tuples(strategy, min_size=0, max_size=3):
    return st.lists(strategy, min_size=min_size, max_size=max_size).map(tuple)


def optional(strategy):
    return st.none() | strategy


BY_CLASS: dict[type, st.SearchStrategy] = {}


def register(strategies: dict[type, st.SearchStrategy]) -> st.SearchStrategy:
    """Record one strategy per node class and return their union."""
    for cls, strategy in strategies.items():
        BY_CLASS[cls] = strategy
    return st.one_of(*strategies.values())


# ------------------------------------------------------------------ expressions

EXPR_LEAVES = register({
    A.Name: st.builds(A.Name, NAMES),
    A.Number: st.builds(A.Number, SMALL),
    A.String: st.builds(A.String, TEXT),
})


def _expr_forms(children) -> dict[type, st.SearchStrategy]:
    return {
        A.Attr: st.builds(A.Attr, children, NAMES),
        A.Count: st.builds(A.Count, NAMES, children, st.booleans())
        | st.builds(lambda v: A.Count(v, None, True), NAMES),  # `count(x including hidden)`
        A.Add: st.builds(A.Add, children, children),
        A.Is: st.builds(A.Is, children, children, st.booleans()),
        A.IsA: st.builds(A.IsA, children, NAMES, st.booleans()),
        A.Has: st.builds(A.Has, children, NAMES),
        A.Visible: st.builds(A.Visible, children),
        A.Unchanged: st.builds(A.Unchanged, children),
        A.Compare: st.builds(A.Compare, COMPARE_OPS, children, children),
        A.And: st.builds(A.And, tuples(children, 2, 3)),
        A.Or: st.builds(A.Or, tuples(children, 2, 3)),
        A.Not: st.builds(A.Not, children),
    }


EXPRS = st.recursive(EXPR_LEAVES, lambda children: st.one_of(*_expr_forms(children).values()), max_leaves=6)
register(_expr_forms(EXPRS))

# ------------------------------------------------------------------ statements

DURATIONS = register({
    A.UntilEndOfTurn: st.builds(A.UntilEndOfTurn),
    A.UntilNextTurn: st.builds(A.UntilNextTurn, NAMES),
    A.UntilNextStep: st.builds(A.UntilNextStep, STEP_NAMES, NAMES),
    A.ForAsLongAs: st.builds(A.ForAsLongAs, EXPRS),
    A.UntilLeaves: st.builds(A.UntilLeaves, NAMES),
})
MAYBE_DURATION = optional(DURATIONS)
ASSIGNS = register({A.Assign: st.builds(A.Assign, NAMES, NAMES, EXPRS)})

SIMPLE_STMTS = register({
    A.Set: st.builds(A.Set, tuples(ASSIGNS, 1, 3)),
    A.Attach: st.builds(A.Attach, EXPRS, EXPRS),
    A.Unattach: st.builds(A.Unattach, EXPRS),
    A.Tap: st.builds(A.Tap, EXPRS),
    A.Untap: st.builds(A.Untap, EXPRS),
    A.RemoveFromCombat: st.builds(A.RemoveFromCombat, EXPRS),
    A.RemoveDamage: st.builds(A.RemoveDamage, EXPRS),
    A.Destroy: st.builds(A.Destroy, EXPRS),
    A.Move: st.builds(A.Move, EXPRS, NAMES, MAYBE_DURATION),
    A.Cease: st.builds(A.Cease, EXPRS),
    A.EndTracking: st.builds(A.EndTracking, EXPRS),
    A.EndUntilEndOfTurn: st.builds(A.EndUntilEndOfTurn),
    A.EndUntilNextTurn: st.builds(A.EndUntilNextTurn, EXPRS),
    A.EndFailed: st.builds(A.EndFailed),
    A.EndLimited: st.builds(A.EndLimited, EXPRS),
    A.LoseDelayed: st.builds(A.LoseDelayed, EXPRS),
    A.EndControl: st.builds(A.EndControl, EXPRS),
    A.DealDamage: st.builds(A.DealDamage, SMALL, EXPRS),
    A.Pump: st.builds(A.Pump, EXPRS, SIGNED, SIGNED, MAYBE_DURATION),
    A.SetBase: st.builds(A.SetBase, EXPRS, SMALL, SMALL, MAYBE_DURATION),
    A.Grant: st.builds(A.Grant, EXPRS, NAMES, MAYBE_DURATION),
    A.GainControl: st.builds(A.GainControl, EXPRS, EXPRS, MAYBE_DURATION),
    A.Draw: st.builds(A.Draw, EXPRS, EXPRS),
    A.GainLife: st.builds(A.GainLife, EXPRS, EXPRS),
    A.AddCounters: st.builds(A.AddCounters, SMALL, NAMES, EXPRS),
    A.RemoveCounters: st.builds(A.RemoveCounters, SMALL, NAMES, EXPRS),
    A.AttackWith: st.builds(A.AttackWith, EXPRS),
    A.CombatDamage: st.builds(A.CombatDamage),
    A.ExtraSteps: st.builds(A.ExtraSteps, tuples(STEP_NAMES, 1, 3)),
    A.Call: st.builds(A.Call, NAMES, tuples(EXPRS, 1, 3)),
})


def _compound_stmts(stmts) -> dict[type, st.SearchStrategy]:
    # `stmts` never yields a Block: the grammar only has braces as the body after a ':'.
    body = stmts | st.builds(A.Block, tuples(stmts, 0, 3))
    return {
        A.Simultaneously: st.builds(A.Simultaneously, tuples(stmts, 0, 3)),
        A.Each: st.builds(A.Each, NAMES, EXPRS, body, st.booleans(), st.booleans())
        | st.builds(lambda v, b, every: A.Each(v, None, b, every, True), NAMES, body, st.booleans()),
        A.If: st.builds(A.If, EXPRS, body),
        A.Delayed: st.builds(A.Delayed, HOOK_KINDS, body),
    }


STMTS = st.recursive(SIMPLE_STMTS, lambda stmts: st.one_of(*_compound_stmts(stmts).values()), max_leaves=4)
register(_compound_stmts(STMTS))
BLOCKS = register({A.Block: st.builds(A.Block, tuples(STMTS, 0, 3))})
BODIES = STMTS | BLOCKS

# ------------------------------------------------------------------ rule blocks

HOOKS = register({A.Hook: st.builds(A.Hook, HOOK_KINDS, optional(NAMES))})
CHANGES = register({A.Change: st.builds(A.Change, NAMES, NAMES, EXPRS, optional(EXPRS), optional(EXPRS))})
EVENTS = CHANGES | register({A.LeavesEvent: st.builds(A.LeavesEvent, NAMES)})

CLAUSES = register({
    A.Hide: st.builds(A.Hide, NAMES, EXPRS),
    A.During: st.builds(A.During, HOOKS, BODIES),
    A.AsClause: st.builds(A.AsClause, CHANGES, BODIES),
    A.After: st.builds(A.After, EVENTS, BODIES),
    A.Prefer: st.builds(A.Prefer, NAMES, EXPRS),
    A.NotPerceived: st.builds(A.NotPerceived, NAMES, tuples(NAMES, 1, 3), optional(EXPRS)),
    A.Exempt: st.builds(A.Exempt, NAMES, RULE_IDS, EXPRS),
    A.Exclude: st.builds(A.Exclude, NAMES, EXPRS),
    A.Lookback: st.builds(A.Lookback, CHANGES),
    A.Order: st.builds(A.Order, HOOK_KINDS, tuples(RULE_IDS, 1, 3)),
    A.AssertAfter: st.builds(A.AssertAfter, EVENTS, EXPRS),
    A.AssertOnce: st.builds(A.AssertOnce, HOOKS, NAMES),
    A.AssertSkipped: st.builds(A.AssertSkipped, HOOKS, NAMES),
    A.AssertAlways: st.builds(A.AssertAlways, NAMES, EXPRS),
    A.ForbidAttack: st.builds(A.ForbidAttack, NAMES, EXPRS),
    A.ForbidBlock: st.builds(A.ForbidBlock, NAMES, NAMES, EXPRS),
    A.SkipStep: st.builds(A.SkipStep, HOOKS, EXPRS),
})
# (a card's restrictions are the same nodes, never labelled)
CARD_FORBIDS = st.builds(A.ForbidAttack, NAMES, EXPRS) | st.builds(A.ForbidBlock, NAMES, NAMES, EXPRS)


# Any clause may carry a label (`clause NAME: ...`); within one block the labels are distinct.
def _with_label(strategy, labels):
    return st.builds(lambda clause, label: attrs.evolve(clause, label=label), strategy, labels)


_CLAUSE_CLASSES = (A.Hide, A.During, A.AsClause, A.After, A.Prefer, A.NotPerceived, A.Exempt, A.Exclude, A.Lookback, A.Order,
                   A.AssertAfter, A.AssertOnce, A.AssertSkipped, A.AssertAlways, A.ForbidAttack, A.ForbidBlock, A.SkipStep)
CLAUSES = register({cls: _with_label(BY_CLASS[cls], optional(NAMES)) for cls in _CLAUSE_CLASSES})
LABELLED_CLAUSES = st.one_of(*(_with_label(BY_CLASS[cls], NAMES) for cls in _CLAUSE_CLASSES))


def distinct_labels(clauses: tuple) -> tuple:
    """The clauses, each label after the first use of it taken off."""
    seen: set[str] = set()
    kept = []
    for clause in clauses:
        kept.append(attrs.evolve(clause, label=None) if clause.label in seen else clause)
        seen.add(clause.label)
    return tuple(kept)


BLOCK_CLAUSES = tuples(CLAUSES, 0, 3).map(distinct_labels)

AMEND_ENTRIES = register({
    A.AmendSummary: st.builds(A.AmendSummary, TEXT),
    A.ReplaceClause: st.builds(A.ReplaceClause, LABELLED_CLAUSES),
    A.AddClause: st.builds(A.AddClause, LABELLED_CLAUSES),
    A.DropClause: st.builds(A.DropClause, NAMES),
})

# ------------------------------------------------------------------ versions and vocabulary

SECTIONS = register({A.Section: st.builds(A.Section, RULE_IDS, tuples(LETTERS, 1, 5))})
_ENUM_STATUS = st.builds(
    lambda name, values, default, cites: A.StatusDecl(name, "enum", values, default, cites),
    NAMES, tuples(NAMES, 2, 4), EXPRS, tuples(RULE_IDS, 0, 2),
)
_NAMED_STATUS = st.builds(
    lambda name, kind, default, cites: A.StatusDecl(name, kind, (), default, cites),
    NAMES, st.sampled_from(["bool", "player", "object", "enum"]) | NAMES, EXPRS, tuples(RULE_IDS, 0, 2),
)

# ------------------------------------------------------------------ cards

TRIGGERS = register({
    A.OnEnters: st.builds(A.OnEnters, NAMES, optional(EXPRS)),
    A.OnLeaves: st.builds(A.OnLeaves, NAMES, optional(EXPRS)),
    A.OnAttached: st.builds(A.OnAttached, NAMES, optional(EXPRS)),
    A.OnUnattached: st.builds(A.OnUnattached, NAMES, optional(EXPRS)),
    A.OnTargeted: st.builds(A.OnTargeted, NAMES, st.sampled_from(["spell", "ability", "spell or ability"]), optional(EXPRS)),
    # `this blocks y` (509.3a), `this becomes blocked by y` (509.3d)
    A.OnBlocks: st.builds(A.OnBlocks, NAMES, NAMES, optional(EXPRS)),
    A.OnBlocked: st.builds(A.OnBlocked, NAMES, NAMES, optional(EXPRS)),
    A.OnChange: st.builds(A.OnChange, CHANGES),
    # `at beginning of STEP of you` (player None) or `... of each player P`: any hook parses there
    A.OnStep: st.builds(A.OnStep, HOOK_KINDS, optional(NAMES)),
})
# A mana symbol is a name or a number in braces; `{T}` alone is the tap cost, its own node.
MANA_SYMBOLS = st.sampled_from(["U", "W", "2", "0", "12", "X", "T", "foo"])
COST_PARTS = register({
    A.ManaCost: st.builds(A.ManaCost, tuples(MANA_SYMBOLS, 1, 3).filter(lambda symbols: symbols != ("T",))),
    A.TapCost: st.builds(A.TapCost),
    A.LifeCost: st.builds(A.LifeCost, SMALL),
    A.OtherCost: st.builds(A.OtherCost, tuples(NAMES, 1, 3)),
})
CARD_ENTRIES = register({
    A.Types: st.builds(A.Types, tuples(NAMES, 1, 3)),
    A.PT: st.builds(A.PT, SMALL, SMALL),
    A.Keywords: st.builds(A.Keywords, tuples(NAMES, 1, 3)),
    A.Target: st.builds(A.Target, NAMES, EXPRS),
    A.Static: st.builds(A.Static, BODIES),
    A.Spell: st.builds(A.Spell, BODIES),
    # (a step's trigger alone; any other with an intervening `if`, or `one or more`, or neither)
    A.Triggered: st.one_of(
        st.builds(A.Triggered, st.builds(A.OnStep, HOOK_KINDS, optional(NAMES)), BODIES),
        st.builds(A.Triggered, TRIGGERS.filter(lambda t: not isinstance(t, A.OnStep)), BODIES,
                  optional(EXPRS)),
        st.builds(A.Triggered, TRIGGERS.filter(lambda t: not isinstance(t, A.OnStep)), BODIES, st.none(), st.just(True))),
    A.Partial: st.builds(A.Partial, TEXT),
    A.Activated: st.builds(A.Activated, tuples(COST_PARTS, 1, 3), tuples(st.builds(A.Target, NAMES, EXPRS), 0, 2),
                           BODIES),
}) | CARD_FORBIDS

# ------------------------------------------------------------------ scenarios

PROPS = register({
    A.Flag: st.builds(A.Flag, NAMES),
    A.PropPlayer: st.builds(A.PropPlayer, NAMES, NAMES),
    A.PropAttached: st.builds(A.PropAttached, NAMES),
    A.PropCounter: st.builds(A.PropCounter, NAMES, NAMES, SMALL),
    A.PropStatus: st.builds(A.PropStatus, NAMES, EXPRS),
    A.PropDamage: st.builds(A.PropDamage, SMALL),
    A.PropEntered: st.builds(A.PropEntered, SMALL),
})
def _defended(names: tuple, at: tuple) -> A.AttackStep:
    """`attack with a at Bob, b`: what each attacker attacks, or () when none says (all None)."""
    return A.AttackStep(names, False, at if any(d is not None for d in at) else ())


STEPS = register({
    A.NextTurn: st.builds(A.NextTurn, tuples(STEP_NAMES, 0, 3), st.booleans()),
    A.ToStep: st.builds(A.ToStep, STEP_NAMES, st.booleans()),
    A.BlockStep: st.builds(A.BlockStep, tuples(st.tuples(NAMES, NAMES), 1, 3), st.booleans()),
    A.Cast: st.builds(A.Cast, TEXT, NAMES, tuples(NAMES, 0, 3), st.booleans()),
    A.Activate: st.builds(A.Activate, NAMES, NAMES, SMALL, tuples(NAMES, 0, 3), st.booleans()),
    A.Choose: st.builds(A.Choose, TEXT, tuples(NAMES, 1, 3)),
    A.OrderStep: st.builds(A.OrderStep, tuples(TEXT, 2, 3)),
    A.Resolve: st.builds(A.Resolve, st.booleans()),
    A.AttackStep: st.builds(A.AttackStep, tuples(NAMES, 1, 3), st.booleans())
    | st.integers(1, 3).flatmap(lambda n: st.builds(
        lambda names, at, hold: attrs.evolve(_defended(names, at), hold=hold),
        tuples(NAMES, n, n), tuples(optional(NAMES), n, n), st.booleans())),
    A.PlayerLeaves: st.builds(A.PlayerLeaves, NAMES),
    A.MoveStep: st.builds(A.MoveStep, NAMES, NAMES),
    A.CleanupStep: st.builds(A.CleanupStep),
    A.Expect: st.builds(A.Expect, EXPRS, tuples(RULES_REFS, 0, 2)),
    A.ExpectError: st.builds(A.ExpectError, TEXT),
})
SCENARIO_ENTRIES = register({
    A.ScenarioCites: st.builds(A.ScenarioCites, tuples(RULE_IDS, 1, 3)),
    A.ScenarioRules: st.builds(A.ScenarioRules, tuples(RULES_REFS, 1, 3)),
    A.ScenarioRange: st.builds(A.ScenarioRange, VERSION_IDS, optional(VERSION_IDS)),
    A.Players: st.builds(A.Players, tuples(NAMES, 1, 3)),
    A.TurnDecl: st.builds(A.TurnDecl, SMALL, NAMES),
    A.PermanentDecl: st.builds(A.PermanentDecl, NAMES, TEXT, tuples(PROPS, 0, 3)),
    A.Script: st.builds(A.Script, tuples(STEPS, 0, 4)),
})

# ------------------------------------------------------------------ items and modules

DROPS = register({A.Drop: st.builds(A.Drop, RULE_IDS | NAMES)})
RENUMBERS = register({A.Renumber: st.builds(A.Renumber, RULE_IDS, RULE_IDS)})
EXTENDS = register({A.Extends: st.builds(A.Extends, RULES_REFS)})
_MANIFEST_PARTS = dict(
    title=optional(TEXT), extends_clause=optional(EXTENDS), sections=tuples(SECTIONS, 0, 2), notes=tuples(TEXT, 0, 2),
    renumbers=tuples(RENUMBERS, 0, 2), drops=tuples(DROPS, 0, 2),
    reconstructed=optional(TEXT),
)
OBSERVE_CASES = register({A.ObserveCase: st.builds(A.ObserveCase, EXPRS, EXPRS)})
TURN_PHASES = register({A.TurnPhase: st.builds(A.TurnPhase, STEP_NAMES, tuples(STEP_NAMES, 0, 3))})
ITEMS = register({
    # `turn cites ... { PHASE: STEP, ...  PHASE  no priority: STEP  priority only after triggers: STEP }`
    A.TurnStructure: st.builds(A.TurnStructure, tuples(TURN_PHASES, 0, 4), tuples(STEP_NAMES, 0, 2),
                               tuples(STEP_NAMES, 0, 2), tuples(RULE_IDS, 0, 2)),
    # A dated version manifest, or a variant named by a NAME.
    A.Version: st.builds(A.Version, id=VERSION_IDS, kind=st.just("version"), **_MANIFEST_PARTS)
    | st.builds(A.Version, id=NAMES, kind=st.just("variant"), **_MANIFEST_PARTS),
    A.StatusDecl: _ENUM_STATUS | _NAMED_STATUS,
    # `keeps all` is the keyword form; otherwise a list of names.
    A.ZoneDecl: st.builds(A.ZoneDecl, NAMES, st.just(("all",)) | tuples(NAMES, 1, 3), tuples(RULE_IDS, 0, 2)),
    # `observe NAME of x: V where C, ... otherwise D`: each value an atom (printed in brackets if not).
    A.ObserveDecl: st.builds(A.ObserveDecl, NAMES, NAMES, tuples(OBSERVE_CASES, 0, 2), EXPRS, tuples(RULE_IDS, 0, 2)),
    A.VerbDecl: st.builds(A.VerbDecl, NAMES, tuples(NAMES, 0, 3), tuples(RULE_IDS, 0, 2), tuples(STMTS, 0, 3)),
    A.Rule: st.builds(A.Rule, RULE_IDS, NAMES, TEXT, BLOCK_CLAUSES),
    A.Amend: st.builds(A.Amend, RULE_IDS | NAMES, tuples(AMEND_ENTRIES, 0, 4)),
    A.Card: st.builds(A.Card, TEXT, tuples(CARD_ENTRIES, 0, 3)),
    A.Scenario: st.builds(A.Scenario, TEXT, tuples(SCENARIO_ENTRIES, 0, 3)),
})
MODULES = register({A.Module: st.builds(A.Module, tuples(ITEMS, 0, 3))})

# ------------------------------------------------------------------ the smallest context of each node


def _tap_x():
    return A.Tap(A.Name("x"))


def in_expr(e) -> A.Module:
    return A.Module((A.Card("C", (A.Spell(A.If(e, _tap_x())),)),))


def in_stmt(s) -> A.Module:
    return A.Module((A.VerbDecl("v", ("x",), (), (s,)),))


def in_clause(c) -> A.Module:
    return A.Module((A.Rule("702.26a", "s", "summary", (c,)),))


def in_card(entry) -> A.Module:
    return A.Module((A.Card("C", (entry,)),))


def in_scenario(entry) -> A.Module:
    return A.Module((A.Scenario("S", (entry,)),))


def as_item(item) -> A.Module:
    return A.Module((item,))


def context_of(cls):
    """A function putting one node of `cls` into the smallest module the grammar allows."""
    groups = [
        (_expr_forms(EXPRS).keys() | {A.Name, A.Number, A.String}, in_expr),
        ({A.UntilEndOfTurn, A.UntilNextTurn, A.UntilNextStep, A.ForAsLongAs, A.UntilLeaves},
         lambda d: in_stmt(A.Move(A.Name("x"), "exile", d))),
        ({A.Block}, lambda b: in_stmt(A.If(A.Name("x"), b))),
        ({A.Assign}, lambda a: in_stmt(A.Set((a,)))),
        ({A.Hook}, lambda h: in_clause(A.During(h, _tap_x()))),
        ({A.Change}, lambda c: in_clause(A.AsClause(c, _tap_x()))),
        ({A.LeavesEvent}, lambda e: in_clause(A.After(e, _tap_x()))),
        ({A.Section}, lambda s: as_item(A.Version("2026-09-25", None, None, (s,), ()))),
        ({A.Drop}, lambda d: as_item(A.Version("house", None, A.Extends("2026-09-25"), (), (), (), (d,), "variant"))),
        ({A.Renumber}, lambda r: as_item(A.Version("house", None, A.Extends("2026-09-25"), (), (), (r,), (), "variant"))),
        ({A.Extends}, lambda e: as_item(A.Version("house", None, e, (), (), (), (), "variant"))),
        ({A.OnEnters, A.OnLeaves, A.OnAttached, A.OnUnattached, A.OnTargeted, A.OnBlocks, A.OnBlocked, A.OnChange,
          A.OnStep},
         lambda t: in_card(A.Triggered(t, _tap_x()))),
        ({A.Flag, A.PropPlayer, A.PropAttached, A.PropCounter, A.PropStatus, A.PropDamage, A.PropEntered},
         lambda p: in_scenario(A.PermanentDecl("d", "Card", (p,)))),
        ({A.ManaCost, A.TapCost, A.LifeCost, A.OtherCost}, lambda p: in_card(A.Activated((p,), (), _tap_x()))),
        ({A.NextTurn, A.Cast, A.Activate, A.Choose, A.OrderStep, A.Resolve, A.AttackStep, A.BlockStep, A.ToStep, A.PlayerLeaves,
          A.MoveStep, A.CleanupStep, A.Expect, A.ExpectError}, lambda step: in_scenario(A.Script((step,)))),
        ({A.Hide, A.During, A.AsClause, A.After, A.Prefer, A.NotPerceived, A.Exempt, A.Exclude, A.Lookback, A.Order,
          A.AssertAfter, A.AssertOnce, A.AssertSkipped, A.AssertAlways, A.ForbidAttack, A.ForbidBlock, A.SkipStep}, in_clause),
        ({A.Types, A.PT, A.Keywords, A.Target, A.Static, A.Spell, A.Triggered, A.Partial, A.Activated}, in_card),
        ({A.ScenarioCites, A.ScenarioRules, A.ScenarioRange, A.Players, A.TurnDecl, A.PermanentDecl, A.Script}, in_scenario),
        ({A.Version, A.ZoneDecl, A.ObserveDecl, A.StatusDecl, A.VerbDecl, A.TurnStructure, A.Rule, A.Card, A.Scenario}, as_item),
        ({A.TurnPhase}, lambda phase: as_item(A.TurnStructure((phase,)))),
        ({A.ObserveCase}, lambda c: as_item(A.ObserveDecl("seen", "x", (c,), A.Name("in")))),
        ({A.AmendSummary, A.ReplaceClause, A.AddClause, A.DropClause}, lambda e: as_item(A.Amend("s", (e,)))),
        ({A.Amend}, as_item),
        ({A.Module}, lambda m: m),
    ]
    for classes, wrap in groups:
        if cls in classes:
            return wrap
    return in_stmt  # every other class is a statement


def assert_roundtrip(module: A.Module) -> None:
    text = print_module(module)
    assert parse(text, "<printed>") == module, text


def _all_node_classes() -> list[type]:
    classes = {
        cls for _, cls in inspect.getmembers(A, inspect.isclass)
        if issubclass(cls, A.Node) and cls is not A.Node and attrs.has(cls)
    }
    return sorted(classes, key=lambda c: c.__name__)


# ------------------------------------------------------------------ properties


@SETTINGS
@given(EXPRS)
def test_generated_expression_round_trips_through_print_and_parse(e):
    assert_roundtrip(in_expr(e))
    # expr_text alone is enough to get the tree back
    module = parse(f'card "C" {{ spell: if {expr_text(e)}: tap x }}')
    assert module.items[0].entries[0].body.cond == e


@SETTINGS
@given(tuples(STMTS, 1, 3))
def test_generated_statements_in_sequence_round_trip_through_print_and_parse(stmts):
    assert_roundtrip(A.Module((A.VerbDecl("v", ("x",), (), stmts),)))


@SETTINGS
@given(st.builds(A.Rule, RULE_IDS, NAMES, TEXT, tuples(CLAUSES, 1, 4).map(distinct_labels)))
def test_generated_rule_with_any_clauses_round_trips(rule):
    assert_roundtrip(as_item(rule))


@SETTINGS
@given(BY_CLASS[A.Card])
def test_generated_card_round_trips(card):
    assert_roundtrip(as_item(card))


@SETTINGS
@given(BY_CLASS[A.Scenario])
def test_generated_scenario_round_trips(scenario):
    assert_roundtrip(as_item(scenario))


@SETTINGS
@given(BY_CLASS[A.Version] | BY_CLASS[A.ZoneDecl] | BY_CLASS[A.StatusDecl] | BY_CLASS[A.VerbDecl])
def test_generated_version_zone_status_or_verb_round_trips(item):
    assert_roundtrip(as_item(item))


@SETTINGS
@given(BY_CLASS[A.TurnStructure])
def test_generated_turn_declaration_round_trips(turn):
    """500.1: a turn's phases and steps, and the steps without priority (502.4) or with it only
    after triggers (514.3a), written back as the same tree, each name with single spaces."""
    assert_roundtrip(as_item(turn))


@SETTINGS
@given(st.builds(A.Card, TEXT, tuples(CARD_FORBIDS, 1, 3)))
def test_generated_card_restrictions_round_trip(card):
    """A card's `forbid attack by` (508.1c) and `forbid block of ... by` (509.1b) entries."""
    assert_roundtrip(as_item(card))


@SETTINGS
@given(MODULES)
def test_generated_module_round_trips_and_prints_idempotently(module):
    printed = print_module(module)
    reparsed = parse(printed, "<printed>")
    assert reparsed == module, printed
    assert print_module(reparsed) == printed


def test_strategies_cover_every_node_class_of_the_ast():
    """Fails if dsl/ast.py gains a node class that no strategy here generates."""
    assert set(BY_CLASS) == set(_all_node_classes())


@settings(max_examples=10, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("cls", _all_node_classes(), ids=lambda c: c.__name__)
def test_each_node_class_round_trips_in_its_smallest_context(cls, data):
    assert cls in BY_CLASS, f"no strategy builds {cls.__name__}"
    node = data.draw(BY_CLASS[cls], label=cls.__name__)
    assert type(node) is cls
    assert_roundtrip(context_of(cls)(node))
