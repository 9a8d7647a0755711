"""`phasing fmt`: older forms of the language rewritten to the current ones, in place in the
source text.

Only the text of the forms rewritten changes; every other character (comments, blank lines,
layout) is kept as it is, because the rewriting edits the text at the positions the parser
gives the nodes (`Span`) and never prints a tree. The rewrites:

- `do NAME ARGS` -> `NAME ARGS` (a declared verb called like a built-in statement), unless
  the verb is named like a word of the language;
- `you draws / gains / gets / becomes` -> `you draw / gain / get / become`;
- `not (X is visible)` -> `X is not visible`;
- an `each` or `count` whose condition is a test of every value of a hiding status of its
  object (`x.s is a or x.s is b` for a status `s: a | b` a `hide` clause reads: what used to
  make a selection see hidden objects) -> `including hidden`, and where that test is one
  conjunct, `including hidden where REST`.

The first three give the same tree back; the last gives the tree `migrated_tree` describes,
which selects the same objects (both forms see the objects the hide rules hide). Rewrites
nested in one another are made one layer per round, each round on the text parsed afresh.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Iterable, NamedTuple

import attrs

from dsl import ast, constant
from dsl.atomic import write_file
from dsl.diagnostics import Diagnostic, Span
from dsl.parser import BOM, keywords, parse

MAX_ROUNDS = 64  # nested rewrites: one layer per round (a deeper nesting is left for the next run)


@attrs.frozen
class Vocabulary:
    """What the hiding-status rewrite needs to know: each enum or bool status's values, and the
    statuses a `hide` clause reads."""

    values: dict[str, tuple[str, ...]]
    hiding: frozenset[str]

    @classmethod
    def of(cls, modules: Iterable[ast.Module]) -> "Vocabulary":
        values: dict[str, tuple[str, ...]] = {}
        hiding: set[str] = set()
        for module in modules:
            for item in module.items:
                if isinstance(item, ast.StatusDecl) and item.type == "enum":
                    values[item.name] = tuple(item.values)
                elif isinstance(item, ast.StatusDecl) and item.type == "bool":
                    values[item.name] = ("true", "false")
                elif isinstance(item, ast.Rule):
                    for clause in item.clauses:
                        if isinstance(clause, ast.Hide):
                            hiding |= ast.names_in(clause.cond)
        return cls(values, frozenset(hiding))

    def merged(self, other: "Vocabulary") -> "Vocabulary":
        """This vocabulary, with what `other` declares taking precedence."""
        return Vocabulary({**self.values, **other.values}, self.hiding | other.hiding)

    def values_of(self, var: str) -> constant.ValuesOf:
        """What `var.S` can be, for a hiding status S (what `constant.covered_status` needs)."""
        def values_of(attr: ast.Attr) -> tuple[str, ...] | None:
            if isinstance(attr.obj, ast.Name) and attr.obj.id == var and attr.name in self.hiding:
                return self.values.get(attr.name)
            return None
        return values_of


class Edit(NamedTuple):
    start: int
    end: int
    text: str


class Lines:
    """Offsets in a text from the parser's (line, column) positions (both counted from 1)."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def span(self, span: Span) -> tuple[int, int]:
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)

    def slice(self, span: Span) -> str:
        start, end = self.span(span)
        return self.text[start:end]


_AGREEING = {"draws": "draw", "gains": "gain", "gets": "get", "becomes": "become"}
_SUBJECT_FIRST = (ast.Draw, ast.GainLife, ast.GainControl)  # (the player is the subject)
_OBJECT_FIRST = (ast.Pump, ast.SetBase, ast.Grant)


def hidden_test(cond: ast.Node | None, var: str, vocabulary: Vocabulary) -> tuple[int | None, ast.Node] | None:
    """When a query's condition tests every value of a hiding status of its variable: (None,
    the test) when that is the whole condition, (its position, the test) when it is one
    conjunct; else None."""
    if cond is None:
        return None
    values_of = vocabulary.values_of(var)
    if constant.covered_status(cond, values_of) is not None:
        return None, cond
    if isinstance(cond, ast.And):
        for i, item in enumerate(cond.items):
            if constant.covered_status(item, values_of) is not None:
                return i, item
    return None


