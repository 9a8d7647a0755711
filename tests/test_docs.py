"""Every example in the user documentation (docs/*.md) is run, and the language reference
mentions every construct of the grammar.

Fenced blocks are examples, and each is tagged with what it is:

- ```rules        rule text that must load and pass the checker. A block holding a `variant`
                  is loaded as a variant file; a block holding a `version` manifest is loaded
                  as a version folder of its own; anything else (blocks, verbs, statuses,
                  zones) is loaded inside a variant of 2026-09-25 (`base=VERSION` picks another
                  version); a block of cards only is checked against that version
                  (with `fails=TEXT`, an error of the checker must mention TEXT).
                  `fails=TEXT` marks a block that shows a mistake: it must fail to load, with
                  an error that mentions TEXT. It comes last on the fence's line, and TEXT is
                  the rest of that line, spaces and all.
- ```rules-fragment  a piece that cannot stand alone (one clause, one statement, one step):
                  it must parse inside one of the wrappers below.
- ```scenario     written to a file and run with `api.run_file`; every outcome must pass
                  (`rules=FILE` runs it under a variant file of the same page, `cards=FILE`
                  with a card file of the same page, as `--cards FILE` would).
- ```syntax       a summary of a construct's syntax, with capitals for what you fill in: it
                  must use only keywords of the grammar.
- ```console      `$ phasing ...` lines, run in-process with `cli.main`; each must end with
                  exit status 0, or the one written after it as `# exit N`, and every line
                  shown under it must appear in what it printed (`...` skips).
- ```python       run as a script.

`file=NAME` on a rules or scenario block also saves it under that name in the page's working
folder, where the console and python blocks of the same page run (with `tests/` of this
checkout beside them); NAME may hold folders (`my-rules/cards/club.rules`), which are made.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import attrs
import pytest

from phasing_rules.dsl import ast
from phasing_rules.dsl.checker import check_cards
from phasing_rules.dsl.diagnostics import DiagnosticError
from phasing_rules.dsl.parser import parse
from phasing_rules.interpreter import api
from phasing_rules.interpreter.cli import main
from phasing_rules.interpreter.rulebook.loading import load_version

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ("reference.md", "guide.md", "commands.md", "api.md")
GRAMMAR = ROOT / "dsl" / "grammar.lark"
TAGS = ("rules", "rules-fragment", "syntax", "scenario", "console", "python")


@attrs.frozen
class Example:
    page: str
    line: int
    tag: str
    options: dict
    text: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}:{self.tag}"


FENCE = re.compile(r"^```(.*)$")


def examples_of(page: str, folder: Path = DOCS) -> list[Example]:
    if not (folder / page).is_file():
        return []  # test_the_pages_exist_and_hold_examples says so
    found, lines = [], (folder / page).read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        head, _, fails = m.group(1).partition(" fails=")  # (last: its text may hold spaces)
        info = head.split() + ([f"fails={fails.strip()}"] if fails.strip() else [])
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i] != "```":
            body.append(lines[i])
            i += 1
        i += 1
        tag = info[0] if info else ""
        options = dict(o.split("=", 1) for o in info[1:] if "=" in o)
        found.append(Example(page, start, tag, options, "\n".join(body) + "\n"))
    return found


ALL = [e for page in PAGES for e in examples_of(page)]


def test_the_pages_exist_and_hold_examples():
    """The documentation named in docs/README.md exists; each page of it has runnable examples."""
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for page in PAGES + ("performance.md",):
        assert (DOCS / page).is_file(), page
        assert f"({page})" in index, f"docs/README.md does not link {page}"
    assert "(../SECURITY.md)" in index
    for page in PAGES:
        assert [e for e in ALL if e.page == page and e.tag != "rules-fragment"], f"{page} has no runnable example"


def test_every_fenced_block_is_tagged_as_something_the_tests_run():
    """An untagged or unknown fence would be an example nobody runs."""
    bad = [f"{e.id} (```{e.tag})" for e in ALL if e.tag not in TAGS]
    assert not bad, "fenced blocks with no known tag: " + ", ".join(bad)


# ------------------------------------------------------------------ working folders


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASING_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PHASING_CARD_POOL", raising=False)  # (the pages' `phasing cards` name their pool)


def workdir(page: str, tmp_path: Path) -> Path:
    """The page's working folder: every block it saves with `file=`, and this checkout's tests/."""
    folder = tmp_path / "work"
    folder.mkdir()
    for shipped in ("tests", "rules"):
        (folder / shipped).symlink_to(ROOT / shipped, target_is_directory=True)
    for e in ALL:
        if e.page == page and "file" in e.options:
            (folder / e.options["file"]).parent.mkdir(parents=True, exist_ok=True)
            (folder / e.options["file"]).write_text(e.text, encoding="utf-8")
    return folder


def load_or_fail(spec: str, fails: str | None = None):
    """The rulebook, which must load; or, for an example of a mistake (`fails`), the error."""
    try:
        book = load_version(spec)
    except DiagnosticError as exc:
        shown = "\n".join(d.render() for d in exc.diagnostics)
        if fails is None:
            pytest.fail(shown)
        assert fails in shown, f"the example fails, but not with '{fails}':\n{shown}"
        return None
    assert fails is None, f"the example is meant to fail with '{fails}', but it loads"
    return book


# ------------------------------------------------------------------ rules


# Console examples that survey the whole shipped card library (`phasing cards` with no path
# plays every card's scenarios), a fold (which plays the whole suite under every version
# twice), a fuzzing run (which runs for the time it is given), the whole suite under a
# variant, a check of every version on a rules path, and ablations (each block deleted in
# turn, the scenarios replayed each time): each takes seconds, so they run in the slow
# selection, which .ci/run runs too.
SLOW_COMMANDS = ("$ phasing cards\n", "$ phasing cards   #", "$ phasing cards --json", "$ phasing fold 2027-01-15 ",
                 "$ phasing fuzz --minutes", "$ phasing test --rules ", "$ phasing check --rules-path ",
                 "$ phasing ablate ")


def by_tag(tag: str) -> list:
    return [pytest.param(e, id=e.id, marks=[pytest.mark.slow] if tag == "console" and any(
        m in e.text for m in SLOW_COMMANDS) else []) for e in ALL if e.tag == tag]


def wrapped_in_variant(text: str, base: str) -> str:
    """A bare rule block, verb, status or zone made into a variant of `base`, so it is resolved
    and checked with everything the version declares."""
    return f"variant docs-example {{\n  extends {base}\n}}\n\n{text}"


@pytest.mark.parametrize("example", by_tag("rules"))
def test_rules_examples_load_and_pass_the_checker(example, tmp_path, monkeypatch):
    try:
        module = parse(example.text, example.id)
    except DiagnosticError as exc:
        pytest.fail("\n".join(d.render() for d in exc.diagnostics))
    kinds = {type(i) for i in module.items}
    base = example.options.get("base", "2026-09-25")
    if kinds == {ast.Card}:
        problems = check_cards(module.items, load_or_fail(base))
        wanted = example.options.get("fails")
        if wanted is not None:  # (a card showing a mistake: the checker must say it)
            assert any(wanted in d.message for d in problems), f"{example.id}: no error mentions {wanted!r}: {problems}"
            return
        assert not problems, "\n".join(d.render() for d in problems)
        return
    assert ast.Card not in kinds and ast.Scenario not in kinds, "cards and scenarios go in their own blocks"
    manifests = [i for i in module.items if isinstance(i, ast.Version)]
    if manifests and manifests[0].kind == "version":
        folder = tmp_path / manifests[0].id
        folder.mkdir()
        (folder / "version.rules").write_text(example.text, encoding="utf-8")
        book = load_or_fail(str(folder))
    else:
        work = workdir(example.page, tmp_path)
        monkeypatch.chdir(work)
        text = example.text if manifests else wrapped_in_variant(example.text, base)
        path = work / example.options.get("file", "example.rules")
        path.write_text(text, encoding="utf-8")
        book = load_or_fail(str(path), example.options.get("fails"))
        if book is None:
            return
    for item in module.items:  # what the block declares is in the resolved rulebook
        if isinstance(item, ast.Rule):
            assert book.rule(item.slug) is not None and book.rule(item.slug).id == item.id
        elif isinstance(item, ast.VerbDecl):
            assert item.name in book.verbs
        elif isinstance(item, ast.StatusDecl):
            assert item.name in book.statuses


# A fragment parses in one of these; "{}" is where it goes.
WRAPPERS = (
    "{}",
    'rule 999.1 docs-fragment "A fragment." {{\n{}\n}}',
    'rule 999.1 docs-fragment "A fragment." {{\n  during state check: {{\n{}\n  }}\n}}',
    'rule 999.1 docs-fragment "A fragment." {{\n  during state check: each x where {}: tap x\n}}',
    'variant docs-fragment {{\n{}\n}}',
    'card "Docs Fragment" {{\n{}\n}}',
    'scenario "docs fragment" {{\n{}\n}}',
    'scenario "docs fragment" {{\n  script {{\n{}\n  }}\n}}',
)


@pytest.mark.parametrize("example", by_tag("rules-fragment"))
def test_fragments_parse_in_a_wrapper(example):
    errors = []
    for wrapper in WRAPPERS:
        try:
            parse(wrapper.format(example.text), example.id)
            return
        except DiagnosticError as exc:
            errors.append(exc.diagnostics[0].message)
    pytest.fail(f"{example.id} parses in no wrapper: {errors}")


def grammar_keywords() -> set[str]:
    return set(re.findall(r'"([a-z][a-z_-]*)"', GRAMMAR.read_text(encoding="utf-8")))


@pytest.mark.parametrize("example", by_tag("syntax"))
def test_syntax_summaries_use_the_grammars_keywords(example):
    """A summary has no example values to run, but its words must be the language's."""
    text = re.sub(r'"[^"\n]*"', "", example.text)  # strings are free text
    words = set(re.findall(r"\b[a-z][a-z_-]*\b", text))
    unknown = words - grammar_keywords()
    assert not unknown, f"{example.id} uses words that are not keywords: {sorted(unknown)}"
    assert words, f"{example.id} shows no keyword"


