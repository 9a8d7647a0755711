"""Writing objects into the game through its store (`interpreter.game.store`): objects are changed
in place, or replaced by a new object (a zone change), and the caches, static abilities and
last known information are kept right (the store itself keeps the game's indexes right)."""

from __future__ import annotations

from typing import Any, Collection, Iterable

from ..game.characteristics import LastKnownGroup
from .hiding import hidden_by_status, hidden_by_status_all
from ..game.model import Permanent
from ...dsl.diagnostics import Diagnostic, DiagnosticError, Span
from ..game.calls import checked, describe
from ..game.store import ABSENT, Mark
from .write_bits import ANY, CHECKED, HIDES, REACHES, bits_of


class ObjectWriter:
    """Changes objects of the game in place (one at a time, or a batch's worth at once), or puts
    new objects in place of old ones, keeping the view's caches of characteristics and sight,
    the state checks' record of changed objects and the static abilities right (the store
    keeps the indexes); and keeps last known information of objects the game may stop seeing."""

    def __init__(self, view: Any):
        self.view = view  # the game view it reads and writes through

    def put(self, new: Permanent, cause: Any) -> None:
        """Put an object into the game, new or in place of the one with its id (a new
        incarnation of it), keeping caches right (the store keeps the indexes)."""
        self.view.statics.before_changes([new.id], ANY)
        old = self.view.store.put_object(new, cause)
        if self.view.statics.cards:
            self.view.statics.touched(new.id, old, new, ANY)
        self.view.invalidate([new.id])

    def set(self, oid: str, cause: Any, journaled: bool = False, **values: Any) -> None:
        """Set some attributes or statuses of an object in place, keeping caches right (the
        store keeps the indexes); `journaled`: the journal holds these writes already (a
        batch's), so they are not journaled again."""
        store = self.view.store
        o = self.view.game.objects[oid]
        self.view.statics.before_changes([oid], ANY)
        before = o.copy() if "card" in values else o  # (what static abilities compare: its card)
        for attr, value in values.items():
            if journaled:
                store.apply_journaled(oid, attr, value)
            else:
                store.write(oid, attr, value, cause)
        if self.view.statics.cards:
            self.view.statics.touched(oid, before, o, ANY)
        self.view.invalidate([oid])

    def put_all(self, changes: list[tuple[str, list]], attrs_written: set[str] | None = None) -> None:
        """Apply a batch's writes: (id, its writes in order) per object, each write a record
        with `attr`, `old`, `value` and `cause`, none of them a zone, no object new to the game;
        `attrs_written`: every attribute they write, if known. Each object is changed in place
        (the writes are journaled already, `Store.journal_writes`; the store moves the objects
        in the indexes as it writes them), and caches are kept right."""
        view = self.view
        objects, indexes, program, statics = view.game.objects, view.indexes, view.program, view.statics
        write_object = view.store.write_object
        bits, work_out = view._write_bits, self.write_bits
        if statics.unworked:  # (sources not worked out yet that the writes may concern: as the game is before them)
            together = ANY if attrs_written is None else 0
            for attr in attrs_written or ():
                together |= bits.get(attr) or work_out(attr)
            statics.before_changes([oid for oid, _ws in changes], together)
        # what static abilities compare, before and after: its card (the object itself, unless that is written)
        card_written = attrs_written is None or "card" in attrs_written
        # With hide rules and static abilities that look only at their own object, a change of
        # one object needs nothing else forgotten: each object is written and its caches put
        # right in one pass; what needs the indexes as the writes leave them waits for the
        # moves: static abilities, what is attached to an object when a write moves
        # attachments, whether a hide rule that is not a stored test hides it. Otherwise
        # (`local_effects` false) every change makes the view forget everything.
        local = program.local_effects
        cards = statics.cards
        # when the hide rules read only what objects store, whether each is hidden now is read here
        stored_tests = view.hiding.stored_hide_tests() if program.sight_follows_writes else None
        sight_follows = program.sight_follows_writes
        dirty, hidden, chars_pop = view.dirty, view._hidden, view._chars.pop
        attachments_kept = (dirty is not None and indexes.by is not None and attrs_written is not None
                            and "attached_to" not in attrs_written)
        attached = indexes.attachments() if attachments_kept else None
        touched: list[tuple] = []  # (id, old, new, mask) of what static abilities look at again
        hosts: list[str] = []  # what a state check may look at again with what is attached to it
        hide_later: list[str] = []
        for oid, ws in changes:
            o = objects[oid]
            old = o if not card_written or all(w.attr != "card" for w in ws) else o.copy()
            write_object(o, ws)
            mask = 0  # what the object's writes can change, read while they are at hand (`write_bits`)
            for w in ws:
                mask |= bits.get(w.attr) or work_out(w.attr)
            if not local:
                touched.append((oid, old, o, mask))
                continue
            if cards and (mask & REACHES or old.card in cards or o.card in cards):
                touched.append((oid, old, o, mask))  # (it does nothing for any other change)
            if mask & CHECKED and dirty is not None:
                dirty.add(oid)  # a state check may now find something else: about it, or what is attached to it
                if attached is None:
                    hosts.append(oid)
                elif oid in attached:
                    dirty |= attached[oid]
            if mask & HIDES:  # hidden or not now
                if stored_tests is not None:
                    hidden[oid] = hidden_by_status(o, stored_tests)
                elif sight_follows:
                    hide_later.append(oid)
                else:
                    hidden.pop(oid, None)
            chars_pop(oid, None)
        self._after_moves(touched, hosts, local, hide_later)

    def _after_moves(self, touched: list[tuple], hosts: list[str], local: bool, hide_later: Iterable[str]) -> None:
        """What a batch's writes need once the indexes are moved: static abilities look again
        at what they touched ((id, old, new, mask) each), state checks at what is attached to
        the `hosts` (changed objects, their attachments unknown before), and the hide rules
        at `hide_later`."""
        view = self.view
        statics, dirty = view.statics, view.dirty
        if local:
            statics.touched_all(touched)
        else:
            for oid, old, o, mask in touched:
                statics.touched(oid, old, o, mask)
                view.invalidate([oid])
        if hosts:
            attached = view.indexes.attachments()
            for oid in hosts:
                if oid in attached:
                    dirty |= attached[oid]
        if hide_later:
            objects, hidden, hidden_by_rules = view.game.objects, view._hidden, view.hiding.hidden_by_rules
            for oid in hide_later:
                hidden[oid] = hidden_by_rules(oid, objects[oid])

    def put_runs(self, runs: list, touched: dict[str, None]) -> None:
        """`put_all` for the journaled runs of a batch (`store.Bulk` entries, at most one
        write per object and attribute, none to a zone, a card or an attachment; hide rules
        and static abilities that look only at their own object): each run is applied in
        place (`Store.apply_bulk`, which moves them in the indexes as a whole), and the
        caches put right run by run, as `put_all` puts them right object by object: `touched`
        holds every object written, in the order of its first write."""
        view = self.view
        statics, store, indexes, defaults = view.statics, view.store, view.indexes, view.defaults
        bits, work_out = view._write_bits, self.write_bits
        masks_of = [bits.get(b.attr) or work_out(b.attr) for b in runs]  # what each run's writes can change
        together = 0
        for mask in masks_of:
            together |= mask
        if statics.unworked:  # (sources not worked out yet that the runs may concern: as the game is before them)
            statics.before_changes(touched, together)
        for b in runs:
            store.apply_bulk(b, defaults.get(b.attr, ABSENT))
        dirty = view.dirty
        hosts: list[str] = []  # what a state check may look at again with what is attached to it
        # (what is read afresh already, as `contributions_changed` would read it: every object
        # written has its characteristics forgotten below; with state checks to mark, those of
        # the runs they read, marked with what is attached to them)
        marked: set[str] = set()
        sight_changed = together & HIDES  # (only then are sources' targets read afresh: `touched_runs`)
        if dirty is not None and together & CHECKED:
            attached = indexes.attachments() if indexes.by is not None else None
            for b, mask in zip(runs, masks_of):
                if mask & CHECKED:
                    dirty.update(b.objs)
                    if sight_changed:
                        marked.update(b.objs)
                    if attached is None:
                        hosts += b.objs
                    else:
                        for host in attached.keys() & b.objs:
                            dirty |= attached[host]
        hide_later: list[str] = []
        if sight_changed:
            self._hidden_again([b for b, mask in zip(runs, masks_of) if mask & HIDES], hide_later)
        chars = view._chars
        for oid in chars.keys() & touched.keys():
            del chars[oid]
        # (the indexes moved, as `_after_moves` has them; what was read afresh is left out
        # where hide rules read only each object's own statuses, `sight_follows_writes`:
        # elsewhere reading an object afresh also forgets whether it is hidden)
        afresh: Collection[str] = touched.keys() if dirty is None else marked
        statics.touched_runs(runs, masks_of, afresh if view.program.sight_follows_writes else ())
        self._after_moves([], hosts, True, hide_later)

    def _hidden_again(self, runs: list, hide_later: list[str]) -> None:
        """Whether a hide rule hides each object of `runs` (runs of what hide rules read),
        read off the objects where every hide test reads a status; else added to
        `hide_later`, for the rules to say once the indexes are moved."""
        view = self.view
        objects, hidden = view.game.objects, view._hidden
        tests = view.hiding.stored_hide_tests()
        if tests is None:
            hide_later += dict.fromkeys(oid for b in runs for oid in b.objs)
            return
        for b in runs:
            if len(tests) == 1 and b.attr == tests[0][0] and b.values is None:
                # (the one hide test reads the status the run wrote: each of its objects holds
                # the run's value now, no other run writing it; hidden where that value hides,
                # if on the battlefield)
                if b.value == tests[0][2]:
                    hidden.update(zip(b.objs, [o.zone == "battlefield" for o in b.objects_in(objects)]))
                else:
                    hidden.update(dict.fromkeys(b.objs, False))
                continue
            hidden.update(zip(b.objs, hidden_by_status_all(b.objects_in(objects), tests)))

    def write_bits(self, attr: str) -> int:
        """What a write to `attr` can change (`interpreter.engine.write_bits`), worked out once per attribute."""
        bits = self.view._write_bits[attr] = bits_of(attr, self.view.program)
        return bits

    def contributions_changed(self, oids: Iterable[str]) -> None:
        """Static abilities now give these objects something else: read them afresh, check them
        again. Whether the game sees them changes too, unless no hide rule reads anything a
        static ability gives (`sight_follows_writes`)."""
        view = self.view
        chars, hidden, dirty = view._chars, view._hidden, view.dirty
        attached = view.indexes.attachments() if dirty is not None else {}
        sight_kept = view.program.sight_follows_writes
        for oid in oids:
            chars.pop(oid, None)
            if not sight_kept:
                hidden.pop(oid, None)
            if dirty is not None:
                dirty.add(oid)
                if oid in attached:
                    dirty |= attached[oid]

    def remember(self, oids: Iterable[str], cause: Any) -> None:
        """Keep last known information (`game.lki`) of objects the game sees now: each object
        as it is (a position in the journal, from which it is read back if asked: it changes
        in place), with what effects and static abilities give it,
        its characteristics worked out if someone asks."""
        view = self.view
        oids = list(oids)
        if not oids:
            return
        statics, store = view.statics, view.store
        # (what static abilities give each now, those given something: worked out from the
        # journal when someone asks, where it can be; else now)
        given = statics.given_later(oids)
        if given is None:
            given = statics.given(oids)
        # (each object is read back from the position its information takes, from the first on)
        store.remember_all(oids, LastKnownGroup(store, oids, store.position(), view.effects_in_order(), given, view.defaults),
                           cause)

    @checked(name="undo")  # (docs/api.md, "Undo and the journal": a call it does not take is a DiagnosticError)
    def undo(self, mark: Mark) -> None:
        """Set the game back to `mark`, a mark `store.mark()` gave between actions (`Store.undo`,
        which then has this writer forget what was worked out from the game as it was:
        `restored`). Anything else (a position worked out from a mark, inside an action, say)
        is a `DiagnosticError`, the value shown through `describe` (issue 43: an int of more
        digits than Python writes out raised ValueError as it was shown with repr)."""
        if not isinstance(mark, Mark):
            raise DiagnosticError(Diagnostic(
                "error", f"undo(): {describe(mark)} is not a mark: give one store.mark() gave", Span("undo()", 0, 0, 0, 0),
                "take one with play.engine.store.mark() before the changes to undo (a position worked out "
                "from a mark may be inside an action, where no game stops)"))
        self.view.store.undo(mark)

    @checked(name="restored")  # (as `undo`)
    def restored(self) -> None:
        """The game was set back (`Store.undo`, which calls this for every engine on the game:
        `Store.watched_by`): forget everything worked out from it (characteristics, sight,
        static abilities, what state checks look at again; the store has kept the indexes
        right as it undid each change)."""
        self.view.invalidate()
