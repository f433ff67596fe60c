"""One row per decision of a recorded game, made from that seat's view: the learner's training data.

A record (docs/records.md) is replayed through the rules engine; before each recorded action the
acting seat's :class:`~tricktable.rules.game.SeatView` is taken from the match, exactly as a bot
gets it, and turned into a row: the view as :mod:`tricktable.envs.encoding` encodes it and as
readable notation, the legal actions, the action taken, and, once the replay is over, how the
deal and the game turned out for that seat's side. Why a replay and not the record's fields: the
record holds every hand and deck, and a row must hold only what the seat could see then.

A Cinq Cents discard is six rows, one card picked each (``pick`` 0-5, the cards in card order),
as the environment and :class:`~tricktable.envs.encoding.PolicyBot` take it.

:data:`COLUMNS` is the schema (docs/datasets.md): every row has exactly these keys, with plain JSON
values, so the JSON Lines and Parquet files hold the same rows. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tricktable.envs.encoding import ACTIONS, PICK, action_index, action_mask, encode, is_discard
from tricktable.rules.actions import Action, Discard, as_decided
from tricktable.rules.cards import Card
from tricktable.rules.errors import OptionsError, RuleError
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.notation import notation
from tricktable.rules.record import GameRecord, parse_record
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import RecordedDecks
from tricktable.rules.verify import verify_record

#: The dataset's format name, in every row: a reader can refuse rows of a format it does not know.
FORMAT = "tricktable-decisions/1"


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its name, its type (``string``, ``int``, ``floats``, ``strings``, ``ints``;
    ``?`` when it may be null) and what it means."""

    name: str
    kind: str
    meaning: str

    @property
    def nullable(self) -> bool:
        """Whether the value may be null."""
        return self.kind.endswith("?")


#: Every column, in order (docs/datasets.md lists them, and a test holds the two to the same names and types).
COLUMNS: tuple[Column, ...] = (
    Column("format", "string", f"the dataset format, {FORMAT!r}"),
    Column("record_id", "string", "the game the row comes from: a tournament's match id, a self-play game's seed, "
                                  "or the record's file (and line, for JSON Lines)"),
    Column("game", "string", "twenty_five, forty_five, all_fives or cinq_cents"),
    Column("options", "string", "the game's resolved options as JSON text (docs/games.md), sorted keys"),
    Column("players", "int", "seats at the table"),
    Column("seat", "int", "the seat deciding (0 to players - 1)"),
    Column("side", "int", "the seat's side (an index of the record's sides)"),
    Column("player", "string", "the seat's name in the record (a tournament's entrant, a self-play bot)"),
    Column("deal", "int", "the deal's number, 1-based, redeals counted"),
    Column("decision", "int", "the index of the action in the deal's recorded actions, 0-based"),
    Column("pick", "int?", "Cinq Cents discard: which of the six one-card picks (0-5), else null"),
    Column("observation", "floats", "the view encoded by tricktable.envs.encoding.encode (OBSERVATION_SIZE numbers)"),
    Column("hand", "strings", "the seat's cards now, in card order"),
    Column("trump", "string?", "the trump suit (C, D, H, S) or NT, null while unknown"),
    Column("turn_up", "string?", "the card turned up for trump, if any"),
    Column("exposed", "strings", "All Fives: every card exposed this deal, turn-up first"),
    Column("dealer", "int", "the dealer's seat"),
    Column("trick_leader", "int?", "the seat that led the trick in progress, null between tricks"),
    Column("trick", "strings", "the cards of the trick in progress, in playing order"),
    Column("trick_winners", "ints", "the seat that took each completed trick of this deal, in order"),
    Column("history", "strings", "the deal's actions as this seat saw them, \"SEAT NOTATION\" "
                                 "(a hidden rob or discard is its type alone: \"1 rob\")"),
    Column("scores", "ints", "each side's score now, as the view shows it (Twenty-Five counts this deal's tricks "
                             "as they are won)"),
    Column("deal_points", "ints", "each side's points in this deal so far"),
    Column("hand_sizes", "ints", "cards each seat holds now"),
    Column("contract", "string?", "Cinq Cents: the contract as \"SEAT bid-TRICKS-SUIT\", null before it"),
    Column("kitty", "strings", "Cinq Cents: the kitty as dealt, to the declarer only (else empty)"),
    Column("discards", "strings", "Cinq Cents: the declarer's own discards (else empty)"),
    Column("picked", "strings", "Cinq Cents: cards picked so far in the discard this row is part of"),
    Column("robbed_by", "int?", "Twenty-Five, Forty-Five: the seat that robbed this deal"),
    Column("buried", "string?", "the card this seat buried when it robbed (the robber only)"),
    Column("jinked_by", "int?", "Forty-Five with jink: the seat that declared"),
    Column("legal_actions", "strings", "the actions the seat could take, as notations (docs/records.md); "
                                       "for a discard pick, pick-CARD"),
    Column("legal_indices", "ints", "the same, as indices of tricktable.envs.encoding.ACTIONS"),
    Column("action", "string", "the action taken, as its notation (pick-CARD for a discard pick)"),
    Column("action_index", "int", "the action taken, as an index of tricktable.envs.encoding.ACTIONS"),
    Column("deal_outcome", "int?", "the seat's side's points in this deal, null when the deal was not finished"),
    Column("deal_margin", "int?", "those points minus the best other side's; null when the deal was not finished"),
    Column("game_status", "string", "finished or aborted"),
    Column("game_outcome", "int?", "1 when the seat's side won the game (a shared win too), -1 when it lost, "
                                   "null when the game was aborted"),
    Column("game_margin", "int", "the side's final score minus the best other side's (the scores when it stopped)"),
)
#: The column names, in order.
COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)


