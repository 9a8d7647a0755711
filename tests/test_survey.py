"""`phasing cards POOL.json`: how much of a pool of real cards the card library can say.

The pool here is a small fixture of our own (tests/fixtures/card-pool.json): four names the
shipped library has (Breezekeeper and Time and Tide written whole, Oubliette and Ertai's
Familiar with `partial` entries) and three it does not, with invented feature labels. The
command runs in-process, as tests/test_cli.py runs the others.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from phasing_rules.dsl import ast
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.tools import survey
from phasing_rules.interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
POOL = ROOT / "tests" / "fixtures" / "card-pool.json"
SHARED_POOL = Path(os.environ.get("PHASING_CARD_POOL") or ROOT.parent / "shared" / "card-pool" / "phasing-cards.json")


@pytest.fixture(autouse=True)
def no_pool_from_the_environment(monkeypatch):
    monkeypatch.delenv("PHASING_CARD_POOL", raising=False)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def by_name(report: dict) -> dict[str, dict]:
    return {card["name"]: card for card in report["cards"]}


@pytest.fixture
def library() -> Path:
    """Survey Heron written whole (no scenario plays it), Survey Golem with two partial entries."""
    return ROOT / "tests" / "fixtures" / "survey-cards.rules"


# ------------------------------------------------------------------ against the shipped library


@pytest.mark.slow
def test_the_shipped_library_is_surveyed_card_by_card(capsys):
    """Exit 0 (a report, not a test). Breezekeeper is written, and the conformance scenarios
    that put it into play are listed and all pass; Oubliette is partial, with what it leaves
    out; a card the library lacks is not written, with its features."""
    status, out, err = run(capsys, "cards", str(POOL))
    assert status == 0, err
    assert re.search(r"Breezekeeper\s.*written", out)
    assert re.search(r"written; \d+ scenarios?, all pass", out)
    assert "the creature becomes tapped as it phases in this way" in out  # Oubliette's partial entry
    assert re.search(r"Survey Sprite\s.*not written", out)
    assert "2 written, 2 partial, 3 not written" in out


@pytest.mark.slow
def test_json_gives_every_card_its_kind_scenarios_and_the_ranking(capsys):
    """The same survey as one JSON object: every pool card with its status; a written card's
    scenarios each with whether it passed; a partial card's entries; a missing card's
    features; the counts; and the features ranked by how many cards still need them."""
    status, out, _err = run(capsys, "cards", str(POOL), "--json")
    assert status == 0
    report = json.loads(out)
    assert set(report) == {"pool", "library", "scenarios", "cards", "summary", "next"}
    assert report["library"] == ["shipped"] and len(report["scenarios"]) == 1  # (the conformance suite)
    cards = by_name(report)
    assert [c["name"] for c in report["cards"]] == [
        "Breezekeeper", "Time and Tide", "Oubliette", "Ertai's Familiar", "Survey Heron", "Survey Golem",
        "Survey Sprite"]
    breeze = cards["Breezekeeper"]
    assert breeze["status"] == "written" and breeze["partial"] == [] and breeze["tested"] is True
    assert breeze["scenarios"] and breeze["all_pass"] is True
    assert all(set(s) == {"scenario", "file", "passed"} and s["passed"] for s in breeze["scenarios"])
    assert breeze["source"] is None  # (a shipped card)
    assert cards["Time and Tide"]["status"] == "written"
    oubliette = cards["Oubliette"]
    assert oubliette["status"] == "partial"
    assert "the creature becomes tapped as it phases in this way" in oubliette["partial"]
    assert cards["Ertai's Familiar"]["status"] == "partial" and len(cards["Ertai's Familiar"]["partial"]) == 3
    sprite = cards["Survey Sprite"]
    assert sprite["status"] == "not written" and sprite["features"] == [] and sprite["scenarios"] == []
    assert cards["Survey Golem"]["features"] == ["activated ability", "upkeep cost"]
    assert report["summary"] == {"total": 7, "written": 2, "untested": 0, "partial": 2, "not written": 3}
    # Oubliette, Ertai's Familiar (partial), Survey Heron, Golem, Sprite (not written) need them;
    # Breezekeeper's flying is written, so only the Heron needs flying.
    assert report["next"][0] == {"feature": "activated ability", "cards": 3,
                                 "names": ["Ertai's Familiar", "Survey Heron", "Survey Golem"]}
    assert [(f["feature"], f["cards"]) for f in report["next"][1:]] == [
        ("enters trigger", 1), ("flying", 1), ("mill", 1), ("phases in tapped", 1), ("upkeep cost", 1)]


@pytest.mark.slow
def test_the_ranking_is_printed_as_what_to_build_next(capsys):
    status, out, _err = run(capsys, "cards", str(POOL))
    assert status == 0
    assert "What to build next" in out
    after = out.split("What to build next", 1)[1]
    assert after.index("activated ability") < after.index("enters trigger") < after.index("upkeep cost")


def test_ties_in_the_ranking_go_in_alphabetical_order_whatever_the_case_and_quotes(tmp_path):
    pool = [survey.PoolCard("Survey Sprite", ("Zebra stripes", '"can\'t phase" effects', "banding", "Coin flip"))]
    found = survey.survey(pool, {}, suite=tmp_path)
    assert [n.feature for n in found.needs()] == ["banding", '"can\'t phase" effects', "Coin flip", "Zebra stripes"]


# ------------------------------------------------------------------ against a library of one's own


def test_a_written_card_no_scenario_plays_is_written_untested(capsys, library):
    """With --only the library surveyed is the file given alone: the shipped cards are not in it."""
    status, out, _err = run(capsys, "cards", str(POOL), "--library", str(library), "--only", "--json")
    assert status == 0
    cards = by_name(json.loads(out))
    heron = cards["Survey Heron"]
    assert heron["status"] == "written" and heron["tested"] is False
    assert heron["scenarios"] == [] and heron["all_pass"] is None
    assert heron["source"] == str(library)
    # the shipped library's cards are not in this library
    assert cards["Breezekeeper"]["status"] == "not written"
    assert json.loads(out)["summary"]["untested"] == 1 and json.loads(out)["library"] == [str(library)]
    status, out, _err = run(capsys, "cards", str(POOL), "--library", str(library), "--only")
    assert re.search(r"Survey Heron\s.*written, untested", out)


def test_a_card_with_partial_entries_is_partial_and_lists_them(capsys, library):
    status, out, _err = run(capsys, "cards", str(POOL), "--library", str(library), "--only", "--json")
    golem = by_name(json.loads(out))["Survey Golem"]
    assert golem["status"] == "partial"
    assert golem["partial"] == ["its upkeep cost", "the ability that pays it"]
    status, out, _err = run(capsys, "cards", str(POOL), "--library", str(library), "--only")
    assert "its upkeep cost" in out and "the ability that pays it" in out


def test_the_pool_may_come_from_the_environment(capsys, library, monkeypatch, tmp_path):
    """PHASING_CARD_POOL names the pool when no path is given; a path given wins."""
    monkeypatch.setenv("PHASING_CARD_POOL", str(POOL))
    status, out, _err = run(capsys, "cards", "--library", str(library), "--only", "--json")
    assert status == 0 and json.loads(out)["pool"] == str(POOL)
    other = tmp_path / "other.json"
    other.write_text('[{"name": "Survey Heron", "features": []}]', encoding="utf-8")
    status, out, _err = run(capsys, "cards", str(other), "--library", str(library), "--only", "--json")
    assert status == 0 and [c["name"] for c in json.loads(out)["cards"]] == ["Survey Heron"]


# ------------------------------------------------------------------ bad input


def test_no_pool_given_is_an_error_saying_what_to_pass(capsys, monkeypatch):
    status, out, err = run(capsys, "cards")
    assert status == 1 and "Traceback" not in err
    assert "no card pool given" in err and "PHASING_CARD_POOL" in err and "POOL.json" in err
    status, out, err = run(capsys, "cards", "--json")
    assert status == 1
    assert "no card pool given" in json.loads(out)["errors"][0]["message"]
    monkeypatch.setenv("PHASING_CARD_POOL", "")  # set, but empty: as if not set
    status, out, err = run(capsys, "cards")
    assert status == 1 and "no card pool given" in err


def test_a_pool_that_is_not_json_is_an_error_at_its_position(capsys, tmp_path):
    bad = tmp_path / "pool.json"
    bad.write_text('[\n  {"name": "Breezekeeper", "features": []},\n  {"name": "Oubliette" "features": []}\n]\n',
                   encoding="utf-8")
    status, out, err = run(capsys, "cards", str(bad))
    assert status == 1 and "Traceback" not in err
    assert f"{bad}:3:24: error: the card pool is not JSON: expecting ',' delimiter" in err
    assert '{"name": "Oubliette" "features": []}' in err and "\n" + " " * 4 + " " * 23 + "^" in err
    status, out, err = run(capsys, "cards", str(bad), "--json")
    (e,) = json.loads(out)["errors"]
    assert status == 1 and (e["path"], e["line"], e["column"]) == (str(bad), 3, 24)


@pytest.mark.parametrize("text, where, words", [
    ('{"name": "Oubliette"}', (1, 1), ["a JSON list"]),
    ('[{"name": "Oubliette", "features": []},\n 7]', (2, 2), ["item 1", "an object"]),
    ('[{"features": []}]', (1, 2), ["item 0", '"name"']),
    ('[{"name": "Oubliette",\n  "features": "mill"}]', (2, 15), ["item 0", '"features"', "list of strings"]),
    ('[{"name": "Oubliette", "features": ["mill", 3]}]', (1, 45), ["item 0", '"features"', "list of strings"]),
    ('[{"name": "  ", "features": []}]', (1, 11), ["item 0", '"name"']),
    ('[{"name": "Oubliette", "features": []}, {"name": "Oubliette", "features": []}]', (1, 50), ["item 1", "Oubliette", "twice"]),
])
def test_a_pool_of_the_wrong_shape_is_an_error_naming_the_item_and_key(capsys, tmp_path, text, where, words):
    bad = tmp_path / "pool.json"
    bad.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "cards", str(bad), "--json")
    assert status == 1 and "Traceback" not in err
    (e,) = json.loads(out)["errors"]
    assert (e["line"], e["column"]) == where, e
    for word in words:
        assert word in e["message"], e


def test_a_number_too_long_to_read_is_an_error_at_the_number_in_our_words(capsys, tmp_path):
    """issue 43: a whole number of more than 4,300 digits was reported at 1:1 with Python's own
    message ("ValueError: Exceeds the limit (4300 digits) for integer string conversion"). It
    is an error at the number's line and column, saying what is wrong in the project's words."""
    bad = tmp_path / "pool.json"
    bad.write_text('[\n  {"name": "Oubliette",\n   "features": ["mill", -' + "7" * 4301 + ']}\n]\n', encoding="utf-8")
    status, out, err = run(capsys, "cards", str(bad))
    assert status == 1 and "Traceback" not in err
    assert err.startswith(f"{bad}:3:25: error: a whole number of 4,301 digits, more than the 4,300 a number may have\n"), err
    assert "Exceeds the limit" not in err and "integer string conversion" not in err
    status, out, err = run(capsys, "cards", str(bad), "--json")
    (e,) = json.loads(out)["errors"]
    assert (e["line"], e["column"]) == (3, 25) and e["hint"].startswith("a pool holds no numbers")
    bad.write_text('[{"name": "Oubliette", "features": [], "rank": ' + "7" * 4300 + '}]', encoding="utf-8")
    assert run(capsys, "cards", str(bad))[0] == 0  # (4,300 digits read, in a key a pool may have and the survey ignores)


@pytest.mark.parametrize("text, where, first", [
    ('[\n  {"name": "Breezekeeper", "features": [],\n   "name": "Oubliette"}\n]\n', (3, 4), (2, 4)),
    ('[{"name": "Oubliette", "features": ["mill"], "features": []}]', (1, 46), (1, 24)),
    ('[{"name": "Oubliette", "features": [], "notes": {"x": 1, "y": 2, "x": 3}}]', (1, 66), (1, 50)),
])
def test_a_key_given_twice_in_one_object_is_an_error_at_the_second(capsys, tmp_path, text, where, first):
    """issue 43: a key given twice in one object (the card would be "Oubliette", and the other
    name lost without a word) was taken silently, JSON keeping the last. It is an error at the
    second key, naming where the first is; in any object of the pool, even one the survey ignores."""
    bad = tmp_path / "pool.json"
    bad.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "cards", str(bad), "--json")
    assert status == 1 and "Traceback" not in err
    (e,) = json.loads(out)["errors"]
    assert (e["line"], e["column"]) == where, e
    assert "given twice" in e["message"] and f"first at line {first[0]}, column {first[1]}" in e["message"], e
    assert e["hint"] == "give each key of an object once"


def test_a_pool_nested_too_deeply_is_an_error_at_the_bracket_past_the_limit(capsys, tmp_path):
    """issue 43 ("pool JSON errors positioned at the value"): lists nested deeper than Python's
    stack were reported at 1:1; the error is at the first bracket past MAX_POOL_DEPTH."""
    bad = tmp_path / "pool.json"
    bad.write_text("[\n" + "[" * 100_000 + "]" * 100_000 + "]", encoding="utf-8")
    status, out, err = run(capsys, "cards", str(bad), "--json")
    (e,) = json.loads(out)["errors"]
    assert status == 1 and (e["line"], e["column"]) == (2, survey.MAX_POOL_DEPTH), e
    assert "nests too deeply" in e["message"]


def test_a_pool_or_library_that_cannot_be_read_is_a_one_line_error(capsys, tmp_path):
    status, out, err = run(capsys, "cards", str(tmp_path / "missing.json"))
    assert status == 1 and "Traceback" not in err and "missing.json" in err
    status, out, err = run(capsys, "cards", str(tmp_path))
    assert status == 1 and "Traceback" not in err and f"the card pool is not a file: {tmp_path}" in err
    status, out, err = run(capsys, "cards", "")  # (a usage error: an empty path is no path)
    assert status == 1 and "Traceback" not in err and "'' is not a path" in err
    status, out, err = run(capsys, "cards", str(POOL), "--library", str(tmp_path / "missing.rules"))
    assert status == 1 and "Traceback" not in err and "missing.rules" in err


def test_a_library_that_does_not_parse_is_a_positioned_error(capsys, tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('card "Survey Heron" {\n  partial\n}\n', encoding="utf-8")
    status, out, err = run(capsys, "cards", str(POOL), "--library", str(bad))
    assert status == 1 and "Traceback" not in err
    assert f"{bad}:3:1: error" in err or f"{bad}:2:" in err


def test_pool_text_that_looks_like_markup_is_printed_as_text(capsys, tmp_path):
    pool = tmp_path / "pool.json"
    pool.write_text('[{"name": "[bold]Loud[/bold] Card", "features": ["[red]x[/red]"]}]', encoding="utf-8")
    status, out, _err = run(capsys, "cards", str(pool))
    assert status == 0
    assert "[bold]Loud[/bold] Card" in out and "[red]x[/red]" in out


# ------------------------------------------------------------------ the survey's parts


def test_the_cards_a_scenario_puts_into_play_are_read_from_its_syntax_tree():
    """A card is put into play by a `permanent ... = "NAME"` line, a `cast` or `hold` step, or
    a `choose` of a triggered ability's card; a card named only in a comment or a string is not."""
    module = parse('''
scenario "uses" {
  cites 702.26a
  players Alice Bob
  # "Time and Tide" is named here only
  permanent djinn = "Breezekeeper", controller Alice
  script {
    cast "Slip Away" by Alice targeting djinn
    hold "Giant Growth" by Bob targeting djinn
    choose "Phase Warden" targeting djinn
    expect error "Oubliette"
  }
}
''', "uses.scenario")
    (scenario,) = [i for i in module.items if isinstance(i, ast.Scenario)]
    assert survey.cards_put_into_play(scenario) == {"Breezekeeper", "Slip Away", "Giant Growth", "Phase Warden"}


