"""Issue 43, "no input slow out of proportion to its size": the attachment-chain check and the
naming of permanents made of one card, linear, with the same results as before.

- `interpreter.play.actions.check_attachments` walked every permanent's chain to its end with the
  chain in a list: a 2,000-deep chain took 12.5 s to check, a 5,000-deep one through
  `import forge` 191 s. It now walks each permanent once.
- `dsl.builtins.first_free` tried `slug`, `slug_2`, ... from the start for every permanent:
  naming 20,000 permanents of one card took 34 s. A caller that names many (the Forge import,
  a scenario's script check) now keeps a `tried` memory of where each slug's free names
  begin.

No test times anything (a timed assertion fails on a loaded machine and passes on a fast
one): the tests that would have failed before count the work done (names asked about,
steps walked along chains) and bound it by a multiple of the input's size; the others check
that the results, messages and positions are those of the old code, kept below as the
reference. Timings against size are bench/scale_inputs.py's.
"""

from __future__ import annotations

import random
import types
from pathlib import Path

import pytest

from phasing_rules.interop import forge as interop_forge
from phasing_rules.interpreter.play import scenario as play_scenario
from phasing_rules.dsl import ast
from phasing_rules.dsl.builtins import card_slug, first_free
from phasing_rules.dsl.diagnostics import DiagnosticError, Span
from phasing_rules.dsl.parser import parse
from phasing_rules.interop.forge import import_state
from phasing_rules.interpreter import api
from phasing_rules.interpreter.play.actions import check_attachments
from phasing_rules.interpreter.rulebook.loading import load_version
from phasing_rules.interpreter.play.scenario import script_problems
from phasing_rules.interpreter.play.suite import current_version


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def book():
    return load_version(current_version())


# ------------------------------------------------------------------ the old code, as the reference


def first_free_before(slug: str, taken) -> str:
    """`first_free` as it was before issue 43: every name tried from `slug` on."""
    name, n = slug, 2
    while name in taken:
        name, n = f"{slug}_{n}", n + 1
    return name


CYCLE_HINT = "an attachment chain must end at a permanent or player that is attached to nothing"


def cycle_before(objects: dict, spans: dict) -> tuple[str, Span] | None:
    """The cycle `check_attachments` reported before issue 43 (message and position), or None:
    each permanent's chain walked to its end, in the game's order, the chain kept in a list."""
    for oid in objects:
        seen, current = [oid], objects[oid].attached_to
        while current in objects:
            if current in seen:
                return f"attachment cycle: {' -> '.join(seen + [current])}", spans[oid]
            seen.append(current)
            current = objects[current].attached_to
    return None


# ------------------------------------------------------------------ instruments


class CountingNames:
    """A container of names that counts the membership tests asked of it."""

    def __init__(self, names=()):
        self.names = set(names)
        self.probes = 0

    def __contains__(self, name) -> bool:
        self.probes += 1
        return name in self.names

    def add(self, name) -> None:
        self.names.add(name)


class CountingObjects(dict):
    """A game's objects (by name) that count the lookups of an object by name and the tests
    of whether a name is one: the steps a walk along chains of attachments takes."""

    lookups = 0
    tests = 0

    def __getitem__(self, key):
        self.lookups += 1
        return super().__getitem__(key)

    def __contains__(self, key) -> bool:
        self.tests += 1
        return super().__contains__(key)


def counting_first_free(counter: list[CountingNames]):
    """A stand-in for `first_free` that hands the real one a counting view of `taken` (taken
    as the caller passes it, with or without a `tried` memory) and keeps the view."""

    class View(CountingNames):
        def __init__(self, taken):
            self.names, self.probes = taken, 0

    def counted(slug, taken, tried=None):
        view = View(taken)
        counter.append(view)
        return first_free(slug, view, tried) if tried is not None else first_free(slug, view)

    return counted


def chain_specs(n: int) -> list[dict]:
    """A creature a0 and Auras a1 ... a{n-1}, each attached to the one before it."""
    return [{"name": "a0", "card": "Grizzly Bears", "controller": "Alice"}] + [
        {"name": f"a{i}", "card": "Holy Strength", "controller": "Alice", "attached_to": f"a{i - 1}"}
        for i in range(1, n)]


def forge_file(tmp_path: Path, cards: list[str], name: str = "state.txt") -> Path:
    path = tmp_path / name
    path.write_text("turn=1\nactiveplayer=human\nhumanbattlefield=" + ";".join(cards) + "\n", encoding="utf-8")
    return path


def permanent_names(scenario: str) -> list[str]:
    return [line.split()[1] for line in scenario.splitlines() if line.strip().startswith("permanent ")]


