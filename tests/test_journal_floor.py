"""bench/journal_floor.py, the fast reference with a journal of every write, does the same rules.

It is a measurement of what a journal costs only if it is the fast reference's step and
nothing else: on the boards of `test_reference_differential` it must leave every object as
bench/fast_reference.py does after one untap step (702.26a, g, h; 506.4; 502.3), journal
every attribute the step changes (an entry for each, with the value it had before the
step's first write of it), and walking its journal back must give the board it started from.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench.fast_reference import Board  # noqa: E402
from bench.journal_floor import JournaledBoard, main  # noqa: E402
from tests.test_reference_differential import board_text, boards  # noqa: E402

# The journal floor's design question is answered (issue 44): its checks run in the slow selection.
pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
OBSERVED = ("phase", "phased_indirectly", "phased_out_under", "tapped", "attached_to", "zone")


@SETTINGS
@given(board=boards())
def test_the_journaled_step_is_the_fast_reference_step_and_undoes(board):
    game, active = board
    note(board_text(game))
    plain, journaled = Board.from_game(game), JournaledBoard.from_game(game)
    plain.settle()
    journaled.settle()
    start = journaled.observed()
    plain.untap_step(active, state_based=False)
    journaled.untap_step(active, state_based=False)
    after = journaled.observed()
    assert after == plain.observed(), "the same untap step (702.26a, g, h; 502.3)"
    first_old = {}
    for o, attr, old, _new, _cause in journaled.journal:
        first_old.setdefault((o.id, attr), old)
    for oid, (was, now) in ((oid, (start[oid], after[oid])) for oid in start):
        for attr, a, b in zip(OBSERVED, was, now):
            if a != b:
                assert first_old.get((oid, attr)) == a, f"{oid}.{attr}: {a!r} -> {b!r} is journaled with its old value"
    journaled.undo()
    assert journaled.observed() == start, "walking the journal back gives the starting board"


def test_the_measurement_runs_and_checks_itself(capsys):
    assert main(["journal_floor.py", "300", "1"]) == 0
    out = capsys.readouterr().out
    assert "same state and undo: True" in out and "entries" in out
