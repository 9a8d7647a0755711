"""Running scenario files as a suite: collect them, pick the rulebooks each names, run them."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable, Iterable, Iterator

import attrs

from ...dsl import ast
from ...dsl.checker import check_scenario
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean, word_span
from ..game.budget import BUDGET_HINT, Budget
from ..rulebook.loading import (VERSION_RE, Rulebook, available_variants, available_versions, lineage, load_version, one_listing,
                                shipped_sources)
from ..game.model import Game
from .scenario import (Outcome, ScenarioRun, load_scenarios, rules_line_problems, run_scenario,
                       scenario_versions, under_rules, unknown_expectation_names)

SCENARIO_SUFFIX = ".scenario"


@attrs.frozen
class Case:
    """One scenario of one file, with the cards that file declares."""

    scenario: ast.Scenario
    path: str
    cards: tuple[ast.Card, ...]


@attrs.frozen
class StoppedRun:
    """A run that says nothing of how the rules play: which scenario, under which rulebook,
    and the error that stopped it (the budget's, naming the block that went over and the
    limit: `budget_stop`; or one that kept it from being played at all: `compare.cannot_run`)."""

    scenario: str
    path: str
    version: str
    message: str

    def to_json(self) -> dict:
        return {"scenario": self.scenario, "file": self.path, "version": self.version, "error": self.message}


def budget_stop(o: Outcome) -> StoppedRun | None:
    """The budget error that stopped a run, if it was stopped by one (its hint says to raise the
    budget): such a run says nothing of how the rules play, so it must not count as a result."""
    found = next((f for f in o.failures if f.hint == BUDGET_HINT), None)
    return None if found is None else StoppedRun(o.scenario, o.path, o.version, found.message)


def unevaluated_expectations(scn: ast.Scenario, under: str | None = None) -> list[Diagnostic]:
    """Warnings for the `expect for NAME:` lines of a scenario without a `rules` line whose
    NAME is no version or variant known by name (shipped or on the rules path) and not
    `under`, the rulebook a run uses: such lines are not evaluated (NAME may be a variant
    file given with --rules, so this is no error; a scenario with a rules line is held to
    `unknown_expectation_names`). One warning per name, at its first line."""
    if scenario_versions(scn):
        return []
    known = set(available_versions()) | set(available_variants())
    found: dict[str, Diagnostic] = {}
    for e in (e for e in scn.entries if isinstance(e, ast.Script)):
        for step in e.steps:
            if not isinstance(step, ast.Expect):
                continue
            for name in step.versions:
                if name in known or name == under or name in found:
                    continue
                lines = sum(name in s.versions for s in e.steps if isinstance(s, ast.Expect))
                what = "its expectation is" if lines == 1 else f"its {lines} expectations are"
                where = f"under {under}" if under else "unless it runs under a rulebook of that name"
                found[name] = Diagnostic(
                    "warning", f"'expect for {name}': no version or variant is named '{name}', so {what} not evaluated {where}",
                    word_span(step.span, name), did_you_mean(name, sorted(known), "a variant of your own is known by name on the rules path "
                                            "(--rules-path), or by its file given with --rules"))
    return list(found.values())


def expectations_off_the_rules_line(scn: ast.Scenario) -> list[Diagnostic]:
    """For a scenario with a `rules` line, its `expect for NAME:` lines whose NAME is a
    version or variant known by name but none of its rules (a name known by none is
    `scenario.unknown_expectation_names`'s). Such lines judge only the runs of `--rules X`
    that `judge_under` gives them: a version's, under `--rules NAME`; a variant's, under
    NAME or a variant built on it. A version, or a variant judged only under variants built
    on it, is a warning naming those runs (`phasing test` alone never evaluates the lines),
    once, at the name on its first line. A variant the scenario runs under (its lineage
    meets the rules line) is what `--rules NAME` is for, and nothing is said. A NAME no run
    is judged by is an error at the name on every line: the lines are never evaluated."""
    home = scenario_versions(scn)
    if not home:
        return []
    case = Case(scn, "", ())
    versions, variants = set(available_versions()), set(available_variants())
    lines = [step for e in scn.entries if isinstance(e, ast.Script) for step in e.steps if isinstance(step, ast.Expect)]
    rules = f"the rules line of this scenario names {', '.join(home)}"
    problems: list[Diagnostic] = []
    reached: dict[str, tuple[str, ...] | None] = {}
    for step in lines:
        for n, name in enumerate(step.versions):
            if name in home or not (name in versions or name in variants):
                continue
            first = name not in reached
            if first:
                reached[name] = _judged_under(case, name, variants)
            under = reached[name]
            at = word_span(step.span, name, step.versions[:n].count(name))
            if under is None:
                continue
            if not under:
                base = lineage(name)[-1]
                problems.append(Diagnostic(
                    "error", f"'expect for {name}': never evaluated: no run of this scenario is judged by the expectations "
                             f"for {name} ({name} is built on {base}, which its rules line does not name)",
                    at, f"{rules}; add {name} to it, or remove the expectation"))
            elif first:
                count = sum(name in s.versions for s in lines)
                what = "its expectation is" if count == 1 else f"its {count} expectations are"
                problems.append(Diagnostic(
                    "warning", f"'expect for {name}': {name} is not in the rules line of this scenario, so {what} "
                               f"evaluated only when the scenario is run with {' or '.join(f'--rules {x}' for x in under)}",
                    at, f"{rules}; add {name} to it to have 'phasing test' evaluate {'it' if count == 1 else 'them'}"))
    return problems


def _judged_under(case: Case, name: str, variants: set[str]) -> tuple[str, ...] | None:
    """The rulebooks known by name whose `--rules` run of `case` is judged by the
    expectations for `name` (`judge_under`); None when `name` is a variant the scenario runs
    under by `--rules name`, or when a lineage does not load (its own errors say so)."""
    chains: dict[str, tuple[str, ...]] = {}
    for x in sorted(variants):
        try:
            chains[x] = lineage(x)
        except DiagnosticError:
            if x == name:
                return None
    if name in chains and judge_under(case, chains[name]) == name:
        return None
    under = [name] if name not in chains and judge_under(case, (name,)) == name else []
    return tuple(under + [x for x, chain in chains.items() if name in chain[1:] and judge_under(case, chain) == name])


def unmodelled_steps(scn: ast.Scenario, book: Rulebook) -> list[Diagnostic]:
    """Warnings for the script steps whose work is all done by blocks hooked to them, where
    `book` hooks none there: a player leaving the game (800.4) under a rulebook with no block
    run `during leaving the game` only stops taking turns. The run goes on (the rulebook may
    leave that out on purpose: its notes say so); the step is not silently nothing."""
    hooked = {c.hook.kind for rule in book.rules for c in rule.clauses if isinstance(c, ast.During)}
    if "leaving the game" in hooked:
        return []
    return [Diagnostic("warning", f"no block of {book.version.id} runs when a player leaves the game: {step.player} "
                                  "takes no more turns, and nothing else changes (what they own and control stays)",
                       step.span, "this rulebook does not model leaving the game ('phasing versions' shows its "
                                  "notes); run the scenario under a version that does")
            for e in scn.entries if isinstance(e, ast.Script) for step in e.steps if isinstance(step, ast.PlayerLeaves)]


def current_version() -> str:
    return available_versions()[-1]


def collect(paths: Iterable[str | Path]) -> tuple[list[Case], list[Diagnostic]]:
    """Every scenario under the given files or folders; syntax errors, and a rules line that
    names no version (`rules_line_problems`), are returned, not raised."""
    cases, problems = [], []
    for root in paths:
        root = Path(root)
        if root.is_dir():
            files = sorted(root.rglob(f"*{SCENARIO_SUFFIX}"))
            for odd in [f for f in files if not f.is_file() and not f.is_dir()]:
                problems.append(Diagnostic("error", f"not a scenario file: {odd} is not a regular file",
                                           Span(str(odd), 0, 0, 0, 0), "give a scenario file or a folder of them"))
            files = [f for f in files if f.is_file()]
        elif root.is_file():
            files = [root]
        elif root.exists():  # (a device, a pipe or a socket: reading one may never end, or never begin)
            problems.append(Diagnostic("error", f"not a scenario file: {root} is not a regular file",
                                       Span(str(root), 0, 0, 0, 0), "give a scenario file or a folder of them"))
            continue
        else:
            problems.append(Diagnostic("error", f"no such file or folder: {root}", Span(str(root), 0, 0, 0, 0),
                                       "give a scenario file or a folder of them"))
            continue
        for file in files:
            try:
                scenarios, cards = load_scenarios(file)
            except DiagnosticError as exc:
                problems.extend(exc.diagnostics)
                continue
            for scenario in scenarios:  # (one whose rules line names no version is not run at all)
                found = rules_line_problems(scenario)
                problems.extend(found)
                if not found:
                    cases.append(Case(scenario, str(file), cards))
    return cases, problems


def home_versions(case: Case) -> tuple[str, ...]:
    """The versions a scenario is written for: those its `rules` line names, else the newest
    version shipped with the program (a newer one of the user's, on the rules path, is a new
    release the scenario was not written for: `judging_chain`)."""
    return scenario_versions(case.scenario) or (newest_shipped(),)


@functools.cache
def newest_shipped() -> str:
    """The newest version shipped with the program."""
    return max(s.name for s in shipped_sources() if s.kind == "version")


def versions_for(case: Case, override: list[str] | None) -> list[str]:
    """The versions a scenario runs under by itself (its home versions), or under `override`."""
    return list(override) if override else list(home_versions(case))


def expected_for(scn: ast.Scenario) -> frozenset[str]:
    """The versions and variants a scenario has `expect for` lines for."""
    return frozenset(v for e in scn.entries if isinstance(e, ast.Script) for step in e.steps
                     if isinstance(step, ast.Expect) for v in step.versions)


@attrs.frozen
class Run:
    """One scenario to play under one rulebook (`spec`, as named), judged by the expectations
    written for `judge`; `between`: the rulebooks from the one played (by its own name) down
    to a shipped version, each built on the next (`judging_chain`), which a changed outcome
    is blamed on."""

    case: Case
    spec: str
    judge: str
    between: tuple[str, ...] = ()


def _dated(name: str) -> bool:
    return bool(VERSION_RE.match(name))


def judge_under(case: Case, chain: tuple[str, ...]) -> str | None:
    """Whose expectations a scenario is judged by when it runs under the rulebook whose
    lineage is `chain` (itself first, each built on the next, down to a version:
    `judging_chain`), or None when it does not run there: it runs when its home versions meet
    the chain or it has `expect for` lines for the chain's version, judged by the expectations
    of the first of the chain it has `expect for` lines for, else of the first that is a home
    version."""
    home = home_versions(case)
    written = expected_for(case.scenario)
    if not set(chain) & set(home) and chain[-1] not in written:
        return None
    return next((v for v in chain if v in written), None) or next(v for v in chain if v in home)


def judging_chain(spec: str) -> tuple[str, ...]:
    """`spec` and the rulebooks it is built on, down to the first version shipped with the
    program: a shipped version runs its own scenarios; a version of your own (a new release)
    and a variant run those of the shipped version they are built on as well, judged by their
    expectations, so that what fails is what they change (`judge_under`)."""
    chain = lineage(spec, through_versions=True)
    shipped = {s.name for s in shipped_sources() if s.kind == "version"}
    end = next((k for k, name in enumerate(chain) if name in shipped), None)
    return chain[:end + 1] if end is not None else lineage(spec)


def written_for(cases: list[Case], specs: list[str]) -> list[Case]:
    """The scenarios `--rules SPEC` runs for one of `specs` at least (`judging_chain`,
    `judge_under`): those written for it or for what it is built on."""
    chains = [judging_chain(spec) for spec in specs]
    return [case for case in cases if any(judge_under(case, chain) is not None for chain in chains)]


def runs_under(cases: list[Case], spec: str, chain: tuple[str, ...] | None = None) -> list[Run]:
    """The runs `--rules SPEC` makes of `cases` (`judging_chain`, `judge_under`), in their
    order; none when no scenario runs there."""
    chain = judging_chain(spec) if chain is None else chain
    return [Run(case, spec, judge, chain) for case in cases if (judge := judge_under(case, chain)) is not None]


def plan(cases: list[Case], specs: list[str]) -> list[Run]:
    """Every run `--rules SPEC` (each of `specs`) makes of `cases` (`judging_chain`,
    `judge_under`): an unknown name, or a rulebook under which no scenario runs, is an error
    before anything runs."""
    runs: list[Run] = []
    for spec in specs:
        chain = judging_chain(spec)
        chosen = runs_under(cases, spec, chain)
        if not cases:
            raise DiagnosticError(Diagnostic("error", f"no scenario to run under {spec}: none was given",
                                             Span(spec, 0, 0, 0, 0), "give scenario files or folders of them"))
        if not chosen:
            base = f" or {chain[-1]} (the version it is built on)" if len(chain) > 1 else ""
            between = f", or a variant between them ({', '.join(chain[1:-1])})" if len(chain) > 2 else ""
            raise DiagnosticError(Diagnostic(
                "error", f"no scenario runs under {spec}: none of the {len(cases)} scenario(s) given names "
                         f"{chain[0]}{base}{between} in its rules line",
                Span(spec, 0, 0, 0, 0),
                f"give scenarios written for {chain[-1]} (the conformance suite has them), or add "
                f"{chain[0]} to a scenario's rules line"))
        runs += chosen
    return runs


def run_case(case: Case, book: Rulebook, budget: Budget | None = None, judge: str | None = None,
             game: Game | None = None, checked: bool = False, between: tuple[str, ...] = ()) -> Outcome:
    """One scenario under `book`, its expectations those written for `judge` (default: the
    rulebook's own version), played on `game` if given (see `run_scenario`). `checked`: the
    caller knows the scenario passes `check_scenario` under `book` (ablation: it passed under
    the whole rulebook, and a scenario's check reads the declarations and cards, which
    deleting a block leaves as they are), so it is not checked again. `between`: the
    rulebooks from `book` down to a shipped version (`Run.between`), of which a failed
    expectation is blamed on the first that changes it (`blamed`)."""
    full = book.with_cards(case.cards)
    with one_listing():  # (the checks look up every name the scenario gives: the rules path listed once)
        problems = () if checked else check_scenario(case.scenario, full) + unknown_expectation_names(
            case.scenario, full) + [d for d in expectations_off_the_rules_line(case.scenario) if d.kind == "error"]
    if problems:
        problems = under_rules(problems, book.version.id, home_versions(case))
        return Outcome(case.scenario.name, case.path, book.version.id, False, tuple(problems), (), (), {})
    chain = between or ((book.version.id, judge) if judge not in (None, book.version.id) else ())
    blame = blamed(case, chain, judge or book.version.id, budget) if len(chain) > 1 else None
    return run_scenario(case.scenario, full, case.path, budget=budget, judge=judge, game=game, blame=blame)


def blamed(case: Case, chain: tuple[str, ...], judge: str, budget: Budget | None) -> Callable[[Span], str]:
    """What a failed expectation (by its span) under `chain[0]`, judged by the expectations
    written for `judge`, is owed to: the rulebooks of `chain` (each built on the next) are
    played, with the same expectations, from the last (the shipped version) up, and the first
    under which it fails is named; or it fails under the last too, and that is said (each is
    played once, the first time it is asked)."""
    own, end = chain[0], chain[-1]
    holds = {name: held_under(case, name, judge, budget) for name in chain[1:]}

    def blame(at: Span) -> str:
        if not holds[end](at):
            if judge == own:
                return ""
            return (f" (expected under {judge}, where it does not hold either)" if end == judge
                    else f" (expected under {judge}; it does not hold under {end} either)")
        by = next((name for name in reversed(chain[1:-1]) if not holds[name](at)), own)
        return f" (expected under {judge}, changed by {by})" if judge != own else f" (holds under {end}; changed by {by})"

    return blame


def held_under(case: Case, name: str, judge: str, budget: Budget | None) -> Callable[[Span], bool]:
    """Whether the expectation at a span holds when the scenario runs under `name`, judged by
    the expectations written for `judge`: the scenario is played there once, the first time
    it is asked (a run that cannot load or set up holds nothing)."""
    held: list[set[Span]] = []

    def holds(at: Span) -> bool:
        if not held:
            try:
                run = ScenarioRun(case.scenario, load_version(name).with_cards(case.cards), case.path, budget, judge)
                run.play()
                held.append(run.held)
            except DiagnosticError:
                held.append(set())
        return at in held[0]

    return holds


def _load_for(case: Case, version: str, named: bool,
              failed: dict[str, list[Diagnostic]] | None = None) -> Rulebook | Outcome:
    """The rulebook `version`, or the failed outcome of a case that cannot run under it.
    `failed` keeps the errors of rulebooks that did not load, so a broken rulebook is read
    and checked once, not once per scenario that names it."""
    failed = failed if failed is not None else {}
    if version not in failed:
        try:
            return load_version(version)
        except DiagnosticError as exc:
            failed[version] = exc.diagnostics
    diagnostics = failed[version]
    where = next((e.span for e in case.scenario.entries
                  if isinstance(e, (ast.ScenarioRules, ast.ScenarioRange))), case.scenario.span)
    problems = diagnostics if named or "unknown rules" not in diagnostics[0].message else [
        attrs.evolve(diagnostics[0], span=where)]
    return Outcome(case.scenario.name, case.path, version, False, tuple(problems), (), (), {})


def run_warnings(case: Case, o: Outcome, book: Rulebook | None = None,
                 off_the_line: dict[tuple[str, str], list[Diagnostic]] | None = None) -> tuple[Diagnostic, ...]:
    """Warnings for the run `o` of `case` under `book` (None: a rulebook that did not load):
    the `expect for NAME:` lines it did not evaluate because NAME is no rulebook known by name
    (its scenario has no rules line: `unevaluated_expectations`), the steps its rulebook has
    no block for (`unmodelled_steps`), and, for a run under one of the scenario's own
    versions, its `expect for` lines that only some `--rules` run evaluates
    (`expectations_off_the_rules_line`'s warnings, which `check` gives too). `off_the_line`
    keeps those last per scenario, so a scenario with many runs works them out once."""
    with one_listing():
        found = unevaluated_expectations(case.scenario, o.version)
        if o.version in home_versions(case):
            off_the_line = off_the_line if off_the_line is not None else {}
            key = (case.path, case.scenario.name)
            if key not in off_the_line:
                off_the_line[key] = [d for d in expectations_off_the_rules_line(case.scenario) if d.kind == "warning"]
            found += off_the_line[key]
    if book is not None:
        found += unmodelled_steps(case.scenario, book)
    return tuple(found)


def run_all(cases: list[Case], override: list[str] | None = None,
            books: dict[str, Rulebook] | None = None, newest_only: bool = False,
            budget: Budget | None = None, progress: Callable[..., None] | None = None) -> Iterator[Outcome]:
    """Each scenario under each version it names (with `newest_only`, under the newest of
    them alone), or, with `override`, under each of those rulebooks as `plan` chooses (one
    that does not load is a DiagnosticError with its errors before anything runs); each
    step within `budget` (None: the default `Budget()`). Each outcome carries its warnings
    (`run_warnings`). `progress`, if given, is called as each run begins: `progress(runs done,
    runs, scenario name)`, and once more at the end."""
    books = books if books is not None else {}
    if override:
        for spec in dict.fromkeys(override):  # (rules given that do not load: their errors, once, before any run)
            if spec not in books:
                books[spec] = load_version(spec)
        runs = plan(cases, list(override))
    else:
        runs = [Run(case, v, v) for case in cases
                for v in (home_versions(case)[-1:] if newest_only else home_versions(case))]
    failed: dict[str, list[Diagnostic]] = {}
    off_the_line: dict[tuple[str, str], list[Diagnostic]] = {}
    for n, run in enumerate(runs):
        if progress is not None:  # (the runs done of all, and the one beginning)
            progress(n, len(runs), run.case.scenario.name)
        if run.spec not in books:
            loaded = _load_for(run.case, run.spec, bool(override), failed)
            if isinstance(loaded, Outcome):
                yield attrs.evolve(loaded, warnings=run_warnings(run.case, loaded, None, off_the_line))
                continue
            books[run.spec] = loaded
        book = books[run.spec]
        o = run_case(run.case, book, budget, None if run.judge == book.version.id else run.judge,
                     between=run.between)
        yield attrs.evolve(o, warnings=run_warnings(run.case, o, book, off_the_line))
    if progress is not None:
        progress(len(runs), len(runs), "")
