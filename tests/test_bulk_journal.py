"""Bulk journal entries (interpreter/game/store.py, `Bulk`): many writes of one attribute as one
entry of the game's journal, the first step of the build order in docs/architecture.md ("One
game, faster"); and the last known information of many objects as one entry
(`Remembered`).

A bulk entry stands for the writes it holds: played side by side with a store that journals
each of those writes as an entry of its own, in the order of their positions, the two agree
on everything the journal is read for (issue 17, item 4): the game's state, the journal's
positions (`mark`, `len`), the writes a trace block reads and their order, an object read
back as it was at any position (`object_at`), undo to any position (inside a group of bulk
entries too), and checkpoints. Last known information kept of many objects at once
(`Store.remember_all`) agrees the same way with each object's kept as an entry of its own
(`Store.remember`): what `game.lki` holds, positions, undo into the middle of it.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from phasing_rules.interpreter.game.writes import Write
from phasing_rules.interpreter.game.characteristics import LastKnown, LastKnownGroup
from phasing_rules.interpreter.game.model import LastKnownBook
from phasing_rules.interpreter.game.store import ABSENT, Bulk, JournalTrimmed, Recorded, Store
from phasing_rules.interpreter.game.trace import Cause

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (bench/, for its boards)

from bench.boards import build_board  # noqa: E402

OBJECTS = 8
ATTRS = ("tapped", "damage", "phase", "phased_out_under", "mark")  # two fields, three statuses
VALUES = {"tapped": st.booleans(), "damage": st.integers(0, 3), "phase": st.sampled_from(["in", "out"]),
          "phased_out_under": st.sampled_from([None, "A", "B"]), "mark": st.integers(0, 2)}
CAUSES = [Cause("script", f"step {k}") for k in range(3)]


def _games():
    one = build_board(OBJECTS, 5)
    return one, one.copy()


def _state(game) -> dict:
    return {oid: (o.tapped, o.damage, dict(o.statuses)) for oid, o in game.objects.items()}


def _old(game, oid: str, attr: str):
    o = game.objects[oid]
    if attr in ("tapped", "damage"):
        return getattr(o, attr)
    return o.statuses.get(attr)  # (a status never written reads as None, its default here)


@st.composite
def groups(draw, oids: list[str]):
    """A group of bulk entries as a batch could make them: distinct (object, attribute) pairs,
    each entry one attribute and its writes' positions, all the group's positions shuffled
    among its entries: (attribute, [(object, new value)], [positions], cause, one value or
    not) per entry."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(oids), st.sampled_from(ATTRS)), min_size=1, max_size=10, unique=True))
    by_attr: dict[str, list[str]] = {}
    for oid, attr in pairs:
        by_attr.setdefault(attr, []).append(oid)
    entries = []
    for attr, objs in by_attr.items():
        split = draw(st.integers(1, len(objs)))  # (an attribute may take two entries)
        for part in (objs[:split], objs[split:]):
            if part:
                if draw(st.booleans()):
                    value = draw(VALUES[attr])
                    entries.append((attr, [(oid, value) for oid in part], draw(st.sampled_from(CAUSES)), True))
                else:
                    entries.append((attr, [(oid, draw(VALUES[attr])) for oid in part], draw(st.sampled_from(CAUSES)), False))
    order = draw(st.permutations(range(len(pairs))))
    placed, k = [], 0
    for attr, writes, cause, one in entries:
        positions = sorted(order[k:k + len(writes)])
        k += len(writes)
        placed.append((attr, writes, positions, cause, one))
    return placed


def _play_group(singles: Store, bulk: Store, group) -> tuple[list, list]:
    """The group journaled and applied on both stores: each write as its own entry, in
    position order, on one; as bulk entries on the other. The two blocks' writes."""
    game = bulk.game
    made, one_by_one = [], []
    for attr, writes, positions, cause, one in group:
        objs = [oid for oid, _ in writes]
        olds = [_old(game, oid, attr) for oid in objs]
        values = [v for _, v in writes]
        b = (Bulk(attr, objs, olds, cause, value=values[0]) if one
             else Bulk(attr, objs, olds, cause, values=values))
        contiguous = positions == list(range(positions[0], positions[0] + len(positions)))
        b.positions = range(positions[0], positions[-1] + 1) if contiguous else positions  # (both kinds are taken)
        made.append(b)
        one_by_one += [(p, Write(oid, attr, v, cause, old)) for p, oid, v, old in zip(positions, objs, values, olds)]
    one_by_one.sort(key=lambda pw: pw[0])
    ws = [w for _, w in one_by_one]
    block_singles = singles.journal_writes(ws)
    for w in ws:
        singles.write_object(singles.game.objects[w.obj], [w])
    block_bulk = bulk.journal_bulk(made)
    for b in made:
        bulk.apply_bulk(b)
    return block_singles, block_bulk