def migrated_tree(module: ast.Module, vocabulary: Vocabulary) -> ast.Module:
    """The tree `rewrite`'s text parses to: `module` with each query that tests every value of a
    hiding status written `including hidden` (the other rewrites keep the tree as it is)."""
    def visit(node):
        if isinstance(node, ast.Node):
            changes = {}
            for field in attrs.fields(type(node)):
                if field.name == "span":
                    continue
                value = getattr(node, field.name)
                new = visit(value)
                if new is not value:
                    changes[field.name] = new
            node = attrs.evolve(node, **changes) if changes else node
            if isinstance(node, (ast.Each, ast.Count)) and not node.hidden:
                found = hidden_test(node.cond, node.var, vocabulary)
                if found is not None:
                    position, _test = found
                    if position is None:
                        rest = None
                    else:
                        items = node.cond.items[:position] + node.cond.items[position + 1:]
                        rest = items[0] if len(items) == 1 else ast.And(items)
                    node = attrs.evolve(node, cond=rest, hidden=True)
            return node
        if isinstance(node, tuple):
            new = tuple(visit(v) for v in node)
            return node if all(a is b for a, b in zip(new, node)) else new
        return node
    return visit(module)


class _Rewriter:
    def __init__(self, text: str, module: ast.Module, vocabulary: Vocabulary):
        self.lines = Lines(text)
        self.text = text
        self.module = module
        self.vocabulary = vocabulary
        self.edits: list[Edit] = []

    def run(self) -> list[Edit]:
        for node in self.module.walk():
            match node:
                case ast.Call():
                    self.call(node)
                case _ if isinstance(node, _SUBJECT_FIRST):
                    self.agreement(node.player, node)
                case _ if isinstance(node, _OBJECT_FIRST):
                    self.agreement(node.obj, node)
                case ast.Not(item=ast.Visible()):
                    self.not_visible(node)
                case ast.Each() | ast.Count():
                    self.including_hidden(node)
        return self.edits

    def call(self, node: ast.Call) -> None:
        start, end = self.lines.span(node.span)
        m = re.match(r"do\s+", self.text[start:end])
        if m and node.verb not in keywords() and self.text.startswith(node.verb, start + m.end()):
            self.edits.append(Edit(start, start + m.end(), ""))

    def agreement(self, subject: ast.Node, node: ast.Node) -> None:
        if not (isinstance(subject, ast.Name) and subject.id == "you"):
            return
        _start, after = self.lines.span(subject.span)
        m = re.compile(r"\s+(draws|gains|gets|becomes)\b").match(self.text, after)
        if m:
            self.edits.append(Edit(m.start(1), m.end(1), _AGREEING[m.group(1)]))

    def not_visible(self, node: ast.Not) -> None:
        start, end = self.lines.span(node.span)
        if not self.text.startswith("not", start):
            return  # already `X is not visible` (the same tree)
        shown = self.lines.slice(node.item.span)
        m = re.search(r"\bis\s+visible\Z", shown)
        if m:
            self.edits.append(Edit(start, end, shown[:m.start()] + "is not visible"))

    def including_hidden(self, node: ast.Each | ast.Count) -> None:
        if node.hidden:
            return
        found = hidden_test(node.cond, node.var, self.vocabulary)
        if found is None:
            return
        position, _test = found
        start, _end = self.lines.span(node.span)
        cond_start, cond_end = self.lines.span(node.cond.span)
        head = self.text[start:cond_start]
        m = re.search(r"\bwhere(\s*\()*\s*\Z", head)
        if m is None:
            return
        opened = m.group(0).count("(")
        after = re.compile(r"(\s*\)){%d}" % opened).match(self.text, cond_end)
        if after is None:
            return
        where_start, region_end = start + m.start(), after.end()
        if position is None:
            self.edits.append(Edit(where_start, region_end, "including hidden"))
            return
        rest = [item for i, item in enumerate(node.cond.items) if i != position]
        parts = [self.part_text(item, alone=len(rest) == 1) for item in rest]
        self.edits.append(Edit(where_start, region_end, "including hidden where " + " and ".join(parts)))

    def part_text(self, item: ast.Node, alone: bool) -> str:
        """A conjunct's text as written, in parentheses where `and` would bind it otherwise."""
        text = self.lines.slice(item.span)
        return f"({text})" if isinstance(item, ast.Or) and not alone else text


