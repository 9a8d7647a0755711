"""The conformance suite inside pytest: every scenario under every version it names.

Each scenario states its expectations and the subrules it exercises; this test only runs
them, so a failure here prints the scenario's own positioned message.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from phasing_rules.interpreter.play.suite import run_case, versions_for
from phasing_rules.interpreter.rulebook.loading import load_version
from samples import shipped_suite

CASES, PROBLEMS = shipped_suite()
SUBRULES = "a b c d e f g h i j k m n p".split()


def test_every_scenario_file_parses():
    assert not PROBLEMS, "\n".join(d.render() for d in PROBLEMS)


@pytest.mark.parametrize(
    "case,version",
    [(c, v) for c in CASES for v in versions_for(c, None)],
    ids=lambda x: x if isinstance(x, str) else f"{Path(x.path).stem}:{x.scenario.name[:60]}",
)
def test_scenario(case, version):
    outcome = run_case(case, load_version(version))
    assert outcome.passed, "\n".join(d.render() for d in outcome.failures)


def test_suite_is_large_enough_and_names_every_subrule():
    """DESIGN.md: at least 45 scenarios, and each of 702.26a-p named by one."""
    assert len(CASES) >= 45
    cited = {r for c in CASES for e in c.scenario.entries if type(e).__name__ == "ScenarioCites" for r in e.rules}
    missing = [f"702.26{letter}" for letter in SUBRULES if f"702.26{letter}" not in cited]
    assert not missing, f"no scenario cites {missing}"


def test_every_scenario_cites_a_rule():
    for case in CASES:
        cites = [e for e in case.scenario.entries if type(e).__name__ == "ScenarioCites"]
        assert cites and all(re.match(r"^\d{3}\.\d+[a-z]?$", r) for e in cites for r in e.rules), case.scenario.name
