"""The `phasing` command: check, run, test, why, versions, show, history, diff, ablate, fmt, cards, import, export.

Everything printed here that a user wrote (names, messages, rule text, paths) is printed as
text: the consoles read no markup, no emoji codes and highlight nothing, and table cells and
titles are `rich.text.Text`. A usage mistake is a diagnostic with exit status 1, like any
other bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import unicodedata
from pathlib import Path
from typing import Callable, NoReturn

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..dsl import atomic, migrate
from ..dsl.diagnostics import Diagnostic, DiagnosticError, Span
from ..dsl.parser import _encoding_diagnostic, parse
from ..dsl.printer import item_lines
from .tools import ablation, compare, reading
from . import api
from .tools import fold, fuzz, survey, why
from .game.budget import DEFAULT_SCALE, Budget
from .rulebook.loading import (card_library_problems, files_of, lineage, load_version, one_listing, rules_path,
                               set_card_files, set_rules_path, shipped_sources, sources)
from .play.scenario import Outcome
from .play.suite import collect, current_version, plan, run_all, written_for
from .drawing import show_table
from .progress import tracking
from .game.trace import grouped_lines, show_value



class _Console(Console):
    """rich's console, but a reader that went away (`phasing show | head`) raises
    BrokenPipeError for `main` to end the command with status 0, where rich would exit 1."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(32, "the reader closed the pipe")


def _console(**options) -> Console:
    """A console that prints what it is given as it is: no markup, no emoji codes, no highlighting."""
    return _Console(markup=False, emoji=False, highlight=False, soft_wrap=True, **options)


out = _console(width=None if sys.stdout.isatty() else 160)
err = _console(stderr=True)


# Characters shown as escapes rather than sent to the terminal: every control (Cc) and format
# (Cf) character but newline and tab (terminal escape sequences; bidirectional, zero-width and
# tag marks; soft hyphens, byte order marks), line and paragraph separators (Zl, Zp), lone
# surrogates (Cs, which no terminal can be sent), and the fillers that draw as nothing.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
BLANK_FILLERS = frozenset("\u034f\u115f\u1160\u180e\u3164\uffa0")
CONTROL = re.compile(r"[^\t\n\x20-\x7e]")  # what may be hidden: `_escape` decides, by category


def hidden(ch: str) -> bool:
    """Whether `ch` is printed as an escape (see HIDDEN_CATEGORIES)."""
    return ch in BLANK_FILLERS or unicodedata.category(ch) in HIDDEN_CATEGORIES


def _escape(match: re.Match) -> str:
    ch = match.group()
    if not hidden(ch):
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str) -> str:
    """`text` with every hidden character (see `hidden`) written as \\xNN, \\uNNNN or \\UNNNNNNNN."""
    return CONTROL.sub(_escape, text)


def plain(text: str) -> Text:
    """Text to print as it is written; control characters (a terminal escape sequence in a
    scenario name, say), bidirectional, zero-width and other invisible marks, and line or
    paragraph separators are shown as \\xNN, \\uNNNN or \\UNNNNNNNN escapes rather than sent to
    the terminal."""
    return Text(shown(str(text)))


def say(text: str = "") -> None:
    """One line of plain text on stdout."""
    out.print(plain(text))


CARET_LINE = re.compile(r"[ \t]*\^+")


def _escaped_lines(rendered: str) -> str:
    """A rendered diagnostic with control characters escaped, its caret line widened to match:
    the caret stays under the column it points at when the source line before it grows."""
    lines = rendered.split("\n")
    for i in range(len(lines) - 1):
        source, caret = lines[i], lines[i + 1]
        if CARET_LINE.fullmatch(caret) and len(caret) <= len(source) + 1 and any(map(hidden, source[:len(caret)])):
            widths = [len(shown(ch)) for ch in source]
            lines[i + 1] = "".join(ch * (widths[k] if k < len(widths) else 1) for k, ch in enumerate(caret))
        lines[i] = shown(lines[i])
    lines[-1] = shown(lines[-1])
    return "\n".join(lines)


class Reporter:
    """Diagnostics to stderr, each file read once however many diagnostics point into it, and
    each diagnostic shown once however many runs it stopped (a broken rulebook stops every
    scenario run under it)."""

    def __init__(self) -> None:
        self.sources: dict[str, str] = {}
        self.seen: set[Diagnostic] = set()

    def _source(self, path: str) -> None:
        if path not in self.sources:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    self.sources[path] = handle.read()
            except (OSError, ValueError):
                self.sources[path] = ""  # no line to show: the head and hint say enough

    def __call__(self, diagnostics) -> None:
        repeated = 0
        for d in diagnostics:
            if d in self.seen:
                repeated += 1
                continue
            self.seen.add(d)
            if d.span.line:
                self._source(d.span.path)
            err.print(Text(_escaped_lines(d.render(self.sources))))
        if repeated:
            err.print(Text(f"  ({repeated} error(s) shown above stopped this run too)"))


def report(diagnostics) -> None:
    Reporter()(diagnostics)


def emit_json(data) -> None:
    """Machine-readable output on stdout, written by json and never by rich."""
    print(json.dumps(data, indent=2, default=str))


def json_errors(diagnostics: list[Diagnostic]) -> dict:
    """What a `--json` command prints on stdout when its input cannot be used."""
    return {"errors": [api.diagnostic_json(d) for d in diagnostics]}


def cmd_check(args) -> int:
    parsed_only: list = []
    problems = api.check_paths(args.paths or None, parsed_only)
    report(problems)
    errors = [d for d in problems if d.kind != "warning"]  # a warning is shown, and fails nothing
    warnings = len(problems) - len(errors)
    if errors:
        err.print(plain(f"{len(errors)} error(s)" + (f", {warnings} warning(s)" if warnings else "")))
    elif warnings:
        say(f"no errors; {warnings} warning(s)")
    else:
        say("no problems found")
    for path in parsed_only:  # (its names and types mean something only under a version)
        say(f"note: {path} was only parsed: a rule file with no manifest outside a version folder is "
            "checked with its version folder, or give it a manifest (variant NAME { title ... extends VERSION })")
    return 1 if errors else 0


def under(o: Outcome) -> str:
    """The rulebook an outcome was played under, and whose expectations judged it when not its own."""
    return f"{o.version}, expectations of {o.judge}" if o.judge else o.version


def outcome_lines(o: Outcome) -> list[str]:
    lines = [f"{'PASS' if o.passed else 'FAIL'} {o.scenario} [{under(o)}]  ({o.path})"]
    for text, ok in o.expectations:
        lines.append(f"  {'ok  ' if ok else 'FAIL'} expect {text}")
    return lines


def _table(title: str, columns: tuple[str, ...]) -> Table:
    """A table whose cells wrap, breaking inside a word when they must, rather than being cut."""
    table = Table(title=plain(title), title_justify="left")
    for col in columns:
        table.add_column(plain(col), overflow="fold")
    return table


def state_table(o: Outcome) -> Table:
    """The final state: one row per object, rule-declared statuses shown where not at their default."""
    table = _table(f"Final state of \"{o.scenario}\" under {o.version} (turn {o.final.get('turn')}, "
                   f"{o.final.get('active')} active)",
                   ("permanent", "card", "zone", "controller", "p/t", "tapped", "attached to", "counters", "statuses"))
    defaults = o.final.get("status_defaults", {})
    for oid, p in o.final.get("permanents", {}).items():
        if p["zone"] != "battlefield":  # (a card elsewhere: where it is, its other keys in --json)
            p = {"card": p["card"], "zone": p["zone"]}
        pt = f"{p.get('power')}/{p.get('toughness')}" if p.get("power") is not None else ""
        counters = ", ".join(f"{k} {v}" for k, v in (p.get("counters") or {}).items())
        statuses = ", ".join(f"{k}={v}" for k, v in p.get("statuses", {}).items() if defaults.get(k) != v)
        cells = (oid, p["card"], p["zone"], p.get("controller", ""), pt, "yes" if p.get("tapped") else "",
                 p.get("attached_to") or "", counters, statuses)
        table.add_row(*(plain(str(cell)) for cell in cells))
    return table


RULE_FILE_HINT = "a scenario file ends in .scenario; check a rule file with `phasing check FILE`"


def refuse_rule_files(paths) -> None:
    """A rule file (`.rules`: a version's, a variant, one holding an `amend`) given to `run` or
    `test` where a scenario file belongs: an error at the file that says so, before anything
    reads it as a scenario file."""
    found = [Diagnostic("error", f"{path} is a rule file, not a scenario file", Span(str(path), 0, 0, 0, 0),
                        RULE_FILE_HINT)
             for path in paths if Path(path).suffix == ".rules" and not Path(path).is_dir()]
    if found:
        raise DiagnosticError(found)


