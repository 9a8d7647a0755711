"""The program: what is worked out once per rulebook, before any game.

`program` (the `Program` of a rulebook: its analyses and compiled clauses), `compiler`
(expressions, selections and statements compiled to closures), `compiled` (the closures'
parts), `clauses` (tables of `as`/`after` clauses, assertions and state checks), `codegen` and
`backends` (rule bodies written out as Python, or run as closures), `selection` and `indexes`
(query plans and the indexes they read), `write_sites` (what a body can write).

Imports from `dsl`, `game`, `rulebook` and itself: never from the engine that runs it."""
