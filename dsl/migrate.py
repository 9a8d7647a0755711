"""`phasing fmt`: older forms of the language rewritten to the current ones, in place in the
source text.

Only the text of the forms rewritten changes; every other character (comments, blank lines,
layout, line endings) is kept as it is, because the rewriting edits the text at the
positions the parser gives the nodes (`Span`) and never prints a tree. The rewrites:

- `do NAME ARGS` -> `NAME ARGS` (a declared verb called like a built-in statement), unless
  the verb is named like a word of the language;
- `you draws / gains / gets / becomes` -> `you draw / gain / get / become`;
- `not (X is visible)` -> `X is not visible`;
- `upkeep` -> `upkeep step`, `cleanup` -> `cleanup step` as a hook's name (`during upkeep of
  P`, `order cleanup: ...`, `at next upkeep: ...`, `at beginning of upkeep of you`): the steps
  named as the Comprehensive Rules name them (503, 514); the parser reports each older name
  it reads (`parse(..., older=...)`);
- an `each` or `count` whose condition is a test of every value of a hiding status of its
  object (`x.s is a or x.s is b` for a status `s: a | b` a `hide` clause reads: what used to
  make a selection see hidden objects) -> `including hidden`, and where that test is one
  conjunct, `including hidden where REST`.

The first four give the same tree back; the last gives the tree `migrated_tree` describes,
which selects the same objects (both forms see the objects the hide rules hide).

Every rewrite is a few small edits of the text: a word deleted, replaced or put in, a
parenthesis taken away, or (the hiding test) the text of the test and the `and` joining it
deleted. A comment is never deleted: one that stands in text an edit removes is kept on a
line of its own just before the line the edit is on, indented like it (comments and line
ends are ignored between any two words, so the tree is the same). All the edits of a file
are found on one parse and made in one pass over the text: `fmt` takes time in proportion
to the file (issue 43). An edit inside text another edit deletes goes with that text.
"""

from __future__ import annotations

import bisect
import difflib
import os
import re
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Union

import attrs

from . import ast, constant
from .atomic import write_file
from .collector import collector_paused
from .diagnostics import Diagnostic, DiagnosticError, Span
from .parser import BOM, LINE_BREAK, OLDER_HOOK_NAMES, keywords, parse


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


# What `rewrite` judges hiding tests by: a vocabulary, or a function that makes one when it is
# needed and only then, given the names of the statuses the file's queries test with `or`
# (the only ones the rewrite asks about) and the file's own tree. `phasing fmt` passes such a
# function, so that a file with no such test makes it read no other file.
VocabularySource = Union[Vocabulary, Callable[[frozenset, ast.Module], Vocabulary]]


class Edit(NamedTuple):
    """The text [start, end) replaced by `text` (an insertion when start == end); `displaced`:
    the comments that stood in the text replaced, kept on lines of their own (`_apply`)."""

    start: int
    end: int
    text: str
    displaced: tuple[str, ...] = ()


