"""The game's actions: what a player, or a scenario's script, does to a game in progress.

Casting a spell, with its targets checked as it is cast (601.2c); activating an activated
ability of a permanent, its cost paid (602.2); holding either on the stack; resolving the top
of the stack, its targets checked again (608.2b); choosing targets for a
card's next triggered ability (603.3d); attacking; moving an object to a zone; the next turn;
the cleanup step; a player leaving the game. Each is one call on an `Actions` bound to an
engine. The scenario runner calls them for the steps of a script, and a Python user calls
the same ones (`interpreter.api.new_game` builds a game and hands back its `Actions`).

Bad arguments (an unknown card, player, permanent or zone; targets a card cannot take;
nothing on the stack) raise `DiagnosticError` at `span`: the script step's position, or,
from Python, a span named after the call (`cast()`). An error of the rules as they run is a
`RulesError` (a `DiagnosticError` too).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import attrs

from ...dsl import ast
from ...dsl.builtins import KIND_NAME, PERMANENT_TYPES, PT_COUNTER_SPELLINGS, ZONES, pt_counter_meant
from ...dsl.checker import tested_keywords
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean
from ...dsl.printer import cost_part_text, expr_text, forbid_text
from ..game.calls import call_span, checked, describe, instance_of, refused_call
from ..game.writes import Batch
from ..engine.engine import Engine, Obj, PlayerRef, RulesError
from ..engine.combat import ATTACKERS_STEP, BLOCKERS_STEP, next_opponent
from ..engine.stack import StackObject, spell_targets
from ..engine.triggers import LEGAL_TARGET_HINT, TargetChoice, TriggerOrder, targets_of
from ..game.model import Game, Permanent
from ..game.permanents import card_types, new_permanent
from ..game.readonly import ReadOnlyGame, ReadOnlyTrace
from ..rulebook.loading import Rulebook
from ..game.trace import SCRIPT, Cause

# The tap of a declared attacker (508.1f), as the trace names its cause.
ATTACKERS_TAP = Cause("engine", "508.1f", "declared attackers become tapped (508.1f)")


def _forbidden_by(forbidding: tuple[ast.Node, ast.Node], restrictions: str) -> str:
    """Whose restriction it is, in words: a rule block's (named by its number), or a card's (an
    effect's restriction, as `restrictions` numbers them: 508.1c, 509.1b)."""
    clause, owner = forbidding
    written = forbid_text(clause)
    if isinstance(owner, ast.Rule):
        return f"block {owner.id} {owner.slug} forbids it ({written})"
    return f"\"{owner.name}\" forbids it ({written}; {restrictions})"

# The cost {T} (107.5) and the test 302.6 makes of a creature whose {T} ability is activated,
# each of the permanent `this`: one node each, so both backends compile them once.
TAP_THIS = ast.Tap(ast.Name("this"))
THIS_SICK = ast.Attr(ast.Name("this"), "summoning_sick")


def targets_of_no_spell(card: ast.Card, names: Sequence[Any], span: Span) -> DiagnosticError | None:
    """Targets given as a permanent spell is cast whose card declares them for its triggered
    abilities only: the spell has none (608.3); each ability chooses its own as it is put on
    the stack (603.3d)."""
    if spell_targets(card) or not targets_of(card) or not names:
        return None
    return _err(f"\"{card.name}\" is a permanent spell and has no targets (608.3): the targets its card declares are "
                "its triggered abilities', chosen as each is put on the stack (603.3d)", span,
                f"choose them before it is cast, and cast it without targets: choose \"{card.name}\" targeting "
                f"{', '.join(map(str, names))}")


def ability_cause(card: ast.Card, number: int) -> Cause:
    """The cause of what activated ability `number` of `card` does, its cost too: the card,
    with the ability named (`card "NAME", ability 2` in the trace)."""
    return Cause("card", card.name, f"ability {number}")


def activated_abilities(card: ast.Card) -> list[ast.Activated]:
    """The card's activated abilities, in the order written: ability 1, 2, ..."""
    return [e for e in card.entries if isinstance(e, ast.Activated)]


def no_such_ability(name: str, card: ast.Card, number: int, span: Span) -> DiagnosticError | None:
    """The error of naming ability `number` of permanent `name` (of `card`) when the card
    has no such activated ability; None when it has."""
    abilities = activated_abilities(card)
    if 1 <= number <= len(abilities):
        return None
    if not abilities:
        return _err(f"'{name}' ({card.name}) has no activated ability", span,
                    "activate a permanent whose card has an 'activated' line")
    one = len(abilities) == 1
    return _err(f"'{name}' ({card.name}) has {len(abilities)} activated abilit{'y' if one else 'ies'}, "
                f"so no ability {describe(number)}",
                span, "leave the number out: its one ability is ability 1" if one
                else f"give a number from 1 to {len(abilities)}, in the order the card writes them")


def wrong_target_count(what: str, wanted: int, given: int, span: Span) -> DiagnosticError | None:
    """The error of giving `given` targets to `what` (a spell or an ability, in words), which
    declares `wanted` (601.2c); None when they agree."""
    if wanted == given:
        return None
    return _err(f"{what} needs {wanted} target(s), {given} given", span,
                "name its targets with 'targeting A, B'" if wanted else "drop the 'targeting' part")


TOO_DEEP = "the rules nest too deeply to run: changes, abilities and verbs reach further than Python's stack"


def _err(message: str, span: Span, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, span, hint))


def _refused(message: str, span: Span, hint: str | None = None) -> RulesError:
    """An action the rules do not allow in the game as it is (not a bad argument)."""
    return RulesError(Diagnostic("error", message, span, hint))


def guarded(action: Callable, *args, **kwargs) -> Any:
    """`action(...)`, a RecursionError (rules whose reactions, abilities and verbs together
    nest deeper than Python's stack, though each is within its own limit) turned into a
    RulesError of the game as a whole; the step it happens in is where it is reported."""
    try:
        return action(*args, **kwargs)
    except RecursionError:
        raise RulesError(Diagnostic("error", TOO_DEEP, Span("<game>", 0, 0, 0, 0),
                                    "simplify the rules, or make fewer of them react to each other")) from None


