"""State checks decided from a printed value: `codegen.Emitter.bounded`.

In the one pass of state checks (`codegen.compile_check_pass`), a comparison of a chosen
object's power or toughness is first decided from the printed value when static abilities
can only raise it (`Program.static_raises`: no `gets` of a static ability adds something
negative), no effect exists and the object has no counters: its value is then at least the
printed one (613.4c), so 704.5f's `x.toughness <= 0` is false, and 704.5g's `x.damage >=
x.toughness` false, for a printed toughness above 0 and less damage than that, without
working out what static abilities give. Here:

- `static_raises` says which characteristics static abilities only raise;
- on generated games (printed toughness from -1 to 3, damage, -1/-1 and +1/+1 counters,
  effects, Auras giving +1/+2 or -0/-2), the one pass compiled with the bound chooses what
  the one pass compiled without it chooses, check by check;
- a creature that a static ability takes to 0 toughness is put into its owner's graveyard by
  the first state check (704.5f) under a rulebook with such an ability: the bound is not used.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.dsl import ast
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.program import codegen
from phasing_rules.interpreter.engine.engine import Engine
from phasing_rules.interpreter.game.model import Effect, Game, Permanent, Player
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.rulebook.loading import load_version

CURSE = '''
card "Test Withering" {
  types enchantment aura
  static: each x where this.attached_to is x: x gets -0/-2
}
'''
BASE = load_version("2026-09-25")
CURSED = BASE.with_cards(item for item in parse(CURSE).items if isinstance(item, ast.Card))
PLAYERS = ("Alice", "Bob")


def test_static_raises_says_what_static_abilities_only_raise():
    """The card library's static abilities give +1/+1, +1/+2 and +2/+0: they only raise power
    and toughness. With an Aura giving -0/-2, toughness is no longer only raised; power is."""
    assert Program.of(BASE, "generated").static_raises == {"power", "toughness"}
    assert Program.of(CURSED, "generated").static_raises == {"power"}


@st.composite
def games(draw) -> Game:
    """Creatures with printed toughness from -1 to 3, damage, counters now and then, Auras
    (+1/+2, or -0/-2 when the rulebook has the test card) on some, and in half the games an
    effect changing one creature's toughness."""
    n = draw(st.integers(1, 10))
    objects: dict[str, Permanent] = {}
    for i in range(n):
        pid = f"c{i}"
        counters = draw(st.sampled_from(((), (), (("m1m1", 1),), (("p1p1", 1),))))
        toughness = draw(st.sampled_from((1, 2, 0, -1, 3)))
        objects[pid] = Permanent(id=pid, card="Grizzly Bears", owner="Alice", controller=draw(st.sampled_from(PLAYERS)),
                                 types=frozenset({"creature"}), power=2, toughness=toughness,
                                 damage=draw(st.integers(0, 3)), counters=counters, timestamp=i + 1)
        for j in range(draw(st.integers(0, 2))):
            aid = f"a{i}_{j}"
            card = draw(st.sampled_from(("Holy Strength", "Test Withering")))
            objects[aid] = Permanent(id=aid, card=card, owner="Alice", controller="Alice",
                                     types=frozenset({"enchantment", "aura"}), attached_to=pid,
                                     timestamp=100 + len(objects))
    effects = {}
    if draw(st.booleans()):  # (an effect lowering or raising one creature's toughness)
        target = draw(st.sampled_from([f"c{i}" for i in range(n)]))
        change = draw(st.sampled_from((-1, -2, -3, 1)))
        effects[1] = Effect(id=1, kind="pump", affected=frozenset({target}), value=(0, change), duration="end of turn")
    return Game({p: Player(p) for p in PLAYERS}, PLAYERS, PLAYERS[0], objects=objects, effects=effects)


def without_bound(book) -> Program:
    """A program of `book` whose one pass never decides a comparison from a printed value."""
    program = Program(book, Program.of(book, "generated").backend)
    program.__dict__["static_raises"] = frozenset()  # (the cached property, set before anything is compiled)
    return program


@settings(max_examples=150, deadline=None)
@given(games(), st.booleans())
def test_the_bound_chooses_what_working_every_value_out_chooses(game, cursed):
    """704.5f, 704.5g and the other checks of the one pass choose the same objects, in the
    same order, whether comparisons are first decided from printed values or not."""
    book = CURSED if cursed else BASE
    if not cursed:  # (the test card is not in the base rulebook)
        game.objects = {oid: o for oid, o in game.objects.items() if o.card != "Test Withering"}
        for o in game.objects.values():
            if o.attached_to is not None and o.attached_to not in game.objects:
                o.attached_to = None
    program = Program.of(book, "generated")
    checks = checked(program)
    bounded = codegen.compile_check_pass(program.clauses.compiler, checks)
    plain = codegen.compile_check_pass(without_bound(book).clauses.compiler, checks)
    engine = Engine(program, game)
    engine.statics.refresh()
    engine.hiding.cache_every_object()
    assert bounded(engine, game.objects) == plain(engine, game.objects)


def checked(program: Program) -> list:
    """The state checks the one pass makes: (selection, cause) each."""
    hooked = program.index.hooks.get("state check", ())
    return [(hooked[position][1].body, cause)
            for position, (local, sees_hidden, _body, cause) in enumerate(program.clauses.state_checks())
            if local and not sees_hidden]


def test_a_static_ability_that_lowers_toughness_is_not_bounded_away():
    """704.5f: a 2/1 creature under an Aura giving -0/-2 has toughness -1 and goes to its
    owner's graveyard at the first state check, though its printed toughness is 1."""
    bear = Permanent(id="bear", card="Grizzly Bears", owner="Alice", controller="Alice",
                     types=frozenset({"creature"}), power=2, toughness=1, timestamp=1)
    curse = Permanent(id="curse", card="Test Withering", owner="Alice", controller="Alice",
                      types=frozenset({"enchantment", "aura"}), attached_to="bear", timestamp=2)
    game = Game({p: Player(p) for p in PLAYERS}, PLAYERS, PLAYERS[0], objects={"bear": bear, "curse": curse})
    engine = Engine(Program.of(CURSED, "generated"), game)
    engine.settle()
    assert game.objects["bear"].zone == "graveyard"
