"""Batches made of runs (interpreter/engine/batches.py, `Batch.bulks`; interpreter/program/codegen.py,
`Emitter.runs`; docs/architecture.md, build order step 2): generated code adds each change a
write site makes to that site's run (its objects, the values they replace, each write's
position among the batch's writes) instead of making a `Write`; the `as` clauses expand a
batch of runs as runs, and `Committer.commit_runs` journals and applies it as bulk entries,
or, where it cannot do what the write-by-write commit does (a conflict, an object the game is
seen to start or stop seeing, ...), the runs are taken in among the batch's writes first.

None of it may change an outcome (issue 17: all tests, scenarios, ablate and diff
unchanged):

- a batch taking its runs in holds the same writes, and the same unchanged writes at the same
  places, as if each write had been added one by one when it was made; the changes an
  expander of runs goes through first are the runs' writes in that order;
- on rulebooks whose runs meet everything a batch meets (`as` clauses writing what further
  `as` clauses wait on, a value per object, a `prefer`, a hide rule with last known
  information, an assertion, an `after` clause, a state check, a triggered ability),
  generated code, which makes runs, and the closures, which make `Write`s, play the same
  trace to the same state, and what the engine keeps agrees with a fresh engine
  (tests/test_incremental.py); both ways of committing are seen taken.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

from phasing_rules.interpreter.game.writes import Batch, Write
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.errors import RulesError
from phasing_rules.interpreter.game.model import Game, Permanent, Player
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.game.store import Bulk
from phasing_rules.interpreter.game.trace import Cause
from test_budgets import book, rule
from test_incremental import check_against_a_fresh_engine

CAUSES = [Cause("script", f"step {k}") for k in range(2)]
ATTRS = ["tapped", "mark"]


@st.composite
def made(draw):
    """What the functions that make a batch add to it, in order: each either adds `Write`s
    (writes that change their attribute, and writes that leave it as it is, kept for
    conflicts) or writes to runs (several sites, each one attribute and one value, or site 2
    a value of each object's own, a column, in an order of its own, and writes that leave
    their attribute as it is)."""
    write = st.tuples(st.sampled_from(["change", "keep"]), st.integers(0, 5), st.sampled_from(ATTRS))
    site_write = st.tuples(st.sampled_from(["change", "keep"]), st.integers(0, 5), st.integers(0, 2))
    return draw(st.lists(st.one_of(st.tuples(st.just("writes"), st.lists(write, max_size=5)),
                                   st.tuples(st.just("runs"), st.lists(site_write, max_size=8))), max_size=5))


def make(functions) -> tuple[Batch, Batch]:
    """The batch the functions make with runs, and the one they would make with `Write`s."""
    runs, one_by_one = Batch(), Batch()
    for k, (how, steps) in enumerate(functions):
        cause = CAUSES[k % 2]
        if how == "writes":
            for kind, i, attr in steps:
                for batch in (runs, one_by_one):
                    batch.write_or_keep(cause, f"p{i}", attr, k, None if kind == "change" else k)
            continue
        n = runs.made()  # (as generated code counts: `_n`)
        sites: dict[int, tuple[list, list, list, list]] = {}
        for kind, i, site in steps:
            attr, value = ATTRS[site % 2], (k, site, i) if site == 2 else (k, site)
            one_by_one.write_or_keep(cause, f"p{i}", attr, value, None if kind == "change" else value)
            if kind == "change":
                objs, olds, at, values = sites.setdefault(site, ([], [], [], []))
                objs.append(f"p{i}")
                olds.append(None)
                at.append(n)
                values.append(value)
                n += 1
            else:
                runs.unchanged_writes.append((n, (f"p{i}", attr), value, cause))
        for site, (objs, olds, at, values) in sites.items():
            if site == 2:  # (a column)
                runs.bulks.append(Bulk(ATTRS[site % 2], objs, olds, cause, None, values, at))
            else:
                runs.bulks.append(Bulk(ATTRS[site % 2], objs, olds, cause, (k, site), None, at))
        runs.in_bulk = n - len(runs.writes)
    return runs, one_by_one


@given(functions=made())
def test_runs_are_taken_in_where_their_writes_were_made(functions):
    runs, one_by_one = make(functions)
    assert runs.made() == len(one_by_one.writes)
    runs.take_in_bulks()
    assert (runs.writes, runs.unchanged_writes) == (one_by_one.writes, one_by_one.unchanged_writes)
    assert not runs.bulks and runs.in_bulk == 0
    assert runs.in_order() == one_by_one.in_order()


@given(functions=made().filter(lambda fs: all(how == "runs" for how, _steps in fs)), data=st.data())
def test_an_expander_of_runs_meets_their_changes_in_the_order_they_were_made(functions, data):
    """The changes some clause waits on (attribute -> value -> which clauses), in the order
    the writes were made, each with the clauses it calls on; the others left out, whether
    their run writes one value or a column of them."""
    runs, one_by_one = make(functions)
    made = sorted({(w.attr, w.value) for w in one_by_one.writes}, key=repr)
    waited = data.draw(st.lists(st.sampled_from(made), unique=True) if made else st.just([]))
    which: dict = {}
    for k, (attr, value) in enumerate(waited):
        which.setdefault(attr, {})[value] = k
    parents = runs.run_parents(which)
    assert [p[:5] for p in parents] == [(w.obj, w.attr, w.value, w.old, which[w.attr][w.value])
                                        for w in one_by_one.writes if w.value in which.get(w.attr, {})]
    # (and the object, where its run holds it: `Bulk.held`)
    held = {(oid, b.attr): o for b in runs.bulks if b.held is not None for oid, o in zip(b.objs, b.held)}
    assert [p[5] for p in parents] == [held.get((p[0], p[1])) for p in parents]


# A small rulebook of the shape of phasing, in other words (nothing of rules/ is read):
# tapped permanents go away in their controller's untap step and come back in the next, what
# is attached to them goes along (and `along` wins over a direct `along = false`), a player
# is remembered per object (a value that differs by object), what is away is hidden (its last
# known information kept, a look back), coming back is asserted visible, an `after` clause
# marks what went away, a state check heals what is marked, a card's ability triggers on
# being untapped, and a creature that goes along is noted twice (the same value written
# twice). Without `UNPERCEIVED` (the rule that going away is no zone change) the game sees
# objects leave and enter, which only the write-by-write commit perceives.
HEAD = """status away: bool = false cites 100.1
status along: bool = false cites 100.2
status marker: player = none cites 100.1
status noted: bool = false cites 100.12
"""
BLOCKS = (
    rule("100.1", "go-away",
         "clause go: during untap step of P: simultaneously {\n"
         "    each x where not x.away and x.tapped and x.controller is P: set x.away = true, x.along = false\n"
         "    each x where x.away and x.marker is P and not x.along: set x.away = false\n  }",
         "clause remember: as x.away becomes true: set x.marker = x.controller",
         "clause forget: as x.away becomes false: set x.marker = none")
    + rule("100.2", "attachments-follow",
           "clause go-along: as x.away becomes true: each y where y.attached_to is x: {\n"
           "    set y.away = true, y.along = true\n  }",
           "clause come-along: as x.away becomes false: each y where y.away and y.along and y.attached_to is x: {\n"
           "    set y.away = false\n  }",
           "clause clear: as x.away becomes false: set x.along = false")
    + rule("100.3", "along-wins", "prefer along = true")
    + rule("100.4", "away-hidden", "hide x where x.away")
    + rule("100.5", "back-seen", "assert after x.away becomes false: x is visible")
    + rule("100.6", "untap", "during untap step of P: each x where x.controller is P: untap x")
    + rule("100.7", "untap-order", "order untap step: 100.1, 100.6")
    + rule("100.8", "mark-gone", "after x.away becomes true: set x.mark = true")
    + rule("100.9", "heal-marked", "during state check: each x where x.mark and x.damage > 0: remove damage from x")
    + rule("100.10", "look-back", "look back on x.away becomes true")
    + rule("100.12", "note-attachments",
           "clause by-host: as x.away becomes true: each y where y.attached_to is x and y is a creature: set y.noted = true",
           "clause by-itself: as x.along becomes true: set x.noted = true")
)
UNPERCEIVED = rule("100.11", "not-leaving", "changes of away are not zone-change, control-change, attachment-change")
WATCHER = """card "Untap Watcher" {
  types artifact
  when this.tapped becomes false: set this.mark = false
}
"""


def rules(perceived: bool = False, read_off: bool = False):
    """The rulebook; `read_off`: its hide rule in the form whose test is read off the
    object's statuses (`Hiding.stored_hide_tests`)."""
    blocks = BLOCKS if perceived else BLOCKS + UNPERCEIVED
    if read_off:
        blocks = blocks.replace("hide x where x.away", "hide x where x.away is true")
    return book(HEAD + blocks, WATCHER)


