"""A game's first state check, made with generated Python: `StateChecks.first_choice`.

The first check of a game looks at every object. Generated Python makes each local state
check that sees no hidden object in a pass over the candidates its own selection counts
(the indexes' answer for its types, flags and keywords), one pass shared by the checks whose
selections find the same candidates (704.5f and 704.5g: the creatures); a check whose
selection no index narrows but whose condition reads the object only through one stored
field, as 800.4c's `x.controller is not visible` does, looks only at the objects whose value
of that field makes the condition hold, worked out once per value (`CheckPass.by_value`),
while no continuous effect exists. Here:

- on generated games (tokens in other zones, creatures with 0 or less toughness or lethal
  damage, Auras and Equipment on nothing, on what is gone, on a player, on a phased-out
  host or on a creature with protection, permanents controlled by a player who has left the
  game, and now and then an effect giving control of a creature to that player), the first
  check and the rounds after it leave the same trace, game and budget as each check made
  alone through its own selection;
- a pass whose candidates are many goes over every object of the game instead, in the game's
  order (`StateChecks.whole_game_share`), reading the one hide rule's status off each object
  (`codegen.ONE_HIDE_TEST`): forced always and never on the same games, the same trace, game
  and budget as each check alone;
- checks whose selections combine the same index sets combine them once in a round
  (`Selector.combining`), with the same trace, game and budget as each on its own;
- 800.4c: a permanent whose controller has left the game is exiled by the first check, and
  still is when a control effect, not what is stored, makes the player who left its
  controller.
"""

from __future__ import annotations

import contextlib


from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.program import codegen
from phasing_rules.interpreter.program.backends import GeneratedBackend
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.errors import RulesError
from phasing_rules.interpreter.game.model import Effect, Game, Permanent, Player
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.program.selection import Selector
from phasing_rules.interpreter.engine.state_checks import StateChecks
from phasing_rules.interpreter.game.trace import Cause

BOOK = load_version("2026-09-25")
# 800.4c as 2015-01-23..2017-09-29 have it, a check of what the game sees (from 2018-07-13 it
# sees phased-out permanents too)
SEEN_ONLY_800_4C = load_version("2017-09-29")
PLAYERS = ("Alice", "Bob", "Carol")
CREATURES = ("Grizzly Bears", "Breezekeeper")
ATTACHMENTS = {"Holy Strength": frozenset({"enchantment", "aura"}), "Bonesplitter": frozenset({"artifact", "equipment"})}


@st.composite
def games(draw) -> Game:
    """Creatures (some tokens, some phased out, some in a graveyard or exile, toughness from
    -1 to 3, damage, now and then protection from enchantments or artifacts), Auras and
    Equipment attached to a creature, to nothing, to an id no object has, to a player or to
    another attachment; Carol has left the game in most games, and some permanents are hers
    to control; in a third of the games an effect gives Carol control of a creature."""
    objects: dict[str, Permanent] = {}
    n = draw(st.integers(1, 8))
    for i in range(n):
        pid = f"c{i}"
        status = (("phase", "out"), ("phased_indirectly", False), ("phased_out_under", "Alice")) if draw(st.booleans()) and i % 3 == 0 else ()
        objects[pid] = Permanent(
            id=pid, card=draw(st.sampled_from(CREATURES)), owner="Alice", controller=draw(st.sampled_from(PLAYERS)),
            types=frozenset({"creature"}), power=2, toughness=draw(st.sampled_from((2, 1, 0, -1, 3))),
            damage=draw(st.integers(0, 3)), token=draw(st.booleans()),
            zone=draw(st.sampled_from(("battlefield", "battlefield", "battlefield", "graveyard", "exile"))),
            keywords=draw(st.sampled_from(((), (), ("protection_from_enchantments",), ("protection_from_artifacts",)))),
            timestamp=i + 1, status=status)
    for j in range(draw(st.integers(0, 6))):
        aid = f"a{j}"
        card = draw(st.sampled_from(sorted(ATTACHMENTS)))
        host = draw(st.sampled_from(sorted(objects) + [None, "gone", "Bob"]))
        objects[aid] = Permanent(id=aid, card=card, owner="Bob", controller=draw(st.sampled_from(PLAYERS)),
                                 types=ATTACHMENTS[card], attached_to=host, token=draw(st.booleans()),
                                 timestamp=100 + j)
    effects = {}
    if draw(st.integers(0, 2)) == 0:
        target = draw(st.sampled_from([f"c{i}" for i in range(n)]))
        effects[1] = Effect(id=1, kind="control", affected=frozenset({target}), value="Carol", duration="forever")
    players = {p: Player(p, in_game=not (p == "Carol" and draw(st.integers(0, 3)) > 0)) for p in PLAYERS}
    return Game(players, PLAYERS, PLAYERS[0], objects=objects, effects=effects)


