"""Calls of the Python API checked against what they take before they run.

A call Python itself would refuse (too many positional arguments, an unknown keyword, a
missing argument) raises a `TypeError` from the call machinery, which would tell an API user
nothing of how to call the function. `checked` wraps a public function or method so that
such a call raises `DiagnosticError` instead, at a span named after the call (`load()`,
`Actions()`), whose hint is the call's signature (and, for an unknown keyword, the likeliest
parameter). A `TypeError` the function raises as it runs is not touched: the arguments are
bound first, and only a failure to bind them is turned into a diagnostic.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean

HIDDEN_PARAMETERS = ("self", "span")  # (`span`: where an action's errors are reported, for a runner of scripts; docs/api.md)


def call_span(name: str) -> Span:
    """Where an error of a Python call is reported: the call's name, line 0."""
    return Span(f"{name}()", 0, 0, 0, 0)


def shown_signature(function: Callable) -> str:
    """How a user calls `function`: its parameters with their defaults, without annotations,
    `self` or the internal `span`, and a note when some are given by keyword only."""
    signature = inspect.signature(function)
    shown = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()
             if p.name not in HIDDEN_PARAMETERS]
    public = signature.replace(parameters=shown, return_annotation=inspect.Signature.empty)
    by_keyword = " (what follows * by keyword only)" if any(p.kind is p.KEYWORD_ONLY for p in shown) else ""
    return f"{public}{by_keyword}"


def refused_call(name: str, function: Callable, signature: inspect.Signature, kwargs: dict, problem: TypeError | str,
                 span: Span | None = None) -> DiagnosticError:
    """The DiagnosticError for a call of `function` (shown as `name`) whose arguments do not
    bind to `signature`: what Python found, and how to call it."""
    hint = f"call it as {name}{shown_signature(function)}"
    takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    known = [p for p in signature.parameters if p not in HIDDEN_PARAMETERS]
    unknown = [k for k in kwargs if k not in signature.parameters] if not takes_any else []
    if unknown:  # (said first: Python would name a missing argument before it)
        hint = did_you_mean(unknown[0], known, hint)
        problem = f"it has no parameter {' or '.join(map(repr, unknown))}"
    return DiagnosticError(Diagnostic("error", f"{name}() cannot take these arguments: {problem}",
                                      span or call_span(name), hint))


def checked(function: Callable | None = None, *, name: str | None = None) -> Callable:
    """`function`, its arguments bound to its signature before it runs; a call they do not
    bind to is a `DiagnosticError` (see the module). `name`: how the call is shown (default
    the function's name). Used as `@checked` or `@checked(name="Actions")`."""
    if function is None:
        return lambda f: checked(f, name=name)
    signature = inspect.signature(function)
    shown = name or function.__name__

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as problem:
            raise refused_call(shown, function, signature, kwargs, problem) from None
        return function(*args, **kwargs)
    return call
