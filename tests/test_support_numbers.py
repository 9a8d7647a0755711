"""Support rules carry each version's own numbers, as recorded in rules/support-numbers.toml.

Versions are stored as deltas from the current rules, so a support block (the untap action,
the look-back rule, the state-based actions, ...) has today's number in every older version
unless that version's delta renumbers it. The table beside the rules records, for every
shipped version, the number each support block has in that version's CR text (checked against
the texts, see the table's header). These tests fail when a version numbers a support block
otherwise than the table, has a support block or citation the table does not list, or has no
row in the table at all: the next renumbering in a new CR has to be recorded deliberately.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, VERSION_RE, Rulebook, load_version

TABLE_FILE = Path(__file__).parent.parent / "rules" / "support-numbers.toml"
TABLE: dict[str, dict[str, str]] = tomllib.loads(TABLE_FILE.read_text(encoding="utf-8"))
SHIPPED = sorted(p.name for p in RULES_ROOT.iterdir() if p.is_dir() and VERSION_RE.match(p.name))


def in_section(rule_id: str, book: Rulebook) -> bool:
    """Is `rule_id` a subrule of the version's phasing section (or the section itself)?"""
    return any(rule_id == s.rule or (rule_id.startswith(s.rule) and rule_id[len(s.rule):].isalpha())
               for s in book.version.sections)


def support_numbers(book: Rulebook) -> dict[str, str]:
    """What the table records for a version: each block outside its phasing section by slug,
    and each status, verb or zone citing a rule outside that section ("KIND NAME": its cites)."""
    found = {r.slug: r.id for r in book.rules if not in_section(r.id, book)}
    for kind, table in (("status", book.statuses), ("verb", book.verbs), ("zone", book.zones)):
        for name, decl in table.items():
            if any(not in_section(c, book) for c in decl.cites):
                found[f"{kind} {name}"] = ", ".join(decl.cites)
    return found


def test_every_shipped_version_has_a_row_and_every_row_a_version():
    assert sorted(TABLE) == SHIPPED


@pytest.mark.parametrize("version", sorted(TABLE))
def test_support_blocks_carry_the_numbers_recorded_for_their_version(version):
    book = load_version(version)
    found = support_numbers(book)
    recorded = TABLE[version]
    assert sorted(found) == sorted(recorded), f"{version}: support blocks differ from rules/support-numbers.toml"
    wrong = {slug: (found[slug], number) for slug, number in recorded.items() if found[slug] != number}
    assert not wrong, f"{version}: numbered otherwise than recorded (has, recorded): {wrong}"


@pytest.mark.parametrize("version, slug, number", [
    # CR 2011-02-04..2021-04-22: the untap action is 502.2; from 2022-10-07 day and night take 502.2.
    ("2011-02-04", "untap-permanents", "502.2"), ("2021-04-22", "untap-permanents", "502.2"),
    ("2022-10-07", "untap-permanents", "502.3"),
    # CR 2011-02-04..2016-07-22: abilities triggering on phasing out look back under 603.6d.
    ("2016-07-22", "phase-out-triggers-look-back", "603.6d"),
    ("2017-07-08", "phase-out-triggers-look-back", "603.10b"),
    # 702.25h cites 704.5n and 704.5p up to CR 2017-08-25, 704.5m and 704.5n from 2017-09-29.
    ("2017-08-25", "illegal-aura", "704.5n"), ("2017-08-25", "illegal-equipment", "704.5p"),
    ("2017-09-29", "illegal-aura", "704.5m"), ("2017-09-29", "illegal-equipment", "704.5n"),
])
def test_the_issue_16_numbers(version, slug, number):
    """The numbers issue 16 found wrong, each as its CR text has it (independent of the table)."""
    assert load_version(version).rule(slug).id == number


def test_the_status_rule_is_110_6_until_2018():
    """CR 2018-07-13 110.6 / CR 2020-08-07 110.5: a permanent's status, phased in or out among them."""
    assert load_version("2018-07-13").statuses["phase"].cites == ("110.6",)
    assert load_version("2020-08-07").statuses["phase"].cites == ("110.5",)


def test_a_version_without_a_row_fails(monkeypatch):
    """The first test really does fail for a shipped version the table lacks."""
    monkeypatch.delitem(TABLE, "2017-09-29")
    with pytest.raises(AssertionError):
        test_every_shipped_version_has_a_row_and_every_row_a_version()


def test_a_summary_names_the_same_block_by_number_in_every_version_it_is_in():
    """A summary is written once and inherited by the older versions, which may number the
    rules it mentions otherwise: a rule id in a summary must name the same block (or no block)
    in every version whose block has that summary. (CR 704.5d of 2009-07-10..2017-07-08: the
    phased-out tokens are removed by 702.23k, 702.24k or 702.25k as each version numbers it.)"""
    from phasing_rules.interpreter.rulebook.loading import available_variants
    named: dict[tuple[str, str, str], dict[str | None, list[str]]] = {}
    for version in SHIPPED + available_variants():
        book = load_version(version)
        for rule in book.rules:
            for cited in re.findall(r"\b\d{3}\.\d+[a-z]?\b", rule.summary):
                target = book.rule(cited)
                named.setdefault((rule.slug, rule.summary, cited), {}).setdefault(
                    target.slug if target else None, []).append(version)
    wrong = {key: found for key, found in named.items() if len(found) > 1}
    assert not wrong, f"a summary's rule id names different blocks in the versions it is in: {wrong}"
