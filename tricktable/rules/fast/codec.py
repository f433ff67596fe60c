"""Between the readable engine and the fast path: action codes both ways, and a match as a fast state.

A search bot decides on a readable :class:`tricktable.rules.match.Match` (perhaps a
sampled world of it) and simulates on the fast path: :func:`from_match`
replays the match's decks and actions into a fast state, whose later deals
are shuffled from an rng. :func:`encode` / :func:`decode` translate actions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tricktable.rules.actions import (
    Action,
    Beg,
    Bid,
    Denomination,
    Discard,
    Gift,
    Jink,
    Pass,
    PassJink,
    PassRob,
    Play,
    Rob,
    Run,
    Stand,
)
from tricktable.rules.cards import ALL_CARDS, Card, Suit
from tricktable.rules.fast import FastState, all_fives, cinq_cents, new_fast, spoil_five
from tricktable.rules.fast.bitset import bits
from tricktable.rules.match import Match
from tricktable.rules.record import action_from_json

_SUITS = "CDHS"
_DENOMINATIONS = tuple(Denomination)

_SPOIL_FIVE_SIMPLE: dict[type[Action], int] = {
    PassRob: spoil_five.PASS_ROB, Jink: spoil_five.JINK, PassJink: spoil_five.PASS_JINK,
}
_ALL_FIVES_SIMPLE: dict[type[Action], int] = {
    Stand: all_fives.STAND, Beg: all_fives.BEG, Gift: all_fives.GIFT, Run: all_fives.RUN,
}
_SPOIL_FIVE_BY_CODE: dict[int, Action] = {
    spoil_five.PASS_ROB: PassRob(), spoil_five.JINK: Jink(), spoil_five.PASS_JINK: PassJink(),
}
_ALL_FIVES_BY_CODE: dict[int, Action] = {
    all_fives.STAND: Stand(), all_fives.BEG: Beg(), all_fives.GIFT: Gift(), all_fives.RUN: Run(),
}


def encode(game: str, action: Action) -> int:
    """The fast path's integer for a readable action of ``game``.

    Raises:
        ValueError: the action does not exist in ``game``.
    """
    if isinstance(action, Play):
        if action.suit is not None:
            if game != "cinq_cents" or not action.card.is_joker:
                raise ValueError(f"{game}: a play names a suit only for a joker lead at no-trump")
            return cinq_cents.JOKER_LEAD + 4 * (action.card.index - cinq_cents.JKB) + _SUITS.index(action.suit.value)
        return action.card.index
    if game in ("twenty_five", "forty_five"):
        if isinstance(action, Rob):
            return spoil_five.ROB + action.card.index
        code = _SPOIL_FIVE_SIMPLE.get(type(action))
    elif game == "all_fives":
        code = _ALL_FIVES_SIMPLE.get(type(action))
    elif game == "cinq_cents":
        if isinstance(action, Bid):
            return cinq_cents.BID + 5 * (action.tricks - 6) + action.denomination.order
        if isinstance(action, Discard):
            return cinq_cents.DISCARD | sum(1 << c.index for c in action.cards)
        code = cinq_cents.PASS if isinstance(action, Pass) else None
    else:
        code = None
    if code is None:
        raise ValueError(f"{game}: no fast code for {action!r}")
    return code


def decode(game: str, code: int) -> Action:
    """The readable action for a fast code of ``game`` (a ``run`` without its ``exposed``).

    Raises:
        ValueError: the code means nothing in ``game``.
    """
    if game == "cinq_cents":
        return _decode_cinq_cents(code)
    if 0 <= code < 52:
        return Play(card=ALL_CARDS[code])
    if game in ("twenty_five", "forty_five"):
        if spoil_five.ROB <= code < spoil_five.PASS_ROB:
            return Rob(card=ALL_CARDS[code - spoil_five.ROB])
        simple = _SPOIL_FIVE_BY_CODE
    elif game == "all_fives":
        simple = _ALL_FIVES_BY_CODE
    else:
        simple = {}
    if code not in simple:
        raise ValueError(f"{game}: no action has the fast code {code}")
    return simple[code]


def _decode_cinq_cents(code: int) -> Action:
    if 0 <= code < cinq_cents.JOKER_LEAD and (code >= 52 or code % 13 >= 2):
        return Play(card=ALL_CARDS[code])
    if cinq_cents.JOKER_LEAD <= code < cinq_cents.BID:
        offset = code - cinq_cents.JOKER_LEAD
        return Play(card=ALL_CARDS[cinq_cents.JKB + offset // 4], suit=Suit(_SUITS[offset % 4]))
    if cinq_cents.BID <= code < cinq_cents.PASS:
        rank = code - cinq_cents.BID
        return Bid(tricks=6 + rank // 5, denomination=_DENOMINATIONS[rank % 5])
    if code == cinq_cents.PASS:
        return Pass()
    if code & cinq_cents.DISCARD and code < 2 * cinq_cents.DISCARD:
        return Discard(cards=tuple(ALL_CARDS[c] for c in bits(code & (cinq_cents.DISCARD - 1))))
    raise ValueError(f"cinq_cents: no action has the fast code {code}")


def from_match(match: Match, rng: random.Random) -> FastState:
    """A fast state equal to ``match``: its decks and actions replayed; later deals shuffled from ``rng``.

    Raises:
        ImportError: the game has no fast path. ValueError: an action has no fast code.
    """
    record = match.to_record()
    game = record["game"]
    decks: list[Sequence[int]] = [[Card.parse(c).index for c in deal["deck"]] for deal in record["deals"]]

    def deck(index: int) -> Sequence[int] | None:
        return decks[index] if index < len(decks) else None

    state = new_fast(game, record["options"], decks=deck, rng=rng)
    for deal in record["deals"]:
        for entry in deal["actions"]:
            state.apply(encode(game, action_from_json(entry)))
    return state
