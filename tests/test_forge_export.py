"""`phasing export forge SCENARIO` (interop/forge_export.py): a scenario's starting state in
Forge's game-state text, by the same mapping file as the import; and the round trip: a Forge
board imported, exported and imported again is the same board (Hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phasing_rules.dsl.parser import parse
from phasing_rules.interop.forge import import_state
from phasing_rules.interop.forge_export import export_scenario
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import build_game
from phasing_rules.interpreter.play.suite import current_version

ROOT = Path(__file__).resolve().parent.parent
FORGE = ROOT / "tests" / "fixtures" / "forge"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))


def imported_file(folder: Path, forge_text: str, name: str = "state.txt") -> Path:
    """The scenario the import makes of `forge_text`, written to a file; it must have no error."""
    source = folder / name
    source.write_text(forge_text, encoding="utf-8")
    result = import_state(source)
    assert not result.errors, [d.render() for d in result.errors]
    target = folder / (name + ".scenario")
    target.write_text(result.scenario, encoding="utf-8")
    return target


def board(path: Path) -> dict:
    """The starting state of the scenario in `path`: each permanent's fields and statuses."""
    scenario = next(i for i in parse(path.read_text(encoding="utf-8"), str(path)).items if hasattr(i, "entries"))
    game = build_game(scenario, load_version(current_version()))
    return {"players": game.order, "active": game.active, "turn": game.turn,
            "permanents": {o.id: (o.card, o.owner, o.controller, o.tapped, o.token, o.attacking, o.damage,
                                  tuple(sorted(o.counters)), o.attached_to, o.entered_turn, tuple(sorted(o.statuses.items())))
                           for o in game.objects.values()}}


def test_the_library_board_exports_as_forge_writes_it(tmp_path):
    scenario = imported_file(tmp_path, (FORGE / "library-board.txt").read_text(encoding="utf-8"))
    result = export_scenario(scenario)
    assert not result.errors and not result.warnings
    assert result.state.splitlines() == [
        "turn=3", "activeplayer=ai", "activephase=MAIN1", "humanlife=20", "ailife=20",
        "humanbattlefield=Plains|Id:1|Tapped;Grizzly Bears|Id:2|Counters:P1P1=2,TIME=3|Damage:1;"
        "Holy Strength|Id:3|AttachedTo:2;Breezekeeper|Id:4|PhasedOut:P0;Holy Strength|Id:5|AttachedTo:4|PhasedOut:P0;"
        "t:w_1_1_soldier|Id:6|SummonSick",
        "aibattlefield=Grizzly Bears|Id:7|Attacking|Counters:M1M1=1;Curse of Chains|Id:8|EnchantingPlayer:P0;"
        "Breezekeeper|Id:9|PhasedOut:P1;Serra Angel|Id:10|Owner:P0|SummonSick",
    ]


def test_what_forge_has_no_place_for_is_a_warning_at_the_permanent(tmp_path):
    path = tmp_path / "odd.scenario"
    path.write_text('scenario "odd" {\n  players Alice Bob\n  turn 3 of Alice\n'
                    '  permanent bear = "Grizzly Bears", controller Alice, entered turn 2, sticker name = 1\n'
                    '  permanent warden = "Phase Warden", controller Bob, keyword flying\n'
                    '  permanent strength = "Holy Strength", controller Alice, attached to bear, set phase = out, '
                    'set phased_out_under = Alice\n'
                    '  script {\n  }\n}\n', encoding="utf-8")
    result = export_scenario(path)
    assert not result.errors
    assert [(d.message.split(":")[0] + ":" + d.message.split(":")[1], d.span.line) for d in result.warnings] == [
        ("bear: entered turn 2 is not carried over", 4),
        ("bear: its stickers are not carried over", 4),
        ("warden: the keywords it is given (flying) are not carried over", 5),
    ]
    assert "Holy Strength|Id:3|AttachedTo:1|PhasedOut:P0" in result.state


def test_a_status_no_attribute_stands_for_is_a_warning(tmp_path):
    path = tmp_path / "after.scenario"
    path.write_text('scenario "after" {\n  players Alice Bob\n'
                    '  permanent bear = "Grizzly Bears", controller Alice, set returns_after_absence = true\n'
                    '  script {\n  }\n}\n', encoding="utf-8")
    [warning] = export_scenario(path).warnings
    assert warning.message.startswith("bear: returns_after_absence = true is not carried over") and warning.span.line == 3


