"""Amending inherited blocks: `amend BLOCK { ... }` changes one block a rulebook inherits,
clause by clause, without restating it.

A rulebook that extends another (a variant, or a version) may amend any block it inherits,
named by slug or rule id. The entries are made in order: `summary` replaces the block's
summary, `replace clause L` puts a new clause in the place of the clause labelled L, `add
clause L` appends one, `drop clause L` removes one. The amended block keeps its id and slug
(and its span: the block's own file); each clause an amend wrote keeps its span in the
amending file, so the trace and run-time errors point there. `Amendment` records which
rulebook amended a block, where, and what it changed, for `show`, the trace and `why`.

Every mistake is a positioned error at the amend or the entry: a block no inherited block
is, one the same rulebook also restates or drops, one amended twice, a label the block does
not have (or, for `add`, already has), a summary given twice, an amend with no entry, an
amend that drops every clause of a block that had some (a block that does nothing).
"""

from __future__ import annotations

from pathlib import PurePath

import attrs

from ...dsl import ast
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean
from ...dsl.printer import amend_entry_lines


@attrs.frozen
class Amendment:
    """One rulebook's amend of a block: the rulebook (variant or version) whose file has it,
    where the `amend` is, and what it changed ("summary", "replace clause L", ...)."""

    by: str
    span: Span
    changes: tuple[tuple[str, Span], ...]  # each entry, as text, and where it is
    place: str = ""  # its file as the trace names it (`loading.rule_file_place`); else the file's name

    def describe(self, clause: ast.Node | None = None) -> str:
        """`amended by NAME at PLACE:LINE`: the line of `clause` when given (one this amend
        wrote), else of the amend."""
        line = clause.span.line if clause is not None else self.span.line
        return f"amended by {self.by} at {self.place or PurePath(self.span.path).name}:{line}"

    def listing(self) -> str:
        """What it changed, each with its line: `summary (line 11), replace clause L (line 12)`."""
        return ", ".join(f"{text} (line {span.line})" for text, span in self.changes)


def _entry_text(entry: ast.Node) -> str:
    """What an amend entry does, as a listing names it: `summary`, `replace clause L`, `add
    clause L`, `drop clause L` (the head of its printed text)."""
    if isinstance(entry, ast.AmendSummary):
        return "summary"
    return amend_entry_lines(entry)[0].partition(":")[0]


def amend_block(rule: ast.Rule, amend: ast.Amend, problems: list[Diagnostic]) -> ast.Rule:
    """The block with the amend's entries made, in order; each entry that cannot be made is
    a problem (and is left out)."""
    summary, clauses = rule.summary, list(rule.clauses)
    summary_at: Span | None = None

    def labels() -> list[str]:
        return [c.label for c in clauses if c.label is not None]

    def position(label: str, entry: ast.Node) -> int | None:
        at = next((n for n, c in enumerate(clauses) if c.label == label), None)
        if at is None:
            known = labels()
            listed = (f"the labels of {rule.id} {rule.slug}: {', '.join(known)}" if known else
                      f"{rule.id} {rule.slug} has no labelled clause: restate the whole block instead, "
                      "or label its clauses ('clause NAME: ...') where it is written")
            problems.append(Diagnostic("error", f"block {rule.id} {rule.slug} has no clause labelled '{label}'",
                                       entry.span, did_you_mean(label, known, listed, cutoff=0.5)))
        return at

    for entry in amend.entries:
        match entry:
            case ast.AmendSummary(summary=text):
                if summary_at is not None:
                    problems.append(Diagnostic("error", f"the summary of {rule.slug} is given twice in this amend",
                                               entry.span, f"the first is at {summary_at}; keep one"))
                summary, summary_at = text, entry.span
            case ast.ReplaceClause(clause=clause):
                at = position(clause.label, entry)
                if at is not None:
                    clauses[at] = clause
            case ast.AddClause(clause=clause):
                if clause.label in labels():
                    problems.append(Diagnostic(
                        "error", f"block {rule.id} {rule.slug} already has a clause labelled '{clause.label}'",
                        entry.span, f"'replace clause {clause.label}: ...' changes it; to add a clause, give it a "
                                    "label of its own"))
                else:
                    clauses.append(clause)
            case ast.DropClause(label=label):
                at = position(label, entry)
                if at is not None:
                    del clauses[at]
    drops = [e for e in amend.entries if isinstance(e, ast.DropClause)]
    if rule.clauses and not clauses and drops:
        problems.append(Diagnostic(
            "error", f"this amend drops every clause of {rule.id} {rule.slug}, leaving a block that does nothing",
            drops[-1].span, f"to take the block away, 'drop {rule.slug}' in the manifest (and its letter from the "
                            "section line); to change what it does, replace a clause instead of dropping them all"))
    return attrs.evolve(rule, summary=summary, clauses=tuple(clauses))


