"""Rule-block bodies compiled to Python source, once per rulebook.

The closures of `interpreter.program.compiled` and `Compiler.compile_statement` are the definition of
what a statement does; this module writes the same thing out as one Python function per
body, so that running it costs a function call, not a closure call per node, an environment
dictionary per binding and a `reachable` check per write. It compiles:

- a statement the engine runs with a cause, a block's body with its block's cause
  (`compile_runner`): a function `(engine, env, batch, cause)`, like the closures; the
  block's `exempt x from R where ...` clauses are written into its selections;
- `Reactions.expand` with every `as` clause written in (`compile_expander`): a function
  `(engine, batch, limit)` that runs, for each change of the batch some clauses wait on,
  their bodies in rulebook order;
- one `after` clause (`compile_reactions`): a function `(engine, object id, old value, batch)`;
- an assertion after a change (`compile_assertion`): `(engine, object id, old value,
  values read before) -> bool`;
- the local state checks made again for changed objects, in one pass
  (`compile_check_pass`, `compile_chosen`).

A write reads the value it replaces as it is made (nothing changes while a batch is made);
one that changes nothing goes to the batch's `unchanged_writes` (see `interpreter.engine.batches.Batch`)
unless no two writes of the batch can set its attribute to different values: each function
knows what its writes can be (`fn.write_sites`, `interpreter.program.write_sites`), and the engine
tells the batch which attributes its writers contest (`Batch.contested`).

Variables become Python locals; verbs are inlined with their parameters bound; a selection
is a loop over the candidates the same indexes give, with the conjuncts no index answered
written out; conditions and values the writer knows are written out, and anything else calls
the closure that defines it, with an environment built from the locals in scope. An object
a selection chose, or the one a change happened to, is read as `GameView.getter` reads it,
straight off the object, and an action reaches a chosen one without a `reachable` check:
nothing changes while a batch is made, and selections keep only what an action can reach.
`tests/test_generated.py` runs the conformance suite and generated boards both ways and
compares the traces event for event. Each function keeps its source (`fn.source`).

Each selection's loop counts its candidates against the step's budget, once before it runs,
and checks the batch's writes against it (`interpreter.game.budget`), as `Selector.select` does.

Python cannot take every function: statements nested deeper than its tokenizer's 100 levels
of indentation or its 20 nested loops, or expressions deeper than its parser or compiler
take. Each `compile_...` function then raises `CannotCompile`, and the engine runs the
closures that define that body instead (the trace is the same).
"""

from __future__ import annotations

import ast as python_ast
import functools
import re
from collections import Counter
from typing import Any, Callable

import attrs

from ...dsl import ast
from ...dsl.builtins import REFERENCE_KINDS
from .compiled import (BEFORE, compare, has_keyword, is_of_type, is_same, is_same_stored, is_visible,
                       is_visible_stored, printed_or_changed, symbol_value)
from .indexes import FIELD_SET, NOTHING
from ..game.refs import Obj, obj_ref, stored
from ..game.model import PLAIN_FIELDS
from ..game.refs import FALSY
from ..game.store import Bulk
from .write_sites import UNKNOWN, WriteSites

UNSET = type("Unset", (), {"__repr__": lambda self: "UNSET", "__slots__": ()})()  # a `memo`ized read not yet made

class CannotCompile(Exception):
    """Python cannot take a generated function (nested too deeply for it): the engine runs
    the closures that define what it would have done."""


# Python's tokenizer takes 100 levels of indentation; deeper than this, no function is written.
MAX_INDENT = 90
# What a function that runs closures (whose writes are not known) can write: anything.
OPAQUE = WriteSites({}, True)


def or_cannot(build: Callable) -> Callable:
    """`build`, raising `CannotCompile` when Python cannot take what it writes (too deeply
    nested: SyntaxError, IndentationError, "too many statically nested blocks",
    RecursionError in the writer or the compiler, MemoryError)."""
    @functools.wraps(build)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return build(*args, **kwargs)
        except (SyntaxError, RecursionError, MemoryError) as exc:
            raise CannotCompile(f"{type(exc).__name__}: {exc}") from None
    return guarded


ANY_OLD = object()  # an `as`, `after` or assertion that doesn't say what the value changes from
MAX_INLINE_DEPTH = 8  # verbs calling verbs: deeper than this (or a verb that can call itself), the closure runs them

# Statements that set one attribute of their object to a fixed value.
SIMPLE_WRITES = {
    ast.Unattach: ("attached_to", None),
    ast.Tap: ("tapped", True),
    ast.Untap: ("tapped", False),
    ast.AttackWith: ("attacking", True),
    ast.RemoveDamage: ("damage", 0),
}
# Statements that set several attributes of their object to fixed values.
MULTI_WRITES = {
    ast.RemoveFromCombat: (("attacking", False), ("blocking", False)),
}


# The tests `Emitter.expr` writes as Python that is a bool (`True` or `False`) already.
BOOLEAN = (ast.And, ast.Or, ast.Not, ast.Is, ast.IsA, ast.Has, ast.Compare, ast.Visible)


@attrs.frozen
class Binding:
    """A DSL variable as a Python local. `chosen`: a reference to an object that exists and
    that the game reads as it is (named by a hiding status, or not hidden), which an action
    reaches without a check: a selection chose it. `local_ok`: for the object a change
    happened to, which is read as it is too, the name of a local saying whether an action
    reaches it (it may have ceased to exist). `obj`: for a chosen one, the local holding the
    object itself (nothing changes while a batch is made). `oid`: the local holding the
    object's id; the reference itself (`Obj(id, sees_hidden)`) is then made only where a value is
    needed, since most uses want the id alone."""

    local: str
    chosen: bool = False
    local_ok: str | None = None
    obj: str | None = None  # for a chosen one, the local holding the object itself
    oid: str | None = None  # the local holding its id, when the reference is made only where needed
    sees_hidden: bool = False  # (with `oid`) whether the reference is one named by a hiding status
    status: str | None = None  # (with `obj`) a local holding the object's statuses as a dict, if one does


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, name: str) -> Any:
    """The code object of generated `source`: compiled once for every program that writes the
    same text (the rulebooks `phasing ablate` and `diff` build share most of their blocks, and
    a function's constants live in its program's namespace, not in its text)."""
    return compile(source, f"<rules: {name}>", "exec")


def is_literal(source: str) -> bool:
    """Is `source` a Python literal (a value written out: the same wherever it is read)?"""
    try:
        python_ast.literal_eval(source)
    except (ValueError, SyntaxError):
        return False
    return True


STATUSES_READ = re.compile(r"\s*(status_\d+) = \w+\.statuses")  # (a line `Emitter.each` writes)


