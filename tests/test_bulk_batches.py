"""Writes made in bulk (interpreter/batches.py, `Batch.add_bulk`; docs/architecture.md, build
order step 2): generated code makes the writes of an `each` that writes one value to each
object it chooses (`untap x`, `set x.mark = true`) as one run, and a batch of only such a run,
whose attribute nothing waits on one change at a time, is committed as one bulk journal
entry (`Committer.commit_bulk`); any other batch takes the run in among its writes first.

Neither may change an outcome (issue 17: all tests, scenarios, ablate and diff unchanged):

- a batch taking a run in holds the same writes, and the same unchanged writes at the same
  places, as if each write of the run had been added one by one where the run was made;
- on a rulebook whose bulk writes reach what the engine keeps (an indexed status that a
  later selection, a state check and a triggered ability read), generated code, which makes
  bulk entries, and the closures, which make none, play the same trace to the same state,
  and what the engine keeps agrees with a fresh engine (tests/test_incremental.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

from interpreter.batches import Batch, Write
from interpreter.engine import Engine
from interpreter.model import Game, Permanent, Player
from interpreter.program import Program
from interpreter.trace import Cause
from test_budgets import book, rule
from test_incremental import check_against_a_fresh_engine

CAUSES = [Cause("script", f"step {k}") for k in range(2)]


@st.composite
def made(draw):
    """What statements add to a batch, in order: single writes that change their attribute,
    single writes that leave it as it is (kept for conflicts), and runs made in bulk."""
    return draw(st.lists(st.one_of(
        st.tuples(st.just("change"), st.integers(0, 5), st.sampled_from(["tapped", "mark"])),
        st.tuples(st.just("keep"), st.integers(0, 5), st.sampled_from(["tapped", "mark"])),
        st.tuples(st.just("bulk"), st.lists(st.integers(0, 5), min_size=0, max_size=4, unique=True),
                  st.sampled_from(["tapped", "mark"]))), max_size=12))


@given(steps=made())
def test_a_run_made_in_bulk_is_taken_in_where_it_was_made(steps):
    bulk, one_by_one = Batch(), Batch()
    for k, step in enumerate(steps):
        cause = CAUSES[k % 2]
        if step[0] == "bulk":
            _, oids, attr = step
            objs = [f"p{i}" for i in oids]
            bulk.add_bulk(attr, k, cause, objs, [None] * len(objs))
            for oid in objs:
                one_by_one.write_or_keep(cause, oid, attr, k, None)
        else:
            kind, i, attr = step
            for batch in (bulk, one_by_one):
                batch.write_or_keep(cause, f"p{i}", attr, k, None if kind == "change" else k)
    assert bulk.in_bulk == sum(len(b.objs) for b in bulk.bulks)
    bulk.take_in_bulks()
    assert (bulk.writes, bulk.unchanged_writes) == (one_by_one.writes, one_by_one.unchanged_writes)
    assert not bulk.bulks and bulk.in_bulk == 0
    assert bulk.in_order() == one_by_one.in_order()


# A rulebook whose bulk writes reach what the engine keeps: `mark` is a declared status (an
# index), which the second block selects by as the first has just written it, which a state
# check reads (objects to look at again), and which a card's triggered ability on untapping
# sees; cleanup unmarks in bulk.
BLOCKS = (
    rule("100.1", "mark-all", "during untap step of P: each x where x.controller is P and x.tapped: set x.mark = true")
    + rule("100.2", "untap-marked", "during untap step of P: each x where x.mark is true and x.controller is P: untap x")
    + rule("100.3", "heal-marked", "during state check: each x where x.mark is true and x.damage > 0: remove damage from x")
    + rule("100.4", "unmark", "during cleanup of P: each x where x.mark is true: set x.mark = false")
)
WATCHER = """card "Untap Watcher" {
  types artifact
  when this.tapped becomes false: set this.mark = false
}
"""
BOOK = book(BLOCKS, WATCHER)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def boards(draw):
    n = draw(st.integers(1, 12))
    objects = {}
    for i in range(n):
        card = draw(st.sampled_from(["Grizzly Bears", "Untap Watcher"]))
        controller = draw(st.sampled_from(["Alice", "Bob"]))
        types = frozenset({"creature"}) if card == "Grizzly Bears" else frozenset({"artifact"})
        objects[f"p{i}"] = Permanent(f"p{i}", card, controller, controller, types, 2, 3,
                                     tapped=draw(st.booleans()), damage=draw(st.integers(0, 2)))
    return Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice", objects=objects)


def play(backend: str, game: Game) -> Engine:
    engine = Engine(Program.of(BOOK, backend), game.copy())
    engine.settle()
    for player in ("Alice", "Bob"):
        engine.begin_step()
        engine.run_hook("untap step", player)
        engine.settle()
        engine.begin_step()
        engine.run_hook("cleanup", player)
        engine.settle()
    return engine


def state(engine: Engine) -> dict:
    return {oid: (o.tapped, o.damage, o.zone, dict(o.statuses)) for oid, o in engine.game.objects.items()}


@SETTINGS
@given(game=boards(), data=st.data())
def test_bulk_writes_play_as_the_same_writes_one_by_one(game, data):
    note("\n".join(repr(o) for o in game.objects.values()))
    generated, closures = play("generated", game), play("closures", game)
    assert [e.render() for e in generated.trace] == [e.render() for e in closures.trace]
    assert state(generated) == state(closures)
    # (the bulk path was taken: generated code journaled bulk entries, the closures none)
    tapped_before = any(o.tapped for o in game.objects.values())
    assert any(e.kind == "bulk" for e in generated.store.entries) == tapped_before
    assert not any(e.kind == "bulk" for e in closures.store.entries)
    check_against_a_fresh_engine(generated, data, "")


def test_a_bulk_batch_is_undone_and_replayed_to_the_same_trace():
    """Undo walks a bulk entry back (issue 17 item 4); played again, the step makes the same
    events (the trace reads them from the journal's bulk entry)."""
    objects = {f"p{i}": Permanent(f"p{i}", "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3,
                                  tapped=i % 2 == 0, damage=i % 3) for i in range(9)}
    game = Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice", objects=objects)
    engine = Engine(Program.of(BOOK, "generated"), game)
    engine.settle()
    before, mark, start = state(engine), engine.store.mark(), len(engine.trace)
    engine.begin_step()
    engine.run_hook("untap step", "Alice")
    once = [e.render() for e in engine.trace[start:]]
    assert any(e.kind == "bulk" for e in engine.store.entries)
    assert all(not o.tapped for o in engine.game.objects.values())  # 502.3 as written here: 100.2
    engine.writer.undo(mark)
    assert state(engine) == before
    start = len(engine.trace)
    engine.begin_step()
    engine.run_hook("untap step", "Alice")
    assert [e.render() for e in engine.trace[start:]] == once


@pytest.mark.parametrize("attr_blocks", [
    ("as x.mark becomes true: remove damage from x", "an as clause waits on it"),
    ("assert after x.mark becomes true: x is visible", "an assertion waits on it"),
])
def test_a_run_something_waits_on_is_taken_in_one_by_one(attr_blocks):
    """A change something waits on (`as`, an assertion) is committed through the batch's
    writes one by one (`Program.bulk_blocked`): no bulk entry is journaled."""
    clause, _why = attr_blocks
    rules = book(BLOCKS + rule("100.5", "waits", clause))
    objects = {f"p{i}": Permanent(f"p{i}", "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3,
                                  tapped=True) for i in range(4)}
    game = Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice", objects=objects)
    engine = Engine(Program.of(rules, "generated"), game)
    assert "mark" in engine.program.bulk_blocked
    engine.begin_step()
    engine.run_hook("untap step", "Alice")
    assert all(o.get_status("mark", False) for o in engine.game.objects.values())
    bulk = [e for e in engine.store.entries if e.kind == "bulk"]
    assert [e.attr for e in bulk] == ["tapped"]  # (the untap, which nothing waits on, in bulk)
    assert not [w for w in engine.store.entries if isinstance(w, Write) and w.attr == "tapped"]
