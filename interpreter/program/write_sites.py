"""What the writes of a piece of generated code can be, and which attributes two writes of
one batch can set to different values.

A write that changes nothing is kept apart (`Batch.unchanged_writes`) only so that a conflict with a
write of the same batch that changes the same attribute is seen (`settle_conflicts`). Two
writes can conflict only if they set one attribute to different values. Generated code knows
each of its write sites: the attribute, and the value as a token that stands for the same
value at every site of the batch that has it (a literal; a name that no variable binds) or
UNKNOWN (anything worked out, or a name an environment may bind); and whether it runs
statements it does not write out (`opaque`: they may write anything). A batch whose writers
are known (one statement's function, or the state checks' functions, and the function that
runs the `as` clauses, which can join any batch) keeps the writes that change nothing only
for the attributes its writers could set to two values (`contested`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

UNKNOWN = object()  # the token of a value not known before the batch is made: it may differ from any


@attrs.frozen
class WriteSites:
    """The writes a generated function can make: attribute -> the tokens of their values;
    `opaque` when it also runs statements it does not write out."""

    values: Mapping[str, frozenset] = attrs.field(factory=dict)
    opaque: bool = False


def contested(writers: Iterable[WriteSites]) -> frozenset[str] | None:
    """The attributes that writes of a batch made by `writers` (all of them) could set to two
    values; None when any writer is opaque (every attribute may be)."""
    merged: dict[str, set] = {}
    for sites in writers:
        if sites.opaque:
            return None
        for attr, tokens in sites.values.items():
            merged.setdefault(attr, set()).update(tokens)
    return frozenset(attr for attr, tokens in merged.items() if len(tokens) > 1 or UNKNOWN in tokens)
