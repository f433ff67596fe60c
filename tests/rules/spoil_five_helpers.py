"""Fixed decks and short-hands for the Spoil Five rule-scenario tests.

``deck_for`` builds the one deck that deals the given hands and turn-up for a
dealer and deal pattern (docs/games.md 1.2), so every scenario starts from a real
deal rather than a hand-made state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tricktable.rules.actions import Action, Jink, PassJink, PassRob, Play, Rob
from tricktable.rules.cards import Card, cards, standard_deck
from tricktable.rules.dealing import seats_from_eldest
from tricktable.rules.spoil_five import RULES, SpoilFiveConfig, SpoilFiveDeal

PATTERNS = {"3-2": (3, 2), "2-3": (2, 3)}


def deck_for(hands: Mapping[int, str], turn_up: str, *, dealer: int = 0, players: int = 4,
             pattern: str = "3-2", rest: str = "") -> tuple[Card, ...]:
    """The deck that deals ``hands`` (seat -> "5H JS ...", five cards, any order) and ``turn_up``.

    Seats left out of ``hands`` get the lowest unused cards (clubs first), and
    ``rest`` (optional) is placed just after the turn-up.
    """
    wanted = {seat: list(cards(text)) for seat, text in hands.items()}
    up = cards(turn_up)[0]
    tail = list(cards(rest))
    named = [c for hand in wanted.values() for c in hand] + [up, *tail]
    if len(set(named)) != len(named):
        raise ValueError(f"a card is named twice: {sorted(c.code for c in named)}")
    if any(len(hand) != 5 for hand in wanted.values()):
        raise ValueError("every named hand must have five cards")
    spare = [c for c in standard_deck() if c not in set(named)]
    for seat in range(players):
        if seat not in wanted:
            wanted[seat] = [spare.pop(0) for _ in range(5)]
    taken = dict.fromkeys(range(players), 0)
    deck: list[Card] = []
    for step in PATTERNS[pattern]:
        for seat in seats_from_eldest(dealer, players):
            deck.extend(wanted[seat][taken[seat]:taken[seat] + step])
            taken[seat] += step
    deck.append(up)
    deck.extend(tail)
    deck.extend(spare)
    assert len(deck) == 52 and len(set(deck)) == 52
    return tuple(deck)


def config(game: str, **options: Any) -> SpoilFiveConfig:
    """A resolved config of ``game`` with ``options``."""
    cfg = RULES[game].config(options)
    assert isinstance(cfg, SpoilFiveConfig)
    return cfg


def start(game: str, hands: Mapping[int, str], turn_up: str, *, dealer: int = 0,
          scores: Sequence[int] | None = None, rest: str = "", **options: Any) -> SpoilFiveDeal:
    """The first state of a deal dealing ``hands`` and ``turn_up``."""
    cfg = config(game, **options)
    deck = deck_for(hands, turn_up, dealer=dealer, players=cfg.players, pattern=cfg.deal_pattern, rest=rest)
    before = tuple(scores) if scores is not None else (0,) * cfg.side_count
    deal = RULES[game].start_deal(cfg, number=1, dealer=dealer, deck=deck, scores=before, redeal=False)
    assert isinstance(deal, SpoilFiveDeal)
    return deal


def action(text: str) -> Action:
    """Parse "play 5H", "rob 2C", "pass_rob", "jink", "pass_jink"."""
    kind, _, arg = text.partition(" ")
    if kind == "play":
        return Play(card=cards(arg)[0])
    if kind == "rob":
        return Rob(card=cards(arg)[0])
    simple: dict[str, Action] = {"pass_rob": PassRob(), "jink": Jink(), "pass_jink": PassJink()}
    return simple[kind]


def name(a: Action) -> str:
    """The short-hand of an action, inverse of :func:`action`."""
    if isinstance(a, Play | Rob):
        return f"{a.type} {a.card.code}"
    return a.type


def legal(deal: SpoilFiveDeal) -> list[str]:
    """Legal actions of the seat to act, in engine order, as short-hands."""
    return [name(a) for a in deal.legal_actions()]


def plays(deal: SpoilFiveDeal) -> set[str]:
    """Codes of the cards the seat to act may play."""
    return {a.card.code for a in deal.legal_actions() if isinstance(a, Play)}


def do(deal: SpoilFiveDeal, *steps: str) -> SpoilFiveDeal:
    """Apply short-hand actions in order: ``do(deal, "rob 2C", "play 5H")``."""
    for step in steps:
        deal = deal.apply(action(step))
    return deal


def play_cards(deal: SpoilFiveDeal, text: str) -> SpoilFiveDeal:
    """Play the space-separated cards in turn: ``play_cards(deal, "5H 2C 3C 4C")``."""
    for c in text.split():
        deal = deal.apply(Play(card=cards(c)[0]))
    return deal
