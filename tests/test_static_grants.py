"""A card whose static ability grants a keyword costs a step nothing while no object of it is
in the game.

The shipped library has one (Teferi's Curse: the permanent it enchants has phasing), so the
rulebook's keyword tests (`x has phasing`, 702.26a) cannot take the printed keywords alone.
While no object of such a card is in the game, they still do: the index of printed keywords
answers `each x where x has phasing ...`, and reading an object's keywords works out no
static ability (an Aura that only pumps, like Holy Strength, left unworked). Once an object
of one is in the game, the index is widened to every object a static ability gives something
to, whose own test decides (tests/scenarios/card_pool.scenario plays the Curse).
"""

from __future__ import annotations

from unittest import mock

import pytest

from bench.boards import build_board
from bench.engines import full_book, observed, prepare
from phasing_rules.interpreter.program.program import Program


def step(book, game, backend):
    """The untap step of the active player: the state it ends in, and what it counted
    against its budget of iterations (objects looked at by selections)."""
    engine = prepare(book, game, backend)
    engine.settle()
    engine.run_hook("untap step", game.active)
    return observed(engine.game.objects), engine.limits.iterations - engine.iterations_left


@pytest.mark.parametrize("backend", ["closures", "generated"])
def test_a_granting_card_out_of_the_game_costs_the_step_nothing(backend):
    book = full_book()
    assert Program.of(book, backend).static_grants  # (Teferi's Curse is in the library)
    game = build_board(600)
    assert not any(o.card == "Teferi's Curse" for o in game.objects.values())
    found = step(book, game, backend)
    with mock.patch.object(Program, "static_grants", new=property(lambda self: False)):
        printed_only = step(book, game, backend)
    # the same state (702.26a, g, h; 502.3), and no more objects looked at than if no card
    # of the rulebook could grant a keyword
    assert found == printed_only

