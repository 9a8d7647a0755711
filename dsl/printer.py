"""Syntax tree to canonical source text, such that parse(print(tree)) == tree."""

from __future__ import annotations

from . import ast
from .parser import hook_name, keywords

INDENT = "  "

# Binding strength of expression forms: a child weaker than its context gets parentheses.
_OR, _AND, _NOT, _TEST, _ADD, _ATOM = range(6)


def _level(e: ast.Node) -> int:
    match e:
        case ast.Or():
            return _OR
        case ast.And():
            return _AND
        case ast.Not():
            return _NOT
        case ast.Is() | ast.IsA() | ast.Has() | ast.Visible() | ast.Unchanged() | ast.Compare():
            return _TEST
        case ast.Add():
            return _ADD
    return _ATOM


def _wrap(e: ast.Node, minimum: int) -> str:
    text = expr_text(e)
    return f"({text})" if _level(e) < minimum else text


def expr_text(e: ast.Node) -> str:
    match e:
        case ast.Name(id=name):
            return name
        case ast.Number(value=v):
            return str(v)
        case ast.String(value=v):
            return f'"{v}"'
        case ast.Attr(obj=o, name=n):
            return f"{_wrap(o, _ATOM)}.{n}"
        case ast.Count(var=v, cond=c, hidden=hidden):
            return f"count({v}{_selection(c, hidden)})"
        case ast.Add(left=l, right=r):
            return f"{_wrap(l, _ADD)} + {_wrap(r, _ATOM)}"
        case ast.Is(left=l, right=r, negated=neg):
            return f"{_wrap(l, _ADD)} is {'not ' if neg else ''}{_wrap(r, _ADD)}"
        case ast.IsA(left=l, type=t, negated=neg):
            article = "an" if t[:1].lower() in "aeiou" else "a"
            return f"{_wrap(l, _ADD)} is {'not ' if neg else ''}{'a' if neg else article} {t}"
        case ast.Has(left=l, keyword=k):
            return f"{_wrap(l, _ADD)} has {k}"
        case ast.Visible(obj=o):
            return f"{_wrap(o, _ADD)} is visible"
        case ast.Not(item=ast.Visible(obj=o)):  # (read back as the same tree)
            return f"{_wrap(o, _ADD)} is not visible"
        case ast.Unchanged(value=v):
            return f"{_wrap(v, _ADD)} is unchanged"
        case ast.Compare(op=op, left=l, right=r):
            return f"{_wrap(l, _ADD)} {op} {_wrap(r, _ADD)}"
        case ast.Not(item=i):
            return f"not {_wrap(i, _NOT)}"
        case ast.And(items=items):
            return " and ".join(_wrap(i, _NOT) for i in items)
        case ast.Or(items=items):
            return " or ".join(_wrap(i, _AND) for i in items)
    raise TypeError(f"not an expression: {type(e).__name__}")


def _selection(cond: ast.Node | None, hidden: bool) -> str:
    """What follows a query's variable: ` including hidden`, ` where C`, or both."""
    text = " including hidden" if hidden else ""
    return text + (f" where {expr_text(cond)}" if cond is not None else "")


def duration_text(d: ast.Node | None) -> str:
    match d:
        case None:
            return ""
        case ast.UntilEndOfTurn():
            return " until end of turn"
        case ast.UntilNextTurn(player=p):
            return f" until {p} next turn"
        case ast.UntilNextStep(step=step, player=p):
            return f" until next {step} of {p}"
        case ast.ForAsLongAs(cond=c):
            return f" for as long as {expr_text(c)}"
        case ast.UntilLeaves(obj=o):
            return f" until {o} leaves the battlefield"
    raise TypeError(f"not a duration: {type(d).__name__}")


def _agree(subject: ast.Node, verb: str) -> str:
    """The verb as its subject takes it: `you draw`, `P draws`."""
    return verb if isinstance(subject, ast.Name) and subject.id == "you" else verb + "s"


