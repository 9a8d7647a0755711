"""bench/instructions.py: what it counts, without valgrind.

The figures come from valgrind, which a test cannot wait for; what can go wrong without it
is checked here: that the script each count runs works for every engine (it is a string,
run in a child process), and that the goals are worked out from the right pairs of counts
(a step's instructions are those of a run with it less those of the same run without it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # (the benchmark's own scripts, run on small boards: the slow selection)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for `bench`

from bench import instructions  # noqa: E402


@pytest.mark.parametrize("engine", instructions.ENGINES + ("interpreter setup", "game indexes"))
@pytest.mark.parametrize("step", ["ready", "step"])
def test_the_counted_script_runs_for_every_engine(engine, step):
    """Each engine's child script builds a small board, gets ready and (with "step") plays its
    step or, for the interpreter's setup, makes the Engine and settles it (for the game's
    indexes, builds them)."""
    proc = subprocess.run([sys.executable, "-c", instructions.CHILD.format(root=str(instructions.ROOT)),
                           engine, "300", step], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_counted_script_ends_without_the_interpreter_s_own_ending():
    """Both runs of a count stop as soon as their work is done, without Python's finalization
    (its last cycle collection and the freeing of every object, which would count what the
    step left behind as if the step did it, and which bench/run.py's clock does not time): a
    handler registered to run at the interpreter's exit never runs."""
    script = "import atexit; atexit.register(print, 'finalized')\n" + instructions.CHILD.format(
        root=str(instructions.ROOT))
    proc = subprocess.run([sys.executable, "-c", script, "fast reference", "300", "step"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "finalized" not in proc.stdout


def test_the_goals_pair_each_step_with_its_own_run_without_it():
    """Issue 17's goals: the interpreter's step over the fast reference's at 10,000 and
    100,000, each one's 100,000 over its 10,000, and the setup at 100,000 over the step there
    (without and with the game's indexes), from counts made up so that each pairing gives its
    own answer."""
    readies = {("interpreter", 10_000): 1_000, ("interpreter", 100_000): 9_000,
               ("fast reference", 10_000): 500, ("fast reference", 100_000): 4_000,
               ("interpreter setup", 100_000): 7_000, ("game indexes", 100_000): 6_000}
    steps = {("interpreter", 10_000): 60, ("interpreter", 100_000): 720,
             ("fast reference", 10_000): 20, ("fast reference", 100_000): 160,
             ("interpreter setup", 100_000): 1_440, ("game indexes", 100_000): 720}
    asked = []

    def count(engine: str, n: int, step: bool) -> int:
        asked.append((engine, n, step))
        return readies[engine, n] + (steps[engine, n] if step else 0)

    found = instructions.goals(count)
    assert sorted(asked) == sorted((engine, n, step) for engine, n in readies for step in (True, False))
    assert found["interpreter_step_10k"] == 60 and found["fast_reference_step_10k"] == 20
    assert found["ratio_fast_10k"] == 3.0
    assert found["ratio_fast_100k"] == 4.5
    assert found["scaling_interpreter"] == 12.0 and found["scaling_fast_reference"] == 8.0
    assert found["interpreter_setup_100k"] == 1_440 and found["setup_over_step_100k"] == 2.0
    assert found["game_indexes_100k"] == 720 and found["setup_with_indexes_over_step_100k"] == 3.0

