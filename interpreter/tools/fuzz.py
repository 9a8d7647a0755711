"""Fuzzing the `phasing` command's inputs: generated and mutated rule files, card files and
scenarios, each run through the commands in-process, with an oracle that flags anything but
a clean answer.

Three generators make inputs:

- `grammar`: structured text written over the language's main constructs (scenarios with
  cards, variants with blocks, statuses and verbs), filled with names read from the shipped
  files at run time and mixed with hostile values: markup, emoji codes, huge numbers, deep
  nesting, long lines, tabs, a byte order mark, invalid UTF-8, NUL bytes, duplicate names.
- `lark`: Hypothesis's `from_lark` over `dsl/grammar.lark`, each terminal spaced out so
  keywords stay keywords (bare `from_lark` glues tokens together and mostly tests the lexer).
- `mutate`: the shipped rule files and scenarios with lines and tokens deleted, duplicated,
  swapped, spliced from other files, replaced by hostile values, or cut short.

The oracle runs `interpreter.cli.main` on each input and reports a *finding* when the exit
status is not 0 or 1, when the output says "internal error" or shows a traceback, when an
exception escapes `main`, or when one command runs longer than its time limit (a hang).
`phasing fuzz --minutes N` runs a campaign and writes every distinct finding to a folder.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import io
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

import attrs

from ...dsl.atomic import write_file

# ---------------------------------------------------------------- hostile values

# Text that has broken, or could break, a console, a position, a parser or a lookup. Generic
# strings only: names of the game's own things are read from the shipped files instead.
HOSTILE_TEXT = (
    "[/x]", "[b]", "[/]", "[bold red]x[/bold red]", "[link=file:///etc/passwd]x[/link]", ":100:", ":1234:",
    ":smile:", "\\", "\\n", "%s", "%(x)s", "{0}", "{x}", "${HOME}", "'", "`", "<x>", "&amp;", "\t", "\x1b[31m",
    "\u202e", "\u200b", "\ufeff", "\U0001f600", "e\u0301", "\u0000", "x" * 5000, " " * 300, "#", "//", "/*",
    "..", "../../x", "/", "-", "--help", "none", "true", "false", "nan", "inf",
)
HOSTILE_NAMES = (
    "x", "_", "__class__", "__init__", "__builtins__", "self", "cls", "lambda", "import", "os", "sys", "None",
    "True", "eval", "exec", "globals", "return", "yield", "def", "class", "pass", "not", "and", "or", "is", "if",
    "each", "set", "to", "of", "where", "count", "none", "true", "false", "a", "an", "object", "x" * 5000,
    "A" * 300, "_" * 50, "a-b", "a--", "Z9_-", "r" + "-x" * 200,
)
HOSTILE_NUMBERS = ("0", "00", "007", "1", "-1", "+0", "255", "256", "65536", "2147483648", "9223372036854775808",
                   "9" * 40, "9" * 4300, "9" * 5000, "1" + "0" * 20000)

# How deep the generators nest when they try to go deep.
DEPTHS = (30, 96, 100, 247, 330, 483, 1000, 3000)


# ---------------------------------------------------------------- what the shipped files hold

@attrs.frozen
class Corpus:
    """The shipped files and the names they use, read once at run time."""

    rule_files: tuple[Path, ...]
    scenario_files: tuple[Path, ...]
    texts: dict[str, str]  # path -> text, for every file above
    cards: tuple[str, ...]
    statuses: dict[str, tuple[str, ...]]  # status -> its values
    verbs: dict[str, int]  # verb -> how many arguments
    zones: tuple[str, ...]
    attributes: tuple[str, ...]
    keywords: tuple[str, ...]
    types: tuple[str, ...]
    counters: tuple[str, ...]
    rule_ids: tuple[str, ...]
    slugs: tuple[str, ...]
    versions: tuple[str, ...]
    variants: tuple[str, ...]
    players: tuple[str, ...]
    expressions: tuple[str, ...]  # what shipped scenarios expect
    steps: tuple[str, ...]  # shipped script lines
    statements: tuple[str, ...]  # shipped rule-body lines


def _all(pattern: str, texts, group: int = 1) -> list[str]:
    found = []
    for text in texts:
        found += [m.group(group) for m in re.finditer(pattern, text, re.M)]
    return found


def _unique(items) -> tuple[str, ...]:
    return tuple(sorted({i.strip() for i in items if i and i.strip()}))


@functools.cache
def load_corpus() -> Corpus:
    from ..api import default_suite
    from ..rulebook.loading import RULES_ROOT, available_variants, available_versions

    rule_files = tuple(sorted(RULES_ROOT.rglob("*.rules")))
    try:
        scenario_files = tuple(sorted(default_suite().rglob("*.scenario")))
    except Exception:  # an install without the conformance suite: rule files alone
        scenario_files = ()
    texts = {str(p): p.read_text(encoding="utf-8") for p in rule_files + scenario_files}
    rules_texts = [texts[str(p)] for p in rule_files]
    scen_texts = [texts[str(p)] for p in scenario_files]
    everything = list(texts.values())
    statuses: dict[str, tuple[str, ...]] = {}
    for m in re.finditer(r"^\s*status\s+([A-Za-z_][\w-]*)\s*:\s*([^=\n]+)=\s*(\S+)", "\n".join(rules_texts), re.M):
        values = [v.strip() for v in m.group(2).split("|")] + [m.group(3)]
        statuses[m.group(1)] = _unique(values)
    verbs = {m.group(1): len(m.group(2).split()) for m in
             re.finditer(r"^\s*verb\s+([A-Za-z_][\w-]*)((?:\s+[A-Za-z_][\w-]*)*?)\s*(?:cites[^{]*)?\{",
                         "\n".join(rules_texts), re.M)}
    return Corpus(
        rule_files=rule_files,
        scenario_files=scenario_files,
        texts=texts,
        cards=_unique(_all(r'^\s*card\s+"([^"\n]*)"', everything)),
        statuses=statuses,
        verbs=verbs,
        zones=_unique(_all(r"\bzone\s+([A-Za-z_]\w*)\s+keeps", everything)
                      + _all(r"\bzone\s+is\s+(?:not\s+)?([A-Za-z_]\w*)", everything)
                      + _all(r"^\s*move\s+\S+\s+to\s+([A-Za-z_]\w*)", everything)),
        attributes=_unique(_all(r"[A-Za-z_]\w*\.([A-Za-z_]\w*)", everything)),
        keywords=_unique(w for k in _all(r"^\s*keywords\s+([^\n#]+)", everything) for w in k.split(","))
        + _unique(_all(r"\bhas\s+([A-Za-z_]\w*)", everything)),
        types=_unique(w for k in _all(r"^\s*types\s+([^\n#]+)", everything) for w in k.split()),
        counters=_unique(_all(r"\bcounter\s+([A-Za-z_]\w*)\s*=", everything)
                         + _all(r"\bput\s+\d+\s+([A-Za-z_]\w*)\s+counters", everything)),
        rule_ids=_unique(_all(r"\b(\d{3}\.\d+[a-z]?)\b", everything)),
        slugs=_unique(_all(r"^\s*rule\s+\S+\s+([A-Za-z_][\w-]*)", rules_texts)),
        versions=tuple(available_versions()),
        variants=tuple(available_variants()),
        players=_unique(w for k in _all(r"^\s*players\s+([^\n#]+)", scen_texts) for w in k.split()),
        expressions=_unique(_all(r"^\s*expect\s+(?!error\b)(?!for\b)([^\n#]+)", scen_texts)),
        steps=_unique(line for t in scen_texts for line in _script_lines(t)),
        statements=_unique(_all(r"^\s+((?:each|if|set|tap|untap|destroy|move|do|simultaneously)\b[^\n#]*[^{\s])\s*$",
                                rules_texts)),
    )


def _script_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("script"):
            inside = True
        elif inside and stripped == "}":
            inside = False
        elif inside and stripped and not stripped.startswith("#"):
            lines.append(stripped)
    return lines


# ---------------------------------------------------------------- inputs

@attrs.frozen
class Input:
    """One fuzz input: the files it consists of, what kind of input it is, and where it came from.

    kind "scenario": `input.scenario` (which may declare cards); "variant": `variant.rules`
    and a probe scenario `probe.scenario` without a `rules` line; "folder": a version folder
    `version/` and the probe scenario.
    """

    kind: str
    files: tuple[tuple[str, bytes], ...]
    origin: str

    @property
    def main(self) -> str:
        """The file the generator made or changed (the others are context)."""
        return self.files[0][0]

    def with_main(self, data: bytes) -> "Input":
        return attrs.evolve(self, files=((self.main, data),) + self.files[1:])

    def write(self, folder: Path) -> None:
        for name, data in self.files:
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            write_file(target, data, replace=True, durable=False)


# Commands that rerun their scenarios many times get a multiple of the per-input time limit
# (ablate reruns them once per block of the rulebook).
SLOW_COMMANDS = {"ablate": 5}


def commands_for(kind: str, current: str, heavy: bool = True) -> list[tuple[str, ...]]:
    """The commands one input is run through, with {dir} standing for the folder it is written to."""
    if kind == "scenario":
        return [("check", "{dir}/input.scenario"), ("run", "{dir}/input.scenario"),
                ("run", "{dir}/input.scenario", "--trace"), ("run", "{dir}/input.scenario", "--json"),
                ("test", "{dir}/input.scenario")]
    target = "{dir}/variant.rules" if kind == "variant" else "{dir}/version"
    found = [("check", target), ("show", target), ("run", "{dir}/probe.scenario", "--rules", target),
             ("run", "{dir}/probe.scenario", "--rules", target, "--json"),
             ("test", "{dir}/probe.scenario", "--rules", target),
             ("diff", current, target, "{dir}/probe.scenario")]
    if heavy:
        found.append(("ablate", target, "{dir}/probe.scenario"))
    return found


def _probe(corpus: Corpus, rnd: random.Random, whole: bool = False) -> bytes:
    """A shipped scenario (one, or with `whole` its whole file) without its `rules` lines, so
    `--rules` decides what it runs under."""
    if not corpus.scenario_files:
        return b""
    text = corpus.texts[str(rnd.choice(corpus.scenario_files))]
    if not whole:
        blocks = re.findall(r'^scenario\s.*?^\}[ \t]*$', text, re.M | re.S)
        text = rnd.choice(blocks) if blocks else text
    kept = [line for line in text.splitlines() if not re.match(r"\s*rules\b", line)]
    return ("\n".join(kept) + "\n").encode()


def load_input(path: Path) -> Input:
    """A saved input: a `.scenario` file, a variant `.rules` file (run with a shipped scenario
    as its probe), or a version folder (holding `version.rules`)."""
    path = Path(path)
    corpus = load_corpus()
    probe = ("probe.scenario", _probe(corpus, random.Random(0), whole=True))
    if path.is_dir():
        files = tuple((f"version/{p.name}", p.read_bytes()) for p in sorted(path.glob("*.rules")))
        return Input("folder", files + (probe,), f"saved:{path.name}")
    if path.suffix == ".scenario":
        return Input("scenario", (("input.scenario", path.read_bytes()),), f"saved:{path.name}")
    if path.suffix == ".rules":
        return Input("variant", (("variant.rules", path.read_bytes()), probe), f"saved:{path.name}")
    raise ValueError(f"not a saved fuzz input (a .scenario, a .rules file or a version folder): {path}")


# ---------------------------------------------------------------- the grammar-aware generator

class _Writer:
    """Writes one random input over the language's main constructs."""

    def __init__(self, rnd: random.Random, corpus: Corpus, hostility: float):
        self.rnd = rnd
        self.c = corpus
        self.hostility = hostility
        self.objects: list[str] = []
        self.players: list[str] = []

    def chance(self, p: float) -> bool:
        return self.rnd.random() < p

    def pick(self, items, fallback: str = "x") -> str:
        return self.rnd.choice(list(items)) if items else fallback

    def hostile(self) -> bool:
        return self.chance(self.hostility)

    def string(self, usual: str) -> str:
        if self.hostile():
            text = self.pick(HOSTILE_TEXT).replace('"', "'").replace("\n", " ")
            return f'"{text}"' if self.chance(0.5) else f'"{usual} {text}"'
        return f'"{usual}"'

    def name(self, usual: str) -> str:
        return self.pick(HOSTILE_NAMES) if self.hostile() else usual

    def number(self, low: int = 0, high: int = 5) -> str:
        return self.pick(HOSTILE_NUMBERS).lstrip("+-") if self.hostile() else str(self.rnd.randint(low, high))

    def signed(self) -> str:
        return self.rnd.choice("+-") + self.number(0, 3)

    def depth(self) -> int:
        return self.pick(DEPTHS) if self.hostile() else self.rnd.randint(1, 3)

    # expressions

    def reference(self) -> str:
        return self.name(self.pick(self.objects + ["x"], "x"))

    def atom(self, depth: int) -> str:
        roll = self.rnd.random()
        if roll < 0.35:
            return f"{self.reference()}.{self.name(self.pick(self.c.attributes, 'power'))}"
        if roll < 0.5:
            return self.number()
        if roll < 0.6:
            return self.pick(self.players + ["none", "true", "false"])
        if roll < 0.7:
            values = [v for vs in self.c.statuses.values() for v in vs]
            return self.name(self.pick(values, "none"))
        if roll < 0.78 and depth > 0:
            return f"count({self.name('y')} where {self.expr(depth - 1)})"
        if roll < 0.85:
            return self.string(self.pick(self.c.cards, "c"))
        return self.reference()

    def test(self, depth: int) -> str:
        a = self.atom(depth)
        roll = self.rnd.random()
        if roll < 0.3:
            return f"{a} is {self.atom(depth)}"
        if roll < 0.4:
            return f"{a} is not {self.atom(depth)}"
        if roll < 0.5:
            return f"{a} is a {self.name(self.pick(self.c.types, 'creature'))}"
        if roll < 0.6:
            return f"{a} has {self.name(self.pick(self.c.keywords, 'flying'))}"
        if roll < 0.7:
            return f"{a} {self.pick(['<', '>', '<=', '>='])} {self.atom(depth)}"
        if roll < 0.75:
            return f"{a} + {self.atom(depth)} is {self.number()}"
        if roll < 0.8:
            return f"{a} is {self.pick(['visible', 'unchanged'])}"
        if roll < 0.9 and self.c.expressions:
            return self.pick(self.c.expressions)
        return a

    def expr(self, depth: int = 2) -> str:
        if self.hostile() and self.chance(0.3):
            return self.deep_expr()
        if depth <= 0:
            return self.test(0)
        roll = self.rnd.random()
        if roll < 0.2:
            return f"{self.expr(depth - 1)} and {self.expr(depth - 1)}"
        if roll < 0.3:
            return f"{self.expr(depth - 1)} or {self.expr(depth - 1)}"
        if roll < 0.4:
            return f"not {self.expr(depth - 1)}"
        if roll < 0.5:
            return f"({self.expr(depth - 1)})"
        return self.test(depth - 1)

    def deep_expr(self) -> str:
        n = self.pick(DEPTHS)
        inner = self.test(0)
        shape = self.rnd.randrange(6)
        if shape == 0:
            return "(" * n + inner + ")" * n
        if shape == 1:
            return "not " * n + inner
        if shape == 2:
            return " and ".join([inner] * n)
        if shape == 3:
            return " + ".join(["1"] * n) + " is 1"
        if shape == 4:
            return "count(y where " * n + inner + ")" * n
        return f"{self.reference()}" + ".x" * n + " is 1"

    # statements

    def verb_call(self) -> str:
        if not self.c.verbs:
            return "tap x"
        verb = self.pick(self.c.verbs)
        arity = self.c.verbs[verb]
        if self.hostile():
            arity = self.rnd.choice([0, arity + 1, max(arity - 1, 0), 50])
        args = ", ".join(self.reference() for _ in range(max(arity, 1)))
        return f"do {verb} {args}"

    def stmt(self, depth: int = 2) -> str:
        if self.hostile() and self.chance(0.2):
            return self.deep_stmt()
        ref = self.reference()
        roll = self.rnd.randrange(16 if depth > 0 else 11)
        if roll == 0:
            status = self.pick(self.c.statuses, "s")
            value = self.pick(self.c.statuses.get(status, ()), "none")
            return f"set {ref}.{self.name(status)} = {self.name(value)}"
        if roll == 1:
            return f"{self.pick(['tap', 'untap', 'destroy', 'cease', 'unattach'])} {ref}"
        if roll == 2:
            return f"move {ref} to {self.name(self.pick(self.c.zones, 'graveyard'))}"
        if roll == 3:
            return f"deal {self.number()} damage to {ref}"
        if roll == 4:
            return f"{ref} gets {self.signed()}/{self.signed()} until end of turn"
        if roll == 5:
            return f"put {self.number()} {self.name(self.pick(self.c.counters, 'c'))} counters on {ref}"
        if roll == 6:
            return self.verb_call()
        if roll == 7:
            return f"attach {ref} to {self.reference()}"
        if roll == 8:
            return f"{ref} gains {self.name(self.pick(self.c.keywords, 'flying'))} until end of turn"
        if roll == 9:
            return f"{ref} becomes {self.number()}/{self.number()}"
        if roll == 10:
            return self.pick(self.c.statements, "tap x") if self.c.statements else "tap x"
        if roll == 11:
            var = self.name(self.pick(["x", "y", "z"]))
            self.objects.append(var)
            return f"each {var} where {self.expr(1)}: {self.body(depth - 1)}"
        if roll == 12:
            var = self.name("y")
            self.objects.append(var)
            return f"each object {var} where {self.expr(1)}: {self.body(depth - 1)}"
        if roll == 13:
            return f"if {self.expr(1)}: {self.body(depth - 1)}"
        if roll == 14:
            return "simultaneously { " + " ".join(self.stmt(depth - 1) for _ in range(self.rnd.randint(0, 3))) + " }"
        return f"at next {self.pick(['end step', 'cleanup', 'untap step', 'upkeep'])}: {self.body(depth - 1)}"

    def body(self, depth: int) -> str:
        if self.chance(0.5):
            return self.stmt(depth)
        return "{\n" + "\n".join("  " + self.stmt(depth) for _ in range(self.rnd.randint(0, 3))) + "\n}"

    def deep_stmt(self) -> str:
        n = self.pick(DEPTHS)
        leaf = f"tap {self.reference()}"
        shape = self.rnd.randrange(5)
        if shape == 0:
            return "".join(f"if {self.reference()}.tapped: " for _ in range(n)) + leaf
        if shape == 1:
            return "".join(f"each v{i} where v{i}.tapped or true: " for i in range(min(n, 40))) + leaf
        if shape == 2:
            return "simultaneously { " * n + leaf + " }" * n
        if shape == 3:
            return "simultaneously {\n" + "\n".join(leaf for _ in range(n * 5)) + "\n}"  # a long finite block
        return "".join("if true: { " for _ in range(n)) + leaf + " }" * n

    # files

    def card(self) -> str:
        name = self.string(self.pick(self.c.cards, "c") + (" " + str(self.rnd.randint(0, 99)) if self.chance(0.7) else ""))
        entries = [f"types {' '.join(self.name(self.pick(self.c.types, 'creature')) for _ in range(self.rnd.randint(1, 2)))}"]
        if self.chance(0.6):
            entries.append(f"pt {self.number()}/{self.number()}")
        if self.chance(0.4):
            entries.append(f"keywords {', '.join(self.name(self.pick(self.c.keywords, 'k')) for _ in range(self.rnd.randint(1, 3)))}")
        if self.chance(0.4):
            entries.append(f"target {self.name('t')} where {self.expr(1)}")
            self.objects.append("t")
        for label in ("static", "spell"):
            if self.chance(0.4):
                entries.append(f"{label}: {self.body(2)}")
        if self.chance(0.4):
            trigger = self.pick(["this enters", "this leaves the battlefield", "this becomes attached",
                                 f"this.{self.pick(self.c.statuses, 's')} becomes {self.atom(0)}"])
            entries.append(f"when {trigger}: {self.body(2)}")
        if self.chance(0.2):  # (what the card leaves out: blank text is the checker's error)
            entries.append(f"partial {self.string(self.pick(['its other ability', '', ' '], 'x'))}")
        if self.chance(0.2):  # (the untap step and cleanup are refused there: 502.4, 514.3)
            step = self.pick(["upkeep", "end step", "untap step", "cleanup"])
            entries.append(f"at beginning of {step} of {self.pick(['you', 'each player P'])}: {self.body(2)}")
        return "card " + name + " {\n" + "\n".join("  " + e for e in entries) + "\n}\n"

    def scenario(self, own_cards: list[str]) -> str:
        self.players = [self.name(p) for p in self.rnd.sample(self.c.players or ["A", "B"], min(2, len(self.c.players or "AB")))]
        if self.hostile():
            self.players.append(self.players[0])  # a duplicate player
        entries = []
        if self.chance(0.5):
            entries.append(f"cites {', '.join(self.pick(self.c.rule_ids, '100.1') for _ in range(self.rnd.randint(1, 2)))}")
        if self.chance(0.6):
            versions = self.c.versions + self.c.variants
            if self.chance(0.5):
                entries.append(f"rules {', '.join(self.name(self.pick(versions)) for _ in range(self.rnd.randint(1, 2)))}")
            else:
                entries.append(f"rules from {self.pick(self.c.versions, '2000-01-01')}")
        entries.append("players " + " ".join(self.players))
        entries.append(f"turn {self.number(1, 3)} of {self.pick(self.players)}")
        cards = list(self.c.cards) + own_cards
        names = []
        for i in range(self.rnd.randint(1, 5) if not self.hostile() else self.rnd.choice([0, 1, 30, 200])):
            oid = self.name(f"o{i}") if not (names and self.hostile()) else self.pick(names)  # duplicates on purpose
            props = [f"controller {self.pick(self.players)}"]
            if self.chance(0.2):
                props.append("tapped")
            if names and self.chance(0.2):
                props.append(f"attached to {self.pick(names)}")
            if self.chance(0.3) and self.c.statuses:
                status = self.pick(self.c.statuses)
                props.append(f"set {self.name(status)} = {self.name(self.pick(self.c.statuses[status], 'none'))}")
            if self.chance(0.15):
                props.append(f"counter {self.name(self.pick(self.c.counters, 'c'))} = {self.number()}")
            if self.chance(0.1):
                props.append(f"damage {self.number()}")
            if self.chance(0.1):
                props.append(f"entered turn {self.number()}")
            card = cards[self.rnd.randrange(len(cards))] if cards else "c"
            entries.append(f"permanent {oid} = {self.string(card)}, " + ", ".join(props))
            names.append(oid)
        self.objects = names[:]
        steps = []
        for _ in range(self.rnd.randint(0, 8)):
            steps.append(self.step(cards))
        entries.append("script {\n" + "\n".join("    " + s for s in steps) + "\n  }")
        title = self.string(f"scenario {self.rnd.randint(0, 10**6)}")
        return "scenario " + title + " {\n" + "\n".join("  " + e for e in entries) + "\n}\n"

    def step(self, cards: list[str]) -> str:
        roll = self.rnd.randrange(12)
        who = self.pick(self.players)
        if roll == 0:
            return "next turn"
        if roll == 1:
            return "next turn skipping untap step"
        if roll in (2, 3):
            target = f" targeting {self.reference()}" if self.chance(0.7) else ""
            return f"cast {self.string(self.pick(cards, 'c'))} by {who}{target}"
        if roll == 4:
            return f"hold {self.string(self.pick(cards, 'c'))} by {who} targeting {self.reference()}\n    resolve"
        if roll == 5:
            return f"attack with {self.reference()}"
        if roll == 6:
            return f"{who} leaves the game"
        if roll == 7:
            return f"move {self.reference()} to {self.name(self.pick(self.c.zones, 'graveyard'))}"
        if roll == 8:
            return self.pick(self.c.steps, "cleanup")
        if roll == 9:
            return f"expect error {self.string('x')}"
        if roll == 10:
            return f"expect for {self.pick(self.c.versions, '2000-01-01')}: {self.expr()}"
        return f"expect {self.expr()}"

    def variant(self) -> str:
        base = self.pick(self.c.versions + self.c.variants, "x")
        name = self.name(f"fuzz-{self.rnd.randint(0, 999)}")
        entries = [f"title {self.string('a variant')}", f"extends {self.name(base) if self.hostile() else base}"]
        if self.chance(0.3):
            entries.append(f"note {self.string('note')}")
        if self.chance(0.3):
            entries.append(f"drop {self.pick(list(self.c.slugs) + list(self.c.rule_ids), 'x')}")
        if self.chance(0.1):
            entries.append(f"renumber {self.pick(self.c.rule_ids, '100.1')} as {self.pick(self.c.rule_ids, '100.2')}")
        parts = ["variant " + name + " {\n" + "\n".join("  " + e for e in entries) + "\n}\n"]
        if self.chance(0.3):
            values = [self.name(f"v{i}") for i in range(self.rnd.randint(2, 3))]
            parts.append(f"status {self.name('fuzz_status')}: {' | '.join(values)} = {self.pick(values)}\n")
        if self.chance(0.3):
            params = [self.name(p) for p in ["p", "q"][: self.rnd.randint(1, 2)]]
            self.objects = params[:]
            parts.append(f"verb {self.name('fuzz_verb')} {' '.join(params)} " + "{\n  " + self.stmt(2) + "\n}\n")
        for _ in range(self.rnd.randint(1, 3)):
            parts.append(self.rule())
        return "\n".join(parts)

    def rule(self) -> str:
        rid = self.pick(self.c.rule_ids, "100.1")
        slug = self.pick(self.c.slugs, "s") if self.chance(0.5) else self.name(f"fuzz-slug-{self.rnd.randint(0, 9)}")
        clauses = []
        self.objects = ["x"]
        self.players = ["P"]
        for _ in range(self.rnd.randint(1, 3)):
            status = self.pick(self.c.statuses, "s")
            value = self.pick(self.c.statuses.get(status, ()), "none")
            roll = self.rnd.randrange(8)
            hook = self.pick(["untap step", "upkeep", "end step", "cleanup", "beginning of turn", "state check",
                              "leaving the game", "turn would begin"])
            if roll == 0:
                clauses.append(f"during {hook} of P: {self.body(2)}")
            elif roll == 1:
                clauses.append(f"during state check: {self.body(2)}")
            elif roll == 2:
                clauses.append(f"as x.{status} becomes {value}: {self.body(2)}")
            elif roll == 3:
                clauses.append(f"after x.{status} becomes {value}: {self.body(2)}")
            elif roll == 4:
                clauses.append(f"hide x where {self.expr()}")
            elif roll == 5:
                clauses.append(f"prefer {status} = {value}")
            elif roll == 6:
                clauses.append(f"assert after x.{status} becomes {value}: {self.expr()}")
            else:
                clauses.append(f"after x leaves the battlefield: {self.body(2)}")
        return f"rule {rid} {slug} {self.string('a block')} " + "{\n" + "\n".join("  " + c for c in clauses) + "\n}\n"