def _records(block) -> list[tuple]:
    return [(w.obj, w.attr, w.old, w.value, w.cause, w.kind) for w in block]


operations = st.lists(st.one_of(
    st.tuples(st.just("group"), st.integers(0, 2**16)),
    st.tuples(st.just("write"), st.integers(0, OBJECTS - 1), st.sampled_from(ATTRS), st.integers(0, 2**16)),
    st.tuples(st.just("checkpoint")),
    st.tuples(st.just("remember"), st.lists(st.integers(0, OBJECTS - 1), min_size=1, max_size=5)),
), min_size=1, max_size=12)


def _remember(singles: Store, bulk: Store, oids: list[str], cause: Cause) -> None:
    """Last known information of `oids` (an object may come twice): each as its own entry
    on one store, as one entry on the other; each info names where its object is read back
    from, the position before its own entry."""
    for oid in oids:
        singles.remember(oid, Recorded(singles, oid, singles.mark()), cause)
    at = bulk.mark()
    bulk.remember_all(oids, [Recorded(bulk, oid, at + k) for k, oid in enumerate(oids)], cause)


def _kept(store: Store) -> dict[str, int]:
    return {oid: info.mark for oid, info in store.game.lki.items()}


@settings(max_examples=150, deadline=None)
@given(ops=operations, keep=st.sampled_from(["game", "checkpoint"]), data=st.data())
def test_bulk_entries_read_as_the_writes_they_stand_for(ops, keep, data):
    """Issue 17 item 4 (undo restores the state exactly; the trace reads the journal), with
    the writes of a batch journaled in bulk (docs/architecture.md, build order step 1)."""
    one_game, bulk_game = _games()
    singles, bulk = Store(one_game, keep), Store(bulk_game, keep)
    start = _state(bulk_game)
    oids = sorted(bulk_game.objects)
    blocks = []
    for op in ops:
        if op[0] == "group":
            group = data.draw(groups(oids))
            blocks.append(_play_group(singles, bulk, group))
        elif op[0] == "remember":
            _remember(singles, bulk, [oids[k] for k in op[1]], CAUSES[0])
        elif op[0] == "write":
            _, k, attr, seed = op
            value = data.draw(VALUES[attr])
            for store in (singles, bulk):
                store.write(oids[k], attr, value, CAUSES[seed % len(CAUSES)])
        else:
            singles.checkpoint()
            bulk.checkpoint()
        assert _state(bulk_game) == _state(one_game)
        assert (bulk.mark(), len(bulk), bulk.base) == (singles.mark(), len(singles), singles.base)
        assert _kept(bulk) == _kept(singles)
    for block_singles, block_bulk in blocks:
        if block_bulk.start >= bulk.base:
            assert len(block_bulk) == len(block_singles)
            assert _records(block_bulk) == _records(block_singles)
    # read back as it was at any position the journal holds, and undo to one (inside a group too)
    position = data.draw(st.integers(bulk.base, bulk.mark()))
    for oid in oids[:3]:
        then_bulk, then_singles = bulk.object_at(oid, position), singles.object_at(oid, position)
        assert (then_bulk.tapped, then_bulk.damage, then_bulk.statuses) == \
            (then_singles.tapped, then_singles.damage, then_singles.statuses)
    bulk.undo(position)
    singles.undo(position)
    assert _state(bulk_game) == _state(one_game)
    assert _kept(bulk) == _kept(singles)
    assert (bulk.mark(), len(bulk)) == (singles.mark(), len(singles)) == (position, position - bulk.base)
    if bulk.base == 0:
        bulk.undo(0)
        assert _state(bulk_game) == start and not bulk_game.lki
    else:
        with pytest.raises(JournalTrimmed):
            bulk.undo(bulk.base - 1)