class Emitter:
    """Writes one function's source; constants go into its namespace by generated names."""

    def __init__(self, compiler: Any, writer: Callable | None):
        self.compiler = compiler  # (`interpreter.program.compiler`: what the code is written from; the engine comes when it runs)
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {
            "FALSY": FALSY, "BEFORE": BEFORE, "Obj": Obj, "obj_ref": obj_ref, "stored": stored, "Write": writer,
            "is_same": is_same, "is_same_stored": is_same_stored, "is_of_type": is_of_type,
            "has_keyword": has_keyword, "compare": compare, "is_visible": is_visible,
            "is_visible_stored": is_visible_stored, "printed_or_changed": printed_or_changed, "NOTHING": NOTHING,
            "Bulk": Bulk,
        }
        self.counter = 0
        self.readers: dict[str, str] = {}
        self.cause: Any = None  # the cause the code runs with (its block's exemptions apply)
        self.before: str | None = None  # in an assertion: the local holding the values read before
        self.names: dict[str, str] = {}  # Python source of a name's lookup -> the local holding it
        self.sites: dict[str, set] = {}  # attribute -> the tokens of the values its writes can set
        self.opaque = False  # whether it runs statements it does not write out (they may write anything)
        self.key = object()  # what makes the tokens of names read through this function's environment its own
        # (in a pass over objects that changes nothing) a read made once per object: its
        # Python source -> the local holding it (`UNSET` until it is first read)
        self.memo: dict[str, str] | None = None
        # whether its writes go to runs (`Batch.bulks`) rather than each to a `Write`: one run
        # per write site, its objects, the values they replace, the position of each among
        # the batch's writes (and the values, when they differ by object); `_n` counts the
        # batch's writes (`Batch.made`). `run_sites`: what `finish_runs` makes each site's
        # run from; `parent_attrs`: the attributes some `as` clause waits on a change of,
        # whose writes an expander also puts on its list of changes to go through
        self.runs = False
        self.run_sites: list[tuple[str, ...]] = []
        self.parent_attrs: frozenset[str] = frozenset()
        self.lazies: list[str] = []  # locals worked out the first time the code needs them (None until then)

    def fresh(self, base: str) -> str:
        """A new local name. `base` may come from a rule file (a verb's parameter, which may
        hold '-'): only its letters, digits and underscores are kept, so the name is always
        a Python identifier and nothing from the file is ever read as code."""
        self.counter += 1
        return f"{''.join(c if c.isalnum() or c == '_' else '_' for c in base)}_{self.counter}"

    @property
    def count(self) -> str:
        """Python source of how many changes the batch holds so far (`Batch.made`)."""
        return "_n" if self.runs else "len(writes) + batch.in_bulk"

    def finish_runs(self) -> None:
        """In a function whose writes go to runs: count from the batch's writes so far, start
        each site's lists, and add each site's run to the batch at the end."""
        start = ["    _n = len(writes) + batch.in_bulk"]
        end = []
        for attr, objs, olds, at, values, value, cause, held in self.run_sites:
            start.append(f"    {objs}, {olds}, {at} = [], [], []")
            for column in (values, held):
                if column != "None":
                    start.append(f"    {column} = []")
            end.append(f"    if {objs}:")
            end.append(f"        batch.bulks.append(Bulk({attr!r}, {objs}, {olds}, {cause}, {value}, {values}, {at}, held={held}))")
        end.append("    batch.in_bulk = _n - len(writes)")
        self.lines[:0] = start
        self.lines += end

    def const(self, value: Any, base: str = "k") -> str:
        name = self.fresh("_" + base)
        self.namespace[name] = value
        return name

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def reader(self, attr: str) -> str:
        """The local holding `engine.reader(attr)` (fetched once per call of the function)."""
        if attr not in self.readers:
            self.readers[attr] = self.fresh("read_" + "".join(c if c.isalnum() else "_" for c in attr))
        return self.readers[attr]

    def function(self, name: str, params: str, prologue: list[str]) -> Callable:
        """The function written so far, compiled; `prologue`: lines `local = expression` it may
        begin with, of which those whose local nothing reads are left out (a small function is
        called once per change). The names it looks up come after them (`lookup`)."""
        prologue = (prologue + [f"{local} = {source}" for source, local in self.names.items()]
                    + [f"{local} = None" for local in self.lazies])
        body = [f"    {local} = eng.reader({attr!r})" for attr, local in self.readers.items()] + self.unread_statuses_left_out()
        read = set(re.findall(r"\w+", "\n".join(body)))  # every name the body reads (and more)
        kept: list[str] = []
        for line in reversed(prologue):
            local, expression = line.split(" = ", 1)
            if local in read:
                kept.insert(0, line)
                read.update(re.findall(r"\w+", expression))
        if max((len(line) - len(line.lstrip(" ")) for line in body), default=0) > 4 * MAX_INDENT:
            raise CannotCompile(f"{name}: nested deeper than {MAX_INDENT} levels")
        source = "\n".join([f"def {name}({params}):"] + ["    " + p for p in kept] + body + ["    return None"]) + "\n"
        exec(_compiled(source, name), self.namespace)
        fn = self.namespace[name]
        fn.source = source
        fn.write_sites = WriteSites({attr: frozenset(tokens) for attr, tokens in self.sites.items()}, self.opaque)
        return fn

    def unread_statuses_left_out(self) -> list[str]:
        """The lines written so far, less those reading a chosen object's statuses into a
        local that no other line reads (a selection reads them before its conditions, which
        may not read any)."""
        counts = Counter(re.findall(r"\bstatus_\d+\b", "\n".join(self.lines)))
        return [line for line in self.lines
                if not ((found := STATUSES_READ.fullmatch(line)) and counts[found.group(1)] == 1)]

    # ------------------------------------------------------------ environments

    def env_dict(self, scope: dict[str, Binding], base: str | None) -> str:
        """Python source of the environment the closures would see."""
        items = ", ".join([f"{name!r}: {self.ref(b)}" for name, b in scope.items()]
                          + ([f"BEFORE: {self.before}"] if self.before else []))
        if base is None:
            return "{" + items + "}"
        return "{**" + base + (", " + items if items else "") + "}"

    # ------------------------------------------------------------ bound objects

    @staticmethod
    def ref(b: Binding) -> str:
        """Python source of a bound variable's value (made here when only its id is held)."""
        return b.local if b.oid is None else f"obj_ref(({b.oid}, {b.sees_hidden}))"

    @staticmethod
    def id_of(b: Binding) -> str:
        """Python source of the id of the object a variable holds (a reference)."""
        return f"{b.local}[0]" if b.oid is None else b.oid

    @staticmethod
    def sees_hidden_of(b: Binding) -> str:
        """Python source of whether a variable's reference is one named by a hiding status."""
        return f"{b.local}[1]" if b.oid is None else repr(b.sees_hidden)

    # ------------------------------------------------------------ expressions

    def name(self, ident: str, scope: dict[str, Binding], base: str | None, resolve: bool = False,
             keep: str = "") -> str:
        """What a name stands for (`resolve`: as `resolve_name` decides, for a statement's object;
        `keep`: a function applied to it when it is not the name's own symbol)."""
        if ident in scope:
            return self.ref(scope[ident])
        if ident == "turn" or resolve:
            env = "{}" if base is None else base
            lookup = f"eng.resolve_name({ident!r}, {env})"
            return self.lookup(lookup if base is None else f"({base}[{ident!r}] if {ident!r} in {base} else {lookup})")
        fixed = symbol_value(ident)
        fixed_src = repr(fixed) if fixed is None or isinstance(fixed, (bool, str)) else self.const(fixed)
        own = (f"({fixed_src} if {ident!r} not in objects and {ident!r} not in players "
               f"else {keep}(eng.resolve_name({ident!r}, {{}})))")
        return self.lookup(own if base is None else f"({keep}({base}[{ident!r}]) if {ident!r} in {base} else {own})")

    def lookup(self, source: str) -> str:
        """A local holding what `source` (a name's lookup) gives, worked out once per call at
        the start of the function: a name that is no variable in scope stands for the same
        thing throughout (nothing changes while a batch is made, nor does the environment
        the function is given)."""
        if source not in self.names:
            self.names[source] = self.fresh("name")
        return self.names[source]

    @staticmethod
    def known_object(e: ast.Node | None, scope: dict[str, Binding]) -> bool:
        """Is `e` a variable that holds an object reference (one a selection chose, or the
        object a change happened to)?"""
        return (isinstance(e, ast.Name) and e.id in scope
                and (scope[e.id].chosen or scope[e.id].local_ok is not None))

    def stored_read(self, inner: ast.Node, attr: str, scope: dict[str, Binding]) -> str | None:
        """The stored value of `inner.attr`, read straight off the object, when `inner` is an
        object the game reads as it is (a chosen one, or the one a change happened to) and
        `attr` a status, its controller, owner, host, power, toughness or a field read as it
        is stored (as `GameView.getter` reads them)."""
        if not self.known_object(inner, scope):
            return None
        oid = self.id_of(scope[inner.id])
        o = scope[inner.id].obj or f"objects[{oid}]"
        if attr in self.compiler.defaults:
            return self.status_read(scope[inner.id], o, attr)
        if attr == "controller":  # (layer 2: the stored one unless an effect exists, as GameView.controller reads it)
            return f"({o}.controller if {self.lookup('not game.effects')} else eng.controller({oid}))"
        if attr in ("owner", "attached_to") or attr in PLAIN_FIELDS:
            return f"{o}.{attr}"
        if attr in ("power", "toughness"):
            source = f"printed_or_changed(eng, {o}, {oid}, {attr!r})"
            if self.memo is not None:  # (the one pass of state checks, over many objects: its
                # commonest answer written out, as `printed_or_changed` gives it first: the
                # printed value while static abilities are worked out, no effect exists, and
                # neither a counter nor a static ability changes the object's)
                settled = self.lookup("not eng.statics.pending and not game.effects")  # (once per call)
                merged = self.lookup("eng.statics.merged")
                source = f"({o}.{attr} if {settled} and not {o}.counters and {oid} not in {merged} else {source})"
            return self.memoized(source, attr)
        return None

    # a comparison decided by a lower bound: (op of `value op bound`, what it gives when the
    # bound holds; op of `other op value`, likewise), for each op the bound can decide
    DECIDED = {"<=": (">", False), "<": (">=", False), ">": (">", True), ">=": (">=", True)}
    DECIDED_OTHER = {">=": ("<", False), ">": ("<=", False), "<=": ("<=", True), "<": ("<", True)}

    def bounded(self, e: ast.Compare, scope: dict[str, Binding], test: str) -> str:
        """`test` (comparison `e` written out), or, in the one pass of state checks (`memo`),
        where `e` compares a chosen object's power or toughness that static abilities can
        only raise (`Program.static_raises`) with a number or a stored number of an object,
        first a test that decides it from the printed value alone: while static abilities
        are worked out, no effect exists and the object has no counters, the value is at
        least the printed one, so `toughness <= 0` is false, and `damage >= toughness`
        false, for a printed toughness above 0 and less damage than that, without working
        out what static abilities give (`printed_or_changed`)."""
        if self.memo is None:
            return test
        raises = self.compiler.program.static_raises
        for value, other, table in ((e.left, e.right, self.DECIDED), (e.right, e.left, self.DECIDED_OTHER)):
            if not (isinstance(value, ast.Attr) and value.name in raises and self.known_object(value.obj, scope)):
                continue
            if isinstance(other, ast.Number) and type(other.value) is int:
                bound, read = repr(other.value), ""
            elif (isinstance(other, ast.Attr) and other.name in PLAIN_FIELDS
                  and self.stored_read(other.obj, other.name, scope) is not None):
                bound = self.fresh("bound")  # (a stored field, read into a local by the first test)
                read = f"type({bound} := {self.stored_read(other.obj, other.name, scope)}) is int and "
            else:
                continue
            if e.op not in table:
                return test
            b = scope[value.obj.id]
            o = b.obj or f"objects[{self.id_of(b)}]"
            printed = self.fresh("printed")
            settled = self.lookup("not eng.statics.pending and not game.effects")  # (once per call)
            cmp, decided = table[e.op]
            holds = f"{read}{printed} {cmp} {bound}" if value is e.left else f"{read}{bound} {cmp} {printed}"
            return (f"({decided} if {settled} and not {o}.counters and type({printed} := {o}.{value.name}) is int "
                    f"and {holds} else {test})")
        return test

    def memoized(self, source: str, base: str) -> str:
        """`source`, read once per object where reads are `memo`ized (the first use reads it
        into a local, the others read the local), else as it is."""
        if self.memo is None:
            return source
        local = self.memo.get(source)
        if local is None:
            local = self.memo[source] = self.fresh("once_" + base)
        return f"({local} if {local} is not UNSET else ({local} := {source}))"

    def status_read(self, b: Binding, o: str, attr: str) -> str:
        """Python source of status `attr` of the object a binding holds (`o`: the object)."""
        default = self.const(self.compiler.defaults[attr], "default")
        return f"{b.status}.get({attr!r}, {default})" if b.status else f"{o}.get_status({attr!r}, {default})"

    def stored_value(self, e: ast.Node, scope: dict[str, Binding], base: str | None) -> str:
        """`stored(value of e)`: a symbol (`out`, `true`, `none`) is kept as it is."""
        if isinstance(e, (ast.Number, ast.String)):
            return repr(e.value)
        if isinstance(e, ast.Name) and e.id not in scope and e.id != "turn":
            return self.name(e.id, scope, base, keep="stored")
        if self.known_object(e, scope):  # an object: its id
            return self.id_of(scope[e.id])
        if isinstance(e, ast.Attr) and self.stored_read(e.obj, e.name, scope) is not None:
            return self.stored_read(e.obj, e.name, scope)
        return f"stored({self.expr(e, scope, base)})"

    def expr(self, e: ast.Node, scope: dict[str, Binding], base: str | None) -> str:
        match e:
            case ast.Name(id=ident):
                return self.name(ident, scope, base)
            case ast.Number(value=v) | ast.String(value=v):
                return repr(v)
            case ast.Attr(obj=inner, name=attr) if self.stored_read(inner, attr, scope) is not None:
                raw = self.stored_read(inner, attr, scope)
                if self.reference_attr(attr):
                    return f"eng.wrap({raw}, {attr!r}, {self.sees_hidden_of(scope[inner.id])})"
                return raw
            case ast.Attr(obj=inner, name=attr):
                return f"{self.reader(attr)}({self.expr(inner, scope, base)}, {self.const(e, 'at')})"
            case ast.And(items=items):
                return "(" + " and ".join(self.holds(i, scope, base) for i in items) + ")"
            case ast.Or(items=items):
                return "(" + " or ".join(self.holds(i, scope, base) for i in items) + ")"
            case ast.Not(item=item):
                return f"({self.fails(item, scope, base)})"
            case ast.Is(left=ast.Attr(obj=inner, name=attr), right=r, negated=neg) if (
                    self.stored_read(inner, attr, scope) is not None and self.reference_attr(attr)):
                # a stored reference compared as it is read, without making the reference
                raw, sees_hidden = self.stored_read(inner, attr, scope), self.sees_hidden_of(scope[inner.id])
                other = self.expr(r, scope, base)
                test = f"is_same_stored(eng, {raw}, {attr!r}, {sees_hidden}, {other})"
                if isinstance(r, ast.Name) and r.id not in scope:  # a name (a local): `none` is the commonest
                    test = f"({raw} is None if {other} is None else {test})"
                return f"(not {test})" if neg else test
            case ast.Is(left=ast.Attr(obj=inner, name=attr) as l, right=ast.Name(id=name) as r, negated=neg) if (
                    self.stored_read(inner, attr, scope) is not None and name not in scope):
                # a stored plain value and a name (a local): a symbol is compared as it is
                left, right = self.expr(l, scope, base), self.expr(r, scope, base)
                test = f"({left} == {right} if type({right}) is str else is_same(eng, {left}, {right}))"
                return f"(not {test})" if neg else test
            case ast.Is(left=l, right=r, negated=neg):
                test = f"is_same(eng, {self.expr(l, scope, base)}, {self.expr(r, scope, base)})"
                return f"(not {test})" if neg else test
            case ast.IsA(left=l, type=t, negated=neg) if self.known_object(l, scope) and t.lower() not in REFERENCE_KINDS:
                o = scope[l.id].obj or f"objects[{self.id_of(scope[l.id])}]"
                return f"({t.lower()!r} {'not in' if neg else 'in'} {o}.types)"
            case ast.Has(left=l, keyword=k) if self.known_object(l, scope):
                oid = self.id_of(scope[l.id])
                keywords = f"eng.keywords({oid})"
                if self.compiler.program.static_grants:  # (what static abilities grant, once a card that grants is in the game)
                    keywords = f"(eng.chars({oid})['keywords'] if {self.lookup('eng.granting_sources()')} else {keywords})"
                return f"({k!r} in {keywords})"
            case ast.IsA(left=l, type=t, negated=neg):
                test = f"is_of_type(eng, {self.expr(l, scope, base)}, {t.lower()!r}, {self.const(e, 'at')})"
                return f"(not {test})" if neg else test
            case ast.Has(left=ast.Attr(obj=inner, name=attr), keyword=k) if (
                    self.stored_read(inner, attr, scope) is not None and self.reference_attr(attr)):
                # a stored reference (`x.attached_to has K`), read as GameView.wrap reads it: only
                # an object has keywords, and its reference is made only then
                raw, sees_hidden = self.stored_read(inner, attr, scope), self.sees_hidden_of(scope[inner.id])
                held = self.fresh("held")
                read = f"{self.reader('keywords')}(obj_ref(({held}, {sees_hidden})), {self.const(e, 'at')})"
                # (the reader's commonest case written out: an object the game sees, or one the
                # reference may see hidden, with its printed keywords while no effect exists and no
                # card whose static ability grants a keyword is in the game)
                host = self.fresh("host")
                seen = "True" if sees_hidden else f"({held} not in game.lki.ids or not eng.is_hidden({held}))"
                fast = f"({host} := objects.get({held})) is not None and {seen}"
                if self.compiler.program.static_grants:
                    fast = f"not {self.lookup('eng.granting_sources()')} and {fast}"
                read = (f"(({host}.keywords if {self.lookup('not game.effects')} else eng.keywords({held})) "
                        f"if {fast} else {read})")
                return f"(type({held} := {raw}) is str and {held} not in players and {k!r} in {read})"
            case ast.Has(left=l, keyword=k):
                return f"has_keyword(eng, {self.expr(l, scope, base)}, {k!r}, {self.const(e, 'at')})"
            case ast.Compare(op=op, left=l, right=ast.Number(value=n)) if type(n) is int:
                value = self.fresh("compared")  # (compare, written out: false unless a number)
                test = f"(isinstance(({value} := {self.expr(l, scope, base)}), int) and {value} {op} {n!r})"
                return self.bounded(e, scope, test)
            case ast.Compare(op=op, left=l, right=r):
                # (compare, written out: both sides read, in order, and false unless both are numbers)
                left, right = self.fresh("left"), self.fresh("right")
                test = (f"(isinstance(({left} := {self.expr(l, scope, base)}), int) & "
                        f"isinstance(({right} := {self.expr(r, scope, base)}), int) and {left} {op} {right})")
                return self.bounded(e, scope, test)
            case ast.Visible(obj=inner) if self.known_object(inner, scope):
                return self.visible(self.id_of(scope[inner.id]))  # (an object: is_visible's first case)
            case ast.Visible(obj=ast.Attr(obj=inner, name=attr)) if (
                    self.stored_read(inner, attr, scope) is not None and self.reference_attr(attr)):
                # (is_visible_stored, written out: a name is a player's, in the game, or an object's the game sees)
                held, player = self.fresh("held"), self.fresh("player")
                return (f"(isinstance(({held} := {self.stored_read(inner, attr, scope)}), str) and "
                        f"({player}.in_game if ({player} := players.get({held})) is not None else {self.visible(held)}))")
            case ast.Visible(obj=inner):
                return f"is_visible(eng, {self.expr(inner, scope, base)})"
        # anything else: the closure that defines it, in the environment it would see
        return f"{self.const(self.compiler.compiled_expr(e), 'f')}(eng, {self.env_dict(scope, base)})"

    def visible(self, oid: str) -> str:
        """Python source of `GameView.visible(oid)` written out (`oid`: a local holding an id,
        or an expression giving one, read once): an object on the battlefield that no hide
        rule hides (the view's cache of that read)."""
        if not oid.isidentifier():
            local = self.fresh("seen_id")
            return f"(({local} := {oid}) is not None and {self.visible(local)})"
        o = self.fresh("seen")
        return f"(({o} := objects.get({oid})) is not None and {o}.zone == 'battlefield' and not {self.hidden(oid)})"

    def hidden(self, oid: str) -> str:
        """Python source of `GameView.is_hidden(oid)` (`oid`: a local holding an id), its cache read first."""
        hidden = self.fresh("hidden")
        return f"({hidden} if ({hidden} := eng._hidden.get({oid})) is not None else eng.is_hidden({oid}))"

    def reference_attr(self, attr: str) -> bool:
        """Does `attr` store a name read as a reference (`GameView.wrap`)?"""
        return attr in ("controller", "owner", "attached_to") or attr in self.compiler.reference_statuses

    def holds(self, e: ast.Node, scope: dict[str, Binding], base: str | None) -> str:
        """Python source that is true when condition `e` holds (`not in FALSY`, unless `e` is
        a test whose source is a bool already)."""
        src = self.expr(e, scope, base)
        return src if isinstance(e, BOOLEAN) else f"({src}) not in FALSY"

    def fails(self, e: ast.Node, scope: dict[str, Binding], base: str | None) -> str:
        """Python source that is true when condition `e` fails."""
        src = self.expr(e, scope, base)
        return f"not {src}" if isinstance(e, BOOLEAN) else f"({src}) in FALSY"

    # ------------------------------------------------------------ statements

    def reach(self, target: ast.Node, scope: dict[str, Binding], base: str | None, span_of: ast.Node,
              depth: int) -> tuple[str, int]:
        """Emit what finds the object a statement acts on; returns the local holding its id and
        the depth the action is written at (inside `if ... is not None:` when it is checked)."""
        if isinstance(target, ast.Name) and target.id in scope:
            b = scope[target.id]
            if b.chosen:
                return self.id_of(b), depth
            if b.local_ok is not None:
                self.line(depth, f"if {b.local_ok}:")
                return self.id_of(b), depth + 1
        value = (self.name(target.id, scope, base, resolve=True) if isinstance(target, ast.Name)
                 else self.expr(target, scope, base))
        ref = self.fresh("ref")
        self.line(depth, f"{ref} = eng.reachable({value}, {self.const(span_of.span, 'span')}, cause)")
        self.line(depth, f"if {ref} is not None:")
        return f"{ref}[0]", depth + 1

    def reactions(self, clauses: list[tuple[ast.Change, ast.Node, Any, Any]], depth: int) -> None:
        """Emit `as` or `after` clauses waiting on one change, in order, at `depth`: the object
        it happened to is `oid` (`subject_obj`), the value it replaces `old`; each clause is
        (the change it waits on, its body, its cause, the value the change must come from or
        ANY_OLD)."""
        subject = subject_binding(local_ok="reachable")
        for pattern, body, cause, wanted_old in clauses:
            scope = {pattern.var: subject}
            self.line(depth, f"cause = {self.const(cause, 'cause')}")
            self.cause = cause
            inner = depth
            if wanted_old is not ANY_OLD:
                self.line(inner, f"if old == {self.const(wanted_old, 'old')}:")
                inner += 1
            if pattern.cond is not None:
                self.line(inner, f"if {self.holds(pattern.cond, scope, None)}:")
                inner += 1
            self.stmt(body, scope, None, inner)

    def value_token(self, e: ast.Node, scope: dict[str, Binding], base: str | None) -> Any:
        """What stands for the value of `e`, written, at every write site of a batch that has
        the same (`interpreter.program.write_sites`): a literal; a name no variable in scope binds,
        which is its own symbol unless an object or a player has it, the same at every site
        that reads it without an environment (`base` None), and within this function when it
        is read through one (the function is called once per batch); else UNKNOWN."""
        if isinstance(e, (ast.Number, ast.String)):
            return ("literal", e.value)
        if isinstance(e, ast.Name) and e.id not in scope and e.id != "turn":
            return ("name", e.id) if base is None else ("name", e.id, self.key)
        return UNKNOWN

    def write(self, depth: int, bound: Binding | None, oid: str, attr: str, value: str, token: Any) -> None:
        """Emit a write of `value` (Python source of a stored value; `token`: what stands for
        it, `value_token`) to `oid`'s `attr`, reading the value it replaces as it is written
        (nothing changes while a batch is made): off the object when it is held in a local
        (`bound.obj`), else looked up. A write that changes nothing goes to the batch's
        `unchanged_writes`, so that only conflicts see it, and only when the batch's writers
        contest the attribute. A change is a `Write`, or, in a function whose writes go to
        runs (`runs`), added to this site's run."""
        self.sites.setdefault(attr, set()).add(token)
        if bound is None or bound.obj is None:  # (the object is looked up: its value read there)
            if not self.runs:
                self.line(depth, f"batch.write_or_keep(cause, {oid}, {attr!r}, {value}, eng.raw({oid}, {attr!r}))")
                return
            old = f"eng.raw({oid}, {attr!r})"
        elif attr in self.compiler.defaults:
            old = self.status_read(bound, bound.obj, attr)
        else:
            old = f"{bound.obj}.{attr}"
        if not re.fullmatch(r"[\w.']+", value):  # anything but a name or literal is worked out once
            local = self.fresh("value")
            self.line(depth, f"{local} = {value}")
            value = local
        was = self.fresh("old")
        self.line(depth, f"{was} = {old}")
        self.line(depth, f"if {was} != {value}:")
        if self.runs:
            site = self.fresh("run")
            objs, olds, at = f"{site}_objs", f"{site}_olds", f"{site}_at"
            column = token is UNKNOWN  # (else one value for the whole run: the same wherever the site writes)
            values = f"{site}_values" if column else "None"
            held = f"{site}_held" if bound is not None and bound.obj is not None else "None"
            self.run_sites.append((attr, objs, olds, at, values, "None" if column else value,
                                   self.const(self.cause, "cause"), held))
            self.line(depth + 1, f"{objs}.append({oid})")
            if held != "None":  # (the object, held here: `Bulk.held`)
                self.line(depth + 1, f"{held}.append({bound.obj})")
            self.line(depth + 1, f"{olds}.append({was})")
            self.line(depth + 1, f"{at}.append(_n)")
            if column:
                self.line(depth + 1, f"{values}.append({value})")
            self.line(depth + 1, "_n += 1")
            if attr in self.parent_attrs:  # (with the clauses the change calls on, if some, and the object if held)
                which = f"_which[{attr!r}].get({value})"
                obj = bound.obj if bound is not None and bound.obj is not None else "None"
                if value in self.names.values() or is_literal(value):
                    which = self.lookup(which)  # (a name's value or a literal: the same throughout)
                    self.line(depth + 1, f"if {which} is not None:")
                    self.line(depth + 2, f"_parents.append(({oid}, {attr!r}, {value}, {was}, {which}, {obj}))")
                else:
                    self.line(depth + 1, f"if (_k_new := {which}) is not None:")
                    self.line(depth + 2, f"_parents.append(({oid}, {attr!r}, {value}, {was}, _k_new, {obj}))")
        else:
            self.line(depth + 1, f"writes.append(Write({oid}, {attr!r}, {value}, cause, {was}))")
        self.line(depth, f"elif {self.keeps_unchanged(attr)}:")
        self.line(depth + 1, f"unchanged.append(({self.count}, ({oid}, {attr!r}), {value}, cause))")

    def keeps_unchanged(self, attr: str) -> str:
        """The local that says whether the batch keeps the writes of `attr` that change
        nothing (its writers contest it: `Batch.contested`; None, any): it depends on the
        attribute alone, so it is worked out once per call."""
        return self.lookup(f"contested is None or {attr!r} in contested")

    def exemptions(self, cause: Any) -> list[ast.Exempt]:
        """What exempts objects from the selections of the block `cause` names (`exempt x
        from R where ...`): the block is known when the code is written."""
        return [ex for _rule, ex in self.compiler.clause_index.exempts.get(cause.id, ())] if cause.kind == "rule" else []

    def skip_hidden(self, depth: int, oid: str) -> None:
        """Emit: go on to the next candidate when a hide rule hides `oid` (is_hidden, its cache
        read first)."""
        self.line(depth, f"if {self.hidden(oid)}:")
        self.line(depth + 1, "continue")

    @staticmethod
    def in_zone(each: ast.Each) -> str:
        """Python source that is true when the candidate's `zone` is one `each` looks in."""
        return "zone != 'nowhere'" if each.every_zone else "zone == 'battlefield'"

    def each(self, each: ast.Each, scope: dict[str, Binding], base: str | None, depth: int,
             count_only: bool = False, narrow: tuple[str, str] | None = None) -> tuple[Binding | None, int]:
        """Emit `Selector.select` for `each` as a loop; returns the binding of each chosen object
        and the depth the body goes at. Candidates come from the same indexes and
        plans; the checks made on each are written out. With `count_only`, only what the
        selection counts against the step's budget is emitted (its candidates, unsorted, and
        the budget check), and no loop: for a selection whose choice is made elsewhere.
        `narrow` (`narrowed`): the one attribute the body writes and the value, whose
        candidates that have it already are left out once they are counted, where the batch
        keeps no write that changes nothing of that attribute."""
        q = self.compiler.query(each)
        skip_hidden = not q.sees_hidden
        env, ids, residual, oid, ref, seen = (self.fresh(n) for n in ("env", "ids", "residual", "oid", each.var, "seen"))
        probe = q.probe
        unseen_out = skip_hidden and not each.every_zone  # (the loop still skips what is hidden)
        query = self.const(q, "query")
        args = f"{query}, {env}, {q.sees_hidden or skip_hidden}, {unseen_out}"
        counted = f"len({ids})"  # (what the selection counts against the budget)
        # (with `narrow`, the candidates are taken in no order, counted, narrowed, then sorted)
        find = f"{ids}, {residual}, {seen} = eng.selector.candidates_seen({args}{', True' if narrow or count_only else ''})"
        if probe is not None:  # the commonest answer first: an index says no object can match
            found = self.fresh("probe")
            value = "True" if probe.source is None else self.stored_value(probe.source, scope, base)
            if probe.attr == "attached_to":
                self.line(depth, f"{found} = attachments.get({value}, NOTHING)")  # (Indexes.attached)
            else:
                self.line(depth, f"{found} = eng.indexes.lookup({probe.attr!r}, {value})")
            # (no candidate: the batch's writes so far are still checked, as every selection does)
            self.line(depth, f"if not ({found} is None or {found}) and {self.count} > eng.writes_left:")
            self.line(depth + 1, f"raise eng.over_budget('writes', {self.const(each.span, 'span')}, "
                                 f"{self.const(self.cause, 'cause')})")
            self.line(depth, f"if {found} is None or {found}:")
            depth += 1
            if ((q.plan.plans == (probe,) or probe.attr == "attached_to") and self.known_object(probe.source, scope)
                    and not any(p.source is not None and _reads_any(p.source, scope) for p in q.plan.plans if p is not probe)):
                # the index answers its conjunct exactly (an object, not a bare name, is looked
                # up), and what is attached to one object is a handful: outside a state check
                # made again for changed objects, they are the candidates, and the other
                # conjuncts are checked on each. What it counts against the step's budget is
                # what `Selector.candidates_seen` would have left of them: the other plans'
                # index sets (their values read no variable, so they are the same throughout
                # the call: worked out the first time) and, where it skips what the game does
                # not see, what hide rules hide, applied to the handful
                others = tuple(i for i in range(len(q.plan.parts)) if i != probe.part)
                narrowing, within, without = self.fresh("narrowing"), self.fresh("within"), self.fresh("without")
                self.lazies.append(narrowing)
                counted = self.fresh("counted")
                self.line(depth, f"if {found} is not None and eng.dirty_scope is None:")
                self.line(depth + 1, f"if {narrowing} is None:")
                self.line(depth + 2, f"{narrowing} = (eng.selector.others_narrowing({query}, {self.env_dict({}, base)}, "
                                     f"{unseen_out}) or (None, None))")
                self.line(depth + 1, f"{within}, {without} = {narrowing}")
                self.line(depth + 1, f"if {without} is None:  # (no object can match)")
                self.line(depth + 2, f"{counted} = 0")
                # (the commonest: every one of them within what it must be in, none of them out)
                self.line(depth + 1, f"elif ({within} is None or {found} <= {within}) and {found}.isdisjoint({without}):")
                self.line(depth + 2, f"{counted} = len({found})")
                self.line(depth + 1, "else:")
                self.line(depth + 2, f"{counted} = len(({found} if {within} is None else {found} & {within}) - {without})")
                if count_only or narrow is not None:  # (in no order)
                    self.line(depth + 1, f"{ids} = {found}")
                else:
                    self.line(depth + 1, f"{ids} = eng.indexes.sort({found}) if len({found}) > 1 else list({found})")
                self.line(depth + 1, f"{residual}, {seen} = {others!r}, False")
                self.line(depth, "else:")
                self.line(depth + 1, f"{env} = {self.env_dict(scope, base)}")
                self.line(depth + 1, find)
                self.line(depth + 1, f"{counted} = len({ids})")
                find = None
        if find is not None:
            self.line(depth, f"{env} = {self.env_dict(scope, base)}")
            self.line(depth, find)
        self.budget_check(depth, counted, each)
        if count_only:  # (the candidates counted, for a pass that chooses among them: `compile_selection_count`)
            self.line(depth, f"return {ids}, {seen}")
            return None, depth
        if narrow is not None:  # (counted as they were; those the body's write would not change left out)
            attr, value = narrow
            already = self.fresh("already")
            # (no candidate at all comes as an empty list)
            self.line(depth, f"if {ids} and not {self.keeps_unchanged(attr)} "
                             f"and ({already} := eng.indexes.lookup({attr!r}, {value})):")
            self.line(depth + 1, f"{ids} = {ids} - {already}")
            self.line(depth, f"{ids} = eng.indexes.sort({ids}) if len({ids}) > 1 else list({ids})")
        exemptions = self.exemptions(self.cause)
        conjuncts = ast.conjuncts(each.cond)
        kept = [self.fresh("check") for _c in conjuncts]
        for i, flag in enumerate(kept):  # whether conjunct i is still to be checked on each
            self.line(depth, f"{flag} = {i} in {residual}")
        o = self.fresh("o")
        self.line(depth, f"for {oid} in {ids}:")
        self.line(depth + 1, f"{o} = objects[{oid}]")
        self.line(depth + 1, f"zone = {o}.zone")
        self.line(depth + 1, f"if not ({self.in_zone(each)}):")
        self.line(depth + 2, "continue")
        if skip_hidden:  # (unless the candidates hold nothing a hide rule hides: `Selector.candidates_seen`)
            self.line(depth + 1, f"if not {seen}:")
            self.skip_hidden(depth + 2, oid)
        status = self.fresh("status")  # (its statuses, read without a call; the same dict as the object's)
        self.line(depth + 1, f"{status} = {o}.statuses")
        chosen = Binding(ref, chosen=True, obj=o, oid=oid, sees_hidden=q.sees_hidden, status=status)
        inner = {**scope, each.var: chosen}  # (read as a chosen one would be)
        for c, flag in zip(conjuncts, kept):  # in order, those no index answered exactly
            self.line(depth + 1, f"if {flag} and {self.fails(c, inner, base)}:")
            self.line(depth + 2, "continue")
        exempt = attrs.evolve(chosen, sees_hidden=True)  # (as one named by a hiding status is read)
        for ex in exemptions:
            self.line(depth + 1, f"if {self.holds(ex.cond, {**scope, ex.var: exempt}, base)}:")
            self.line(depth + 2, "continue")
        return chosen, depth + 1

    def narrowed(self, each: ast.Each, scope: dict[str, Binding], base: str | None) -> tuple[str, str] | None:
        """(attribute, Python source of the stored value) when the body of `each` is one write
        of a value fixed for the whole selection (a literal, or a name no variable holds) to an
        indexed attribute of the chosen object (`untap x`; `set x.S = V`): the candidates that
        have that value already would make only a write that changes nothing, which a batch
        keeps only where its writers contest the attribute (`Batch.contested`), so the index
        of that value can leave them out of the loop (their count against the step's budget
        stays the same, made first). Else None."""
        body = each.body
        if isinstance(body, ast.Block) and len(body.stmts) == 1:
            body = body.stmts[0]
        if type(body) in SIMPLE_WRITES:
            if not (isinstance(body.obj, ast.Name) and body.obj.id == each.var):
                return None
            attr, value = SIMPLE_WRITES[type(body)]
            source = repr(value)
        elif isinstance(body, ast.Set) and len(body.assigns) == 1 and body.assigns[0].var == each.var:
            attr, value = body.assigns[0].attr, body.assigns[0].value
            if not (isinstance(value, (ast.Number, ast.String))
                    or isinstance(value, ast.Name) and value.id not in scope and value.id not in (each.var, "turn")):
                return None
            source = self.stored_value(value, scope, base)
        else:
            return None
        if attr not in FIELD_SET and attr not in self.compiler.defaults:
            return None  # (no index holds it)
        return attr, source

    def budget_check(self, depth: int, counted: str, each: ast.Each) -> None:
        """Emit: the candidates of a selection (`counted`: Python source of how many) counted
        against the step's iterations, and the batch's writes so far checked against its
        writes, once before the loop."""
        self.line(depth, f"eng.iterations_left -= {counted}")
        self.line(depth, f"if eng.iterations_left < 0 or {self.count} > eng.writes_left:")
        self.line(depth + 1, f"raise eng.over_budget('iterations' if eng.iterations_left < 0 else 'writes', "
                             f"{self.const(each.span, 'span')}, {self.const(self.cause, 'cause')})")

    def stmt(self, s: ast.Node, scope: dict[str, Binding], base: str | None, depth: int, inlined: int = 0) -> None:
        match s:
            case ast.Block(stmts=stmts) | ast.Simultaneously(stmts=stmts):
                for inner in stmts:
                    self.stmt(inner, scope, base, depth, inlined)
                if not stmts:
                    self.line(depth, "pass")
            case ast.Each(var=var, body=body):
                chosen, inner = self.each(s, scope, base, depth, narrow=self.narrowed(s, scope, base))
                self.stmt(body, {**scope, var: chosen}, base, inner, inlined)
            case ast.If(cond=cond, body=body):
                self.line(depth, f"if {self.holds(cond, scope, base)}:")
                self.stmt(body, scope, base, depth + 1, inlined)
            case ast.Set(assigns=assigns):
                for a in assigns:
                    oid, inner = self.reach(ast.Name(a.var, span=a.span), scope, base, a, depth)
                    self.write(inner, scope.get(a.var), oid, a.attr, self.stored_value(a.value, scope, base),
                               self.value_token(a.value, scope, base))
            case ast.Call(verb=verb_name, args=args) if inlined < MAX_INLINE_DEPTH and verb_name not in self.compiler.recursive_verbs():
                verb = self.compiler.rulebook.verbs[verb_name]
                inner_scope = dict(scope)
                for param, arg in zip(verb.params, args):
                    if isinstance(arg, ast.Name) and arg.id in scope:
                        inner_scope[param] = scope[arg.id]  # the same value, bound as it is
                        continue
                    local = self.fresh(param)
                    self.line(depth, f"{local} = {self.expr(arg, scope, base)}")
                    inner_scope[param] = Binding(local)
                for inner in verb.body:
                    self.stmt(inner, inner_scope, base, depth, inlined + 1)
                if not verb.body:
                    self.line(depth, "pass")
            case ast.EndTracking(obj=o):
                self.opaque = True  # (what ending an effect's tracking does is the engine's)
                self.line(depth, f"eng.continuous.end_tracking({self.expr(o, scope, base)}, batch, cause)")
            case _ if type(s) in SIMPLE_WRITES or type(s) in MULTI_WRITES:
                pairs = MULTI_WRITES.get(type(s)) or (SIMPLE_WRITES[type(s)],)
                oid, inner = self.reach(s.obj, scope, base, s.obj, depth)
                bound = scope.get(s.obj.id) if isinstance(s.obj, ast.Name) else None
                for attr, value in pairs:
                    self.write(inner, bound, oid, attr, repr(value), ("literal", value))
            case _:  # the closure that defines it
                self.opaque = True
                run = self.const(self.compiler.runner(s), "run")
                self.line(depth, f"{run}(eng, {self.env_dict(scope, base)}, batch, cause)")


