"""What the game perceives after a batch is applied: objects entering or leaving (as the
game sees them) and attachments made or broken, except the kinds the rules say a change
is not perceived as (`changes of X are not ...`)."""

from __future__ import annotations

from typing import Any, Iterable


from ...dsl import ast
from ...dsl.builtins import PERCEPTIONS
from ..game.writes import Batch, Write
from ..game.refs import Obj
from ..game.trace import SCRIPT, Cause, Event, rule_cause


# What ends an effect lasting until an object leaves the battlefield, as the trace names it.
UNTIL_ENDS = Cause("engine", "610.3", "an 'until' effect ends as its object leaves")
# What returns an object at the end of an `until` effect, as the trace names it.
UNTIL_RETURNS = Cause("engine", "610.3", "return at the end of an 'until' effect")


class Perception:
    """Works out what the game perceives of an applied batch: objects it starts or stops
    seeing enter or leave (even when no zone changed), and attachments it starts or stops
    seeing, unless the rules say the change is not perceived as such."""

    def __init__(self, eng: Any):
        self.eng = eng  # the engine it is part of

    def unperceived(self, changes: list[Write], attrs_written: set[str], batch: Batch) -> bool:
        """True when no object can be perceived to enter, leave, change control or become
        attached or unattached: no zone or attachment is written, no effect starts or ends,
        whether the game sees an object follows its own writes, and every write that can
        change that is one the rules say is none of those (`changes of ... are not ...`)."""
        eng = self.eng
        if batch.ops or not eng.program.sight_follows_writes or "zone" in attrs_written or "attached_to" in attrs_written:
            return False
        return self.none_perceived((w.attr, w.old) for w in changes)

    def unperceived_runs(self, runs: list) -> bool:
        """`unperceived` for the runs of a batch (`store.Bulk`; they write no zone or
        attachment, and come with no operation), whether the game sees an object following
        its own writes."""
        hide_inputs = self.eng.program.hide_inputs
        return self.none_perceived((b.attr, old) for b in runs if b.attr in hide_inputs for old in set(b.olds))

    def none_perceived(self, changes: Iterable[tuple[str, Any]]) -> bool:
        """Whether every change (attribute, the value it replaces) of an attribute a hide
        rule reads is one the rules say is no change the game perceives (`changes of ...
        are not ...`)."""
        hide_inputs, not_perceived_as = self.eng.program.hide_inputs, self.eng.program.clauses.not_perceived_as
        judged = set()
        for attr, old in changes:
            if attr in hide_inputs and (attr, old) not in judged:
                if not not_perceived_as(attr, old).issuperset(PERCEPTIONS):
                    return False
                judged.add((attr, old))
        return True

    def not_perceived_kinds(self, writes: Iterable[Write]) -> frozenset[str]:
        """The perceptions that these changes, by the rules' `changes of ... are not ...`, do not produce."""
        declared, not_perceived_as = self.eng.clause_index.not_perceived, self.eng.program.clauses.not_perceived_as
        kinds: frozenset[str] = frozenset()
        for w in writes:
            if w.attr in declared:
                kinds = kinds | not_perceived_as(w.attr, w.old) if kinds else not_perceived_as(w.attr, w.old)
        return kinds

    def perceive_presence(self, by_object, vis_before, vis_after) -> list[Event]:
        """An object the game stops (or starts) seeing is, unless a rule says otherwise, seen to leave (or enter)."""
        eng = self.eng
        events = []
        for oid, writes in by_object.items():
            if vis_before.get(oid) == vis_after.get(oid):
                continue
            real = any(w.attr == "zone" for w in writes)
            not_as = self.not_perceived_kinds(writes)
            cause = writes[0].cause
            entering = vis_after[oid]
            if "zone-change" not in not_as:
                if entering and not real:
                    # seen as a new object on the battlefield: new timestamp, and new to its controller too
                    eng.writer.set(oid, cause, entered_turn=eng.game.turn, timestamp=eng.store.tick(cause),
                                   controlled_since=eng.game.turn)
                events.append(eng.record("enters" if entering else "leaves", oid,
                                          ("enters the battlefield" if entering else "leaves the battlefield")
                                          + ("" if real else " (as the game sees it)"), cause))
            if entering and "control-change" not in not_as and not real:
                eng.writer.set(oid, cause, controlled_since=eng.game.turn)
        return events

    def attachment_neighbours(self, oids: set[str]) -> set[str]:
        """What the objects `oids` are attached to, and what is attached to them."""
        eng = self.eng
        out = set()
        for oid in oids:
            o = eng.game.objects.get(oid)
            if o is not None and o.attached_to in eng.game.objects:
                out.add(o.attached_to)
            out |= eng.indexes.attached(oid)
        return out

    def edges(self, oids: set[str], seen: dict[str, bool]) -> set[tuple[str, str]]:
        """(attachment, host) for each of `oids` attached to something the game sees, both
        seen; `seen` says for the objects it holds whether the game sees them."""
        eng = self.eng
        out = set()
        objects = eng.game.objects
        for oid in oids:
            o = objects.get(oid)
            if o is None or o.attached_to is None or not seen.get(oid, False):
                continue
            host = o.attached_to
            if (host in objects and (seen[host] if host in seen else eng.visible(host))) or eng.player_in_game(host):
                out.add((oid, host))
        return out

    def perceive_attachments(self, by_object, before, after) -> list[Event]:
        """An attachment the game starts (or stops) seeing is seen to be made (or broken),
        unless a rule says the change is not perceived as one: the events."""
        events = []
        for kind, edges in (("attached", after - before), ("unattached", before - after)):
            for a, host in sorted(edges):
                writes = by_object.get(a, []) + by_object.get(host, [])
                real = any(w.attr == "attached_to" for w in writes)
                if not real and "attachment-change" in self.not_perceived_kinds(writes):
                    continue
                cause = writes[0].cause if writes else SCRIPT
                events.append(self.eng.record(kind, a, f"{'becomes attached to' if kind == 'attached' else 'becomes unattached from'} {host}"
                                          + ("" if real else " (as the game sees it)"), cause, host=host))
        return events

    def on_presence_event(self, event: Event) -> None:
        """What waits on an object leaving: the continuous effects lasting until it leaves,
        which end (610.3), a return at the end of an `until` effect (610.3), and the `after`
        clauses that wait on it leaving."""
        if event.kind != "leaves":
            return
        if self.eng.game.effects:
            gone = event.subject
            self.eng.continuous.end_effects(lambda e: e.until_leaves == gone, UNTIL_ENDS)
        for w in [w for w in self.eng.game.watchers if w.watched == event.subject]:
            self.eng.store.remove_from("watchers", w, UNTIL_RETURNS)
            if self.eng.obj(w.obj).zone != "battlefield":
                batch = Batch([Write(w.obj, "zone", w.zone_back, UNTIL_RETURNS)])
                self.eng.committer.commit(batch)
        for rule, after in self.eng.clause_index.afters:
            if isinstance(after.event, ast.LeavesEvent):
                self.eng.run(after.body, {after.event.var: Obj(event.subject, True)}, rule_cause(self.eng.program, rule, after))