def test_a_group_whose_positions_are_not_each_taken_once_is_refused():
    store = Store(build_board(4, 5))
    oids = sorted(store.game.objects)
    twice = [Bulk("tapped", oids[:2], [False, False], CAUSES[0], value=True, positions=[0, 1]),
             Bulk("damage", oids[:1], [0], CAUSES[0], value=1, positions=[1])]
    with pytest.raises(ValueError, match="not 0 to 2, each once"):
        store.journal_bulk(twice)
    with pytest.raises(ValueError, match="has no writes"):
        store.journal_bulk([Bulk("tapped", [], [], CAUSES[0], value=True, positions=[])])
    with pytest.raises(ValueError, match="2 objects but 1 old values"):
        Bulk("tapped", oids[:2], [False], CAUSES[0], value=True)
    assert store.mark() == 0 and not store.entries


def test_undoing_a_bulk_write_to_a_status_never_written_leaves_it_out_again():
    """A status its object never had written is left out again by undo (not set back to its
    default), as for a batch's write of its own (`Write.unset`)."""
    store = Store(build_board(4, 5))
    oids = sorted(store.game.objects)
    assert all("mark" not in store.game.objects[oid].statuses for oid in oids[:3])
    store.game.objects[oids[1]].statuses["mark"] = 7  # (written before, outside any journal)
    b = Bulk("mark", oids[:3], [None, 7, None], CAUSES[0], value=1, positions=range(3))
    store.journal_bulk([b])
    store.apply_bulk(b)
    assert b.unset == {0, 2}
    store.undo(0)
    assert [store.game.objects[oid].statuses.get("mark", ABSENT) for oid in oids[:3]] == [ABSENT, 7, ABSENT]


@pytest.mark.parametrize("keep", ["game", "checkpoint"])
def test_last_known_information_kept_at_once_reads_each_object_back_as_it_was(keep):
    """608.2h, 603.10: each object's last known information is the object as it was when it
    was kept, read back from the journal when first asked (after later writes, and, with a
    journal kept only since the last checkpoint, before the checkpoint trims it)."""
    store = Store(build_board(4, 5), keep)
    oids = sorted(store.game.objects)[:3]
    store.write(oids[0], "tapped", True, CAUSES[0])
    at = store.mark()
    infos = [LastKnown(Recorded(store, oid, at + k), [], (), {"phase": "in"}) for k, oid in enumerate(oids)]
    store.remember_all(oids, infos, CAUSES[1])
    assert store.mark() == at + 3 and [store.game.lki[oid] for oid in oids] == infos
    store.write(oids[0], "tapped", False, CAUSES[2])
    store.write(oids[1], "phase", "out", CAUSES[2])
    store.checkpoint()
    assert infos[0]["tapped"] is True and infos[1]["phase"] == "in"  # (as they were when kept)
    assert infos[0].recorded is None  # (read back)
    if keep == "game":
        store.undo(at + 1)  # (into the middle of the entry: the first object's kept, not the others')
        assert list(store.game.lki) == oids[:1]
        store.undo(at)
        assert not store.game.lki


@st.composite
def book_operations(draw):
    oids = ["a", "b", "c", "d"]
    info = st.builds(lambda n: {"power": n}, st.integers(0, 3))
    return draw(st.lists(st.one_of(
        st.tuples(st.just("set"), st.sampled_from(oids), info),
        st.tuples(st.just("del"), st.sampled_from(oids)),
        st.tuples(st.just("keep_all"), st.lists(st.sampled_from(oids), min_size=1, max_size=5), st.lists(info, min_size=5, max_size=5)),
        st.tuples(st.just("put_back"), st.sampled_from(oids), st.sampled_from(oids)),
    ), max_size=15))


@given(ops=book_operations())
def test_the_book_of_last_known_information_reads_as_a_dict_would(ops):
    """`Game.lki` (`LastKnownBook`) holds what `keep_all` keeps as where to find it, and reads
    like a dict that had each item put in: what it holds, its order, `in`, `get`; what
    `held` gives of an object, put back (`put_back`, as undo does), holds the same again."""
    book, model = LastKnownBook(), {}
    for op in ops:
        if op[0] == "set":
            book[op[1]] = model[op[1]] = op[2]
        elif op[0] == "del":
            if op[1] in model:
                del book[op[1]], model[op[1]]
        elif op[0] == "keep_all":
            oids, infos = op[1], op[2]
            olds = book.keep_all(oids, infos, ABSENT)
            assert (olds[0] is ABSENT) == (oids[0] not in model)  # (what it held before, or nothing)
            for k, oid in enumerate(oids):
                model[oid] = infos[k]
        else:  # the information of one object put back as another's
            held = book.held(op[1], ABSENT)
            book.put_back(op[2], held, ABSENT)
            if op[1] in model:
                model[op[2]] = model[op[1]]
            else:
                model.pop(op[2], None)
        assert dict(book) == model and list(book) == list(model) and len(book) == len(model)
        assert all((oid in book) == (oid in book.ids) == (oid in model) and book.get(oid) == model.get(oid)
                   for oid in "abcde")


