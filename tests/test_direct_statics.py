"""The setup's shortcuts agree with the general way of working things out.

A first look at a large board (`Engine.settle` on a new engine) works out, for every object,
what static abilities give it (604.1, 613), its indexes and whether a hide rule hides it
(702.26b). Four shortcuts make that cheaper, and each must give what the general way gives:

- static abilities of the shape `each x where this.A is x: x gets ...` read off their source
  (`interpreter.engine.direct_statics`) give what `GameView.collect_static` gives, in the same
  order, counting the same selection budget, one source at a time and all at once;
- a new engine's first refresh (`Statics.first_look`, every source new) leaves the tables of
  what sources give as working each out and comparing it with nothing leaves them;
- the indexes built one attribute at a time (`Indexes._build`) hold what indexing each
  object in turn (`Indexes._entries`) holds, and `Indexes.sort` keeps the game's order;
- the cache of hidden objects filled at once (`Hiding.cache_every_object`) says what
  `Hiding.hidden_by_rules` says of each object.

Boards are drawn to reach the corners: attachments on objects out of the battlefield, on
players, on objects that are gone; sources phased out, or not on the battlefield; an anchor
through a status naming objects (`phase_until`); test cards with two such abilities, one
that looks in every zone, and one of a shape the shortcut does not take.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.dsl import ast
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.engine.direct_statics import gifts_of
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.program.indexes import FIELDS, Indexes
from phasing_rules.interpreter.game.characteristics import characteristics
from phasing_rules.interpreter.game.model import Effect, Game, Player, Permanent
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.engine.statics import UNWORKED

# Test cards: static abilities of the shape the shortcut takes (two on one card; reversed; a
# block; anchored on a status naming an object; in every zone; one ability giving two things;
# one giving nothing), and one it does not take.
TEST_CARDS = '''
card "Test Relic" {
  types artifact
  static: each x where this.phase_until is x: x gains flying
  static: each x where x is this.attached_to: { x gets +1/+0
    x gains haste }
}

card "Test Banner" {
  types enchantment aura
  static: each object x where this.attached_to is x: x gets +0/+1
}

card "Test Standard" {
  types artifact equipment
  static: each x where this.attached_to is x: { x gets +2/+0
    x gains vigilance }
}

card "Test Blank" {
  types enchantment aura
  static: each x where this.attached_to is x: { }
}

card "Test Charm" {
  types enchantment aura
  static: each x where this.attached_to is x and x is a creature: x gets +1/+1
}
'''
BOOK = load_version("2026-09-25").with_cards(item for item in parse(TEST_CARDS).items if isinstance(item, ast.Card))
CARDS = ("Grizzly Bears", "Breezekeeper", "Holy Strength", "Bonesplitter", "Shifting Mantle", "Glorious Anthem",
         "Test Relic", "Test Banner", "Test Standard", "Test Charm", "Test Blank")
PLAYERS = ("Alice", "Bob", "Carol")
ZONES = ("battlefield", "battlefield", "battlefield", "graveyard", "exile", "nowhere")
SETTINGS = settings(max_examples=120, deadline=None)


def permanent(pid: str, card: str, controller: str, attached_to: str | None, timestamp: int,
              status: dict, zone: str = "battlefield") -> Permanent:
    """A permanent of one of the rulebook's cards, with its printed characteristics."""
    types, power, toughness, keywords = frozenset(), None, None, ()
    for entry in BOOK.cards[card].entries:
        if isinstance(entry, ast.Types):
            types = frozenset(entry.names)
        elif isinstance(entry, ast.PT):
            power, toughness = entry.power, entry.toughness
        elif isinstance(entry, ast.Keywords):
            keywords = tuple(entry.names)
    return Permanent(id=pid, card=card, owner=controller, controller=controller, types=types, power=power,
                     toughness=toughness, keywords=keywords, attached_to=attached_to, timestamp=timestamp,
                     status=tuple(sorted(status.items())), zone=zone)


