"""What the exec and webhook adapters share: the clock of an answer, the faults, the server's default action.

An adapter is an ordinary synchronous bot (``choose_action(view)``): the SDK
runner brings the connection, reconnects and the server's clock; the
in-process runners (the arena, a local tournament, the ladder) call it the
same way. A decision the bot answers badly (garbage, an unknown or illegal
id, too late, a program that exited or stopped reading, a URL that does not
answer) raises :class:`tricktable.client_sdk.bot.BotFault` carrying the
server's default action (:func:`tricktable.rules.defaults.default_action`),
so that every host plays that action and counts the fault as the bot's;
the adapter tells the bot (an ``error`` message) and counts the fault by
kind (:attr:`ExternalBot.faults`, summed up at the game's end).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Any

from tricktable.bots.external import messages
from tricktable.client_sdk.bot import AnnotatedAction, Bot, BotFault, Choice, current_decision
from tricktable.rules.defaults import default_action
from tricktable.rules.game import Result, SeatView

log = logging.getLogger(__name__)

#: Seconds a bot gets for an answer when no clock runs (the server's default per-decision limit).
DEFAULT_ANSWER_SECONDS = 10.0
#: Seconds kept back from the server's deadline: the default action must reach the server before the SDK
#: runner's own cut-off (a quarter second before the deadline) plays something else.
DEADLINE_MARGIN_SECONDS = 0.4
#: The shortest time a bot is given, however little is left.
MIN_ANSWER_SECONDS = 0.05
#: Faults that tell the bot nothing more: it cannot read the ``error`` message.
_SILENT = frozenset({"exited", "not_reading", "unreachable"})


class ExternalBot:
    """A bot whose decisions are made elsewhere: subclasses say how a message is sent and an answer received."""

    #: Whether a late bot is told (an ``error`` message) at once: not when telling takes time of its own.
    tells_after_late = True

    def __init__(self, label: str, *, answer_seconds: float = DEFAULT_ANSWER_SECONDS) -> None:
        self.label = label
        self.answer_seconds = answer_seconds
        #: Faults so far, by kind (:data:`tricktable.bots.external.messages.FAULTS`).
        self.faults: Counter[str] = Counter()
        #: Decisions asked so far.
        self.decisions = 0
        self._greeted = False
        self._ended = False

    # What a transport provides.
    def _tell(self, message: dict[str, Any]) -> None:
        """Send a message that has no answer (``hello``, ``error``, ``end``), never blocking for long."""
        raise NotImplementedError

    def _exchange(self, message: dict[str, Any], number: int, seconds: float) -> bytes:
        """Send decision ``number`` and return the bot's answer to it within ``seconds``.

        Raises:
            AnswerFault: ``late``, ``exited``, ``not_reading``, ``unreachable`` or ``http_error``.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Let go of the program or the connection (idempotent)."""

    # The bot.
    def choose_action(self, view: SeatView) -> Choice:
        """Ask the bot; its valid answer is returned, any fault raises :class:`BotFault` with the default action.

        Raises:
            BotFault: the bot gave no valid answer in time (its kind counted in :attr:`faults`).
        """
        seconds = self.seconds_for_answer()
        deadline = time.monotonic() + seconds
        if not self._greeted:
            self._greeted = True
            self._tell(messages.hello(view, self.label))
            seconds = max(MIN_ANSWER_SECONDS, deadline - time.monotonic())
        self.decisions += 1
        number = self.decisions
        try:
            raw = self._exchange(messages.decision(number, view, round(seconds * 1000)), number, seconds)
            answer = messages.parse_answer(raw, view.legal_actions)
        except messages.AnswerFault as fault:
            fallback = default_action(view)
            self.faults[fault.kind] += 1
            if fault.kind not in _SILENT and (fault.kind != "late" or self.tells_after_late):
                self._tell(messages.error(number, fault.kind, str(fault), fallback))
            raise BotFault(f"{self.label}: {fault.kind}: {fault}", fallback, fault.kind) from None
        if answer.note_fault is not None:
            self.faults["bad_annotation"] += 1
            self._tell(messages.error(number, "bad_annotation", answer.note_fault, answer.action))
        if answer.annotation is None:
            return answer.action
        return AnnotatedAction(answer.action, note=answer.annotation.note, values=answer.annotation.values)

    def seconds_for_answer(self) -> float:
        """The time the bot gets: the server's deadline and bank less a margin, else :attr:`answer_seconds`."""
        info = current_decision()
        left = None if info is None else info.seconds_left()
        if left is None:
            return self.answer_seconds
        return max(MIN_ANSWER_SECONDS, left - DEADLINE_MARGIN_SECONDS)

    def on_game_end(self, result: Result) -> None:
        """Tell the bot how the game ended, sum up its faults in the log, and let it go."""
        if not self._ended:
            self._ended = True
            self._tell(messages.end(result))
            if self.faults:
                log.warning("%s: %s", self.label, self.fault_summary())
        self.close()

    def fault_summary(self) -> str:
        """The faults in one line: ``3 faults in 40 decisions: 2 late, 1 garbage`` (or ``no faults``)."""
        total = sum(self.faults.values())
        if not total:
            return f"no faults in {self.decisions} decisions"
        kinds = ", ".join(f"{n} {kind}" for kind, n in self.faults.most_common())
        return f"{total} faults in {self.decisions} decisions: {kinds}"


class ThreadedBot:
    """An adapter answering in a worker thread: an asynchronous bot, so the SDK runner's event loop runs on.

    Why: waiting for a program or a URL is waiting, not computing; in a
    thread, a farm of seats in one process (``tricktable bot --seats K``) waits
    for all its bots at once, and the connection is served meanwhile. The
    in-process runners take the adapter itself, which is synchronous. Hooks
    are passed on to the adapter.
    """

    def __init__(self, bot: ExternalBot) -> None:
        self.bot = bot

    async def choose_action(self, view: SeatView) -> Choice:
        """The adapter's answer, computed in a thread (with :func:`current_decision` as the runner set it)."""
        return await asyncio.to_thread(self.bot.choose_action, view)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)


def for_server(bot: Bot) -> Bot:
    """``bot`` as the SDK runner is best served: an adapter in a :class:`ThreadedBot`, any other bot as it is."""
    return ThreadedBot(bot) if isinstance(bot, ExternalBot) else bot
