"""Card libraries of your own (issue 45, item 4).

A card file of one's own (`card "NAME" { ... }` items and nothing else) given with `--cards
FILE`, or kept in a `cards/` folder of a folder of the rules path, is added to the shipped card
library for the command: `run`, `test`, `why`, `diff` (and its `--search`), `ablate`, `check`
and `cards` play its cards in scenario files that do not declare them, and the API takes the
same as `cards=`. A card of one's own may not take the name of a shipped card, nor of another
card of one's own, unless written the same; `phasing cards --only` surveys one's own cards in
place of the shipped ones. Every bad card file is an error at its place, exit 1.

The cards here are test cards of our own; each scenario's outcome is what the rules say of
them (CR 702.26a: a permanent with phasing phases out in its controller's untap step, and what
phased out under a player phases in in that player's next untap step).
"""

from __future__ import annotations

import json
import os
import pathlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, find, settings

from phasing_rules.dsl import ast
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter import api, cli
from phasing_rules.interpreter.rulebook import loading
from phasing_rules.interpreter.tools.generate import games, own_permanents

ROOT = Path(__file__).resolve().parent.parent

BEAR = """\
card "Test Phasing Bear" {
  # Test card: a 2/2 with phasing.
  types creature bear
  pt 2/2
  keywords phasing
}
"""