# ------------------------------------------------------------------ scenarios


@pytest.mark.parametrize("example", by_tag("scenario"))
def test_scenario_examples_pass(example, tmp_path, monkeypatch):
    work = workdir(example.page, tmp_path)
    monkeypatch.chdir(work)
    path = work / example.options.get("file", "example.scenario")
    path.write_text(example.text, encoding="utf-8")
    for item in parse(example.text, example.id).items:
        if isinstance(item, ast.Scenario):
            assert any(isinstance(e, ast.ScenarioCites) for e in item.entries), \
                f"{example.id}: '{item.name}' cites no rule"
    rules = example.options.get("rules")
    cards = [work / name for name in example.options["cards"].split(",")] if "cards" in example.options else None
    try:
        outcomes = api.run_file(path, rules=str(work / rules) if rules and (work / rules).exists() else rules,
                                cards=cards)
    except DiagnosticError as exc:
        pytest.fail("\n".join(d.render() for d in exc.diagnostics))
    assert outcomes, f"{example.id} ran nothing"
    for o in outcomes:
        assert o.expectations, f"{example.id}: '{o.scenario}' checks nothing"
        assert o.passed, f"{example.id}: '{o.scenario}' under {o.version}: " + "; ".join(
            [d.message for d in o.failures] + [f"expect {t}" for t, ok in o.expectations if not ok])


