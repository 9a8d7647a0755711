"""The interpreter: a general game model and the generic mechanisms rule files switch on.

Sub-packages by layer, lowest first; a module imports only from its own layer and those below
(`tests/test_layers.py` checks it), and `dsl` is below them all:

- `game`: the state, its store and journal, the trace, budgets;
- `rulebook`: versions and variants loaded, as data (beside `game`: neither imports the other);
- `program`: what is compiled once per rulebook;
- `engine`: a program run on a game;
- `play`: the game's actions, scenarios and the suite;
- `api` (the Python API);
- `tools`: ablate, diff, show, why, the card survey, the fuzzer;
- `cli` and `entry` (the `phasing` command), with `interop` (other engines' formats) beside
  the tools.
"""