def cmd_run(args) -> int:
    refuse_rule_files([args.scenario])
    cases, problems = collect([args.scenario])
    problems += api.files_without_scenarios([args.scenario], cases, problems)
    if problems:
        raise DiagnosticError(problems)
    # one run per scenario: the newest version it names (`phasing test` runs them all), or under each --rules
    outcomes = list(run_all(cases, args.rules, newest_only=not args.rules, budget=args.budget))
    if args.json:  # (with the warnings the text output shows after each run: `suite.run_warnings`)
        emit_json([api.outcome_json(o) for o in outcomes])
        return 0 if all(o.passed for o in outcomes) else 1
    report_failures = Reporter()
    for o in outcomes:
        if args.trace:
            say(f"Trace of \"{o.scenario}\" under {under(o)}:")
            final = o.final or {}
            for line in grouped_lines(o.trace, final.get("turn"), final_active=final.get("active")):
                say("  " + line)
        if o.final:  # (a game that could not be set up, or stopped before it began, has no state to show)
            show_table(state_table(o), out)
        for line in outcome_lines(o):
            say(line)
        report_failures(o.failures)
        report_failures(o.warnings)
    return 0 if all(o.passed for o in outcomes) else 1


def progress_bar(title: str, args) -> "contextlib.AbstractContextManager":
    """The progress display of a long command (`progress.tracking`): on stderr, only when it is
    a terminal, never under --json. Every long command uses this one (`ablate`, `diff`, `test`)."""
    return tracking(err, title, enabled=not getattr(args, "json", False), clean=shown,
                    redirect_stdout=out.is_terminal)