# ------------------------------------------------------------------ console sessions

EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


def sessions(text: str) -> list[tuple[list[str], int, list[str]]]:
    """(argv, expected status, lines it must print) for each `$ phasing ...` line."""
    found = []
    for line in text.splitlines():
        if line.startswith("$ "):
            status = 0
            m = EXIT.search(line)
            if m:
                status, line = int(m.group(1)), line[: m.start()]
            argv = shlex.split(line[2:])
            assert argv[0] == "phasing", f"a console example runs phasing, not {argv[0]}"
            found.append((argv[1:], status, []))
        elif line.strip() and line.strip() != "...":
            assert found, f"output before any command: {line}"
            found[-1][2].append(line.strip())
    return found


@pytest.mark.parametrize("example", by_tag("console"))
def test_console_examples_give_the_status_and_output_shown(example, tmp_path, monkeypatch, capsys):
    work = workdir(example.page, tmp_path)
    monkeypatch.chdir(work)
    runs = sessions(example.text)
    assert runs, f"{example.id} has no command"
    for argv, status, expected in runs:
        got = main(argv)
        captured = capsys.readouterr()
        printed = captured.out + captured.err
        assert got == status, f"phasing {' '.join(argv)} exited {got}, the page says {status}:\n{printed}"
        missing = [line for line in expected if line not in printed]
        assert not missing, f"phasing {' '.join(argv)} did not print {missing}; it printed:\n{printed}"