def _damage_text(rnd: random.Random, text: str) -> bytes:
    """Text-level hostility: a byte order mark, tabs, CRLF, NUL, invalid UTF-8, long lines,
    errors pushed to line and column 100, a cut."""
    roll = rnd.randrange(10)
    if roll == 0:
        return b"\xef\xbb\xbf" + text.encode()
    if roll == 1:
        return re.sub(r"^( +)", lambda m: "\t" * len(m.group(1)), text, flags=re.M).encode()
    if roll == 2:
        return text.replace("\n", "\r\n").encode()
    if roll == 3:
        data = text.encode()
        at = rnd.randrange(len(data) + 1)
        return data[:at] + rnd.choice([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]) + data[at:]
    if roll == 4:
        return ("# " + "x" * 200_000 + "\n" + text).encode()
    if roll == 5:
        return ("#\n" * 99 + re.sub(r"^", " " * 99, text, count=1, flags=re.M) + "\n" + " " * 99 + "}").encode()
    if roll == 6:
        data = text.encode()
        return data[: rnd.randrange(len(data) + 1)]
    if roll == 7:
        return (text + text).encode()  # every name declared twice
    if roll == 8:
        return text.replace(" ", "\t").encode()
    return text.encode()


def grammar_input(rnd: random.Random, corpus: Corpus | None = None) -> Input:
    """A generated scenario (with cards of its own), variant, or version folder."""
    corpus = corpus or load_corpus()
    hostility = rnd.choice([0.0, 0.02, 0.1, 0.3])
    writer = _Writer(rnd, corpus, hostility)
    roll = rnd.random()
    damage = rnd.random() < 0.3
    if roll < 0.6:
        own = []
        cards_text = ""
        for _ in range(rnd.randint(0, 3)):
            text = writer.card()
            own.append(re.match(r'card "([^"]*)"', text).group(1) if text.startswith('card "') else "c")
            cards_text += text
        text = cards_text + writer.scenario(own)
        if rnd.random() < 0.2:
            text += writer.scenario(own)
        data = _damage_text(rnd, text) if damage else text.encode()
        return Input("scenario", (("input.scenario", data),), "grammar:scenario")
    text = writer.variant()
    data = _damage_text(rnd, text) if damage else text.encode()
    if roll < 0.9:
        return Input("variant", (("variant.rules", data), ("probe.scenario", _probe(corpus, rnd))), "grammar:variant")
    manifest = text.replace("variant ", "version 2000-01-01 ", 1) if rnd.random() < 0.8 else text
    data = _damage_text(rnd, manifest) if damage else manifest.encode()
    return Input("folder", (("version/version.rules", data), ("probe.scenario", _probe(corpus, rnd))), "grammar:folder")


