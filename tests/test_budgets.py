"""The step budget, the "never settles" check, and nesting at the language's limits.

Generic engine behaviour, on a small rulebook written here (one status, a block or two), not
on the shipped rules:

- a step that does more work than its budget (objects visited by selections, changes
  written, effects and triggers created) stops with a positioned error naming the block,
  the budget and `--budget`, in generated code and closures alike;
- "the rules never settle" is said of changes that go round in a circle (a state the game
  had comes back), naming the blocks involved, never of a long but finite run;
- rules nested as deeply as the parser takes (`dsl.limits`) load and run, generated code
  falling back to the closures where Python cannot take it, with the same trace.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings, strategies as st

from phasing_rules.dsl import ast
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.limits import MAX_BLOCK_DEPTH, MAX_EXPRESSION_DEPTH
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.game.budget import DEFAULT_SCALE, Budget
from phasing_rules.interpreter.engine.batches import MAX_SETTLE_ROUNDS
from phasing_rules.interpreter.engine.engine import Engine, RulesError
from phasing_rules.interpreter.game.model import Game, Permanent, Player
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.rulebook.loading import assemble, load_cards

RULES = "/budget-test/extra.rules"  # (a name for positions: parsed from text, never read from disk)
HEAD = 'version 2099-01-01 {\n  title "budget tests"\n}\nstatus mark: bool = false cites 100.1\n'
MODES = pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])


def book(blocks: str, cards: str = ""):
    """A rulebook of the status `mark` and `blocks` (rule text), with the card library and `cards`."""
    library = dict(load_cards())
    if cards:
        library.update({c.name: c for c in parse(cards, "/budget-test/cards.rules").items})
    return assemble([parse(HEAD + blocks, RULES)], folder=None, cards=library)


def rule(rule_id: str, slug: str, *clauses: str) -> str:
    return f'rule {rule_id} {slug} "A block written for a test." {{\n' + "".join(f"  {c}\n" for c in clauses) + "}\n"


def board(n: int, card: str = "Grizzly Bears", tapped: bool = False, **fields) -> Game:
    """`n` permanents of Alice's (p0, p1, ...), and a player Bob with none."""
    objects = {f"p{i}": Permanent(f"p{i}", card, "Alice", "Alice", frozenset({"creature"}), 2, 2, tapped=tapped,
                                  **fields) for i in range(n)}
    return Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice", objects=objects)


def engine(rules, game: Game, generated: bool, budget: Budget | None = None) -> Engine:
    return Engine(Program.of(rules, "generated" if generated else "closures"), game, budget)


def untap_step(e: Engine) -> None:
    e.begin_step()
    e.run_hook("untap step", "Alice")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate((HEAD + text).splitlines(), 1) if needle in line)


# ---------------------------------------------------------------- the budget option


def test_budget_option_is_a_scale_or_named_limits():
    """`--budget N` sets the scale; `--budget iterations=N,...` sets limits outright."""
    assert Budget.from_option("256") == Budget(scale=256)
    assert Budget.from_option(" iterations=10, writes=20,objects=30 ") == Budget(iterations=10, writes=20, objects=30)
    assert Budget.from_option("scale=3,writes=7") == Budget(scale=3, writes=7)


@pytest.mark.parametrize("text", ["", "0", "-5", "1.5", "lots", "iterations", "iterations=", "iterations=x",
                                  "speed=3", "scale=2,scale=3", "writes=0", "١٢", "9" * 40])
def test_bad_budget_option_is_a_diagnostic_with_a_hint(text):
    """Bad `--budget` text is a DiagnosticError (exit 1 on the command line) with a hint."""
    with pytest.raises(DiagnosticError) as info:
        Budget.from_option(text)
    assert info.value.diagnostics[0].hint and "iterations=N" in info.value.diagnostics[0].hint


@pytest.mark.parametrize("text", ["9" * 29, "writes=" + "1" * 19])
def test_a_budget_too_large_says_the_largest_one_allowed(text):
    """A 29-digit --budget was told it "must be a positive whole number", which it is; the
    message now names the upper limit, and the largest number allowed is taken."""
    with pytest.raises(DiagnosticError) as info:
        Budget.from_option(text)
    message = info.value.diagnostics[0].message
    assert "at most 999999999999999999 (18 digits)" in message and "positive whole number" not in message
    assert Budget.from_option("9" * 18) == Budget(scale=10 ** 18 - 1)
    assert Budget.from_option("writes=000" + "9" * 18) == Budget(writes=10 ** 18 - 1)  # (leading zeros aside)


