"""The bot contract: one method, ``choose_action(view) -> action``.

A bot gets a :class:`tricktable.rules.game.SeatView` (its hand, the public state, the
scores, and ``legal_actions``: every action it may take now, sorted) and
returns one of those actions, directly or as an awaitable. It need not know
the rules; bots that want to simulate can use the ``rules`` package on the
view. The runner (:mod:`tricktable.client_sdk.runner`) owns everything else: the
connection, joining, reconnecting, clocks and rejections.

Optional hooks, looked up by name so a minimal bot is one method:
``on_rejection(view, action, reason, message)`` is called when the server
refuses an action the bot chose (before the bot is asked again), and
``on_game_end(result)`` when the game is over.

A bot that plans its time (a search bot) reads the clock of the decision it
is answering with :func:`current_decision`, without changing its signature.

A bot may say why it chose: return ``AnnotatedAction(action, note="...",
values={action: estimate, ...})`` instead of the bare action. The server keeps
the note secret until the table ends, then writes it into the record
(:mod:`tricktable.rules.annotation` has the limits; an over-limit note raises
:class:`tricktable.rules.annotation.AnnotationError` where it is made, in the bot).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tricktable.protocol.convert import action_id
from tricktable.rules.actions import Action
from tricktable.rules.annotation import Annotation
from tricktable.rules.game import SeatView

if TYPE_CHECKING:  # typing.TypeIs is Python 3.13's; the SDK needs nothing beyond grpcio and protobuf at run time
    from typing_extensions import TypeIs


@dataclass(frozen=True, slots=True, init=False)
class AnnotatedAction:
    """An action with the bot's note on it: what ``choose_action`` may return instead of the bare action.

    ``values`` are numbers keyed by legal action (an :class:`Action` or its id,
    ``"play-5H"``), by convention the bot's estimate of each. Why a wrapper and
    not a second method: the note is made where the choice is, from the same
    numbers, and a bot without notes stays one method returning an action.

    Raises:
        AnnotationError: a limit of :mod:`tricktable.rules.annotation` is exceeded (note over 280 characters, over 64
            values, a value not finite).
    """

    action: Action
    annotation: Annotation

    def __init__(self, action: Action, note: str = "",
                 values: Mapping[Action, float] | Mapping[str, float] | None = None) -> None:
        keyed = {k if isinstance(k, str) else action_id(k): v for k, v in (values or {}).items()}
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "annotation", Annotation(note=note, values=keyed))


#: What ``choose_action`` returns: an action, or an action with the bot's note.
Choice = Action | AnnotatedAction


def split_choice(choice: object) -> tuple[object, Annotation | None]:
    """A bot's answer as (the action, or whatever it returned instead; its annotation or None).

    Why one helper: every caller of ``choose_action`` (the runner, tournaments,
    ladders, replays) unwraps the same way, and an empty note is no note.
    """
    if isinstance(choice, AnnotatedAction):
        return choice.action, choice.annotation or None
    return choice, None


def action_of(choice: Choice) -> Action:
    """The action of a bot's answer, its note dropped (for in-process play, which keeps no notes)."""
    return choice.action if isinstance(choice, AnnotatedAction) else choice


