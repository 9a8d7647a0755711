"""Unit tests of the generic engine mechanisms, driven by the current rulebook.

The engine knows no phasing: hiding, simultaneous writes and `prefer`, perceptions and their
`changes of ... are not` exceptions, hook order, look-back and the checked assertions are
generic. Each test shows one mechanism doing what a rule block asks of it, and (where the
block is operative) that deleting or altering the block changes the outcome, so the test can
fail. Each docstring states the expected outcome and the subrule it comes from.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from phasing_rules.dsl import ast
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter.engine.engine import Engine, Obj, RulesError
from phasing_rules.interpreter.program.program import Program
from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, Rulebook, assemble, load_cards, load_version
from phasing_rules.interpreter.play.scenario import ScenarioRun
from phasing_rules.interpreter.game.trace import SCRIPT, Cause, rule_cause
from phasing_rules.interpreter.engine.hiding import hidden_by_status
from phasing_rules.interpreter.program.write_sites import WriteSites

VERSION = "2026-09-25"


@pytest.fixture(scope="module")
def book() -> Rulebook:
    return load_version(VERSION)


# ---------------------------------------------------------------- helpers


def start(book: Rulebook, setup: str, players: str = "Alice Bob", active: str = "Alice",
          backend: str | None = None) -> ScenarioRun:
    """A game built from scenario lines (permanents), under `book` (in `backend`; None: the default)."""
    text = f'scenario "unit" {{\n  players {players}\n  turn 1 of {active}\n{setup}\n  script {{\n  }}\n}}\n'
    (scn,) = parse(text, "<unit>").items
    return ScenarioRun(scn, book, "<unit>", backend=backend)


def step(run: ScenarioRun, *lines: str) -> None:
    """Play script lines, one at a time, with ScenarioRun.do."""
    for line in lines:
        (scn,) = parse(f'scenario "s" {{\n  script {{\n    {line}\n  }}\n}}\n', "<step>").items
        (script,) = scn.entries
        run.do(script.steps[0])


def statement(text: str) -> ast.Node:
    """A statement of the rules language, read as the body of a test card's spell."""
    (card,) = parse(f'card "Probe" {{\n  types instant\n  spell: {text}\n}}\n', "<probe>").items
    (spell,) = [e for e in card.entries if isinstance(e, ast.Spell)]
    return spell.body


def value(run: ScenarioRun, expr: str):
    """An expression of the rules language, evaluated by the engine against the game."""
    (scn,) = parse(f'scenario "s" {{\n  script {{\n    expect {expr}\n  }}\n}}\n', "<expr>").items
    (script,) = scn.entries
    return run.engine.eval(script.steps[0].cond, {})


def status(run: ScenarioRun, oid: str, name: str):
    e = run.engine
    return e.raw(oid, name)


def variant(edits: dict[str, list[tuple[str, str]]]) -> Rulebook:
    """The current rule files with textual edits, parsed and assembled like a shipped version."""
    modules = []
    for path in sorted((RULES_ROOT / VERSION).glob("*.rules")):
        text = path.read_text(encoding="utf-8")
        for old, new in edits.get(path.name, []):
            assert text.count(old) == 1, f"edit target not found exactly once in {path.name}: {old!r}"
            text = text.replace(old, new)
        modules.append(parse(text, str(path)))
    return assemble(modules, folder=None, cards=load_cards())


TWO_BEARS = """
  permanent bear = "Grizzly Bears", controller Alice
  permanent away = "Grizzly Bears", controller Alice, set phase = out, set phased_out_under = Alice
"""


# ================================================================ hide (702.26b)


def test_queries_that_do_not_name_phase_skip_phased_out_objects(book):
    """702.26b: a phased-out permanent is treated as though it doesn't exist. A count that doesn't
    mention `phase` sees 1 of the 2 bears; one that names `phase` sees both. Naming another status
    (phased_out_under) does not lift the hide: only the status the hide rule is written on does."""
    run = start(book, TWO_BEARS)
    assert run.engine.visible("bear") and not run.engine.visible("away")
    assert value(run, "count(x where x is a creature)") == 1
    assert value(run, "count(x where x is a creature and (x.phase is in or x.phase is out))") == 2
    assert value(run, "count(x where x.phase is out)") == 1
    assert value(run, "count(x where x.phased_out_under is Alice)") == 0


def test_statements_act_only_on_what_their_query_sees(book):
    """702.26b: `each x where x is a creature: tap x` taps the phased-in bear only; a statement
    whose query names `phase` (like 702.26a's) reaches the phased-out one."""
    run = start(book, TWO_BEARS)
    run.engine.run(statement("each x where x is a creature: tap x"), {}, SCRIPT)
    assert (run.game.objects["bear"].tapped, run.game.objects["away"].tapped) == (True, False)
    run.engine.run(statement("each x where x.phase is out: tap x"), {}, SCRIPT)
    assert run.game.objects["away"].tapped is True


