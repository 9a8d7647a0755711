"""Scenarios: an initial state, a script of game events, and expectations along the way.

A scenario is checked against the rulebook it runs under, built into a `Game`, and played
step by step. Expectations read the state as it is, hidden or not; their failures and
any runtime error point back into the scenario file.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Callable

import attrs

from ...dsl import ast
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Note, Span, close_names, did_you_mean, word_span
from ...dsl.parser import parse_file
from ..rulebook.amending import stray_amends
from ..game.budget import Budget
from ...dsl.builtins import PERMANENT_TYPES, card_slug, first_free, pt_counter_meant
from .actions import (Actions, activated_abilities, card_named, card_types, check_attachments, guarded,
                      new_permanent, no_such_ability, targets_of_no_spell, wrong_target_count)
from ..engine.combat import combat_at_start
from ..engine.stack import spell_targets
from ..engine.engine import Engine, Obj, PlayerRef, RulesError
from ..engine.observing import as_a_player_sees, observed
from ..game.refs import obj_ref
from ..game.model import Game, Permanent, Player
from ..program.program import Program
from ..rulebook.loading import Rulebook, available_variants, available_versions, lineage, version_in_force
from ..game.store import SETUP, store_of
from ..game.trace import Event, show_value

FLAGS = {"tapped", "token", "attacking"}
PLAYER_PROPS = {"owner", "controller"}


@attrs.frozen
class Outcome:
    """What happened when one scenario ran under one rulebook."""

    scenario: str
    path: str
    version: str
    passed: bool
    failures: tuple[Diagnostic, ...]
    expectations: tuple[tuple[str, bool], ...]
    trace: tuple[Event, ...]
    final: dict
    judge: str = ""  # whose expectations it was judged by, when not its own version's
    checked: tuple["Checked", ...] = ()  # the expectations again, each with where it is and what was found
    warnings: tuple[Diagnostic, ...] = ()  # what the run left unevaluated or unmodelled (`suite.run_warnings`)
    # The final state as a player sees it, where the rulebook observes something otherwise than
    # it keeps it (`observe`); None when it observes nothing (then it is `final`).
    observed: dict | None = None

    @property
    def seen(self) -> dict:
        """The final state as a player sees it (what `phasing diff` compares)."""
        return self.final if self.observed is None else self.observed


    def signature(self) -> tuple:
        """What ablation and diff compare: which expectations held, and the error if any."""
        return (self.expectations, tuple(f.message for f in self.failures if not f.message.startswith("expected")))


@attrs.frozen
class Checked:
    """One expectation as a run judged it: its text, whether it held, where it is written, the
    step of the script it is (1 the first), and for one that failed what was found instead
    (`found`: the value, a 1-tuple, or empty when there is no single value to show: a failed
    `expect error` found the error's message, or None when there was no error)."""

    text: str
    ok: bool
    span: Span
    step: int
    found: tuple = ()

    def to_json(self) -> dict:
        data = {"expect": self.text, "ok": self.ok, "at": str(self.span), "path": self.span.path,
                "line": self.span.line, "column": self.span.column, "step": self.step}
        if self.found:
            data["actual"] = plain_value(self.found[0])
        return data


def plain_value(value: Any) -> Any:
    """A value an expression gave, as JSON holds it: a table of counts (pairs) an object, a set
    of names a sorted list, a tuple a list."""
    if isinstance(value, (set, frozenset)):
        return sorted(map(str, value))
    if isinstance(value, tuple):
        if value and all(isinstance(i, tuple) and len(i) == 2 for i in value):
            return {str(k): plain_value(v) for k, v in value}
        return [plain_value(v) for v in value]
    return value


def entries(scn: ast.Scenario, kind) -> list:
    return [e for e in scn.entries if isinstance(e, kind)]


def scenario_versions(scn: ast.Scenario) -> tuple[str, ...]:
    """The versions and variants a scenario names, ranges expanded, in the order given."""
    named: list[str] = []
    for e in scn.entries:
        if isinstance(e, ast.ScenarioRules):
            named += e.versions
        elif isinstance(e, ast.ScenarioRange):
            named += [v for v in available_versions() if v >= e.first and (e.last is None or v <= e.last)]
    return tuple(dict.fromkeys(named))


def rules_line_problems(scn: ast.Scenario) -> list[Diagnostic]:
    """A `rules from A to B` range that names no version: a date that is no date, a range
    that ends before it begins, or one that no shipped version falls in."""
    problems: list[Diagnostic] = []
    versions = available_versions()
    for e in entries(scn, ast.ScenarioRange):
        dates = [e.first] + ([e.last] if e.last is not None else [])
        bad = False
        for n, day in enumerate(dates):
            try:
                date.fromisoformat(day)
            except ValueError:
                bad = True
                problems.append(Diagnostic("error", f"'{day}' is no date", word_span(e.span, day, n if dates[0] == day else 0),
                                           "write a date as YEAR-MONTH-DAY, e.g. 2017-07-08"))
        if bad:
            continue
        text = f"rules from {e.first}" + (f" to {e.last}" if e.last is not None else "")
        if e.last is not None and e.last < e.first:
            problems.append(Diagnostic("error", f"{text}: the range ends before it begins", e.span,
                                       f"write 'rules from {e.last} to {e.first}'"))
        elif versions and not [v for v in versions if e.first <= v and (e.last is None or v <= e.last)]:
            version = version_in_force(e.first) or versions[0]  # (before the oldest: the oldest)
            known = f"{version} was in force on {e.first}" if version <= e.first else f"the oldest version is {version}"
            problems.append(Diagnostic("error", f"{text}: no version is dated in that range", e.span,
                                       f"{known}: write 'rules {version}' or a range that includes it"))
    return problems


def unknown_expectation_names(scn: ast.Scenario, book: Rulebook) -> list[Diagnostic]:
    """Each name of an `expect for` line of a scenario with a `rules` line that names nothing
    it could be judged by: not one of its versions or variants, not a version or variant
    known by name (shipped or on the rules path), and not `book` (which may be a variant
    given by its file) or what it extends. Such an expectation would never be checked. (A
    scenario without a rules line runs under whatever it is given, and is not held to this.)"""
    home = scenario_versions(scn)
    if not home:
        return []
    chain = [book.version.id] + (list(lineage(book.version.extends)) if book.version.extends else [])
    known = set(home) | set(chain) | set(available_versions()) | set(available_variants())
    problems = []
    for e in entries(scn, ast.Script):
        for step in e.steps:
            if not isinstance(step, ast.Expect):
                continue
            for n, name in enumerate(step.versions):
                if name in known:
                    continue
                problems.append(Diagnostic(
                    "error", f"'expect for {name}': no version or variant is named '{name}'",
                    word_span(step.span, name, step.versions[:n].count(name)),
                    did_you_mean(name, list(home) + sorted(known - set(home)),
                                 f"this scenario runs under {', '.join(home)}; a variant of your own is known by "
                                 "name on the rules path (--rules-path), or by its file given with --rules",
                                 first=next(iter(close_names(name, home)), None))))
    return problems


def script_problems(scn: ast.Scenario, book: Rulebook) -> list[Diagnostic]:
    """The steps of a scenario's script that can only fail, found without playing it, each at
    its step: a card the rulebook and the scenario file do not have, or one that cannot be
    cast this way (an Aura) or is given the wrong number of targets; a player who is not one
    of the game's; a permanent that is neither declared nor made by an earlier step (a cast
    permanent spell makes one named after its card: `grizzly_bears`, then `grizzly_bears_2`); a
    player named where only a permanent will do (`attack with Bob`, `move Bob to exile`); a
    creature named twice among the attackers or the blockers; something to attack that is
    neither a player nor a permanent; a step the rulebook's turn does not have (`to`,
    `next turn skipping`); an ability number the permanent's card does not have, or the wrong
    number of targets for it (`activate`). A step an `expect error` follows is meant to fail,
    and is left to the run to judge."""
    players = next((e.names for e in entries(scn, ast.Players)), ())
    known = {d.name: d.card for d in entries(scn, ast.PermanentDecl)}  # (each permanent's card)
    tried: dict[str, int] = {}  # (first_free's memory: `known` only grows, so N casts of a card are named in O(N))
    problems: list[Diagnostic] = []

    def add(exc: DiagnosticError) -> None:
        problems.extend(exc.diagnostics)

    def player(name: str, span: Span) -> None:
        if name not in players:
            add(_err(f"'{name}' is not a player of the game", span,
                     did_you_mean(name, players, f"players are: {', '.join(players)}")))

    def turn_step(name: str, span: Span) -> None:
        """`name` must be a step or phase of the rulebook's turn."""
        steps = book.turn.steps
        if name not in steps:
            add(_err(f"unknown step '{name}': the turn of this rulebook has no such step or phase", word_span(span, name),
                     did_you_mean(name, steps, f"its steps and phases: {', '.join(steps)}", cutoff=0.6)))

    def permanent(name: str, span: Span, player_too: bool = True) -> None:
        """`name` must be a permanent (or, where `player_too`, a player: a target)."""
        if name in known or player_too and name in players:
            return
        hint = "name a permanent declared in this game, or one an earlier step makes"
        if name in players:
            add(_err(f"unknown permanent '{name}': '{name}' is a player, not a permanent", span, hint))
        else:
            add(_err(f"unknown permanent '{name}'", span, did_you_mean(name, known, hint)))

    steps = [s for e in entries(scn, ast.Script) for s in e.steps]
    for step, after in zip(steps, steps[1:] + [None]):
        if isinstance(after, ast.ExpectError):
            continue  # (a step meant to fail: the run judges it against its `expect error`)
        match step:
            case ast.Cast(card=name, targets=targets) | ast.Choose(card=name, targets=targets):
                if isinstance(step, ast.Cast):
                    player(step.player, step.span)
                for target in targets:
                    permanent(target, step.span)
                try:
                    card = card_named(book, name, step.span)
                except DiagnosticError as exc:
                    add(exc)
                    continue
                if not isinstance(step, ast.Cast):
                    continue
                try:
                    Actions.castable(card, step.span)
                except DiagnosticError as exc:
                    add(exc)
                    continue
                if (wrong := targets_of_no_spell(card, targets, step.span)) is not None:
                    add(wrong)
                elif (wrong := wrong_target_count(f"\"{card.name}\"", len(spell_targets(card)), len(targets), step.span)) is not None:
                    add(wrong)
                elif card_types(card) & PERMANENT_TYPES:  # (it makes a permanent named after the card)
                    known[first_free(card_slug(card.name), known, tried)] = card.name
            case ast.OrderStep(cards=names):
                for name in names:
                    try:
                        card_named(book, name, step.span)
                    except DiagnosticError as exc:
                        add(exc)
            case ast.Activate(name=name, player=who, ability=number, targets=targets):
                player(who, step.span)
                permanent(name, step.span, player_too=False)
                for target in targets:
                    permanent(target, step.span)
                card = book.cards.get(known.get(name) or "")
                if card is None:
                    continue
                if (missing := no_such_ability(name, card, number, step.span)) is not None:
                    add(missing)
                elif (wrong := wrong_target_count(f"ability {number} of '{name}' ({card.name})",
                                                  len(activated_abilities(card)[number - 1].targets), len(targets),
                                                  step.span)) is not None:
                    add(wrong)
            case ast.AttackStep(names=names, defenders=defenders):
                for name in names:
                    permanent(name, step.span, player_too=False)
                for name in defenders:
                    if name is not None and name not in known and name not in players:
                        add(_err(f"'{name}' is neither a player nor a permanent: an attacker attacks a player or a "
                                 "planeswalker (508.1b)", word_span(step.span, name),
                                 did_you_mean(name, list(players) + sorted(known),
                                              f"players are: {', '.join(players)}")))
                if len(set(names)) < len(names):  # (508.1a: each creature attacks once)
                    add(_err("a creature is named twice among the attackers", step.span, "name each attacking creature once"))
            case ast.BlockStep(pairs=pairs):
                for blocker, attacker in pairs:
                    permanent(blocker, step.span, player_too=False)
                    permanent(attacker, step.span, player_too=False)
                blockers = [b for b, _ in pairs]
                if len(set(blockers)) < len(blockers):  # (509.1a: each creature blocks one attacker)
                    add(_err("a creature is named twice among the blockers", step.span,
                             "a creature blocks one attacking creature: name it once"))
            case ast.MoveStep(name=name):
                permanent(name, step.span, player_too=False)
            case ast.ToStep(step=to):
                turn_step(to, step.span)
            case ast.NextTurn(skipping=skipped):
                for name in skipped:
                    turn_step(name, step.span)
            case ast.PlayerLeaves(player=who):
                player(who, step.span)
    return problems


def under_rules(problems, version: str, home) -> list[Diagnostic]:
    """Errors of a scenario played under `version`, each saying so in its hint when `version`
    is not one of `home`, the versions it is written for (a zone only its own rules have,
    say). The message is left as it is: diff and ablation compare outcomes by their messages,
    and the same error under two versions is the same outcome."""
    if version in home:
        return list(problems)
    said = f"under {version}, which this scenario is not written for (it is for {', '.join(home)})"
    return [attrs.evolve(d, hint=f"{said}; {d.hint}" if d.hint else said) for d in problems]


def _err(message: str, span: Span, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, span, hint))


