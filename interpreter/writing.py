"""Writing objects into the game: each change of an object replaces it (objects are
frozen), and the indexes, caches, static abilities and last known information are kept right."""

from __future__ import annotations

from typing import Any, Iterable

from interpreter.characteristics import LastKnown
from interpreter.hiding import hidden_by_status
from interpreter.model import Permanent
from interpreter.write_bits import ANY, CHECKED, HIDES, REACHES, bits_of


class ObjectWriter:
    """Puts new objects into the game in place of old ones (one at a time, or a batch's worth at
    once), keeping the view's indexes, its caches of characteristics and sight, the state
    checks' record of changed objects and the static abilities right; and keeps last known
    information of objects the game may stop seeing."""

    def __init__(self, view: Any):
        self.view = view  # the game view it reads and writes through

    def put(self, oid: str, new: Permanent) -> None:
        """Replace an object (objects are frozen), whatever changed in it, keeping indexes and
        caches right."""
        objects = self.view.game.objects
        old = objects.get(oid)
        objects[oid] = new
        self.view.indexes.replace(old, new)
        if self.view.statics.cards:
            self.view.statics.touched(oid, old, new, ANY)
        self.view.invalidate([oid])

    def put_all(self, changes: list[tuple[str, list]]) -> None:
        """Apply a batch's writes: (id, its writes in order) per object, each write a record
        with `attr`, `old` and `value`, none of them a zone, no object new to the game. Each
        object becomes one new object with its writes stored, and indexes and caches are kept
        right."""
        view = self.view
        objects, indexes, program, statics = view.game.objects, view.indexes, view.program, view.statics
        statuses = view.rb.statuses
        old_ones, masks = [], []
        bits, work_out = view._write_bits, self.write_bits
        for oid, ws in changes:
            old = objects[oid]
            old_ones.append(old)
            objects[oid] = old.written(ws, statuses)
            mask = 0  # what the object's writes can change, read while they are at hand (`write_bits`)
            for w in ws:
                mask |= bits.get(w.attr) or work_out(w.attr)
            masks.append(mask)
        indexes.move_all(changes)  # every object's, before static abilities read the indexes
        if not program.local_effects:
            for (oid, _ws), old, mask in zip(changes, old_ones, masks):
                statics.touched(oid, old, objects[oid], mask)
                view.invalidate([oid])
            return
        cards, hidden_by_rules = statics.cards, view.hiding.hidden_by_rules
        # when the hide rules read only what objects store, whether each is hidden now is read here
        stored_tests = view.hiding.stored_hide_tests() if program.sight_follows_writes else None
        dirty, hidden, chars, attached = view.dirty, view._hidden, view._chars, indexes.attachments()
        for (oid, _ws), old, mask in zip(changes, old_ones, masks):
            if cards and (mask & REACHES or old.card in cards or objects[oid].card in cards):
                statics.touched(oid, old, objects[oid], mask)  # (it does nothing for any other change)
            # One object changed what it stores; hide rules and static abilities look only at
            # their own object, so nothing else needs forgetting.
            if mask & CHECKED and dirty is not None:
                dirty.add(oid)  # a state check may now find something else: about it, or what is attached to it
                if oid in attached:
                    dirty |= attached[oid]
            if mask & HIDES:  # hidden or not now
                if stored_tests is not None:
                    hidden[oid] = hidden_by_status(objects[oid], stored_tests)
                elif program.sight_follows_writes:
                    hidden[oid] = hidden_by_rules(oid, objects[oid])
                else:
                    hidden.pop(oid, None)
            chars.pop(oid, None)

    def write_bits(self, attr: str) -> int:
        """What a write to `attr` can change (`interpreter.write_bits`), worked out once per attribute."""
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

    def remember(self, oids: Iterable[str]) -> None:
        """Keep last known information (`game.lki`) of objects the game sees now: each object
        as it is, with what effects and static abilities give it, its characteristics worked
        out if someone asks."""
        view = self.view
        lki, objects, effects = view.game.lki, view.game.objects, view.effects_in_order()
        given, defaults = view.statics.of, view.defaults
        for oid in oids:
            lki[oid] = LastKnown(objects[oid], effects, given(oid), defaults)
