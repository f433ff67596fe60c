"""The games, found by name, and the one-call way to start a match.

Each game module exports ``RULES`` (a :class:`tricktable.rules.game.GameRules`); the
registry imports it on first use so that a game module still in progress
never breaks the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from tricktable.rules.errors import OptionsError
from tricktable.rules.game import GameRules
from tricktable.rules.match import Match
from tricktable.rules.shuffle import DeckSource, SeededDecks

#: Game name -> module that defines it.
GAME_MODULES: dict[str, str] = {
    "twenty_five": "tricktable.rules.spoil_five",
    "forty_five": "tricktable.rules.spoil_five",
    "all_fives": "tricktable.rules.all_fives",
    "cinq_cents": "tricktable.rules.cinq_cents",
}

GAMES: tuple[str, ...] = tuple(GAME_MODULES)


def game_rules(game: str) -> GameRules:
    """The rules object of ``game``.

    Raises:
        OptionsError: for an unknown game name.
    """
    module_name = GAME_MODULES.get(game)
    if module_name is None:
        raise OptionsError(f"unknown game {game!r} (games: {', '.join(GAMES)})")
    module = importlib.import_module(module_name)
    rules: GameRules = module.RULES[game] if isinstance(module.RULES, dict) else module.RULES
    return rules


def new_match(game: str, options: Mapping[str, Any] | None = None, *, seed: str | None = None,
              decks: DeckSource | None = None) -> Match:
    """Start a match of ``game``: decks from ``decks``, or derived from ``seed``.

    The match is immutable: ``apply`` checks an action and returns the next state.

    >>> from tricktable.rules.notation import notation
    >>> match = new_match("twenty_five", {"players": 4, "first_dealer": 0}, seed="doc")
    >>> match.to_act, [notation(action) for action in match.legal_actions()]
    (1, ['play-4D', 'play-7D', 'play-3H', 'play-2S', 'play-7S'])
    >>> after = match.apply(match.legal_actions()[0])
    >>> after.to_act, after.scores, after.is_over
    (2, (0, 0), False)

    Raises:
        OptionsError: bad game or options, or neither a seed nor decks.
    """
    if decks is None:
        if seed is None:
            raise OptionsError("a match needs a seed or a deck source")
        decks = SeededDecks(seed)
    return Match.start(game_rules(game), options or {}, decks, seed=seed)