def _action(method: Callable) -> Callable:
    """A public action: its span defaults to the call's name, and it runs `guarded`. On
    `Actions` that step the game themselves (`steps=True`, as `api.new_game` builds them) it
    is a step of its own, as a scenario's script step is: the next step number, and the
    budget afresh (`Engine.begin_step`); and if it raises, the game, the trace and the step
    number are set back to what they were before it (through the journal: `Store.undo`)."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def run(self: "Actions", *args, span: Span | None = None, **kwargs):
        span = call_span(method.__name__) if span is None else _where_reported(method.__name__, span)
        try:
            signature.bind(self, *args, span=span, **kwargs)
        except TypeError as exc:  # (a call Python would refuse: said as the action's own error)
            raise refused_call(method.__name__, method, signature, kwargs, exc, span) from None
        if not self.steps:
            began = self.engine.store.mark()
            result = guarded(method, self, *args, span=span, **kwargs)
            self.engine.assertions.check_always(began)  # (the state it leaves: `assert always`)
            return result
        e = self.engine
        step, batch_no, events = e.step, e.batch_no, len(e.trace)
        e.step += 1
        e.begin_step()
        mark = e.store.mark()
        try:
            result = guarded(method, self, *args, span=span, **kwargs)
            e.assertions.check_always(mark)  # (the state it leaves: `assert always`)
            return result
        except Exception:
            e.store.undo(mark)
            e.trace.cut(events)
            e.step, e.batch_no = step, batch_no
            raise
    return run


def _named(name: Any) -> str:
    """A name given to an action as a message shows it: a string in quotes ('bear'), anything
    else through `describe` (written out with an f-string, an int of more digits than Python
    writes would raise ValueError: issue 43)."""
    return f"'{name}'" if isinstance(name, str) else describe(name)


def _where_reported(name: str, span: Any) -> Span:
    """`span` as given to the action `name`: the place its errors are reported at, a `Span`
    whose path is text and whose positions are whole numbers of 0 or more (line 0: no line
    of a file, as a Python call's span has). Anything else is an error at the call's name:
    a diagnostic reported at it could not be written out."""
    fields = (span.line, span.column, span.end_line, span.end_column) if isinstance(span, Span) else ()
    if fields and isinstance(span.path, str) and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in fields):
        return span
    # (the wrong value shown through `describe`, as wherever an action shows one: written out
    # with repr, an int of more digits than Python writes raised ValueError, issue 43)
    if fields:
        field, value = next((f, v) for f, v in attrs.asdict(span, recurse=False).items() if not (
            isinstance(v, str) if f == "path" else isinstance(v, int) and not isinstance(v, bool) and v >= 0))
        shown = f"a Span whose {field} is {describe(value)}"
    else:
        shown = describe(span)
    raise _err(f"{name}(): span is where its errors are reported, a dsl.diagnostics.Span of a path (a string) and "
               f"whole numbers of 0 or more, not {shown}", call_span(name),
               "give Span(path, line, column, end_line, end_column), or leave span out to have errors named "
               "after the call")


# Where an object in one of the game's own zones is, in words; a zone a rulebook declares is
# "the zone NAME" (`zone_words`).
ZONE_WORDS = {"battlefield": "on the battlefield", "graveyard": "in the graveyard", "exile": "in exile",
              "hand": "in a hand", "library": "in a library", "outside": "outside the game",
              "nowhere": "nowhere (it has ceased to exist)"}


def zone_words(zone: str) -> str:
    """Where an object in `zone` is, as a message says it: `in exile`, or, for a zone a
    rulebook declares (whose name may be any word), `in the zone NAME`."""
    return ZONE_WORDS.get(zone, f"in the zone {zone}")


def card_named(book: Rulebook, name: str, span: Span) -> ast.Card:
    """The card called `name` in the rulebook's card library (and a scenario's own cards)."""
    if not isinstance(name, str):
        raise _err(f"a card is named by a string, its name, not {describe(name)}", span,
                   "give the card's name as written in rules/cards/ or the scenario file, e.g. \"Grizzly Bears\"")
    card = book.cards.get(name)
    if card is None:
        raise _err(f"unknown card \"{name}\"", span,
                   did_you_mean(name, book.cards, "cards live in rules/cards/, in the scenario file, or in a "
                                "card file of your own given with --cards FILE (or kept in a cards/ folder of the "
                                "rules path)"))
    return card


def check_attachments(game: Game, spans: dict[str, Span], attached_at: dict[str, Span] | None = None) -> None:
    """Every attachment names an object or player of the game, not itself, and no chain of
    attachments comes back to where it started. `spans` says where each permanent was
    declared, `attached_at` where its attachment was written (default: the same)."""
    attached_at = attached_at or spans
    for oid, o in game.objects.items():
        if o.attached_to is None:
            continue
        if o.attached_to not in game.objects and o.attached_to not in game.players:
            raise _err(f"'{oid}' is attached to '{o.attached_to}', which does not exist", attached_at[oid],
                       "attach to a permanent or player declared in this game")
        if o.attached_to == oid:
            raise _err(f"'{oid}' cannot be attached to itself", attached_at[oid],
                       "attach it to another permanent or to a player")
    # Each permanent's chain is walked once (issue 43): `ends` holds every permanent whose chain is
    # known to end at something attached to nothing, so a walk stops where an earlier one passed;
    # `on_path` holds those of the walk under way, so coming back to one of them is the cycle.
    # The first permanent (in the game's order) whose chain has a cycle is the one reported,
    # with its chain from itself to the first permanent met twice, as a walk from each would.
    objects, ends = game.objects, set()
    for oid in objects:
        if oid in ends:
            continue
        path, on_path, current = [oid], {oid}, objects[oid].attached_to
        while current in objects and current not in ends:
            if current in on_path:
                raise _err(f"attachment cycle: {' -> '.join(path + [current])}", spans[oid],
                           "an attachment chain must end at a permanent or player that is attached to nothing")
            path.append(current)
            on_path.add(current)
            current = objects[current].attached_to
        ends.update(path)


def known_keywords(book: Rulebook) -> frozenset[str]:
    """The keywords the rulebook and its cards know: those its rules and cards test for
    (`has K`) or grant (`checker.tested_keywords`), and those its cards are printed with."""
    printed = {name for card in book.cards.values() for entry in card.entries if isinstance(entry, ast.Keywords)
               for name in entry.names}
    return frozenset(tested_keywords(book) | printed)


COUNTERS_EXAMPLE = ("e.g. {'p1p1': 2}: p1p1 (+1/+1) and m1m1 (-1/-1) counters change power and toughness, "
                    "other kinds are counted for the rules to read")
SPEC_FLAGS = ("tapped", "token", "attacking")
# The keys of every object in `Actions.state()` (and `Outcome.final`, `run --json`'s `final`).
STATE_KEYS = ("card", "zone", "owner", "controller", "token", "tapped", "attached_to", "power", "toughness", "keywords",
              "damage", "counters", "stickers", "attacking", "blocking", "entered_turn", "visible", "statuses")
SPEC_NUMBERS = ("damage", "entered_turn")
SPEC_KEYS = ("name", "card", "owner", "controller", "attached_to", "keywords", "counters", "stickers", "statuses",
             *SPEC_FLAGS, *SPEC_NUMBERS)


def status_value(decl: ast.StatusDecl, raw: Any, game: Game, span: Span) -> Any:
    """A status value given from Python, checked against its declaration: one of an enum's
    values, True/False for a bool, a player's name for a player status, or None."""
    if raw is None:
        return None
    if decl.type == "enum" and raw in decl.values:
        return raw
    if decl.type == "bool" and isinstance(raw, bool):
        return raw
    if decl.type == "player" and isinstance(raw, str) and raw in game.players:
        return raw
    if decl.type not in ("enum", "bool", "player") and isinstance(raw, (str, int)) and not isinstance(raw, bool):
        return raw
    wanted = {"enum": f"one of {', '.join(decl.values)}", "bool": "True or False",
              "player": f"a player: {', '.join(game.order)}"}.get(decl.type, "a name or a number")
    raise _err(f"status '{decl.name}' cannot be {describe(raw)}", span, f"give {wanted}, or None")