@st.composite
def games(draw) -> Game:
    """A game of 1 to 14 permanents, some attached to others, to players or to nothing there
    (and now and then one named as a player is)."""
    n = draw(st.integers(1, 14))
    ids = [f"p{i}" for i in range(n)]
    if n > 1 and draw(st.integers(0, 4)) == 0:
        ids[-1] = "Carol"  # an object named as a player is: a stored "Carol" is read as the player
    names = ids + list(PLAYERS) + ["gone", None]
    objects: dict[str, Permanent] = {}
    for i, pid in enumerate(ids):
        status = {}
        if draw(st.integers(0, 3)) == 0:
            status = {"phase": "out", "phased_out_under": draw(st.sampled_from(PLAYERS))}
        if draw(st.integers(0, 3)) == 0:
            status["phase_until"] = draw(st.sampled_from(names))
        if draw(st.integers(0, 3)) == 0:  # statuses written back to their defaults, as a step leaves them
            status.setdefault("phase", "in")
            status["phased_indirectly"] = False
        objects[pid] = permanent(pid, draw(st.sampled_from(CARDS)), draw(st.sampled_from(PLAYERS)),
                                 attached_to=draw(st.sampled_from(names)), timestamp=i + 1,
                                 status={k: v for k, v in status.items() if v is not None},
                                 zone=draw(st.sampled_from(ZONES)))
    return Game({p: Player(p) for p in PLAYERS}, PLAYERS, PLAYERS[0], objects=objects)


def generally(engine: Engine, src: str) -> list:
    """What source `src` gives, seen or not, worked out the general way
    (`Statics.compute_generally`: each static ability evaluated by `GameView.collect_static`)."""
    return engine.statics.compute_generally(src)


def test_the_shortcut_takes_the_shapes_it_is_for():
    """Holy Strength's and Bonesplitter's abilities (303.4, 301.5: they affect the permanent
    they are attached to) are read off the source; Glorious Anthem's, which may reach any
    creature, and Test Charm's, whose selection checks more than its anchor, are not."""
    direct = Engine(BOOK, Game({p: Player(p) for p in PLAYERS}, PLAYERS, PLAYERS[0])).statics.direct
    for name in ("Holy Strength", "Bonesplitter", "Shifting Mantle", "Test Banner"):
        assert direct[name] is not None and len(direct[name]) == 1, name
    assert direct["Test Relic"] is not None and len(direct["Test Relic"]) == 2
    assert direct["Test Relic"][1].gives == (("pump", (1, 0)), ("grant", "haste"))
    assert direct["Test Standard"] is not None and direct["Test Standard"][0].gives == (("pump", (2, 0)),
                                                                                        ("grant", "vigilance"))
    assert direct["Glorious Anthem"] is None and direct["Test Charm"] is None


@SETTINGS
@given(games())
def test_a_source_gives_what_its_abilities_give_when_evaluated(game):
    """604.1/613: a static ability read off its source gives the same objects the same things,
    in the same order, as evaluating it, and counts the same candidates against the budget."""
    engine = Engine(BOOK, game)
    for src in game.objects:
        engine.iterations_left = 1000
        expected = generally(engine, src)
        spent = 1000 - engine.iterations_left
        engine.iterations_left = 1000
        assert engine.statics.compute(src) == expected, src
        assert 1000 - engine.iterations_left == spent, f"{src}: budget counted differently"
    engine.iterations_left = 1000
    expected_all = {src: generally(engine, src) for src in game.objects}
    spent = 1000 - engine.iterations_left
    engine.iterations_left = 1000
    found = gifts_of(engine.statics.direct, engine, list(game.objects), engine.statics.compute)
    assert {src: now for src, now, _one, _gives in found} == expected_all
    assert 1000 - engine.iterations_left == spent
    # with each source, the one object it gives everything to (None: none, or several) and what it gives it
    for src, now, one, gives in found:
        targets = {target for target, _c in now}
        assert one == (targets.pop() if len(targets) == 1 else None), src
        assert list(gives) == ([c for _target, c in now] if one is not None else []), src


def test_a_name_that_is_a_player_s_is_read_as_the_player():
    """An Aura attached to a name that is a player's (an object of the same name aside) is
    attached to the player (the game reads a stored name as a player's first): its ability,
    which gives only an object something (303.4), gives nothing."""
    objects = {"p0": permanent("p0", "Holy Strength", "Alice", "Carol", 1, {}),
               "Carol": permanent("Carol", "Grizzly Bears", "Alice", None, 2, {})}
    engine = Engine(BOOK, Game({p: Player(p) for p in PLAYERS}, PLAYERS, PLAYERS[0], objects=objects))
    assert generally(engine, "p0") == []
    assert engine.statics.compute("p0") == []
    assert gifts_of(engine.statics.direct, engine, ["p0"], engine.statics.compute) == [("p0", [], None, ())]


