"""How many unary calls a seat token and a connection may make: token buckets checked before a call does any work.

A unary call (``SubmitAction``, ``CreateTable``, ``GetTable``, ``ListTables``,
``GetRecord``) is cheap for a client to repeat and not for the server to
answer: a client that loops on one can take a core without ever playing.
Streams have their own limits (:mod:`tricktable.server.stream_guard`); this is
the same for the calls that are not streams.

Every unary call takes one token from its connection's bucket, and a
``SubmitAction`` one from its seat token's bucket too. Why an accepted answer
gives its tokens back: a seat's moves are bounded by its table, which asks for
them, so a bot answering at full speed on the fastest table never spends its
budget; what the buckets bound is everything else (refused and duplicate
answers, polls, tables created), which a legitimate client sends rarely and a
flood sends all the time. A refusal is ``RESOURCE_EXHAUSTED`` with the reason
``RATE_LIMITED`` and, in the trailing metadata, the milliseconds until a
call would be let in again (``tricktable-retry-after-ms``, and gRPC's own
``grpc-retry-pushback-ms``, which a client's retry policy obeys; the keys are
:mod:`tricktable.protocol.trailers`).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from tricktable.server.errors import RateLimitedError
from tricktable.server.stream_guard import TokenBucket

#: Buckets kept per scope (the least recently used beyond are forgotten): random tokens can not grow the server.
MAX_BUCKETS = 10_000


@dataclass(frozen=True, slots=True)
class Rate:
    """``burst`` calls at once, refilled at ``per_second``; ``per_second`` 0: no limit."""

    burst: int
    per_second: float

    @property
    def limited(self) -> bool:
        return self.per_second > 0


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a call was refused: the scope whose bucket is empty and when a call would be let in again."""

    scope: str
    retry_after: float

    @property
    def retry_after_ms(self) -> int:
        return max(1, math.ceil(self.retry_after * 1000))

    def error(self, rate: Rate) -> RateLimitedError:
        return RateLimitedError(
            f"too many calls on this {self.scope}: {rate.burst} at once, then {rate.per_second:g} a second "
            f"(answers the table asked for are not counted); retry in {self.retry_after_ms} ms")


class _Buckets:
    """One bucket per key of a scope, the :data:`MAX_BUCKETS` most recently used."""

    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._by_key: OrderedDict[str, TokenBucket] = OrderedDict()

    def of(self, key: str) -> TokenBucket:
        bucket = self._by_key.get(key)
        if bucket is None:
            bucket = self._by_key[key] = TokenBucket(self.rate.burst, self.rate.per_second)
            if len(self._by_key) > MAX_BUCKETS:
                self._by_key.popitem(last=False)
        else:
            self._by_key.move_to_end(key)
        return bucket


@dataclass(slots=True)
class Taken:
    """The tokens one let-in call took, given back by :meth:`CallRates.give_back` when it was a move."""

    buckets: tuple[TokenBucket, ...]


class CallRates:
    """The unary-call buckets of one server: per seat token and per connection.

    ``clock``: monotonic seconds (a test gives a fake one).
    """

    def __init__(self, per_token: Rate, per_connection: Rate,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_token = per_token
        self.per_connection = per_connection
        self.clock = clock
        self._tokens = _Buckets(per_token)
        self._connections = _Buckets(per_connection)

    def take(self, token: str, connection: str) -> Taken | Refusal:
        """Take a call's tokens: of ``token`` ("" none: not a seat's call) and of ``connection`` ("" not told apart).

        Nothing is taken when either bucket is empty: the refusal names the
        first empty one (the seat token before the connection).
        """
        now = self.clock()
        buckets: list[TokenBucket] = []
        scopes: list[str] = []
        if token and self.per_token.limited:
            buckets.append(self._tokens.of(token))
            scopes.append("seat token")
        if connection and self.per_connection.limited:
            buckets.append(self._connections.of(connection))
            scopes.append("connection")
        for bucket, scope in zip(buckets, scopes, strict=True):
            wait = bucket.wait(now)
            if wait > 0:
                return Refusal(scope, wait)
        for bucket in buckets:
            bucket.spend(now)
        return Taken(tuple(buckets))

    def rate_of(self, refusal: Refusal) -> Rate:
        """The rate of the scope that refused."""
        return self.per_token if refusal.scope == "seat token" else self.per_connection

    @staticmethod
    def give_back(taken: Taken) -> None:
        """Return a call's tokens: it was a move its table asked for."""
        for bucket in taken.buckets:
            bucket.refund()
