"""Scenarios: an initial state, a script of game events, and expectations along the way.

A scenario is checked against the rulebook it runs under, built into a `Game`, and played
step by step. Expectations read the state as it is, hidden or not; their failures and
any runtime error point back into the scenario file.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from dsl import ast
from dsl.builtins import ZONES, card_slug
from dsl.diagnostics import Diagnostic, DiagnosticError, Span
from dsl.parser import parse_file
from interpreter.amending import stray_amends
from interpreter.budget import Budget
from interpreter.engine import LEGAL_TARGET_HINT, MISSING, Engine, Obj, PlayerRef, RulesError, TargetChoice, targets_of
from interpreter.model import Game, Permanent, Player
from interpreter.rulebook import Rulebook, available_versions
from interpreter.trace import SCRIPT, Cause, Event, show_value

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

    def signature(self) -> tuple:
        """What ablation and diff compare: which expectations held, and the error if any."""
        return (self.expectations, tuple(f.message for f in self.failures if not f.message.startswith("expected")))


def card_named(book: Rulebook, name: str, span: Span) -> ast.Card:
    card = book.cards.get(name)
    if card is None:
        raise _err(f"unknown card \"{name}\"", span, "cards live in rules/cards/ or in the scenario file")
    return card


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
        game.objects[d.name] = _permanent(d, card_named(book, d.card, d.span), game, book, names)
    for d in decls:
        for p in d.props:
            if isinstance(p, ast.PropAttached):
                if p.target not in game.objects and p.target not in players:
                    raise _err(f"'{d.name}' is attached to '{p.target}', which does not exist", p.span,
                               "attach to a permanent or player declared in this scenario")
                if p.target == d.name:
                    raise _err(f"'{d.name}' cannot be attached to itself", p.span,
                               "attach it to another permanent or to a player")
    for d in decls:
        seen, current = [d.name], game.objects[d.name].attached_to
        while current in game.objects:
            if current in seen:
                raise _err(f"attachment cycle: {' -> '.join(seen + [current])}", d.span,
                           "an attachment chain must end at a permanent or player that is attached to nothing")
            seen.append(current)
            current = game.objects[current].attached_to
    return game


def _permanent(d: ast.PermanentDecl, card: ast.Card, game: Game, book: Rulebook, names) -> Permanent:
    types, keywords, power, toughness = frozenset(), (), None, None
    for entry in card.entries:
        if isinstance(entry, ast.Types):
            types = frozenset(t.lower() for t in entry.names)
        elif isinstance(entry, ast.Keywords):
            keywords = entry.names
        elif isinstance(entry, ast.PT):
            power, toughness = entry.power, entry.toughness
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
                (counters if key == "counter" else stickers)[kind] = n
            case ast.PropStatus(name=name, value=value):
                decl = book.statuses.get(name)
                if decl is None:
                    raise _err(f"unknown status '{name}'", p.span, f"statuses of this version: {', '.join(sorted(book.statuses))}")
                status[name] = _status_value(decl, value, game, p.span)
            case ast.PropDamage(amount=n):
                fields["damage"] = n
            case ast.PropEntered(turn=n):
                fields["entered_turn"] = n
                fields["controlled_since"] = n
    # Without a word about it, a permanent belongs to whoever controls it, by default the active player.
    controller = controller or owner or game.active
    owner = owner or controller
    stamp = game.tick()
    return Permanent(
        id=d.name, card=card.name, owner=owner, controller=controller, types=types, power=power,
        toughness=toughness, keywords=tuple(keywords), timestamp=stamp,
        counters=tuple(sorted(counters.items())), stickers=tuple(sorted(stickers.items())),
        status=tuple(sorted(status.items())), **fields,
    )


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


TOO_DEEP = "the rules nest too deeply to run: changes, abilities and verbs reach further than Python's stack"


def guarded(action, *args) -> None:
    """`action(*args)`, a RecursionError (rules whose reactions, abilities and verbs together
    nest deeper than Python's stack, though each is within its own limit) turned into a
    RulesError of the game as a whole; the step it happens in is where it is reported."""
    try:
        action(*args)
    except RecursionError:
        raise RulesError(Diagnostic("error", TOO_DEEP, Span("<game>", 0, 0, 0, 0),
                                    "simplify the rules, or make fewer of them react to each other")) from None


class ScenarioRun:
    """Plays one scenario under one rulebook."""

    def __init__(self, scn: ast.Scenario, book: Rulebook, path: str, budget: Budget | None = None,
                 judge: str | None = None):
        self.scn = scn
        self.book = book
        self.judge = judge or book.version.id  # `expect for` lines of this version or variant apply
        self.path = path
        self.game = build_game(scn, self.book)
        self.engine = Engine(self.book, self.game, budget)
        try:
            guarded(self.engine.settle)
        except RulesError as exc:
            diag = exc.diagnostics[0]
            if not diag.span.line:
                diag = attrs.evolve(diag, span=scn.span, message=f"{diag.message} (while settling the initial state)")
            raise DiagnosticError(diag) from None
        self.failures: list[Diagnostic] = []
        self.expectations: list[tuple[str, bool]] = []

    def play(self) -> None:
        steps = [s for e in entries(self.scn, ast.Script) for s in e.steps]
        pending_error: Diagnostic | None = None
        for index, step in enumerate(steps, 1):
            self.engine.step = index
            self.engine.begin_step()
            if isinstance(step, ast.ExpectError):
                ok = pending_error is not None and step.message in pending_error.message
                self.expectations.append((f"error \"{step.message}\"", ok))
                if not ok:
                    got = pending_error.message if pending_error else "no error"
                    self.failures.append(Diagnostic("error", f"expected an error containing \"{step.message}\", got: {got}{self.whose()}", step.span))
                    return
                pending_error = None
                continue
            if pending_error is not None:
                self.failures.append(pending_error)
                return
            try:
                guarded(self.do, step)
            except RulesError as exc:
                diag = exc.diagnostics[0]
                if not diag.span.line:  # an error of the game as a whole: point at the step that led to it
                    diag = attrs.evolve(diag, span=step.span)
                pending_error = attrs.evolve(diag, message=f"{diag.message} (at step {index}, {step.span})")
            except DiagnosticError as exc:
                self.failures.extend(exc.diagnostics)
                return
        if pending_error is not None:
            self.failures.append(pending_error)
        for card, unused in self.engine.target_choices.items():
            for choice in unused:
                self.failures.append(Diagnostic(
                    "error", f"targets chosen for \"{card}\" were never used: no ability of it triggered with targets to choose",
                    choice.span, "remove the step, or play on until the ability triggers"))

    def do(self, step) -> None:
        e = self.engine
        match step:
            case ast.NextTurn(skip_untap=skip):
                e.next_turn(skip)
            case ast.CleanupStep():
                e.cleanup()
            case ast.Cast():
                self.cast(step)
            case ast.Choose():
                self.choose(step)
            case ast.Resolve():
                if not e.stack:
                    raise _err("there is nothing on the stack to resolve", step.span, "put a spell there with 'hold'")
                self.resolve(*e.stack.pop())
            case ast.AttackStep(names=names):
                for name in names:
                    self.known(name, step.span)
                    e.run(ast.AttackWith(ast.Name(name)), {}, SCRIPT)
                e.settle()
            case ast.PlayerLeaves(player=who):
                if who not in self.game.players:
                    raise _err(f"unknown player '{who}'", step.span, f"players are: {', '.join(self.game.order)}")
                if not self.game.players[who].in_game:
                    raise _err(f"'{who}' has already left the game", step.span,
                               "a player leaves the game once; remove this step")
                e.player_leaves(who)
            case ast.MoveStep(name=name, zone=zone):
                self.known(name, step.span)
                zones = set(ZONES) | set(self.book.zones)
                if zone not in zones:
                    raise _err(f"unknown zone '{zone}'", step.span, f"zones: {', '.join(sorted(zones))}")
                e.run(ast.Move(ast.Name(name), zone), {}, SCRIPT)
                e.settle()
                e.resolve_triggers()
            case ast.Expect(cond=cond, versions=versions):
                if not versions or self.judge in versions:
                    self.expect(cond, step)

    def known(self, name: str, span: Span) -> None:
        if name not in self.game.objects:
            raise _err(f"unknown permanent '{name}'", span, "name a permanent declared in this scenario")

    def targets_named(self, card: ast.Card, names: tuple[str, ...], span: Span) -> list[ast.Target]:
        """The card's targets, one for each name a step gives."""
        decls = targets_of(card)
        if len(decls) != len(names):
            raise _err(f"\"{card.name}\" needs {len(decls)} target(s), {len(names)} given", span,
                       "name its targets with 'targeting A, B'" if decls else "drop the 'targeting' part")
        return decls

    def cast(self, step: ast.Cast) -> None:
        card = card_named(self.book, step.card, step.span)
        if step.player not in self.game.players or not self.game.players[step.player].in_game:
            raise _err(f"'{step.player}' cannot cast anything", step.span, "name a player still in the game")
        decls = self.targets_named(card, step.targets, step.span)
        env = {"you": PlayerRef(step.player)}
        for decl, name in zip(decls, step.targets):
            self.known(name, step.span)
            if not self.engine.legal_target(decl, name, env):
                raise RulesError(Diagnostic("error", f"'{name}' cannot be a target of \"{card.name}\" now", step.span,
                                            LEGAL_TARGET_HINT))
        self.engine.record("cast", step.player, f"casts {card.name}", Cause("card", card.name))
        if step.hold:
            self.engine.stack.append((card, step.player, step.targets, step.span))
        else:
            self.resolve(card, step.player, step.targets, step.span)

    def choose(self, step: ast.Choose) -> None:
        """Targets for the next triggered ability of a card that needs them; they are checked
        when it triggers (603.3d)."""
        card = card_named(self.book, step.card, step.span)
        if not targets_of(card) or not any(isinstance(t, ast.Triggered) for t in card.entries):
            raise _err(f"\"{card.name}\" has no triggered ability with targets", step.span,
                       "targets of a spell are chosen as it is cast: 'cast \"Card\" by P targeting A'")
        self.targets_named(card, step.targets, step.span)
        for name in step.targets:
            self.known(name, step.span)
        self.engine.target_choices[card.name].append(TargetChoice(step.targets, step.span))

    def resolve(self, card: ast.Card, player: str, targets, span) -> None:
        e = self.engine
        cause = Cause("card", card.name)
        env: dict = {"you": PlayerRef(player)}
        decls = targets_of(card)
        legal = 0
        for decl, name in zip(decls, targets):
            if self.engine.legal_target(decl, name, env):
                env[decl.var] = Obj(name)
                legal += 1
            else:
                env[decl.var] = MISSING
                e.record("fails", name, "is no longer a legal target", cause)
        if decls and not legal:
            e.record("fails", card.name, "does nothing: every target is illegal", cause)
            return
        e.record("resolve", player, f"{card.name} resolves", cause)
        types = {t.lower() for entry in card.entries if isinstance(entry, ast.Types) for t in entry.names}
        if types & {"creature", "artifact", "enchantment", "land", "planeswalker"} and not types & {"aura"}:
            oid = card_slug(card.name)
            n = 2
            while oid in self.game.objects:
                oid, n = f"{card_slug(card.name)}_{n}", n + 1
            d = ast.PermanentDecl(oid, card.name, (ast.PropPlayer("owner", player),))
            self.game.objects[oid] = attrs.evolve(_permanent(d, card, self.game, self.book, self.game.order), zone="hand")
            e.invalidate()
            e.run(ast.Move(ast.Name(oid), "battlefield"), {}, cause)
            for trig in e.pending:
                trig.env.update({k: v for k, v in env.items() if k != "you"})
        else:
            for entry in card.entries:
                if isinstance(entry, ast.Spell):
                    e.run(entry.body, env, cause)
        e.settle()
        e.resolve_triggers()

    def expect(self, cond: ast.Node, step: ast.Expect) -> None:
        e = self.engine
        text = render_expr(cond)
        try:
            ok = e.truthy(e.eval(cond, {}))
        except RulesError as exc:
            raise _err(exc.diagnostics[0].message, step.span) from None
        self.expectations.append((text, ok))
        if not ok:
            self.failures.append(Diagnostic("error", f"expected {text}{self.actual(cond)}{self.whose()}", step.span))

    def whose(self) -> str:
        """Under a rulebook judged by another's expectations, whose they were and what changed them."""
        own = self.book.version.id
        return "" if self.judge == own else f" (expected under {self.judge}, changed by {own})"

    def actual(self, cond: ast.Node) -> str:
        """For a failed `a is b`, say what `a` was."""
        if isinstance(cond, (ast.Is, ast.Compare)) and not isinstance(cond.left, ast.Number):
            try:
                value = self.engine.eval(cond.left, {})
            except DiagnosticError:
                return ""
            shown = value.id if isinstance(value, Obj) else value.name if isinstance(value, PlayerRef) else value
            return f", but {render_expr(cond.left)} is {show_value(shown)}"
        return ""

    def final_state(self) -> dict:
        e = self.engine
        out = {"turn": self.game.turn, "active": self.game.active, "players": {}, "permanents": {},
               "status_defaults": {name: e.status_default(name) for name in self.book.statuses}}
        for name, p in self.game.players.items():
            out["players"][name] = {"life": p.life, "hand": p.hand, "in_game": p.in_game}
        for oid, o in self.game.objects.items():
            entry = {"card": o.card, "zone": o.zone, "owner": o.owner}
            if o.zone == "battlefield":
                c = e.chars(oid)
                entry.update(controller=c["controller"], tapped=o.tapped, attached_to=o.attached_to,
                             power=c["power"], toughness=c["toughness"], damage=o.damage,
                             counters=dict(o.counters), attacking=o.attacking, visible=e.visible(oid))
                entry["statuses"] = {name: o.get_status(name, e.status_default(name)) for name in self.book.statuses}
            out["permanents"][oid] = entry
        return out


def render_expr(expr: ast.Node) -> str:
    from dsl.printer import expr_text

    return expr_text(expr)


def load_scenarios(path: Path) -> tuple[list[ast.Scenario], tuple[ast.Card, ...]]:
    """Every scenario in a file, and the cards declared in the same file, which go with them."""
    module = parse_file(path)
    stray_amends(module, "a scenario file")
    cards = tuple(i for i in module.items if isinstance(i, ast.Card))
    return [i for i in module.items if isinstance(i, ast.Scenario)], cards


def run_scenario(scn: ast.Scenario, book: Rulebook, path: str, cards=(), budget: Budget | None = None,
                 judge: str | None = None) -> Outcome:
    """Play one scenario under `book` (with `cards` added), each step within `budget` (None:
    the default `Budget()`), judged by the expectations written for `judge` (None: for the
    rulebook's own version)."""
    own = "" if judge in (None, book.version.id) else judge
    try:
        run = ScenarioRun(scn, book.with_cards(cards), path, budget, judge)
    except DiagnosticError as exc:
        return Outcome(scn.name, path, book.version.id, False, tuple(exc.diagnostics), (), (), {}, own)
    run.play()
    return Outcome(scn.name, path, book.version.id, not run.failures, tuple(run.failures),
                   tuple(run.expectations), tuple(run.engine.trace), run.final_state(), own)
