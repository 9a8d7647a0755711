"""The game's actions through the Python API alone (issue 17 item 3): build a game, cast a
spell, hold it and resolve it, run turns, with no scenario file and no scenario runner.

Each expectation is an outcome of the rules it cites.
"""

from __future__ import annotations

import pytest

from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.interpreter import api
from phasing_rules.interpreter.play import scenario as scenario_runner
from phasing_rules.interpreter.engine.engine import RulesError
from phasing_rules.interpreter.rulebook.loading import load_version


@pytest.fixture
def no_scenario_runner(monkeypatch):
    """The scenario runner is not used: any call into it fails the test."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the API test must not go through the scenario runner")
    monkeypatch.setattr(scenario_runner.ScenarioRun, "__init__", refuse)
    monkeypatch.setattr(scenario_runner, "build_game", refuse)


def board():
    return api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"},
        {"name": "djinn", "card": "Breezekeeper", "controller": "Bob"},
    ])


@pytest.mark.usefixtures("no_scenario_runner")
def test_build_cast_hold_resolve_and_run_a_turn():
    play = board()
    assert play.state()["active"] == "Alice" and play.state()["turn"] == 1

    # Cast with the spell held on the stack: nothing has happened to its target yet.
    play.cast("Slip Away", "Alice", ["bear"], hold=True)
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "in"
    play.resolve()
    bear = play.state()["permanents"]["bear"]
    # 702.26b: once phased out, the game treats it as though it does not exist; 702.26d: it
    # stays on the battlefield (no zone change).
    assert bear["statuses"]["phase"] == "out" and not bear["visible"] and bear["zone"] == "battlefield"
    # 702.26a: phased out by an effect, it phases out under its controller, Alice.
    assert bear["statuses"]["phased_out_under"] == "Alice"

    # Bob's turn: his Breezekeeper (phasing) phases out in his untap step (702.26a); the bear,
    # phased out under Alice, stays out.
    play.next_turn()
    state = play.state()
    assert state["active"] == "Bob"
    assert state["permanents"]["djinn"]["statuses"]["phase"] == "out"
    assert state["permanents"]["bear"]["statuses"]["phase"] == "out"

    # Alice's next untap step: what phased out under her phases in (702.26a).
    play.next_turn()
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "in"
    assert play.state()["permanents"]["bear"]["visible"]
    assert any(e.kind == "resolve" and "Slip Away" in e.detail for e in play.trace)


@pytest.mark.usefixtures("no_scenario_runner")
def test_a_permanent_spell_resolves_onto_the_battlefield():
    """A creature spell that resolves becomes a permanent its caster owns and controls (608.3);
    it is cast in its caster's own turn (307.1: no flash)."""
    play = board()
    play.next_turn()
    play.to_step("precombat main phase")
    play.cast("Phasing Sentinel", "Bob")
    sentinel = play.state()["permanents"]["phasing_sentinel"]
    assert (sentinel["zone"], sentinel["owner"], sentinel["controller"]) == ("battlefield", "Bob", "Bob")


@pytest.mark.usefixtures("no_scenario_runner")
def test_a_held_spell_whose_target_phased_out_does_nothing():
    """608.2b: a target that phased out is illegal on resolution (702.26b), so Shock deals no damage."""
    play = board()
    play.cast("Shock", "Alice", ["djinn"], hold=True)
    play.cast("Slip Away", "Bob", ["djinn"])
    play.resolve()
    assert play.state()["permanents"]["djinn"]["damage"] == 0
    assert any(e.kind == "fails" for e in play.trace)


@pytest.mark.usefixtures("no_scenario_runner")
def test_a_phased_out_permanent_is_not_a_legal_target_when_cast():
    """702.26b: a phased-out permanent can't be targeted; casting at it is an error of the rules."""
    play = api.new_game(players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "statuses": {"phase": "out", "phased_out_under": "Alice"}}])
    with pytest.raises(DiagnosticError, match="cannot be a target"):
        play.cast("Shock", "Bob", ["bear"])