@runtime_checkable
class Bot(Protocol):
    """Anything with ``choose_action(view)`` returning an action (sync) or an awaitable of one (async).

    The action may come as an :class:`AnnotatedAction`, with the bot's note on it.
    """

    def choose_action(self, view: SeatView) -> Choice | Awaitable[Choice]:
        """Choose one of ``view.legal_actions`` (never empty when called)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionInfo:
    """The decision a bot is answering: its id and its clock (0 when the server sets none)."""

    decision_id: str
    #: When the decision's own time ends, Unix time in milliseconds (0: no clock).
    deadline_unix_ms: int = 0
    #: Time bank left after the deadline, in milliseconds.
    time_bank_ms: int = 0

    def seconds_left(self) -> float | None:
        """Seconds until the deadline plus the bank, or None without a clock (never negative)."""
        if self.deadline_unix_ms <= 0:
            return None
        return max(0.0, (self.deadline_unix_ms + self.time_bank_ms) / 1000.0 - time.time())


_CURRENT: ContextVar[DecisionInfo | None] = ContextVar("tricktable_current_decision", default=None)


def current_decision() -> DecisionInfo | None:
    """The decision being answered, inside ``choose_action``; None elsewhere.

    Why a context variable: the bot contract stays one method with one argument,
    and only the bots that manage their time need to look.
    """
    return _CURRENT.get()


async def ask(bot: Bot, view: SeatView, decision: DecisionInfo | None = None) -> Choice:
    """Ask ``bot`` for an action, awaiting it when the bot is asynchronous.

    Why one helper: the runner treats sync and async bots alike. ``decision``
    is what :func:`current_decision` returns meanwhile. Whatever the bot
    raises propagates (the runner catches it and falls back to a legal action).
    """
    choice = choose_now(bot, view, decision)
    if is_pending(choice):
        return await ask_awaitable(choice, decision)
    return choice


def is_pending(choice: Choice | Awaitable[Choice]) -> TypeIs[Awaitable[Choice]]:
    """Whether ``choose_action`` returned an asynchronous bot's awaitable (to be awaited) rather than an answer.

    Why the answer's own types first: a synchronous bot's action is the
    common case on the path of every move, and ``isinstance`` is cheaper
    than ``inspect.isawaitable``'s look for ``__await__``.
    """
    return not isinstance(choice, Action | AnnotatedAction) and inspect.isawaitable(choice)


async def ask_awaitable(choice: Awaitable[Choice], decision: DecisionInfo | None = None) -> Choice:
    """Await an asynchronous bot's choice with :func:`current_decision` set while it runs."""
    token = _CURRENT.set(decision)
    try:
        return await choice
    finally:
        _CURRENT.reset(token)


def choose_now(bot: Bot, view: SeatView, decision: DecisionInfo | None = None) -> Choice | Awaitable[Choice]:
    """Call ``bot.choose_action`` with :func:`current_decision` set: the action of a synchronous bot,
    the awaitable of an asynchronous one (to be awaited by the caller, e.g. with a time limit).

    Why apart from :func:`ask`: a synchronous bot then costs no task and no
    event-loop turn on the hot path of a move.
    """
    token = _CURRENT.set(decision)
    try:
        return bot.choose_action(view)
    finally:
        _CURRENT.reset(token)


class BotFault(Exception):  # a bot's mistake with its remedy, not an error of the caller
    """Raised by ``choose_action`` when the bot could not answer (its program wrote garbage, answered late...).

    ``fallback`` is the action to play instead (the server's default action,
    :func:`tricktable.rules.defaults.default_action`). Why an exception and not
    a quiet substitute: every host counts it as the bot's fault (a tournament
    forfeits a bot after too many), and the SDK runner plays ``fallback``
    with the message as a one-line warning instead of the first legal action
    with a traceback. ``kind`` names the fault, as the hosts count it
    (``garbage``, ``late``...: the external adapters' kinds).
    """

    def __init__(self, message: str, fallback: Action, kind: str = "fault") -> None:
        super().__init__(message)
        self.fallback = fallback
        self.kind = kind


def not_an_action(choice: object) -> str | None:
    """What is wrong when a bot's ``choose_action`` returned something that is no action, else None.

    Why: a bot returning a string, a card or None must get the same fallback
    as a bot that raises, with a message that names its mistake, instead of
    crashing the runner and leaving its seat empty.
    """
    if isinstance(choice, Action):
        return None
    shown = repr(choice)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    hint = " (did you forget to return?)" if choice is None else ""
    return (f"returned {type(choice).__name__} {shown}{hint}, not an action: "
            f"return one of view.legal_actions (a Play, Bid, ... from tricktable.rules.actions)")
