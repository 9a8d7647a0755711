"""The parse cache (dsl/cache.py) and its codec (dsl/codec.py): whatever is planted in the
cache folder runs no code and never changes a parse result; an unsafe folder is not used;
the key covers everything a parse depends on; the folder stays bounded; a cached tree equals
the parsed one, spans included."""

from __future__ import annotations

import json
import os
import pickle
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasing_rules.dsl import ast as A
from phasing_rules.dsl import cache, codec
from phasing_rules.dsl.diagnostics import Span
from phasing_rules.dsl.parser import parse, parse_file

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules").rglob("*.rules")) + sorted((ROOT / "tests" / "scenarios").glob("*.scenario"))
SOURCE = 'rule 702.26a some-slug "summary" {\n  hide p where p.phase is out and not (p.x + 1 > 2)\n}\n'


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A fresh private cache folder for one test, and a fresh once-per-process warning."""
    where = tmp_path / "cache"
    monkeypatch.setenv("PHASING_CACHE_DIR", str(where))
    monkeypatch.setattr(cache, "_warned", False)
    return where


def spans(module: A.Node) -> list[tuple[str, Span]]:
    return [(type(n).__name__, n.span) for n in module.walk()]


def write_rules(tmp_path: Path, text: str = SOURCE) -> Path:
    path = tmp_path / "r.rules"
    path.write_text(text, encoding="utf-8")
    return path


class _Planted:
    """Unpickling this would create the marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def plants(marker: Path) -> dict[str, bytes]:
    outside = {"format": codec.FORMAT, "paths": ["x"], "nodes": [["Path", [0, 1, 1, 1, 1], str(marker)]], "root": 0}
    dunder = {"format": codec.FORMAT, "paths": ["x"], "nodes": [["__class__", [0, 1, 1, 1, 1]]], "root": 0}
    return {
        "pickle": pickle.dumps(_Planted(marker)),
        "random bytes": bytes(range(256)) * 4,
        "JSON of the wrong shape": json.dumps({"items": [1, 2, 3]}).encode(),
        "JSON naming a class outside the allow-list": json.dumps(outside).encode(),
        "JSON naming a dunder": json.dumps(dunder).encode(),
        "JSON with a cycle": json.dumps({"format": codec.FORMAT, "paths": ["x"],
                                         "nodes": [["Module", [0, 1, 1, 1, 1], [0]]], "root": 0}).encode(),
        "deeply nested JSON": b"[" * 100_000 + b"]" * 100_000,
    }


@pytest.mark.parametrize("kind", list(plants(Path("m"))))
def test_a_planted_entry_runs_no_code_and_the_file_still_parses_right(folder, tmp_path, kind):
    marker = tmp_path / "marker"
    path = write_rules(tmp_path)
    folder.mkdir(mode=0o700)
    entry = folder / (cache.key(str(path), SOURCE) + cache.SUFFIX)
    entry.write_bytes(plants(marker)[kind])

    module = parse_file(path)

    assert not marker.exists(), "loading the planted entry ran code"
    assert module == parse(SOURCE, str(path))
    assert spans(module) == spans(parse(SOURCE, str(path)))
    # the planted entry was replaced by a good one, which now loads
    assert cache.load(str(path), SOURCE) == module


def test_a_tree_naming_another_file_is_a_miss(folder, tmp_path):
    path = write_rules(tmp_path)
    folder.mkdir(mode=0o700)
    other = codec.encode(parse(SOURCE, "elsewhere.rules"))
    (folder / (cache.key(str(path), SOURCE) + cache.SUFFIX)).write_text(other)
    assert cache.load(str(path), SOURCE) is None
    assert spans(parse_file(path))[0][1].path == str(path)


def test_nothing_in_the_project_unpickles():
    needle = "pickle" + ".load"  # spelled apart so this file does not match itself
    offenders = []
    for source in ROOT.rglob("*.py"):
        if ".venv" in source.parts or "build" in source.parts:
            continue
        if needle in source.read_text(encoding="utf-8", errors="replace"):
            offenders.append(str(source.relative_to(ROOT)))
    assert offenders == []


def test_the_folder_is_created_private_and_entries_are_owner_only(folder, tmp_path):
    path = write_rules(tmp_path)
    parse_file(path)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    entries = list(folder.iterdir())
    assert len(entries) == 1 and entries[0].suffix == ".json"
    assert stat.S_IMODE(os.stat(entries[0]).st_mode) == 0o600


