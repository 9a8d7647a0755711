"""Comparing two rulebooks: first as texts aligned by slug, then by what they make happen.

`rulebook_diff` says, block by block, what was added, removed, renumbered, reworded or
changed in meaning, and for a block changed in meaning which of its clauses were added,
removed or changed (`clause_diff`). `behaviour_diff` plays the conformance scenarios under
both, lists the ones that play differently (another end, or an expectation of the script that
holds under one only), and names the block changes that account for each:
the scenario is played again under A with one change of B made at a time (`swapped`).
`search_witness` generates games until one ends differently, shrinks it, and returns it as a
scenario file; it plays them in rounds (`SEARCH_ROUND`), so that its memory does not grow
with the number of games.
"""

from __future__ import annotations

import gc
import os
import random
import re
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import attrs

from ...dsl import ast
from ...dsl.checker import check_scenario
from ...dsl.parser import hook_name, parse
from ...dsl.checker import check_rulebook
from ...dsl.diagnostics import DiagnosticError
from ...dsl.printer import clause_lines, expr_text, item_lines
from ..game.budget import Budget
from ..rulebook.loading import DECLARATIONS, Rulebook, rule_key, with_rule_refs
from ..play.scenario import Outcome, run_scenario
from ..play.suite import Case, StoppedRun, budget_stop, collect, run_case
from ..game.trace import show_value


@attrs.frozen
class ClauseChange:
    """One clause of a block changed in meaning: added, removed or changed, with its text
    under each rulebook (None where it has none). `key` says what the clause is about (its
    kind and hook or pattern), which is how the clauses of the two blocks are aligned."""

    kind: str  # added, removed, changed, follows (or reordered: the same clauses in another order)
    key: str
    a_text: str | None
    b_text: str | None
    label: str | None = None  # the clause's label (`clause NAME: ...`), where it has one
    # for an `order` clause that only takes in blocks added in B or drops blocks removed from
    # A (kind `follows`): those blocks, `added ID` (B's id) and `removed ID` (A's id)
    follows: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """How the diff names the clause: by its label where it has one, with what it is about."""
        return f"{self.label} ({self.key})" if self.label else self.key


@attrs.frozen
class BlockChange:
    slug: str
    kinds: tuple[str, ...]  # added, removed, renumbered, reworded, changed, follows
    a_id: str | None
    b_id: str | None
    a_summary: str | None = None
    b_summary: str | None = None
    clauses: tuple[ClauseChange, ...] = ()  # for a block changed in meaning

    @property
    def of_meaning(self) -> bool:
        """Does this change alter what the rules do (not only a block's number or summary, or
        an `order` that follows blocks added or removed)?"""
        return bool({"added", "removed", "changed"} & set(self.kinds))

    @property
    def follows(self) -> tuple[str, ...]:
        """The blocks added or removed that this block's `order` clauses follow (`added ID`, `removed ID`)."""
        return tuple(f for c in self.clauses for f in c.follows)

    def to_json(self) -> dict:
        return attrs.asdict(self)


def _by_slug(book: Rulebook):
    """References to other blocks (in `order` and `exempt`) written as their slugs."""
    slugs = {r.id: r.slug for r in book.rules}
    return lambda clause: with_rule_refs(clause, lambda r: slugs.get(r, r))


def _meaning(rule: ast.Rule, book: Rulebook) -> list[str]:
    """A block's clauses as text, with references to other blocks written as their slugs."""
    plain = _by_slug(book)
    return [line for c in rule.clauses for line in clause_lines(plain(c))]


def _pattern(change: ast.Change) -> str:
    text = f"{change.attr} becomes {expr_text(change.value)}"
    return text + (f" from {expr_text(change.old)}" if change.old is not None else "")


def _event(event: ast.Node) -> str:
    """An event an `after` or `assert after` clause waits on: a departure, or a change."""
    return "leaves the battlefield" if isinstance(event, ast.LeavesEvent) else _pattern(event)


def clause_key(clause: ast.Node) -> str:
    """What a clause is about, by its kind and its hook or pattern: two versions of a block
    are compared clause by clause between clauses with the same key."""
    match clause:
        case ast.Hide():
            return "hide"
        case ast.During(hook=h):
            return f"during {hook_name(h.kind)}"
        case ast.AsClause(change=ch):
            return f"as {_pattern(ch)}"
        case ast.After(event=ev):
            return f"after {_event(ev)}"
        case ast.Prefer(attr=a):
            return f"prefer {a}"
        case ast.NotPerceived(attr=a, old=old):
            return f"changes of {a}" + (f" from {expr_text(old)}" if old is not None else "")
        case ast.Exempt(rule=r):
            return f"exempt from {r}"
        case ast.Exclude():
            return "exclude from resolved effects"
        case ast.Lookback(change=ch):
            return f"look back on {_pattern(ch)}"
        case ast.Order(hook=h):
            return f"order {hook_name(h)}"
        case ast.AssertAfter(event=ev):
            return f"assert after {_event(ev)}"
        case ast.AssertOnce(hook=h, attr=a):
            return f"assert during {hook_name(h.kind)}: {a}"
        case ast.AssertSkipped(hook=h, attr=a):
            return f"assert during skipped {hook_name(h.kind)}: {a}"
        case ast.AssertAlways(var=v):
            return f"assert always {v}"
    return type(clause).__name__


