"""Activated abilities (CR 602) as a card entry and as the engine's action `Actions.activate`:
through the Python API alone, through the checker and through `phasing check`, and printed
back. The conformance scenarios of tests/scenarios/activated.scenario play them in scripts
(and tests/test_generated.py plays those under both backends).

Each expectation is an outcome of the rule it cites.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from phasing_rules.dsl.checker import check_cards
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.parser import parse, parse_file
from phasing_rules.dsl.printer import print_module
from phasing_rules.interpreter import api
from phasing_rules.interpreter.program import program
from phasing_rules.interpreter.engine.engine import RulesError
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import script_problems

CARDS = """
card "Blinking Sprite" {
  types creature faerie
  pt 1/1
  activated {U}{U}: phase_out this
}

card "Shrouding Adept" {
  types creature human wizard
  pt 1/2
  activated {U}{U}, {T} targeting t where t is a creature: phase_out t
}

card "Bargaining Idol" {
  types artifact
  activated {1}, pay 3 life: you draw 1
  activated {0} targeting t where t is a creature and t.controller is you: phase_out t
}
"""


def book():
    cards = parse(CARDS, "cards.rules").items
    return load_version("2026-09-25").with_cards(cards)


def board(backend: str | None = None, **adept):
    return api.new_game(book(), players=["Alice", "Bob"], backend=backend, permanents=[
        {"name": "sprite", "card": "Blinking Sprite", "controller": "Alice", "entered_turn": 0},
        {"name": "adept", "card": "Shrouding Adept", "controller": "Alice", "entered_turn": 0, **adept},
        {"name": "idol", "card": "Bargaining Idol", "controller": "Alice"},
        {"name": "bear", "card": "Grizzly Bears", "controller": "Bob"},
    ])


def phase(play, name: str) -> str:
    return play.state()["permanents"][name]["statuses"]["phase"]


# ------------------------------------------------------------------ the action through the API


def test_an_activated_ability_resolves_and_its_events_name_the_card():
    """602.2: the ability is put on the stack and its costs paid; it resolves (608.2), and
    the permanent phases out (702.26b). Every event it causes names the card and the ability
    as its cause, the cost paid too."""
    play = board()
    play.activate("sprite", "Alice")
    assert phase(play, "sprite") == "out"
    assert {str(event.cause) for event in play.trace} == {'card "Blinking Sprite", ability 1', "702.26a untap-step-phasing"}
    kinds = [event.kind for event in play.trace if event.cause.kind == "card"]
    assert kinds[:3] == ["activate", "stack", "resolve"] and "change" in kinds
    play.activate("idol", "Alice")
    paid = [e for e in play.trace if e.kind == "life"]
    assert len(paid) == 1 and str(paid[0].cause) == 'card "Bargaining Idol", ability 1' and "pays 3 life" in paid[0].detail
    activated = next(event for event in play.trace if event.kind == "activate")
    assert "ability 1 of Blinking Sprite" in activated.detail and "{U}{U}" in activated.detail  # (mana recorded)


def test_tap_cost_taps_and_a_tapped_permanent_cannot_pay_it():
    """107.5, 602.2: {T} in a cost taps the permanent as the cost is paid; once tapped it
    cannot pay {T} again, and the refused activation changes nothing."""
    play = board()
    play.activate("adept", "Alice", 1, ["bear"])
    assert play.state()["permanents"]["adept"]["tapped"] and phase(play, "bear") == "out"
    play.next_turn()
    events = len(play.trace)
    with pytest.raises(RulesError, match="already tapped"):
        play.activate("adept", "Alice", 1, ["sprite"])
    assert len(play.trace) == events and phase(play, "sprite") == "in"


def test_a_summoning_sick_creature_cannot_pay_tap():
    """302.6: a creature's {T} ability can't be activated unless its controller has
    controlled it continuously since their most recent turn began."""
    play = board(entered_turn=1)
    with pytest.raises(RulesError, match=r"summoning sick.*\(302\.6\)"):
        play.activate("adept", "Alice", 1, ["bear"])
    assert not play.state()["permanents"]["adept"]["tapped"] and phase(play, "bear") == "in"


def test_life_is_paid_from_the_life_total_and_only_up_to_it():
    """119.4: paying life lowers the player's life total, and a player can pay life only if
    their life total is at least the payment."""
    play = board()
    for _ in range(6):
        play.activate("idol", "Alice")
    assert play.state()["players"]["Alice"]["life"] == 2 and play.state()["players"]["Alice"]["hand"] == 6
    with pytest.raises(RulesError, match=r"cannot pay 3 life.*\(119\.4\)"):
        play.activate("idol", "Alice")
    assert play.state()["players"]["Alice"]["life"] == 2


def test_only_the_controller_activates():
    """602.2: only the permanent's controller activates its abilities."""
    play = board()
    with pytest.raises(RulesError, match=r"Alice controls it.*\(602\.2\)") as caught:
        play.activate("sprite", "Bob")
    assert "by Alice" in caught.value.diagnostics[0].hint and phase(play, "sprite") == "in"