READING = ["game = eng.game", "objects = game.objects", "players = game.players"]
# (What is attached to what is read once: nothing changes while a batch is made.)
PROLOGUE = READING + ["writes = batch.writes", "unchanged = batch.unchanged_writes", "contested = batch.contested",
                      "attachments = eng.indexes.attachments()"]
# The object a change happened to: its id is `oid`; its reference is named by id (sees_hidden). Its
# statuses, read several times over, are read from a dictionary.
SUBJECT = ["subject_obj = objects[oid]", "subject_status = dict(subject_obj.statuses)"]
# The one hide test, when a single hide rule reads one stored status (`Hiding.stored_hide_tests`;
# `hide_status` None: none such).
ONE_HIDE_TEST = ["hide_tests = eng.hiding.stored_hide_tests()",
                 "hide_one = hide_tests[0] if hide_tests is not None and len(hide_tests) == 1 else (None, None, None)",
                 "hide_status = hide_one[0]", "hide_default = hide_one[1]", "hide_value = hide_one[2]"]
REACHABLE = "reachable = subject_obj.zone != 'nowhere'"  # (an action reaches it unless it ceased to exist)


def _reads_any(e: ast.Node, scope: dict[str, Binding]) -> bool:
    """Does expression `e` read a variable bound in `scope`?"""
    return any(isinstance(n, ast.Name) and n.id in scope for n in e.walk())