@given(st.text(alphabet=string.printable + "=,١", max_size=30))
@settings(max_examples=200, deadline=None)
def test_any_budget_text_gives_a_budget_or_a_diagnostic(text):
    """Whatever the text, from_option returns a Budget or raises DiagnosticError, nothing else."""
    try:
        budget = Budget.from_option(text)
    except DiagnosticError:
        return
    assert isinstance(budget, Budget) and budget.scale > 0


@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(0, 5_000), st.integers(1, 1_000))
def test_default_limits_grow_with_the_game_and_the_rulebook(objects, players, statements, scale):
    """Each limit is at least `scale` per object and statement, and grows with both."""
    budget = Budget(scale=scale)
    limits = budget.limits(objects, players, statements)
    bigger = budget.limits(objects + 1, players, statements + 1)
    assert limits.iterations >= scale * (objects + players + 1) * max(1, statements)
    assert limits.writes >= scale * (objects + statements) and limits.objects >= scale * (objects + statements)
    assert bigger.iterations > limits.iterations and bigger.writes > limits.writes and bigger.objects > limits.objects


def test_a_budget_that_is_not_positive_is_refused():
    with pytest.raises(DiagnosticError, match="positive"):
        Budget(scale=0)
    with pytest.raises(DiagnosticError, match="iterations"):
        Budget(iterations=-1)


# ---------------------------------------------------------------- Engine's arguments


@pytest.mark.parametrize("which", ["rulebook", "game", "budget"])
def test_engine_refuses_wrong_arguments_at_once(which):
    """`Engine(book, None)` and the like raise DiagnosticError naming the argument, before any play."""
    rules, game = book(""), board(1)
    args = {"rulebook": (None, game, None), "game": (rules, None, None), "budget": (rules, game, "256")}[which]
    with pytest.raises(DiagnosticError) as info:
        Engine(*args)
    assert f"the {which} argument" in info.value.diagnostics[0].message


# ---------------------------------------------------------------- runaway rules stop


NESTED_EACH = rule("100.1", "runaway", "during untap step of P: " + " ".join(
    f"each {v} where {v}.controller is P:" for v in "abcd") + " set d.mark = true")
NESTED_COUNT = rule("100.1", "runaway", "during untap step of P: each a where count(b where count(c where "
                    "count(d where d.controller is P) > 0) > 0) > 0: set a.mark = true")


@MODES
def test_four_nested_each_over_200_permanents_stop_at_the_budget(generated):
    """200^4 visits would take hours and gigabytes: the step stops with an error at the
    statement, naming the block, the budget and --budget."""
    e = engine(book(NESTED_EACH), board(200), generated)
    with pytest.raises(RulesError) as info:
        untap_step(e)
    d = info.value.diagnostics[0]
    assert "block 100.1 runaway goes over the" in d.message and "budget" in d.message
    assert d.span.path == RULES and d.span.line == line_of(NESTED_EACH, "each a where")
    assert "--budget" in d.hint


@MODES
def test_nested_count_stops_at_the_iterations_budget(generated):
    """count inside count inside count: the selections' visits are counted; the step stops
    at the innermost `count`, naming the block."""
    e = engine(book(NESTED_COUNT), board(200), generated)
    with pytest.raises(RulesError) as info:
        untap_step(e)
    d = info.value.diagnostics[0]
    assert "block 100.1 runaway goes over the iterations budget" in d.message
    assert d.span.line == line_of(NESTED_COUNT, "count(d where")
    assert d.span.column == (HEAD + NESTED_COUNT).splitlines()[d.span.line - 1].index("count(d where") + 1


@MODES
def test_a_larger_budget_lets_the_same_rules_run(generated):
    """The budget, not the rules, stopped it: with 20 permanents and a raised budget the
    four nested selections finish and mark every permanent."""
    rules = book(NESTED_EACH)
    small = engine(rules, board(20), generated, Budget(iterations=1_000))
    with pytest.raises(RulesError, match="iterations budget"):
        untap_step(small)
    e = engine(rules, board(20), generated, Budget(iterations=1_000_000, writes=1_000_000))
    untap_step(e)
    assert all(o.get_status("mark", False) is True for o in e.game.objects.values())


