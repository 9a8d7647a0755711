"""`phasing cards`: a survey of how much of a pool of real cards the card library can say.

The pool is a JSON list of objects, each with at least "name" (a string) and "features" (a
list of strings: the game features the real card's text needs); other keys are ignored. Each
pool card is, against the library:

- written: the library has a card of exactly that name, with no `partial` entry; the
  scenarios that put it into play (the conformance suite's, and those of your own given with
  `--scenarios`) are listed, with whether they all pass;
- partial: the library has it, with `partial` entries saying what it leaves out;
- not written: the library has no card of that name.

The features of the partial and the not-written cards, ranked by how many of them need each,
say what to build next. A library card whose name is not in the pool takes no part.

The library is the shipped one with your own cards added (`--cards FILE`, the rules path's
cards/ folders: `interpreter.rulebook.loading`); with `--only`, your own cards alone.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Iterable

import attrs

from ...dsl import ast
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from ...dsl.parser import _encoding_diagnostic
from ..api import default_suite, files_without_scenarios
from ..rulebook.loading import load_cards, shipped_cards, user_card_sources, user_cards
from ..play.suite import collect, run_all

POOL_VARIABLE = "PHASING_CARD_POOL"
WRITTEN, PARTIAL, NOT_WRITTEN = "written", "partial", "not written"
SHAPE_HINT = 'the pool is a JSON list of objects, each with "name" (a string) and "features" (a list of strings)'


@attrs.frozen
class PoolCard:
    """One card of the pool: its name and the features its real text needs."""

    name: str
    features: tuple[str, ...]


@attrs.frozen
class ScenarioUse:
    """A conformance scenario that puts a card into play, and whether every run of it passed."""

    scenario: str
    path: str
    passed: bool

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "file": self.path, "passed": self.passed}


@attrs.frozen
class SurveyedCard:
    name: str
    status: str  # WRITTEN, PARTIAL or NOT_WRITTEN
    partial: tuple[str, ...]
    features: tuple[str, ...]
    scenarios: tuple[ScenarioUse, ...]
    source: str | None = None  # the file of your own the library's card comes from (None: shipped, or not written)

    @property
    def tested(self) -> bool:
        return bool(self.scenarios)

    @property
    def all_pass(self) -> bool | None:
        """Whether every scenario that plays it passed; None when none does."""
        return all(s.passed for s in self.scenarios) if self.scenarios else None

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "partial": list(self.partial),
                "features": list(self.features), "scenarios": [s.to_json() for s in self.scenarios],
                "tested": self.tested, "all_pass": self.all_pass, "source": self.source}


@attrs.frozen
class Need:
    """A feature, and the partial or not-written cards (in pool order) that need it."""

    feature: str
    names: tuple[str, ...]

    def to_json(self) -> dict:
        return {"feature": self.feature, "cards": len(self.names), "names": list(self.names)}


@attrs.frozen
class Survey:
    pool: str
    library: tuple[str, ...]  # what the library is made of: "shipped", then your card files
    cards: tuple[SurveyedCard, ...]
    scenarios: tuple[str, ...] = ()  # the scenario files and folders whose results are shown

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.cards)

    @property
    def untested(self) -> int:
        return sum(c.status == WRITTEN and not c.tested for c in self.cards)

    def summary(self) -> dict:
        return {"total": len(self.cards), WRITTEN: self.count(WRITTEN), "untested": self.untested,
                PARTIAL: self.count(PARTIAL), NOT_WRITTEN: self.count(NOT_WRITTEN)}

    def needs(self) -> list[Need]:
        """The features of the partial and not-written cards, those most cards need first."""
        found: dict[str, list[str]] = {}
        for card in self.cards:
            if card.status != WRITTEN:
                for feature in dict.fromkeys(card.features):
                    found.setdefault(feature, []).append(card.name)
        ranked = sorted(found.items(), key=lambda item: (-len(item[1]), _alphabetical(item[0]), item[0]))
        return [Need(feature, tuple(names)) for feature, names in ranked]

    def to_json(self) -> dict:
        return {"pool": self.pool, "library": list(self.library), "scenarios": list(self.scenarios),
                "cards": [c.to_json() for c in self.cards], "summary": self.summary(),
                "next": [n.to_json() for n in self.needs()]}


def _alphabetical(label: str) -> str:
    """A feature's label as it is looked up in a list: without case, and without the quotes or
    other marks it may begin with (`"can't phase" effects` among the c's)."""
    return re.sub(r"^\W+", "", label).casefold()


# ------------------------------------------------------------------ the pool


def pool_path(given: str | None) -> str:
    """The pool's path: the one given, else $PHASING_CARD_POOL; neither is an error."""
    path = given if given is not None else os.environ.get(POOL_VARIABLE) or None  # (set but empty: not set)
    if not path:
        raise DiagnosticError(Diagnostic(
            "error", "no card pool given", Span("phasing cards", 0, 0, 0, 0),
            f"pass the pool's path, phasing cards POOL.json, or set {POOL_VARIABLE} to it ({SHAPE_HINT})"))
    return path


def read_pool(path: str) -> list[PoolCard]:
    """The cards of a pool file; a file that cannot be read, is not JSON or is not of the
    pool's shape is a DiagnosticError at the place (the item and key it concerns)."""
    where = Path(path)
    if not where.exists() or not where.is_file():
        what = f"no such file or folder: {path}" if not where.exists() else f"the card pool is not a file: {path}"
        raise DiagnosticError(Diagnostic("error", what, Span(path, 0, 0, 0, 0), "give the path of a JSON file: " + SHAPE_HINT))
    try:
        data = where.read_bytes()
    except OSError as exc:
        raise DiagnosticError(Diagnostic("error", f"cannot read the card pool: {exc.strerror or exc}",
                                         Span(path, 0, 0, 0, 0), "give the path of a JSON file: " + SHAPE_HINT)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DiagnosticError(_encoding_diagnostic(exc, path)) from None
    met: list[str] = []  # (what JSON itself lets through or cannot say where: a key given twice, a number too long)

    def pairs(items: list) -> dict:
        found = dict(items)
        if len(found) < len(items):
            met.append("a key twice")
        return found

    def whole(digits: str):
        try:
            return int(digits)
        except ValueError:  # (more digits than Python reads: sys.get_int_max_str_digits)
            met.append("a number too long")
            return None

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_int=whole)
    except json.JSONDecodeError as exc:
        message = exc.msg[:1].lower() + exc.msg[1:]
        raise DiagnosticError(Diagnostic("error", f"the card pool is not JSON: {message}",
                                         Span(path, exc.lineno, exc.colno, exc.lineno, exc.colno + 1), SHAPE_HINT)) from None
    except RecursionError:  # (lists and objects nested deeper than Python's stack)
        met.append("nesting")
    except ValueError:  # (not to be: said at the first line)
        met.append("something unreadable")
    if met:
        raise DiagnosticError(_value_problem(text, path, nesting="nesting" in met))
    return _pool_cards(value, text, path)


MAX_POOL_DEPTH = 100
"""Lists and objects nested deeper than this in a pool that JSON cannot read for its depth are
reported at the first bracket past it (a pool nests three deep: a list of objects holding lists)."""

_NUMBER = re.compile(r"-?(?P<digits>\d+)(?P<fraction>\.\d+)?(?P<exponent>[eE][-+]?\d+)?")
_WORD = re.compile(r"-?[A-Za-z]+")


def _value_problem(text: str, path: str, nesting: bool) -> Diagnostic:
    """The first value of `text` (JSON that reads, but for what it met) that a pool cannot
    hold, at its line and column: a key given twice in one object (at the second: JSON would
    keep only the last), a whole number of more digits than can be read, and, when the JSON
    could not be read for its depth, the first list or object nested past MAX_POOL_DEPTH."""
    found = _first_problem(text, nesting)
    if found is None:  # (not to be: what the reader met is in the text)
        return Diagnostic("error", "the card pool cannot be read", Span(path, 1, 1, 1, 2), SHAPE_HINT)
    offset, message, hint = found
    line, column = _line_column(text, offset)
    return Diagnostic("error", message, Span(path, line, column, line, column + 1), hint)


def _first_problem(text: str, nesting: bool) -> tuple[int, str, str] | None:
    """(offset, message, hint) of the first problem `_value_problem` describes, in text
    order; None when there is none. Walks the text token by token, keeping for each object
    open the offsets of its keys (no recursion: the text may nest deeply)."""
    limit = sys.get_int_max_str_digits()
    open_: list[dict[str, int] | None] = []  # per list or object open, innermost last: an object's keys -> offsets
    i = _skip(text, 0)
    while i < len(text):
        c = text[i]
        if c in "[{":
            if nesting and len(open_) >= MAX_POOL_DEPTH:
                return (i, f"the card pool nests too deeply here: lists and objects more than {MAX_POOL_DEPTH} deep",
                        "a pool nests three deep: " + SHAPE_HINT[len("the pool is "):])
            open_.append({} if c == "{" else None)
            i += 1
        elif c in "]}":
            if open_:
                open_.pop()
            i += 1
        elif c in ",:":
            i += 1
        elif c == '"':
            key, end = json.decoder.scanstring(text, i + 1)
            keys = open_[-1] if open_ else None
            if keys is not None and text[_skip(text, end):_skip(text, end) + 1] == ":":
                if key in keys:
                    line, column = _line_column(text, keys[key])
                    return (i, f"the key {_shown(key)} is given twice in this object (first at line {line}, column "
                               f"{column}): JSON would keep only this one", "give each key of an object once")
                keys[key] = i
            i = end
        else:
            number = _NUMBER.match(text, i)
            if number is None:
                word = _WORD.match(text, i)
                if word is None:  # (not JSON here: not to be, since the text read)
                    return None
                i = word.end()
                continue
            digits = number["digits"]
            if limit and not number["fraction"] and not number["exponent"] and len(digits) > limit:
                return (i, f"a whole number of {len(digits):,} digits, more than the {limit:,} a number may have",
                        "a pool holds no numbers: " + SHAPE_HINT)
            i = number.end()
        i = _skip(text, i)
    return None


def _shown(key: str) -> str:
    """A key as a message shows it: in JSON's quotes, cut short if long."""
    quoted = json.dumps(key, ensure_ascii=False)
    return quoted if len(quoted) <= 40 else quoted[:37] + '..."'


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of `offset` in `text`."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _pool_cards(value, text: str, path: str) -> list[PoolCard]:
    def wrong(message: str, *where) -> DiagnosticError:
        return DiagnosticError(Diagnostic("error", message, _span_of(text, path, where), SHAPE_HINT))

    if not isinstance(value, list):
        raise wrong(f"the card pool must be a JSON list of cards, not {_kind(value)}")
    cards, first = [], {}
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise wrong(f"item {i} of the card pool must be an object, not {_kind(item)}", i)
        for key in ("name", "features"):
            if key not in item:
                raise wrong(f'item {i} of the card pool has no "{key}" key', i)
        name, features = item["name"], item["features"]
        if not isinstance(name, str) or not name.strip():
            raise wrong(f'item {i} of the card pool: "name" must be a card\'s name, not {_kind(name)}', i, "name")
        if not isinstance(features, list):
            raise wrong(f'item {i} of the card pool (\'{name}\'): "features" must be a list of strings, '
                        f"not {_kind(features)}", i, "features")
        for j, feature in enumerate(features):
            if not isinstance(feature, str):
                raise wrong(f'item {i} of the card pool (\'{name}\'): "features" must be a list of strings; '
                            f"its entry {j} is {_kind(feature)}", i, "features", j)
        if name in first:
            raise wrong(f"item {i} of the card pool: '{name}' is in the pool twice (item {first[name]} too)", i, "name")
        first[name] = i
        cards.append(PoolCard(name, tuple(features)))
    return cards


def _kind(value) -> str:
    if isinstance(value, str):
        return "an empty string" if not value.strip() else "a string"
    return {dict: "an object", list: "a list", bool: "true or false", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), "a value")


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    return _SPACE.match(text, i).end()