# ------------------------------------------------------------------ first_free: the same names


def test_first_free_gives_the_names_it_gave_before_for_a_mixed_sequence():
    """Issue 43: with its `tried` memory, `first_free` must name every permanent as before,
    also when names are taken out of order by permanents declared with them (a scenario's
    `permanent grizzly_bears_3 = ...`), when one slug's names look like another's numbered
    ones (`bear_2` is a slug, and `bear`'s second name), and across many slugs interleaved.
    Checked against the old code on a seeded random sequence of requests."""
    rng = random.Random(43)
    slugs = ["bear", "bear_2", "elf", "bear_2_2", "x"]
    declared = {"bear_3", "bear_4", "bear_2_3", "elf", "elf_2", "elf_7", "x_2"}
    old_taken, new_taken, tried = set(declared), set(declared), {}
    for _ in range(3000):
        slug = rng.choice(slugs)
        if rng.random() < 0.05:  # (a name declared along the way, as a scenario's later steps may name one)
            extra = f"{slug}_{rng.randint(2, 400)}"
            old_taken.add(extra)
            new_taken.add(extra)
            continue
        old, new = first_free_before(slug, old_taken), first_free(slug, new_taken, tried)
        assert new == old
        old_taken.add(old)
        new_taken.add(new)
    assert first_free("bear", {"bear"}) == "bear_2" and first_free("bear", set()) == "bear"  # (without `tried`)


def test_naming_n_permanents_of_one_card_asks_about_o_n_names():
    """Issue 43: naming N permanents of one card asked `taken` about 1 + 2 + ... + N names
    (quadratic: 34 s for 20,000). With the `tried` memory it asks about at most two a name:
    the last one found taken and the free one. Counted, not timed."""
    n = 3000
    taken, tried = CountingNames({"this"}), {}
    for k in range(1, n + 1):
        name = first_free("grizzly_bears", taken, tried)
        assert name == ("grizzly_bears" if k == 1 else f"grizzly_bears_{k}")
        taken.add(name)
    assert taken.probes <= 2 * n  # (the old code: n * (n + 1) / 2 = 4,501,500)


def test_the_forge_import_names_n_cards_of_one_name_asking_about_o_n_names(tmp_path, monkeypatch):
    """Issue 43: `import forge` of N cards of one name names them grizzly_bears,
    grizzly_bears_2, ... as before, asking about O(N) names in all (before: O(N^2), since
    each card's name was looked for from grizzly_bears on)."""
    views: list[CountingNames] = []
    monkeypatch.setattr(interop_forge, "first_free", counting_first_free(views))
    n = 1500
    result = import_state(forge_file(tmp_path, ["Grizzly Bears"] * n))
    assert not result.errors
    assert permanent_names(result.scenario) == ["grizzly_bears"] + [f"grizzly_bears_{k}" for k in range(2, n + 1)]
    assert len(views) == n
    assert sum(v.probes for v in views) <= 2 * n


def test_the_forge_import_names_interleaved_cards_as_before(tmp_path):
    """Issue 43: cards of several names, interleaved, tokens among them, are each named after
    their card with the first free number, as the old code named them."""
    cards = ["Grizzly Bears", "Plains", "Grizzly Bears", "Plains", "Plains", "Grizzly Bears"]
    result = import_state(forge_file(tmp_path, cards))
    assert not result.errors
    taken, expected = set(interop_forge.RESERVED), []
    for card in cards:
        expected.append(first_free_before(card_slug(card), taken))
        taken.add(expected[-1])
    assert permanent_names(result.scenario) == expected


def test_a_scripts_casts_are_named_as_before_asking_about_o_n_names(book, monkeypatch):
    """Issue 43: a scenario's script check names the permanents its casts make (grizzly_bears,
    then the first free number: a declared grizzly_bears_3 is skipped) as the runner will, and
    asks about O(N) names for N casts (before: O(N^2)). A step naming the N-th cast's
    permanent is known; one naming a permanent no cast makes is still reported."""
    views: list[CountingNames] = []
    monkeypatch.setattr(play_scenario, "first_free", counting_first_free(views))
    n = 1200
    text = "\n".join(['scenario "casts" {', "  players Alice Bob", "  turn 1 of Alice",
                      '  permanent grizzly_bears_3 = "Grizzly Bears", controller Bob', "  script {"]
                     + ['    cast "Grizzly Bears" by Alice'] * n
                     + [f"    attack with grizzly_bears_{n + 1}", f"    attack with grizzly_bears_{n + 2}", "  }", "}"]) + "\n"
    scn = next(i for i in parse(text, "casts.scenario").items if isinstance(i, ast.Scenario))
    problems = script_problems(scn, book)
    assert [p.message for p in problems] == [f"unknown permanent 'grizzly_bears_{n + 2}'"]
    assert problems[0].span.line == 5 + n + 2
    assert len(views) == n
    assert sum(v.probes for v in views) <= 2 * n + 2