def build_game(scn: ast.Scenario, book: Rulebook) -> Game:
    """The initial state, validated: every name known, every attachment possible."""
    players_decl = entries(scn, ast.Players)
    if not players_decl:
        raise _err("a scenario needs a 'players' line", scn.span, "write: players Alice Bob")
    names = players_decl[0].names
    players = {n: Player(n) for n in names}
    turn_decl = entries(scn, ast.TurnDecl)
    active, turn = names[0], 1
    if turn_decl:
        t = turn_decl[0]
        if t.player not in players:
            raise _err(f"unknown player '{t.player}'", t.span, f"players are: {', '.join(names)}")
        active, turn = t.player, t.number
    game = Game(players, tuple(names), active, turn)
    decls = entries(scn, ast.PermanentDecl)
    for d in decls:
        if d.name in players or d.name in game.objects:
            raise _err(f"the name '{d.name}' is already used", d.span, "give every permanent its own name")
        store_of(game).put_object(_permanent(d, card_named(book, d.card, d.span), game, book, names), SETUP)
    attached_at = {d.name: next((p.span for p in d.props if isinstance(p, ast.PropAttached)), d.span) for d in decls}
    check_attachments(game, {d.name: d.span for d in decls}, attached_at)
    problems = start_state_problems(game, book, {d.name: d.span for d in decls})
    if problems:
        raise DiagnosticError(problems)
    combat_at_start(game, book.turn)
    return game


