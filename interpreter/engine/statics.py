"""What static abilities give other objects, kept up to date one source at a time.

A static ability (a card's `static:` entry) gives objects +N/+N or keywords while its source
is on the battlefield and seen. Working every source out again after each change would cost
as much as the board is big, so contributions are kept per source, and a change marks stale
only the sources it can affect:

- the object that changed, if it is a source and what its abilities read of it (or its
  controller, or its zone) changed;
- for an *anchored* ability, `each x where this.A is x ...` reading nothing but `this`, `x`
  and `you`: the sources whose A names the object that changed (only that object can be
  reached, and only its own attributes decide whether it is);
- for any other ability: all its sources, when an attribute some static ability reads
  changed or an object appeared.

What a source gives is kept whether the game sees the source or not; `of()` leaves out, as
it is read, what the sources the game doesn't see give. So a source the game stops or starts seeing is
not worked out again: the objects it gives something to are only read afresh.

`refresh()` works the stale sources out again and reports the objects whose contributions
changed, so that their characteristics are read afresh and state checks look at them again.
A source whose abilities all give fixed things to the one object it names (an Aura's or an
Equipment's `each x where this.attached_to is x: x gets +1/+1`) is worked out by reading
that attribute off it (`interpreter.engine.direct_statics`), not by evaluating the abilities.

A new engine's first look at a large board (`first_look`) leaves those sources, tens of
thousands of them, unworked: it counts against the step's budget what working them out
would count, and marks each object one names `UNWORKED` in `merged` (found through the
anchor's index). Reading such an object works its sources out (`work_out`); just before a
batch changes what an unworked source reaches or is, the sources it concerns are worked
out as the game is before it (`before_changes`), so that every comparison afterwards is
the one it would have been had every source been worked out at once; last known
information reads what they give without keeping it (`given`), or, where every source on
the board is read off itself and every hide rule reads a stored status, keeps only the
journal position and works it out from the objects read back when someone asks
(`given_later`, `interpreter.engine.given_at`). Nothing of that changes an
outcome, a budget or what a state check looks at again (tests/test_deferred_statics.py).
Sources are worked out in the game's order, so that what a refresh counts against the
step's budget, and the card named when it runs out, never depend on how strings hash.
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Collection, Iterable, Protocol, Sequence

from ...dsl import ast
from .direct_statics import anchor, direct_gifts, gifts_of, give, looks_in
from ..game.errors import RulesError
from .given_at import GivenAt
from ..game.refs import Obj, PlayerRef
from .write_bits import HIDES, REACHES, SOURCES

ZONE = attrgetter("zone")

if TYPE_CHECKING:
    from ..program.indexes import Indexes
    from ..game.model import Game, Permanent
    from ..program.program import Program
    from ..rulebook.loading import Rulebook


class StaticsHost(Protocol):
    """What static abilities need from the game view that owns them (`interpreter.engine.view.GameView`
    is one): the game, its indexes, rulebook and program, sight and control, and a way to say that the
    contributions to some objects changed (its `writer`). Written as a protocol so that this module does not
    import the view that imports it."""

    game: "Game"
    indexes: "Indexes"
    rulebook: "Rulebook"
    program: "Program"
    dirty: set[str] | None  # the objects the next state checks look at again (None: every object)
    dirty_scope: set[str] | None
    store: Any  # the game's store, whose journal last known information is read back from
    hiding: Any  # the hide rules (`interpreter.engine.hiding.Hiding`)

    def visible(self, oid: str) -> bool: ...

    def controller(self, oid: str) -> str: ...

    def collect_static(self, stmt: ast.Node, env: dict, out: dict) -> None: ...

    writer: "ContributionsListener"


class ContributionsListener(Protocol):
    """What is told that static abilities now give some objects something else
    (`interpreter.engine.writing.ObjectWriter` is one)."""

    def contributions_changed(self, oids: Iterable[str]) -> None: ...


Contribution = tuple[str, Any]  # ("pump", (p, t)) or ("grant", keyword)


def in_source_order(per_source: dict[str, list[Contribution]], order: dict[str, int]) -> list[tuple[str, Contribution]]:
    """What the sources of one object give it, (source, contribution) source by source in the
    game's order (`order`: id -> place), each source's in the order it gives them."""
    if len(per_source) == 1:  # (one source: no order to put them in)
        ((src, cs),) = per_source.items()
        return [(src, cs[0])] if len(cs) == 1 else [(src, c) for c in cs]
    return [(src, c) for src in sorted(per_source, key=order.__getitem__) for c in per_source[src]]


class _Unworked:
    """What `Statics.merged` holds for an object that anchored sources not worked out yet may
    give something (`Statics.first_look`): reading the object works them out (`work_out`).
    True as a test, as a list of what is given is: "something may be given"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNWORKED"


