"""Source positions and the one diagnostic type shared by parser, checker and interpreter."""

from __future__ import annotations

import difflib
import functools
import re
from typing import Iterable

import attrs


@attrs.frozen
class Span:
    """A stretch of a source file: 1-based line and column of its start and end."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


NOWHERE = Span("<none>", 0, 0, 0, 0)


@attrs.frozen
class Note:
    """Another place a diagnostic concerns (what still refers to something a variant took
    away, say), shown under it as `note: path:line:col: message`."""

    message: str
    span: Span

    def render(self) -> str:
        return f"  note: {self.span}: {self.message}" if self.span.line else f"  note: {self.span.path}: {self.message}"


@attrs.frozen
class Diagnostic:
    """An error or warning about user input, pointing into the source it came from, with
    the other places it concerns, if any, as notes."""

    kind: str  # "error" or "warning"
    message: str
    span: Span = NOWHERE
    hint: str | None = None
    notes: tuple[Note, ...] = ()

    def render(self, sources: dict[str, str] | None = None) -> str:
        """`path:line:col: kind: message`, then the source line, a caret, the hint, and a line
        `note: path:line:col: ...` for each note."""
        message = _shortened(self.message)
        head = f"{self.span}: {self.kind}: {message}" if self.span.line else f"{self.span.path}: {self.kind}: {message}"
        lines = [head]
        text = (sources or {}).get(self.span.path)
        if text is None and self.span.line:
            try:
                with open(self.span.path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                text = None
        if text is not None and self.span.line:
            source_lines = _lines(text)
            if 0 < self.span.line <= len(source_lines):
                line = source_lines[self.span.line - 1]
                width = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    width = self.span.end_column - self.span.column
                line, column, width = _window(line, self.span.column, width)
                lines.append(f"    {line}")
                # Columns count characters; repeat the line's tabs so the caret lands under the
                # same character however wide the terminal draws a tab.
                before = "".join("\t" if char == "\t" else " " for char in line[: max(0, column - 1)])
                before += " " * max(0, column - 1 - len(line))  # past the end of the line
                lines.append("    " + before + "^" * max(1, width))
        if self.hint:
            lines.append(f"  hint: {_shortened(self.hint)}")
        lines.extend(note.render() for note in self.notes)
        return "\n".join(lines)


def word_span(span: Span, word: str, skip: int = 0) -> Span:
    """Where `word` stands, as a word of its own, on the first line of `span` (from its column
    on, after its first `skip` occurrences there), read from the source file: for a name the
    syntax tree keeps no position of its own (one of a line's names). `span` itself when the
    file, the line or the word cannot be found."""
    if span.line < 1:
        return span
    try:
        with open(span.path, encoding="utf-8", errors="replace") as handle:
            line = _lines(handle.read())[span.line - 1]
    except (OSError, IndexError):
        return span
    found = list(re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", line[span.column - 1:]))
    if len(found) <= skip:
        return span
    start = span.column + found[skip].start()
    return Span(span.path, span.line, start, span.line, start + len(word))


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> list[str]:
    """A source's lines (the parser skips a byte-order mark too), split once per text: a file
    with thousands of errors would otherwise be split again under each one."""
    return text.removeprefix("\ufeff").splitlines()


SHOWN_QUOTE = 80  # characters of something quoted from the input shown in a message or hint
# (a name in quotes, which a rule file may make thousands of characters long)
_QUOTED = re.compile(r"'([^'\n]{%d,})'" % (SHOWN_QUOTE + 1))


def _shortened(text: str) -> str:
    """`text` with each quoted stretch longer than SHOWN_QUOTE characters cut to its start and
    "...": thousands of errors naming a name thousands of characters long would otherwise
    write it out under each (the source line under the message shows where it is)."""
    if len(text) <= SHOWN_QUOTE:
        return text
    return _QUOTED.sub(lambda found: "'" + found.group(1)[: SHOWN_QUOTE - 3] + "...'", text)


SHOWN_LINE = 200  # characters of a source line shown under a diagnostic
SHOWN_BEFORE = 60  # of which, at most, before the caret when the line is cut


def _window(line: str, column: int, width: int) -> tuple[str, int, int]:
    """A long source line cut to the part around the span, marked with "..." where cut, and
    the span's column and width within what is shown (a long line repeated under each of many
    diagnostics would otherwise fill the screen)."""
    if len(line) <= SHOWN_LINE:
        return line, column, width
    start = max(0, min(column - 1 - SHOWN_BEFORE, len(line) - SHOWN_LINE))
    end = start + SHOWN_LINE
    mark = "..." if start else ""
    shown = mark + line[start:end] + ("..." if end < len(line) else "")
    width = max(1, min(width, end - (column - 1)))  # the span up to where the line is cut
    return shown, column - start + len(mark), width


_NOTHING = object()  # (`DiagnosticError()` given nothing)


class DiagnosticError(Exception):
    """Raised with one or more diagnostics when input cannot be used.

    Built of anything but a Diagnostic or a non-empty list or tuple of them (None, a
    string, a list holding something else, more arguments than one), it is still a
    DiagnosticError, never a TypeError or AttributeError of its own (the API raises only this
    type, issue 43): one whose diagnostic says how it was misused, at a span named
    "DiagnosticError". The value given is described by its type, never written out."""

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...] | Diagnostic = _NOTHING,  # type: ignore
                 *more: object, **keywords: object):
        if isinstance(diagnostics, Diagnostic):  # (the commonest, first: this type is raised everywhere)
            diagnostics = [diagnostics]
        elif isinstance(diagnostics, (list, tuple)) and diagnostics and all(
                isinstance(d, Diagnostic) for d in diagnostics):
            diagnostics = list(diagnostics)
        else:
            diagnostics = [_misused(_given(diagnostics))]
        if more or keywords:
            diagnostics = [_misused(f"{1 + len(more)} arguments" if more
                                    else f"the keyword argument {sorted(keywords)[0][:40]!r}")]
        self.diagnostics = diagnostics
        try:
            message = "\n".join(d.message for d in diagnostics)
        except TypeError:  # (a Diagnostic built with a message that is no string)
            message = "\n".join(d.message if isinstance(d.message, str) else f"({type_in_words(d.message)} as the message)"
                                for d in diagnostics)
        super().__init__(message)

    def __reduce__(self):  # (pickled or copied: built again of its diagnostics, not of its message)
        return type(self), (self.diagnostics,), self.__dict__


def type_in_words(value: object) -> str:
    """`value` in words by its type: "an int", "a list" (never written out: an int of more
    digits than Python writes raises ValueError, a long string would fill the message)."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _given(value: object) -> str:
    """What a misused `DiagnosticError(...)` was given, in words."""
    if value is _NOTHING:
        return "nothing"
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        if not value:
            return f"an empty {type(value).__name__}"
        wrong = next(d for d in value if not isinstance(d, Diagnostic))
        return f"{type_in_words(value)} holding {'None' if wrong is None else type_in_words(wrong)}"
    return type_in_words(value)