def cmd_test(args) -> int:
    paths = args.paths or [api.default_suite()]
    refuse_rule_files(paths)
    cases, problems = collect(paths)
    problems += api.files_without_scenarios(paths, cases, problems)
    if args.rules and (cases or not problems):  # what runs under each --rules is known first: nothing is an error
        plan(cases, args.rules)
    if args.json:
        return test_json(cases, problems, args)
    report_failures = Reporter()
    report_failures(problems)
    passed = failed = 0
    with progress_bar("test", args) as progress:
        for o in run_all(cases, args.rules or None, budget=args.budget, progress=progress) if cases else ():
            passed, failed = _tested(o, args, report_failures, passed, failed)
    failed += len(problems)
    say(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def _tested(o: Outcome, args, report_failures, passed: int, failed: int) -> tuple[int, int]:
    """One run of `test` said as it ends (a failure in full, a pass with -v); the counts after it."""
    if o.passed:
        passed += 1
        if args.verbose:
            say(f"PASS {o.scenario} [{under(o)}]")
    else:
        failed += 1
        for line in outcome_lines(o):
            say(line)
        report_failures(o.failures)
    report_failures(o.warnings)
    return passed, failed


def test_json(cases, problems: list[Diagnostic], args) -> int:
    """`test --json`: every run `test` plays, each as `run --json` gives it without its trace,
    the problems that stopped a file from running, and the counts; the same exit status."""
    runs = [api.outcome_json(o, with_trace=False) for o in (run_all(cases, args.rules or None, budget=args.budget) if cases else ())]
    passed = sum(r["passed"] for r in runs)
    failed = len(runs) - passed + len(problems)
    emit_json({"passed": passed, "failed": failed, "problems": [api.diagnostic_json(d) for d in problems],
               "runs": runs})
    return 1 if failed or not passed else 0


def cmd_fold(args) -> int:
    """`phasing fold VERSION`: plan, prove on a staged copy, then write (nothing is written
    unless the proof holds)."""
    planned = fold.plan_fold(args.release)
    into = Path(args.into) if args.into else None
    fold.target_root(planned, into)  # (a folder it cannot write into is said before the proof)
    with progress_bar("fold", args) as progress:
        proof = fold.prove(planned, fold.suite_paths(args.paths), args.budget, progress)
    say(f"proved: {len(proof.versions)} versions and variants mean what they meant, "
        f"and {proof.runs} runs of the suite end as they did")
    for line in fold.write(planned, into):
        say(line)
    say(fold.shadowing_note(planned, into))
    return 0


def cmd_why(args) -> int:
    cases, problems = collect([args.scenario])
    problems += api.files_without_scenarios([args.scenario], cases, problems)
    if problems:
        raise DiagnosticError(problems)
    for version in args.rules or ():
        load_version(version)  # (an unknown version or variant: an error before anything runs)
    for version in args.rules or [None]:
        passed_over: list = []
        for a in why.explain(cases, args.object, args.at, version, passed_over):
            say(f"why {args.object}: \"{a.scenario}\" under {a.version}" + (f", script step {args.at}" if args.at else ""))
            for line in a.lines:
                say("  " + line)
        for case, problems in passed_over:  # (scenarios without the object that could not run)
            more = f" (and {len(problems) - 1} more error(s))" if len(problems) > 1 else ""
            say(f"note: passed over \"{case.scenario.name}\" ({case.scenario.span}), which could not run: "
                f"{problems[0].span}: {problems[0].message}{more}")
    return 0


VERSION_COLUMNS = ("version", "rule", "extends", "blocks", "from", "what it is / what changed")
SUMMARY_LEAST = 24
"""The narrowest a version's summary is cut to, however little room the other columns leave."""


def cmd_versions(args) -> int:
    return _versions_table(_table("Rule versions", VERSION_COLUMNS), getattr(args, "long", False))


SENTENCE = re.compile(r"(.+?[.!?])(?=\s|$)", re.S)


def first_sentence(text: str) -> str:
    """The first sentence of a version's notes (up to a full stop, question or exclamation
    mark followed by a space or the end), or all of it when it has no such end."""
    found = SENTENCE.match(text.strip())
    return found.group(1) if found else text.strip()


def cut_to(text: str, width: int) -> str:
    """`text` cut at a word to at most `width` cells, ending in " ..." when cut."""
    if cell_len(text) <= width:
        return text
    room = max(width - 4, 1)
    head = text[:room]
    while cell_len(head) > room:
        head = head[:-1]
    if " " in head[1:] and text[len(head)] != " ":
        head = head[:head.rindex(" ")]
    return head.rstrip() + " ..."


def _versions_table(table, long: bool = False) -> int:
    """`cmd_versions` under `one_listing()`: every version and variant loaded, one row each;
    each row one line (its notes' first sentence, cut to the room the other columns leave on
    the console), or with `long` the whole notes."""
    found = sources()
    order = [s for s in found if s.kind == "version"] + [s for s in found if s.kind == "variant"]
    problems = []
    rows = []
    for source in sorted(order, key=lambda s: (s.kind == "variant", s.name)):
        origin = str(source.origin) if source.origin else "shipped"
        name = source.name if source.kind == "version" else f"{source.name} (variant)"
        try:
            book = load_version(source.name)
        except DiagnosticError as exc:  # one of the user's files that does not load: listed, its errors shown
            problems += exc.diagnostics
            rows.append((name, "", "", "", origin, "does not load: see the errors below"))
            continue
        sections = ", ".join(s.rule for s in book.version.sections)
        if book.version.reconstructed is not None:  # a kind of version: rebuilt, not read from its own text
            name += " (reconstructed)"
        notes = " ".join(book.version.notes)
        rows.append((name, sections, book.version.extends or "", str(len(book.rules)), origin,
                     notes if long else first_sentence(notes)))
    if not long and rows:
        others = [max(cell_len(shown(row[k])) for row in [VERSION_COLUMNS, *rows]) for k in range(len(VERSION_COLUMNS) - 1)]
        room = max(out.width - sum(others) - 3 * len(VERSION_COLUMNS) - 1, SUMMARY_LEAST)
        rows = [(*row[:-1], cut_to(row[-1], room)) for row in rows]
    for row in rows:
        table.add_row(*(plain(cell) for cell in row))
    show_table(table, out)
    if problems:
        raise DiagnosticError(problems)
    return 0


def _cr_lines(cr, rule) -> list[str]:
    """The Comprehensive Rules text of a block's id, to print under the block."""
    text = cr.text(rule.id)
    if text is None:
        return [f"  CR {rule.id}: (no rule {rule.id} in {cr.path})"]
    first, *more = text.split("\n")
    return [f"  CR {rule.id}: {first}"] + [f"    {line}" for line in more]


def cmd_show(args) -> int:
    book = reading.version_to_show(args.version)
    blocks = reading.select_blocks(book, args.blocks) if args.blocks else None
    cr = reading.read_cr(args.cr) if args.cr else None
    cr_note = reading.matching_cr(book, cr) if cr is not None else None
    if args.json:
        rules = blocks if blocks is not None else list(book.rules)
        emit_json({"version": book.version.id, "title": book.version.title, "cr": cr and cr.date,
                   **({"cr_note": cr_note} if cr_note else {}),
                   "reconstructed": book.version.reconstructed, **reading.declarations_json(book),
                   "blocks": [{**reading.block_json(r, book), **({"cr": cr.text(r.id)} if cr else {})} for r in rules]})
        return 0
    if cr_note:
        say(f"# {cr_note}")
    if blocks is None:
        say(f"# {book.version.title or book.version.id}")
        if book.version.reconstructed is not None:
            say(f"# reconstructed: {book.version.reconstructed}")
        say("\n".join(item_lines(book.turn)))
        for decl in [*book.zones.values(), *book.observations.values(), *book.statuses.values()]:
            say("\n".join(item_lines(decl)))
        for verb in book.verbs.values():
            say("\n".join(item_lines(verb)))
    for n, rule in enumerate(blocks if blocks is not None else book.rules):
        if blocks is None or n:
            say()
        say("\n".join(reading.block_lines(book, rule) + (_cr_lines(cr, rule) if cr else [])))
    return 0


def cmd_history(args) -> int:
    found = reading.history(args.slug)
    if args.json:
        emit_json(found.to_json())
        return 0
    say(f"History of {found.slug}: in {sum(len(s.versions) for s in found.stages)} of "
        f"{sum(len(s.versions) for s in found.stages) + len(found.absent)} versions")
    shown = None  # the last stage printed in full
    for stage in found.stages:
        say()
        if stage.since is None:
            change = "first version with it"
        else:
            words = {"renumbered": f"renumbered {stage.since_id} -> {stage.rule.id}",
                     "reworded": "summary reworded", "changed": "MEANING CHANGED",
                     "follows": f"order follows {', '.join(stage.follows)} (same meaning)",
                     reading.REFERENCES: "only the ids it refers to renumbered (same meaning)"}
            change = ", ".join(words.get(k, k) for k in stage.changes) or "printed the same"
            if "reworded" in stage.changes and "changed" not in stage.changes:
                change += " (only reworded: the clauses mean the same)"
            change = f"since {stage.since}: {change}"
        say(f"== {stage.dates} ({len(stage.versions)} version{'s' if len(stage.versions) > 1 else ''}); {change}")
        lines = item_lines(stage.rule)
        if shown is not None and lines[1:] == item_lines(shown.rule)[1:]:  # only the head line differs
            lines = [lines[0].removesuffix(" {"), f"  (clauses as shown for {shown.dates})"]
        else:
            shown = stage
        say("\n".join(lines))
    if found.absent:
        say()
        say(f"Not in: {', '.join(found.absent)}")
    return 0


def cmd_ablate(args) -> int:
    if args.paths:  # the scenarios named must be there and readable, or the ablation means nothing
        cases, problems = collect(args.paths)
        problems += api.files_without_scenarios(args.paths, cases, problems)
        if problems:
            raise DiagnosticError(problems)
    with progress_bar(f"ablate {args.version}", args) as progress:
        result = ablation.ablate(args.version, args.paths or [api.default_suite()], budget=args.budget,
                                 progress=progress)
    status = 0 if result.all_load_bearing and not result.stopped else 1
    if args.json:
        emit_json(result.to_json())
        return status
    say(f"Ablation of {args.version}: each block deleted in turn, {result.scenarios} scenarios rerun each time")
    if result.own is not None:
        say(f"  (blocks marked * are {result.version}'s own; the others it inherits from {result.base})")
    for row in result.rows:
        head = f"{row.rule.id} {row.rule.slug}" + (" *" if result.own and row.rule.slug in result.own else "")
        if row.kind == "assertion":
            say(f"  {head:<45} assertion  restates other blocks; checked after every change")
            continue
        if row.kind == "definition":
            say(f"  {head:<45} definition its behaviour is written in another block")
            continue
        verdict = f"{len(row.changed)} scenario(s) change" if row.changed else "NOT LOAD-BEARING: no scenario changes"
        say(f"  {head:<45} operative  {verdict}")
        for label in row.changed[: args.limit]:
            say(f"      - {label}")
        if len(row.changed) > args.limit:
            say(f"      ... and {len(row.changed) - args.limit} more")
    say(result.summary())
    say_budget_stops(result.stopped)
    return status


def say_budget_stops(stopped) -> None:
    """The runs the budget stopped, each with the error that names the block (as `run` gives it)."""
    if not stopped:
        return
    say()
    say(f"Stopped by the budget ({len(stopped)} run{'' if len(stopped) == 1 else 's'}; raise it with --budget N, the scale, default {DEFAULT_SCALE}):")
    for s in stopped:
        say(f"  {s.scenario} ({Path(s.path).name}) under {s.version}: {s.message}")


def _not_run_groups(not_run, a: str, b: str) -> dict[tuple[str | None, str], list[tuple[str, str]]]:
    """The scenarios `a` or `b` (or each) cannot play, grouped by the one that plays them (None:
    neither) and why the other cannot (the first error, and the rulebook it comes from):
    {(plays them, why): [(scenario, file)]}, groups and scenarios in the order met."""
    by_case: dict[tuple[str, str], dict[str, str]] = {}
    for n in not_run:
        by_case.setdefault((n.scenario, n.path), {})[n.version] = n.message
    groups: dict[tuple[str | None, str], list[tuple[str, str]]] = {}
    for case, errors in by_case.items():
        if len(errors) == 1 and a != b:
            (version, message), = errors.items()
            key = (b if version == a else a, f"under {version}: {message}")
        elif len(set(errors.values())) == 1:
            key = (None, f"under each: {next(iter(errors.values()))}")
        else:
            key = (None, "; ".join(f"under {v}: {m}" for v, m in errors.items()))
        groups.setdefault(key, []).append(case)
    return groups


def say_not_run(groups) -> None:
    """The scenarios a diff could not compare because one rulebook (or each) cannot play them,
    by the one that can and why the other cannot: written for other rules, they are no failure."""
    if not groups:
        return
    total = sum(len(g) for g in groups.values())
    say()
    say(f"Not compared, as a rulebook cannot play them ({total} scenario{'' if total == 1 else 's'}):")
    for (only, reason), group in groups.items():
        head = f"only under {only}" if only is not None else "under neither"
        say(f"  {len(group)} run {head}; {reason}")
        for scenario, path in group:
            say(f"    {scenario} ({Path(path).name})")


def cmd_diff(args) -> int:
    a, b = load_version(args.a), load_version(args.b)
    paths = args.paths or [api.default_suite()]
    cases, problems = collect(paths)
    problems += api.files_without_scenarios(args.paths, cases, problems) if args.paths else []
    if problems:
        raise DiagnosticError(problems)
    if not args.paths:  # (the suite: the scenarios `test --rules` runs under either)
        cases = written_for(cases, [args.a, args.b])
    blocks = compare.rulebook_diff(a, b)
    stopped: list = []  # runs the budget stopped: they compare nothing, and make the diff fail
    not_run: list = []  # scenarios one of them (or each) cannot play: written for other rules, no failure
    with progress_bar(f"diff {args.a} {args.b}", args) as progress:
        scenarios = compare.behaviour_diff(a, b, cases, budget=args.budget, stopped=stopped, not_run=not_run,
                                           progress=progress, raw=args.raw)
    witness = None
    if args.search:
        with progress_bar(f"search of {args.search} games", args) as progress:
            witness = compare.search_witness(a, b, args.search, budget=args.budget, progress=progress, raw=args.raw)
    A, B = a.version.id, b.version.id
    groups = _not_run_groups(not_run, A, B)
    differs = bool(blocks or scenarios or witness)
    status = 1 if stopped or (args.exit_code and differs) else 0
    left_out = {(s.path, s.scenario) for s in stopped} | {(n.path, n.scenario) for n in not_run}
    compared = len(cases) - len(left_out)
    kinds = {c.slug: [k for k in c.kinds if k in ("added", "removed", "changed")] for c in blocks}
    if args.meaning_only:
        blocks = compare.of_meaning_only(blocks)
    summary = compare.summary(blocks, scenarios, compared)
    if args.json:
        emit_json({"summary": summary, "rules": [c.to_json() for c in blocks],
                   "scenarios": [s.to_json() for s in scenarios],
                   "compared": compared, "cannot_run": [n.to_json() for n in not_run],
                   "witness": witness, "differs": differs,
                   **({"stopped_by_budget": [s.to_json() for s in stopped]} if stopped else {})})
        return status

    def change_of(slug: str) -> str:
        return f"{slug} ({', '.join(kinds.get(slug, ()))})"

    say_summary(summary, A, B, bool(args.paths), args.meaning_only, change_of)

    say(f"Rulebooks {A} -> {B}, aligned by slug:")
    if not blocks:
        say("  no block differs")
    for c in blocks:
        ids = f"{c.a_id or '-'} -> {c.b_id or '-'}" if c.a_id or c.b_id else ""
        shown = [f"order follows {', '.join(c.follows)}" if k == "follows" else k for k in c.kinds]
        say(f"  {c.slug:<34} {', '.join(shown):<28} {ids}")
        if "reworded" in c.kinds or c.kinds in (("added",), ("removed",)) and c.a_summary != c.b_summary:
            if c.a_summary:
                say(f"      {A}: {c.a_summary}")
            if c.b_summary:
                say(f"      {B}: {c.b_summary}")
        for clause in c.clauses:
            kind = f"changed to follow {', '.join(clause.follows)}" if clause.kind == "follows" else clause.kind
            say(f"      clause {kind}: {clause.name}")
            for mark, text in (("-", clause.a_text), ("+", clause.b_text)):
                for line in (text or "").splitlines():
                    say(f"        {mark} {line}")
    if any(c.clauses for c in blocks):
        say(f"  (clause lines: - as in {A}, + as in {B})")
    say()
    parts = {"stopped by the budget": len({(s.path, s.scenario) for s in stopped})} if stopped else {}
    for (only, _reason), group in groups.items():
        words = f"run only under {only}" if only is not None else "run under neither"
        parts[words] = parts.get(words, 0) + len(group)
    reasons = next(iter(parts)) if len(parts) == 1 else ", ".join(f"{n} {words}" for words, n in parts.items())
    which = f"scenarios of the suite written for {A} or {B}" if not args.paths else "scenarios"
    say(f"Behaviour: {len(scenarios)} of {compared} {which} play differently"
        + (f" ({len(left_out)} not compared: {reasons})" if left_out else ""))
    for s in scenarios:
        say(f"  {s.scenario} ({Path(s.path).name})")
        width = max([32] + [len(key) + 1 for key, _va, _vb in s.fields])
        for key, va, vb in s.fields:
            say(f"      {key:<{width}} {A}: {show_value(va):<14} {B}: {show_value(vb)}")
        if s.accounted_by:
            say(f"      accounted for by: {', '.join(map(change_of, s.accounted_by))}: made alone in {A}, "
                f"gives {B}'s outcome")
        elif s.together:
            say(f"      accounted for together by: {' + '.join(map(change_of, s.together))}: made together in {A}, "
                f"they give {B}'s outcome (no one of them alone does)")
        else:
            say("      no block change accounts for it, alone or with another")
        if s.changed_by:
            say(f"      also changed by: {', '.join(map(change_of, s.changed_by))}: made alone in {A}, "
                "changes its outcome, but not to " + B + "'s")
    say_budget_stops(stopped)
    say_not_run(groups)
    if args.search:
        say()
        if witness is None:
            say(f"no behavioural difference found in {args.search} generated games")
        else:
            say(f"A generated game that tells them apart (passes under {A}, fails under {B}):")
            say(witness)
    return status


def say_summary(summary: dict, A: str, B: str, given: bool, meaning_only: bool, change_of) -> None:
    """What `diff` comes to, first: the changes to the rules by kind, and the scenarios that play
    differently grouped by what accounts for them."""
    rules = summary["rules"]
    shown = [f"{rules[k]} {'changed in meaning' if k == 'changed' else k}" for k in compare.RULE_KINDS
             if rules[k] and not (meaning_only and k in ("reworded", "renumbered", "follows"))]
    if rules["follows"] and not meaning_only:
        shown[-1] = shown[-1].replace("follows", "with an order that only follows them")
    say(f"Summary of {A} -> {B}:")
    say(f"  rules: {', '.join(shown) if shown else 'no block or declaration differs'}"
        + (" (changes of meaning only)" if meaning_only else ""))
    which = "scenarios" if given else f"scenarios of the suite written for {A} or {B}"
    say(f"  behaviour: {summary['scenarios_differ']} of {summary['scenarios_compared']} {which} play differently")
    for group in summary["accounted"]:
        n, by = group["scenarios"], group["by"]
        if not by:
            say(f"    {n} that no block change accounts for, alone or with another")
        elif group["together"]:
            say(f"    {n} accounted for by {' + '.join(map(change_of, by))}, together")
        else:
            say(f"    {n} accounted for by {', '.join(map(change_of, by))}")
    say()


# ---------------------------------------------------------------------------- shell completion

SHELLS = ("bash", "zsh")


def cmd_completion(args) -> int:
    """`phasing completion bash|zsh`: a completion script made from the parser itself (every
    command, option and choice), with the names of the versions and variants found now."""
    for line in completion_script(args.shell, build_parser()).rstrip("\n").split("\n"):
        print(line)
    return 0


def _completion_words(parser: argparse.ArgumentParser) -> tuple[dict, list[str]]:
    """What completion needs of the parser: {command: (help, [(option strings, kind, help,
    repeatable)], [(kind, name, nargs, help)])}, kinds being "versions", "files", "none",
    "flag" or a tuple of choices; and the version and variant names (listed, not loaded)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help or "" for c in sub._choices_actions}

    def kind(action) -> object:
        if action.choices:
            return tuple(action.choices)
        if action.nargs == 0:
            return "flag"
        if action.type is rules_text:
            return "versions"
        if action.type is path_text:
            return "files"
        return "none"

    commands = {}
    for name, command in sub.choices.items():
        options, positionals = [], []
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                options.append((tuple(action.option_strings), "flag", "show this help", False))
            elif action.option_strings:
                options.append((tuple(action.option_strings), kind(action), action.help or "",
                                isinstance(action, argparse._AppendAction)))
            else:
                positionals.append((kind(action), action.metavar or action.dest, action.nargs, action.help or ""))
        commands[name] = (helps.get(name, ""), options, positionals)
    try:
        names = [source.name for source in sources()]
    except DiagnosticError:  # (a rules path that cannot be read: the shipped names still complete)
        names = [source.name for source in shipped_sources()]
    return commands, names


def _sh_words(words) -> str:
    """Words for a shell's double-quoted string (the names and options hold no quote or $)."""
    return " ".join(w for w in words if re.fullmatch(r"[\w.+:,/@%=-]+", w))


def completion_script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for `shell` (bash or zsh), generated from `parser`."""
    commands, names = _completion_words(parser)
    return (_bash_script if shell == "bash" else _zsh_script)(commands, names)


def _bash_script(commands: dict, names: list[str]) -> str:
    lines = ["# bash completion for phasing, made by `phasing completion bash`.",
             "# Load it with: eval \"$(phasing completion bash)\", or save it as",
             "# ~/.local/share/bash-completion/completions/phasing",
             f'_phasing_versions="{_sh_words(names)}"',
             "_phasing() {",
             '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" i n=0 kind="" word',
             '    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
             "    COMPREPLY=()",
             '    for (( i=1; i<COMP_CWORD; i++ )); do',
             '        case "${COMP_WORDS[i]}" in -*) ;; *) cmd="${COMP_WORDS[i]}"; break ;; esac',
             "    done",
             '    if [[ -z "$cmd" ]]; then',
             f'        COMPREPLY=( $(compgen -W "{_sh_words(commands)} --help --version" -- "$cur") )',
             "        return 0",
             "    fi",
             '    local opts="" valued="" positional=""',
             '    case "$cmd" in']
    for name, (_help, options, positionals) in commands.items():
        opts = [o for strings, _k, _h, _r in options for o in strings]
        valued = [o for strings, k, _h, _r in options if k != "flag" for o in strings]
        kinds = []
        for k, _name, nargs, _h in positionals:
            word = "choices:" + ",".join(k) if isinstance(k, tuple) else k
            kinds.append(word + ("+" if nargs in ("*", "+") else ""))  # (+: this and every word after)
        lines.append(f'        {name}) opts="{_sh_words(opts)}"; valued="{_sh_words(valued)}"; '
                     f'positional="{_sh_words(kinds)}" ;;')
    lines += ['        *) return 0 ;;',
              "    esac",
              "    case \"$prev\" in"]
    by_kind: dict[object, set[str]] = {}
    for _help, options, _p in commands.values():
        for strings, k, _h, _r in options:
            if k != "flag":
                by_kind.setdefault(k if not isinstance(k, tuple) else "choices:" + ",".join(k), set()).update(strings)
    for k, strings in sorted(by_kind.items()):
        lines.append(f'        {"|".join(sorted(strings))}) kind="{k}" ;;')
    lines += ["    esac",
              '    if [[ -z "$kind" ]]; then',
              '        if [[ "$cur" == -* ]]; then',
              '            COMPREPLY=( $(compgen -W "$opts" -- "$cur") )',
              "            return 0",
              "        fi",
              '        local skip=""',  # (the words after the command that are no positional: options and their values)
              '        for (( i=i+1; i<COMP_CWORD; i++ )); do',
              '            word="${COMP_WORDS[i]}"',
              '            if [[ -n "$skip" ]]; then skip=""; continue; fi',
              '            case "$word" in -*=*) continue ;; -*) [[ " $valued " == *" $word "* ]] && skip=1; continue ;; esac',
              "            n=$((n+1))",
              "        done",
              "        local k=0",
              "        for word in $positional; do",
              '            if [[ "$word" == *+ ]]; then kind="${word%+}"; break; fi',
              '            if (( k == n )); then kind="$word"; break; fi',
              "            k=$((k+1))",
              "        done",
              "    fi",
              '    case "$kind" in',
              '        versions) COMPREPLY=( $(compgen -W "$_phasing_versions" -- "$cur") $(compgen -d -- "$cur") ) ;;',
              '        files) COMPREPLY=( $(compgen -f -- "$cur") ) ;;',
              '        choices:*) word="${kind#choices:}"; COMPREPLY=( $(compgen -W "${word//,/ }" -- "$cur") ) ;;',
              "    esac",
              "    return 0",
              "}",
              "complete -o filenames -o bashdefault -F _phasing phasing"]
    return "\n".join(lines) + "\n"


def _zsh_text(text: str) -> str:
    """An option's or command's help cut to a short description zsh's specs can hold."""
    text = re.sub(r"[\[\]:'\\`$()]", "", text.split(";")[0]).strip()
    return text[:70]


def _zsh_action(kind) -> str:
    if isinstance(kind, tuple):
        return "(" + " ".join(kind) + ")"
    return {"versions": "_phasing_versions", "files": "_files"}.get(kind, " ")


def _zsh_script(commands: dict, names: list[str]) -> str:
    lines = ["#compdef phasing",
             "# zsh completion for phasing, made by `phasing completion zsh`.",
             "# Load it with: eval \"$(phasing completion zsh)\" (after compinit), or save it as _phasing",
             "# in a folder of $fpath.",
             "",
             "_phasing_versions() {",
             f"  local -a names; names=({_sh_words(names)})",
             "  _describe -t versions 'version or variant' names",
             "  _files -/",
             "}",
             "",
             "_phasing() {",
             "  local -a commands",
             "  commands=("]
    lines += [f"    '{name}:{_zsh_text(help)}'" for name, (help, _o, _p) in commands.items()]
    lines += ["  )",
              "  if (( CURRENT == 2 )); then",
              "    _describe -t commands 'phasing command' commands",
              "    return",
              "  fi",
              "  local command=${words[2]}",
              "  shift words",
              "  (( CURRENT-- ))",
              "  case $command in"]
    for name, (_help, options, positionals) in commands.items():
        specs = []
        for strings, kind, help, repeatable in options:
            for option in strings:
                spec = ("*" if repeatable else "") + f"{option}[{_zsh_text(help)}]"
                if kind != "flag":
                    spec += f":{_zsh_text(option.lstrip('-'))}:{_zsh_action(kind)}"
                specs.append(spec)
        for kind, metavar, nargs, _help in positionals:
            head = "*:" if nargs in ("*", "+") else "::" if nargs == "?" else ":"
            specs.append(f"{head}{_zsh_text(str(metavar))}:{_zsh_action(kind)}")
        lines.append(f"    {name})")
        lines.append("      _arguments -s \\")
        lines += [f"        '{spec}' \\" for spec in specs]
        lines.append("      ;;")
    lines += ["  esac",
              "}",
              "",
              'if [[ "${funcstack[1]}" == _phasing ]]; then',
              '  _phasing "$@"',
              "else",
              "  compdef _phasing phasing",
              "fi"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- the parser


class UsageError(Exception):
    """A command line argparse cannot read: reported as a diagnostic, exit status 1."""

    def __init__(self, prog: str, message: str, usage: str):
        super().__init__(message)
        self.diagnostic = Diagnostic("error", message, Span(prog, 0, 0, 0, 0), f"see '{prog} --help'")
        self.usage = usage


class Parser(argparse.ArgumentParser):
    """argparse, except that a usage mistake raises `UsageError` (exit 1 in `main`), not
    SystemExit(2). A command whose parser has `intermixed` set takes its options anywhere
    among its names (`show 2026-09-25 --json 702.26g`), not only before or after them all."""

    intermixed = False
    _mixing = False  # (parse_known_intermixed_args calls parse_known_args itself, twice)

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message, self.format_usage())

    def parse_known_args(self, args=None, namespace=None):
        if not self.intermixed or self._mixing:
            return super().parse_known_args(args, namespace)
        self._mixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._mixing = False


def text_argument(what: str, may_be_blank: bool = False) -> Callable[[str], str]:
    """A reader of a name given on the command line (a path, a version, a block): not empty
    (which would silently mean the current folder or the default), not blank unless
    `may_be_blank` (a path may be), and without NUL characters (which no name holds)."""
    def read(text: str) -> str:
        if not (text if may_be_blank else text.strip()) or "\0" in text:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return text
    return read


path_text = text_argument("a path", may_be_blank=True)
rules_text = text_argument("a version, variant or folder")
block_text = text_argument("a block id or slug")


def number_argument(least: int, what: str) -> Callable[[str], int]:
    """A reader of an option's whole number, `least` or more, written in digits."""
    def read(text: str) -> int:
        if not text.isascii() or not text.isdigit() or len(text) > 12 or int(text) < least:
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}")
        return int(text)
    return read


