"""The heuristic bots do what their docstrings promise, each rule on a hand-made view."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from tricktable.bots.heuristic import all_fives, cinq_cents, spoil_five
from tricktable.rules.actions import Action, Beg, Bid, Denomination, Discard, Pass, Play, Rob, Stand
from tricktable.rules.cards import Suit, card, cards
from tricktable.rules.game import Contract, SeatView, Trick

SIDES_4 = ((0, 2), (1, 3))


def _view(game: str, hand: str, legal: Sequence[Action], **fields: Any) -> SeatView:
    base: dict[str, Any] = dict(
        game=game, options={}, seat=0, players=4, sides=SIDES_4, deal_number=1, dealer=3,
        hand=cards(hand), to_act=0, legal_actions=tuple(legal), scores=(0, 0), deal_points=(0, 0),
    )
    base.update(fields)
    return SeatView(**base)


def _plays(text: str) -> list[Action]:
    return [Play(card=c) for c in cards(text)]


def _won(leader: int, text: str, winner: int) -> Trick:
    return Trick(leader=leader, cards=cards(text), winner=winner)


# --- Twenty-Five / Forty-Five -------------------------------------------------

def test_spoil_five_reneges_an_exempt_top_trump_to_a_low_trump_lead() -> None:
    # Spades trumps; 4S led; we hold the 5S (exempt) and may throw a heart instead (docs/games.md 1.5).
    view = _view("forty_five", "5S 3H 9D", _plays("5S 3H 9D"), trump=Suit.SPADES, seat=0,
                 current_trick=Trick(leader=3, cards=cards("4S")))
    assert spoil_five.choose_action(view) == Play(card=card("3H"))


def test_spoil_five_spends_the_top_trump_on_the_deciding_trick() -> None:
    tricks = (_won(0, "KS QD 2D 3D", 0), _won(0, "KH 2H 3H 4H", 0), _won(0, "QC KC 2C 3C", 1))
    view = _view("forty_five", "5S 3H", _plays("5S 3H"), trump=Suit.SPADES, tricks=tricks,
                 current_trick=Trick(leader=3, cards=cards("4S")))
    assert spoil_five.choose_action(view) == Play(card=card("5S"))


def test_spoil_five_stops_spending_trumps_once_the_side_has_three_tricks() -> None:
    tricks = (_won(0, "KS QD 2D 3D", 0), _won(0, "KH 2H 3H 4H", 0), _won(0, "KC QC 2C 3C", 2))
    view = _view("forty_five", "7S 3H", _plays("7S 3H"), trump=Suit.SPADES, tricks=tricks,
                 current_trick=Trick(leader=3, cards=cards("KD")))
    assert spoil_five.choose_action(view) == Play(card=card("3H"))


def test_spoil_five_wins_as_cheaply_as_possible_when_the_opponent_leads() -> None:
    view = _view("twenty_five", "KD QD 2S 6H", _plays("KD QD"), trump=Suit.SPADES,
                 current_trick=Trick(leader=3, cards=cards("JD")))
    assert spoil_five.choose_action(view) == Play(card=card("QD"))


def test_spoil_five_plays_low_when_the_partner_is_winning() -> None:
    view = _view("twenty_five", "KD 2D", _plays("KD 2D"), trump=Suit.SPADES, seat=0,
                 current_trick=Trick(leader=1, cards=cards("3D QD 4D")))
    assert spoil_five.choose_action(view) == Play(card=card("2D"))


def test_spoil_five_robs_burying_its_weakest_card() -> None:
    legal: list[Action] = [*_plays("AS 9H KD 2C 4S"), *(Rob(card=c) for c in cards("AS 9H KD 2C 4S"))]
    view = _view("twenty_five", "AS 9H KD 2C 4S", legal, trump=Suit.SPADES, turn_up=card("7S"))
    assert spoil_five.choose_action(view) == Rob(card=card("9H"))


def test_spoil_five_leads_the_partners_suit() -> None:
    tricks = (_won(2, "KC 2C 3C 4C", 2),)
    view = _view("forty_five", "QC 9H 8D", _plays("QC 9H 8D"), trump=Suit.SPADES, tricks=tricks,
                 current_trick=Trick(leader=0, cards=()))
    assert spoil_five.choose_action(view) == Play(card=card("QC"))


def test_spoil_five_leads_its_highest_trump_holding_two_trumps() -> None:
    # Neither KS nor 2S is sure to win (5S, JS, AH, AS are out), but two trumps lead the higher.
    view = _view("twenty_five", "KS 2S 9H QD", _plays("KS 2S 9H QD"), trump=Suit.SPADES,
                 current_trick=Trick(leader=0, cards=()))
    assert spoil_five.choose_action(view) == Play(card=card("KS"))


def test_spoil_five_leads_its_highest_plain_card_without_a_better_plan() -> None:
    view = _view("forty_five", "JD 4D 9H 2S", _plays("JD 4D 9H 2S"), trump=Suit.SPADES,
                 current_trick=Trick(leader=0, cards=()))
    assert spoil_five.choose_action(view) == Play(card=card("JD"))


# --- All Fives ----------------------------------------------------------------

def _fives(hand: str, legal: list[Action], **fields: Any) -> SeatView:
    fields.setdefault("dealer", 1)
    return _view("all_fives", hand, legal, players=2, sides=((0,), (1,)), **fields)


def test_all_fives_brings_its_own_ten_home_when_it_wins_the_trick() -> None:
    view = _fives("TH 2H 3C", _plays("TH 2H"), trump=Suit.HEARTS, seat=1, dealer=0,
                  current_trick=Trick(leader=0, cards=cards("9H")))
    assert all_fives.choose_action(view) == Play(card=card("TH"))


def test_all_fives_never_feeds_a_counting_card_to_a_trick_it_cannot_win() -> None:
    view = _fives("5H 4H 9C", _plays("5H 4H"), trump=Suit.HEARTS, seat=1, dealer=0,
                  current_trick=Trick(leader=0, cards=cards("6H")))
    assert all_fives.choose_action(view) == Play(card=card("4H"))


def test_all_fives_leads_the_boss_trump_while_the_ten_is_out() -> None:
    view = _fives("AH 3C 7D", _plays("AH 3C 7D"), trump=Suit.HEARTS, turn_up=card("2H"), exposed=cards("2H"),
                  current_trick=Trick(leader=0, cards=()))
    assert all_fives.choose_action(view) == Play(card=card("AH"))


def test_all_fives_stands_with_trump_strength_and_begs_without() -> None:
    strong = _fives("AH TH 3H 4C 5D 6S", [Stand(), Beg()], turn_up=card("9H"), exposed=cards("9H"))
    weak = _fives("2H 4C 5D 6S 7S 8C", [Stand(), Beg()], turn_up=card("9H"), exposed=cards("9H"))
    assert all_fives.choose_action(strong) == Stand()
    assert all_fives.choose_action(weak) == Beg()


# --- Cinq Cents ---------------------------------------------------------------

def _bids(above: tuple[int, int] = (6, -1)) -> list[Action]:
    """The legal bids above ``(tricks, denomination order)``, then pass."""
    return [*(Bid(tricks=t, denomination=d) for t in range(6, 11) for d in Denomination
              if (t, d.order) > above), Pass()]


def test_cinq_cents_bids_a_strong_trump_hand_and_passes_a_weak_one() -> None:
    strong = _view("cinq_cents", "JKB JKF JH JD AH KH QH TH AS AC", _bids())
    weak = _view("cinq_cents", "4S 5C 6D 7H 8S 9C 4D 5H 6S 7C", _bids())
    bid = cinq_cents.choose_action(strong)
    assert isinstance(bid, Bid) and bid.denomination is Denomination.HEARTS and bid.tricks >= 8
    assert cinq_cents.choose_action(weak) == Pass()


def test_cinq_cents_leaves_the_partners_standing_bid_alone_with_a_modest_hand() -> None:
    view = _view("cinq_cents", "AS KS 4H 5H 6D 7D 8C 9C TC JC", _bids((6, 3)), bids=((2, (6, Denomination.HEARTS)),
                                                                                    (3, None)))
    assert cinq_cents.choose_action(view) == Pass()


def test_cinq_cents_discard_keeps_trumps_jokers_and_aces() -> None:
    hand = "JKB JH JD AH KH QH TH AS AC 4S 5S 4C 5D 6D 7C 8S"
    contract = Contract(seat=0, tricks=8, denomination=Denomination.HEARTS)
    legal = [Discard(cards=combo) for combo in combinations(sorted(cards(hand), key=lambda c: c.index), 6)]
    view = _view("cinq_cents", hand, legal, contract=contract, trump=Suit.HEARTS)
    action = cinq_cents.choose_action(view)
    assert isinstance(action, Discard)
    kept = set(cards(hand)) - set(action.cards)
    assert set(cards("JKB JH JD AH KH QH TH AS AC")) <= kept
