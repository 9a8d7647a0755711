"""The Python API raises one documented exception for bad input: DiagnosticError (issue 14, item 6).

Every public function of `interpreter.api` checks its arguments: None where a value is
needed, or a value of the wrong type, raises `dsl.diagnostics.DiagnosticError` whose
diagnostic names the function and the argument and carries a hint - never TypeError,
AttributeError or KeyError from deep inside. `check_paths` reads only the paths it is given.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from phasing_rules.dsl.diagnostics import Diagnostic, DiagnosticError, Span
from phasing_rules.dsl.parser import parse_file
from phasing_rules.interpreter import api
from phasing_rules.interpreter.game.budget import Budget
from samples import GOOD_SCENARIO

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "tests" / "scenarios" / "tour.scenario"

GOOD = GOOD_SCENARIO


def rejects(call, *names: str) -> Diagnostic:
    """`call()` raises DiagnosticError with one diagnostic naming each of `names`, with a hint."""
    with pytest.raises(DiagnosticError) as info:
        call()
    (d,) = info.value.diagnostics
    for name in names:
        assert name in d.message or name in d.span.path, d
    assert d.kind == "error" and d.hint, d
    return d


def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.scenario"
    path.write_text(GOOD, encoding="utf-8")
    return path


def the_scenario(path: Path):
    return next(item for item in parse_file(path).items if type(item).__name__ == "Scenario")


# ---------------------------------------------------------------------------- load


@pytest.mark.parametrize("value", [3, b"2026-09-25", ["2026-09-25"], "", "  ", object()])
def test_load_rejects_a_version_that_is_not_text(value):
    rejects(lambda: api.load(value), "load", "version")


def test_load_of_an_unknown_version_is_a_diagnostic_listing_the_known_ones():
    d = rejects(lambda: api.load("1999-01-01"), "1999-01-01")
    assert "2026-09-25" in d.hint


def test_load_with_none_is_the_newest_version():
    assert api.load(None).version.id == api.load().version.id == "2026-09-25"


# ---------------------------------------------------------------------------- run_file


@pytest.mark.parametrize("value", [None, 5, ["a.scenario"], b"a.scenario", "", "a\0b"])
def test_run_file_rejects_a_path_that_is_not_a_path(value):
    rejects(lambda: api.run_file(value), "run_file", "path")


@pytest.mark.parametrize("value", [5, [5], ["2026-09-25", ""], [], ""])
def test_run_file_rejects_rules_that_are_not_text(tmp_path, value):
    """`rules` is a name or a list of names (a list runs under each): anything else is rejected."""
    rejects(lambda: api.run_file(good(tmp_path), rules=value), "run_file", "rules")


@pytest.mark.parametrize("value", [5, 2.5, {"scale": 2}])
def test_run_file_rejects_a_budget_of_the_wrong_type(tmp_path, value):
    rejects(lambda: api.run_file(good(tmp_path), budget=value), "run_file", "budget")


def test_run_file_rejects_budget_text_it_cannot_read(tmp_path):
    rejects(lambda: api.run_file(good(tmp_path), budget="lots"), "budget")


@pytest.mark.parametrize("call, name", [
    (lambda: api.new_game(budget="x"), "new_game"),
    (lambda: api.new_game(budget="writes=0"), "new_game"),
    (lambda: api.run_file(TOUR, budget="scale=1,scale=2"), "run_file"),
])
def test_budget_text_the_api_cannot_read_is_named_after_the_call_not_the_flag(call, name):
    """docs/api.md: an API error is named after the call; budget text it cannot read was
    reported at `--budget`, a flag of the command the caller never used."""
    d = rejects(call, f"{name}(budget)", "budget")
    assert d.message.startswith(f"{name}(): budget") and "--budget" not in d.hint


def test_run_file_runs_under_a_budget_given_as_an_object_or_as_text(tmp_path):
    """CR 702.26a: the djinn phases out in its controller's untap step, within a generous budget."""
    for budget in (Budget(scale=128), "128", None):
        (outcome,) = api.run_file(good(tmp_path), budget=budget)
        assert outcome.passed, outcome.failures


def test_run_file_passes_its_budget_to_the_engine(tmp_path):
    """One iteration per step is too few for the first state check's selection over the board
    (CR 704.5g), so the run stops with an error about the budget instead of passing."""
    (outcome,) = api.run_file(good(tmp_path), budget="iterations=1")
    assert not outcome.passed
    assert any("iterations budget" in f.message for f in outcome.failures), outcome.failures


