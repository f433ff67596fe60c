"""Typed events: ``apply`` tells what happened, in order, and each event says what one audience may see of it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.games_support import LAYOUTS, layout_id
from tests.rules.spoil_five_helpers import do, play_cards, start
from tests.rules.test_cinq_cents_helpers import apply_all, bid, new_deal
from tricktable.rules.actions import Discard, Pass, Play, Rob
from tricktable.rules.cards import card, cards
from tricktable.rules.events import (
    ACTION_EVENTS,
    BidMade,
    CardPlayed,
    ContractSet,
    DealScored,
    DealStarted,
    DealVoided,
    Discarded,
    Event,
    KittyTaken,
    Robbed,
    TrickWon,
    TrumpSet,
    history_seen_by,
)
from tricktable.rules.record import action_to_json
from tricktable.rules.registry import new_match

#: Seat 2 holds the ace of trumps (diamonds) for a holder's rob.
HOLDER = {1: "KD 2C 3C 4C 6C", 2: "AD 9S 2H 3H 4H", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}


def _played(game: str, options: dict[str, Any], seed: str, max_deals: int = 4) -> tuple[Any, list[Event]]:
    """A random match and every event its steps caused, start included; each view checked against them."""
    match = new_match(game, options, seed=seed)
    rng = random.Random(seed)
    told = list(match.events)
    deal_events = list(match.deal.events)
    while not match.is_over and len(match.finished) < max_deals:
        match = match.apply(rng.choice(match.legal_actions()))
        told += match.events
        deal_events = list(match.deal.events)
        seat = rng.randrange(match.config.players)
        assert match.view(seat).history == history_seen_by(tuple(deal_events), seat)
    return match, told


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_the_events_of_a_match_tell_its_record(layout: tuple[str, dict[str, Any]]) -> None:
    game, options = layout
    match, told = _played(game, dict(options), f"events-{layout_id(layout)}")
    record = match.to_record()
    deals: list[list[Event]] = []
    for event in told:
        if isinstance(event, DealStarted):
            deals.append([])
        deals[-1].append(event)
    assert len(deals) == len(record["deals"])
    for events, deal in zip(deals, record["deals"], strict=True):
        started = events[0]
        assert isinstance(started, DealStarted)
        assert (started.number, started.dealer, started.redeal) == (deal["number"], deal["dealer"],
                                                                     bool(deal.get("redeal")))
        assert {s: sorted(h) for s, h in started.hands.items()} == {
            int(s): sorted(cards(" ".join(h))) for s, h in deal["hands"].items()}
        acted = [{"seat": e.seat, **action_to_json(e.action)} for e in events
                 if isinstance(e, ACTION_EVENTS) and e.action is not None]
        assert acted == deal["actions"]
        won = [e.trick for e in events if isinstance(e, TrickWon)]
        assert [{"leader": t.leader, "cards": [c.code for c in t.cards], "winner": t.winner} for t in won] == \
            deal["tricks"]
        assert [e.number for e in events if isinstance(e, TrickWon)] == list(range(1, len(won) + 1))
        ends = [e for e in events if isinstance(e, DealScored | DealVoided)]
        finished = deal is not record["deals"][-1] or (match.result is not None and match.result.status == "finished")
        if finished:
            assert len(ends) == 1 and events[-1] is ends[0]
            end = ends[0]
            if isinstance(end, DealScored):
                assert (list(end.points), list(end.scores)) == (deal["points"], deal["scores"])
            else:
                assert deal["points"] == [0] * len(deal["points"])


def test_a_rob_tells_the_buried_card_to_the_robber_alone() -> None:
    deal = do(play_cards(start("twenty_five", HOLDER, "5D"), "KD"), "rob 9S")
    robbed = deal.events[-1]
    assert robbed == Robbed(seat=2, taken=card("5D"), buried=card("9S"))
    assert robbed.seen_by(2) is robbed
    for audience in (0, 1, 3, None):
        assert robbed.seen_by(audience) == Robbed(seat=2, taken=card("5D"), buried=None)
        assert robbed.seen_by(audience).action is None
    assert robbed.action == Rob(card=card("9S"))


def test_a_spoil_five_deal_opens_with_its_trump_and_a_trick_is_told_after_its_last_card() -> None:
    deal = start("twenty_five", HOLDER, "5D")
    assert deal.events == (TrumpSet(trump=card("5D").suit),)
    after = play_cards(deal, "KD")
    assert after.events[1:] == (CardPlayed(seat=1, card=card("KD")),)


def test_the_end_of_the_auction_tells_contract_trump_and_kitty_to_the_declarer_alone() -> None:
    state = apply_all(new_deal(dealer=0), [bid("6 S"), Pass(), Pass(), Pass()])
    assert [type(e) for e in state.events] == [BidMade, type(state.events[1]), type(state.events[2]),
                                               type(state.events[3]), ContractSet, TrumpSet, KittyTaken]
    contract = state.events[4]
    assert isinstance(contract, ContractSet) and contract.contract.seat == 1
    kitty = state.events[-1]
    assert isinstance(kitty, KittyTaken) and kitty.kitty == state.kitty
    assert kitty.seen_by(1) is kitty
    assert all(kitty.seen_by(a).kitty is None for a in (0, 2, 3, None))
    discard = Discard(cards=tuple(sorted(state.hands[1]))[:6])
    after = state.apply(discard)
    told = after.events[-1]
    assert told == Discarded(seat=1, cards=discard.cards)
    assert told.seen_by(0) == Discarded(seat=1, cards=None) and told.seen_by(1).action == discard


def test_all_passing_voids_the_deal() -> None:
    state = apply_all(new_deal(dealer=0), [Pass(), Pass(), Pass(), Pass()])
    assert state.events[-1] == DealVoided(number=1)
    assert state.events[-1].reason == "deal 1 is void; the same dealer deals again"


def test_a_deal_started_shows_each_seat_its_own_hand_only() -> None:
    match = new_match("forty_five", {"players": 4}, seed="hands")
    started = match.events[0]
    assert isinstance(started, DealStarted)
    assert set(started.hands) == {0, 1, 2, 3}
    for seat in range(4):
        assert started.seen_by(seat).hands == {seat: match.view(seat).hand}
    assert started.seen_by(None).hands == {}


def test_a_card_played_shows_as_the_action_that_caused_it() -> None:
    event = CardPlayed(seat=0, card=card("JKB"), named_suit=card("5H").suit)
    assert event.action == Play(card=card("JKB"), suit=card("5H").suit)
    assert event.seen_by(None) is event


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_a_deal_just_dealt_hands_out_the_views_its_deal_started_was_made_from(
        layout: tuple[str, dict[str, Any]]) -> None:
    """Each seat's view of a fresh deal is built once (the table sends it at once); any later state builds its own."""
    game, options = layout
    match = new_match(game, dict(options), seed=f"dealt-{layout_id(layout)}")
    rng = random.Random(layout_id(layout))
    deals_seen = 0
    while not match.is_over and deals_seen < 3:
        started = next((e for e in match.events if isinstance(e, DealStarted)), None)
        if started is None:
            assert match.dealt_views == ()
        else:
            deals_seen += 1
            assert len(match.dealt_views) == match.config.players
            for seat in range(match.config.players):
                fresh = match.deal.view(seat, match.scores_before)
                assert match.view(seat) is match.dealt_views[seat]
                assert match.view(seat) == fresh
                assert started.hands[seat] == fresh.hand
        match = match.apply(rng.choice(match.legal_actions()))
    assert deals_seen >= 2 or match.is_over
    assert match.abort("stopped").dealt_views == ()
