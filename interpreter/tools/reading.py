"""Reading rules: some blocks of one version, one block across every version, and the text of
the official Comprehensive Rules beside a block.

`select_blocks` finds blocks by id or slug. `history` follows one slug through the versions in
date order, grouping the versions in which the block prints the same and saying, at each step,
what changed (with `compare.rulebook_diff`'s words: renumbered, reworded, changed; or only the
labels of its clauses). `block_lines` prints a block as `show` does, saying which `amend`
changed it. `read_cr` reads a user's own copy of the Comprehensive Rules plain-text file;
the project ships none.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import attrs

from ...dsl import ast
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span, close_names, did_you_mean
from ...dsl.printer import item_lines
from . import compare
from ..rulebook.loading import Rulebook, available_versions, load_version, version_in_force


# ------------------------------------------------------------------ blocks of one version


def select_blocks(book: Rulebook, keys: list[str]) -> list[ast.Rule]:
    """The blocks named by `keys` (each an id such as 502.3 or a slug), in the order given and
    each once; every key that names no block is an error naming the version and the nearest
    ids and slugs (first, for an id of another version, the id this version gives that block)."""
    chosen: list[ast.Rule] = []
    problems = []
    for key in keys:
        rule = book.rule(key)
        if rule is None:
            problems.append(Diagnostic(
                "error", f"'{key}' is no block of {book.version.id} (neither an id nor a slug)", Span(key, 0, 0, 0, 0),
                _block_hint(book, key)))
        elif rule not in chosen:
            chosen.append(rule)
    if problems:
        raise DiagnosticError(problems)
    return chosen


RULE_ID = re.compile(r"\d{3}\.\d+[a-z]?")


def id_meanings(key: str, books: list[Rulebook]) -> list[tuple[str, list[list[str]]]]:
    """The blocks a rule id named over the versions `books` (in date order): each slug, in the
    order first met, with the runs of consecutive versions in which the id was that block."""
    if not RULE_ID.fullmatch(key):
        return []
    found: dict[str, list[list[str]]] = {}
    last = None
    for book in books:
        rule = book.rule(key)
        slug = rule.slug if rule is not None else None
        if slug is not None:
            if slug == last:
                found[slug][-1].append(book.version.id)
            else:
                found.setdefault(slug, []).append([book.version.id])
        last = slug
    return list(found.items())


def ranges_text(runs: list[list[str]]) -> str:
    """Runs of versions as `2015-01-23 .. 2017-07-08, 2020-08-07`."""
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]} .. {run[-1]}" for run in runs)


def _distance(date: str, runs: list[list[str]]) -> int:
    """How many days lie between a date and the nearest version of the runs (0: one of them)."""
    day = datetime.date.fromisoformat(date).toordinal()
    return min(abs(datetime.date.fromisoformat(v).toordinal() - day) for run in runs for v in run)


def _block_hint(book: Rulebook, key: str) -> str:
    """The hint for a key that is no block of `book`: a slug or id it has but for the case of
    its letters; for an id another version gives a block, that block's id here (the version
    nearest in time first), saying what the id named when; then the nearest ids and slugs."""
    names = [r.id for r in book.rules] + [r.slug for r in book.rules]
    meant = [n for n in names if n.lower() == key.lower()]
    notes = []
    if not meant:
        date = version_date(book)
        meanings = id_meanings(key.lower(), [load_version(v) for v in available_versions()])
        for slug, runs in sorted(meanings, key=lambda m: _distance(date, m[1])):
            rule = book.rule(slug)
            here = f"{book.version.id} numbers {rule.id}" if rule is not None else f"{book.version.id} does not have"
            notes.append(f"{key} is {slug} in {ranges_text(runs)}, which {here}" if not notes
                         else f"in {ranges_text(runs)} it is {slug}, which {here}")
            if rule is not None:
                meant.append(rule.id)
    close = meant[:3] or close_names(key, names, cutoff=0.5)
    asked = "did you mean " + " or ".join(repr(c) for c in close) + "?" if close else ""
    return " ".join(filter(None, [asked, "; ".join(notes)])) or f"'phasing show {book.version.id}' lists its blocks"


def version_to_show(spec: str) -> Rulebook:
    """The rulebook `phasing show` was asked for. A block's id or slug where the version should
    be (`phasing show 702.26g`) is an error that says to name the version first."""
    try:
        return load_version(spec)
    except DiagnosticError as exc:
        newest = available_versions()[-1] if available_versions() else None
        rule = load_version(newest).rule(spec) if newest else None
        if rule is None:
            raise
        raise DiagnosticError(Diagnostic(
            "error", f"'{spec}' is a block, not a version: a version comes first when blocks are given",
            Span(spec, 0, 0, 0, 0), f"phasing show {newest} {spec}")) from exc


def block_json(rule: ast.Rule, book: Rulebook | None = None) -> dict:
    """A block as data; with its rulebook, also the amends that changed it (`amended`)."""
    found = {"id": rule.id, "slug": rule.slug, "summary": rule.summary, "kind": rule.kind,
             "text": "\n".join(item_lines(rule))}
    if book is not None and book.amendments.get(rule.slug):
        found["amended"] = [{"by": a.by, "file": a.span.path, "line": a.span.line,
                             "changes": [{"change": text, "line": span.line} for text, span in a.changes]}
                            for a in book.amendments[rule.slug]]
    return found


def declarations_json(book: Rulebook) -> dict:
    """A rulebook's turn, zones, observations, statuses and verbs as data, each with the rules
    it cites and its text as `show` prints it (and each but the turn with its name)."""
    found: dict = {"turn": {"steps": list(book.turn.steps), "cites": list(book.turn.cites),
                            "text": "\n".join(item_lines(book.turn))}}
    found.update({kind: [{"name": name, "cites": list(decl.cites), "text": "\n".join(item_lines(decl))}
                         for name, decl in table.items()]
                  for kind, table in (("zones", book.zones), ("observations", book.observations),
                                      ("statuses", book.statuses), ("verbs", book.verbs))})
    return found


def block_lines(book: Rulebook, rule: ast.Rule) -> list[str]:
    """A block as `show` prints it: its text, after a comment line for each `amend` that
    changed it (which rulebook, its file, and each change with its line), so what is printed
    still reads as a rule file."""
    notes = [f"# amended by {a.by} in {a.span.path}: {a.listing()}" for a in book.amendments.get(rule.slug, ())]
    return notes + item_lines(rule)


# ------------------------------------------------------------------ one block across versions


@attrs.frozen
class Stage:
    """Consecutive versions in which a block prints the same."""

    versions: tuple[str, ...]
    rule: ast.Rule
    changes: tuple[str, ...]  # from the stage before: renumbered, reworded, changed, ...; () for the first
    since: str | None  # the version compared with (the last one before this stage that had the block)
    since_id: str | None  # the block's id there
    follows: tuple[str, ...] = ()  # with the change `follows`: the blocks added or removed its `order` follows

    @property
    def dates(self) -> str:
        return self.versions[0] if len(self.versions) == 1 else f"{self.versions[0]} .. {self.versions[-1]}"

    def to_json(self) -> dict:
        return {"versions": list(self.versions), "from": self.versions[0], "to": self.versions[-1],
                "changes": list(self.changes), "since": self.since, "since_id": self.since_id,
                "follows": list(self.follows),
                **block_json(self.rule)}


@attrs.frozen
class History:
    slug: str
    stages: tuple[Stage, ...]
    absent: tuple[str, ...]  # the versions without the block

    def to_json(self) -> dict:
        return {"slug": self.slug, "stages": [s.to_json() for s in self.stages], "absent": list(self.absent)}


# A printed block can differ while its id, summary and meaning do not: the ids it refers to
# (in `order` and `exempt`) were renumbered with the blocks they name, or its clauses' labels
# (`clause NAME: ...`) are not the same.
REFERENCES = "references renumbered"
LABELS = "clause labels changed"


def _unlabelled(rule: ast.Rule) -> list[str]:
    return item_lines(attrs.evolve(rule, clauses=tuple(attrs.evolve(c, label=None) for c in rule.clauses)))


def _labels(rule: ast.Rule) -> tuple:
    return tuple(c.label for c in rule.clauses)


def history(slug: str, versions: list[str] | None = None) -> History:
    """The block `slug` in every version (date order) that has it, grouped where it prints the
    same; an unknown slug is an error naming the nearest slugs."""
    versions = list(versions if versions is not None else available_versions())
    books = [load_version(v) for v in versions]
    if not any(r.slug == slug for b in books for r in b.rules):
        raise _unknown_slug(slug, books)
    stages: list[Stage] = []
    absent: list[str] = []
    previous: tuple[Rulebook, ast.Rule] | None = None
    gap = False
    for version, book in zip(versions, books):
        rule = next((r for r in book.rules if r.slug == slug), None)
        if rule is None:
            absent.append(version)
            gap = True
            continue
        if previous is not None and not gap and item_lines(rule) == item_lines(stages[-1].rule):
            stages[-1] = attrs.evolve(stages[-1], versions=stages[-1].versions + (version,))
        else:
            changes: tuple[str, ...] = ()
            change = None
            if previous is not None:
                change = next((c for c in compare.rulebook_diff(previous[0], book) if c.slug == slug), None)
                changes = change.kinds if change else (
                    (REFERENCES,) if _unlabelled(rule) != _unlabelled(previous[1]) else ())
                if _labels(rule) != _labels(previous[1]) and "changed" not in changes:  # (else: said already)
                    changes += (LABELS,)
            since = (previous[0].version.id, previous[1].id) if previous else (None, None)
            stages.append(Stage((version,), rule, changes, *since, follows=change.follows if change else ()))
        previous, gap = (book, rule), False
    return History(slug, tuple(stages), tuple(absent))


def _unknown_slug(slug: str, books: list[Rulebook]) -> DiagnosticError:
    slugs = sorted({r.slug for b in books for r in b.rules})
    meanings = id_meanings(slug.lower(), books)
    same = [s for s in slugs if s.lower() == slug.lower()]
    if meanings:  # an id, not a slug: say which block it was in each version that has it
        listed = ", ".join(f"{s} in {ranges_text(runs)}" for s, runs in meanings)
        hint = (f"'{slug}' is a rule id, not a slug; it numbers the block {listed}: phasing history {meanings[0][0]}"
                if len(meanings) == 1 else
                f"'{slug}' is a rule id, not a slug; it numbered {len(meanings)} blocks: {listed}: "
                f"phasing history SLUG, with one of them")
    else:
        hint = (did_you_mean(slug, slugs, cutoff=0.5, first=same[0] if same else None) if not same
                else f"did you mean '{same[0]}'? (slugs are written in small letters)") \
            or "'phasing show VERSION' lists a version's blocks with their slugs"
    return DiagnosticError(Diagnostic("error", f"no version has a block with the slug '{slug}'",
                                      Span(slug, 0, 0, 0, 0), hint))


# ------------------------------------------------------------------ the Comprehensive Rules text


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
DATE_LINE = re.compile(r"effective\s+as\s+of\s+([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})", re.IGNORECASE)
DATE_LOOK = 60  # lines from the top where the date line is looked for
CR_LIMIT = 32 * 2**20  # bytes read at most: the published text is about a thirtieth of that
RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.?\s+(\S.*)$")


@attrs.frozen
class CrText:
    """A Comprehensive Rules text file: its effective date, and each rule's text by number."""

    path: str
    date: str  # YYYY-MM-DD
    date_span: Span  # where the file says its date
    rules: dict[str, str]

    def text(self, rule_id: str) -> str | None:
        return self.rules.get(rule_id)