def subject_binding(**how: Any) -> Binding:
    """The binding of the object a change happened to (`SUBJECT`), with `how` it is reached."""
    return Binding("subject", obj="subject_obj", oid="oid", sees_hidden=True, status="subject_status", **how)


@or_cannot
def compile_runner(compiler: Any, stmt: ast.Node, writer: Callable, cause: Any) -> Callable:
    """`stmt` as a function `(engine, env, batch, cause)` that adds what it does to `batch`,
    for the cause it is always run with. Its writes go to runs (`Emitter.runs`), unless it
    runs closures, whose writes are `Write`s: then every write it makes is one."""
    def emitted(runs: bool) -> Emitter:
        em = Emitter(compiler, writer)
        em.cause, em.runs = cause, runs
        em.stmt(stmt, {}, "env", 1)
        return em

    em = emitted(runs=True)
    if em.opaque:
        em = emitted(runs=False)
    else:
        em.finish_runs()
    return em.function("run_" + type(stmt).__name__.lower(), "eng, env, batch, cause", PROLOGUE)


@or_cannot
def compile_reactions(compiler: Any, clauses: list[tuple[ast.Change, ast.Node, Any, Any]], writer: Callable) -> Callable:
    """The `as` (or `after`) clauses waiting on one change, in rulebook order, as one function
    `(engine, object id, old value, batch)`; each clause is (the change it waits on, its body,
    its cause, the value the change must come from or ANY_OLD)."""
    em = Emitter(compiler, writer)
    em.reactions(clauses, 1)
    prologue = PROLOGUE + SUBJECT + [REACHABLE]
    return em.function("react", "eng, oid, old, batch", prologue)


