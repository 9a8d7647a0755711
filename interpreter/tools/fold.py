"""Folding a new CR release into the shipped rules (`phasing fold VERSION`).

A new release V is first written as a version folder on the rules path that extends the newest
shipped version N, with only what changed (`amend`s, restated blocks, drops). Folding makes V
the newest complete version and stores N as the changes that lead from V back to it, as every
older version is stored:

- `V/` holds every block and declaration V has, each in the file N kept it in (as N wrote it
  when V did not change it, as V wrote it when V restated it, printed when an `amend` or a
  renumber made it), V's new ones in the files V wrote them in, and V's manifest without
  `extends`, its sections written out;
- `N/` keeps N's manifest, now `extends V`, with a `drop` for each block or declaration V added
  and the renumbers back if V renumbered; and, restated as N wrote them, the blocks and
  declarations V changed or took away. A file of N left with nothing to restate is removed.

Nothing is written until it is proved: the result is staged in a temporary folder, and every
shipped version and V must resolve there to the rulebook they resolve to now (blocks,
declarations, title, sections, notes), and every run `phasing test --rules NAME` makes for
each of them must end as it does now.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import attrs

from ...dsl import ast, atomic
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from ...dsl.parser import parse_file
from ...dsl.printer import item_lines
from ..game.budget import Budget
from ..play.scenario import Outcome
from ..play.suite import collect, newest_shipped, run_case, runs_under
from ..rulebook.loading import (DECLARATIONS, RULES_ROOT, VERSION_RE, Rulebook, files_of, load_version, renumber_rule,
                                renumbered, rules_path, set_rules_path, shipped_sources, sources)

VERSION_FILE = "version.rules"

Key = tuple[str, str]  # ("block", slug), ("status" | "verb" | "zone", name), ("manifest", id), ...


# ------------------------------------------------------------------ files as items


@attrs.frozen
class Chunk:
    """One item of a rule file as written: the comment lines just above it, and its text."""

    key: Key
    text: str


@attrs.frozen
class RuleFile:
    """A rule file as its items: the text before the first item (the file's own comments), each
    item with the comments just above it, and what follows the last."""

    name: str
    header: str
    chunks: tuple[Chunk, ...]
    trailer: str

    def render(self, chunks: Iterable[Chunk] | None = None) -> str:
        parts = [c.text for c in (self.chunks if chunks is None else chunks)]
        head = self.header.rstrip("\n")
        tail = self.trailer.strip("\n")
        text = "\n\n".join(p for p in ([head] if head else []) + parts + ([tail] if tail else []))
        return text + "\n"


def key_of(item: ast.Node) -> Key:
    if isinstance(item, ast.Rule):
        return ("block", item.slug)
    if type(item) in DECLARATIONS:
        return (DECLARATIONS[type(item)][0], item.name)
    if isinstance(item, ast.Version):
        return ("manifest", item.id)
    if isinstance(item, ast.Amend):
        return ("amend", item.block)
    return (type(item).__name__.lower(), str(getattr(item, "name", "")))


def read_rule_file(path: Path) -> RuleFile:
    """The file's items, each with the comment lines directly above it (no blank line between)."""
    text = path.read_text(encoding="utf-8").lstrip("\ufeff")
    module = parse_file(path)
    lines = text.splitlines()
    chunks = []
    starts = []
    last_end = 0  # (lines are counted from 1; the last line of the item before)
    for item in module.items:
        start = item.span.line
        while start - 1 > last_end and lines[start - 2].lstrip().startswith("#"):
            start -= 1
        starts.append(start)
        chunks.append(Chunk(key_of(item), "\n".join(lines[start - 1:item.span.end_line])))
        last_end = item.span.end_line
    header = "\n".join(lines[:starts[0] - 1]) if starts else text
    trailer = "\n".join(lines[last_end:]) if starts else ""
    return RuleFile(path.name, header, tuple(chunks), trailer)


def items_of(book: Rulebook) -> dict[Key, ast.Node]:
    """Every block (by slug) and declaration (by kind and name) of a resolved rulebook."""
    found: dict[Key, ast.Node] = {("block", r.slug): r for r in book.rules}
    for kind, table in DECLARATIONS.values():
        found.update({(kind, name): decl for name, decl in getattr(book, table).items()})
    return found


def printed(node: ast.Node) -> str:
    return "\n".join(item_lines(node))


# ------------------------------------------------------------------ the plan


@attrs.frozen
class Fold:
    """What folding `version` into the rules means: the files of its complete folder, those of
    `base`'s folder of differences (by name), and `base`'s files that go."""

    version: str
    base: str
    origin: Path  # the user's folder the release was read from
    new_files: dict[str, str]
    base_files: dict[str, str]
    removed: tuple[str, ...]
    base_read: dict[str, bytes]  # the base's files as they were read: a file changed since is not written over


def _error(message: str, span: Span | None = None, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message, span or Span("phasing fold", 0, 0, 0, 0), hint))