# Static abilities beside the runs: the card library's Holy Strength (+1/+2 to what it is
# attached to) and Glorious Anthem, and a banner whose reach reads what 100.6's runs write
# (untapped creatures get +0/+2). What goes away takes an Aura's +1/+2 out of sight (a run
# that hides a source); 100.14 exiles a creature whose damage reaches its toughness, which
# static abilities give.
STATICS = rule("100.14", "lethal", "during state check: each x where x is a creature and x.damage >= x.toughness: move x to exile")
BANNER = """card "Far Banner" {
  types enchantment
  static: each x where x is a creature and not x.tapped: x gets +0/+2
}
"""


def rules_with_statics():
    return book(HEAD + BLOCKS + UNPERCEIVED + STATICS, WATCHER + BANNER)


BOOKS = {"unperceived": rules(), "perceived": rules(perceived=True), "hide test read off": rules(read_off=True),
         "static abilities": rules_with_statics()}
# card -> its types and power/toughness, for the boards
CARDS = {"Grizzly Bears": (frozenset({"creature"}), 2, 3), "Untap Watcher": (frozenset({"artifact"}), None, None),
         "Holy Strength": (frozenset({"enchantment", "aura"}), None, None),
         "Glorious Anthem": (frozenset({"enchantment"}), None, None), "Far Banner": (frozenset({"enchantment"}), None, None)}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def boards(draw, cards=("Grizzly Bears", "Untap Watcher"), most_damage=2):
    n = draw(st.integers(1, 10))
    objects = {}
    for i in range(n):
        card = draw(st.sampled_from(cards))
        controller = draw(st.sampled_from(["Alice", "Bob"]))
        types, power, toughness = CARDS[card]
        host = draw(st.one_of(st.none(), st.integers(0, n - 1)))
        objects[f"p{i}"] = Permanent(f"p{i}", card, controller, controller, types, power, toughness,
                                     tapped=draw(st.booleans()),
                                     damage=draw(st.integers(0, most_damage)),
                                     attached_to=None if host is None or host == i else f"p{host}")
    return Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice", objects=objects)


