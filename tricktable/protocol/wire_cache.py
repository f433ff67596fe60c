"""Bounded memos of decoded wire messages, keyed by their bytes: what makes decoding a repeated message cheap.

Why: what a client decodes from the server is mostly frozen values it has
met before (the same few dozen actions in every decision and history, a
deal's completed tricks in each of its views). Serializing a small message
and looking its bytes up costs a fraction of building the rules' objects
again, so each memoized decoder of :mod:`tricktable.protocol.convert` keeps
what it decoded here, at most :data:`MAX_CONVERTED_KEPT` values each, the
oldest forgotten first. A message that fails to decode is never kept.

The server's own byte caches (entries converted once and joined into every
decision) live beside the server's messages, in
:mod:`tricktable.server.wire_entries`; the SDK's lazily decoded view in
:mod:`tricktable.client_sdk.lazy_view`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from google.protobuf.message import Message

from tricktable.rules.actions import Action
from tricktable.rules.events import ActionEvent
from tricktable.rules.game import Trick

#: Values converted once kept at most, per kind (far more than the actions, history entries and tricks of a game),
#: both ways: messages converted from rules values (a server's) and rules values decoded from messages (a client's).
MAX_CONVERTED_KEPT = 4096

K = TypeVar("K")
T = TypeVar("T")
#: A decoded message.
M = TypeVar("M", bound=Message)


def remember(memo: dict[K, T], key: K, value: T, limit: int | None = None) -> T:
    """``value``, kept in ``memo`` under ``key``; the oldest goes first when ``memo`` holds ``limit``
    (:data:`MAX_CONVERTED_KEPT` unless given).

    The one bounded form of every memo of conversions, both ways.
    """
    if len(memo) >= (MAX_CONVERTED_KEPT if limit is None else limit):
        del memo[next(iter(memo))]
    memo[key] = value
    return value


def decoded_once(memo: dict[bytes, T]) -> Callable[[Callable[[M], T]], Callable[[M], T]]:
    """A decoder that keeps what it decodes in ``memo`` by the message's bytes (a decorator).

    The wrapped decoder runs only for bytes not met before; a message it
    refuses (it raises) is not kept. The lookup is inline in the returned
    function, so a hit costs one serialization and one dictionary read.
    """

    def wrap(decode: Callable[[M], T]) -> Callable[[M], T]:
        def once(message: M) -> T:
            key = message.SerializeToString()
            value = memo.get(key)
            return remember(memo, key, decode(message)) if value is None else value

        return functools.update_wrapper(once, decode)

    return wrap


#: Actions by the bytes of their ``Action`` message.
ACTIONS_DECODED: dict[bytes, Action] = {}
#: A decision's legal actions by the wire bytes of each ``LegalAction`` (its id, name and action): the id and action.
LEGAL_DECODED: dict[bytes, tuple[str, Action]] = {}
#: Completed tricks by the bytes of their ``Trick`` message.
TRICKS_DECODED: dict[bytes, Trick] = {}
#: History entries by the bytes of their ``SeatAction`` (but those whose event depends on the deal).
SEAT_ACTIONS_DECODED: dict[bytes, ActionEvent] = {}
