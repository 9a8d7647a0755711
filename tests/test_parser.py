"""Unit tests for dsl/parser.py: every kind of item, clause, statement, card entry and
scenario entry parses to the expected AST; nodes carry correct spans; syntax errors give a
positioned Diagnostic with a hint; every shipped file parses."""

from __future__ import annotations

import functools

from pathlib import Path

import pytest

from phasing_rules.dsl import ast as A
from phasing_rules.dsl.diagnostics import Diagnostic, DiagnosticError, Span
from phasing_rules.dsl.parser import parse, parse_file

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_RULES = sorted((ROOT / "rules").rglob("*.rules"))
SHIPPED_SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.scenario"))
SHIPPED = SHIPPED_RULES + SHIPPED_SCENARIOS


def N(name: str) -> A.Name:
    return A.Name(name)


def one_item(text: str):
    module = parse(text, "t.rules")
    assert len(module.items) == 1, module
    return module.items[0]


def rule_clauses(body: str) -> tuple:
    rule = one_item(f'rule 702.26a some-slug "summary" {{\n{body}\n}}')
    assert isinstance(rule, A.Rule)
    return rule.clauses


def spell_body(stmt: str):
    """The statement of a card's `spell:` entry."""
    card = one_item(f'card "C" {{\n  spell: {stmt}\n}}')
    (entry,) = card.entries
    assert isinstance(entry, A.Spell)
    return entry.body


def syntax_error(text: str, path: str = "bad.rules") -> Diagnostic:
    with pytest.raises(DiagnosticError) as info:
        parse(text, path)
    diagnostics = info.value.diagnostics
    assert len(diagnostics) == 1
    return diagnostics[0]


# ------------------------------------------------------------------ items


def test_version_manifest_gives_id_title_extends_sections_and_notes():
    item = one_item(
        "version 2026-09-25 {\n"
        '  title "CR of 2026"\n'
        "  extends 2025-02-07\n"
        "  section 702.26 subrules a b c\n"
        "  section 610.4 subrules b\n"
        '  note "first"\n'
        '  note "second"\n'
        "}"
    )
    assert item == A.Version(
        "2026-09-25", "CR of 2026", A.Extends("2025-02-07"),
        (A.Section("702.26", ("a", "b", "c")), A.Section("610.4", ("b",))),
        ("first", "second"),
    )


def test_empty_version_has_no_title_extends_sections_or_notes():
    assert one_item("version 2026-09-25 { }") == A.Version("2026-09-25", None, None, (), ())


def test_version_with_renumbers_and_drops_of_ids_and_names():
    item = one_item(
        "version 2017-09-29 {\n"
        "  extends 2018-07-13\n"
        "  drop absent-controller\n"
        "  drop 702.26n\n"
        "  renumber 702.26 as 702.25\n"
        "  renumber 702.25n as 702.25m\n"
        "}"
    )
    assert item == A.Version(
        "2017-09-29", None, A.Extends("2018-07-13"), (), (),
        (A.Renumber("702.26", "702.25"), A.Renumber("702.25n", "702.25m")), (A.Drop("absent-controller"), A.Drop("702.26n")), "version",
    )


def test_reconstructed_version_says_what_was_rebuilt_and_from_what():
    item = one_item('version 2009-07-10 { extends 2011-02-04 reconstructed "from a bulletin" }')
    assert item == A.Version("2009-07-10", None, A.Extends("2011-02-04"), (), (), reconstructed="from a bulletin")
    assert one_item("version 2026-09-25 { }").reconstructed is None


def test_variant_is_a_manifest_named_by_a_name_that_may_extend_a_name():
    item = one_item('variant house_rules { title "ours" extends other_variant drop hidden }')
    assert item == A.Version("house_rules", "ours", A.Extends("other_variant"), (), (), (), (A.Drop("hidden"),), "variant")


def test_status_with_enum_type_default_and_cites():
    item = one_item("status phase: in | out | gone = in cites 110.5, 702.26a")
    assert item == A.StatusDecl("phase", "enum", ("in", "out", "gone"), N("in"), ("110.5", "702.26a"))


@pytest.mark.parametrize("kind", ["bool", "player", "object"])
def test_status_with_named_type_has_no_values_and_no_cites(kind):
    item = one_item(f"status s: {kind} = none")
    assert item == A.StatusDecl("s", kind, (), N("none"), ())


@pytest.mark.parametrize("text, expected", [
    ("zone phased_out keeps all cites 502.15a", A.ZoneDecl("phased_out", ("all",), ("502.15a",))),
    ("zone limbo keeps counters, damage", A.ZoneDecl("limbo", ("counters", "damage"), ())),
])
def test_zone_declaration_keeps_all_or_a_list(text, expected):
    assert one_item(text) == expected


def test_verb_with_params_cites_and_statements():
    item = one_item(
        "verb phase_out_until x y cites 610.4, 610.4b {\n"
        "  if y.zone is battlefield: tap x\n"
        "  set x.phase_until = y\n"
        "}"
    )
    assert item == A.VerbDecl(
        "phase_out_until", ("x", "y"), ("610.4", "610.4b"),
        (
            A.If(A.Is(A.Attr(N("y"), "zone"), N("battlefield")), A.Tap(N("x"))),
            A.Set((A.Assign("x", "phase_until", N("y")),)),
        ),
    )


def test_verb_without_params_or_cites_has_empty_tuples():
    assert one_item("verb noop { }") == A.VerbDecl("noop", (), (), ())


TURN_TEXT = (
    "turn cites 500.1, 502.4 {\n"
    "  beginning phase: untap step, upkeep step, draw step\n"
    "  precombat main phase\n"
    "  combat phase: beginning of combat step, declare  attackers step\n"
    "  ending phase: end step, cleanup step\n"
    "  no priority: untap step\n"
    "  priority only after triggers: cleanup step\n"
    "}"
)


def test_turn_declaration_gives_phases_steps_priority_and_cites():
    """500.1: a turn's phases in order, each with its steps (a main phase has none, 505.1, and
    is a point of the turn of its own); 502.4: the steps without priority; 514.3a: those with
    priority only after something triggered. The printer writes it back as the same tree."""
    from phasing_rules.dsl.printer import print_module

    item = one_item(TURN_TEXT)
    assert item == A.TurnStructure(
        (A.TurnPhase("beginning phase", ("untap step", "upkeep step", "draw step")), A.TurnPhase("precombat main phase"),
         A.TurnPhase("combat phase", ("beginning of combat step", "declare attackers step")),
         A.TurnPhase("ending phase", ("end step", "cleanup step"))),
        ("untap step",), ("cleanup step",), ("500.1", "502.4"))
    assert item.steps == ("untap step", "upkeep step", "draw step", "precombat main phase", "beginning of combat step",
                          "declare attackers step", "end step", "cleanup step")
    assert item.phase_of("declare attackers step") == "combat phase" and item.phase_of("precombat main phase") == "precombat main phase"
    assert item.phase_of("draw phase") is None
    module = parse(TURN_TEXT)
    assert parse(print_module(module)) == module
    assert one_item("turn { }") == A.TurnStructure(())