def order_follows(ca: ast.Node, a: Rulebook, cb: ast.Node, b: Rulebook) -> tuple[str, ...]:
    """When two versions of an `order` clause (the same hook) differ only in that B's takes in
    blocks B adds (A has no block with their slug) and drops blocks B removes, the others
    listed in the same order: those blocks, `added ID` (B's id) and `removed ID` (A's id).
    Such an order follows the blocks that came or went; the block that holds it means the
    same. () for any other change."""
    if not (isinstance(ca, ast.Order) and isinstance(cb, ast.Order) and ca.hook == cb.hook):
        return ()
    slugs_a, slugs_b = {r.id: r.slug for r in a.rules}, {r.id: r.slug for r in b.rules}
    listed_a = [(r, slugs_a.get(r, r)) for r in ca.rules]
    listed_b = [(r, slugs_b.get(r, r)) for r in cb.rules]
    in_a, in_b = {s for _r, s in listed_a}, {s for _r, s in listed_b}
    taken = [(r, s) for r, s in listed_b if s not in in_a]
    dropped = [(r, s) for r, s in listed_a if s not in in_b]
    new, gone = in_b - in_a, in_a - in_b
    all_a, all_b = set(slugs_a.values()), set(slugs_b.values())
    if not (new or gone) or new & all_a or not new <= all_b or gone & all_b or not gone <= all_a:
        return ()  # (no change, or a block listed or left out that both versions have)
    if [s for _r, s in listed_a if s not in gone] != [s for _r, s in listed_b if s not in new]:
        return ()  # the blocks both have are listed in another order
    return tuple(f"added {r}" for r, _s in taken) + tuple(f"removed {r}" for r, _s in dropped)


def clause_diff(rule_a: ast.Rule, a: Rulebook, rule_b: ast.Rule, b: Rulebook) -> tuple[ClauseChange, ...]:
    """The clauses of two versions of a block that differ. Clauses with the same label on both
    sides are each other's versions; the rest are aligned by `clause_key` (references to
    other blocks compared by slug, so renumbering alone is no change); among clauses with the
    same key, identical ones pair first, then the rest in order. A label takes no part in
    what a clause means: a clause only labelled, or relabelled, is no change. An `order`
    clause changed only to take in blocks added in B, or to drop blocks removed, is of kind
    `follows` (see `order_follows`), not `changed`."""
    plain_a, plain_b = _by_slug(a), _by_slug(b)
    found, removed, added = [], [], []

    def changed(key: str, ca: ast.Node, cb: ast.Node, label: str | None) -> ClauseChange:
        blocks = order_follows(ca, a, cb, b)
        return ClauseChange("follows" if blocks else "changed", key, _text(ca), _text(cb), label, blocks)

    by_label = {c.label: c for c in rule_b.clauses if c.label is not None}
    paired = [(ca, by_label[ca.label]) for ca in rule_a.clauses if ca.label is not None and ca.label in by_label]
    for ca, cb in paired:
        if clause_lines(plain_a(ca)) != clause_lines(plain_b(cb)):
            key_a, key_b = clause_key(plain_a(ca)), clause_key(plain_b(cb))
            found.append(changed(key_a if key_a == key_b else f"{key_a} -> {key_b}", ca, cb, cb.label))
    rest_a = [c for c in rule_a.clauses if not any(c is p for p, _q in paired)]
    rest_b = [c for c in rule_b.clauses if not any(c is q for _p, q in paired)]

    def keyed(clauses, plain):
        groups: dict[str, list] = {}
        for c in clauses:
            p = plain(c)
            groups.setdefault(clause_key(p), []).append((clause_lines(p), c))
        return groups

    ga, gb = keyed(rest_a, plain_a), keyed(rest_b, plain_b)
    for key in list(ga) + [k for k in gb if k not in ga]:
        left, right = list(ga.get(key, [])), list(gb.get(key, []))
        for entry in list(left):
            match = next((e for e in right if e[0] == entry[0]), None)
            if match is not None:
                left.remove(entry)
                right.remove(match)
        for (_la, ca), (_lb, cb) in zip(left, right):
            found.append(changed(key, ca, cb, cb.label or ca.label))
        removed += [(key, c) for _lines, c in left[len(right):]]
        added += [(key, c) for _lines, c in right[len(left):]]
    # A clause whose hook or pattern changed: the one clause of its kind left on each side.
    for key_a, ca in list(removed):
        same_a = [r for r in removed if type(r[1]) is type(ca)]
        same_b = [r for r in added if type(r[1]) is type(ca)]
        if len(same_a) == 1 and len(same_b) == 1:
            key_b, cb = same_b[0]
            removed.remove(same_a[0])
            added.remove(same_b[0])
            found.append(ClauseChange("changed", f"{key_a} -> {key_b}", _text(ca), _text(cb), cb.label or ca.label))
    found += [ClauseChange("removed", key, _text(c), None, c.label) for key, c in removed]
    found += [ClauseChange("added", key, None, _text(c), c.label) for key, c in added]
    return tuple(found)