@pytest.mark.parametrize("call, message", [
    (lambda p: p.cast("No Such Card", "Alice"), 'unknown card "No Such Card"'),
    (lambda p: p.cast("Shock", "Carol", ["bear"]), "'Carol' is not a player of the game"),
    (lambda p: p.cast("Shock", "Alice", []), "needs 1 target(s), 0 given"),
    (lambda p: p.cast("Shock", "Alice", "bear"), "targets are a list of permanent names"),
    (lambda p: p.cast("Shock", "Alice", ["ghost"]), "unknown permanent 'ghost'"),
    (lambda p: p.resolve(), "nothing on the stack"),
    (lambda p: p.move("bear", "nowhere_at_all"), "unknown zone"),
    (lambda p: p.attack([]), "non-empty list"),
    (lambda p: p.leave("Carol"), "unknown player 'Carol'"),
    (lambda p: p.choose_targets("Shock", ["bear"]), "no triggered ability with targets"),
])
def test_bad_actions_are_diagnostics_named_after_the_call(call, message):
    play = board()
    with pytest.raises(DiagnosticError) as caught:
        call(play)
    (diag,) = caught.value.diagnostics
    assert message in diag.message
    assert diag.span.path.endswith("()")  # the call's name: cast(), resolve(), ...


@pytest.mark.parametrize("kwargs, message", [
    ({"players": []}, "players"),
    ({"players": ["Alice", "Alice"]}, "players"),
    ({"players": "Alice"}, "players"),
    ({"active": "Zed"}, "active"),
    ({"turn": 0}, "turn"),
    ({"permanents": {"name": "bear"}}, "permanents"),
    ({"permanents": [{"name": "bear"}]}, "'bear': a permanent needs a 'card'"),
    ({"permanents": [{"name": "bear", "card": None}]}, "a card is named by a string, its name, not None"),
    ({"permanents": [{"name": "bear", "card": "Grizzly Bears", "colour": "green"}]}, "unknown key"),
    ({"permanents": [{"name": "bear", "card": "Grizzly Bears", "statuses": {"phase": 7}}]}, "status 'phase' cannot be 7"),
    ({"permanents": [{"name": "bear", "card": "Grizzly Bears", "statuses": {"phaze": "out"}}]}, "unknown status"),
    ({"permanents": [{"name": "bear", "card": "Grizzly Bears", "tapped": "yes"}]}, "tapped is True or False"),
    ({"permanents": [{"name": "bear", "card": "Grizzly Bears", "controller": "Zed"}]}, "not a player"),
    ({"permanents": [{"name": "bear", "card": "Grizzly Bears", "attached_to": "ghost"}]}, "which does not exist"),
    ({"permanents": [{"name": "Alice", "card": "Grizzly Bears"}]}, "name of its own"),
    # '@' names an object as it was before a zone change made it a new object (400.7)
    ({"permanents": [{"name": "bear@0", "card": "Grizzly Bears"}]}, "cannot hold '@'"),
    ({"rules": "1999-01-01"}, "1999-01-01"),
    ({"backend": "fast"}, "the backend argument must be 'closures', 'generated' or None"),
    ({"backend": True}, "the backend argument"),
    ({"backend": ["generated"]}, "the backend argument"),
])
def test_bad_games_are_diagnostics(kwargs, message):
    with pytest.raises(DiagnosticError) as caught:
        api.new_game(**kwargs)
    assert message in caught.value.diagnostics[0].message


def test_the_scenario_runner_and_the_api_make_the_same_game(tmp_path):
    """The runner reads a script and calls these actions: the same steps give the same trace."""
    text = '''
scenario "Slip Away, then two turns" {
  rules 2026-09-25
  players Alice Bob
  permanent bear = "Grizzly Bears", controller Alice
  permanent djinn = "Breezekeeper", controller Bob
  script {
    cast "Slip Away" by Alice targeting bear
    next turn
    next turn
  }
}
'''
    path = tmp_path / "same_game.scenario"
    path.write_text(text)
    scenarios, cards = scenario_runner.load_scenarios(path)
    outcome = scenario_runner.run_scenario(scenarios[0], load_version("2026-09-25"), str(path), cards)
    play = board()
    play.cast("Slip Away", "Alice", ["bear"])
    play.next_turn()
    play.next_turn()
    assert [e.render() for e in play.trace if e.kind != "step"] == \
           [e.render() for e in outcome.trace if e.kind != "step"]
    assert play.state()["permanents"] == outcome.final["permanents"]