def plan_fold(spec: str) -> Fold:
    """How `spec`, a version on the rules path extending the newest shipped version, folds into
    the shipped rules (a DiagnosticError saying why when it cannot)."""
    found = next((s for s in sources() if s.name == spec), None)
    newest = newest_shipped()
    if found is None or found.kind != "version" or not VERSION_RE.match(spec):
        raise _error(f"no version '{spec}' on the rules path", hint=(
            "write the new release as a folder DATE/ (with version.rules) in a folder of the rules path "
            f"(--rules-path or PHASING_RULES_PATH), extending {newest}"))
    if any(s.name == spec for s in shipped_sources()):
        raise _error(f"'{spec}' is a shipped version: there is nothing to fold",
                     hint=f"fold a new release of your own, a folder on the rules path extending {newest}")
    book = load_version(spec)
    manifest = book.version
    where = Span(str(found.path / VERSION_FILE), 1, 1, 1, 1)
    if manifest.extends != newest:
        raise _error(f"{spec} extends {manifest.extends or 'nothing'}, not the newest shipped version {newest}",
                     manifest.extends_clause.span if manifest.extends_clause else where,
                     f"a release folds over the newest version: write 'extends {newest}' (a version that stands "
                     "alone, or one older than the newest, is not a new release)")
    if spec <= newest:
        raise _error(f"{spec} is not dated after {newest}, the newest shipped version", where,
                     "a new release is dated after the newest one: name its folder by the date it takes effect")
    base_source = next(s for s in sources() if s.name == newest)
    if base_source.origin is not None:
        raise _error(f"{newest} on the rules path ({base_source.path}) hides the shipped {newest}", where,
                     "take that folder off the rules path: the release folds over the shipped version")
    base = load_version(newest)
    own = [read_rule_file(p) for p in files_of(spec)]
    shipped = [read_rule_file(p) for p in files_of(newest)]
    new_files = _complete(spec, book, base, own, shipped)
    base_files, removed = _differences(spec, book, base, shipped)
    read = {p.name: p.read_bytes() for p in files_of(newest)}
    return Fold(spec, newest, found.path, new_files, base_files, removed, read)


