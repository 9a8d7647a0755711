"""Syntax trees to plain JSON data and back, for the parse cache.

Only data crosses this boundary. Decoding builds nothing but the node classes of `dsl.ast`
and `Span` (an allow-list keyed by class name), and checks every field against the type its
class declares, so a file that was tampered with can at worst be rejected (`CodecError`),
never run code or smuggle in a value of the wrong shape.

The tree is stored flat, in post-order: a node's children come before it and are named by
their index in the list. So neither encoding nor decoding recurses over the tree, and the
JSON itself nests only as deep as one node's fields (a few levels, whatever the tree's depth).

Document: {"format": FORMAT, "paths": [path, ...], "nodes": [record, ...], "root": index}
Record:   [class name, [path index, line, column, end line, end column], field, field, ...]
Fields follow their declared types: str, int, bool and None as themselves, a node as the
index of an earlier record, a tuple as a list.

Why not cattrs: most child fields are unions of many node classes (`Expr` has fifteen), and
many classes share field names or have none (`Tap`, `Untap`, `Destroy` all hold one `obj`),
so cattrs would need a tagged-union strategy configured for every union anyway; it also
converts nested values recursively, tying the depth it can handle to the interpreter's
recursion limit. The flat format here needs neither, reads the field types straight from
`dsl/ast.py`, and stays a short loop each way.
"""

from __future__ import annotations

import functools
import json
import typing
from typing import Any, Union

import attrs

from . import ast, limits
from .diagnostics import Span

FORMAT = 1

# No tree the parser accepts is taller than this (each block level adds at most two nodes,
# each expression level one), so a taller one was not written by `encode` after `parse`:
# rejecting it keeps every recursive stage after the cache within its depth.
MAX_TREE_DEPTH = 2 * limits.MAX_BLOCK_DEPTH + limits.MAX_EXPRESSION_DEPTH + 32


class CodecError(ValueError):
    """The data is not a tree this codec wrote."""


# ------------------------------------------------------------------ field types
#
# A field's declared type, reduced to one of:
#   ("str",) ("int",) ("bool",)      a value of exactly that type
#   ("opt", spec)                    None or spec
#   ("node", frozenset of names)     a node of one of these classes
#   ("tuple", spec)                  any number of spec
#   ("fixed", (spec, ...))           exactly these


def _node_classes() -> dict[str, type]:
    found = {}
    for name, value in vars(ast).items():
        if (isinstance(value, type) and issubclass(value, ast.Node) and value is not ast.Node
                and value.__module__ == ast.__name__ and attrs.has(value)):
            found[name] = value
    return found


_SCALARS = {"str": ("str",), "int": ("int",), "bool": ("bool",)}


def _split_arguments(text: str) -> list[str]:
    """`A, tuple[B, C], ...` -> ["A", "tuple[B, C]", "..."]: commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()]


@functools.cache
def _spec(annotation: str) -> tuple:
    """The spec of a field from its annotation as written in `dsl/ast.py` (read, never evaluated)."""
    text = annotation.strip().strip("'\"")
    if text in _SCALARS:
        return _SCALARS[text]
    if text.endswith("| None"):
        return ("opt", _spec(text[: -len("| None")]))
    if text.startswith("tuple[") and text.endswith("]"):
        args = _split_arguments(text[len("tuple["):-1])
        if len(args) == 2 and args[1] == "...":
            return ("tuple", _spec(args[0]))
        return ("fixed", tuple(_spec(a) for a in args))
    target = getattr(ast, text, None) if text.isidentifier() else None
    if isinstance(target, type) and issubclass(target, ast.Node):
        return ("node", frozenset({target.__name__}))
    if typing.get_origin(target) is Union:  # an alias such as `Expr = Union[Name, Attr, ...]`
        members = typing.get_args(target)
        if all(isinstance(m, type) and issubclass(m, ast.Node) for m in members):
            return ("node", frozenset(m.__name__ for m in members))
    raise TypeError(f"the cache cannot store a field declared as {annotation!r}")


@attrs.frozen
class _Shape:
    cls: type
    names: tuple[str, ...]  # the fields other than `span`, in the order __init__ takes them
    specs: tuple[tuple, ...]
    checks: tuple  # one `_checker` per field


@functools.cache
def _shapes() -> dict[str, _Shape]:
    """Every class the codec may build, with its fields' types (worked out once per process)."""
    shapes = {}
    for name, cls in _node_classes().items():
        fields = [f for f in attrs.fields(cls) if f.name != "span"]
        if any(not f.init or f.kw_only for f in fields):
            raise TypeError(f"{name}: every field but `span` must be a positional __init__ argument")
        specs = tuple(_spec(f.type if isinstance(f.type, str) else f.type.__name__) for f in fields)
        shapes[name] = _Shape(cls, tuple(f.name for f in fields), specs, tuple(_checker(s) for s in specs))
    return shapes


# ------------------------------------------------------------------ encoding


def _field_nodes(value: Any, spec: tuple, out: list) -> None:
    """The nodes inside one field's value (recursion bounded by the type's nesting, not the tree's)."""
    kind = spec[0]
    if kind == "node":
        out.append(value)
    elif kind == "opt":
        if value is not None:
            _field_nodes(value, spec[1], out)
    elif kind == "tuple":
        for item in value:
            _field_nodes(item, spec[1], out)
    elif kind == "fixed":
        for item, inner in zip(value, spec[1]):
            _field_nodes(item, inner, out)


