"""Perft counts: how many distinct legal action sequences a deal allows from a fixed start, to a fixed depth.

Chess engines are checked by perft (the number of move sequences of a given
length from a position): two implementations of the same rules that agree
on these counts agree on every legal move they generate along the way. This
module counts the same thing for the card games, with either engine: the
readable one (:mod:`tricktable.rules.registry`) or the fast path
(:mod:`tricktable.rules.fast`), so the two are compared, and an independent
implementation can compare its own counts with the pinned ones
(docs/perft.md gives the convention and the pinned cases).

The convention:

- the start is the first deal of a match of ``game`` with ``options``
  (``first_dealer`` set), dealt from ``SeededDecks(seed)``, after the
  ``after`` actions (written in :mod:`tricktable.rules.notation`) are applied;
- chance is fixed: the deck is the seed's, so a position is the deal's state
  and nothing is drawn while counting;
- a sequence is a list of legal actions, each by the seat to act; it stops
  at ``depth`` actions, or earlier at the action that ends the deal (a
  played-out deal, a void deal or the end of the match): such a shorter
  sequence counts once, and the next deal is never entered.

So ``count(depth=0)`` is 1 and ``count(depth=1)`` is the number of legal
actions at the start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from tricktable.rules.cards import Card
from tricktable.rules.fast import FastState, new_fast
from tricktable.rules.fast.codec import encode
from tricktable.rules.match import Match
from tricktable.rules.notation import from_notation, notation
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import SeededDecks

Engine = Literal["readable", "fast"]
ENGINES: tuple[Engine, ...] = ("readable", "fast")


def start_match(game: str, options: Mapping[str, Any], seed: str, after: Sequence[str] = ()) -> Match:
    """The readable start position: the match's first deal from ``seed``, after the ``after`` actions.

    Raises:
        OptionsError: bad game or options. NotationError: an ``after`` text is no action.
        RuleError: an ``after`` action is illegal where it is applied.
    """
    match = new_match(game, options, decks=SeededDecks(seed), seed=seed)
    for text in after:
        match = match.apply(from_notation(text))
    return match


def first_deck(match: Match) -> tuple[Card, ...]:
    """The deck of the match's first deal, top card first: what an implementation without our shuffle deals."""
    return match.decks.deck(0, match.config.deck())


def _readable(match: Match, depth: int) -> int:
    if depth == 0 or match.finished or match.is_over:
        return 1
    legal = match.legal_actions()
    if depth == 1:
        return len(legal)
    return sum(_readable(match.apply(action), depth - 1) for action in legal)


def _fast(state: FastState, depth: int) -> int:
    if depth == 0 or state.deal_index > 0 or state.over:
        return 1
    legal = state.legal_actions()
    if depth == 1:
        return len(legal)
    total = 0
    for code in legal:
        child = state.clone()
        child.apply(code)
        total += _fast(child, depth - 1)
    return total


def fast_start(game: str, options: Mapping[str, Any], seed: str, after: Sequence[str] = ()) -> FastState:
    """The fast path's start position: the same options resolved, decks and ``after`` actions as :func:`start_match`.

    Raises:
        what :func:`start_match` raises.
    """
    match = new_match(game, options, decks=SeededDecks(seed), seed=seed)
    resolved = match.config.to_options()
    resolved["first_dealer"] = match.first_dealer
    decks, cards = match.decks, match.config.deck()
    state = new_fast(game, resolved, decks=lambda index: [c.index for c in decks.deck(index, cards)])
    for text in after:
        action = from_notation(text)
        match = match.apply(action)  # the readable engine refuses an illegal action the fast path would not check
        state.apply(encode(game, action))
    return state


def count(game: str, options: Mapping[str, Any], seed: str, depth: int, *, after: Sequence[str] = (),
          engine: Engine = "readable") -> int:
    """The number of distinct legal action sequences of at most ``depth`` actions (see the module's convention).

    >>> [count("cinq_cents", {"first_dealer": 0}, "perft", depth) for depth in range(5)]
    [1, 26, 351, 3276, 23751]
    >>> count("twenty_five", {"players": 4, "first_dealer": 0}, "perft", 4, engine="fast")
    138

    Raises:
        ValueError: a negative depth or an unknown engine; and what :func:`start_match` raises.
    """
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, not {depth}")
    if engine == "readable":
        return _readable(start_match(game, options, seed, after), depth)
    if engine == "fast":
        return _fast(fast_start(game, options, seed, after), depth)
    raise ValueError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})")


def divide(game: str, options: Mapping[str, Any], seed: str, depth: int, *, after: Sequence[str] = ()) -> dict[
        str, int]:
    """Each legal first action (in notation) and the count of ``depth - 1`` below it: where two counts part.

    >>> divide("all_fives", {"players": 2, "first_dealer": 0}, "perft", 3)
    {'stand': 30, 'beg': 18}

    Raises:
        ValueError: a depth below 1; and what :func:`start_match` raises.
    """
    if depth < 1:
        raise ValueError(f"divide needs a depth of 1 or more, not {depth}")
    match = start_match(game, options, seed, after)
    return {notation(action): _readable(match.apply(action), depth - 1) for action in match.legal_actions()}