def _offset(text: str, where: tuple) -> int:
    """Where the value reached by `where` (list indexes and object keys, from the top) starts
    in `text`, which is JSON known to read."""
    i = _skip(text, 0)
    for step in where:
        i = _skip(text, i + 1)  # past '[' or '{'
        if isinstance(step, int):
            for _ in range(step):
                i = _skip(text, _DECODER.raw_decode(text, i)[1])
                i = _skip(text, i + 1)  # past ','
            continue
        found = None
        while text[i] != "}":
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, _skip(text, i) + 1)  # past ':'
            if key == step:
                found = i  # (the last of a repeated key is the one JSON keeps)
            i = _skip(text, _DECODER.raw_decode(text, i)[1])
            if text[i] == ",":
                i = _skip(text, i + 1)
        i = found if found is not None else i
    return i


def _span_of(text: str, path: str, where: tuple) -> Span:
    try:
        i = _offset(text, where)
    except (ValueError, IndexError, RecursionError):  # (not to be: the text read as JSON)
        return Span(path, 1, 1, 1, 2)
    line, column = _line_column(text, i)
    return Span(path, line, column, line, column + 1)


# ------------------------------------------------------------------ the library


def shipped_library() -> dict[str, ast.Card]:
    """The card library the conformance scenarios use (rules/cards/)."""
    return shipped_cards()


