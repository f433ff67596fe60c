"""The games, found by name, and the one-call way to start a match.

:data:`GAME_MODULES` is the one table of game names in Tricktable: each name
points at the :class:`tricktable.rules.definition.GameDefinition` that says
everything about that game (``"module:ATTRIBUTE"``). The registry imports a
game on first use, so that a game module still in progress never breaks the
others, and checks what it finds, so a wrong entry fails on first use with a
message naming it (``tests/rules/test_registry.py`` loads every game).
Every other module asks :func:`games` or :func:`game_definition` when it
needs a game, never keeps a copy of the names, so a line added to
:data:`GAME_MODULES` is the whole of registering a game.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from tricktable.rules.definition import GameDefinition
from tricktable.rules.errors import OptionsError
from tricktable.rules.game import GameRules
from tricktable.rules.match import Match
from tricktable.rules.shuffle import DeckSource, SeededDecks

#: Game name -> ``"module:ATTRIBUTE"`` of its definition (docs/adding-a-game.md, step 3).
GAME_MODULES: dict[str, str] = {
    "twenty_five": "tricktable.rules.spoil_five_game:TWENTY_FIVE",
    "forty_five": "tricktable.rules.spoil_five_game:FORTY_FIVE",
    "all_fives": "tricktable.rules.all_fives_game:ALL_FIVES",
    "cinq_cents": "tricktable.rules.cinq_cents_game:CINQ_CENTS",
}



def games() -> tuple[str, ...]:
    """The registered games' names, in the registry's order, read from :data:`GAME_MODULES` at each call.

    A function rather than a tuple made at import, so that a game registered later (a plugin's line in
    :data:`GAME_MODULES`, or a test's) is known to every user at once: registering a game is one step.
    """
    return tuple(GAME_MODULES)


def is_registered(game: str) -> bool:
    """Whether ``game`` is a registered game's name now (what :func:`games` would list, without the tuple)."""
    return game in GAME_MODULES

#: Definitions loaded and checked so far: game name -> (its entry, its definition). An entry replaced in
#: :data:`GAME_MODULES` is loaded and checked afresh. Looked up per call of the SDK's ranking helpers, so the
#: hit is one lookup in each table.
_LOADED: dict[str, tuple[str, GameDefinition]] = {}


def game_definition(game: str) -> GameDefinition:
    """Everything about ``game``: its engine, card functions, fast path, options and bot tuning.

    Raises:
        OptionsError: for an unknown game name.
        TypeError: the entry names something that is not a :class:`GameDefinition`.
        ValueError: the definition found is of another game.
    """
    entry = GAME_MODULES.get(game)
    found = _LOADED.get(game)
    if found is not None and found[0] is entry:
        return found[1]
    if entry is None:
        raise OptionsError(f"unknown game {game!r} (games: {', '.join(games())})")
    module_name, _, attribute = entry.partition(":")
    if not attribute:
        raise ValueError(f"game {game!r}: the entry {entry!r} must be \"module:ATTRIBUTE\"")
    definition = getattr(importlib.import_module(module_name), attribute, None)
    if not isinstance(definition, GameDefinition):
        raise TypeError(f"game {game!r}: {entry} is not a GameDefinition but {type(definition).__name__}")
    if definition.name != game:
        raise ValueError(f"game {game!r}: {entry} defines the game {definition.name!r}")
    _LOADED[game] = (entry, definition)
    return definition


def game_rules(game: str) -> GameRules:
    """The rules object of ``game`` (its definition's engine).

    Raises:
        OptionsError: for an unknown game name.
    """
    return game_definition(game).rules


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
