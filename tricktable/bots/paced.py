"""A bot slowed to a watchable pace: it waits before each action, then lets the bot it wraps choose.

For people watching a game of fast bots in the web viewer (``tricktable
match --delay-ms``, ``make demo``); the wait is asynchronous, so the SDK
runner keeps the connection served meanwhile. Hooks (``on_rejection``,
``on_game_end``) are passed on to the wrapped bot.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tricktable.client_sdk.bot import Bot, Choice, ask, current_decision
from tricktable.rules.game import SeatView


class PacedBot:
    """``bot``, answering each decision no sooner than ``delay`` seconds after it was asked."""

    def __init__(self, bot: Bot, delay: float) -> None:
        self.bot = bot
        self.delay = delay

    async def choose_action(self, view: SeatView) -> Choice:
        """Wait ``delay`` seconds, then answer with the wrapped bot's choice."""
        await asyncio.sleep(self.delay)
        return await ask(self.bot, view, current_decision())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)