def _misused(given: str) -> Diagnostic:
    """The diagnostic of a `DiagnosticError(...)` given `given` (in words)."""
    return Diagnostic("error", f"DiagnosticError(...) takes a Diagnostic or a list of them, not {given}",
                      Span("DiagnosticError", 0, 0, 0, 0),
                      "raise DiagnosticError(Diagnostic('error', message, span, hint)), or give a non-empty list of "
                      "Diagnostics (dsl.diagnostics.Diagnostic)")


def error(message: str, span: Span = NOWHERE, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, span, hint))


def close_names(key: str, names: Iterable[str], cutoff: float = 0.6) -> list[str]:
    """The names most like `key` (at most three, the likeliest first), for a hint."""
    return difflib.get_close_matches(key, sorted(set(names)), n=3, cutoff=cutoff)


def did_you_mean(key: str, names: Iterable[str], otherwise: str = "", cutoff: float = 0.6,
                 first: str | None = None, n: int = 3) -> str:
    """A hint for a name that names nothing: `did you mean 'a' or 'b'?` with the (at most `n`)
    names most like `key` (`first`, when it is one of them, put first: the likeliest one
    meant), then `otherwise` (a sentence begun with a capital letter after the question); only
    `otherwise` when no name is close."""
    close = close_names(key, names, cutoff)
    if first in close:
        close = [first] + [c for c in close if c != first]
    close = close[:n]
    if not close:
        return otherwise
    asked = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    return f"{asked} {otherwise[:1].upper()}{otherwise[1:]}" if otherwise else asked
