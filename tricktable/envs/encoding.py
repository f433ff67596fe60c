"""A seat's view and its actions as fixed-size vectors: what a learner's network reads and chooses.

Every game shares one encoding, so one network shape fits all four. The action catalog is every
action notation (:mod:`tricktable.rules.notation`) any game can offer, except Cinq Cents' discard
of six cards: its C(16, 6) = 8,008 choices are taken as six picks of one card each
(``pick-<card>``), so the catalog stays at :data:`ACTION_COUNT` entries and a discard is six
decisions of the same learner. The observation holds only what the view holds (docs/games.md,
"What each player may know"): its own hand, the trick, the cards seen played this deal, the
turn-up and exposed cards, trump, seats relative to the observer, scores and the auction.

Standard library only: a policy trained on the environment plays through :class:`PolicyBot`
with nothing more than its own code (NumPy, if it uses it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tricktable.rules.actions import Action, Denomination, Discard
from tricktable.rules.cards import ALL_CARDS, Card, Suit
from tricktable.rules.game import SeatView
from tricktable.rules.notation import from_notation, notation

#: Every card of every game (the 52 and Cinq Cents' two jokers), in the engine's order.
CARDS: tuple[Card, ...] = tuple(ALL_CARDS)
CARD_COUNT = len(CARDS)
_CARD_INDEX = {card: i for i, card in enumerate(CARDS)}
_JOKERS = tuple(c for c in CARDS if c.is_joker)
_SUITS = tuple(Suit)
#: The prefix of a discard's one-card picks.
PICK = "pick"
#: Every action a game offers, as its notation, then the discard picks: the action index is a position here.
ACTIONS: tuple[str, ...] = (
    *(f"play-{c.code}" for c in CARDS),
    *(f"play-{j.code}-{s.value}" for j in _JOKERS for s in _SUITS),
    *(f"rob-{c.code}" for c in CARDS if not c.is_joker),
    "pass_rob", "jink", "pass_jink", "stand", "beg", "gift", "run",
    *(f"bid-{t}-{d.value}" for t in range(6, 11) for d in Denomination),
    "pass",
    *(f"{PICK}-{c.code}" for c in CARDS),
)
ACTION_COUNT = len(ACTIONS)
_ACTION_INDEX = {text: i for i, text in enumerate(ACTIONS)}
#: Seats a table may have (Forty-Five: up to ten).
MAX_SEATS = 10
#: Cards of a Cinq Cents discard.
DISCARD_SIZE = 6
#: The observation's parts and their sizes, in order.
PARTS: tuple[tuple[str, int], ...] = (
    ("hand", CARD_COUNT), ("current_trick", CARD_COUNT), ("seen_this_deal", CARD_COUNT),
    ("turn_up", CARD_COUNT), ("exposed", CARD_COUNT), ("picked_for_discard", CARD_COUNT),
    ("trump", len(_SUITS) + 1), ("leader", MAX_SEATS), ("dealer", MAX_SEATS), ("partners", MAX_SEATS),
    ("scores", 2), ("deal_points", 2), ("contract", len(Denomination) + 2),
)
OBSERVATION_SIZE = sum(size for _, size in PARTS)


def action_index(action: Action) -> int:
    """The catalog index of a non-discard action."""
    return _ACTION_INDEX[notation(action)]


def action_mask(view: SeatView, picked: Sequence[Card] = ()) -> list[int]:
    """1 for each catalog entry the seat may choose now, else 0 (the discard's picks: hand cards not yet picked)."""
    mask = [0] * ACTION_COUNT
    legal = view.legal_actions
    if legal and isinstance(legal[0], Discard):
        for card in view.hand:
            if card not in picked:
                mask[_ACTION_INDEX[f"{PICK}-{card.code}"]] = 1
        return mask
    for action in legal:
        mask[action_index(action)] = 1
    return mask


def is_discard(view: SeatView) -> bool:
    """Whether the seat's decision is a Cinq Cents discard (taken as :data:`DISCARD_SIZE` picks)."""
    return bool(view.legal_actions) and isinstance(view.legal_actions[0], Discard)


def decode(index: int) -> Action | Card:
    """The action of a catalog index, or the card of a discard pick."""
    text = ACTIONS[index]
    if text.startswith(PICK + "-"):
        return CARDS[_CARD_INDEX[Card.parse(text.removeprefix(PICK + "-"))]]
    return from_notation(text)


def encode(view: SeatView, picked: Sequence[Card] = ()) -> list[float]:
    """The view as :data:`OBSERVATION_SIZE` numbers, seats relative to the observer (0 is the observer)."""
    out: list[float] = []

    def cards(chosen: Sequence[Card]) -> None:
        part = [0.0] * CARD_COUNT
        for card in chosen:
            part[_CARD_INDEX[card]] = 1.0
        out.extend(part)

    def seat(which: int | None) -> None:
        part = [0.0] * MAX_SEATS
        if which is not None:
            part[(which - view.seat) % view.players] = 1.0
        out.extend(part)

    trick = view.current_trick
    cards(view.hand)
    cards(trick.cards if trick is not None else ())
    cards([c for t in view.tricks for c in t.cards])
    cards([view.turn_up] if view.turn_up is not None else [])
    cards(view.exposed)
    cards(picked)
    trump = [0.0] * (len(_SUITS) + 1)
    if view.no_trump:
        trump[-1] = 1.0
    elif view.trump is not None:
        trump[_SUITS.index(view.trump)] = 1.0
    out.extend(trump)
    seat(trick.leader if trick is not None else None)
    seat(view.dealer)
    partners = [0.0] * MAX_SEATS
    mine = next(side for side in view.sides if view.seat in side)
    for s in mine:
        partners[(s - view.seat) % view.players] = 1.0
    out.extend(partners)
    side = view.sides.index(mine)
    target = float(view.options.get("target") or 100) or 100.0
    for values, scale in ((view.scores, target), (view.deal_points, max(target / 10, 1.0))):
        others = [v for i, v in enumerate(values) if i != side]
        out.extend([_clip(values[side] / scale), _clip(max(others, default=0) / scale)])
    contract = [0.0] * (len(Denomination) + 2)
    if view.contract is not None:
        contract[list(Denomination).index(view.contract.denomination)] = 1.0
        contract[-2] = view.contract.tricks / 10
        contract[-1] = 1.0 if view.contract.seat in mine else 0.0
    out.extend(contract)
    return out


def _clip(value: float) -> float:
    return max(-10.0, min(10.0, value))


#: A policy: the observation and the action mask in, a catalog index out.
Policy = Callable[[list[float], list[int]], int]


class PolicyBot:
    """Plays ``policy`` as an SDK bot: the same observation and mask it had in the environment.

    A discard is the policy's six picks, as in the environment. A pick or an index the mask
    forbids is a bot fault like any other (the SDK plays the documented default).
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def choose_action(self, view: SeatView) -> Action:
        if is_discard(view):
            picked: list[Card] = []
            while len(picked) < DISCARD_SIZE:
                choice = decode(self.policy(encode(view, picked), action_mask(view, picked)))
                if not isinstance(choice, Card) or choice not in view.hand or choice in picked:
                    raise ValueError(f"the policy picked {choice!r} for the discard")
                picked.append(choice)
            return Discard(cards=tuple(picked))
        choice = decode(self.policy(encode(view), action_mask(view)))
        if isinstance(choice, Card):
            raise ValueError(f"the policy picked {choice!r} outside a discard")
        return choice
