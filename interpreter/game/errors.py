"""The error a rule set raises while it runs."""

from __future__ import annotations

from ...dsl.diagnostics import DiagnosticError


class RulesError(DiagnosticError):
    """A rule set that misbehaves while running: conflicting writes, never settling, a failed
    assertion, a step over its budget. Its diagnostic names the rule and points into its file."""
