"""Per-step limits on the work rule blocks may do, so that runaway rules stop with an error.

A rule file cannot run Python, but it can ask for a great deal of work: selections nested in
selections, or `count(...)` inside `count(...)`, visit every object for every object. The
engine gives each step (a scenario step, or whatever a caller runs after calling
`Engine.begin_step()`) a budget of

- *iterations*: objects visited by selections (`each`, `count`), counted once per
  selection, as the number of candidates it looks at;
- *writes*: changes gathered into batches (including those `as` clauses add);
- *objects*: things the rules create (continuous effects, delayed and pending triggers,
  returns at the end of an `until` effect).

The defaults grow with the game and the rulebook: iterations `scale` x (objects + players
+ 1) x statements in the rulebook (every statement may look at every object), writes and
objects created `scale` x (objects + players + 1 + statements). So a large board's step
runs well inside them, and so does a long block, while a selection nested four deep over a
few hundred objects does not (the untap step on the benchmark's board of 100,000 permanents,
`bench/run.py`, uses about 29,000 of its 691 million iterations and 43,000 of its 6.4
million writes; `bench/runaway.py` shows the runaway cases stopping). Any of the three can
be set outright. Exceeding one stops the step with a `RulesError` at the statement, naming
the block, the budget and `--budget`.
"""

from __future__ import annotations

import attrs

from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span

DEFAULT_SCALE = 64
KINDS = ("iterations", "writes", "objects")
OPTION = Span("--budget", 0, 0, 0, 0)
OPTION_HINT = ("give a positive whole number (the scale: --budget 256), or any of "
               "iterations=N,writes=N,objects=N,scale=N separated by commas")
BUDGET_HINT = ("if the rules are meant to do this much work, raise the budget: --budget N (a scale, default "
               f"{DEFAULT_SCALE}) or --budget iterations=N,writes=N,objects=N")


def _invalid(message: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, OPTION, OPTION_HINT))


def _positive(name: str, value: object, optional: bool) -> None:
    if value is None and optional:
        return
    if type(value) is not int or value <= 0:
        raise _invalid(f"budget {name} must be a positive whole number, not {value!r}")


def _check(name: str, optional: bool):
    def validate(_instance, _attribute, value) -> None:
        _positive(name, value, optional)
    return validate


@attrs.frozen
class Limits:
    """A budget worked out for one game: the most of each kind of work a step may do."""

    iterations: int
    writes: int
    objects: int


@attrs.frozen
class Budget:
    """Per-step limits on the work rules may do (loop iterations, writes, objects created)."""

    scale: int = attrs.field(default=DEFAULT_SCALE, validator=_check("scale", False))
    iterations: int | None = attrs.field(default=None, validator=_check("iterations", True))  # absolute overrides
    writes: int | None = attrs.field(default=None, validator=_check("writes", True))
    objects: int | None = attrs.field(default=None, validator=_check("objects", True))

    @classmethod
    def from_option(cls, text: str) -> "Budget":
        """A budget from the text of a `--budget` option: "N" (the scale) or any of
        "iterations=N,writes=N,objects=N,scale=N" separated by commas. Bad text raises
        `DiagnosticError` with a hint."""
        if not isinstance(text, str):
            raise _invalid(f"a budget is written as text, not {type(text).__name__}")
        text = text.strip()
        if not text:
            raise _invalid("the budget is empty")
        if "=" not in text:
            return cls(scale=_number("scale", text))
        given: dict[str, int] = {}
        for part in text.split(","):
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or name not in KINDS + ("scale",):
                raise _invalid(f"unknown budget part {part.strip()!r}")
            if name in given:
                raise _invalid(f"budget {name} is given twice")
            given[name] = _number(name, value)
        return cls(**given)

    def limits(self, objects: int, players: int, statements: int) -> Limits:
        """The limits for a game of `objects` objects and `players` players, under a rulebook
        of `statements` statements."""
        size = objects + players + 1
        made = self.scale * (size + statements)  # (a long block may write each of its lines once)
        return Limits(self.iterations if self.iterations is not None else self.scale * size * max(1, statements),
                      self.writes if self.writes is not None else made,
                      self.objects if self.objects is not None else made)


MAX_OPTION_DIGITS = 18
"""The most digits a number given to --budget may have (leading zeros aside): 10**18 - 1 is
far beyond any work a step can do, and a longer number is more likely a slip."""


def _number(name: str, text: str) -> int:
    text = text.strip()
    if not text.isascii() or not text.isdigit():
        raise _invalid(f"budget {name} must be a positive whole number, not {text!r}")
    if len(text.lstrip("0")) > MAX_OPTION_DIGITS:
        raise _invalid(f"budget {name} must be at most {10 ** MAX_OPTION_DIGITS - 1} "
                       f"({MAX_OPTION_DIGITS} digits), not {text!r}")
    value = int(text)
    _positive(name, value, False)
    return value
