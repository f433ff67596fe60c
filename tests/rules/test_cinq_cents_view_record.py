"""What a Cinq Cents seat may see (docs/games.md, "What each player may know") and the deal record (docs/records.md)."""

from __future__ import annotations

from tests.rules.test_cinq_cents_helpers import apply_all, bid, contracted, deck_for, new_deal
from tricktable.rules.actions import Denomination, Discard, Pass, Play
from tricktable.rules.cards import Suit, card, cards, codes
from tricktable.rules.cinq_cents import CinqCentsDeal
from tricktable.rules.events import CardPlayed, Discarded
from tricktable.rules.game import Contract
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks

HANDS = {
    1: "AC KC JKB AH KH QH JH TH 9H 8H",
    2: "4C 6C JKF AS KS QS JS TS 9S 8S",
    3: "7S 6S 5S 4S AD KD QD JD TD 9D",
    0: "5C 7C 8C 9C TC JC QC 7H 6H 5H",
}
KITTY = "8D 7D 6D 5D 4D 4H"
DISCARD = "8D 7D 6D 5D 4D 8S"


def bidding_done() -> CinqCentsDeal:
    """Seat 2 is declarer at 7 NT and holds the kitty."""
    return apply_all(new_deal(HANDS, KITTY), [bid("6 C"), bid("7 NT"), Pass(), Pass()])


def test_view_shows_a_seat_its_own_hand_and_never_another_hand() -> None:
    state = new_deal(HANDS, KITTY)
    for seat in range(4):
        view = state.view(seat, (0, 0))
        assert sorted(view.hand) == sorted(cards(HANDS[seat]))
        assert view.hand_sizes == (10, 10, 10, 10)
        assert view.kitty == () and view.discards == ()
        shown = repr(view)
        for other in range(4):
            if other != seat:
                assert not [c for c in HANDS[other].split() if f"Card({c})" in shown]
        for c in KITTY.split():
            assert f"Card({c})" not in shown


def test_legal_actions_only_for_the_seat_to_act() -> None:
    state = new_deal(HANDS, KITTY)
    assert state.view(1, (0, 0)).legal_actions == tuple(state.legal_actions())
    for seat in (0, 2, 3):
        view = state.view(seat, (0, 0))
        assert view.legal_actions == () and view.to_act == 1


def test_bids_and_contract_are_public() -> None:
    state = bidding_done()
    for seat in range(4):
        view = state.view(seat, (0, 0))
        assert view.bids == ((1, (6, Denomination.CLUBS)), (2, (7, Denomination.NO_TRUMP)), (3, None), (0, None))
        assert view.contract == Contract(seat=2, tricks=7, denomination=Denomination.NO_TRUMP)
        assert view.no_trump and view.trump is None
        assert view.hand_sizes == (10, 10, 16, 10)


def test_kitty_is_shown_to_the_declarer_only_once_taken() -> None:
    before = apply_all(new_deal(HANDS, KITTY), [bid("6 C"), bid("7 NT"), Pass()])
    assert before.view(2, (0, 0)).kitty == ()
    state = bidding_done()
    assert state.view(2, (0, 0)).kitty == cards(KITTY)
    assert sorted(state.view(2, (0, 0)).hand) == sorted(cards(HANDS[2]) + cards(KITTY))
    for seat in (0, 1, 3):
        assert state.view(seat, (0, 0)).kitty == ()


def test_discards_are_shown_to_the_declarer_only_and_to_others_as_a_bare_discard() -> None:
    state = bidding_done().apply(Discard(cards=cards(DISCARD)))
    declarer = state.view(2, (0, 0))
    assert declarer.discards == cards(DISCARD) and declarer.kitty == cards(KITTY)
    assert declarer.history[-1] == Discarded(seat=2, cards=cards(DISCARD))
    for seat in (0, 1, 3):
        view = state.view(seat, (0, 0))
        assert view.discards == () and view.kitty == ()
        assert view.history[-1] == Discarded(seat=2, cards=None)
        assert view.history[:4] == declarer.history[:4]
        for c in DISCARD.split():
            assert f"Card({c})" not in repr(view)
    assert state.view(0, (0, 0)).hand_sizes == (10, 10, 10, 10)


