"""The game store (interpreter/game/store.py): the one place that changes a game state, and its
journal (issue 17, item 4).

- No module of the interpreter but the store writes into a game: its containers, its fields
  or an object's attributes (checked on the source, with the ast module).
- Undo walks the journal back and restores the state exactly; played again from there, the
  game makes the same trace event for event.
- With checkpoints the journal stays bounded; without, it grows with the game.
- A zone change makes a new incarnation of the object, linked to the old one (400.7), and
  changes nothing the scenarios see.
- The game's indexes belong to its store: shared by every engine on the game, kept right as
  engines write, as objects are added and as changes are undone, never built again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sys

import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.program.indexes import Indexes
from phasing_rules.interpreter.game.model import DATA_FIELDS, Game
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import ScenarioRun, build_game
from phasing_rules.interpreter.game.store import JournalTrimmed, store_of
from test_game_properties import BOOK, GeneratedGame, HypothesisChooser, board_text, choose_step, generate_board, parse_scenario
from test_incremental import check_against_a_fresh_engine, index_sets

ROOT = Path(__file__).resolve().parent.parent
INTERPRETER = ROOT / "interpreter"
sys.path.insert(0, str(ROOT))  # (bench/, for its boards)

from bench.boards import build_board  # noqa: E402

# each example plays a generated game twice
UNDO_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CONTAINERS = {"objects", "players", "effects", "lki"}  # a game's dicts
LISTS = {"watchers", "delayed", "stack", "pending", "choices"}  # a game's lists
GAME_FIELDS = {"turn", "active", "clock", "cleanup_done"} | LISTS | CONTAINERS
OBJECT_FIELDS = set(DATA_FIELDS) | {"statuses", "incarnation", "previous"}
LIST_CHANGES = {"append", "insert", "extend", "remove", "pop", "clear"}
DICT_CHANGES = {"pop", "clear", "update", "setdefault", "popitem", "__setitem__", "__delitem__"}


def _holder(node: ast.AST) -> str | None:
    """The name a container is reached by: `x.objects` or a local `objects`."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _on_self(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "self"