def _text(clause: ast.Node) -> str:
    """A clause as the diff shows it: what it says (its label is the change's `label`)."""
    return "\n".join(clause_lines(clause))


def rulebook_diff(a: Rulebook, b: Rulebook) -> list[BlockChange]:
    changes = []
    a_rules = {r.slug: r for r in a.rules}
    b_rules = {r.slug: r for r in b.rules}
    # in CR order (B's numbers, else A's); a tie (a block removed where B puts another) by slug,
    # so that the order does not depend on how a set of strings happens to iterate
    for slug in sorted(a_rules.keys() | b_rules.keys(), key=lambda s: (rule_key((b_rules.get(s) or a_rules[s]).id), s)):
        rule_a, rule_b = a_rules.get(slug), b_rules.get(slug)
        if rule_a is None:
            changes.append(BlockChange(slug, ("added",), None, rule_b.id, None, rule_b.summary))
            continue
        if rule_b is None:
            changes.append(BlockChange(slug, ("removed",), rule_a.id, None, rule_a.summary, None))
            continue
        kinds = []
        if rule_a.id != rule_b.id:
            kinds.append("renumbered")
        if rule_a.summary != rule_b.summary:
            kinds.append("reworded")
        clauses = ()
        if _meaning(rule_a, a) != _meaning(rule_b, b):
            clauses = clause_diff(rule_a, a, rule_b, b) or (  # the same clauses, in another order
                ClauseChange("reordered", "the order of its clauses", "\n".join(clause_lines(c)[0] for c in rule_a.clauses),
                             "\n".join(clause_lines(c)[0] for c in rule_b.clauses)),)
            # only an `order` that takes in blocks added (or drops blocks removed): the same meaning
            kinds.append("follows" if all(c.kind == "follows" for c in clauses) else "changed")
        if kinds:
            changes.append(BlockChange(slug, tuple(kinds), rule_a.id, rule_b.id, rule_a.summary, rule_b.summary, clauses))
    for kind, field in DECLARATIONS.values():
        table_a, table_b = getattr(a, field), getattr(b, field)
        for name in sorted(table_a.keys() | table_b.keys()):
            da, db = table_a.get(name), table_b.get(name)
            if text_of(da) != text_of(db):
                what = "added" if da is None else "removed" if db is None else "changed"
                changes.append(BlockChange(f"{kind} {name}", (what,), None, None, text_of(da), text_of(db)))
            elif da is not None and db is not None and da.cites != db.cites:
                # the same declaration citing other numbers: the rules it stands for were renumbered
                changes.append(BlockChange(f"{kind} {name}", ("renumbered",), ", ".join(da.cites), ", ".join(db.cites)))
    ta, tb = text_of(a.turn), text_of(b.turn)  # (the turn: its phases, steps and priority)
    if ta != tb:
        changes.append(BlockChange("turn", ("changed",), None, None, ta, tb))
    elif a.turn.cites != b.turn.cites:
        changes.append(BlockChange("turn", ("renumbered",), ", ".join(a.turn.cites), ", ".join(b.turn.cites)))
    return changes


RULE_KINDS = ("changed", "added", "removed", "reworded", "renumbered", "follows")


def summary(blocks: list[BlockChange], scenarios: list[ScenarioDiff], compared: int) -> dict:
    """What a comparison comes to, before its details: how many blocks (and declarations) each
    kind of change touched, and how many scenarios play differently, grouped by the change or
    changes that account for them (`together`: made together, as `account_together` found)."""
    rules = {kind: sum(kind in c.kinds for c in blocks) for kind in RULE_KINDS}
    groups: dict[tuple, int] = {}
    for s in scenarios:
        key = (tuple(s.accounted_by), False) if s.accounted_by else (tuple(s.together), bool(s.together))
        groups[key] = groups.get(key, 0) + 1
    ordered = sorted(groups.items(), key=lambda item: (-item[1], not item[0][0], item[0]))
    return {"rules": rules, "scenarios_differ": len(scenarios), "scenarios_compared": compared,
            "accounted": [{"by": list(by), "together": together, "scenarios": n} for (by, together), n in ordered]}


def of_meaning_only(blocks: list[BlockChange]) -> list[BlockChange]:
    """The changes of meaning (a block or declaration added, removed or changed), without
    rewordings, renumberings and `order`s that only follow blocks added or removed."""
    return [c for c in blocks if c.of_meaning]


