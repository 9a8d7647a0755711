"""`phasing import forge FILE`: a Forge game state read into a scenario (interop/forge.py, with
what Forge's attributes mean to the rules in interop/forge.toml).

Every card attribute the import reads, the players' seats, attachments by Id, the statuses a
`PhasedOut` stands for (with its seat, bare, and on an Aura that went with its host), what
cannot be carried over (warnings at their line and column), what the scenario would be wrong
without (errors at their line and column), the command's output and `-o`, and the scenario
made: it passes `phasing check` and plays by the rules (702.26a) once a script is added.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from phasing_rules.interop.forge import MAPPING, import_state, load_mapping
from phasing_rules.interpreter import api
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.suite import current_version

ROOT = Path(__file__).resolve().parent.parent
FORGE = ROOT / "tests" / "fixtures" / "forge"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))


def state(tmp_path: Path, text: str, name: str = "state.txt", **options):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return import_state(path, **options), path


def permanent_lines(scenario: str) -> dict[str, str]:
    """Each `permanent NAME = ...` line of a scenario, by NAME."""
    return {line.split()[1]: line.strip() for line in scenario.splitlines() if line.strip().startswith("permanent ")}


def where(d) -> tuple[int, int]:
    return d.span.line, d.span.column


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ------------------------------------------------------------------ every attribute


def test_every_attribute_of_a_library_board():
    result = import_state(FORGE / "library-board.txt")
    assert not result.errors
    lines = permanent_lines(result.scenario)
    assert lines == {
        "plains": 'permanent plains = "Plains", controller Human, owner Human, tapped',
        "grizzly_bears": 'permanent grizzly_bears = "Grizzly Bears", controller Human, owner Human, '
                         "counter p1p1 = 2, counter time = 3, damage 1",
        "holy_strength": 'permanent holy_strength = "Holy Strength", controller Human, owner Human, attached to grizzly_bears',
        "breezekeeper": 'permanent breezekeeper = "Breezekeeper", controller Human, owner Human, '
                        "set phase = out, set phased_out_under = Human",
        "holy_strength_2": 'permanent holy_strength_2 = "Holy Strength", controller Human, owner Human, attached to breezekeeper, '
                           "set phase = out, set phased_out_under = Human, set phased_indirectly = true",
        "soldier_token": 'permanent soldier_token = "Soldier Token", controller Human, owner Human, token, entered turn 3',
        "grizzly_bears_2": 'permanent grizzly_bears_2 = "Grizzly Bears", controller Ai, owner Ai, attacking, counter m1m1 = 1',
        "curse_of_chains": 'permanent curse_of_chains = "Curse of Chains", controller Ai, owner Ai, attached to Human',
        "breezekeeper_2": 'permanent breezekeeper_2 = "Breezekeeper", controller Ai, owner Ai, '
                          "set phase = out, set phased_out_under = Ai",
        "serra_angel": 'permanent serra_angel = "Serra Angel", controller Ai, owner Human, entered turn 3',
    }
    assert "  players Human Ai\n  turn 3 of Ai\n" in result.scenario
    assert 'scenario "library-board" {' in result.scenario  # (no [metadata] Name: the file's name)
    # Set: (which printing) is said once, at its first place, with how many cards have it
    assert [(d.message, where(d)) for d in result.warnings] == [
        ("'Set' (the set it was printed in) is not carried over: no rule reads it (1 card(s) of this file have it)", (6, 25))]


def test_the_scenario_made_passes_check_and_runs(tmp_path):
    result = import_state(FORGE / "library-board.txt")
    path = tmp_path / "board.scenario"
    path.write_text(result.scenario, encoding="utf-8")
    assert api.check_paths([path]) == []
    [outcome] = api.run_file(path)
    assert outcome.passed and not outcome.failures
    final = outcome.final["permanents"]
    assert final["grizzly_bears"]["counters"] == {"p1p1": 2, "time": 3}
    assert final["curse_of_chains"]["attached_to"] == "Human"
    assert final["serra_angel"]["owner"] == "Human" and final["serra_angel"]["controller"] == "Ai"
    assert final["soldier_token"]["token"] is True


def test_a_next_turn_added_to_the_script_plays_by_702_26a(tmp_path):
    """Ai is active on turn 3; Human's next turn (4) begins with the untap step, where what
    phased out under Human phases in, the Aura that went with its host too (702.26a, 702.26g),
    and Ai's Breezekeeper stays out; Ai's turn after that brings Ai's back and leaves Human's in;
    Human's next untap step takes Human's out again (it has phasing)."""
    result = import_state(FORGE / "library-board.txt")
    script = "\n".join([
        "  script {",
        "    expect breezekeeper.phase is out and holy_strength_2.phased_indirectly",
        "    next turn",
        "    expect breezekeeper.phase is in",
        "    expect holy_strength_2.phase is in and holy_strength_2.attached_to is breezekeeper",
        "    expect breezekeeper_2.phase is out",
        "    next turn",
        "    expect breezekeeper_2.phase is in",
        "    expect breezekeeper.phase is in",
        "    next turn",
        "    expect breezekeeper.phase is out",
        "  }",
    ])
    text = result.scenario.replace("  script {\n  }", script)
    path = tmp_path / "played.scenario"
    path.write_text(text, encoding="utf-8")
    [outcome] = api.run_file(path)
    assert outcome.passed, [d.message for d in outcome.failures] + [t for t, ok in outcome.expectations if not ok]
    assert len(outcome.expectations) == 7


# ------------------------------------------------------------------ seats and players


def test_numbered_seats_are_named_p0_p1_and_so_on(tmp_path):
    result, _ = state(tmp_path, "turn=2\nactiveplayer=p2\n"
                                "p0battlefield=Grizzly Bears|Id:1\n"
                                "p1battlefield=Grizzly Bears|Id:2|Owner:P2\n"
                                "p2battlefield=Breezekeeper|Id:3|PhasedOut:P2\n")
    assert not result.errors
    assert "  players P0 P1 P2\n  turn 2 of P2\n" in result.scenario
    lines = permanent_lines(result.scenario)
    assert lines["grizzly_bears_2"].endswith("controller P1, owner P2")
    assert lines["breezekeeper"].endswith("controller P2, owner P2, set phase = out, set phased_out_under = P2")


def test_a_seat_the_file_has_no_player_of_is_an_error(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears|Owner:P5\n")
    [error] = result.errors
    assert error.message == "'P5': this file has no player of seat 5"
    assert where(error) == (1, 38)
    assert result.scenario is None


def test_without_turn_lines_the_first_player_begins_turn_one(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears\n")
    assert "  players Human Ai\n  turn 1 of Human\n" in result.scenario


def test_the_active_player_must_be_a_player(tmp_path):
    result, _ = state(tmp_path, "activeplayer=carol\n")
    [error] = result.errors
    assert error.message.startswith("'carol' is no player") and where(error) == (1, 14)


# ------------------------------------------------------------------ attachments


def test_attached_to_names_the_permanent_of_that_id_even_later_in_the_file(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Holy Strength|AttachedTo:7\naibattlefield=Grizzly Bears|Id:7\n")
    assert not result.errors
    assert permanent_lines(result.scenario)["holy_strength"].endswith("attached to grizzly_bears")


def test_attached_to_an_id_no_permanent_has_is_an_error_at_the_id(tmp_path):
    result, path = state(tmp_path, "humanbattlefield=Grizzly Bears|Id:1;Holy Strength|Id:2|AttachedTo:9\n")
    [error] = result.errors
    assert error.message == "AttachedTo:9: no permanent on the battlefield has Id 9"
    assert error.span.path == str(path) and where(error) == (1, 67)
    assert "^" in error.render()


def test_a_permanent_attached_to_itself_or_twice_is_an_error(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Holy Strength|Id:1|AttachedTo:1\n")
    assert [e.message for e in result.errors] == ["AttachedTo:1: a permanent cannot be attached to itself"]
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears|Id:1;Curse of Chains|AttachedTo:1|EnchantingPlayer:P1\n")
    assert [e.message for e in result.errors] == [
        "a permanent is attached to one thing: it has a second AttachedTo or EnchantingPlayer"]


def test_an_id_given_twice_is_an_error(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears|Id:1;Grizzly Bears|Id:1\n")
    [error] = result.errors
    assert error.message == "Id 1 is given twice (first to Grizzly Bears)" and where(error) == (1, 54)


# ------------------------------------------------------------------ the statuses of the mapping


def test_a_bare_attribute_means_the_controllers_seat(tmp_path):
    result, _ = state(tmp_path, "activeplayer=ai\naibattlefield=Breezekeeper|PhasedOut\n")
    assert permanent_lines(result.scenario)["breezekeeper"].endswith("set phase = out, set phased_out_under = Ai")


def test_the_seat_it_went_under_may_be_another_players(tmp_path):
    result, _ = state(tmp_path, "aibattlefield=Grizzly Bears|Owner:P0|PhasedOut:P0\n")
    assert permanent_lines(result.scenario)["grizzly_bears"].endswith(
        "controller Ai, owner Human, set phase = out, set phased_out_under = Human")


def test_only_an_attachment_whose_host_is_out_too_went_with_it(tmp_path):
    """An Aura out on a host that is in went on its own: nothing more is set (702.26g is for
    one out with its host); an Aura in on a host that is out is left as Forge wrote it."""
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears|Id:1;Holy Strength|Id:2|AttachedTo:1|PhasedOut:P0;"
                                "Grizzly Bears|Id:3|PhasedOut:P0;Holy Strength|Id:4|AttachedTo:3|PhasedOut:P0\n")
    assert not result.errors
    lines = permanent_lines(result.scenario)
    assert "phased_indirectly" not in lines["holy_strength"]
    assert lines["holy_strength_2"].endswith("set phased_indirectly = true")


def test_the_shipped_mapping_names_only_statuses_the_newest_rules_declare():
    book = load_version(current_version())
    mapping = load_mapping(None, book, book.cards)
    [meaning] = mapping.statuses.values()
    for status, _value in meaning.sets + meaning.with_host:
        assert status in book.statuses
    assert MAPPING.name == "forge.toml"


def write_mapping(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_mapping_naming_an_undeclared_status_is_an_error_at_it(tmp_path):
    mapping = write_mapping(tmp_path, '[statuses.PhasedOut]\nset = { phase = "out", phased_out_by = "{seat}" }\n')
    with pytest.raises(Exception) as caught:
        state(tmp_path, "humanbattlefield=Grizzly Bears\n", mapping_path=mapping)
    [error] = caught.value.diagnostics
    assert error.message == "'phased_out_by' is no status the rules declare (2026-09-25)"
    assert error.span.path == str(mapping) and where(error) == (2, 24)
    assert error.hint.startswith("did you mean 'phased_out_under'")


def test_a_mapping_value_the_status_cannot_hold_is_an_error(tmp_path):
    mapping = write_mapping(tmp_path, '[statuses.PhasedOut]\nset = { phase = "gone" }\n')
    with pytest.raises(Exception) as caught:
        state(tmp_path, "humanbattlefield=Grizzly Bears\n", mapping_path=mapping)
    [error] = caught.value.diagnostics
    assert error.message == "phase = 'gone': status phase (enum) takes in, out" and where(error) == (2, 9)


def test_a_mapping_that_is_not_toml_is_an_error_at_its_place(tmp_path):
    mapping = write_mapping(tmp_path, "[statuses.PhasedOut\n")
    with pytest.raises(Exception) as caught:
        state(tmp_path, "humanbattlefield=Grizzly Bears\n", mapping_path=mapping)
    [error] = caught.value.diagnostics
    assert error.message.startswith("the mapping file is not TOML") and error.span.line == 1


def test_what_check_finds_in_the_scenario_made_is_an_error_at_the_card(tmp_path):
    """A mapping that sets statuses the rules never leave together (out under no one, which
    702.26a's assertion forbids): `phasing check` rejects the scenario, and the import says so
    at the card it came from, and makes none."""
    mapping = write_mapping(tmp_path, '[statuses.PhasedOut]\nset = { phase = "out", phased_out_under = "none" }\n')
    result, path = state(tmp_path, "humanbattlefield=Grizzly Bears;Breezekeeper|PhasedOut\n", mapping_path=mapping)
    [error] = result.errors
    assert error.message.startswith("'breezekeeper' starts in a state the rules never make: 702.26a")
    assert error.span.path == str(path) and where(error) == (1, 32)
    assert result.scenario is None


def test_a_name_with_double_quotes_is_written_with_single_ones(tmp_path):
    result, _ = state(tmp_path, '[metadata]\nName:The "best" board\n[state]\nturn=1\n', name="quoted.pzl")
    assert 'scenario "The \'best\' board" {' in result.scenario
    [warning] = result.warnings
    assert warning.message.startswith("a scenario's name cannot hold double quotes") and where(warning) == (2, 6)


# ------------------------------------------------------------------ tokens and cards


def test_a_token_is_the_card_the_mapping_names(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=t:w_1_1_soldier|Tapped\n")
    assert permanent_lines(result.scenario)["soldier_token"] == \
        'permanent soldier_token = "Soldier Token", controller Human, owner Human, token, tapped'


def test_a_token_no_card_is_mapped_to_is_an_error_at_its_description(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears;t:w_1_1_soldierr\n")
    [error] = result.errors
    assert error.message == "no card is mapped to the token 'w_1_1_soldierr'" and where(error) == (1, 34)
    assert "did you mean 'w_1_1_soldier'?" in error.hint


def test_a_token_mapped_by_a_mapping_of_ones_own(tmp_path):
    mapping = write_mapping(tmp_path, MAPPING.read_text(encoding="utf-8").replace(
        "[tokens]\n", '[tokens]\n"g_2_2_bear" = "Grizzly Bears"\n'))
    result, _ = state(tmp_path, "humanbattlefield=t:g_2_2_bear\n", mapping_path=mapping)
    assert permanent_lines(result.scenario)["grizzly_bears"].endswith("token")


def test_an_unknown_card_is_an_error_at_its_name_with_the_names_it_is_close_to(tmp_path):
    result, path = state(tmp_path, "humanlife=20\nhumanbattlefield=Plains;Grizly Bears|Id:2\n")
    [error] = result.errors
    assert error.message == "unknown card 'Grizly Bears': it is neither in the card library nor in the --cards given"
    assert where(error) == (2, 25) and (error.span.end_column - error.span.column) == len("Grizly Bears")
    assert error.hint.startswith("did you mean 'Grizzly Bears'?")
    assert result.scenario is None


def test_the_shared_two_player_sample_needs_a_card_the_library_lacks():
    result = import_state(FORGE / "two-player-state.txt")
    assert [(e.message.split(":")[0], where(e)) for e in result.errors] == [("unknown card 'Teferi's Imp'", (10, 50))]
    assert result.scenario is None


def test_with_those_cards_given_the_two_player_sample_imports_and_declares_them(tmp_path):
    result = import_state(FORGE / "two-player-state.txt", card_files=[FORGE / "own-cards.rules"])
    assert not result.errors
    assert 'card "Island" {' not in result.scenario and 'card "Teferi\'s Imp" {' in result.scenario
    lines = permanent_lines(result.scenario)
    assert lines["holy_strength"].endswith("attached to breezekeeper, set phase = out, "
                                           "set phased_out_under = Human, set phased_indirectly = true")
    assert lines["bonesplitter"].endswith("attached to grizzly_bears")
    assert lines["sandbar_crocodile"].endswith("entered turn 5")
    assert lines["teferi_s_imp"].endswith("set phase = out, set phased_out_under = Ai")
    assert lines["grizzly_bears_2"].endswith("damage 1")
    assert lines["merfolk_raiders"].endswith("controller Ai, owner Human, tapped")
    path = tmp_path / "two.scenario"
    path.write_text(result.scenario, encoding="utf-8")
    assert api.check_paths([path]) == []
    # what the state has that a scenario cannot say: its step (the upkeep, whose abilities a
    # scenario starting in the main phase after it would not trigger, 503.1), Ai's life, the
    # hands, library and graveyard
    assert [(d.message.split(":")[0], where(d)) for d in result.warnings] == [
        ("the state is in Forge's UPKEEP step; the scenario starts in the precombat main phase of turn 5", (5, 13)),
        ("Ai's life total 14 is not carried over", (2, 8)),
        ("2 card(s) in Human's hand are not carried over", (6, 11)),
        ("3 card(s) in Human's library are not carried over", (7, 14)),
        ("1 card(s) in Human's graveyard are not carried over", (8, 16)),
        ("1 card(s) in Ai's hand are not carried over", (11, 8)),
    ]


def test_the_shared_puzzle_sample_takes_its_name_from_its_metadata(tmp_path):
    result = import_state(FORGE / "phased-out-board.pzl")
    assert not result.errors
    assert 'scenario "Phasing import check" {' in result.scenario
    assert "# Goal: Win" in result.scenario and "# Description: A board with" in result.scenario
    assert [(d.message.split(" is written only")[0], where(d)) for d in result.warnings] == [
        ("the puzzle's Goal (Win)", (3, 1)), ("the puzzle's Turns (2)", (4, 1))]
    path = tmp_path / "puzzle.scenario"
    path.write_text(result.scenario, encoding="utf-8")
    assert api.check_paths([path]) == []


# ------------------------------------------------------------------ what is not carried over


def test_life_other_than_twenty_hand_and_library_are_warnings_at_their_values(tmp_path):
    result, _ = state(tmp_path, "humanlife=20\nailife=7\nhumanhand=Shock;Shock\nailibrary=Plains\nhumanexile=\n")
    assert not result.errors
    assert [(d.message, where(d)) for d in result.warnings] == [
        ("Ai's life total 7 is not carried over: a scenario's players begin with 20 life", (2, 8)),
        ("2 card(s) in Human's hand are not carried over: a scenario's cards are permanents on the battlefield", (3, 11)),
        ("1 card(s) in Ai's library are not carried over: a scenario's cards are permanents on the battlefield", (4, 11)),
    ]


def test_a_step_a_scenario_cannot_start_in_is_a_warning(tmp_path):
    """A scenario starts in the precombat main phase (505.1): a state before it (503.1: what
    triggers in the upkeep would not), or in combat once attackers are declared (508.1: a
    scenario cannot say them), is a warning; a later step that needs nothing declared is gone
    on to first (`to STEP`), and the main phase itself is where the scenario starts."""
    for phase in ("UNTAP", "UPKEEP", "DRAW", "COMBAT_DECLARE_ATTACKERS", "COMBAT_DAMAGE"):
        result, _ = state(tmp_path, f"activephase={phase}\n")
        [warning] = result.warnings
        assert warning.message.startswith(f"the state is in Forge's {phase} step") and where(warning) == (1, 13)
    for phase, step in (("COMBAT_BEGIN", "beginning of combat step"), ("MAIN2", "postcombat main phase"),
                        ("END_OF_TURN", "end step"), ("CLEANUP", "cleanup step")):
        result, _ = state(tmp_path, f"activephase={phase}\n")
        assert not result.warnings and f"  script {{\n    to {step}\n  }}" in result.scenario, result.scenario
    result, _ = state(tmp_path, "activephase=MAIN1\n")
    assert not result.warnings and "  script {\n  }" in result.scenario


def test_an_attribute_the_scenario_cannot_say_is_a_warning_at_it(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears|FaceDown|Id:1\n")
    [warning] = result.warnings
    assert warning.message == "'FaceDown' is not carried over: the scenario language has no property for it"
    assert where(warning) == (1, 32)


def test_a_line_without_equals_is_an_error_and_an_unknown_key_a_warning(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Grizzly Bears\nthis is not a state line\nhumanmanapool=R R\n")
    [error] = result.errors
    assert error.message.startswith("'this is not a state line' is no state line") and where(error) == (2, 1)
    [warning] = result.warnings
    assert warning.message.startswith("'humanmanapool' is not carried over") and where(warning) == (3, 1)


def test_malformed_values_are_errors_at_them(tmp_path):
    result, _ = state(tmp_path, "turn=zero\nhumanbattlefield=Grizzly Bears|Damage:x|Counters:P1P1=two,TIME|Tapped:yes\n")
    assert [(e.message, where(e)) for e in result.errors] == [
        ("'zero' is not the turn: a whole number of 1 or more", (1, 6)),
        ("'x' is not an amount of damage: a whole number of 0 or more", (2, 39)),
        ("'two' is not a number of P1P1 counters: a whole number of 0 or more", (2, 55)),
        ("'TIME' is not a counter: counters are written KIND=N", (2, 59)),
        ("Tapped takes no value: it is written Tapped alone", (2, 71)),
    ]


def test_a_key_written_twice_is_an_error(tmp_path):
    result, _ = state(tmp_path, "turn=1\nturn=2\n")
    [error] = result.errors
    assert error.message == "a second 'turn' line (the first is line 1)" and where(error) == (2, 1)
    result, _ = state(tmp_path, "humanbattlefield=Plains\np0battlefield=Plains\n")  # (human is seat 0)
    [error] = result.errors
    assert error.message == "a second 'p0battlefield' line (the first is line 1)" and where(error) == (2, 1)


def test_an_attribute_given_twice_on_a_card_is_an_error(tmp_path):
    result, _ = state(tmp_path, "humanbattlefield=Breezekeeper|PhasedOut|PhasedOut:P1\n")
    [error] = result.errors
    assert error.message == "PhasedOut is given twice on this card" and where(error) == (1, 41)


def test_a_seat_past_the_sixteenth_is_an_error_not_thousands_of_players(tmp_path):
    result, _ = state(tmp_path, "p123456789battlefield=Grizzly Bears\n")
    [error] = result.errors
    assert error.message.startswith("'p123456789battlefield': seat 123456789 is more than this reader takes")


def test_a_file_with_no_state_line_is_an_error(tmp_path):
    result, path = state(tmp_path, "# nothing here\n\n")
    [error] = result.errors
    assert error.message == "no state line in this file: is it a Forge game state?" and error.span.path == str(path)


def test_a_file_that_is_not_utf8_is_an_error(tmp_path):
    path = tmp_path / "binary.txt"
    path.write_bytes(b"humanbattlefield=\xff\n")
    with pytest.raises(Exception) as caught:
        import_state(path)
    [error] = caught.value.diagnostics
    assert error.message.startswith("this file is not UTF-8") and where(error) == (1, 18)


# ------------------------------------------------------------------ the command


def test_the_command_prints_the_scenario_and_warns_on_stderr(capsys):
    status, out, err = cli(["import", "forge", str(FORGE / "library-board.txt")], capsys)
    assert status == 0
    assert out.startswith("# Imported from the Forge game state library-board.txt")
    assert 'permanent breezekeeper = "Breezekeeper"' in out
    assert "library-board.txt:6:25: warning: 'Set'" in err
    assert "imported with 1 warning(s)" in err


def test_the_command_with_errors_prints_no_scenario_and_exits_1(capsys):
    status, out, err = cli(["import", "forge", str(FORGE / "two-player-state.txt")], capsys)
    assert status == 1 and out == ""
    assert "two-player-state.txt:10:50: error: unknown card 'Teferi's Imp'" in err
    assert "1 error(s), 6 warning(s): no scenario was made" in err


def test_json_gives_the_scenario_its_warnings_and_errors(capsys):
    status, out, _err = cli(["import", "forge", str(FORGE / "two-player-state.txt"), "--json"], capsys)
    found = json.loads(out)
    assert status == 1 and found["scenario"] is None and found["output"] is None
    assert [e["line"] for e in found["errors"]] == [10] and len(found["warnings"]) == 6
    assert set(found["errors"][0]) == {"kind", "path", "line", "column", "end_line", "end_column", "message", "hint"}
    status, out, _err = cli(["import", "forge", str(FORGE / "library-board.pzl"), "--json"], capsys)
    found = json.loads(out)
    assert status == 0 and found["errors"] == [] and found["warnings"] == []
    assert 'scenario "A library board" {' in found["scenario"]


def test_output_goes_to_a_new_file_and_never_over_one_without_force(tmp_path, capsys):
    out = tmp_path / "board.scenario"
    status, printed, _ = cli(["import", "forge", str(FORGE / "library-board.pzl"), "-o", str(out)], capsys)
    assert status == 0 and printed.strip() == f"wrote {out}"
    written = out.read_text(encoding="utf-8")
    assert api.check_paths([out]) == []
    out.write_text("# mine\n", encoding="utf-8")
    status, printed, err = cli(["import", "forge", str(FORGE / "library-board.pzl"), "-o", str(out)], capsys)
    assert status == 1 and f"{out}: error: cannot write {out}: it exists; nothing was written" in err
    assert out.read_text(encoding="utf-8") == "# mine\n"
    status, _, _ = cli(["import", "forge", str(FORGE / "library-board.pzl"), "-o", str(out), "--force"], capsys)
    assert status == 0 and out.read_text(encoding="utf-8") == written


def test_a_state_with_errors_writes_no_file(tmp_path, capsys):
    out = tmp_path / "two.scenario"
    status, _, _ = cli(["import", "forge", str(FORGE / "two-player-state.txt"), "-o", str(out)], capsys)
    assert status == 1 and not out.exists()


def test_cards_of_ones_own_are_given_with_cards(tmp_path, capsys):
    out = tmp_path / "two.scenario"
    status, _, _ = cli(["import", "forge", str(FORGE / "two-player-state.txt"), "--cards",
                        str(FORGE / "own-cards.rules"), "-o", str(out)], capsys)
    assert status == 0
    status, printed, _ = cli(["run", str(out)], capsys)
    assert status == 0 and "PASS two-player-state" in printed


def test_a_missing_file_and_an_unknown_format_are_errors_not_tracebacks(tmp_path, capsys):
    status, _, err = cli(["import", "forge", str(tmp_path / "none.txt")], capsys)
    assert status == 1 and "cannot read" in err
    status, _, err = cli(["import", "xmage", str(FORGE / "library-board.txt")], capsys)
    assert status == 1 and "invalid choice: 'xmage'" in err


@pytest.mark.slow  # (over a second: a child process per input; in the slow selection)
def test_bad_input_in_a_subprocess_ends_in_a_diagnostic(tmp_path):
    """Through the console script's module, as a user runs it: status 1 and no traceback, for a
    file that is not UTF-8 and for a file of nonsense."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PHASING_CACHE_DIR": str(tmp_path / "cache")}
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\x00\xff|;=\n")
    nonsense = tmp_path / "nonsense.txt"
    nonsense.write_text("=\n|||\nhumanbattlefield=;;|Id|AttachedTo|Counters:=\n[state\n", encoding="utf-8")
    for path in (binary, nonsense):
        run = subprocess.run([sys.executable, "-m", "phasing_rules.interpreter.entry", "import", "forge", str(path)],
                             capture_output=True, text=True, env=env, cwd=tmp_path)
        assert run.returncode == 1, run.stderr
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr
        assert f"{path}:" in run.stderr


def test_an_output_that_cannot_be_written_is_an_error_in_the_same_json_shape(tmp_path, capsys):
    taken = tmp_path / "taken.scenario"
    taken.write_text("# mine\n", encoding="utf-8")
    for out, message in ((taken, f"cannot write {taken}: it exists"), (tmp_path, f"cannot write {tmp_path}: it is a folder")):
        status, printed, _err = cli(["import", "forge", str(FORGE / "library-board.pzl"), "-o", str(out), "--json"], capsys)
        found = json.loads(printed)
        assert status == 1 and found["scenario"] is None and found["output"] is None
        assert [e["message"].split(";")[0].split(", and only")[0] for e in found["errors"]] == [message]
    assert taken.read_text(encoding="utf-8") == "# mine\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_device_or_a_folder_is_refused_not_read_for_ever(tmp_path):
    for given in ({"path": "/dev/zero"}, {"path": tmp_path},
                  {"path": FORGE / "library-board.txt", "mapping_path": "/dev/zero"}):
        with pytest.raises(Exception) as caught:
            import_state(**given)
        [error] = caught.value.diagnostics
        assert error.message.startswith("cannot read ") and error.message.endswith(("not a regular file", "a folder"))