def test_the_hide_comes_from_the_rule_file(book):
    """702.26b is the only source of hiding: without that block, the same count sees both bears,
    and the phased-out one can be targeted and dealt lethal damage (Shock: it goes to the
    graveyard), where the shipped rules refuse the target."""
    run = start(book.without("702.26b"), TWO_BEARS)
    assert value(run, "count(x where x is a creature)") == 2
    step(run, 'cast "Shock" by Alice targeting away')
    assert run.game.objects["away"].zone == "graveyard"


def test_a_hidden_object_cannot_be_targeted(book):
    """702.26b: a phased-out creature is not a legal target; casting at it is a RulesError."""
    run = start(book, TWO_BEARS)
    with pytest.raises(RulesError, match="cannot be a target"):
        step(run, 'cast "Giant Growth" by Alice targeting away')


# ================================================================ simultaneous writes and prefer (702.26h)


ENCHANTED = """
  permanent bear = "Grizzly Bears", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to bear
"""


def test_prefer_settles_direct_and_indirect_phasing(book):
    """702.26h: Teferi's Protection phases out the creature and its Aura directly while 702.26g
    phases the Aura out indirectly, all at once; `prefer phased_indirectly = true` settles it:
    the Aura is phased out indirectly and no error is raised."""
    run = start(book, ENCHANTED)
    step(run, "cast \"Teferi's Protection\" by Alice")
    assert status(run, "strength", "phase") == "out"
    assert status(run, "strength", "phased_indirectly") is True
    assert status(run, "bear", "phased_indirectly") is False


def test_without_prefer_the_same_writes_conflict(book):
    """702.26h deleted: the same cast writes phased_indirectly = false (the verb phase_out, from the
    card) and = true (702.26g) to the Aura at once, which the engine refuses as conflicting, naming
    both causes."""
    run = start(book.without("702.26h"), ENCHANTED)
    with pytest.raises(RulesError) as info:
        step(run, "cast \"Teferi's Protection\" by Alice")
    message = info.value.diagnostics[0].message
    assert "conflicting" in message
    assert "strength.phased_indirectly" in message
    assert "Teferi's Protection" in message and "702.26g" in message


def test_conflicting_writes_of_any_attribute_are_an_error(book):
    """Generic: two different values written at once to one attribute with no `prefer` for it
    (tapped) is a RulesError; the same two statements in sequence are fine (the last one wins)."""
    run = start(book, ENCHANTED)
    with pytest.raises(RulesError, match="conflicting simultaneous changes: bear.tapped"):
        run.engine.run(statement("simultaneously { each x where x is a creature: tap x  each x where x is a creature: untap x }"),
                       {}, SCRIPT)
    assert run.game.objects["bear"].tapped is False, "nothing was applied"
    run.engine.run(statement("{ each x where x is a creature: untap x  each x where x is a creature: tap x }"), {}, SCRIPT)
    assert run.game.objects["bear"].tapped is True


def test_a_write_that_changes_nothing_still_meets_a_contradicting_one_through_an_as_clause(book):
    """Generic: 506.4's `as` clause sets attacking to false as the bear phases out; a statement
    that makes the bear attack in the same batch sets it to true. The clause's write changes
    nothing (the bear was not attacking) but contradicts the other, and no `prefer` settles
    attacking: a RulesError, in generated code (which keeps such writes only for the
    attributes a batch's writers contest, `Batch.contested`) as with the closures."""
    for generated in (True, False):
        run = start(book, ENCHANTED, backend="generated" if generated else "closures")
        with pytest.raises(RulesError, match="conflicting simultaneous changes: bear.attacking"):
            run.engine.run(statement("simultaneously { attack with bear  do phase_out bear }"), {}, SCRIPT)
        assert run.game.objects["bear"].attacking is False, "nothing was applied"


def test_a_batch_keeps_writes_that_change_nothing_only_for_contested_attributes(book):
    """502.3's untap is the only writer of tapped in its batch (the `as` clauses write no
    tapped), so untapping an untapped permanent is not kept; 702.26a's batch contests phase
    and phased_indirectly (702.26g and h write them too), whose unchanged writes are kept."""
    run = start(book, ENCHANTED, backend="generated")  # (write sites are the generated code's)
    engine = run.engine
    (untap,) = [during.body for rule, during in Program.of(book).index.hooks["untap step"] if rule.id == "502.3"]
    (phasing,) = [during.body for rule, during in Program.of(book).index.hooks["untap step"] if rule.id == "702.26a"]
    cause = rule_cause(engine.program, *next((r, d) for r, d in Program.of(book).index.hooks["untap step"] if r.id == "502.3"))
    runner = engine.program.compiler.body_runner(untap, cause)
    assert runner.write_sites == WriteSites({"tapped": frozenset({("literal", False)})}, opaque=False)
    assert "tapped" not in engine.program.compiler.contested_by((runner,))
    cause = rule_cause(engine.program, *next((r, d) for r, d in Program.of(book).index.hooks["untap step"] if r.id == "702.26a"))
    assert {"phase", "phased_indirectly"} <= engine.program.compiler.contested_by((engine.program.compiler.body_runner(phasing, cause),))