@or_cannot
def compile_expander(compiler: Any, keyed: dict[tuple[str, Any], list[tuple]], writer: Callable, unread: Any,
                     runs: bool = False) -> Callable:
    """`Reactions.expand` with every `as` clause written in: a function `(engine, batch, limit)`
    that goes through the batch's writes in order, taking in those the clauses add, and for
    each change some clauses wait on (`keyed`: (attribute, stored value) -> the clauses, as
    `compile_reactions` takes them), the first time it is met, runs their bodies; it fails
    once the batch holds more than `limit` writes (the budget). One function for the batch, not one call
    per change. `unread`: what a write's `old` is before anyone has read it.

    With `runs`, for a batch made of runs (`Batch.bulks`, nothing in `writes`): it goes
    through the changes of the runs to an attribute some clause waits on, in the order of
    their positions (`Batch.run_parents`), and then those its own writes make, in the order
    it makes them (its list `_parents`), and its writes go to runs too: the same changes,
    met in the same order, as the function without `runs` meets them among the batch's
    `Write`s."""
    em = Emitter(compiler, writer)
    em.runs = runs
    em.namespace["UNREAD"] = unread
    which = {key: k for k, key in enumerate(keyed)}
    by_attr: dict[str, dict[Any, int]] = {}  # attribute -> stored value -> which clauses
    for (attr, value), k in which.items():
        by_attr.setdefault(attr, {})[value] = k
    em.namespace["_which"] = by_attr
    em.parent_attrs = frozenset(by_attr) if runs else frozenset()
    for key, clauses in keyed.items():
        em.line(2, f"{'if' if which[key] == 0 else 'elif'} _k == {which[key]}:")
        em.reactions(clauses, 3)
    bodies, em.lines = em.lines, []
    em.line(1, "_seen = set()")
    if runs:
        em.line(1, "_parents = batch.run_parents(_which)")
        # (each a change some clause waits on, of an object of the game: the runs' objects
        # were chosen among them, and nothing leaves while a batch is made)
        em.line(1, "for oid, _attr, _value, old, _k, subject_obj in _parents:  # (the loop takes in the changes the clauses add)")
        em.line(2, "if subject_obj is None:  # (not held where the change was made: looked up)")
        em.line(3, "subject_obj = objects[oid]")
        em.line(2, "_key = (oid, _attr, type(_value), _value)")
    else:
        em.line(1, "for _w in writes:  # (the loop takes in the writes the clauses add)")
        em.line(2, "_values = _which.get(_w.attr)")
        em.line(2, "if _values is None:")
        em.line(3, "continue  # no clause waits on a change of it")
        em.line(2, "oid = _w.obj")
        em.line(2, "subject_obj = objects.get(oid)")
        em.line(2, "if subject_obj is None:")
        em.line(3, "continue")
        em.line(2, "_value, old = _w.value, _w.old")
        em.line(2, "if old is UNREAD:  # (nothing has changed yet: the value it replaces)")
        em.line(3, "old = _w.old = subject_obj.stored(_w.attr, eng.defaults)")
        em.line(2, "if old == _value:")
        em.line(3, "continue")
        em.line(2, "_k = _values.get(_value)")
        em.line(2, "if _k is None:")
        em.line(3, "continue  # nothing happens along with this change")
        em.line(2, "_key = (oid, _w.attr, type(_value), _value)")
    em.line(2, "if _key in _seen:")
    em.line(3, "continue  # the same change again: its clauses have run")
    em.line(2, "_seen.add(_key)")
    read = set(re.findall(r"\w+", "\n".join(bodies)))  # (as `function` reads what the body reads)
    if "subject_status" in read:  # (no copy: nothing changes while a batch is made)
        em.line(2, "subject_status = subject_obj.statuses")
    if "reachable" in read:
        em.line(2, REACHABLE)
    em.lines += bodies
    em.line(2, f"if {'_n' if runs else 'len(writes)'} > limit:  # (over the step's budget)")
    em.line(3, "raise eng.over_budget('writes', cause.span, cause)")
    if runs:
        if em.opaque:
            raise CannotCompile("an `as` clause runs closures, whose writes are not runs")
        em.finish_runs()
    return em.function("expand_runs" if runs else "expand", "eng, batch, limit", PROLOGUE)