def read_cr(path: str | Path) -> CrText:
    """Read the plain-text Comprehensive Rules at `path` (UTF-8, a byte-order mark allowed).

    The date comes from the line "These rules are effective as of MONTH DAY, YEAR." near the
    top. A rule is a line starting with its number (`702.1.` or `702.1a`); the lines right
    after it, and the paragraphs starting "Example:" that follow it, belong to it."""
    name = str(path)
    with open(path, "rb") as handle:  # an OSError is reported by the caller as an unreadable file
        data = handle.read(CR_LIMIT + 1)
    if len(data) > CR_LIMIT:
        raise DiagnosticError(Diagnostic("error", f"the Comprehensive Rules file is larger than {CR_LIMIT // 2**20} MB",
                                         Span(name, 0, 0, 0, 0),
                                         "the plain-text Comprehensive Rules are about 1 MB: is this the right file?"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DiagnosticError(Diagnostic("error", "the Comprehensive Rules file is not UTF-8 text",
                                         Span(name, line, column, line, column + 1),
                                         "give the plain-text (.txt) Comprehensive Rules file as published"))
    lines = text.splitlines()
    date, date_span = _date(name, lines)
    rules: dict[str, str] = {}
    current: str | None = None
    blank = False
    for line in lines:
        stripped = line.strip()
        match = RULE_LINE.match(stripped)
        if match:
            current = match.group(1)
            if current in rules:  # the first text of a number wins
                current = None
            else:
                rules[current] = match.group(2)
        elif stripped and current is not None and (not blank or stripped.startswith("Example:")):
            rules[current] += "\n" + stripped
        elif stripped:  # a heading or another paragraph: the rule before it has ended
            current = None
        blank = not stripped
    if not rules:
        raise DiagnosticError(Diagnostic("error", "no rule found in the Comprehensive Rules file", Span(name, 0, 0, 0, 0),
                                         "a rule is a line that starts with its number, such as '100.1a Some text'"))
    return CrText(name, date, date_span, rules)


def _date(name: str, lines: list[str]) -> tuple[str, Span]:
    for number, line in enumerate(lines[:DATE_LOOK], start=1):
        match = DATE_LINE.search(line)
        if not match:
            continue
        month, day, year = match.group(1).lower(), int(match.group(2)), int(match.group(3))
        column = match.start() + 1
        span = Span(name, number, column, number, match.end() + 1)
        if month not in MONTHS:
            raise DiagnosticError(Diagnostic("error", f"'{match.group(1)}' is not the name of a month", span,
                                             "write the date as 'MONTH DAY, YEAR', such as 'September 25, 2026'"))
        try:
            return datetime.date(year, MONTHS.index(month) + 1, day).isoformat(), span
        except ValueError:
            raise DiagnosticError(Diagnostic("error", f"{match.group(1)} {day}, {year} is not a date", span)) from None
    raise DiagnosticError(Diagnostic(
        "error", f"no 'effective as of' date line in the first {DATE_LOOK} lines of the Comprehensive Rules file",
        Span(name, 0, 0, 0, 0),
        "the file must say near its top 'These rules are effective as of MONTH DAY, YEAR.' "
        "(such as 'September 25, 2026')"))


def version_date(book: Rulebook) -> str:
    """The date of the version a rulebook is, or (a variant) the version it is built on."""
    seen = set()
    while book.version.kind != "version" and book.version.extends and book.version.extends not in seen:
        seen.add(book.version.extends)
        book = load_version(book.version.extends)
    return book.version.id


def matching_cr(book: Rulebook, cr: CrText) -> str | None:
    """An error unless the file is a release in force while the rulebook's version (or, for a
    variant, the version it is built on) is this model's newest: its own release, or one
    dated after it and before the next version (no version of this model is dated then: the
    version stands for it). For such a later release, a note saying so; else None."""
    date = version_date(book)
    if date == cr.date:
        return None
    in_force = version_in_force(cr.date)
    if in_force == date:
        return (f"the Comprehensive Rules file is the release of {cr.date}; no version of this model is "
                f"dated then, and {date}, the newest before it, stands for it")
    same = [v for v in available_versions() if v == cr.date]
    if same:
        hint = f"that file goes with version {same[0]}: phasing show {same[0]} ... --cr {cr.path}"
    elif in_force is not None:
        hint = (f"no version of this model is dated {cr.date}; {in_force}, the newest before it, stands "
                f"for it: phasing show {in_force} ... --cr {cr.path}")
    else:
        hint = f"give the Comprehensive Rules file effective as of {date}"
    what = book.version.id if date == book.version.id else f"{book.version.id} (built on {date})"
    raise DiagnosticError(Diagnostic(
        "error", f"the Comprehensive Rules file is the release of {cr.date}, not of {what}",
        cr.date_span, hint))