def test_simultaneous_selection_is_made_before_anything_changes(book):
    """702.26a: the two halves of the untap-step phasing happen at once, so a permanent with
    phasing that phases in is not selected to phase out in the same step (and vice versa)."""
    run = start(book, """
  permanent sleeper = "Breezekeeper", controller Alice, set phase = out, set phased_out_under = Alice
  permanent awake = "Breezekeeper", controller Alice
""", active="Bob")
    step(run, "next turn")
    assert (status(run, "sleeper", "phase"), status(run, "awake", "phase")) == ("in", "out")


# ================================================================ perceptions: changes of phase are not ... (702.26d, 702.26j)


RIFTWATCHER = """
  permanent watcher = "Aven Riftwatcher", controller Alice
"""


def test_phasing_is_not_a_zone_change(book):
    """702.26d: phasing Aven Riftwatcher out and back in triggers neither its leaves- nor its
    enters-the-battlefield ability: Alice stays at 20 life, and the trace has no leaves/enters event."""
    run = start(book, RIFTWATCHER)
    step(run, 'cast "Slip Away" by Alice targeting watcher', 'cast "Time and Tide" by Alice')
    assert status(run, "watcher", "phase") == "in"
    assert run.game.players["Alice"].life == 20
    assert not [e for e in run.engine.trace if e.kind in ("enters", "leaves")]


def test_without_702_26d_phasing_fires_zone_change_triggers(book):
    """702.26d deleted: the engine's default perception applies, so phasing out is seen as leaving
    the battlefield (+2 life, 22) and phasing in as entering it (+2 more, 24)."""
    run = start(book.without("702.26d"), RIFTWATCHER)
    step(run, 'cast "Slip Away" by Alice targeting watcher')
    assert run.game.players["Alice"].life == 22
    leaves = [e for e in run.engine.trace if e.kind == "leaves"]
    assert [e.subject for e in leaves] == ["watcher"] and "as the game sees it" in leaves[0].detail
    step(run, 'cast "Time and Tide" by Alice')
    assert run.game.players["Alice"].life == 24


def test_without_702_26j_phasing_fires_attachment_triggers(book):
    """702.26j: phasing out a creature together with its Aura is not becoming unattached, so
    Attachment Watcher's "becomes unattached" ability does not trigger (life 20). With 702.26j
    deleted it does (life 21)."""
    setup = """
  permanent watcher = "Attachment Watcher", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to watcher
"""
    lives = []
    for rules in (book, book.without("702.26j")):
        run = start(rules, setup)
        step(run, 'cast "Slip Away" by Alice targeting watcher')
        assert status(run, "strength", "phase") == "out"
        lives.append(run.game.players["Alice"].life)
    assert lives == [20, 21]


# ================================================================ order (502.1), exempt (610.4), look back (603.10b)


TAPPED_AWAY = """
  permanent bear = "Grizzly Bears", controller Alice, tapped, set phase = out, set phased_out_under = Alice
"""


def test_phasing_comes_before_untapping(book):
    """502.1: the untap step begins with phasing, so a tapped permanent that phases in is untapped
    in the same step (502.3)."""
    run = start(book, TAPPED_AWAY, active="Bob")
    step(run, "next turn")
    assert status(run, "bear", "phase") == "in" and run.game.objects["bear"].tapped is False


def test_without_502_1_a_phased_in_permanent_stays_tapped(book):
    """502.1 deleted: hooks run in CR order, 502.3 before 702.26a, so the bear is untapped (no-op:
    it is phased out) before it phases in, and stays tapped."""
    run = start(book.without("502.1"), TAPPED_AWAY, active="Bob")
    step(run, "next turn")
    assert status(run, "bear", "phase") == "in" and run.game.objects["bear"].tapped is True


def test_exempt_keeps_a_phase_out_until_permanent_out_in_untap_steps(book):
    """610.4: a permanent phased out until Oubliette leaves doesn't phase in at its controller's
    untap step (the `exempt ... from 702.26a` clause); without that clause it does."""
    setup = '  permanent bear = "Grizzly Bears", controller Bob'
    exemptless = variant({"support.rules": [("  clause not-at-untap: exempt x from 702.26a where x.phase_until is not none\n", "")]})
    phases = []
    for rules in (book, exemptless):
        run = start(rules, setup)
        step(run, 'choose "Oubliette" targeting bear', 'cast "Oubliette" by Alice', "next turn")
        assert run.game.active == "Bob"
        phases.append(status(run, "bear", "phase"))
    assert phases == ["out", "in"]


def test_look_back_lets_a_phase_out_trigger_see_its_source(book):
    """603.10b: Ertai's Familiar's "when this phases out" ability triggers although the Familiar is
    then phased out (Alice draws 1); without the look-back it is not seen and nothing triggers."""
    setup = '  permanent familiar = "Ertai\'s Familiar", controller Alice'
    hands = []
    for rules in (book, book.without("603.10b")):
        run = start(rules, setup, active="Bob")
        step(run, "next turn")
        assert status(run, "familiar", "phase") == "out"
        hands.append(run.game.players["Alice"].hand)
    assert hands == [1, 0]