@or_cannot
def compile_check_pass(compiler: Any, checks: list[tuple[ast.Each, Any]], sees_hidden: bool = False) -> Callable:
    """State checks of the form `each x where ...`, made again for the changed objects, as
    one pass over those objects: a function `(engine, ids, seen=False) -> one list per check
    of the references it chooses`, in the order of `ids` (nothing changes during the pass, so
    the order is only the lists' order), of which it passes over those gone from the game
    and, unless the checks' selections see hidden objects (`sees_hidden`: each has
    `including hidden`, or a condition naming a hiding status; else none has), those a hide
    rule hides (with `seen`, `ids` are known to be objects of the game that no hide rule
    hides). Each check's whole condition is written out (no index narrows the objects
    first), with its block's exemptions; `compile_chosen` runs the bodies."""
    if any(compiler.query(each).sees_hidden != sees_hidden for each, _cause in checks):
        raise ValueError("a pass takes checks that all see hidden objects, or none that does")
    em = Emitter(compiler, None)
    found = [em.fresh("chosen") for _check in checks]
    for local in found:
        em.line(1, f"{local} = []")
    # (a game's first check passes over the game's objects themselves, in its order)
    em.line(1, "for oid, o in (objects.items() if ids is objects else zip(ids, map(objects.get, ids))):")
    em.line(2, "if o is None:")
    em.line(3, "continue")
    exempt = Binding("x", chosen=True, obj="o", oid="oid", sees_hidden=True)  # (as one named by a hiding status is read)
    chosen = exempt if sees_hidden else attrs.evolve(exempt, sees_hidden=False)
    em.memo = {}  # (a characteristic several checks compare is read once per object)
    em.namespace["UNSET"] = UNSET
    tests_of = []
    for each, cause in checks:
        em.cause = cause
        scope = {each.var: chosen}
        tests = [em.in_zone(each)]
        tests += [em.holds(c, scope, "env") for c in ast.conjuncts(each.cond)]
        for ex in em.exemptions(cause):
            tests.append(em.fails(ex.cond, {ex.var: exempt}, "env"))
        tests_of.append(tests)
    # (the tests every check begins with that only read the object, calling nothing: made once,
    # before the hide rules are asked, so that a pass over every object asks them only of the
    # objects some check can choose)
    common = 0
    while tests_of and all(len(tests) > common + 1 and tests[common] == tests_of[0][common] for tests in tests_of) and (
            common == 0 or pure_test(tests_of[0][common])):
        common += 1
    em.line(2, "zone = o.zone")
    if common:
        em.line(2, f"if not ({' and '.join(tests_of[0][:common])}):")
        em.line(3, "continue")
    if not sees_hidden:
        em.line(2, "if not seen:  # (else each is one the game sees: `Hiding.not_hidden`)")
        # (where one hide rule reads one stored status, `hidden_by_status` read off the object, in
        # the order the pass goes, rather than the cache, whose entries lie wherever their ids hash)
        em.line(3, "if hide_status is not None:")
        em.line(4, "if zone == 'battlefield' and o.statuses.get(hide_status, hide_default) == hide_value:")
        em.line(5, "continue")
        em.line(3, f"elif {em.hidden('oid')}:")
        em.line(4, "continue")
    for memo_local in em.memo.values():
        em.line(2, f"{memo_local} = UNSET")
    for tests, local in zip(tests_of, found):
        em.line(2, f"if {' and '.join(tests[common:])}:")
        em.line(3, f"{local}.append({em.ref(chosen)})")
    em.memo = None
    em.line(1, f"return ({''.join(local + ', ' for local in found)})")
    return em.function("check_pass", "eng, ids, seen=False", READING + ["env = {}", *ONE_HIDE_TEST])