def _body(stmt: ast.Node, depth: int) -> list[str]:
    """The part after a ':' — a statement on the same line, or a braced block."""
    if isinstance(stmt, ast.Block):
        lines = ["{"]
        for s in stmt.stmts:
            lines += [INDENT * (depth + 1) + line for line in stmt_lines(s, depth + 1)]
        return lines + [INDENT * depth + "}"]
    return stmt_lines(stmt, depth)


def _join(head: str, body: list[str]) -> list[str]:
    # body lines after the first already carry their indentation
    return [f"{head} {body[0]}"] + body[1:]


def stmt_lines(s: ast.Node, depth: int = 0) -> list[str]:
    """A statement as lines; the first line is unindented, the rest carry their own indentation."""
    match s:
        case ast.Block():
            return _body(s, depth)
        case ast.Simultaneously(stmts=stmts):
            lines = ["simultaneously {"]
            for inner in stmts:
                lines += [INDENT * (depth + 1) + line for line in stmt_lines(inner, depth + 1)]
            return lines + [INDENT * depth + "}"]
        case ast.Each(var=v, cond=c, body=b, every_zone=every, hidden=hidden):
            scope = "object " if every else ""
            return _join(f"each {scope}{v}{_selection(c, hidden)}:", _body(b, depth))
        case ast.If(cond=c, body=b):
            return _join(f"if {expr_text(c)}:", _body(b, depth))
        case ast.Set(assigns=assigns):
            return ["set " + ", ".join(f"{a.var}.{a.attr} = {expr_text(a.value)}" for a in assigns)]
        case ast.Attach(obj=o, to=t):
            return [f"attach {expr_text(o)} to {expr_text(t)}"]
        case ast.Unattach(obj=o):
            return [f"unattach {expr_text(o)}"]
        case ast.Tap(obj=o):
            return [f"tap {expr_text(o)}"]
        case ast.Untap(obj=o):
            return [f"untap {expr_text(o)}"]
        case ast.RemoveFromCombat(obj=o):
            return [f"remove {expr_text(o)} from combat"]
        case ast.RemoveDamage(obj=o):
            return [f"remove damage from {expr_text(o)}"]
        case ast.Destroy(obj=o):
            return [f"destroy {expr_text(o)}"]
        case ast.Move(obj=o, zone=z, duration=d):
            return [f"move {expr_text(o)} to {z}{duration_text(d)}"]
        case ast.Cease(obj=o):
            return [f"cease {expr_text(o)}"]
        case ast.EndTracking(obj=o):
            return [f"end effects tracking {expr_text(o)}"]
        case ast.EndUntilEndOfTurn():
            return ["end effects lasting until end of turn"]
        case ast.EndUntilNextTurn(player=p):
            return [f"end effects lasting until next turn of {expr_text(p)}"]
        case ast.EndFailed():
            return ["end effects whose condition fails"]
        case ast.EndLimited(obj=o):
            return [f"end limited effects on {expr_text(o)}"]
        case ast.LoseDelayed(obj=o):
            return [f"delayed triggers lose {expr_text(o)}"]
        case ast.EndControl(player=p):
            return [f"end control effects for {expr_text(p)}"]
        case ast.Delayed(hook=h, body=b):
            return _join(f"at next {hook_name(h)}:", _body(b, depth))
        case ast.DealDamage(amount=n, obj=o):
            return [f"deal {n} damage to {expr_text(o)}"]
        case ast.Pump(obj=o, power=p, toughness=t, duration=d):
            return [f"{expr_text(o)} {_agree(o, 'get')} {p:+d}/{t:+d}{duration_text(d)}"]
        case ast.SetBase(obj=o, power=p, toughness=t, duration=d):
            return [f"{expr_text(o)} {_agree(o, 'become')} {p}/{t}{duration_text(d)}"]
        case ast.Grant(obj=o, keyword=k, duration=d):
            return [f"{expr_text(o)} {_agree(o, 'gain')} {k}{duration_text(d)}"]
        case ast.GainControl(player=p, obj=o, duration=d):
            return [f"{expr_text(p)} {_agree(p, 'gain')} control of {expr_text(o)}{duration_text(d)}"]
        case ast.Draw(player=p, amount=a):
            return [f"{expr_text(p)} {_agree(p, 'draw')} {expr_text(a)}"]
        case ast.GainLife(player=p, amount=a):
            return [f"{expr_text(p)} {_agree(p, 'gain')} {expr_text(a)} life"]
        case ast.AddCounters(amount=n, kind=k, obj=o):
            return [f"put {n} {k} counters on {expr_text(o)}"]
        case ast.RemoveCounters(amount=n, kind=k, obj=o):
            return [f"remove {n} {k} counters from {expr_text(o)}"]
        case ast.AttackWith(obj=o):
            return [f"attack with {expr_text(o)}"]
        case ast.CombatDamage():
            return ["deal combat damage"]
        case ast.ExtraSteps(steps=steps):
            return [f"add extra {', '.join(steps)}"]
        case ast.Call(verb=v, args=args):
            # a verb is called like a built-in statement, unless its name is one of the
            # language's words (which would be read as that word): then with `do`
            head = f"do {v}" if v in keywords() else v
            return [f"{head} " + ", ".join(expr_text(a) for a in args)]
    raise TypeError(f"not a statement: {type(s).__name__}")