def test_each_action_is_a_step_with_its_own_budget():
    """Each action is a step of its own, as a scenario's script step is: a budget afresh (a
    step's work is bounded, not a game's) and its own step number in the trace. Bob's
    Breezekeeper phases out and in on each of his untap steps (702.26a)."""
    play = api.new_game("2026-09-25", budget="writes=40", permanents=[
        {"name": "djinn", "card": "Breezekeeper", "controller": "Bob"},
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    for _ in range(60):                           # 30 of Bob's untap steps, far more than 40 writes in all
        play.next_turn()
    assert play.state()["turn"] == 61
    steps = [event.step for event in play.trace if event.kind == "step" and "begins" in event.detail]
    assert steps == list(range(1, 61))


def test_an_action_that_fails_leaves_the_game_as_it_was():
    """An action that raises is undone: the game, its journal and the trace are as before
    it, and the next action starts from there (here the untap step's phasing, 702.26a, goes
    over a budget of 3 writes)."""
    permanents = [{"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}] + [
        {"name": f"d{i}", "card": "Breezekeeper", "controller": "Bob"} for i in range(5)]
    play = api.new_game("2026-09-25", permanents=permanents, budget="writes=3")
    before, mark, events = play.state(), play.engine.store.mark(), len(play.trace)
    for _ in range(2):
        with pytest.raises(api.DiagnosticError, match="writes budget"):
            play.next_turn()
        assert play.state() == before and play.state()["turn"] == 1
        assert play.engine.store.mark() == mark and len(play.trace) == events and play.engine.step == 0


@pytest.mark.parametrize("action", ["next_turn", "cleanup"])
def test_no_turn_or_cleanup_while_a_spell_waits_on_the_stack(action):
    """A step ends only once the stack is empty (500.2): with a spell held on the stack,
    the next turn and the cleanup step are refused, and the spell still waits there."""
    play = board()
    play.cast("Slip Away", "Alice", ["bear"], hold=True)
    with pytest.raises(DiagnosticError, match="the stack is not empty") as caught:
        getattr(play, action)()
    assert "resolve" in caught.value.diagnostics[0].hint
    assert play.state()["turn"] == 1 and len(play.game.stack) == 1
    play.resolve()
    getattr(play, action)()
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "out"   # 702.26b


def test_no_attack_while_a_spell_waits_on_the_stack(tmp_path):
    """Attackers are declared as the declare attackers step begins (508.1), which needs the
    step before it to have ended, and a step ends only with an empty stack (500.2): with a
    spell held there, attack is refused as its other refusals are (a RulesError, which a
    script can expect), nothing attacks or taps, and once the spell resolves the bear attacks."""
    play = board()
    play.cast("Shock", "Alice", ["djinn"], hold=True)
    with pytest.raises(RulesError, match=r'the stack is not empty \("Shock"\): the declare attackers step') as caught:
        play.attack(["bear"])
    assert "resolve" in caught.value.diagnostics[0].hint and len(play.game.stack) == 1
    bear = play.state()["permanents"]["bear"]
    assert bear["attacking"] is False and bear["tapped"] is False
    play.resolve()
    play.attack(["bear"])
    assert play.state()["permanents"]["bear"]["attacking"] is True
    script = tmp_path / "held.scenario"
    script.write_text("""scenario "no attack over a held spell" {
  rules 2026-09-25
  players Alice Bob
  turn 1 of Alice
  permanent bear = "Grizzly Bears", controller Alice
  permanent djinn = "Breezekeeper", controller Bob
  script {
    hold "Shock" by Alice targeting djinn
    attack with bear
    expect error "the stack is not empty"
    expect bear.attacking is false
    resolve
  }
}
""")
    (outcome,) = api.run_file(script)
    assert outcome.passed, [d.message for d in outcome.failures]
    # a script that ends with the spell still held says so: nothing resolved it
    script.write_text(script.read_text().replace("    resolve\n  }", "  }"))
    (outcome,) = api.run_file(script)
    assert [d.message for d in outcome.failures] == ['the script ends with "Shock" still on the stack: nothing resolved it']


@pytest.mark.parametrize("card", ["Teferi's Curse", "Curse of Chains"])
def test_casting_an_aura_without_a_declared_target_is_refused_not_done_as_nothing(card):
    """An Aura spell targets the one permanent it will enchant (303.4a): a card that declares no
    target for it cannot be cast, a DiagnosticError that says how to declare one, not a spell
    that "resolves" into nothing."""
    play = board()
    with pytest.raises(DiagnosticError, match="an Aura spell targets the one permanent it will enchant") as caught:
        play.cast(card, "Alice", [])
    assert "target t where" in caught.value.diagnostics[0].hint
    assert not [event for event in play.trace if event.kind in ("cast", "resolve")]
    assert set(play.state()["permanents"]) == {"bear", "djinn"}


def test_an_aura_spell_resolves_attached_to_its_target():
    """303.4a, 608.3c: Holy Strength targets the creature it will enchant and enters the
    battlefield attached to it, which gets +1/+2."""
    play = board()
    play.cast("Holy Strength", "Alice", ["bear"])
    aura = next(oid for oid, p in play.state()["permanents"].items() if p["card"] == "Holy Strength")
    assert play.state()["permanents"][aura]["attached_to"] == "bear"
    assert play.engine.chars("bear")["toughness"] == 4


@pytest.mark.parametrize("spec, message", [
    ({"card": "Holy Strength", "controller": "Alice", "attached_to": "bear"}, "not a creature"),
    ({"card": "Grizzly Bears", "controller": "Bob"}, "Bob controls it, and it is Alice's turn"),
    ({"card": "Grizzly Bears", "controller": "Alice", "tapped": True}, "it is tapped"),
    ({"card": "Grizzly Bears", "controller": "Alice", "entered_turn": 1}, "it is summoning sick"),
    ({"card": "Grizzly Bears", "controller": "Alice", "statuses": {"phase": "out", "phased_out_under": "Alice"}},
     "treated by the game as not existing"),
])
def test_attack_refuses_what_cannot_attack(spec, message):
    """The active player declares attackers among the untapped creatures they control
    (508.1a); a phased-out creature is treated as though it does not exist (702.26b), so it
    cannot attack either. Each is refused, and nothing attacks."""
    play = api.new_game("2026-09-25", permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}, {"name": "other", **spec}])
    with pytest.raises(DiagnosticError, match=message):
        play.attack(["bear", "other"])
    assert not any(p.get("attacking") for p in play.state()["permanents"].values())
    play.attack(["bear"])
    assert play.state()["permanents"]["bear"]["attacking"] is True


def test_declared_attackers_become_tapped_unless_they_have_vigilance():
    """508.1f: the active player taps the creatures declared as attackers, except those with
    vigilance; the trace names 508.1f as the tap's cause. A creature with haste attacks the
    turn it came under its controller's control (508.1a, 302.6). Attackers are declared once,
    as the declare attackers step begins (508.1): once it has begun, no creature is declared
    again in that turn's combat (500.1: the step is over)."""
    play = api.new_game("2026-09-25", permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"},
        {"name": "angel", "card": "Serra Angel", "controller": "Alice"},
        {"name": "goblin", "card": "Raging Goblin", "controller": "Alice", "entered_turn": 1}])
    play.attack(["bear", "angel", "goblin"])
    board = play.state()["permanents"]
    assert all(board[name]["attacking"] for name in ("bear", "angel", "goblin"))
    assert board["bear"]["tapped"] and board["goblin"]["tapped"] and not board["angel"]["tapped"]
    taps = [event for event in play.trace if "tapped" in str(event) and "508.1f" in str(event.cause)]
    assert sorted(event.subject for event in taps) == ["bear", "goblin"]
    with pytest.raises(DiagnosticError, match="the game is in the declare attackers step already"):
        play.attack(["angel"])