def pure_test(test: str) -> bool:
    """Does Python source `test` (a condition written out) only read, calling nothing and
    setting no local? (Then it may be made before anything else is asked of the object.)"""
    return ":=" not in test and re.search(r"[\w\])]\(", test) is None  # (a call: a name, `]` or `)` right before `(`)


def value_planned(each: ast.Each) -> tuple[ast.Node, str] | None:
    """(conjunct, A) when a conjunct of the condition of `each x where ...` reads the chosen
    object only as `x.A`, A a stored field every value of which an index holds
    (`indexes.FIELDS`): while no continuous effect exists, whether it holds is then the
    same for every object with the same A, so it can be worked out once per value
    (`compile_value_plan`). The first such conjunct; None when there is none."""
    for c in ast.conjuncts(each.cond):
        nodes = list(c.walk())
        read = [n.name for n in nodes if isinstance(n, ast.Attr) and isinstance(n.obj, ast.Name) and n.obj.id == each.var]
        named = sum(1 for n in nodes if isinstance(n, ast.Name) and n.id == each.var)
        if read and named == len(read) and set(read) == {read[0]} and read[0] in FIELD_SET:
            return c, read[0]  # (every mention of the object is a read of A)
    return None


@or_cannot
def compile_value_plan(compiler: Any, each: ast.Each) -> Callable | None:
    """For a state check of every object whose selection no index narrows (`QueryPlan.plans`
    empty) and which has a conjunct `value_planned` finds: a function `(engine) -> the ids
    of the objects whose A is a value for which the conjunct holds` (a superset of what the
    check chooses, for its pass to choose among), the conjunct worked out once per value of
    A on one object that has it; or None from the function while a continuous effect exists
    (an effect may make what is read of A differ from what is stored). None when the check
    is not of that kind."""
    planned = value_planned(each)
    if planned is None or compiler.query(each).plan.plans:
        return None
    conjunct, attr = planned
    em = Emitter(compiler, None)
    chosen = Binding("x", chosen=True, obj="o", oid="oid", sees_hidden=compiler.query(each).sees_hidden)
    em.line(1, "if game.effects:")
    em.line(2, "return None")
    em.line(1, "found = set()")
    em.line(1, f"for ids in eng.indexes.table({attr!r}).values():")
    em.line(2, "if not ids:")
    em.line(3, "continue")
    em.line(2, "oid = next(iter(ids))  # (any object with this value: the conjunct reads nothing else of it)")
    em.line(2, "o = objects[oid]")
    em.line(2, f"if {em.holds(conjunct, {each.var: chosen}, 'env')}:")
    em.line(3, "found |= ids")
    em.line(1, "return found")
    return em.function("value_plan", "eng", READING + ["env = {}"])


