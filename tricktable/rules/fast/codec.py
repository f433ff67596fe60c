"""Between the readable engine and the fast path: action codes both ways, and a match as a fast state.

A search bot decides on a readable :class:`tricktable.rules.match.Match` (perhaps a
sampled world of it) and simulates on the fast path: :func:`from_match`
replays the match's decks and actions into a fast state, whose later deals
are shuffled from an rng. :func:`encode` / :func:`decode` translate actions
through the game's fast engine; the engines of the four games
(:data:`SPOIL_FIVE_ENGINE` and the others) are built here from each fast
module's ``from_options`` and the encoders below, and named by the games'
definitions.
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
from tricktable.rules.fast import FastEngine, FastState, all_fives, cinq_cents, fast_engine, new_fast, spoil_five
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
    """The fast path's integer for a readable action of ``game`` (its fast engine's ``encode``).

    Raises:
        ValueError: the action does not exist in ``game``, or the game has no fast path.
    """
    return fast_engine(game).encode(action)


def decode(game: str, code: int) -> Action:
    """The readable action for a fast code of ``game`` (a ``run`` without its ``exposed``).

    Raises:
        ValueError: the code means nothing in ``game``, or the game has no fast path.
    """
    return fast_engine(game).decode(code)


def _plain_play(game: str, action: Play) -> int:
    if action.suit is not None:
        raise ValueError(f"{game}: a play names a suit only for a joker lead at no-trump")
    return action.card.index


def encode_spoil_five(action: Action) -> int:
    """Twenty-Five and Forty-Five: plays, robs, jinks and their refusals as fast codes."""
    if isinstance(action, Play):
        return _plain_play("spoil_five", action)
    if isinstance(action, Rob):
        return spoil_five.ROB + action.card.index
    code = _SPOIL_FIVE_SIMPLE.get(type(action))
    if code is None:
        raise ValueError(f"spoil_five: no fast code for {action!r}")
    return code


def decode_spoil_five(code: int) -> Action:
    """The inverse of :func:`encode_spoil_five`."""
    if 0 <= code < 52:
        return Play(card=ALL_CARDS[code])
    if spoil_five.ROB <= code < spoil_five.PASS_ROB:
        return Rob(card=ALL_CARDS[code - spoil_five.ROB])
    if code not in _SPOIL_FIVE_BY_CODE:
        raise ValueError(f"spoil_five: no action has the fast code {code}")
    return _SPOIL_FIVE_BY_CODE[code]


def encode_all_fives(action: Action) -> int:
    """All Fives: plays, standing, begging, the gift and the run as fast codes."""
    if isinstance(action, Play):
        return _plain_play("all_fives", action)
    code = _ALL_FIVES_SIMPLE.get(type(action))
    if code is None:
        raise ValueError(f"all_fives: no fast code for {action!r}")
    return code


def decode_all_fives(code: int) -> Action:
    """The inverse of :func:`encode_all_fives` (a ``run`` without its ``exposed``)."""
    if 0 <= code < 52:
        return Play(card=ALL_CARDS[code])
    if code not in _ALL_FIVES_BY_CODE:
        raise ValueError(f"all_fives: no action has the fast code {code}")
    return _ALL_FIVES_BY_CODE[code]


def encode_cinq_cents(action: Action) -> int:
    """Cinq Cents: plays (a joker lead at no-trump with its named suit), bids, passes and discards."""
    if isinstance(action, Play):
        if action.suit is not None:
            if not action.card.is_joker:
                raise ValueError("cinq_cents: a play names a suit only for a joker lead at no-trump")
            return cinq_cents.JOKER_LEAD + 4 * (action.card.index - cinq_cents.JKB) + _SUITS.index(action.suit.value)
        return action.card.index
    if isinstance(action, Bid):
        return cinq_cents.BID + 5 * (action.tricks - 6) + action.denomination.order
    if isinstance(action, Discard):
        return cinq_cents.DISCARD | sum(1 << c.index for c in action.cards)
    if isinstance(action, Pass):
        return cinq_cents.PASS
    raise ValueError(f"cinq_cents: no fast code for {action!r}")


def decode_cinq_cents(code: int) -> Action:
    """The inverse of :func:`encode_cinq_cents`."""
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


#: The fast paths of the four games, for their definitions (tricktable.rules.spoil_five_game and the others).
SPOIL_FIVE_ENGINE = FastEngine(start=spoil_five.from_options, encode=encode_spoil_five, decode=decode_spoil_five)
ALL_FIVES_ENGINE = FastEngine(start=all_fives.from_options, encode=encode_all_fives, decode=decode_all_fives)
CINQ_CENTS_ENGINE = FastEngine(start=cinq_cents.from_options, encode=encode_cinq_cents, decode=decode_cinq_cents)


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