# ---------------------------------------------------------------- the mutation fuzzer

_TOKEN = re.compile(r'"[^"\n]*"|\d{4}-\d{2}-\d{2}|\d{3}\.\d+[a-z]?|[+-]?\d+|[A-Za-z_][\w-]*|<=|>=|[^\s\w]')


def _mutate_once(rnd: random.Random, text: str, corpus: Corpus, donors: list[str]) -> str:
    lines = text.split("\n")
    roll = rnd.randrange(12)
    i = rnd.randrange(len(lines))
    if roll == 0:
        del lines[i]
    elif roll == 1:
        lines.insert(i, lines[i])
    elif roll == 2:
        j = rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif roll == 3 and donors:
        donor = rnd.choice(donors).split("\n")
        k = rnd.randrange(len(donor))
        lines[i:i] = donor[k: k + rnd.randint(1, 4)]
    elif roll == 4:
        return text[: rnd.randrange(len(text) + 1)]
    elif roll in (5, 6, 7, 8):
        tokens = list(_TOKEN.finditer(lines[i]))
        if tokens:
            t = rnd.choice(tokens)
            old = t.group(0)
            if old.startswith('"'):
                new = '"' + rnd.choice(HOSTILE_TEXT).replace('"', "'").replace("\n", " ") + '"'
            elif old.lstrip("+-").isdigit():
                new = rnd.choice(HOSTILE_NUMBERS)
            elif roll == 8:
                new = ""  # a token deleted
            elif rnd.random() < 0.5:
                new = rnd.choice(HOSTILE_NAMES)
            else:
                other = rnd.choice(list(_TOKEN.finditer(rnd.choice(donors or [text])))).group(0)
                new = other
            lines[i] = lines[i][: t.start()] + new + lines[i][t.end():]
    elif roll == 9:
        tokens = list(_TOKEN.finditer(lines[i]))
        if tokens:
            t = rnd.choice(tokens)
            lines[i] = lines[i][: t.end()] + " " + t.group(0) + lines[i][t.end():]  # a token duplicated
    elif roll == 10:
        m = re.search(r"(\b(?:expect|where|if)\s+)([^:\n]+)", lines[i])
        if m:
            n = rnd.choice(DEPTHS)
            wrapped = rnd.choice(["(" * n + m.group(2) + ")" * n, "not " * n + m.group(2)])
            lines[i] = lines[i][: m.start(2)] + wrapped + lines[i][m.end(2):]
    else:
        lines.insert(i, rnd.choice(["{", "}", ":", ",", "simultaneously {", "script {", "\t", "\\", "#"]))
    return "\n".join(lines)