def test_rule_header_gives_id_slug_summary_and_no_clauses():
    assert one_item('rule 702.26p redundant-instances "Acts as one." { }') == A.Rule(
        "702.26p", "redundant-instances", "Acts as one.", ()
    )


def test_rule_id_without_letter_is_accepted():
    assert one_item('rule 502.3 untap "x" { }').id == "502.3"


def test_card_with_every_entry_kind():
    item = one_item(
        'card "Test Card" {\n'
        "  types creature djinn\n"
        "  pt 4/0\n"
        "  keywords flying, phasing\n"
        "  target t where t is a creature\n"
        "  static: tap this\n"
        "  spell: { untap t }\n"
        "  when this enters: destroy t\n"
        "  forbid attack by a where a is this and a.tapped\n"
        "  forbid block of a by b where a is this and b.power < 2\n"
        "}"
    )
    assert item == A.Card("Test Card", (
        A.Types(("creature", "djinn")),
        A.PT(4, 0),
        A.Keywords(("flying", "phasing")),
        A.Target("t", A.IsA(N("t"), "creature")),
        A.Static(A.Tap(N("this"))),
        A.Spell(A.Block((A.Untap(N("t")),))),
        A.Triggered(A.OnEnters("this"), A.Destroy(N("t"))),
        # a card's restrictions on attacking (508.1c) and blocking (509.1b)
        A.ForbidAttack("a", A.And((A.Is(N("a"), N("this")), A.Attr(N("a"), "tapped")))),
        A.ForbidBlock("a", "b", A.And((A.Is(N("a"), N("this")), A.Compare("<", A.Attr(N("b"), "power"), A.Number(2))))),
    ))


@pytest.mark.parametrize("text, expected", [
    ("this enters", A.OnEnters("this")),
    ("this leaves the battlefield", A.OnLeaves("this")),
    ("this becomes attached", A.OnAttached("this")),
    ("this becomes unattached", A.OnUnattached("this")),
    ("this.phase becomes out", A.OnChange(A.Change("this", "phase", N("out")))),
    ("this.phase becomes out and this.tapped", A.OnChange(A.Change("this", "phase", N("out"), A.Attr(N("this"), "tapped")))),
])
def test_each_trigger_kind_parses(text, expected):
    card = one_item(f'card "C" {{ when {text}: tap x }}')
    assert card.entries == (A.Triggered(expected, A.Tap(N("x"))),)


def test_scenario_with_every_entry_kind():
    item = one_item(
        'scenario "a scenario" {\n'
        "  cites 702.26a, 502.3\n"
        "  rules 2026-09-25, 2025-02-07\n"
        "  players Alice Bob\n"
        "  turn 3 of Bob\n"
        '  permanent djinn = "Breezekeeper", controller Alice\n'
        "  script {\n"
        "    next turn\n"
        "  }\n"
        "}"
    )
    assert item == A.Scenario("a scenario", (
        A.ScenarioCites(("702.26a", "502.3")),
        A.ScenarioRules(("2026-09-25", "2025-02-07")),
        A.Players(("Alice", "Bob")),
        A.TurnDecl(3, "Bob"),
        A.PermanentDecl("djinn", "Breezekeeper", (A.PropPlayer("controller", "Alice"),)),
        A.Script((A.NextTurn(),)),
    ))


@pytest.mark.parametrize("text, expected", [
    ("rules 2026-09-25", A.ScenarioRules(("2026-09-25",))),
    ("rules 2026-09-25, house", A.ScenarioRules(("2026-09-25", "house"))),
    ("rules from 2011-02-04", A.ScenarioRange("2011-02-04", None)),
    ("rules from 2011-02-04 to 2018-07-13", A.ScenarioRange("2011-02-04", "2018-07-13")),
])
def test_scenario_names_versions_by_list_or_by_range(text, expected):
    assert one_item(f'scenario "s" {{ {text} }}').entries == (expected,)


def test_permanent_with_every_prop_kind():
    item = one_item(
        'scenario "s" {\n'
        '  permanent d = "Card", token, controller Alice, attached to e, counters feather = 2,'
        " set phase = out, damage 3, entered turn 1\n"
        "}"
    )
    (decl,) = item.entries
    assert decl == A.PermanentDecl("d", "Card", (
        A.Flag("token"),
        A.PropPlayer("controller", "Alice"),
        A.PropAttached("e"),
        A.PropCounter("counters", "feather", 2),
        A.PropStatus("phase", N("out")),
        A.PropDamage(3),
        A.PropEntered(1),
    ))


def test_permanent_without_props():
    (decl,) = one_item('scenario "s" { permanent d = "Card" }').entries
    assert decl == A.PermanentDecl("d", "Card", ())


@pytest.mark.parametrize("text, expected", [
    ("next turn", A.NextTurn()),
    ("next turn skipping untap step", A.NextTurn(("untap step",))),
    ("next turn skipping untap step, draw step", A.NextTurn(("untap step", "draw step"))),
    ("hold next turn", A.NextTurn((), True)),
    ("hold next turn skipping upkeep step", A.NextTurn(("upkeep step",), True)),
    # a step's name is read with single spaces between its words, however it is written
    ("to end of  combat step", A.ToStep("end of combat step")),
    ("to precombat main phase", A.ToStep("precombat main phase")),
    ("hold to declare blockers step", A.ToStep("declare blockers step", True)),
    ('cast "Shock" by Alice', A.Cast("Shock", "Alice", (), False)),
    ('cast "Shock" by Alice targeting d, e', A.Cast("Shock", "Alice", ("d", "e"), False)),
    ('hold "Shock" by Bob targeting d', A.Cast("Shock", "Bob", ("d",), True)),
    ('choose "Phase Warden" targeting d', A.Choose("Phase Warden", ("d",))),
    ('choose "Phase Warden" targeting d, e', A.Choose("Phase Warden", ("d", "e"))),
    ("resolve", A.Resolve()),
    ("attack with d, e", A.AttackStep(("d", "e"))),
    ("attack with a at Bob", A.AttackStep(("a",), False, ("Bob",))),
    ("attack with a at Bob, b", A.AttackStep(("a", "b"), False, ("Bob", None))),
    ("hold attack with a, b at pw", A.AttackStep(("a", "b"), True, (None, "pw"))),
    ("declare blockers: w blocks a", A.BlockStep((("w", "a"),))),
    ("declare blockers: w blocks a, x blocks b", A.BlockStep((("w", "a"), ("x", "b")))),
    ("hold declare blockers: w blocks a", A.BlockStep((("w", "a"),), True)),
    ("Bob leaves the game", A.PlayerLeaves("Bob")),
    ("move d to graveyard", A.MoveStep("d", "graveyard")),
    ("cleanup", A.CleanupStep()),
    ("expect d.phase is out", A.Expect(A.Is(A.Attr(N("d"), "phase"), N("out")))),
    ('expect error "no such card"', A.ExpectError("no such card")),
    ("expect for 2017-09-29, house: d.phase is out", A.Expect(A.Is(A.Attr(N("d"), "phase"), N("out")), ("2017-09-29", "house"))),
])
def test_each_script_step_kind_parses(text, expected):
    """Each kind of script step parses to its node, and the printer writes it back to the same
    node (508.1b: what each attacker attacks, `at NAME`; 509.1a: each blocker with the attacker
    it blocks; 500.1: a step of the turn by its name)."""
    from phasing_rules.dsl.printer import print_module

    module = parse(f'scenario "s" {{ script {{\n{text}\n}} }}')
    (script,) = module.items[0].entries
    assert script == A.Script((expected,))
    assert parse(print_module(module)) == module


