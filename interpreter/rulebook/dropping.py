"""What a manifest's `drop` leaves behind: the inherited blocks and verbs that still name
what it took away.

A `drop` may take away a block, a verb, a status or an observation that something the
rulebook goes on inheriting still names: another block's `order` or `exempt` refers to the
block by its rule id, a clause calls the verb, a clause or a verb reads or sets the status,
or reads or watches what the rulebook keeps only as an observation. The checker would
find each of those where it is written, in the file of the version extended, which is not
the user's to change. Here each drop that leaves such references is one error at the drop,
naming what refers to it (each place as a note) and saying how to mend it in the rulebook
that drops: amend or restate what refers to it, or drop that too.
"""

from __future__ import annotations

from pathlib import PurePath

import attrs

from ...dsl import ast
from ...dsl.builtins import OBJECT_ATTRS
from ...dsl.diagnostics import Diagnostic, Note, Span


@attrs.frozen
class Removal:
    """What one `drop` took away: a "block" (by its rule id), a "verb", a "status" or an "observation"."""

    drop: ast.Drop
    kind: str
    name: str
    slug: str | None = None  # a block's


@attrs.frozen
class Holder:
    """A block or verb the rulebook inherits and keeps, which may name what was dropped."""

    title: str  # "502.1 untap-step-order", "verb NAME"
    node: ast.Node  # the block or the verb declaration
    handle: str  # what a `drop` or an `amend` names it by
    is_verb: bool


def _names(node: ast.Node, removal: Removal) -> bool:
    """Does `node` itself name what `removal` took away?"""
    if removal.kind == "block":
        return (isinstance(node, ast.Order) and removal.name in node.rules
                or isinstance(node, ast.Exempt) and node.rule == removal.name)
    if removal.kind == "verb":
        return isinstance(node, ast.Call) and node.verb == removal.name
    if removal.kind == "observation" and removal.name in OBJECT_ATTRS:
        return False  # (what a player sees of an attribute the game keeps: the rules read that)
    if isinstance(node, ast.Attr):
        return node.name == removal.name
    return (isinstance(node, (ast.Assign, ast.Change, ast.Prefer, ast.NotPerceived, ast.AssertOnce, ast.AssertSkipped))
            and node.attr == removal.name)


def _doing(node: ast.Node, removal: Removal) -> str:
    """What `node` does with what was taken away, for a note."""
    if isinstance(node, ast.Order):
        rest = ", ".join(r for r in node.rules if r != removal.name)
        return f"lists {removal.name} in its order of the {node.hook}" + (f" (without it: {rest})" if rest else "")
    return f"{DOING.get(type(node), 'names')} {removal.name}"


# What a node of each kind does with a name it holds, for the notes of `_doing`.
DOING = {ast.Exempt: "exempts objects from", ast.Call: "calls", ast.Assign: "sets", ast.Attr: "reads",
         ast.Prefer: "prefers a value of", ast.Change: "follows changes of"}


def _parts(holder: Holder) -> list[tuple[ast.Node | None, ast.Node]]:
    """The pieces of a holder a reference is looked for in: each clause of a block (with the
    clause), each statement of a verb (with no clause)."""
    if holder.is_verb:
        return [(None, s) for s in holder.node.body]
    return [(c, c) for c in holder.node.clauses]


def _what(removal: Removal) -> str:
    if removal.kind == "block":
        return f"block {removal.name} {removal.slug}"
    return f"{removal.kind} {removal.name}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def dangling(removals: list[Removal], holders: list[Holder], own_paths: set[str],
             extended: str) -> tuple[list[Diagnostic], list[Span]]:
    """One error for each removal that something in `holders` still names, at its `drop`;
    and the spans (clauses, verbs) the references are in, whose own errors it explains.
    A clause written in the rulebook's own files (by an `amend`) is left to the checker,
    which reports it there."""
    problems: list[Diagnostic] = []
    explained: list[Span] = []
    for removal in removals:
        notes: list[Note] = []
        referring: dict[str, tuple[Holder, list[ast.Node | None]]] = {}
        for holder in holders:
            for clause, part in _parts(holder):
                if part.span.path in own_paths:
                    continue
                found = [n for n in part.walk() if _names(n, removal)]
                if not found:
                    continue
                referring.setdefault(holder.title, (holder, []))[1].append(clause)
                explained.append(part.span)
                label = f" (clause {clause.label})" if clause is not None and clause.label else ""
                notes.extend(Note(f"{holder.title}{label} {_doing(n, removal)}", n.span) for n in found)
        if not referring:
            continue
        titles = list(referring)
        problems.append(Diagnostic("error", _said(removal, titles), removal.drop.span,
                                   _mending(removal, list(referring.values()), extended), tuple(notes)))
    return problems, explained


def _said(removal: Removal, titles: list[str]) -> str:
    one = len(titles) == 1
    still = f"still refer{'s' if one else ''} to" if removal.kind == "block" else f"still use{'s' if one else ''}"
    return f"'drop {removal.drop.name}' takes away {_what(removal)}, which {_listed(titles)} {still}"


def _mending(removal: Removal, referring: list[tuple[Holder, list[ast.Node | None]]], extended: str) -> str:
    """How to mend what refers to it, in the file of the drop: amend the blocks whose
    referring clauses all have labels, restate the others, declare the verbs again; or drop
    them as well."""
    amends, restates, verbs = [], [], []
    for holder, clauses in referring:
        if holder.is_verb:
            verbs.append(holder.title)
        elif all(c is not None and c.label for c in clauses):
            labels = ", ".join(c.label for c in clauses)
            amends.append(f"{holder.handle} (clause{'s' if len(clauses) > 1 else ''} {labels})")
        else:
            restates.append(holder.title)
    ways = []
    if amends:
        ways.append(f"amend {_listed(amends)}, replacing or dropping {'that clause' if len(amends) == 1 and ',' not in amends[0] else 'those clauses'}")
    if restates:
        ways.append(f"restate {_listed(restates)} without it (a block with the same slug replaces the inherited one)")
    if verbs:
        ways.append(f"declare {_listed(verbs)} again without it")
    handles = [holder.handle for holder, _ in referring]
    ways.append(f"drop {_listed(handles) if len(handles) > 1 else handles[0]} too")
    return (f"in {PurePath(removal.drop.span.path).name}: {'; or '.join(ways)}; or leave out this drop "
            f"('phasing show {extended}' prints what to copy)")


def within(span: Span, outer: Span) -> bool:
    """Does `span` start inside `outer` (in the same file)?"""
    return (span.path == outer.path and (outer.line, outer.column) <= (span.line, span.column)
            <= (outer.end_line, outer.end_column))
