"""Fixed decks for All Fives rule scenarios, and the checks that the builder itself is right.

:func:`build_deck` lays out a 52-card deck (top card first) that yields the
given hands, turn-up and run rounds for a dealer, following docs/games.md 2.2 and
the common dealing rule (3 each from eldest hand, the dealer last, then 3
each, then the turn-up; each run round 3 each then one exposed card).
Slots not given are filled with the unused cards in ``filler`` order, then
in index order (clubs 2..A, diamonds, hearts, spades).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tricktable.rules.all_fives import RULES, AllFivesDeal
from tricktable.rules.cards import Card, card, cards, standard_deck
from tricktable.rules.dealing import seats_from_eldest


def build_deck(
    *,
    players: int = 2,
    dealer: int = 0,
    hands: Mapping[int, str] | None = None,
    turn_up: str,
    runs: Sequence[str] = (),
    run_hands: Sequence[Mapping[int, str]] = (),
    filler: str = "",
) -> tuple[Card, ...]:
    """A deck dealing ``hands`` (up to 6 cards a seat), ``turn_up``, then one run round per ``runs`` card."""
    order = seats_from_eldest(dealer, players)
    wanted = {s: list(cards(h)) for s, h in (hands or {}).items()}
    slots: list[Card | None] = []
    for round_ in range(2):
        for seat in order:
            given = wanted.get(seat, [])[3 * round_:3 * round_ + 3]
            slots.extend([*given, *([None] * (3 - len(given)))])
    slots.append(card(turn_up))
    for k, exposed in enumerate(runs):
        extra = run_hands[k] if k < len(run_hands) else {}
        for seat in order:
            given = list(cards(extra.get(seat, "")))
            slots.extend([*given, *([None] * (3 - len(given)))])
        slots.append(card(exposed))
    placed = [c for c in slots if c is not None]
    assert len(placed) == len(set(placed)), f"a card is placed twice: {placed}"
    spare = [c for c in (*cards(filler), *standard_deck()) if c not in placed]
    spare = list(dict.fromkeys(spare))
    deck = [c if c is not None else spare.pop(0) for c in slots]
    deck.extend(spare)
    assert sorted(deck) == sorted(standard_deck())
    return tuple(deck)


def start(deck: Sequence[Card], *, players: int = 2, dealer: int = 0, scores: Sequence[int] | None = None,
          target: int = 61) -> AllFivesDeal:
    """The first state of a deal of ``deck``."""
    config = RULES.config({"players": players, "target": target, "first_dealer": dealer})
    return RULES.start_deal(config, number=1, dealer=dealer, deck=deck,
                            scores=scores if scores is not None else [0] * players, redeal=False)


def test_builder_places_hands_turn_up_and_run_rounds_where_the_deal_takes_them() -> None:
    deck = build_deck(dealer=1, hands={0: "AH KH QH 2C 3C 4C", 1: "JH TH 5H AS KS QS"}, turn_up="9H",
                      runs=["8H", "7D"], run_hands=[{0: "2D 3D 4D"}])
    assert len(deck) == 52 and set(deck) == set(standard_deck())
    # Eldest hand (seat 0) gets the first three cards, the dealer the next three.
    assert deck[:12] == cards("AH KH QH JH TH 5H 2C 3C 4C AS KS QS")
    assert deck[12] == card("9H")
    assert deck[13:16] == cards("2D 3D 4D")
    assert deck[19] == card("8H") and deck[26] == card("7D")