@MODES
def test_writes_budget(generated):
    """A selection writing each object is stopped by a writes budget smaller than the board."""
    rules = book(rule("100.1", "marks", "during untap step of P: each x where x.controller is P: set x.mark = true",
                      "during untap step of P: each x where x.controller is P: set x.mark = false"))
    e = engine(rules, board(50), generated, Budget(writes=60))
    with pytest.raises(RulesError, match="block 100.1 marks goes over the writes budget: more than 60 changes"):
        untap_step(e)


ATTACHED = "each y where y.controller is not P: each x where x.controller is P and x.attached_to is y"


@MODES
@pytest.mark.parametrize("selection, statement", [
    ("each x where x.controller is P", "deal 0 damage to x"),
    ("each x where x.controller is P", "put 0 charge counters on x"),
    ("each x where x.controller is P", "move x to battlefield"),
    (ATTACHED, "attach x to y"),
], ids=["damage", "counters", "move", "attach"])
def test_an_action_that_changes_nothing_is_no_write(generated, selection, statement):
    """As a `set` that leaves the value as it is, an action of the engine's own that changes
    nothing (no damage dealt, no counter put, a move to the zone the object is in, attaching
    it to what it is attached to) counts against no writes budget (docs/commands.md,
    `--budget`): fifty of them pass a budget of ten writes, where fifty marks do not."""
    game = board(50)
    host = Permanent("h", "Grizzly Bears", "Bob", "Bob", frozenset({"creature"}), 2, 2)
    game = Game(game.players, game.order, game.active,
                objects={"h": host, **{oid: o.replace(attached_to="h") for oid, o in game.objects.items()}})
    e = engine(book(rule("100.1", "idle", f"during untap step of P: {selection}: {statement}")), game.copy(),
               generated, Budget(writes=10))
    untap_step(e)
    assert all(o.damage == 0 and not o.counters and o.zone == "battlefield" for o in e.game.objects.values())
    assert all(o.attached_to == "h" for oid, o in e.game.objects.items() if oid != "h")
    e = engine(book(rule("100.1", "marks", f"during untap step of P: {selection}: set x.mark = true")), game.copy(),
               generated, Budget(writes=10))
    with pytest.raises(RulesError, match="block 100.1 marks goes over the writes budget"):
        untap_step(e)


def test_objects_budget():
    """Effects the rules create count against the objects budget: one per permanent, with a
    budget of 5, stops at the statement that creates them."""
    text = rule("100.1", "pumps", "during untap step of P: each x where x.controller is P: x gets +1/+1 until end of turn")
    e = engine(book(text), board(10), True, Budget(objects=5))
    with pytest.raises(RulesError) as info:
        untap_step(e)
    d = info.value.diagnostics[0]
    assert "block 100.1 pumps goes over the objects budget" in d.message
    assert d.span.line == line_of(text, "gets +1/+1")


def test_the_budget_starts_afresh_each_step():
    """Twenty steps each within the budget run, though together they go over it."""
    text = rule("100.1", "marks", "during untap step of P: each x where x.controller is P: set x.mark = true",
                "during untap step of P: each x where x.controller is P: set x.mark = false")
    e = engine(book(text), board(5), True, Budget(writes=12))
    for _ in range(20):
        untap_step(e)
    assert e.game.objects["p0"].get_status("mark", False) is False


def test_the_default_budget_is_the_documented_scale():
    e = engine(book(""), board(3), True)
    assert e.budget == Budget() and e.budget.scale == DEFAULT_SCALE
    assert e.limits.iterations == DEFAULT_SCALE * (3 + 2 + 1) * max(1, e.program.compiler.statement_count())


# ---------------------------------------------------------------- never settles: repetition, not size


@pytest.mark.slow
def test_a_block_of_5000_statements_runs():
    """A long block is finite: each of its 5,001 statements is an event of its own (tap,
    untap, tap, ...), and the last one taps: every permanent ends tapped, 5,001 changes each.
    (Generated code only: writing 5,001 functions is what takes the time here, and commits
    are counted alike both ways.)"""
    generated = True
    lines = [f"each x where x.controller is P: {'tap' if i % 2 == 0 else 'untap'} x" for i in range(5_001)]
    text = rule("100.1", "long", "during untap step of P: {\n    " + "\n    ".join(lines) + "\n  }")
    e = engine(book(text), board(3), generated)
    untap_step(e)
    assert all(o.tapped for o in e.game.objects.values())
    assert sum(1 for ev in e.trace if ev.kind == "change") == 3 * 5_001
    assert e.commits > 5_000  # (more events in one step than the old cap on commits allowed)


