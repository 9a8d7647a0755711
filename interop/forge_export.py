"""`phasing export forge SCENARIO`: a scenario's starting state written in Forge's game-state
text, the inverse of `interop.forge`'s import, by the same mapping file.

The state is the one `phasing run` starts from (built and checked under the newest version the
scenario names). A permanent's statuses are written as the attribute of the mapping whose `set`
they match, with the seat of the player its `{seat}` stands for; the statuses the mapping infers
of an attachment whose host has that attribute too are left for the import to infer again. What Forge's text has no place for
(stickers, extra keywords, a turn a permanent entered other than the current one, a status no
attribute stands for) is a warning at the scenario's `permanent` line; a token no description
of the mapping stands for is an error there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ..dsl import ast
from ..dsl.diagnostics import Diagnostic, DiagnosticError, Span
from ..dsl.printer import expr_text
from .forge import CONTROLLER_PLACEHOLDER, MOST_SEATS, SEAT_PLACEHOLDER, STARTING_LIFE, Mapping, load_mapping

START_PHASE = "MAIN1"  # (where a scenario starts: its turn's precombat main phase)


@attrs.frozen
class Exported:
    """What an export gives: Forge's text (None when there are errors), warnings and errors."""

    state: str | None
    warnings: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]


def export_scenario(path: str | Path, name: str | None = None, mapping_path: str | Path | None = None) -> Exported:
    """The starting state of the scenario of `path` (the one called `name`, when the file has
    several) as Forge's game-state text. A file that does not parse or check, or that has no
    such scenario, raises DiagnosticError."""
    from ..interpreter.rulebook.loading import load_version
    from ..interpreter.play.scenario import build_game, scenario_versions
    from ..interpreter.play.suite import collect, current_version

    cases, problems = collect([path])
    if problems:
        raise DiagnosticError(problems)
    if name is not None:
        chosen = [c for c in cases if c.scenario.name == name]
    else:
        chosen = cases
    if len(chosen) != 1:
        names = ", ".join(repr(c.scenario.name) for c in cases) or "none"
        what = f"no scenario called {name!r}" if name is not None and not chosen else \
            f"{len(chosen)} scenarios" if chosen else "no scenario"
        raise DiagnosticError(Diagnostic("error", f"{path} has {what}: one scenario is exported at a time",
                                         Span(str(path), 0, 0, 0, 0), f"name one with --scenario NAME; the scenarios: {names}"))
    case = chosen[0]
    versions = scenario_versions(case.scenario)
    book = load_version(versions[-1] if versions else current_version()).with_cards(case.cards)
    game = build_game(case.scenario, book)
    mapping = load_mapping(mapping_path, load_version(current_version()), set(book.cards))
    spans = {e.name: e.span for e in case.scenario.entries if isinstance(e, ast.PermanentDecl)}
    return _written(game, book, mapping, spans)