def test_a_creature_whose_control_changed_this_turn_cannot_attack_without_haste():
    """508.1a, 302.6: a creature attacks only if its controller has controlled it
    continuously since their most recent turn began (or it has haste). One Alice takes with
    Sower of Temptation came under her control this turn: it is summoning sick and cannot
    attack. One she takes with Act of Treason, which gives it haste until end of turn, attacks;
    when that effect ends in the cleanup step it goes back to Bob, who has it from the start of
    his next turn and attacks."""
    play = api.new_game("2026-09-25", turn=2, permanents=[
        {"name": "wolf", "card": "Grizzly Bears", "controller": "Bob"}])
    play.choose_targets("Sower of Temptation", ["wolf"])
    play.cast("Sower of Temptation", "Alice")
    assert play.state()["permanents"]["wolf"]["controller"] == "Alice"
    assert play.game.objects["wolf"].controlled_since == 2
    with pytest.raises(DiagnosticError, match="'wolf' cannot attack: it is summoning sick"):
        play.attack(["wolf"])
    play = api.new_game("2026-09-25", turn=2, permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Bob"}])
    play.cast("Act of Treason", "Alice", ["bear"])
    assert play.state()["permanents"]["bear"]["controller"] == "Alice"
    play.attack(["bear"])
    assert play.state()["permanents"]["bear"]["attacking"] is True
    play.next_turn()
    assert play.state()["active"] == "Bob" and play.state()["permanents"]["bear"]["controller"] == "Bob"
    play.attack(["bear"])
    assert play.state()["permanents"]["bear"]["attacking"] is True


def test_move_refuses_a_permanent_the_game_does_not_see():
    """702.26b: a phased-out permanent is treated as though it does not exist, so it cannot
    be moved to another zone: a DiagnosticError, and it stays where it was, phased out and
    still enchanted by its Aura (702.26d, 702.26i); once phased in it can be moved."""
    play = api.new_game("2026-09-25", permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"},
        {"name": "strength", "card": "Holy Strength", "controller": "Alice", "attached_to": "bear"}])
    play.cast("Slip Away", "Alice", ["bear"])
    with pytest.raises(DiagnosticError, match="'bear' cannot be moved: it is treated by the game as not existing"):
        play.move("bear", "graveyard")
    board = play.state()["permanents"]
    assert board["bear"]["zone"] == "battlefield" and board["bear"]["statuses"]["phase"] == "out"
    assert board["strength"]["attached_to"] == "bear"
    play.next_turn()
    play.next_turn()
    play.move("bear", "graveyard")
    assert play.state()["permanents"]["bear"]["zone"] == "graveyard"