class Lines:
    """Offsets in a text from the parser's (line, column) positions (both counted from 1). A
    line ends at LF, CRLF or a lone CR, as the parser reads them (`dsl.parser.one_line_ending`)."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def span(self, span: Span) -> tuple[int, int]:
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)

    def slice(self, span: Span) -> str:
        start, end = self.span(span)
        return self.text[start:end]

    def index(self, offset: int) -> int:
        """The line (counted from 0) the character at `offset` is on."""
        return bisect.bisect_right(self.starts, offset) - 1

    def start_of(self, offset: int) -> int:
        """Where the line the character at `offset` is on starts."""
        return self.starts[self.index(offset)]

    def end_of(self, index: int) -> int:
        """Where line `index` (from 0) ends, its line break included."""
        return self.starts[index + 1] if index + 1 < len(self.starts) else len(self.text)


# The lexical pieces `_Source` steps over: what the grammar ignores between words (`WS`), and
# one word, number, string, comment or sign. A `#` in a string does not start a comment.
_SPACE = re.compile(r"[ \t\f\r\n]*")
_THING = re.compile(r'"[^"\r\n]*"|#[^\r\n]*|[A-Za-z_][A-Za-z0-9_\-]*|[+\-]?\d[A-Za-z0-9_.\-]*|\S')
_STRING_OR_COMMENT = re.compile(r'"[^"\r\n]*"|#[^\r\n]*')
_NAME_CHAR = re.compile(r"[A-Za-z0-9_\-]")
_GLUING = re.compile(r"[\w\-+]")  # two of these side by side would read as one word
_INDENT = re.compile(r"[ \t]*")


class Thing(NamedTuple):
    """A word, sign, string or comment of the source, at [start, end)."""

    start: int
    end: int
    text: str

    @property
    def comment(self) -> bool:
        return self.text.startswith("#")


def comments(text: str) -> list[str]:
    """The comments of a text that parses, in order (each as written, without its line end)."""
    return [m.group() for m in _STRING_OR_COMMENT.finditer(text) if m.group().startswith("#")]


class _Source:
    """Stepping from word to word of a text that parses, over what lies between them: line
    ends, spaces and comments. Each step reads only the words it passes (and, backwards, the
    line it is on, once): time in proportion to what is read."""

    def __init__(self, text: str):
        self.text = text
        self.lines = Lines(text)
        self._comment_on: dict[int, tuple[int, int] | None] = {}

    def next_thing(self, pos: int) -> Thing | None:
        """The first word, sign, string or comment from `pos` on (`pos` between two of them)."""
        m = _THING.match(self.text, _SPACE.match(self.text, pos).end())
        return None if m is None else Thing(m.start(), m.end(), m.group())

    def next_token(self, pos: int) -> Thing | None:
        """The same, comments stepped over."""
        thing = self.next_thing(pos)
        while thing is not None and thing.comment:
            thing = self.next_thing(thing.end)
        return thing

    def comment_on(self, offset: int) -> tuple[int, int] | None:
        """Where the comment of the line `offset` is on starts and ends, if it has one."""
        index = self.lines.index(offset)
        if index not in self._comment_on:
            found = None
            for m in _STRING_OR_COMMENT.finditer(self.text, self.lines.starts[index], self.lines.end_of(index)):
                if m.group().startswith("#"):
                    found = (m.start(), m.end())
                    break
            self._comment_on[index] = found
        return self._comment_on[index]

    def prev_thing(self, pos: int) -> Thing | None:
        """The last word, sign, string or comment before `pos` (`pos` between two of them)."""
        text, p = self.text, pos
        while p > 0 and text[p - 1] in " \t\f\r\n":
            p -= 1
        if p == 0:
            return None
        comment = self.comment_on(p - 1)
        if comment is not None and comment[0] < p:
            return Thing(comment[0], comment[1], text[comment[0]:comment[1]])
        if text[p - 1] == '"':
            start = text.rfind('"', 0, p - 1)
        elif _NAME_CHAR.match(text, p - 1):
            start = p - 1
            while start > 0 and _NAME_CHAR.match(text, start - 1):
                start -= 1
        else:
            start = p - 1
        return Thing(start, p, text[start:p])

    def prev_token(self, pos: int) -> Thing | None:
        """The same, comments stepped over."""
        thing = self.prev_thing(pos)
        while thing is not None and thing.comment:
            thing = self.prev_thing(thing.start)
        return thing

    def comments_in(self, start: int, end: int) -> tuple[str, ...]:
        """The comments in [start, end) (`start` between two words)."""
        return tuple(m.group() for m in _STRING_OR_COMMENT.finditer(self.text, start, end) if m.group().startswith("#"))


def _is_word(thing: Thing | None, word: str) -> bool:
    return thing is not None and thing.text == word


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


def tested_statuses(node: ast.Each | ast.Count) -> set[str]:
    """The statuses S a query's condition tests as `var.S is V` in an `or` (the whole condition
    or one conjunct): the only ones `hidden_test` can find a test of every value of."""
    cond = node.cond
    ors = [cond] if isinstance(cond, ast.Or) else [i for i in cond.items if isinstance(i, ast.Or)] \
        if isinstance(cond, ast.And) else []
    names: set[str] = set()
    for either in ors:
        for item in either.items:
            test = constant.status_test(item)
            if test is not None and not test[2] and isinstance(test[0].obj, ast.Name) and test[0].obj.id == node.var:
                names.add(test[0].name)
    return names


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
    def __init__(self, text: str, module: ast.Module, vocabulary: VocabularySource):
        self.source = _Source(text)
        self.lines = self.source.lines
        self.text = text
        self.module = module
        self.vocabulary = vocabulary
        self.edits: list[Edit] = []

    def run(self) -> list[Edit]:
        queries: list[ast.Each | ast.Count] = []
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
                case ast.Each() | ast.Count() if not node.hidden and node.cond is not None:
                    queries.append(node)
        names = frozenset(name for query in queries for name in tested_statuses(query))
        if names:  # (the vocabulary is asked for only here)
            vocabulary = self.vocabulary if isinstance(self.vocabulary, Vocabulary) else self.vocabulary(names, self.module)
            for query in queries:
                self.including_hidden(query, vocabulary)
        return self.edits

    # --- edits
    def edit(self, start: int, end: int, text: str) -> None:
        """Replace [start, end) by `text`, keeping any comment in it (`Edit.displaced`)."""
        self.edits.append(Edit(start, end, text, self.source.comments_in(start, end) if start < end else ()))

    def delete_word(self, word: Thing) -> None:
        """Delete a word or an opening parenthesis with the space after it, up to what follows
        (a comment there stays, and so does the line end after it)."""
        after = self.source.next_thing(word.end)
        self.edit(word.start, after.start if after is not None else word.end, "")

    def delete_closing(self, word: Thing) -> None:
        """Delete a closing parenthesis with the space before it (not the line end after a
        comment: that ends the comment)."""
        before = self.source.prev_thing(word.start)
        self.edit(word.start if before is None or before.comment else before.end, word.end, "")

    def extent(self, node: ast.Node) -> tuple[int, int]:
        """Where a node's text starts and ends, with the parentheses around it."""
        start, end = self.lines.span(node.span)
        while True:
            before, after = self.source.prev_token(start), self.source.next_token(end)
            if not (_is_word(before, "(") and _is_word(after, ")")):
                return start, end
            start, end = before.start, after.end

    # --- the rewrites
    def hook_names(self, words) -> None:
        """`upkeep` -> `upkeep step` (a word put in after the older name: nothing is deleted)."""
        for word in words:
            end = self.lines.offset(word.end_line, word.end_column)
            self.edit(end, end, OLDER_HOOK_NAMES[str(word)][len(str(word)):])

    def call(self, node: ast.Call) -> None:
        start, _end = self.lines.span(node.span)
        do = self.source.next_thing(start)
        if not _is_word(do, "do") or node.verb in keywords():
            return
        if _is_word(self.source.next_token(do.end), node.verb):
            self.delete_word(do)

    def agreement(self, subject: ast.Node, node: ast.Node) -> None:
        if not (isinstance(subject, ast.Name) and subject.id == "you"):
            return
        _start, after = self.lines.span(subject.span)
        word = self.source.next_token(after)
        if word is not None and word.text in _AGREEING:
            self.edit(word.start, word.end, _AGREEING[word.text])

    def not_visible(self, node: ast.Not) -> None:
        """`not ((X is visible))` -> `X is not visible`: `not` and the parentheses around the
        test deleted, `not` put in after `is`; what stands between them (comments, line
        ends) stays where it is."""
        start, _end = self.lines.span(node.span)
        not_ = self.source.next_thing(start)
        if not _is_word(not_, "not"):
            return  # already `X is not visible` (the same tree)
        test_start, test_end = self.lines.span(node.item.span)  # `X is visible` (X's parentheses too)
        opened: list[Thing] = []
        word = self.source.next_token(not_.end)
        while word is not None and word.start < test_start and word.text == "(":
            opened.append(word)
            word = self.source.next_token(word.end)
        visible = self.source.prev_token(test_end)
        is_ = self.source.prev_token(visible.start) if visible is not None else None
        if word is None or word.start != test_start or not _is_word(visible, "visible") or not _is_word(is_, "is"):
            return
        closed: list[Thing] = []
        at = test_end
        for _ in opened:
            word = self.source.next_token(at)
            if not _is_word(word, ")"):
                return
            closed.append(word)
            at = word.end
        self.delete_word(not_)
        for word in opened:
            self.delete_word(word)
        self.edit(is_.end, is_.end, " not")
        for word in closed:
            self.delete_closing(word)

    def including_hidden(self, node: ast.Each | ast.Count, vocabulary: Vocabulary) -> None:
        """`where T` -> `including hidden`; `where A and T and B` -> `including hidden where A
        and B` (the test T deleted with one `and`, the rest kept as written)."""
        found = hidden_test(node.cond, node.var, vocabulary)
        if found is None:
            return
        position, test = found
        cond_start, cond_end = self.extent(node.cond)
        where = self.source.prev_token(cond_start)
        if not _is_word(where, "where"):
            return
        if position is None:
            self.edit(where.start, cond_end, "including hidden")
            return
        test_start, test_end = self.extent(test)
        if position == 0:  # `T and A ...`: T up to A
            joint = self.source.next_token(test_end)
            following = self.source.next_token(joint.end) if _is_word(joint, "and") else None
            if following is None:
                return
            start, end = test_start, following.start
        else:  # `... A and T`: from the end of A
            joint = self.source.prev_token(test_start)
            preceding = self.source.prev_token(joint.start) if _is_word(joint, "and") else None
            if preceding is None:
                return
            start, end = preceding.end, test_end
        self.edit(where.start, where.start, "including hidden ")
        self.edit(start, end, "")