def permanent_from_spec(spec: Any, game: Game, book: Rulebook, span: Span,
                        keywords_known: frozenset[str] | None = None) -> Permanent:
    """A permanent described by a dictionary (see `interpreter.api.new_game`), each entry checked."""
    if not isinstance(spec, dict):
        raise _err(f"a permanent is described by a dict, not {type(spec).__name__}", span,
                   "e.g. {'name': 'bear', 'card': 'Grizzly Bears', 'controller': 'Alice'}")
    unknown = sorted(repr(k) if isinstance(k, str) else describe(k) for k in spec if k not in SPEC_KEYS)
    if unknown:
        raise _err(f"unknown key(s) {', '.join(unknown)} in a permanent", span, f"keys: {', '.join(SPEC_KEYS)}")
    name = spec.get("name")
    if not isinstance(name, str) or not name or name in game.players or name in game.objects:
        raise _err(f"a permanent needs a name of its own, not {describe(name)}", span,
                   "give every permanent a distinct name that is not a player's")
    if "@" in name:  # (kept for an object as it was before a zone change: `model.earlier_name`)
        raise _err(f"a permanent's name cannot hold '@', as {name!r} does", span,
                   "'@' names an object as it was before it changed zones (bear@0); use another name")
    if "card" not in spec:
        raise _err(f"'{name}': a permanent needs a 'card', the name of its card", span,
                   "e.g. {'name': 'bear', 'card': 'Grizzly Bears'}")
    card = card_named(book, spec["card"], span)
    people = {}
    for key in ("owner", "controller"):
        who = spec.get(key)
        if who is not None and (not isinstance(who, str) or who not in game.players or not game.players[who].in_game):
            raise _err(f"'{name}': {key} {describe(who)} is not a player in the game", span,
                       f"players are: {', '.join(game.order)}")
        people[key] = who
    fields: dict[str, Any] = {}
    for key in SPEC_FLAGS:
        if key in spec:
            if not isinstance(spec[key], bool):
                raise _err(f"'{name}': {key} is True or False, not {describe(spec[key])}", span)
            fields[key] = spec[key]
    for key in SPEC_NUMBERS:
        if key in spec:
            if not isinstance(spec[key], int) or isinstance(spec[key], bool) or spec[key] < 0:
                raise _err(f"'{name}': {key} is a whole number of 0 or more, not {describe(spec[key])}", span)
            fields[key] = spec[key]
    if "entered_turn" in fields:
        if fields["entered_turn"] > game.turn:  # (the turn it entered has not come yet)
            turn = describe(game.turn)
            raise _err(f"'{name}': entered_turn {describe(fields['entered_turn'])} is after the game's turn, {turn}: "
                       "a permanent cannot have entered in a turn still to come", span,
                       f"give a turn of at most {turn} (0: before the game began), or a later turn= to new_game")
        fields["controlled_since"] = fields["entered_turn"]
    if spec.get("attached_to") is not None:
        if not isinstance(spec["attached_to"], str):
            raise _err(f"'{name}': attached_to names a permanent or player, not {describe(spec['attached_to'])}", span)
        fields["attached_to"] = spec["attached_to"]
    keywords = spec.get("keywords", ())
    if isinstance(keywords, str) or not isinstance(keywords, (list, tuple)) or not all(isinstance(k, str) for k in keywords):
        raise _err(f"'{name}': keywords is a list of names", span, "e.g. ['phasing']")
    known = keywords_known if keywords_known is not None or not keywords else known_keywords(book)
    for keyword in keywords:
        if keyword not in known:
            raise _err(f"'{name}': unknown keyword {keyword!r}: no rule or card of this rulebook knows it", span,
                       did_you_mean(keyword, known, f"Keywords known: {', '.join(sorted(known))}"))
    tallies = {}
    for key in ("counters", "stickers"):
        given = spec.get(key, {})
        example = COUNTERS_EXAMPLE if key == "counters" else "e.g. {'name': 1}"
        if not isinstance(given, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                                  and v >= 0 for k, v in given.items()):
            raise _err(f"'{name}': {key} maps a kind to a whole number", span, example)
        for kind in given:
            if not KIND_NAME.fullmatch(kind):  # (a kind the rules could not name: X.counters.KIND reads a name)
                meant = PT_COUNTER_SPELLINGS.get(kind.replace(" ", ""))
                hint = f"did you mean '{meant}'? {COUNTERS_EXAMPLE}" if meant and key == "counters" else \
                    f"a kind is a plain name (letters, digits, _ and -), as rules read it: X.{key}.KIND; {example}"
                raise _err(f"'{name}': {kind!r} is not a {key[:-1]} kind the rules can name", span, hint)
            if key == "counters" and pt_counter_meant(kind):
                # (a name the rules could read, but as another kind: only p1p1 and m1m1 change power and toughness)
                raise _err(f"'{name}': {kind!r} is not the counter kind {kind.lower()!r}: kinds are told apart by case, "
                           "and this one would only be counted", span, f"did you mean '{kind.lower()}'? {COUNTERS_EXAMPLE}")
        tallies[key] = given
    statuses = spec.get("statuses", {})
    if not isinstance(statuses, dict):
        raise _err(f"'{name}': statuses maps a status to its value", span, "e.g. {'phase': 'out'}")
    status = {}
    for key, raw in statuses.items():
        decl = book.statuses.get(key) if isinstance(key, str) else None
        if decl is None:
            raise _err(f"'{name}': unknown status {key!r}" if isinstance(key, str) else
                       f"'{name}': a status is named by a string, not {describe(key)}", span,
                       f"statuses of this version: {', '.join(sorted(book.statuses))}")
        status[key] = status_value(decl, raw, game, span)
    return new_permanent(name, card, game, owner=people["owner"], controller=people["controller"],
                         extra_keywords=keywords, status=status, **tallies, **fields)