def play(rulebook, backend: str, game: Game) -> Engine:
    engine = Engine(Program.of(rulebook, backend), game.copy())
    engine.settle()
    for _round in range(2):
        for player in ("Alice", "Bob"):
            engine.begin_step()
            engine.run_hook("untap step", player)
            engine.settle()
            for o in list(engine.game.objects.values()):  # (tapped again, to go away next time)
                if o.id[-1] in "02468" and o.zone == "battlefield":
                    engine.writer.set(o.id, CAUSES[0], tapped=True)
    return engine


def state(engine: Engine) -> dict:
    return {oid: (o.tapped, o.damage, o.zone, dict(o.statuses)) for oid, o in engine.game.objects.items()}


def remembered(engine: Engine) -> list[tuple[str, str]]:
    """Each time last known information was kept (603.10): of what, for what."""
    kept = []
    for e in engine.store.entries:
        if e.kind == "lki":
            kept.append((e.obj, str(e.cause)))
        elif e.kind == "lki-group":
            kept += [(oid, str(e.cause)) for oid in e.objs]
    return kept


def committed_as_runs(engine: Engine) -> bool:
    return any(e.kind == "bulk" and e.attr == "marker" for e in engine.store.entries)


@SETTINGS
@pytest.mark.parametrize("which", BOOKS)
@given(data=st.data())
def test_runs_play_as_the_same_writes_one_by_one(which, data):
    game = data.draw(boards(tuple(CARDS), most_damage=5) if which == "static abilities" else boards())
    note("\n".join(repr(o) for o in game.objects.values()))
    generated, closures = play(BOOKS[which], "generated", game), play(BOOKS[which], "closures", game)
    assert [e.render() for e in generated.trace] == [e.render() for e in closures.trace]
    assert state(generated) == state(closures)
    assert remembered(generated) == remembered(closures)
    assert not any(e.kind == "bulk" for e in closures.store.entries)
    if which == "perceived":  # (going away is seen as leaving: never committed as runs)
        assert not committed_as_runs(generated)
    check_against_a_fresh_engine(generated, data, "")
    # walked back, the journal leaves each object as it was: a status never written before is
    # no status again (not its default written), runs or not
    generated.store.undo(0)  # (the journal's start: a raw position, at the store's level)
    assert {oid: dict(o.statuses) for oid, o in generated.game.objects.items()} == \
        {oid: dict(o.statuses) for oid, o in game.objects.items()}