def _line_break_before(text: str, start: int) -> str:
    """The line break that ends the line before the one starting at `start` (for the first
    line: the text's first, or LF)."""
    if start >= 2 and text[start - 2:start] == "\r\n":
        return "\r\n"
    if start >= 1:
        return text[start - 1]
    first = LINE_BREAK.search(text)
    return first.group() if first else "\n"


def _apply(text: str, lines: Lines, edits: list[Edit]) -> str:
    """`text` with `edits` made, in one pass. An edit inside text another deletes or replaces
    goes with it. Displaced comments go on lines of their own at the start of the line their
    edit starts on (or, when that line starts inside text an edit replaces, of that edit's
    line), each indented like that line and ended with its line break."""
    edits = list(dict.fromkeys(edits))
    order = sorted(range(len(edits)), key=lambda i: (edits[i].start, -edits[i].end, i))
    kept: list[int] = []
    starts: list[int] = []  # the edits kept that replace text: where they start and end
    ends: list[int] = []
    for i in order:
        edit = edits[i]
        if edit.start < edit.end:
            if ends and edit.start < ends[-1]:
                continue  # inside text a kept edit replaces
            starts.append(edit.start)
            ends.append(edit.end)
        elif ends and starts[-1] < edit.start < ends[-1]:
            continue
        kept.append(i)

    def line_for_comments(offset: int) -> int:
        while True:
            start = lines.start_of(offset)
            j = bisect.bisect_left(starts, start) - 1  # the last edit starting before the line
            if j < 0 or ends[j] <= start:
                return start
            offset = starts[j]

    pieces: list[tuple[int, int, int, int, str]] = []  # (start, rank, order, end, text)
    for i in kept:
        edit = edits[i]
        if edit.displaced:
            at = line_for_comments(edit.start)
            indent = _INDENT.match(text, at).group()
            eol = _line_break_before(text, at)
            pieces.append((at, 0, i, at, "".join(indent + comment + eol for comment in edit.displaced)))
        pieces.append((edit.start, 1 if edit.start == edit.end else 2, i, edit.end, edit.text))
    pieces.sort()

    out: list[str] = []
    last = ""

    def put(part: str) -> None:
        nonlocal last
        if not part:
            return
        if last and _GLUING.match(last) and _GLUING.match(part[0]):
            out.append(" ")  # (two words the deleted text kept apart)
        out.append(part)
        last = part[-1]

    at = 0
    for start, _rank, _i, end, new in pieces:
        put(text[at:start])
        put(new)
        at = end
    put(text[at:])
    return "".join(out)


