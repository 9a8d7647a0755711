"""The rulebook: a version's or variant's rule files loaded and resolved, as data.

`loading` (finding versions and variants on the rules path, loading and checking them),
`amending` (a variant's `amend`), `dropping` (what a `drop` leaves that inherited blocks use).

Imports from `dsl` and from itself only: a rulebook is pure data."""