def text_of(decl: ast.StatusDecl | ast.VerbDecl | ast.ZoneDecl | ast.ObserveDecl | ast.TurnStructure | None) -> str | None:
    """A status, verb, zone, observation or turn declaration as text without its citations (what it means, not what it cites)."""
    return None if decl is None else "\n".join(item_lines(attrs.evolve(decl, cites=())))


# ------------------------------------------------------------------ behaviour


def compared_statuses(a: Rulebook, b: Rulebook, raw: bool = False) -> set[str]:
    """The statuses two rulebooks' outcomes are compared on: those both keep, and, unless `raw`,
    those both observe or keep (`observe phase` in 2005, the status `phase` today)."""
    if raw:
        return set(a.statuses) & set(b.statuses)
    return (set(a.statuses) | set(a.observations)) & (set(b.statuses) | set(b.observations))


def comparable(o: Outcome, statuses: set[str], raw: bool = False) -> dict:
    """What counts as the outcome of a game: the final state as a player sees it (`observe`;
    with `raw`, as the rulebook keeps it), and the error that stopped it."""
    final = {}
    state = o.final if raw else o.seen
    for name, p in state.get("players", {}).items():
        for key, value in p.items():
            final[f"{name}.{key}"] = value
    for oid, p in state.get("permanents", {}).items():
        for key, value in p.items():
            if key in ("statuses", "card", "visible"):
                continue
            final[f"{oid}.{key}"] = value
        for key, value in p.get("statuses", {}).items():
            if key in statuses:
                final[f"{oid}.{key}"] = value
    errors = [f.message for f in o.failures if not f.message.startswith("expected")]
    if errors:
        final["error"] = errors[0].split(" (at step")[0]
    return final


def expectations_seen(o: Outcome) -> dict[str, str]:
    """The expectations of the script a run evaluated, by where they are written, each as
    `holds` or `fails`: a scenario whose end is the same may still play differently on the
    way (`behaviour_diff` compares those both runs evaluated)."""
    return {f"line {c.span.line}: expect {c.text}": "holds" if c.ok else "fails" for c in o.checked}


def played(o: Outcome, statuses: set[str], raw: bool, expectations: set[str]) -> dict:
    """`comparable(o)` with those of the script's expectations (`expectations_seen` keys) that
    are among `expectations`: how a scenario played, to compare with another run of it."""
    seen = expectations_seen(o)
    return comparable(o, statuses, raw) | {k: seen[k] for k in expectations if k in seen}


EXPECTATION_KEY = re.compile(r"line (\d+): expect ")


def _field_order(key: str) -> tuple:
    """The end state's fields by name, then the script's expectations in the order written."""
    found = EXPECTATION_KEY.match(key)
    return (1, int(found.group(1)), key) if found else (0, 0, key)


def differences(a: dict, b: dict) -> list[tuple[str, object, object]]:
    """The fields that differ; for an object that ended in different zones, only its zone."""
    fields = [(k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys(), key=_field_order) if a.get(k) != b.get(k)]
    moved = {k.rsplit(".", 1)[0] for k, _va, _vb in fields if k.endswith(".zone")}
    return [(k, va, vb) for k, va, vb in fields if k.rsplit(".", 1)[0] not in moved or k.endswith(".zone")]


@attrs.frozen
class ScenarioDiff:
    scenario: str
    path: str
    fields: tuple[tuple[str, object, object], ...]
    accounted_by: tuple[str, ...] = ()  # changes of B that alone, made in A, give B's outcome
    changed_by: tuple[str, ...] = ()  # changes of B that alone change A's outcome, but not to B's
    together: tuple[str, ...] = ()  # when no change alone accounts: the fewest found that do together

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "file": self.path,
                "differences": [{"what": k, "a": va, "b": vb} for k, va, vb in self.fields],
                "accounted_by": list(self.accounted_by), "changed_by": list(self.changed_by),
                "accounted_together": list(self.together)}


def playable(o: Outcome) -> bool:
    """False when a scenario could not be played at all under a version (it names a status,
    zone or action that version does not have): that is not a difference in behaviour."""
    return cannot_run(o) is None


def cannot_run(o: Outcome) -> StoppedRun | None:
    """Why a scenario could not be played at all under a version, if it could not (an error
    not met at a step of its script, and no expectation: its cards or script use a status,
    verb or zone that rulebook does not have): None when it was played. Such a scenario is
    compared with nothing: it is left out of the count and listed."""
    found = next((f for f in o.failures if " (at step " not in f.message and not f.message.startswith("expected")), None)
    return None if found is None else StoppedRun(o.scenario, o.path, o.version, found.message)