def mutated_input(rnd: random.Random, corpus: Corpus | None = None) -> Input:
    """A shipped file with a few mutations, set in the context it is used in."""
    corpus = corpus or load_corpus()
    pool = list(corpus.rule_files + corpus.scenario_files)
    path = rnd.choice(pool)
    text = corpus.texts[str(path)]
    donors = [t for p, t in corpus.texts.items() if p.endswith(path.suffix)]
    for _ in range(rnd.choice([1, 1, 2, 3, 6])):
        text = _mutate_once(rnd, text, corpus, donors)
    data = _damage_text(rnd, text) if rnd.random() < 0.15 else text.encode()
    origin = f"mutate:{path.parent.name}/{path.name}"
    if path.suffix == ".scenario":
        return Input("scenario", (("input.scenario", data),), origin)
    if (path.parent / "version.rules").exists():
        siblings = tuple((f"version/{p.name}", p.read_bytes()) for p in sorted(path.parent.glob("*.rules"))
                         if p != path)
        return Input("folder", ((f"version/{path.name}", data),) + siblings + (("probe.scenario", _probe(corpus, rnd)),),
                     origin)
    if re.search(r"^\s*variant\s", corpus.texts[str(path)], re.M):
        return Input("variant", (("variant.rules", data), ("probe.scenario", _probe(corpus, rnd))), origin)
    # a card library: its cards declared in a scenario file, ahead of a shipped scenario
    return Input("scenario", (("input.scenario", data + b"\n" + _probe_with_rules(corpus, rnd)),), origin)


