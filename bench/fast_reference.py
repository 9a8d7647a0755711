"""The fastest reasonable hand-written untap step: the honest yardstick of the benchmark.

`bench/reference.py` works on the interpreter's own model (frozen attrs objects of 21
fields, statuses as sorted tuples) and so spends most of its time making new objects. This
module does the same rules the way a Python engine written for speed would: its own small
mutable objects (`Perm`, with `__slots__`) changed in place, and indexes kept from one step
to the next and put right within the step, so that a step looks only at what it can change.

The rules (CR 2026-09-25, whose untap step is 502.1 then 502.3), as in bench/reference.py:

702.26a (502.1)  In the active player P's untap step, all at once: every phased-in
         permanent with phasing that P controls phases out (directly, under P), and every
         permanent that phased out directly under P phases in. Both selections are made
         before anything changes.
702.26g  What is attached (at any depth) to a permanent that phases out, and is phased in,
         phases out with it, indirectly, under its own controller; it phases in only with
         what it is attached to.
702.26h  Out directly and indirectly at once counts as indirectly.
506.4    What phases out stops attacking.
502.3    Then P untaps every permanent P controls that is phased in.

and then (`state_based=True`) the state-based actions bench/reference.py runs, until nothing
changes, each round all at once: 704.5m (an Aura attached to nothing, to something the game
cannot see, or to something with protection from enchantments goes to its owner's
graveyard), 704.5n (an Equipment or Fortification attached to something the game cannot see,
or to something with protection from artifacts, becomes unattached), 704.5d (a token outside
the battlefield ceases to exist).

The indexes (`Board`):

- attachments by host: each `Perm.children`, the permanents on the battlefield attached to it;
- permanents with phasing by controller (`Board.phasing`), on the battlefield;
- directly phased-out permanents by the player they phased out under (`Board.out_under`):
  P's step phases in exactly `out_under[P]`, and what P's step phases out directly is the
  new `out_under[P]`;
- tapped permanents by controller (`Board.tapped`): 502.3 looks at nothing else;
- the permanents the next state check must look at (`Board.pending`). A board as it comes
  in has not been checked, so that is every attachment and Aura on the battlefield and every
  token elsewhere; `settle()` checks them.
  After that only a permanent that phased in can have become subject to 704.5m or 704.5n
  in a step (a phased-in permanent attached to one that phases out goes with it), and
  within the checks only what was moved and what was attached to it.

`Board.from_game(game)` is the setup (the conversion from the interpreter's model, which
the benchmark times apart from the step); `Board.observed()` gives the state back in the
form the differential test compares (`bench.engines.observed`).
"""

from __future__ import annotations

import gc
from typing import Any

from phasing_rules.interpreter.game.model import Game, earlier_name

BATTLEFIELD = "battlefield"
GRAVEYARD = "graveyard"
NOWHERE = "nowhere"
MODELLED_STATUSES = frozenset({"phase", "phased_out_under", "phased_indirectly"})


class Perm:
    """One object, changed in place. `out`, `indirect` and `under` are the three phasing
    statuses (phased out; phased out indirectly; the player it phased out under); `host` is
    the object it is attached to (None when it is attached to a player, or to nothing)."""

    __slots__ = ("id", "owner", "controller", "zone", "tapped", "attacking", "token", "phasing", "aura",
                 "equipment", "shuns_auras", "shuns_equipment", "out", "indirect", "under", "attached_to",
                 "host", "children", "incarnation")

    def __init__(self, o) -> None:
        keywords = o.keywords
        types = o.types
        self.id = o.id
        self.owner = o.owner
        self.controller = o.controller
        self.zone = o.zone
        self.tapped = o.tapped
        self.attacking = o.attacking
        self.token = o.token
        self.phasing = "phasing" in keywords
        self.aura = "aura" in types
        self.equipment = "equipment" in types or "fortification" in types
        self.shuns_auras = "protection_from_enchantments" in keywords
        self.shuns_equipment = "protection_from_artifacts" in keywords
        self.out = False
        self.indirect = False
        self.under = None
        for key, value in o.status:
            if key == "phase":
                self.out = value == "out"
            elif key == "phased_indirectly":
                self.indirect = value
            elif key == "phased_out_under":
                self.under = value
            else:
                raise ValueError(f"{o.id}: the status {key!r} is not modelled by the fast reference")
        self.attached_to = o.attached_to
        self.host = None
        self.children: list[Perm] | tuple = ()  # a list from the first attachment on
        self.incarnation = o.incarnation  # (what is left attached to it names it by this, 400.7)