whole_number = number_argument(0, "a whole number, zero or more")
step_number = number_argument(1, "a step number, 1 or more")


def _readable_modules(paths, names: frozenset | None = None, known: dict | None = None) -> list:
    """The rule files among `paths` that parse and (when `names` is given) name one of the
    statuses `names` (one that names none can neither declare them nor hide by them), parsed
    and not checked: what fmt rewrites may be exactly what the checker rejects (a condition
    that is always true). A file that does not read or parse is left out (it is reported
    when it is one of the files `fmt` rewrites). `known` keeps, by path, what was read: the
    text, then the tree once parsed, or None; so each file is read and parsed at most once."""
    known = {} if known is None else known
    named = re.compile("|".join(rf"(?<![\w-]){re.escape(name)}(?![\w-])" for name in sorted(names or ())))
    modules = []
    for path in paths:
        key = str(path)
        if key not in known:
            try:
                known[key] = migrate.read(path)
            except (OSError, UnicodeDecodeError):
                known[key] = None
        if isinstance(known[key], str):
            if names is not None and (not names or named.search(known[key]) is None):
                continue
            try:
                known[key] = parse(known[key], key)
            except DiagnosticError:
                known[key] = None
        if known[key] is not None:
            modules.append(known[key])
    return modules


def _fmt_vocabulary(path: Path, names: frozenset, module, known: dict) -> "migrate.Vocabulary":
    """What `phasing fmt` knows of the statuses `names` for the file at `path` (whose tree is
    `module`): the newest version's, with what the rule files of the file's folder declare
    taking precedence (a version folder's own). Asked for by `migrate.rewrite` only when the
    file has a query testing these statuses with `or`; only the rule files that name one of
    them are parsed (issue 43: a small file beside a large one reads only the small one)."""
    known[str(path)] = module  # (the file itself, read and parsed already)
    newest = ("newest version",)  # (a key no path is)
    if newest not in known:
        try:
            known[newest] = files_of(current_version())
        except DiagnosticError:
            known[newest] = []
    base = migrate.Vocabulary.of(_readable_modules(known[newest], names, known))
    own = migrate.Vocabulary.of(_readable_modules(sorted(path.parent.glob("*.rules")), names, known))
    return base.merged(own)


