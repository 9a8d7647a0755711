"""The tools built on the API: what the commands other than `run` do.

`ablation` (`phasing ablate`), `compare` and `generate` (`phasing diff` and its witness
search), `reading` (`phasing show`/`history` texts), `why` (`phasing why`), `survey`
(`phasing cards`), `fuzz` (`phasing fuzz`).

Imports from every layer below, `interpreter.api` included, and itself; only `interpreter.cli`
(and `interop`) sit above."""