class RecordRefused(ValueError):
    """A record that does not replay: it gives no rows. The message says where it departs from the rules."""


def decision_rows(record_id: str, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every decision of a loaded record (the value ``json.loads`` gave), as rows of :data:`COLUMNS`.

    Raises:
        RecordRefused: the record is malformed or departs from the rules (``tricktable verify`` says the same).
    """
    found = verify_record(data)
    if found is not None:
        raise RecordRefused(str(found))
    record = parse_record(data)
    try:
        return list(_rows(record_id, record))
    except (RuleError, OptionsError) as exc:  # verify_record accepted it: the engine and the check disagree
        raise RecordRefused(f"the record verifies but does not replay: {exc}") from None


def _rows(record_id: str, record: GameRecord) -> Iterator[dict[str, Any]]:
    rules = game_rules(record.game)
    match = Match.start(rules, record.options, RecordedDecks([d.deck for d in record.deals]), seed=record.seed)
    options = json.dumps(match.config.to_options(), sort_keys=True, ensure_ascii=False)
    sides = match.config.sides
    side_of = {seat: k for k, members in enumerate(sides) for seat in members}
    names = dict(record.seats)
    pending: list[tuple[int, dict[str, Any]]] = []  # (deal position, row) until the outcomes are known
    for number, deal in enumerate(record.deals, start=1):
        for index, recorded in enumerate(deal.actions):
            view = match.view(recorded.seat)
            common = {"format": FORMAT, "record_id": record_id, "game": record.game, "options": options,
                      "players": match.config.players, "seat": recorded.seat, "side": side_of[recorded.seat],
                      "player": names.get(recorded.seat, ""), "deal": number, "decision": index}
            taken = as_decided(recorded.action)
            for row in _decision(view, taken):
                pending.append((number, {**common, **row}))
            match = match.apply(recorded.action, recorded.seat)
    points = [d.points for d, _ in match.finished]
    result = match.result
    finished = result is not None and result.status == "finished"
    final = result.scores if result is not None else match.scores
    for number, row in pending:
        side = row["side"]
        deal_points = points[number - 1] if number <= len(points) else None
        yield {
            **row,
            "deal_outcome": None if deal_points is None else deal_points[side],
            "deal_margin": None if deal_points is None else _margin(deal_points, side),
            "game_status": "finished" if finished else "aborted",
            "game_outcome": (1 if side in result.winners else -1) if finished and result is not None else None,
            "game_margin": _margin(final, side),
        }


def _margin(values: tuple[int, ...], side: int) -> int:
    """The side's value minus the best other side's (the value itself with no other side)."""
    return values[side] - max((v for k, v in enumerate(values) if k != side), default=0)


def _decision(view: SeatView, taken: Action) -> Iterator[dict[str, Any]]:
    """The row of one decision without its ids and outcomes; six of them for a discard."""
    if not is_discard(view):
        yield {"pick": None, **view_facts(view, ()), **_legal(view, ()), "action": notation(taken),
               "action_index": action_index(taken)}
        return
    if not isinstance(taken, Discard):  # verify_record refuses such a record first
        raise RecordRefused(f"deal {view.deal_number}: a discard was due, the record has {notation(taken)}")
    cards = sorted(taken.cards)
    for pick, card in enumerate(cards):
        picked = tuple(cards[:pick])
        text = f"{PICK}-{card.code}"
        yield {"pick": pick, **view_facts(view, picked), **_legal(view, picked), "action": text,
               "action_index": ACTIONS.index(text)}


def _legal(view: SeatView, picked: tuple[Card, ...]) -> dict[str, Any]:
    mask = action_mask(view, picked)
    indices = [i for i, allowed in enumerate(mask) if allowed]
    return {"legal_actions": [ACTIONS[i] for i in indices], "legal_indices": indices}


def view_facts(view: SeatView, picked: tuple[Card, ...] = ()) -> dict[str, Any]:
    """The columns made of the view alone: its encoding and its readable facts (docs/datasets.md)."""
    trick = view.current_trick
    contract = view.contract
    return {
        "observation": encode(view, picked),
        "hand": _codes(sorted(view.hand)),
        "trump": "NT" if view.no_trump else (view.trump.value if view.trump is not None else None),
        "turn_up": view.turn_up.code if view.turn_up is not None else None,
        "exposed": _codes(view.exposed),
        "dealer": view.dealer,
        "trick_leader": trick.leader if trick is not None else None,
        "trick": _codes(trick.cards) if trick is not None else [],
        "trick_winners": [t.taken_by for t in view.tricks],
        "history": [f"{e.seat} {notation(e.action) if e.action is not None else e.action_type}"
                    for e in view.history],
        "scores": list(view.scores),
        "deal_points": list(view.deal_points),
        "hand_sizes": list(view.hand_sizes),
        "contract": (f"{contract.seat} bid-{contract.tricks}-{contract.denomination.value}"
                     if contract is not None else None),
        "kitty": _codes(view.kitty),
        "discards": _codes(view.discards),
        "picked": _codes(picked),
        "robbed_by": view.robbed_by,
        "buried": view.buried.code if view.buried is not None else None,
        "jinked_by": view.jinked_by,
    }


def _codes(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [c.code for c in cards]
