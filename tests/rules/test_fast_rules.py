"""Rule scenarios run on the fast path alone, from fixed decks (docs/games.md section 1), independent of ``rules``.

The agreement test compares the fast path with the readable engine; these
pin a few rulings directly, so a shared misreading would still show.
"""

from __future__ import annotations

from typing import Any

from tricktable.rules.cards import card
from tricktable.rules.fast.spoil_five import PASS_ROB, ROB, SpoilFiveFast


def _deck(hands: dict[int, str], turn_up: str, dealer: int = 0, players: int = 4) -> list[int]:
    """A deck dealing ``hands`` (five cards a seat, 3-2 pattern) and turning up ``turn_up``."""
    cards = {s: [card(c).index for c in text.split()] for s, text in hands.items()}
    order = [(dealer + 1 + i) % players for i in range(players)]
    deck = [c for s in order for c in cards[s][:3]] + [c for s in order for c in cards[s][3:]]
    deck.append(card(turn_up).index)
    deck += [c for c in range(52) if c not in deck]
    assert sorted(deck) == list(range(52))
    return deck


def _state(game: str, deck: list[int], **options: Any) -> SpoilFiveFast:
    base: dict[str, Any] = {"players": 4, "sides": 2, "deal_pattern": "3-2", "robbing": True,
                            "trump_at_will": game == "forty_five", "target": 25 if game == "twenty_five" else 45,
                            "first_dealer": 0, "jink": False}
    base.update(options)
    return SpoilFiveFast.from_options(game, base, decks=lambda i: deck)


def _codes(text: str) -> list[int]:
    return sorted(card(c).index for c in text.split())


HANDS = {
    1: "2C 3D 4D 9S 6H",   # eldest: leads
    2: "5S 8H 9H TH JH",   # the 5 of trumps (spades) is its only trump
    3: "JS 3S 8D 9D TD",   # a top trump and a low trump
    0: "KC QC JC 2H 3H",   # no trump
}


def test_fast_renege_five_of_trumps_is_never_forced() -> None:
    state = _state("twenty_five", _deck(HANDS, "7S"))
    state.apply(card("9S").index)  # a low trump led
    assert state.legal_actions() == _codes("5S 8H 9H TH JH")  # all its trumps exempt: any card


def test_fast_renege_low_trump_forces_a_trump_exempt_ones_included() -> None:
    state = _state("twenty_five", _deck(HANDS, "7S"))
    state.apply(card("9S").index)
    state.apply(card("8H").index)
    assert state.legal_actions() == _codes("JS 3S")  # the 3 of spades is not exempt


def test_fast_ace_of_hearts_led_is_a_trump_lead() -> None:
    hands = dict(HANDS)
    hands[1] = "AH 3D 4D 5D 6D"
    hands[2] = "2S 8H 9H TH JH"  # a low trump and hearts: must play the trump
    state = _state("twenty_five", _deck(hands, "7S"))
    state.apply(card("AH").index)
    assert state.legal_actions() == _codes("2S")


def test_fast_ace_of_diamonds_is_the_lowest_plain_diamond() -> None:
    hands = {1: "AD 2C 3C 4C 6C", 2: "2D 8H 9H TH JH", 3: "KH 3H 4H 5H 6H", 0: "7H QH 9C TC JC"}
    state = _state("twenty_five", _deck(hands, "7S"))
    for c in ("AD", "2D", "KH", "7H"):
        state.apply(card(c).index)
    assert state.trick_winners == [2]


def test_fast_holder_robs_at_first_turn_then_plays() -> None:
    hands = dict(HANDS)
    hands[2] = "AS 8H 9H TH JH"  # dealt the ace of trumps
    state = _state("twenty_five", _deck(hands, "7S"))
    state.apply(card("2C").index)
    legal = state.legal_actions()
    assert ROB + card("8H").index in legal
    state.apply(ROB + card("8H").index)
    assert state.to_act == 2
    assert card("7S").index in state.legal_actions()  # the turn-up is now in hand
    assert all(code < ROB for code in state.legal_actions())


def test_fast_state_clones_at_the_dealers_rob_decision() -> None:
    state = _state("forty_five", _deck(HANDS, "AS"))  # an ace turned up: the dealer decides first
    twin = state.clone()
    twin.apply(ROB + card("KC").index)
    assert twin.robbed_by == 0 and state.robbed_by == -1
    assert state.legal_actions()[-1] == PASS_ROB, "the original still waits for the dealer's decision"


def test_fast_twenty_five_ends_the_moment_a_side_reaches_the_target() -> None:
    state = _state("twenty_five", _deck(HANDS, "7S"), target=5)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    assert state.over
    assert len(state.trick_winners) == 1
    assert state.winners == (state.trick_winners[0] % 2,)


def test_fast_forty_five_counting_order_starts_from_eldest_hands_side() -> None:
    state = _state("forty_five", _deck(HANDS, "7S"), target=5)
    while not state.over:
        state.apply(state.legal_actions()[0])
    assert state.deal_index == 0
    assert min(state.scores) >= 5  # both sides reached the target in the one deal
    assert state.winners == (1,)  # eldest hand is seat 1, on side 1, counted first
