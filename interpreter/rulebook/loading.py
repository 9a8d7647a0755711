"""Loading a version of the rules: its files, the shared card library, and the indexes the
engine looks things up in.

A version lives in `rules/<date>/`: a `version.rules` manifest and any number of rule files.
Cards live in `rules/cards/`. A scenario may bring cards of its own.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime
import functools
import os
import re
from collections import OrderedDict, defaultdict
from pathlib import Path, PurePath
from typing import Callable, Iterable, TypeVar

import attrs

from ... import rules as shipped_rules
from ...dsl import ast
from ...dsl.checker import check_cards, check_rulebook
from ...dsl.collector import collector_paused
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Note, Span, did_you_mean, word_span
from ...dsl.parser import parse_file
from .amending import Amendment, apply_amends, stray_amends
from .dropping import Holder, Removal, dangling, within

RULES_ROOT = Path(shipped_rules.__file__).parent
CARDS_DIR = RULES_ROOT / "cards"
VARIANTS_DIR = RULES_ROOT / "variants"
VERSION_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
VARIANT_NAME_RE = re.compile(r"[A-Za-z0-9_-]+")  # (fullmatch: the name a variant file can have)
# Each kind of declaration a rulebook keeps by name: its word, and the table of the Rulebook that keeps it.
DECLARATIONS = {ast.StatusDecl: ("status", "statuses"), ast.VerbDecl: ("verb", "verbs"),
                ast.ZoneDecl: ("zone", "zones"), ast.ObserveDecl: ("observe", "observations")}


@functools.cache
def default_turn() -> ast.TurnStructure:
    """The turn a rulebook that declares none plays: the one the newest shipped version
    declares (in its folder's turn.rules)."""
    newest = max(p.name for p in RULES_ROOT.iterdir() if VERSION_RE.match(p.name))
    module = parse_file(RULES_ROOT / newest / "turn.rules")
    return next(i for i in module.items if isinstance(i, ast.TurnStructure))


@functools.lru_cache(maxsize=4096)
def rule_key(rule_id: str) -> tuple:
    """CR order: 502.3 < 702.26a < 702.26p < 800.4a."""
    match = re.match(r"^(\d+)\.(\d+)([a-z]?)$", rule_id)
    if not match:
        return (10**6, rule_id)
    return (int(match.group(1)), int(match.group(2)), match.group(3))


@attrs.frozen
class ClauseIndex:
    """What the engine asks of a rulebook, gathered once."""

    hides: tuple[tuple[ast.Rule, ast.Hide], ...]
    hiding_attrs: frozenset[str]
    as_clauses_by_attr: dict[str, tuple[tuple[ast.Rule, ast.AsClause], ...]]
    afters: tuple[tuple[ast.Rule, ast.After], ...]
    prefers: dict[str, tuple[ast.Rule, ast.Prefer]]
    not_perceived: dict[str, tuple[ast.NotPerceived, ...]]
    exempts: dict[str, tuple[tuple[ast.Rule, ast.Exempt], ...]]
    excludes: tuple[tuple[ast.Rule, ast.Exclude], ...]
    lookbacks: tuple[ast.Change, ...]
    hooks: dict[str, tuple[tuple[ast.Rule, ast.During], ...]]
    assertions: tuple[tuple[ast.Rule, ast.Node], ...]
    # the `skip` clauses, by the step they skip
    skips: dict[str, tuple[tuple[ast.Rule, ast.SkipStep], ...]] = attrs.field(factory=dict)
    # the steps whose turn-based action is `deal combat damage` (510.1)
    damage_steps: frozenset[str] = frozenset()


@attrs.frozen
class Rulebook:
    """A resolved version: every declaration and block it has, in CR order, with its cards.
    Data only: what is worked out from it is kept by its `interpreter.program.program.Program`."""

    version: ast.Version
    statuses: dict[str, ast.StatusDecl]
    verbs: dict[str, ast.VerbDecl]
    rules: tuple[ast.Rule, ...]
    cards: dict[str, ast.Card]
    folder: Path | None = None
    zones: dict[str, ast.ZoneDecl] = attrs.field(factory=dict)
    # What a player sees of a permanent, where this rulebook keeps it otherwise (`observe`), by name.
    observations: dict[str, ast.ObserveDecl] = attrs.field(factory=dict)
    # The blocks an `amend` changed (here or in a rulebook this one extends), by slug, oldest first.
    amendments: dict[str, tuple[Amendment, ...]] = attrs.field(factory=dict)
    # The turn: its phases and steps (500.1), its own `turn` declaration or the one of the
    # rulebook it extends; one that declares none plays the newest shipped version's (`default_turn`).
    turn: ast.TurnStructure = attrs.field(factory=lambda: default_turn())

    def rule(self, key: str) -> ast.Rule | None:
        return next((r for r in self.rules if key in (r.id, r.slug)), None)

    def amended_by(self, rule: ast.Rule, clause: ast.Node | None = None) -> Amendment | None:
        """The amend that wrote `clause` into `rule` (None: the block's own file wrote it); with
        no clause, the last amend of the block (None: it was never amended)."""
        found = self.amendments.get(rule.slug, ())
        if clause is None:
            return found[-1] if found else None
        return next((a for a in reversed(found) if a.span.path == clause.span.path), None)

    def without(self, key: str) -> "Rulebook":
        """The same rulebook with one block deleted (for ablation)."""
        return attrs.evolve(self, rules=tuple(r for r in self.rules if key not in (r.id, r.slug)))

    def with_cards(self, cards: Iterable[ast.Card]) -> "Rulebook":
        """The rulebook with more cards; itself when there are none (so that what it has worked
        out about its rules stays with it)."""
        cards = list(cards)
        if not cards:
            return self
        merged = dict(self.cards)
        merged.update({c.name: c for c in cards})
        return attrs.evolve(self, cards=merged)


def anchor_of(entry: ast.Static) -> str | None:
    """The attribute A when the ability is `each x where this.A is x ...` and reads only
    `this`, `x` and `you` (one level deep); None when it may reach anything."""
    each = entry.body
    if not isinstance(each, ast.Each):
        return None
    allowed = {"this", "you", each.var, "none", "true", "false"}
    for n in each.walk():
        if isinstance(n, (ast.Count, ast.Each)) and n is not each:
            return None
        if isinstance(n, ast.Name) and n.id not in allowed:
            return None
        if isinstance(n, ast.Attr) and not isinstance(n.obj, ast.Name):
            return None
    for c in ast.conjuncts(each.cond):
        if isinstance(c, ast.Is) and not c.negated:
            for side, other in ((c.left, c.right), (c.right, c.left)):
                if (isinstance(side, ast.Attr) and isinstance(side.obj, ast.Name) and side.obj.id == "this"
                        and isinstance(other, ast.Name) and other.id == each.var):
                    return side.name
    return None


def attributes_read(node: ast.Node) -> set[str]:
    """Every attribute a piece of rule text reads of an object: those it names, the keywords
    `has` looks at and the types `is a` looks at."""
    names = ast.names_in(node)
    for n in node.walk():
        if isinstance(n, ast.Has):
            names.add("keywords")
        elif isinstance(n, ast.IsA):
            names.add("types")
    return names


def local_body(body: ast.Node) -> bool:
    """Is a state check's body one `each x where ...` reading only x, what x is attached to and
    x's controller (so that it can be made again only for changed objects)?"""
    if not isinstance(body, ast.Each):
        return False
    for n in (body.cond.walk() if body.cond is not None else ()):
        if isinstance(n, ast.Count):
            return False
        if isinstance(n, ast.Attr) and isinstance(n.obj, ast.Attr):
            inner = n.obj
            if not (isinstance(inner.obj, ast.Name) and inner.obj.id == body.var and inner.name in ("attached_to", "controller")):
                return False
    return True


def build_index(rules: tuple[ast.Rule, ...]) -> ClauseIndex:
    hides, afters, excludes, lookbacks, assertions = [], [], [], [], []
    as_clauses_by_attr: dict[str, list] = defaultdict(list)
    prefers: dict[str, tuple] = {}
    not_perceived: dict[str, list] = defaultdict(list)
    exempts: dict[str, list] = defaultdict(list)
    hooks: dict[str, list] = defaultdict(list)
    skips: dict[str, list] = defaultdict(list)
    orders: dict[str, list[str]] = {}
    for rule in rules:
        for clause in rule.clauses:
            match clause:
                case ast.Hide():
                    hides.append((rule, clause))
                case ast.AsClause():
                    as_clauses_by_attr[clause.change.attr].append((rule, clause))
                case ast.After():
                    afters.append((rule, clause))
                case ast.Prefer():
                    prefers[clause.attr] = (rule, clause)
                case ast.NotPerceived():
                    not_perceived[clause.attr].append(clause)
                case ast.Exempt():
                    exempts[clause.rule].append((rule, clause))
                case ast.Exclude():
                    excludes.append((rule, clause))
                case ast.Lookback():
                    lookbacks.append(clause.change)
                case ast.During():
                    hooks[clause.hook.kind].append((rule, clause))
                case ast.SkipStep():
                    skips[clause.hook.kind].append((rule, clause))
                case ast.Order():
                    orders[clause.hook] = list(clause.rules)
                case ast.AssertAfter() | ast.AssertOnce() | ast.AssertSkipped() | ast.AssertAlways():
                    assertions.append((rule, clause))
    ordered = {}
    for kind, entries in hooks.items():
        listed = orders.get(kind, [])

        def position(entry, listed=listed):
            rule = entry[0]
            if rule.id in listed:
                return (0, listed.index(rule.id))
            return (1, rule_key(rule.id))

        ordered[kind] = tuple(sorted(entries, key=position))
    hiding = frozenset(a for _, h in hides for a in ast.names_in(h.cond))
    return ClauseIndex(
        hides=tuple(hides),
        hiding_attrs=hiding,
        as_clauses_by_attr={k: tuple(v) for k, v in as_clauses_by_attr.items()},
        afters=tuple(afters),
        prefers=prefers,
        not_perceived={k: tuple(v) for k, v in not_perceived.items()},
        exempts={k: tuple(v) for k, v in exempts.items()},
        excludes=tuple(excludes),
        lookbacks=tuple(lookbacks),
        hooks=ordered,
        assertions=tuple(assertions),
        skips={k: tuple(v) for k, v in skips.items()},
        damage_steps=frozenset(kind for kind, entries in hooks.items() if any(_deals_combat_damage(d.body) for _, d in entries)),
    )


@functools.lru_cache(maxsize=4096)
def _deals_combat_damage(body: ast.Node) -> bool:
    """Does the body hold `deal combat damage` (its step is then a combat damage step)? Worked
    out once for each body: the rulebooks of a run share most of their blocks."""
    return any(isinstance(n, ast.CombatDamage) for n in body.walk())


# ------------------------------------------------------------------ loading


RULES_PATH_ENV = "PHASING_RULES_PATH"
_option_path: tuple[str, ...] = ()


def set_rules_path(folders) -> None:
    """The folders of `--rules-path`, searched before those of PHASING_RULES_PATH (and both
    before the shipped rules); () for none."""
    global _option_path
    _option_path = tuple(str(f) for f in folders or ())


# While `one_listing()` is in force: what the rules path and the names on it were found to be,
# by what decides them (the option's folders, the variable, the working folder), the files
# names are read from, and the rulebooks looked over.
_listed: dict[str, object] | None = None
T = TypeVar("T")


@contextlib.contextmanager
def one_listing():
    """Within it, the folders of the rules path and the versions and variants on them are listed
    once, not at every name looked up, and the files a name is read from (its own, those of
    what it extends) are found once: a command that loads every name (`phasing versions`)
    would otherwise list every folder and read every version's files again for each of them
    (issue 43). A rulebook loaded once within it is not looked over again for changes. A file
    added or edited meanwhile is seen by the next command."""
    global _listed
    outer = _listed
    if outer is None:
        _listed = {}
    try:
        yield
    finally:
        _listed = outer


def _listing_key() -> tuple:
    return (_option_path, os.environ.get(RULES_PATH_ENV, ""), os.getcwd())


def _once_per_listing(kind: str, key, compute: Callable[[], T]) -> T:
    """`compute()`, kept under (`kind`, `key`) while `one_listing()` is in force (and for the
    rules path and working folder it was worked out for); worked out each time otherwise."""
    if _listed is None:
        return compute()
    table = _listed.setdefault(kind, {})
    full = (key, _listing_key())
    if full not in table:
        table[full] = compute()
    return table[full]


def rules_path() -> tuple[Path, ...]:
    """The folders searched, in order, before the shipped rules when a version or variant is
    named: those of `--rules-path`, then those of PHASING_RULES_PATH (separated by os.pathsep).
    A folder that does not exist is an error naming it."""
    if _listed is None:
        return _rules_path()
    key = _listing_key()
    found = _listed.get("path")
    if found is None or found[0] != key:
        found = _listed["path"] = (key, _rules_path())
    return found[1]


def _rules_path() -> tuple[Path, ...]:
    found: list[Path] = []
    sources = [(f, "--rules-path") for f in _option_path]
    sources += [(f, RULES_PATH_ENV) for f in os.environ.get(RULES_PATH_ENV, "").split(os.pathsep) if f.strip()]
    for text, where in sources:
        folder = Path(text)
        if not _probe(folder.is_dir):
            what = "not a folder" if _probe(folder.exists) else "no such rules folder"
            raise DiagnosticError(Diagnostic("error", f"{what}: {text} (from {where})",
                                             Span(text, 0, 0, 0, 0),
                                             "give a folder holding variants (NAME.rules) or version folders (DATE/)"))
        try:
            _entries(folder)
        except OSError as exc:  # (not skipped: its names would silently lead elsewhere)
            raise DiagnosticError(Diagnostic("error", f"cannot read rules folder: {exc.strerror or exc}",
                                             Span(text, 0, 0, 0, 0),
                                             f"it is named by {where}: let this user read it, or leave it out")) from None
        folder = folder.resolve()
        if folder not in found:
            found.append(folder)
    return tuple(found)


@attrs.frozen
class Source:
    """Where a version or variant name leads: its folder or file, and the folder it was found in."""

    name: str
    kind: str  # "version" or "variant"
    path: Path
    origin: Path | None  # a rules-path folder; None: shipped


def _entries(folder: Path) -> list[Path]:
    """What a folder holds, in name order (an OSError when it cannot be read)."""
    return [folder / name for name in _names(folder)]


def _names(folder: Path) -> list[str]:
    """The names of what a folder holds, in order (an OSError when it cannot be read); names
    are sorted as strings, which is the order of their paths within one folder, and cheaper:
    scenarios look the rules path over for every name they check."""
    return sorted(os.listdir(folder))


def _version_files(folder: Path) -> list[Path]:
    """The rule files of a version folder, in name order. A folder that cannot be read is an
    error saying so at the folder (issue 43): it was an unknown version, or a version of no
    files, since a glob passes over a folder it cannot list."""
    try:
        return [p for p in _entries(folder) if p.name.endswith(".rules")]
    except OSError as exc:
        raise DiagnosticError(Diagnostic(
            "error", f"cannot read version folder {folder}: {exc.strerror or exc}", Span(str(folder), 0, 0, 0, 0),
            "let this user read the folder and its files (chmod u+rx), or name another version")) from None


def _holds_version(folder: Path) -> bool:
    """A dated folder of the rules path is a version when it holds version.rules, or when it
    cannot be read: listed, so that its name says it cannot be read (`_version_files`) rather
    than that no such version exists, or leads to a shipped one of the same name."""
    try:
        if (folder / "version.rules").is_file():
            return True
        _entries(folder)
    except ValueError:
        return False
    except OSError:
        return True
    return False


def _sources_in(root: Path, origin: Path | None) -> list[Source]:
    found = []
    try:
        names = _names(root)
    except OSError:  # (a folder of the rules path that cannot be read is an error in `rules_path`)
        return []
    for name in names:
        if VERSION_RE.match(name):
            p = root / name
            if _probe(p.is_dir) and (origin is None or _holds_version(p)):
                found.append(Source(name, "version", p, origin))
    variants = root / "variants" if origin is None else root
    try:
        files = (names if origin is not None else _names(variants)) if _probe(variants.is_dir) else []
    except OSError:
        files = []
    for name in files:  # (NAME.rules: what a glob of *.rules finds, less names no variant can have)
        stem = name[:-len(".rules")]
        if name.endswith(".rules") and VARIANT_NAME_RE.fullmatch(stem) and not VERSION_RE.match(stem):
            found.append(Source(stem, "variant", variants / name, origin))
    return found


def sources() -> list[Source]:
    """Every version and variant a name can reach: the rules path first, then the shipped
    rules; a name found twice leads to the first."""
    return list(_by_name().values())


def _by_name() -> dict[str, Source]:
    """`sources()` by name (listed once while `one_listing()` is in force)."""
    if _listed is not None:
        key = _listing_key()
        found = _listed.get("sources")
        if found is not None and found[0] == key:
            return found[1]
    seen: dict[str, Source] = {}
    for folder in rules_path():
        for source in _sources_in(folder, folder):
            seen.setdefault(source.name, source)
    for source in _sources_in(RULES_ROOT, None):
        seen.setdefault(source.name, source)
    if _listed is not None:
        _listed["sources"] = (key, seen)
    return seen


def shipped_sources() -> list[Source]:
    """The versions and variants shipped with the package."""
    return _sources_in(RULES_ROOT, None)


def available_versions() -> list[str]:
    return sorted(s.name for s in sources() if s.kind == "version")


def available_variants() -> list[str]:
    return sorted(s.name for s in sources() if s.kind == "variant")


def _probe(test) -> bool:
    """A file-system test that is False, not an OSError, for a name no file can have (too
    long, say): such a name is an unknown version like any other."""
    try:
        return test()
    except (OSError, ValueError):
        return False


def _named(spec: str) -> Source | None:
    """The version or variant a name leads to, on the rules path or shipped (the first of
    `sources()` with that name)."""
    if not (VERSION_RE.match(spec) or VARIANT_NAME_RE.fullmatch(spec)):
        return None
    return _by_name().get(spec)


def files_of(spec: str, names_only: bool = False) -> list[Path]:
    """The files of a version (a dated folder), a variant (one file), or a user's folder or file.

    Names are looked up on the rules path (see `rules_path`) and then in the shipped rules.
    With `names_only` (how `extends` is resolved) only names are found: a rule file never
    makes the interpreter read a file it names by path.
    """
    source = _named(spec)
    if source is not None:
        if source.kind != "version":
            return [source.path]
        return list(_once_per_listing("version files", source.path, lambda: _version_files(source.path)))
    known = ", ".join(available_versions() + available_variants())
    if names_only:
        raise DiagnosticError(Diagnostic("error", f"'{spec}' is not a version or variant in the rules folders",
                                         Span(spec, 0, 0, 0, 0), f"extend one of: {known}"))
    candidate = Path(spec)
    if _probe(candidate.is_dir) and (_probe((candidate / "version.rules").exists) or _holds_version(candidate)):
        return _version_files(candidate)  # (one that cannot be read: an error saying so)
    if _probe(candidate.is_file) and candidate.suffix == ".rules":
        return [candidate]
    raise DiagnosticError(_unknown(spec, known))


def version_in_force(day: str) -> str | None:
    """The version in force on `day` (YYYY-MM-DD): the newest dated on or before it; None
    before the oldest (versions are named by their effective dates)."""
    older = [v for v in available_versions() if v <= day]
    return older[-1] if older else None


def _unknown(spec: str, known: str) -> Diagnostic:
    """The error for a name that leads nowhere. A name written as a date that is no date
    (2017-13-45) says so; a date between versions names the version in force that day, the
    newest one dated on or before it (versions are named by their effective dates)."""
    where = Span(spec, 0, 0, 0, 0)
    if VERSION_RE.match(spec):
        try:
            datetime.date.fromisoformat(spec)
        except ValueError as exc:
            return Diagnostic("error", f"'{spec}' is not a valid date ({exc})", where,
                              f"a version is its effective date, written YYYY-MM-DD; known: {known}")
        version = version_in_force(spec)
        if version is not None and version == available_versions()[-1]:
            return Diagnostic("error", f"unknown rules version or variant '{spec}'", where,
                              f"known: {known}; the newest, {version}, is the last version dated on or "
                              f"before {spec} (no later release is modelled)")
        if version is not None:
            return Diagnostic("error", f"unknown rules version or variant '{spec}'", where,
                              f"{version} was in force on {spec} (the newest version dated on or before it); "
                              f"known: {known}")
    return Diagnostic("error", f"unknown rules version or variant '{spec}'", where, f"known: {known}")


def _parse_all(paths: Iterable[Path]) -> list[ast.Module]:
    modules, problems = [], []
    for path in paths:
        try:
            modules.append(_parsed(path))
        except DiagnosticError as exc:
            problems.extend(exc.diagnostics)
    if problems:
        raise DiagnosticError(problems)
    return modules


_PARSED: OrderedDict[str, tuple[bytes, ast.Module]] = OrderedDict()  # path -> (its bytes, their tree), newest last
_PARSED_KEPT = 256


def _parsed(path: Path) -> ast.Module:
    """`parse_file(path)`, kept per process for as long as the file holds the same bytes: a load
    reads the files of what it extends to see whether they changed, and then reads its own
    again; without this each variant would parse its version's files again (issue 43). The
    last `_PARSED_KEPT` files are kept. Within `one_listing()` a file is read once."""
    key = str(path)
    hit = _PARSED.get(key)
    seen = _listed.setdefault("parsed", set()) if _listed is not None else set()
    if hit is not None and key in seen:
        _PARSED.move_to_end(key)
        return hit[1]
    seen.add(key)
    try:
        before = path.read_bytes()
    except OSError:
        return parse_file(path)  # (which says why it cannot be read, at the file)
    if hit is not None and hit[0] == before:
        _PARSED.move_to_end(key)
        return hit[1]
    module = parse_file(path)
    try:
        after = path.read_bytes()
    except OSError:
        return module
    if after == before:  # (else it changed while read: not kept)
        _PARSED[key] = (before, module)
        _PARSED.move_to_end(key)
        while len(_PARSED) > _PARSED_KEPT:
            _PARSED.popitem(last=False)
    return module


@functools.cache
def shipped_cards() -> dict[str, ast.Card]:
    """The shipped card library (rules/cards/*.rules), by name."""
    cards: dict[str, ast.Card] = {}
    for module in _parse_all(sorted(CARDS_DIR.glob("*.rules"))):
        stray_amends(module, "the card library")
        for item in module.items:
            if isinstance(item, ast.Card):
                cards[item.name] = item
    return cards


def load_cards() -> dict[str, ast.Card]:
    """The card library every rulebook loaded now has: the shipped library, then the cards of
    your own in force (`user_card_sources`). A DiagnosticError when one of your card files
    does not load (`card_library`)."""
    return _library()[0]


def user_cards() -> dict[str, ast.Card]:
    """The cards of your own in force (those of the rules path's cards/ folders and of
    --cards or `cards=`), by name, in the order found; {} for none."""
    return _library()[1]


# ------------------------------------------------------------------ card libraries of your own
#
# The card library is the shipped one (rules/cards/) with your own cards added: every `*.rules`
# file of a `cards/` folder in a folder of the rules path (in the rules path's order), then the
# files of `--cards FILE` (or the API's `cards=`), in the order given. A card of your own may
# not take the name of a shipped card, nor of another card of your own, unless it is written
# the same (a copy): either is an error at the later card, naming the earlier. `phasing cards
# --only` (`replace_shipped`) lets yours replace shipped cards of the same name instead. A
# scenario file's own cards go on top of this library, for that file's scenarios, as always.

CARD_FOLDER = "cards"
CARD_FILE_HINT = 'a card file holds only cards (card "NAME" { ... }), as rules/cards/library.rules does'
_card_option: tuple[tuple[object, str], ...] = ()  # (a path or an ast.Card, where it was given) each
_replace_shipped = False


def _entries_given(entries, origin: str) -> tuple[tuple[object, str], ...]:
    return tuple((e if isinstance(e, ast.Card) else Path(os.fspath(e)), origin) for e in entries or ())


def set_card_files(entries, origin: str = "--cards", replace_shipped: bool = False) -> None:
    """The card files (paths) or cards (`ast.Card`) of your own given to this command, added
    to the shipped library in that order (after the rules path's cards/ folders); `origin`
    says where they were given (`--cards`, `cards=`), for the errors. `replace_shipped`: a
    card of yours replaces a shipped card of the same name rather than being an error."""
    global _card_option, _replace_shipped
    _card_option = _entries_given(entries, origin)
    _replace_shipped = replace_shipped


@contextlib.contextmanager
def more_cards(entries, origin: str = "cards="):
    """Within it, `entries` (card files or cards) are added to those in force (the API's `cards=`)."""
    global _card_option
    outer = _card_option
    _card_option = outer + _entries_given(entries, origin)
    try:
        yield
    finally:
        _card_option = outer


def card_folders() -> tuple[Path, ...]:
    """The cards/ folder of each folder of the rules path (whether it is there or not)."""
    return tuple(folder / CARD_FOLDER for folder in rules_path())


def _folder_card_files() -> tuple[Path, ...]:
    """The card files of the rules path's cards/ folders, in order: listed once within
    `one_listing()`, not at every rulebook or scenario."""
    def compute() -> tuple[Path, ...]:
        found: list[Path] = []
        for folder in card_folders():
            if not _probe(folder.is_dir):
                continue
            try:
                names = _names(folder)
            except OSError as exc:
                raise DiagnosticError(Diagnostic(
                    "error", f"cannot read card folder {folder}: {exc.strerror or exc}", Span(str(folder), 0, 0, 0, 0),
                    "let this user read it (chmod u+rx), or take it out of the rules path's folder")) from None
            found += [folder / name for name in names if name.endswith(".rules")]
        return tuple(found)

    return _once_per_listing("card folders", None, compute)


def user_card_sources() -> tuple[tuple[object, str], ...]:
    """Your own card files (and the API's cards), in the order they are added to the library:
    the rules path's cards/ folders, then those given (`set_card_files`, `more_cards`); each
    with where it was found or given."""
    found = tuple((path, f"found in {path.parent} on the rules path") for path in _folder_card_files())
    return found + _card_option


def user_card_key() -> tuple:
    """What the cards of your own in force are, as a rulebook loaded is kept by: those given (the
    cards/ folders follow from the rules path, which the key has too) and whether they may
    replace shipped cards."""
    return (_card_option, _replace_shipped) if _card_option or _replace_shipped else ()


def user_card_paths() -> list[Path]:
    """The files the library of your own is read from, and their folders and the cards/ folders
    (a file added to one changes the library)."""
    paths = [entry for entry, _origin in user_card_sources() if isinstance(entry, Path)]
    return paths + sorted({p.parent for p in paths} | set(card_folders()))


_LIBRARIES: OrderedDict[tuple, tuple] = OrderedDict()  # key -> (library, your cards, their files' stamps, shipped library)


def _library() -> tuple[dict[str, ast.Card], dict[str, ast.Card]]:
    """(the whole card library, your own cards in it): built once for the card files in force,
    and again when one of them changes."""
    sources = user_card_sources()
    if not sources:
        return shipped_cards(), {}
    key = (sources, _replace_shipped)
    paths = [entry for entry, _origin in sources if isinstance(entry, Path)]
    shipped, stamps = shipped_cards(), _stamps(paths)
    hit = _LIBRARIES.get(key)
    if hit is not None and hit[2] == stamps and hit[3] is shipped:  # (the shipped library read again: rebuilt)
        _LIBRARIES.move_to_end(key)
        return hit[0], hit[1]
    library, own = card_library(sources, _replace_shipped)
    _LIBRARIES[key] = (library, own, stamps, shipped)
    while len(_LIBRARIES) > 16:
        _LIBRARIES.popitem(last=False)
    return library, own


def read_card_file(path: Path, origin: str = "--cards") -> list[ast.Card]:
    """The cards of a card file of your own: it must be a readable file that parses and holds
    cards and nothing else (each of those an error at the file, or at the place)."""
    where = Span(str(path), 0, 0, 0, 0)
    if not _probe(path.exists):
        raise DiagnosticError(Diagnostic("error", f"no such card file: {path} (from {origin})", where,
                                         'give the path of a file of cards (card "NAME" { ... }), such as my-cards.rules'))
    if not _probe(path.is_file):
        what = "a folder" if _probe(path.is_dir) else "not a regular file"
        raise DiagnosticError(Diagnostic(
            "error", f"not a card file: {path} is {what} (from {origin})", where,
            "give a file of cards; a folder of card files is read when it is the cards/ folder of a folder of the "
            "rules path (--rules-path DIR reads DIR/cards/*.rules)"))
    module = _parsed(path)  # (a file that cannot be read or parsed: the parser's error, at its place)
    strays = [item for item in module.items if not isinstance(item, ast.Card)]
    if strays:
        raise DiagnosticError([Diagnostic(
            "error", f"a card file holds only cards: this is {_item_kind(item)}", item.span,
            "keep your cards in a file of cards only (given with --cards, or in a cards/ folder of the rules path); "
            "scenarios go in .scenario files, rule blocks in a variant or a version")
            for item in strays])
    cards = [item for item in module.items if isinstance(item, ast.Card)]
    if not cards:
        raise DiagnosticError(Diagnostic("error", f"no card in {path} (from {origin})", where, CARD_FILE_HINT))
    return cards


def _item_kind(item: ast.Node) -> str:
    kinds = {ast.Scenario: "a scenario", ast.Rule: "a rule block", ast.Version: "a version or variant manifest",
             ast.StatusDecl: "a status declaration", ast.VerbDecl: "a verb declaration",
             ast.ZoneDecl: "a zone declaration", ast.ObserveDecl: "an observation", ast.Amend: "an amend"}
    return next((text for kind, text in kinds.items() if isinstance(item, kind)), "not a card")


def card_library(sources, replace_shipped: bool = False,
                 base: dict[str, ast.Card] | None = None) -> tuple[dict[str, ast.Card], dict[str, ast.Card]]:
    """The library `base` (default: the shipped one) with the cards of `sources` (each a card
    file's path or a card, with where it was given) added, and those cards alone. A file named
    twice (or the shipped library's own file) is read once. A card with the name of one of
    `base`'s, or of an earlier card of `sources`, written otherwise, is an error at its name
    naming the other (with `replace_shipped`, one of `base`'s is replaced instead); every file
    that does not load is an error too, all said together."""
    shipped = base is None
    library = dict(shipped_cards() if base is None else base)
    own: dict[str, ast.Card] = {}
    problems: list[Diagnostic] = []
    seen: set[Path] = {_resolved(p) for p in CARDS_DIR.glob("*.rules")} if shipped else set()
    for entry, origin in sources:
        if isinstance(entry, ast.Card):
            cards = [entry]
        else:
            where = _resolved(entry)
            if where in seen:
                continue
            seen.add(where)
            try:
                cards = read_card_file(entry, origin)
            except DiagnosticError as exc:
                problems += exc.diagnostics
                continue
        for card in cards:
            first = own.get(card.name)
            if first is not None:
                if first != card:
                    problems.append(_same_name(card, first, "a card of your own", shipped))
                continue
            there = library.get(card.name)
            if there is not None and there != card and not replace_shipped:
                what = "a shipped card" if shipped or shipped_cards().get(card.name) is there else "a card of the library"
                problems.append(_same_name(card, there, what, shipped))
                continue
            own[card.name] = card
            library[card.name] = card
    if problems:
        raise DiagnosticError(problems)
    return library, own


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _same_name(card: ast.Card, other: ast.Card, what: str, shipped: bool) -> Diagnostic:
    """The error for `card`, which has the name of `other` (`what`) and is written otherwise."""
    at = word_span(card.span, card.name) if card.span.line else card.span
    if what == "a card of your own":
        hint = "keep one of the two (or write them the same), or give one another name"
    else:
        hint = (f"give yours a name of its own (card \"{card.name} (mine)\" {{ ... }}) and play that"
                + ("; 'phasing cards --only' surveys your cards in place of the shipped ones" if shipped else "")
                + "; a scenario file's own card of that name stands in for the library's in that file alone")
    notes = (Note(f"{what} '{card.name}' is written here", other.span),) if other.span.line else ()
    return Diagnostic("error", f"card '{card.name}' is already {what}, written otherwise", at, hint, notes)


_CHECKED: OrderedDict[tuple, tuple[object, list[Diagnostic]]] = OrderedDict()


def unfit_cards(cards: list[ast.Card], newest: Rulebook) -> list[Diagnostic]:
    """The checker's errors for `cards`, checked against `newest` (the newest version, with them
    in its library): a card that does not fit it may be written for an older version's words,
    and passes if one of them takes it; the errors said are the newest's. The cards that do not
    fit are checked together under each older version (newest first), so that many cards cost
    a check per version, not one per card and version."""
    problems = [d for d in check_cards(cards, newest) if d.kind == "error"]
    failing = _cards_of(problems, cards)  # index in `cards` -> card
    for version in reversed([v for v in available_versions() if v != newest.version.id]):
        if not failing:
            break
        try:
            book = load_version(version).with_cards(failing.values())
        except DiagnosticError:
            continue
        keys, tried = list(failing), list(failing.values())
        still = _cards_of([d for d in check_cards(tried, book) if d.kind == "error"], tried)
        failing = {keys[n]: card for n, card in still.items()}
    starts = _starts(cards)
    return [d for d in problems if _card_at(d.span, cards, starts) in failing]


def _starts(cards: list[ast.Card]) -> list[tuple]:
    return sorted((c.span.path, c.span.line, c.span.column, n) for n, c in enumerate(cards))


def _card_at(span: Span, cards: list[ast.Card], starts: list[tuple]) -> int | None:
    """The index in `cards` of the card whose text `span` is in (None: none of them)."""
    k = bisect.bisect_right(starts, (span.path, span.line, span.column, len(cards))) - 1
    if k < 0:
        return None
    n = starts[k][3]
    return n if within(span, cards[n].span) else None


def _cards_of(problems: list[Diagnostic], cards: list[ast.Card]) -> dict[int, ast.Card]:
    """The cards (by index in `cards`) some of `problems` are in."""
    starts = _starts(cards)
    found = {_card_at(d.span, cards, starts) for d in problems}
    return {n: cards[n] for n in sorted(n for n in found if n is not None)}


def card_library_problems() -> list[Diagnostic]:
    """What is wrong with your own cards (those in force), before anything plays them: a file
    that does not load or clashes (`card_library`), or a card the checker rejects under every
    version (`unfit_cards`). [] when you have no cards of your own."""
    try:
        own = user_cards()
    except DiagnosticError as exc:
        return list(exc.diagnostics)
    if not own:
        return []
    newest = load_version(available_versions()[-1])
    key = (tuple(own.values()), id(newest))  # (the cards by value: an id may be another card's later)
    hit = _CHECKED.get(key)
    if hit is not None and hit[0] is newest:
        return list(hit[1])
    problems = unfit_cards(list(own.values()), newest)
    _CHECKED[key] = (newest, problems)
    while len(_CHECKED) > 16:
        _CHECKED.popitem(last=False)
    return list(problems)


def renumbered(rule_id: str, renumbers: tuple[ast.Renumber, ...]) -> str:
    """`renumber 702.26 as 702.25` moves a whole section; `renumber 702.25f as 702.25e` one block."""
    for r in renumbers:
        if _renumbers(r, rule_id):
            return r.new + rule_id[len(r.old):]
    return rule_id


def _moved_away(rule_id: str, renumbers: tuple[ast.Renumber, ...], base: Rulebook) -> tuple[ast.Renumber, str] | None:
    """The renumber that moves `rule_id`, a block of `base`, to another number, and the
    block's slug; None when no renumber moves a block of that number."""
    r = next((r for r in renumbers if _renumbers(r, rule_id)), None)
    block = base.rule(rule_id)
    if r is None or block is None or block.id != rule_id:
        return None
    return r, block.slug


def _renumbers(r: ast.Renumber, rule_id: str) -> bool:
    """Does `r` move `rule_id`: the block numbered so, or one of the section it numbers?"""
    return rule_id == r.old or (rule_id.startswith(r.old) and rule_id[len(r.old):].isalpha())


def _check_renumbers(manifest: ast.Version, base: Rulebook) -> None:
    """Each `renumber` of `manifest` moves something `base` (the version it extends) numbers:
    a block, a section, or a rule its statuses, verbs or zones cite. One that moves nothing is
    a slip (a number mistyped, or the wrong version extended), said at the renumber."""
    if not manifest.renumbers:
        return
    sections = sorted({s.rule for s in base.version.sections})
    blocks = sorted(block.id for block in base.rules)
    numbers = {*sections, *blocks}
    numbers |= {c for table in (base.statuses, base.verbs, base.zones) for decl in table.values() for c in decl.cites}
    problems = []
    for r in manifest.renumbers:
        if not any(_renumbers(r, number) for number in numbers):
            problems.append(Diagnostic(
                "error", f"'renumber {r.old} as {r.new}' moves nothing: {manifest.extends} numbers no block, section "
                         f"or cited rule {r.old}", r.span,
                did_you_mean(r.old, sections + blocks, f"renumber a section ({', '.join(sections)}) or a block of "
                             f"{manifest.extends} ('phasing show {manifest.extends}' lists them)", cutoff=0.8)))
    if problems:
        raise DiagnosticError(problems)


def _check_renumbered_into_place(manifest: ast.Version, base: Rulebook, inherited: dict[str, ast.Rule],
                                 own_slugs: set[str]) -> None:
    """No `renumber` moves an inherited block onto the number another inherited block still
    has (one not dropped, nor restated by the manifest's own file): said at the renumber,
    naming that block, rather than as two blocks of one number in the extended version's file."""
    before = {rule.slug: rule.id for rule in base.rules}
    holders: dict[str, list[str]] = defaultdict(list)  # number -> slugs that end up with it
    for slug, rule in inherited.items():
        if slug not in own_slugs:
            holders[rule.id].append(slug)
    problems, told = [], set()
    for r in reversed(manifest.renumbers):  # (two that move blocks onto one number: said at the later)
        for slug, rule in inherited.items():
            if slug in own_slugs or not _renumbers(r, before[slug]) or rule.id in told:
                continue
            others = [s for s in holders[rule.id] if s != slug]
            if not others:
                continue
            told.add(rule.id)
            other = others[0]
            if before[other] == rule.id:
                said = f"{rule.id} is already the number of a block of {manifest.extends}: {other}"
                hint = (f"move {other} out of the way as well ('renumber {rule.id} as ...': renumbers are made all at "
                        f"once), 'drop {other}', or renumber {r.old} to a number {manifest.extends} does not use")
            else:
                said = f"another renumber moves {other} ({before[other]} in {manifest.extends}) there too"
                hint = f"give one of the two another number, or 'drop {other}'"
            problems.append(Diagnostic(
                "error", f"'renumber {r.old} as {r.new}' moves {slug} ({before[slug]}) to {rule.id}, but {said}",
                r.span, hint))
    if problems:
        raise DiagnosticError(sorted(problems, key=lambda d: (d.span.line, d.span.column)))


def with_rule_refs(clause: ast.Node, rename) -> ast.Node:
    """The clause with the rule ids it refers to (in `order` and `exempt`) passed through `rename`."""
    if isinstance(clause, ast.Order):
        return attrs.evolve(clause, rules=tuple(rename(r) for r in clause.rules))
    if isinstance(clause, ast.Exempt):
        return attrs.evolve(clause, rule=rename(clause.rule))
    return clause


def renumber_rule(rule: ast.Rule, renumbers) -> ast.Rule:
    def rename(rule_id: str) -> str:
        return renumbered(rule_id, renumbers)
    return attrs.evolve(rule, id=rename(rule.id), clauses=tuple(with_rule_refs(c, rename) for c in rule.clauses))


def _check_inherited_sections(sections: tuple[ast.Section, ...], dropped: dict[str, ast.Drop], own_ids: set[str],
                              extended: str) -> None:
    """A manifest that lists no sections inherits them; a block it drops that one of them
    lists, and that none of its own blocks puts back, leaves a subrule with no block: said at
    the drop, with the sections written out without it for the manifest to list instead."""
    missing = {rule_id: drop for rule_id, drop in dropped.items() if rule_id not in own_ids}  # (own blocks take theirs)
    problems = []
    for rule_id, drop in missing.items():
        for section in sections:
            if rule_id in {section.rule + letter for letter in section.letters}:
                left = " ".join(x for x in section.letters if section.rule + x not in missing)
                problems.append(Diagnostic(
                    "error", f"dropping '{drop.name}' leaves subrule {rule_id}, which the sections inherited from "
                             f"{extended} list, with no block", drop.span,
                    f"list the sections without it: 'section {section.rule} subrules {left}'; "
                    f"or write a block of your own for {rule_id}"))
    if problems:
        raise DiagnosticError(problems)


def _check_renumbered_sections(manifest: ast.Version, sections: tuple[ast.Section, ...], base: Rulebook,
                               inherited: dict[str, ast.Rule], own: list[ast.Rule]) -> None:
    """A manifest that lists no sections inherits them as the extended version lists them; a
    `renumber` of one block that moves it off a subrule they list, or onto one they do not,
    leaves them out of step with the blocks: said at the renumber, with the sections written
    out as the blocks now are for the manifest to list instead (rather than as a block of the
    extended version's file that no section lists)."""
    before = {rule.slug: rule.id for rule in base.rules}
    own_slugs = {r.slug for r in own}
    ids = {r.id for slug, r in inherited.items() if slug not in own_slugs} | {r.id for r in own}
    problems, told = [], set()
    for section in sections:
        listed = {section.rule + letter for letter in section.letters}
        have = {i for i in ids if i.startswith(section.rule) and i[len(section.rule):].isalpha()}
        if listed == have:
            continue
        letters = " ".join(sorted(i[len(section.rule):] for i in have))
        for r in manifest.renumbers:
            for slug, rule in inherited.items():
                old = before.get(slug)
                if slug in own_slugs or old is None or old == rule.id or not _renumbers(r, old) or id(r) in told:
                    continue
                if old in listed - have:
                    said = f"but the sections inherited from {manifest.extends} still list {old}"
                elif rule.id in have - listed:
                    said = f"which the sections inherited from {manifest.extends} do not list"
                else:
                    continue
                told.add(id(r))
                problems.append(Diagnostic(
                    "error", f"'renumber {r.old} as {r.new}' moves {slug} ({old}) to {rule.id}, {said}", r.span,
                    f"give the manifest its sections as the blocks now are: 'section {section.rule} subrules {letters}'; "
                    f"or renumber it to a subrule they list"))
    if problems:
        raise DiagnosticError(sorted(problems, key=lambda d: (d.span.line, d.span.column)))


def _check_file_name(manifest: ast.Version, modules: list[ast.Module]) -> None:
    """A variant in a folder where variants are found by name (one of the rules path, or the
    shipped rules/variants/) is in the file named after it: `phasing versions` and `--rules`
    know it by its file's name, and its results by its manifest's. A file given by its path
    elsewhere may be named freely."""
    if manifest.kind != "variant" or len(modules) != 1 or not modules[0].span.path:
        return
    path = Path(modules[0].span.path)
    if path.stem == manifest.id:
        return
    try:
        named_here = path.resolve().parent in {*rules_path(), VARIANTS_DIR.resolve()}
    except (OSError, RuntimeError):
        return
    if named_here and path.stem != manifest.id:
        raise DiagnosticError(Diagnostic(
            "error", f"variant '{manifest.id}' is in {path.name}: a variant's file is named after it ({manifest.id}.rules)",
            word_span(manifest.span, manifest.id, skip=1 if manifest.id == manifest.kind else 0),
            f"where variants are found by name (the folders of the rules path, rules/variants/) a variant is known by "
            f"its file's name: rename the file to {manifest.id}.rules, or the variant to {path.stem}"))


def assemble(modules: list[ast.Module], folder: Path | None, cards: dict[str, ast.Card],
             chain: tuple[str, ...] = ()) -> Rulebook:
    """Resolve a version's own files over the version it extends, then check the result."""
    manifests = [i for m in modules for i in m.items if isinstance(i, ast.Version)]
    if len(manifests) > 1:  # said at each manifest after the first
        raise DiagnosticError([Diagnostic(
            "error", f"a version needs exactly one manifest, found {len(manifests)}: this is one more", extra.span,
            f"the first is '{manifests[0].kind} {manifests[0].id}' at {manifests[0].span}; keep one, or put this "
            f"{extra.kind} in a file (a variant) or folder (a version) of its own") for extra in manifests[1:]])
    if len(manifests) != 1:
        where = (Span(modules[0].span.path, 0, 0, 0, 0) if len(modules) == 1 and modules[0].span.path  # (a variant file)
                 else Span(str(folder / "version.rules") if folder else "<rules>", 0, 0, 0, 0))
        items = [i for m in modules for i in m.items]
        cards_only = bool(items) and all(isinstance(i, ast.Card) for i in items)
        raise DiagnosticError(Diagnostic(
            "error", f"a version needs exactly one manifest, found {len(manifests)}", where,
            "this is a file of cards, not a variant: give it to a command with --cards FILE, or keep it in a "
            "cards/ folder of the rules path's folder (DIR/cards/), where it is read as one" if cards_only else
            "write one 'version DATE { ... }' (or 'variant NAME { ... }') per version"))
    manifest = manifests[0]
    _check_file_name(manifest, modules)
    statuses: dict[str, ast.StatusDecl] = {}
    verbs: dict[str, ast.VerbDecl] = {}
    zones: dict[str, ast.ZoneDecl] = {}
    observations: dict[str, ast.ObserveDecl] = {}
    turn: ast.TurnStructure | None = None
    rules: dict[str, ast.Rule] = {}
    amendments: dict[str, tuple[Amendment, ...]] = {}
    dropped_blocks: dict[str, ast.Drop] = {}  # rule id -> the drop that took its inherited block away
    removals: list[Removal] = []  # what each drop took away
    sections = manifest.sections
    if manifest.extends_clause is not None:
        where = manifest.extends_clause.span
        if manifest.extends in chain + (manifest.id,):
            raise DiagnosticError(Diagnostic("error", f"'{manifest.id}' extends itself through {' -> '.join(chain + (manifest.id, manifest.extends))}",
                                             where, "a version must extend an older or a different one"))
        try:
            files_of(manifest.extends, names_only=True)
        except DiagnosticError as exc:
            known = available_versions() + available_variants()
            hint = did_you_mean(manifest.extends, known, exc.diagnostics[0].hint, cutoff=0.8)
            raise DiagnosticError(attrs.evolve(exc.diagnostics[0], span=where, hint=hint)) from None
        base = _load(manifest.extends, (manifest.extends, rules_path(), None, user_card_key()), chain + (manifest.id,))
        _check_renumbers(manifest, base)
        statuses.update(base.statuses)
        verbs.update(base.verbs)
        zones.update(base.zones)
        observations.update(base.observations)
        turn = base.turn
        amendments.update(base.amendments)
        for rule in base.rules:  # (without renumbers, the extended rulebook's own blocks and declarations)
            moved = renumber_rule(rule, manifest.renumbers) if manifest.renumbers else rule
            rules[moved.slug] = moved
        if not sections:  # inherited: a problem with them is this manifest's to fix
            sections = tuple(attrs.evolve(s, rule=renumbered(s.rule, manifest.renumbers), span=manifest.span)
                             for s in base.version.sections)
        for table in (statuses, verbs, zones, observations) if manifest.renumbers else ():
            for name, decl in list(table.items()):
                table[name] = attrs.evolve(decl, cites=tuple(renumbered(c, manifest.renumbers) for c in decl.cites))
        gone: dict[str, ast.Drop] = {}  # each name (slug and id of a block) a drop has taken away -> that drop
        twice = []
        for drop in manifest.drops:
            dropped = drop.name
            victim = next((slug for slug, r in rules.items() if dropped in (slug, r.id)), None)
            if victim is not None:
                block = rules.pop(victim)
                dropped_blocks[block.id] = drop
                gone.update({block.slug: drop, block.id: drop})
                removals.append(Removal(drop, "block", block.id, block.slug))
            elif dropped in verbs:
                del verbs[dropped]
                gone[dropped] = drop
                removals.append(Removal(drop, "verb", dropped))
            elif dropped in statuses:
                del statuses[dropped]
                gone[dropped] = drop
                removals.append(Removal(drop, "status", dropped))
            elif dropped in observations:
                del observations[dropped]
                gone[dropped] = drop
                removals.append(Removal(drop, "observation", dropped))
            elif dropped in gone:
                first = gone[dropped]
                twice.append(Diagnostic(
                    "error", f"'{dropped}' is dropped twice; the first is at line {first.span.line}", drop.span,
                    f"keep one: the first drop ('drop {first.name}', at {first.span}) already removes it"))
            elif (moved := _moved_away(dropped, manifest.renumbers, base)) is not None:
                r, slug = moved
                now = renumbered(dropped, manifest.renumbers)
                raise DiagnosticError(Diagnostic(
                    "error", f"'{dropped}' numbers no block here: this {manifest.kind}'s own 'renumber {r.old} as "
                             f"{r.new}' (line {r.span.line}) moves {slug} ({dropped} in {manifest.extends}) to {now}",
                    drop.span,
                    f"drop it by its new number ('drop {now}') or by its slug ('drop {slug}'): drops are made after the "
                    f"renumbers; a block dropped needs no renumber, so the renumber at {r.span} can go too"
                    if now not in gone else
                    f"the drop at line {gone[now].span.line} ('drop {gone[now].name}') already removes it: keep one"))
            else:
                names = list(rules) + [r.id for r in rules.values()] + list(verbs) + list(statuses)
                raise DiagnosticError(Diagnostic(
                    "error", f"'{dropped}' is not a block, verb or status of {manifest.extends}", drop.span,
                    did_you_mean(dropped, names, f"drop a slug, rule id, verb or status of {manifest.extends} "
                                 f"('phasing show {manifest.extends}' lists them)", cutoff=0.5)))
        if twice:
            raise DiagnosticError(twice)
    elif manifest.renumbers or manifest.drops:
        raise DiagnosticError(Diagnostic("error", "renumber and drop need an 'extends'",
                                         (manifest.renumbers + manifest.drops)[0].span,
                                         "add 'extends VERSION', naming the version or variant whose blocks they change"))
    elif manifest.kind == "variant":  # a patch over nothing: its blocks would lean on words no rulebook declares
        raise DiagnosticError(Diagnostic("error", f"a variant needs 'extends VERSION': '{manifest.id}' extends nothing",
                                         manifest.span, "a variant is a patch over a version or another variant: add "
                                         f"'extends {available_versions()[-1]}' (or the variant it changes) to the manifest; a rulebook "
                                         "of its own is a version folder (DATE/version.rules)"))
    own = [i for m in modules for i in m.items if isinstance(i, ast.Rule)]
    if manifest.renumbers:
        _check_renumbered_into_place(manifest, base, rules, {r.slug for r in own})
    if dropped_blocks and not manifest.sections:
        _check_inherited_sections(sections, dropped_blocks, {r.id for r in own}, manifest.extends)
    if manifest.renumbers and not manifest.sections:
        _check_renumbered_sections(manifest, sections, base, rules, own)
    amends = [i for m in modules for i in m.items if isinstance(i, ast.Amend)]
    if amends:  # made on the inherited blocks, before the rulebook's own blocks take their places
        moved = {}  # each number of the extended rulebook a renumber moves a block from -> (that renumber, its new number)
        for rule in base.rules if manifest.extends_clause is not None else ():
            r = next((r for r in manifest.renumbers if _renumbers(r, rule.id)), None)
            if r is not None:
                moved[rule.id] = (r, renumbered(rule.id, manifest.renumbers))
        made = apply_amends(rules, amends, manifest, {r.slug: r for r in own}, moved)
        for slug, amendment in made.items():
            amendment = attrs.evolve(amendment, place=rule_file_place(amendment.span.path))
            amendments[slug] = amendments.get(slug, ()) + (amendment,)
    for module in modules:
        for item in module.items:
            if isinstance(item, ast.StatusDecl):
                statuses[item.name] = item
            elif isinstance(item, ast.VerbDecl):
                verbs[item.name] = item
            elif isinstance(item, ast.ZoneDecl):
                zones[item.name] = item
            elif isinstance(item, ast.ObserveDecl):
                observations[item.name] = item
    turns = [i for m in modules for i in m.items if isinstance(i, ast.TurnStructure)]
    if len(turns) > 1:
        raise DiagnosticError(Diagnostic("error", "the turn is declared twice in this rulebook", turns[1].span,
                                         f"keep one 'turn {{ ... }}'; the first is at {turns[0].span}"))
    turn = turns[0] if turns else turn or default_turn()
    # A block replaces the inherited block with the same slug; duplicates are the checker's to report.
    own_slugs = {r.slug for r in own}
    declared = [r for r in rules.values() if r.slug not in own_slugs] + own
    replaced = set()
    for rule in own:  # a duplicated slug keeps its first block; the checker reports the second
        if rule.slug not in replaced:
            rules[rule.slug] = rule
            replaced.add(rule.slug)
    ordered = tuple(sorted(rules.values(), key=lambda r: rule_key(r.id)))
    resolved = attrs.evolve(manifest, sections=sections)
    kept = {slug: amendments[slug] for slug in rules if slug in amendments and slug not in own_slugs}
    book = Rulebook(resolved, statuses, verbs, ordered, dict(cards), folder, zones, observations, kept, turn)
    left, explained = _dangling(removals, rules, verbs, own_slugs, modules, manifest.extends)
    try:
        # (the blocks shared with the rulebook extended, checked there, are not checked again when
        # nothing this one changes can change what they mean: issue 43)
        check_rulebook(book, modules, declared=declared,
                       extended=base if manifest.extends_clause is not None else None)
    except DiagnosticError as exc:
        if not left:
            raise
        # (what the drops left behind is said at them, not again where the version extended has it)
        left += [d for d in exc.diagnostics if not any(within(d.span, outer) for outer in explained)]
    if left:
        raise DiagnosticError(left)
    return book


def rule_file_place(path: str) -> str:
    """Where a rule file is, as the trace and `why` name it: its path relative to the folder its
    name was found in: the shipped variants folder or a rules-path folder for a variant
    (`end-step-phasing.rules`), the shipped rules or a rules-path folder for a version's file
    (`2026-09-25/version.rules`: every version folder has a version.rules); a file outside them
    (`--rules FILE`) by its path as given."""
    given = PurePath(path)
    try:
        extra = rules_path()
    except DiagnosticError:  # (a rules path that cannot be read: the error is the loader's to give)
        extra = ()
    for root in (VARIANTS_DIR, RULES_ROOT, *extra):
        for candidate in (given, Path(path).resolve()) if given.is_absolute() else (Path(path).resolve(),):
            try:
                return candidate.relative_to(root).as_posix()
            except ValueError:
                continue
    return str(path)


def _dangling(removals: list[Removal], rules: dict[str, ast.Rule], verbs: dict[str, ast.VerbDecl],
              own_slugs: set[str], modules: list[ast.Module], extended: str | None) -> tuple[list[Diagnostic], list[Span]]:
    """The errors for what the manifest's drops took away and the blocks and verbs it goes on
    inheriting still name (`interpreter.rulebook.dropping`), and the spans those are in."""
    if not removals:
        return [], []
    own_paths = {m.span.path for m in modules} | {i.span.path for m in modules for i in m.items}
    holders = [Holder(f"{rule.id} {rule.slug}", rule, rule.slug, False)
               for slug, rule in rules.items() if slug not in own_slugs]
    holders += [Holder(f"verb {name}", decl, name, True) for name, decl in verbs.items() if decl.span.path not in own_paths]
    return dangling(removals, holders, own_paths, extended or "")


def _resolve(spec: str, chain: tuple[str, ...] = ()) -> Rulebook:
    files = files_of(spec)
    modules = _parse_all(files)
    folder = files[0].parent if files else None
    return assemble(modules, folder, load_cards(), chain)


_LOADED: OrderedDict[tuple, tuple[Rulebook, tuple]] = OrderedDict()  # (spec, rules path, folder) -> (rulebook, what it was read from), newest last
_LOADED_KEPT = 256
"""The rulebooks kept, the most recently used: a program loads a few, and `versions` over
thousands of variants keeps memory (and the garbage collector's work) flat, the versions
they extend kept by their use."""


def _read_from(spec: str) -> list[Path]:
    """The files a load of `spec` reads, and their folders (a file added to a version's folder
    changes the folder): its own, those of what it extends down the chain, and the card library
    (the shipped one, and your own: `user_card_paths`)."""
    cards = _once_per_listing("card files", None, lambda: sorted(CARDS_DIR.glob("*.rules")) + [CARDS_DIR])
    return _chain_files(spec, False, ()) + cards + user_card_paths()


def _chain_files(spec: str, names_only: bool, seen: tuple[str, ...]) -> list[Path]:
    """The files of `spec` and their folders, then those of what it extends, down the chain
    (each name once); the chain of a name found once per `one_listing()`."""
    def compute() -> list[Path]:
        files = files_of(spec, names_only=names_only)
        paths = files + sorted({f.parent for f in files})
        manifests = [i for m in _parse_all(files) for i in m.items if isinstance(i, ast.Version)]
        extends = manifests[0].extends if manifests else None
        if extends is None or extends in seen or extends == spec:
            return paths
        return paths + _chain_files(extends, True, seen + (spec,))

    if not names_only:  # (a file named by its path: its own files are read again)
        return compute()
    return _once_per_listing("chain", spec, compute)


def _stamps(paths: Iterable[Path]) -> tuple:
    """(path, modification time, size) of each path, (path, None, None) for one gone; each path
    looked at once within `one_listing()`."""
    return tuple(_once_per_listing("stamp", path, lambda: _stamp(path)) for path in paths)


def _stamp(path: Path) -> tuple:
    try:
        info = path.stat()
    except OSError:
        return (path, None, None)
    return (path, info.st_mtime_ns, info.st_size)


def load_version(spec: str) -> Rulebook:
    """Parse, resolve, check and index one version or variant. Cached per process, for the
    rules path and working folder it was loaded with, for as long as none of the files it was
    read from (its own, those of what it extends, the card library) changes: a rule file
    edited while a program runs is read again the next time it is loaded. The cards of your
    own in force (`user_card_sources`) are in its library, and part of what it is kept by. The
    cycle collector is paused while it loads (`dsl.collector`)."""
    with collector_paused():
        return _load(spec, (spec, rules_path(), os.getcwd() if not _named(spec) else None, user_card_key()))


def _load(spec: str, key: tuple, chain: tuple[str, ...] = ()) -> Rulebook:
    """`load_version`, for the key it is kept under. A version extended is loaded so too (with
    the chain that leads to it, to tell a cycle), so that the variants that extend one version
    share it rather than each resolving and checking it again (issue 43)."""
    hit = _LOADED.get(key)
    fresh = _listed.setdefault("fresh", set()) if _listed is not None else set()  # (looked over in this listing)
    if hit is not None and (key in fresh or _stamps(p for p, _time, _size in hit[1]) == hit[1]):
        _LOADED.move_to_end(key)
        fresh.add(key)
        return hit[0]
    try:
        stamps = _stamps(_read_from(spec))  # (taken before reading: an edit made meanwhile is seen next time)
    except DiagnosticError:
        stamps = None  # (it does not load: `_resolve` says why)
    if hit is not None:
        shipped_cards.cache_clear()  # (the card library may be what changed; your own is looked over at each use)
    book = _resolve(spec, chain)
    if stamps is not None:
        _LOADED[key] = (book, stamps)
        _LOADED.move_to_end(key)
        fresh.add(key)
        while len(_LOADED) > _LOADED_KEPT:
            _LOADED.popitem(last=False)
    return book


def _forget_loaded() -> None:
    """Forget every rulebook loaded (and the card library, and the files parsed), as if none had been."""
    _LOADED.clear()
    _PARSED.clear()
    shipped_cards.cache_clear()
    _LIBRARIES.clear()
    _CHECKED.clear()


load_version.cache_clear = _forget_loaded  # type: ignore[attr-defined]


def lineage(spec: str, through_versions: bool = False) -> tuple[str, ...]:
    """The names a version or variant is built on, itself first, following `extends` down to
    a version: ("my-variant", "end-step-phasing", "2026-09-25"); `through_versions`, on
    through the versions that version extends, to one that extends nothing. Read from the
    manifests alone, so that a rulebook that fails its checks still has one."""
    chain: list[str] = []
    while spec is not None and spec not in chain:
        files = files_of(spec, names_only=bool(chain))
        manifests = [i for m in _parse_all(files) for i in m.items if isinstance(i, ast.Version)]
        if not manifests:  # a rulebook without a manifest: its error, before anything runs
            where = str(files[0]) if len(files) == 1 else str(files[0].parent / "version.rules") if files else spec
            raise DiagnosticError(Diagnostic("error", "a version needs exactly one manifest, found 0",
                                             Span(where, 0, 0, 0, 0),
                                             "write one 'version DATE { ... }' (or 'variant NAME { ... }') per version"))
        chain.append(spec if chain else manifests[0].id)  # a base by the name it is extended by
        spec = manifests[0].extends if manifests[0].kind == "variant" or through_versions else None
    return tuple(chain)
