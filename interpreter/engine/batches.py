"""A batch's writes: what one event does is gathered in a `Batch` (its writes and operations),
then committed together: expanded by the `as` clauses, conflicts settled by `prefer`,
applied, and then perceived and reacted to."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from functools import partial
from itertools import repeat
from typing import Any, Callable, Iterable

import attrs

from ..game.model import Permanent, earlier_name
from ..game.store import FIELD_NAMES, Bulk
from ..game.writes import UNCHANGED_KEY, UNREAD, Batch, Write, in_position_order, objects_in_position_order
from ..game.trace import Cause, Event, rule_cause, show_value
from ..game.errors import RulesError
from .observing import seen_before, seen_changes


# Rounds of state checks in one settling, or triggered abilities resolved in one go, after
# which the engine watches for the game coming back to a state it had (`never_settles`).
# Before that nothing is watched; however long it goes on, the step's budget bounds it.
MAX_SETTLE_ROUNDS = 64

MAX_REACTION_DEPTH = 100  # changes causing changes causing changes ... (after clauses, returns)

# What runs may not write to be committed as runs (`Committer.commit_runs`): a zone (a new
# object), a card (static abilities compare the object before and after), an attachment
# (perceived).
RUNS_KEEP_OUT = frozenset({"zone", "card", "attached_to"})


class WaitedInRuns:
    """The changes of a batch's runs that assertions and `after` clauses wait on, by
    (attribute, new value), as `find_changes`'s fourth part has them (`Write`s, in the order
    of their positions), each list made only when asked for (`get`, `[]`): with `key in`,
    all `Committer.commit_runs` gives them. `attrs_waited`, `waited`: `waited_on()`."""

    def __init__(self, runs: list[Bulk], attrs_waited: Any, waited: Any):
        self.runs = [b for b in runs if b.attr in attrs_waited]
        keys: set[tuple[str, Any]] = set()
        for b in self.runs:
            keys.update(key for key in ([(b.attr, b.value)] if b.values is None else zip(repeat(b.attr), b.values))
                        if key in waited)
        self.keys = keys
        self.made: dict[tuple[str, Any], list[Write]] = {}

    def __contains__(self, key: object) -> bool:
        return key in self.keys

    def __getitem__(self, key: tuple[str, Any]) -> list[Write]:
        if key not in self.keys:
            raise KeyError(key)
        return self.get(key)

    def get(self, key: tuple[str, Any], default: Any = None) -> Any:
        if key not in self.keys:
            return default
        found = self.made.get(key)
        if found is None:
            attr, value = key
            found = self.made[key] = [Write(b.objs[k], attr, value, b.cause, b.olds[k]) for b, k in self._where(key)]
        return found

    def runs_of(self, key: tuple[str, Any]) -> list[Bulk]:
        """The runs that may hold changes `key` names: those to its attribute whose one value
        is its value, and those writing a column of values (the changes in them are those
        whose value is its value)."""
        if key not in self.keys:
            return []
        attr, value = key
        return [b for b in self.runs if b.attr == attr and (b.values is not None or b.value == value)]

    def objects_and_olds(self, key: tuple[str, Any]) -> list[tuple[str, Any]]:
        """(object, the value it replaces) of each change `key` names, in the order of their
        positions, as `get` has them, without making a `Write` of each."""
        if key not in self.keys:
            return []
        return [(b.objs[k], b.olds[k]) for b, k in self._where(key)]

    def _where(self, key: tuple[str, Any]) -> list[tuple[Bulk, int]]:
        """(run, index in it) of each change `key` names, in the order of their positions."""
        value = key[1]
        return [(b, k) for b, k in in_position_order(self.runs_of(key))
                if (b.value if b.values is None else b.values[k]) == value]


def causes_of(batches: Iterable[Batch]) -> frozenset[str]:
    """The causes of the writes and operations of some batches, as they are named."""
    return (frozenset(str(w.cause) for b in batches for w in b.writes) | {str(o.cause) for b in batches for o in b.ops}
            | {str(bulk.cause) for b in batches for bulk in b.bulks})


class Committer:
    """Commits a batch: expands it by the `as` clauses, settles conflicting writes with the
    `prefer` rules, applies what changes (a zone change makes a new object, 400.7), and then has
    the changes perceived, checked by assertions, triggering abilities and followed up by the
    `after` clauses. Watches reactions that never settle."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of
        self.renamed: list = []  # journal entries of attachments left on an object that changed zones

    def commit(self, batch: Batch) -> bool:
        """Expand, settle conflicts, apply, then let everything that watches the changes react."""
        self.eng.commits += 1
        if self.eng.depth > MAX_REACTION_DEPTH:  # each change caused by the one before, ever deeper
            raise self.never_settles(causes_of(self.eng.batches + [batch]))
        self.eng.depth += 1
        self.eng.batches.append(batch)
        self.eng.batch_no += 1
        self.eng.batch_ids.append(self.eng.batch_no)
        try:
            return self.apply_batch(batch)
        finally:
            self.eng.depth -= 1
            self.eng.batches.pop()
            self.eng.batch_ids.pop()

    def apply_batch(self, batch: Batch) -> bool:
        """`commit` once the batch is on the stack of batches being committed."""
        eng = self.eng
        if batch.bulks:
            expand_runs = None if batch.writes else eng.program.clauses.run_expander()
            if expand_runs is not None:  # a batch made of runs: expanded as runs, committed as them if it can be
                expand_runs(eng, batch, eng.writes_left)
                self.spend_writes(batch, batch.in_bulk)
                done = self.commit_runs(batch)
                if done is not None:
                    return done
                batch.take_in_bulks()
                return self.settle_and_apply(batch)
            batch.take_in_bulks()
        if not batch.writes and not batch.ops:
            return False  # nothing happens (what `unchanged_writes` holds changes nothing): nothing to perceive, check or follow up
        eng.reactions.expand(batch)
        self.spend_writes(batch, len(batch.writes))
        return self.settle_and_apply(batch)

    def settle_and_apply(self, batch: Batch) -> bool:
        """`apply_batch` for an expanded batch whose writes are all in `writes`: settle
        conflicts, apply the changes, and let everything that watches them react."""
        eng = self.eng
        # One pass over the writes finds the changes, as long as no two writes to the same
        # attribute of an object set different values (nor an unchanged write meets one that does):
        # then the first of each stands and nothing is settled. Otherwise `settle_conflicts`
        # settles them (or fails) and the changes are found again among those that stand.
        found = self.find_changes(batch.writes, first_stands=True)
        settled: list[tuple] = []
        if found is None or (batch.unchanged_writes and not found[4].keys().isdisjoint(map(UNCHANGED_KEY, batch.unchanged_writes))):
            final, settled = self.settle_conflicts(batch)
            found = self.find_changes(final, first_stands=False)
        changes, by_object, attrs_written, keyed, stood = found
        first = next(iter(stood.values()), None)  # the first write that stands (its cause names what is remembered)
        if not changes and not batch.ops:
            return False  # every write leaves its value as it was: nothing happens
        touched = by_object.keys()
        # Can this batch change what the game sees, or what is attached to what? With hide rules
        # that look only at their own object (and nothing static abilities change), only a write
        # to something they read can (or an effect that starts or ends).
        sight = bool(batch.ops) or not eng.program.sight_follows_writes or not eng.program.hide_inputs.isdisjoint(attrs_written)
        perceived = (sight or "attached_to" in attrs_written) and not eng.perception.unperceived(changes, attrs_written, batch)
        if perceived:
            watch: Iterable[str] = touched | eng.perception.attachment_neighbours(touched)
        else:  # what the game sees of the objects changed, for their last known information
            watch = touched if sight else ()
        vis_before = eng.hiding.sight(watch)
        edges_before = eng.perception.edges(watch, vis_before) if perceived else set()
        if sight:  # last known information, of what the game may stop seeing
            eng.writer.remember([oid for oid in touched if vis_before[oid]], first.cause if first else None)
        before_values = self.values_before(keyed, attrs_written, lambda: {(w.obj, w.attr) for w in changes})
        seen = seen_before(eng, changes, attrs_written)  # (what a player sees that a trigger watches)
        journaled = eng.store.journal_writes(changes)  # (the trace's change events are these entries)
        self.apply_writes(by_object, attrs_written)
        changed = bool(changes)
        self.trace_changes(journaled)
        if self.renamed:  # (after the zone changes that left them attached to objects gone: 400.7)
            self.trace_changes(self.renamed)
            self.renamed = []
        for subject, text, cause in settled:  # (after the changes it settled)
            eng.record("settle", subject, text, cause)
        self.count_in_step(attrs_written, lambda attr: [w.obj for w in changes if w.attr == attr])
        for o in batch.ops:
            if o.apply():
                changed = True
                eng.record(o.kind, o.subject, o.describe, o.cause)
                if o.kind in ("effect", "effect-ends"):
                    eng.invalidate()
        zone_events: list[Event] = []
        attach_events: list[Event] = []
        if perceived:
            vis_after = eng.hiding.sight(watch)
            zone_events = eng.perception.perceive_presence(by_object, vis_before, vis_after)
            attach_events = eng.perception.perceive_attachments(by_object, edges_before, eng.perception.edges(watch, vis_after))
        eng.assertions.check_assertions(keyed, before_values, attrs_written)
        for event in zone_events:
            eng.perception.on_presence_event(event)
        eng.triggers.collect_triggers(changes + seen_changes(eng, seen), zone_events + attach_events, vis_before)
        eng.reactions.run_afters(keyed)
        return changed

    def commit_runs(self, batch: Batch) -> bool | None:
        """`settle_and_apply` for an expanded batch made of runs only (`Batch.bulks`, none
        of its writes in `writes`), committed as them: the runs journaled as one group of
        bulk entries (`Store.journal_bulk`) and applied together (`ObjectWriter.put_runs`),
        the trace reading them from the journal as it reads writes made one by one; the
        assertions, triggered abilities and `after` clauses given the changes they wait on as
        `Write`s. None, with nothing done, where it would not do what `settle_and_apply`
        does (`runs_by_attr`), or where the game can perceive a change (an object it starts
        or stops seeing)."""
        eng = self.eng
        program = eng.program
        runs = batch.bulks
        by_attr = self.runs_by_attr(batch)
        if by_attr is None:
            return None
        attrs_written = set(by_attr)
        sight = not program.hide_inputs.isdisjoint(attrs_written)
        if sight and not eng.perception.unperceived_runs(runs):
            return None
        # (every object written, in the order of its first write, as `find_changes` has them)
        touched = dict.fromkeys(objects_in_position_order(runs))
        vis_before = eng.hiding.sight_of_runs(runs, touched) if sight else {}
        if sight:  # last known information, of what the game may stop seeing
            first = next(b for b in runs if b.positions[0] == 0)
            eng.writer.remember([oid for oid in touched if vis_before[oid]], first.cause)
        keyed = WaitedInRuns(runs, *program.clauses.waited_on())
        before_values = self.values_before(keyed, attrs_written, lambda: {(oid, b.attr) for b in runs for oid in b.objs})
        journaled = eng.store.journal_bulk(runs, checked=False)  # (numbered 0 to n-1 as they were made)
        eng.writer.put_runs(runs, touched)
        for b in runs:
            b.held = None  # (applied: the journal keeps ids, not the objects)
        self.trace_changes(journaled)
        self.count_in_step(attrs_written, lambda attr: partial(objects_in_position_order, by_attr[attr]))
        eng.assertions.check_assertions(keyed, before_values, attrs_written)
        eng.triggers.collect_triggers(journaled, [], vis_before)
        eng.reactions.run_afters(keyed)
        return True

    def runs_by_attr(self, batch: Batch) -> dict[str, list[Bulk]] | None:
        """The runs of an expanded batch made of runs, by attribute; None where committing
        them as runs would not do what `settle_and_apply` does: an operation, two writes to
        one attribute of an object (a conflict to settle, or the same value twice), a write
        that leaves a contested attribute as it is meeting one that changes it, a change of
        zone, card or attachment, hide rules or static abilities that look beyond their own
        object."""
        program = self.eng.program
        if batch.ops or not program.local_effects or not program.sight_follows_writes:
            return None
        by_attr: dict[str, list[Bulk]] = {}
        for b in batch.bulks:
            by_attr.setdefault(b.attr, []).append(b)
        if not RUNS_KEEP_OUT.isdisjoint(by_attr):
            return None
        if program.observed_watched and any(not inputs.isdisjoint(by_attr) for inputs in program.observed_watched.values()):
            return None  # (what a player sees may change, and a trigger watches it: `observing.seen_before`)
        objs_by_attr: dict[str, set] = {}
        for attr, of_attr in by_attr.items():
            objs = set().union(*(b.objs for b in of_attr))
            if len(objs) != sum(len(b) for b in of_attr):
                return None  # (one object's attribute written twice)
            objs_by_attr[attr] = objs
        for _at, (oid, attr), _value, _cause in batch.unchanged_writes:
            if oid in objs_by_attr.get(attr, ()):
                return None
        return by_attr

    def values_before(self, keyed: Any, attrs_written: set[str], written: Callable[[], set]) -> dict[str, dict]:
        """What the assertions waiting on a batch's changes (`keyed`) read before it is
        applied, for their `is unchanged` parts that can fail: object -> node -> value.
        `written()`: (object, attribute) of every change, worked out if one asks."""
        eng = self.eng
        before_values: dict[str, dict] = defaultdict(dict)
        pairs: set[tuple[str, str]] | None = None
        for _rule, clause, key in eng.program.clauses.waiting_on_changes("assert"):
            if key not in keyed or eng.assertions.holds_unread(clause, attrs_written) or not eng.program.clauses.unchanged_parts(clause)[0]:
                continue  # (nothing to read before: no `is unchanged` part, or none that can fail)
            if pairs is None:
                pairs = written()
            for (oid, node), value in eng.assertions.assertion_before(clause, keyed[key], pairs).items():
                before_values[oid][node] = value
        return before_values

    def count_in_step(self, attrs_written: set[str],
                      changed: Callable[[str], Iterable[str] | Callable[[], Iterable[str]]]) -> None:
        """Note, for the assertions about a whole step (`S changes at most once`), the objects
        whose counted attribute the batch changed (`changed(attr)`: in the order they changed,
        or a function giving them so, `HookLog.add`)."""
        eng = self.eng
        if eng.hook_logs and not eng.program.step_counted.isdisjoint(attrs_written):
            for attr in eng.program.step_counted & attrs_written:
                objects = changed(attr)
                for log in eng.hook_logs:
                    log.add(attr, objects)

    def spend_writes(self, batch: Batch, n: int) -> None:
        """Count a batch's `n` writes against the step's budget (over it: the error names the
        cause of its last write), and note its causes while a loop is watched."""
        eng = self.eng
        eng.writes_left -= n
        if eng.writes_left < 0:
            cause = batch.writes[-1].cause if batch.writes else max(batch.bulks, key=lambda b: b.positions[-1]).cause
            raise eng.over_budget("writes", cause.span, cause)
        if eng.watching:
            eng.cause_log.append(causes_of([batch]))

    def trace_changes(self, journaled: Any) -> None:
        """The change events of the batch being committed: the block of the journal its
        changes fill, numbered with the batch (and the one it was made during, if any)."""
        ids = self.eng.batch_ids
        self.eng.trace.changes(self.eng.step, journaled, ids[-1], ids[-2] if len(ids) > 1 else 0)

    def find_changes(self, writes: Iterable[Write], first_stands: bool) -> tuple | None:
        """Among `writes` (in batch order), those that change something, each knowing the value
        it replaces: (the changes, them by object, the attributes written, them by (attribute,
        new value) for the assertions and `after` clauses that wait on them, the writes that
        stand by (object, attribute)). With `first_stands`, the first write to an attribute of
        an object stands and a later one of the same value is left out; None when a later one
        sets another value (a conflict, for `settle_conflicts`)."""
        eng = self.eng
        attrs_waited, waited = eng.program.clauses.waited_on()
        stood: dict[tuple, Write] = {}
        changes: list[Write] = []
        by_object: dict[str, list[Write]] = defaultdict(list)
        attrs_written: set[str] = set()
        keyed: dict[tuple[str, Any], list[Write]] = defaultdict(list)
        for w in writes:
            obj, attr, value = w.obj, w.attr, w.value
            other = stood.setdefault((obj, attr), w)
            if first_stands and other is not w:
                if other.value == value:
                    continue  # the same value twice: the first write stands
                return None
            old = w.old
            if old is UNREAD:
                old = w.old = eng.raw(obj, attr)
            if old != value:
                changes.append(w)
                by_object[obj].append(w)
                attrs_written.add(attr)
                if attr in attrs_waited and (attr, value) in waited:
                    keyed[(attr, value)].append(w)
        return changes, by_object, attrs_written, keyed, stood

    def never_settles(self, involved: Iterable[str]) -> RulesError:
        """The error for changes that keep causing further changes: a state that comes back
        (`watched`), or reactions nested ever deeper; `involved`: the causes of the changes
        that went round."""
        named = sorted(set(involved)) or ["(no change was written: only effects and triggers)"]
        return self.eng.fail("the rules never settle: changes keep causing further changes", None,
                         "blocks involved: " + "; ".join(named))

    @contextlib.contextmanager
    def watched(self):
        """Watch a loop (rounds of state checks, triggered abilities resolving) for coming back
        to where it was: yields `again(key)`, to be called at the top of each turn of the loop
        with what, besides the game (`Game.fingerprint`), decides what the loop does next; it
        raises `never_settles`, naming the causes of every batch since then, when the loop has
        been there before."""
        seen: dict[int, int] = {}  # fingerprint -> how many batches the log held then
        self.eng.watching += 1

        def again(key: Any) -> None:
            try:
                fingerprint = hash((self.eng.game.fingerprint(), key))
            except TypeError:  # (a value that cannot be hashed: compared as written)
                fingerprint = hash((self.eng.game.fingerprint(), repr(key)))
            if fingerprint in seen:
                raise self.never_settles(set().union(*self.eng.cause_log[seen[fingerprint]:]))
            seen[fingerprint] = len(self.eng.cause_log)
        try:
            yield again
        finally:
            self.eng.watching -= 1
            if not self.eng.watching:
                self.eng.cause_log.clear()

    def settle_conflicts(self, batch: Batch) -> tuple[list[Write], list[tuple]]:
        """The batch's writes with one per (object, attribute): where two set different
        values, the `prefer` rule for the attribute says which stands, else the batch fails;
        and what the `prefer` rules settled (subject, text, cause), for the trace to show after
        the changes."""
        final, settled, clash = self.settled(batch.writes)
        if batch.unchanged_writes and not final.keys().isdisjoint(map(UNCHANGED_KEY, batch.unchanged_writes)):
            # a write that keeps its value meets one that changes it: settle them all in order
            final, settled, clash = self.settled(batch.in_order())
        if clash is not None:
            for subject, text, cause in settled:
                self.eng.record("settle", subject, text, cause)
            other, w = clash
            raise self.eng.fail(
                f"conflicting simultaneous changes: {w.obj}.{w.attr} set to {show_value(other.value)} by {other.cause} "
                f"and to {show_value(w.value)} by {w.cause}",
                w.cause.span if w.cause.span.line else None,
                f"add a rule that says which wins ('prefer {w.attr} = ...')",
            )
        return list(final.values()), settled

    def settled(self, writes: list[Write]) -> tuple[dict[tuple, Write], list[tuple], tuple | None]:
        """`settle_conflicts` without its effects: the write that stands per (object,
        attribute) so far, what the `prefer` rules settled (subject, text, cause), and the
        first two writes nothing settles, if any (there it stops)."""
        eng = self.eng
        final: dict[tuple, Write] = {}
        settled: list[tuple] = []
        for w in writes:
            key = (w.obj, w.attr)
            other = final.setdefault(key, w)
            if other is w:
                continue  # the first write to it
            if other.value == w.value:
                continue  # the same value twice: the first write stands
            preferred = eng.clause_index.prefers.get(w.attr)
            if preferred is not None:
                rule, clause = preferred
                wanted = eng.program.compiler.constant(clause.value)
                if wanted in (w.value, other.value):
                    loser = other if w.value == wanted else w
                    final[key] = w if w.value == wanted else other
                    settled.append((w.obj, f"{w.attr} {show_value(wanted)} wins over {show_value(loser.value)} "
                                    f"(from {loser.cause})", rule_cause(eng.program, rule, clause)))
                    continue
            return final, settled, (other, w)
        return final, settled, None

    def apply_writes(self, per_object: dict[str, list[Write]], attrs_written: set[str]) -> None:
        """Each object the batch changes is changed in place (`put_all`; the writes are
        journaled already); an object whose zone changes (a new object, 400.7) takes its
        changes one at a time, in batch order."""
        eng = self.eng
        if "zone" not in attrs_written:
            eng.writer.put_all(list(per_object.items()), attrs_written)
            return
        staying, moving = [], []
        for oid, ws in per_object.items():
            (moving if any(w.attr == "zone" for w in ws) else staying).append((oid, ws))
        eng.writer.put_all(staying, attrs_written)
        for _oid, ws in moving:
            eng.store.flag_unset(ws)
            for w in ws:
                self.apply_write(w)

    def apply_write(self, w: Write) -> None:
        """Apply one write to its object (a zone change through `change_zone`)."""
        if w.attr == "zone":
            self.change_zone(self.eng.obj(w.obj), w.value, w.cause)
            return
        self.eng.writer.set(w.obj, w.cause, True, **{w.attr: w.value})  # (journaled with its batch)

    def change_zone(self, o: Permanent, zone: str, cause: Cause) -> None:
        """A real zone change makes a new object (400.7): it forgets its status, counters and effects.

        A zone a version declares may say what an object keeps moving between it and the
        battlefield; `keeps all` makes it the same object throughout.
        """
        declared = self.eng.rulebook.zones.get(zone) or self.eng.rulebook.zones.get(o.zone)
        if declared is not None and "battlefield" in (o.zone, zone) and "all" in declared.keeps:
            self.eng.writer.set(o.id, cause, True, zone=zone)  # (journaled with its batch)
            return
        kept_fields = None
        if declared is not None and "battlefield" in (o.zone, zone):
            kept_fields = {name: getattr(o, name) for name in declared.keeps if name in FIELD_NAMES}
            kept_fields["status"] = tuple((k, v) for k, v in o.status if k in declared.keeps)
        self.new_object(o, zone, cause, kept_fields)

    def new_object(self, o: Permanent, zone: str, cause: Cause, kept_fields: dict | None = None) -> None:
        """Object `o` as a new object in `zone` (400.7), a new incarnation of it: leaving the
        battlefield it loses what it had there and the effects on it; entering, it gets a new
        timestamp. `kept_fields`: what a declared zone says it keeps all the same."""
        store = self.eng.store
        if o.zone == "battlefield":
            changes = dict(zone=zone, tapped=False, counters=(), damage=0, attached_to=None,
                           attacking=False, blocking=False, status=(), controller=o.owner)
            for eid, e in list(self.eng.game.effects.items()):
                if o.id in e.affected:
                    remaining = e.affected - {o.id}
                    if remaining:
                        store.set_effect(eid, attrs.evolve(e, affected=remaining), cause)
                    else:
                        store.remove_effect(eid, cause)
        elif zone == "battlefield":
            stamp = store.tick(cause)
            changes = dict(zone=zone, timestamp=stamp, entered_turn=self.eng.game.turn,
                           controlled_since=self.eng.game.turn, controller=o.owner)
        else:
            changes = dict(zone=zone)
        attached = self.eng.indexes.attached(o.id) if o.zone == "battlefield" else ()
        attached = self.eng.indexes.sort(attached) if attached else ()
        self.eng.writer.put(store.new_incarnation(o, **{**changes, **(kept_fields or {})}), cause)
        if attached:  # (still attached to the object it left as, not to the new one: 400.7)
            gone = earlier_name(o.id, o.incarnation)
            for oid in attached:
                self.eng.writer.set(oid, cause, False, attached_to=gone)
                self.renamed.append(store.entries[-1])