def test_the_checkers_names_for_a_scripts_casts_ask_about_o_n_names(book, monkeypatch):
    """Issue 43: `phasing check` works out the names a script's casts make (`made_by_casts`,
    for the names its `expect` lines may use) through `first_free` with its memory, as the
    runner does: O(N) names asked about for N casts, not O(N^2), and the same names."""
    from phasing_rules.dsl import checker as dsl_checker

    views: list[CountingNames] = []
    monkeypatch.setattr(dsl_checker, "first_free", counting_first_free(views))
    n = 1200
    text = "\n".join(['scenario "casts" {', "  players Alice Bob", "  turn 1 of Alice",
                      '  permanent grizzly_bears_3 = "Grizzly Bears", controller Bob', "  script {"]
                     + ['    cast "Grizzly Bears" by Alice'] * n + ["  }", "}"]) + "\n"
    scn = next(i for i in parse(text, "casts.scenario").items if isinstance(i, ast.Scenario))
    made = dsl_checker.made_by_casts(scn, book.cards)
    assert sorted(made) == sorted(["grizzly_bears", "grizzly_bears_2"] + [f"grizzly_bears_{k}" for k in range(4, n + 2)])
    assert len(views) == n and sum(v.probes for v in views) <= 2 * n + 2


# ------------------------------------------------------------------ check_attachments: the same verdicts


def test_a_5000_deep_chain_is_accepted_with_its_attachments_right():
    """Issue 43: a chain of 5,000 attachments (a1 on a0, a2 on a1, ...) is a legal board (an
    Aura may enchant an Aura: 303.4, 303.4d forbids only itself) and is accepted, each
    permanent attached to the one before it."""
    play = api.new_game(permanents=chain_specs(5000))
    permanents = play.state()["permanents"]
    assert len(permanents) == 5000
    assert permanents["a0"]["attached_to"] is None
    assert all(permanents[f"a{i}"]["attached_to"] == f"a{i - 1}" for i in range(1, 5000))


def test_checking_a_deep_chain_walks_each_permanent_once():
    """Issue 43: the check walked every permanent's chain to its end, n * (n - 1) / 2 steps for
    an n-deep chain (12.5 s at 2,000); it now stops where an earlier walk passed, so the
    steps (objects looked up by name, names tested) are O(n). Counted on the objects of a
    real 3,000-deep chain, not timed."""
    n = 3000
    game = api.new_game(permanents=chain_specs(n)).engine.game
    objects = CountingObjects(game.objects)
    check_attachments(types.SimpleNamespace(objects=objects, players=game.players), {oid: Span("g", 1, 1, 1, 2) for oid in objects})
    assert objects.lookups <= 2 * n  # (the old code: about 4,500,000)
    assert objects.tests <= 3 * n


def test_a_cycle_is_reported_as_before_on_random_boards():
    """Issue 43: the linear walk reports the same cycle, at the same permanent's line, as the
    old code, which walked from each permanent in the game's order and named the chain from
    the first permanent whose chain comes back, up to the first permanent met twice: on
    seeded random boards of attachments to permanents, to players and to nothing, with
    chains running into cycles, cycles reached from chains already checked, and several
    cycles on one board."""
    rng = random.Random(4343)
    players = {"Alice": None, "Bob": None}
    seen_cycles = seen_clean = 0
    for _ in range(3000):
        n = rng.randint(1, 14)
        names = [f"p{i}" for i in rng.sample(range(40), n)]
        objects = {}
        for name in names:
            choice = rng.random()
            others = [o for o in names if o != name]
            target = (None if choice < 0.25 else rng.choice(list(players)) if choice < 0.35 or not others
                      else rng.choice(others))
            objects[name] = types.SimpleNamespace(attached_to=target)
        spans = {name: Span(f"{name}.scenario", k + 1, 3, k + 1, 9) for k, name in enumerate(names)}
        expected = cycle_before(objects, spans)
        game = types.SimpleNamespace(objects=objects, players=players)
        if expected is None:
            check_attachments(game, spans)
            seen_clean += 1
            continue
        with pytest.raises(DiagnosticError) as caught:
            check_attachments(game, spans)
        (d,) = caught.value.diagnostics
        assert (d.message, d.span, d.hint) == (*expected, CYCLE_HINT)
        seen_cycles += 1
    assert seen_cycles > 300 and seen_clean > 300  # (both verdicts well exercised)