def _complete(spec: str, book: Rulebook, base: Rulebook, own: list[RuleFile],
              shipped: list[RuleFile]) -> dict[str, str]:
    """The files of the release as a complete version."""
    mine = {c.key: c for f in own for c in f.chunks}
    now, before = items_of(book), items_of(base)
    own_manifest = next(c for c in mine.values() if c.key[0] == "manifest")
    manifest_node = next(i for f in files_of(spec) for i in parse_file(f).items if isinstance(i, ast.Version))
    complete = attrs.evolve(manifest_node, extends_clause=None, renumbers=(), drops=(), sections=book.version.sections)
    rows = own_manifest.text.splitlines()
    comments = rows[:next(n for n, row in enumerate(rows) if row.lstrip().startswith("version "))]
    manifest = Chunk(own_manifest.key, "\n".join(comments + [printed(complete)]))
    own_version_file = next((f for f in own if f.name == VERSION_FILE), None)
    placed: set[Key] = set()
    files: dict[str, str] = {}
    for f in shipped:
        chunks = []
        for c in f.chunks:
            if c.key[0] == "manifest":
                chunks.append(manifest)
                continue
            node = now.get(c.key)
            if node is None:  # (the release dropped it)
                continue
            placed.add(c.key)
            if c.key in mine:  # restated by the release: as it wrote it
                chunks.append(mine[c.key])
            elif node == before.get(c.key):
                chunks.append(c)
            else:  # amended or renumbered: as it now reads
                chunks.append(Chunk(c.key, printed(node)))
        header = own_version_file.header if f.name == VERSION_FILE and own_version_file else f.header
        files[f.name] = attrs.evolve(f, header=header).render(chunks)
    for f in own:  # what the release adds, in the files it wrote it in
        extra = [c for c in f.chunks if c.key in now and c.key not in placed and c.key[0] != "manifest"]
        placed.update(c.key for c in extra)
        if not extra:
            continue
        if f.name in files:
            files[f.name] = files[f.name].rstrip("\n") + "\n\n" + "\n\n".join(c.text for c in extra) + "\n"
        else:
            files[f.name] = f.render(extra)
    return files