GUARD_HINT = ("the condition reads something this permanent's values do not have (a player's status, say): "
              "the rule must test what it reads from before it reads, so that it holds or fails for every permanent")


def start_state_problems(game: Game, book: Rulebook, spans: dict[str, Span]) -> list[Diagnostic]:
    """The permanents a game starts with (those of `spans`, at their lines) that break an
    `assert always x: COND` of the rulebook: a state no rule made, so no `assert after`
    checked it. Each is read as it is, seen or not (a hide rule does not hide it from its
    own rulebook's invariants)."""
    program = Program.for_game(book, game)
    always = program.always_asserted
    if not always:
        return []
    engine = Engine(program, game)
    problems = []
    # (each assertion's text is written when a permanent breaks it, once: rendering it for every
    # permanent that meets it made loading N permanents pay N renderings, issue 43)
    asserted_texts: dict[int, str] = {}
    for oid, span in spans.items():
        o = game.objects.get(oid)
        if o is None or o.zone != "battlefield":
            continue
        for n, (rule, clause) in enumerate(always):
            env = {clause.var: obj_ref((oid, True))}
            try:
                if engine.truthy(engine.eval(clause.cond, env)):
                    continue
            except RulesError as exc:  # (a condition that cannot be read of this permanent)
                why = exc.diagnostics[0]
                problems.append(Diagnostic(
                    "error", f"{oid} cannot be judged by the assertion of {rule.id} {rule.slug} (at {clause.span}): "
                             f"{why.message} (at {why.span})",
                    span, GUARD_HINT))
                continue
            shown = ", ".join(values_read(engine, clause.cond, clause.var, env))
            if n not in asserted_texts:
                asserted_texts[n] = (f"{rule.id} {rule.slug} asserts '{render_expr(clause.cond)}' of every permanent "
                                     f"{clause.var} (at {clause.span})")
            problems.append(Diagnostic(
                "error", f"'{oid}' starts in a state the rules never make: {asserted_texts[n]}",
                span, f"give it statuses that meet that{f' (the condition reads {shown})' if shown else ''}"))
    return problems


