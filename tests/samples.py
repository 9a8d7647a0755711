"""Small inputs several test files share."""

import functools
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "scenarios"


@functools.cache
def shipped_suite():
    """The shipped scenarios (`tests/scenarios`) and the problems reading them gave, read once
    per process for every test module that runs them."""
    from phasing_rules.interpreter.play.suite import collect

    return collect([SUITE])


# CR 702.26a: a permanent with phasing phases out in its controller's untap step.
GOOD_SCENARIO = """\
scenario "a phasing creature phases out in its controller's untap step" {
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    next turn
    expect djinn.phase is out
  }
}
"""