def cmd_fmt(args) -> int:
    """Rewrite older forms of the language (`dsl.migrate`): show the diff, check or write."""
    paths, problems = migrate.files(args.paths)
    if problems:
        raise DiagnosticError(problems)
    known: dict = {}  # (what `_fmt_vocabulary` read, shared by all the files)
    changed: list[tuple[Path, str, str]] = []
    for path in paths:
        try:
            before = migrate.read(path)
        except UnicodeDecodeError as exc:
            problems.append(_encoding_diagnostic(exc, str(path)))
            continue
        try:
            after = migrate.rewrite(before, str(path),
                                    lambda names, module, path=path: _fmt_vocabulary(path, names, module, known))
        except DiagnosticError as exc:
            problems.extend(exc.diagnostics)
            continue
        if after != before:
            changed.append((path, before, after))
    if problems:  # nothing is written while any file does not read
        report(problems)
        err.print(plain(f"{len(problems)} error(s): no file was changed"))
        return 1
    files = f"{len(changed)} file{'' if len(changed) == 1 else 's'}"
    if args.write:
        refused = [problem for path, _before, _after in changed
                   if (problem := atomic.target_problem(path, replace=True, force=args.force)) is not None]
        if refused:  # nothing is written while any file cannot be
            report([d for exc in refused for d in exc.diagnostics])
            err.print(plain(f"{len(refused)} file(s) cannot be written: no file was changed"))
            return 1
        written = 0
        for path, before, after in changed:
            try:
                real = migrate.write(path, after, before, force=args.force)
            except atomic.WriteRefused as exc:  # changed meanwhile: the others are still written
                refused.append(exc)
                report(exc.diagnostics)
                continue
            written += 1
            say(f"wrote {path}" + (f" (a link: wrote the file it leads to, {real})" if migrate.linked(path) else ""))
        say(f"{written} file{'' if written == 1 else 's'} written")
        if refused:
            err.print(plain(f"{len(refused)} file(s) not written: they changed while fmt ran"))
            return 1
        return 0
    for path, before, after in changed:
        for line in migrate.diff(path, before, after):
            say(line)
    say(f"{files} would be changed")
    return 1 if args.check and changed else 0


