"""What static abilities gave objects at a position of a game's journal, worked out from the
journal when first asked.

Last known information (`characteristics.LastKnownGroup`) keeps, for each object the game is
about to stop seeing, what static abilities give it then, and is mostly never read: on a
large board one step can take thousands of objects out of the game's sight, and working out
what each was given costs more than everything else the information keeps. Where every source of static
abilities in the game is read off itself (its card's abilities are all
`direct_statics.DirectGift`s, anchored on a stored attribute such as `attached_to`) and
every hide rule reads a stored status
(`Hiding.stored_hide_tests`), what a source gave an object at a journal position depends only
on the source and the object as they were then, which the journal gives back
(`Store.read_back`): `GivenAt` keeps the position and works the gifts out from the objects
read back, the first time someone asks. `Statics.given_later` makes one where that holds;
elsewhere `Statics.given` works them out at once. Both give the same
(tests/test_given_at.py).
"""

from __future__ import annotations

from typing import Any

from .direct_statics import Contribution, DirectGift, anchor, looks_in
from .hiding import hidden_by_status
from ..game.store import Recorded


class GivenAt:
    """What the static abilities of `direct` (card -> its `DirectGift`s, each anchored on an
    attribute of `anchors`) gave each of the objects `oids` at position `mark` of `store`'s
    journal, counting only sources the game saw then (hide `tests`, as
    `Hiding.stored_hide_tests` gives them): id -> contributions in the sources' game order
    (`indexes.order`), for those given something; `get` as a dict's. Worked out when first
    asked, from the objects as the journal gives them back."""

    __slots__ = ("store", "mark", "oids", "direct", "anchors", "tests", "indexes", "_found")

    def __init__(self, store: Any, mark: int, oids: list[str], direct: dict[str, tuple[DirectGift, ...] | None],
                 anchors: frozenset[str], tests: tuple[tuple[str, Any, Any], ...], indexes: Any):
        self.store, self.mark, self.oids = store, mark, oids  # (`oids`: the record's own list, not copied)
        self.direct, self.anchors, self.tests, self.indexes = direct, anchors, tests, indexes
        self._found: dict[str, list[Contribution]] | None = None

    def get(self, oid: str, default: Any = None) -> Any:
        found = self._found
        if found is None:
            found = self._found = self.work_out()
        return found.get(oid, default)

    def work_out(self) -> dict[str, list[Contribution]]:
        """The sources that may have named one of the objects at the position (those whose
        anchor names it now, and those whose anchor the journal changed since), read back
        with the objects as they were then; each source the game then saw on the
        battlefield gives what its gifts give the object its anchor names, where the gift's
        selection looks in that object's zone."""
        store, mark, indexes, anchors = self.store, self.mark, self.indexes, self.anchors
        targets = dict.fromkeys(self.oids)
        candidates: set[str] = set()
        for attr in anchors:
            for oid in targets:
                candidates.update(indexes.lookup(attr, oid) or ())
        candidates |= store.objects_changed_since(mark, anchors)
        records = {oid: Recorded(store, oid, mark) for oid in candidates.union(targets)}
        store.read_back(records.values())
        then = {oid: r.object() for oid, r in records.items()}  # (None: not in the game then)
        players, direct, tests = store.game.players, self.direct, self.tests
        per_target: dict[str, dict[str, list[Contribution]]] = {}
        for src in candidates:
            s = then[src]
            if s is None or s.zone != "battlefield" or hidden_by_status(s, tests):
                continue  # (a source elsewhere, or one the game did not see, gave nothing that counted)
            for gift in direct.get(s.card) or ():
                raw = anchor(gift, s)
                if raw in targets and raw not in players and gift.gives and looks_in(gift, then[raw]):
                    per_target.setdefault(raw, {}).setdefault(src, []).extend(gift.gives)
        order = indexes.ready().order
        return {oid: [c for src in sorted(per_source, key=order.__getitem__) for c in per_source[src]]
                for oid, per_source in per_target.items()}
