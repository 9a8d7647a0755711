"""Calls of the Python API checked against what they take before they run.

A call Python itself would refuse (too many positional arguments, an unknown keyword, a
missing argument) raises a `TypeError` from the call machinery, which would tell an API user
nothing of how to call the function. `checked` wraps a public function or method so that
such a call raises `DiagnosticError` instead, at a span named after the call (`load()`,
`Actions()`), whose hint is the call's signature (and, for an unknown keyword, the likeliest
parameter). A `TypeError` the function raises as it runs is not touched: the arguments are
bound first, and only a failure to bind them is turned into a diagnostic.

What the arguments must be is checked the same way, before the function runs: `checked(wants=
{"exc": Wants(...)})` tests each argument given against what it must be, and one that is not
is a `DiagnosticError` at `name(argument)` saying what it must be and what it is
(`bad_argument`), never an AttributeError or TypeError from deep inside (issue 43). A
function that checks an argument in its own body (one whose check depends on another
argument) raises `bad_argument` too, so every wrong argument is said one way.
"""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any, Callable

from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean, type_in_words

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


def describe(value: Any) -> str:
    """A wrong argument as a message shows it: a string, number or small container as
    written (`0`, `[]`, `['Alice', 'Alice']`), anything else by its type (`a Path`, `an int`)."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return "an empty string" if not value else f"the string {value[:40]!r}"
    name, a_name = type(value).__name__, type_in_words(value)
    if isinstance(value, (bool, int, float, list, tuple, dict, set, frozenset)):
        try:
            shown = repr(value)
        except (ValueError, RecursionError):  # (an int of more digits than Python writes out; a list holding itself deeply)
            return f"{a_name} too large to show"
        return shown if len(shown) <= 60 else f"a {name} of {len(value)}" if hasattr(value, "__len__") \
            else shown[:57] + "..."
    return a_name


def bad_argument(function: str, name: str, value: Any, wanted: str, hint: str) -> DiagnosticError:
    """The error for argument `name` of `function` that is not what it must be (`wanted`):
    at `function(name)`, line 0, saying what it is, with `hint`."""
    return DiagnosticError(Diagnostic(
        "error", f"{function}(): the {name} argument must be {wanted}, not {describe(value)}",
        Span(f"{function}({name})", 0, 0, 0, 0), hint))


class Wants:
    """What one argument must be, for `checked(wants=...)`: a value for which `test` is true;
    `said` is what it must be in words ("an OSError"), `hint` how to give one."""

    def __init__(self, test: Callable[[Any], bool], said: str, hint: str):
        self.test, self.said, self.hint = test, said, hint

    def __repr__(self) -> str:
        return f"Wants({self.said!r})"


def is_path(value: Any) -> bool:
    """A path as the API takes one: a non-empty `str` or `os.PathLike` of text, without NUL."""
    if not isinstance(value, (str, os.PathLike)):
        return False
    try:
        text = os.fspath(value)
    except Exception:  # (a PathLike of one's own that fails to give its path)
        return False
    return isinstance(text, str) and bool(text) and "\0" not in text


def instance_of(kinds: type | tuple[type, ...], said: str, hint: str, *, none: bool = False) -> Wants:
    """An argument of one of `kinds` (or None, with `none`); a bool is no int here."""
    def test(value: Any) -> bool:
        if value is None:
            return none
        return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in _tuple(kinds))
    return Wants(test, said + (", or None" if none else ""), hint)


def list_of(kinds: type | tuple[type, ...] | Callable[[Any], bool], said: str, hint: str) -> Wants:
    """A list or tuple whose every item is one of `kinds` (or passes it, given a test)."""
    item = kinds if callable(kinds) and not isinstance(kinds, type) else lambda v: isinstance(v, kinds)
    return Wants(lambda value: isinstance(value, (list, tuple)) and all(item(v) for v in value), said, hint)


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def checked(function: Callable | None = None, *, name: str | None = None,
            wants: dict[str, Wants] | None = None) -> Callable:
    """`function`, its arguments bound to its signature before it runs; a call they do not
    bind to is a `DiagnosticError` (see the module), and so is an argument given that is not
    what `wants` says it must be (an argument left to its default is not tested). `name`: how
    the call is shown (default the function's name). Used as `@checked`,
    `@checked(name="Actions")` or `@checked(wants={"exc": instance_of(OSError, ...)})`."""
    if function is None:
        return lambda f: checked(f, name=name, wants=wants)
    signature = inspect.signature(function)
    shown = name or function.__name__
    unknown = set(wants or ()) - set(signature.parameters)
    if unknown:  # (a slip of this module's user, told at import)
        raise ValueError(f"checked({shown}): wants names no parameter: {', '.join(sorted(unknown))}")

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as problem:
            raise refused_call(shown, function, signature, kwargs, problem) from None
        for parameter, wanted in (wants or {}).items():
            if parameter in bound.arguments and not wanted.test(bound.arguments[parameter]):
                raise bad_argument(shown, parameter, bound.arguments[parameter], wanted.said, wanted.hint)
        return function(*args, **kwargs)
    return call