def _check(book: Rulebook) -> bool:
    """Does a rulebook put together here hold together (every status, verb and block it
    refers to is there, and the checker accepts it)? Which subrules the manifest lists is
    left out: a block added or deleted here is not a text to be complete; so is whether an
    `order` names blocks acting at its hook (one taken from the other rulebook may act elsewhere)."""
    items = tuple(d for _kind, field in DECLARATIONS.values() for d in getattr(book, field).values()) + book.rules
    unlisted = attrs.evolve(book, version=attrs.evolve(book.version, sections=()))
    try:
        check_rulebook(unlisted, [ast.Module(items=items)], declared=list(book.rules), composed=True)
    except DiagnosticError:
        return False
    return True


def swapped(a: Rulebook, b: Rulebook, change: BlockChange) -> Rulebook | None:
    """`_swapped(a, b, change)`, or None when `a` with that change alone does not hold together."""
    mixed = _swapped(a, b, change)
    return mixed if _check(mixed) else None


def swapped_together(a: Rulebook, b: Rulebook, changes: tuple[BlockChange, ...]) -> Rulebook | None:
    """`a` with several changes of `b` made (each as `swapped` makes one), or None when `a` with
    them all does not hold together: a block of `b` and the status it reads, say, which neither
    can be made without the other."""
    mixed = a
    for change in changes:
        mixed = _swapped(mixed, b, change)
    return mixed if _check(mixed) else None


def _swapped(a: Rulebook, b: Rulebook, change: BlockChange) -> Rulebook:
    """`a` with one change of `b` made: a block as `b` has it (replacing `a`'s block with its
    slug), added, or deleted (as ablation deletes one); or a status, verb or zone declared as `b`
    declares it. A block taken from `b` keeps `a`'s number when `a` has the block, and refers
    to other blocks by `a`'s numbers; an added block keeps `b`'s number unless `a` gives that
    number to another block, when it is marked `NUMBER'` (and runs after `a`'s numbered blocks
    in a hook with no `order`). None when the change cannot be made on its own: `a` with it
    does not pass the checker (the block uses a status or verb only `b` has, say)."""
    if " " in change.slug:  # "status NAME", "verb NAME", "zone NAME" or "observe NAME": slugs have no spaces
        kind, name = change.slug.split(" ", 1)
        field = dict(DECLARATIONS.values())[kind]
        table = dict(getattr(a, field))
        new = getattr(b, field).get(name)
        if new is None:
            table.pop(name, None)
        else:
            table[name] = new
        mixed = attrs.evolve(a, **{field: table})
    elif b.rule(change.slug) is None:
        mixed = a.without(change.slug)
    else:
        to_a = {r.id: a.rule(r.slug).id for r in b.rules if a.rule(r.slug) is not None}
        rule_b = b.rule(change.slug)
        rule_a = a.rule(change.slug)
        number = rule_a.id if rule_a is not None else rule_b.id
        if rule_a is None and any(r.id == number for r in a.rules):
            number += "'"
        block = attrs.evolve(rule_b, id=number, clauses=tuple(with_rule_refs(c, lambda r: to_a.get(r, r)) for c in rule_b.clauses))
        rules = [r for r in a.rules if r.slug != change.slug] + [block]
        mixed = attrs.evolve(a, rules=tuple(sorted(rules, key=lambda r: rule_key(r.id))))
    return mixed