def _card_status(card: "survey.SurveyedCard") -> str:
    """What the survey says of a card, with its scenarios' count and verdict."""
    if card.status == survey.NOT_WRITTEN:
        return card.status
    if not card.tested:
        return f"{card.status}, untested" if card.status == survey.WRITTEN else card.status
    n = len(card.scenarios)
    failing = sum(not s.passed for s in card.scenarios)
    verdict = "all pass" if not failing else f"{failing} failing"
    return f"{card.status}; {n} scenario{'' if n == 1 else 's'}, {verdict}"


def _card_details(card: "survey.SurveyedCard") -> str:
    if card.status == survey.NOT_WRITTEN:
        return "needs: " + (", ".join(card.features) if card.features else "(the pool lists no features)")
    lines = [f"from {card.source}"] if card.source else []  # (a card of your own)
    lines += [f"leaves out: {text}" for text in card.partial]
    if card.status == survey.WRITTEN and not card.tested:
        lines.append("no scenario of the conformance suite (or of --scenarios) puts it into play")
    lines += [f"{'' if s.passed else 'FAIL '}{s.scenario} ({Path(s.path).name})" for s in card.scenarios]
    return "\n".join(lines)


def cmd_cards(args) -> int:
    """A survey of a card pool against the card library: written, partial, not written."""
    found = survey.run(args.pool, args.only, args.scenarios or ())
    if args.json:
        emit_json(found.to_json())
        return 0
    library = " and ".join("the shipped card library" if part == "shipped" else part for part in found.library)
    table = _table(f"Cards of {found.pool} against {library}", ("card", "status", "scenarios, or what it lacks"))
    for card in found.cards:
        table.add_row(plain(card.name), plain(_card_status(card)), plain(_card_details(card)))
    show_table(table, out)
    summary = found.summary()
    say(f"{summary['written']} written, {summary['partial']} partial, {summary['not written']} not written, "
        f"of {summary['total']} cards ({summary['untested']} of the written untested: no scenario plays them)")
    needs = found.needs()
    if needs:
        table = _table("What to build next: the features the partial and not-written cards need",
                       ("feature", "cards", "which"))
        for need in needs:
            table.add_row(plain(need.feature), plain(str(len(need.names))), plain(", ".join(need.names)))
        show_table(table, out)
    return 0


def cmd_import(args) -> int:
    """`phasing import forge FILE`: a Forge game state as a scenario (`interop.forge`), on stdout
    or in `-o OUT` (a file that exists only with --force); its warnings and errors on stderr,
    and under --json all three as one object."""
    from ..interop import forge, output

    out = Path(args.output) if args.output else None
    refused = output.refusal(out, args.force)
    try:
        result = forge.import_state(args.file, args.mapping, args.cards or ()) if refused is None else \
            forge.Imported(None, (), (refused,))
        if result.scenario is not None and out is not None:
            output.write(out, result.scenario, args.force)
    except DiagnosticError as exc:
        result = forge.Imported(None, (), tuple(exc.diagnostics))
    except OSError as exc:
        result = forge.Imported(None, (), (api.os_error_diagnostic(exc, args.file),))
    report(sorted(result.warnings + result.errors, key=lambda d: (d.span.path, d.span.line, d.span.column)))
    if args.json:
        emit_json({"scenario": result.scenario, "output": str(out) if out is not None and result.scenario is not None else None,
                   "warnings": [api.diagnostic_json(d) for d in result.warnings],
                   "errors": [api.diagnostic_json(d) for d in result.errors]})
    elif result.scenario is not None:
        _printed_or_written(result.scenario, out)
    counts = f"{len(result.warnings)} warning(s)" if result.warnings else ""
    if result.errors:
        err.print(plain(f"{len(result.errors)} error(s)" + (f", {counts}" if counts else "") + ": no scenario was made"))
        return 1
    if counts:
        err.print(plain(f"imported with {counts}: what they name is not in the scenario"))
    return 0


def cmd_export(args) -> int:
    """`phasing export forge SCENARIO`: a scenario's starting state in Forge's game-state text
    (`interop.forge_export`), on stdout or in `-o OUT` as `import` writes; warnings on stderr."""
    from ..interop import forge_export, output

    out = Path(args.output) if args.output else None
    refused = output.refusal(out, args.force)
    if refused is not None:
        raise DiagnosticError(refused)
    result = forge_export.export_scenario(args.scenario, args.name, args.mapping)
    report(list(result.warnings) + list(result.errors))
    if result.errors:
        err.print(plain(f"{len(result.errors)} error(s): no state was written"))
        return 1
    if out is not None:
        output.write(out, result.state, args.force)
    _printed_or_written(result.state, out)
    return 0


def _printed_or_written(text: str, out: Path | None) -> None:
    """What `import` or `export` made: printed, line by line, or the file `-o` wrote it to named."""
    for line in text.rstrip("\n").split("\n") if out is None else [f"wrote {out}"]:
        say(line)


def _budget_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", metavar="VALUE",
                   help="per-step limits on the work rules may do: a scale N (default 64), or "
                        "iterations=N,writes=N,objects=N,scale=N")


def version_lines() -> list[str]:
    """What `phasing --version` prints: the package's version, then the versions and variants
    of the rules it ships (a rules path's own folders are not the package's)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        package = version("phasing-rules")
    except PackageNotFoundError:  # (run from a checkout that was never installed)
        package = "unknown (not installed)"
    shipped = shipped_sources()
    return [f"phasing {package}",
            f"rules: {', '.join(s.name for s in shipped if s.kind == 'version')}",
            f"variants: {', '.join(s.name for s in shipped if s.kind == 'variant')}"]


class ShowVersion(argparse.Action):
    """`--version`: print `version_lines()` and stop (status 0)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        for line in version_lines():
            say(line)
        parser.exit()


def _output_options(p: argparse.ArgumentParser, what: str) -> None:
    """`-o OUT` and `--force`, as `import` and `export` take them: nothing is written over a
    file that exists unless --force says so."""
    p.add_argument("-o", "--output", type=path_text, metavar="OUT",
                   help=f"write {what} to OUT, which must not exist (default: print it)")
    p.add_argument("--force", action="store_true", help="with -o, replace OUT if it exists")


MAIN_EXAMPLES = (
    "phasing test                       # the conformance suite under every version",
    "phasing run tests/scenarios/tour.scenario --trace",
    "phasing versions                   # the versions and variants, one line each",
    "phasing COMMAND --help             # a command's options and examples",
)

