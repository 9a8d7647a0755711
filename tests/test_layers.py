"""The package's layers (issue 44): a module imports only from its own layer and the layers
below it, so the front end produces data, the back end runs it, and no edge goes back up
(CPython's compiler, Lark's sub-packages). The order, lowest first, is the one
`interpreter/__init__.py` states:

    dsl  <  game, rulebook  <  program  <  engine  <  play  <  api  <  tools, interop  <  cli  <  entry

`game` and `rulebook` stand side by side: neither imports the other. Imports inside the
package are relative, so the code does not care under which name it is installed, and
nothing outside it (tests, benchmarks) reaches the checkout's folders by their old
top-level names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"dsl": "dsl", "interpreter": "interpreter", "interop": "interop", "package": ""}

RANKS = {
    "dsl": 0,
    "interpreter.game": 1, "interpreter.rulebook": 1,
    "interpreter.program": 2,
    "interpreter.engine": 3,
    "interpreter.play": 4,
    "interpreter.api": 5,
    "interpreter.tools": 6, "interop": 6,
    "interpreter.progress": 6,  # (the command line's progress display: beside the tools, which take a callback instead)
    "interpreter.drawing": 6,  # (the command line's tables: beside the progress display)
    "interpreter.cli": 7, "interpreter.entry": 8,
    "rules": 0, "conformance": 0,  # data only
}


def layer_of(module: str) -> str | None:
    """The layer a dotted name (below `phasing_rules`) belongs to: the longest prefix RANKS names."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        head = ".".join(parts[:n])
        if head in RANKS:
            return head
    return None


def package_modules():
    """(dotted name below phasing_rules, path) of every module of the package."""
    for folder, prefix in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(p for p in [prefix, *parts] if p), path


def imports_of(module: str, path: Path):
    """(line, imported dotted name below phasing_rules, absolute?) of each import of the package's own modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    package = [p for p in package if p]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    yield node.lineno, f"{target}.{alias.name}" if target else alias.name, False
            elif node.module and node.module.split(".")[0] in ("dsl", "interpreter", "interop", "rules",
                                                               "phasing_rules", "phasing_conformance"):
                yield node.lineno, node.module, True
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("dsl", "interpreter", "interop", "rules", "phasing_rules"):
                    yield node.lineno, alias.name, True


MODULES = list(package_modules())


def test_every_module_belongs_to_a_layer():
    assert [m for m, _ in MODULES if m and layer_of(m) is None and m != "interpreter"] == []


@pytest.mark.parametrize("module, path", MODULES, ids=[m or "phasing_rules" for m, _ in MODULES])
def test_a_module_imports_only_from_its_layer_and_below(module, path):
    here = layer_of(module)
    wrong = []
    for line, target, absolute in imports_of(module, path):
        where = f"{path.relative_to(ROOT)}:{line}"
        if absolute:
            wrong.append(f"{where}: imports {target} by an absolute name (the package's imports are relative)")
            continue
        there = layer_of(target)
        if here is None or there is None or there == here:
            continue
        if RANKS[there] > RANKS[here] or (RANKS[there] == RANKS[here]):
            wrong.append(f"{where}: {here} imports {target}, of the layer {there} (not below it)")
    assert wrong == []


@pytest.mark.slow  # (over a second: reads every test and benchmark; in the slow selection)
def test_tests_and_benchmarks_use_the_installed_names():
    """The checkout's folders are reached as `phasing_rules.X`, never as top-level `dsl`,
    `interpreter`, ... (which would load a second copy of the code beside the installed one)."""
    found = []
    for folder in ("tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
                    [a.name for a in node.names] if isinstance(node, ast.Import) else []
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                          if n.split(".")[0] in ("dsl", "interpreter", "interop", "rules", "phasing_conformance")]
    assert found == []


def test_the_layers_say_what_they_hold_and_what_they_may_import():
    for layer in ("game", "rulebook", "program", "engine", "play", "tools"):
        doc = ast.get_docstring(ast.parse((ROOT / "interpreter" / layer / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "mport" in doc, layer