@MODES
def test_a_long_settling_that_does_not_repeat_runs(generated):
    """A state check that marks what is attached to a marked permanent marks one more link of
    a chain of 150 each round: 150 rounds, more than the rounds after which the engine starts
    watching, and never the same state twice, so it settles with the whole chain marked."""
    n = 150
    game = board(n)
    for i in range(1, n):
        game.objects[f"p{i}"] = game.objects[f"p{i}"].replace(attached_to=f"p{i - 1}")
    game.objects["p0"] = game.objects["p0"].with_status("mark", True)
    text = rule("100.1", "chain", "during state check: each x where x.mark is false and x.attached_to.mark is true: "
                "set x.mark = true")
    e = engine(book(text), game, generated)
    e.settle()
    assert all(o.get_status("mark", False) for o in e.game.objects.values())
    assert e.commits > MAX_SETTLE_ROUNDS


FLIP = (rule("100.1", "flip-on", "during state check: each x where x.mark is false: set x.mark = true")
        + rule("100.2", "flip-off", "during state check: each x where x.mark is true: set x.mark = false"))


@MODES
def test_state_checks_that_go_round_in_a_circle_never_settle(generated):
    """Two state checks undo each other forever: 'the rules never settle', naming both blocks."""
    e = engine(book(FLIP), board(2), generated)
    with pytest.raises(RulesError) as info:
        e.settle()
    d = info.value.diagnostics[0]
    assert "the rules never settle" in d.message
    assert "100.1 flip-on" in d.hint and "100.2 flip-off" in d.hint


TOY = """card "Flicker Toy" {
  types artifact
  when this.tapped becomes true: untap this
  when this.tapped becomes false: tap this
}
"""


@MODES
def test_triggered_abilities_that_go_round_in_a_circle_never_settle(generated):
    """An ability that untaps its permanent as it taps, and one that taps it as it untaps,
    trigger each other forever: 'the rules never settle', naming the card."""
    text = rule("100.1", "taps", "during untap step of P: each x where x.controller is P: tap x")
    e = engine(book(text, TOY), board(1, card="Flicker Toy"), generated)
    with pytest.raises(RulesError) as info:
        untap_step(e)
        e.resolve_triggers()
    d = info.value.diagnostics[0]
    assert "the rules never settle" in d.message and 'card "Flicker Toy"' in d.hint


# ---------------------------------------------------------------- nesting at the language's limits


def deepest(build, limit: int) -> str:
    """The rule text `build(n)` for the greatest n up to `limit` the parser takes (it rejects
    what nests deeper than `dsl.limits`); at least `limit - 2`."""
    for n in range(limit, limit - 3, -1):
        try:
            parse(HEAD + build(n), RULES)
        except DiagnosticError:
            continue
        return build(n)
    raise AssertionError(f"the parser takes no nesting near {limit}")


def nested_each(n: int) -> str:  # n bodies: the clause's, then one per `each` inside it
    loops = ["each v0 where v0.controller is P:"] + [f"each v{i} where v{i} is v{i - 1}:" for i in range(1, n - 1)]
    return rule("100.1", "deep", "during untap step of P: " + " ".join(loops) + f" set v{n - 2}.mark = true")


def nested_if(n: int) -> str:
    return rule("100.1", "deep", "during untap step of P: each x where x.controller is P: "
                + "if x.controller is P: " * (n - 2) + "set x.mark = true")


def nested_simultaneously(n: int) -> str:
    return rule("100.1", "deep", "during untap step of P: each x where x.controller is P: "
                + "simultaneously { " * (n - 2) + "set x.mark = true" + " }" * (n - 2))


def deep_not(n: int) -> str:  # the condition, `not` n - 3 times, `x.mark`: an odd count of `not`
    nots = n - 3 if (n - 3) % 2 else n - 4
    return rule("100.1", "deep", "during untap step of P: each x where " + "not " * nots + "x.mark: set x.mark = true")


def deep_parentheses(n: int) -> str:
    k = n - 4
    return rule("100.1", "deep", "during untap step of P: each x where " + "(" * k + "x.controller is P" + ")" * k
                + ": set x.mark = true")


def deep_and(n: int) -> str:
    k = (n - 4) // 2
    return rule("100.1", "deep", "during untap step of P: each x where " + "x.controller is P and (" * k
                + "x.mark is false" + ")" * k + ": set x.mark = true")