@SETTINGS
@given(games())
def test_the_first_refresh_gives_every_object_what_its_sources_give(game):
    """613: after the first refresh each object is given, source by source in game order
    (timestamp order on these boards), what the sources' abilities evaluated give it, read
    object by object (the anchored sources worked out as what they name is read) and, once
    every object is read, in the tables."""
    engine = Engine(BOOK, game)
    engine.statics.refresh()
    expected: dict[str, list] = defaultdict(list)
    for src in game.objects:
        for target, c in generally(engine, src):
            expected[target].append((src, c))
    for oid in game.objects:  # (read one by one: what anchored sources give worked out as each is read)
        seen = [c for src, c in expected.get(oid, []) if engine.visible(src)]
        assert list(engine.statics.of(oid)) == seen, oid
    assert engine.statics.read_all() == dict(expected)


def tables(statics) -> tuple:
    """What a `Statics` has worked out: by source, what each reaches, by target (no empty
    entries), merged per target."""
    return (statics.by_source, statics.reached, {t: per for t, per in statics.by_target.items() if per},
            statics.merged)


@SETTINGS
@given(games(), st.integers(0, 12))
def test_the_first_look_leaves_what_working_every_source_out_again_leaves(game, budget):
    """A new engine's first refresh (`Statics.first_look`, every source new; the anchored ones
    worked out in advance left to work out when what they name is read) counts the same
    selection budget as working each source out and comparing it with nothing
    (`Statics.look_again`) and, over budget, fails with the same error and keeps nothing;
    once every object is read (which counts nothing more), the tables of what static
    abilities give (604.1, 613) are the same."""
    fresh, again = Engine(BOOK, game), Engine(BOOK, game)
    sources = fresh.statics.in_game_order(fresh.statics.every_source())  # (met in the order `refresh` meets them)
    results = []
    assert fresh.statics.stale is None  # (every source to work out)
    again.statics.stale = set()  # (as `refresh` leaves it before it works them out)
    for engine, work_out in ((fresh, fresh.statics.refresh), (again, lambda: again.statics.look_again(sources))):
        engine.iterations_left = budget
        try:
            work_out()
            results.append(("kept", engine.iterations_left))
        except Exception as error:  # (RulesError: over the iterations budget)
            results.append((str(error), engine.iterations_left))
    assert results[0] == results[1]
    if results[0][0] == "kept":
        fresh.statics.read_all()
        assert fresh.iterations_left == again.iterations_left  # (reading counts nothing)
        assert tables(fresh.statics) == tables(again.statics)
        assert not fresh.statics.unread
    else:
        assert tables(fresh.statics) == tables(again.statics) == ({}, {}, {}, {}), "over budget: nothing kept"
        assert not fresh.statics.unread and not fresh.statics.unworked
    assert fresh.dirty == again.dirty


@SETTINGS
@given(games())
def test_sources_left_to_work_out_are_the_anchored_ones_on_the_battlefield(game):
    """The first look leaves unworked exactly the sources on the battlefield whose every
    static ability gives fixed things to the object its `attached_to` names, and marks
    unread exactly the objects (or names) they name; reading an object works out its own
    and no other, and each object then reads what its sources give it (613)."""
    engine = Engine(BOOK, game)
    engine.statics.refresh()
    statics, objects = engine.statics, game.objects
    anchored = {src for src, o in objects.items() if o.zone == "battlefield" and statics.direct.get(o.card) is not None
                and all(g.attr == "attached_to" for g in statics.direct[o.card])}
    assert statics.unworked == anchored
    assert statics.unread == {objects[src].attached_to for src in anchored if isinstance(objects[src].attached_to, str)}
    for oid in sorted(statics.unread & objects.keys()):
        mine = {src for src in statics.unworked if objects[src].attached_to == oid}
        before = set(statics.unworked)
        statics.of(oid)
        assert before - statics.unworked == mine and oid not in statics.unread
        assert statics.merged.get(oid) is not UNWORKED