# CR 702.26a: the bear (phasing) phases out in Alice's untap step, and phases in in her next one.
BEAR_SCENARIO = """\
scenario "a phasing bear of a card file of one's own phases out in its controller's untap step" {
  cites 702.26a
  rules 2026-09-25
  players Alice Bob
  turn 1 of Bob
  permanent bear = "Test Phasing Bear", controller Alice
  script {
    next turn
    expect bear.phase is out
    next turn
    next turn
    expect bear.phase is in
  }
}
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def mine(tmp_path) -> tuple[Path, Path]:
    """(a card file of one's own holding the bear, a scenario file playing it without declaring it)."""
    return write(tmp_path, "my-cards.rules", BEAR), write(tmp_path, "bear.scenario", BEAR_SCENARIO)


# ------------------------------------------------------------------ each command plays them


def test_run_plays_a_card_of_ones_own_given_with_cards(capsys, mine):
    cards, scenario = mine
    status, out, _err = run(capsys, "run", scenario, "--cards", cards)
    assert status == 0 and "PASS a phasing bear" in out  # CR 702.26a: out, then back in
    # without the file, the card is unknown, and the hint says where cards can come from
    status, out, err = run(capsys, "run", scenario)
    assert status == 1 and 'unknown card "Test Phasing Bear"' in err and "--cards FILE" in err


# CR 702.26a: another player's untap step does not phase it; its controller's does.
BOBS_BEAR_SCENARIO = """\
scenario "a phasing bear of Bob's, of a card file of one's own, waits for Bob's untap step" {
  cites 702.26a
  rules 2026-09-25
  players Alice Bob
  turn 1 of Bob
  permanent bear = "Test Phasing Bear", controller Bob
  script {
    next turn
    expect bear.phase is in
    next turn
    expect bear.phase is out
  }
}
"""


def test_test_plays_one_card_file_in_several_scenario_files(capsys, tmp_path, mine):
    cards, _scenario = mine
    write(tmp_path, "suite/alice.scenario", BEAR_SCENARIO)
    write(tmp_path, "suite/bob.scenario", BOBS_BEAR_SCENARIO)
    status, out, _err = run(capsys, "test", tmp_path / "suite", "--cards", cards)
    assert status == 0 and "2 passed, 0 failed" in out
    status, out, _err = run(capsys, "test", tmp_path / "suite", "--cards", cards, "--json")
    assert status == 0 and json.loads(out)["passed"] == 2


def test_why_explains_a_card_of_ones_own(capsys, mine):
    cards, scenario = mine
    status, out, _err = run(capsys, "why", scenario, "bear", "--at", 1, "--cards", cards)
    assert status == 0
    assert "step 1, event 1: phase: in -> out, by 702.26a untap-step-phasing" in out  # CR 702.26a


def test_diff_compares_scenarios_that_play_a_card_of_ones_own(capsys, mine):
    """end-step-phasing moves 702.26a's phasing to its controller's end step: the bear phases out
    as Alice's first turn ends and is still out when the scenario ends, in her next turn; under
    2026-09-25 (CR 702.26a) it went out in her first untap step and is back in by then."""
    cards, scenario = mine
    status, out, _err = run(capsys, "diff", "2026-09-25", "end-step-phasing", scenario, "--cards", cards, "--json")
    assert status == 0
    (changed,) = json.loads(out)["scenarios"]
    assert changed["scenario"].startswith("a phasing bear") and json.loads(out)["compared"] == 1
    assert ["bear.phase", "in", "out"] in [[d["what"], d["a"], d["b"]] for d in changed["differences"]]
    assert changed["accounted_by"] == ["untap-step-phasing"]


def test_diff_search_draws_permanents_of_ones_own_cards():
    """`diff --search` boards hold your permanents (not an Aura or an Equipment, which need a host)."""
    (bear,) = parse(BEAR, "mine.rules").items
    (aura,) = parse('card "Test Aura" {\n  types enchantment aura\n}\n', "mine.rules").items
    own = own_permanents([bear, aura])
    assert own == (("Test Phasing Bear",), ())
    game = find(games(own), lambda g: any(card == "Test Phasing Bear" for _n, card, _p in g[1]),
                settings=settings(max_examples=200, database=None, derandomize=True,
                                  suppress_health_check=list(HealthCheck)))
    assert any(card == "Test Phasing Bear" for _n, card, _p in game[1])


def test_diff_search_is_given_the_cards_of_ones_own(capsys, monkeypatch, mine):
    """`diff --search --cards FILE` hands the generator the permanents of FILE (two copies of one
    rulebook never differ, so one game is enough to see what it was given)."""
    from phasing_rules.interpreter.tools import generate

    cards, scenario = mine
    given = []
    real = generate.games

    def watching(own=((), ())):
        given.append(own)
        return real(own)

    monkeypatch.setattr(generate, "games", watching)
    status, out, _err = run(capsys, "diff", "2026-09-25", "2026-09-25", scenario, "--cards", cards, "--search", 1)
    assert status == 0 and "no behavioural difference found in 1 generated games" in out
    assert given == [(("Test Phasing Bear",), ())]


def test_ablate_reruns_scenarios_that_play_a_card_of_ones_own(capsys, mine):
    """Without 702.26a the bear never phases out: the block is load-bearing for this scenario."""
    cards, scenario = mine
    status, out, _err = run(capsys, "ablate", "2026-09-25", scenario, "--cards", cards, "--json")
    assert status == 1  # (one scenario leaves most blocks not load-bearing)
    block = next(b for b in json.loads(out)["blocks"] if b["slug"] == "untap-step-phasing")
    assert len(block["changed"]) == 1 and "a phasing bear" in block["changed"][0]


def test_check_checks_scenarios_against_cards_of_ones_own(capsys, mine):
    cards, scenario = mine
    status, out, _err = run(capsys, "check", scenario, "--cards", cards)
    assert status == 0 and "no problems found" in out
    status, _out, err = run(capsys, "check", scenario)
    assert status == 1 and 'unknown card "Test Phasing Bear"' in err


def test_cards_surveys_ones_own_cards_beside_the_shipped_ones_with_ones_own_scenarios(capsys, tmp_path, mine):
    cards, scenario = mine
    pool = write(tmp_path, "pool.json", '[{"name": "Test Phasing Bear", "features": ["phasing"]},'
                                        ' {"name": "Raging Goblin", "features": ["haste"]}]')
    status, out, _err = run(capsys, "cards", pool, "--cards", cards, "--scenarios", scenario, "--json")
    assert status == 0
    report = json.loads(out)
    assert report["library"] == ["shipped", str(cards)] and report["scenarios"][-1] == str(scenario)
    bear, goblin = report["cards"]
    assert bear["status"] == "written" and bear["source"] == str(cards)
    assert [(s["file"], s["passed"]) for s in bear["scenarios"]] == [(str(scenario), True)]  # CR 702.26a holds
    assert goblin["status"] == "written" and goblin["source"] is None  # (the shipped library is still there)
    status, out, _err = run(capsys, "cards", pool, "--library", cards, "--scenarios", scenario)
    assert status == 0 and f"from {cards}" in out and "1 scenario, all pass" in out
    # without --scenarios, no scenario plays the card: written, untested
    status, out, _err = run(capsys, "cards", pool, "--cards", cards, "--json")
    assert json.loads(out)["cards"][0]["tested"] is False


def test_cards_only_surveys_ones_own_cards_which_may_replace_shipped_ones(capsys, tmp_path):
    """With --only, a card of one's own may take a shipped card's name and stands in for it in
    the scenarios played. This Raging Goblin has phasing (the shipped one has only haste): it
    phases out in its controller's untap step (CR 702.26a)."""
    goblin = write(tmp_path, "goblins.rules", 'card "Raging Goblin" {\n  types creature goblin\n  pt 1/1\n'
                                              '  keywords haste, phasing\n}\n')
    scenario = write(tmp_path, "goblin.scenario", BEAR_SCENARIO.replace("Test Phasing Bear", "Raging Goblin"))
    pool = write(tmp_path, "pool.json", '[{"name": "Raging Goblin", "features": []}, {"name": "Breezekeeper", '
                                        '"features": []}]')
    status, out, _err = run(capsys, "cards", pool, "--cards", goblin, "--only", "--scenarios", scenario, "--json")
    assert status == 0
    report = json.loads(out)
    mine_, shipped = report["cards"]
    assert report["library"] == [str(goblin)]
    assert mine_["source"] == str(goblin) and [s["passed"] for s in mine_["scenarios"]] == [True]
    assert shipped["status"] == "not written"  # (the shipped Breezekeeper is not surveyed)
    # without --only the same file is a clash with the shipped Raging Goblin
    status, _out, err = run(capsys, "cards", pool, "--cards", goblin, "--scenarios", scenario)
    assert status == 1 and "card 'Raging Goblin' is already a shipped card, written otherwise" in err
    # and --only with no card of one's own says so
    status, _out, err = run(capsys, "cards", pool, "--only")
    assert status == 1 and "--only surveys your own cards, and none were given" in err


# ------------------------------------------------------------------ the rules path's cards/ folder


def test_a_cards_folder_on_the_rules_path_is_found_by_every_command(capsys, tmp_path, monkeypatch, mine):
    _cards, scenario = mine
    write(tmp_path, "my-rules/cards/bears.rules", BEAR)
    status, out, _err = run(capsys, "test", scenario, "--rules-path", tmp_path / "my-rules")
    assert status == 0 and "1 passed, 0 failed" in out
    status, out, _err = run(capsys, "check", scenario, tmp_path / "my-rules", "--rules-path", tmp_path / "my-rules")
    assert status == 0 and "no problems found" in out
    monkeypatch.setenv("PHASING_RULES_PATH", str(tmp_path / "my-rules"))
    status, out, _err = run(capsys, "run", scenario)
    assert status == 0 and "PASS a phasing bear" in out
    [outcome] = api.run_file(scenario)
    assert outcome.passed
    # the same file given again with --cards is read once: no clash with itself
    status, out, _err = run(capsys, "run", scenario, "--cards", tmp_path / "my-rules" / "cards" / "bears.rules")
    assert status == 0


def test_the_cards_folders_are_listed_once_per_command(capsys, tmp_path, monkeypatch):
    """`one_listing()` keeps the listing of the cards/ folders: a command that runs many
    scenarios lists each once, where every load would otherwise list it again."""
    write(tmp_path, "my-rules/cards/bears.rules", BEAR)
    for n in range(3):
        write(tmp_path, f"suite/bear{n}.scenario", BEAR_SCENARIO.replace("a phasing bear", f"a phasing bear ({n})"))
    listed: list[str] = []
    names = loading._names

    def counting(folder):
        if Path(folder).name == "cards":
            listed.append(str(folder))
        return names(folder)

    monkeypatch.setattr(loading, "_names", counting)
    monkeypatch.setenv("PHASING_RULES_PATH", str(tmp_path / "my-rules"))
    loading.user_card_sources()
    loading.user_card_sources()
    assert len(listed) == 2  # (outside a listing: each time)
    listed.clear()
    status, out, _err = run(capsys, "test", tmp_path / "suite")
    assert status == 0 and "3 passed" in out
    assert len(listed) == 1, listed


# ------------------------------------------------------------------ the names


def test_a_card_with_a_shipped_cards_name_is_an_error_at_its_name(capsys, tmp_path, mine):
    _cards, scenario = mine
    clash = write(tmp_path, "clash.rules", '# my bears\ncard "Grizzly Bears" {\n  types creature bear\n  pt 3/3\n}\n')
    status, _out, err = run(capsys, "run", scenario, "--cards", clash)
    assert status == 1
    assert f"{clash}:2:7: error: card 'Grizzly Bears' is already a shipped card, written otherwise" in err
    assert '    card "Grizzly Bears" {\n          ^^^^^^^^^^^^^\n' in err
    assert "hint: give yours a name of its own" in err
    assert "library.rules:4:1: a shipped card 'Grizzly Bears' is written here" in err
    # a copy written the same is no clash (a file of the shipped card, as it is)
    copy = write(tmp_path, "copy.rules", 'card "Grizzly Bears" {\n  types creature bear\n  pt 2/2\n}\n')
    status, _out, _err = run(capsys, "run", scenario, "--cards", copy, "--cards", mine[0])
    assert status == 0


def test_two_card_files_of_ones_own_with_one_name_written_otherwise_is_an_error_at_the_second(capsys, tmp_path, mine):
    cards, scenario = mine
    other = write(tmp_path, "other.rules", BEAR.replace("pt 2/2", "pt 3/3"))
    status, _out, err = run(capsys, "test", scenario, "--cards", cards, "--cards", other)
    assert status == 1
    assert f"{other}:1:7: error: card 'Test Phasing Bear' is already a card of your own, written otherwise" in err
    assert f"note: {cards}:1:1: a card of your own 'Test Phasing Bear' is written here" in err
    assert "hint: keep one of the two" in err
    status, _out, err = run(capsys, "test", scenario, "--cards", other, "--cards", cards)  # (the later one)
    assert status == 1 and f"{cards}:1:7: error" in err
    # within one file too
    both = write(tmp_path, "both.rules", BEAR + "\n" + BEAR.replace("pt 2/2", "pt 4/4"))
    status, _out, err = run(capsys, "test", scenario, "--cards", both)
    assert status == 1 and f"{both}:8:7: error: card 'Test Phasing Bear' is already a card of your own" in err
    # the same written the same, in two files, or one file given twice, is fine
    copy = write(tmp_path, "copy.rules", BEAR)
    status, out, _err = run(capsys, "test", scenario, "--cards", cards, "--cards", copy, "--cards", cards)
    assert status == 0 and "1 passed" in out


def test_a_scenario_files_own_card_stands_in_for_a_library_card_in_that_file(capsys, tmp_path, mine):
    """As before: a card a scenario file declares is that file's. Here its bear has no phasing,
    so Alice's untap step leaves it phased in (CR 702.26a phases only permanents with phasing)."""
    cards, _scenario = mine
    own = BEAR.replace("  keywords phasing\n", "") + BEAR_SCENARIO.replace(
        "    next turn\n    expect bear.phase is out\n", "    next turn\n    expect bear.phase is in\n")
    scenario = write(tmp_path, "own.scenario", own)
    status, out, _err = run(capsys, "test", scenario, "--cards", cards)
    assert status == 0 and "1 passed" in out


# ------------------------------------------------------------------ bad input


def test_a_card_file_that_is_not_there_or_not_a_file_is_an_error_naming_it(capsys, tmp_path, mine):
    _cards, scenario = mine
    status, _out, err = run(capsys, "run", scenario, "--cards", tmp_path / "missing.rules")
    assert status == 1 and f"{tmp_path / 'missing.rules'}: error: no such card file" in err and "(from --cards)" in err
    status, _out, err = run(capsys, "test", scenario, "--cards", tmp_path)
    assert status == 1 and f"not a card file: {tmp_path} is a folder" in err and "cards/ folder" in err
    if hasattr(os, "mkfifo"):  # (reading a pipe may never end: it is refused before)
        os.mkfifo(tmp_path / "pipe.rules")
        status, _out, err = run(capsys, "why", scenario, "bear", "--cards", tmp_path / "pipe.rules")
        assert status == 1 and "is not a regular file" in err


def test_a_card_file_that_cannot_be_read_is_an_error_at_it(capsys, tmp_path, monkeypatch, mine):
    _cards, scenario = mine
    locked = write(tmp_path, "locked.rules", BEAR)
    real_bytes, real_text = pathlib.Path.read_bytes, pathlib.Path.read_text

    def refuse(method):
        def read(self, *args, **kwargs):
            if self.name == "locked.rules":
                raise PermissionError(13, "Permission denied", str(self))
            return method(self, *args, **kwargs)
        return read

    monkeypatch.setattr(pathlib.Path, "read_bytes", refuse(real_bytes))
    monkeypatch.setattr(pathlib.Path, "read_text", refuse(real_text))
    status, _out, err = run(capsys, "run", scenario, "--cards", locked)
    assert status == 1 and f"{locked}: error: cannot read file: Permission denied" in err


def test_a_card_file_that_does_not_parse_is_a_positioned_error(capsys, tmp_path, mine):
    _cards, scenario = mine
    bad = write(tmp_path, "bad.rules", 'card "Broken" {\n  types creature\n  pt 2/\n}\n')
    status, _out, err = run(capsys, "diff", "2026-09-25", "end-step-phasing", scenario, "--cards", bad)
    assert status == 1 and f"{bad}:4:1: error: unexpected '}}'" in err and "^" in err and "hint:" in err
    latin = tmp_path / "latin.rules"
    latin.write_bytes(b'card "Caf\xe9" {\n  types creature\n}\n')
    status, _out, err = run(capsys, "run", scenario, "--cards", latin)
    assert status == 1 and f"{latin}:1:10: error: this file is not UTF-8 text" in err


def test_a_card_file_holding_something_else_than_cards_is_an_error_at_each_other_thing(capsys, tmp_path, mine):
    cards, scenario = mine
    status, _out, err = run(capsys, "test", scenario, "--cards", scenario)
    assert status == 1 and f"{scenario}:1:1: error: a card file holds only cards: this is a scenario" in err
    rule = write(tmp_path, "rule.rules", BEAR + 'rule 999.1 mine "A block." {\n  during state check: each x where x.tapped: untap x\n}\n')
    status, _out, err = run(capsys, "ablate", "2026-09-25", scenario, "--cards", rule)
    assert status == 1 and f"{rule}:7:1: error: a card file holds only cards: this is a rule block" in err
    empty = write(tmp_path, "empty.rules", "# nothing yet\n")
    status, _out, err = run(capsys, "cards", ROOT / "tests" / "fixtures" / "card-pool.json", "--cards", empty)
    assert status == 1 and f"{empty}: error: no card in {empty} (from --cards)" in err


def test_a_card_the_checker_rejects_is_a_positioned_error_before_anything_plays(capsys, tmp_path, mine):
    _cards, scenario = mine
    unfit = write(tmp_path, "unfit.rules", BEAR + 'card "Test Odd Wall" {\n  types creature wall\n  pt 0/4\n'
                                                  "  static: each x where x.nosuch is 1: x gets +1/+1\n}\n")
    status, out, err = run(capsys, "run", scenario, "--cards", unfit, "--json")
    assert status == 1 and f"{unfit}:10:24: error: unknown attribute 'nosuch'" in err
    (error,) = json.loads(out)["errors"]
    assert (error["path"], error["line"], error["column"]) == (str(unfit), 10, 24)
    status, out, err = run(capsys, "check", scenario, "--cards", unfit)
    assert status == 1 and "1 error(s)" in err


def test_a_card_in_an_older_versions_words_is_taken_and_plays_under_that_version(capsys, tmp_path):
    """In 2005 phasing out moves a permanent to the phased-out zone (502.15b); a card that
    brings back every card there fits 2005's words only, and does what 502.15 says (the
    expectations read 2005's `observe phase`: in the phased-out zone is phased out)."""
    old = write(tmp_path, "old.rules", 'card "Test Old Tide" {\n  types sorcery\n'
                                       "  spell: each object x where x.zone is phased_out: phase_in x\n}\n")
    scenario = write(tmp_path, "old.scenario", """\
scenario "in 2005 a card of one's own brings back what phased out" {
  cites 502.15b
  rules 2005-02-01
  players Alice Bob
  turn 1 of Alice
  permanent djinn = "Breezekeeper", controller Alice
  script {
    cast "Slip Away" by Alice targeting djinn
    expect djinn.phase is out
    cast "Test Old Tide" by Alice
    expect djinn.phase is in
  }
}
""")
    status, out, _err = run(capsys, "test", scenario, "--cards", old)
    assert status == 0 and "1 passed" in out
    status, out, _err = run(capsys, "check", old)
    assert status == 0 and "no problems found" in out


def test_a_cards_folder_that_cannot_be_read_is_an_error_naming_it(capsys, tmp_path, monkeypatch, mine):
    _cards, scenario = mine
    write(tmp_path, "my-rules/cards/bears.rules", BEAR)
    names = loading._names

    def refusing(folder):
        if Path(folder).name == "cards":
            raise PermissionError(13, "Permission denied", str(folder))
        return names(folder)

    monkeypatch.setattr(loading, "_names", refusing)
    status, _out, err = run(capsys, "test", scenario, "--rules-path", tmp_path / "my-rules")
    assert status == 1 and f"cannot read card folder {tmp_path / 'my-rules' / 'cards'}: Permission denied" in err


# ------------------------------------------------------------------ the API


def test_new_game_takes_cards_of_ones_own(tmp_path, mine):
    cards, _scenario = mine
    bear = {"name": "bear", "card": "Test Phasing Bear", "controller": "Alice"}
    play = api.new_game("2026-09-25", permanents=[bear], active="Bob", cards=cards)
    play.next_turn()  # Alice's untap step: CR 702.26a
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "out"
    (card,) = parse(BEAR, "mine.rules").items
    play = api.new_game(api.load("2026-09-25"), permanents=[bear], active="Bob", cards=[card])
    play.next_turn()
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "out"
    with pytest.raises(DiagnosticError) as info:
        api.new_game("2026-09-25", permanents=[bear])  # (the card is only there when given)
    assert 'unknown card "Test Phasing Bear"' in info.value.diagnostics[0].message


def test_run_file_load_and_check_paths_take_cards_of_ones_own(mine):
    cards, scenario = mine
    [outcome] = api.run_file(scenario, cards=[cards])
    assert outcome.passed  # CR 702.26a
    [outcome] = api.run_file(scenario)
    assert not outcome.passed and 'unknown card "Test Phasing Bear"' in outcome.failures[0].message
    assert "Test Phasing Bear" in api.load("2026-09-25", cards=str(cards)).cards
    assert "Test Phasing Bear" not in api.load("2026-09-25").cards
    assert api.check_paths(scenario, cards=cards) == []
    assert any('unknown card "Test Phasing Bear"' in d.message for d in api.check_paths(scenario))


@pytest.mark.parametrize("value, said", [
    (5, "the cards argument must be a card file's path, a dsl.ast.Card, a list of them, or None"),
    ([b"my-cards.rules"], "the cards argument must be a card file's path (a non-empty str or pathlib.Path)"),
    ({"x": 1}, "the cards argument must be"),
    ("", "the cards argument must be a card file's path (a non-empty str or pathlib.Path)"),
])
def test_a_cards_argument_of_the_wrong_kind_is_a_diagnostic(value, said):
    for call, where in ((lambda: api.new_game(cards=value), "new_game(cards)"),
                        (lambda: api.run_file(ROOT / "tests" / "scenarios" / "tour.scenario", cards=value),
                         "run_file(cards)"),
                        (lambda: api.load(cards=value), "load(cards)")):
        with pytest.raises(DiagnosticError) as info:
            call()
        (d,) = info.value.diagnostics
        assert d.span.path == where and said in d.message and d.hint


def test_bad_card_files_and_clashes_given_to_the_api_are_diagnostics(tmp_path, mine):
    cards, scenario = mine
    with pytest.raises(DiagnosticError) as info:
        api.run_file(scenario, cards=tmp_path / "missing.rules")
    assert "no such card file" in info.value.diagnostics[0].message
    assert "(from run_file(cards))" in info.value.diagnostics[0].message
    (bears,) = parse('card "Grizzly Bears" {\n  types creature bear\n  pt 3/3\n}\n', "mine.rules").items
    with pytest.raises(DiagnosticError) as info:
        api.load(cards=[bears])
    assert "card 'Grizzly Bears' is already a shipped card, written otherwise" in info.value.diagnostics[0].message
    other = write(tmp_path, "other.rules", BEAR.replace("pt 2/2", "pt 3/3"))
    problems = api.check_paths(scenario, cards=[cards, other])
    assert [d.span.path for d in problems] == [str(other)]


def test_import_forge_reads_its_cards_as_every_command_does(tmp_path, mine):
    """`import forge --cards FILE` gives --cards the meaning it has everywhere: a card file holds
    cards only, and no card of it takes a library card's name written otherwise."""
    from phasing_rules.interop.forge import import_state

    _cards, scenario = mine
    state = ROOT / "tests" / "fixtures" / "forge" / "two-player-state.txt"
    with pytest.raises(DiagnosticError) as info:
        import_state(state, card_files=[scenario])
    assert "a card file holds only cards: this is a scenario" in info.value.diagnostics[0].message
    with pytest.raises(DiagnosticError) as info:
        import_state(state, card_files=[ROOT / "tests" / "fixtures" / "clashing-cards.rules"])
    assert "card 'Grizzly Bears' is already a shipped card, written otherwise" in info.value.diagnostics[0].message


def test_a_card_file_edited_between_calls_is_read_again(mine):
    """A rulebook loaded with a card file is kept while the file stays as it was: an edit (a 3/3
    where the 2/2 was) is seen by the next call, as an edited rule file is."""
    cards, _scenario = mine
    pt = next(e for e in api.load("2026-09-25", cards=cards).cards["Test Phasing Bear"].entries if isinstance(e, ast.PT))
    assert (pt.power, pt.toughness) == (2, 2)
    cards.write_text(BEAR.replace("pt 2/2", "pt 3/3") + "# edited\n", encoding="utf-8")
    pt = next(e for e in api.load("2026-09-25", cards=cards).cards["Test Phasing Bear"].entries if isinstance(e, ast.PT))
    assert (pt.power, pt.toughness) == (3, 3)