def rewrite(text: str, path: str, vocabulary: VocabularySource) -> str:
    """`text` (the file at `path`) with the older forms rewritten, every comment kept; raises
    DiagnosticError when it does not parse."""
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom):]
    # The tree of a large file is hundreds of thousands of objects that live until the rewrite
    # ends and hold no reference cycles; Python's cycle collector, left running, walks them
    # again and again as more are made, and the time per block grows with the file
    # (bench/scale_fmt.py). Paused here, everything is freed by reference counting as ever.
    with collector_paused():
        older: list = []  # (the older hook names, as the parser read them)
        module = parse(body, path, older)
        rewriter = _Rewriter(body, module, vocabulary)
        rewriter.hook_names(older)
        edits = rewriter.run()
        if not edits:
            return text
        after = _apply(body, rewriter.lines, edits)
        _check_comments_kept(body, after, path, rewriter.lines)
        return bom + after


def _check_comments_kept(before: str, after: str, path: str, lines: Lines) -> None:
    """Refuse (a diagnostic at the first comment concerned) a rewrite that would not keep every
    comment exactly once: the file is then left as it is. (A safeguard: `_apply` keeps them.)"""
    old, new = Counter(comments(before)), Counter(comments(after))
    if old == new:
        return
    changed = next(iter((old - new) or (new - old)))
    offset = max(before.find(changed), 0)
    line = lines.index(offset)
    column = offset - lines.starts[line] + 1
    raise DiagnosticError(Diagnostic(
        "error", "fmt would not keep this comment as it is, so it leaves this file unchanged",
        Span(path, line + 1, column, line + 1, column + len(changed)),
        "rewrite the older forms in this file by hand, and report the file: fmt should keep every comment"))


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
