"""Resolving versions and variants: extends, renumber, drop, and the limits on rule files."""

from __future__ import annotations

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter.rulebook.loading import available_variants, available_versions, load_version


def test_fifteen_versions_and_at_least_four_variants_are_shipped():
    assert available_versions() == [
        "2005-02-01", "2009-07-10", "2011-02-04", "2011-09-30", "2015-01-23", "2016-07-22", "2017-07-08", "2017-08-25",
        "2017-09-29", "2018-07-13", "2020-08-07", "2021-04-22", "2022-10-07", "2025-02-07", "2026-09-25",
    ]
    assert len(available_variants()) >= 4


@pytest.mark.parametrize("version", ["2005-02-01", "2011-02-04", "2017-07-08", "2018-07-13", "2026-09-25"])
def test_each_version_resolves_to_its_own_numbering_with_one_block_per_subrule(version):
    book = load_version(version)
    (section,) = book.version.sections
    own = sorted(r.id for r in book.rules if r.id.startswith(section.rule + ""))
    assert own == sorted(f"{section.rule}{letter}" for letter in section.letters)


def test_renumbering_carries_slugs_and_references():
    """702.26a of 2026 is 702.23a in 2011, and the untap action 502.3 of 2026 is 502.2 (CR 2011-02-04
    502.2; 502.3 only once day and night took 502.2, 2022-10-07): 502.1's untap order follows both."""
    old = load_version("2011-02-04")
    assert old.rule("untap-step-phasing").id == "702.23a"
    assert old.rule("untap-permanents").id == "502.2"
    order = [c for c in old.rule("502.1").clauses][0]
    assert order.rules == ("702.23a", "502.2")


def test_2018_has_neither_the_resolved_effects_rule_nor_phase_out_until():
    book = load_version("2018-07-13")
    assert book.rule("resolved-effects-skip") is None
    assert "phase_out_until" not in book.verbs and "phase_until" not in book.statuses


def test_variants_stack():
    book = load_version("end-step-no-indirect")
    assert book.rule("indirect-phasing") is None
    assert book.rule("702.26a").clauses[0].hook.kind == "end step"


def write_variant(tmp_path, name, extends):
    path = tmp_path / f"{name}.rules"
    path.write_text(f'variant {name} {{\n  extends {extends}\n}}\n')
    return path


def test_extends_cannot_name_a_path(tmp_path):
    """The grammar only admits a version date or a variant name after 'extends'."""
    path = write_variant(tmp_path, "escape", "../../etc/passwd")
    with pytest.raises(DiagnosticError) as err:
        load_version(str(path))
    diag = err.value.diagnostics[0]
    assert diag.message == "unexpected '.'" and (diag.span.line, diag.span.column) == (2, 11)


def test_extends_only_finds_what_is_in_the_rules_folder(tmp_path):
    (tmp_path / "sibling.rules").write_text('variant sibling {\n  extends 2026-09-25\n}\n')
    path = write_variant(tmp_path, "escape", "sibling")
    with pytest.raises(DiagnosticError) as err:
        load_version(str(path))
    diag = err.value.diagnostics[0]
    assert "not a version or variant in the rules folder" in diag.message
    assert (diag.span.path, diag.span.line, diag.span.column) == (str(path), 2, 3)  # at the extends


def test_extending_an_unknown_version_is_a_positioned_error(tmp_path):
    path = write_variant(tmp_path, "ghost", "1999-01-01")
    with pytest.raises(DiagnosticError) as err:
        load_version(str(path))
    assert (err.value.diagnostics[0].span.line, err.value.diagnostics[0].span.column) == (2, 3)  # at the extends


def test_renumber_moves_every_citation_of_what_is_inherited(tmp_path, monkeypatch):
    """A renumbered rule is renumbered wherever an inherited declaration cites it: a zone's
    citations follow `renumber` as a status's do (the status rule, 110.5 in CR 2020-08-07, is
    110.6 in CR 2018-07-13)."""
    (tmp_path / "zone-base.rules").write_text(
        'variant zone-base {\n  extends 2026-09-25\n}\n\nzone limbo keeps all cites 217.8a\n', encoding="utf-8")
    (tmp_path / "zone-moved.rules").write_text(
        'variant zone-moved {\n  extends zone-base\n  renumber 217.8 as 217.9\n  renumber 110.5 as 110.6\n}\n',
        encoding="utf-8")
    monkeypatch.setenv("PHASING_RULES_PATH", str(tmp_path))
    book = load_version("zone-moved")
    assert book.zones["limbo"].cites == ("217.9a",)
    assert book.statuses["phase"].cites == ("110.6",)


def test_the_2016_combat_sentence_of_treated_as_nonexistent_is_a_change_of_its_own():
    """CR 702.25b gained "a permanent that phases out is removed from combat" between
    2015-03-27 and 2016-07-22 (506.4 said so all along): the block's summary says so from
    2016-07-22 on and not before, so `diff` and `history` show the wording change."""
    older, newer = load_version("2015-01-23"), load_version("2016-07-22")
    [before] = [r for r in older.rules if r.slug == "treated-as-nonexistent"]
    [after] = [r for r in newer.rules if r.slug == "treated-as-nonexistent"]
    assert (before.id, after.id) == ("702.25b", "702.25b")
    assert "combat" not in before.summary and "combat" in after.summary
    assert before.clauses == after.clauses  # the same hide clause: only the wording differs