def test_the_book_of_last_known_information_takes_what_a_game_is_given():
    """A game made with a dict of last known information holds it in a book, equal to the
    dict; a tuple is refused (the book would read it as where to find the information)."""
    game = build_board(2, 5)
    made = type(game)(game.players, game.order, game.active, objects=game.objects, lki={"x": {"power": 2}})
    assert isinstance(made.lki, LastKnownBook) and made.lki == {"x": {"power": 2}}
    with pytest.raises(TypeError, match="not a tuple"):
        made.lki["y"] = ("a", 0)
    for copied in (copy.copy(made.lki), copy.deepcopy(made.lki)):  # (a book of its own, as a dict's copy is)
        assert copied == made.lki
        copied["z"] = {"power": 0}
        assert "z" not in made.lki


def test_last_known_information_kept_of_a_batch_is_made_when_read():
    """603.10b: what a step keeps of the objects the game stops seeing (`LastKnownGroup`,
    one journal entry) makes no object's information until someone reads it; read, it is
    the object as it was when kept, with what static abilities gave it then (Holy Strength's
    +1/+2 on the creatures of this board), and reading it again gives the same record."""
    from bench import engines
    from phasing_rules.interpreter.engine.engine import Engine
    from phasing_rules.interpreter.program.program import Program

    game = build_board(400, 5)
    engine = Engine(Program.of(engines.full_book(), "generated"), game)
    engine.settle()
    engine.run_hook("untap step", game.active)
    groups = [e.infos for e in engine.store.entries if e.kind == "lki-group"]
    assert groups and all(isinstance(g, LastKnownGroup) for g in groups)
    assert all(g._made == [None] * len(g) for g in groups)  # (nothing read yet)
    # (what static abilities gave, read with `get`: kept for later here, `GivenAt`)
    group = next(g for g in groups if any(g.given.get(oid) for oid in g.oids))
    given = next(k for k, oid in enumerate(group.oids) if group.given.get(oid))
    oid = group.oids[given]
    info = game.lki[oid]
    assert info is game.lki[oid] is group[given] and sum(made is not None for made in group._made) == 1
    assert info["phase"] == "in" and game.objects[oid].statuses.get("phase") == "out"  # (as it was: phased in)
    assert group[-1] is group[len(group) - 1] and group[-1].recorded.mark == group.start + len(group) - 1
    by_hand = LastKnown(Recorded(engine.store, oid, group.start + given), group.effects, group.given.get(oid), group.statuses)
    assert dict(info) == dict(by_hand) and info["toughness"] > game.objects[oid].toughness


def test_a_bulk_write_applied_to_the_objects_held_is_the_one_applied_by_ids():
    """A bulk entry that holds its objects (`Bulk.held`, as the engine makes them) applies to
    those objects what one looked up by ids applies: the same statuses, the same writes
    flagged `unset`; and undo takes both back alike."""
    made = []
    for hold in (False, True):
        store = Store(build_board(4, 5))
        objects = store.game.objects
        oids = sorted(objects)[:3]
        objects[oids[0]].statuses["mark"] = 7
        b = Bulk("mark", oids, [7, None, None], CAUSES[0], values=[1, 2, 3], positions=range(3),
                 held=[objects[oid] for oid in oids] if hold else None)
        store.journal_bulk([b])
        store.apply_bulk(b)
        after = [objects[oid].statuses.get("mark", ABSENT) for oid in oids], sorted(b.unset)
        store.undo(0)
        made.append((after, [objects[oid].statuses.get("mark", ABSENT) for oid in oids]))
    assert made[0] == made[1] == (([1, 2, 3], [1, 2]), [7, ABSENT, ABSENT])
    with pytest.raises(ValueError, match="3 objects but 2 held"):
        Bulk("mark", oids, [7, None, None], CAUSES[0], value=1, held=[objects[oid] for oid in oids[:2]])