def _encode_field(value: Any, spec: tuple, index: dict[int, int]) -> Any:
    kind = spec[0]
    if kind == "node":
        return index[id(value)]
    if kind == "opt":
        return None if value is None else _encode_field(value, spec[1], index)
    if kind == "tuple":
        return [_encode_field(v, spec[1], index) for v in value]
    if kind == "fixed":
        return [_encode_field(v, s, index) for v, s in zip(value, spec[1])]
    return value


def encode(module: ast.Module) -> str:
    """The tree as JSON text (compact, ASCII only)."""
    shapes = _shapes()
    index: dict[int, int] = {}
    records: list[list] = []
    paths: dict[str, int] = {}
    stack: list[tuple[ast.Node, bool]] = [(module, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in index:
            continue
        shape = shapes.get(type(node).__name__)
        if shape is None or shape.cls is not type(node):
            raise CodecError(f"not a syntax tree node: {type(node).__name__}")
        if not ready:
            stack.append((node, True))
            children: list = []
            for name, spec in zip(shape.names, shape.specs):
                _field_nodes(getattr(node, name), spec, children)
            stack.extend((child, False) for child in reversed(children) if id(child) not in index)
            continue
        span = node.span
        where = [paths.setdefault(span.path, len(paths)), span.line, span.column, span.end_line, span.end_column]
        record = [shape.cls.__name__, where]
        record += [_encode_field(getattr(node, n), s, index) for n, s in zip(shape.names, shape.specs)]
        index[id(node)] = len(records)
        records.append(record)
    document = {"format": FORMAT, "paths": list(paths), "nodes": records, "root": index[id(module)]}
    return json.dumps(document, separators=(",", ":"))


# ------------------------------------------------------------------ decoding


@functools.cache
def _checker(spec: tuple):
    """A function (stored value, nodes built so far) -> field value, raising CodecError on a mismatch."""
    kind = spec[0]
    if kind in ("str", "int", "bool"):
        wanted = {"str": str, "int": int, "bool": bool}[kind]

        def scalar(value, built):
            if type(value) is not wanted:
                raise CodecError(f"expected a value of type {kind}")
            return value

        return scalar
    if kind == "opt":
        inner = _checker(spec[1])
        return lambda value, built: None if value is None else inner(value, built)
    if kind == "node":
        allowed = spec[1]

        def child(value, built):
            # Only an earlier record: the data cannot describe a cycle.
            if type(value) is not int or not 0 <= value < len(built):
                raise CodecError("a child must name an earlier node")
            node = built[value]
            if type(node).__name__ not in allowed:
                raise CodecError(f"a {type(node).__name__} cannot stand here")
            depth = built.depths[value]
            if depth > built.deepest:
                built.deepest = depth
            return node

        return child
    if kind == "tuple":
        inner = _checker(spec[1])

        def many(value, built):
            if type(value) is not list:
                raise CodecError("expected a list")
            return tuple([inner(v, built) for v in value])

        return many
    parts = tuple(_checker(s) for s in spec[1])

    def fixed(value, built):
        if type(value) is not list or len(value) != len(parts):
            raise CodecError("expected a list of fixed length")
        return tuple([check(v, built) for check, v in zip(parts, value)])

    return fixed


class _Built(list):
    """The nodes decoded so far, with the height of each (a leaf is 1)."""

    __slots__ = ("depths", "deepest")

    def __init__(self):
        super().__init__()
        self.depths: list[int] = []
        self.deepest = 0  # the tallest child of the record being decoded


def decode(text: str | bytes, expected_paths: frozenset[str] | None = None) -> ast.Module:
    """Rebuild a tree written by `encode`. Anything else raises CodecError.

    `expected_paths`, when given, are the only file names its spans may carry.
    """
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CodecError(f"not JSON: {exc}") from None
    if type(document) is not dict or set(document) != {"format", "paths", "nodes", "root"}:
        raise CodecError("not a cached syntax tree")
    if document["format"] != FORMAT:
        raise CodecError("written by another version of the cache")
    paths, records, root = document["paths"], document["nodes"], document["root"]
    if type(paths) is not list or any(type(p) is not str for p in paths):
        raise CodecError("bad path table")
    if expected_paths is not None and not set(paths) <= expected_paths:
        raise CodecError("spans name another file")
    if type(records) is not list or type(root) is not int or not 0 <= root < len(records):
        raise CodecError("bad node table")
    shapes = _shapes()
    built = _Built()
    append, heights = built.append, built.depths.append
    for record in records:
        if type(record) is not list or len(record) < 2 or type(record[0]) is not str:
            raise CodecError("bad node record")
        shape = shapes.get(record[0])
        if shape is None:
            raise CodecError(f"not a syntax tree class: {record[0][:40]!r}")
        where = record[1]
        if type(where) is not list or len(where) != 5:
            raise CodecError("bad span")
        p, line, column, end_line, end_column = where
        if (type(p) is not int or type(line) is not int or type(column) is not int or type(end_line) is not int
                or type(end_column) is not int or not 0 <= p < len(paths)):
            raise CodecError("bad span")
        checks = shape.checks
        if len(record) != len(checks) + 2:
            raise CodecError(f"a {record[0]} has {len(checks)} fields")
        built.deepest = 0
        args = [check(value, built) for check, value in zip(checks, record[2:])]
        if built.deepest >= MAX_TREE_DEPTH:
            raise CodecError("nested deeper than the parser allows")
        append(shape.cls(*args, span=Span(paths[p], line, column, end_line, end_column)))
        heights(built.deepest + 1)
    module = built[root]
    if type(module) is not ast.Module:
        raise CodecError("the root is not a module")
    return module