def _hook(h: ast.Hook) -> str:
    """A hook as the language writes it: a step by its name (`upkeep step of P`, for the kind `upkeep`)."""
    return hook_name(h.kind) + (f" of {h.var}" if h.var else "")


def _change(c: ast.Change) -> str:
    text = f"{c.var}.{c.attr} becomes {_wrap(c.value, _ATOM)}"
    text += f" from {_wrap(c.old, _ATOM)}" if c.old is not None else ""
    return text + (f" and {expr_text(c.cond)}" if c.cond is not None else "")


def _event(e: ast.Node) -> str:
    if isinstance(e, ast.LeavesEvent):
        return f"{e.var} leaves the battlefield"
    return _change(e)


def clause_lines(c: ast.Node) -> list[str]:
    match c:
        case ast.Hide(var=v, cond=cond):
            return [f"hide {v} where {expr_text(cond)}"]
        case ast.During(hook=h, body=b):
            return _join(f"during {_hook(h)}:", _body(b, 0))
        case ast.AsClause(change=ch, body=b):
            return _join(f"as {_change(ch)}:", _body(b, 0))
        case ast.After(event=ev, body=b):
            return _join(f"after {_event(ev)}:", _body(b, 0))
        case ast.Prefer(attr=a, value=v):
            return [f"prefer {a} = {_wrap(v, _ATOM)}"]
        case ast.NotPerceived(attr=a, kinds=kinds, old=old):
            source = f" from {_wrap(old, _ATOM)}" if old is not None else ""
            return [f"changes of {a}{source} are not {', '.join(kinds)}"]
        case ast.Exempt(var=v, rule=r, cond=cond):
            return [f"exempt {v} from {r} where {expr_text(cond)}"]
        case ast.Exclude(var=v, cond=cond):
            return [f"exclude {v} from resolved effects where {expr_text(cond)}"]
        case ast.Lookback(change=ch):
            return [f"look back on {_change(ch)}"]
        case ast.Order(hook=h, rules=rules):
            return [f"order {hook_name(h)}: {', '.join(rules)}"]
        case ast.AssertAfter(event=ev, cond=cond):
            return [f"assert after {_event(ev)}: {expr_text(cond)}"]
        case ast.AssertOnce(hook=h, attr=a):
            return [f"assert during {_hook(h)}: {a} changes at most once"]
        case ast.AssertSkipped(hook=h, attr=a):
            return [f"assert during skipped {_hook(h)}: no change of {a}"]
        case ast.AssertAlways(var=v, cond=cond):
            return [f"assert always {v}: {expr_text(cond)}"]
        case ast.ForbidAttack() | ast.ForbidBlock():
            return [forbid_text(c)]
        case ast.SkipStep(hook=h, cond=cond):
            return [f"skip {_hook(h)} where {expr_text(cond)}"]
    raise TypeError(f"not a clause: {type(c).__name__}")