@pytest.mark.parametrize("text", [
    'scenario "s" { script {\nnext turn skipping untap step, draw step\nhold next turn skipping upkeep step\n} }',
    'scenario "s" { script {\nnext turn skipping untap step, draw step\nto end step\n} }',
    'scenario "s" { script {\nnext turn skipping untap step, draw step\nhold to end step\n} }',
    'verb v x {\n  add extra combat phase, end step\n  at next end step: tap x\n}',
    'card "C" {\n  spell: add extra combat phase, end step\n  at beginning of end step of you: tap x\n}',
    'rule 999.1 s "x" {\n  during upkeep step of P: add extra combat phase, end step\n  skip upkeep step where true\n}',
])
def test_a_step_after_a_list_of_steps_is_read_as_a_step(text):
    """500.1 and 500.8: a script may skip two steps of the next turn, then go on to a step of it,
    and an effect may add two steps, then do something at the next end step: the line after the
    list is read on its own."""
    (item,) = parse(text).items
    assert len(item.body if isinstance(item, A.VerbDecl) else item.entries[0].steps if isinstance(item, A.Scenario)
               else item.clauses if isinstance(item, A.Rule) else item.entries) == 2


# ------------------------------------------------------------------ clauses


HOOK_P = A.Hook("untap step", "P")


@pytest.mark.parametrize("text, expected", [
    ("hide x where x.phase is out", A.Hide("x", A.Is(A.Attr(N("x"), "phase"), N("out")))),
    ("during untap step of P: tap x", A.During(HOOK_P, A.Tap(N("x")))),
    ("during state check: { }", A.During(A.Hook("state check"), A.Block(()))),
    ("as x.phase becomes out: untap x", A.AsClause(A.Change("x", "phase", N("out")), A.Untap(N("x")))),
    ("as x.phase becomes out and x.token: untap x",
     A.AsClause(A.Change("x", "phase", N("out"), A.Attr(N("x"), "token")), A.Untap(N("x")))),
    ("after x.phase becomes in: destroy x", A.After(A.Change("x", "phase", N("in")), A.Destroy(N("x")))),
    ("after y leaves the battlefield: destroy y", A.After(A.LeavesEvent("y"), A.Destroy(N("y")))),
    ("prefer phased_indirectly = true", A.Prefer("phased_indirectly", N("true"))),
    ("changes of phase are not zone-change, control-change", A.NotPerceived("phase", ("zone-change", "control-change"))),
    ("changes of zone from phased_out are not zone-change", A.NotPerceived("zone", ("zone-change",), N("phased_out"))),
    ("as x.zone becomes phased_out from battlefield: tap x",
     A.AsClause(A.Change("x", "zone", N("phased_out"), None, N("battlefield")), A.Tap(N("x")))),
    ("as x.zone becomes exile from battlefield and x.token: tap x",
     A.AsClause(A.Change("x", "zone", N("exile"), A.Attr(N("x"), "token"), N("battlefield")), A.Tap(N("x")))),
    ("exempt x from 702.26a where x.phase_until is not none",
     A.Exempt("x", "702.26a", A.Is(A.Attr(N("x"), "phase_until"), N("none"), True))),
    ("exclude x from resolved effects where x.phase is out",
     A.Exclude("x", A.Is(A.Attr(N("x"), "phase"), N("out")))),
    ("look back on x.phase becomes out", A.Lookback(A.Change("x", "phase", N("out")))),
    ("order untap step: 702.26a, 502.3", A.Order("untap step", ("702.26a", "502.3"))),
    ("during postcombat main phase of P: tap x", A.During(A.Hook("postcombat main phase", "P"), A.Tap(N("x")))),
    # 508.8: the declare blockers step is skipped in a combat with no attackers
    ("skip declare blockers step of P where count(x where x.attacking) < 1",
     A.SkipStep(A.Hook("declare blockers step", "P"), A.Compare("<", A.Count("x", A.Attr(N("x"), "attacking")), A.Number(1)))),
    ("skip draw step where true", A.SkipStep(A.Hook("draw step"), N("true"))),
    # 508.1c and 509.1b: restrictions on attacking and blocking
    ("forbid attack by a where a.tapped", A.ForbidAttack("a", A.Attr(N("a"), "tapped"))),
    ("forbid block of a by b where a has flying and not b has flying",
     A.ForbidBlock("a", "b", A.And((A.Has(N("a"), "flying"), A.Not(A.Has(N("b"), "flying")))))),
    ("assert after x.phase becomes in: x is visible",
     A.AssertAfter(A.Change("x", "phase", N("in")), A.Visible(N("x")))),
    ("assert after x leaves the battlefield: x.zone is unchanged",
     A.AssertAfter(A.LeavesEvent("x"), A.Unchanged(A.Attr(N("x"), "zone")))),
    ("assert during untap step of P: phase changes at most once", A.AssertOnce(HOOK_P, "phase")),
    ("assert during skipped untap step of P: no change of phase", A.AssertSkipped(HOOK_P, "phase")),
    ("assert always x: x.phase is in", A.AssertAlways("x", A.Is(A.Attr(N("x"), "phase"), N("in")))),
])
def test_each_clause_kind_parses(text, expected):
    from phasing_rules.dsl.printer import print_module

    assert rule_clauses(text) == (expected,)
    module = parse(f'rule 702.26a some-slug "summary" {{\n{text}\n}}')
    assert parse(print_module(module)) == module
    labelled = parse(f'rule 702.26a some-slug "summary" {{\nclause c: {text}\n}}')
    assert labelled.items[0].clauses[0].label == "c" and parse(print_module(labelled)) == labelled


