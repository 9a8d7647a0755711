"""Installing puts one name into site-packages (issue 44): `phasing_rules`, with `dsl`,
`interpreter`, `interop`, `rules` and `conformance` beneath it, so installing this project
can never replace another package called `rules` or `interpreter`. Each way of installing a
user may take is tried in a fresh virtual environment: `pip install .`, `pip install -e .`,
and a built wheel; in each, `phasing --version` runs and `import phasing_rules` gives the API.

These build and install the project (a minute or more, with the dependencies fetched from
the package index or pip's cache): they are in the slow selection that `.ci/run` runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {"dsl", "interpreter", "interop", "rules", "phasing_conformance", "package", "tests"}
SKIPPED = {".git", ".venv", "venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis"}


def source_copy(tmp_path: Path) -> Path:
    """The checkout's files, copied, so builds in parallel leave the checkout and one another alone."""
    target = tmp_path / "source"
    shutil.copytree(ROOT, target, ignore=lambda _folder, names: [
        n for n in names if n in SKIPPED or n.endswith(".egg-info")])
    return target


def fresh_environment(tmp_path: Path) -> Path:
    folder = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(folder)
    return folder


def run(argv: list, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def site_packages(environment: Path) -> Path:
    return next(environment.glob("lib/python*/site-packages"))


def works(environment: Path, elsewhere: Path) -> None:
    """`phasing --version` runs and `import phasing_rules` gives the API, from a folder that is
    not the checkout (so nothing there is imported by accident)."""
    version = run([environment / "bin" / "phasing", "--version"], elsewhere)
    assert version.stdout.startswith("phasing "), version.stdout
    probe = run([environment / "bin" / "python", "-c",
                 "import phasing_rules, sys; print(phasing_rules.new_game.__module__); "
                 "print(phasing_rules.interpreter.api.default_suite().is_dir())"], elsewhere)
    assert probe.stdout.split() == ["phasing_rules.interpreter.api", "True"], probe.stdout


@pytest.mark.parametrize("editable", [False, True], ids=["pip install .", "pip install -e ."])
def test_an_install_puts_one_name_into_site_packages(tmp_path, editable):
    source, environment = source_copy(tmp_path), fresh_environment(tmp_path)
    run([environment / "bin" / "pip", "install", "--quiet", *(["-e"] if editable else []), "."], source)
    names = {p.name.split("-")[0].split(".")[0] for p in site_packages(environment).iterdir()}
    assert not names & FORBIDDEN, sorted(names & FORBIDDEN)
    if not editable:
        assert (site_packages(environment) / "phasing_rules" / "interpreter" / "engine" / "engine.py").is_file()
        assert (site_packages(environment) / "phasing_rules" / "rules" / "2026-09-25" / "702.26.rules").is_file()
        assert (site_packages(environment) / "phasing_rules" / "conformance" / "tour.scenario").is_file()
    works(environment, tmp_path)


def test_a_built_wheel_holds_one_top_level_package_and_installs(tmp_path):
    source, environment = source_copy(tmp_path), fresh_environment(tmp_path)
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp_path / "dist", "."], source)
    wheel = next((tmp_path / "dist").glob("phasing_rules-*.whl"))
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"phasing_rules"}, sorted(tops)
    run([environment / "bin" / "pip", "install", "--quiet", wheel], tmp_path)
    works(environment, tmp_path)