def values_read(engine: Engine, cond: ast.Node, var: str, env: dict) -> list[str]:
    """What a condition about `var` reads, as `NAME.ATTR = VALUE` (the object named as the game
    names it: `strength.attached_to = bear, bear.phase = in`), each path once, in the order
    the condition names them; a path that cannot be read (a player's `phase`) is left out."""
    found: dict[str, str] = {}
    for n in cond.walk():
        if not isinstance(n, ast.Attr) or not ast_rooted_at(n, var):
            continue
        try:
            holder, value = engine.eval(n.obj, env), engine.eval(n, env)
        except RulesError:
            continue
        if holder is None:
            continue  # (nothing to read from: what names it is shown as none)
        if type(holder) is Obj or isinstance(holder, PlayerRef):
            found.setdefault(f"{shown_ref(holder)}.{n.name}", shown_ref(value))
        else:  # (a part of a value, as x.counters.feather)
            found.setdefault(f"{render_expr(n.obj)}.{n.name}".replace(f"{var}.", f"{shown_ref(env[var])}.", 1),
                             shown_ref(value))
    return [f"{path} = {value}" for path, value in found.items()]


def ast_rooted_at(e: ast.Node, var: str) -> bool:
    while isinstance(e, ast.Attr):
        e = e.obj
    return isinstance(e, ast.Name) and e.id == var


