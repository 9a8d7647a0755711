"""bench/step_parts.py: its split of the interpreter's step is a split of that step.

The figures are times, which a test does not assert; what can go wrong is checked here: the
parts it reports must be parts of the step (the statements timed without the commits they
end in, the expansion only inside commits, both within the step), the clock must see the
untap step's statements and `as` clauses (702.26a's batch has both), nothing of the
interpreter may stay wrapped afterwards, and the script must end in the fast reference's
state on a small board.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench import step_parts  # noqa: E402
from bench.boards import build_board  # noqa: E402
from bench.engines import full_book  # noqa: E402
from phasing_rules.interpreter.engine.batches import Committer
from phasing_rules.interpreter.game.writes import Batch  # noqa: E402
from phasing_rules.interpreter.program.clauses import ClauseTables  # noqa: E402
from phasing_rules.interpreter.engine.engine import Engine  # noqa: E402

# The step-parts measurement's question is answered (issue 44): its checks run in the slow selection.
pytestmark = pytest.mark.slow


def test_the_parts_are_parts_of_the_step_and_the_wrappers_go():
    """702.26a's statement selects and writes (statements), its phase changes wake 702.26g's
    and 506.4's `as` clauses (expansion): both are seen, and together they are less than the
    step they are part of; afterwards `Engine.run`, `Committer.commit` and
    `ClauseTables.run_expander` are the interpreter's own again."""
    originals = (Engine.run, Committer.commit, ClauseTables.run_expander)
    game, book = build_board(400, 0), full_book()
    clock = step_parts.PartClock()
    with clock.installed():
        assert (Engine.run, Committer.commit, ClauseTables.run_expander) != originals
        step_parts.one_round(game, book, clock)  # (writes the rulebook's Python: not measured)
        found = step_parts.one_round(game, book, clock)
    assert (Engine.run, Committer.commit, ClauseTables.run_expander) == originals
    assert found["same"], "702.26a, g, h; 502.3; 704.5d, m, n: the interpreter ends as the fast reference does"
    assert found["statements"] > 0 and found["expansion"] > 0
    assert found["statements"] + found["expansion"] < found["step"]
    assert found["fast_first_check"] > 0 and found["fast"] > 0


def test_a_statement_is_timed_without_the_commit_it_ends_in():
    """A statement's time is its run less its commit: a commit made to take 50 ms (in a
    commit made inside it, as an `after` clause's batch is) adds nothing to the statements'
    time, and is counted once."""
    game, book = build_board(200, 0), full_book()
    clock = step_parts.PartClock()
    slow_commit = Committer.commit
    inner = []

    def commit(committer, batch):
        if not inner:  # (the outermost: it commits an empty batch inside, which takes the time)
            inner.append(batch)
            try:
                committer.commit(Batch())
            finally:
                inner.pop()
        else:
            time.sleep(0.05)
        return slow_commit(committer, batch)

    Committer.commit = commit
    try:
        with clock.installed():
            engine = Engine(book, game.copy())
            engine.settle()
            clock.reset()
            t0 = time.perf_counter()
            engine.run_hook("untap step", game.active)
            step = time.perf_counter() - t0
    finally:
        Committer.commit = slow_commit
    assert clock.commits >= 0.05 * 3, "702.26a's, 702.26n's and 502.3's statements each end in a commit"
    assert clock.commits < step, "a commit inside a commit is counted within the outer one only"
    assert 0 <= clock.spent["statements"] < step - clock.commits + 0.01


def test_the_script_runs_and_agrees_with_the_fast_reference(capsys):
    assert step_parts.main(["step_parts.py", "300", "2"]) == 0
    out = capsys.readouterr().out
    assert "statements" in out and "`as` expansion" in out and "same state every round: True" in out
