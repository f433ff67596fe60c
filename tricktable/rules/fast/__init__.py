"""Playout fast paths: compact, mutable game states for simulation.

The readable engine (``tricktable.rules.spoil_five`` and friends) is immutable, checked
and explains every refusal; that is what the server and records use. Search
bots need many thousands of simulated deals per decision, so this package
keeps a second, compact representation of the same rules: hands as bit sets
(``int``), precomputed rank tables per trump suit, actions as small
integers, one mutable state with ``legal_actions()``, ``apply()``,
``clone()`` and ``random_playout()``.

``tests/rules/test_fast_agrees.py`` plays many random games through both
paths and requires them to agree move for move (legal actions, trick
winners, points, scores, end of game), so the fast path is a tested second
implementation of docs/games.md, not a shortcut around it.

Use from a search bot (a sampled world is a readable match)::

    from tricktable.rules.fast.codec import encode, from_match

    root = from_match(world, rng)            # the match replayed; later deals shuffled from rng
    for code in root.legal_actions():
        state = root.clone()
        state.apply(code)
        state.random_playout(rng, one_deal=True)
        ... state.last_deal, state.scores ...

Action codes are small integers (see each module); :mod:`tricktable.rules.fast.codec`
translates them to and from :mod:`tricktable.rules.actions`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from tricktable.rules.actions import Action


class FastState(Protocol):
    """What every fast game state offers (integer actions; see each module for their encoding)."""

    @property
    def over(self) -> bool: ...
    @property
    def to_act(self) -> int: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def winners(self) -> tuple[int, ...]: ...
    @property
    def deal_index(self) -> int: ...
    @property
    def trick_len(self) -> int: ...
    @property
    def best(self) -> int: ...
    @property
    def best_seat(self) -> int: ...
    @property
    def hands(self) -> list[int]: ...
    #: Action codes below this are card plays.
    PLAYS_BELOW: ClassVar[int]


    def legal_actions(self) -> list[int]: ...
    def is_legal(self, action: int) -> bool: ...
    def apply(self, action: int) -> None: ...
    def clone(self) -> FastState: ...
    def random_playout(self, rng: random.Random, *, one_deal: bool = False) -> int: ...
    def play_order(self, code: int) -> tuple[int, int]: ...
    def position_key(self) -> tuple[int, ...] | None: ...


class FastStart(Protocol):
    """A fast match from resolved options: each fast module's ``from_options``."""

    def __call__(self, game: str, options: Mapping[str, Any], *,
                 decks: Callable[[int], Sequence[int] | None] | None = None,
                 rng: random.Random | None = None) -> FastState: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class FastEngine:
    """A game's fast path, as its :class:`tricktable.rules.definition.GameDefinition` names it.

    ``start`` begins a fast match; ``encode`` and ``decode`` translate the readable
    engine's actions to the fast path's integer codes and back
    (:mod:`tricktable.rules.fast.codec` holds them for the four games).
    """

    start: FastStart
    encode: Callable[[Action], int]
    decode: Callable[[int], Action]


def fast_engine(game: str) -> FastEngine:
    """The fast path of ``game``.

    Raises:
        OptionsError (a ValueError): unknown game. ValueError: the game has no fast path.
    """
    from tricktable.rules.registry import game_definition  # the registry's games import this package

    engine = game_definition(game).fast
    if engine is None:
        raise ValueError(f"{game} has no fast path: a searching bot can not simulate it")
    return engine


def new_fast(game: str, options: Mapping[str, Any], *, decks: Callable[[int], Sequence[int] | None] | None = None,
             rng: random.Random | None = None) -> FastState:
    """A fast match of ``game`` from resolved options (as ``config.to_options()`` writes them, ``first_dealer`` set).

    Decks come from ``decks`` (deal index -> card indexes, top first), or are shuffled with
    ``rng`` when there is no ``decks`` or it answers None for a deal.

    Raises:
        ValueError: unknown game, or one without a fast path.
    """
    return fast_engine(game).start(game, options, decks=decks, rng=rng)