# ================================================================ checked assertions


def test_assertion_702_26d_fires_when_phasing_changes_counters(book):
    """702.26d (assertion): counters stay on a phasing permanent. A variant 702.26a that also changes
    a permanent's counters as it phases out (the language has no statement that removes counters,
    so it adds one) makes the 702.26d assertion raise a RulesError naming 702.26d."""
    broken = variant({"702.26.rules": [(
        "  clause remember-controller: as x.phase becomes out: set x.phased_out_under = x.controller\n",
        "  clause remember-controller: as x.phase becomes out: {\n    set x.phased_out_under = x.controller\n"
        "    put 1 p1p1 counters on x\n  }\n",
    )]})
    setup = '  permanent djinn = "Breezekeeper", controller Alice, counter p1p1 = 2'
    with pytest.raises(RulesError) as info:
        step(start(broken, setup, active="Bob"), "next turn")
    message = info.value.diagnostics[0].message
    assert "702.26d" in message and "no-zone-change" in message and "djinn" in message
    # the operative blocks alone change the counters; it is the assertion that objects
    run = start(broken.without("702.26d"), setup, active="Bob")
    step(run, "next turn")
    assert dict(run.game.objects["djinn"].counters) == {"p1p1": 3}
    # and the shipped rules keep them
    run = start(book, setup, active="Bob")
    step(run, "next turn")
    assert dict(run.game.objects["djinn"].counters) == {"p1p1": 2}


def test_assertion_702_26p_fires_when_phasing_happens_twice_in_one_untap_step(book):
    """702.26p (assertion): a permanent phases at most once per untap step. If 702.26a's two halves
    were not simultaneous, a permanent with phasing would phase out and straight back in: the
    assertion raises a RulesError naming 702.26p."""
    broken = variant({"702.26.rules": [("  clause phase-out-and-in: during untap step of P: simultaneously {\n",
                                        "  clause phase-out-and-in: during untap step of P: {\n")]})
    with pytest.raises(RulesError) as info:
        step(start(broken, '  permanent djinn = "Breezekeeper", controller Alice', active="Bob"), "next turn")
    message = info.value.diagnostics[0].message
    assert "702.26p" in message and "djinn.phase changed 2 times" in message


def test_assertion_702_26p_names_the_first_permanent_that_phased_twice(book):
    """702.26p (assertion), with 702.26a's halves made one after the other as above: three
    permanents with phasing phase out, in the game's order, then straight back in; the error
    names the first of them to have changed (the changes are counted per batch, and their
    order worked out only for the error: turns.HookLog)."""
    broken = variant({"702.26.rules": [("  clause phase-out-and-in: during untap step of P: simultaneously {\n",
                                        "  clause phase-out-and-in: during untap step of P: {\n")]})
    setup = "\n".join(f'  permanent {name} = "Breezekeeper", controller Alice' for name in ("zephyr", "djinn", "gale"))
    with pytest.raises(RulesError) as info:
        step(start(broken, setup, active="Bob"), "next turn")
    assert "zephyr.phase changed 2 times" in info.value.diagnostics[0].message


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdef"), unique=True), max_size=5), st.booleans())
def test_a_step_log_names_the_object_a_count_in_change_order_would(batches, deferred):
    """turns.HookLog against its definition: a count of each object's changes kept in the
    order each first changed, whose first object counted more than once is named. Each batch
    changes an object once at most (as the journal takes them); a batch's changes are given
    as ids or, as a batch of runs gives them, as a function."""
    from collections import Counter

    from phasing_rules.interpreter.engine.turns import HookLog
    log, counted = HookLog(), Counter()
    for batch in batches:
        if batch:
            log.add("phase", (lambda b=batch: b) if deferred else batch)
            counted.update(batch)
    first = next(((oid, n) for oid, n in counted.items() if n > 1), None)
    assert log.first_twice("phase") == first
    assert log.changed("phase") == bool(counted) and not log.changed("tapped")


def test_assertion_702_26c_fires_when_a_phased_in_permanent_stays_hidden(book):
    """702.26c (assertion): after phasing in, the game sees the permanent again. A variant hide rule
    that also hides tapped permanents breaks that for a tapped one, and Time and Tide phasing the
    tapped bear in raises a RulesError naming 702.26c."""
    broken = variant({"702.26.rules": [("  hide x where x.phase is out\n", "  hide x where x.phase is out or x.tapped\n")]})
    run = start(broken, '  permanent bear = "Grizzly Bears", controller Alice, tapped, '
                        'set phase = out, set phased_out_under = Alice')
    with pytest.raises(RulesError, match=r"702\.26c phasing-in-restores.*bear"):
        step(run, 'cast "Time and Tide" by Alice')