def forbid_text(f: ast.Node) -> str:
    """A restriction on attacking or blocking as written (a clause, or a card's entry)."""
    if isinstance(f, ast.ForbidAttack):
        return f"forbid attack by {f.var} where {expr_text(f.cond)}"
    return f"forbid block of {f.attacker} by {f.blocker} where {expr_text(f.cond)}"


def labelled_lines(c: ast.Node) -> list[str]:
    """A clause as a block prints it: with its label, `clause NAME: ...`, when it has one
    (`clause_lines` prints what the clause says, without it)."""
    lines = clause_lines(c)
    return [f"clause {c.label}: {lines[0]}"] + lines[1:] if c.label is not None else lines


def amend_entry_lines(e: ast.Node) -> list[str]:
    match e:
        case ast.AmendSummary(summary=text):
            return [f'summary "{text}"']
        case ast.ReplaceClause(clause=c):
            return ["replace " + line if n == 0 else line for n, line in enumerate(labelled_lines(c))]
        case ast.AddClause(clause=c):
            return ["add " + line if n == 0 else line for n, line in enumerate(labelled_lines(c))]
        case ast.DropClause(label=label):
            return [f"drop clause {label}"]
    raise TypeError(f"not an amend entry: {type(e).__name__}")


def _cites(cites: tuple[str, ...]) -> str:
    return f" cites {', '.join(cites)}" if cites else ""


def _trigger(t: ast.Node) -> str:
    where = f" and {expr_text(t.cond)}" if getattr(t, "cond", None) is not None and not isinstance(t, ast.OnChange) else ""
    match t:
        case ast.OnEnters(var=v):
            return f"{v} enters{where}"
        case ast.OnLeaves(var=v):
            return f"{v} leaves the battlefield{where}"
        case ast.OnAttached(var=v):
            return f"{v} becomes attached{where}"
        case ast.OnUnattached(var=v):
            return f"{v} becomes unattached{where}"
        case ast.OnTargeted(var=v, by=by):
            return f"{v} becomes the target of {'an' if by == 'ability' else 'a'} {by}{where}"
        case ast.OnBlocks(var=v, other=o):
            return f"{v} blocks {o}{where}"
        case ast.OnBlocked(var=v, other=o):
            return f"{v} becomes blocked by {o}{where}"
        case ast.OnChange(change=ch):
            return _change(ch)
    raise TypeError(type(t).__name__)


def _step_trigger(t: ast.OnStep) -> str:
    """The head of a step's triggered ability: `at beginning of upkeep step of you`."""
    whose = "you" if t.player is None else f"each player {t.player}"
    return f"at beginning of {hook_name(t.step)} of {whose}"


def _card_entry(e: ast.Node) -> list[str]:
    match e:
        case ast.Types(names=n):
            return ["types " + " ".join(n)]
        case ast.PT(power=p, toughness=t):
            return [f"pt {p}/{t}"]
        case ast.Keywords(names=n):
            return ["keywords " + ", ".join(n)]
        case ast.Target(var=v, cond=c):
            return [f"target {v} where {expr_text(c)}"]
        case ast.Static(body=b):
            return _join("static:", _body(b, 0))
        case ast.Spell(body=b):
            return _join("spell:", _body(b, 0))
        case ast.Triggered(trigger=ast.OnStep() as t, body=b):
            return _join(f"{_step_trigger(t)}:", _body(b, 0))
        case ast.Triggered(trigger=t, body=b, condition=c):
            head = f"when {'one or more ' if e.one_or_more else ''}{_trigger(t)}" + (f", if {expr_text(c)}" if c is not None else "")
            return _join(f"{head}:", _body(b, 0))
        case ast.Partial(text=text):
            return [f'partial "{text}"']
        case ast.ForbidAttack() | ast.ForbidBlock():
            return [forbid_text(e)]
        case ast.Activated(cost=cost, targets=targets, body=b):
            head = "activated " + ", ".join(cost_part_text(part) for part in cost)
            if targets:
                head += " targeting " + ", ".join(f"{t.var} where {expr_text(t.cond)}" for t in targets)
            return _join(head + ":", _body(b, 0))
    raise TypeError(type(e).__name__)