def test_run_file_on_a_file_with_no_scenario_is_a_diagnostic(tmp_path):
    empty = tmp_path / "empty.scenario"
    empty.write_text("# nothing here\n", encoding="utf-8")
    d = rejects(lambda: api.run_file(empty), "no scenario")
    assert d.span.path == str(empty)


# ---------------------------------------------------------------------------- game_from_scenario


def test_game_from_scenario_rejects_what_is_not_a_scenario():
    book = api.load()
    for value in (None, "scenario", parse_file(TOUR)):
        rejects(lambda: api.game_from_scenario(value, book), "game_from_scenario", "scenario")


def test_game_from_scenario_rejects_what_is_not_a_rulebook(tmp_path):
    scenario = the_scenario(good(tmp_path))
    for value in (None, "2026-09-25", {}):
        rejects(lambda: api.game_from_scenario(scenario, value), "game_from_scenario", "book")


def test_game_from_scenario_builds_the_game_it_describes(tmp_path):
    game = api.game_from_scenario(the_scenario(good(tmp_path)), api.load())
    assert set(game.players) == {"Alice", "Bob"}


# ---------------------------------------------------------------------------- check_paths


@pytest.mark.parametrize("value", [5, {"a.scenario"}, [None], [5], [""], b"x.scenario"])
def test_check_paths_rejects_what_is_not_a_path_or_a_list_of_them(value):
    rejects(lambda: api.check_paths(value), "check_paths", "paths")


