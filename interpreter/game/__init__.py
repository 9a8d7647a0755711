"""The game: its state and the one place that changes it.

`model` (players, permanents, effects, the game state), `store` (every change, through its
journal: undo, checkpoints, last known information), `writes` (the `Write` and `Batch`
records a change is made of), `trace` (events and their causes), `characteristics` (an
object's characteristics after effects), `refs` (references to objects and players),
`readonly` (read-only views handed out), `budget` (limits on the work a step may do),
`errors` (`RulesError`), `calls` (bad arguments to a public function as a `DiagnosticError`).

The lowest layer of the interpreter: it imports from `dsl` and from itself only."""