class Actions:
    """The actions of one game in progress, each an operation on `engine`."""

    @checked(name="Actions")
    def __init__(self, engine: Engine, steps: bool = True):
        """`steps`: each action is a step of its own, undone if it raises (see `_action`);
        False for a caller that begins the steps itself and keeps what a failed one did (the
        scenario runner, whose script may go on after an `expect error`)."""
        if not isinstance(engine, Engine):
            raise _err(f"Actions() needs an Engine, not {type(engine).__name__}", call_span("Actions"),
                       "build one with interpreter.api.new_game(...), or Engine(book, game)")
        if not isinstance(steps, bool):
            raise _err(f"Actions(): steps is True or False, not {describe(steps)}", call_span("Actions"))
        self.engine = engine
        self.steps = steps

    @property
    def game(self) -> ReadOnlyGame:
        """The game, read-only (`interpreter.game.readonly`): it changes only through these actions."""
        return ReadOnlyGame(self.engine.game, self.engine.defaults)

    @property
    def book(self) -> Rulebook:
        return self.engine.rulebook

    # ------------------------------------------------------------------ checks

    def _known(self, name: Any, span: Span) -> str:
        if not isinstance(name, str) or name not in self.engine.game.objects:
            hint = "name a permanent declared in this game"
            raise _err(f"unknown permanent {_named(name)}", span,
                       did_you_mean(name, self.engine.game.objects, hint) if isinstance(name, str) else hint)
        return name

    def _targets(self, card: ast.Card, names: Any, span: Span) -> tuple[list[ast.Target], tuple[str, ...]]:
        """The spell's target declarations (`spell_targets`) and the names given for them, one
        for each. Targets given for a permanent spell whose card declares targets only for its
        abilities are refused: the spell has none (608.3)."""
        decls = spell_targets(card)
        if isinstance(names, (list, tuple)) and (wrong := targets_of_no_spell(card, names, span)) is not None:
            raise wrong
        return decls, self._target_names(decls, f"\"{card.name}\"", names, span)

    def _target_names(self, decls: Sequence[ast.Target], what: str, names: Any, span: Span) -> tuple[str, ...]:
        """The names given for the targets `decls` of `what` (a spell or an ability, in words),
        one for each, each a permanent of the game."""
        if isinstance(names, str) or not isinstance(names, (list, tuple)):
            raise _err(f"targets are a list of permanent names, not {type(names).__name__}", span,
                       "e.g. targets=['bear']")
        if (wrong := wrong_target_count(what, len(decls), len(names), span)) is not None:
            raise wrong
        for decl, name in zip(decls, names):
            if isinstance(name, str) and name in self.engine.game.players and name not in self.engine.game.objects:
                wanted = f"{decl.var} where {expr_text(decl.cond)}"
                raise _err(f"'{name}' is a player, and {what} targets a permanent ({wanted})", span,
                           f"name a permanent of this game that fits '{wanted}'")
            self._known(name, span)
        return tuple(names)

    def _illegal_target(self, card: ast.Card, decl: ast.Target, name: str, span: Span,
                        what: str | None = None) -> RulesError:
        """Why `name` cannot be a target of `card` (or of `what`, one of its abilities) now:
        where it is, when that is not the battlefield, or the condition it does not fit (601.2c)."""
        o = self.engine.game.objects[name]
        if o.zone != "battlefield":
            why, hint = f"it is {zone_words(o.zone)}", "only a permanent on the battlefield can be its target"
        elif not self.engine.visible(name):
            why, hint = "it is treated by the game as not existing", LEGAL_TARGET_HINT
        else:
            why, hint = f"it does not fit '{decl.var} where {expr_text(decl.cond)}'", LEGAL_TARGET_HINT
        what = what or f"\"{card.name}\""
        return RulesError(Diagnostic("error", f"'{name}' cannot be a target of {what} now: {why}", span, hint))

    # ------------------------------------------------------------------ spells and abilities

    @_action
    def cast(self, card: str, player: str, targets: Sequence[str] = (), *, hold: bool = False,
             span: Span) -> None:
        """`player` casts `card` targeting `targets` (checked now: 601.2c): it goes on the stack
        with them (an instant or a sorcery its own; an Aura the permanent it will enchant,
        303.4a; any other permanent spell has none, 608.3). Then every player passes until it
        has resolved (with what triggered meanwhile), or with `hold` it waits on the stack, the
        abilities its casting triggered above it, for a response or `resolve`."""
        found = card_named(self.book, card, span)
        self._player(player, "cast anything", span)
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span, "hold=True leaves the spell on the stack for resolve()")
        self.castable(found, span)
        decls, names = self._targets(found, targets, span)
        env = {"you": PlayerRef(player)}
        for decl, name in zip(decls, names):
            if not self.engine.legal_target(decl, name, env):
                raise self._illegal_target(found, decl, name, span)
        self._in_time(found, player, span)
        cause = Cause("card", found.name)
        e = self.engine
        depth = len(e.game.stack)
        e.record("cast", player, f"casts {found.name}", cause)
        chosen = tuple(e.game.objects[name].incarnation for name in names)  # (each target's: 400.7)
        e.priority.put(StackObject("spell", found, player, None, 0, None, (), tuple(decls), names, chosen, cause))
        self._pass(depth, hold)

    def _in_time(self, card: ast.Card, player: str, span: Span) -> None:
        """A spell is cast when its card's type allows (307.1, 117.1a): an instant, or a card
        with flash, whenever its caster could act; any other only by the active player, while
        the stack is empty (a sorcery's timing). Else a `RulesError`."""
        types = card_types(card)
        if "instant" in types or any(isinstance(e, ast.Keywords) and "flash" in e.names for e in card.entries):
            return
        e = self.engine
        what = "a sorcery" if "sorcery" in types else "a permanent spell without flash"
        if player != e.game.active:
            raise _refused(f"{player} cannot cast \"{card.name}\" now: it is {what}, cast only in its caster's own turn "
                           f"(307.1, 117.1a), and it is {e.game.active}'s turn", span,
                           f"cast it in {player}'s turn (play on to it with next turn), or by {e.game.active}")
        if e.game.stack:
            raise _refused(f"{player} cannot cast \"{card.name}\" now: it is {what}, cast only while the stack is empty "
                           "(307.1, 117.1a)", span, "resolve what is on the stack first, or cast it before")
        here = e.turns.current()
        mains = e.rulebook.turn.main_phases
        if here not in mains:
            ahead = next((m for m in mains if m in e.turns.ahead()), None)
            raise _refused(f"{player} cannot cast \"{card.name}\" now: it is {what}, cast only in a main phase (307.1, "
                           f"117.1a), and the game is in the {here}", span,
                           f"go on to the {ahead} first ('to {ahead}' in a script)" if ahead else
                           "cast it in a main phase of the turn: play on to the next turn's")

    def _pass(self, depth: int, hold: bool) -> None:
        """After an action, a player receives priority: the triggered abilities waiting go on
        the stack, and every player passes until the stack holds `depth` objects again; with
        `hold`, it stops once they are there."""
        with self.engine.priority.held(hold):
            self.engine.priority.receive(depth)

    def _player(self, player: Any, doing: str, span: Span) -> str:
        """`player` is a player of the game, still in it, who can be `doing` something."""
        players = self.engine.game.players
        if not isinstance(player, str) or player not in players:
            listed = f"players are: {', '.join(self.engine.game.order)}"
            raise _err(f"{_named(player)} is not a player of the game", span,
                       did_you_mean(player, players, listed) if isinstance(player, str) else listed)
        if not players[player].in_game:
            raise _err(f"'{player}' has left the game and cannot {doing}", span, "name a player still in the game")
        return player

    @_action
    def activate(self, permanent: str, player: str, ability: int = 1, targets: Sequence[str] = (), *,
                 hold: bool = False, span: Span) -> None:
        """`player` activates activated ability number `ability` (1 for the first the card
        writes) of `permanent`, targeting `targets`. Only its controller can (602.2), only while
        it is on the battlefield and the game sees it, and only if the cost can be paid: {T}
        needs it untapped (107.5), and a creature not summoning sick (302.6); `pay N life` needs
        a life total of at least N (119.4). Mana is not modelled: a mana cost is recorded in the
        trace and taken as paid. Targets are checked now (601.2c, through 602.2b) and again as
        it resolves (608.2b). It resolves at once, or with `hold` waits on the stack for
        `resolve`; once there it no longer depends on its source (113.7a)."""
        self._game_on(span)
        name = self._known(permanent, span)
        self._player(player, "activate anything", span)
        if not isinstance(ability, int) or isinstance(ability, bool) or ability < 1:
            raise _err(f"ability is the number of an activated ability, 1 or more, not {describe(ability)}", span,
                       "abilities are numbered from 1 in the order the card writes them")
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span, "hold=True leaves the ability on the stack for resolve()")
        e = self.engine
        o = e.game.objects[name]
        card = self.book.cards[o.card]
        if (missing := no_such_ability(name, card, ability, span)) is not None:
            raise missing
        entry = activated_abilities(card)[ability - 1]
        what = f"ability {ability} of '{name}' ({card.name})"
        names = self._target_names(entry.targets, what, targets, span)
        if o.zone != "battlefield":
            raise _refused(f"{what} cannot be activated: it is {zone_words(o.zone)}", span,
                           "only a permanent on the battlefield has its abilities activated")
        if not e.visible(name):
            raise _refused(f"{what} cannot be activated: the game treats '{name}' as not existing", span,
                           "a rule hides it: activate it once the game sees it again")
        controller = e.chars(name)["controller"]
        if player != controller:
            raise _refused(f"{player} cannot activate {what}: {controller} controls it, and only its controller "
                           "activates its abilities (602.2)", span, f"activate it by {controller}")
        env = {"you": PlayerRef(player), "this": Obj(name)}
        for decl, target in zip(entry.targets, names):
            if not e.legal_target(decl, target, env):
                raise self._illegal_target(card, decl, target, span, what)
        self._payable(entry, name, what, player, span)
        cause = ability_cause(card, ability)
        paid = ", ".join(f"{part.amount} life" if isinstance(part, ast.LifeCost) else cost_part_text(part)
                         for part in entry.cost)
        e.record("activate", name, f"{player} activates ability {ability} of {card.name}, paying {paid}"
                 + (f", targeting {', '.join(names)}" if names else ""), cause)
        for part in entry.cost:
            if isinstance(part, ast.TapCost):
                e.run(TAP_THIS, {"this": Obj(name)}, cause)
            elif isinstance(part, ast.LifeCost):
                self._pay_life(player, part.amount, cause)
        chosen = tuple(e.game.objects[target].incarnation for target in names)
        e.settle()
        depth = len(e.game.stack)
        e.priority.put(StackObject("ability", card, player, name, o.incarnation, entry.body,
                                   (("you", PlayerRef(player)), ("this", Obj(name))), tuple(entry.targets), names, chosen,
                                   cause, ability))
        self._pass(depth, hold)  # (abilities its costs triggered go on the stack above it: they resolve first)

    def _payable(self, entry: ast.Activated, name: str, what: str, player: str, span: Span) -> None:
        """Every part of the cost can be paid now (602.2h): {T} of an untapped permanent (107.5),
        not of a summoning-sick creature (302.6); life no more than the player has (119.4)."""
        e = self.engine
        for part in entry.cost:
            if isinstance(part, ast.TapCost):
                if e.game.objects[name].tapped:
                    raise _refused(f"{what} cannot be activated: its cost has {{T}}, and '{name}' is already tapped (107.5)",
                                   span, "untap it first, or wait for its controller's untap step")
                if "creature" in e.game.objects[name].types and e.truthy(e.eval(THIS_SICK, {"this": Obj(name)})):
                    raise _refused(f"{what} cannot be activated: its cost has {{T}}, and '{name}' is a creature that is "
                                   "summoning sick, under its controller's control only since this turn began, with no "
                                   "haste (302.6)", span, "play on to its controller's next turn")
            elif isinstance(part, ast.LifeCost):
                life = e.game.players[player].life
                if life < part.amount:
                    raise _refused(f"{player} cannot pay {part.amount} life for {what}: their life total is {life} (119.4)",
                                   span, "a player pays life only up to their life total")

    def _pay_life(self, player: str, amount: int, cause: Cause) -> None:
        """`player` pays `amount` life: their life total goes down by it (119.4)."""
        e = self.engine
        batch = Batch()
        batch.op(cause, f"pays {amount} life", player,
                 lambda: e.turns.update_player(player, cause, life=e.game.players[player].life - amount), "life")
        e.committer.commit(batch)

    @_action
    def resolve(self, *, hold: bool = False, span: Span) -> None:
        """Every player passes in succession, and the top of the stack resolves (608.2), its
        targets checked again (608.2b): a spell, an activated ability or a triggered ability.
        Then the abilities it triggered go on the stack and resolve in turn, down to what was
        under it; with `hold`, they wait there for a response."""
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span)
        self._game_on(span)
        stack = self.engine.game.stack
        if not stack:
            raise _err("there is nothing on the stack to resolve", span,
                       "put a spell there with 'hold', or hold the abilities an action triggers ('hold next turn')")
        depth = len(stack) - 1
        self.engine.priority.resolve_top()
        self._pass(depth, hold)

    @_action
    def choose_targets(self, card: str, targets: Sequence[str], *, span: Span) -> None:
        """Targets for the next triggered ability of `card` that needs them; they are checked
        when it triggers (603.3d)."""
        found = card_named(self.book, card, span)
        if not targets_of(found) or not any(isinstance(t, ast.Triggered) for t in found.entries):
            raise _err(f"\"{found.name}\" has no triggered ability with targets", span,
                       "targets of a spell are chosen as it is cast: 'cast \"Card\" by P targeting A'")
        names = self._target_names(targets_of(found), f"\"{found.name}\"", targets, span)
        self.engine.store.add_to("choices", (found.name, TargetChoice(names, span)), SCRIPT)

    @_action
    def order_triggers(self, cards: Sequence[str], *, span: Span) -> None:
        """The order in which triggered abilities of `cards` resolve, the first named first, the
        next time one player puts abilities of them all on the stack together (603.3b: each
        player orders their own)."""
        if isinstance(cards, str) or not isinstance(cards, (list, tuple)) or len(cards) < 2:
            raise _err("order_triggers() takes a list of two or more card names", span,
                       "e.g. order_triggers(['Shimmering Efreet', 'Phase Warden'])")
        found = tuple(card_named(self.book, card, span).name for card in cards)
        if len(set(found)) != len(found):
            raise _err("a card is named twice in the order", span, "name each card once")
        self.engine.store.add_to("choices", ("", TriggerOrder(found, span)), SCRIPT)

    @checked
    def unused_target_choices(self) -> list[Diagnostic]:
        """Targets (or orders of triggered abilities) chosen for abilities that never triggered
        (or never went on the stack together): a script that says more than happened."""
        return [Diagnostic("error", f"targets chosen for \"{card}\" were never used: no ability of it triggered with "
                                    "targets to choose", choice.span, "remove the step, or play on until the ability triggers")
                if card else
                Diagnostic("error", f"the order chosen for {', '.join(repr(c) for c in choice.cards)} was never used: their "
                                    "abilities never went on the stack together under one player", choice.span,
                           "remove the step, or play on until they trigger together")
                for card, choice in self.engine.game.choices]

    @staticmethod
    @checked(name="castable", wants={
        "card": instance_of(ast.Card, "a card (dsl.ast.Card)", "give one of the rulebook's cards: play.book.cards[NAME]"),
        "span": instance_of(Span, "a dsl.diagnostics.Span", "give where its error is reported: Span(path, line, column, "
                            "end_line, end_column), line 0 for a call from Python")})
    def castable(card: ast.Card, span: Span) -> None:
        """A card whose resolving the game models: a spell with a spell ability, a permanent
        spell, or an Aura spell with the target it will enchant declared (303.4a: `target t
        where ...`, of one permanent); a card with neither would do nothing."""
        types = card_types(card)
        aura = "aura" in types
        if aura and len(targets_of(card)) != 1:
            start = (f"permanent NAME = \"{card.name}\", attached to ..." if span.line else
                     f"new_game(permanents=[{{'name': ..., 'card': '{card.name}', 'attached_to': ...}}])")
            hint = (f"declare what it may enchant in card \"{card.name}\": target t where t is a creature; or put it "
                    f"on the battlefield from the start: {start}")
            raise _err(f"\"{card.name}\" cannot be cast: an Aura spell targets the one permanent it will enchant "
                       f"(303.4a), and the card declares {len(targets_of(card))} targets", span, hint)
        if not (types & PERMANENT_TYPES or any(isinstance(entry, ast.Spell) for entry in card.entries)):
            hint = f"give \"{card.name}\" a 'spell:' line saying what it does as it resolves"
            raise _err(f"\"{card.name}\" cannot be cast: casting a card with no spell ability and no permanent type "
                       "is not supported", span, hint)

    # ------------------------------------------------------------------ the board and the turn

    @_action
    def attack(self, names: Sequence[str], *, hold: bool = False, at: dict | None = None, span: Span) -> None:
        """The game goes on to the declare attackers step, and the permanents named attack
        (508.1a): each what `at` says (a player, or a planeswalker by its name), else the next
        player in turn order still in the game; those without vigilance become tapped as they
        are declared (508.1f). The step begins only once the step before it has ended, with an
        empty stack (500.2): with a spell held there, attacking is refused as a `RulesError`.
        Then the active player receives priority (508.2): the abilities the attack triggered go
        on the stack and resolve, or with `hold` wait there for a response."""
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span)
        if isinstance(names, str) or not isinstance(names, (list, tuple)) or not names:
            raise _err("attack() takes a non-empty list of permanent names", span, "e.g. attack(['bear'])")
        if at is not None and not isinstance(at, dict):
            raise _err(f"at is a dict of attacker -> what it attacks, not {describe(at)}", span, "e.g. at={'bear': 'Bob'}")
        self._game_on(span)
        self._stack_empty("the declare attackers step (508.1)", span, _refused)
        self._step_ahead(ATTACKERS_STEP, span)
        for name in names:
            self._can_attack(self._known(name, span), span)
        if len(set(names)) != len(names):
            raise _err("a creature is named twice among the attackers", span, "name each attacking creature once")
        for name, what in (at or {}).items():
            if not isinstance(name, str) or name not in names:
                raise _err(f"{_named(name)} is given something to attack, and it is not among the attackers", span,
                           "at's keys are attackers' names: name it among the attackers, or leave it out of at")
            if not isinstance(what, str):
                raise _err(f"what '{name}' attacks is named by a string, not {describe(what)}", span,
                           "a player's name or a planeswalker's, e.g. at={'bear': 'Bob'}")
        attackers = [(name, self._defender((at or {}).get(name), span)) for name in names]
        e = self.engine
        with e.priority.held(hold):
            e.turns.go_to(ATTACKERS_STEP, lambda: e.combat.declare_attackers(attackers, SCRIPT, ATTACKERS_TAP))

    def _can_attack(self, name: str, span: Span) -> None:
        """The active player declares attackers among the untapped creatures they control
        (508.1a), which the game must see: one it treats as not existing cannot attack. A
        creature attacks only if it has haste or its controller has controlled it
        continuously since their most recent turn began (508.1a, 302.6), and one already
        attacking is not declared again. Each refusal is a `RulesError` (a script can
        `expect error` it)."""
        e = self.engine
        o = self._seen_creature(name, "attack", "508.1a", span)
        controller = e.chars(name)["controller"]
        if controller != e.game.active:
            raise _refused(f"'{name}' cannot attack: {controller} controls it, and it is {e.game.active}'s turn (508.1a)",
                           span, "only creatures the active player controls attack; play on to their controller's turn")
        if o.attacking:
            raise _refused(f"'{name}' cannot attack: it is already attacking (508.1a)", span,
                           "a creature is declared as an attacker once; remove it from this step")
        if o.tapped:
            raise _refused(f"'{name}' cannot attack: it is tapped (508.1a)", span, "only untapped creatures attack")
        if e.truthy(e.eval(ast.Attr(ast.Name(name), "summoning_sick"), {})):
            raise _refused(f"'{name}' cannot attack: it is summoning sick, under {controller}'s control only since this "
                           "turn began, and it has no haste (508.1a, 302.6)", span,
                           f"play on to {controller}'s next turn, or attack with a creature that has haste")
        forbidding = e.combat.forbidden_attack(name)
        if forbidding is not None:
            raise _refused(f"'{name}' cannot attack: {_forbidden_by(forbidding, '508.1c')}", span,
                           "attack with another creature, or not at all")

    def _defender(self, named: str | None, span: Span) -> str:
        """What an attacker attacks (508.1b): the player or planeswalker named, else the next
        player in turn order after the active one who is still in the game."""
        e = self.engine
        if named is None:
            found = next_opponent(e.game)
            if found is None:
                raise _refused("there is no opponent in the game to attack (508.1b)", span, "attack while another player is in it")
            return found
        if named in e.game.players:
            if named == e.game.active or not e.player_in_game(named):
                raise _refused(f"'{named}' cannot be attacked: {'it is their own turn' if named == e.game.active else 'they have left the game'} "
                               "(508.1b)", span, "attack an opponent still in the game")
            return named
        o = e.game.objects.get(named)
        if o is None or "planeswalker" not in o.types or not e.visible(named) or e.chars(named)["controller"] == e.game.active:
            raise _refused(f"'{named}' cannot be attacked: only an opponent or a planeswalker an opponent controls on the "
                           "battlefield is (508.1b)", span, f"players are: {', '.join(e.game.order)}")
        return named

    def _known_step(self, step: Any, span: Span) -> None:
        """`step` is a step or phase of the rulebook's turn, else an error naming the closest."""
        steps = self.engine.rulebook.turn.steps
        if not isinstance(step, str) or step not in steps:
            listed = f"its steps and phases: {', '.join(steps)}"
            raise _err(f"unknown step {_named(step)}: the turn of this rulebook has no such step", span,
                       did_you_mean(step, steps, listed) if isinstance(step, str) else listed)

    def _step_ahead(self, step: str, span: Span) -> None:
        """`step` is still to come in this turn (and the rulebook's turn has it)."""
        e = self.engine
        if step not in e.rulebook.turn.steps:
            raise _err(f"the turn of this rulebook has no {step}", span,
                       f"its steps and phases: {', '.join(e.rulebook.turn.steps)}")
        if step not in e.turns.ahead():
            if step == e.turns.current():
                raise _refused(f"the game is in the {step} already: what is done as it begins was done then (500.1)",
                               span, "play on to the next turn ('next turn'), then to that step")
            raise _refused(f"the {step} of this turn is over: the game is in the {e.turns.current()} (500.1)", span,
                           "play on to the next turn ('next turn'), then to that step")

    @_action
    def block(self, pairs: dict, *, hold: bool = False, span: Span) -> None:
        """The game goes on to the declare blockers step, and each blocker of `pairs` (blocker ->
        the attacker it blocks) blocks (509.1a): a creature the game sees, controlled by the
        player the attacker attacks (or the planeswalker's controller), blocking one attacker,
        and no restriction of the rulebook or of a card forbidding it (509.1b: `forbid block`).
        An attacker with a blocker becomes blocked (509.1h). Then the active player receives
        priority (509.2); with `hold` the abilities that triggered wait on the stack."""
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span)
        if not isinstance(pairs, dict):
            raise _err(f"block() takes a dict of blocker -> the attacker it blocks, not {describe(pairs)}", span,
                       "e.g. block({'wall': 'bear'})")
        self._game_on(span)
        self._stack_empty("the declare blockers step (509.1)", span, _refused)
        self._step_ahead(BLOCKERS_STEP, span)
        e = self.engine
        for blocker, attacker in pairs.items():
            self._can_block(self._known(blocker, span), self._known(attacker, span), span)
        with e.priority.held(hold):
            e.turns.go_to(BLOCKERS_STEP, lambda: e.combat.declare_blockers(list(pairs.items()), SCRIPT))

    def _seen_creature(self, name: str, doing: str, rule: str, span: Span) -> Permanent:
        """Object `name`, a creature on the battlefield that the game sees, as only such a
        creature attacks or blocks (`doing`; `rule` says so), else a `RulesError`."""
        e = self.engine
        o = e.game.objects[name]
        if not e.visible(name):
            where = f"is {zone_words(o.zone)}" if o.zone != "battlefield" else "is treated by the game as not existing"
            raise _refused(f"'{name}' cannot {doing}: it {where}", span,
                           f"only a creature on the battlefield the game sees {doing}s")
        if "creature" not in o.types:
            raise _refused(f"'{name}' cannot {doing}: it is not a creature ({rule})", span, f"only creatures {doing}")
        return o

    def _can_block(self, blocker: str, attacker: str, span: Span) -> None:
        """`blocker` may block `attacker` (509.1a-b), else a `RulesError` saying why."""
        e = self.engine
        attack = e.combat.attack_of(attacker)
        if attack is None or not e.visible(attacker):
            raise _refused(f"'{blocker}' cannot block '{attacker}': it is not an attacking creature the game sees (509.1a)",
                           span, "block a creature declared as an attacker this combat")
        self._seen_creature(blocker, "block", "509.1a", span)
        defending = e.combat.defending_player(attack)
        if e.chars(blocker)["controller"] != defending:
            raise _refused(f"'{blocker}' cannot block '{attacker}': {e.chars(blocker)['controller']} controls it, and "
                           f"'{attacker}' attacks {defending} (509.1a)", span,
                           f"only creatures {defending} controls block '{attacker}'")
        forbidding = e.combat.forbidden_block(blocker, attacker)
        if forbidding is not None:
            raise _refused(f"'{blocker}' cannot block '{attacker}': {_forbidden_by(forbidding, '509.1b')}", span,
                           "block with another creature, or not at all")

    @_action
    def move(self, name: str, zone: str, *, span: Span) -> None:
        """Put the permanent named into `zone` (a zone of the game or one the rulebook declares).
        A permanent on the battlefield that a rule hides (the game treats it as not existing)
        cannot be moved: that is a `RulesError`, as attacking with it is."""
        self._known(name, span)
        zones = set(ZONES) | set(self.book.zones)
        if not isinstance(zone, str) or zone not in zones:
            shown = f"'{zone}'" if isinstance(zone, str) else f"{describe(zone)}: a zone is named by a string"
            listed = f"zones: {', '.join(sorted(zones))}"
            raise _err(f"unknown zone {shown}", span, did_you_mean(zone, zones, listed) if isinstance(zone, str) else listed)
        if self.engine.game.objects[name].zone == "battlefield" and not self.engine.visible(name):
            raise _refused(f"'{name}' cannot be moved: it is treated by the game as not existing", span,
                           "a rule hides it: move it once the game sees it again, or not at all")
        depth = len(self.engine.game.stack)
        self.engine.run(ast.Move(ast.Name(name), zone), {}, SCRIPT)
        self.engine.settle()
        self._pass(depth, False)

    @_action
    def next_turn(self, skip_untap: bool = False, *, hold: bool = False, skipping: Sequence[str] = (), span: Span) -> None:
        """The rest of this turn is played (each step still to come, with its priority), then
        the next player's turn begins, up to the first of its steps in which a player receives
        priority (the upkeep step, 503.2); the steps of `skipping` (`skip_untap`: the untap
        step) are skipped. The abilities that triggered meanwhile go on the stack then and
        resolve, or with `hold` wait there for a response."""
        if not isinstance(skip_untap, bool):
            raise _err(f"skip_untap is True or False, not {describe(skip_untap)}", span)
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span)
        if isinstance(skipping, str) or not isinstance(skipping, (list, tuple)):
            raise _err(f"skipping is a list of steps, not {describe(skipping)}", span, "e.g. skipping=['draw step']")
        for step in skipping:
            self._known_step(step, span)
        self._game_on(span)
        self._stack_empty("the next turn", span)
        with self.engine.priority.held(hold):
            self.engine.next_turn(tuple(dict.fromkeys((("untap step",) if skip_untap else ()) + tuple(skipping))))

    @_action
    def to_step(self, step: str, *, hold: bool = False, span: Span) -> None:
        """The game goes on through this turn's steps to the beginning of `step` (a step or a
        phase the rulebook's turn declares, still to come this turn), each step between played
        with its priority; in `step` the active player receives priority, and what triggered
        resolves, or with `hold` waits on the stack for a response."""
        if not isinstance(hold, bool):
            raise _err(f"hold is True or False, not {describe(hold)}", span)
        self._known_step(step, span)
        self._game_on(span)
        self._stack_empty(f"the {step}", span)
        self._step_ahead(step, span)
        with self.engine.priority.held(hold):
            self.engine.turns.go_to(step)

    @_action
    def cleanup(self, *, span: Span) -> None:
        """The rest of the active player's turn, the end step and the cleanup step last."""
        self._game_on(span)
        self._stack_empty("the cleanup step", span)
        if not self.engine.turns.ahead():
            raise _refused(f"this turn is over already: the game is in its {self.engine.turns.current()}", span,
                           "play on to the next turn ('next turn')")
        self.engine.cleanup()

    def _game_on(self, span: Span) -> None:
        """The game is not over: some player is still in it (104.2a, 800.4: a player who
        leaves takes no more turns; with none left there is no turn to play)."""
        if not any(p.in_game for p in self.engine.game.players.values()):
            raise _err("the game is over: every player has left it (104.2a, 800.4)", span,
                       "nothing more happens in this game; build a new one")

    def _stack_empty(self, what: str, span: Span, error: Callable[..., DiagnosticError] = _err) -> None:
        """A step ends only once the stack is empty (500.2): a spell held there resolves first.
        `error` makes the refusal (`_refused` for a `RulesError`, as attack's others are)."""
        stack = self.engine.game.stack
        if stack:
            names = ", ".join(entry.words() for entry in reversed(stack))
            raise error(f"the stack is not empty ({names}): {what} cannot begin until it is (500.2)", span,
                       "resolve what is on the stack first: resolve() ('resolve' in a script)")

    @_action
    def leave(self, player: str, *, span: Span) -> None:
        """`player` leaves the game (800.4)."""
        if not isinstance(player, str) or player not in self.engine.game.players:
            raise _err(f"unknown player {_named(player)}", span, f"players are: {', '.join(self.engine.game.order)}")
        if not self.engine.game.players[player].in_game:
            raise _err(f"'{player}' has already left the game", span, "a player leaves the game once; remove this step")
        self.engine.player_leaves(player)

    # ------------------------------------------------------------------ reading

    @checked
    def state(self) -> dict:
        """The game as plain data: turn, active player, the step or phase the game is in, players,
        and every object, each with the same keys wherever it is (`STATE_KEYS`): its zone, owner
        and controller, its characteristics as the rules read them (after effects on the battlefield), its flags,
        counters, stickers, damage and attachment, every declared status (its value, or the
        default), and whether the game sees it (only a permanent on the battlefield no rule
        hides is seen)."""
        e, book = self.engine, self.book
        game = e.game
        defaults = {name: e.status_default(name) for name in book.statuses}
        out = {"turn": game.turn, "active": game.active, "step": e.turns.current(), "players": {}, "permanents": {},
               "status_defaults": defaults}
        for name, p in game.players.items():
            out["players"][name] = {"life": p.life, "hand": p.hand, "in_game": p.in_game}
        for oid, o in game.objects.items():
            c = e.chars(oid)
            out["permanents"][oid] = {
                "card": o.card, "zone": o.zone, "owner": o.owner, "controller": c["controller"],
                "token": o.token, "tapped": o.tapped, "attached_to": o.attached_to, "power": c["power"],
                "toughness": c["toughness"], "keywords": list(c["keywords"]), "damage": o.damage,
                "counters": dict(o.counters), "stickers": dict(o.stickers), "attacking": o.attacking, "blocking": o.blocking,
                "entered_turn": o.entered_turn, "visible": e.visible(oid),
                "statuses": {name: o.get_status(name, default) for name, default in defaults.items()},
            }
        return out

    @property
    def trace(self) -> ReadOnlyTrace:
        """What happened so far, each event naming its cause: read-only (the engine's trace
        is `engine.trace`)."""
        return ReadOnlyTrace(self.engine.trace)