def test_check_paths_takes_one_str_as_one_path_and_walks_nothing_else(tmp_path, monkeypatch):
    """A str is one path, not a list of one-letter paths ('.' among them would walk the
    current folder): a missing file gives exactly one diagnostic, naming it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.scenario").write_text("not a scenario\n", encoding="utf-8")  # would fail if walked
    problems = api.check_paths("x.scenario")
    assert [d.message for d in problems] == ["no such file or folder: x.scenario"]


def test_check_paths_takes_one_path_object(tmp_path):
    assert api.check_paths(good(tmp_path)) == []
    assert api.check_paths((good(tmp_path),)) == []


def test_check_paths_reads_a_folder_below_itself_only(tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    good(inner)
    (tmp_path / "broken.scenario").write_text("scenario {\n", encoding="utf-8")  # beside, not below
    assert api.check_paths([inner]) == []
    assert api.check_paths([tmp_path])  # the broken file is found when its folder is given


# ---------------------------------------------------------------------------- default_suite, outcome_json


def test_default_suite_is_a_folder_of_scenarios():
    suite = api.default_suite()
    assert suite.is_dir() and any(suite.glob("*.scenario"))


@pytest.mark.parametrize("value", [None, {}, "outcome"])
def test_outcome_json_rejects_what_is_not_an_outcome(value):
    rejects(lambda: api.outcome_json(value), "outcome_json")


def test_outcome_json_rejects_a_with_trace_that_is_not_a_bool(tmp_path):
    (outcome,) = api.run_file(good(tmp_path))
    rejects(lambda: api.outcome_json(outcome, with_trace="no"), "outcome_json", "with_trace")
    assert "trace" not in api.outcome_json(outcome, with_trace=False)


def test_diagnostic_json_gives_the_position_message_and_hint(tmp_path):
    d = rejects(lambda: api.load("1999-01-01"))
    data = api.diagnostic_json(d)
    assert data["message"] == d.message and data["hint"] == d.hint and data["path"] == d.span.path
    assert (data["line"], data["column"]) == (d.span.line, d.span.column)
    rejects(lambda: api.diagnostic_json("not one"), "diagnostic_json")


def test_the_module_documents_its_one_exception_type():
    assert "DiagnosticError" in api.__doc__ and ".diagnostics" in api.__doc__


def test_names_no_file_can_have_are_diagnostics(tmp_path):
    long = "a" * 300  # longer than any file name: the file system answers with OSError
    rejects(lambda: api.load(long), "unknown rules version")
    rejects(lambda: api.run_file(tmp_path / f"{long}.scenario"), long)
    rejects(lambda: api.run_file(good(tmp_path), rules=long), "unknown rules version")
    (d,) = api.check_paths(tmp_path / f"{long}.scenario")
    assert long in d.message and d.hint


# ---------------------------------------------------------------------------- the actions' arguments


def a_game():
    return api.new_game("2026-09-25", permanents=[{"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])


def test_move_names_its_zone_by_a_string():
    """A zone given as something other than a name is a diagnostic, not a raw TypeError."""
    play = a_game()
    d = rejects(lambda: play.move("bear", ["exile"]), "move()", "a zone is named by a string")
    assert "exile" in d.hint
    assert "did you mean 'exile'" in rejects(lambda: play.move("bear", "exlie"), "unknown zone").hint
    assert play.state()["permanents"]["bear"]["zone"] == "battlefield"


@pytest.mark.parametrize("call", [
    lambda play: play.cast(None, "Alice", ["bear"]),
    lambda play: play.cast(["Shock"], "Alice", ["bear"]),
    lambda play: play.choose_targets(None, ["bear"]),
])
def test_a_card_is_named_by_a_string(call):
    """A card given as something other than its name is said to be so (not an 'unknown card
    "None"', as though a card could be called that), and nothing is cast."""
    play = a_game()
    d = rejects(lambda: call(play), "a card is named by a string, its name")
    assert "unknown card" not in d.message and "Grizzly Bears" in d.hint
    assert not [event for event in play.trace if event.kind == "cast"]


def test_hold_is_true_or_false():
    """hold='no' is not taken as true: the spell is not left on the stack."""
    play = a_game()
    rejects(lambda: play.cast("Shock", "Alice", ["bear"], hold="no"), "cast()", "hold is True or False")
    assert not play.game.stack and play.state()["permanents"]["bear"]["zone"] == "battlefield"


@pytest.mark.parametrize("span", ["x", 5, Span("f.scenario", "3", 1, 3, 2), Span(None, 3, 1, 3, 2),
                                  Span("f.scenario", -1, 1, 3, 2)])
def test_a_span_that_is_not_a_place_is_refused_at_the_calls_name(span):
    """docs/api.md: an action's `span` is where its errors are reported, a Span; anything else
    is a DiagnosticError at the call's name that renders and converts to JSON (it raised
    AttributeError when rendered), and the call changes nothing."""
    play = a_game()
    d = rejects(lambda: play.cast("Shock", "Alice", ["nobody"], span=span), "cast()", "span is where its errors")
    assert d.render().startswith("cast(): error:") and api.diagnostic_json(d)["path"] == "cast()"
    assert "Span(path, line, column" in d.hint
    assert not play.game.stack and len(play.trace) == 0 and play.engine.step == 0


def test_a_span_given_is_where_the_error_is_reported_and_none_is_the_calls_name():
    """A caller running a script of its own passes the place of each step; None, the default,
    names the error after the call (docs/api.md)."""
    play = a_game()
    at = Span("my.script", 4, 2, 4, 9)
    assert rejects(lambda: play.resolve(span=at), "nothing on the stack").span == at
    assert rejects(lambda: play.resolve(span=None), "nothing on the stack").span.path == "resolve()"


@pytest.mark.parametrize("call, shown", [
    (lambda play: play.cast("Shock", "Alice", ["bear"], True), "cast(card, player, targets=(), *, hold=False)"),
    (lambda play: play.resolve(1), "resolve(*, hold=False)"),
    (lambda play: play.cast("Shock"), "cast(card, player"),
    (lambda play: play.next_turn(untap=True), "next_turn(skip_untap=False, *, hold=False, skipping=())"),
    (lambda play: play.to_step("end step", True), "to_step(step, *, hold=False)"),
    (lambda play: play.block({}, True), "block(pairs, *, hold=False)"),
    (lambda play: play.attack(["bear"], False, {"bear": "Bob"}), "attack(names, *, hold=False, at=None)"),
])
def test_an_action_called_with_arguments_it_does_not_take_says_how_to_call_it(call, shown):
    """Arguments after * are keyword-only (docs/api.md); a call Python would refuse is a
    DiagnosticError whose hint is the action's signature, and it changes nothing."""
    play = a_game()
    d = rejects(lambda: call(play), "cannot take these arguments")
    assert shown in d.hint
    assert not play.game.stack and len(play.trace) == 0 and play.engine.step == 0


@pytest.mark.parametrize("call, names, hint", [
    (lambda play: play.to_step("drw step"), ("to_step()", "unknown step 'drw step'"), "did you mean 'draw step'"),
    (lambda play: play.to_step(5), ("to_step()", "unknown step 5"), "its steps and phases: untap step, upkeep step"),
    (lambda play: play.to_step(["end step"]), ("to_step()", "unknown step ['end step']"), "end step"),
    (lambda play: play.next_turn(skipping="untap step"), ("next_turn()", "skipping is a list of steps, not the string"),
     "skipping=['draw step']"),
    (lambda play: play.next_turn(skipping=["untap step", "drw step"]), ("next_turn()", "unknown step 'drw step'"),
     "did you mean 'draw step'"),
    (lambda play: play.next_turn(skipping=[None]), ("next_turn()", "unknown step None"), "its steps and phases"),
    (lambda play: play.block(["wall", "bear"]), ("block()", "takes a dict of blocker -> the attacker it blocks"),
     "block({'wall': 'bear'})"),
    (lambda play: play.block({5: "bear"}), ("block()", "unknown permanent 5"), "name a permanent"),
    (lambda play: play.attack(["bear"], at=["Bob"]), ("attack()", "at is a dict of attacker -> what it attacks"),
     "at={'bear': 'Bob'}"),
    (lambda play: play.attack(["bear"], at={"wolf": "Bob"}), ("attack()", "'wolf' is given something to attack"),
     "name it among the attackers"),
])
def test_the_turn_and_combat_actions_refuse_arguments_of_the_wrong_kind(call, names, hint):
    """docs/api.md: `to_step`, `next_turn(skipping=...)`, `block` and `attack(at=...)` name steps
    by strings the rulebook's turn declares (500.1: offered the one meant), blockers by a dict of
    blocker -> attacker (509.1a) and what each attacker attacks by a dict too (508.1b): anything
    else is a DiagnosticError at the call, with a hint, and nothing happens."""
    play = a_game()
    before = play.state()
    d = rejects(lambda: call(play), *names)
    assert hint in d.hint, d
    assert play.state() == before and len(play.trace) == 0 and play.engine.step == 0


def test_what_an_attacker_attacks_named_by_no_string_is_refused_with_a_hint():
    """508.1b: an attacker attacks a player or a planeswalker, named by a string; anything else
    is refused with a hint, and changes nothing."""
    play = a_game()
    rejects(lambda: play.attack(["bear"], at={"bear": 5}), "attack()", "named by a string")


@pytest.mark.parametrize("arguments, shown", [
    ({"players": []}, "not []"),
    ({"players": ["Alice", "Alice"]}, "not ['Alice', 'Alice']"),
    ({"turn": 0}, "not 0"),
    ({"turn": 1.5}, "not 1.5"),
])
def test_new_game_shows_the_wrong_value_it_was_given(arguments, shown):
    """The message names the value as given ("not []", "not 0"), not its type alone."""
    assert rejects(lambda: api.new_game(**arguments), "new_game").message.endswith(shown)


def test_cast_names_a_player_given_as_a_target_and_keeps_its_python_hint_for_an_aura():
    """From Python too, a player given where a card targets a permanent (601.2c) is said to be
    a player; an Aura whose card declares no target, which cannot be cast (303.4a), is pointed
    at new_game(permanents=...) too, the hint that fits a Python caller."""
    play = a_game()
    d = rejects(lambda: play.cast("Shock", "Alice", ["Bob"]), "'Bob' is a player", "Shock")
    assert "t where t is a creature" in d.hint
    d = rejects(lambda: play.cast("Teferi's Curse", "Alice", ["bear"]), "Teferi's Curse", "cannot be cast")
    assert "new_game(permanents=" in d.hint
    assert not play.game.stack and len(play.trace) == 0


# ---------------------------------------------------------------------------- calls Python would refuse


def _public_api_functions():
    """Every function `interpreter.api` offers (its `__all__`), and the classes it re-exports."""
    return [getattr(api, name) for name in api.__all__ if callable(getattr(api, name))
            and getattr(api, name) is not DiagnosticError]


def _public_methods(value):
    """The public methods of an object the API hands out (bound, so `self` is given)."""
    return [getattr(value, name) for name in dir(value) if not name.startswith("_")
            and inspect.ismethod(getattr(value, name, None))]


def _methods_of_a_game():
    play = a_game()
    view = play.game.objects["bear"]
    methods = _public_methods(play)
    methods += [getattr(play.game, name) for name in ("copy", "fingerprint", "next_player")]
    methods += [getattr(view, name) for name in ("get_status", "copy", "with_status", "counter", "values")]
    return methods


def _name(function) -> str:
    return getattr(function, "__name__", None) or type(function).__name__


def _too_many(function) -> tuple:
    parameters = inspect.signature(function).parameters.values()
    return (None,) * (1 + sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters))