def test_a_folder_owned_by_another_user_is_not_used_and_the_warning_is_printed_once(folder, tmp_path, monkeypatch, capsys):
    folder.mkdir(mode=0o700)
    real_uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)
    path = write_rules(tmp_path)
    first, second = parse_file(path), parse_file(path)
    assert first == second == parse(SOURCE, str(path))
    assert list(folder.iterdir()) == []
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert str(folder) in lines[0] and "another user" in lines[0]


def test_a_folder_writable_by_others_is_not_used_and_the_warning_is_printed_once(folder, tmp_path, capsys):
    folder.mkdir()
    os.chmod(folder, 0o777)
    path = write_rules(tmp_path)
    parse_file(path)
    parse_file(path)
    assert list(folder.iterdir()) == []
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert str(folder) in lines[0] and "written by other users" in lines[0]


def test_a_private_folder_prints_nothing(folder, tmp_path, capsys):
    path = write_rules(tmp_path)
    parse_file(path)
    parse_file(path)
    assert capsys.readouterr().err == ""


def test_eviction_keeps_the_folder_under_the_bound_and_drops_the_oldest_first(folder):
    folder.mkdir(mode=0o700)
    for i in range(10):
        entry = folder / f"{i:064x}.json"
        entry.write_bytes(b"x" * 1000)
        os.utime(entry, (1_000_000 + i, 1_000_000 + i))
    cache.evict(folder, limit=4500)
    left = sorted(p.name for p in folder.iterdir())
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 4500
    assert left == [f"{i:064x}.json" for i in range(6, 10)]


def test_eviction_never_touches_files_the_cache_did_not_write(folder):
    """PHASING_CACHE_DIR may name a folder holding other files: none of them is removed."""
    folder.mkdir(mode=0o700)
    mine = [folder / "notes.json", folder / "data.pickle", folder / ".tmp-x.txt", folder / ("A" * 64 + ".json")]
    for path in mine:
        path.write_bytes(b"y" * 2000)
        os.utime(path, (1_000_000, 1_000_000))
    cache.evict(folder, limit=0)
    assert all(path.exists() for path in mine)


def test_storing_evicts_beyond_the_folder_bound(folder, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "MAX_FOLDER_BYTES", 3000)
    for i in range(8):
        path = tmp_path / f"r{i}.rules"
        text = SOURCE.replace("summary", f"summary {i}")
        path.write_text(text)
        parse_file(path)
        assert sum(p.stat().st_size for p in folder.iterdir()) <= 3000


