"""Summaries, notes and titles are in our own words: none shares a run of 8 consecutive words
with the Comprehensive Rules texts kept in the project's sources.

The CR texts are not part of this repository (the project ships no CR wording): they are the
extracts in `../shared/cr-history/` beside the checkout (or the folder PHASING_CR_HISTORY
names). The test needs them and is skipped only when that folder is absent, saying so; it
does not carry a list of forbidden phrases of its own, which would be CR wording in the repo
and would miss whatever it does not list. Every text there counts for every version: a
summary must not copy any CR sentence, whichever version it was written for. Each file's own
header (source, date, notes of the person who extracted it) and section markers are not CR
text and are left out.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, VARIANTS_DIR, VERSION_RE, load_version

RUN = 8  # consecutive words in common that make a copy
HISTORY = Path(os.environ.get("PHASING_CR_HISTORY") or Path(__file__).resolve().parents[2] / "shared" / "cr-history")
NOT_CR = re.compile(r"^(SOURCE:|CR effective|NOTE:|====|-- .* --$|\(no such rule)")

VERSIONS = sorted(p.name for p in RULES_ROOT.iterdir() if p.is_dir() and VERSION_RE.match(p.name))
VARIANTS = sorted(p.stem for p in VARIANTS_DIR.glob("*.rules"))


def words(text: str) -> list[str]:
    text = text.lower().translate(str.maketrans("\u2018\u2019\u201c\u201d", "''\"\""))
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text)


def runs(text: str) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + RUN]) for i in range(len(w) - RUN + 1)}


@pytest.fixture(scope="module")
def cr_runs() -> set[tuple[str, ...]]:
    if not HISTORY.is_dir():
        pytest.skip(f"the CR texts are not here ({HISTORY} is absent): nothing to compare the summaries with")
    found: set[tuple[str, ...]] = set()
    for path in sorted(HISTORY.glob("*.txt")):
        lines = path.read_text(encoding="utf-8").splitlines()
        found |= runs("\n".join(line for line in lines if not NOT_CR.match(line.strip())))
    assert found, f"no CR text found in {HISTORY}"
    return found


def copied(book, cr_runs) -> list[str]:
    texts = [(f"{r.id} {r.slug}", r.summary) for r in book.rules]
    texts += [("title", book.version.title)] + [(f"note {n + 1}", note) for n, note in enumerate(book.version.notes)]
    return [f"{book.version.id} {where}: '{' '.join(next(iter(runs(text) & cr_runs)))}'"
            for where, text in texts if text and runs(text) & cr_runs]


@pytest.mark.parametrize("name", [*VERSIONS, *VARIANTS])
def test_no_summary_note_or_title_copies_the_cr(name, cr_runs):
    assert copied(load_version(name), cr_runs) == []


def test_a_copied_sentence_is_caught(cr_runs):
    """The check does find a CR sentence: 702.26m of the current rules, and a light rewording of it."""
    sentence = "If an effect causes a player to skip their untap step, the phasing event simply doesn't occur that turn."
    assert runs(sentence) & cr_runs
    assert not runs("A skipped untap step means no phasing that turn.") & cr_runs