def _innermost(edits: list[Edit]) -> list[Edit]:
    """The edits that hold no other edit and overlap none kept before them."""
    edits = sorted(set(edits), key=lambda e: (e.start, -e.end))
    kept: list[Edit] = []
    for e in edits:
        if any(o is not e and e.start <= o.start and o.end <= e.end and (o.start, o.end) != (e.start, e.end)
               for o in edits):
            continue  # it holds another: next round
        if kept and e.start < kept[-1].end:
            continue
        kept.append(e)
    return kept


def rewrite(text: str, path: str, vocabulary: Vocabulary) -> str:
    """`text` (the file at `path`) with the older forms rewritten; raises DiagnosticError when
    it does not parse."""
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom):]
    for _ in range(MAX_ROUNDS):
        module = parse(body, path)
        edits = _innermost(_Rewriter(body, module, vocabulary).run())
        if not edits:
            break
        for e in sorted(edits, key=lambda e: e.start, reverse=True):
            body = body[:e.start] + e.text + body[e.end:]
    return bom + body


# ------------------------------------------------------------------ files

SUFFIXES = (".rules", ".scenario")


def files(paths: Iterable[str | Path]) -> tuple[list[Path], list[Diagnostic]]:
    """The .rules and .scenario files the paths name (folders walked, in name order), and a
    diagnostic for each path that is none of them or holds none."""
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for given in paths:
        path = Path(given)
        where = Span(str(path), 0, 0, 0, 0)
        if path.is_dir():
            named = [p for p in path.rglob("*") if p.suffix in SUFFIXES]
            inside = sorted(p for p in named if p.is_file())
            for broken in sorted(p for p in named if p.is_symlink() and not p.exists()):
                problems.append(Diagnostic("error", "a link to a file that does not exist", Span(str(broken), 0, 0, 0, 0),
                                           f"it points to {os.readlink(broken)}; mend or remove the link"))
            if not inside:
                problems.append(Diagnostic("error", "no .rules or .scenario file in this folder", where,
                                           "give a folder of rule files or scenarios, or files themselves"))
            found += inside
        elif path.is_file():
            if path.suffix not in SUFFIXES:
                problems.append(Diagnostic("error", "not a rule file or a scenario", where,
                                           "phasing fmt rewrites .rules and .scenario files"))
            else:
                found.append(path)
        else:
            problems.append(Diagnostic("error", "no such file or folder", where, "check the path"))
    # A link is read and written through: each real file once, under its own name when it
    # was found itself (a link and its target in one folder are one file).
    by_file: dict[str, Path] = {}
    for path in found:
        real = os.path.realpath(path)
        if real not in by_file or (linked(by_file[real]) and not linked(path)):
            by_file[real] = path
    return list(by_file.values()), problems


def linked(path: Path) -> bool:
    """Does `path` reach its file through a symbolic link (itself, or a folder on the way)?"""
    return os.path.realpath(path) != os.path.abspath(path)


def read(path: Path) -> str:
    """A file's text exactly as stored (line endings kept)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def write(path: Path, text: str, before: str, force: bool = False) -> Path:
    """Replace a file's text `before` (as `read` gave it) with `text`, through
    `dsl.atomic.write_file`: refused when the file no longer holds `before`, is read-only
    (unless `force`) or is not a regular file; a link written through, owner, group, mode and
    hard links kept. Returns the file written; raises `WriteRefused`."""
    return write_file(path, text.encode("utf-8"), replace=True, expected=before.encode("utf-8"), force=force)


def diff(path: Path, before: str, after: str) -> list[str]:
    """A unified diff of one file's change, as lines without their line ends."""
    return [line.rstrip("\r\n") for line in difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        str(path) if path.is_absolute() else f"a/{path}", str(path) if path.is_absolute() else f"b/{path}")]