def two_permanents_and_an_aura(aura_tapped: bool, aura_card: str = "Untap Watcher") -> Game:
    """Alice's two tapped creatures, p1 damaged, and `a` attached to p0 (a creature if
    `aura_card` is one)."""
    types = frozenset({"creature"}) if aura_card == "Grizzly Bears" else frozenset({"artifact"})
    objects = {"p0": Permanent("p0", "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3, tapped=True),
               "p1": Permanent("p1", "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3, tapped=True,
                               damage=1),
               "a": Permanent("a", aura_card, "Alice", "Alice", types, None, None,
                              tapped=aura_tapped, attached_to="p0")}
    return Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice", objects=objects)


def test_a_batch_of_runs_is_committed_as_runs():
    """Going away (100.1) with what joins it (100.1's `remember`, 100.2's attachment going
    along) is journaled as bulk entries, `as` clauses' writes included; the trace and state
    are those of the closures."""
    game = two_permanents_and_an_aura(aura_tapped=False)
    generated, closures = (play(BOOKS["unperceived"], backend, game) for backend in ("generated", "closures"))
    assert committed_as_runs(generated)
    assert any(e.kind == "bulk" and e.attr == "along" and e.objs == ["a"] for e in generated.store.entries)
    # (the objects the engine held as it made each run are let go once it is committed: ids stay)
    assert all(e.held is None for e in generated.store.entries if e.kind == "bulk")
    assert [e.render() for e in generated.trace] == [e.render() for e in closures.trace]
    went_away = ("100.1 go-away",)
    assert remembered(generated)[:3] == [("p0", *went_away), ("p1", *went_away), ("a", *went_away)]  # 603.10
    assert remembered(generated) == remembered(closures)
    assert generated.game.objects["p1"].damage == 0  # 100.9 healed it, marked by 100.8's follow-up


def agrees_with_a_fresh_engine(engine: Engine) -> None:
    """What static abilities give, and the characteristics of what is on the battlefield, as
    the engine keeps them, are what a fresh engine on the same game works out."""
    fresh = Engine(engine.program, engine.game.copy())
    fresh.settle()
    for oid, o in engine.game.objects.items():
        if o.zone == "battlefield":
            assert engine.chars(oid) == fresh.chars(oid), f"613: characteristics of {oid} differ"
    engine.statics.refresh()
    fresh.statics.refresh()
    assert engine.statics.read_all() == fresh.statics.read_all(), "613: what static abilities give differs"


def alices(*objects: Permanent) -> Game:
    return Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice",
                objects={o.id: o for o in objects})


