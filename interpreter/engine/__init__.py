"""The engine: a program run on a game.

`engine` (a small facade over the rest), `statements` (statements performed), `batches` (a
batch's writes committed together), `reactions` (`as` and `after` clauses), `effects`
(continuous effects), `statics`, `direct_statics` and `given_at` (what static abilities
give), `perception`, `triggers`, `delayed`, `state_checks`, `assertions`, `turns` (the turn's
steps), `view`, `hiding`, `writing` and `write_bits` (reading and changing the state as the
rules see it).

Imports from `dsl`, `game`, `rulebook`, `program` and itself."""
