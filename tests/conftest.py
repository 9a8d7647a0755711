"""Session-wide test setup.

The parse cache lives in a fresh temporary folder, and the repository's root is importable
(`bench`, and `tests.X` for helpers one test module shares with another), whichever test
file runs first or alone. Set before any test runs (and inherited by every subprocess a test
starts), so the suite never reads or writes the developer's real cache, and a stale or
planted entry there cannot change a result.

Two selections, one suite (the marker `slow` is registered in pyproject.toml):

- The README's test command (`pytest -n auto`; pyproject's addopts add `-m 'not slow'`)
  runs every test not marked `slow`, and runs each Hypothesis property at a tenth of the
  examples its `@settings` asks for (never below 10, nor above what it asks for): every
  property still runs, on every change, as a quick smoke check.
- The slow selection (`pytest -n auto -m slow`, which `.ci/run` runs too) runs the tests
  marked `slow` (the design models' checks, installs into fresh environments, individually
  long checks) *and every Hypothesis property again, at the full number of examples its
  `@settings` states*. A property keeps its whole strength there; nothing is skipped.

Which strength a run gets follows from its marker expression: the default run's own
(`not slow`) scales properties down; any other (`-m slow`, `-m ''`, ...) runs them at full
strength, and adds them to the `slow` selection. `PHASING_PROPERTIES=full` forces full
strength (to run one file's properties in full: `PHASING_PROPERTIES=full pytest -m '' tests/x.py`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

QUICK_SHARE = 10  # the default run plays 1/QUICK_SHARE of a property's examples...
QUICK_FLOOR = 10  # ...but never fewer than this (nor more than the property asks for)


def quick_examples(full: int) -> int:
    """How many examples the default run plays of a property that asks for `full`."""
    return min(full, max(QUICK_FLOOR, full // QUICK_SHARE))


def full_strength(config) -> bool:
    """Whether this run plays properties at full strength: it selects the tests marked
    `slow` (or `PHASING_PROPERTIES=full` says so)."""
    if os.environ.get("PHASING_PROPERTIES") == "full":
        return True
    return " ".join((config.option.markexpr or "").split()) != "not slow"


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="phasing-test-cache-")
    config._phasing_cache_dir = folder
    config._phasing_cache_previous = os.environ.get("PHASING_CACHE_DIR")
    os.environ["PHASING_CACHE_DIR"] = folder


@pytest.hookimpl(tryfirst=True)  # (before `-m` deselects: a property joins the slow selection)
def pytest_collection_modifyitems(config, items):
    full = full_strength(config)
    scaled: set[int] = set()
    for item in items:
        function = getattr(item, "function", None)
        if not getattr(function, "is_hypothesis_test", False):
            continue
        if full:
            item.add_marker(pytest.mark.slow)
        elif id(function) not in scaled:
            from hypothesis import settings

            scaled.add(id(function))
            asked = function._hypothesis_internal_use_settings
            function._hypothesis_internal_use_settings = settings(
                asked, max_examples=quick_examples(asked.max_examples))


def pytest_collection_finish(session):
    """What collection made (every test item, the scenarios and rule texts parametrising them,
    the rulebooks test modules load as they are imported) lives to the end of the run: moved
    out of the cycle collector's reach (`gc.freeze`), it is not walked again by every full
    collection the tests set off, which took a sixth of the run. Objects the tests make are
    collected as ever."""
    import gc

    gc.collect()
    gc.freeze()


def pytest_unconfigure(config):
    previous = getattr(config, "_phasing_cache_previous", None)
    if previous is None:
        os.environ.pop("PHASING_CACHE_DIR", None)
    else:
        os.environ["PHASING_CACHE_DIR"] = previous
    folder = getattr(config, "_phasing_cache_dir", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