def first_check(game: Game) -> tuple:
    """The first state check, and the rounds after it, with generated Python: the trace,
    the game and the iterations left, or the error the rules end in (two checks moving the
    same object to different zones at once, which no `prefer` settles, is one)."""
    engine = Engine(Program.of(BOOK, "generated"), game.copy())
    engine.begin_step()
    try:
        engine.settle()
    except RulesError as exc:
        return tuple(d.render() for d in exc.diagnostics)
    return [str(event) for event in engine.trace], engine.game.fingerprint(), engine.iterations_left


@settings(max_examples=200, deadline=None)
@given(games())
def test_the_first_check_chooses_what_each_check_alone_chooses(game):
    """Every state check chooses the same objects, in the same order, counting the same
    budget, whether the first check makes it in a pass over its candidates (shared, or by
    value) or through its own selection: the trace, game and iterations are the same."""
    assert first_check(game) == each_check_alone(game)


def each_check_alone(game: Game) -> tuple:
    """`first_check` with each check made through its own selection (no pass)."""
    original = GeneratedBackend.check_pass
    GeneratedBackend.check_pass = lambda self, clauses: None
    try:
        return first_check(game)
    finally:
        GeneratedBackend.check_pass = original


@settings(max_examples=150, deadline=None)
@given(games())
def test_checks_that_combine_the_same_index_sets_combine_them_once(game):
    """Within a round of state checks, checks whose selections combine the same index sets
    (704.5f's and 704.5g's creatures, less what is phased out) combine them once
    (`Selector.combining`): the first check and the rounds after it leave the same trace,
    game and budget as when each combines them itself, and a round sees what the last one
    changed."""
    original = Selector.combining
    Selector.combining = lambda self: contextlib.nullcontext()
    try:
        each_its_own = first_check(game)
    finally:
        Selector.combining = original
    assert first_check(game) == each_its_own


def test_a_later_check_of_every_object_combines_the_sets_as_they_are_then():
    """704.5f: after a first check, a 2/0 creature comes into play and everything is
    forgotten (`Engine.invalidate`: the next check looks at every object, with the same
    index sets as the first, changed in place): the creature is among the candidates and
    goes to the graveyard; what the first check combined was let go when its round ended."""
    bear = Permanent(id="bear", card="Grizzly Bears", owner="Alice", controller="Alice",
                     types=frozenset({"creature"}), power=2, toughness=2, timestamp=1)
    away = Permanent(id="away", card="Grizzly Bears", owner="Alice", controller="Alice",
                     types=frozenset({"creature"}), power=2, toughness=2, timestamp=2,
                     status=(("phase", "out"), ("phased_out_under", "Alice")))
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", objects={"bear": bear, "away": away})
    engine = Engine(Program.of(BOOK, "generated"), game)
    engine.settle()
    late = Permanent(id="late", card="Grizzly Bears", owner="Alice", controller="Alice",
                     types=frozenset({"creature"}), power=2, toughness=0, timestamp=3)
    engine.writer.put(late, Cause("script", "test"))
    engine.invalidate()
    engine.settle()
    assert game.objects["late"].zone == "graveyard" and game.objects["bear"].zone == "battlefield"