def test_a_file_of_several_scenarios_needs_one_named(capsys):
    status = main(["export", "forge", str(FORGE / "two-scenarios.scenario")])
    err = capsys.readouterr().err
    assert status == 1 and "has 2 scenarios: one scenario is exported at a time" in err
    assert "the scenarios: 'a bear', 'a phased-out djinn'" in err
    status = main(["export", "forge", str(FORGE / "two-scenarios.scenario"), "--scenario", "a phased-out djinn"])
    out = capsys.readouterr().out
    assert status == 0 and "humanbattlefield=Breezekeeper|Id:1|PhasedOut:P0" in out
    assert main(["export", "forge", str(FORGE / "two-scenarios.scenario"), "--scenario", "a djinn"]) == 1
    assert "has no scenario called 'a djinn'" in capsys.readouterr().err


def test_export_never_writes_over_a_file_without_force(tmp_path, capsys):
    scenario = imported_file(tmp_path, "humanbattlefield=Grizzly Bears\n")
    out = tmp_path / "board.txt"
    out.write_text("mine\n", encoding="utf-8")
    assert main(["export", "forge", str(scenario), "-o", str(out)]) == 1
    assert out.read_text(encoding="utf-8") == "mine\n" and f"cannot write {out}: it exists; nothing was written" in capsys.readouterr().err
    assert main(["export", "forge", str(scenario), "-o", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8").endswith("humanbattlefield=Grizzly Bears|Id:1\naibattlefield=\n")


# ------------------------------------------------------------------ the round trip

CREATURES = ("Grizzly Bears", "Breezekeeper", "Serra Angel", "Merfolk Raiders", "t:w_1_1_soldier")


@st.composite
def forge_boards(draw) -> str:
    """A Forge state of library cards: creatures and lands with any attributes the import
    reads, Auras and Equipment attached to earlier creatures, Curses on players."""
    turn = draw(st.integers(1, 9))
    lines = [f"turn={turn}", f"activeplayer={draw(st.sampled_from(['human', 'ai']))}", "activephase=MAIN1"]
    next_id, creatures = 1, []
    for prefix in ("human", "ai"):
        cards = []
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(("creature", "creature", "land", "aura", "equipment", "curse")))
            name = {"land": "Plains", "aura": "Holy Strength", "equipment": "Bonesplitter",
                    "curse": "Curse of Chains"}.get(kind) or draw(st.sampled_from(CREATURES))
            fields = [name, f"Id:{next_id}"]
            if draw(st.booleans()):
                fields.append(f"Owner:P{draw(st.integers(0, 1))}")
            for flag in ("Tapped", "SummonSick") + (("Attacking",) if kind == "creature" else ()):
                if draw(st.booleans()):
                    fields.append(flag)
            kinds = draw(st.lists(st.sampled_from(("P1P1", "M1M1", "TIME")), unique=True, max_size=2))
            if kinds:
                fields.append("Counters:" + ",".join(f"{k}={draw(st.integers(0, 3))}" for k in kinds))
            if kind == "creature" and draw(st.booleans()):
                fields.append(f"Damage:{draw(st.integers(1, 3))}")
            if kind in ("aura", "equipment") and creatures and draw(st.booleans()):
                fields.append(f"AttachedTo:{draw(st.sampled_from(creatures))}")
            if kind == "curse":
                fields.append(f"EnchantingPlayer:P{draw(st.integers(0, 1))}")
            out = draw(st.sampled_from((None, "", ":P0", ":P1")))
            if out is not None:
                fields.append("PhasedOut" + out)
            if kind == "creature":
                creatures.append(next_id)
            next_id += 1
            cards.append("|".join(fields))
        lines.append(f"{prefix}battlefield={';'.join(cards)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forge_boards())
def test_a_board_imported_exported_and_imported_again_is_the_same_board(text):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        first = imported_file(folder, text, "first.txt")
        exported = export_scenario(first)
        assert not exported.errors and not exported.warnings, [d.message for d in exported.warnings + exported.errors]
        second = imported_file(folder, exported.state, "second.txt")
        assert board(second) == board(first)