def apply_amends(rules: dict[str, ast.Rule], amends: list[ast.Amend], manifest: ast.Version,
                 restated: dict[str, ast.Rule],
                 moved: dict[str, tuple[ast.Renumber, str]] | None = None) -> dict[str, Amendment]:
    """Make each amend in `rules` (the inherited blocks by slug, changed in place). `restated`:
    the blocks the rulebook writes out itself, by slug; `moved`: the numbers the manifest's
    renumbers move blocks from, each with the renumber and the block's new number. Returns
    what was amended, by slug; raises DiagnosticError listing every amend that cannot be made."""
    moved = moved or {}
    problems: list[Diagnostic] = []
    done: dict[str, Amendment] = {}
    for amend in amends:
        if manifest.extends is None:
            problems.append(Diagnostic(
                "error", f"'amend {amend.block}' in {manifest.id}, which extends nothing", amend.span,
                "an amend changes an inherited block: only a variant or a version with 'extends' can amend one"))
            continue
        slug = next((s for s, r in rules.items() if amend.block in (s, r.id)), None)
        if slug is None and amend.block in moved:
            renumber, now = moved[amend.block]
            slug = next((s for s, r in rules.items() if r.id == now), None)
            said = (f"'{amend.block}' numbers no block {manifest.id} inherits: its own 'renumber {renumber.old} as "
                    f"{renumber.new}' (line {renumber.span.line}) moves ")
            if slug is None:  # (and a drop then takes it away)
                problems.append(Diagnostic("error", said + f"the block to {now}, which its manifest drops", amend.span,
                                           "drop it or amend it, not both"))
            else:
                problems.append(Diagnostic(
                    "error", said + f"{slug} ({amend.block} in {manifest.extends}) to {now}", amend.span,
                    f"amend it by its new number ('amend {now}') or by its slug ('amend {slug}'): the renumbers are "
                    "made before the amends"))
            continue
        if slug is None:
            dropped = any(amend.block == d.name for d in manifest.drops)
            names = list(rules) + [r.id for r in rules.values()]
            problems.append(Diagnostic(
                "error", f"'{amend.block}' is no block {manifest.id} inherits"
                         + (", since its manifest drops it" if dropped else ""),
                amend.span,
                "drop it or amend it, not both" if dropped else
                did_you_mean(amend.block, names, f"amend a slug or rule id of {manifest.extends} "
                             f"('phasing show {manifest.extends}' lists them)", cutoff=0.5)))
            continue
        if slug in restated:
            problems.append(Diagnostic(
                "error", f"block {slug} is both restated (at {restated[slug].span}) and amended in {manifest.id}",
                amend.span, "change a block in one place: amend it, or restate it whole"))
            continue
        if slug in done:
            problems.append(Diagnostic("error", f"block {slug} is amended twice in {manifest.id}", amend.span,
                                       f"the first amend is at {done[slug].span}: put all its changes there"))
            continue
        if not amend.entries:
            problems.append(Diagnostic("error", f"this amend of {slug} changes nothing", amend.span,
                                       "give it an entry: summary \"...\", replace clause LABEL: ..., "
                                       "add clause LABEL: ..., or drop clause LABEL"))
            continue
        rules[slug] = amend_block(rules[slug], amend, problems)
        done[slug] = Amendment(manifest.id, amend.span, tuple((_entry_text(e), e.span) for e in amend.entries))
    if problems:
        raise DiagnosticError(problems)
    return done


def stray_amends(module: ast.Module, where: str) -> None:
    """An `amend` changes a block a rulebook inherits: in a file that is no part of a
    rulebook (a scenario file, the card library) it would change nothing, so it is an
    error there, not ignored."""
    found = [i for i in module.items if isinstance(i, ast.Amend)]
    if found:
        raise DiagnosticError([Diagnostic(
            "error", f"'amend {a.block}' in {where}: there is no rulebook here for it to change", a.span,
            "put it in a variant file, after 'variant NAME { extends VERSION }'") for a in found])