def _differences(spec: str, book: Rulebook, base: Rulebook, shipped: list[RuleFile]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The files of the base version as the changes that lead from the release back to it, and
    the base's files that have nothing left to say."""
    now, before = items_of(book), items_of(base)
    back = tuple(ast.Renumber(r.new, r.old) for r in reversed(book.version.renumbers))
    added = [key for key in now if key not in before]
    for kind, name in added:
        if kind == "zone":
            decl = now[(kind, name)]
            raise _error(f"{spec} declares zone '{name}', which {base.version.id} does not have: a version cannot "
                         "drop a zone, so the older one cannot be stored as the changes back from it", decl.span,
                         f"declare the zone in {base.version.id} too, or leave it out of {spec}")
    lines = [f"  extends {spec}"] + [f"  renumber {r.old} as {r.new}" for r in back] + [
        f"  drop {name}" for _kind, name in added]

    def inherited(key: Key) -> ast.Node | None:
        node = now.get(key)
        if node is None or not back:
            return node
        if isinstance(node, ast.Rule):
            return renumber_rule(node, back)
        return attrs.evolve(node, cites=tuple(renumbered(c, back) for c in node.cites))

    files: dict[str, str] = {}
    removed: list[str] = []
    for f in shipped:
        chunks = []
        for c in f.chunks:
            if c.key[0] == "manifest":
                chunks.append(Chunk(c.key, _with_lines(c.text, lines)))
            elif before.get(c.key) is not None and inherited(c.key) != before[c.key]:
                chunks.append(c)  # changed or taken away by the release: restated as it was
        if chunks:
            files[f.name] = f.render(chunks)
        else:
            removed.append(f.name)
    return files, tuple(removed)


def _with_lines(manifest: str, lines: list[str]) -> str:
    """The manifest's text with `lines` after its title (or after its first line)."""
    rows = manifest.splitlines()
    opening = next(n for n, row in enumerate(rows) if row.lstrip().startswith("version "))
    at = next((n + 1 for n, row in enumerate(rows) if n > opening and row.lstrip().startswith("title ")), opening + 1)
    return "\n".join(rows[:at] + lines + rows[at:])


# ------------------------------------------------------------------ the proof


@attrs.frozen
class Proof:
    versions: tuple[str, ...]
    runs: int


def _same_rulebook(a: Rulebook, b: Rulebook) -> list[str]:
    """How two rulebooks of one name differ in what they mean (empty: they do not)."""
    found = []
    if a.version.title != b.version.title:
        found.append("its title")
    if a.version.sections != b.version.sections:
        found.append("its sections")
    if a.version.notes != b.version.notes:
        found.append("its notes")
    if a.version.reconstructed != b.version.reconstructed:
        found.append("what it says was reconstructed")
    mine, theirs = items_of(a), items_of(b)
    for key in sorted(mine.keys() | theirs.keys()):
        if mine.get(key) != theirs.get(key):
            found.append(f"{key[0]} {key[1]}")
    if a.cards != b.cards:
        found.append("its cards")
    return found


def _result(o: Outcome) -> tuple:
    """What a run must end with before and after: its expectations, its failures, the final
    state, and every event with its cause (the block, not the file that wrote the block: a
    clause an `amend` wrote is, once folded, written in the release's own files)."""
    return (o.passed, o.expectations, tuple(f.message for f in o.failures), o.final, o.trace)


def stage(fold: Fold, folder: Path) -> None:
    """Every shipped version folder, as the fold leaves it, in `folder` (which exists)."""
    _copy_shipped(folder, durable=False)
    _put(fold, folder, durable=False)


def _copy_shipped(folder: Path, durable: bool) -> int:
    """Every shipped version folder's rule files copied into `folder`; how many folders."""
    copied = 0
    for source in shipped_sources():
        if source.kind == "version":
            (folder / source.name).mkdir()
            for path in sorted(source.path.glob("*.rules")):
                atomic.write_file(folder / source.name / path.name, path.read_bytes(), replace=False, durable=durable)
            copied += 1
    return copied


def _put(fold: Fold, root: Path, durable: bool) -> list[Path]:
    """The fold made in the rules folder `root`, which holds the base as it was read: the
    release's folder written, the base's files replaced (only if still as read) or removed.
    The files removed."""
    (root / fold.version).mkdir()
    for name, text in fold.new_files.items():
        atomic.write_file(root / fold.version / name, text.encode("utf-8"), replace=False, durable=durable)
    for name, text in fold.base_files.items():
        atomic.write_file(root / fold.base / name, text.encode("utf-8"), replace=True, expected=fold.base_read[name],
                          durable=durable)
    removed = [root / fold.base / name for name in fold.removed]
    for path in removed:
        atomic.remove_file(path, expected=fold.base_read[path.name], durable=durable)
    return removed


def prove(fold: Fold, suite: list[Path], budget: Budget | None = None,
          progress: Callable[..., None] | None = None) -> Proof:
    """Stage the fold and show that no version means or does anything else after it: each
    shipped version, the release and each shipped variant resolve to the same rulebook, and
    the runs `test --rules NAME` makes end the same. A DiagnosticError lists what differs."""
    shipped = shipped_sources()
    names = ([fold.version, fold.base] + [s.name for s in shipped if s.kind == "version" and s.name != fold.base]
             + [s.name for s in shipped if s.kind == "variant"])  # (the two the fold rewrites first)
    cases, problems = collect(suite)
    if problems:
        raise DiagnosticError(problems)
    before = {name: load_version(name) for name in names}
    runs = [run for name in names for run in runs_under(cases, name)]
    total = 2 * len(runs)
    done = 0

    def play(books: dict[str, Rulebook]) -> list[tuple]:
        nonlocal done
        results = []
        for run in runs:
            if progress is not None:
                progress(done, total, f"{run.spec}: {run.case.scenario.name}")
            book = books[run.spec]
            results.append(_result(run_case(run.case, book, budget, None if run.judge == book.version.id else run.judge)))
            done += 1
        return results

    was = play(before)
    previous = rules_path()
    with tempfile.TemporaryDirectory(prefix="phasing-fold-") as tmp:
        stage(fold, Path(tmp))
        set_rules_path((tmp,) + tuple(str(p) for p in previous if p != fold.origin.parent.resolve()))
        try:
            after = {}
            for name in names:
                try:
                    after[name] = load_version(name)
                except DiagnosticError as exc:
                    first = exc.diagnostics[0]
                    where = Path(first.span.path)
                    shown = (where.relative_to(tmp) if where.is_relative_to(tmp) else where)
                    raise _error(f"folding {fold.version} would leave {name} not loading: {shown}:{first.span.line}: "
                                 f"{first.message}", hint="this is a bug in fold: please report it with your "
                                 "release's folder") from None
            differ = [f"{name}: {', '.join(found)}" for name in names
                      if (found := _same_rulebook(before[name], after[name]))]
            if differ:
                raise _error(f"folding {fold.version} would change what {len(differ)} version(s) mean: "
                             + "; ".join(differ), hint="this is a bug in fold: please report it with your release's folder")
            now = play(after)
        finally:
            set_rules_path(previous)
    changed = [run for run, a, b in zip(runs, was, now) if a != b]
    if changed:
        listed = "; ".join(f"\"{r.case.scenario.name}\" under {r.spec}" for r in changed[:5])
        raise _error(f"folding {fold.version} would change {len(changed)} run(s) of the suite: {listed}",
                     hint="this is a bug in fold: please report it with your release's folder")
    if progress is not None:
        progress(total, total, "")
    return Proof(tuple(names), len(runs))


# ------------------------------------------------------------------ writing


def checkout_rules() -> Path | None:
    """The shipped rules folder when it is a checkout's (an editable install), else None."""
    return RULES_ROOT if (RULES_ROOT.parent / "pyproject.toml").is_file() else None


def target_root(fold: Fold, into: Path | None) -> Path:
    """The rules folder the fold writes into, or a DiagnosticError saying why it cannot (asked
    before the proof, and again as it writes)."""
    if into is None:
        root = checkout_rules()
        if root is None:
            raise _error("the shipped rules are installed, not in a checkout: fold writes into a checkout's rules/",
                         hint="give --into DIR to write the folded rules into a folder of your own")
    else:
        root = into
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise _error(f"{root} exists and is not an empty folder", hint="give --into a new folder")
    if (root / fold.version).exists():
        raise _error(f"{root / fold.version} exists",
                     hint=f"a version {fold.version} is already there: remove it, or fold elsewhere")
    return root


def write(fold: Fold, into: Path | None) -> list[str]:
    """Write the fold into the shipped rules of a checkout (`into` None), or into `into`, a new
    folder that then holds every version folder as the checkout's rules/ would after the fold
    (to try it: put it on the rules path). What was done, a line each. Every file is written
    (and removed) through the one safe routine; the base's files are replaced only if they
    still hold what was read."""
    root = target_root(fold, into)
    done: list[str] = []
    if into is None:  # (every file of the base as it was read, before anything is written)
        for name in [*fold.base_files, *fold.removed]:
            path = root / fold.base / name
            try:
                same = path.read_bytes() == fold.base_read[name]
            except OSError:
                same = False
            if not same:
                raise _error(f"cannot write {path}: it changed since it was read", Span(str(path), 0, 0, 0, 0),
                             "run the command again on the files as they are now (nothing was written)")
    else:
        root.mkdir(parents=True, exist_ok=True)
        done.append(f"copied the other {_copy_shipped(root, durable=True) - 1} version folders as they are")
    removed = _put(fold, root, durable=True)
    done += [f"wrote {root / fold.version / name}" for name in fold.new_files]
    done += [f"wrote {root / fold.base / name} ({fold.base} as the changes back from {fold.version})"
             for name in fold.base_files]
    inherits = f"({fold.base} inherits all of it from {fold.version})"
    done += [f"removed {path} {inherits}" if into is None else f"left out {fold.base}/{path.name} {inherits}"
             for path in removed]
    return done


def shadowing_note(fold: Fold, into: Path | None) -> str:
    """What to do next about the release's own folder, which still defines it."""
    if into is not None:
        return (f"note: {into} holds every version folder as rules/ would after the fold; to use them, put it on "
                f"the rules path in place of {fold.origin.parent} (whose {fold.version} folder still defines "
                f"{fold.version})")
    return (f"note: {fold.origin} still defines {fold.version} and, on the rules path, is found before the "
            f"folded one: take its folder off the rules path (or delete it) to use the folded rules")


def suite_paths(paths: list[str]) -> list[Path]:
    """The scenarios a proof runs: those given, else the conformance suite."""
    from ..api import default_suite

    return [Path(p) for p in paths] if paths else [default_suite()]