@pytest.mark.parametrize("backend", ["generated", "closures"])
def test_the_702_26c_assertion_names_the_first_change_that_breaks_it(backend):
    """702.26c (assertion), with the variant hide rule above: a statement phases in each
    phased-out creature and then what is attached to it, so the changes come in the order
    first bear, its tapped Holy Strength, second (tapped) bear. Two of them stay hidden; the
    error names the first of those in the order of the changes, the Aura, in either backend
    (generated code tests a batch of runs run by run, the bears' run first, and looks at the
    order only once one fails: Assertions.holds_in_runs)."""
    broken = variant({"702.26.rules": [("  hide x where x.phase is out\n", "  hide x where x.phase is out or x.tapped\n")]})
    out = "set phase = out, set phased_out_under = Alice"
    run = start(broken, "\n".join([
        f'  permanent first = "Grizzly Bears", controller Alice, {out}',
        f'  permanent halo = "Holy Strength", controller Alice, attached to first, tapped, {out}',
        f'  permanent second = "Grizzly Bears", controller Alice, tapped, {out}']), backend=backend)
    body = statement("each x where x.phase is out and x is a creature: "
                     "{ phase_in x  each y where y.attached_to is x and y.phase is out: phase_in y }")
    with pytest.raises(RulesError, match=r"702\.26c phasing-in-restores does not hold for halo$"):
        run.engine.run(body, {}, SCRIPT)


@pytest.mark.parametrize("backend", ["generated", "closures"])
def test_a_static_ability_gives_nothing_to_what_the_game_does_not_see(backend):
    """Generic (702.26b's reading of static abilities): what a static ability gives counts only
    while the game sees the object too. A variant hides tapped permanents; Grizzly Bears with
    Holy Strength is 3/4, so a selection of creatures with toughness over 3 taps it; tapped,
    hidden, read by a selection that includes hidden objects, it is a 2/2 again (its Aura is
    still on the battlefield, still seen: no state check has been made)."""
    hidden_tapped = variant({"702.26.rules": [("  hide x where x.phase is out\n", "  hide x where x.phase is out or x.tapped\n")]})
    run = start(hidden_tapped, '  permanent bear = "Grizzly Bears", controller Alice\n'
                               '  permanent halo = "Holy Strength", controller Alice, attached to bear', backend=backend)
    run.engine.run(statement("each x where x is a creature and x.toughness > 3: tap x"), {}, SCRIPT)
    assert run.game.objects["bear"].tapped is True
    run.engine.run(statement("each x including hidden where x is a creature and x.toughness > 2: untap x"), {}, SCRIPT)
    assert (run.game.objects["bear"].tapped, run.game.objects["halo"].zone) == (True, "battlefield")


@pytest.mark.parametrize("backend", ["generated", "closures"])
def test_a_hide_rule_hides_nothing_off_the_battlefield(book, backend):
    """702.26b hides phased-out permanents; a card in a graveyard is no permanent, whatever its
    `phase` status says. A statement phases out every creature card, the one in the graveyard
    too (generated code writes it in the same run as the one on the battlefield); a selection
    of every zone then still finds the graveyard card and taps it, while the game no longer
    sees the bear."""
    run = start(book, '  permanent bear = "Grizzly Bears", controller Alice\n'
                      '  permanent gone = "Grizzly Bears", controller Alice, tapped', backend=backend)
    run.engine.run(statement("each x where x is a creature and x.tapped: move x to graveyard"), {}, SCRIPT)
    run.engine.run(statement("each object x where x is a creature: phase_out x"), {}, SCRIPT)
    assert run.game.objects["gone"].get_status("phase", "in") == "out"
    run.engine.run(statement("each object x where x is a creature and x.zone is not battlefield: tap x"), {}, SCRIPT)
    assert (run.game.objects["gone"].tapped, run.engine.visible("bear")) == (True, False)


@pytest.mark.parametrize("backend", ["generated", "closures"])
def test_last_known_information_holds_only_what_seen_sources_gave(backend):
    """603.10b with 702.26b: what is kept of a permanent the game stops seeing is what it was
    then, static abilities included only from sources the game saw. A variant hides tapped
    permanents; Grizzly Bears wears a tapped (so unseen) Holy Strength and is a 2/2; when it
    phases out, its last known toughness is 2, not 4."""
    hidden_tapped = variant({"702.26.rules": [("  hide x where x.phase is out\n", "  hide x where x.phase is out or x.tapped\n")]})
    run = start(hidden_tapped, '  permanent bear = "Grizzly Bears", controller Alice\n'
                               '  permanent halo = "Holy Strength", controller Alice, attached to bear, tapped', backend=backend)
    run.engine.run(statement("each x where x is a creature: phase_out x"), {}, SCRIPT)
    assert (run.game.objects["bear"].get_status("phase", "in"), run.game.lki["bear"]["toughness"]) == ("out", 2)


def test_assertion_702_26i_fires_when_phasing_in_moves_an_attachment(book):
    """702.26i (assertion): a directly phased-out Aura phases in attached to what it was attached to.
    A variant that unattaches whatever phases in makes the assertion raise a RulesError naming 702.26i."""
    broken = variant({"702.26.rules": [("  clause clear-indirect-mark: as x.phase becomes in: set x.phased_indirectly = false\n",
                                        "  clause clear-indirect-mark: as x.phase becomes in: set x.phased_indirectly = false\n"
                                        "  as x.phase becomes in: unattach x\n")]})
    run = start(broken, ENCHANTED)
    step(run, 'cast "Slip Away" by Alice targeting strength', "next turn")
    with pytest.raises(RulesError, match=r"702\.26i reattach-on-return.*strength"):
        step(run, "next turn")


