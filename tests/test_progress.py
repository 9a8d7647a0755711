"""The progress display of the long commands (issue 45, item 5): one helper,
`interpreter.progress.tracking`, drawn on stderr only when it is a terminal and never under
--json; the tools report their progress through an optional callback."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from phasing_rules.interpreter import cli
from phasing_rules.interpreter.progress import no_progress, shows_progress, tracking
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.tools import ablation, compare

TOUR = "tests/scenarios/tour.scenario"


def terminal() -> tuple[Console, io.StringIO]:
    """A console that takes itself for a terminal, writing into a string."""
    file = io.StringIO()
    return Console(force_terminal=True, file=file, width=100, color_system=None), file


def test_tracking_draws_a_bar_on_a_terminal():
    """On a terminal the bar is drawn (as rich refreshes it, and once more at the end), with
    its title, the thing at hand and the count."""
    console, file = terminal()
    with tracking(console, "ablate 2026-09-25") as progress:
        assert progress is not no_progress
        progress(1, 3)
        progress(3, 3, "702.26a untap-step-phasing")
    drawn = file.getvalue()
    assert "ablate 2026-09-25: 702.26a untap-step-phasing" in drawn and "3/3" in drawn


def test_tracking_draws_nothing_when_piped_or_disabled():
    """Piped (not a terminal), or disabled (`--json`): no bar, and the callback does nothing."""
    piped = io.StringIO()
    console = Console(file=piped)
    assert not shows_progress(console)
    with tracking(console, "test") as progress:
        progress(1, 2, "x")
    assert progress is no_progress and piped.getvalue() == ""
    console, file = terminal()
    with tracking(console, "test", enabled=False) as progress:
        progress(1, 2, "x")
    assert progress is no_progress and file.getvalue() == ""


def test_a_long_thing_at_hand_is_cut_and_control_characters_cleaned():
    """A scenario name longer than the bar has room for is cut; `clean` is applied to it."""
    console, file = terminal()
    with tracking(console, "test", clean=lambda text: text.replace("\x1b", "\\x1b")) as progress:
        progress(1, 2, "\x1b[31m" + "a" * 100)
    drawn = file.getvalue()
    assert "a" * 100 not in drawn and "..." in drawn and "\\x1b[31m" in drawn


@pytest.mark.parametrize("argv", [["ablate", "2026-09-25", TOUR],
                                  ["diff", "2011-02-04", "2026-09-25", TOUR],
                                  ["test", TOUR]])
def test_long_commands_draw_progress_on_a_terminal_stderr(argv, capsys, monkeypatch):
    """`ablate`, `diff` and `test` draw the bar on stderr when it is a terminal; their output
    (stdout) is what it was."""
    console, file = terminal()
    monkeypatch.setattr(cli, "err", console)
    assert cli.main(argv) == (1 if argv[0] == "ablate" else 0)  # (one file: not every block is load-bearing)
    assert argv[0] in file.getvalue()
    assert argv[0] not in capsys.readouterr().err  # (the real stderr had none of it)


@pytest.mark.parametrize("argv", [["ablate", "2026-09-25", TOUR, "--json"],
                                  ["diff", "2011-02-04", "2026-09-25", TOUR, "--json"],
                                  ["test", TOUR, "--json"]])
def test_no_progress_under_json(argv, capsys, monkeypatch):
    """Under --json no bar is drawn, even on a terminal; stdout is the JSON alone."""
    console, file = terminal()
    monkeypatch.setattr(cli, "err", console)
    assert cli.main(argv) == (1 if argv[0] == "ablate" else 0)
    assert file.getvalue() == ""
    json.loads(capsys.readouterr().out)


@pytest.mark.slow  # (a command in a child process: in the slow selection, which .ci/run runs)
def test_no_progress_when_stderr_is_piped(capsys):
    """The default stderr under the tests is no terminal: nothing but the output is printed."""
    assert cli.main(["diff", "2011-02-04", "2026-09-25", TOUR, "--search", "2"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.slow  # (three tools run whole: in the slow selection, which .ci/run runs)
def test_the_tools_report_progress_through_their_callback():
    """`ablate` counts blocks, `behaviour_diff` scenarios and `search_witness` games, each
    ending with all done."""
    calls = []
    ablation.ablate("2026-09-25", [TOUR], progress=lambda done, total=None, what="": calls.append((done, total)))
    blocks = len(load_version("2026-09-25").rules)
    assert calls[0] == (0, blocks) and calls[-1] == (blocks, blocks) and len(calls) == blocks + 2
    a, b = load_version("2011-02-04"), load_version("2026-09-25")
    cases = compare.load_cases([TOUR])
    seen = []
    compare.behaviour_diff(a, b, cases, progress=lambda done, total=None, what="": seen.append((done, total, what)))
    assert seen[0] == (0, len(cases), cases[0].scenario.name) and seen[-1][:2] == (len(cases), len(cases))
    games = []
    compare.search_witness(a, b, 3, progress=lambda done, total=None, what="": games.append((done, total)))
    assert games and games[0] == (1, 3) and [done for done, _ in games] == list(range(1, len(games) + 1))
