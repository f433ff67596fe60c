"""Fixed-deck helpers for the Cinq Cents rule-scenario tests, and tests that they deal what they promise.

``deck_for`` builds the deck that, dealt by ``dealer`` with the 3.2 pattern,
gives chosen hands and kitty; ``contracted`` drives a deal through bidding
and the discard so a test can start at the first lead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tricktable.rules.actions import Action, Bid, Denomination, Discard, Pass
from tricktable.rules.cards import Card, cards, cinq_cents_deck
from tricktable.rules.cinq_cents import DEAL_PATTERN, CinqCentsConfig, CinqCentsDeal
from tricktable.rules.dealing import deal


def deck_for(hands: Mapping[int, str] | None = None, kitty: str = "", dealer: int = 0) -> tuple[Card, ...]:
    """The deck (top first) that gives ``hands`` (seat -> cards) and ``kitty`` when ``dealer`` deals.

    Hands and kitty may be partial: the cards nobody named fill the free places in index order.
    """
    base = cinq_cents_deck()
    layout = deal(base, 4, dealer, DEAL_PATTERN)
    position = {c: i for i, c in enumerate(base)}
    wanted: dict[int, Card] = {}
    for seat, text in (hands or {}).items():
        chosen = cards(text)
        assert len(chosen) <= 10, f"seat {seat} is given {len(chosen)} cards"
        for slot, c in zip(layout.hands[seat], chosen, strict=False):
            wanted[position[slot]] = c
    for slot, c in zip(layout.kitty, cards(kitty), strict=False):
        wanted[position[slot]] = c
    assert len(set(wanted.values())) == len(wanted), "a card is named twice"
    rest = iter(c for c in base if c not in set(wanted.values()))
    return tuple(wanted[i] if i in wanted else next(rest) for i in range(len(base)))


def new_deal(hands: Mapping[int, str] | None = None, kitty: str = "", dealer: int = 0,
             config: CinqCentsConfig | None = None) -> CinqCentsDeal:
    """A fresh deal (bidding) from ``deck_for``."""
    return CinqCentsDeal.start(config or CinqCentsConfig(), number=1, dealer=dealer,
                               deck=deck_for(hands, kitty, dealer))


def bid(text: str) -> Bid:
    """``bid("7 NT")``."""
    tricks, denomination = text.split()
    return Bid(tricks=int(tricks), denomination=Denomination(denomination))


def apply_all(state: CinqCentsDeal, actions: Sequence[Action]) -> CinqCentsDeal:
    """Apply actions in order, each by the seat to act."""
    for action in actions:
        state = state.apply(action)
    return state


def contracted(hands: Mapping[int, str], kitty: str, contract: str, declarer: int = 1, dealer: int = 0,
               discard: str | None = None, config: CinqCentsConfig | None = None) -> CinqCentsDeal:
    """A deal where ``declarer`` alone bids ``contract`` and discards ``discard`` (default: the kitty back).

    Discarding the kitty leaves the declarer with the hand dealt, so the test's
    ``hands`` are exactly the hands that play.
    """
    state = new_deal(hands, kitty, dealer, config)
    for _ in range(4):
        state = state.apply(bid(contract) if state.to_act == declarer else Pass())
    return state.apply(Discard(cards=cards(discard) if discard is not None else state.kitty))


def test_deck_for_gives_the_named_hands_and_kitty_for_any_dealer() -> None:
    for dealer in range(4):
        hands = {0: "JKB JKF AS KS QS JS TS 9S 8S 7S", 2: "4H 5H", 3: "AD KD QD JD TD 9D 8D 7D 6D 5D"}
        deal_ = new_deal(hands, "AC KC QC JC TC 9C", dealer)
        assert deal_.dealt[0] == cards(hands[0])
        assert deal_.dealt[3] == cards(hands[3])
        assert deal_.dealt[2][:2] == cards("4H 5H")
        assert deal_.kitty == cards("AC KC QC JC TC 9C")
        assert sorted(deal_.deck) == sorted(cinq_cents_deck())


def test_contracted_starts_the_play_with_the_hands_as_given() -> None:
    state = contracted({1: "AH KH QH JH TH 9H 8H 7H 6H 5H"}, "AC KC QC JC TC 9C", "7 H")
    assert state.hands[1] == cards("AH KH QH JH TH 9H 8H 7H 6H 5H")
    assert state.to_act == 1