EXAMPLES: dict[str, tuple[str, ...]] = {
    "check": ("phasing check                               # the shipped rules, suite and rules path",
              "phasing check my-house.rules tests/scenarios/tour.scenario",
              "phasing check my-cards.rules my.scenario --cards my-cards.rules"),
    "run": ("phasing run tests/scenarios/tour.scenario",
            "phasing run tests/scenarios/tour.scenario --trace --rules 2026-09-25",
            "phasing run tests/scenarios/tour.scenario --json",
            "phasing run my.scenario --cards my-cards.rules      # it plays cards of your own"),
    "test": ("phasing test                                # the whole conformance suite",
             "phasing test tests/scenarios/tour.scenario -v",
             "phasing test --rules end-step-phasing --json",
             "phasing test my-scenarios/ --cards my-cards.rules"),
    "why": ("phasing why tests/scenarios/tour.scenario bear",
            "phasing why tests/scenarios/tour.scenario bear --at 2 --rules 2011-02-04",
            "phasing why my.scenario bear --cards my-cards.rules"),
    "versions": ("phasing versions",
                 "phasing versions --long                     # the whole notes",
                 "phasing versions --rules-path my-rules"),
    "show": ("phasing show                                # the newest version's rulebook",
             "phasing show 2011-02-04 702.23a untap-step-phasing",
             "phasing show end-step-phasing --json"),
    "history": ("phasing history untap-step-phasing",
                "phasing history treated-as-nonexistent --json"),
    "diff": ("phasing diff 2011-02-04 2026-09-25",
             "phasing diff 2026-09-25 end-step-phasing tests/scenarios/untap_step.scenario",
             "phasing diff 2020-08-07 2021-04-22 --search 200 --exit-code",
             "phasing diff 2026-09-25 end-step-phasing my-scenarios/ --cards my-cards.rules --search 200"),
    "ablate": ("phasing ablate 2026-09-25",
               "phasing ablate end-step-phasing --limit 2",
               "phasing ablate 2026-09-25 tests/scenarios/tour.scenario --json",
               "phasing ablate end-step-phasing my-scenarios/ --cards my-cards.rules"),
    "fmt": ("phasing fmt my-rules/                        # show what would change",
            "phasing fmt --check my-house.rules",
            "phasing fmt --write my-rules/"),
    "cards": ("phasing cards pool.json",
              "phasing cards pool.json --cards my-cards.rules --scenarios my-scenarios/   # your cards added",
              "phasing cards pool.json --cards my-cards.rules --only --json           # your cards alone"),
    "import": ("phasing import forge state.txt",
               "phasing import forge puzzle.pzl -o puzzle.scenario --cards my-cards.rules"),
    "export": ("phasing export forge tests/scenarios/tour.scenario --scenario NAME",
               "phasing export forge my.scenario -o state.txt"),
    "fold": ("phasing fold 2027-01-15 --rules-path my-rules --into folded   # try it: a folded copy of the rules",
             "phasing fold 2027-01-15 --rules-path my-rules   # into the checkout's rules/"),
    "fuzz": ("phasing fuzz --minutes 5",
             "phasing fuzz --seed 1234 --out findings"),
    "completion": ("phasing completion bash > ~/.local/share/bash-completion/completions/phasing",
                   "phasing completion zsh > ~/.zfunc/_phasing   # with fpath+=(~/.zfunc) before compinit",
                   'eval "$(phasing completion bash)"           # for this shell only'),
}
"""Each command's examples, shown under its `--help` (a command missing here is a KeyError)."""


CARD_COMMANDS = frozenset({"check", "run", "test", "why", "diff", "ablate", "cards"})
"""The commands that play or check games: each takes `--cards FILE`."""
CARDS_HELP = ("a file of your own cards (card \"NAME\" { ... }) added to the shipped card library for this "
              "command; a cards/ folder in a folder of the rules path is read as well")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="phasing", description="Magic's phasing rules (CR 702.26) as data.")
    parser.add_argument("--version", action=ShowVersion,
                        help="print the package's version and the rules versions it ships, and stop")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                help="the command to run (each has its own --help, with examples)")
    p = sub.add_parser("check", help="parse and check rule files, versions and scenarios")
    p.add_argument("paths", nargs="*", type=path_text, metavar="PATH",
                   help="rule files, scenario files, version folders or folders of them (default: the shipped "
                        "rules, the conformance suite and the rules path)")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("run", help="play a scenario and show the final state")
    p.add_argument("scenario", type=path_text, metavar="SCENARIO", help="a scenario file (.scenario)")
    p.add_argument("--rules", action="append", type=rules_text,
                   help="run under this version, variant or folder (repeatable; default: the newest the scenario names)")
    p.add_argument("--trace", action="store_true", help="show every change with the rule that caused it")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    _budget_option(p)
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("test", help="run scenarios and their expectations")
    p.add_argument("paths", nargs="*", type=path_text, metavar="PATH",
                   help="scenario files or folders of them (default: the conformance suite)")
    p.add_argument("--rules", action="append", type=rules_text,
                   help="run under this version, variant or folder (repeatable: under each)")
    p.add_argument("-v", "--verbose", action="store_true", help="also print PASS for each run that passed")
    p.add_argument("--json", action="store_true",
                   help="machine-readable output: every run (as run --json gives it, without the trace) and the counts")
    _budget_option(p)
    p.set_defaults(func=cmd_test)
    p = sub.add_parser("why", help="why did (or did not) something happen to an object in a scenario")
    p.add_argument("scenario", type=path_text, metavar="SCENARIO", help="a scenario file (.scenario)")
    p.add_argument("object", type=block_text, help="an object the scenario declares (permanent NAME = ...)")
    p.add_argument("--at", type=step_number, metavar="STEP", help="only this step of the script (1, 2, ...)")
    p.add_argument("--rules", action="append", type=rules_text,
                   help="replay under this version or variant (repeatable; default: the newest the scenario names)")
    p.set_defaults(func=cmd_why)
    p = sub.add_parser("versions", help="list the rule versions and variants, one line each")
    p.add_argument("--long", action="store_true", help="the whole notes of each version, not their first sentence")
    p.set_defaults(func=cmd_versions)
    p = sub.add_parser("show", help="print a version's complete rulebook in CR order, or some of its blocks")
    p.add_argument("version", nargs="?", default=None, type=rules_text, metavar="VERSION",
                   help="version or variant (default: the newest)")
    p.add_argument("blocks", nargs="*", default=[], metavar="BLOCK", type=block_text,
                   help="a block's id (702.26g) or slug")
    p.add_argument("--cr", type=path_text, metavar="FILE",
                   help="your copy of the Comprehensive Rules text file: print each block's CR text under it")
    p.add_argument("--json", action="store_true", help="machine-readable output: the blocks as one JSON object")
    p.set_defaults(func=cmd_show)
    p.intermixed = True
    p = sub.add_parser("history", help="one block across every version: how it changed")
    p.add_argument("slug", type=block_text, metavar="SLUG",
                   help="a block's slug (untap-step-phasing): the name it keeps in every version")
    p.add_argument("--json", action="store_true", help="machine-readable output: the stages as one JSON object")
    p.set_defaults(func=cmd_history)
    p.intermixed = True
    p = sub.add_parser("diff", help="compare two versions or variants: rule text, then behaviour")
    p.add_argument("a", type=rules_text, help="the version, variant or folder to compare from")
    p.add_argument("b", type=rules_text, help="the version, variant or folder to compare to")
    p.add_argument("paths", nargs="*", default=[], type=path_text, metavar="PATH",
                   help="scenarios to compare on (default: the conformance suite)")
    p.add_argument("--search", type=whole_number, default=0, metavar="N",
                   help="generate up to N games to find a difference")
    p.add_argument("--json", action="store_true",
                   help="machine-readable output: rule changes, scenarios, witness and differs as one JSON object")
    p.add_argument("--exit-code", action="store_true",
                   help="exit 1 when the two differ (in rule text or behaviour), 0 when they do not")
    p.add_argument("--meaning-only", action="store_true",
                   help="list only changes of meaning: leave out blocks only reworded or renumbered")
    p.add_argument("--raw", action="store_true",
                   help="compare end states as each rulebook keeps them, not as a player sees them (observe)")
    _budget_option(p)
    p.set_defaults(func=cmd_diff)
    p.intermixed = True
    p = sub.add_parser("ablate", help="delete each block in turn and list the scenarios that change")
    p.add_argument("version", type=rules_text, metavar="VERSION", help="the version or variant whose blocks are deleted in turn")
    p.add_argument("paths", nargs="*", type=path_text, metavar="PATH",
                   help="scenarios to rerun (default: the conformance suite)")
    p.add_argument("--json", action="store_true", help="machine-readable output: the blocks as one JSON object")
    p.add_argument("--limit", type=whole_number, default=6, metavar="N",
                   help="changed scenarios listed under each block (default 6)")
    _budget_option(p)
    p.set_defaults(func=cmd_ablate)
    p = sub.add_parser("fmt", help="rewrite older forms of the language in rule files and scenarios to the current ones")
    p.add_argument("paths", nargs="+", type=path_text, metavar="PATH", help="files, or folders to walk for .rules and .scenario files")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when a file would be changed (nothing is written)")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    p.add_argument("--force", action="store_true", help="with --write, rewrite read-only files too")
    p.set_defaults(func=cmd_fmt)
    p = sub.add_parser("cards", help="survey a pool of real cards: which the card library has written, in part, or not")
    p.add_argument("pool", nargs="?", default=None, type=path_text, metavar="POOL.json",
                   help=f"a JSON list of cards, each with \"name\" and \"features\"; when left out, the file "
                        f"that ${survey.POOL_VARIABLE} names")
    p.add_argument("--cards", "--library", dest="cards", action="append", type=path_text, metavar="FILE",
                   help=f"{CARDS_HELP} (repeatable; --library is the same option)")
    p.add_argument("--only", action="store_true",
                   help="survey only your own cards (--cards, and the rules path's cards/ folders), not the shipped "
                        "library; yours replace shipped cards of the same name in the scenarios too")
    p.add_argument("--scenarios", action="append", type=path_text, metavar="PATH",
                   help="scenario files or folders of yours whose results are shown for the cards they play, beside "
                        "the conformance suite's (repeatable)")
    p.add_argument("--json", action="store_true", help="machine-readable output: the survey as one JSON object")
    p.set_defaults(func=cmd_cards)
    p = sub.add_parser("import", help="read another engine's game state into a scenario file (Forge's)")
    p.add_argument("format", choices=("forge",), help="the engine whose state FILE is: forge")
    p.add_argument("file", type=path_text, metavar="FILE", help="a Forge game state, or a puzzle file (.pzl)")
    _output_options(p, "the scenario")
    p.add_argument("--cards", action="append", type=path_text, metavar="FILE",
                   help="a file of your own cards the state's cards may be (repeatable); the scenario declares those it uses")
    p.add_argument("--mapping", type=path_text, metavar="FILE",
                   help="what Forge's attributes and tokens mean in the rules' terms (default: interop/forge.toml)")
    p.add_argument("--json", action="store_true", help="machine-readable output: scenario, output, warnings and errors")
    p.set_defaults(func=cmd_import)
    p = sub.add_parser("export", help="write a scenario's starting state in another engine's format (Forge's)")
    p.add_argument("format", choices=("forge",), help="the engine to write for: forge")
    p.add_argument("scenario", type=path_text, metavar="SCENARIO", help="a scenario file")
    p.add_argument("--scenario", dest="name", type=block_text, metavar="NAME",
                   help="the scenario of the file to export, by its name (needed when it has several)")
    _output_options(p, "the state")
    p.add_argument("--mapping", type=path_text, metavar="FILE",
                   help="what the rules' statuses and tokens are in Forge's terms (default: interop/forge.toml)")
    p.set_defaults(func=cmd_export)
    p = sub.add_parser("fold", help="make a new release of your own the newest shipped version, the one it extends "
                                    "stored as the changes back from it")
    p.add_argument("release", type=rules_text, metavar="VERSION",
                   help="the new release: a version folder (DATE/) on the rules path extending the newest shipped version")
    p.add_argument("paths", nargs="*", type=path_text, metavar="PATH",
                   help="the scenarios the proof runs under every version before and after (default: the conformance suite)")
    p.add_argument("--into", type=path_text, metavar="DIR",
                   help="write every version folder, folded, into this new folder (default: the checkout's rules/)")
    _budget_option(p)
    p.set_defaults(func=cmd_fold)
    fuzz.register(sub, main)  # `phasing fuzz`: its options live with the fuzzer
    p = sub.add_parser("completion", help="print a shell completion script for bash or zsh")
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in: bash or zsh")
    p.set_defaults(func=cmd_completion)
    for name in CARD_COMMANDS - {"cards"}:  # every command that plays or checks games takes cards of your own
        sub.choices[name].add_argument("--cards", action="append", type=path_text, metavar="FILE",
                                       help=f"{CARDS_HELP} (repeatable)")
    for command in sub.choices.values():  # every command may name versions and variants
        command.add_argument("--rules-path", action="append", type=path_text, metavar="DIR", default=None,
                             help="a folder of variants (NAME.rules) and versions (DATE/) searched before the "
                                  "shipped rules, and of cards of your own (DIR/cards/*.rules) added to the card "
                                  "library (repeatable; before those of PHASING_RULES_PATH)")
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "examples:\n" + "\n".join(f"  {line}" for line in MAIN_EXAMPLES)
    for name, command in sub.choices.items():
        command.formatter_class = argparse.RawDescriptionHelpFormatter
        command.epilog = "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])
    return parser