def account(a_final: dict, b_final: dict, candidates: list[tuple[BlockChange, Rulebook]],
            play) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Which of B's changes account for a game ending differently. `play(book)` gives the
    game's comparable outcome under a rulebook (None when it cannot be played there);
    `candidates` are the changes with `a` each made in. Returns the changes that alone move
    the outcome to B's, and those that alone change it, but not to B's."""
    accounted, changed = [], []
    for change, book in candidates:
        final = play(book)
        if final is None:
            continue
        if not differences(final, b_final):
            accounted.append(change.slug)
        elif differences(final, a_final):
            changed.append(change.slug)
    return tuple(accounted), tuple(changed)


PAIRS_TRIED = 120
"""The most pairs of changes `account_together` tries for one scenario."""


def pairs_to_try(changes: list[BlockChange], changed: tuple[str, ...],
                 support: Callable[[BlockChange], bool]) -> list[tuple[BlockChange, ...]]:
    """The pairs of changes that may account together for a scenario no single change accounts
    for, the likeliest first: two that each change its outcome alone; one that does, with any
    other; then any two, support rules (outside the phasing section) first. At most
    `PAIRS_TRIED`."""
    alone = [c for c in changes if c.slug in changed]
    others = sorted((c for c in changes if c.slug not in changed), key=lambda c: (not support(c), c.slug))
    found: list[tuple[BlockChange, ...]] = []
    found += [(x, y) for i, x in enumerate(alone) for y in alone[i + 1:]]
    found += [(x, y) for x in alone for y in others]
    found += [(x, y) for i, x in enumerate(others) for y in others[i + 1:]]
    return found[:PAIRS_TRIED]


def outside_sections(a: Rulebook, b: Rulebook) -> Callable[[BlockChange], bool]:
    """Whether a change is of a support rule: a block outside the phasing sections of both (or a
    declaration, which no section numbers)."""
    sections = [s.rule for book in (a, b) for s in book.version.sections]

    def support(change: BlockChange) -> bool:
        ids = [i for i in (change.a_id, change.b_id) if i]
        return not any(i == s or (i.startswith(s) and i[len(s):].isalpha()) for i in ids for s in sections)

    return support


def account_together(a: Rulebook, b: Rulebook, b_final: dict, changes: list[BlockChange], changed: tuple[str, ...],
                     support: Callable[[BlockChange], bool], play, books: dict) -> tuple[str, ...]:
    """The smallest set of B's changes found that, made together in A, gives B's outcome, for a
    scenario no single change accounts for: a pair (`pairs_to_try`), else the changes that
    alone change the outcome with every change of a support rule, made smaller one change at
    a time while it still gives B's outcome; () when none does. `books` keeps the rulebooks
    made, by the changes made, for the next scenario."""
    def gives(group: tuple[BlockChange, ...]) -> bool:
        key = tuple(c.slug for c in group)
        if key not in books:
            books[key] = swapped_together(a, b, group)
        final = play(books[key]) if books[key] is not None else None
        return final is not None and not differences(final, b_final)

    for pair in pairs_to_try(changes, changed, support):
        if gives(pair):
            return tuple(c.slug for c in pair)
    group = tuple(c for c in changes if c.slug in changed or support(c))
    if len(group) < 3 or not gives(group):
        return ()
    for change in list(group):  # (smaller while it still gives B's outcome)
        fewer = tuple(c for c in group if c is not change)
        if len(fewer) >= 2 and gives(fewer):
            group = fewer
    return tuple(c.slug for c in group)


def candidates_of(a: Rulebook, b: Rulebook, blocks: list[BlockChange] | None = None) -> list[tuple[BlockChange, Rulebook]]:
    """Every change of meaning from `a` to `b` that can be made on its own, with `a` so changed."""
    found = []
    for change in rulebook_diff(a, b) if blocks is None else blocks:
        if change.of_meaning and (book := swapped(a, b, change)) is not None:
            found.append((change, book))
    return found


def behaviour_diff(a: Rulebook, b: Rulebook, cases: list[Case], budget: Budget | None = None,
                   explain: bool = True, stopped: list[StoppedRun] | None = None,
                   not_run: list[StoppedRun] | None = None,
                   progress: Callable[..., None] | None = None, raw: bool = False) -> list[ScenarioDiff]:
    """The scenarios that play differently under `a` and `b` (they end in another state, or an
    expectation of the script both evaluate holds under one only), each step within `budget`; with
    `explain`, each names the changes of `b` that account for it (see `account`). A run the
    budget stopped tells nothing of either rulebook: it is no difference and no sameness, and
    is added to `stopped` (when given) for the caller to report. A scenario that cannot be
    played under one of them (or either) is not compared either: why, under each that cannot
    play it, is added to `not_run` (when given). `progress`, when given, is called as each
    scenario is taken up: `progress(scenarios done, scenarios, its name)`."""
    common = compared_statuses(a, b, raw)
    candidates = None
    found = []
    for number, case in enumerate(cases):
        if progress is not None:
            progress(number, len(cases), case.scenario.name)
        oa, ob = run_case(case, a, budget), run_case(case, b, budget)
        stops = [s for o in (oa, ob) if (s := budget_stop(o)) is not None]
        if stops:
            if stopped is not None:
                stopped.extend(stops)
            continue
        failed = [n for o in (oa, ob) if (n := cannot_run(o)) is not None]
        if failed:
            if not_run is not None:
                not_run.extend(failed)
            continue
        shared = expectations_seen(oa).keys() & expectations_seen(ob).keys()
        fa, fb = played(oa, common, raw, shared), played(ob, common, raw, shared)
        fields = differences(fa, fb)
        if not fields:
            continue
        found.append(ScenarioDiff(case.scenario.name, case.path, tuple(fields)))
        if explain:
            if candidates is None:
                blocks = rulebook_diff(a, b)
                candidates = candidates_of(a, b, blocks)
                meaning = [c for c in blocks if c.of_meaning]
                support = outside_sections(a, b)
                books: dict = {}

            def play(book, case=case, shared=shared):
                outcome = run_case(case, book, budget)
                return played(outcome, common, raw, shared) if playable(outcome) else None

            accounted, changed = account(fa, fb, candidates, play)
            together = () if accounted else account_together(a, b, fb, meaning, changed, support, play, books)
            found[-1] = attrs.evolve(found[-1], accounted_by=accounted, changed_by=changed, together=together)
    if progress is not None:
        progress(len(cases), len(cases))
    return found


# ------------------------------------------------------------------ search


def _outcome_of(game, book: Rulebook, budget: Budget | None = None) -> Outcome | None:
    """The generated game played under `book`, or None if it is not a game of that version
    (it plays a card the version's rules cannot express)."""
    from .generate import scenario_text

    text = scenario_text(game, "generated", [book.version.id])
    scenario = parse(text, "<generated>").items[0]
    if check_scenario(scenario, book):
        return None
    outcome = run_scenario(scenario, book, "<generated>", budget=budget)
    return outcome if playable(outcome) else None


EXPECTABLE = {"zone", "controller", "power", "toughness", "tapped", "attached_to", "damage", "attacking", "entered_turn",
              "life", "hand", "in_game"}


@contextmanager
def _private_hypothesis_storage():
    """Hypothesis keeps caches (its character tables, an example database) under a storage
    folder, by default `.hypothesis/` in the current folder. A search must leave the user's
    folder as it found it: unless the caller chose a storage folder (HYPOTHESIS_STORAGE_DIRECTORY,
    or the test runner's settings), the search's storage is a temporary folder, removed after."""
    from hypothesis import configuration

    chosen = getattr(configuration, "__hypothesis_home_directory", None)  # set by set_hypothesis_home_dir
    if chosen is not None or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="phasing-search-") as folder:
        configuration.set_hypothesis_home_dir(folder)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(None)  # as it was: not chosen


