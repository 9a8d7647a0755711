"""The two ways the engine can run a rulebook's bodies and clauses, one object each, with the
same methods: `ClosureBackend` runs the closures that define them (`interpreter.program.compiled`,
`Compiler.compile_statement`); `GeneratedBackend` runs Python written from them once per
rulebook (`interpreter.program.codegen`). Both leave the same trace, event for event
(tests/test_generated.py).

A backend is chosen when a `Program` is built (`Program.of(book, backend)`); the engine asks
its program's backend, and has no branch of its own on the way it runs. A backend holds no
state: what it compiles is kept by the program, in its compiler (`interpreter.program.compiler`:
statements) and its clause tables (`interpreter.program.clauses`: `as` and `after` clauses,
assertions, state checks). The methods that compile take one of those, never an engine;
those that run take the engine.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol


class Backend(Protocol):
    """What differs between running closures and running generated Python."""

    name: str

    def body_runner(self, compiler: Any, stmt: Any, cause: Any) -> Callable:
        """What runs body `stmt` with `cause`: a function `(engine, env, batch, cause)`."""

    def contest_body(self, eng: Any, batch: Any, runner: Callable) -> None:
        """Mark, on a batch `runner` writes, the attributes its writes could set to two values."""

    def contest_checks(self, eng: Any, batch: Any) -> None:
        """Mark, on a round of state checks' batch, the attributes its writes could set to two values."""

    def expand(self, eng: Any, batch: Any, limit: int) -> None:
        """Add the writes of the `as` clauses to `batch` (more than `limit`: over the budget)."""

    def follow_up(self, clauses: Any, rule: Any, after: Any) -> Callable:
        """An `after` clause waiting on a change, as a function `(engine, object id, old value, batch)`."""

    def check_pass(self, clauses: Any) -> Any:
        """The local state checks in one pass (`ClauseTables.check_pass`), or None: each on its own."""

    def assertion_test(self, clauses: Any, clause: Any) -> Callable | None:
        """An assertion after a change as one function, or None: judged by the closures."""


class ClosureBackend:
    """Runs the closures that define the rules."""

    name = "closures"

    def body_runner(self, compiler: Any, stmt: Any, cause: Any) -> Callable:
        return compiler.runner(stmt)

    def contest_body(self, eng: Any, batch: Any, runner: Callable) -> None:
        pass  # (a batch of closures keeps every write, contested or not)

    def contest_checks(self, eng: Any, batch: Any) -> None:
        pass

    def expand(self, eng: Any, batch: Any, limit: int) -> None:
        eng.reactions.expand_by_closures(batch, limit)

    def follow_up(self, clauses: Any, rule: Any, after: Any) -> Callable:
        return clauses.closure_follow_up(rule, after)

    def check_pass(self, clauses: Any) -> Any:
        return None

    def assertion_test(self, clauses: Any, clause: Any) -> Callable | None:
        return None


class GeneratedBackend:
    """Runs Python written from the rules once per rulebook (falling back on the closures for
    what Python cannot take)."""

    name = "generated"

    def body_runner(self, compiler: Any, stmt: Any, cause: Any) -> Callable:
        return compiler.generated_runner(stmt, cause)

    def contest_body(self, eng: Any, batch: Any, runner: Callable) -> None:
        # its writes, and those of the `as` clauses, are all the batch's
        batch.contested = eng.program.compiler.contested_by((runner,))

    def contest_checks(self, eng: Any, batch: Any) -> None:
        batch.contested = eng.program.compiler.contested_by(eng.program.clauses.state_check_writers())

    def expand(self, eng: Any, batch: Any, limit: int) -> None:
        eng.program.clauses.expander()(eng, batch, limit)

    def follow_up(self, clauses: Any, rule: Any, after: Any) -> Callable:
        return clauses.generated_follow_up(rule, after)

    def check_pass(self, clauses: Any) -> Any:
        return clauses.check_pass()

    def assertion_test(self, clauses: Any, clause: Any) -> Callable | None:
        return clauses.assertion_test(clause)


# The backends by the name `Program.of` is given.
BACKENDS: dict[str, type] = {"closures": ClosureBackend, "generated": GeneratedBackend}