def _value_text(value: Any) -> str:
    """A status's stored value as the scenario language writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def _written(game: Any, book: Any, mapping: Mapping, spans: dict[str, Span]) -> Exported:
    warnings: list[Diagnostic] = []
    errors: list[Diagnostic] = []
    players = list(game.order)
    if len(players) > MOST_SEATS:
        raise DiagnosticError(Diagnostic("error", f"{len(players)} players: Forge's seats are p0 to p{MOST_SEATS - 1}",
                                         next(iter(spans.values()), Span("<scenario>", 0, 0, 0, 0))))
    prefixes = ["human", "ai"] if len(players) == 2 else [f"p{n}" for n in range(len(players))]
    seat = {player: n for n, player in enumerate(players)}
    defaults = {s: expr_text(decl.default) for s, decl in book.statuses.items()}
    permanents = [o for o in game.objects.values() if o.zone == "battlefield"]
    ids = {o.id: n for n, o in enumerate(permanents, 1)}
    descriptions: dict[str, str] = {}
    for description, card in mapping.tokens.items():
        descriptions.setdefault(card, description)

    def status_of(o, status: str) -> str:
        return _value_text(o.statuses[status]) if status in o.statuses else defaults.get(status, "none")

    def attribute_of(o) -> tuple[str, str, set[str]] | None:
        """(attribute, its P<seat>, the statuses it stands for) of the mapping `o` matches."""
        for attribute, meaning in mapping.statuses.items():
            player = None
            for status, wanted in meaning.sets:
                value = status_of(o, status)
                if wanted == CONTROLLER_PLACEHOLDER:
                    wanted = o.controller
                elif wanted == SEAT_PLACEHOLDER:
                    if value not in seat:
                        break
                    player, wanted = value, value
                if value != wanted:
                    break
            else:
                return attribute, f"P{seat[player if player is not None else o.controller]}", {s for s, _ in meaning.sets}
        return None

    lines = [f"turn={game.turn}", f"activeplayer={prefixes[seat[game.active]]}", f"activephase={START_PHASE}"]
    lines += [f"{prefixes[n]}life={STARTING_LIFE}" for n in range(len(players))]
    by_seat: dict[int, list[str]] = {n: [] for n in range(len(players))}
    for o in permanents:
        where = spans.get(o.id, Span("<scenario>", 0, 0, 0, 0))
        if o.token:
            if o.card not in descriptions:
                errors.append(Diagnostic("error", f"{o.id}: no token description of the mapping stands for "
                                                  f"'{o.card}', so Forge could not make this token", where,
                                         f"add \"DESCRIPTION\" = \"{o.card}\" to [tokens] of a copy of {mapping.path} "
                                         "and give it with --mapping"))
                continue
            text = f"t:{descriptions[o.card]}"
        else:
            text = o.card
        fields = [text, f"Id:{ids[o.id]}"]
        if o.owner != o.controller:
            fields.append(f"Owner:P{seat[o.owner]}")
        if o.tapped:
            fields.append("Tapped")
        if o.entered_turn == game.turn and game.turn:
            fields.append("SummonSick")
        elif o.entered_turn:
            warnings.append(Diagnostic("warning", f"{o.id}: entered turn {o.entered_turn} is not carried over: Forge "
                                                  "writes only whether it came under its controller's control this turn",
                                       where))
        if o.attacking:
            fields.append("Attacking")
        if o.counters:
            fields.append("Counters:" + ",".join(f"{kind.upper()}={n}" for kind, n in o.counters))
        if o.damage:
            fields.append(f"Damage:{o.damage}")
        if o.attached_to in ids:
            fields.append(f"AttachedTo:{ids[o.attached_to]}")
        elif o.attached_to in seat:
            fields.append(f"EnchantingPlayer:P{seat[o.attached_to]}")
        covered: set[str] = set()
        found = attribute_of(o)
        if found is not None:
            attribute, player, covered = found
            fields.append(f"{attribute}:{player}")
            host = game.objects.get(o.attached_to) if o.attached_to in ids else None
            host_found = attribute_of(host) if host is not None else None
            if host_found is not None and host_found[0] == attribute:
                for status, wanted in mapping.statuses[attribute].with_host:
                    covered.add(status)
                    if status_of(o, status) != wanted:
                        warnings.append(Diagnostic(
                            "warning", f"{o.id}: {status} = {status_of(o, status)} is not carried over: with "
                                       f"{attribute} on a host with {attribute} too, it reads back as {status} = {wanted}",
                            where))
        for status in sorted(o.statuses):
            if status not in covered and status_of(o, status) != defaults.get(status):
                warnings.append(Diagnostic("warning", f"{o.id}: {status} = {status_of(o, status)} is not carried over: "
                                                      f"no attribute of {mapping.path} stands for it", where))
        if o.stickers:
            warnings.append(Diagnostic("warning", f"{o.id}: its stickers are not carried over: Forge's text has none",
                                       where))
        card = book.cards.get(o.card)
        printed = {k for e in (card.entries if card else ()) if isinstance(e, ast.Keywords) for k in e.names}
        extra = [k for k in o.keywords if k not in printed]
        if extra:
            warnings.append(Diagnostic("warning", f"{o.id}: the keywords it is given ({', '.join(extra)}) are not "
                                                  "carried over: Forge's text has only its card's", where))
        by_seat[seat[o.controller]].append("|".join(fields))
    lines += [f"{prefixes[n]}battlefield={';'.join(cards)}" for n, cards in by_seat.items()]
    if errors:
        return Exported(None, tuple(warnings), tuple(errors))
    return Exported("\n".join(lines) + "\n", tuple(warnings), ())
