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
that attribute off it (`interpreter.direct_statics`), not by evaluating the abilities: the
first refresh of a large board works out tens of thousands of them, in one loop, writing
each straight into the tables (`first_look`: nothing to compare it with). Sources are
worked out in the game's order, so that what a refresh counts against the step's budget,
and the card named when it runs out, never depend on how strings hash.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

from dsl import ast
from interpreter.direct_statics import direct_gifts, gifts_of, give
from interpreter.refs import Obj, PlayerRef
from interpreter.write_bits import HIDES, REACHES, SOURCES

if TYPE_CHECKING:
    from interpreter.indexes import Indexes
    from interpreter.model import Game, Permanent
    from interpreter.program import Program
    from interpreter.rulebook import Rulebook


class StaticsHost(Protocol):
    """What static abilities need from the game view that owns them (`interpreter.view.GameView`
    is one): the game, its indexes, rulebook and program, sight and control, and a way to say that the
    contributions to some objects changed (its `writer`). Written as a protocol so that this module does not
    import the view that imports it."""

    game: "Game"
    indexes: "Indexes"
    rulebook: "Rulebook"
    program: "Program"
    dirty_scope: set[str] | None

    def visible(self, oid: str) -> bool: ...

    def controller(self, oid: str) -> str: ...

    def collect_static(self, stmt: ast.Node, env: dict, out: dict) -> None: ...

    writer: "ContributionsListener"


class ContributionsListener(Protocol):
    """What is told that static abilities now give some objects something else
    (`interpreter.writing.ObjectWriter` is one)."""

    def contributions_changed(self, oids: Iterable[str]) -> None: ...


Contribution = tuple[str, Any]  # ("pump", (p, t)) or ("grant", keyword)


def in_source_order(per_source: dict[str, list[Contribution]], order: dict[str, int]) -> list[tuple[str, Contribution]]:
    """What the sources of one object give it, (source, contribution) source by source in the
    game's order (`order`: id -> place), each source's in the order it gives them."""
    if len(per_source) == 1:  # (one source: no order to put them in)
        ((src, cs),) = per_source.items()
        return [(src, cs[0])] if len(cs) == 1 else [(src, c) for c in cs]
    return [(src, c) for src in sorted(per_source, key=order.__getitem__) for c in per_source[src]]


class Statics:
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
        # card -> its static abilities worked out in advance, when every one gives fixed
        # things to the one object its source names (`interpreter.direct_statics`); else None
        defaults, references = view.defaults, view.reference_statuses
        cards = program.book.cards
        self.direct = {name: direct_gifts(cards[name], defaults, references) for name in self.cards}

    # ---------------------------------------------------------------- marking stale

    def forget(self) -> None:
        """Anything may have changed (effects, players): work every source out again."""
        self.stale = None

    def touched(self, oid: str, old: "Permanent | None", new: "Permanent", bits: int) -> None:
        """Object `oid` was replaced; `bits`: what its writes can change (`interpreter.write_bits`;
        ANY when anything may have changed)."""
        self.touched_all([(oid, old, new, bits)])

    def touched_all(self, changed: list[tuple]) -> None:
        """`touched` for each of many objects ((id, old, new, bits) each), what the static
        abilities of those that stop or start being seen give read afresh once for all."""
        if self.stale is None or not self.cards:
            return
        cards, reached, stale = self.cards, self.reached, self.stale
        seen_again: list[str] = []  # what a source gives, whose sight changed
        for oid, old, new, bits in changed:
            reach_changed = bits & REACHES
            if new.card in cards or (old is not None and old.card in cards):
                if old is None or reach_changed or bits & SOURCES:
                    stale.add(oid)  # what it reaches, or who "you" is, may have changed
                if bits & HIDES and oid in reached:
                    # seen or not, it gives the same; whether what it gives counts is read with it
                    seen_again += reached[oid]
            if reach_changed or old is None:  # (else nothing any ability reads of `oid` changed)
                self.reach_changed(oid)
        if seen_again:
            self.view.writer.contributions_changed(seen_again)

    def touched_runs(self, runs: list, masks: list[int]) -> None:
        """`touched_all` for the runs of a batch (`store.Bulk` entries, none writing a card),
        each with what its writes can change (`masks`, in step): run by run rather than object
        by object, since each thing it does (a source to work out again, a target to read
        afresh) is the same done once or twice, in any order."""
        if self.stale is None or not self.cards:
            return
        objects, reached = self.view.game.objects, self.reached
        seen_again: list[str] = []  # what a source gives, whose sight changed
        for b, mask in zip(runs, masks):
            if mask & HIDES:  # (the sources among the run's objects, found at once)
                for oid in reached.keys() & b.objs:
                    seen_again += reached[oid]
            if mask & (REACHES | SOURCES):  # (what a source reaches or whose it is: object by object)
                self.touched_all([(oid, objects[oid], objects[oid], mask & ~HIDES) for oid in b.objs])
        if seen_again:
            self.view.writer.contributions_changed(seen_again)

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
        visible = self.view.visible
        if len(given) == 1:  # (the commonest: one source; no comprehension to set up)
            src, c = given[0]
            return [c] if visible(src) else []
        return [c for src, c in given if visible(src)]

    def refresh(self) -> set[str]:
        """Work the stale sources out again; the objects whose contributions changed."""
        sources = self.every_source() if self.stale is None else self.stale
        self.stale = set()
        if not sources:
            return set()
        ordered = self.in_game_order(sources)
        if not self.by_source:  # (nothing worked out yet, or nothing given: `by_target` and `merged` empty too)
            return self.first_look(ordered)
        return self.look_again(ordered)

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
        for src, now, one, given in self.gifts(sources):
            before = by_source.get(src)  # (never an empty list: a source that gives nothing is not kept)
            if before is None:
                if not now:
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

    def first_look(self, sources: Sequence[str]) -> set[str]:
        """`refresh` where nothing is worked out yet (a new engine's first look at a board,
        often tens of thousands of Auras and Equipment): every source is new and every object
        it gives something to changes, so each is kept as it is worked out, with nothing to
        compare it with and nothing to take back; the tables end as `look_again` would leave
        them, the same budget counted in the same order (tests/test_direct_statics.py).
        `sources` come in the game's order (`in_game_order`), so each target's merged list is
        made in source order by adding to it source by source, none sorted afterwards."""
        view = self.view
        by_source, reached, by_target, merged = self.by_source, self.reached, self.by_target, self.merged
        for src, now, one, given in self.gifts(sources):
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
        view.writer.contributions_changed(changed)
        return changed

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
