"""What the interpreter keeps up to date as it goes agrees with working it out afresh.

For speed the engine keeps state between changes instead of recomputing it: indexes of the
objects, the static abilities' contributions per source, which objects are hidden and their
characteristics, which objects a state check must look at again, and index answers that
stand in for parts of a query's condition. None of that may change an outcome. After every
step of a generated game (the generator of `test_game_properties`) this test builds a fresh
engine on a copy of the game and checks that:

- a full round of state checks changes nothing (704.3: the incremental checks missed nothing);
- each object is hidden (702.26b) or not, and has the same characteristics, in both engines;
- static abilities give every object the same (613, worked out per source or all at once);
- the indexes hold the same sets;
- every `each x where ...` of the rulebook selects the same objects through the indexes as
  by evaluating its whole condition on every object, under environments drawn at random.

The second test does the same on the differential test's untap-step boards (attachment
chains, attachments phased out on hosts that phase out as they phase in) after the engine
has settled the board and then run an untap step, which is what the benchmark times.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from phasing_rules.dsl import ast
from phasing_rules.interpreter.program import program
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.program.indexes import Indexes
from phasing_rules.interpreter.game.refs import Obj, PlayerRef
from phasing_rules.interpreter.engine.view import FALSY, GameView
from test_game_properties import BOOK, SETTINGS, HypothesisChooser, choose_step, start_game
from test_reference_differential import board_text, boards

CONSTANT_NAMES = {"none", "true", "false", "turn"}
BACKENDS = ["generated", "closures"]  # (named: these games are small, and would all get the closures)


@contextlib.contextmanager
def played_in(backend: str):
    """Every engine made inside plays in `backend` (`program.DEFAULT_BACKEND`, set back after)."""
    before = program.DEFAULT_BACKEND
    program.DEFAULT_BACKEND = backend
    try:
        yield
    finally:
        program.DEFAULT_BACKEND = before


def queries(book) -> list[ast.Each]:
    found = []
    for rule in book.rules:
        for clause in rule.clauses:
            found.extend(n for n in clause.walk() if isinstance(n, ast.Each))
    return found


def free_names(each: ast.Each) -> list[str]:
    names = {n.id for n in each.cond.walk() if isinstance(n, ast.Name)} if each.cond is not None else set()
    return sorted(names - {each.var} - CONSTANT_NAMES)


def by_brute_force(view: GameView, each: ast.Each, env: dict) -> list[Obj]:
    """The objects the query selects, evaluating its whole condition on every object."""
    sees_hidden = view.compiler.query(each).sees_hidden
    chosen = []
    for oid, o in view.game.objects.items():
        if (o.zone != "battlefield" and not each.every_zone) or o.zone == "nowhere":
            continue
        if not sees_hidden and view.is_hidden(oid):
            continue
        if each.cond is None or view.eval(each.cond, {**env, each.var: Obj(oid, sees_hidden)}) not in FALSY:
            chosen.append(Obj(oid, sees_hidden))
    return chosen


def index_sets(indexes: Indexes) -> dict:
    """(attribute, value) -> the ids the indexes give for it, each non-empty entry (built first)."""
    indexes.ready()
    return {(attr, value): frozenset(ids) for attr, table in indexes.by.items() for value, ids in table.items() if ids}


def check_against_a_fresh_engine(engine: Engine, data, where: str) -> None:
    fresh = Engine(engine.program, engine.game.copy())  # (the same program: the same backend)
    start = len(fresh.trace)
    fresh.settle()
    missed = [e.render() for e in fresh.trace[start:] if e.kind == "change"]
    assert not missed, f"704.3: state checks made from scratch still change something: {missed}{where}"

    for oid, o in engine.game.objects.items():
        assert engine.is_hidden(oid) == fresh.is_hidden(oid), f"702.26b: {oid} hidden differs{where}"
        if o.zone == "battlefield":
            assert engine.chars(oid) == fresh.chars(oid), f"613: characteristics of {oid} differ{where}"
    engine.statics.refresh()
    fresh.statics.refresh()
    assert engine.statics.read_all() == fresh.statics.read_all(), f"613: static contributions differ{where}"
    if engine.indexes.by is not None:
        assert index_sets(engine.indexes) == index_sets(fresh.indexes), f"indexes differ{where}"

    values = [None, *(PlayerRef(p) for p in engine.game.players), *(Obj(o) for o in engine.game.objects)]
    for each in queries(engine.rulebook):
        env = {}
        for name in free_names(each):
            if data.draw(st.booleans(), label=f"bind {name}"):
                env[name] = data.draw(st.sampled_from(values), label=name)
        indexed = engine.selector.select(each, env, None)
        assert indexed == by_brute_force(engine, each, env), (
            f"the query at {each.span.line}:{each.span.col} selects {indexed} through indexes "
            f"but {by_brute_force(engine, each, env)} by its condition, with {env}{where}")


@SETTINGS
@pytest.mark.parametrize("backend", BACKENDS)
@given(data=st.data())
def test_what_the_engine_keeps_agrees_with_working_it_out_afresh(backend, data):
    with played_in(backend):
        ch = HypothesisChooser(data)
        game = start_game(ch, BOOK)
        note(game.text())
        assert game.run.engine.program.backend.name == backend
        check_against_a_fresh_engine(game.run.engine, data, "\n" + game.text())
        for _ in range(ch.integer(1, 8)):
            result = game.play(choose_step(ch, game))
            if result is None:
                continue
            check_against_a_fresh_engine(game.run.engine, data, f"\nafter {result.line}\n{game.text()}")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(board=boards(), data=st.data())
def test_an_untap_step_on_a_settled_board_agrees_with_a_fresh_engine(backend, board, data):
    game, active = board
    note(board_text(game))
    engine = Engine(program.Program.of(BOOK, backend), game.copy())
    engine.settle()
    engine.run_hook("untap step", active)
    check_against_a_fresh_engine(engine, data, "\n" + board_text(game))