@pytest.mark.parametrize("function", _public_api_functions() + _methods_of_a_game(), ids=_name)
def test_a_call_with_an_unknown_keyword_is_a_diagnostic_showing_how_to_call_it(function):
    """docs/api.md: a call with arguments a function or action does not take is a
    DiagnosticError at the call's name whose hint is its signature, never a TypeError."""
    d = rejects(lambda: function(no_such_argument=1), "cannot take these arguments", "no_such_argument")
    assert d.span.path == f"{_name(function)}()" and "call it as " in d.hint


@pytest.mark.parametrize("function", _public_api_functions() + _methods_of_a_game(), ids=_name)
def test_a_call_with_too_many_positional_arguments_is_a_diagnostic_showing_how_to_call_it(function):
    d = rejects(lambda: function(*_too_many(function)), "cannot take these arguments", "too many positional")
    assert d.span.path == f"{_name(function)}()" and "call it as " in d.hint


@pytest.mark.parametrize("call", [
    lambda: a_game().state(1),
    lambda: api.new_game(seed=1),
    lambda: api.new_game("2026-09-25", ["Alice", "Bob"], [], None, 1, None, None, 5),
    lambda: api.load(x=1),
    lambda: api.run_file(TOUR, foo=1),
    lambda: api.game_from_scenario(None),
])
def test_the_calls_the_tester_found_are_diagnostics(call):
    rejects(call, "cannot take these arguments")


