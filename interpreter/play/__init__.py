"""Playing games: the game's actions, scenarios and the conformance suite.

`actions` (cast, resolve, activate, attack, next turn, ...), `scenario` (scenario files read
and played through the actions), `suite` (finding scenario files and running them by version).

Imports from every layer below (`dsl`, `game`, `rulebook`, `program`, `engine`) and itself."""
