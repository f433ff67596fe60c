"""No leak: every message sent to a seat or a spectator shows only what docs/games.md lets it know.

Across random games of every game, each message each seat and a spectator
received is checked at the point of the game it was sent (deal, actions
played so far) in two ways:

- against the rules' own views: every card in the message appears in some
  view that audience had by then (a spectator: in every seat's view, i.e. it
  is public);
- against the record, independently of the views: no card of another seat's
  dealt hand (or of the kitty, for any but the declarer; or, for a spectator,
  of any hand) that has not been played, turned up or exposed by then, and
  never the seed.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

from tests.server.clients import PlaySeat, some_discard
from tests.server.test_service import SHORT, record_of
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.cards import ALL_CARDS, card
from tricktable.rules.match import Match
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import RecordedDecks

CARD = re.compile(r"(?<![A-Za-z0-9_])(?:[2-9TJQKA][CDHS]|JK[BF])(?![A-Za-z0-9_])")
CARDS = frozenset(c.code for c in ALL_CARDS)
GAMES = [("twenty_five", 3), ("forty_five", 3), ("all_fives", 2), ("cinq_cents", 1)]
#: Short games: the checks replay every point of every deal.
OPTIONS = {**SHORT, "cinq_cents": {"target": 100}}


def strings_in(message: Any, out: list[str]) -> list[str]:
    """Every string value in ``message``, nested messages and map keys and values included."""
    for field, value in message.ListFields():
        if field.type == field.TYPE_STRING:
            if field.is_repeated:
                out.extend(value)
            else:
                out.append(value)
        elif field.type == field.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                for key, item in value.items():
                    out.append(str(key))
                    if isinstance(item, str):
                        out.append(item)
                    elif hasattr(item, "ListFields"):
                        strings_in(item, out)
            elif field.is_repeated:
                for item in value:
                    strings_in(item, out)
            else:
                strings_in(value, out)
    return out


def cards_in(message: Any) -> set[str]:
    found: set[str] = set()
    for text in strings_in(message, []):
        if text in CARDS:
            found.add(text)
        elif len(text) > 2:
            found.update(CARD.findall(text))
    return found


def chooser(rng: random.Random) -> Any:
    """Random, except in the Cinq Cents auction (first legal), so that every game ends (see test_service)."""
    def choose(decision: pb.DecisionRequest) -> pb.Decide:
        if decision.HasField("discard_choice"):
            return some_discard(decision, rng)
        actions = list(decision.legal_actions)
        auction = any(a.action.WhichOneof("kind") in ("bid", "pass") for a in actions)
        pick = actions[0] if auction else rng.choice(actions)
        return pb.Decide(decision_id=decision.decision_id, action_id=pick.id)
    return choose


class Knowledge:
    """What each audience may know at each point of each deal, from replaying the record."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.players = len(record["seats"])
        decks = RecordedDecks([[card(c) for c in d["deck"]] for d in record["deals"]])
        match = Match.start(game_rules(record["game"]), record["options"], decks, seed=record["seed"])
        #: (deal number, actions so far) -> per seat, the cards seen in its views so far.
        self.seen: dict[tuple[int, int], list[set[str]]] = {}
        #: (deal number, actions so far) -> cards no longer secret (played, turned up, exposed).
        self.revealed: dict[tuple[int, int], set[str]] = {}
        self.deals = {d["number"]: d for d in record["deals"]}
        for deal in record["deals"]:
            number = deal["number"]
            seen: list[set[str]] = [set() for _ in range(self.players)]
            revealed = {deal["turn_up"]} if deal.get("turn_up") else set()
            for k in range(len(deal["actions"]) + 1):
                if k:
                    entry = deal["actions"][k - 1]
                    match = match.apply(action_from_json(entry), entry["seat"])
                    if entry["type"] == "play":
                        revealed.add(entry["card"])
                    revealed.update(entry.get("exposed") or [])
                state, before = (match.finished[-1] if match.finished and match.finished[-1][0].number == number
                                 else (match.deal, match.scores_before))
                for seat in range(self.players):
                    seen[seat] |= cards_in(convert.view_to_proto(state.view(seat, before)))
                self.seen[(number, k)] = [set(s) for s in seen]
                self.revealed[(number, k)] = set(revealed)

    def allowed(self, audience: int | None, point: tuple[int, int]) -> set[str]:
        seen = self.seen[point]
        if audience is None:
            return set.intersection(*seen)
        return seen[audience]

    def secret(self, audience: int | None, point: tuple[int, int]) -> set[str]:
        deal = self.deals[point[0]]
        hidden: set[str] = set()
        for seat, cards in deal["hands"].items():
            if audience is None or int(seat) != audience:
                hidden.update(cards)
        declarer = (deal.get("contract") or {}).get("seat")
        if audience is None or audience != declarer:
            hidden.update(deal.get("kitty") or [])
        return hidden - self.revealed[point]


