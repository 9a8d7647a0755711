"""Nesting limits (dsl/limits.py) as positioned diagnostics: a file at exactly the limits
parses, prints and round-trips through the parse cache; one level more, or thousands, is a
"nested too deeply" error at the construct that crosses the limit, never a RecursionError."""

from __future__ import annotations

import pytest

from phasing_rules.dsl import cache
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.limits import MAX_BLOCK_DEPTH, MAX_EXPRESSION_DEPTH
from phasing_rules.dsl.parser import parse, parse_file
from phasing_rules.dsl.printer import print_module

E, B = MAX_EXPRESSION_DEPTH, MAX_BLOCK_DEPTH


def test_the_limits_have_the_values_other_stages_rely_on():
    assert (MAX_EXPRESSION_DEPTH, MAX_BLOCK_DEPTH) == (64, 32)


def rule(body: str) -> str:
    return 'rule 702.26a some-slug "summary" {\n  during cleanup: ' + body + "\n}\n"


# Expressions of exactly `depth` levels: the expression slot is one, and each parenthesis,
# `not`, operand of `+` / `is` / `.` adds one.
def parens(depth: int) -> str:
    return "(" * (depth - 1) + "a" + ")" * (depth - 1)


def nots(depth: int) -> str:
    return "not " * (depth - 1) + "a"


def sums(depth: int) -> str:  # slot, `is`, then depth - 2 additions, nested to the left
    return "a is " + " + ".join(["1"] * (depth - 1))


def attrs(depth: int) -> str:
    return "a" + ".b" * (depth - 1)


def ifs(depth: int, stmt: str = "tap a") -> str:
    """Statements nested `depth` blocks deep, counting the `during` clause as the first."""
    return "if a: " * (depth - 1) + stmt


def simultaneous(depth: int) -> str:
    return "simultaneously { " * (depth - 1) + "tap a" + " }" * (depth - 1)


def eaches(depth: int) -> str:
    return "each x where a: { " * (depth - 1) + "tap x" + " }" * (depth - 1)


AT_THE_LIMITS = rule(
    "if a: " * (B - 3)  # the clause, these, the `each` and the inner `if`s: B blocks
    + f"each x where {parens(E)}: {{\n"
    + f"    if {nots(E)}: tap a\n"
    + f"    if {sums(E)}: tap a\n"
    + f"    if {attrs(E)}: tap a\n"
    + f"    if count(y where {parens(E - 3)}) > 1: tap a\n"  # slot, `>`, count, its condition
    + "  }"
)


def test_a_file_at_exactly_the_limits_parses_prints_and_round_trips_through_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))
    module = parse(AT_THE_LIMITS, "t.rules")
    printed = print_module(module)
    assert parse(printed, "t.rules") == module
    path = tmp_path / "t.rules"
    path.write_text(AT_THE_LIMITS)
    assert parse_file(path) == module  # parsed, then stored
    assert cache.load(str(path), AT_THE_LIMITS) == module  # the stored tree loads back


def nested_too_deeply(text: str):
    with pytest.raises(DiagnosticError) as info:
        parse(text, "deep.rules")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.message.startswith("nested too deeply")
    assert diagnostic.hint
    assert diagnostic.span.path == "deep.rules" and diagnostic.span.line == 2
    return diagnostic


EXPRESSIONS = {"parentheses": parens, "not": nots, "additions": sums, "attributes": attrs}


@pytest.mark.parametrize("form", list(EXPRESSIONS))
def test_an_expression_one_level_deeper_is_a_positioned_error(form):
    text = rule(f"if {EXPRESSIONS[form](E + 1)}: tap a")
    diagnostic = nested_too_deeply(text)
    assert f"at most {E} levels" in diagnostic.message and "expressions" in diagnostic.message
    assert diagnostic.span.column > 3  # inside the expression, not at the start of the file


def test_the_error_points_at_the_construct_that_crosses_the_limit():
    text = rule(f"if {nots(E + 1)}: tap a")
    column_of_last_not = text.splitlines()[1].index("not a") + 1  # the one at level E + 1
    assert nested_too_deeply(text).span.column == column_of_last_not


BLOCKS = {"if": ifs, "simultaneously": simultaneous, "each": eaches}


@pytest.mark.parametrize("form", list(BLOCKS))
def test_a_block_one_level_deeper_is_a_positioned_error(form):
    parse(rule(BLOCKS[form](B)), "deep.rules")  # exactly at the limit: fine
    diagnostic = nested_too_deeply(rule(BLOCKS[form](B + 1)))
    assert f"at most {B} levels" in diagnostic.message and "blocks" in diagnostic.message


@pytest.mark.parametrize("text", [
    rule(f"if {parens(247)}: tap a"),   # issue 14: RecursionError in the transformer
    rule(f"if {nots(330)}: tap a"),     # issue 14: RecursionError when caching
    rule(simultaneous(483)),            # issue 14: RecursionError
    rule(ifs(96)),                      # issue 14: IndentationError from generated Python
    rule(f"if {parens(5000)}: tap a"),
    rule(f"if {sums(5000)}: tap a"),
    rule(f"if {attrs(5000)} is c: tap a"),
    rule(ifs(3000)),
    rule(f"do v {nots(4000)}"),
], ids=["parens247", "not330", "simultaneously483", "if96", "parens5000", "sum5000", "attr5000",
        "if3000", "argument4000"])
def test_thousands_of_levels_are_a_positioned_error_not_a_recursion_error(text, tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))
    nested_too_deeply(text)
    path = tmp_path / "deep.rules"
    path.write_text(text)
    with pytest.raises(DiagnosticError):
        parse_file(path)
    assert not any((tmp_path / "cache").glob("*")), "nothing is cached for a file that does not parse"


def test_a_verb_body_and_card_entries_count_as_blocks():
    parse(f'verb v x {{ {ifs(B)} }}', "deep.rules")
    with pytest.raises(DiagnosticError, match="nested too deeply"):
        parse(f'verb v x {{ {ifs(B + 1)} }}', "deep.rules")
    parse(f'card "C" {{\n  spell: {ifs(B)}\n}}', "deep.rules")
    with pytest.raises(DiagnosticError, match="nested too deeply"):
        parse(f'card "C" {{\n  spell: {ifs(B + 1)}\n}}', "deep.rules")


def test_twenty_nested_each_are_within_the_limits():
    """Issue 14 reported 20 nested `each` failing in generated code; that is within the
    limits, so it parses (running it is the interpreter's guarantee)."""
    assert 20 <= B
    parse(rule(eaches(20)), "deep.rules")


def test_long_flat_constructs_are_not_nesting():
    """Five thousand statements, or `and` over a thousand conditions, are long, not deep."""
    many = "\n".join(["    tap a"] * 5000)
    module = parse(rule("{\n" + many + "\n  }"), "long.rules")
    assert len(module.items[0].clauses[0].body.stmts) == 5000
    parse(rule("if " + " and ".join(["a"] * 1000) + ": tap a"), "long.rules")


def test_the_tallest_tree_within_the_limits_prints_and_parses_back():
    """Blocks and expressions both at their limits, under the extra levels a trigger, a
    change pattern and a duration add: the printer's recursion copes."""
    blocks = "each x where a: { " * (B - 1)
    text = (f'card "C" {{\n  when p.x becomes 1 and {nots(E)}: {blocks} p gets +1/+1 for as long as {nots(E)}'
            + " }" * (B - 1) + "\n}\n")
    module = parse(text, "tall.rules")
    assert parse(print_module(module), "tall.rules") == module
