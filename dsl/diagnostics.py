"""Source positions and the one diagnostic type shared by parser, checker and interpreter."""

from __future__ import annotations

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
class Diagnostic:
    """An error or warning about user input, pointing into the source it came from."""

    kind: str  # "error" or "warning"
    message: str
    span: Span = NOWHERE
    hint: str | None = None

    def render(self, sources: dict[str, str] | None = None) -> str:
        """`path:line:col: kind: message`, then the source line, a caret, and the hint."""
        head = f"{self.span}: {self.kind}: {self.message}" if self.span.line else f"{self.span.path}: {self.kind}: {self.message}"
        lines = [head]
        text = (sources or {}).get(self.span.path)
        if text is None and self.span.line:
            try:
                with open(self.span.path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                text = None
        if text is not None and self.span.line:
            source_lines = text.removeprefix("\ufeff").splitlines()  # the parser skips a byte-order mark too
            if 0 < self.span.line <= len(source_lines):
                line = source_lines[self.span.line - 1]
                lines.append(f"    {line}")
                width = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    width = self.span.end_column - self.span.column
                # Columns count characters; repeat the line's tabs so the caret lands under the
                # same character however wide the terminal draws a tab.
                before = "".join("\t" if char == "\t" else " " for char in line[: max(0, self.span.column - 1)])
                before += " " * max(0, self.span.column - 1 - len(line))  # past the end of the line
                lines.append("    " + before + "^" * max(1, width))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class DiagnosticError(Exception):
    """Raised with one or more diagnostics when input cannot be used."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.message for d in self.diagnostics))


def error(message: str, span: Span = NOWHERE, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, span, hint))