SEARCH_ROUND = 1000
"""The most games one run of Hypothesis plays in a search. A run keeps what it learnt of each
game it played (a tree of its choices, a cache of their results: some 12 KB a game) until it
ends, so a search of more games is made of several runs of at most this many, one after the
other, each from a seed of its own: its memory is that of one round, whatever the number of
games (issue 43). The first round is the run a search of this many games or fewer always was;
and Hypothesis draws the first games of a run of 500 or more the same way however many it may
play, so a search of more finds the same witness as before whenever its first round does. (A
run knows nothing of the games of the rounds before it, and each begins with small games: a
later round may play again a few small games an earlier one played.)"""


def search_rounds(examples: int) -> list[int]:
    """The games each round of a search of `examples` games plays: `SEARCH_ROUND` each, the
    rest in the last."""
    full, rest = divmod(max(examples, 0), SEARCH_ROUND)
    return [SEARCH_ROUND] * full + ([rest] if rest else [])


def search_witness(a: Rulebook, b: Rulebook, examples: int, budget: Budget | None = None,
                   progress: Callable[..., None] | None = None, raw: bool = False) -> str | None:
    """The smallest generated game that ends differently under `a` and `b`, as a scenario file;
    up to `examples` games are tried, each step of each within `budget`. `progress`, when
    given, is called as each game is played: `progress(games played, examples)` (the games
    Hypothesis plays to shrink a witness it found count too: past `examples`, the total grows
    with them)."""
    with _private_hypothesis_storage():
        return _search(a, b, examples, budget, progress, raw)