@pytest.mark.parametrize("example", by_tag("python"))
def test_python_examples_run(example, tmp_path, monkeypatch, capsys):
    work = workdir(example.page, tmp_path)
    monkeypatch.chdir(work)
    exec(compile(example.text, example.id, "exec"), {"__name__": "docs_example"})


README_PYTHON = [e for e in examples_of("README.md", ROOT) if e.tag == "python"]
README_CONSOLE = [e for e in examples_of("README.md", ROOT) if e.tag == "console"]


def test_the_readme_quotes_real_runs():
    assert README_CONSOLE, "README.md has no ```console block"


@pytest.mark.parametrize("example", README_CONSOLE, ids=lambda e: e.id)
def test_readme_console_examples_print_what_the_readme_quotes(example, tmp_path, monkeypatch, capsys):
    """A run the README quotes (`phasing diff 2017-07-08 2017-08-25 --search 2000`) prints every
    line quoted, with the status shown: a quote that went stale (a count of scenarios, a
    difference) fails here."""
    test_console_examples_give_the_status_and_output_shown(example, tmp_path, monkeypatch, capsys)


# docs/versions.md quotes a whole `diff --search 2000` run (moved there from the README):
# every quoted line must still print. The search takes half a minute: the slow selection.
VERSIONS_CONSOLE = [pytest.param(e, id=e.id, marks=[pytest.mark.slow])
                    for e in examples_of("versions.md") if e.tag == "console"]


def test_versions_md_quotes_a_real_run():
    assert VERSIONS_CONSOLE, "docs/versions.md has no ```console block"


@pytest.mark.parametrize("example", VERSIONS_CONSOLE)
def test_versions_md_console_examples_print_what_the_page_quotes(example, tmp_path, monkeypatch, capsys):
    """The run docs/versions.md quotes (`phasing diff 2017-07-08 2017-08-25 --search 2000`)
    prints every line quoted, with the status shown: a stale count or difference fails."""
    test_console_examples_give_the_status_and_output_shown(example, tmp_path, monkeypatch, capsys)


def test_the_readme_has_python_examples():
    assert README_PYTHON, "README.md has no ```python block"


@pytest.mark.parametrize("example", README_PYTHON, ids=lambda e: e.id)
def test_readme_python_examples_run(example, tmp_path, monkeypatch, capsys):
    """The README's Python blocks run as written, from a folder holding this checkout's tests/."""
    work = workdir(example.page, tmp_path)
    monkeypatch.chdir(work)
    exec(compile(example.text, example.id, "exec"), {"__name__": "docs_example"})


# ------------------------------------------------------------------ the grammar is documented


def grammar_alternatives() -> list[tuple[str, str, str]]:
    """(rule, alternative as written, regex) for every alternative of every grammar rule that
    has keywords of its own. The regex asks for its keywords in order, on one line."""
    rules: dict[str, str] = {}
    current = None
    for raw in GRAMMAR.read_text(encoding="utf-8").splitlines():
        line = raw.split("//")[0].rstrip()
        m = re.match(r"^[?!]?([a-z_]+)\s*:(.*)$", line)
        if m:
            current = m.group(1)
            rules[current] = m.group(2)
        elif line.strip() and not line.startswith("%") and not re.match(r"^[A-Z_]+\s*:", line) and current:
            if line[:1].isspace():
                rules[current] += " " + line.strip()
            else:
                current = None
        elif re.match(r"^[A-Z_]+\s*:", line):
            current = None
    found = []
    for name, body in rules.items():
        for alt in split_top(body, "|"):
            alt = alt.split("->")[0].strip()
            pattern = alternative_regex(alt)
            if pattern:
                found.append((name, alt, pattern))
    return found


def split_top(body: str, sep: str) -> list[str]:
    parts, depth, start, in_str = [], 0, 0, False
    for i, ch in enumerate(body):
        if ch == '"':
            in_str = not in_str
        elif not in_str and ch == "(":
            depth += 1
        elif not in_str and ch == ")":
            depth -= 1
        elif not in_str and ch == sep and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