def _probe_with_rules(corpus: Corpus, rnd: random.Random) -> bytes:
    return corpus.texts[str(rnd.choice(corpus.scenario_files))].encode() if corpus.scenario_files else b""


# ---------------------------------------------------------------- Hypothesis strategies

def _lark_strategy():
    import lark
    from hypothesis import strategies as st
    from hypothesis.extra.lark import from_lark
    from lark.lexer import PatternStr

    from ...dsl.parser import GRAMMAR

    corpus = load_corpus()
    grammar = lark.Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer="contextual", strict=True)

    def spaced(strategy):
        return strategy.map(lambda s: f" {s} ")

    names = list(corpus.attributes[:50]) + list(corpus.statuses) + list(corpus.verbs) + list(corpus.players) + ["x"]
    explicit = {t.name: st.just(f" {t.pattern.value} ") for t in grammar.terminals if isinstance(t.pattern, PatternStr)}
    explicit.update({
        "NAME": spaced(st.sampled_from(names + list(HOSTILE_NAMES))),
        "INT": spaced(st.sampled_from(("0", "1", "2", "3") + HOSTILE_NUMBERS[:6])),
        "SIGNED_INT": spaced(st.sampled_from(("+1", "-1", "+0", "-3"))),
        "STRING": spaced(st.sampled_from([f'"{c}"' for c in corpus.cards[:30]]
                                         + ['"' + h.replace('"', "'").replace("\n", " ") + '"' for h in HOSTILE_TEXT])),
        "VERSION_ID": spaced(st.sampled_from(list(corpus.versions) or ["2000-01-01"])),
        "RULEID": spaced(st.sampled_from(list(corpus.rule_ids[:40]) or ["100.1"])),
        "COMPARE": spaced(st.sampled_from(["<", ">", "<=", ">="])),
        "COMMENT": st.just("# c\n"),
    })
    return from_lark(grammar, explicit={k: v for k, v in explicit.items()
                                        if k in {t.name for t in grammar.terminals}})


