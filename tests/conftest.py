"""Session-wide test setup: the parse cache lives in a fresh temporary folder, and the
repository's root is importable (`bench`, and `tests.X` for helpers one test module shares
with another), whichever test file runs first or alone.

Set before any test runs (and inherited by every subprocess a test starts), so the suite
never reads or writes the developer's real cache, and a stale or planted entry there cannot
change a result.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="phasing-test-cache-")
    config._phasing_cache_dir = folder
    config._phasing_cache_previous = os.environ.get("PHASING_CACHE_DIR")
    os.environ["PHASING_CACHE_DIR"] = folder


def pytest_unconfigure(config):
    previous = getattr(config, "_phasing_cache_previous", None)
    if previous is None:
        os.environ.pop("PHASING_CACHE_DIR", None)
    else:
        os.environ["PHASING_CACHE_DIR"] = previous
    folder = getattr(config, "_phasing_cache_dir", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