def test_a_source_that_goes_away_alone_takes_what_it_gives_with_it():
    """p1's Holy Strength (+1/+2) is tapped and goes away on its own (100.1) in a batch
    committed as runs; the creature it was attached to, untapped, stays, now 2/3 with 3
    damage: 100.14 exiles it (static abilities of sources the game doesn't see give nothing)."""
    game = alices(Permanent("p1", "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3, damage=3),
                  Permanent("h", "Holy Strength", "Alice", "Alice", frozenset({"enchantment", "aura"}), None, None,
                            tapped=True, attached_to="p1"))
    for backend in ("generated", "closures"):
        engine = Engine(Program.of(BOOKS["static abilities"], backend), game.copy())
        engine.settle()
        assert engine.game.objects["p1"].zone == "battlefield"  # 3/5 with Holy Strength
        engine.begin_step()
        engine.run_hook("untap step", "Alice")
        assert engine.game.objects["h"].get_status("away", False)
        assert engine.game.objects["p1"].zone == "exile", backend  # 100.14: 3 damage on a 2/3
        assert any(e.kind == "bulk" and e.attr == "marker" for e in engine.store.entries) == (backend == "generated")
        agrees_with_a_fresh_engine(engine)


def test_what_a_static_ability_reaches_follows_the_runs():
    """A tapped bear goes away in Alice's untap step and comes back in her next (100.1), where
    100.6 untaps it in a run: from then on the banner reaches it (+0/+2), as a fresh engine
    works it out."""
    game = alices(Permanent("p2", "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3, tapped=True),
                  Permanent("b", "Far Banner", "Alice", "Alice", frozenset({"enchantment"}), None, None))
    for backend in ("generated", "closures"):
        engine = Engine(Program.of(BOOKS["static abilities"], backend), game.copy())
        engine.settle()
        for player in ("Alice", "Bob", "Alice"):
            engine.begin_step()
            engine.run_hook("untap step", player)
        assert not engine.game.objects["p2"].tapped
        assert engine.chars("p2")["toughness"] == 5, backend  # untapped: the banner's +0/+2
        assert any(e.kind == "bulk" and e.attr == "tapped" for e in engine.store.entries) == (backend == "generated")
        agrees_with_a_fresh_engine(engine)


def test_a_conflict_is_settled_write_by_write():
    """The aura is tapped too: it goes away on its own (`along = false`) and along with its
    host (`along = true`) at once; 100.3 settles it, which only the write-by-write commit
    does: that batch journals no bulk entry, and the trace shows the settling as the
    closures do."""
    game = two_permanents_and_an_aura(aura_tapped=True)
    generated, closures = (play(BOOKS["unperceived"], backend, game) for backend in ("generated", "closures"))
    renders = [e.render() for e in generated.trace]
    assert renders == [e.render() for e in closures.trace]
    assert any(e.kind == "settle" for e in generated.trace)
    first = next(e for e in generated.store.entries if getattr(e, "attr", None) == "away")
    assert isinstance(first, Write)  # (the batch that goes away, committed one write at a time)
    engine = Engine(Program.of(BOOKS["unperceived"], "generated"), game.copy())
    engine.begin_step()
    engine.run_hook("untap step", "Alice")
    aura = engine.game.objects["a"]
    assert (aura.get_status("away", False), aura.get_status("along", False)) == (True, True)  # 100.3: along wins


def test_the_same_value_written_twice_is_committed_write_by_write():
    """A creature going along with its host is noted by 100.12 twice (by its host's change and
    by its own): the first write stands and the second changes nothing, as the
    write-by-write commit has it; that batch journals no bulk entry, and the trace and state
    are the closures'."""
    game = two_permanents_and_an_aura(aura_tapped=False, aura_card="Grizzly Bears")
    generated, closures = (play(BOOKS["unperceived"], backend, game) for backend in ("generated", "closures"))
    assert [e.render() for e in generated.trace] == [e.render() for e in closures.trace]
    assert state(generated) == state(closures)
    first = next(e for e in generated.store.entries if getattr(e, "attr", None) == "away")
    assert isinstance(first, Write)  # (the batch that goes away, committed one write at a time)
    noted = [e for e in generated.store.entries if getattr(e, "attr", None) == "noted"]
    assert [(e.obj, e.value) for e in noted][:1] == [("a", True)]  # (once, though written twice)


def test_an_assertion_a_run_breaks_fails_as_it_does_write_by_write():
    """An assertion that what goes away is untapped (false here: 100.1 sends tapped ones)
    fails in the batch committed as runs, with the error the closures give."""
    rulebook = book(HEAD + BLOCKS + UNPERCEIVED + rule("100.13", "away-untapped",
                                                        "assert after x.away becomes true: x.tapped is false"), WATCHER)
    errors = []
    for backend in ("generated", "closures"):
        engine = Engine(Program.of(rulebook, backend), two_permanents_and_an_aura(aura_tapped=False))
        engine.begin_step()
        with pytest.raises(RulesError) as failed:
            engine.run_hook("untap step", "Alice")
        errors.append(str(failed.value))
        assert any(e.kind == "bulk" for e in engine.store.entries) == (backend == "generated")
    assert errors[0] == errors[1] and "100.13" in errors[0]


def test_a_step_assertion_names_the_first_object_in_the_order_the_changes_were_made():
    """An assertion that `away` changes at most once in a step (702.26p's kind) names the
    first object, in the order the step changed them, whose `away` changed more than once.
    In 100.1's batch, committed as runs, c (attached to b, which goes along with p0) goes
    away after r comes back along with q0, though c's write and b's share a run: the runs'
    changes are counted in the order of their positions, as the closures count their
    `Write`s, so both name r."""
    blocks = (BLOCKS[:BLOCKS.index("rule 100.12")].replace("order untap step: 100.1, 100.6",
                                                             "order untap step: 100.1, 100.16, 100.6")
              + UNPERCEIVED
              + rule("100.16", "flip-attached-creatures", "during untap step of P: {\n"
                     "    each x including hidden where x.attached_to is not none and x is a creature and x.away: set x.away = false\n"
                     "    each x including hidden where x.attached_to is not none and x is a creature and not x.away: set x.away = true\n"
                     "  }")
              + rule("100.17", "away-once", "assert during untap step of P: away changes at most once"))
    rulebook = book(HEAD + blocks, WATCHER)

    def bear(oid: str, **fields) -> Permanent:
        return Permanent(oid, "Grizzly Bears", "Alice", "Alice", frozenset({"creature"}), 2, 3, **fields)

    objects = {"p0": bear("p0", tapped=True),
               "b": Permanent("b", "Untap Watcher", "Alice", "Alice", frozenset({"artifact"}), None, None,
                              attached_to="p0"),
               "c": bear("c", attached_to="b"),
               "q0": bear("q0", status=(("away", True), ("marker", "Alice"))),
               "r": bear("r", attached_to="q0", status=(("away", True), ("along", True), ("marker", "Alice")))}
    errors = []
    for backend in ("generated", "closures"):
        game = Game({"Alice": Player("Alice"), "Bob": Player("Bob")}, ("Alice", "Bob"), "Alice",
                    objects={oid: o.copy() for oid, o in objects.items()})
        engine = Engine(Program.of(rulebook, backend), game)
        engine.begin_step()
        with pytest.raises(RulesError) as failed:
            engine.run_hook("untap step", "Alice")
        errors.append(str(failed.value))
        assert any(e.kind == "bulk" and e.attr == "away" for e in engine.store.entries) == (backend == "generated")
    assert errors[0] == errors[1]
    assert "100.17" in errors[0] and "r.away changed 2 times" in errors[0]
