"""The documentation names only files that exist, and describes the program rather than the
history of its making.

Pages: README.md, SECURITY.md and every docs/*.md.

What counts as a path: a word of inline code (`dsl/parser.py`, `python bench/run.py --json`)
or a link's target (`[api](docs/api.md#errors)`), or a word of a `$ ...` line in a console
block or of an sh block, that holds a `/` and either begins with a top-level folder of the
checkout (`interpreter/engine/`, `rules/2026-09-25/702.26.rules`) or ends in a file extension
the project uses. Not paths: URLs, home-relative (`~/my-rules`), absolute (`/dev/null`) and
`./`-relative names (files a reader makes), and placeholders (`rules/<date>/`,
`tests/scenarios/...`, `tests/test_*.py`, `DIR/NAME.rules`). A link's target is read from the
page's folder; a word of code from the checkout's root (or, failing that, the page's folder).
A path outside the checkout (`../shared/card-pool/...`) is checked only where the folder it
goes through beside the checkout is present.

History lives in the git log: a page that says "session" or cites an issue by number is an
account of earlier work, not a description of the program.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP_LEVEL = {"dsl", "interpreter", "interop", "rules", "tests", "bench", "docs", "package", ".ci"}
EXTENSIONS = {".py", ".md", ".rules", ".scenario", ".toml", ".lark", ".json", ".txt", ".cfg", ".sh"}

FENCE = re.compile(r"^```\s*([\w-]*)")
CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PLACEHOLDER_PART = re.compile(r"^[A-Z][A-Z_]*(\.[a-z]+)?$")  # NAME.rules, DIR, VERSION
STRIP = "\"'`,;:()[]{}"


def prose_and_commands(text: str) -> list[tuple[int, str, bool]]:
    """(line number, text, is a command line) for each line outside fenced blocks, and for
    the command lines inside them (`$ ...` in console blocks, every line of sh blocks)."""
    found, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            fence = None if fence is not None else (m.group(1) or "text")
            continue
        if fence is None:
            found.append((number, line, False))
        elif fence == "console" and line.startswith("$ "):
            found.append((number, line[2:], True))
        elif fence in ("sh", "shell", "bash"):
            found.append((number, line, True))
    return found


def path_like(word: str) -> str | None:
    """The path a word names, or None when it names none (see the module's doc)."""
    word = word.strip(STRIP).split("#", 1)[0]
    word = re.sub(r":\d+(:\d+)?$", "", word)  # (path:line:column)
    if "/" not in word or "://" in word or word.startswith(("~", "/", "$", "-", "./")):
        return None
    if any(mark in word for mark in ("...", "…", "<", ">", "*", "?", "|", "=", "%")):
        return None
    parts = [p for p in word.split("/") if p]
    if not parts or any(PLACEHOLDER_PART.match(p) for p in parts):
        return None
    known_top = parts[0] in TOP_LEVEL or parts[0] == ".."
    if not known_top and Path(parts[-1]).suffix not in EXTENSIONS:
        return None
    return word


def paths_named(page: Path) -> list[tuple[int, str, bool]]:
    """(line, path, is a link's target) for every path the page names."""
    found = []
    for number, line, command in prose_and_commands(page.read_text(encoding="utf-8")):
        if command:
            words = line.split()
        else:
            words = [w for span in CODE.findall(line) for w in span.split()]
            for target in LINK.findall(line):
                if "://" not in target and not target.startswith(("#", "mailto:")):
                    name = target.split("#", 1)[0]
                    if name:
                        found.append((number, name, True))
        for word in words:
            path = path_like(word)
            if path is not None:
                found.append((number, path, False))
    return found


def exists(page: Path, path: str, link: bool) -> bool | None:
    """Whether the path exists; None when it goes outside the checkout to a folder that is
    not here (nothing to check it against)."""
    bases = [page.parent] if link else [ROOT, page.parent]
    for base in bases:
        target = (base / path).resolve()
        if target.exists():
            return True
    target = (bases[0] / path).resolve()
    if not target.is_relative_to(ROOT):
        if not target.is_relative_to(ROOT.parent):
            return None
        outside = target.relative_to(ROOT.parent).parts[:1]
        if not outside or not (ROOT.parent / outside[0]).is_dir():
            return None
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page):
    missing = [f"{page.relative_to(ROOT)}:{line}: {path}"
               for line, path, link in paths_named(page) if exists(page, path, link) is False]
    assert not missing, "paths named that the checkout does not have:\n  " + "\n  ".join(missing)


def test_the_reader_of_paths_takes_paths_and_leaves_the_rest():
    """What counts as a path, on words of the kinds the pages hold."""
    for word in ("dsl/parser.py", "interpreter/engine/view.py", "rules/2026-09-25/702.26.rules",
                 "tests/scenarios/tour.scenario", "bench/run.py", "`interpreter/`,", "docs/api.md#errors",
                 "../shared/card-pool/phasing-cards.json", "dsl/parser.py:12:3"):
        assert path_like(word) is not None, word
    for word in ("https://example.org/a.py", "rules/<date>/", "tests/scenarios/...", "tests/test_*.py",
                 "DIR/NAME.rules", "~/my-rules", "/dev/null", "./draft.rules", "102/3", "and/or",
                 "phasing_rules.interpreter", "--rules-path", "x.phase"):
        assert path_like(word) is None, word


def test_the_pages_name_paths_in_code_links_and_commands(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("See `dsl/parser.py` and [the API](docs/api.md#errors), not https://x.org/a.py.\n"
                    "```console\n$ phasing run tests/scenarios/tour.scenario\nPASS (bench/run.py)\n```\n"
                    "```text\ninterpreter/ghost.py\n```\n", encoding="utf-8")
    assert [(line, path) for line, path, _ in paths_named(page)] == [
        (1, "docs/api.md"), (1, "dsl/parser.py"), (3, "tests/scenarios/tour.scenario")]


# ------------------------------------------------------------------ no history in the pages

HISTORY = [
    (re.compile(r"\bsessions?\b", re.IGNORECASE), "a work session"),
    (re.compile(r"\bissues? #?\d+", re.IGNORECASE), "an issue cited by number"),
]
DESCRIBED = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", DESCRIBED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_narrates_earlier_work(page):
    """The pages describe the program as it is; how it got there is in the git log."""
    hits = [f"{page.relative_to(ROOT)}:{number}: {what}: {line.strip()[:100]}"
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
            for pattern, what in HISTORY if pattern.search(line)]
    assert not hits, "accounts of earlier work:\n  " + "\n  ".join(hits)
