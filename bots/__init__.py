"""Bots that play through the SDK, found by name.

Each bot implements :class:`client_sdk.bot.Bot` (``choose_action(view)``).
:data:`BOTS` maps a command-line name to a factory taking an optional seed;
adding a bot is one entry.
"""

from __future__ import annotations

from collections.abc import Callable

from bots.first_legal import FirstLegalBot
from bots.heuristic import HeuristicBot
from bots.pimc import PimcBot
from bots.random_bot import RandomBot
from bots.search import SearchBot
from client_sdk.bot import Bot

#: Bot name -> factory(seed) -> bot.
BOTS: dict[str, Callable[[int | str | None], Bot]] = {
    "random": lambda seed: RandomBot(seed),
    "first-legal": lambda seed: FirstLegalBot(),
    "heuristic": lambda seed: HeuristicBot(),
    "pimc": lambda seed: PimcBot(seed),
    "search": lambda seed: SearchBot(seed),
}


def make_bot(name: str, seed: int | str | None = None) -> Bot:
    """A new bot of the given name.

    Raises:
        KeyError: for an unknown name (the message lists the known ones).
    """
    try:
        factory = BOTS[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r} (bots: {', '.join(BOTS)})") from None
    return factory(seed)