def test_attack_refuses_a_creature_that_left_the_battlefield():
    """A creature in the graveyard is not on the battlefield to attack (508.1a)."""
    play = board()
    play.move("bear", "graveyard")
    with pytest.raises(DiagnosticError, match="it is in the graveyard"):
        play.attack(["bear"])


def test_a_card_in_a_zone_the_rules_declare_is_said_to_be_in_that_zone():
    """Under 2005-02-01 phasing out is a move to the phased-out zone (502.15b, 217.8a): a
    phased-out creature cannot attack or be targeted, and the refusal names the zone as a
    zone ("in the zone phased_out"; it said "in the phased_out"); the game's own zones are
    said in words ("in exile")."""
    play = api.new_game("2005-02-01", players=["Alice", "Bob"], permanents=[
        {"name": "djinn", "card": "Breezekeeper", "controller": "Bob"},
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    play.next_turn()                                      # Bob's untap step: the djinn phases out
    assert play.state()["permanents"]["djinn"]["zone"] == "phased_out"
    with pytest.raises(RulesError, match="'djinn' cannot attack: it is in the zone phased_out$"):
        play.attack(["djinn"])
    with pytest.raises(RulesError, match="now: it is in the zone phased_out$"):
        play.cast("Shock", "Alice", ["djinn"])
    play.move("bear", "exile")
    with pytest.raises(RulesError, match="'bear' cannot attack: it is in exile$"):
        play.attack(["bear"])


@pytest.mark.parametrize("keyword", ["Phasing", "phasng"])
def test_a_keyword_the_rules_do_not_know_is_refused_with_the_one_meant(keyword):
    """A permanent's keywords are those the rulebook and its cards know: 'Phasing' or
    'phasng' would give a creature that never phases (702.26a asks for 'phasing'), so it is
    a diagnostic whose hint names 'phasing'; 'phasing' itself is taken and works."""
    with pytest.raises(DiagnosticError, match="unknown keyword") as caught:
        api.new_game("2026-09-25", permanents=[
            {"name": "bear", "card": "Grizzly Bears", "controller": "Bob", "keywords": [keyword]}])
    assert "did you mean 'phasing'" in caught.value.diagnostics[0].hint
    play = api.new_game("2026-09-25", permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Bob", "keywords": ["phasing"]}])
    play.next_turn()                              # Bob's untap step (702.26a)
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "out"


@pytest.mark.parametrize("action", ["next_turn", "cleanup"])
def test_with_every_player_gone_the_game_is_over(action):
    """A player who leaves the game takes no more turns (800.4a); with every player gone
    the game is over (104.2a), so no turn begins: the next turn and cleanup are refused."""
    play = board()
    play.leave("Alice")
    play.leave("Bob")
    events = len(play.trace)
    with pytest.raises(DiagnosticError, match="the game is over"):
        getattr(play, action)()
    assert len(play.trace) == events and play.state()["turn"] == 1


def test_a_view_of_an_object_follows_its_name_across_a_zone_change():
    """A zone change makes a new object (400.7) under the same name: a view taken from
    game.objects before it reads the new one, as state() does, not the permanent that was;
    `previous` is that permanent, as it was left."""
    play = board()
    bear = play.game.objects["bear"]
    play.move("bear", "graveyard")
    assert bear.zone == play.state()["permanents"]["bear"]["zone"] == "graveyard"
    assert bear.previous.zone == "battlefield"
    assert bear == play.game.objects["bear"]


def test_the_trace_handed_out_is_read_only():
    """The trace is the record of what the engine did: what the API hands out reads it (and
    what is added later) but cannot add to it, remove or replace an event."""
    play = board()
    trace = play.trace
    play.cast("Slip Away", "Alice", ["bear"])
    assert len(trace) == len(play.engine.trace) and trace[-1] == play.engine.trace[-1]
    with pytest.raises(AttributeError):
        trace.append("junk")
    with pytest.raises(TypeError):
        trace[0] = "junk"
    assert "junk" not in list(play.trace)


def test_undo_takes_only_marks_of_the_branch_the_game_is_on():
    """A mark is a place between actions on the game's present branch. A position worked out
    from one (here inside the next turn's untap step, 502.3, where no game stops) is refused
    with a hint, and so is a mark taken on a branch an undo has since abandoned; the game is
    left as it was, and a mark still on the branch undoes as before."""
    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    start = play.engine.store.mark()
    play.next_turn()
    after_turn = play.state()
    with pytest.raises(DiagnosticError, match="is not a mark") as refused:
        play.engine.writer.undo(start + 2)
    assert "store.mark()" in refused.value.diagnostics[0].hint
    assert play.state() == after_turn
    branch = play.engine.store.mark()
    play.engine.writer.undo(start)
    play.next_turn()  # (the same turn again: the journal reaches the abandoned mark's position anew)
    assert play.engine.store.mark() == branch
    with pytest.raises(DiagnosticError, match="branch that was undone") as undone:
        play.engine.writer.undo(branch)
    assert undone.value.diagnostics[0].hint
    play.engine.writer.undo(start)  # (taken before: still on the branch)
    assert play.state()["turn"] == 1
    other = api.new_game("2026-09-25", players=["Alice", "Bob"])
    with pytest.raises(DiagnosticError, match="another game"):
        play.engine.writer.undo(other.engine.store.mark())


def test_state_gives_an_object_off_the_battlefield_the_same_keys_as_one_on_it():
    """A card put into the graveyard (a new object, 400.7) is listed with every key a
    permanent has, read as the rules read it; only a permanent on the battlefield is visible."""
    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice", "stickers": {"name": 1}},
        {"name": "soldier", "card": "Soldier Token", "controller": "Bob", "token": True, "entered_turn": 1}])
    play.move("bear", "graveyard")
    board = play.state()["permanents"]
    assert set(board["bear"]) == set(board["soldier"])
    bear, soldier = board["bear"], board["soldier"]
    assert (bear["zone"], bear["power"], bear["visible"], bear["token"]) == ("graveyard", 2, False, False)
    assert (soldier["token"], soldier["entered_turn"], soldier["stickers"], soldier["visible"]) == (True, 1, {}, True)
    assert bear["statuses"]["phase"] == soldier["statuses"]["phase"] == "in"


def test_a_triggered_ability_is_responded_to_through_the_api_alone():
    """603.3, 603.3d, 608.2b: Shimmering Efreet's trigger goes on the stack in Alice's upkeep
    targeting the bear; with `next_turn(hold=True)` it waits there; Bob phases the bear out in
    response (Slip Away resolves first: 405.5), and the trigger then does nothing."""
    play = api.new_game("2026-09-25", players=["Alice", "Bob"], active="Bob", permanents=[
        {"name": "efreet", "card": "Shimmering Efreet", "controller": "Alice",
         "statuses": {"phase": "out", "phased_out_under": "Alice"}},
        {"name": "bear", "card": "Grizzly Bears", "controller": "Bob"}])
    play.choose_targets("Shimmering Efreet", ["bear"])
    play.next_turn(hold=True)
    (waiting,) = play.game.stack
    assert waiting.kind == "trigger" and waiting.card.name == "Shimmering Efreet" and waiting.targets == ("bear",)
    play.cast("Slip Away", "Bob", ["bear"])
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "out"
    assert len(play.game.stack) == 1
    play.resolve()
    assert not play.game.stack
    assert any(e.kind == "fails" and "every target is illegal" in e.detail for e in play.trace)
    assert play.state()["permanents"]["bear"]["statuses"]["phased_out_under"] == "Bob"


def test_the_api_plays_a_whole_combat_through_its_steps():
    """506-511 through the API alone: attackers declared as the declare attackers step begins
    (508.1), a blocker as the declare blockers step begins (509.1), combat damage dealt at once
    in the combat damage step (510.2), and combat over once the end of combat step has ended
    (511.3). A creature that phases out after blockers are declared leaves combat (506.4), and
    the attacker it blocked stays blocked (509.1h), dealing no damage."""
    play = api.new_game("2026-09-25", turn=2, permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"},
        {"name": "angel", "card": "Serra Angel", "controller": "Alice"},
        {"name": "wall", "card": "Wall of Air", "controller": "Bob"}])
    assert play.state()["step"] == "precombat main phase"
    play.attack(["bear", "angel"], at={"angel": "Bob"})
    assert play.state()["step"] == "declare attackers step"
    play.block({"wall": "bear"})
    board = play.state()["permanents"]
    assert board["wall"]["blocking"] and board["bear"]["attacking"] and board["angel"]["attacking"]
    play.cast("Slip Away", "Alice", ["wall"])
    assert not play.state()["permanents"]["wall"]["blocking"]
    play.to_step("combat damage step")
    state = play.state()
    assert state["players"]["Bob"]["life"] == 16  # the angel, unblocked; the bear, blocked, deals none
    assert state["permanents"]["bear"]["damage"] == 0
    play.to_step("postcombat main phase")
    assert not play.state()["permanents"]["angel"]["attacking"]
    with pytest.raises(DiagnosticError, match="the declare blockers step of this turn is over"):
        play.block({"wall": "angel"})