def test_a_failing_scenario_is_reported_as_not_all_passing(tmp_path):
    """The survey says whether the scenarios that play a written card all pass: a scenario
    whose expectation fails (a Breezekeeper never phases out on its own controller's untap
    step would break 702.26a) is counted, and the card's scenarios do not all pass."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "one.scenario").write_text('''
scenario "breezekeeper phases out in its controller's untap step (702.26a)" {
  cites 702.26a
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    next turn
    expect djinn.phase is out
  }
}

scenario "a wrong expectation: it stays phased in (702.26a says otherwise)" {
  cites 702.26a
  players Alice Bob
  turn 1 of Bob
  permanent djinn = "Breezekeeper", controller Alice
  script {
    next turn
    expect djinn.phase is in
  }
}
''', encoding="utf-8")
    pool = [survey.PoolCard("Breezekeeper", ("flying",))]
    found = survey.survey(pool, survey.shipped_library(), suite=suite)
    (card,) = found.cards
    assert card.status == "written"
    assert [(s.scenario[:12], s.passed) for s in card.scenarios] == [("breezekeeper", True), ("a wrong expe", False)]
    assert card.all_pass is False


@pytest.mark.skipif(not SHARED_POOL.is_file(), reason=f"the shared card pool is not at {SHARED_POOL}")
def test_the_librarys_partial_entries_are_in_our_own_words():
    """No `partial` entry of the shipped library shares a run of 8 words with the real card's
    text in the shared pool (the project paraphrases; it does not copy card text)."""
    def runs(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9{}]+(?:'[a-z]+)?", text.lower().replace("\u2019", "'"))
        return {tuple(words[i:i + 8]) for i in range(len(words) - 7)}

    oracle = {c["name"]: c.get("oracle_text") or "" for c in json.loads(SHARED_POOL.read_text(encoding="utf-8"))}
    library = survey.shipped_library()
    checked = 0
    for name, card in library.items():
        for entry in card.entries:
            if isinstance(entry, ast.Partial) and name in oracle:
                checked += 1
                assert not runs(entry.text) & runs(oracle[name]), (name, entry.text)
    assert checked >= 5


def test_the_shipped_library_says_what_its_pool_cards_leave_out():
    """Of the library's cards that are real phasing cards, Breezekeeper (flying, phasing: 702.26a)
    and Time and Tide (all at once) are written whole; Oubliette leaves out tapping the creature
    as it phases in, Teferi's Protection the life total lock, protection from everything and
    exiling itself, and Ertai's Familiar its mill triggers (it draws instead) and its {U} ability."""
    library = survey.shipped_library()
    partial = {name: survey.partial_entries(library[name]) for name in
               ("Breezekeeper", "Time and Tide", "Oubliette", "Teferi's Protection", "Ertai's Familiar")}
    assert partial["Breezekeeper"] == () and partial["Time and Tide"] == ()
    assert len(partial["Oubliette"]) == 1 and "tapped" in partial["Oubliette"][0]
    assert len(partial["Teferi's Protection"]) == 3
    assert any("life total" in t for t in partial["Teferi's Protection"])
    assert any("protection from everything" in t for t in partial["Teferi's Protection"])
    assert any("exiled" in t for t in partial["Teferi's Protection"])
    assert len(partial["Ertai's Familiar"]) == 3 and any("{U}" in t for t in partial["Ertai's Familiar"])