def grammar_hook_kinds() -> list[str]:
    """The alternatives of the grammar's `hook_kind` rule: each of fixed words as the parser
    joins them, and one terminal read by a pattern (a step's name) by the terminal's name."""
    from phasing_rules.dsl.parser import _parser

    parser = _parser()
    kinds = []
    for rule in parser.rules:
        if rule.origin.name == "hook_kind":
            terminals = [parser.get_terminal(sym.name) for sym in rule.expansion]
            patterned = any(t.pattern.type == "re" for t in terminals)
            kinds.append(" ".join(t.name if patterned else t.pattern.value for t in terminals))
    return sorted(kinds)


def test_hook_kinds_include_the_ones_the_shipped_rules_use():
    """Every hook a shipped version's blocks name is one of the game's own hooks or a step or
    phase of the turn the version declares (500.1; `rules/<version>/turn.rules`) or inherits
    from the version it extends."""
    from phasing_rules.dsl.builtins import GAME_HOOKS
    from phasing_rules.interpreter.rulebook.loading import RULES_ROOT, VERSION_RE, load_version

    versions = sorted(p.name for p in RULES_ROOT.iterdir() if p.is_dir() and VERSION_RE.match(p.name))
    assert (RULES_ROOT / versions[0] / "turn.rules").is_file() and (RULES_ROOT / versions[-1] / "turn.rules").is_file()
    for version in versions:
        book = load_version(version)
        steps = set(book.turn.steps)
        named = {c.hook.kind for r in book.rules for c in r.clauses if isinstance(c, (A.During, A.SkipStep))}
        named |= {c.hook for r in book.rules for c in r.clauses if isinstance(c, A.Order)}
        assert named and named <= steps | set(GAME_HOOKS), (version, named - steps - set(GAME_HOOKS))


@pytest.mark.parametrize("written, kind", [
    ("beginning of turn", "beginning of turn"), ("leaving the game", "leaving the game"),
    ("turn would begin", "turn would begin"), ("state check", "state check"),
    ("untap step", "untap step"), ("upkeep step", "upkeep step"), ("upkeep", "upkeep step"),
    ("cleanup", "cleanup step"), ("declare blockers step", "declare blockers step"),
    ("declare  blockers\tstep", "declare blockers step"), ("precombat main phase", "precombat main phase"),
])
def test_every_hook_kind_is_joined_into_one_string(written, kind):
    """Each name a hook is written with is one hook kind in the tree: a step's or phase's whole
    name, with single spaces between its words (`declare blockers step`), the older `upkeep`
    and `cleanup` as `upkeep step` and `cleanup step` (503, 514), the game's hooks as they are."""
    assert rule_clauses(f"during {written}: tap x") == (A.During(A.Hook(kind), A.Tap(N("x"))),)
    assert rule_clauses(f"order {written}: 502.3") == (A.Order(kind, ("502.3",)),)


def test_clauses_keep_source_order():
    clauses = rule_clauses("hide x where x.token\nprefer phase = in\nlook back on x.phase becomes out")
    assert [type(c) for c in clauses] == [A.Hide, A.Prefer, A.Lookback]


# ------------------------------------------------------------------ statements


X = N("x")


@pytest.mark.parametrize("text, expected", [
    ("simultaneously { tap x untap x }", A.Simultaneously((A.Tap(X), A.Untap(X)))),
    ("each y where y.token: destroy y", A.Each("y", A.Attr(N("y"), "token"), A.Destroy(N("y")))),
    ("each object y where y.token: cease y", A.Each("y", A.Attr(N("y"), "token"), A.Cease(N("y")), True)),
    # an explicit "hidden objects included" (the 702.26b exception for rules that look at them)
    ("each y including hidden: destroy y", A.Each("y", None, A.Destroy(N("y")), False, True)),
    ("each y including hidden where y.token: destroy y",
     A.Each("y", A.Attr(N("y"), "token"), A.Destroy(N("y")), False, True)),
    ("each object y including hidden where y.token: cease y",
     A.Each("y", A.Attr(N("y"), "token"), A.Cease(N("y")), True, True)),
    ("if x.tapped: untap x", A.If(A.Attr(X, "tapped"), A.Untap(X))),
    ("set x.phase = out, x.tapped = true",
     A.Set((A.Assign("x", "phase", N("out")), A.Assign("x", "tapped", N("true"))))),
    ("attach x to y", A.Attach(X, N("y"))),
    ("unattach x", A.Unattach(X)),
    ("tap x", A.Tap(X)),
    ("untap x", A.Untap(X)),
    ("remove x from combat", A.RemoveFromCombat(X)),
    ("remove damage from x", A.RemoveDamage(X)),
    ("destroy x", A.Destroy(X)),
    ("move x to exile", A.Move(X, "exile")),
    ("cease x", A.Cease(X)),
    ("end effects tracking x", A.EndTracking(X)),
    ("end effects lasting until end of turn", A.EndUntilEndOfTurn()),
    ("end effects lasting until next turn of P", A.EndUntilNextTurn(N("P"))),
    ("end effects whose condition fails", A.EndFailed()),
    ("end control effects for P", A.EndControl(N("P"))),
    ("end limited effects on x", A.EndLimited(X)),
    ("delayed triggers lose x", A.LoseDelayed(X)),
    ("at next cleanup step: destroy x", A.Delayed("cleanup step", A.Destroy(X))),
    ("at next untap step: { }", A.Delayed("untap step", A.Block(()))),
    ("at next end of combat step: tap x", A.Delayed("end of combat step", A.Tap(X))),
    ("deal 2 damage to x", A.DealDamage(2, X)),
    # 510.1-510.2: the combat damage step's turn-based action
    ("deal combat damage", A.CombatDamage()),
    # 500.8: steps or phases added to the turn
    ("add extra combat phase", A.ExtraSteps(("combat phase",))),
    ("add extra combat phase, end  step", A.ExtraSteps(("combat phase", "end step"))),
    ("x gets +3/-1", A.Pump(X, 3, -1)),
    ("x becomes 3/1", A.SetBase(X, 3, 1)),
    ("x gains flying", A.Grant(X, "flying")),
    ("you gains control of x", A.GainControl(N("you"), X)),
    ("you draws 1", A.Draw(N("you"), A.Number(1))),
    ("you gains x.power life", A.GainLife(N("you"), A.Attr(X, "power"))),
    ("put 1 feather counters on x", A.AddCounters(1, "feather", X)),
    ("attack with x", A.AttackWith(X)),
    ("do phase_out_until x, y", A.Call("phase_out_until", (X, N("y")))),
    ("{ tap x destroy x }", A.Block((A.Tap(X), A.Destroy(X)))),
])
def test_each_statement_kind_parses(text, expected):
    from phasing_rules.dsl.printer import print_module

    assert spell_body(text) == expected
    module = parse(f'card "C" {{\n  spell: {text}\n}}')
    assert parse(print_module(module)) == module