def test_a_misspelt_keyword_gets_the_likeliest_parameter():
    d = rejects(lambda: api.load(verison="2026-09-25"), "load()", "verison")
    assert "did you mean 'version'?" in d.hint and "load(version=None, *, cards=None)" in d.hint


def test_a_type_error_raised_inside_a_function_is_not_taken_for_a_bad_call(monkeypatch):
    """Only a failure to bind the arguments is reported as a bad call."""
    def broken(version=None):
        raise TypeError("inside")
    monkeypatch.setattr(api, "load_version", broken)
    with pytest.raises(TypeError, match="inside"):
        api.load("2026-09-25")


# ---------------------------------------------------------------------------- counters and stickers


def _bear(**extra):
    return api.new_game(permanents=[{"name": "bear", "card": "Grizzly Bears", "controller": "Alice", **extra}])


@pytest.mark.parametrize("printed, name", [("+1/+1", "p1p1"), ("-1/-1", "m1m1")])
def test_a_counter_kind_spelt_as_printed_is_refused_and_the_working_name_offered(printed, name):
    """A kind the rules cannot name (X.counters.KIND reads a plain name) is an error, not a
    counter that silently changes nothing; the hint names the kind that counts (122.1a)."""
    d = rejects(lambda: _bear(counters={printed: 2}), "new_game", repr(printed))
    assert f"did you mean '{name}'?" in d.hint


@pytest.mark.parametrize("given, name", [("P1P1", "p1p1"), ("M1m1", "m1m1")])
def test_a_counter_kind_that_differs_from_a_power_kind_only_in_case_is_refused_and_it_offered(given, name):
    """613.4c: only +1/+1 and -1/-1 counters change power and toughness, and the rules name
    them p1p1 and m1m1; 'P1P1' was taken silently as a kind that is only counted (a 2/2 stayed
    a 2/2). It is an error offering the kind meant, as '+1/+1' is; 'charge' is still taken."""
    d = rejects(lambda: _bear(counters={given: 1}), "new_game", repr(given), repr(name))
    assert f"did you mean '{name}'?" in d.hint
    assert _bear(counters={"charge": 1, name: 1}).state()["permanents"]["bear"]["counters"] == {"charge": 1, name: 1}