def cost_part_text(part: ast.Node) -> str:
    """One part of an activated ability's cost as written: `{2}{U}`, `{T}`, `pay 2 life`."""
    match part:
        case ast.ManaCost(symbols=symbols):
            return "".join(f"{{{symbol}}}" for symbol in symbols)
        case ast.TapCost():
            return "{T}"
        case ast.LifeCost(amount=n):
            return f"pay {n} life"
        case ast.OtherCost(words=words):
            return " ".join(words)
    raise TypeError(type(part).__name__)


def _prop(p: ast.Node) -> str:
    match p:
        case ast.Flag(name=n):
            return n
        case ast.PropPlayer(key=k, player=v):
            return f"{k} {v}"
        case ast.PropAttached(target=t):
            return f"attached to {t}"
        case ast.PropCounter(key=k, kind=kind, amount=n):
            return f"{k} {kind} = {n}"
        case ast.PropStatus(name=n, value=v):
            return f"set {n} = {_wrap(v, _ATOM)}"
        case ast.PropDamage(amount=n):
            return f"damage {n}"
        case ast.PropEntered(turn=n):
            return f"entered turn {n}"
    raise TypeError(type(p).__name__)


def _step(s: ast.Node) -> str:
    match s:
        case ast.NextTurn(skipping=skip, hold=hold):
            return ("hold " if hold else "") + "next turn" + (f" skipping {', '.join(skip)}" if skip else "")
        case ast.ToStep(step=step, hold=hold):
            return ("hold " if hold else "") + f"to {step}"
        case ast.BlockStep(pairs=pairs, hold=hold):
            return ("hold " if hold else "") + "declare blockers: " + ", ".join(f"{b} blocks {a}" for b, a in pairs)
        case ast.Cast(card=c, player=p, targets=t, hold=hold):
            text = f'{"hold" if hold else "cast"} "{c}" by {p}'
            return text + (f" targeting {', '.join(t)}" if t else "")
        case ast.Activate(name=n, player=p, ability=number, targets=t, hold=hold):
            text = f'{"hold activate" if hold else "activate"} {n}{"" if number == 1 else f" {number}"} by {p}'
            return text + (f" targeting {', '.join(t)}" if t else "")
        case ast.OrderStep(cards=cards):
            return "order " + ", ".join(f'"{c}"' for c in cards)
        case ast.Choose(card=c, targets=t):
            return f'choose "{c}" targeting {", ".join(t)}'
        case ast.Resolve(hold=hold):
            return "hold resolve" if hold else "resolve"
        case ast.AttackStep(names=n, hold=hold, defenders=d):
            at = d or (None,) * len(n)
            return ("hold " if hold else "") + "attack with " + ", ".join(a + (f" at {w}" if w else "") for a, w in zip(n, at))
        case ast.PlayerLeaves(player=p):
            return f"{p} leaves the game"
        case ast.MoveStep(name=n, zone=z):
            return f"move {n} to {z}"
        case ast.CleanupStep():
            return "cleanup"
        case ast.Expect(cond=c, versions=v):
            return f"expect for {', '.join(v)}: {expr_text(c)}" if v else f"expect {expr_text(c)}"
        case ast.ExpectError(message=m):
            return f'expect error "{m}"'
    raise TypeError(type(s).__name__)