@SETTINGS
@given(games())
def test_indexes_built_in_one_pass_are_the_sets_adding_each_id_in_turn_makes(game):
    """`Indexes._build` lists each value's ids and makes each list a set at once: every set it
    makes is, down to the order it is iterated in, the one that adding each id in game order
    makes (for a field and a written status, id by id; for types and keywords, each whole
    value's ids so, then gathered by element), so that nothing that walks an index can tell
    the one pass from building them id by id."""
    engine = Engine(BOOK, game)
    indexes = Indexes(game, engine.defaults)
    indexes._build()
    expected: dict[str, dict] = defaultdict(lambda: defaultdict(set))
    groups: dict[str, dict] = defaultdict(dict)
    for oid, o in game.objects.items():
        for name in FIELDS:
            expected[name][getattr(o, name)].add(oid)
        for name, value in o.statuses.items():
            if name in engine.defaults and value != engine.defaults[name]:
                expected[name][value].add(oid)
        for name in ("types", "keywords"):
            groups[name].setdefault(getattr(o, name), set()).add(oid)
    for name, by_whole in groups.items():
        for several, ids in by_whole.items():
            for value in several:
                expected[name][value] |= ids
    built = [(name, value, list(ids)) for name, table in indexes.by.items() for value, ids in table.items() if ids]
    assert sorted(built, key=repr) == sorted(((name, value, list(ids)) for name, table in expected.items()
                                              for value, ids in table.items()), key=repr)
    for name in FIELDS:  # (each field's values in the order first met, as adding id by id meets them)
        assert list(indexes.by[name]) == list(expected[name])


@SETTINGS
@given(games())
def test_indexes_built_attribute_by_attribute_hold_what_each_object_gives(game):
    """The indexes built one attribute at a time hold, for each attribute and value, the
    objects that indexing each object in turn puts there (statuses written back to their
    defaults are not indexed; types and keywords are gathered by whole type line); sorting
    keeps the game's order."""
    engine = Engine(BOOK, game)
    expected: dict[str, dict] = defaultdict(lambda: defaultdict(set))
    for oid, o in game.objects.items():
        for name, value in Indexes(game, engine.defaults)._entries(o):
            expected[name][value].add(oid)
    indexes = Indexes(game, engine.defaults)
    indexes._build()
    built = {(name, value): ids for name, table in indexes.by.items() for value, ids in table.items() if ids}
    assert built == {(name, value): ids for name, table in expected.items() for value, ids in table.items()}
    assert indexes.order == {oid: i for i, oid in enumerate(game.objects)}
    every = list(game.objects)
    for some in (set(every), set(every[::2]), frozenset(every[1:])):
        assert indexes.sort(some) == [oid for oid in every if oid in some]


@SETTINGS
@given(games())
def test_the_hidden_cache_filled_at_once_says_what_the_hide_rules_say(game):
    """702.26b: a phased-out permanent on the battlefield is treated as though it does not
    exist; the cache filled for every object at once agrees with the hide rules, object by object."""
    engine = Engine(BOOK, game)
    engine.hiding.cache_every_object()
    assert set(engine._hidden) == set(game.objects)
    for oid, o in game.objects.items():
        assert engine._hidden[oid] == engine.hiding.hidden_by_rules(oid, o), oid


@SETTINGS
@given(power=st.one_of(st.none(), st.integers(-3, 5)), toughness=st.one_of(st.none(), st.integers(-3, 5)),
       keywords=st.lists(st.sampled_from(("flying", "haste", "phasing")), max_size=2),
       contributions=st.lists(st.one_of(st.tuples(st.just("pump"), st.tuples(st.integers(-2, 3), st.integers(-2, 3))),
                                        st.tuples(st.just("grant"), st.sampled_from(("flying", "shroud")))),
                              max_size=4))
def test_characteristics_from_static_abilities_alone_are_the_general_ones(power, toughness, keywords, contributions):
    """613.4c: with no resolved effect and no counters, an object's power and toughness are
    its printed ones plus the sum of what static abilities pump (none stays none), and its
    keywords the printed ones then those granted, in order: the shortcut for that case gives
    what the general way gives (made to run by an effect that affects another object)."""
    o = Permanent("a", "Grizzly Bears", "Alice", "Alice", power=power, toughness=toughness,
                  keywords=tuple(keywords))
    elsewhere = Effect(1, "pump", frozenset({"b"}), (5, 5), "forever")
    assert characteristics(o, (), contributions) == characteristics(o, (elsewhere,), contributions)


