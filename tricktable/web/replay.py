"""A whole game from its record, step by step, every hand face up.

The record is checked first (:func:`tricktable.rules.verify.verify_record`), then
replayed through the rules engine, so what the page draws at each step is
what the engine says the table looked like, not a second reading of the
record's fields. One frame per deal as dealt and one after each action;
the frame after the last action of a deal shows it complete (last trick,
points), and the frame of an annotated action carries the bot's note. A
frame knows its deal and trick, which the page's "jump to" and permalinks
use.
"""

from __future__ import annotations

from typing import Any

from tricktable.protocol.convert import action_id
from tricktable.rules.actions import as_decided, describe
from tricktable.rules.game import DealState
from tricktable.rules.match import Match
from tricktable.rules.record import GameRecord, parse_record
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import RecordedDecks
from tricktable.rules.verify import verify_record
from tricktable.web.jsonview import board_json, to_json


class ReplayError(ValueError):
    """The record can not be replayed (it does not verify); the message says where it departs from the rules."""


def replay(data: object) -> dict[str, Any]:
    """``{"meta", "frames", "deals"}`` for the replay page.

    Raises:
        ReplayError: the record is not valid.
    """
    found = verify_record(data)
    if found is not None:
        raise ReplayError(f"the record does not replay: {found}")
    record = parse_record(data)
    names = [name for _, name in sorted(record.seats)]
    match = Match.start(game_rules(record.game), record.options, RecordedDecks([d.deck for d in record.deals]),
                        seed=record.seed)
    players = match.config.players
    frames: list[dict[str, Any]] = []
    deals: list[dict[str, Any]] = []
    for index, recorded in enumerate(record.deals):
        deals.append({"number": recorded.number, "dealer": recorded.dealer, "points": list(recorded.points),
                      "scores": list(recorded.scores), "frame": len(frames)})
        deal, before = _deal_of(match, index)
        frames.append(_frame(deal, before, players, f"deal {recorded.number}: {names[deal.dealer]} deals"))
        for step in recorded.actions:
            match = match.apply(as_decided(step.action), step.seat)
            deal, before = _deal_of(match, index)
            frame = _frame(deal, before, players, f"{names[step.seat]}: {describe(step.action)}", actor=step.seat)
            frame["action_id"] = action_id(as_decided(step.action))  # what an annotation's values are keyed by
            if step.annotation:  # the bot's note, beside its move (records carry it once the table ended)
                frame["annotation"] = step.annotation.to_json()
            frames.append(frame)
    return {"meta": _meta(record, names), "frames": frames, "deals": deals}


def _deal_of(match: Match, index: int) -> tuple[DealState, tuple[int, ...]]:
    """The ``index``-th deal (0-based), finished or current, with the totals before it."""
    return match.finished[index] if index < len(match.finished) else (match.deal, match.scores_before)


def _frame(deal: DealState, before: tuple[int, ...], players: int, label: str,
           actor: int | None = None) -> dict[str, Any]:
    views = [deal.view(seat, before) for seat in range(players)]
    board = board_json(views[0], hands=[[c.code for c in v.hand] for v in views])
    # Everything face up: the buried card, the kitty and the discards come from the seat that holds them.
    for seat_view in views:
        for key in ("buried", "kitty", "discards"):
            value = to_json(getattr(seat_view, key))
            if value:
                board[key] = value
    board["seat"] = None
    tricks = board["tricks"]
    playing = board["current_trick"] is not None and board["current_trick"]["cards"]
    return {"deal": deal.number, "trick": len(tricks) + (1 if playing else 0), "label": label, "actor": actor,
            "board": board}


def _meta(record: GameRecord, names: list[str]) -> dict[str, Any]:
    result = record.result
    return {"game": record.game, "options": to_json(record.options), "names": names,
            "sides": [list(s) for s in record.sides], "seed": record.seed,
            "result": {"status": result.status, "winners": list(result.winners), "scores": list(result.scores),
                       "reason": result.reason},
            "seats": to_json(record.raw.get("seats", []))}
