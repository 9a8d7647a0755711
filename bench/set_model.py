"""What the interpreter's event model costs when batches are worked set by set, not write by write.

`bench/event_model.py` writes out by hand what the interpreter does for the 2026-09-25
rules, one `Write` record per attribute of each object; the interpreter and it stay 20 to 60
times slower than `bench/fast_reference.py`, and a profile puts nearly all of that in work
done per write: a record made, read again to expand the `as` clauses, settled, applied, put
into the indexes, traced, checked. This module is the design issue 17 leaves for the engine,
measured before it is built: the same event model, with everything that is per write done
per *set of objects* instead.

- A statement's selection is set algebra over indexes kept across steps (the interpreter
  already works selections this way), and its writes are one **bulk write**: an attribute,
  the objects, one value (or one value per object, a column), and the cause.
- Expanding the `as` clauses is a worklist of bulk writes: a clause that waits on
  `A becomes V` gets the set of objects whose `A` a bulk write changes to `V`, once each,
  and answers with bulk writes of its own (702.26g's attachments are a join through the
  index of attachments by host).
- Settling looks only at the attributes two writers could set to different values (what
  `interpreter/program/write_sites.py` works out today); for the others the bulk writes are taken
  as they are.
- Applying a bulk write changes the objects in place and records one journal entry (the
  attribute, the objects, their old values, the new value or column, the cause); the
  indexes move by set operations. The trace, last known information and undo read the
  journal (`Store.undo`).
- An assertion the writes cannot reach (702.26d's `zone is unchanged` when nothing writes
  a zone) is dropped when the batch's writers are known; the others run over the set.

The rules are those of `bench/event_model.py` (2026-09-25: 702.26a and n in the order 502.1
gives, the `as` clauses of 702.26a, g, n, 506.4 and 610.4, 702.26h's `prefer`, the
assertions of 702.26c and p, then 502.3), followed by the state-based actions
bench/fast_reference.py runs, looked at only for what changed:

    python bench/set_model.py [permanents] [rounds]

prints the step's time beside the fast reference's, in turn in one run, and exits 1 unless
both end in the same state. It is a measurement of a design, hand-translated as a compiler
from the rule files would translate it; nothing here is used by the interpreter.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fast_reference import Board as FastBoard
from bench.in_turn import run_in_turn, timed
from phasing_rules.interpreter.game.model import Game, earlier_name

BATTLEFIELD = "battlefield"
# The statuses rules/2026-09-25/vocabulary.rules declares, with their defaults.
DEFAULTS: dict[str, Any] = {"phase": "in", "phased_out_under": None, "phased_indirectly": False,
                            "phase_until": None, "returns_after_absence": False}
STORED = ("id", "owner", "controller", "zone", "tapped", "attacking", "attached_to", "token", "keywords", "types",
          "incarnation")
INDEXED_FLAGS = ("tapped", "attacking", "token")  # boolean fields indexed by the set of objects where they are true
INDEXED_NAMES = ("attached_to", "controller", "zone")  # fields indexed by value


def object_class(statuses: dict[str, Any]) -> type:
    """The class of a game's objects for one rulebook: a slot per stored field and one per
    declared status (a program would make it once, from the rulebook's declarations), so a
    status is read and written like a field."""
    return type("Obj", (), {"__slots__": STORED + tuple(statuses)})


class Store:
    """Objects, the indexes kept across steps (sets of objects), and the journal every write
    goes through."""

    def __init__(self, game: Game) -> None:
        cls = self.cls = object_class(DEFAULTS)
        self.players = {name: p.in_game for name, p in game.players.items()}
        self.objects: dict[str, Any] = {}
        self.index: dict[str, dict[Any, set]] = {name: {} for name in (*DEFAULTS, *INDEXED_NAMES)}
        self.flags: dict[str, set] = {name: set() for name in INDEXED_FLAGS}
        self.keyword: dict[str, set] = {}
        self.types: dict[str, set] = {}
        for oid, g in game.objects.items():
            o = cls()
            o.id, o.owner, o.controller, o.zone = g.id, g.owner, g.controller, g.zone
            o.tapped, o.attacking, o.attached_to, o.token = g.tapped, g.attacking, g.attached_to, g.token
            o.keywords, o.types = frozenset(g.keywords), g.types
            o.incarnation = g.incarnation  # (what is left attached to it names it by this, 400.7)
            for name, default in DEFAULTS.items():
                setattr(o, name, g.get_status(name, default))
            self.objects[oid] = o
        objects = self.objects
        for o in objects.values():
            for name, default in DEFAULTS.items():
                value = getattr(o, name)
                if value != default:
                    self.index[name].setdefault(value, set()).add(o)
            for name in INDEXED_NAMES:
                value = getattr(o, name)
                if value is not None:
                    self.index[name].setdefault(value, set()).add(o)
            for name in INDEXED_FLAGS:
                if getattr(o, name):
                    self.flags[name].add(o)
            for k in o.keywords:
                self.keyword.setdefault(k, set()).add(o)
            for t in o.types:
                self.types.setdefault(t, set()).add(o)
        self.hosting = {}  # host object -> the objects attached to it (from the index by attached_to)
        for host_id, attached in self.index["attached_to"].items():
            if host_id in objects:
                self.hosting[objects[host_id]] = attached
        self.journal: list[tuple] = []

    def ix(self, name: str, value: Any) -> set:
        return self.index[name].get(value, set())

    def hidden(self) -> set:  # 702.26b: hide x where x.phase is out
        return self.ix("phase", "out")

    def attached_to_any(self, hosts: set) -> set:
        """What is attached to any of `hosts`: a join through the index by host."""
        out: set = set()
        attached = self.index["attached_to"]
        for o in hosts:
            children = attached.get(o.id)
            if children:
                out |= children
        return out

    def changing(self, attr: str, objs: set, value: Any) -> set:
        """The objects of `objs` whose `attr` is not `value` yet: set algebra over the indexes."""
        if attr in DEFAULTS:
            index = self.index[attr]
            if value != DEFAULTS[attr]:
                return objs - index.get(value, set())
            out = set()
            for holding in index.values():
                out |= objs & holding
            return out
        if attr in INDEXED_FLAGS:
            holding = self.flags[attr]
            return objs - holding if value else objs & holding
        return {o for o in objs if getattr(o, attr) != value}

    # -------------------------------------------------------------- the one place that writes

    def write(self, attr: str, objs: set, value: Any, cause: str) -> None:
        """Set `attr` of every object of `objs` to `value`, in place; one journal entry holding
        the old values grouped by value (found by set algebra where an index holds them)."""
        olds: dict[Any, set] = {}
        if attr in DEFAULTS or attr in INDEXED_NAMES:
            index = self.index[attr]
            rest = set(objs)
            if attr in DEFAULTS:
                for old, holding in index.items():
                    moved = holding & objs
                    if moved:
                        olds[old] = moved
                        holding -= moved
                        rest -= moved
                if rest:
                    olds[DEFAULTS[attr]] = rest
            else:
                for o in objs:
                    old = getattr(o, attr)
                    olds.setdefault(old, set()).add(o)
                    if old is not None:
                        index[old].discard(o)
            if value is not None and value != DEFAULTS.get(attr):
                index.setdefault(value, set()).update(objs)
        elif attr in INDEXED_FLAGS:
            holding = self.flags[attr]
            was = objs & holding
            if was:
                olds[True] = was
            if len(was) < len(objs):
                olds[False] = objs - was
            if value:
                holding |= objs
            else:
                holding -= objs
        else:
            for o in objs:
                olds.setdefault(getattr(o, attr), set()).add(o)
        for o in objs:
            setattr(o, attr, value)
        self.journal.append((attr, olds, cause))

    def undo(self, mark: int) -> None:
        """Walk the journal back to `mark` (the state as it was when the journal was that long)."""
        while len(self.journal) > mark:
            attr, olds, _cause = self.journal.pop()
            for old, objs in olds.items():
                self.write(attr, objs, old, "undo")
                self.journal.pop()


class BatchSets:
    """A batch as bulk writes: (attribute, objects, value, cause); columns as (attribute, {object: value}, cause)."""

    CONTESTED = frozenset({"phased_indirectly"})  # two writers may disagree (702.26a and 702.26g)

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bulk: list[tuple[str, set, Any, str]] = []
        self.columns: list[tuple[str, dict, str]] = []
        self.expanded: dict[tuple[str, Any], set] = {}

    def add(self, attr: str, objs: set, value: Any, cause: str) -> None:
        """A bulk write; what changes nothing is left out unless the attribute is contested."""
        if attr not in self.CONTESTED:
            objs = self.store.changing(attr, objs, value)
        if objs:
            self.bulk.append((attr, objs, value, cause))

    def expand(self) -> None:
        """Run the `as` clauses on what each bulk write changes, first in, first expanded."""
        store, position = self.store, 0
        while position < len(self.bulk):
            attr, objs, value, _cause = self.bulk[position]
            position += 1
            if attr != "phase":
                continue
            done = self.expanded.setdefault(("phase", value), set())
            new = store.changing("phase", objs, value) - done
            if not new:
                continue
            done |= new
            if value == "out":
                self.becomes_out(new)
            else:
                self.becomes_in(new)

    def becomes_out(self, objs: set) -> None:
        store = self.store
        by_controller: dict[str, set] = {}  # 702.26a: phased_out_under = x.controller, as a column grouped by value
        for o in objs:
            controller = o.controller
            group = by_controller.get(controller)
            if group is None:
                by_controller[controller] = {o}
            else:
                group.add(o)
        for controller, group in by_controller.items():
            self.add("phased_out_under", group, controller, "702.26a remember-controller")
        along = store.attached_to_any(objs) & store.ix("zone", BATTLEFIELD)
        along -= store.hidden()  # (the selection sees only what the game sees, 702.26b)
        if along:
            self.add("phase", along, "out", "702.26g attachments-go-along")
            self.add("phased_indirectly", along, True, "702.26g attachments-go-along")
        self.add("attacking", objs, False, "506.4 removed-from-combat")

    def becomes_in(self, objs: set) -> None:
        store = self.store
        self.add("phased_out_under", objs, None, "702.26a forget-controller")
        back = store.attached_to_any(objs)
        back &= store.ix("phased_indirectly", True) & store.ix("phase", "out") & store.ix("zone", BATTLEFIELD)
        if back:
            self.add("phase", back, "in", "702.26g attachments-return-along")
        self.add("phased_indirectly", objs, False, "702.26g clear-indirect-mark")
        self.add("returns_after_absence", objs, False, "702.26n clear-return-mark")
        self.add("phase_until", objs, None, "610.4 clear-until")

    def commit(self, changed_phase: set) -> set:
        self.expand()
        store = self.store
        by_attr: dict[str, list] = {}
        for attr, objs, value, cause in self.bulk:
            by_attr.setdefault(attr, []).append((objs, value, cause))
        touched: set = set()
        for attr, writes in by_attr.items():
            if attr in self.CONTESTED:
                # 702.26h: prefer phased_indirectly = true, where two writes meet
                true = set().union(*(objs for objs, value, _c in writes if value is True))
                false = set().union(*(objs for objs, value, _c in writes if value is not True)) - true
                writes = [(store.changing(attr, true, True), True, "702.26h indirect-wins"),
                          (store.changing(attr, false, False), False, "702.26h indirect-wins")]
            for objs, value, cause in writes:
                if objs:
                    store.write(attr, objs, value, cause)
                    touched |= objs
        phased: set = set()
        for objs, _value, _cause in by_attr.get("phase", ()):
            phased |= objs
        # 702.26c: what phased in is seen (hide x where x.phase is out)
        if (phased - store.ix("phase", "out")) & store.hidden():
            raise AssertionError("702.26c")
        # 702.26p: phase changes at most once in the step
        if phased & changed_phase:
            raise AssertionError("702.26p")
        changed_phase |= phased
        return touched


def untap_step(store: Store, player: str) -> None:
    """702.26a and n, then 502.3, then the state-based actions over what changed."""
    changed_phase: set = set()
    out = store.ix("phase", "out")
    exempt = set().union(*store.index["phase_until"].values())
    battlefield = store.ix("zone", BATTLEFIELD)  # (`each x` selects from the battlefield)
    going = (store.keyword.get("phasing", set()) & store.ix("controller", player) & battlefield) - out - exempt
    coming = (out & store.ix("phased_out_under", player) & battlefield) - store.ix("phased_indirectly", True) - exempt
    batch = BatchSets(store)
    batch.add("phase", going, "out", "702.26a phase-out-and-in")
    batch.add("phased_indirectly", going, False, "702.26a phase-out-and-in")
    batch.add("phase", coming, "in", "702.26a phase-out-and-in")
    touched = batch.commit(changed_phase)
    returning = (store.ix("phase", "out") & store.ix("returns_after_absence", True) & store.ix("zone", BATTLEFIELD)) \
        - store.ix("phased_indirectly", True)
    if returning:  # 702.26n return-at-next-untap
        batch = BatchSets(store)
        batch.add("phase", returning, "in", "702.26n return-at-next-untap")
        touched |= batch.commit(changed_phase)
    untapping = (store.flags["tapped"] & store.ix("controller", player) & store.ix("zone", BATTLEFIELD)) - store.hidden()
    if untapping:  # 502.3
        store.write("tapped", untapping, False, "502.3 untap-permanents")
    state_checks(store, touched)


def state_checks(store: Store, dirty: set) -> None:
    """704.5m, 704.5n and 704.5d for the objects that changed and what is attached to them."""
    objects, attached, players = store.objects, store.index["attached_to"], store.players
    # Both checks select by card type first (the type index answers that conjunct), as a
    # query plan would: only Auras, Equipment and Fortifications can be found.
    checked = set().union(*(store.types.get(t, ()) for t in ("aura", "equipment", "fortification")),
                          store.flags["token"])
    candidates = dirty & checked
    for o in dirty:
        children = attached.get(o.id)
        if children:
            candidates |= children & checked
    while candidates:
        hidden = store.hidden()
        moves, unattach = [], []
        cease = []
        for o in candidates - hidden:
            if o.zone != BATTLEFIELD:
                if o.token and o.zone != "nowhere":
                    cease.append(o)  # 704.5d
                continue
            host = o.attached_to
            if "aura" in o.types:
                h = objects.get(host) if host is not None else None
                if host is None or (h is None and not players.get(host, False)) or (
                        h is not None and (h.zone != BATTLEFIELD or h in hidden
                                           or "protection_from_enchantments" in h.keywords)):
                    moves.append(o)
            elif ("equipment" in o.types or "fortification" in o.types) and host is not None:
                h = objects.get(host)
                if (h is None and not players.get(host, False)) or (
                        h is not None and (h.zone != BATTLEFIELD or h in hidden or "protection_from_artifacts" in h.keywords)):
                    unattach.append(o)
        candidates = set()
        for o in moves:  # 704.5m: to the owner's graveyard, a new object
            candidates |= attached.get(o.id, set()) & checked
            candidates.add(o)  # (a token that moved ceases to exist in the next round, 704.5d)
            one = {o}
            left = set(attached.get(o.id, ()))  # (still attached to the object it was, gone: 400.7)
            if left:
                store.write("attached_to", left, earlier_name(o.id, o.incarnation), "704.5m illegal-aura")
            store.write("incarnation", one, o.incarnation + 1, "704.5m illegal-aura")
            for attr, value in (("zone", "graveyard"), ("attached_to", None), ("tapped", False),
                                ("attacking", False), ("controller", o.owner)):
                store.write(attr, one, value, "704.5m illegal-aura")
            for name, default in DEFAULTS.items():
                if getattr(o, name) != default:
                    store.write(name, one, default, "704.5m illegal-aura")
        for o in unattach:  # 704.5n
            store.write("attached_to", {o}, None, "704.5n illegal-equipment")
        if cease:  # 704.5d
            store.write("zone", set(cease), "nowhere", "704.5d token-outside-battlefield")


def observed(store: Store) -> dict[str, tuple]:
    return {oid: (o.phase, o.phased_indirectly, o.phased_out_under, o.tapped, o.attached_to, o.zone)
            for oid, o in store.objects.items()}


def one_round(game: Game, player: str) -> tuple[float, float, bool, str]:
    """A round of `main`: both set up and given their first state check untimed, both steps
    timed, their states compared, the set model's journal walked back to the start."""
    store = Store(game)
    state_checks(store, set(store.objects.values()))  # the first state check, as both setups make
    fast = FastBoard.from_game(game)
    fast.settle()
    set_time = timed(lambda: untap_step(store, player))
    fast_time = timed(lambda: fast.untap_step(player))
    same = observed(store) == fast.observed()
    store.undo(0)
    return set_time, fast_time, same and observed(store) == observed(Store(game)), ""


def main(argv: list[str]) -> int:
    return run_in_turn(argv, "set model", one_round, rounds=7)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