def test_assertion_always_of_702_26a_fires_when_a_permanent_phases_out_under_no_one(book):
    """702.26a (`assert always`): a phased-out permanent phased out under a player, or it would
    never phase in. A variant without the clause that records the controller as a permanent
    phases out leaves Slip Away's bear phased out under no one: the invariant, checked after
    each step and not only on the state a game starts from, raises a RulesError naming 702.26a
    and the bear, and the shipped rules keep it."""
    broken = variant({"702.26.rules": [(
        "  clause remember-controller: as x.phase becomes out: set x.phased_out_under = x.controller\n", "")]})
    setup = '  permanent bear = "Grizzly Bears", controller Alice'
    with pytest.raises(RulesError, match=r"702\.26a untap-step-phasing does not hold for bear"):
        step(start(broken, setup), 'cast "Slip Away" by Alice targeting bear')
    run = start(book, setup)
    step(run, 'cast "Slip Away" by Alice targeting bear')
    assert status(run, "bear", "phased_out_under") == "Alice"


def test_assertion_always_of_702_26g_fires_for_an_aura_its_host_left_behind(book):
    """702.26g (`assert always`): an indirectly phased-out Aura hangs on a phased-out host. A
    variant whose host phases in without what went with it (702.26g's return clause dropped)
    leaves Holy Strength phased out indirectly on a phased-in bear. The step changed only the
    bear: the invariant is looked at for what the step changed and what is attached to it, so
    the Aura is found, and the error names 702.26g and it."""
    line = ("  clause attachments-return-along: as x.phase becomes in: each y where y.phase is out and "
            "y.phased_indirectly and y.attached_to is x: {\n    phase_in y\n  }\n")
    broken = variant({"702.26.rules": [(line, "")]})
    run = start(broken, ENCHANTED)
    step(run, 'cast "Slip Away" by Alice targeting bear', "next turn")
    with pytest.raises(RulesError, match=r"702\.26g indirect-phasing does not hold for strength"):
        step(run, "next turn")


def test_assert_always_is_looked_at_only_where_a_step_changed_what_it_reads(book):
    """Program.always_local_reads: 2026-09-25's two `assert always` conditions read statuses
    of the permanent and of what it is attached to, so a step is checked at the permanents it
    changed and their attachments; a condition that reads a characteristic (power, which
    effects change) or the turn makes every permanent checked (None)."""
    from phasing_rules.interpreter.program.program import Program
    assert Program.of(book, "closures").always_local_reads == {"phase", "phased_out_under", "phased_indirectly",
                                                                "attached_to"}
    for cond in ("x.power > 0", "x.entered_turn <= turn"):
        changed = variant({"702.26.rules": [(
            "  clause remember-controller: as x.phase becomes out: set x.phased_out_under = x.controller\n",
            "  clause remember-controller: as x.phase becomes out: set x.phased_out_under = x.controller\n"
            f"  clause reads-more: assert always x: x.phase is in or {cond}\n")]})
        assert Program.of(changed, "closures").always_local_reads is None, cond


def test_assertion_702_26m_fires_when_a_skipped_untap_step_still_phases(book):
    """702.26m (assertion): a skipped untap step means no phasing that turn. A variant that does
    702.26a's phasing at the beginning of the turn instead of in the untap step phases a Breezekeeper
    out in a turn whose untap step is skipped; the 702.26m assertion should raise a RulesError."""
    broken = variant({"702.26.rules": [("  clause phase-out-and-in: during untap step of P: simultaneously {\n",
                                        "  clause phase-out-and-in: during beginning of turn of P: simultaneously {\n")],
                      # (702.26a no longer acts in the untap step, so 502.1's order of it there would order nothing)
                      "support.rules": [("  order untap step: 702.26a, 702.26n, 502.3\n", "  order untap step: 702.26n, 502.3\n")]})
    run = start(broken, '  permanent djinn = "Breezekeeper", controller Alice', active="Bob")
    raised = None
    try:
        step(run, "next turn skipping untap step")
    except RulesError as exc:
        raised = exc.diagnostics[0].message
    assert status(run, "djinn", "phase") == "out", "premise: the variant phased the djinn in a skipped-untap turn"
    assert raised is not None and "702.26m" in raised, f"702.26m's assertion did not fire (error: {raised})"


def test_rules_that_never_settle_are_reported(book):
    """Generic: state-based checks that flip a creature's phase forever (a variant 611.2b) make the
    engine give up with a RulesError saying the rules never settle, instead of looping."""
    broken = variant({"support.rules": [(
        "  during state check: end effects whose condition fails\n",
        "  during state check: end effects whose condition fails\n"
        "  during state check: each x where x.phase is in and x is a creature: do phase_out x\n"
        "  during state check: each x where x.phase is out and x is a creature: do phase_in x\n",
    )]})
    # the initial state is settled as the game is built, so that is where it gives up
    with pytest.raises(DiagnosticError) as info:
        start(broken, '  permanent bear = "Grizzly Bears", controller Alice')
    assert "never settle" in info.value.diagnostics[0].message


