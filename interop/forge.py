"""`phasing import forge FILE`: a Forge game state (its `key=value` lines, or a puzzle file's
`[state]` section) read into a scenario file.

The reader knows the shape of Forge's text: the players' seats (`human` is seat 0, `ai` seat 1,
`p0`, `p1`, ... by number), one line per zone and player, cards separated by `;`, each a name
and `|`-separated attributes. What an attribute stands for in the rules' terms (the statuses
it sets), which token descriptions are which cards, and the steps a scenario can start in (or
go on to first, `to STEP`) are read from a mapping file (`forge.toml`), whose statuses are checked against the newest
rulebook. Everything of the file a scenario cannot say is a warning at its line and column;
what the scenario would be wrong without (an unknown card, an attachment to an Id nobody has)
is an error there, and then no scenario is given. The scenario made is held to `phasing
check` before it is handed back: what that finds is reported at the card it came from.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Iterable

import attrs

from ..dsl import ast
from ..dsl.atomic import write_file
from ..dsl.builtins import CONSTANTS, KIND_NAME, card_slug, first_free
from ..dsl.checker import check_cards
from ..dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean
from ..dsl.parser import _encoding_diagnostic
from ..dsl.printer import item_lines

MAPPING = Path(__file__).with_name("forge.toml")
MOST_SEATS = 16  # (players p0 to p15: more is no game Forge plays, and a typo would make thousands)
STARTING_LIFE = 20  # (a player of a scenario begins with 20 life: `model.Player`)
SEAT_PLACEHOLDER = "{seat}"
CONTROLLER_PLACEHOLDER = "{controller}"

# Forge's zones by the suffix of a player's key; only the battlefield has permanents to import.
OTHER_ZONES = {"hand": "hand", "library": "library", "graveyard": "graveyard", "exile": "exile",
               "command": "command zone", "sideboard": "sideboard", "ante": "ante"}
PRINTING = {"Set": "the set it was printed in", "Art": "which art it is printed with"}
METADATA_SHOWN = {"Name", "Description", "Difficulty"}  # (a puzzle's presentation: written as comments, not warned of)
PLAYER_KEY = re.compile(r"(human|ai|p(\d+))(.*)", re.IGNORECASE)
SEAT_VALUE = re.compile(r"P(\d+)")
SECTION = re.compile(r"\[([^\]]*)\]")


# ---------------------------------------------------------------------------- the mapping


@attrs.frozen
class StatusMeaning:
    """What one card attribute stands for: the statuses it sets (a value, or SEAT_PLACEHOLDER
    for the player of its seat), what a seat-less attribute names, and the statuses it sets as
    well on a permanent attached to a permanent that has the attribute too."""

    attribute: str
    sets: tuple[tuple[str, str], ...]
    bare: str
    with_host: tuple[tuple[str, str], ...]


@attrs.frozen
class Mapping:
    path: str
    statuses: dict[str, StatusMeaning]
    tokens: dict[str, str]
    start_phases: frozenset[str]
    goes_on_to: dict[str, str] = attrs.field(factory=dict)  # (a later Forge step -> the step the script goes on to)


def _mapping_span(text: str, path: str, table: str, key: str | None = None) -> Span:
    """Where `key` is written in `table` of a TOML file (the table's header line when the key
    cannot be found; the file when the table cannot)."""
    lines = text.splitlines()
    header = re.compile(r"\s*\[\s*" + r"\s*\.\s*".join(re.escape(p) for p in table.split(".")) + r"\s*\]")
    start = next((n for n, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return Span(path, 0, 0, 0, 0)
    if key is not None:
        pattern = re.compile(r'(?<![\w"-])"?' + re.escape(key) + r'"?\s*=')
        for n in range(start + 1, len(lines)):
            if lines[n].lstrip().startswith("["):
                break
            found = pattern.search(lines[n])
            if found:
                written = found.group().rstrip("= \t")
                return Span(path, n + 1, found.start() + 1, n + 1, found.start() + 1 + len(written))
    return Span(path, start + 1, 1, start + 1, len(lines[start]) + 1)


def load_mapping(path: str | Path | None, book: Any, cards: Iterable[str]) -> Mapping:
    """The mapping file (default `forge.toml` beside this module), checked: every status it
    names is one `book` (the newest rulebook) declares, with a value of that status's type,
    and every token is mapped to one of `cards`. A DiagnosticError at the place otherwise."""
    path = Path(path) if path is not None else MAPPING
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DiagnosticError(_encoding_diagnostic(exc, shown)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"line (\d+), column (\d+)", str(exc))
        line, column = (int(at.group(1)), int(at.group(2))) if at else (0, 0)
        raise DiagnosticError(Diagnostic("error", f"the mapping file is not TOML: {str(exc).split(' (at')[0]}",
                                         Span(shown, line, column, line, column + 1), "see interop/forge.toml")) from None
    problems: list[Diagnostic] = []

    def wrong(message: str, table: str, key: str | None = None, hint: str | None = None) -> None:
        problems.append(Diagnostic("error", message, _mapping_span(text, shown, table, key), hint))

    for key in data:
        if key not in ("statuses", "tokens", "turn"):
            wrong(f"unknown table '{key}' in the mapping file", key, None, "the tables are [statuses.ATTRIBUTE], [tokens] and [turn]")
    statuses: dict[str, StatusMeaning] = {}
    for attribute, entry in _table(data, "statuses").items():
        table = f"statuses.{attribute}"
        if not isinstance(entry, dict):
            wrong(f"statuses.{attribute} is not a table", "statuses", attribute, "write [statuses.ATTRIBUTE] with set = { ... }")
            continue
        for key in entry:
            if key not in ("cites", "set", "bare", "with_host"):
                wrong(f"unknown key '{key}' in [{table}]", table, key, "the keys are cites, set, bare and with_host")
        bare = entry.get("bare", CONTROLLER_PLACEHOLDER)
        if bare != CONTROLLER_PLACEHOLDER:
            wrong(f"bare = {bare!r}: a seat-less attribute can only name the card's controller", table, "bare",
                  f'write bare = "{CONTROLLER_PLACEHOLDER}"')
        sets = _assignments(entry.get("set"), table, "set", book, wrong)
        if entry.get("set") == {}:
            wrong(f"[{table}] sets no status", table, "set", "write set = { STATUS = VALUE, ... }")
        elif "set" not in entry:
            wrong(f"[{table}] has no set = {{ ... }}", table, None, "write set = { STATUS = VALUE, ... }")
        with_host = _assignments(entry.get("with_host", {}), table, "with_host", book, wrong)
        statuses[attribute] = StatusMeaning(attribute, sets, CONTROLLER_PLACEHOLDER, with_host)
    known = set(cards)
    tokens: dict[str, str] = {}
    for description, card in _table(data, "tokens").items():
        if not isinstance(card, str) or card not in known:
            wrong(f"token '{description}' is mapped to {card!r}, which is no card of the library or of --cards",
                  "tokens", description, did_you_mean(str(card), known, "map it to a card's name"))
            continue
        tokens[description] = card
    phases = _table(data, "turn").get("start_phases", [])
    if not isinstance(phases, list) or not all(isinstance(p, str) for p in phases):
        wrong("start_phases is not a list of Forge's phase names", "turn", "start_phases", 'e.g. start_phases = ["MAIN1"]')
        phases = []
    goes_on_to: dict[str, str] = {}
    for forge_step, step in _table(_table(data, "turn"), "goes_on_to").items():
        if not isinstance(step, str) or step not in book.turn.steps:
            wrong(f"turn.goes_on_to.{forge_step} = {step!r} is no step of the turn", "turn.goes_on_to", forge_step,
                  did_you_mean(str(step), book.turn.steps, f"the steps: {', '.join(book.turn.steps)}"))
            continue
        goes_on_to[forge_step.upper()] = step
    if problems:
        raise DiagnosticError(problems)
    return Mapping(shown, statuses, tokens, frozenset(phases), goes_on_to)


def _table(data: dict, key: str) -> dict:
    found = data.get(key, {})
    return found if isinstance(found, dict) else {}


def _assignments(table: Any, where: str, key: str, book: Any, wrong) -> tuple[tuple[str, str], ...]:
    """`{STATUS = VALUE, ...}` of the mapping, each status one `book` declares and each value
    one it may hold; the wrong ones reported through `wrong`."""
    if not isinstance(table, dict):
        if table is not None:
            wrong(f"{key} is not a table of STATUS = VALUE", where, key, f"write {key} = {{ STATUS = VALUE }}")
        return ()
    found = []
    for status, value in table.items():
        value = ("true" if value else "false") if isinstance(value, bool) else value
        decl = book.statuses.get(status)
        if decl is None:
            wrong(f"'{status}' is no status the rules declare ({book.version.id})", where, status,
                  did_you_mean(status, book.statuses, f"the statuses: {', '.join(book.statuses)}"))
            continue
        allowed = {"enum": list(decl.values), "bool": ["true", "false"],
                   "player": [SEAT_PLACEHOLDER, CONTROLLER_PLACEHOLDER, "none"], "object": ["none"]}.get(decl.type, [])
        if not isinstance(value, str) or value not in allowed:
            wrong(f"{status} = {value!r}: status {status} ({decl.type}) takes {', '.join(allowed)}", where, status,
                  did_you_mean(str(value), allowed, f"write one of: {', '.join(allowed)}"))
            continue
        found.append((status, value))
    return tuple(found)


# ---------------------------------------------------------------------------- the Forge text


@attrs.frozen
class Piece:
    """A stretch of one line of the Forge file: its text and where it is."""

    text: str
    span: Span


@attrs.define
class ForgeCard:
    name: Piece
    token: bool
    seat: int  # whose battlefield line it is on: its controller
    attributes: list[tuple[Piece, Piece | None]]  # (name, value), in order
    whole: Span
    permanent: str = ""
    props: list[str] = attrs.Factory(list)
    host: "ForgeCard | None" = None


@attrs.frozen
class Imported:
    """What an import gives: the scenario's text (None when there are errors), its warnings
    and its errors."""

    scenario: str | None
    warnings: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]


def _piece(text: str, path: str, line: int, column: int) -> Piece:
    """`text` (found at `column` of `line`) without the spaces around it, where it is."""
    lead = len(text) - len(text.lstrip())
    stripped = text.strip()
    start = column + lead
    return Piece(stripped, Span(path, line, start, line, start + max(1, len(stripped))))


class Reader:
    """One Forge file read: the lines of its state, the seats, the cards of the battlefield."""

    def __init__(self, path: str, text: str, mapping: Mapping, known_cards: set[str]):
        self.path, self.mapping, self.known_cards = path, mapping, known_cards
        self.warnings: list[Diagnostic] = []
        self.errors: list[Diagnostic] = []
        self.metadata: list[tuple[str, str]] = []
        self.name: str | None = None
        self.lines: list[tuple[int, Piece, Piece]] = []  # (line, key, value) of the state
        self.lines_text = text.removeprefix("\ufeff").splitlines()

    def warn(self, message: str, span: Span, hint: str | None = None) -> None:
        self.warnings.append(Diagnostic("warning", message, span, hint))

    def fail(self, message: str, span: Span, hint: str | None = None) -> None:
        self.errors.append(Diagnostic("error", message, span, hint))

    def line_span(self, n: int) -> Span:
        return Span(self.path, n, 1, n, len(self.lines_text[n - 1]) + 1)

    # ------------------------------------------------------------------ the sections

    def read_sections(self) -> None:
        section = "state"  # (a file without sections is all state: Forge's saved games)
        skipped: dict[str, list[int]] = {}
        for n, raw in enumerate(self.lines_text, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            head = SECTION.fullmatch(line)
            if head:
                section = head.group(1).strip().lower()
                if section not in ("metadata", "state"):
                    skipped[section] = [n]
                continue
            if section == "metadata":
                self.read_metadata(n, raw)
            elif section == "state":
                self.read_state_line(n, raw)
            else:
                skipped[section].append(n)
        for section, (header, *rest) in skipped.items():
            self.warn(f"section [{section}] is not read: {len(rest)} line(s) under it are not carried over",
                      self.line_span(header), "a scenario is made from the [state] section (and [metadata]'s Name)")

    def read_metadata(self, n: int, raw: str) -> None:
        key, sep, value = raw.partition(":")
        if not sep:
            self.warn("a metadata line without 'Key:Value' is not read", self.line_span(n),
                      "metadata lines are written Key:Value (Name:My puzzle)")
            return
        key_piece = _piece(key, self.path, n, 1)
        value = value.strip()
        if key_piece.text == "Name" and value:
            self.name = value
            if '"' in value:
                self.warn("a scenario's name cannot hold double quotes: each is written ' instead",
                          _piece(raw.partition(":")[2], self.path, n, len(key) + 2).span)
            return
        self.metadata.append((key_piece.text, value))
        if key_piece.text not in METADATA_SHOWN:
            self.warn(f"the puzzle's {key_piece.text} ({value}) is written only as a comment: a scenario has no "
                      "goal or limit of turns", key_piece.span, "write what it asks as expectations in the script")

    def read_state_line(self, n: int, raw: str) -> None:
        key, sep, value = raw.partition("=")
        if not sep:
            piece = _piece(raw, self.path, n, 1)
            self.fail(f"'{piece.text}' is no state line: a line of a Forge state is written key=value", piece.span,
                      "e.g. humanbattlefield=Grizzly Bears|Id:1 (a puzzle file's metadata goes under [metadata])")
            return
        key_piece = _piece(key, self.path, n, 1)
        if not key_piece.text:
            self.fail("a state line without a key: it is written key=value", key_piece.span,
                      "e.g. humanbattlefield=Grizzly Bears|Id:1")
            return
        self.lines.append((n, key_piece, Piece(value, Span(self.path, n, len(key) + 2, n, len(raw) + 1))))

    # ------------------------------------------------------------------ the keys

    def read(self) -> dict:
        """The state's lines sorted out: seats, turn, active player and phase, each player's
        battlefield; everything else warned of (or, when it is malformed, an error)."""
        found: dict[str, Any] = {"seats": set(), "numbered": False, "battlefield": [], "turn": None,
                                 "active": None, "phase": None}
        seen: dict[str, int] = {}
        for n, key, value in self.lines:
            lowered = key.text.lower()
            m = PLAYER_KEY.fullmatch(key.text)
            same = f"{self.seat_of_key(m)}:{m.group(3).lower()}" if m else lowered  # (human... is p0...)
            if same in seen:
                self.fail(f"a second '{key.text}' line (the first is line {seen[same]})", key.span,
                          "write each key once (human is p0, ai is p1)")
                continue
            seen[same] = n
            if lowered == "turn":
                found["turn"] = self.number(value, "the turn", least=1)
                continue
            if lowered == "activeplayer":
                found["active"] = value
                continue
            if lowered == "activephase":
                found["phase"] = value
                continue
            if m is None:
                self.warn(f"'{key.text}' is not carried over: a scenario has nothing to say it with",
                          key.span, "the keys read are PLAYERbattlefield, PLAYERlife, turn, activeplayer and activephase")
                continue
            seat = self.seat_of_key(m)
            if seat >= MOST_SEATS:
                self.fail(f"'{key.text}': seat {seat} is more than this reader takes (seats 0 to {MOST_SEATS - 1})",
                          key.span, "Forge numbers the players of a game p0, p1, ... from 0")
                continue
            found["numbered"] |= m.group(2) is not None
            found["seats"].add(seat)
            zone = m.group(3).lower()
            if zone == "battlefield":
                found["battlefield"].append((seat, value))
            elif zone == "life":
                life = self.number(value, "a life total")
                if life is not None and life != STARTING_LIFE:
                    found.setdefault("life", []).append((seat, life, value.span))
            elif zone in OTHER_ZONES:
                cards = [c for c in value.text.split(";") if c.strip()]
                if cards:
                    found.setdefault("zones", []).append((seat, OTHER_ZONES[zone], len(cards), value))
            else:
                self.warn(f"'{key.text}' is not carried over: a scenario has nothing to say it with",
                          key.span, "the keys read are PLAYERbattlefield, PLAYERlife, turn, activeplayer and activephase")
        return found

    @staticmethod
    def seat_of_key(m: re.Match) -> int:
        if m.group(2) is not None:
            return int(m.group(2))
        return 0 if m.group(1).lower() == "human" else 1

    def number(self, piece: Piece, what: str, least: int = 0) -> int | None:
        text = piece.text.strip()
        if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) < least:
            self.fail(f"'{text}' is not {what}: a whole number of {least} or more", piece.span)
            return None
        return int(text)

    # ------------------------------------------------------------------ the cards

    def cards_of(self, seat: int, value: Piece) -> list[ForgeCard]:
        cards = []
        column = value.span.column
        for part in value.text.split(";"):
            if part.strip():
                cards.append(self.card(seat, part, value.span.line, column))
            column += len(part) + 1
        return cards

    def card(self, seat: int, text: str, line: int, column: int) -> ForgeCard:
        fields = text.split("|")
        name = _piece(fields[0], self.path, line, column)
        whole = _piece(text, self.path, line, column).span
        token = name.text.startswith("t:")
        if token:
            name = _piece(name.text[2:], self.path, line, name.span.column + 2)
        attributes = []
        at = column + len(fields[0]) + 1
        for field in fields[1:]:
            if field.strip():
                attribute, sep, value = field.partition(":")
                key = _piece(attribute, self.path, line, at)
                attributes.append((key, _piece(value, self.path, line, at + len(attribute) + 1) if sep else None))
            at += len(field) + 1
        return ForgeCard(name, token, seat, attributes, whole)


# ---------------------------------------------------------------------------- the import


def import_state(path: str | Path, mapping_path: str | Path | None = None,
                 card_files: Iterable[str | Path] = ()) -> Imported:
    """The Forge state of `path` as a scenario's text, with what could not be carried over
    (warnings) and what keeps it from being a scenario that plays that board (errors).
    `card_files`: the user's own card files, whose cards a Forge card may be, and which the
    scenario then declares. A mapping file or card file that does not load raises
    DiagnosticError; so does a Forge file that cannot be read as text."""
    from ..interpreter.rulebook.loading import card_library, load_version
    from ..interpreter.play.suite import current_version

    for file in [path, *card_files] + ([mapping_path] if mapping_path is not None else []):
        _regular(file)
    book = load_version(current_version())
    # (card files of one's own, read as every command reads them: cards only, no name of the library's)
    _library, own = card_library([(Path(file), "--cards") for file in card_files], base=book.cards)
    problems = check_cards(list(own.values()), book.with_cards(own.values()))
    if [d for d in problems if d.kind != "warning"]:
        raise DiagnosticError(problems)
    known = set(book.cards) | set(own)
    mapping = load_mapping(mapping_path, book, known)
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DiagnosticError(_encoding_diagnostic(exc, shown)) from None
    reader = Reader(shown, text, mapping, known)
    reader.read_sections()
    found = reader.read()
    if not reader.lines and not reader.errors:
        reader.fail("no state line in this file: is it a Forge game state?", Span(shown, 0, 0, 0, 0),
                    "a Forge state has key=value lines (humanbattlefield=..., turn=...); a puzzle file has them under [state]")
    body, origins = _scenario_lines(reader, found, Path(path).stem, own)
    if reader.errors:
        return Imported(None, tuple(reader.warnings), tuple(reader.errors))
    scenario = "\n".join(body) + "\n"
    checked = _checked(scenario, origins, Span(shown, 0, 0, 0, 0))
    warnings = tuple(reader.warnings) + tuple(d for d in checked if d.kind == "warning")
    errors = tuple(d for d in checked if d.kind != "warning")
    return Imported(None if errors else scenario, warnings, errors)


def _regular(file: str | Path) -> None:
    """A file to read must be a regular one: reading a device or a pipe may never end."""
    file = Path(file)
    if file.exists() and not file.is_file():
        what = "a folder" if file.is_dir() else "not a regular file"
        raise DiagnosticError(Diagnostic("error", f"cannot read {file}: it is {what}", Span(str(file), 0, 0, 0, 0),
                                         "give a file of Forge's game-state text, a card file or a mapping file"))


def _checked(scenario: str, origins: dict[int, Span], nowhere: Span) -> list[Diagnostic]:
    """What `phasing check` finds in the scenario made, each at the place of the Forge file
    its line came from."""
    from ..interpreter import api

    with tempfile.TemporaryDirectory(prefix="phasing-import-") as folder:
        file = Path(folder) / "imported.scenario"
        write_file(file, scenario.encode("utf-8"), replace=False, durable=False)
        problems = api.check_paths([file])
        lines = scenario.splitlines()  # (split once, not once per problem: issue 43)
        return [Diagnostic(d.kind, f"{d.message} (in the scenario made, line {d.span.line}: "
                                   f"{lines[d.span.line - 1].strip()})"
                           if 0 < d.span.line <= len(lines) else d.message,
                           origins.get(d.span.line, nowhere) if d.span.path == str(file) else d.span, d.hint)
                for d in problems]


def _seat_names(seats: set[int], numbered: bool) -> list[str]:
    count = max(seats | {1}) + 1
    if numbered or count > 2:
        return [f"P{n}" for n in range(count)]
    return ["Human", "Ai"]


# Forge's step in which attackers have just been declared: where a scenario with creatures set up
# attacking begins (`interpreter.engine.combat.combat_at_start`).
ATTACKERS_DECLARED = "COMBAT_DECLARE_ATTACKERS"


def _starting_step(reader: Reader, phase: Any, turn: int, attacking: bool) -> str | None:
    """The step the scenario's script goes on to first (`to STEP`), if any, for the state's
    Forge step `phase`; a warning when the scenario cannot start there: it starts in the
    precombat main phase, or, with creatures attacking, in the declare attackers step."""
    forge_step = phase.text.strip().upper() if phase is not None else None
    if forge_step is None:
        return None
    if attacking:
        if forge_step != ATTACKERS_DECLARED:
            reader.warn(f"the state is in Forge's {phase.text.strip()} step; with creatures attacking, the scenario "
                        f"starts in the declare attackers step of turn {turn}", phase.span,
                        f"a state with attackers is one in Forge's {ATTACKERS_DECLARED} step")
        return None
    goes_on_to = reader.mapping.goes_on_to.get(forge_step)
    if forge_step not in reader.mapping.start_phases and goes_on_to is None:
        reader.warn(f"the state is in Forge's {phase.text.strip()} step; the scenario starts in the precombat main phase "
                    f"of turn {turn}", phase.span,
                    f"the steps a scenario starts in: {', '.join(sorted(reader.mapping.start_phases))}, or goes on to "
                    f"first: {', '.join(sorted(reader.mapping.goes_on_to))} ({reader.mapping.path}, [turn])")
    return goes_on_to


def _scenario_lines(reader: Reader, found: dict, stem: str, own: dict[str, ast.Card]) -> tuple[list[str], dict[int, Span]]:
    """The scenario's lines, and for each line that came from a place of the Forge file, that
    place (by line number, from 1)."""
    path = reader.path
    names = _seat_names(found["seats"], found["numbered"])
    turn = found["turn"] or 1
    active = _active(reader, found["active"], names)
    phase = found["phase"]
    attacking = any(re.search(r"\|\s*Attacking\b", value.text) for _seat, value in found["battlefield"])
    goes_on_to = _starting_step(reader, phase, turn, attacking)
    for seat, life, span in found.get("life", []):
        reader.warn(f"{names[seat]}'s life total {life} is not carried over: a scenario's players begin with "
                    f"{STARTING_LIFE} life", span, "the scenario language has no property for a player's life")
    for seat, zone, count, value in found.get("zones", []):
        reader.warn(f"{count} card(s) in {names[seat]}'s {zone} are not carried over: a scenario's cards are "
                    "permanents on the battlefield", value.span,
                    "a scenario can say only what is on the battlefield; cast a card from the script instead")
    cards = [c for seat, value in sorted(found["battlefield"], key=lambda sv: sv[1].span.line)
             for c in reader.cards_of(seat, value)]
    _name_and_resolve(reader, cards, names, turn)
    name = _printable(reader.name or stem).replace('"', "'")
    lines = [f"# Imported from the Forge game state {_printable(Path(path).name)} by 'phasing import forge'."]
    lines += [f"# {key}: {value}" for key, value in reader.metadata]
    origins: dict[int, Span] = {}
    used = {c.name.text for c in cards if not c.token} | {reader.mapping.tokens.get(c.name.text) for c in cards if c.token}
    for card in own.values():
        if card.name in used:
            lines += [""] + item_lines(card)
    lines.append("")
    lines.append(f'scenario "{name}" {{')
    lines.append(f"  players {' '.join(names)}")
    lines.append(f"  turn {turn} of {active}")
    for c in cards:
        origins[len(lines) + 1] = c.whole
        card_name = reader.mapping.tokens.get(c.name.text, c.name.text) if c.token else c.name.text
        lines.append(f'  permanent {c.permanent} = "{card_name}"' + "".join(f", {p}" for p in c.props))
    lines += ["  script {"] + ([f"    to {goes_on_to}"] if goes_on_to else []) + ["  }", "}"]
    return lines, origins


def _printable(text: str) -> str:
    """`text` with what cannot stand in one line of a scenario (line breaks, control
    characters) written as spaces."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _active(reader: Reader, value: Piece | None, names: list[str]) -> str:
    if value is None:
        return names[0]
    text = value.text.strip()
    m = PLAYER_KEY.fullmatch(text)
    if m is None or m.group(3):
        reader.fail(f"'{text}' is no player: activeplayer names human, ai or pN", value.span, "e.g. activeplayer=ai")
        return names[0]
    seat = Reader.seat_of_key(m)
    if seat >= len(names):
        reader.fail(f"'{text}': this file has no player of seat {seat}", value.span, f"players: {', '.join(names)}")
        return names[0]
    return names[seat]