@pytest.mark.parametrize("suffix, expected", [
    (" until end of turn", A.UntilEndOfTurn()),
    (" until P next turn", A.UntilNextTurn("P")),
    (" until next end step of P", A.UntilNextStep("end step", "P")),
    (" for as long as x.tapped", A.ForAsLongAs(A.Attr(X, "tapped"))),
    (" until this leaves the battlefield", A.UntilLeaves("this")),
])
def test_each_duration_kind_attaches_to_every_statement_that_takes_one(suffix, expected):
    assert spell_body("move x to exile" + suffix) == A.Move(X, "exile", expected)
    assert spell_body("at next cleanup step: move x to exile" + suffix) == A.Delayed("cleanup step", A.Move(X, "exile", expected))
    assert spell_body("x gets +1/+1" + suffix) == A.Pump(X, 1, 1, expected)
    assert spell_body("x becomes 0/1" + suffix) == A.SetBase(X, 0, 1, expected)
    assert spell_body("x gains flying" + suffix) == A.Grant(X, "flying", expected)
    assert spell_body("you gains control of x" + suffix) == A.GainControl(N("you"), X, expected)


def test_gains_keyword_and_gains_life_are_told_apart():
    assert spell_body("you gains life_link") == A.Grant(N("you"), "life_link")
    assert spell_body("you gains two life") == A.GainLife(N("you"), N("two"))


# ------------------------------------------------------------------ expressions


def expr(text: str):
    return spell_body(f"if {text}: tap x").cond


@pytest.mark.parametrize("text, expected", [
    ("x", X),
    ("42", A.Number(42)),
    ('"hi there"', A.String("hi there")),
    ("x.attached_to.zone", A.Attr(A.Attr(X, "attached_to"), "zone")),
    ("count(y where y.token)", A.Count("y", A.Attr(N("y"), "token"))),
    ("count(y including hidden)", A.Count("y", None, True)),
    ("count(y including hidden where y.token)", A.Count("y", A.Attr(N("y"), "token"), True)),
    ("x + 1 + y", A.Add(A.Add(X, A.Number(1)), N("y"))),
    ("x is y", A.Is(X, N("y"))),
    ("x is not y", A.Is(X, N("y"), True)),
    ("x is a creature", A.IsA(X, "creature")),
    ("x is an aura", A.IsA(X, "aura")),
    ("x is not a creature", A.IsA(X, "creature", True)),
    ("x has flying", A.Has(X, "flying")),
    ("x is visible", A.Visible(X)),
    ("x.zone is unchanged", A.Unchanged(A.Attr(X, "zone"))),
    ("x.toughness <= 0", A.Compare("<=", A.Attr(X, "toughness"), A.Number(0))),
    ("x > y", A.Compare(">", X, N("y"))),
    ("x < y", A.Compare("<", X, N("y"))),
    ("x >= y", A.Compare(">=", X, N("y"))),
    ("not x", A.Not(X)),
    ("not not x", A.Not(A.Not(X))),
    ("x and y and P", A.And((X, N("y"), N("P")))),
    ("x or y or P", A.Or((X, N("y"), N("P")))),
])
def test_each_expression_form_parses(text, expected):
    assert expr(text) == expected


def test_and_binds_tighter_than_or_and_not_tighter_than_and():
    assert expr("not a and b or c") == A.Or((A.And((A.Not(N("a")), N("b"))), N("c")))


def test_parentheses_group_without_leaving_a_node():
    assert expr("not (a or b)") == A.Not(A.Or((N("a"), N("b"))))
    assert expr("(a or b) and c") == A.And((A.Or((N("a"), N("b"))), N("c")))
    assert expr("((x))") == X


def test_not_applies_to_a_whole_test():
    assert expr("not x is y") == A.Not(A.Is(X, N("y")))


def test_comments_and_blank_lines_are_ignored():
    text = "# heading\n\nstatus s: bool = false # trailing\n# end\n"
    assert parse(text).items == (A.StatusDecl("s", "bool", (), N("false")),)


def test_empty_text_is_an_empty_module():
    assert parse("") == A.Module(())


def test_words_are_keywords_only_where_the_grammar_expects_them():
    # `object` is a keyword after `each`, but an ordinary name as a status type.
    assert one_item("status s: object = none").type == "object"
    # `a` is a keyword after `is`, but an ordinary letter in a version's subrule list.
    assert one_item("version 2026-09-25 { section 702.26 subrules a an }").sections[0].letters == ("a", "an")


# ------------------------------------------------------------------ spans


SPAN_TEXT = (
    "# a comment line\n"
    'rule 702.26b hidden "Phased-out permanents are ignored." {\n'
    "  hide x where x.phase is out\n"
    "  during untap step of P: each y where y.attached_to.zone is battlefield: {\n"
    "    tap y\n"
    "  }\n"
    "}\n"
)


@pytest.fixture(scope="module")
def span_rule() -> A.Rule:
    module = parse(SPAN_TEXT, "spans.rules")
    return module.items[0]


def test_rule_span_covers_the_block_from_keyword_to_closing_brace(span_rule):
    assert span_rule.span == Span("spans.rules", 2, 1, 7, 2)


def test_clause_span_starts_at_its_keyword(span_rule):
    hide, during = span_rule.clauses
    assert (hide.span.line, hide.span.column) == (3, 3)
    assert (hide.span.end_line, hide.span.end_column) == (3, 30)
    assert (during.span.line, during.span.column, during.span.end_line) == (4, 3, 6)


def test_expression_spans_point_at_their_own_text(span_rule):
    hide = span_rule.clauses[0]
    cond = hide.cond
    assert isinstance(cond, A.Is)
    assert (cond.span.line, cond.span.column, cond.span.end_column) == (3, 16, 30)
    attr = cond.left
    assert (attr.span.line, attr.span.column, attr.span.end_column) == (3, 16, 23)
    assert (cond.right.span.column, cond.right.span.end_column) == (27, 30)