def test_reactions_that_never_end_are_reported(book):
    """Generic: `after` clauses that phase a permanent back in as it phases out and out as it
    phases in (a variant 702.26f) recurse forever; the engine stops with a RulesError."""
    broken = variant({"702.26.rules": [(
        "  after x.phase becomes out: end effects tracking x\n",
        "  after x.phase becomes out: end effects tracking x\n"
        "  after x.phase becomes out: do phase_in x\n"
        "  after x.phase becomes in: do phase_out x\n",
    )]})
    run = start(broken, '  permanent bear = "Grizzly Bears", controller Alice')
    with pytest.raises(RulesError, match="never settle"):
        step(run, 'cast "Slip Away" by Alice targeting bear')


# ================================================================ state checks notice every kind of change


def test_state_checks_notice_a_player_leaving(book):
    """704.5m, 800.4a: an Aura attached to a player who leaves the game is attached to something
    that isn't there, so the state-based action puts it into its owner's graveyard at once. (The
    generated-game property tests caught an in-progress change to the engine's state-check
    bookkeeping that left this Curse on the battlefield; this pins it.)"""
    run = start(book, '  permanent curse = "Curse of Chains", controller Bob, attached to Alice',
                players="Alice Bob Carol", active="Carol")
    step(run, "Alice leaves the game")
    assert run.game.objects["curse"].zone == "graveyard"
    (move,) = [e for e in run.engine.trace if e.kind == "change" and e.subject == "curse"]
    assert move.cause == Cause("rule", "704.5m", "illegal-aura")


def test_state_checks_notice_an_aura_phasing_out(book):
    """702.26b, 704.5g: when Holy Strength phases out, its +1/+2 is gone, and a Bears with 3 damage
    now has lethal damage and is destroyed by the state-based action."""
    run = start(book, """
  permanent bear = "Grizzly Bears", controller Alice, damage 3
  permanent strength = "Holy Strength", controller Alice, attached to bear
""")
    assert run.engine.chars("bear")["toughness"] == 4
    step(run, 'cast "Slip Away" by Bob targeting strength')
    assert run.game.objects["bear"].zone == "graveyard"


# ================================================================ the trace names its causes


def test_trace_events_name_the_rule_block_that_caused_them(book):
    """Every change records its cause: in Alice's untap step the Breezekeeper's phase change and
    phased_out_under come from 702.26a untap-step-phasing, its Aura's from 702.26g indirect-phasing;
    Slip Away's change names the card and a `move` step the script. Every rule cause carries the
    block's id and slug as the rulebook has them."""
    run = start(book, """
  permanent djinn = "Breezekeeper", controller Alice
  permanent strength = "Holy Strength", controller Alice, attached to djinn
  permanent bear = "Grizzly Bears", controller Bob
  permanent land = "Plains", controller Bob
""", active="Bob")
    step(run, "next turn", 'cast "Slip Away" by Alice targeting bear', "move land to graveyard")
    changes = {(e.subject, e.values()["attr"]): e.cause for e in run.engine.trace if e.kind == "change"}
    assert changes[("djinn", "phase")] == Cause("rule", "702.26a", "untap-step-phasing")
    assert changes[("djinn", "phased_out_under")] == Cause("rule", "702.26a", "untap-step-phasing")
    assert changes[("strength", "phase")] == Cause("rule", "702.26g", "indirect-phasing")
    assert changes[("strength", "phased_indirectly")] == Cause("rule", "702.26g", "indirect-phasing")
    assert changes[("bear", "phase")] == Cause("card", "Slip Away")
    assert changes[("land", "zone")] == SCRIPT
    untap = next(e for e in run.engine.trace if e.kind == "change" and e.subject == "djinn")
    assert untap.render().startswith("[702.26a untap-step-phasing] djinn: phase: in -> out")
    for e in run.engine.trace:
        if e.cause.kind == "rule":
            rule = book.rule(e.cause.id)
            assert rule is not None and e.cause.label == rule.slug, e.render()


def test_engine_can_be_driven_directly(book):
    """The Engine API without a scenario: next_turn, player_leaves and cleanup on a game built once.
    702.26a phases the djinn out in Alice's untap step and in at her next one; 702.26k takes Bob's
    phased-out bear out of the game when Bob leaves; 514.2 clears damage on a phased-out permanent."""
    run = start(book, """
  permanent djinn = "Breezekeeper", controller Alice
  permanent bear = "Grizzly Bears", controller Bob, damage 1, set phase = out, set phased_out_under = Bob
""", players="Alice Bob Carol", active="Carol")
    engine: Engine = run.engine
    engine.cleanup()
    assert run.game.objects["bear"].damage == 0
    engine.next_turn()
    assert (run.game.active, status(run, "djinn", "phase")) == ("Alice", "out")
    engine.player_leaves("Bob")
    assert run.game.objects["bear"].zone == "outside"
    assert not [e for e in engine.trace if e.kind == "trigger"]
    engine.next_turn()
    assert run.game.active == "Carol", "Bob's turn is skipped"
    engine.next_turn()
    assert (run.game.active, status(run, "djinn", "phase")) == ("Alice", "in")


