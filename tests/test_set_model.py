"""bench/set_model.py, the measured design of set-at-a-time batches, does the same rules.

The set model is only a measurement of a design if it ends where the rules say: on the
boards of `test_reference_differential` (chains of Auras and Equipment, phasing creatures, a
Curse on a player, tokens, permanents phased out under players other than their
controller) it must leave every object as bench/fast_reference.py does after the setup's
state check, after one untap step (702.26a, g, h; 502.3; then 704.5m, 704.5n, 704.5d) and
after several in a row (its indexes are kept from step to step); and walking its journal
back must give the board it started from, which is what the engine's undo is to do.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench import set_model  # noqa: E402
from bench.fast_reference import Board  # noqa: E402
from tests.test_reference_differential import board_text, boards  # noqa: E402

# The set model's design question is answered (issue 44): its checks run in the slow selection.
pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def settled(game):
    store = set_model.Store(game)
    set_model.state_checks(store, set(store.objects.values()))
    fast = Board.from_game(game)
    fast.settle()
    return store, fast


@SETTINGS
@given(board=boards(), data=st.data())
def test_untap_steps_end_as_the_fast_reference_does(board, data):
    game, _ = board
    note(board_text(game))
    store, fast = settled(game)
    assert set_model.observed(store) == fast.observed(), "the setup's state check (704.5m, 704.5n, 704.5d)"
    for _ in range(data.draw(st.integers(1, 4), label="steps")):
        player = data.draw(st.sampled_from(list(game.order)), label="active player")
        set_model.untap_step(store, player)
        fast.untap_step(player)
        assert set_model.observed(store) == fast.observed(), f"{player}'s untap step (702.26a, g, h; 502.3; 704.5)"


@SETTINGS
@given(board=boards())
def test_walking_the_journal_back_gives_the_starting_board(board):
    game, active = board
    start = set_model.observed(set_model.Store(game))
    store, _fast = settled(game)
    set_model.untap_step(store, active)
    store.undo(0)
    assert set_model.observed(store) == start
    assert not store.journal