UNWORKED: Any = _Unworked()


class Statics:
    # Whether a first look leaves anchored sources to work out when what they name is read
    # (`defer`); off, it works every source out at once (tests compare the two).
    defers = True

    def __init__(self, view: StaticsHost):
        self.view = view
        program = view.program
        self.cards = program.static_cards
        anchors = program.static_anchors
        # attribute A -> cards whose every static ability is anchored on `this.A`
        self.anchored: dict[str, frozenset[str]] = {}
        self.unanchored: frozenset[str] = frozenset(n for n, a in anchors.items() if len(a) != 1 or None in a)
        for name, found in anchors.items():
            if name not in self.unanchored:
                (attr,) = found
                self.anchored[attr] = self.anchored.get(attr, frozenset()) | {name}
        self.by_source: dict[str, list[tuple[str, Contribution]]] = {}
        self.reached: dict[str, tuple[str, ...]] = {}  # source -> the targets in by_source[source], once each
        self.by_target: dict[str, dict[str, list[Contribution]]] = defaultdict(dict)
        self.merged: dict[str, list[tuple[str, Contribution]]] = {}  # target -> (source, contribution), in source order
        self.stale: set[str] | None = None  # None: every source
        # Anchored sources a first look left to work out when what they name is read
        # (`first_look`, `work_out`), and the objects they name, each `UNWORKED` in `merged`.
        # An anchor read off the source as stored (`attached_to`, or a status whose default
        # names nothing), so that the anchor's index finds every source naming an object.
        self.unworked: set[str] = set()
        self.unread: set[str] = set()
        self.deferred: dict[str, frozenset[str]] = {
            attr: cards for attr, cards in self.anchored.items()
            if attr == "attached_to" or (attr in view.defaults and view.defaults[attr] is None)}
        # card -> its static abilities worked out in advance, when every one gives fixed
        # things to the one object its source names (`interpreter.engine.direct_statics`); else None
        defaults, references = view.defaults, view.reference_statuses
        cards = program.book.cards
        self.direct = {name: direct_gifts(cards[name], defaults, references) for name in self.cards}
        # card -> what its direct gifts give an object on the battlefield, in order (`given`)
        self.gives_on_battlefield = {name: tuple(c for gift in gifts for c in gift.gives)
                                     for name, gifts in self.direct.items() if gifts is not None}
        # the cards whose abilities are not all read off their source and found through its
        # anchor's index (direct, anchored on an attribute of `deferred`): while no object of
        # one is in the game, what static abilities gave an object can be worked out from
        # the journal (`given_later`)
        self.not_read_off = frozenset(name for name in self.cards if self.direct[name] is None
                                      or not any(name in cards for cards in self.deferred.values()))

    # ---------------------------------------------------------------- marking stale

    def forget(self) -> None:
        """Anything may have changed (effects, players): work every source out again."""
        self.stale = None

    def touched(self, oid: str, old: "Permanent | None", new: "Permanent", bits: int) -> None:
        """Object `oid` was replaced; `bits`: what its writes can change (`interpreter.engine.write_bits`;
        ANY when anything may have changed)."""
        self.touched_all([(oid, old, new, bits)])

    def touched_all(self, changed: list[tuple]) -> None:
        """`touched` for each of many objects ((id, old, new, bits) each), what the static
        abilities of those that stop or start being seen give read afresh once for all."""
        if self.stale is None or not self.cards:
            return
        cards, reached, stale, unworked = self.cards, self.reached, self.stale, self.unworked
        seen_again: list[str] = []  # what a source gives, whose sight changed
        for oid, old, new, bits in changed:
            reach_changed = bits & REACHES
            if new.card in cards or (old is not None and old.card in cards):
                if old is None or reach_changed or bits & SOURCES:
                    stale.add(oid)  # what it reaches, or who "you" is, may have changed
                    unworked.discard(oid)  # (worked out before the change: `before_changes`)
                if bits & HIDES:
                    # seen or not, it gives the same; whether what it gives counts is read with it
                    if oid in reached:
                        seen_again += reached[oid]
                    elif oid in unworked:  # (what it reaches: the same as before the batch, which changed nothing it reads)
                        seen_again += self.reach_now((oid,))
            if reach_changed or old is None:  # (else nothing any ability reads of `oid` changed)
                self.reach_changed(oid)
        if seen_again:
            self.view.writer.contributions_changed(seen_again)

    def touched_runs(self, runs: list, masks: list[int], afresh: Collection[str] = ()) -> None:
        """`touched_all` for the runs of a batch (`store.Bulk` entries, none writing a card),
        each with what its writes can change (`masks`, in step): run by run rather than object
        by object, since each thing it does (a source to work out again, a target to read
        afresh) is the same done once or twice, in any order. `afresh`: objects the batch
        has read afresh already (`ObjectWriter.put_runs`), which the sources whose sight
        changed are not looked at for (most go along with what they name, on a board of
        Auras and Equipment)."""
        if self.stale is None or not self.cards:
            return
        objects, reached, unworked = self.view.game.objects, self.reached, self.unworked
        seen_again: list[str] = []  # what a source gives, whose sight changed
        for b, mask in zip(runs, masks):
            if mask & HIDES:  # (the sources among the run's objects, found at once)
                for oid in reached.keys() & b.objs:
                    seen_again += reached[oid]
                if unworked:
                    seen_again += self.reach_now(unworked.intersection(b.objs), afresh)
            if mask & (REACHES | SOURCES):  # (what a source reaches or whose it is: object by object)
                self.touched_all([(oid, objects[oid], objects[oid], mask & ~HIDES) for oid in b.objs])
        if afresh and seen_again:
            seen_again = [oid for oid in seen_again if oid not in afresh]
        if seen_again:
            self.view.writer.contributions_changed(seen_again)

    def before_changes(self, oids: Iterable[str], bits: int) -> None:
        """Objects `oids` are about to be written (`bits`: what the writes can change, all of
        them together): where that can change what a source reaches or is (`REACHES`,
        `SOURCES`), the unworked sources it concerns (those among `oids`, and those naming
        an unread object among them) are worked out now, as the game is before the change,
        counting nothing (`adopt`), so that what follows compares what they give after the
        change with what they gave before, as for every source worked out already."""
        if self.unworked and bits & (REACHES | SOURCES):
            self.adopt(self.concerned(oids))

    def concerned(self, oids: Iterable[str]) -> set[str]:
        """The unworked sources among `oids`, and those that name an unread object among them."""
        oids = set(oids)
        return (self.unworked & oids) | self.naming(self.unread & oids)

    def naming(self, targets: Iterable[str]) -> set[str]:
        """The unworked sources whose anchor names one of `targets` (found through the
        anchor's index)."""
        view = self.view
        lookup, objects, unworked = view.indexes.lookup, view.game.objects, self.unworked
        found = set()
        for attr, cards in self.deferred.items():
            for target in targets:
                for src in lookup(attr, target) or ():
                    if src in unworked and objects[src].card in cards:
                        found.add(src)
        return found

    def adopt(self, sources: set[str]) -> None:
        """Work unworked `sources` out and keep them, counting nothing (the first look counted
        them); what they give the objects they name, which are unread, is merged when those
        are read (any other is merged now)."""
        if not sources:
            return
        found = self.uncounted(self.in_game_order(sources))
        self.unworked -= sources
        order, by_target, unread = self.view.indexes.order, self.by_target, self.unread
        for src, now, one, given in found:
            if now:
                for target in self.keep(src, now, one, given):
                    if target not in unread:
                        self.merged[target] = in_source_order(by_target[target], order)

    def reach_now(self, sources: Iterable[str], but: Collection[str] = ()) -> list[str]:
        """The objects unworked `sources` give something to now (what `reached` would hold
        for them), as `direct_statics.reach` finds them, counting nothing; none of `but`,
        whatever its anchor names of them is not looked at further."""
        objects, players, direct = self.view.game.objects, self.view.game.players, self.direct
        found: list[str] = []
        for src in sources:
            o = objects[src]
            if o.zone != "battlefield":
                continue  # (a source elsewhere gives nothing: `compute`)
            for gift in direct[o.card]:
                # (`named_object`, written out: the anchor is compared with `but` first)
                raw = anchor(gift, o) if gift.gives else None
                if (raw not in but and isinstance(raw, str) and raw not in players and raw in objects
                        and looks_in(gift, objects[raw])):
                    found.append(raw)
        return found

    def reach_changed(self, oid: str) -> None:
        """What a static ability reads of object `oid` changed: the sources that may reach it
        (or may no longer) are worked out again."""
        indexes = self.view.indexes
        objects = self.view.game.objects
        for attr, cards in self.anchored.items():
            for src in indexes.lookup(attr, oid) or ():
                if objects[src].card in cards:
                    self.stale.add(src)
        if self.unanchored:
            for name in self.unanchored:
                self.stale |= indexes.lookup("card", name)

    # ---------------------------------------------------------------- reading

    @property
    def pending(self) -> bool:
        """Are some sources (or all of them) to be worked out again?"""
        return self.stale is None or bool(self.stale)

    def of(self, oid: str) -> Sequence[Contribution]:
        """What static abilities give `oid` now: those of the sources the game sees (a new
        list, or the empty tuple when nothing gives it anything)."""
        if self.stale is None or self.stale:  # (pending, written out: this is read very often)
            self.refresh()
        given = self.merged.get(oid)
        if not given:
            return ()
        if given is UNWORKED:  # (anchored sources name it that no one has worked out yet)
            given = self.work_out(oid)
            if not given:
                return ()
        visible = self.view.visible
        if len(given) == 1:  # (the commonest: one source; no comprehension to set up)
            src, c = given[0]
            return [c] if visible(src) else []
        return [c for src, c in given if visible(src)]

    def reaching(self) -> set[str]:
        """Every object some static ability gives something to now, or may once its source is
        worked out (`UNWORKED`), the game seeing the source or not: a superset of the objects
        static abilities grant a keyword to."""
        if self.stale is None or self.stale:
            self.refresh()
        return set(self.merged)

    def refresh(self) -> set[str]:
        """Work the stale sources out again; the objects whose contributions changed."""
        sources = self.every_source() if self.stale is None else self.stale
        self.stale = set()
        if not sources:
            return set()
        if not self.by_source and not self.unread:  # (nothing worked out yet, or nothing given: `by_target` and `merged` empty too)
            return self.first_look(sources)
        return self.look_again(self.in_game_order(sources))

    def gave_unread(self, found: list) -> dict[str, dict[str, list[Contribution]]]:
        """For each unread object that sources `found` (as `gifts` gives them) reached before
        or reach now: what the worked sources give it, by source (a copy)."""
        reached, unread, by_target = self.reached, self.unread, self.by_target
        targets: set[str] = set()
        for src, now, one, _given in found:
            targets.update(reached.get(src, ()))
            if one is not None:
                targets.add(one)
            else:
                targets.update(t for t, _c in now)
        return {t: dict(by_target.get(t, {})) for t in targets & unread}

    def in_game_order(self, sources: set[str]) -> list[str]:
        """Sources in the game's order (any no longer in the game, which give nothing and
        count nothing, after them): what working them out counts against the step's budget,
        and the card an error names when it runs out, then do not depend on how the
        interpreter hashes strings."""
        indexes = self.view.indexes.ready()
        known = indexes.order.keys() & sources
        ordered = indexes.sort(known)
        if len(known) != len(sources):
            ordered += sorted(sources - known)
        return ordered

    def every_source(self) -> set[str]:
        """Every object that may give something: those of the cards with static abilities,
        and those that gave something when last worked out."""
        sources: set[str] = set()
        for name in self.cards:
            sources |= self.view.indexes.lookup("card", name)
        sources |= self.by_source.keys()
        return sources

    def look_again(self, sources: Iterable[str]) -> set[str]:
        """`refresh` of some sources (those that are stale), what each gives now compared
        with what it gave; the objects whose contributions changed."""
        view = self.view
        by_source, reached, by_target = self.by_source, self.reached, self.by_target
        touched_targets: set[str] = set()
        touch = touched_targets.add
        found = self.gifts(sources)
        unread = self.unread
        was_unworked: set[str] = set()
        if self.unworked:  # (worked out now: from here on followed like any other source)
            was_unworked = self.unworked.intersection(sources)
            self.unworked -= was_unworked
        # What the worked sources gave each unread object these sources reach, to compare
        # with what they give it after: an unread object's merged list is made when it is
        # read, so it changed only if that did (a deferred source, worked out here, gives
        # what it gave when the first look counted it: `before_changes` saw to that).
        gave_unread = self.gave_unread(found) if unread else {}
        for src, now, one, given in found:
            before = by_source.get(src)  # (never an empty list: a source that gives nothing is not kept)
            if before is None:
                if not now:
                    continue
                if src in was_unworked:
                    touched_targets.update(t for t in self.keep(src, now, one, given) if t not in unread)
                    continue
            else:
                if now == before:
                    continue
                for target in reached[src]:
                    by_target[target].pop(src, None)
                    touch(target)
                if not now:
                    del by_source[src], reached[src]
                    continue
            touched_targets.update(self.keep(src, now, one, given))
        changed = set()
        order, merged_now = view.indexes.order, self.merged
        for target in touched_targets:
            if target in unread:  # (still `UNWORKED`: merged when read, with its sources not worked out yet)
                now_given = {s: cs for s, cs in by_target.get(target, {}).items() if s not in was_unworked}
                if now_given != gave_unread.get(target, {}):
                    changed.add(target)
                continue
            per_source = by_target.get(target)
            if not per_source:
                by_target.pop(target, None)
                if merged_now.pop(target, None):
                    changed.add(target)
                continue
            merged = in_source_order(per_source, order)
            if merged != merged_now.get(target):
                changed.add(target)
                merged_now[target] = merged
        view.writer.contributions_changed(changed)
        return changed

    def first_look(self, sources: set[str]) -> set[str]:
        """`refresh` where nothing is worked out yet (a new engine's first look at a board,
        often tens of thousands of Auras and Equipment). The sources whose every static
        ability is anchored on an attribute stored on them (`deferred`: an Aura's or an
        Equipment's `each x where this.attached_to is x ...`, worked out in advance) are
        left to work out when the object they name is read (`work_out`): that object is
        marked `UNWORKED`, and what working them out counts against the step's budget is
        counted now (`defer`). The others are worked out here: every one is new and every
        object it gives something to changes, so each is kept as it is worked out, with
        nothing to compare it with and nothing to take back, in the game's order
        (`in_game_order`), so that each target's merged list is made in source order by
        adding to it source by source. Over budget, every source is worked out in the game's
        order, so that the error names the source where the budget runs out, and nothing is
        kept. Once every object is read the tables are those `look_again` leaves, having
        counted the same budget (tests/test_direct_statics.py)."""
        view = self.view
        by_source, reached, by_target, merged = self.by_source, self.reached, self.by_target, self.merged
        deferred, named, counted = self.defer(sources)
        left, found = view.iterations_left, None
        if counted <= left:
            view.iterations_left -= counted
            try:
                found = self.gifts(self.in_game_order(sources - deferred))
            except RulesError:
                view.iterations_left = left
        if found is None:  # (over budget: where, is found by working every source out in the game's order)
            deferred, named = set(), set()
            found = self.gifts(self.in_game_order(sources))
        if self.unworked:  # (worked out now: from here on followed like any other source)
            self.unworked.difference_update(sources - deferred)
        for src, now, one, given in found:
            if not now:  # (a source that gives nothing is not kept)
                continue
            # (the commonest: everything to one target; `keep` written out, since a call per
            # source costs the setup at 100,000 about 5% more)
            if one is not None:
                by_source[src] = now
                by_target[one][src] = given
                reached[src] = (one,)
                mine = [(src, given[0])] if len(given) == 1 else [(src, c) for c in given]
                before = merged.get(one)
                if before is None:
                    merged[one] = mine
                else:
                    before += mine
                continue
            for target in self.keep(src, now, one, given):
                merged.setdefault(target, []).extend((src, c) for c in by_target[target][src])
        changed = set(merged)
        merged.update(dict.fromkeys(named, UNWORKED))  # (what its own sources give it, with what deferred ones give, when read)
        self.unworked |= deferred
        self.unread |= named
        view.writer.contributions_changed(changed)
        return changed

    def defer(self, sources: set[str]) -> tuple[set[str], set[str], int]:
        """Of `sources`, those on the battlefield of cards whose abilities are all worked out
        in advance (`direct_statics`) and anchored on an attribute of `deferred` (to leave
        unworked), where every object is to be checked again (none, else); the objects they
        name; and what working them out would count against the step's selection budget
        (each gift whose anchor names an object of the game counts one, as
        `direct_statics.reach` counts it)."""
        view = self.view
        indexes, objects, players = view.indexes, view.game.objects, view.game.players
        deferred: set[str] = set()
        named: set[str] = set()
        counted = 0
        # (only where every object is to be checked again and nothing is cached, `dirty` None:
        # a new engine's, or one that forgot everything; elsewhere an object a deferred source
        # names would not be marked for the next checks as working it out marks it)
        for attr, cards in (self.deferred.items() if self.defers and view.dirty is None else ()):
            status, default = attr in view.defaults, view.defaults.get(attr)
            for card in cards:
                gifts = self.direct.get(card)
                if gifts is None:
                    continue
                mine = indexes.lookup("card", card) & sources
                # (tens of thousands of sources on a large board: each read through `map`,
                # not a loop of Python statements, in the set's order as before)
                held = list(map(objects.__getitem__, mine))
                zones = list(map(ZONE, held))
                away = []  # (sources elsewhere, which give nothing: `compute`)
                if zones.count("battlefield") != len(zones):
                    away = [src for src, zone in zip(mine, zones) if zone != "battlefield"]
                    held = [o for o, zone in zip(held, zones) if zone == "battlefield"]
                raws = [o.get_status(attr, default) for o in held] if status else list(map(attrgetter(attr), held))
                names = list(filter(str.__instancecheck__, raws))
                named.update(names)
                hits = sum(map(objects.__contains__, names))
                if not players.keys().isdisjoint(names):  # (a name of both an object and a player counts no hit)
                    hits -= sum(1 for name in names if name in objects and name in players)
                deferred |= mine.difference(away) if away else mine
                counted += hits * len(gifts)
        return deferred, named, counted

    def read_all(self) -> dict[str, list[tuple[str, Contribution]]]:
        """`merged` with nothing left `UNWORKED`: every object a first look left unread is
        read (`work_out`), so that it holds what every source gives, as `look_again` of every
        source would leave it. For comparing two engines' tables."""
        if self.pending:
            self.refresh()
        self.work_out_all(set(self.unread))
        return self.merged

    def given_later(self, oids: list[str]) -> GivenAt | None:
        """`given`, kept to be worked out from the journal the first time someone asks
        (`GivenAt`, at the journal's position now), where what every source gives is read
        off it (no object of a card of `not_read_off` is in the game), every hide rule
        reads a stored status and the store keeps the whole journal; None elsewhere. Stale
        sources are worked out now, as `given` works them out first, so that what that
        counts against the step's budget is counted at the same point."""
        if self.pending:
            self.refresh()
        view = self.view
        store = view.store
        if store.keep != "game" or any(view.indexes.lookup("card", name) for name in self.not_read_off):
            return None
        tests = view.hiding.stored_hide_tests()
        if tests is None:
            return None
        return GivenAt(store, store.position(), oids, self.direct, frozenset(self.deferred), tests, view.indexes)

    def given(self, oids: Iterable[str]) -> dict[str, Sequence[Contribution]]:
        """What static abilities give each of `oids` now (`of`), for those given something;
        an unread object's worked out from what its worked sources give it and what its
        unworked ones would (found through their anchors' indexes), without keeping them:
        last known information reads it once (`ObjectWriter.remember`), for objects the game
        is about to stop seeing, and working their sources out for good would cost more."""
        if self.pending:
            self.refresh()
        merged, of = self.merged, self.of
        found: dict[str, Sequence[Contribution]] = {}
        unread = []
        for oid in filter(merged.__contains__, oids):  # (most are given nothing: left out at once)
            if merged[oid] is UNWORKED:
                unread.append(oid)
            else:
                found[oid] = of(oid)
        if not unread:
            return found
        view = self.view
        indexes, objects, players, unworked = view.indexes, view.game.objects, view.game.players, self.unworked
        order, by_target, on_battlefield = indexes.order, self.by_target, self.gives_on_battlefield
        tables = [(indexes.table(attr), cards) for attr, cards in self.deferred.items()]
        hidden, is_hidden = view._hidden, view.is_hidden  # (`visible`, written out: a source here is on the battlefield)
        for oid in unread:
            target = objects.get(oid) if oid not in players else None
            if target is None:
                continue  # (it names no object: nothing reaches it)
            worked = by_target.get(oid)
            per_source = dict(worked) if worked else {}
            for table, cards in tables:
                for src in table.get(oid, ()):  # (each names it: `reach` finds it where it looks)
                    if src not in unworked:
                        continue
                    o = objects[src]
                    if o.card in cards and o.zone == "battlefield":
                        gives = (on_battlefield[o.card] if target.zone == "battlefield"
                                 else [c for gift in self.direct[o.card] if looks_in(gift, target) for c in gift.gives])
                        if gives:
                            per_source[src] = gives
            if len(per_source) == 1 and not worked:  # (the commonest: one Aura or Equipment)
                ((src, gives),) = per_source.items()
                seen_now = not (is_hidden(src) if (h := hidden.get(src)) is None else h)
                found[oid] = list(gives) if seen_now else []
            elif per_source:
                found[oid] = [c for src, c in in_source_order(per_source, order) if view.visible(src)]
        return found

    def work_out(self, oid: str) -> Any:
        """What `merged` holds for `oid` once the unworked sources anchored on it are worked
        out (`work_out_all`)."""
        self.work_out_all((oid,))
        return self.merged.get(oid)

    def work_out_all(self, oids: Iterable[str]) -> None:
        """Work out the unworked sources anchored on the unread objects among `oids` (the
        objects a first look left `UNWORKED`: `first_look`): each is found through its
        anchor's index, and all are worked out at once in the game's order and kept,
        counting nothing (the first look counted them); each object's list is then merged
        in source order with what the other sources give it."""
        targets = self.unread.intersection(oids)
        if not targets:
            return
        mine = self.naming(targets)
        found = self.uncounted(self.in_game_order(mine)) if mine else ()
        self.unworked -= mine
        self.unread -= targets
        by_target, merged, order = self.by_target, self.merged, self.view.indexes.order
        for src, now, one, given in found:  # (each reaches only the object its anchor names, one of `targets`)
            if now:
                self.keep(src, now, one, given)
        for oid in targets:
            per_source = by_target.get(oid)
            if per_source:
                merged[oid] = in_source_order(per_source, order)
            else:
                by_target.pop(oid, None)
                merged.pop(oid, None)

    def gifts(self, sources: Iterable[str]) -> list:
        """What each of `sources` gives (`gifts_of`, all of them worked out before any is
        kept: over the budget, nothing is), whatever objects a state check is being made
        again for: a source reaches beyond them."""
        view = self.view
        scope, view.dirty_scope = view.dirty_scope, None
        try:
            return gifts_of(self.direct, view, sources, self.compute)
        finally:
            view.dirty_scope = scope

    def uncounted(self, sources: list[str]) -> list:
        """`gifts` of deferred sources, counting nothing against the step's budget: the first
        look counted them (`defer`)."""
        view = self.view
        left, view.iterations_left = view.iterations_left, 1 << 62
        try:
            return self.gifts(sources)
        finally:
            view.iterations_left = left

    def keep(self, src: str, now: list[tuple[str, Contribution]], one: str | None, given: list) -> tuple[str, ...]:
        """Keep what source `src` gives now (something, as `gifts_of` gives it: `one`, the one
        object it gives everything to, or None, and what it gives that one): by source, by
        target (grouped by target in the order first reached), and the targets it reaches,
        which it gives back."""
        self.by_source[src] = now
        by_target = self.by_target
        if one is not None:  # (the commonest: everything to one target)
            by_target[one][src] = given
            reached = self.reached[src] = (one,)
            return reached
        grouped: dict[str, list[Contribution]] = defaultdict(list)
        for target, c in now:
            grouped[target].append(c)
        for target, cs in grouped.items():
            by_target[target][src] = cs
        reached = self.reached[src] = tuple(grouped)
        return reached

    def compute(self, src: str) -> list[tuple[str, Contribution]]:
        """What one source gives, in the order its abilities give it, whether the game sees it
        or not (`of` leaves out what sources it doesn't see give)."""
        view = self.view
        o = view.game.objects.get(src)
        if o is None or o.card not in self.cards or o.zone != "battlefield":
            return []
        gifts = self.direct.get(o.card)
        if gifts is not None:  # fixed things to the one object it names: read off the source
            return give(gifts, view, o)
        return self.compute_generally(src)

    def compute_generally(self, src: str) -> list[tuple[str, Contribution]]:
        """`compute` the general way, for any source: each static ability evaluated by
        `GameView.collect_static` (its selection through the indexes, then its body)."""
        view = self.view
        o = view.game.objects.get(src)
        if o is None or o.card not in self.cards or o.zone != "battlefield":
            return []
        out: dict[str, list] = defaultdict(list)
        env = {"this": Obj(src, True), "you": PlayerRef(view.controller(src))}
        for entry in view.rulebook.cards[o.card].entries:
            if isinstance(entry, ast.Static):
                view.collect_static(entry.body, env, out)
        return [(target, c) for target, cs in out.items() for c in cs]