def shown_ref(value: Any) -> str:
    if type(value) is Obj:
        return value.id
    if isinstance(value, PlayerRef):
        return value.name
    return show_value(value)


def _permanent(d: ast.PermanentDecl, card: ast.Card, game: Game, book: Rulebook, names) -> Permanent:
    keywords: tuple[str, ...] = ()
    owner = controller = None
    fields: dict = {}
    status: dict = {}
    counters: dict = {}
    stickers: dict = {}
    for p in d.props:
        match p:
            case ast.Flag(name=name):
                if name not in FLAGS:
                    raise _err(f"unknown property '{name}'", p.span, f"flags are: {', '.join(sorted(FLAGS))}")
                fields[name] = True
            case ast.PropPlayer(key=key, player=who):
                if key == "keyword":
                    keywords = keywords + (who,)
                    continue
                if key not in PLAYER_PROPS:
                    raise _err(f"unknown property '{key}'", p.span, "write 'owner NAME', 'controller NAME' or 'keyword NAME'")
                if who not in game.players:
                    raise _err(f"unknown player '{who}'", p.span, f"players are: {', '.join(names)}")
                if not game.players[who].in_game:
                    raise _err(f"'{who}' has left the game and cannot control anything", p.span)
                if key == "owner":
                    owner = who
                else:
                    controller = who
            case ast.PropAttached(target=target):
                fields["attached_to"] = target
            case ast.PropCounter(key=key, kind=kind, amount=n):
                if key not in ("counter", "sticker"):
                    raise _err(f"unknown property '{key}'", p.span, "write 'counter KIND = N' or 'sticker KIND = N'")
                if key == "counter" and pt_counter_meant(kind):
                    # (as new_game refuses it: only p1p1 and m1m1 change power and toughness, and case tells kinds apart)
                    raise _err(f"'{kind}' is not the counter kind '{kind.lower()}': kinds are told apart by case, "
                               "and this one would only be counted", p.span, f"did you mean 'counter {kind.lower()} = {n}'?")
                (counters if key == "counter" else stickers)[kind] = n
            case ast.PropStatus(name=name, value=value):
                decl = book.statuses.get(name)
                if decl is None:
                    raise _err(f"unknown status '{name}'", p.span, f"statuses of this version: {', '.join(sorted(book.statuses))}")
                status[name] = _status_value(decl, value, game, p.span)
            case ast.PropDamage(amount=n):
                fields["damage"] = n
            case ast.PropEntered(turn=n):
                if n > game.turn:  # (the turn it entered has not come yet)
                    raise _err(f"'{d.name}' cannot have entered in turn {n}: the game is at turn {game.turn}", p.span,
                               f"write 'entered turn N' with N at most {game.turn} (0: before the game began), "
                               "or begin the game later: 'turn N of P'")
                fields["entered_turn"] = n
                fields["controlled_since"] = n
    return new_permanent(d.name, card, game, owner=owner, controller=controller, extra_keywords=keywords,
                         status=status, counters=counters, stickers=stickers, **fields)