def game_writes(source: str, module: str) -> list[str]:
    """The places in a module's source that write into a game state: assigning or deleting
    into a game's `objects`, `players`, `effects` or `lki` (or an object's `statuses`),
    changing its `watchers` or `delayed` lists, assigning a game field or an object's
    attribute (other than on `self`), or any `setattr`. model.py's Permanent class, which
    builds new objects, may assign their attributes."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    if module == "model.py":
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "Permanent":
                allowed |= {n.lineno for n in ast.walk(node) if hasattr(n, "lineno")}
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in allowed:
            continue
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]:
            if isinstance(t, ast.Subscript) and (_holder(t.value) in CONTAINERS or
                                                 isinstance(t.value, ast.Attribute) and t.value.attr == "statuses"):
                found.append(f"{module}:{node.lineno}: {ast.unparse(t)} is assigned")
            elif isinstance(t, ast.Attribute) and not _on_self(t) and t.attr in GAME_FIELDS | OBJECT_FIELDS:
                found.append(f"{module}:{node.lineno}: {ast.unparse(t)} is assigned")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            holder, method = _holder(node.func.value), node.func.attr
            if (holder in LISTS and method in LIST_CHANGES) or \
                    ((holder in CONTAINERS or holder == "statuses" and isinstance(node.func.value, ast.Attribute))
                     and method in DICT_CHANGES):
                found.append(f"{module}:{node.lineno}: {ast.unparse(node.func)}() changes a game")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_the_store_writes_into_a_game():
    found = []
    for path in sorted(INTERPRETER.rglob("*.py")):
        if path.name != "store.py":
            found += game_writes(path.read_text(), path.name)
    assert found == [], "every change of a game goes through interpreter/game/store.py:\n" + "\n".join(found)


@pytest.mark.parametrize("planted", [
    "game.objects[o.id] = o",
    "del self.eng.game.effects[eid]",
    "objects = game.objects\n    objects['x'] = o",
    "self.eng.game.watchers.append(w)",
    "game.delayed.remove(d)",
    "game.lki.pop('x')",
    "self.eng.game.turn += 1",
    "game.active = 'Bob'",
    "o.tapped = True",
    "o.statuses['phase'] = 'out'",
    "setattr(o, 'zone', 'graveyard')",
])
def test_a_write_planted_outside_the_store_is_found(planted):
    """The check fails when a module writes into a game directly (planted in writing.py)."""
    source = (INTERPRETER / "engine" / "writing.py").read_text() + f"\n\ndef planted(game, o, self, w, d, eid):\n    {planted}\n"
    assert game_writes((INTERPRETER / "engine" / "writing.py").read_text(), "writing.py") == []
    assert game_writes(source, "writing.py") != []


# ============================================================== undo


def deep_state(game: Game) -> tuple:
    """Everything a game holds, copied out: every field and status of every object (in the
    game's order), its incarnation, players, effects, watchers, delayed triggers, spells held
    on the stack, pending triggered abilities, targets chosen in advance, last known
    information (as read), turn, active player, clock, cleanup."""
    objects = [(oid, tuple(getattr(o, f) for f in DATA_FIELDS), dict(o.statuses), o.incarnation, o.previous)
               for oid, o in game.objects.items()]
    return (objects, list(game.players.items()), game.order, game.active, game.turn, game.clock, game.cleanup_done,
            list(game.effects.items()), list(game.watchers), list(game.delayed), list(game.stack),
            [(t.source, t.card, t.body, dict(t.env), t.cause) for t in game.pending], list(game.choices),
            [(oid, dict(info)) for oid, info in game.lki.items()])


def _generated(data):
    ch = HypothesisChooser(data)
    players, active, pieces = generate_board(ch)
    text = board_text(players, active, pieces)
    note(text)
    return ch, BOOK, players, active, pieces, parse_scenario(text)


@UNDO_SETTINGS
@given(st.data())
def test_undo_restores_the_game_exactly_and_replaying_makes_the_same_trace(data):
    """Undo to the start of a generated game gives back the state it started from, field for
    field; played again from there, the game makes the same events in the same order (its
    outcome depends on the state alone)."""
    ch, book, players, active, pieces, scn = _generated(data)
    game = build_game(scn, book)
    start, mark = deep_state(game), store_of(game).mark()
    first = GeneratedGame(players, active, pieces, ScenarioRun(scn, book, "<generated>", game=game))
    for _ in range(ch.integer(1, 6)):
        first.play(choose_step(ch, first))
    note("\n".join(first.script))
    assert len(store_of(game)) > 0
    store_of(game).undo(mark)
    assert deep_state(game) == start, "undo to the start gives back the state the game started from"
    again = GeneratedGame(players, active, pieces, ScenarioRun(scn, book, "<generated>", game=game))
    for line in first.script:
        again.play(line)
    assert again.script == first.script
    assert list(again.run.engine.trace) == list(first.run.engine.trace)


@UNDO_SETTINGS
@given(st.data(), st.sampled_from(["the engine's writer", "the game's store"]))
def test_an_engine_set_back_agrees_with_a_fresh_engine(data, through):
    """After `undo` in the middle of a game, what the engine keeps (indexes, characteristics,
    sight, static abilities) is worked out for the state it is set back to: it agrees with a
    fresh engine on a copy (the checks of test_incremental), whether the undo was asked of the
    engine (`writer.undo`) or of the game's store directly (which tells every engine on the
    game: `Store.watched_by`)."""
    ch, book, players, active, pieces, scn = _generated(data)
    played = GeneratedGame(players, active, pieces, ScenarioRun(scn, book, "<generated>"))
    played.play(choose_step(ch, played))
    engine = played.run.engine
    mark, before = engine.store.mark(), deep_state(engine.game)
    for _ in range(ch.integer(1, 4)):
        played.play(choose_step(ch, played))
    (engine.writer.undo if through == "the engine's writer" else store_of(engine.game).undo)(mark)
    assert deep_state(engine.game) == before
    check_against_a_fresh_engine(engine, data, "\nafter undo")


def test_an_engine_undone_through_the_store_plays_the_same_step_again():
    """An untap step (502.1, 702.26a) played, undone through the game's store, and played again
    by the same engine ends where it ended the first time: the engine's indexes of phased-out
    permanents were set back with the game (without that, the second step found nothing to
    phase in and ended elsewhere)."""
    from bench.engines import observed

    game = _board(400)
    engine = Engine(load_version("2026-09-25"), game)
    engine.settle()
    mark = engine.store.mark()
    engine.run_hook("untap step", game.active)
    first = observed(game.objects)
    engine.store.undo(mark)
    engine.run_hook("untap step", game.active)
    assert observed(game.objects) == first


def _board(n: int):
    return build_board(n, 3)


def test_undo_past_a_checkpoint_that_trimmed_the_journal_is_refused():
    engine = Engine(load_version("2026-09-25"), _board(40), journal="checkpoint")
    mark = engine.store.mark()
    engine.next_turn()
    with pytest.raises(JournalTrimmed) as trimmed:
        engine.store.undo(mark)
    assert "trimmed at a checkpoint" in trimmed.value.diagnostics[0].message
    for wrong in ("0", None, True, engine.store.mark() + 1):  # not a mark of this journal
        with pytest.raises(DiagnosticError):
            engine.store.undo(wrong)


# ============================================================== checkpoints


def test_with_checkpoints_the_journal_stays_bounded_and_without_it_grows():
    """Forty turns on a board of 60 permanents (their untap steps phase permanents out and in,
    702.26a): with `journal="checkpoint"` the journal holds only the changes since the turn or
    step began, so its length stays under a bound set by the board; kept for the whole game, it
    grows turn after turn."""
    book = load_version("2026-09-25")
    board = _board(60)
    kept, trimmed = Engine(book, board.copy()), Engine(book, board.copy(), journal="checkpoint")
    bound = 10 * len(board.objects) + 50  # (a turn changes each object's few attributes, and a few game fields)
    lengths_kept, lengths_trimmed = [], []
    for _turn in range(40):
        kept.next_turn()
        trimmed.next_turn()
        lengths_kept.append(len(kept.store))
        lengths_trimmed.append(len(trimmed.store))
    assert kept.game.fingerprint() == trimmed.game.fingerprint()  # the same game either way
    # the trace read its changes from journal blocks the checkpoints dropped: it kept them first
    assert list(trimmed.trace) == list(kept.trace)
    assert max(lengths_trimmed) <= bound
    assert lengths_kept == sorted(lengths_kept) and lengths_kept[-1] > bound
    assert lengths_kept[-1] > 10 * max(lengths_trimmed)


def test_last_known_information_is_read_back_before_a_checkpoint_trims_the_journal():
    """608.2h: what the game knew of an object as it last existed stays the same whether the
    journal it was recorded in is kept or trimmed at checkpoints."""
    book = load_version("2026-09-25")
    board = _board(60)
    kept, trimmed = Engine(book, board.copy()), Engine(book, board.copy(), journal="checkpoint")
    for _turn in range(6):
        kept.next_turn()
        trimmed.next_turn()
    assert kept.game.lki, "the board's permanents phase out: the game keeps what it knew of them"
    assert {oid: dict(info) for oid, info in kept.game.lki.items()} == \
           {oid: dict(info) for oid, info in trimmed.game.lki.items()}


@settings(max_examples=25, deadline=None)
@given(st.integers(20, 80), st.integers(1, 5), st.randoms(use_true_random=False))
def test_reading_many_recorded_objects_back_at_once_finds_each_as_one_read_would(n, turns, rnd):
    """`Store.read_back` (one walk back over the journal for all the objects a checkpoint must
    read, 608.2h's last known information among them) finds every object as it was at its
    position, exactly as `object_at` walking back for that object alone: recorded at several
    points of a game of untap steps (702.26a) and cleanups, some objects more than once."""
    game = _board(n)
    engine = Engine(load_version("2026-09-25"), game)
    store = engine.store
    recorded = []
    for _turn in range(turns):
        for oid in rnd.sample(sorted(game.objects), min(5, len(game.objects))):
            recorded.append(store.recorded(oid))
        engine.next_turn()
    expected = [store.object_at(r.oid, r.mark) for r in recorded]
    store.read_back(recorded)
    assert [r._object for r in recorded] == expected
    assert len({id(r._object) for r in recorded}) == len(recorded), "each its own copy"


# ============================================================== read-only views


def test_the_game_the_api_hands_out_is_read_only():
    """`Actions.game` reads the live game but cannot change it: every write raises
    `ReadOnlyError` (docs/api.md), and the game is as it was."""
    from phasing_rules.interpreter import api
    from phasing_rules.interpreter.game.readonly import ReadOnlyError

    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    game = play.game
    bear = game.objects["bear"]
    before = deep_state(play.engine.game)
    writes = [
        lambda: setattr(bear, "tapped", True),
        lambda: delattr(bear, "zone"),
        lambda: bear.statuses.__setitem__("phase", "out"),
        lambda: game.objects.__setitem__("bear", None),
        lambda: game.objects.__delitem__("bear"),
        lambda: game.players.__setitem__("Alice", None),
        lambda: game.effects.__setitem__(1, None),
        lambda: game.lki.__setitem__("bear", {}),
        lambda: setattr(game, "turn", 5),
        lambda: setattr(game, "active", "Bob"),
        lambda: game.store,
    ]
    for write in writes:
        with pytest.raises(ReadOnlyError) as refused:
            write()
        assert isinstance(refused.value, DiagnosticError) and "read-only" in refused.value.diagnostics[0].message
    assert isinstance(game.watchers, tuple) and isinstance(game.delayed, tuple)  # (no list to append to)
    assert deep_state(play.engine.game) == before
    play.cast("Slip Away", "Alice", ["bear"])  # 702.26b: the actions change it, and the view reads it live
    assert bear.get_status("phase", "in") == "out" and game.objects["bear"].statuses["phase"] == "out"
    copy = game.copy()  # a game of one's own, which may be changed
    store_of(copy).write("bear", "tapped", True, "a test")
    assert copy.objects["bear"].tapped and not bear.tapped



def test_a_views_statuses_are_every_declared_status_as_state_gives_them():
    """A permanent never phased out reads phase `in` through its view (702.26a's default, in
    the vocabulary), as `state()` says; `get_status` gives its own default only for a name
    that is no status of the rules."""
    from phasing_rules.interpreter import api

    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    bear = play.game.objects["bear"]
    assert dict(bear.statuses) == play.state()["permanents"]["bear"]["statuses"]
    assert bear.statuses["phase"] == "in" and bear.get_status("phase", "?") == "in"
    assert bear.get_status("no_such_status", "?") == "?"
    play.cast("Slip Away", "Alice", ["bear"])
    assert dict(bear.statuses) == play.state()["permanents"]["bear"]["statuses"]
    assert (bear.get_status("phase"), bear.statuses["phased_out_under"]) == ("out", "Alice")


# ============================================================== incarnations (400.7)


def test_a_zone_change_makes_a_new_incarnation_linked_to_the_old_one():
    """400.7: an object that changes zones becomes a new object with no memory of its
    previous existence. The game keeps its id (what scenarios see is unchanged) and makes a
    new incarnation linked to the old one, recorded in the journal; phasing is no zone
    change (702.26d) and makes none."""
    from phasing_rules.interpreter import api

    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice", "tapped": True},
        {"name": "elf", "card": "Grizzly Bears", "controller": "Bob"}])
    game = play.engine.game
    first = game.objects["bear"]
    play.cast("Slip Away", "Bob", ["elf"])  # 702.26d: phasing out is not a zone change
    assert game.objects["elf"].incarnation == 0
    mark = play.engine.store.mark()
    play.cast("Wrath of God", "Alice")  # destroys the bear (the elf is phased out, 702.26b)
    bear = game.objects["bear"]
    assert play.state()["permanents"]["bear"]["zone"] == "graveyard"
    assert bear is not first and bear.id == first.id == "bear"
    assert bear.incarnation == 1 and bear.previous is first
    assert first.zone == "battlefield" and first.tapped, "the old incarnation is as it last existed"
    assert not bear.tapped, "400.7: the new object has no memory of being tapped"
    moves = [e for e in play.engine.store.entries[mark - play.engine.store.base:] if e.kind == "object"]
    assert [(e.obj, e.old, e.value) for e in moves] == [("bear", first, bear)]
    assert game.objects["elf"].incarnation == 0


# ============================================================== the trace reads the journal


def test_the_traces_change_events_are_the_journals_write_entries_in_order():
    """A batch's changes are journaled once, as the engine's write records, and the trace's
    change events are read from those entries (a block of the journal per batch): the same
    object, attribute, old and new value and cause, in the same order."""
    from phasing_rules.interpreter.game.writes import Write

    engine = Engine(load_version("2026-09-25"), _board(60))
    engine.settle()
    for _turn in range(4):
        engine.next_turn()
    journaled = [(w.obj, w.attr, w.old, w.value, w.cause) for w in engine.store.entries if type(w) is Write]
    traced = [(e.subject, e.values()["attr"], e.values()["old"], e.values()["new"], e.cause)
              for e in engine.trace if e.kind == "change"]
    assert journaled and traced == journaled


def test_a_batch_that_writes_a_new_status_and_moves_its_object_is_undone_exactly():
    """A batch that writes a status its object never had and also moves that object to another
    zone (a new object, 400.7) is set back exactly by undo: the status is left out again and the
    object is back where it was (issue 17 item 4: undo restores the state exactly). Such an
    object's writes are journaled with the batch and applied one by one."""
    from test_engine import TWO_BEARS, start

    from phasing_rules.interpreter.game.writes import Batch, Write
    from phasing_rules.interpreter.game.trace import Cause

    run = start(load_version("2026-09-25"), TWO_BEARS)
    game, store = run.engine.game, store_of(run.engine.game)
    before = {oid: (o.zone, dict(o.statuses)) for oid, o in game.objects.items()}
    mark = store.mark()
    batch = Batch()
    cause = Cause("script", "test")
    batch.writes.append(Write("bear", "phased_indirectly", True, cause))  # (never written on the bear before)
    batch.writes.append(Write("bear", "zone", "graveyard", cause))
    run.engine.committer.commit(batch)
    assert game.objects["bear"].zone == "graveyard"
    store.undo(mark)
    assert {oid: (o.zone, dict(o.statuses)) for oid, o in game.objects.items()} == before


def test_a_batch_that_moves_an_object_journals_each_of_its_writes_once():
    """An object that changes zones takes its batch's writes one at a time (a new object,
    400.7), but the journal records each write once, with the batch, beside the new
    incarnation that replaces the object (issue 17 item 4: every change recorded once, in one
    place)."""
    from test_engine import TWO_BEARS, start

    from phasing_rules.interpreter.game.writes import Batch, Write
    from phasing_rules.interpreter.game.trace import Cause

    run = start(load_version("2026-09-25"), TWO_BEARS)
    game, store = run.engine.game, store_of(run.engine.game)
    mark = store.mark()
    batch = Batch()
    cause = Cause("script", "test")
    batch.writes.append(Write("bear", "tapped", True, cause))
    batch.writes.append(Write("bear", "zone", "graveyard", cause))
    run.engine.committer.commit(batch)
    entries = store.entries[mark - store.base:]
    bear_writes = [(e.attr, e.value) for e in entries if e.kind in ("write", "status") and e.obj == "bear"]
    assert bear_writes.count(("tapped", True)) == 1, bear_writes
    assert bear_writes.count(("zone", "graveyard")) == 1, bear_writes
    assert [e.obj for e in entries if e.kind == "object"].count("bear") == 1  # the new incarnation
    assert game.objects["bear"].zone == "graveyard"


def test_undo_puts_back_a_spell_held_on_the_stack_and_targets_chosen_in_advance():
    """The stack (405.1), the triggered abilities waiting to be put on it (603.3) and targets
    chosen in advance (603.3d) are part of the game, changed through its store: an undo to a
    mark made while Oubliette waited on the stack puts it back there, with the creature it
    targets not yet phased out, and resolving it again ends as the first time (its ability
    phases the creature out, 702.26a's `phase_out_until`); an undo past `choose_targets`
    forgets the choice."""
    from phasing_rules.interpreter import api

    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Bob"}])
    engine = play.engine
    play.choose_targets("Oubliette", ["bear"])
    play.cast("Oubliette", "Alice", hold=True)
    assert [o.card.name for o in engine.game.stack] == ["Oubliette"]
    mark, before = engine.store.mark(), deep_state(engine.game)
    play.resolve()
    first = play.state()
    assert first["permanents"]["bear"]["statuses"]["phase"] == "out" and engine.game.stack == []
    engine.store.undo(mark)
    assert deep_state(engine.game) == before
    assert [o.card.name for o in engine.game.stack] == ["Oubliette"]
    assert play.state()["permanents"]["bear"]["statuses"].get("phase", "in") == "in"
    play.resolve()
    assert play.state() == first

    mark = engine.store.mark()
    play.choose_targets("Phase Warden", ["bear"])
    assert [card for card, _choice in engine.game.choices] == ["Phase Warden"]
    engine.store.undo(mark)
    assert engine.game.choices == [] and play.unused_target_choices() == []


# ============================================================== the game's indexes


def _same_as_built_afresh(indexes: Indexes, game: Game, where: str) -> None:
    fresh = Indexes(game, indexes.defaults)
    assert index_sets(indexes) == index_sets(fresh), f"the kept indexes differ from fresh ones {where}"
    assert sorted(indexes.order, key=indexes.order.__getitem__) == list(game.objects), \
        f"the kept indexes put the objects in another order than the game's {where}"


@UNDO_SETTINGS
@given(st.data())
def test_the_games_indexes_are_kept_by_its_store_through_play_undo_and_a_new_engine(data):
    """The indexes (what is attached to what, owners, controllers, cards, tokens, types,
    keywords, declared statuses) belong to the game's store (issue 17 item 4): every engine on
    the game shares them, none rebuilds them, and the store keeps them right as engines write,
    as objects are added and as changes are undone, so that at every point they are the ones
    built afresh from the objects, in the game's order."""
    ch, book, players, active, pieces, scn = _generated(data)
    game = build_game(scn, book)
    store = store_of(game)
    first = GeneratedGame(players, active, pieces, ScenarioRun(scn, book, "<generated>", game=game))
    indexes = first.run.engine.indexes.ready()
    built = indexes.by  # (the same tables throughout: never built again)
    marks = [store.mark()]
    for _ in range(ch.integer(1, 6)):
        first.play(choose_step(ch, first))
        marks.append(store.mark())
        _same_as_built_afresh(indexes, game, f"after {first.script[-1]!r}")
    note("\n".join(first.script))
    back = ch.pick(marks[:-1])
    store.undo(back)
    _same_as_built_afresh(indexes, game, f"after an undo to {back}")
    again = GeneratedGame(players, active, pieces, ScenarioRun(scn, book, "<generated>", game=game))
    assert again.run.engine.indexes is indexes, "a second engine on the game shares its indexes"
    for _ in range(ch.integer(1, 3)):
        again.play(choose_step(ch, again))
        _same_as_built_afresh(indexes, game, f"after {again.script[-1]!r}, played by a second engine")
    assert indexes.by is built, "the indexes were built again instead of being kept"


@pytest.mark.parametrize("backend", ["closures", "generated"])
def test_the_games_indexes_take_in_an_object_added_and_let_it_go_on_undo(backend):
    """A creature spell that resolves becomes a new object of the game (608.3): the store adds
    it to the indexes in the game's order, and takes it out again when the cast is undone,
    without building them again."""
    from phasing_rules.interpreter import api

    play = api.new_game("2026-09-25", permanents=[{"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}],
                        backend=backend)
    game, store = play.engine.game, play.engine.store
    indexes = play.engine.indexes.ready()
    built, mark = indexes.by, store.mark()
    play.cast("Phasing Sentinel", "Alice")
    assert game.objects["phasing_sentinel"].zone == "battlefield"
    assert "phasing_sentinel" in indexes.lookup("controller", "Alice")
    _same_as_built_afresh(indexes, game, "after the spell resolved")
    store.undo(mark)
    assert "phasing_sentinel" not in game.objects
    _same_as_built_afresh(indexes, game, "after the cast was undone")
    assert indexes.by is built, "the indexes were built again instead of being kept"


def test_the_games_indexes_follow_a_step_of_bulk_writes_undone_part_by_part():
    """An untap step played in generated Python writes its batches as runs (bulk journal
    entries); undone to positions inside those runs, then to the step's start, the store moves
    the indexes back write by write, so that they are always those built afresh."""
    from phasing_rules.interpreter.program.program import Program

    game = _board(300)
    engine = Engine(Program.of(load_version("2026-09-25"), "generated"), game)
    engine.settle()
    indexes = engine.indexes.ready()
    store, built = engine.store, indexes.by
    start = store.mark()
    engine.run_hook("untap step", game.active)
    end = store.mark()
    assert any(e.kind == "bulk" for e in store.entries), "the step wrote runs"
    for back in (end - 1, (start + end) // 2, start + 1, start):
        store.undo(back)
        _same_as_built_afresh(indexes, game, f"after an undo to {back} (the step took {start} to {end})")
    assert indexes.by is built, "the indexes were built again instead of being kept"