def test_a_cycle_below_a_deep_chain_in_a_scenario_is_named_at_its_line(tmp_path):
    """Issue 43 with 303.4d / 301.5c (nothing is attached to itself, so no chain may come
    back to where it started): a scenario with a 2,000-deep chain and, after it, two Auras on
    each other is reported by `check` as the cycle they make, at the line of the first of
    them, and the chain itself draws no error."""
    specs = [f'  permanent a{i} = "Holy Strength", controller Alice, attached to a{i - 1}' for i in range(1, 2000)]
    lines = ['scenario "a deep chain and a cycle" {', "  players Alice Bob", "  turn 1 of Alice",
             '  permanent a0 = "Grizzly Bears", controller Alice', *specs,
             '  permanent b = "Holy Strength", controller Alice, attached to c',
             '  permanent c = "Holy Strength", controller Alice, attached to b', "}"]
    path = tmp_path / "cycle.scenario"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = [d for d in api.check_paths([path]) if d.kind != "warning"]
    assert [(d.message, d.span.line, d.span.column) for d in problems] == [
        ("attachment cycle: b -> c -> b", 2004, 3)]
    assert problems[0].hint == CYCLE_HINT


def test_a_chain_running_into_a_cycle_names_the_chain_from_its_first_permanent():
    """Issue 43: a permanent whose chain runs into a cycle (x on a, a on b, b on c, c on a),
    declared first, is the one reported, with its whole chain: `x -> a -> b -> c -> a`, as
    before (the walk from x is the first to come back)."""
    objects = {name: types.SimpleNamespace(attached_to=target)
               for name, target in [("x", "a"), ("a", "b"), ("b", "c"), ("c", "a"), ("y", None)]}
    spans = {name: Span("s", k + 1, 3, k + 1, 4) for k, name in enumerate(objects)}
    with pytest.raises(DiagnosticError) as caught:
        check_attachments(types.SimpleNamespace(objects=objects, players={}), spans)
    assert caught.value.diagnostics[0].message == "attachment cycle: x -> a -> b -> c -> a"
    assert caught.value.diagnostics[0].span == spans["x"]


# ------------------------------------------------------------------ the Forge import's chains


def test_a_deep_forge_chain_is_imported_with_its_attachments_right(tmp_path):
    """Issue 43 (the 5,000-deep chain took 191 s to import): a Forge state whose cards are
    each attached (AttachedTo:Id) to the one before is imported, each permanent attached to
    the permanent of its host's Id (303.4, 301.5), and the scenario made passes the check."""
    n = 2000
    cards = ["Grizzly Bears|Id:1"] + [f"Holy Strength|Id:{i + 1}|AttachedTo:{i}" for i in range(1, n)]
    result = import_state(forge_file(tmp_path, cards))
    assert not result.errors
    names = ["grizzly_bears", "holy_strength"] + [f"holy_strength_{k}" for k in range(2, n)]
    lines = [line.strip() for line in result.scenario.splitlines() if line.strip().startswith("permanent ")]
    assert [line.split()[1] for line in lines] == names
    assert "attached to" not in lines[0]
    assert all(line.endswith(f", attached to {host}") for line, host in zip(lines[1:], names))


def test_a_forge_cycle_is_reported_at_its_card(tmp_path):
    """Issue 43: two Forge cards attached to each other are still reported as the attachment
    cycle, named by the permanents' names and placed at the card whose chain is walked
    first."""
    path = forge_file(tmp_path, ["Grizzly Bears|Id:1", "Holy Strength|Id:2|AttachedTo:3", "Holy Strength|Id:3|AttachedTo:2"])
    result = import_state(path)
    assert result.scenario is None
    (d,) = result.errors
    assert d.message.startswith("attachment cycle: holy_strength -> holy_strength_2 -> holy_strength (in the scenario made")
    assert (d.span.path, d.span.line, d.span.column) == (str(path), 3, 37)


# ------------------------------------------------------------------ the benchmark keeps working


@pytest.mark.slow
def test_the_scale_benchmark_gives_its_rows():
    """bench/scale_inputs.py's functions (which a common driver calls) give one row per size
    with the keys it reads, each case's operation checked right inside it. No time is
    judged here: the figures are the benchmark's to print."""
    from bench import scale_inputs

    for rows_of in (scale_inputs.rows_chain_check, scale_inputs.rows_chain_run, scale_inputs.rows_forge_chain,
                    scale_inputs.rows_naming, scale_inputs.rows_naming_casts):
        rows = rows_of((3, 6), rounds=1)
        assert [r["size"] for r in rows] == [3, 6]
        assert all(set(r) == {"size", "seconds", "parse_seconds"} and r["seconds"] > 0 and r["parse_seconds"] > 0
                   for r in rows)
