"""The bot contract: one method, ``choose_action(view) -> action``.

A bot gets a :class:`rules.game.SeatView` (its hand, the public state, the
scores, and ``legal_actions``: every action it may take now, sorted) and
returns one of those actions, directly or as an awaitable. It need not know
the rules; bots that want to simulate can use the ``rules`` package on the
view. The runner (:mod:`client_sdk.runner`) owns everything else: the
connection, joining, reconnecting, clocks and rejections.

Optional hooks, looked up by name so a minimal bot is one method:
``on_rejection(view, action, reason, message)`` is called when the server
refuses an action the bot chose (before the bot is asked again), and
``on_game_end(result)`` when the game is over.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import Protocol, runtime_checkable

from rules.actions import Action
from rules.game import SeatView


@runtime_checkable
class Bot(Protocol):
    """Anything with ``choose_action(view)`` returning an action (sync) or an awaitable of one (async)."""

    def choose_action(self, view: SeatView) -> Action | Awaitable[Action]:
        """Choose one of ``view.legal_actions`` (never empty when called)."""
        ...


async def ask(bot: Bot, view: SeatView) -> Action:
    """Ask ``bot`` for an action, awaiting it when the bot is asynchronous.

    Why one helper: the runner treats sync and async bots alike. Whatever the
    bot raises propagates (the runner catches it and falls back to a legal action).
    """
    choice = bot.choose_action(view)
    if inspect.isawaitable(choice):
        return await choice
    return choice