@or_cannot
def compile_selection_count(compiler: Any, each: ast.Each, cause: Any) -> Callable:
    """What the selection of `each x where ...` counts against the step's budget, made on its
    own with no variable bound (a state check of every object), without choosing: a function
    `(engine, batch)` that counts its candidates as `Selector.select` would and raises when the
    step's iterations or the batch's writes are over budget, and gives back the candidates it
    counted (in no order; a superset of what the check chooses) and whether they are known to
    hold nothing a hide rule hides (`Selector.candidates_seen`), or None when an index says
    no object can match. For a check whose choice a pass (`compile_check_pass`) makes."""
    em = Emitter(compiler, None)
    em.cause = cause
    em.each(each, {}, "env", 1, count_only=True)
    return em.function("count_selection", "eng, batch", PROLOGUE + ["env = {}"])


@or_cannot
def compile_chosen(compiler: Any, each: ast.Each, writer: Callable, cause: Any) -> Callable:
    """The body of `each x where ...: body` run for each reference a selection made elsewhere
    chose, in order: a function `(engine, chosen, batch, cause)`."""
    em = Emitter(compiler, writer)
    em.cause = cause
    em.line(1, "for x in chosen:")
    em.stmt(each.body, {each.var: Binding("x", chosen=True, obj="objects[x[0]]")}, "env", 2)
    return em.function("run_chosen", "eng, chosen, batch, cause", PROLOGUE + ["env = {}"])


@or_cannot
def compile_assertion(compiler: Any, clause: ast.AssertAfter, wanted_old: Any) -> Callable:
    """`assert after x.A becomes V [from W] [where ...]: cond` as a function `(engine, object
    id, old value, values read before) -> bool`, false only when the change fits and `cond`
    fails; its `is unchanged` parts compare with the values read before."""
    em = Emitter(compiler, None)
    em.before = "before"
    pattern = clause.event
    scope = {pattern.var: subject_binding(chosen=True)}  # (only read)
    if wanted_old is not ANY_OLD:
        em.line(1, f"if old != {em.const(wanted_old, 'old')}:")
        em.line(2, "return True")
    if pattern.cond is not None:
        em.line(1, f"if {em.fails(pattern.cond, scope, None)}:")
        em.line(2, "return True")
    em.line(1, f"return {em.holds(clause.cond, scope, None)}")
    return em.function("holds", "eng, oid, old, before", READING + SUBJECT)
