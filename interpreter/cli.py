"""The `phasing` command: check, run, test, versions, show, ablate."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from dsl.diagnostics import Diagnostic, DiagnosticError
from dsl.printer import item_lines
from interpreter import ablation, api, compare
from interpreter.rulebook import available_variants, available_versions, load_version
from interpreter.scenario import Outcome
from interpreter.suite import collect, current_version, run_all
from interpreter.trace import show_value

out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def report(diagnostics: list[Diagnostic]) -> None:
    for d in diagnostics:
        err.print(d.render(), markup=False)


def cmd_check(args) -> int:
    problems = api.check_paths(args.paths or None)
    report(problems)
    if problems:
        err.print(f"{len(problems)} error(s)", markup=False)
        return 1
    out.print("no problems found", markup=False)
    return 0


def outcome_lines(o: Outcome) -> list[str]:
    lines = [f"{'PASS' if o.passed else 'FAIL'} {o.scenario} [{o.version}]  ({o.path})"]
    for text, ok in o.expectations:
        lines.append(f"  {'ok  ' if ok else 'FAIL'} expect {text}")
    return lines


def state_table(o: Outcome) -> Table:
    """The final state: one row per object, rule-declared statuses shown where not at their default."""
    table = Table(title=f"Final state of \"{o.scenario}\" under {o.version} (turn {o.final.get('turn')}, "
                        f"{o.final.get('active')} active)", title_justify="left")
    for col in ("permanent", "card", "zone", "controller", "p/t", "tapped", "attached to", "counters", "statuses"):
        table.add_column(col)
    defaults = o.final.get("status_defaults", {})
    for oid, p in o.final.get("permanents", {}).items():
        pt = f"{p.get('power')}/{p.get('toughness')}" if p.get("power") is not None else ""
        counters = ", ".join(f"{k} {v}" for k, v in (p.get("counters") or {}).items())
        statuses = ", ".join(f"{k}={v}" for k, v in p.get("statuses", {}).items() if defaults.get(k) != v)
        table.add_row(oid, p["card"], p["zone"], str(p.get("controller", "")), pt, "yes" if p.get("tapped") else "",
                      str(p.get("attached_to") or ""), counters, statuses)
    return table


def cmd_run(args) -> int:
    cases, problems = collect([args.scenario])
    if problems:
        report(problems)
        return 1
    # one run per scenario: under --rules, or the newest version it names (`phasing test` runs them all)
    outcomes = list(run_all(cases, [args.rules] if args.rules else None, newest_only=not args.rules))
    if args.json:
        print(json.dumps([api.outcome_json(o) for o in outcomes], indent=2, default=str))
        return 0 if all(o.passed for o in outcomes) else 1
    for o in outcomes:
        if args.trace:
            out.print(f"Trace of \"{o.scenario}\" under {o.version}:", markup=False)
            for event in o.trace:
                out.print("  " + event.render(), markup=False)
        out.print(state_table(o))
        for line in outcome_lines(o):
            out.print(line, markup=False)
        report(list(o.failures))
    return 0 if all(o.passed for o in outcomes) else 1


def cmd_test(args) -> int:
    cases, problems = collect(args.paths or [api.default_suite()])
    report(problems)
    passed = failed = 0
    for o in run_all(cases, args.rules or None):
        if o.passed:
            passed += 1
            if args.verbose:
                out.print(f"PASS {o.scenario} [{o.version}]", markup=False)
        else:
            failed += 1
            for line in outcome_lines(o):
                out.print(line, markup=False)
            report(list(o.failures))
    failed += len(problems)
    out.print(f"{passed} passed, {failed} failed", markup=False)
    return 1 if failed or not passed else 0


def cmd_versions(args) -> int:
    table = Table(title="Rule versions")
    for col in ("version", "rule", "extends", "blocks", "what it is / what changed"):
        table.add_column(col)
    for v in available_versions() + available_variants():
        book = load_version(v)
        sections = ", ".join(s.rule for s in book.version.sections)
        name = v if book.version.kind == "version" else f"{v} (variant)"
        table.add_row(name, sections, book.version.extends or "", str(len(book.rules)), " ".join(book.version.notes))
    out.print(table)
    return 0


def cmd_show(args) -> int:
    book = load_version(args.version)
    out.print(f"# {book.version.title or book.version.id}", markup=False)
    for decl in book.statuses.values():
        out.print("\n".join(item_lines(decl)), markup=False)
    for verb in book.verbs.values():
        out.print("\n".join(item_lines(verb)), markup=False)
    for rule in book.rules:
        out.print("", markup=False)
        out.print("\n".join(item_lines(rule)), markup=False)
    return 0


def cmd_ablate(args) -> int:
    result = ablation.ablate(args.version, args.paths or [api.default_suite()])
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0 if result.all_load_bearing else 1
    out.print(f"Ablation of {args.version}: each block deleted in turn, {result.scenarios} scenarios rerun each time",
              markup=False)
    for row in result.rows:
        head = f"{row.rule.id} {row.rule.slug}"
        if row.kind == "assertion":
            out.print(f"  {head:<45} assertion  restates other blocks; checked after every change", markup=False)
            continue
        if row.kind == "definition":
            out.print(f"  {head:<45} definition its behaviour is written in another block", markup=False)
            continue
        verdict = f"{len(row.changed)} scenario(s) change" if row.changed else "NOT LOAD-BEARING: no scenario changes"
        out.print(f"  {head:<45} operative  {verdict}", markup=False)
        for label in row.changed[: args.limit]:
            out.print(f"      - {label}", markup=False)
        if len(row.changed) > args.limit:
            out.print(f"      ... and {len(row.changed) - args.limit} more", markup=False)
    out.print(result.summary(), markup=False)
    return 0 if result.all_load_bearing else 1


def cmd_diff(args) -> int:
    a, b = load_version(args.a), load_version(args.b)
    cases = compare.load_cases(args.paths or [api.default_suite()])
    blocks = compare.rulebook_diff(a, b)
    scenarios = compare.behaviour_diff(a, b, cases)
    witness = compare.search_witness(a, b, args.search) if args.search else None
    if args.json:
        print(json.dumps({"rules": [c.to_json() for c in blocks], "scenarios": [s.to_json() for s in scenarios],
                          "witness": witness}, indent=2, default=str))
        return 0
    A, B = a.version.id, b.version.id
    out.print(f"Rulebooks {A} -> {B}, aligned by slug:", markup=False)
    if not blocks:
        out.print("  no block differs", markup=False)
    for c in blocks:
        ids = f"{c.a_id or '-'} -> {c.b_id or '-'}" if c.a_id or c.b_id else ""
        out.print(f"  {c.slug:<34} {', '.join(c.kinds):<28} {ids}", markup=False)
        if "reworded" in c.kinds or c.kinds in (("added",), ("removed",)) and c.a_summary != c.b_summary:
            if c.a_summary:
                out.print(f"      {A}: {c.a_summary}", markup=False)
            if c.b_summary:
                out.print(f"      {B}: {c.b_summary}", markup=False)
    out.print("", markup=False)
    out.print(f"Behaviour: {len(scenarios)} of {len(cases)} scenarios end differently", markup=False)
    for s in scenarios:
        out.print(f"  {s.scenario} ({Path(s.path).name})", markup=False)
        for key, va, vb in s.fields:
            out.print(f"      {key:<32} {A}: {show_value(va):<14} {B}: {show_value(vb)}", markup=False)
    if args.search:
        out.print("", markup=False)
        if witness is None:
            out.print(f"no behavioural difference found in {args.search} generated games", markup=False)
        else:
            out.print(f"A generated game that tells them apart (passes under {A}, fails under {B}):", markup=False)
            out.print(witness, markup=False)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="phasing", description="Magic's phasing rules (CR 702.26) as data.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="parse and check rule files, versions and scenarios")
    p.add_argument("paths", nargs="*")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("run", help="play a scenario and show the final state")
    p.add_argument("scenario")
    p.add_argument("--rules", help="version, variant or folder (default: the newest the scenario names)")
    p.add_argument("--trace", action="store_true", help="show every change with the rule that caused it")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("test", help="run scenarios and their expectations")
    p.add_argument("paths", nargs="*")
    p.add_argument("--rules", action="append", help="run under this version (repeatable)")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=cmd_test)
    p = sub.add_parser("versions", help="list the rule versions")
    p.set_defaults(func=cmd_versions)
    p = sub.add_parser("show", help="print a version's complete rulebook in CR order")
    p.add_argument("version", nargs="?", default=None)
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("diff", help="compare two versions or variants: rule text, then behaviour")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("paths", nargs="*", help="scenarios to compare on (default: the conformance suite)")
    p.add_argument("--search", type=int, default=0, metavar="N", help="generate up to N games to find a difference")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_diff)
    p = sub.add_parser("ablate", help="delete each block in turn and list the scenarios that change")
    p.add_argument("version")
    p.add_argument("paths", nargs="*")
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, default=6, help="scenarios listed per block")
    p.set_defaults(func=cmd_ablate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "version", "") is None:
        args.version = current_version()
    try:
        return args.func(args)
    except DiagnosticError as exc:
        report(exc.diagnostics)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`phasing ... | head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # an interpreter bug, not bad input
        if os.environ.get("PHASING_DEBUG"):
            raise
        err.print(f"internal error: {type(exc).__name__}: {exc}", markup=False)
        err.print("  hint: this is a bug in the interpreter; rerun with PHASING_DEBUG=1 for the traceback", markup=False)
        return 2


if __name__ == "__main__":
    sys.exit(main())
