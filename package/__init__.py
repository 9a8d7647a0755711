"""phasing_rules: Magic: The Gathering's phasing rules (CR 702.26) as data.

`import phasing_rules` gives the Python API (`phasing_rules.interpreter.api`): `new_game`,
`run_file`, `load_version`, ... (docs/api.md). Its sub-packages: `dsl` (the language),
`interpreter` (the game model and the engine), `interop` (other engines' formats), `rules`
(the shipped rule files, as data) and `conformance` (the conformance scenarios).

The API is imported when a name of it is first asked for, so `phasing_rules.dsl` alone
stays light.
"""

from __future__ import annotations


_SUBPACKAGES = frozenset({"dsl", "interpreter", "interop", "rules", "conformance"})


def __getattr__(name: str):
    if name in _SUBPACKAGES:  # (`from phasing_rules import rules`: the sub-package, not the API)
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    from .interpreter import api

    if name == "api":
        return api
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module 'phasing_rules' has no attribute {name!r}")


def __dir__() -> list[str]:
    from .interpreter import api

    return sorted(set(globals()) | set(api.__all__) | {"api"})
