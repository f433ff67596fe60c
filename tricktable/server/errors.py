"""Domain errors of the server and the one table that maps them to gRPC status codes.

Every refusal the server gives outside a table's stream is one of these
errors; the error interceptor turns it into the status code of
:data:`STATUS_CODES` with the error's message. A test checks that every
error class is mapped. Refusals inside a seat's stream (an illegal or stale
action) are not errors: they are in-band rejections with a
:class:`tricktable.protocol.reasons.RejectReason`, and the stream stays open.

An error with a :attr:`ServerError.reason` also carries it, for a client to
branch on without parsing the message, as the trailing metadata entry
:data:`~tricktable.protocol.trailers.REASON_KEY` (:func:`reason_metadata`).
"""

from __future__ import annotations

import grpc

from tricktable.protocol.trailers import RATE_LIMITED, REASON_KEY
from tricktable.rules.errors import NotationError, OptionsError, RecordError

#: Characters at most of a message the server sends (status details, rejection messages): a message may
#: quote the client's input, and an unbounded quote would grow past the client's metadata limit.
MAX_MESSAGE_CHARS = 500


def bounded(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


class ServerError(Exception):
    """Base of the server's domain errors; ``message`` is what the client reads."""

    #: A machine-readable reason sent beside the status (the trailer ``tricktable-reason``); empty: none.
    reason = ""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TableNotFoundError(ServerError):
    """No table has that id (or it ended and was never stored)."""


class BadTokenError(ServerError):
    """The join token is unknown, malformed, or belongs to a table that is over."""


class InvalidRequestError(ServerError):
    """A request is malformed: a missing field, a value out of range, bad options."""


class TooManyTablesError(ServerError):
    """The server, or this client, has as many open tables as it allows."""


class TooManyStreamsError(ServerError):
    """This client has as many open streams as it allows."""


class RateLimitedError(ServerError):
    """A client made unary calls faster than its budget (:mod:`tricktable.server.call_rate`): the call did nothing."""

    reason = RATE_LIMITED


class ShuttingDownError(ServerError):
    """The server is stopping and accepts no new tables or seekers."""


class StorageUnavailableError(ServerError):
    """The journal or the record store can not write (a full disk): no new tables or seats until it can."""

    reason = "STORAGE_UNAVAILABLE"


class TableNotOverError(ServerError):
    """The record of a table that is still running was asked for."""


class UndecodableRequestError(InvalidRequestError):
    """A request on a stream could not be decoded as the RPC's message: the stream ends (INVALID_ARGUMENT)."""


class JoinDeadlineError(ServerError):
    """A Play stream sent no join within the join deadline: the stream ends (DEADLINE_EXCEEDED)."""


class TooManyRejectionsError(ServerError):
    """A stream's messages were refused faster than its rejection budget allows: the stream ends."""


class WithheldError(ServerError):
    """A record or a table's cards asked for while withheld (fair play), without the creator's owner token."""


class AlreadyJoinedError(ServerError):
    """A stream tried to join twice."""


class ShardUnavailableError(ServerError):
    """The shard that runs a table can not be reached (``serve --shards``: still starting, or gone)."""


class ForwardingRefusedError(ServerError):
    """A call carried the forwarded-call metadata without a valid signature (:mod:`tricktable.server.forwarding`)."""

    reason = "FORWARDING_UNAUTHENTICATED"


class ShardStatusError(ServerError):
    """A table's shard ended a forwarded call with ``code``: the call (or conversation) relaying it ends alike.

    Raised rather than aborting the relaying call, so that a PlayMany
    conversation forwarded to a shard ends alone, not the whole call.
    """

    def __init__(self, message: str, code: grpc.StatusCode = grpc.StatusCode.UNKNOWN) -> None:
        super().__init__(message)
        self.code = code


#: Domain error -> status code. Rules errors that reach the service layer
#: (options, notation, records) are the client's bad input.
STATUS_CODES: dict[type[Exception], grpc.StatusCode] = {
    TableNotFoundError: grpc.StatusCode.NOT_FOUND,
    BadTokenError: grpc.StatusCode.UNAUTHENTICATED,
    InvalidRequestError: grpc.StatusCode.INVALID_ARGUMENT,
    TooManyTablesError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    TooManyStreamsError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    TooManyRejectionsError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    RateLimitedError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    JoinDeadlineError: grpc.StatusCode.DEADLINE_EXCEEDED,
    ShuttingDownError: grpc.StatusCode.UNAVAILABLE,
    StorageUnavailableError: grpc.StatusCode.UNAVAILABLE,
    TableNotOverError: grpc.StatusCode.FAILED_PRECONDITION,
    AlreadyJoinedError: grpc.StatusCode.FAILED_PRECONDITION,
    WithheldError: grpc.StatusCode.PERMISSION_DENIED,
    ShardUnavailableError: grpc.StatusCode.UNAVAILABLE,
    ForwardingRefusedError: grpc.StatusCode.UNAUTHENTICATED,
    OptionsError: grpc.StatusCode.INVALID_ARGUMENT,
    NotationError: grpc.StatusCode.INVALID_ARGUMENT,
    RecordError: grpc.StatusCode.INVALID_ARGUMENT,
}


def status_for(error: BaseException) -> grpc.StatusCode | None:
    """The status code for ``error`` (most specific class first), or None when it is not a domain error."""
    if isinstance(error, ShardStatusError):
        return error.code
    for cls in type(error).__mro__:
        code = STATUS_CODES.get(cls)
        if code is not None:
            return code
    return None


def ending_status(error: Exception) -> tuple[grpc.StatusCode, str]:
    """The status a call (or a PlayMany conversation) ends with because of ``error``, and its message.

    A domain error gives its code and its bounded message; anything else is
    ``INTERNAL`` naming only the error's type (its text may tell internals):
    the caller logs it, as a bug.
    """
    code = status_for(error)
    if code is None:
        return grpc.StatusCode.INTERNAL, f"internal error: {type(error).__name__}"
    return code, bounded(str(error))


def reason_metadata(error: BaseException) -> tuple[tuple[str, str], ...]:
    """The trailing metadata that carries ``error``'s machine-readable reason (none for an error without one)."""
    reason = error.reason if isinstance(error, ServerError) else ""
    return ((REASON_KEY, reason),) if reason else ()