class Tracker:
    """Follows one audience's stream to know which deal and action each message belongs to."""

    def __init__(self) -> None:
        self.point = (1, 0)

    def at(self, message: Any) -> tuple[int, int]:
        kind = message.WhichOneof("kind")
        if kind in ("joined", "decision", "started"):
            view = getattr(message, kind).view
            self.point = (view.deal_number, len(view.history))
        elif kind == "event":
            event = message.event
            inner = event.WhichOneof("kind")
            if inner == "deal_started":
                self.point = (event.deal_started.deal_number, 0)
            elif inner in convert.ACTION_EVENT_CASES:
                self.point = (self.point[0], self.point[1] + 1)
            elif inner == "action_timed_out":  # announces the action played next: judge it after that action
                return (self.point[0], self.point[1] + 1)
        return self.point


def check_stream(name: str, audience: int | None, messages: list[Any], knowledge: Knowledge, seed: str) -> int:
    tracker = Tracker()
    checked = 0
    for message in messages:
        if message.WhichOneof("kind") in ("accepted", "rejection"):
            continue
        point = tracker.at(message)
        shown = cards_in(message)
        assert all(seed not in text for text in strings_in(message, [])), f"{name}: the seed was sent"
        too_much = shown - knowledge.allowed(audience, point)
        assert not too_much, f"{name} at deal {point[0]} action {point[1]} was shown {sorted(too_much)}: {message}"
        secret = shown & knowledge.secret(audience, point)
        assert not secret, f"{name} at deal {point[0]} action {point[1]} was shown secret {sorted(secret)}"
        checked += 1
    return checked


async def play_and_check(stub: Any, game: str, index: int) -> int:
    seed = f"leak-{game}-{index}-a-secret-seed"
    request = pb.CreateTableRequest(game=convert.game_to_proto(game), seed=seed,
                                    options=convert.options_to_proto(game, OPTIONS[game]))
    created = await stub.CreateTable(request)
    rng = random.Random(seed)
    seats = [PlaySeat(stub, t.token, choose=chooser(rng)) for t in created.seat_tokens]
    spectating = stub.Spectate(pb.SpectateRequest(table_id=created.table_id, last_seen_sequence=0))
    runs = await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 60)
    watched = [r async for r in spectating]
    record = await record_of(stub, created.table_id)
    assert record["result"]["status"] == "finished"
    assert json.dumps(record).count(seed) == 1  # the record, after the end, is where the seed is
    knowledge = Knowledge(record)
    checked = sum(check_stream(f"{game}#{index} seat {s}", s, run.responses, knowledge, seed)
                  for s, run in enumerate(runs))
    return checked + check_stream(f"{game}#{index} spectator", None, watched, knowledge, seed)


async def test_no_message_tells_a_seat_or_a_spectator_more_than_it_may_know(stub: Any) -> None:
    counts = await asyncio.gather(*(play_and_check(stub, game, i) for game, n in GAMES for i in range(n)))
    assert all(c > 20 for c in counts)


def test_the_checker_catches_a_leak() -> None:
    """The checker itself: a message showing another seat's unplayed card fails."""
    record: dict[str, Any] = {
        "game": "twenty_five", "seed": "x",
        "options": {"players": 4, "first_dealer": 0},
        "seats": [{"seat": s, "name": f"s{s}"} for s in range(4)],
    }
    from tricktable.rules.registry import new_match

    match = new_match("twenty_five", {"players": 4, "first_dealer": 0}, seed="x")
    record["deals"] = [match.deal.to_record(match.scores_before)]
    knowledge = Knowledge(record)
    other_card = record["deals"][0]["hands"]["1"][0]
    message = pb.PlayResponse(decision=pb.DecisionRequest(view=convert.view_to_proto(match.view(0))))
    message.decision.view.hand.append(other_card)
    try:
        check_stream("probe", 0, [message], knowledge, "x-not-present")
    except AssertionError as error:
        assert other_card in str(error)
    else:
        raise AssertionError("the leak went unnoticed")