def test_a_hidden_permanent_s_abilities_cannot_be_activated_nor_can_it_be_targeted():
    """702.26b: a phased-out permanent is treated as though it does not exist: its abilities
    can't be activated, and it can't be an ability's target (601.2c, through 602.2b)."""
    play = board()
    play.cast("Slip Away", "Alice", ["sprite"])
    with pytest.raises(RulesError, match="treats 'sprite' as not existing"):
        play.activate("sprite", "Alice")
    with pytest.raises(RulesError, match="cannot be a target of ability 1 of 'adept'"):
        play.activate("adept", "Alice", 1, ["sprite"])
    assert not play.state()["permanents"]["adept"]["tapped"]


def test_a_held_ability_resolves_without_its_source_and_waits_like_a_spell():
    """113.7a: once on the stack the ability is independent of its source: the adept phases
    out, and the ability still phases out the bear as it resolves. While it waits the turn
    cannot move on (500.2)."""
    play = board()
    play.activate("adept", "Alice", 1, ["bear"], hold=True)
    assert play.state()["permanents"]["adept"]["tapped"] and phase(play, "bear") == "in"  # (the cost is paid)
    with pytest.raises(DiagnosticError, match=r"the stack is not empty \(ability 1 of \"Shrouding Adept\"\)"):
        play.next_turn()
    play.cast("Slip Away", "Bob", ["adept"])
    assert phase(play, "adept") == "out"
    play.resolve()
    assert phase(play, "bear") == "out" and not play.game.stack


def test_a_held_ability_checks_its_target_again_as_it_resolves():
    """608.2b: a target that has become illegal (phased out, 702.26b) is not affected, and
    with every target illegal the ability does nothing."""
    play = board()
    play.activate("idol", "Alice", 2, ["sprite"], hold=True)
    play.cast("Slip Away", "Bob", ["sprite"])
    play.resolve()
    assert any(e.kind == "fails" and "every target is illegal" in e.detail for e in play.trace)


@pytest.mark.parametrize("args,kwargs,message", [
    (("nobody", "Alice"), {}, "unknown permanent 'nobody'"),
    (("sprite", "Carol"), {}, "'Carol' is not a player"),
    (("sprite", "Alice", 0), {}, "ability is the number of an activated ability"),
    (("sprite", "Alice", True), {}, "ability is the number of an activated ability"),
    (("sprite", "Alice", 2), {}, "has 1 activated ability, so no ability 2"),
    (("bear", "Bob"), {}, "has no activated ability"),
    (("adept", "Alice", 1, []), {}, "needs 1 target(s), 0 given"),
    (("adept", "Alice", 1, "bear"), {}, "targets are a list"),
    (("sprite", "Alice"), {"hold": "yes"}, "hold is True or False"),
])
def test_bad_arguments_are_positioned_errors_at_the_call(args, kwargs, message):
    play = board()
    with pytest.raises(DiagnosticError) as caught:
        play.activate(*args, **kwargs)
    d = caught.value.diagnostics[0]
    assert message in d.message and d.span.path == "activate()" and not isinstance(caught.value, RulesError)
    assert len(play.trace) == 0


def test_a_call_activate_does_not_take_is_refused_with_its_signature():
    with pytest.raises(DiagnosticError, match="activate") as caught:
        board().activate("sprite", "Alice", colour="blue")
    assert "permanent" in caught.value.diagnostics[0].hint


@pytest.mark.parametrize("backend", ["closures", "generated"])
def test_both_backends_give_the_same_trace(backend, monkeypatch):
    """The closures and the generated Python run an ability's body alike."""
    def play_it(name):
        monkeypatch.setattr(program, "DEFAULT_BACKEND", name)
        play = board(backend=name)
        play.activate("adept", "Alice", 1, ["bear"], hold=True)
        play.cast("Slip Away", "Bob", ["adept"])
        play.resolve()
        play.activate("idol", "Alice")
        return [e.render() for e in play.trace], play.state()
    assert play_it(backend) == play_it("closures" if backend == "generated" else "generated")