def alternative_regex(alt: str) -> str | None:
    tokens = re.findall(r'"[^"]*"|[A-Za-z_]+|[()?*+]', alt)
    pieces: list[str | None] = []  # a literal, or None for anything else
    depth = 0
    for i, tok in enumerate(tokens):
        if tok == "(":
            depth += 1
            continue
        if tok == ")":
            depth -= 1
            continue
        if tok in "?*+":
            if pieces and pieces[-1] is not None:
                pieces[-1] = None
            continue
        if depth == 0 and tok.startswith('"') and tok not in ('"{"', '"}"'):  # braces may span lines
            pieces.append(tok[1:-1])
        elif not pieces or pieces[-1] is not None:
            pieces.append(None)
    if not any(p for p in pieces if p and p[0].isalpha()):
        return None
    regex, previous = "", None
    for p in pieces:
        if p is None:
            if previous != "gap":
                regex += r"[^\n]*?"
            previous = "gap"
            continue
        word = re.escape(p)
        if p[0].isalpha():
            word = rf"\b{word}\b"
        if previous == "literal":
            regex += r"\s*"
        regex += word
        previous = "literal"
    return regex


def code_in(markdown: str) -> str:
    """The code of a page: fenced blocks and inline code spans."""
    fenced = re.findall(r"^```[^\n]*\n(.*?)^```$", markdown, flags=re.S | re.M)
    prose = re.sub(r"^```[^\n]*\n.*?^```$", "", markdown, flags=re.S | re.M)
    return "\n".join(fenced + re.findall(r"`([^`\n]+)`", prose))


def test_the_grammar_reader_finds_the_constructs_it_should():
    """The coverage test below is only as good as its reading of the grammar: it must see the
    statements, clauses, hooks and steps (a renamed rule would make it check nothing)."""
    alts = grammar_alternatives()
    by_rule = {}
    for rule, _alt, _rx in alts:
        by_rule[rule] = by_rule.get(rule, 0) + 1
    assert by_rule.get("stmt", 0) >= 25
    assert by_rule.get("clause", 0) >= 12
    assert by_rule.get("hook_kind", 0) >= 6  # (the game's hooks, the older names; a step is one: STEP_NAME)
    assert by_rule.get("step", 0) >= 12
    assert by_rule.get("card_entry", 0) >= 7
    assert by_rule.get("scenario_entry", 0) >= 6
    sample = dict((alt, rx) for _rule, alt, rx in alts)
    assert re.search(sample['"remove" expr "from" "combat"'], "remove x from combat")
    assert not re.search(sample['"remove" expr "from" "combat"'], "remove damage from x")


def test_the_reference_mentions_every_construct_of_the_grammar():
    """Every statement, clause, hook, duration, expression, card entry, scenario entry,
    property and step of dsl/grammar.lark appears in code in docs/reference.md."""
    code = code_in((DOCS / "reference.md").read_text(encoding="utf-8"))
    missing = [f"{rule}: {alt}" for rule, alt, rx in grammar_alternatives() if not re.search(rx, code)]
    assert not missing, "not shown in docs/reference.md:\n  " + "\n  ".join(missing)


def test_commands_page_describes_every_subcommand_and_option():
    """Every `phasing` subcommand the command line defines has its section in commands.md."""
    from phasing_rules.interpreter.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    missing = [name for name in sub.choices if f"## `phasing {name}" not in text]
    assert not missing, f"commands.md has no section for: {missing}"
    for name, p in sub.choices.items():
        for action in p._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    assert flag in text, f"commands.md does not mention {name} {flag}"


def test_every_option_has_help_that_gives_its_default():
    """`phasing SUBCOMMAND --help` explains every option, and names the default of one that
    has a value of its own (as `ablate --limit`, default 6)."""
    from phasing_rules.interpreter.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    bare, no_default = [], []
    for name, p in sub.choices.items():
        for action in p._actions:
            flag = next((f for f in action.option_strings if f.startswith("--")), None)
            if flag is None or flag == "--help":
                continue
            if not action.help:
                bare.append(f"{name} {flag}")
            elif action.default not in (None, False, []) and "default" not in action.help:
                no_default.append(f"{name} {flag}")
    assert not bare, f"options without help: {bare}"
    assert not no_default, f"options whose help does not give the default: {no_default}"


def test_the_readme_lists_every_subcommand():
    """README's "The command line" names each subcommand, as `phasing NAME`."""
    from phasing_rules.interpreter.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("## The command line", 1)[1].split("\n## ", 1)[0]
    assert not [name for name in sub.choices if f"`phasing {name}" not in text]
    assert "--max-input-seconds" in text