def test_view_shows_the_current_trick_with_its_named_suit_and_past_tricks() -> None:
    state = contracted(HANDS, KITTY, "7 NT")
    for code in ["AC", "4C", "4S", "5C"]:
        state = state.apply(Play(card=card(code)))
    state = state.apply(Play(card=card("JKB"), suit=Suit.CLUBS))
    view = state.view(3, (100, -40))
    assert view.tricks[0].cards == cards("AC 4C 4S 5C") and view.tricks[0].winner == 1
    assert view.current_trick is not None
    assert view.current_trick.cards == cards("JKB") and view.current_trick.named_suit is Suit.CLUBS
    assert view.scores == (100, -40) and view.deal_points == (0, 0)
    assert view.history[-1] == CardPlayed(seat=1, card=card("JKB"), named_suit=Suit.CLUBS)


def test_record_deal_has_kitty_contract_and_no_turn_up() -> None:
    state = bidding_done().apply(Discard(cards=cards(DISCARD)))
    while not state.is_over:
        state = state.apply(state.legal_actions()[0])
    record = state.to_record([10, 20])
    assert set(record) == {"number", "dealer", "deck", "hands", "kitty", "trump", "actions", "tricks", "points",
                           "scores", "contract"}
    assert record["deck"] == codes(deck_for(HANDS, KITTY))
    assert {s: sorted(h) for s, h in record["hands"].items()} == {str(s): sorted(HANDS[s].split()) for s in range(4)}
    assert record["kitty"] == KITTY.split()
    assert record["trump"] == "NT"
    assert record["contract"] == {"seat": 2, "tricks": 7, "suit": "NT"}
    assert record["actions"][:5] == [
        {"seat": 1, "type": "bid", "tricks": 6, "suit": "C"},
        {"seat": 2, "type": "bid", "tricks": 7, "suit": "NT"},
        {"seat": 3, "type": "pass"},
        {"seat": 0, "type": "pass"},
        {"seat": 2, "type": "discard", "cards": DISCARD.split()},
    ]
    assert len(record["actions"]) == 5 + 40 and len(record["tricks"]) == 10
    assert record["tricks"][0]["leader"] == 2
    assert all(set(t) == {"leader", "cards", "winner"} for t in record["tricks"])
    plays = [a["card"] for a in record["actions"][5:]]
    assert plays == [c for t in record["tricks"] for c in t["cards"]]
    assert record["scores"] == [10 + record["points"][0], 20 + record["points"][1]]
    assert [state.recorded_action(i) for i in range(len(record["actions"]))] == record["actions"]


def test_record_actions_replay_to_the_same_record() -> None:
    deck = deck_for(HANDS, KITTY)
    match = new_match("cinq_cents", {"first_dealer": 0}, decks=RecordedDecks([deck, deck_for()]))
    state = bidding_done().apply(Discard(cards=cards(DISCARD)))
    while not state.is_over:
        state = state.apply(state.legal_actions()[-1])
    for item in state.to_record([0, 0])["actions"]:
        match = match.apply(action_from_json(item), item["seat"])
    assert match.to_record()["deals"][0] == state.to_record([0, 0])
    options = match.to_record()["options"]
    assert options["players"] == 4 and options["target"] == 1000 and options["first_dealer"] == 0
    assert options["bid_values"]["8"]["NT"] == 320
    assert match.to_record()["sides"] == [[0, 2], [1, 3]]


def test_match_view_of_a_new_match_uses_the_deal_view() -> None:
    match = new_match("cinq_cents", {"first_dealer": 3}, decks=RecordedDecks([deck_for(HANDS, KITTY, dealer=3)]))
    view = match.view(0)
    assert view.game == "cinq_cents" and view.dealer == 3 and view.to_act == 0
    assert sorted(view.hand) == sorted(cards(HANDS[0]))
    assert len(view.legal_actions) == 26