@settings(max_examples=150, deadline=None)
@given(games())
def test_a_pass_over_every_object_chooses_what_the_candidates_pass_chooses(game):
    """Whether a pass goes over its candidates or over every object of the game (in the
    game's order, the hide rule read off each object), each check chooses the same objects,
    in the same order, counting the same budget, as each check made alone through its own
    selection (702.26b: a phased-out creature with 0 toughness is not chosen by 704.5f)."""
    made, usual = {}, StateChecks.whole_game_share
    for share in (0, 2):  # (every pass over every object; none)
        StateChecks.whole_game_share = share
        try:
            made[share] = first_check(game)
        finally:
            StateChecks.whole_game_share = usual
    assert made[0] == made[2] == each_check_alone(game)


def test_a_pass_over_every_object_leaves_out_what_phased_out():
    """702.26b, 704.5f: of a board of creatures, one phased out with 0 toughness; the first
    check's pass goes over every object (the creatures are most of the board) and reads the
    hide rule off each: the phased-out creature is not chosen (the trace names it nowhere)
    and stays on the battlefield; the phased-in one with 0 toughness goes to the graveyard."""
    objects = {
        f"c{i}": Permanent(id=f"c{i}", card="Grizzly Bears", owner="Alice", controller="Alice",
                           types=frozenset({"creature"}), power=2, toughness=0 if i < 2 else 2, timestamp=i + 1,
                           status=(("phase", "out"), ("phased_out_under", "Alice")) if i == 0 else ())
        for i in range(4)}
    game = Game({p: Player(p) for p in ("Alice", "Bob")}, ("Alice", "Bob"), "Alice", objects=objects)
    engine = Engine(Program.of(BOOK, "generated"), game)
    passed = []  # (for each pass made: whether it went over every object)
    passes = engine.program.clauses.check_pass().passes
    originals = dict(passes)
    for lead, run in originals.items():
        passes[lead] = lambda eng, ids, seen=False, _run=run: passed.append(ids is eng.game.objects) or _run(eng, ids, seen)
    try:
        engine.settle()
    finally:
        passes.update(originals)
    assert True in passed  # (the creatures' pass went over every object)
    assert [game.objects[f"c{i}"].zone for i in range(4)] == ["battlefield", "graveyard", "battlefield", "battlefield"]
    assert [event.subject for event in engine.trace if event.subject == "c0"] == []  # (not chosen: not even tried)


def left_game(effect: bool, phased_out: bool = False) -> Game:
    """Alice's bear and a bear Carol, who has left the game, controls: by what is stored, or
    (`effect`) by a control effect on a bear stored as Alice's; with `phased_out`, hers
    phased out under Carol."""
    bears = {
        "mine": Permanent(id="mine", card="Grizzly Bears", owner="Alice", controller="Alice",
                          types=frozenset({"creature"}), power=2, toughness=2, timestamp=1),
        "hers": Permanent(id="hers", card="Grizzly Bears", owner="Alice", controller="Alice" if effect else "Carol",
                          types=frozenset({"creature"}), power=2, toughness=2, timestamp=2,
                          status=(("phase", "out"), ("phased_out_under", "Carol")) if phased_out else ()),
    }
    effects = ({1: Effect(id=1, kind="control", affected=frozenset({"hers"}), value="Carol", duration="forever")}
               if effect else {})
    players = {"Alice": Player("Alice"), "Carol": Player("Carol", in_game=False)}
    return Game(players, ("Alice", "Carol"), "Alice", objects=bears, effects=effects)


def test_800_4c_a_permanent_whose_controller_left_is_exiled_by_the_first_check():
    """800.4c: a permanent controlled by a player who has left the game is exiled; the first
    check finds it by its controller's value (Carol, not in the game), the other bear stays."""
    game = left_game(effect=False)
    engine = Engine(Program.of(BOOK, "generated"), game)
    assert [plan(engine) for plan in by_value(engine)] == [{"hers"}]  # (800.4c's: the objects Carol controls)
    engine.settle()
    assert (game.objects["hers"].zone, game.objects["mine"].zone) == ("exile", "battlefield")


def test_800_4c_under_a_control_effect_the_first_check_reads_the_effect():
    """800.4c: with a control effect making Carol, who has left, the bear's controller (its
    stored controller is Alice), the first check still exiles it: the objects are not
    grouped by stored controller while an effect exists."""
    game = left_game(effect=True)
    engine = Engine(Program.of(BOOK, "generated"), game)
    assert [plan(engine) for plan in by_value(engine)] == [None]  # (every object is looked at)
    engine.settle()
    assert game.objects["hers"].zone == "exile"