def test_a_permanent_cannot_have_entered_in_a_turn_still_to_come(tmp_path):
    """new_game(turn=3) with entered_turn=9 was taken, a permanent that entered six turns from
    now (and, by 302.6, one its controller has not yet controlled since their turn began). It
    is refused with a hint, from Python and from a scenario's 'entered turn' alike; turn 3
    itself and 0 (before the game began) are taken."""
    d = rejects(lambda: api.new_game(turn=3, permanents=[
        {"name": "bear", "card": "Grizzly Bears", "entered_turn": 9}]), "new_game()", "'bear'", "entered_turn 9")
    assert "at most 3" in d.hint
    for turn in (0, 3):
        play = api.new_game(turn=3, permanents=[{"name": "bear", "card": "Grizzly Bears", "entered_turn": turn}])
        assert play.state()["permanents"]["bear"]["entered_turn"] == turn
    scenario = tmp_path / "later.scenario"
    scenario.write_text('scenario "later" {\n  rules 2026-09-25\n  players Alice Bob\n  turn 3 of Alice\n'
                        '  permanent bear = "Grizzly Bears", controller Alice, entered turn 9\n  script {\n    next turn\n'
                        '  }\n}\n')
    (outcome,) = api.run_file(scenario)
    (failure,) = outcome.failures
    assert not outcome.passed and "cannot have entered in turn 9" in failure.message
    assert (failure.span.line, "at most 3" in failure.hint) == (5, True)


def test_the_hint_for_a_bad_counters_value_names_a_kind_that_works():
    d = rejects(lambda: _bear(counters={"p1p1": "two"}), "counters maps a kind to a whole number")
    assert "{'p1p1': 2}" in d.hint and "+1/+1" not in d.hint.split(":")[0]


def test_the_counter_kinds_the_hints_name_change_power_and_toughness():
    """613.4c (layer 7c): two +1/+1 counters make a 2/2 a 4/4, a -1/-1 counter a 1/1; any other
    kind is only counted."""
    assert (_bear(counters={"p1p1": 2}).state()["permanents"]["bear"]["power"]) == 4
    bear = _bear(counters={"m1m1": 1}).state()["permanents"]["bear"]
    assert (bear["power"], bear["toughness"]) == (1, 1)
    bear = _bear(counters={"charge": 3}).state()["permanents"]["bear"]
    assert (bear["power"], bear["counters"]) == (2, {"charge": 3})


def test_a_sticker_kind_is_a_plain_name_too():
    rejects(lambda: _bear(stickers={"a name": 1}), "not a sticker kind")

def test_new_game_rejects_a_permanent_phased_out_under_no_one():
    """702.26a: a permanent phases out under its controller and phases in at that player's
    untap step; given phased out with no `phased_out_under`, it would never phase in. The
    rulebook's `assert always` in 702.26a makes new_game a DiagnosticError naming it."""
    d = rejects(lambda: api.new_game("2026-09-25", permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice", "statuses": {"phase": "out"}}]),
        "'bear'", "702.26a untap-step-phasing", "new_game()")
    assert "phased_out_under = none" in d.hint
    play = api.new_game("2026-09-25", permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice",
         "statuses": {"phase": "out", "phased_out_under": "Alice"}}])
    assert play.state()["permanents"]["bear"]["statuses"]["phase"] == "out"


def _mapping_and_sequence_methods():
    """The methods of the read-only mappings and the trace a game hands out."""
    play = a_game()
    game, bear = play.game, play.game.objects["bear"]
    found = [(f"{what}.{name}", getattr(mapping, name)) for what, mapping in
             (("objects", game.objects), ("players", game.players), ("statuses", bear.statuses))
             for name in ("get", "keys", "items", "values")]
    return found + [("trace.index", play.trace.index), ("trace.count", play.trace.count)]


@pytest.mark.parametrize("what, method", _mapping_and_sequence_methods(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_read_only_mappings_and_trace_refuse_a_bad_call_as_a_diagnostic(what, method):
    """docs/api.md: the read-only views' methods, the mappings' get/keys/items/values and the
    trace's index/count included, refuse arguments they do not take with a DiagnosticError
    (they raised Python's TypeError); a good call still answers."""
    rejects(lambda: method(no_such_argument=1), "cannot take these arguments")
    rejects(lambda: method(*_too_many(method)), "cannot take these arguments")


def test_the_read_only_mappings_still_answer_good_calls():
    play = a_game()
    game, bear = play.game, play.game.objects["bear"]
    assert game.objects.get("bear").zone == "battlefield" and game.objects.get("ghost") is None
    assert list(game.objects.keys()) == ["bear"] and bear.statuses.get("phase") == "in"
    assert game.players.get("Alice").name == "Alice" and play.trace.count(None) == 0