def library_in_force(only: bool = False) -> tuple[dict[str, ast.Card], tuple[str, ...]]:
    """The library a survey is made against, and what it is made of ("shipped", then each card
    file of your own): the shipped library with your own cards added (those in force: `--cards`,
    the rules path's cards/ folders), or with `only` your own cards alone. Your card files have
    been read and checked (`loading.card_library_problems`) by the command before."""
    own = user_cards()
    files = tuple(dict.fromkeys(str(entry) for entry, _origin in user_card_sources() if isinstance(entry, Path)))
    if only:
        if not own:
            raise DiagnosticError(Diagnostic(
                "error", "--only surveys your own cards, and none were given", Span("--only", 0, 0, 0, 0),
                "give a file of your cards with --cards FILE (or keep it in a cards/ folder of the rules path), or "
                "leave --only out to survey the shipped library"))
        return own, files
    return load_cards(), ("shipped",) + files


def partial_entries(card: ast.Card) -> tuple[str, ...]:
    return tuple(e.text for e in card.entries if isinstance(e, ast.Partial))


# ------------------------------------------------------------------ the scenarios


def cards_put_into_play(scenario: ast.Scenario) -> set[str]:
    """The cards a scenario puts into play: those of its `permanent` lines, of its `cast` and
    `hold` steps, and of its `choose` steps (a triggered ability's card)."""
    found = {e.card for e in scenario.entries if isinstance(e, ast.PermanentDecl)}
    found |= {step.card for e in scenario.entries if isinstance(e, ast.Script)
              for step in e.steps if isinstance(step, (ast.Cast, ast.Choose))}
    return found