def test_an_entry_too_large_is_not_stored_and_leaves_no_temporary_file(folder, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", 100)
    path = write_rules(tmp_path)
    assert parse_file(path) == parse(SOURCE, str(path))
    assert list(folder.iterdir()) == []


def test_a_failed_write_leaves_no_temporary_file(folder, tmp_path, monkeypatch):
    def refuse(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    path = write_rules(tmp_path)
    assert parse_file(path) == parse(SOURCE, str(path))
    assert list(folder.iterdir()) == []


def test_a_temporary_file_left_by_a_crashed_writer_is_cleaned_up(folder):
    folder.mkdir(mode=0o700)
    left = folder / ".tmp-crashed.json"
    left.write_bytes(b"{")
    os.utime(left, (1_000_000, 1_000_000))
    cache.evict(folder)
    assert not left.exists()


def test_entries_in_the_old_pickle_format_are_removed_unread(folder, tmp_path):
    marker = tmp_path / "marker"
    folder.mkdir(mode=0o700)
    old = folder / (cache.key("a.rules", SOURCE) + ".pickle")
    old.write_bytes(pickle.dumps(_Planted(marker)))
    cache.evict(folder)
    assert not old.exists()
    assert not marker.exists()


def test_the_key_changes_with_the_package_version(monkeypatch):
    cache._fingerprint.cache_clear()  # the sources as they are on disk now
    before = cache.key("a.rules", SOURCE)
    monkeypatch.setattr(cache, "package_version", lambda: "999.0")
    cache._fingerprint.cache_clear()
    try:
        assert cache.key("a.rules", SOURCE) != before
    finally:
        monkeypatch.undo()
        cache._fingerprint.cache_clear()
    assert cache.key("a.rules", SOURCE) == before


@pytest.mark.parametrize("source", ["parser.py", "ast.py", "codec.py", "grammar.lark"])
def test_the_key_changes_with_the_parsing_sources(tmp_path, monkeypatch, source):
    cache._fingerprint.cache_clear()  # the sources as they are on disk now
    before = cache.key("a.rules", SOURCE)
    copy = tmp_path / "dsl"
    copy.mkdir()
    for name in cache._KEYED_SOURCES:
        (copy / name).write_bytes((cache._HERE / name).read_bytes())
    (copy / source).write_bytes((copy / source).read_bytes() + b"\n# changed\n")
    monkeypatch.setattr(cache, "_HERE", copy)
    cache._fingerprint.cache_clear()
    try:
        assert cache.key("a.rules", SOURCE) != before
    finally:
        monkeypatch.undo()
        cache._fingerprint.cache_clear()


def test_the_package_version_is_the_one_importlib_metadata_reports():
    from importlib import metadata

    try:
        expected = metadata.version("phasing-rules")
    except metadata.PackageNotFoundError:
        expected = "dev"
    assert cache.package_version() == expected


def test_the_key_changes_with_the_path_and_the_text():
    assert len({cache.key("a.rules", "x"), cache.key("b.rules", "x"), cache.key("a.rules", "y"),
                cache.key("a.rulesx", ""), cache.key("a.rules", "xx")}) == 5


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_file_round_trips_through_the_cache(folder, path):
    parsed = parse(path.read_text(encoding="utf-8"), str(path))
    assert parse_file(path) == parsed  # parsed and stored
    cached = cache.load(str(path), path.read_text(encoding="utf-8"))
    assert cached is not None, "the entry just stored did not load"
    assert cached == parsed
    assert spans(cached) == spans(parsed)


TURN_AND_COMBAT = """\
turn cites 500.1 {
  beginning phase: untap step, upkeep step, draw step
  precombat main phase
  combat phase: declare attackers step, declare blockers step, combat damage step
  no priority: untap step
  priority only after triggers: draw step
}

rule 508.8 no-attackers "No attackers, no blockers." {
  clause c: skip declare blockers step of P where count(x where x.attacking) < 1
  forbid attack by a where a.tapped
  forbid block of a by b where a has flying and not b has flying
  during combat damage step of P: deal combat damage
}

card "Wall" {
  forbid attack by a where a is this
}

scenario "combat" {
  players Alice Bob
  script {
    next turn skipping untap step
    to precombat main phase
    hold attack with a at Bob, b
    hold declare blockers: w blocks a, x blocks b
  }
}
"""


def test_the_turn_and_combat_round_trip_through_the_cache(folder, tmp_path):
    """500.1 (the turn's declaration), 508.8 (a step skipped), 508.1c and 509.1b (restrictions),
    510.1 (combat damage) and the script's steps of combat (508.1b: what each attacker attacks,
    509.1a: each blocker with the attacker it blocks): stored and loaded, the same tree, spans
    included."""
    path = write_rules(tmp_path, TURN_AND_COMBAT)
    parsed = parse(TURN_AND_COMBAT, str(path))
    assert parse_file(path) == parsed
    cached = cache.load(str(path), TURN_AND_COMBAT)
    assert cached is not None and cached == parsed and spans(cached) == spans(parsed)
    kinds = {type(n).__name__ for n in cached.walk()}
    assert {"TurnStructure", "TurnPhase", "SkipStep", "ForbidAttack", "ForbidBlock", "CombatDamage", "NextTurn", "ToStep",
            "AttackStep", "BlockStep"} <= kinds


@pytest.mark.parametrize("kind, position, value", [
    ("BlockStep", 2, [["w", 5]]),  # (a blocker named by a number)
    ("BlockStep", 2, [["w", "a", "b"]]),  # (a pair of three)
    ("AttackStep", 4, [5, None]),  # (what an attacker attacks named by a number)
    ("NextTurn", 2, "untap step"),  # (the steps skipped as one string)
    ("TurnPhase", 3, [None]),  # (a step of no name)
])
def test_a_damaged_entry_of_the_turn_or_combat_is_rejected(kind, position, value):
    """The codec holds each field to its declared type, the nested ones of the script's combat
    steps and the turn's declaration too: a damaged entry is a CodecError, never a tree with a
    number where a name goes."""
    document = json.loads(codec.encode(parse(TURN_AND_COMBAT, "t.rules")))
    record = next(r for r in document["nodes"] if r[0] == kind)
    record[position] = value
    with pytest.raises(codec.CodecError):
        codec.decode(json.dumps(document))


# ------------------------------------------------------------------ the codec on generated trees

def _spans():
    return st.builds(Span, st.sampled_from(["a.rules", "b.scenario"]), st.integers(0, 10**6),
                     st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))


def _with_span(strategy):
    return st.tuples(strategy, _spans()).map(lambda pair: attrs_evolve_span(*pair))


def attrs_evolve_span(node, span):
    import attrs

    return attrs.evolve(node, span=span)


TEXT = st.text(max_size=8)
EXPRS = st.recursive(
    _with_span(st.builds(A.Name, TEXT) | st.builds(A.Number, st.integers(-10**30, 10**30)) | st.builds(A.String, TEXT)),
    lambda inner: _with_span(
        st.builds(A.Not, inner) | st.builds(A.Add, inner, inner) | st.builds(A.Attr, inner, TEXT)
        | st.builds(A.And, st.lists(inner, max_size=3).map(tuple)) | st.builds(A.Is, inner, inner, st.booleans())
        | st.builds(A.Compare, st.sampled_from(["<", ">="]), inner, inner) | st.builds(A.Count, TEXT, inner)
    ),
    max_leaves=30,
)
STMTS = st.recursive(
    _with_span(st.builds(A.Tap, EXPRS) | st.builds(A.Pump, EXPRS, st.integers(-5, 5), st.integers(-5, 5),
                                                   st.none() | st.builds(A.UntilEndOfTurn))),
    lambda inner: _with_span(st.builds(A.Block, st.lists(inner, max_size=3).map(tuple))
                             | st.builds(A.If, EXPRS, inner) | st.builds(A.Each, TEXT, EXPRS, inner, st.booleans())),
    max_leaves=10,
)
MODULES = st.builds(
    A.Module,
    st.lists(st.builds(A.Rule, TEXT, TEXT, TEXT, st.lists(st.builds(A.During, st.builds(A.Hook, TEXT, st.none() | TEXT),
                                                                     STMTS), max_size=3).map(tuple))
             | st.builds(A.Version, TEXT, st.none() | TEXT, st.none() | _with_span(st.builds(A.Extends, TEXT)), st.just(()), st.just(()),
                         st.lists(_with_span(st.builds(A.Renumber, TEXT, TEXT)), max_size=2).map(tuple),
                         st.lists(_with_span(st.builds(A.Drop, TEXT)), max_size=2).map(tuple)),
             max_size=3).map(tuple),
)


@settings(max_examples=150, deadline=None)
@given(MODULES)
def test_the_codec_round_trips_generated_trees_with_their_spans(module):
    again = codec.decode(codec.encode(module))
    assert again == module
    assert spans(again) == spans(module)


@settings(max_examples=150, deadline=None)
@given(MODULES, st.data())
def test_a_damaged_entry_is_rejected_or_decodes_to_a_well_typed_tree(module, data):
    """Flip one value in the stored data: decoding raises CodecError or gives a tree of nodes
    whose every field has its declared type (no other exception, nothing else built)."""
    document = json.loads(codec.encode(module))
    records = document["nodes"]
    record = records[data.draw(st.integers(0, len(records) - 1))]
    position = data.draw(st.integers(0, len(record) - 1))
    record[position] = data.draw(st.none() | st.integers(-3, 3) | st.text(max_size=3) | st.booleans()
                                 | st.just([]) | st.just(["Name"]) | st.just({"a": 1}))
    try:
        decoded = codec.decode(json.dumps(document))
    except codec.CodecError:
        return
    for node in decoded.walk():
        assert type(node).__module__ == "phasing_rules.dsl.ast"
        assert type(node.span) is Span


def test_a_stored_tree_taller_than_the_parser_allows_is_rejected():
    """The cache never hands later (recursive) stages a tree deeper than `parse` could make."""
    expr = A.Name("a")
    for _ in range(codec.MAX_TREE_DEPTH + 5):
        expr = A.Not(expr)
    tall = A.Module((A.Rule("702.26a", "s", "x", (A.Hide("p", expr),)),))
    with pytest.raises(codec.CodecError, match="deeper"):
        codec.decode(codec.encode(tall))


def test_the_tallest_trees_the_parser_accepts_fit_under_the_codec_bound():
    from phasing_rules.dsl.limits import MAX_BLOCK_DEPTH, MAX_EXPRESSION_DEPTH

    nots = "not " * (MAX_EXPRESSION_DEPTH - 1) + "a"
    blocks = "each x where a: { " * (MAX_BLOCK_DEPTH - 1)
    text = (f'card "C" {{\n  when p.x becomes 1 and {nots}: {blocks} p gets +1/+1 for as long as {nots}'
            + " }" * (MAX_BLOCK_DEPTH - 1) + "\n}\n")
    module = parse(text, "tall.rules")
    assert codec.decode(codec.encode(module)) == module


def test_a_fifo_planted_as_an_entry_is_a_miss_and_does_not_block(folder, tmp_path):
    """A FIFO under an entry's name made every command hang in `open`; it is now opened without
    waiting, found not to be a regular file, and parsed past. Run in a child process with a
    timeout, so that a hang fails the test instead of stopping the suite."""
    import subprocess
    import sys
    path = write_rules(tmp_path)
    folder.mkdir(mode=0o700)
    entry = folder / (cache.key(str(path), SOURCE) + cache.SUFFIX)
    os.mkfifo(entry)
    probe = ("import sys; from phasing_rules.dsl import cache; from phasing_rules.dsl.parser import parse_file\n"
             "assert cache.load(sys.argv[1], open(sys.argv[1]).read()) is None\n"
             "parse_file(sys.argv[1]); print('parsed')\n")
    done = subprocess.run([sys.executable, "-c", probe, str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PHASING_CACHE_DIR": str(folder)})
    assert (done.returncode, done.stdout.strip()) == (0, "parsed"), done.stderr
    assert stat.S_ISREG(os.lstat(entry).st_mode)  # the FIFO was replaced by a real entry


def test_an_entry_that_is_a_symbolic_link_is_a_miss(folder, tmp_path):
    """The cache writes only regular files; a symbolic link under an entry's name, even to a
    good entry, is not followed."""
    path = write_rules(tmp_path)
    folder.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(codec.encode(parse(SOURCE, str(path))))
    entry = folder / (cache.key(str(path), SOURCE) + cache.SUFFIX)
    entry.symlink_to(elsewhere)
    assert cache.load(str(path), SOURCE) is None
    assert parse_file(path) == parse(SOURCE, str(path))


@pytest.mark.parametrize("below", [False, True])
def test_a_cache_folder_that_is_a_file_is_not_used_and_says_so_once(folder, tmp_path, capsys, below, monkeypatch):
    """`PHASING_CACHE_DIR` naming a file (or a folder under a file) was passed over silently:
    mkdir's FileExistsError was taken for a read-only home. It now gets the notice every other
    unusable folder gets, once, and the file is left as it was."""
    folder.write_text("hi\n")
    where = folder / "sub" if below else folder
    monkeypatch.setenv("PHASING_CACHE_DIR", str(where))
    path = write_rules(tmp_path)
    assert parse_file(path) == parse_file(path) == parse(SOURCE, str(path))
    assert folder.read_text() == "hi\n"
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"phasing: running without the parse cache: {where} is not a folder"
                     + (" (a part of its path is a file)" if below else "")]


@pytest.mark.parametrize("below", [False, True])
def test_a_cache_folder_that_is_a_dangling_link_is_not_used_and_says_so_once(folder, tmp_path, capsys, below, monkeypatch):
    """issue 43: `PHASING_CACHE_DIR` naming a symbolic link to nothing (or a folder under one)
    turned the cache off without a word (mkdir takes the link for something there; stat finds
    nothing behind it). It now says once, on stderr as every other unusable folder does, that
    the cache is off and why, naming the path and where the link leads; nothing is created
    at the link's target."""
    target = tmp_path / "gone"
    folder.symlink_to(target)
    where = folder / "sub" if below else folder
    monkeypatch.setenv("PHASING_CACHE_DIR", str(where))
    path = write_rules(tmp_path)
    assert parse_file(path) == parse_file(path) == parse(SOURCE, str(path))
    assert not os.path.lexists(target) and folder.is_symlink()
    what = f"{where} is" if not below else f"{where} lies below {folder},"
    assert capsys.readouterr().err.splitlines() == [
        f"phasing: running without the parse cache: {what} a symbolic link to {target}, which does not exist; "
        "point PHASING_CACHE_DIR at a folder only you can write"]


def test_a_rule_file_edited_while_a_program_runs_is_read_again(tmp_path):
    """A rulebook is loaded once per process, but not kept past an edit of a file it was read
    from: a variant that drops a block no version has (an error at the drop) is reported once
    the file says so, though the same path loaded clean a moment before, and a later edit is
    read again too. (The loaded rulebook was kept for the path alone, so an editor or a
    long-running program saw the old file.)"""
    import time

    from phasing_rules.dsl.diagnostics import DiagnosticError
    from phasing_rules.interpreter.rulebook.loading import load_version

    variant = tmp_path / "mine.rules"
    variant.write_text("variant mine {\n  extends 2026-09-25\n}\n")
    first = load_version(str(variant))
    assert load_version(str(variant)) is first  # (unchanged: the same rulebook, not read again)
    time.sleep(0.01)
    variant.write_text("variant mine {\n  extends 2026-09-25\n  drop no-such-block\n}\n")
    with pytest.raises(DiagnosticError, match="'no-such-block' is not a block"):
        load_version(str(variant))
    time.sleep(0.01)
    variant.write_text("variant mine {\n  extends 2026-09-25\n  drop combat-ends\n}\n")
    assert load_version(str(variant)).rule("511.3") is None and first.rule("511.3") is not None


def scans_of(folder: Path, monkeypatch) -> list:
    """Record each listing of `folder` (`os.scandir`), the work that grows with the folder."""
    listed = []
    scandir = os.scandir

    def counted(path="."):
        if Path(path) == folder:
            listed.append(path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    return listed


def store_entries(tmp_path: Path, first: int, count: int) -> None:
    module = parse(SOURCE, "r.rules")
    for i in range(first, first + count):
        cache.store(str(tmp_path / f"r{i}.rules"), SOURCE + f"# {i}\n", module)


def test_storing_n_entries_lists_the_folder_once_until_it_is_full(folder, tmp_path, monkeypatch):
    """issue 43: every store listed the whole folder to evict, so a cold run storing N new
    entries took time in N squared (2,000 files 18.5 s, 1,000 files 6.7 s). Now a process
    lists the folder at its first store and adds up what it stores after: 40 entries, one
    listing, and the entries all kept while under the bound."""
    listed = scans_of(folder, monkeypatch)
    store_entries(tmp_path, 0, 40)
    assert len(listed) == 1
    assert len([p for p in folder.iterdir() if p.suffix == ".json"]) == 40


def test_storing_past_the_bound_still_evicts_the_oldest_and_lists_the_folder_seldom(folder, tmp_path, monkeypatch):
    """issue 43: counting instead of listing, the folder still stays under MAX_FOLDER_BYTES
    after every store, what goes is what was used longest ago, entries another process stored
    meanwhile are found when the folder is listed again, and eviction makes room (down to
    EVICT_TO of the bound) so that the stores after it do not each list the folder."""
    folder.mkdir(mode=0o700)
    size = len(codec.encode(parse(SOURCE, str(tmp_path / "r0.rules"))))
    monkeypatch.setattr(cache, "MAX_FOLDER_BYTES", 20 * size)
    old = folder / f"{0:064x}.json"  # (another process's entry, used long ago)
    old.write_bytes(b"x" * size)
    os.utime(old, (1_000_000, 1_000_000))
    listed = scans_of(folder, monkeypatch)
    for i in range(60):
        store_entries(tmp_path, i, 1)
        entry = folder / (cache.key(str(tmp_path / f"r{i}.rules"), SOURCE + f"# {i}\n") + cache.SUFFIX)
        os.utime(entry, (2_000_000 + i, 2_000_000 + i))  # (stored in this order, whatever the clock's grain)
        assert sum(p.stat().st_size for p in folder.iterdir()) <= cache.MAX_FOLDER_BYTES
    assert not old.exists()
    assert 2 <= len(listed) <= 1 + 60 // 4  # (each eviction leaves room for about a quarter of the bound)
    left = {p.name for p in folder.iterdir()}
    newest = cache.key(str(tmp_path / "r59.rules"), SOURCE + "# 59\n") + cache.SUFFIX
    oldest = cache.key(str(tmp_path / "r0.rules"), SOURCE + "# 0\n") + cache.SUFFIX
    assert newest in left and oldest not in left