def test_nested_attribute_and_statement_spans(span_rule):
    each = span_rule.clauses[1].body
    assert isinstance(each, A.Each)
    assert (each.span.line, each.span.column) == (4, 27)
    zone = each.cond.left  # y.attached_to.zone
    assert zone == A.Attr(A.Attr(N("y"), "attached_to"), "zone")
    assert (zone.span.line, zone.span.column, zone.span.end_column) == (4, 40, 58)
    block = each.body
    assert isinstance(block, A.Block)
    brace_column = SPAN_TEXT.splitlines()[3].index("{") + 1
    assert (block.span.line, block.span.column, block.span.end_line) == (4, brace_column, 6)
    (tap,) = block.stmts
    assert tap.span == Span("spans.rules", 5, 5, 5, 10)


def test_every_node_of_a_parsed_file_carries_the_files_path():
    module = parse(SPAN_TEXT, "spans.rules")
    for n in module.walk():
        assert n.span.path == "spans.rules"
        assert n.span.line >= 1 and n.span.column >= 1


def test_keyword_only_nodes_get_the_span_of_their_keywords():
    (script,) = one_item('scenario "s" {\n  script {\n    resolve\n    cleanup\n  }\n}').entries
    resolve, cleanup = script.steps
    assert resolve.span == Span("t.rules", 3, 5, 3, 12)
    assert cleanup.span == Span("t.rules", 4, 5, 4, 12)


def test_parse_file_records_the_path_in_spans(tmp_path):
    path = tmp_path / "one.rules"
    path.write_text("status s: bool = false\n", encoding="utf-8")
    module = parse_file(path)
    assert module.items[0].span == Span(str(path), 1, 1, 1, 23)


def test_parse_file_of_a_missing_file_raises_a_diagnostic(tmp_path):
    with pytest.raises(DiagnosticError) as info:
        parse_file(tmp_path / "nope.rules")
    (d,) = info.value.diagnostics
    assert d.kind == "error" and "cannot read file" in d.message
    assert d.span.path == str(tmp_path / "nope.rules")


def test_parse_file_of_a_non_utf8_file_points_at_the_bad_byte(tmp_path):
    path = tmp_path / "latin1.rules"
    path.write_bytes('status s: bool = false\ncard "Caf\xe9" { }\n'.encode("latin-1"))
    with pytest.raises(DiagnosticError) as info:
        parse_file(path)
    (d,) = info.value.diagnostics
    assert (d.span.path, d.span.line, d.span.column) == (str(path), 2, 10)
    assert "0xe9" in d.message
    assert d.hint


# ------------------------------------------------------------------ syntax errors


def test_unknown_clause_word_points_at_it_and_lists_clause_keywords():
    d = syntax_error('rule 702.26a s "x" {\n  hide x where x.token\n  bogus x\n}')
    assert d.kind == "error"
    assert d.message == "unexpected 'bogus'"
    assert d.span == Span("bad.rules", 3, 3, 3, 8)
    assert d.hint.startswith("expected ")
    clause_words = ("'after'", "'as'", "'assert'", "'changes'", "'during'", "'exclude'", "'exempt'", "'hide'")
    assert sum(word in d.hint for word in clause_words) >= 3


def test_unsigned_pump_points_at_the_number_and_asks_for_a_signed_one():
    d = syntax_error('card "C" {\n  spell: x gets 1/1\n}')
    assert d.message == "unexpected '1'"
    assert (d.span.line, d.span.column, d.span.end_column) == (2, 17, 18)
    assert d.hint == "expected a signed number such as +1"


def test_unclosed_parenthesis_asks_for_a_closing_one():
    d = syntax_error('rule 702.26a s "x" {\n  hide x where (x.token\n}')
    assert d.message == "unexpected '}'"
    assert (d.span.line, d.span.column) == (3, 1)
    assert d.hint == "expected ')'"


def test_missing_rule_id_names_what_was_expected():
    d = syntax_error('rule untap-step "x" { }')
    assert (d.span.line, d.span.column) == (1, 6)
    assert "a rule id such as 702.26a" in d.hint


def test_missing_pt_toughness_asks_for_a_number():
    d = syntax_error('card "C" { pt 1/ }')
    assert d.message == "unexpected '}'"
    assert (d.span.line, d.span.column) == (1, 18)
    assert d.hint == "expected a number"


def test_stray_character_is_reported_at_its_column():
    d = syntax_error("status s: bool = false\nstatus t: bool = @\n")
    assert d.message == "unexpected character '@'"
    assert d.span == Span("bad.rules", 2, 18, 2, 19)
    assert d.hint and d.hint.startswith("expected ") and "a name" in d.hint


def test_unterminated_block_reports_the_end_of_the_file():
    d = syntax_error('rule 702.26a s "x" {\n  hide x where x.token\n')
    assert "end of" in d.message and "file" in d.message
    assert (d.span.line, d.span.column) == (2, 23)
    assert "'}'" in d.hint


def test_is_a_without_a_type_points_at_the_colon_and_asks_for_a_name():
    d = syntax_error('card "C" { spell: if x is a: tap x }')
    assert d.message == "unexpected ':'"
    assert (d.span.line, d.span.column) == (1, 28)
    assert d.hint == "expected a name"


def test_keyword_in_a_name_only_position_is_an_ordinary_name():
    # The contextual lexer only treats `where` as a keyword where the grammar could take it.
    (hide,) = rule_clauses("hide where where where.token")
    assert hide == A.Hide("where", A.Attr(N("where"), "token"))


@pytest.mark.parametrize("item", [
    'rule 702.26b t "y" { }', "version 2026-09-25 { }", "variant v { }", "zone z keeps all",
    "status s: bool = false", "verb v { }", 'card "C" { }', 'scenario "S" { }',
])
def test_top_level_item_inside_an_unclosed_block_suggests_the_missing_brace(item):
    d = syntax_error('rule 702.26a s "x" {\n  hide x where x.token\n' + item + "\n")
    assert d.message == f"unexpected '{item.split()[0]}'"
    assert (d.span.line, d.span.column) == (3, 1)
    assert "'}' is probably missing" in d.hint


def test_string_with_newline_is_not_a_string():
    d = syntax_error('card "two\nlines" { }')
    assert d.span.line == 1
    assert d.hint is not None


def test_error_renders_with_caret_under_the_offending_token():
    text = 'rule 702.26a s "x" {\n  bogus x\n}'
    d = syntax_error(text, "r.rules")
    rendered = d.render({"r.rules": text})
    lines = rendered.splitlines()
    assert lines[0] == "r.rules:2:3: error: unexpected 'bogus'"
    assert lines[1] == "      bogus x"
    assert lines[2] == "      ^^^^^"
    assert lines[3].startswith("  hint: expected ")


# ------------------------------------------------------------------ shipped files