def _status_value(decl: ast.StatusDecl, value: ast.Node, game: Game, span: Span):
    if not isinstance(value, (ast.Name, ast.Number)):
        raise _err(f"status '{decl.name}' needs a plain value", span)
    raw = value.id if isinstance(value, ast.Name) else value.value
    if raw == "none":
        return None
    if decl.type == "enum":
        if raw not in decl.values:
            raise _err(f"'{raw}' is not a value of status '{decl.name}'", value.span, f"values: {', '.join(decl.values)}")
        return raw
    if decl.type == "bool":
        if raw not in ("true", "false"):
            raise _err(f"status '{decl.name}' is true or false", value.span)
        return raw == "true"
    if decl.type == "player":
        if raw not in game.players:
            raise _err(f"unknown player '{raw}'", value.span, f"players are: {', '.join(game.order)}")
        return raw
    return raw


class ScenarioRun:
    """Plays one scenario under one rulebook."""

    def __init__(self, scn: ast.Scenario, book: Rulebook, path: str, budget: Budget | None = None,
                 judge: str | None = None, backend: str | None = None, game: Game | None = None,
                 blame: Callable[[Span], str] | None = None):
        self.scn = scn
        # what a failed expectation at a span is owed to, said after it (suite.blamed)
        self.blame = blame
        self.book = book
        self.judge = judge or book.version.id  # `expect for` lines of this version or variant apply
        self.path = path
        # its initial state: built here, or given (`build_game` of the same scenario and cards)
        self.game = game if game is not None else build_game(scn, self.book)
        self.engine = Engine(Program.for_game(self.book, self.game, backend), self.game, budget)  # (None: by its size)
        self.actions = Actions(self.engine, steps=False)  # (it begins each step itself)
        try:
            guarded(self.engine.settle)
        except RulesError as exc:
            diag = exc.diagnostics[0]
            if not diag.span.line:
                diag = attrs.evolve(diag, span=scn.span, message=f"{diag.message} (while settling the initial state)")
            raise DiagnosticError(diag) from None
        self.failures: list[Diagnostic] = []
        self.checked: list[Checked] = []  # the expectations judged, each with where it is and what it found
        self.held: set[Span] = set()  # the expectation steps that held

    def play(self) -> None:
        steps = [s for e in entries(self.scn, ast.Script) for s in e.steps]
        pending_error: Diagnostic | None = None
        for index, step in enumerate(steps, 1):
            self.engine.step = index
            self.engine.begin_step()
            if isinstance(step, ast.ExpectError):
                ok = pending_error is not None and step.message in pending_error.message
                self.checked.append(Checked(f"error \"{step.message}\"", ok, step.span, index,
                                            () if ok else (pending_error.message if pending_error else None,)))
                if ok:
                    self.held.add(step.span)
                else:
                    got = pending_error.message if pending_error else "no error"
                    self.stop(Diagnostic("error", f"expected an error containing \"{step.message}\", got: {got}{self.whose(step.span)}",
                                         step.span), steps[index:])
                    return
                pending_error = None
                continue
            if pending_error is not None:
                self.stop(pending_error, steps[index - 1:])
                return
            try:
                guarded(self.do, step)
            except RulesError as exc:
                diag = exc.diagnostics[0]
                if not diag.span.line:  # an error of the game as a whole: point at the step that led to it
                    diag = attrs.evolve(diag, span=step.span)
                pending_error = attrs.evolve(diag, message=f"{diag.message} (at step {index}, {step.span})")
            except DiagnosticError as exc:
                if len(exc.diagnostics) == 1 and index < len(steps) and isinstance(steps[index], ast.ExpectError):
                    # (a step meant to fail, as `expect error` says: an error it is refused with, too)
                    diag = exc.diagnostics[0]
                    pending_error = attrs.evolve(diag, message=f"{diag.message} (at step {index}, {step.span})")
                    continue
                self.failures.extend(exc.diagnostics[:-1])
                self.stop(exc.diagnostics[-1], steps[index:])
                return
        if pending_error is not None:
            self.failures.append(pending_error)
        self.failures.extend(self.actions.unused_target_choices())
        stack = self.engine.game.stack
        if stack and steps:  # (what a `hold` left there and nothing resolved: a script that stops short)
            left = ", ".join(entry.words() for entry in reversed(stack))
            self.failures.append(Diagnostic("error", f"the script ends with {left} still on the stack: nothing resolved it",
                                            steps[-1].span, "end it with 'resolve' for each, as every player would pass"))

    @property
    def expectations(self) -> tuple[tuple[str, bool], ...]:
        """The expectations judged so far, as (text, held): what ablation and diff compare."""
        return tuple((c.text, c.ok) for c in self.checked)

    def stop(self, diag: Diagnostic, unrun: list) -> None:
        """Record `diag`, the failure that stops the script, with a note at the first of the
        steps it leaves unrun (`unrun`): their expectations are neither met nor failed."""
        if unrun:
            n = len(unrun)
            said = f"the script stopped at the error above: this step and {n - 1} after it did not run" if n > 1 \
                else "the script stopped at the error above: this step did not run"
            diag = attrs.evolve(diag, notes=diag.notes + (Note(said, unrun[0].span),))
        self.failures.append(diag)

    def do(self, step) -> None:
        """One script step: an action of the game (`interpreter.play.actions`), or an expectation."""
        act, at = self.actions, step.span
        match step:
            case ast.NextTurn(skipping=skip, hold=hold):
                act.next_turn(hold=hold, skipping=skip, span=at)
            case ast.ToStep(step=to, hold=hold):
                act.to_step(to, hold=hold, span=at)
            case ast.BlockStep(pairs=pairs, hold=hold):
                act.block(dict((b, a) for b, a in pairs), hold=hold, span=at)
            case ast.CleanupStep():
                act.cleanup(span=at)
            case ast.Cast(card=card, player=player, targets=targets, hold=hold):
                act.cast(card, player, targets, hold=hold, span=at)
            case ast.Activate(name=name, player=player, ability=number, targets=targets, hold=hold):
                act.activate(name, player, number, targets, hold=hold, span=at)
            case ast.OrderStep(cards=cards):
                act.order_triggers(cards, span=at)
            case ast.Choose(card=card, targets=targets):
                act.choose_targets(card, targets, span=at)
            case ast.Resolve(hold=hold):
                act.resolve(hold=hold, span=at)
            case ast.AttackStep(names=names, hold=hold, defenders=defenders):
                at_ = {n: d for n, d in zip(names, defenders) if d is not None}
                act.attack(names, hold=hold, at=at_ or None, span=at)
            case ast.PlayerLeaves(player=who):
                act.leave(who, span=at)
            case ast.MoveStep(name=name, zone=zone):
                act.move(name, zone, span=at)
            case ast.Expect(cond=cond, versions=versions):
                if not versions or self.judge in versions:
                    self.expect(cond, step)

    def expect(self, cond: ast.Node, step: ast.Expect) -> None:
        e = self.engine
        text = render_expr(cond)
        with as_a_player_sees(e):  # (an expectation reads what the rulebook observes as it says)
            try:
                ok = e.truthy(e.eval(cond, {}))
            except RulesError as exc:
                raise _err(exc.diagnostics[0].message, step.span) from None
            found = () if ok else self.found(cond)
        self.checked.append(Checked(text, ok, step.span, e.step, found))
        if ok:
            self.held.add(step.span)
        else:
            actual = f", but {render_expr(cond.left)} is {show_value(found[0])}" if found else ""
            self.failures.append(Diagnostic("error", f"expected {text}{actual}{self.whose(step.span)}", step.span))

    def whose(self, at: Span) -> str:
        """Under a rulebook judged by another's expectations, whose the expectation at `at` was,
        and that this rulebook changed it when it holds under the judge's own rules."""
        if self.blame is not None:
            return self.blame(at)
        own = self.book.version.id
        return "" if self.judge == own else f" (expected under {self.judge}, changed by {own})"

    def found(self, cond: ast.Node) -> tuple:
        """For a failed `a is b` (or `a < b`, ...), what `a` was, as plain data (an object or a
        player by its name, a table of counts as a dict), a 1-tuple; else empty."""
        if isinstance(cond, (ast.Is, ast.Compare)) and not isinstance(cond.left, ast.Number):
            try:
                value = self.engine.eval(cond.left, {})
            except DiagnosticError:
                return ()
            shown = value.id if isinstance(value, Obj) else value.name if isinstance(value, PlayerRef) else value
            return (shown,)
        return ()

    def final_state(self) -> dict:
        return self.actions.state()

    def observed_state(self, final: dict) -> dict | None:
        """`final` as a player sees it: each attribute the rulebook observes (`observe`) read
        through its observation, a zone or another attribute in its place, a status among the
        statuses; None when the rulebook observes nothing."""
        observations = self.book.observations
        if not observations:
            return None
        seen = {**final, "permanents": {}}
        e = self.engine
        for oid, entry in final["permanents"].items():
            entry = {**entry, "statuses": dict(entry["statuses"])}
            for name in observations:
                value = observed(e, obj_ref((oid, True)), name)
                value = value.id if isinstance(value, Obj) else value.name if isinstance(value, PlayerRef) else value
                if name in entry and name != "statuses":
                    entry[name] = value
                else:
                    entry["statuses"][name] = value
            seen["permanents"][oid] = entry
        return seen


