"""The Python API under the command line, for engine developers.

    from phasing_rules.interpreter import api
    book = api.load("2026-09-25")                 # a checked, indexed rulebook
    outcome = api.run_file("tests/scenarios/untap_step.scenario")[0]
    for event in outcome.trace: print(event.render())

    play = api.new_game("2026-09-25", players=["Alice", "Bob"], permanents=[
        {"name": "bear", "card": "Grizzly Bears", "controller": "Alice"}])
    play.cast("Slip Away", "Alice", ["bear"])    # the game's actions (interpreter.play.actions)
    play.next_turn()
    play.state()["permanents"]["bear"]            # the board as plain data
    play.trace                                    # what happened, each event naming its rule block

Errors. Every function here raises one exception type for bad input, whether the input is a
file (a syntax error, an unknown name, an unknown version) or an argument (None, or a value
of the wrong type): `dsl.diagnostics.DiagnosticError`. Its `.diagnostics` is a list of
`dsl.diagnostics.Diagnostic`, each with a message, a `Span` (path, line, column; for an
argument, the path is the function's name, e.g. `run_file(path)`, and the line is 0) and a
hint; `Diagnostic.render()` writes one as `path:line:col: error: message`, the source line,
a caret and the hint. `diagnostic_json(d)` gives one as a dictionary. No TypeError,
AttributeError or KeyError escapes for a bad argument; a call with arguments a function does
not take (too many, an unknown keyword, a missing one) is a DiagnosticError at the call's name
whose hint is the function's signature (`interpreter.game.calls.checked`, on every function here),
and so is an argument that is not what `checked(wants=...)` says it must be, or what the
function's own checks (`interpreter.game.calls.bad_argument`) find wrong (tests/test_api_types.py
calls each with wrong values of every kind).

Paths. `check_paths` and `run_file` read the paths they are given and nothing else: a
folder is searched below itself, and a single path may be given as a `str` or `Path` as
well as in a list.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from ..dsl import ast, limits
from ..dsl.checker import check_cards, check_scenario
from ..dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean
from ..dsl.parser import parse_file
from .play.actions import Actions, check_attachments, guarded, known_keywords, permanent_from_spec
from .program.backends import BACKENDS
from .game.budget import Budget
from .game.calls import Wants, bad_argument, checked, instance_of, is_path, list_of
from .engine.combat import combat_at_start
from .engine.engine import Engine  # noqa: F401  (re-exported)
from .rulebook.loading import (RULES_ROOT, VARIANTS_DIR, Rulebook, available_variants, available_versions,
                               card_library, card_library_problems, lineage, load_version, more_cards, rules_path,
                               shipped_cards, shipped_sources, unfit_cards, user_cards)
from .game.model import Game, Player
from .program.program import Program
from .game.store import SETUP, store_of
from .play.scenario import (Outcome, build_game, script_problems, start_state_problems,
                            unknown_expectation_names)
from .game.trace import trace_json
from .play.suite import (SCENARIO_SUFFIX, Case, collect, current_version, expectations_off_the_rules_line, home_versions,
                         run_all, unevaluated_expectations, unmodelled_steps)

__all__ = ["load", "new_game", "Actions", "run_file", "game_from_scenario", "check_paths", "default_suite", "outcome_json",
           "diagnostic_json", "files_without_scenarios", "os_error_diagnostic", "Engine", "DiagnosticError"]

PathLike = (str, os.PathLike)


# ---------------------------------------------------------------------------- argument checks


_PATH_HINT = "give the path of a file or folder"


def _path(function: str, name: str, value: Any) -> Path:
    if not isinstance(value, PathLike) or isinstance(value, bytes):
        raise bad_argument(function, name, value, "a path (str or pathlib.Path)", _PATH_HINT)
    if not is_path(value):
        raise bad_argument(function, name, value, "a non-empty path without NUL characters", _PATH_HINT)
    return Path(os.fspath(value))


def _version(function: str, name: str, value: Any, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise bad_argument(function, name, value, "a version date, variant name or folder (a non-empty str)"
                            + (", or None" if optional else ""),
                            f"known versions and variants: {', '.join(available_versions() + available_variants())}")
    return value


def _budget(function: str, value: Any) -> Budget | None:
    if value is None or isinstance(value, Budget):
        return value
    if isinstance(value, str):
        try:
            return Budget.from_option(value)
        except DiagnosticError as exc:  # (said of the call's argument, not of the command's --budget flag)
            (d,) = exc.diagnostics
            raise DiagnosticError(Diagnostic(
                "error", f"{function}(): {d.message}", Span(f"{function}(budget)", 0, 0, 0, 0),
                "give budget as a Budget, or as its option text: a positive whole number (the scale, e.g. '256') "
                "or any of 'iterations=N,writes=N,objects=N,scale=N' separated by commas")) from None
    raise bad_argument(function, "budget", value, "an interpreter.game.budget.Budget, its option text, or None",
                        "e.g. Budget(scale=256), Budget.from_option('iterations=100000'), or '256'")


_CARDS_HINT = ('give the path of a file of cards (card "NAME" { ... }), a dsl.ast.Card, or a list of them, '
               "e.g. cards=['my-cards.rules']")


def _cards(function: str, value: Any) -> tuple:
    """`cards=`: a card file's path, a parsed card (`dsl.ast.Card`), or a list or tuple of
    them; None for none."""
    if value is None:
        return ()
    if isinstance(value, (ast.Card, *PathLike)) and not isinstance(value, bytes):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise bad_argument(function, "cards", value, "a card file's path, a dsl.ast.Card, a list of them, or None",
                           _CARDS_HINT)
    found = []
    for v in value:
        if not isinstance(v, ast.Card) and not (isinstance(v, PathLike) and not isinstance(v, bytes) and is_path(v)):
            raise bad_argument(function, "cards", v, "a card file's path (a non-empty str or pathlib.Path) or a "
                               "dsl.ast.Card", _CARDS_HINT)
        found.append(v if isinstance(v, ast.Card) else Path(os.fspath(v)))
    return tuple(found)


@contextlib.contextmanager
def _with_cards(function: str, cards: Any):
    """Within it, the cards of `cards=` are added to the library (after the rules path's
    cards/ folders), and your own cards have been checked: a card file that does not load, a
    name that clashes or a card the checker rejects is a DiagnosticError before anything runs."""
    with more_cards(_cards(function, cards), f"{function}(cards)"):
        problems = card_library_problems()
        if problems:
            raise DiagnosticError(problems)
        yield


# ---------------------------------------------------------------------------- the API


@checked
def load(version: str | None = None, *, cards: str | Path | ast.Card | list | tuple | None = None) -> Rulebook:
    """A version by date (default: the newest) or by folder, parsed, checked and indexed.
    `cards`: card files of your own (paths), or parsed cards, added to its card library (see
    `new_game`)."""
    with _with_cards("load", cards):
        return load_version(_version("load", "version", version) or current_version())


@checked
def new_game(rules: str | Rulebook | None = None, players: list[str] | tuple[str, ...] = ("Alice", "Bob"),
             permanents: list[dict] | tuple[dict, ...] = (), active: str | None = None, turn: int = 1,
             budget: Budget | str | None = None, backend: str | None = None, *,
             cards: str | Path | ast.Card | list | tuple | None = None) -> Actions:
    """A game built from Python, without a scenario file, and its actions.

    `rules`: a version, variant or folder (as `load` takes), or a loaded Rulebook; default the
    newest. `players`: their names, in turn order. `permanents`: one dict each, with `name`
    and `card` (a card of the rulebook's library) and any of `owner`, `controller`,
    `attached_to`, `tapped`, `token`, `attacking`, `damage`, `entered_turn`, `keywords` (a
    list), `counters` and `stickers` (kind -> number; counters p1p1 and m1m1 change power and
    toughness) and `statuses` (status -> value, e.g.
    `{"phase": "out"}`). `active` (default the first player) and `turn` say whose turn it is.
    `backend`: how the rules run, "closures" or "generated" (Python written from the rules);
    None chooses by the size of the game (`interpreter.program.program.backend_for`).
    `cards`: a card file of your own (a path; `card "NAME" { ... }` items only), a parsed card
    (`dsl.ast.Card`), or a list of them, added to the library: the rulebook's cards, the
    rules path's cards/ folders, then these. A card that takes the name of another written
    otherwise, a file that does not load, or a card the checker rejects is a DiagnosticError.

    A permanent that breaks an `assert always` of the rulebook (a state its rules never make)
    is a DiagnosticError naming it and the block. The
    initial state is settled (state-based actions, static abilities) before it is handed
    back. The result's methods are the game's actions (`cast`, `activate`, `resolve`,
    `choose_targets`, `order_triggers`, `attack`, `block`, `to_step`, `move`, `next_turn`, `cleanup`,
    `leave`), `state()` and `trace`; its `engine`
    is the engine they act on."""
    where = Span("new_game()", 0, 0, 0, 0)
    if isinstance(rules, Rulebook):
        book = _with_own_cards(rules, _cards("new_game", cards))
    else:
        with _with_cards("new_game", cards):
            book = load_version(_version("new_game", "rules", rules) or current_version())
    if isinstance(players, str) or not isinstance(players, (list, tuple)) or not players or \
            not all(isinstance(n, str) and n.isidentifier() for n in players) or len(set(players)) != len(players):
        raise bad_argument("new_game", "players", players, "a non-empty list of distinct names",
                            "e.g. ['Alice', 'Bob'] (letters, digits and _ only)")
    if active is not None and active not in players:
        raise bad_argument("new_game", "active", active, "one of the players, or None", f"players: {', '.join(players)}")
    if not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn < 10 ** limits.MAX_INTEGER_DIGITS:
        raise bad_argument("new_game", "turn", turn,
                            f"a whole number of 1 or more, of at most {limits.MAX_INTEGER_DIGITS} digits (as a scenario's)",
                            "e.g. 1")
    if isinstance(permanents, (str, dict)) or not isinstance(permanents, (list, tuple)):
        raise bad_argument("new_game", "permanents", permanents, "a list of dicts, one per permanent",
                            "e.g. [{'name': 'bear', 'card': 'Grizzly Bears'}]")
    if backend is not None and (not isinstance(backend, str) or backend not in BACKENDS):
        raise bad_argument("new_game", "backend", backend, "'closures', 'generated' or None",
                            "None chooses by the size of the game")
    game = Game({n: Player(n) for n in players}, tuple(players), active or players[0], turn)
    keywords = known_keywords(book)  # (worked out once for every permanent given)
    for spec in permanents:
        permanent = permanent_from_spec(spec, game, book, where, keywords)
        store_of(game).put_object(permanent, SETUP)
    check_attachments(game, {oid: where for oid in game.objects})
    problems = start_state_problems(game, book, {oid: where for oid in game.objects})  # (the rulebook's `assert always`)
    if problems:
        raise DiagnosticError(problems)
    combat_at_start(game, book.turn)
    play = Actions(Engine(Program.for_game(book, game, backend), game, _budget("new_game", budget)))
    guarded(play.engine.settle)
    return play


def _with_own_cards(book: Rulebook, entries: tuple) -> Rulebook:
    """A rulebook loaded already, with the cards of `entries` (paths or cards) added as
    `card_library` adds them to a library (its clashes errors), each checked against it."""
    if not entries:
        return book
    _library, own = card_library([(e, "new_game(cards)") for e in entries], base=book.cards)
    full = book.with_cards(own.values())
    problems = [d for d in check_cards(list(own.values()), full) if d.kind == "error"]
    if problems:
        raise DiagnosticError(problems)
    return full


@checked
def game_from_scenario(scenario: ast.Scenario, book: Rulebook):
    """The initial state a scenario describes, built under `book` (a `model.Game`)."""
    if not isinstance(scenario, ast.Scenario):
        raise bad_argument("game_from_scenario", "scenario", scenario, "a dsl.ast.Scenario",
                            "parse one with dsl.parser.parse_file(path) and take a Scenario from its items")
    if not isinstance(book, Rulebook):
        raise bad_argument("game_from_scenario", "book", book, "a Rulebook", "load one with api.load(version)")
    return build_game(scenario, book)


@checked
def run_file(path: str | Path, rules: str | list[str] | tuple[str, ...] | None = None,
             budget: Budget | str | None = None, *,
             cards: str | Path | ast.Card | list | tuple | None = None) -> list[Outcome]:
    """Every scenario in a file (or under a folder), each under the versions it names; or,
    given `rules` (a version, variant name, variant file or version folder, or a list of
    them), under each of those as `phasing test --rules` runs them (see `suite.plan`): an
    unknown name, or rules under which no scenario runs, is a DiagnosticError. Each step
    within `budget` (a `Budget`, its `--budget` text, or None for the default). `cards`: card
    files of your own (or parsed cards) the scenarios may play, as `phasing test --cards`
    (see `new_game`)."""
    with _with_cards("run_file", cards):
        return _run_file(path, rules, budget)


def _run_file(path, rules, budget) -> list[Outcome]:
    target = _path("run_file", "path", path)
    if isinstance(rules, (list, tuple)):
        if not rules:
            raise bad_argument("run_file", "rules", rules, "a non-empty list", "leave it out, or name a version")
        specs = [_version("run_file", "rules", r, optional=False) for r in rules]
    else:
        specs = [r for r in [_version("run_file", "rules", rules)] if r is not None]
    budget = _budget("run_file", budget)
    for spec in specs:
        lineage(spec)  # an unknown version named here is a bad argument: DiagnosticError now
    try:
        cases, problems = collect([target])
        problems += files_without_scenarios([target], cases, problems)
        if problems:
            raise DiagnosticError(problems)
        return list(run_all(cases, specs or None, budget=budget))
    except OSError as exc:
        raise DiagnosticError(os_error_diagnostic(exc, target)) from None


@checked
def default_suite() -> Path:
    """The conformance scenarios shipped with the command: the checkout's tests/scenarios (for
    an editable install), or the installed copy (the package `phasing_rules.conformance`). Which
    folder the command runs in plays no part: a `tests/scenarios` there is not the suite."""
    checkout = Path(__file__).resolve().parent.parent / "tests" / "scenarios"
    if checkout.is_dir():  # an editable install runs from the checkout
        return checkout
    import importlib.util

    spec = importlib.util.find_spec(__name__.split(".")[0] + ".conformance")
    if spec is None or not spec.submodule_search_locations:
        raise DiagnosticError(Diagnostic("error", "the conformance scenarios are not installed", Span("phasing", 0, 0, 0, 0),
                                         "reinstall with 'pip install .', or name a scenario folder"))
    return Path(list(spec.submodule_search_locations)[0])


@checked(wants={"parsed_only": instance_of(list, "a list (which the files that could only be parsed are added to)",
                                           "give a list of your own, e.g. parsed = []; check_paths(p, parsed)",
                                           none=True)})
def check_paths(paths: str | Path | list[str | Path] | tuple[str | Path, ...] | None = None,
                parsed_only: list[Path] | None = None, *,
                cards: str | Path | ast.Card | list | tuple | None = None) -> list[Diagnostic]:
    """Every problem in the given rule files, version folders, card files and scenarios, as a
    list (empty: no problems). `paths` is one path (a str or Path) or a list or tuple of them;
    None or an empty list checks everything shipped (every version, variant and card, and the
    conformance suite) and every folder of the rules path. Folders are searched below
    themselves only. A file of cards is checked against the newest version, a scenario file's
    cards under the versions its scenarios name. A rule file that is neither in a version
    folder, nor a variant (no manifest), nor a file of cards only can only be parsed (its names
    and types are checked with its version); given a list as `parsed_only`, each such file is
    added to it. `cards`: card files of your own (or parsed cards) the scenarios may play, as
    `phasing check --cards` (see `new_game`): what is wrong with them is among the problems
    (when they do not load, the only ones: nothing can be checked against them)."""
    entries = _cards("check_paths", cards)
    with more_cards(entries, "check_paths(cards)"):
        try:
            user_cards()
        except DiagnosticError as exc:  # (every rulebook would fail to load with these errors)
            return list(exc.diagnostics)
        problems = card_library_problems()
        return problems + [d for d in _check_paths(paths, parsed_only) if d not in problems]


def _check_paths(paths, parsed_only) -> list[Diagnostic]:
    if paths is None:
        paths = []
    elif isinstance(paths, PathLike):
        paths = [paths]
    elif not isinstance(paths, (list, tuple)):
        raise bad_argument("check_paths", "paths", paths, "a path, a list or tuple of paths, or None",
                            "e.g. check_paths('tests/scenarios') or check_paths(['a.rules', 'b.scenario'])")
    targets = [_path("check_paths", "paths", p) for p in paths]
    if not targets:
        shipped = shipped_sources()
        targets = [s.path for s in shipped if s.kind == "version"] + [RULES_ROOT / "cards" / "library.rules"]
        targets += [s.path for s in shipped if s.kind == "variant"] + [default_suite()]
        targets += list(rules_path())  # and the user's own folders, variants and scenarios alike
    problems: list[Diagnostic] = []
    for target in targets:
        try:
            problems.extend(_check_one(target, parsed_only if parsed_only is not None else []))
        except OSError as exc:
            problems.append(os_error_diagnostic(exc, target))
    return problems


@checked(wants={
    "exc": instance_of(OSError, "an OSError (or a subclass, e.g. PermissionError)",
                       "pass the OSError caught, e.g. `except OSError as exc: os_error_diagnostic(exc, path)`"),
    "path": Wants(lambda v: v is None or is_path(v), "a non-empty path (str or pathlib.Path) without NUL characters, "
                  "or None", "the path that was being read, said when the error names none")})
def os_error_diagnostic(exc: OSError, path: str | Path | None = None) -> Diagnostic:
    """A file that cannot be read (no permission, a name too long, ...) as a diagnostic, at
    the file the error names (else at `path`)."""
    named = exc.filename
    if isinstance(named, bytes):
        named = os.fsdecode(named)
    elif isinstance(named, os.PathLike):
        named = os.fspath(named)
    if not isinstance(named, str) or not named:  # (none, or a file descriptor's number)
        named = os.fspath(path) if path is not None else "phasing"
    reason = exc.strerror if isinstance(exc.strerror, str) and exc.strerror else str(exc) or type(exc).__name__
    return Diagnostic("error", f"cannot read {named}: {reason}", Span(named, 0, 0, 0, 0),
                      "check the path and its permissions")


def _guard(fn) -> list[Diagnostic]:
    try:
        fn()
    except DiagnosticError as exc:
        return exc.diagnostics
    return []


def _check_one(target: Path, parsed_only: list[Path]) -> list[Diagnostic]:
    if not target.exists():
        return [Diagnostic("error", f"no such file or folder: {target}", Span(str(target), 0, 0, 0, 0),
                           "give a rule file, a version folder, a scenario file, or a folder of them")]
    if target.is_dir() and (target / "version.rules").exists():
        return _guard(lambda: load_version(str(target.resolve()) if target.resolve().parent != RULES_ROOT else target.name))
    if target.is_dir():
        found, checked = [], 0
        for path in sorted(target.rglob("*")):
            if path.is_dir() and (path / "version.rules").exists():
                found += _check_one(path, parsed_only)
            elif path.suffix == SCENARIO_SUFFIX and path.is_file():
                found += _check_one(path, parsed_only)
            elif path.suffix == ".rules" and path.is_file() and not (path.parent / "version.rules").exists():
                found += _check_one(path, parsed_only)
            else:
                continue
            checked += 1
        if not checked:
            found.append(Diagnostic("error", f"nothing to check in {target}", Span(str(target), 0, 0, 0, 0),
                                    "give a rule file, a version folder, a scenario file, or a folder of them"))
        return found
    if target.suffix == ".rules" and target.resolve().parent == VARIANTS_DIR.resolve():
        return _guard(lambda: load_version(target.stem))
    if target.suffix == SCENARIO_SUFFIX:
        return _check_scenarios(target)
    if target.suffix == ".rules":
        if (target.parent / "version.rules").exists():
            return _check_one(target.parent, parsed_only)
        found = _guard(lambda: parse_file(target))
        if not found and any(isinstance(i, ast.Version) for i in parse_file(target).items):
            return _guard(lambda: load_version(str(target)))  # a variant of one's own, resolved and checked
        if not found:  # (a file of blocks, statuses and verbs for a version folder: what can be told alone)
            found = [Diagnostic("error", f"amend {item.block}: an amend changes a block of the version a variant extends, "
                                "and this file is no variant (it has no manifest)", item.span,
                                "begin the file with a manifest: variant NAME { title \"...\" extends VERSION }")
                     for item in parse_file(target).items if isinstance(item, ast.Amend)]
        if not found and target.resolve().parent == (RULES_ROOT / "cards").resolve():
            found = _guard(lambda: shipped_cards()) or check_cards(shipped_cards().values(), load(None))
        elif not found:
            items = parse_file(target).items
            cards = [item for item in items if isinstance(item, ast.Card)]
            if cards:  # a card file of one's own: its cards, against the newest version (or an older one they fit)
                book = load(None).with_cards(cards)
                found = unfit_cards(cards, book) + [d for d in check_cards(cards, book) if d.kind != "error"]
            if not cards or len(cards) < len(items):
                parsed_only.append(target)
        return found
    return [Diagnostic("error", f"not a rule file or scenario: {target}", Span(str(target), 0, 0, 0, 0),
                       "rule files end in .rules, scenarios in .scenario")]


def _rules_entry(scenario: ast.Scenario, version: str) -> ast.Node:
    """The line of a scenario that names `version` (its `rules` line), or the scenario itself."""
    for e in scenario.entries:
        if isinstance(e, ast.ScenarioRules) and version in e.versions:
            return e
    return next((e for e in scenario.entries if isinstance(e, (ast.ScenarioRules, ast.ScenarioRange))), scenario)


def _check_scenarios(path: Path) -> list[Diagnostic]:
    cases, problems = collect([path])
    problems += files_without_scenarios([path], cases, problems)
    for case in cases:
        books = []
        for version in home_versions(case):
            try:
                book = load_version(version).with_cards(case.cards)
            except DiagnosticError as exc:
                where = _rules_entry(case.scenario, version).span
                problems.extend(d if d.span.line else Diagnostic(d.kind, d.message, where, d.hint)
                                for d in exc.diagnostics)
                continue
            books.append(book)
            found = check_scenario(case.scenario, book)
            found += [d for d in unknown_expectation_names(case.scenario, book) if d not in problems]
            found += [d for d in script_problems(case.scenario, book) if d not in found]
            problems.extend(d for d in found if d not in problems)  # (what every version finds, once)
            if not found:
                problems.extend(_guard(lambda: build_game(case.scenario, book)))
            problems.extend(d for d in unmodelled_steps(case.scenario, book) if d not in problems)  # (warnings)
        problems.extend(unknown_subrules_cited(case.scenario, books))
        problems.extend(unevaluated_expectations(case.scenario))  # (warnings)
        problems.extend(expectations_off_the_rules_line(case.scenario))
    return problems + _unused_cards(cases)


def _unused_cards(cases: list[Case]) -> list[Diagnostic]:
    """A card a scenario file declares and none of its scenarios uses is checked under the
    versions its scenarios name (a card may be written for one era's rules): an error when it
    fits none of them, reported as the newest of them finds it."""
    problems: list[Diagnostic] = []
    for path in dict.fromkeys(case.path for case in cases):
        mine = [case for case in cases if case.path == path]
        used = {e.card for case in mine for e in case.scenario.entries if isinstance(e, ast.PermanentDecl)}
        used |= {s.card for case in mine for e in case.scenario.entries if isinstance(e, ast.Script)
                 for s in e.steps if isinstance(s, (ast.Cast, ast.Choose))}
        unused = [card for card in mine[0].cards if card.name not in used]
        versions = dict.fromkeys(v for case in mine for v in home_versions(case))
        found: list[Diagnostic] = []
        for version in versions:
            try:
                book = load_version(version).with_cards(mine[0].cards)
            except DiagnosticError:
                continue  # (reported with the scenario that names it)
            found = check_cards(unused, book)
            if not found:
                break
        problems.extend(found)
    return problems


@checked
def unknown_subrules_cited(scenario: ast.Scenario, books: list[Rulebook]) -> list[Diagnostic]:
    """A cite of a subrule of a section the rulebooks model (`section 702.26 subrules a b ...`)
    that none of those modelling it lists: 702.26z, or 702.26l where no version has an l. A
    variant's scenario may cite what the variant changes (702.26g, which it drops), so the
    versions a variant extends count as well. A cite of a rule no rulebook models a section
    of (610.3, a history scenario's 702.26g under versions that number phasing 502.15 or
    702.25) is not checked: the rulebooks cannot say."""
    books = books + [load_version(name) for book in books if book.version.kind == "variant" and book.version.extends
                     for name in lineage(book.version.extends)]
    problems = []
    for entry in scenario.entries:
        if not isinstance(entry, ast.ScenarioCites):
            continue
        for cited in entry.rules:
            listing = [(book.version.id, s) for book in books for s in book.version.sections
                       if cited.startswith(s.rule) and cited[len(s.rule):].isalpha()]
            if listing and not any(cited[len(s.rule):] in s.letters for _, s in listing):
                version, section = listing[-1]
                problems.append(Diagnostic(
                    "error", f"cites {cited}, which is no subrule of {section.rule} in "
                             f"{', '.join(dict.fromkeys(v for v, _ in listing))}", entry.span,
                    did_you_mean(cited, (s.rule + letter for _, s in listing for letter in s.letters),
                                 f"{section.rule} has subrules {' '.join(section.letters)} in {version}")))
    return problems


@checked(wants={
    "paths": Wants(lambda v: is_path(v) or isinstance(v, (list, tuple)) and all(map(is_path, v)),
                   "a path or a list or tuple of paths (each a non-empty str or pathlib.Path)",
                   "the paths the scenarios were collected from, e.g. [Path('tests/scenarios')]"),
    "cases": list_of(Case, "a list of interpreter.play.suite.Case", "the cases interpreter.play.suite.collect(paths) found"),
    "problems": list_of(Diagnostic, "a list of Diagnostic", "the problems interpreter.play.suite.collect(paths) found")})
def files_without_scenarios(paths: str | Path | list[str | Path] | tuple[str | Path, ...], cases: list[Case],
                            problems: list[Diagnostic]) -> list[Diagnostic]:
    """An error for each scenario file among `paths` (files, or folders searched below
    themselves) that parsed but holds no scenario, and for each folder with no scenario file:
    a command that would test nothing says so. A path that cannot be read is an error saying
    so (`os_error_diagnostic`)."""
    seen = {case.path for case in cases} | {d.span.path for d in problems}
    found = []
    for root in map(Path, [paths] if is_path(paths) else paths):
        try:
            files = sorted(root.rglob(f"*{SCENARIO_SUFFIX}")) if root.is_dir() else [root] if root.is_file() else []
            if root.is_dir() and not files:
                found.append(Diagnostic("error", f"no scenario files in {root}", Span(str(root), 0, 0, 0, 0),
                                        f"scenario files end in {SCENARIO_SUFFIX}; give one, or a folder holding some"))
            for file in files:
                if str(file) not in seen and file.is_file():
                    found.append(Diagnostic("error", "this file holds no scenario", Span(str(file), 1, 1, 1, 1),
                                            'write one: scenario "what it shows" { players Alice Bob ... }'))
        except OSError as exc:  # (a name too long, a folder this user may not search)
            found.append(os_error_diagnostic(exc, root))
    return found


@checked
def outcome_json(o: Outcome, with_trace: bool = True) -> dict:
    """An outcome as plain data, with its warnings (`Outcome.warnings`, as `suite.run_all`
    gives them) and its trace unless told not to: what `phasing run --json` prints for a run
    (and `test --json` without the trace)."""
    if not isinstance(o, Outcome):
        raise bad_argument("outcome_json", "o", o, "an Outcome", "take one from api.run_file(path)")
    if not isinstance(with_trace, bool):
        raise bad_argument("outcome_json", "with_trace", with_trace, "True or False", "leave it out for True")
    checked = o.checked if len(o.checked) == len(o.expectations) else ()
    data = {
        "scenario": o.scenario,
        "file": o.path,
        "rules": o.version,
        "expectations_of": o.judge or o.version,  # (the text's `[X, expectations of V]`: V, else X)
        "passed": o.passed,
        "expectations": [c.to_json() for c in checked] or [{"expect": text, "ok": ok} for text, ok in o.expectations],
        "failures": [{**diagnostic_json(d), "at": str(d.span)} for d in o.failures],
        "final": o.final,
    }
    if with_trace:
        data["trace"] = trace_json(o.trace)  # (numbered as the trace shows its events)
    data["warnings"] = [diagnostic_json(d) for d in o.warnings]
    return data


@checked
def diagnostic_json(d: Diagnostic) -> dict:
    """A diagnostic as plain data: path, line, column (0 when it points at no line), message, hint, and
    its notes (each path, line, column, message) when it has any."""
    if not isinstance(d, Diagnostic):
        raise bad_argument("diagnostic_json", "d", d, "a Diagnostic", "take one from DiagnosticError.diagnostics")
    found = {"kind": d.kind, "path": d.span.path, "line": d.span.line, "column": d.span.column,
             "end_line": d.span.end_line, "end_column": d.span.end_column, "message": d.message, "hint": d.hint}
    if d.notes:  # (the other places it concerns, when it names any)
        found["notes"] = [{"path": n.span.path, "line": n.span.line, "column": n.span.column, "message": n.message}
                          for n in d.notes]
    return found