def lark_texts():
    """Hypothesis strategy: whole files drawn from the grammar itself (any mix of item kinds).
    Lark analyses the grammar when the first example is drawn, not when a test is defined."""
    from hypothesis import strategies as st

    return st.deferred(_lark_strategy)


def lark_inputs():
    """Hypothesis strategy: grammar-drawn text as a scenario file or as a variant file."""
    from hypothesis import strategies as st

    def build(text: str, as_scenario: bool, rnd: random.Random) -> Input:
        data = text.encode()
        if as_scenario:
            return Input("scenario", (("input.scenario", data),), "lark:scenario")
        return Input("variant", (("variant.rules", data), ("probe.scenario", _probe(load_corpus(), rnd))), "lark:variant")
    return st.builds(build, lark_texts(), st.booleans(), st.randoms(use_true_random=False))


def grammar_inputs():
    """Hypothesis strategy: inputs from the grammar-aware generator."""
    from hypothesis import strategies as st
    return st.randoms(use_true_random=False).map(grammar_input)


def mutated_inputs():
    """Hypothesis strategy: mutated shipped files."""
    from hypothesis import strategies as st
    return st.randoms(use_true_random=False).map(mutated_input)


def scenario_texts():
    """Hypothesis strategy: scenario files (with cards of their own) from the grammar-aware generator."""
    from hypothesis import strategies as st
    return st.randoms(use_true_random=False).map(
        lambda r: _Writer(r, load_corpus(), r.choice([0.0, 0.1, 0.3])).scenario([]))


def rule_texts():
    """Hypothesis strategy: variant files (manifest, statuses, verbs, blocks)."""
    from hypothesis import strategies as st
    return st.randoms(use_true_random=False).map(lambda r: _Writer(r, load_corpus(), r.choice([0.0, 0.1, 0.3])).variant())


def card_texts():
    """Hypothesis strategy: card declarations."""
    from hypothesis import strategies as st
    return st.randoms(use_true_random=False).map(lambda r: _Writer(r, load_corpus(), r.choice([0.0, 0.1, 0.3])).card())


# ---------------------------------------------------------------- the oracle

class Hang(BaseException):
    """Raised by the alarm when a command runs past its time limit (not an Exception, so
    nothing the command catches can swallow it)."""


@attrs.frozen
class Result:
    """What one command did with one input."""

    argv: tuple[str, ...]
    status: int | None  # None: it raised or hung
    stdout: str
    stderr: str
    error: str  # the traceback of anything that escaped `main`, or of a hang
    seconds: float
    finding: str | None  # None, "exit-status", "internal-error", "traceback", "exception", "hang"

    def first_lines(self, n: int = 6) -> str:
        text = self.error or self.stderr or self.stdout
        return "\n".join(text.strip().splitlines()[-n:] if self.error else text.strip().splitlines()[:n])