def by_value(engine: Engine) -> list:
    """The plans by value of the first check's passes (`CheckPass.by_value`)."""
    return [plan for plan in engine.program.clauses.check_pass().by_value.values() if plan is not None]


def selection(condition: str):
    """The `each x where CONDITION` of a one-block rule file."""
    text = f'rule 999.1a test "A test." {{\n  during state check: each x where {condition}: move x to exile\n}}\n'
    (rule,) = [item for item in parse(text).items]
    return rule.clauses[0].body


def test_a_conjunct_is_planned_by_value_only_when_it_reads_the_object_through_one_stored_field():
    """`x.controller is not visible` reads the object only through its controller (a stored
    field, every value indexed): planned by value. Reading two fields, a characteristic that
    is no stored field, or the object itself, it is not."""
    assert codegen.value_planned(selection("x.controller is not visible"))[1] == "controller"
    assert codegen.value_planned(selection("x is a creature and x.attached_to is none"))[1] == "attached_to"
    for condition in ("x.controller is x.owner", "x.toughness <= 0", "x is a creature", "x.controller is not visible or x is a creature"):
        assert codegen.value_planned(selection(condition)) is None, condition


def test_a_pass_makes_the_tests_every_check_begins_with_once_and_before_the_hide_rules():
    """704.5f and 704.5g begin with the same tests, which only read the object (on the
    battlefield, a creature): their pass makes them once, before asking the hide rules, so
    that a pass over every object asks those only of creatures; a test that calls something
    or sets a local is never moved before them (`codegen.pure_test`)."""
    engine = Engine(Program.of(BOOK, "generated"), left_game(effect=False))
    checks = engine.program.clauses.check_pass()
    sources = [run.source for run in checks.passes.values()]
    creatures = [src for src in sources if "'creature' in o.types" in src]
    assert len(creatures) == 1
    lines = [line.strip() for line in creatures[0].splitlines()]
    prefix = lines.index("if not (zone == 'battlefield' and ('creature' in o.types)):")
    assert prefix < lines.index("if not seen:  # (else each is one the game sees: `Hiding.not_hidden`)")
    assert sum(line.count("'creature' in o.types") for line in lines) == 1  # (not again per check)
    assert codegen.pure_test("zone == 'battlefield' and (('equipment' in o.types) or ('fortification' in o.types))")
    assert codegen.pure_test("(o.token) not in FALSY")
    for impure in ("is_same_stored(eng, o.attached_to, 'attached_to', False, name_3)",
                   "(isinstance((compared_4 := o.toughness), int) and compared_4 <= 0)", "eng.keywords(oid)[0]"):
        assert not codegen.pure_test(impure)


def test_800_4c_of_today_sees_phased_out_permanents_in_the_pass():
    """800.4c from 2018-07-13 on sees phased-out permanents (702.26n points it at them): Carol
    has left and her bear is phased out; the first check's pass, which takes a check that
    sees hidden objects as it takes the others (planned by value: Carol's objects), exiles
    it. Under 2017-09-29, whose 800.4c sees only what the game sees, it stays phased out."""
    for book, zone in ((BOOK, "exile"), (SEEN_ONLY_800_4C, "battlefield")):
        game = left_game(effect=False, phased_out=True)
        engine = Engine(Program.of(book, "generated"), game)
        assert [plan(engine) for plan in by_value(engine)] == [{"hers"}]
        engine.settle()
        assert (game.objects["hers"].zone, game.objects["mine"].zone) == (zone, "battlefield"), zone


def test_a_pass_of_no_checks_chooses_nothing():
    """A rulebook whose state checks none of them can make in a pass (the benchmark's rulebook
    without state-based actions) still gets its pass: one that chooses nothing."""
    engine = Engine(Program.of(BOOK, "generated"), left_game(effect=False))
    empty = codegen.compile_check_pass(engine.program.clauses.compiler, [])
    assert empty(engine, engine.game.objects) == ()