def render_expr(expr: ast.Node) -> str:
    from ...dsl.printer import expr_text

    return expr_text(expr)


def load_scenarios(path: Path) -> tuple[list[ast.Scenario], tuple[ast.Card, ...]]:
    """Every scenario in a file, and the cards declared in the same file, which go with them."""
    module = parse_file(path)
    stray_amends(module, "a scenario file")
    cards = tuple(i for i in module.items if isinstance(i, ast.Card))
    return [i for i in module.items if isinstance(i, ast.Scenario)], cards


def run_scenario(scn: ast.Scenario, book: Rulebook, path: str, cards=(), budget: Budget | None = None,
                 judge: str | None = None, game: Game | None = None,
                 blame: Callable[[Span], str] | None = None) -> Outcome:
    """Play one scenario under `book` (with `cards` added), each step within `budget` (None:
    the default `Budget()`), judged by the expectations written for `judge` (None: for the
    rulebook's own version); from `game` if given (its initial state, as `build_game` makes
    it: the game is played on, not copied). `blame` (see `ScenarioRun`) names the rulebook
    that changed a failure under another's expectations, or tells one that fails under the
    judge's own rules too."""
    own = "" if judge in (None, book.version.id) else judge
    try:
        run = ScenarioRun(scn, book.with_cards(cards), path, budget, judge, game=game, blame=blame)
    except DiagnosticError as exc:
        return Outcome(scn.name, path, book.version.id, False, tuple(exc.diagnostics), (), (), {}, own)
    run.play()
    final = run.final_state()
    return Outcome(scn.name, path, book.version.id, not run.failures, tuple(run.failures),
                   run.expectations, tuple(run.engine.trace), final, own, tuple(run.checked),
                   observed=run.observed_state(final))