@contextlib.contextmanager
def _alarm(seconds: float):
    usable = seconds > 0 and hasattr(signal, "setitimer") and _main_thread()
    if not usable:
        yield
        return

    def fire(signum, frame):
        raise Hang(f"still running after {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def memory_cap(megabytes: int):
    """While inside, this process may grow by at most `megabytes` (address space), so a runaway
    input fails with MemoryError instead of exhausting a shared machine."""
    try:
        import resource
        pages = int(Path("/proc/self/statm").read_text().split()[0])
        now = pages * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = now + megabytes * 2**20
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_command(argv: list[str] | tuple[str, ...], max_seconds: float = 10.0,
                main: Callable[[list[str]], int] | None = None, memory_mb: int = 1500) -> Result:
    """Run one `phasing` command in this process and judge what it did: within `max_seconds`
    (longer is a hang) and `memory_mb` more memory (more fails with MemoryError)."""
    if main is None:
        raise ValueError("run_command needs the command's entry point: main=interpreter.cli.main")
    out, err = io.StringIO(), io.StringIO()
    status, error, finding = None, "", None
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _alarm(max_seconds), \
                memory_cap(memory_mb):
            status = main(list(argv))
    except Hang:
        error, finding = traceback.format_exc(), "hang"
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if status not in (0, 1):
            error = traceback.format_exc()
    except BaseException:  # anything else escaping main is a finding, KeyboardInterrupt included
        error, finding = traceback.format_exc(), "exception"
    seconds = time.perf_counter() - start
    stdout, stderr = out.getvalue(), err.getvalue()
    out = err = None
    if finding is None:
        if "internal error" in stdout or "internal error" in stderr:
            finding = "internal-error"
        elif "Traceback (most recent call last)" in stdout or "Traceback (most recent call last)" in stderr:
            finding = "traceback"
        elif status not in (0, 1):
            finding = "exit-status"
    keep = 200_000  # a result is kept with its finding: only the start of a long output
    return Result(tuple(argv), status, stdout[:keep], stderr[:keep], error[-keep:], seconds, finding)


@contextlib.contextmanager
def private_cache() -> Iterator[Path]:
    """While inside, PHASING_CACHE_DIR is a fresh temporary folder, and so is Hypothesis's
    storage (by default `.hypothesis/` in the current folder) unless someone chose one: a
    campaign leaves the user's cache and folder as it found them."""
    from hypothesis import configuration

    folder = Path(tempfile.mkdtemp(prefix="phasing-fuzz-cache-"))
    before = os.environ.get("PHASING_CACHE_DIR")
    os.environ["PHASING_CACHE_DIR"] = str(folder / "phasing")
    storage_chosen = (getattr(configuration, "__hypothesis_home_directory", None) is not None
                      or bool(os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")))
    if not storage_chosen:
        configuration.set_hypothesis_home_dir(str(folder / "hypothesis"))
    try:
        yield folder
    finally:
        if not storage_chosen:
            configuration.set_hypothesis_home_dir(None)
        if before is None:
            os.environ.pop("PHASING_CACHE_DIR", None)
        else:
            os.environ["PHASING_CACHE_DIR"] = before
        shutil.rmtree(folder, ignore_errors=True)


def _forget_loaded_versions() -> None:
    """Loaded rulebooks are cached per process by path: drop them so memory stays bounded."""
    from ..rulebook import loading as rulebook
    clear = getattr(rulebook.load_version, "cache_clear", None)
    if clear is not None:
        clear()


def run_input(item: Input, commands: list[tuple[str, ...]] | None = None, max_seconds: float = 10.0,
              main: Callable[[list[str]], int] | None = None, memory_mb: int = 1500) -> list[Result]:
    """Write `item` to a fresh temporary folder and run it through `commands` (default: every
    command that takes this kind of input)."""
    from ..play.suite import current_version
    folder = Path(tempfile.mkdtemp(prefix="phasing-fuzz-"))
    try:
        item.write(folder)
        commands = commands or commands_for(item.kind, current_version())
        return [run_command([a.replace("{dir}", str(folder)) for a in argv], max_seconds, main, memory_mb)
                for argv in commands]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if item.kind != "scenario":
            _forget_loaded_versions()


# ---------------------------------------------------------------- findings

@attrs.frozen
class Finding:
    """A command that did not give a clean answer on an input."""

    kind: str
    command: tuple[str, ...]  # with {dir} standing for the input's folder
    item: Input
    result: Result
    where: str  # the innermost project frame of the failure, or the message's first line
    trace: str = ""  # the traceback, from a rerun with PHASING_DEBUG=1 where the command hid it

    @property
    def key(self) -> tuple[str, str]:
        """Two findings with the same key are taken to be the same bug."""
        return (self.kind, self.where)


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _where(result: Result, debug_rerun: Callable[[], Result] | None) -> tuple[str, str]:
    """Where a failure came from, and its traceback: the innermost frame of the project's own
    code (for a RecursionError, the frame that repeats most), else the message's first line."""
    trace = result.error
    if not trace and debug_rerun is not None:
        trace = debug_rerun().error
    frames: list[tuple[str, str]] = []
    weight: Counter = Counter()
    last = None
    for line in trace.splitlines():
        m = _FRAME.search(line)
        if m:
            f, fn = m.group(1), m.group(3)
            last = (f, fn) if "/site-packages/" not in f and "/lib/python" not in f and f != __file__ else None
            if last:
                frames.append(last)
                weight[last] += 1
        elif last and (r := re.search(r"Previous line repeated (\d+) more times", line)):
            weight[last] += int(r.group(1))
    exc = trace.strip().splitlines()[-1].split(":")[0] if trace.strip() else ""
    if frames:
        if exc.endswith("RecursionError"):  # the frame that recursed most, the innermost of equals
            f, fn = max(reversed(frames), key=lambda fr: weight[fr])
        else:
            f, fn = frames[-1]
        return f"{exc} at {Path(f).parent.name}/{Path(f).name}:{fn}", trace
    text = result.first_lines(1) or exc
    return re.sub(r"\d+", "N", re.sub(r"/\S+", "PATH", text))[:120], trace


def _debug_rerun(argv, max_seconds, main, memory_mb):
    def rerun() -> Result:
        before = os.environ.get("PHASING_DEBUG")
        os.environ["PHASING_DEBUG"] = "1"
        try:
            return run_command(argv, max_seconds, main, memory_mb)
        finally:
            if before is None:
                os.environ.pop("PHASING_DEBUG", None)
            else:
                os.environ["PHASING_DEBUG"] = before
    return rerun


def judge(item: Input, commands: list[tuple[str, ...]] | None = None, max_seconds: float = 10.0,
          main: Callable[[list[str]], int] | None = None, memory_mb: int = 1500) -> tuple[list[Result], list[Finding]]:
    """Run an input and return its results and the findings among them (each located)."""
    from ..play.suite import current_version
    commands = commands or commands_for(item.kind, current_version())
    folder = Path(tempfile.mkdtemp(prefix="phasing-fuzz-"))
    results, findings = [], []
    try:
        item.write(folder)
        for template in commands:
            argv = [a.replace("{dir}", str(folder)) for a in template]
            limit = max_seconds * SLOW_COMMANDS.get(template[0], 1)
            result = run_command(argv, limit, main, memory_mb)
            results.append(result)
            if result.finding:
                rerun = None if result.finding == "hang" else _debug_rerun(argv, limit, main, memory_mb)
                where, trace = _where(result, rerun)
                findings.append(Finding(result.finding, template, item, result, where.replace(str(folder), "{dir}"),
                                        trace.replace(str(folder), "{dir}")))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if item.kind != "scenario":
            _forget_loaded_versions()
    return results, findings


def minimize(finding: Finding, max_seconds: float, budget_seconds: float = 20.0,
             main: Callable[[list[str]], int] | None = None, memory_mb: int = 1500) -> Input:
    """A smaller input (fewer lines of the main file, then fewer characters of long lines) that
    still gives the same finding with the same command; stops after `budget_seconds`."""
    deadline = time.monotonic() + budget_seconds
    item = finding.item

    def same(candidate: Input) -> bool:
        if time.monotonic() > deadline:
            return False
        _, found = judge(candidate, [finding.command], max_seconds, main, memory_mb)
        return any(f.key == finding.key for f in found)

    lines = item.files[0][1].split(b"\n")
    chunk = max(len(lines) // 2, 1)
    while chunk >= 1 and time.monotonic() < deadline:
        i, changed = 0, False
        while i < len(lines) and time.monotonic() < deadline:
            trial = lines[:i] + lines[i + chunk:]
            if trial and same(item.with_main(b"\n".join(trial))):
                lines, changed = trial, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return item.with_main(b"\n".join(lines))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "finding"


def save_finding(finding: Finding, out_dir: Path, minimal: Input | None = None, seed: int | None = None) -> Path:
    """Write a finding to a new folder under `out_dir` (never reusing an existing name)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(repr(finding.key).encode()).hexdigest()[:8]
    base = f"{finding.kind}-{_slug(finding.where)}-{digest}"
    n = 1
    while True:
        target = out_dir / (base if n == 1 else f"{base}-{n}")
        try:
            target.mkdir()
            break
        except FileExistsError:
            n += 1
    item = minimal or finding.item
    item.write(target)
    if minimal is not None:
        (target / "original").mkdir()
        finding.item.write(target / "original")
    r = finding.result
    report = [
        f"kind: {finding.kind}",
        f"where: {finding.where}",
        f"command: phasing {' '.join(finding.command)}   ({{dir}} is this folder)",
        f"exit status: {r.status}",
        f"origin: {item.origin}" + (f" (campaign seed {seed})" if seed is not None else ""),
        f"seconds: {r.seconds:.2f}",
        "", "stderr:", r.stderr[:4000], "", "stdout (start):", r.stdout[:2000], "", "traceback:", (finding.trace or r.error)[-8000:],
    ]
    write_file(target / "finding.txt", "\n".join(report).encode("utf-8"), replace=True, durable=False)
    return target


# ---------------------------------------------------------------- campaigns

@attrs.frozen
class Report:
    """What a campaign did."""

    seconds: float
    inputs: dict[str, int]  # generator -> inputs tried
    commands: dict[str, int]  # command -> runs
    findings: dict[tuple[str, str], int]  # finding key -> how many times seen
    saved: tuple[Path, ...]
    examples: tuple[Finding, ...]  # the first finding of each key

    @property
    def found(self) -> bool:
        return bool(self.findings)

    def lines(self) -> list[str]:
        total = sum(self.inputs.values())
        lines = [f"fuzzed for {self.seconds:.0f} s: {total} inputs, {sum(self.commands.values())} command runs"]
        lines += [f"  generator {name:<20} {n} inputs" for name, n in sorted(self.inputs.items())]
        lines += [f"  command   {name:<20} {n} runs" for name, n in sorted(self.commands.items())]
        if not self.findings:
            lines.append("no findings")
        for example in self.examples:
            n = self.findings[example.key]
            lines.append(f"FINDING {example.kind} x{n}: {example.where}")
            lines.append(f"  phasing {' '.join(example.command)}  (exit {example.result.status}, from {example.item.origin})")
        lines += [f"  saved {p}" for p in self.saved]
        return lines


GENERATORS: dict[str, Callable[[random.Random], Input]] = {
    "grammar": grammar_input,
    "mutate": mutated_input,
}


def _lark_batch(seed: int, n: int) -> list[Input]:
    """`n` inputs drawn from `lark_inputs()` by a Hypothesis run seeded with `seed`."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    drawn: list[Input] = []

    @hseed(seed)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(lark_inputs())
    def collect(item):
        drawn.append(item)
    collect()
    return drawn


def campaign(seconds: float, seed: int = 0, out_dir: Path | None = None, max_input_seconds: float = 10.0,
             generators: tuple[str, ...] = ("grammar", "mutate", "lark"), heavy: bool = True,
             minimize_seconds: float = 20.0, memory_mb: int = 1500, max_inputs: int | None = None,
             main: Callable[[list[str]], int] | None = None,
             progress: Callable[[str], None] | None = None) -> Report:
    """Generate and mutate inputs for `seconds` (or `max_inputs`), run each through the commands,
    and keep the first finding of each kind and place (saved under `out_dir` when given)."""
    from ..play.suite import current_version
    rnd = random.Random(seed)
    inputs: Counter = Counter()
    commands: Counter = Counter()
    seen: Counter = Counter()
    examples: dict[tuple[str, str], Finding] = {}
    saved: list[Path] = []
    lark_queue: list[Input] = []
    start = time.monotonic()
    with private_cache():
        current = current_version()
        n = 0
        while time.monotonic() - start < seconds and (max_inputs is None or n < max_inputs):
            name = generators[n % len(generators)]
            n += 1
            if name == "lark":
                if not lark_queue:
                    lark_queue = _lark_batch(rnd.randrange(2**32), 20)
                if not lark_queue:
                    continue
                item = lark_queue.pop()
            else:
                item = GENERATORS[name](random.Random(rnd.randrange(2**63)))
            inputs[name] += 1
            cmds = commands_for(item.kind, current, heavy=heavy and rnd.random() < 0.1)
            _, findings = judge(item, cmds, max_input_seconds, main, memory_mb)
            for template in cmds:
                commands[" ".join(a for a in template[:1])] += 1
            for finding in findings:
                seen[finding.key] += 1
                if finding.key in examples:
                    continue
                examples[finding.key] = finding
                if progress:
                    progress(f"finding: {finding.kind}: {finding.where}")
                if out_dir is not None:
                    minimal = (minimize(finding, max_input_seconds, minimize_seconds, main, memory_mb)
                               if minimize_seconds else None)
                    saved.append(save_finding(finding, out_dir, minimal, seed))
            if n % 100 == 0:
                _forget_loaded_versions()
    return Report(time.monotonic() - start, dict(inputs), dict(commands), dict(seen), tuple(saved),
                  tuple(examples.values()))


# ---------------------------------------------------------------- the command

def register(subparsers, entry: Callable[[list[str]], int]) -> argparse.ArgumentParser:
    """Add `phasing fuzz` to a command's subparsers; `entry` is that command's own `main`,
    which the campaign runs on every input (passed in, so this module never imports the
    command line that registers it)."""
    p = subparsers.add_parser("fuzz", help="run generated and mutated inputs through every command; keep what crashes")
    p.add_argument("--minutes", type=float, default=1.0, help="how long to run (default 1)")
    p.add_argument("--out", default="fuzz-findings", help="folder for crashing inputs (default ./fuzz-findings)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock; printed)")
    p.add_argument("--max-input-seconds", type=float, default=10.0,
                   help="time limit of one command on one input; longer is reported as a hang (default 10)")
    p.set_defaults(func=cmd_fuzz, entry=entry)
    return p


def cmd_fuzz(args) -> int:
    """Run a campaign; exit 1 if anything was found, 0 otherwise."""
    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if not (args.minutes > 0) or args.minutes > 7 * 24 * 60:
        say("error: --minutes must be a positive number of minutes (at most a week)")
        return 1
    if not (args.max_input_seconds > 0):
        say("error: --max-input-seconds must be positive")
        return 1
    seed = args.seed if args.seed is not None else int(time.time()) % 2**31
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        say(f"error: --out {out_dir} exists and is not a folder")
        return 1
    say(f"fuzzing for {args.minutes:g} min, seed {seed}; findings go to {out_dir}/")
    seconds = args.minutes * 60
    # shrinking a finding may take a tenth of the campaign, at most 20 s a finding
    report = campaign(seconds, seed, out_dir, args.max_input_seconds, minimize_seconds=min(20.0, seconds / 10),
                      progress=say, main=args.entry)
    for line in report.lines():
        print(line)
    return 1 if report.found else 0