def test_a_source_whose_adding_is_undone_is_let_go():
    """Glorious Anthem cast and resolved (608.3: a new object) gives the bear +1/+1 (613);
    once the cast is undone the anthem is no object of the game, and the next refresh lets
    go of what it gave: the tables are a fresh engine's on the game as it is again."""
    from phasing_rules.interpreter import api

    play = api.new_game("2026-09-25", permanents=[{"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    engine, store = play.engine, play.engine.store
    mark = store.mark()
    play.cast("Glorious Anthem", "Alice")
    assert engine.chars("bear")["power"] == 3
    store.undo(mark)
    assert "glorious_anthem" not in engine.game.objects
    engine.statics.refresh()
    fresh = Engine(engine.program, engine.game)
    fresh.statics.refresh()
    assert tables(engine.statics) == tables(fresh.statics) == ({}, {}, {}, {})
    assert engine.chars("bear")["power"] == 2


# Run in a fresh interpreter under a given string hashing: a board whose sources, in the game's
# order, are Holy Strength, Bonesplitter, Holy Strength, Bonesplitter and Test Banner (all
# attached to one bear), and the card the first refresh names when its budget runs out.
OVER_BUDGET = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
from test_direct_statics import BOOK, PLAYERS, permanent
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.model import Game, Player
cards = ["Grizzly Bears", "Holy Strength", "Bonesplitter", "Holy Strength", "Bonesplitter", "Test Banner"]
objects = {{f"p{{i}}": permanent(f"p{{i}}", card, "Alice", "p0" if i else None, i + 1, {{}}) for i, card in enumerate(cards)}}
for budget in (1, 2):
    engine = Engine(BOOK, Game({{p: Player(p) for p in PLAYERS}}, PLAYERS, PLAYERS[0], objects=objects))
    engine.iterations_left = budget
    try:
        engine.statics.refresh()
    except Exception as error:
        print(str(error).split(" goes over")[0])
"""


@pytest.mark.slow  # (long: in the slow selection, which .ci/run runs)
def test_a_first_refresh_over_budget_names_the_same_card_however_strings_hash():
    """The sources are worked out in the game's order, each counting the object it reaches
    against the step's selection budget: with room for one, the second source (Bonesplitter)
    goes over; with room for two, the third (Holy Strength). The same under every string
    hashing (in set order, it named whichever card the hashing put there)."""
    root = Path(__file__).resolve().parents[1]
    code = OVER_BUDGET.format(root=str(root), tests=str(root / "tests"))
    for seed in ("0", "1", "2", "3"):
        found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                               env={**os.environ, "PYTHONHASHSEED": seed})
        assert found.stdout.split("\n")[:2] == ['card "Bonesplitter"', 'card "Holy Strength"'], (seed, found.stderr)


def test_a_static_ability_that_cannot_run_names_what_is_wrong_at_run_time():
    """A static ability adds to power and toughness and grants keywords (611.3a). One the
    checker never saw (a card put in by the Python API) that sets power and toughness fails,
    when its source's gifts are worked out, with the error `phasing check` gives: the
    statement at fault and what a static ability can hold, not a claim that power and
    toughness are no characteristics."""
    import pytest
    from phasing_rules.interpreter.game.errors import RulesError

    card = parse('''card "Test Giant Curse" {
  types enchantment aura
  static: each x where this.attached_to is x: x becomes 5/5
}
''').items[0]
    book = load_version("2026-09-25").with_cards([card])
    objects = {"bear": permanent("bear", "Grizzly Bears", "Alice", attached_to=None, timestamp=1, status={}),
               "curse": Permanent(id="curse", card="Test Giant Curse", owner="Alice", controller="Alice",
                                  types=frozenset({"enchantment", "aura"}), attached_to="bear", timestamp=2)}
    engine = Engine(book, Game({p: Player(p) for p in PLAYERS}, PLAYERS, PLAYERS[0], objects=objects))
    with pytest.raises(RulesError) as caught:
        generally(engine, "curse")
    (found,) = caught.value.diagnostics
    assert found.message == ("a static ability cannot 'x becomes 5/5': it can only add to power and toughness "
                             "and grant keywords")
    assert "'X gets +N/+N' and 'X gains KEYWORD'" in found.hint
    assert found.span.line == 3 and found.span.column == 47