def test_shipped_files_exist():
    assert len(SHIPPED_RULES) >= 5
    assert SHIPPED_SCENARIOS


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_parses_to_a_nonempty_module(path):
    module = parse_file(path)
    assert module.items
    assert all(n.span.path == str(path) for n in module.walk())


def test_shipped_702_26_file_has_one_block_per_listed_subrule():
    folder = ROOT / "rules" / "2026-09-25"
    (version,) = parse_file(folder / "version.rules").items
    section = next(s for s in version.sections if s.rule == "702.26")
    blocks = [i for i in parse_file(folder / "702.26.rules").items if isinstance(i, A.Rule)]
    assert [b.id for b in blocks] == [f"702.26{letter}" for letter in section.letters]


# ------------------------------------------------------------------ shipped parse tables (dsl/tables.py)


@pytest.mark.slow  # (over a second: Lark builds the tables from the grammar; in the slow selection)
def test_the_shipped_parse_tables_match_the_grammar():
    """The tables in dsl/parse_tables.json are exactly what the grammar builds today."""
    from phasing_rules.dsl import tables

    assert tables.up_to_date(), (
        "dsl/parse_tables.json is out of date with dsl/grammar.lark: run `python -m phasing_rules.dsl.tables` and commit it")


def test_the_parser_comes_from_the_shipped_tables_not_from_a_cache():
    from phasing_rules.dsl import tables
    from phasing_rules.dsl.parser import _parser

    assert tables.load() is not None, "the shipped tables did not load"
    assert _parser().source_path == "<deserialized>"
    assert _parser().options.cache is False


def _shape(tree) -> list:
    """A Lark tree as a flat list of rule names, tokens with their types, and positions."""
    import lark

    out = []
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, lark.Tree):
            meta = item.meta
            out.append((item.data, getattr(meta, "line", None), getattr(meta, "column", None),
                        getattr(meta, "end_line", None), getattr(meta, "end_column", None)))
            stack.extend(reversed(item.children))
        else:
            out.append((item.type, str(item), item.line, item.column, item.end_line, item.end_column))
    return out


@functools.cache
def _both_parsers():
    """The parser from the shipped tables and the one Lark builds from the grammar (built once
    per process: building takes most of a second)."""
    from phasing_rules.dsl import tables

    return tables.load(), tables.build()


@pytest.mark.slow  # (over a second: Lark builds the tables from the grammar; in the slow selection)
def test_the_shipped_tables_parse_every_shipped_file_as_the_grammar_does():
    shipped, built = _both_parsers()
    for path in SHIPPED:
        text = path.read_text(encoding="utf-8")
        assert _shape(shipped.parse(text)) == _shape(built.parse(text)), path


@pytest.mark.parametrize("text", [
    "rule 702.26a x \"s\" {\n  hide p where p.phase is\n}",
    "card \"C\" { spell: tap x y }",
    "scenario \"s\" { players A B\n turn 1 of A\n script { next turn, } }",
    "version 2026-09-25 { title }",
    "rule 702.26a x \"s\" { during untap step: each p where (p.a or : tap p }",
])
def test_the_shipped_tables_report_syntax_errors_as_the_grammar_does(text):
    from lark.exceptions import UnexpectedInput

    outcomes = []
    for parser in _both_parsers():
        with pytest.raises(UnexpectedInput) as info:
            parser.parse(text)
        exc = info.value
        outcomes.append((type(exc).__name__, exc.line, exc.column, sorted(getattr(exc, "expected", None) or ()),
                         sorted(getattr(exc, "accepts", None) or ())))
    assert outcomes[0] == outcomes[1]


def test_tables_built_from_another_grammar_are_not_used():
    from phasing_rules.dsl import tables

    assert tables.load(tables.grammar_text() + "\n// edited\n") is None


# ------------------------------------------------------------------ smaller items of issue 14


def test_a_utf8_byte_order_mark_is_accepted_and_positions_stay_right(tmp_path):
    text = 'rule 702.26a some-slug "summary" {\n  hide p where p.x is y\n}\n'
    path = tmp_path / "bom.rules"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    module = parse_file(path)
    assert module == parse(text, str(path))
    (rule,) = module.items
    assert (rule.span.line, rule.span.column) == (1, 1)
    assert (rule.clauses[0].span.line, rule.clauses[0].span.column) == (2, 3)


def test_a_syntax_error_on_the_first_line_after_a_byte_order_mark_has_its_caret_under_the_token(tmp_path):
    path = tmp_path / "bom.rules"
    path.write_bytes(b"\xef\xbb\xbfrule 702.26a some-slug ( {\n}\n")
    with pytest.raises(DiagnosticError) as info:
        parse_file(path)
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.span.line, diagnostic.span.column) == (1, 24)
    rendered = diagnostic.render().splitlines()
    assert rendered[1] == "    rule 702.26a some-slug ( {"
    assert rendered[2] == "    " + " " * 23 + "^"


def test_the_caret_on_a_tab_indented_line_sits_under_the_offending_character():
    text = 'rule 702.26a some-slug "summary" {\n\t\thide p where p.x is )\n}\n'
    diagnostic = syntax_error(text, "tabs.rules")
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 23)
    rendered = diagnostic.render({"tabs.rules": text}).splitlines()
    assert rendered[1] == "    \t\thide p where p.x is )"
    assert rendered[2] == "    \t\t" + " " * 20 + "^"
    # drawn with any tab width, the caret is under the ')'
    for width in (2, 4, 8):
        assert rendered[2].expandtabs(width).index("^") == rendered[1].expandtabs(width).index(")")


def test_a_five_thousand_digit_number_is_an_error_at_that_number():
    number = "9" * 5000
    text = f'card "C" {{\n  spell: deal {number} damage to x\n}}\n'
    diagnostic = syntax_error(text, "big.rules")
    assert "number too long" in diagnostic.message and "100 digits" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 15)
    assert diagnostic.span.end_column == 15 + 5000
    assert diagnostic.hint


def test_a_hundred_digit_number_is_still_a_number():
    card = one_item(f'card "C" {{\n  spell: deal {"9" * 100} damage to x\n}}')
    assert card.entries[0].body.amount == int("9" * 100)


def test_any_other_failure_in_the_builder_is_reported_at_the_node_not_at_1_1(monkeypatch):
    from phasing_rules.dsl import parser as P

    def refuse(self, meta, children):
        raise ValueError("no numbers today")

    monkeypatch.setattr(P._Expressions, "number", refuse)  # (the callbacks of expressions)
    diagnostic = syntax_error('rule 702.26a s "x" {\n  hide p where p.x >   42\n}\n', "n.rules")
    assert "no numbers today" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 24)  # the 42