class Board:
    """A game as the fast reference keeps it: its objects and the indexes described above."""

    __slots__ = ("objects", "in_game", "phasing", "out_under", "tapped", "pending")

    def __init__(self) -> None:
        self.objects: dict[str, Perm] = {}
        self.in_game: dict[str, bool] = {}
        self.phasing: dict[str, set[Perm]] = {}
        self.out_under: dict[str, list[Perm]] = {}
        self.tapped: dict[str, set[Perm]] = {}
        self.pending: list[Perm] = []

    @classmethod
    def from_game(cls, game: Game) -> "Board":
        """The board of `game` (which is not changed), with its indexes; nothing checked yet.

        Python's cycle collector is paused meanwhile: the many new objects would otherwise set
        off full collections that walk all of them again, which more than doubles the time at
        100,000 permanents. (A host and what is attached to it refer to each other, so a
        board that is dropped is freed by the collector's next run.)"""
        collecting = gc.isenabled()
        gc.disable()
        try:
            return cls._convert(game)
        finally:
            if collecting:
                gc.enable()

    @classmethod
    def _convert(cls, game: Game) -> "Board":
        board = cls()
        objects = board.objects
        for oid, o in game.objects.items():
            objects[oid] = Perm(o)
        board.in_game = {name: p.in_game for name, p in game.players.items()}
        phasing = board.phasing = {name: set() for name in game.players}
        out_under = board.out_under = {name: [] for name in game.players}
        tapped = board.tapped = {name: set() for name in game.players}
        pending = board.pending
        for o in objects.values():
            if o.zone != BATTLEFIELD:
                if o.token:
                    pending.append(o)
                continue
            if o.attached_to is not None:
                host = objects.get(o.attached_to)
                if host is not None:
                    o.host = host
                    if host.children:
                        host.children.append(o)
                    else:
                        host.children = [o]
                pending.append(o)
            elif o.aura:  # (an Aura attached to nothing; a token on the battlefield needs no check)
                pending.append(o)
            if o.phasing:
                phasing.setdefault(o.controller, set()).add(o)
            if o.tapped:
                tapped.setdefault(o.controller, set()).add(o)
            if o.out and not o.indirect and o.under is not None:
                out_under.setdefault(o.under, []).append(o)
        return board

    # ------------------------------------------------------------------ the step

    def untap_step(self, player: str, *, state_based: bool = True) -> None:
        """`player`'s untap step: phasing (702.26a, g, h), then untapping (502.3), then, with
        `state_based`, the state-based actions until nothing changes. Changes the board."""
        # 702.26a: both selections before anything changes.
        going = [o for o in self.phasing.get(player, ()) if not o.out]
        coming = self.out_under.get(player, ())

        # 702.26g/h: what is phased in and attached to a permanent going out, down the chains,
        # goes out indirectly. Marking it out as it is reached is what keeps it from being
        # reached twice; a permanent going out directly is still in while the chains are walked,
        # so one attached to another that goes out is reached and goes indirectly. (One stack
        # for all the chains: the order they are walked in changes nothing.)
        stack = []
        for root in going:
            if root.children:
                stack.extend(root.children)
        while stack:
            c = stack.pop()
            if not c.out:
                c.out = True
                c.indirect = True
                c.under = c.controller
                c.attacking = False
                if c.children:
                    stack.extend(c.children)
        directly = []
        for o in going:
            if not o.out:
                o.out = True
                o.indirect = False
                o.under = player
                o.attacking = False
                directly.append(o)

        # 702.26a/g: what phased out directly under `player` phases in, with what went with it.
        arrived = list(coming)
        for o in coming:
            o.out = False
            o.under = None
            if o.children:
                stack.extend(o.children)
        while stack:
            c = stack.pop()
            if c.out and c.indirect:
                c.out = False
                c.indirect = False
                c.under = None
                arrived.append(c)
                if c.children:
                    stack.extend(c.children)
        self.out_under[player] = directly

        # 502.3: `player` untaps what they control and the game can see.
        tapped = self.tapped.get(player)
        if tapped:
            still = set()
            for o in tapped:
                if o.out:
                    still.add(o)
                else:
                    o.tapped = False
            self.tapped[player] = still

        if state_based:
            pending = self.pending
            for o in arrived:
                if o.aura or o.equipment:
                    pending.append(o)
            self.settle()

    # ------------------------------------------------------------------ state-based actions

    def settle(self) -> None:
        """704.5m, 704.5n and 704.5d for the pending permanents until nothing changes, each
        round all at once (704.3); a later round looks at what moved and what was attached to it."""
        candidates = self.pending
        self.pending = []
        in_game = self.in_game
        while candidates:
            moves = []
            unattach = []
            cease = []
            for o in candidates:
                zone = o.zone
                if zone != BATTLEFIELD:
                    if o.token and zone != NOWHERE:
                        cease.append(o)
                    continue
                if o.out:
                    continue
                if o.aura:
                    host = o.host
                    if host is not None:
                        if host.zone != BATTLEFIELD or host.out or host.shuns_auras:
                            moves.append(o)
                    elif o.attached_to is None or not in_game.get(o.attached_to, False):
                        moves.append(o)
                elif o.equipment and o.attached_to is not None:
                    host = o.host
                    if host is not None:
                        if host.zone != BATTLEFIELD or host.out or host.shuns_equipment:
                            unattach.append(o)
                    elif not in_game.get(o.attached_to, False):
                        unattach.append(o)
            candidates = []
            for o in moves:
                if o.zone == BATTLEFIELD:  # (listed twice when it was a candidate twice)
                    candidates.append(o)
                    candidates.extend(o.children)
                    self._to_graveyard(o)
            for o in unattach:
                if o.attached_to is not None:
                    host = o.host
                    if host is not None:
                        host.children.remove(o)
                        o.host = None
                    o.attached_to = None
            for o in cease:
                o.zone = NOWHERE

    def _to_graveyard(self, o: Perm) -> None:
        """A new object in its owner's graveyard (400.7): none of its battlefield state stays.
        What is attached to it stays attached to the object it was, which is gone (named as
        `interpreter.game.model.earlier_name` names it); the state checks see to them."""
        controller = o.controller
        if o.phasing:
            self.phasing[controller].discard(o)
        if o.tapped:
            self.tapped[controller].discard(o)
            o.tapped = False
        host = o.host
        if host is not None:
            host.children.remove(o)
            o.host = None
        o.attached_to = None
        if o.children:
            gone = earlier_name(o.id, o.incarnation)
            for child in o.children:
                child.host = None
                child.attached_to = gone
            o.children = ()
        o.incarnation += 1
        o.zone = GRAVEYARD
        o.attacking = False
        o.out = False
        o.indirect = False
        o.under = None
        o.controller = o.owner

    # ------------------------------------------------------------------ reading it back

    def observed(self) -> dict[str, tuple[Any, ...]]:
        """Per object, what the differential test compares (as `bench.engines.observed`):
        phase, phased_indirectly, phased_out_under, tapped, attached_to, zone."""
        return {oid: ("out" if o.out else "in", o.indirect, o.under, o.tapped, o.attached_to, o.zone)
                for oid, o in self.objects.items()}


def untap_step(game: Game, player: str, *, state_based: bool = True) -> dict[str, tuple[Any, ...]]:
    """One untap step on a board made from `game` (not changed): what `Board.observed` gives."""
    board = Board.from_game(game)
    board.untap_step(player, state_based=state_based)
    return board.observed()