_CTRL_C: list[int] = []  # one entry per Ctrl-C this process has had


def _on_ctrl_c(_signum, _frame) -> NoReturn:
    """Ctrl-C: remembered, then a KeyboardInterrupt as Python's own handler raises. Python
    swallows an exception raised in a weak reference's or the garbage collector's callback
    (the engine's caches have such callbacks), so a command may go on after one: `main` then
    still ends it as interrupted."""
    _CTRL_C.append(1)
    raise KeyboardInterrupt


def _unraisable(unraisable, _default=sys.unraisablehook) -> None:
    """A Ctrl-C that landed in a callback is said once, by `main`, not as a traceback."""
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
        return
    _default(unraisable)


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status. A reader that goes away before the output is all
    written (`phasing show | head -2`) ends the command with status 0: nothing more to say.
    Ctrl-C ends it with `phasing: error: interrupted` and status 130, even when it landed
    where Python swallows it and the command ran on."""
    import signal
    import threading
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_ctrl_c)
        sys.unraisablehook = _unraisable
    before = len(_CTRL_C)
    try:
        status = _command(argv)
        sys.stdout.flush()  # (what print left in the buffer: a closed pipe is found here, not at exit)
        if len(_CTRL_C) > before and status != INTERRUPTED_STATUS:  # (swallowed in a callback)
            return _interrupted(False)
        return status
    except BrokenPipeError:
        _reader_gone()
        return 0
    except KeyboardInterrupt:  # before the command's own handler could take it (reading the options)
        return _interrupted(False)


def _reader_gone() -> None:
    """Standard output's reader went away: what is left in its buffer goes nowhere, so that
    Python's own flush at exit finds no closed pipe either."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


INTERRUPTED = Diagnostic("error", "interrupted", Span("phasing", 0, 0, 0, 0))
INTERRUPTED_STATUS = 130  # 128 + SIGINT, as shells report a command Ctrl-C stopped


def _interrupted(as_json: bool) -> int:
    """Ctrl-C: one line on stderr (and under --json the same error as JSON on stdout), status 130."""
    try:
        report([INTERRUPTED])
        if as_json:
            _emit_errors([INTERRUPTED])
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # (a second Ctrl-C, or no one left to read: the status says it)
    return INTERRUPTED_STATUS


def _emit_errors(diagnostics: list[Diagnostic]) -> None:
    """`json_errors` on stdout for a command that failed: a reader gone away does not make
    its status 0 (the errors are on stderr too)."""
    try:
        emit_json(json_errors(diagnostics))
        sys.stdout.flush()
    except BrokenPipeError:
        _reader_gone()


# The commands that read rule files and write none: each sees the rules path as it was when it
# began (`one_listing`). The others (fmt, import, export, fuzz) look it over afresh as they go.
ONLY_READS = {cmd_check, cmd_run, cmd_test, cmd_why, cmd_versions, cmd_show, cmd_history, cmd_diff, cmd_ablate,
              cmd_cards}


def _command(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except UsageError as exc:
        err.print(plain(exc.usage.rstrip()))
        report([exc.diagnostic])
        if "--json" in (sys.argv[1:] if argv is None else argv):
            _emit_errors([exc.diagnostic])
        return 1
    except SystemExit as exc:  # --help and --version print and stop
        return exc.code if isinstance(exc.code, int) else 0
    try:
        set_rules_path(getattr(args, "rules_path", None))
        rules_path()  # a folder that does not exist is an error before anything runs
        if args.command in CARD_COMMANDS:  # (import's --cards are the scenario's to declare: `interop.forge`)
            set_card_files(getattr(args, "cards", None), "--cards", replace_shipped=getattr(args, "only", False))
        if getattr(args, "version", "") is None:
            args.version = current_version()
        for spec in getattr(args, "rules", None) or []:
            lineage(spec)  # an unknown --rules is an error before anything runs
        if getattr(args, "budget", None) is not None:
            args.budget = Budget.from_option(args.budget)
        if args.func not in ONLY_READS:
            return args.func(args)
        with one_listing():  # (the rules path listed once, and seen as it was when the command began)
            if args.command in CARD_COMMANDS - {"check"}:  # (check counts them among its problems)
                problems = card_library_problems()  # your own cards: an error before anything plays them
                if problems:
                    raise DiagnosticError(problems)
            return args.func(args)
    except DiagnosticError as exc:
        report(exc.diagnostics)
        if getattr(args, "json", False):
            _emit_errors(exc.diagnostics)
        return 1
    except KeyboardInterrupt:
        return _interrupted(getattr(args, "json", False))
    except BrokenPipeError:  # the reader went away (`phasing ... | head`): `main` ends it
        raise
    except OSError as exc:  # a path that cannot be read: bad input, not a bug
        diagnostic = api.os_error_diagnostic(exc)
        report([diagnostic])
        if getattr(args, "json", False):
            _emit_errors([diagnostic])
        return 1
    except Exception as exc:  # an interpreter bug, not bad input
        if os.environ.get("PHASING_DEBUG"):
            raise
        err.print(plain(f"internal error: {type(exc).__name__}: {exc}"))
        err.print(plain("  hint: this is a bug in the interpreter; rerun with PHASING_DEBUG=1 for the traceback"))
        return 2
    finally:
        set_rules_path(())  # the folders of --rules-path were for this command only
        set_card_files(())  # and so were the files of --cards


if __name__ == "__main__":
    sys.exit(main())