def test_an_error_at_line_100_column_100_renders_as_path_100_100():
    text = "\n" * 99 + " " * 99 + "@\n"
    diagnostic = syntax_error(text, "far.rules")
    assert (diagnostic.span.line, diagnostic.span.column) == (100, 100)
    rendered = diagnostic.render({"far.rules": text})
    assert rendered.startswith("far.rules:100:100: error: ")
    assert rendered.splitlines()[2] == "    " + " " * 99 + "^"


def test_partial_entries_name_what_a_card_leaves_out_in_order():
    """`partial "TEXT"` (zero or more per card) says, in words, a part of the real card the
    library's card does not model; it is kept as written, in order, among the other entries."""
    item = one_item(
        'card "Half Card" {\n'
        "  types creature\n"
        '  partial "the activated ability"\n'
        "  pt 1/1\n"
        '  partial "its leaves-the-battlefield trigger"\n'
        "}"
    )
    assert item.entries == (
        A.Types(("creature",)),
        A.Partial("the activated ability"),
        A.PT(1, 1),
        A.Partial("its leaves-the-battlefield trigger"),
    )
    assert (item.entries[1].span.line, item.entries[1].span.column) == (3, 3)


@pytest.mark.parametrize("text, expected", [
    ("at beginning of upkeep step of you: tap x", A.OnStep("upkeep step")),
    ("at beginning of end step of you: tap x", A.OnStep("end step")),
    ("at beginning of upkeep step of each player P: tap x", A.OnStep("upkeep step", "P")),
    ("at beginning of draw step of you: tap x", A.OnStep("draw step")),
    ("at beginning of beginning of combat step of you: tap x", A.OnStep("beginning of combat step")),
    ("at beginning of precombat main phase of each player P: tap x", A.OnStep("precombat main phase", "P")),
])
def test_a_step_trigger_parses_as_a_triggered_ability(text, expected):
    """`at beginning of STEP of you` and `... of each player P` are triggered abilities whose
    trigger is a step beginning (603.2); the printer writes them back as they were written."""
    from phasing_rules.dsl.printer import print_module

    module = parse(f'card "C" {{ {text} }}')
    (card,) = module.items
    assert card.entries == (A.Triggered(expected, A.Tap(N("x"))),)
    assert text in print_module(module)
    assert parse(print_module(module)) == module


def test_the_grammar_s_hooks_are_the_game_model_s():
    """The grammar's `hook_kind` reads a step's or phase's name (`STEP_NAME`: lower-case words
    ending in `step` or `phase`, 500.1) and spells each of the game's own hooks
    (`dsl.builtins.GAME_HOOKS`) and the older `upkeep` and `cleanup`, and nothing else; the
    kind each reads as is `HOOK_KIND_OF`'s, and every step and phase of the newest version's
    turn is read as its own name (so a hint drawing from the turn names every step)."""
    from phasing_rules.dsl.builtins import GAME_HOOKS
    from phasing_rules.dsl.parser import HOOK_KIND_OF, OLDER_HOOK_NAMES, hook_name
    from phasing_rules.interpreter.rulebook.loading import default_turn

    assert grammar_hook_kinds() == sorted([*GAME_HOOKS, *OLDER_HOOK_NAMES, "STEP_NAME"])
    assert HOOK_KIND_OF == {**{name: name for name in GAME_HOOKS}, "upkeep": "upkeep step", "cleanup": "cleanup step"}
    turn = default_turn()
    assert "untap step" in turn.steps and "declare blockers step" in turn.steps and "precombat main phase" in turn.steps
    for kind in (*GAME_HOOKS, *turn.steps):
        block = parse(f'rule 999.1 s "A hook." {{\n  during {kind} of P: tap x\n}}')
        assert block.items[0].clauses[0].hook.kind == kind
        assert hook_name(kind) == kind
    assert hook_name("upkeep") == "upkeep step" and hook_name("cleanup") == "cleanup step"


@pytest.mark.parametrize("text, kind", [
    ('rule 999.1 s "x" {\n  during untp step of P: tap x\n}', "untp step"),
    ('rule 999.1 s "x" {\n  during upkeep phase of P: tap x\n}', "upkeep phase"),
    ('card "C" {\n  at beginning of edn step of you: tap x\n}', "edn step"),
])
def test_a_misspelt_step_parses_as_the_name_written(text, kind):
    """A step's name is any lower-case words ending in `step` or `phase`: one the turn does not
    declare is no syntax error, but a hook of that name, which the checker reports (next test)."""
    (item,) = parse(text, "typo.rules").items
    hook = item.clauses[0].hook.kind if isinstance(item, A.Rule) else item.entries[0].trigger.step
    assert hook == kind


def test_the_checker_reports_a_misspelt_step_offering_the_step_meant(tmp_path, capsys):
    """500.1 names the steps of the turn: `phasing check` reports a hook naming a step the
    rulebook's turn does not declare on the hook's line, with the step meant offered first, and
    a card's ability triggering at the beginning of such a step at the step's name."""
    from phasing_rules.interpreter.cli import main

    rules = tmp_path / "typo.rules"
    rules.write_text('variant typo {\n  extends 2026-09-25\n}\n'
                     'rule 999.1 s "x" {\n  during untp step of P: each x where x.controller is P: tap x\n}\n')
    assert main(["check", str(rules)]) == 1
    err = capsys.readouterr().err
    assert f"{rules}:5:" in err
    assert "error: unknown step 'untp step': the turn of this rulebook has no such step or phase" in err
    assert "hint: did you mean 'untap step'" in err
    cards = tmp_path / "cards.rules"
    cards.write_text('card "C" {\n  types creature\n  at beginning of edn step of you: you gain 1 life\n}\n')
    assert main(["check", str(cards)]) == 1
    err = capsys.readouterr().err
    assert f"{cards}:3:19: error: 'edn step' is not a step of the turn" in err
    assert "hint: did you mean 'end step'" in err


@pytest.mark.parametrize("text, column", [
    ('rule 999.1 s "x" {\n  during upkep of P: tap x\n}', 10),
    ('card "C" {\n  at beginning of edn of you: tap x\n}', 19),
])
def test_a_hook_that_is_no_step_s_name_is_a_syntax_error_saying_what_a_hook_is(text, column):
    """Words not ending in `step` or `phase` name no step: where a hook is expected, they are a
    syntax error at the first word, whose hint says a hook is a step or phase of the turn by its
    whole name, or one of the game's hooks."""
    from phasing_rules.dsl.builtins import GAME_HOOKS

    d = syntax_error(text, "typo.rules")
    assert (d.span.line, d.span.column) == (2, column)
    assert "a step or phase the rulebook's turn declares" in d.hint and all(h in d.hint for h in GAME_HOOKS)