RESERVED = frozenset(CONSTANTS | {"this"})


def _name_and_resolve(reader: Reader, cards: list[ForgeCard], names: list[str], turn: int) -> None:
    """Each card's permanent name (its card's, `grizzly_bears`, then `grizzly_bears_2`, ...)
    and properties, its attachment resolved; unknown cards, Ids and seats are errors."""
    taken: set[str] = set(RESERVED)
    tried: dict[str, int] = {}  # (first_free's memory of each slug: N cards of one name are named in O(N))
    by_id: dict[str, ForgeCard] = {}
    mapping = reader.mapping

    def seat_player(piece: Piece, what: str) -> str | None:
        m = SEAT_VALUE.fullmatch(piece.text)
        if m is None:
            reader.fail(f"'{piece.text}' is not a seat: {what} is written P<seat> (P0, P1, ...)", piece.span,
                        "P0 is the first player (human), P1 the second (ai)")
            return None
        seat = int(m.group(1))
        if seat >= len(names):
            reader.fail(f"'{piece.text}': this file has no player of seat {seat}", piece.span,
                        f"players: {', '.join(f'P{n} {name}' for n, name in enumerate(names))}")
            return None
        return names[seat]

    printing: dict[str, list[Span]] = {}
    for c in cards:
        if c.token:
            if c.name.text not in mapping.tokens:
                reader.fail(f"no card is mapped to the token '{c.name.text}'", c.name.span,
                            did_you_mean(c.name.text, mapping.tokens,
                                         f"add \"{c.name.text}\" = \"CARD\" to [tokens] of a copy of {mapping.path} "
                                         "and give it with --mapping"))
                base = mapping.tokens.get(c.name.text, c.name.text)
            else:
                base = mapping.tokens[c.name.text]
        else:
            base = c.name.text
            if not base:
                reader.fail("a card without a name: a card is written NAME|ATTRIBUTE|...", c.whole,
                            "e.g. Grizzly Bears|Id:1|Tapped")
            elif base not in reader.known_cards:
                reader.fail(f"unknown card '{base}': it is neither in the card library nor in the --cards given",
                            c.name.span, did_you_mean(base, reader.known_cards,
                                                      "write the card as data in a file of your own and give it with --cards FILE"))
        slug = card_slug(base) or "card"
        if not (slug[0].isalpha() or slug[0] == "_"):
            slug = "card_" + slug
        permanent = first_free(slug, taken, tried)
        taken.add(permanent)
        c.permanent = permanent
        for key, value in c.attributes:
            if key.text == "Id":
                if value is None or not value.text.isdigit():
                    reader.fail("Id is written Id:N, a whole number", (value or key).span)
                elif value.text in by_id:
                    reader.fail(f"Id {value.text} is given twice (first to {by_id[value.text].name.text})", value.span,
                                "each card of a Forge state has its own Id")
                else:
                    by_id[value.text] = c
    for c in cards:
        controller = names[c.seat]
        owner = controller
        flags: list[str] = ["token"] if c.token else []
        rest: list[str] = []
        attached: str | None = None
        statuses: list[tuple[str, str]] = []
        given: set[str] = set()
        for key, value in c.attributes:
            attribute = key.text
            if attribute in given:
                reader.fail(f"{attribute} is given twice on this card", key.span, "give each attribute once")
                continue
            given.add(attribute)

            def needs_value() -> bool:
                if value is None or not value.text:
                    reader.fail(f"{attribute} takes a value ({attribute}:...)", key.span)
                    return False
                return True

            def takes_none() -> bool:
                if value is not None:
                    reader.fail(f"{attribute} takes no value: it is written {attribute} alone", value.span,
                                f"write |{attribute}")
                    return False
                return True

            if attribute == "Id":
                continue
            if attribute in PRINTING:
                printing.setdefault(attribute, []).append(key.span)
            elif attribute == "Owner":
                if needs_value():
                    owner = seat_player(value, "Owner") or owner
            elif attribute == "Tapped":
                if takes_none():
                    flags.append("tapped")
            elif attribute == "SummonSick":
                if takes_none():
                    rest.append(f"entered turn {turn}")
            elif attribute == "Attacking":
                flags.append("attacking")
                if value is not None:
                    reader.warn(f"what it attacks ({value.text}) is not carried over: a scenario's creatures set up "
                                "attacking attack the next player in turn order", value.span)
            elif attribute == "Damage":
                if needs_value():
                    amount = reader.number(value, "an amount of damage")
                    if amount:
                        rest.append(f"damage {amount}")
            elif attribute == "Counters":
                if needs_value():
                    rest += _counters(reader, value)
            elif attribute == "AttachedTo":
                if needs_value():
                    host = by_id.get(value.text)
                    if host is None:
                        reader.fail(f"AttachedTo:{value.text}: no permanent on the battlefield has Id {value.text}",
                                    value.span, did_you_mean(value.text, by_id, "an Aura or Equipment is attached "
                                                             "to a card of a battlefield line, by that card's Id")
                                    if by_id else "give the card it is attached to an Id:N")
                    elif host is c:
                        reader.fail(f"AttachedTo:{value.text}: a permanent cannot be attached to itself", value.span)
                    elif attached is not None:
                        reader.fail("a permanent is attached to one thing: it has a second AttachedTo or "
                                    "EnchantingPlayer", key.span)
                    else:
                        attached, c.host = host.permanent, host
            elif attribute == "EnchantingPlayer":
                if needs_value():
                    player = seat_player(value, "EnchantingPlayer")
                    if player is not None and attached is not None:
                        reader.fail("a permanent is attached to one thing: it has a second AttachedTo or "
                                    "EnchantingPlayer", key.span)
                    elif player is not None:
                        attached = player
            elif attribute in mapping.statuses:
                meaning = mapping.statuses[attribute]
                if value is None:
                    player = controller
                else:
                    player = seat_player(value, attribute)
                for status, wanted in meaning.sets:
                    if wanted in (SEAT_PLACEHOLDER, CONTROLLER_PLACEHOLDER):
                        wanted = controller if wanted == CONTROLLER_PLACEHOLDER else player
                    if wanted is not None:
                        statuses.append((status, wanted))
            else:
                reader.warn(f"'{attribute}' is not carried over: the scenario language has no property for it",
                            key.span, "the attributes read are Id, Owner, Tapped, SummonSick, Attacking, Damage, "
                                      f"Counters, AttachedTo, EnchantingPlayer and {', '.join(mapping.statuses) or '(none)'}")
        props = [f"controller {controller}", f"owner {owner}"] + flags
        if attached is not None:
            props.append(f"attached to {attached}")
        c.props = props + rest + [f"set {s} = {v}" for s, v in statuses]
    for c in cards:  # a permanent with an attribute its host has too: with_host's statuses
        if c.host is None:
            continue
        for attribute, meaning in mapping.statuses.items():
            mine = {key.text for key, _ in c.attributes}
            theirs = {key.text for key, _ in c.host.attributes}
            if attribute in mine and attribute in theirs:
                written = {p.split(" = ")[0] for p in c.props if p.startswith("set ")}
                c.props += [f"set {s} = {v}" for s, v in meaning.with_host if f"set {s}" not in written]
    for attribute, spans in printing.items():
        reader.warn(f"'{attribute}' ({PRINTING[attribute]}) is not carried over: no rule reads it "
                    f"({len(spans)} card(s) of this file have it)", spans[0])


def _counters(reader: Reader, value: Piece) -> list[str]:
    """`KIND=N,KIND=N` as `counter kind = N` properties (kinds in small letters: P1P1 is p1p1)."""
    found: dict[str, int] = {}
    column = value.span.column
    for part in value.text.split(","):
        piece = _piece(part, reader.path, value.span.line, column)
        column += len(part) + 1
        kind, sep, amount = piece.text.partition("=")
        kind = kind.strip()
        if not sep or not KIND_NAME.fullmatch(kind):
            reader.fail(f"'{piece.text}' is not a counter: counters are written KIND=N", piece.span,
                        "e.g. Counters:P1P1=2,TIME=3")
            continue
        number = reader.number(_piece(amount, reader.path, value.span.line, piece.span.column + len(kind) + 1),
                               f"a number of {kind} counters")
        if number is None:
            continue
        if kind.lower() in found:
            reader.fail(f"counters of kind {kind} are given twice", piece.span, "give each kind once")
            continue
        found[kind.lower()] = number
    return [f"counter {kind} = {n}" for kind, n in found.items()]
