"""`delayed triggers lose X` (interpreter/engine/delayed.py): a delayed trigger that names an object
stops reaching it, and nothing else about the delayed triggers changes. The 2005 rules use it
for 502.15g ("delayed triggered abilities that specifically reference a permanent will be
unable to further affect that permanent if it phases out")."""

from __future__ import annotations

from hypothesis import given, strategies as st

from phasing_rules.interpreter.engine.delayed import lose_reference
from phasing_rules.interpreter.game.model import DelayedTrigger, Game, Player
from phasing_rules.interpreter.game.refs import MISSING, Obj, PlayerRef

OIDS = st.sampled_from(["a", "b", "c"])
VALUES = OIDS.map(Obj) | st.sampled_from([PlayerRef("Alice"), 3, None])
BINDINGS = st.lists(st.tuples(st.sampled_from(["t", "u", "you"]), VALUES), max_size=3, unique_by=lambda kv: kv[0])
TRIGGERS = st.lists(BINDINGS.map(lambda b: DelayedTrigger("cleanup", None, tuple(b), None, "card")), max_size=4)


def game_with(delayed: list[DelayedTrigger]) -> Game:
    return Game({"Alice": Player("Alice")}, ("Alice",), "Alice", delayed=list(delayed))


@given(TRIGGERS, OIDS)
def test_losing_an_object_rebinds_only_the_names_that_referred_to_it(triggers, oid):
    game = game_with(triggers)
    changed = lose_reference(game, oid)
    assert len(game.delayed) == len(triggers)
    assert changed == any(v == Obj(oid) for d in triggers for _k, v in d.bindings)
    for before, after in zip(triggers, game.delayed):
        assert (after.hook, after.body, after.cause) == (before.hook, before.body, before.cause)
        for (k0, v0), (k1, v1) in zip(before.bindings, after.bindings):
            assert k0 == k1
            assert v1 == (MISSING if v0 == Obj(oid) else v0)


def test_a_delayed_trigger_that_lost_its_object_does_nothing_to_it_and_the_rest_still_happens():
    game = game_with([DelayedTrigger("cleanup", None, (("t", Obj("bear")), ("u", Obj("elf"))), None, "card")])
    lose_reference(game, "bear")
    assert dict(game.delayed[0].bindings) == {"t": MISSING, "u": Obj("elf")}