# ------------------------------------------------------------------ the checker and phasing check


BAD_CARDS = """card "Odd Idol" {
  types artifact
  activated {X}, sacrifice this, {U}{T}: phase_out this
}

card "Odd Bolt" {
  types instant
  activated {1}: phase_out this
  spell: you draw 1
}
"""


def test_unknown_cost_parts_and_an_instant_s_ability_are_errors_where_written(tmp_path):
    """602.1a: a cost is what the game knows how to pay. An instant is never on the
    battlefield (113.6), so its activated ability could never be activated."""
    path = tmp_path / "odd.rules"
    path.write_text(BAD_CARDS)
    cards = parse_file(path).items
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    by_message = {d.message: d for d in found}
    assert len(found) == 4, [d.message for d in found]
    x = by_message["unknown mana symbol {X} in a cost"]
    assert (x.span.line, x.span.column) == (3, 13) and "pay N life" in x.hint and "{T}" in x.hint
    words = by_message["unknown cost part 'sacrifice this'"]
    assert (words.span.line, words.span.column) == (3, 18)
    assert by_message["{T} is a cost part of its own"].span.column == 34
    instant = by_message["an instant's activated ability can never be activated: an instant is never on the battlefield (113.6)"]
    assert instant.span.line == 8


def test_an_ability_s_targets_are_its_own_and_checked():
    cards = parse('card "C" {\n  types artifact\n  activated {1} targeting t where t.colour is blue: phase_out t\n}\n').items
    found = check_cards(cards, load_version("2026-09-25").with_cards(cards))
    assert any("colour" in d.message for d in found)
    fine = parse('card "D" {\n  types artifact\n  activated {1} targeting t where t is a creature: phase_out t\n}\n').items
    assert not check_cards(fine, load_version("2026-09-25").with_cards(fine))


SCRIPT = """
scenario "s" {
  cites 602.2
  players Alice Bob
  turn 1 of Alice
  permanent idol = "Bargaining Idol", controller Alice
  permanent bear = "Grizzly Bears", controller Alice
  script {
    activate idl by Alice
    activate idol 3 by Alice
    activate idol 2 by Alice
    activate idol by Carol
    activate bear by Alice
    activate idol 4 by Alice
    expect error "no ability 4"
  }
}
"""


def test_phasing_check_finds_activate_steps_that_can_only_fail():
    """A permanent neither declared nor made, an ability number the card lacks, the wrong
    number of targets, a player not in the game: each an error at its step, unless an
    `expect error` follows it."""
    (scn,) = parse(SCRIPT, "s.scenario").items
    found = script_problems(scn, book())
    messages = [d.message for d in found]
    assert messages == [
        "unknown permanent 'idl'",
        "'idol' (Bargaining Idol) has 2 activated abilities, so no ability 3",
        "ability 2 of 'idol' (Bargaining Idol) needs 1 target(s), 0 given",
        "'Carol' is not a player of the game",
        "'bear' (Grizzly Bears) has no activated ability",
    ], messages
    assert [d.span.line for d in found] == [9, 10, 11, 12, 13]


def test_phasing_check_knows_the_permanent_a_cast_makes():
    text = SCRIPT.replace('permanent idol = "Bargaining Idol", controller Alice\n', "").replace(
        "script {\n", 'script {\n    cast "Bargaining Idol" by Alice\n    activate bargaining_idol 2 by Alice targeting bear\n'
                      '    activate bargaining_idol 3 by Alice\n    expect error "no"\n    activate bargaining_idol 2 by Alice\n')
    (scn,) = parse(text, "s.scenario").items
    messages = [d.message for d in script_problems(scn, book())]
    assert messages[0] == "ability 2 of 'bargaining_idol' (Bargaining Idol) needs 1 target(s), 0 given"


# ------------------------------------------------------------------ printed back


def test_cards_and_steps_print_back_as_written():
    text = Path(__file__).parent.joinpath("scenarios", "activated.scenario").read_text()
    module = parse(text, "activated.scenario")
    printed = print_module(module)
    assert parse(printed, "printed") == module
    assert "activated {U}{U}, {T} targeting t where t is a creature: phase_out t" in printed
    assert "activated {1}, pay 3 life: you draw 1" in printed
    assert "hold activate adept by Alice targeting bear" in printed and "activate idol 2 by Alice targeting bear" in printed