def scenario_uses(names: Iterable[str], suite: Path | list[Path]) -> dict[str, tuple[ScenarioUse, ...]]:
    """For each of `names`, the scenarios of `suite` (a folder or file, or a list of them) that
    put the library's card of that name into play (not a card of the same name their own file
    declares), each played under every version it names, with whether all those runs passed.
    A scenario reached twice (a folder given inside another) is played once."""
    names = set(names)
    suites = [suite] if isinstance(suite, (str, Path)) else list(suite)
    cases, problems = collect(suites)
    if problems:
        raise DiagnosticError(problems)
    playing = {}
    for case in cases:
        own = {card.name for card in case.cards}
        used = (cards_put_into_play(case.scenario) - own) & names
        if used:
            playing.setdefault((str(Path(case.path).resolve()), case.scenario.name), (case, used))
    passed: dict[tuple[str, str], bool] = {}
    for o in run_all([case for case, _used in playing.values()]):
        key = (str(Path(o.path).resolve()), o.scenario)
        passed[key] = passed.get(key, True) and o.passed
    uses: dict[str, list[ScenarioUse]] = {name: [] for name in names}
    for key, (case, used) in playing.items():
        for name in sorted(used):
            uses[name].append(ScenarioUse(case.scenario.name, case.path, passed.get(key, False)))
    return {name: tuple(found) for name, found in uses.items()}


# ------------------------------------------------------------------ the survey


def survey(pool: list[PoolCard], library: dict[str, ast.Card], suite: Path | list[Path] | None = None,
           pool_label: str = "", library_label: str | tuple[str, ...] = ()) -> Survey:
    """Each pool card against `library`, with the scenarios of `suite` (a folder or file, or a
    list of them; default: the shipped conformance suite) that play the cards the library has.
    A card not of the shipped library says the file it comes from."""
    if suite is None:
        suite = default_suite()
    known = [card.name for card in pool if card.name in library]
    uses = scenario_uses(known, suite) if known else {}
    shipped = shipped_cards()
    found = []
    for card in pool:
        if card.name not in library:
            found.append(SurveyedCard(card.name, NOT_WRITTEN, (), card.features, ()))
            continue
        written = library[card.name]
        partial = partial_entries(written)
        source = None if shipped.get(card.name) is written else written.span.path or None
        found.append(SurveyedCard(card.name, PARTIAL if partial else WRITTEN, partial, card.features, uses[card.name],
                                  source))
    suites = [suite] if isinstance(suite, (str, Path)) else list(suite)
    label = (library_label,) if isinstance(library_label, str) else tuple(library_label)
    return Survey(pool_label, label, tuple(found), tuple(map(str, suites)))


def run(pool: str | None, only: bool = False, scenarios: Iterable[str] = ()) -> Survey:
    """`phasing cards [POOL] [--cards FILE]... [--only] [--scenarios PATH]...`: the pool read,
    the library in force (`library_in_force`), the survey with the conformance suite's
    scenarios and those of `scenarios` (each a file or folder that must hold scenarios)."""
    path = pool_path(pool)
    cards = read_pool(path)
    scenarios = list(scenarios)
    if scenarios:
        cases, problems = collect(scenarios)
        problems += files_without_scenarios(scenarios, cases, problems)
        if problems:
            raise DiagnosticError(problems)
    library, made_of = library_in_force(only)
    return survey(cards, library, [default_suite(), *map(Path, scenarios)], pool_label=path, library_label=made_of)
