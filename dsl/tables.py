"""The LALR parser for `grammar.lark`, with its analysed tables shipped as data.

Building the tables from the grammar takes about half a second, so they are built once,
when the grammar changes, and kept in `parse_tables.json` next to it: Lark's own serialised
form (`Lark.memo_serialize`), as JSON, loaded through Lark's dict-based loading. JSON cannot
run code when read (Lark's `cache=True` and `Lark.load` would unpickle a file from the
temporary folder instead). The file records a hash of the grammar it was built from; when
it does not match (or the file cannot be read), the parser is built from the grammar.

Regenerate after editing the grammar:  python -m phasing_rules.dsl.tables
(tests/test_parser.py fails, saying so, while the file is out of date).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import deque
from pathlib import Path

import lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

from .atomic import write_file

HERE = Path(__file__).resolve().parent
GRAMMAR = HERE / "grammar.lark"
TABLES = HERE / "parse_tables.json"
FORMAT = 1

OPTIONS = dict(
    parser="lalr",
    lexer="contextual",
    strict=True,
    propagate_positions=True,
    maybe_placeholders=False,
)


def grammar_text() -> str:
    return GRAMMAR.read_text(encoding="utf-8")


def grammar_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build(text: str | None = None) -> lark.Lark:
    """The parser, analysed from the grammar (slow: about half a second)."""
    return lark.Lark(grammar_text() if text is None else text, **OPTIONS)


def _canonical(table: dict) -> dict:
    """The LALR table with tokens numbered by name and states in breadth-first order from the
    start state (following tokens by name), so the same grammar always gives the same file:
    Lark numbers them in an order that changes from one process to the next."""
    names = table["tokens"]
    token_ids = {name: i for i, name in enumerate(sorted(set(names.values())))}
    states = table["states"]
    numbering: dict[int, int] = {}
    queue = deque()
    for root in [table["start_states"][k] for k in sorted(table["start_states"])] + [
            table["end_states"][k] for k in sorted(table["end_states"])]:
        if root not in numbering:
            numbering[root] = len(numbering)
            queue.append(root)
    while queue:
        state = queue.popleft()
        for token, (action, argument) in sorted(states[state].items(), key=lambda item: names[item[0]]):
            if action == 0 and argument not in numbering:  # a shift: the target state
                numbering[argument] = len(numbering)
                queue.append(argument)
    for state in states:  # unreachable states, if Lark ever made any
        numbering.setdefault(state, len(numbering))
    renumbered = {}
    for state, actions in states.items():
        renumbered[numbering[state]] = {
            token_ids[names[token]]: (action, numbering[argument] if action == 0 else argument)
            for token, (action, argument) in actions.items()
        }
    return {
        "tokens": {i: name for name, i in token_ids.items()},
        "states": renumbered,
        "start_states": {k: numbering[v] for k, v in table["start_states"].items()},
        "end_states": {k: numbering[v] for k, v in table["end_states"].items()},
    }


def serialise(parser: lark.Lark, text: str) -> str:
    """The tables of `parser` (built from grammar `text`) as the JSON text of the data file."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["parser"]["parser"] = _canonical(data["parser"]["parser"])
    document = {
        "format": FORMAT,
        "grammar_sha256": grammar_hash(text),
        "lark": lark.__version__,
        "data": data,
        "memo": memo,
    }
    return json.dumps(document, sort_keys=True, indent=0, ensure_ascii=True) + "\n"


def _int_keys(mapping: dict) -> dict:
    return {int(k): v for k, v in mapping.items()}


def _from_json(document: dict) -> tuple[dict, dict]:
    """JSON turned the integer keys of Lark's tables into strings: turn them back."""
    data, memo = document["data"], _int_keys(document["memo"])
    tables = data["parser"]["parser"]
    tables["tokens"] = _int_keys(tables["tokens"])
    tables["states"] = {int(state): _int_keys(actions) for state, actions in tables["states"].items()}
    return data, memo


def load(text: str | None = None) -> lark.Lark | None:
    """The parser from the shipped tables, or None when they are missing, unreadable or were
    built from another grammar or another Lark."""
    text = grammar_text() if text is None else text
    try:
        document = json.loads(TABLES.read_text(encoding="utf-8"))
        if (document.get("format") != FORMAT or document.get("grammar_sha256") != grammar_hash(text)
                or document.get("lark") != lark.__version__):
            return None
        data, memo = _from_json(document)
        return lark.Lark._load_from_dict(data, memo)
    except Exception:  # any damage: fall back to building from the grammar
        return None


def parser() -> lark.Lark:
    """The parser: from the shipped tables when they match the grammar, else built from it."""
    text = grammar_text()
    return load(text) or build(text)


def up_to_date() -> bool:
    """Whether the shipped tables are exactly what the grammar builds today."""
    text = grammar_text()
    try:
        shipped = TABLES.read_text(encoding="utf-8")
    except OSError:
        return False
    return shipped == serialise(build(text), text)


def main(argv: list[str] | None = None) -> int:
    """`python -m phasing_rules.dsl.tables` rewrites the tables; `--check` only says whether they are current."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--check"]:
        if up_to_date():
            print(f"{TABLES.name} is up to date")
            return 0
        print(f"{TABLES.name} is out of date: run python -m phasing_rules.dsl.tables")
        return 1
    if argv:
        print("usage: python -m phasing_rules.dsl.tables [--check]", file=sys.stderr)
        return 1
    text = grammar_text()
    write_file(TABLES, serialise(build(text), text).encode("utf-8"), replace=True)
    print(f"wrote {TABLES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
