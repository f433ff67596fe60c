"""What a seat may know (docs/games.md, common rules and 1.4) and the deal record (docs/records.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from tests.games_support import LAYOUTS, layout_id
from tests.rules.spoil_five_helpers import deck_for, do, play_cards, start
from tricktable.rules.actions import Play, Rob, action_sort_key
from tricktable.rules.cards import card, codes
from tricktable.rules.events import Jinked, JinkPassed, Robbed, history_seen_by
from tricktable.rules.match import Match
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks
from tricktable.rules.spoil_five import SpoilFiveDeal

HOLDER = {1: "KD 2C 3C 4C 6C", 2: "AD 9S 2H 3H 4H", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}


def _hidden_from(deal: SpoilFiveDeal, seat: int) -> set[str]:
    """Cards ``seat`` may not know: other hands, the stock, and a buried card not its own."""
    hidden = {c.code for other, hand in enumerate(deal.hands) if other != seat for c in hand}
    used = {c for hand in deal.dealt for c in hand} | {deal.turn_up}
    hidden |= {c.code for c in deal.deck if c not in used}
    if deal.buried is not None and deal.robbed_by != seat:
        hidden.add(deal.buried.code)
    # Cards played are public; the turn-up is public even once robbed.
    played = {c.code for t in (*deal.tricks, deal.trick) for c in t.cards}
    return hidden - played - {deal.turn_up.code}


def _leaks(deal: SpoilFiveDeal, seat: int) -> set[str]:
    view = deal.view(seat, (0, 0))
    text = repr(view) + json.dumps(dict(view.extras))  # the history's typed events are in the repr
    return {code for code in _hidden_from(deal, seat) if f"Card({code})" in text or f'"{code}"' in text}


def test_view_shows_own_hand_and_public_facts_only() -> None:
    deal = play_cards(start("twenty_five", HOLDER, "5D"), "KD")
    view = deal.view(3, (0, 0))
    assert codes(view.hand) == ["7H", "8H", "9H", "TH", "JH"]
    assert view.turn_up is not None and view.turn_up.code == "5D" and view.trump is not None
    assert view.to_act == 2 and view.legal_actions == ()
    assert view.hand_sizes == (5, 4, 5, 5)
    assert view.current_trick is not None and codes(view.current_trick.cards) == ["KD"]
    assert view.sides == ((0, 2), (1, 3)) and view.dealer == 0 and view.deal_number == 1
    assert view.options["players"] == 4
    for seat in range(4):
        assert _leaks(deal, seat) == set()


def test_legal_actions_only_in_the_view_of_the_seat_to_act() -> None:
    deal = play_cards(start("twenty_five", HOLDER, "5D"), "KD")
    assert [s for s in range(4) if deal.view(s, (0, 0)).legal_actions] == [2]
    assert list(deal.view(2, (0, 0)).legal_actions) == deal.legal_actions()


def test_holder_of_the_ace_is_hidden_until_they_rob() -> None:
    # Seat 2 or seat 3 holds the ace of trumps: nothing in seat 1's view tells which.
    one = start("twenty_five", HOLDER, "5D")
    swapped = {**HOLDER, 2: "7H 9S 2H 3H 4H", 3: "AD 8H 9H TH JH"}
    other = start("twenty_five", swapped, "5D")
    assert one.view(1, (0, 0)) == other.view(1, (0, 0))
    assert one.view(0, (0, 0)) == other.view(0, (0, 0))


def test_the_rob_is_public_the_buried_card_only_to_the_robber() -> None:
    deal = do(play_cards(start("twenty_five", HOLDER, "5D"), "KD"), "rob 9S", "play 5D")
    robber = deal.view(2, (0, 0))
    assert robber.robbed_by == 2 and robber.buried is not None and robber.buried.code == "9S"
    assert robber.history[1] == Robbed(seat=2, taken=card("5D"), buried=card("9S"))
    for seat in (0, 1, 3):
        view = deal.view(seat, (0, 0))
        assert view.robbed_by == 2 and view.buried is None
        assert view.history[1] == Robbed(seat=2, taken=card("5D"), buried=None)
        assert _leaks(deal, seat) == set()


def test_dealer_rob_public_buried_card_private() -> None:
    deal = do(start("forty_five", HOLDER, "AS"), "rob 8C")
    assert deal.view(0, (0, 0)).buried is not None
    assert deal.view(1, (0, 0)).buried is None
    assert deal.view(1, (0, 0)).history == (Robbed(seat=0, taken=card("AS"), buried=None),)
    for seat in range(4):
        assert _leaks(deal, seat) == set()


def test_jink_is_public() -> None:
    deal = do(start("forty_five", HOLDER, "5D", jink=True), "pass_jink", "jink")
    view = deal.view(0, (0, 0))
    assert view.jinked_by == 2
    assert view.history == (JinkPassed(seat=1), Jinked(seat=2))


def test_deal_record_has_every_field_of_game_record_md() -> None:
    quick = {1: "2D 3D 4D 6D 7D", 2: "5S JS AH KS QS", 3: "2H 3H 4H 6H 7H", 0: "2C 3C 4C 6C 7C"}
    deck = deck_for(quick, "8S", dealer=0)
    deal = play_cards(start("twenty_five", quick, "8S", scores=(15, 5)), "2D 5S 2H 2C JS 3H 3C 3D")
    assert deal.to_record((15, 5)) == {
        "number": 1,
        "dealer": 0,
        "deck": codes(deck),
        "hands": {"0": ["2C", "3C", "4C", "6C", "7C"], "1": ["2D", "3D", "4D", "6D", "7D"],
                  "2": ["5S", "JS", "AH", "KS", "QS"], "3": ["2H", "3H", "4H", "6H", "7H"]},
        "turn_up": "8S",
        "trump": "S",
        "actions": [{"seat": s, "type": "play", "card": c} for s, c in zip(
                    [1, 2, 3, 0, 2, 3, 0, 1], ["2D", "5S", "2H", "2C", "JS", "3H", "3C", "3D"], strict=True)],
        "tricks": [{"leader": 1, "cards": ["2D", "5S", "2H", "2C"], "winner": 2},
                   {"leader": 2, "cards": ["JS", "3H", "3C", "3D"], "winner": 2}],
        "points": [10, 0],
        "scores": [25, 5],
    }


def test_unfinished_trick_is_in_actions_not_in_tricks() -> None:
    deal = play_cards(start("forty_five", HOLDER, "5D"), "KD AD")
    record = deal.to_record((0, 0))
    assert len(record["actions"]) == 2 and record["tricks"] == []
    assert record["points"] == [0, 0] and record["bonus"] is None


def test_whole_match_record_round_trips_through_json_and_replays() -> None:
    match = new_match("forty_five", {"players": 3, "jink": True}, seed="record")
    while not match.is_over:
        match = match.apply(match.legal_actions()[-1])
    record = json.loads(json.dumps(match.to_record(seed="record")))
    assert record["game"] == "forty_five" and record["sides"] == [[0], [1], [2]]
    assert all("bonus" in d for d in record["deals"])
    assert record["result"]["status"] == "finished"
    # Replaying the recorded actions from the recorded decks rebuilds the same record.
    replay = new_match("forty_five", record["options"],
                       decks=RecordedDecks([[card(c) for c in d["deck"]] for d in record["deals"]]))
    for deal in record["deals"]:
        for act in deal["actions"]:
            replay = replay.apply(action_from_json(act), act["seat"])
    again = replay.to_record(seed="record")
    assert again["deals"] == record["deals"] and again["result"] == record["result"]


SPOIL_FIVE_LAYOUTS = [layout for layout in LAYOUTS if layout[0] in ("twenty_five", "forty_five")]


def _random_states(layout: tuple[str, dict[str, object]], seed: str) -> Iterator[Match]:
    """Every state of six random matches of ``layout``, their first three deals each."""
    game, options = layout
    for number in range(6):
        match = new_match(game, options, seed=f"{seed}-{number}")
        rng = random.Random(number)
        while not match.is_over and len(match.finished) < 3:
            yield match
            match = match.apply(rng.choice(match.legal_actions()))


@pytest.mark.parametrize("layout", SPOIL_FIVE_LAYOUTS, ids=layout_id)
def test_a_views_history_kept_as_the_deal_goes_is_the_deals_events_as_the_seat_sees_them(
        layout: tuple[str, dict[str, object]]) -> None:
    """The deal keeps its action events as they happen; each seat's view of them is still ``history_seen_by``."""
    robbed = 0
    for match in _random_states(layout, "kept-history"):
        deal = match.deal
        for seat in range(match.config.players):
            assert match.view(seat).history == history_seen_by(deal.events, seat)
        robbed += isinstance(deal, SpoilFiveDeal) and deal.robbed_by is not None
    assert robbed  # a buried card was there to be hidden from the other seats


@pytest.mark.parametrize("layout", SPOIL_FIVE_LAYOUTS, ids=layout_id)
def test_legal_actions_listed_plays_then_robs_by_card_are_in_action_sort_key_order(
        layout: tuple[str, dict[str, object]]) -> None:
    robs = 0
    for match in _random_states(layout, "legal-order"):
        legal = match.legal_actions()
        assert legal == sorted(legal, key=action_sort_key)
        robs += any(isinstance(action, Rob) for action in legal)
    assert robs  # the robs' place after the plays was checked


@pytest.mark.parametrize("layout", SPOIL_FIVE_LAYOUTS, ids=layout_id)
def test_a_card_is_offered_as_one_play_object_in_every_state(layout: tuple[str, dict[str, object]]) -> None:
    """A legal play is a frozen value built once per card, not a new one for every view that lists it."""
    offered: dict[str, object] = {}
    again = 0
    for match in _random_states(layout, "one-play"):
        for action in match.legal_actions():
            if isinstance(action, Play):
                again += action.card.code in offered
                assert offered.setdefault(action.card.code, action) is action
    assert again  # a card was offered in more than one state
