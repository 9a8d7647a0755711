"""The bench scripts' command lines (`bench/arguments.py`): `--help` says what each takes, and
a bad argument (a board size that is no whole number above 0) is a usage error with exit
status 1, as the project's commands give it, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The scripts of the answered design models (and the fused and event models, kept as
# yardsticks) are checked in the slow selection; `instructions` in the default run too.
SCRIPTS = ("instructions",) + tuple(
    pytest.param(s, marks=pytest.mark.slow)
    for s in ("step_parts", "fused_model", "set_model", "journal_floor", "event_model", "memory_order"))


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / f"{script}.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("bad", ["abc", "0", "-3"])
def test_a_bad_board_size_is_a_usage_error(script, bad):
    found = run(script, bad)
    assert found.returncode == 1, found.stderr
    assert "usage:" in found.stderr and "invalid positive whole number value" in found.stderr
    assert "Traceback" not in found.stderr


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_says_what_the_script_takes(script):
    found = run(script, "--help")
    assert found.returncode == 0 and "permanents" in found.stdout and "Traceback" not in found.stderr


def test_the_shared_loop_run_alone_says_which_scripts_to_run():
    """bench/in_turn.py is the loop the models import, not a script: run alone, it names the
    scripts to run instead and exits with status 1, without a traceback."""
    found = run("in_turn")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert "bench/fused_model.py" in found.stderr


@pytest.mark.slow
def test_memory_order_prints_each_way_of_reading_beside_the_first():
    """bench/memory_order.py on a small board: one line per way of reading the objects, each
    with its time and how many times the first way's it is (the first is 1.0 times itself)."""
    found = run("memory_order", "200", "1")
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert lines[0] == "200 permanents, 1 rounds (medians):"
    assert len(lines) == 8 and lines[1].endswith("1.0 times the first")
    assert all(line.rstrip().endswith("times the first") for line in lines[1:])
    assert "a selection, sets of ids" in lines[6] and "a selection, sets of places" in lines[7]


@pytest.mark.slow
@pytest.mark.parametrize("n", [200, 1000])
def test_memory_order_makes_the_selection_alike_both_ways(n):
    """bench/memory_order.py's two ways of making 702.26a's selection of what phases out (the
    active player's phased-in permanents with phasing) choose the same permanents, in the
    game's order, and only such permanents (so that the times it prints compare like with
    like)."""
    sys.path.insert(0, str(ROOT))
    from bench.boards import build_board
    from bench.memory_order import selections

    game = build_board(n, 0)
    (_, with_ids), (_, with_places) = selections(game.objects, game.active)
    chosen = with_ids()
    assert chosen == with_places() and chosen == [oid for oid in game.objects if oid in set(chosen)]
    expected = [oid for oid, o in game.objects.items() if o.get_status("phase", "in") == "in"
                and "phasing" in o.keywords and o.controller == game.active]
    assert chosen == expected and chosen