def deep_value(n: int) -> str:  # a 64-deep value written, and one read in an `as` clause
    k = n - 4
    return rule("100.1", "deep", "during untap step of P: each x where x.controller is P: set x.mark = "
                + "(" * k + "true" + ")" * k,
                "as x.mark becomes true: if " + "not " * (n - 4 if (n - 4) % 2 else n - 5) + "x.mark: tap x")


DEEP = {
    "each": (nested_each, MAX_BLOCK_DEPTH),
    "if": (nested_if, MAX_BLOCK_DEPTH),
    "simultaneously": (nested_simultaneously, MAX_BLOCK_DEPTH),
    "not": (deep_not, MAX_EXPRESSION_DEPTH),
    "parentheses": (deep_parentheses, MAX_EXPRESSION_DEPTH),
    "and": (deep_and, MAX_EXPRESSION_DEPTH),
    "value": (deep_value, MAX_EXPRESSION_DEPTH),
}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_rules_nested_at_the_limits_load_and_run_both_ways(shape):
    """Nested as deeply as the language allows, a block loads and its step runs: every
    permanent of the active player is marked, and generated code (falling back to the
    closures where Python cannot take it) leaves the same trace as the closures."""
    build, limit = DEEP[shape]
    rules = book(deepest(build, limit))
    traces = []
    for generated in (True, False):
        e = engine(rules, board(3), generated)
        untap_step(e)
        assert all(o.get_status("mark", False) is True for o in e.game.objects.values()), shape
        traces.append([event.render() for event in e.trace])
    assert traces[0] == traces[1]
    if shape == "value":  # the `as` clause reads the mark as it was (false), `not` an odd number of times
        assert all(o.tapped for o in e.game.objects.values())


def test_nested_each_at_the_limit_runs_on_the_closures_in_generated_mode():
    """Python takes at most 20 nested loops: the generated function for 31 nested `each`
    cannot be compiled, and the engine runs that body on its closure instead."""
    rules = book(deepest(nested_each, MAX_BLOCK_DEPTH))
    e = engine(rules, board(3), True)
    untap_step(e)
    (during,) = [c for c in rules.rules[0].clauses if isinstance(c, ast.During)]
    runners = [entry[1] for entry in Program.of(rules, "generated").compiler.runners.values() if entry[0] is during.body]
    assert runners and not any(hasattr(fn, "source") for fn in runners), "premise: Python could not take it"
    assert all(o.get_status("mark", False) is True for o in e.game.objects.values())


# ---------------------------------------------------------------- verbs that call themselves


CLIMB = "verb climb x cites 100.1 {\n  set x.mark = true\n  if x.attached_to is not none: do climb x.attached_to\n}\n"


@MODES
def test_a_verb_that_calls_itself_and_ends_runs(generated, monkeypatch):
    """A verb that marks a permanent and calls itself on what it is attached to walks a chain
    of 20 attachments from its end (deeper than generated code inlines verbs) and marks all of it.
    The checker rejects recursive verbs (issue 15); the engine must still run one it is handed
    (a rulebook built without the checker, as the API allows), so the check is left out here."""
    monkeypatch.setattr("phasing_rules.interpreter.rulebook.loading.check_rulebook", lambda *args, **kwargs: [])
    n = 20
    game = board(n)
    for i in range(1, n):
        game.objects[f"p{i}"] = game.objects[f"p{i}"].replace(attached_to=f"p{i - 1}")
    rules = book(CLIMB + rule("100.1", "climbs", "during untap step of P: each x where count(y where y.attached_to is x) < 1: do climb x"))
    e = engine(rules, game, generated)
    untap_step(e)
    assert all(o.get_status("mark", False) is True for o in e.game.objects.values())


@MODES
def test_a_verb_that_calls_itself_without_end_stops_at_the_call(generated, monkeypatch):
    """`verb spin x { do spin x }` would recurse forever: a RulesError at the call, not a
    RecursionError. (The checker rejects it first; the engine's own guard is what is tested,
    so the check is left out here.)"""
    monkeypatch.setattr("phasing_rules.interpreter.rulebook.loading.check_rulebook", lambda *args, **kwargs: [])
    text = "verb spin x cites 100.1 {\n  do spin x\n}\n" + rule("100.1", "spins", "during untap step of P: each x where x.controller is P: do spin x")
    e = engine(book(text), board(2), generated)
    with pytest.raises(RulesError) as info:
        untap_step(e)
    d = info.value.diagnostics[0]
    assert "verb spin is called more than" in d.message and d.span.line == line_of(text, "  do spin x")