def _search(a: Rulebook, b: Rulebook, examples: int, budget: Budget | None,
            progress: Callable[..., None] | None = None, raw: bool = False) -> str | None:
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    from ..rulebook.loading import user_cards
    from .generate import games, own_permanents, scenario_text

    own = own_permanents(card for name, card in user_cards().items() if name in a.cards and name in b.cards)
    common = compared_statuses(a, b, raw)
    played = [0]

    def differs(game) -> bool:
        if progress is not None:
            played[0] += 1
            progress(played[0], max(examples, played[0]))
        oa, ob = _outcome_of(game, a, budget), _outcome_of(game, b, budget)
        if oa is None or ob is None:
            return False
        return bool(differences(comparable(oa, common, raw), comparable(ob, common, raw)))

    game = None
    for number, size in enumerate(search_rounds(examples)):
        # derandomized: the same two rulebooks and budget always give the same answer (the first
        # round by Hypothesis's own fixed seed, each later one by its number)
        try:
            game = find(games(own), differs, random=None if number == 0 else random.Random(number),
                        settings=settings(max_examples=size, database=None, deadline=None, derandomize=True,
                                          suppress_health_check=list(HealthCheck)))
            break
        except NoSuchExample:
            gc.collect()  # (the round's run and all it kept, in cycles, go before the next round begins)
    if game is None:
        return None
    oa, ob = _outcome_of(game, a, budget), _outcome_of(game, b, budget)
    fa, fb = comparable(oa, common, raw), comparable(ob, common, raw)
    whole = game  # the game that parts them, before a witness that stops with an error is cut short
    fields = seen_first(differences(fa, fb))
    expectations, comments = [], []
    for key, va, vb in fields:
        if key == "error":
            comments.append(f"under {a.version.id} play stops: {va}; under {b.version.id}: {vb or 'no error'}")
            continue
        name, attr = key.rsplit(".", 1)
        if attr == "keywords":  # (as `has`: each keyword one has and the other has not)
            for keyword in sorted(set(va or ()) ^ set(vb or ())):
                held = keyword in (va or ())
                expectations.append(f"expect {'' if held else 'not '}{name} has {keyword}")
                comments.append(f"under {b.version.id}: {name} {'has no' if held else 'has'} {keyword}")
        elif attr in EXPECTABLE or attr in common:
            expectations.append(f"expect {name}.{attr} is {show_value(va)}")
            comments.append(f"under {b.version.id}: {name}.{attr} is {show_value(vb)}")
    stopped = next((f.message for f in oa.failures if " (at step " in f.message), None)
    if stopped:  # under `a` play stops at a step: the witness ends there, expecting that error
        step = int(re.search(r" \(at step (\d+)", stopped).group(1))
        players, permanents, steps = game
        game = (players, permanents, steps[:step])
        message = stopped.split(" (at step")[0]
        quoted = max(message.split('"'), key=len).strip()  # scenario strings cannot hold a double quote
        expectations.insert(0, f'expect error "{quoted}"')

    def play(book):
        outcome = _outcome_of(whole, book, budget)
        return None if outcome is None else comparable(outcome, common, raw)

    blocks = rulebook_diff(a, b)
    accounted, _changed = account(fa, fb, candidates_of(a, b, blocks), play)
    cited = witness_cites(a, b, accounted, oa, ob, fields)
    cites = [n for n in cited if citable(n, a)]  # (the witness names `a`'s rules: `check` holds its cites to them)
    if len(cites) < len(cited):
        left = ", ".join(n for n in cited if n not in cites)
        comments.insert(0, f"not cited: {left}, numbered so in {b.version.id} only ({a.version.id}, "
                           f"whose rules this scenario names, has no such subrule)")
    if accounted:
        done = {c.slug: next(k for k in c.kinds if k in ("added", "removed", "changed")) for c in blocks if c.of_meaning}
        made = ", ".join(f"{slug} ({done[slug]})" for slug in accounted)
        comments.insert(0, f"accounted for by {made}: made alone in {a.version.id}, gives {b.version.id}'s outcome")
    mine = sorted({card for _name, card, _props in game[1] if card in own[0] + own[1]})
    if mine:  # (a witness that plays cards of your own runs where they are)
        comments.insert(0, f"plays cards of your own ({', '.join(mine)}): run it with the same --cards or rules path")
    title = f"witness: {a.version.id} and {b.version.id} part here"
    return scenario_text(game, title, [a.version.id], cites or None, expectations, comments)


# What a player sees of a permanent first, then the rest of what a witness can expect, then statuses.
SEEN_FIRST = ("zone", "power", "toughness", "controller", "attached_to", "tapped", "damage", "attacking",
              "life", "hand", "in_game")


def seen_first(fields: list[tuple[str, object, object]]) -> list[tuple[str, object, object]]:
    """Differing fields (`object.attribute`, a, b) in the order a witness expects them: what a
    player sees first (`SEEN_FIRST`: zone, power and toughness, controller, attachment, tapped,
    ...), then the statuses the rules keep; by object name within each."""
    def rank(field) -> tuple:
        attr = field[0].rsplit(".", 1)[-1]
        return (SEEN_FIRST.index(attr) if attr in SEEN_FIRST else len(SEEN_FIRST), field[0])
    return sorted(fields, key=rank)


def witness_cites(a: Rulebook, b: Rulebook, accounted: tuple[str, ...], oa: Outcome, ob: Outcome,
                  fields) -> list[str]:
    """The subrules a witness cites: the blocks whose change alone accounts for it (by `a`'s
    number, or `b`'s for a block only `b` has); when none does alone, the blocks that, after
    the two traces part, changed an object whose outcome differs."""
    def number(slug: str) -> str | None:
        rule = a.rule(slug) or b.rule(slug)
        return rule.id if rule is not None else None

    cited = {n for slug in accounted if (n := number(slug))}
    if not cited:
        objects = {k.rsplit(".", 1)[0] for k, _va, _vb in fields if "." in k}
        ta, tb = [e.render() for e in oa.trace], [e.render() for e in ob.trace]
        start = next((i for i, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
        for trace in (oa.trace, ob.trace):
            for event in trace[start:]:
                if event.cause.kind == "rule" and event.subject in objects and (n := number(event.cause.label)):
                    cited.add(n)
    return sorted(cited, key=rule_key)


def citable(number: str, book: Rulebook) -> bool:
    """May a scenario run under `book` cite `number`: a subrule one of its sections lists, or
    a rule outside every section it models (what `phasing check` holds a scenario's cites to)?"""
    listing = [s for s in book.version.sections if number.startswith(s.rule) and number[len(s.rule):].isalpha()]
    return not listing or any(number[len(s.rule):] in s.letters for s in listing)


def load_cases(paths) -> list[Case]:
    cases, _problems = collect([Path(p) for p in paths])
    return cases
