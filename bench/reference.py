"""A plain, hand-written untap step: the yardstick the interpreter is measured against.

This is what an engine developer would write for the current rules (CR 2026-09-25), working
directly on `interpreter.game.model` objects, with no rule files and no DSL:

702.26a  In the active player P's untap step, before anything untaps, and all at once:
         every phased-in permanent with phasing that P controls phases out, and every
         permanent that phased out under P (directly) phases in. Selections are made before
         anything changes.
702.26b/c Phasing out sets the status `phase` to out, phasing in sets it back; a phased-out
         permanent is treated as though it does not exist (it is not untapped, and it does
         not phase out again).
702.26d  No zone change and no control change: nothing else about the object changes.
702.26g  Auras, Equipment and Fortifications attached (at any depth) to a permanent that
         phases out phase out with it, indirectly; they phase in only with what they are
         attached to, never by themselves.
702.26h  Phasing out directly and indirectly at once counts as indirectly.
702.26i/j Attachments are left as they are: a directly phased-out attachment comes back
         attached to what it was attached to.
502.3    Then P untaps every permanent P controls that is phased in.

The `phased_out_under` status records the controller as the permanent phases out (directly
or indirectly) and is cleared when it phases in; `phased_indirectly` says how it went.
"Controls" is the permanent's `controller` field: benchmark boards carry no control effects.

With `state_based=True` the state-based actions that can apply to such boards then run
until nothing changes, as the interpreter's `run_hook` does after the step: 704.5m (an Aura
attached to nothing, to something the game cannot see, or to something with protection from
enchantments goes to its owner's graveyard), 704.5n (an Equipment or Fortification attached
to something the game cannot see, or with protection from artifacts, becomes unattached) and
704.5d (a token outside the battlefield ceases to exist). 702.26i relies on these when a
directly phased-out attachment phases in on a host that has just phased out. The boards
carry no damage, no continuous effects, no 610.4 or 702.26n statuses and no departed
players, so the other state-based actions of the rulebook never apply and are not written.
"""

from __future__ import annotations

from collections import defaultdict
from phasing_rules.interpreter.game.model import Game, Permanent, earlier_name, merge_status

PHASE = "phase"
UNDER = "phased_out_under"
INDIRECT = "phased_indirectly"
BATTLEFIELD = "battlefield"


def _phase(o: Permanent) -> str:
    for key, value in o.status:
        if key == PHASE:
            return value
    return "in"


def untap_step(game: Game, player: str, *, state_based: bool = False) -> dict[str, Permanent]:
    """The objects after `player`'s untap step (phasing, then untapping). `game` is not changed."""
    objects = game.objects

    # One pass: who is attached to what, and the two selections of 702.26a.
    children: dict[str, list[Permanent]] = defaultdict(list)
    going_out: list[Permanent] = []
    coming_in: list[Permanent] = []
    for o in objects.values():
        if o.zone != BATTLEFIELD:
            continue
        if o.attached_to is not None:
            children[o.attached_to].append(o)
        phase, under, indirectly = "in", None, False
        for key, value in o.status:
            if key == PHASE:
                phase = value
            elif key == UNDER:
                under = value
            elif key == INDIRECT:
                indirectly = value
        if phase == "in":
            if o.controller == player and "phasing" in o.keywords:
                going_out.append(o)
        elif under == player and not indirectly:
            coming_in.append(o)

    # 702.26g/h: everything phased in and attached, down the chains, goes out indirectly.
    indirect: dict[str, Permanent] = {}
    stack = [o.id for o in going_out]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child.id not in indirect and _phase(child) == "in":
                indirect[child.id] = child
                stack.append(child.id)

    # 702.26g: what phased out indirectly comes back with its host, down the chains.
    arriving: dict[str, Permanent] = {o.id: o for o in coming_in}
    stack = list(arriving)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child.id not in arriving and _phase(child) == "out" and dict(child.status).get(INDIRECT, False):
                arriving[child.id] = child
                stack.append(child.id)

    # All of it at once, then 502.3: the active player untaps what they control and the game
    # can see. One new object per permanent that changes.
    changes: dict[str, dict] = {}
    for o in going_out:
        if o.id not in indirect:
            changes[o.id] = {PHASE: "out", INDIRECT: False, UNDER: o.controller}
    for o in indirect.values():
        changes[o.id] = {PHASE: "out", INDIRECT: True, UNDER: o.controller}
    for o in arriving.values():
        changes[o.id] = {PHASE: "in", INDIRECT: False, UNDER: None}
    new = dict(objects)
    for oid, change in changes.items():
        o = objects[oid]
        coming = change[PHASE] == "in"
        untap = coming and o.tapped and o.controller == player
        new[oid] = o.replace(status=merge_status(o.status, change), tapped=o.tapped and not untap,
                            attacking=o.attacking and coming)
    for oid, o in objects.items():
        if o.tapped and o.controller == player and oid not in changes and o.zone == BATTLEFIELD and _phase(o) == "in":
            new[oid] = o.replace(tapped=False)

    if state_based:
        _state_based_actions(game, new, children)
    return new


# ---------------------------------------------------------------- state-based actions


def _visible(objects: dict[str, Permanent], game: Game, ref: str) -> bool:
    o = objects.get(ref)
    if o is not None:
        return o.zone == BATTLEFIELD and _phase(o) == "in"
    p = game.players.get(ref)
    return p is not None and p.in_game


def _to_graveyard(o: Permanent) -> Permanent:
    """A new object in the graveyard (400.7): it keeps none of its battlefield state."""
    return o.replace(zone="graveyard", tapped=False, counters=(), damage=0, attached_to=None,
                    attacking=False, status=(), controller=o.owner)


def _state_based_actions(game: Game, objects: dict[str, Permanent], children: dict[str, list[Permanent]]) -> None:
    """704.5m, 704.5n and 704.5d until nothing changes, each round all at once (704.3).

    The first round looks at every attachment and token; a later one only at what was
    attached to something that changed in the round before, and at tokens that moved.
    """
    candidates = [oid for oid, o in objects.items() if o.attached_to is not None or o.token]
    while candidates:
        moves: list[Permanent] = []
        unattach: list[Permanent] = []
        cease: list[Permanent] = []
        for oid in dict.fromkeys(candidates):
            o = objects[oid]
            if o.token and o.zone not in (BATTLEFIELD, "nowhere"):
                cease.append(o)
                continue
            if o.zone != BATTLEFIELD or _phase(o) == "out":
                continue
            host = o.attached_to
            if "aura" in o.types:
                if host is None or not _visible(objects, game, host) or (
                        host in objects and "protection_from_enchantments" in objects[host].keywords):
                    moves.append(o)
            elif ("equipment" in o.types or "fortification" in o.types) and host is not None:
                if not _visible(objects, game, host) or (
                        host in objects and "protection_from_artifacts" in objects[host].keywords):
                    unattach.append(o)
        candidates = []
        for o in moves:
            objects[o.id] = _to_graveyard(o)
            candidates.append(o.id)
            gone = earlier_name(o.id, o.incarnation)  # (what stays attached to the object it was: 400.7)
            for c in children.get(o.id, ()):
                candidates.append(c.id)
                now = objects[c.id]
                if now.zone == BATTLEFIELD and now.attached_to == o.id:
                    objects[c.id] = now.replace(attached_to=gone)
        for o in unattach:
            objects[o.id] = o.replace(attached_to=None)
        for o in cease:
            objects[o.id] = o.replace(zone="nowhere")