# ================================================================ what the rulebook lets the engine skip


def test_what_the_game_sees_follows_writes_to_phase_under_the_shipped_rules(book):
    """702.26b hides by the `phase` status alone, so only a write to `phase` (or a zone change)
    can change whether the game sees an object: the engine compares sight before and after a
    batch only then."""
    assert Program.of(book).hide_inputs == {"phase", "zone"}
    assert Program.of(book).sight_follows_writes


def test_a_hide_rule_reading_what_a_static_ability_changes_makes_sight_follow_more_than_writes():
    """Were a hide rule to read toughness, a static ability (Holy Strength's +1/+2) could change
    what the game sees without any write to the object seen, so no batch may skip the comparison."""
    edited = variant({"702.26.rules": [("hide x where x.phase is out", "hide x where x.phase is out or x.toughness > 10")]})
    assert "toughness" in Program.of(edited).hide_inputs
    assert not Program.of(edited).sight_follows_writes


def test_static_abilities_read_the_types_their_is_a_tests_name(book):
    """The anthem's `each x where x is a creature and x.controller is you` reaches an object
    according to its types: a change of types must make the anthem's sources be worked out again."""
    assert {"types", "controller", "attached_to"} <= Program.of(book).static_attrs


def test_a_hide_rule_read_straight_off_the_object_agrees_with_evaluating_it(book):
    """702.26b's `x.phase is out` is read off the stored status (Hiding.status_test); for every
    object, phased in or out, that is what evaluating the rule says."""
    run = start(book, TWO_BEARS + """
  permanent under = "Grizzly Bears", controller Bob, set phase = out, set phased_out_under = Bob
""")
    engine = run.engine
    ((_rule, hide),) = Program.of(book).index.hides
    assert [shape for _var, _test, shape in engine.hide_tests] == [("phase", "in", "out", "out")]
    seen = {}
    for oid, o in run.game.objects.items():
        evaluated = o.zone == "battlefield" and engine.truthy(engine.eval(hide.cond, {hide.var: Obj(oid, True)}))
        assert engine.is_hidden(oid) == evaluated, oid
        seen[oid] = evaluated
    assert seen == {"bear": False, "away": True, "under": True}
    # put_all reads the same off each object it makes (hidden_by_status), the names checked once
    tests = engine.hiding.stored_hide_tests()
    assert tests == (("phase", "in", "out"),)
    assert {oid: hidden_by_status(o, tests) for oid, o in run.game.objects.items()} == seen


def test_a_hide_rule_whose_value_names_an_object_is_not_read_off_statuses(book):
    """When an object is called `out`, 702.26b's `x.phase is out` compares with that object, not
    with the symbol: stored_hide_tests then declines (None), and put_all and selections fall back
    to evaluating the rule."""
    run = start(book, TWO_BEARS + """
  permanent out = "Grizzly Bears", controller Bob
""")
    assert run.engine.hiding.stored_hide_tests() is None


def test_a_selection_that_skips_hidden_objects_leaves_them_out_through_the_indexes(book):
    """502.3's `each x where x.controller is P` skips what the game does not see (702.26b). Asked
    with unseen_out, candidates() leaves out what 702.26b's stored status hides before sorting:
    the same objects the loop would keep, in the same (game) order."""
    run = start(book, TWO_BEARS + """
  permanent under = "Grizzly Bears", controller Alice, set phase = out, set phased_out_under = Alice
  permanent other = "Grizzly Bears", controller Alice, tapped
""")
    engine = run.engine
    untap = next(during.body for rule, during in Program.of(book).index.hooks["untap step"] if rule.id == "502.3")
    q, env = engine.compiler.query(untap), {"P": engine.value_of("Alice", {})}
    everything, _ = engine.selector.candidates(q, env, True)
    seen, _ = engine.selector.candidates(q, env, True, unseen_out=True)
    assert "under" in everything and "under" not in seen
    assert list(seen) == [oid for oid in everything if not engine.is_hidden(oid)]


def test_a_step_makes_no_reference_cycles(book):
    """run_hook pauses Python's cycle collector (engine.collector_paused) because the engine's
    records are freed by reference counting alone: an untap step that phases an Aura out with
    its creature, untaps, and checks state-based actions leaves nothing for the collector."""
    import gc

    run = start(book, """
  permanent djinn = "Breezekeeper", controller Alice, tapped
  permanent strength = "Holy Strength", controller Alice, attached to djinn
  permanent away = "Breezekeeper", controller Alice, set phase = out, set phased_out_under = Alice
""")
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        run.engine.next_turn()
        run.engine.next_turn()
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    assert gc.isenabled() == was, "the collector is left as it was found"
    assert status(run, "djinn", "phase") == "out" and status(run, "strength", "phase") == "out"