def _scenario_entry(e: ast.Node) -> list[str]:
    match e:
        case ast.ScenarioCites(rules=r):
            return ["cites " + ", ".join(r)]
        case ast.ScenarioRules(versions=v):
            return ["rules " + ", ".join(v)]
        case ast.ScenarioRange(first=a, last=b):
            return [f"rules from {a}" + (f" to {b}" if b else "")]
        case ast.Players(names=n):
            return ["players " + " ".join(n)]
        case ast.TurnDecl(number=n, player=p):
            return [f"turn {n} of {p}"]
        case ast.PermanentDecl(name=n, card=c, props=props):
            return [f'permanent {n} = "{c}"' + "".join(f", {_prop(p)}" for p in props)]
        case ast.Script(steps=steps):
            return ["script {"] + [INDENT + _step(s) for s in steps] + ["}"]
    raise TypeError(type(e).__name__)


def _braced(head: str, lines: list[str]) -> list[str]:
    return [head + " {"] + [INDENT + line for line in lines] + ["}"]


def item_lines(item: ast.Node) -> list[str]:
    match item:
        case ast.Version():
            body = []
            if item.title is not None:
                body.append(f'title "{item.title}"')
            if item.extends is not None:
                body.append(f"extends {item.extends}")
            body += [f"renumber {r.old} as {r.new}" for r in item.renumbers]
            body += [f"drop {d.name}" for d in item.drops]
            body += [f"section {s.rule} subrules {' '.join(s.letters)}" for s in item.sections]
            body += [f'note "{n}"' for n in item.notes]
            if item.reconstructed is not None:
                body.append(f'reconstructed "{item.reconstructed}"')
            return _braced(f"{item.kind} {item.id}", body)
        case ast.TurnStructure():
            body = [phase.name + (f": {', '.join(phase.steps)}" if phase.steps else "") for phase in item.phases]
            body += [f"no priority: {', '.join(item.no_priority)}"] if item.no_priority else []
            body += [f"priority only after triggers: {', '.join(item.after_triggers)}"] if item.after_triggers else []
            return _braced(f"turn{_cites(item.cites)}", body)
        case ast.ZoneDecl():
            return [f"zone {item.name} keeps {', '.join(item.keeps)}{_cites(item.cites)}"]
        case ast.ObserveDecl():
            cases = "".join(f" {_wrap(c.value, _ATOM)} where {expr_text(c.cond)}," for c in item.cases)
            return [f"observe {item.name} of {item.var}:{cases} otherwise {_wrap(item.default, _ATOM)}{_cites(item.cites)}"]
        case ast.StatusDecl():
            kind = " | ".join(item.values) if item.type == "enum" and item.values else item.type
            return [f"status {item.name}: {kind} = {_wrap(item.default, _ATOM)}{_cites(item.cites)}"]
        case ast.VerbDecl():
            params = "".join(f" {p}" for p in item.params)
            body = [line for s in item.body for line in stmt_lines(s, 0)]
            return _braced(f"verb {item.name}{params}{_cites(item.cites)}", body)
        case ast.Rule():
            body = [line for c in item.clauses for line in labelled_lines(c)]
            return _braced(f'rule {item.id} {item.slug} "{item.summary}"', body)
        case ast.Amend():
            return _braced(f"amend {item.block}", [line for e in item.entries for line in amend_entry_lines(e)])
        case ast.Card():
            return _braced(f'card "{item.name}"', [line for e in item.entries for line in _card_entry(e)])
        case ast.Scenario():
            return _braced(f'scenario "{item.name}"', [line for e in item.entries for line in _scenario_entry(e)])
    raise TypeError(f"not a top-level item: {type(item).__name__}")


def print_module(module: ast.Module) -> str:
    return "\n\n".join("\n".join(item_lines(i)) for i in module.items) + ("\n" if module.items else "")
