"""Typed errors of the SDK, and the one table from gRPC status codes to them.

Every error the SDK raises on purpose is a :class:`tricktable.rules.errors.TricktableError`,
so a caller can catch the project's errors with one ``except``. Errors of a
call (an unknown table, a bad token) arrive as gRPC statuses; decisions the
server refuses arrive in-band as rejections and are handled by the runner,
not raised.
"""

from __future__ import annotations

import grpc

from tricktable.protocol.trailers import RATE_LIMITED, REASON_KEY, RETRY_AFTER_KEY
from tricktable.rules.errors import TricktableError


class SdkError(TricktableError):
    """Base of the SDK's errors. ``code`` is the gRPC status when one caused it."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class JoinRejected(SdkError):
    """The server refused the join token (unknown, for another table, or revoked): UNAUTHENTICATED."""


class PermissionDenied(SdkError):
    """The token is valid but may not do this (another seat's action): PERMISSION_DENIED."""


class TableNotFound(SdkError):
    """No table with that id (or the token's table is gone): NOT_FOUND."""


class InvalidRequest(SdkError):
    """The request is malformed or does not fit the game (bad options, bad game): INVALID_ARGUMENT."""


class TableNotPlayable(SdkError):
    """The table cannot be played now (cancelled, already over): FAILED_PRECONDITION."""


class LimitExceeded(SdkError):
    """A server limit was hit (too many tables or streams for this client, or calls too fast): RESOURCE_EXHAUSTED.

    ``retry_after``: for calls refused by their rate (``RATE_LIMITED``), the seconds the server said to wait
    before calling again; None for the other limits, which free up as the client's tables and streams end.
    """

    def __init__(self, message: str, code: grpc.StatusCode | None = None, *,
                 retry_after: float | None = None) -> None:
        super().__init__(message, code)
        self.retry_after = retry_after


class ConnectionLost(SdkError):
    """The server could not be reached, or the connection kept dropping, after every retry."""


class ServerUnreachable(ConnectionLost):
    """The first connection to the server failed: nothing listens there, or it does not answer in time.

    Why apart from a lost connection: reconnecting is for connections that
    worked; a wrong address or a server that is not running fails at once.
    """


class ProtocolError(SdkError):
    """The server sent something the protocol does not allow (e.g. no Joined after a join)."""


#: Status codes after which reconnecting may help (the connection or the server had a problem).
RETRYABLE: frozenset[grpc.StatusCode] = frozenset({
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
})

#: Status codes after which the runner tries again with backoff: :data:`RETRYABLE`, and a server limit
#: (RESOURCE_EXHAUSTED: too many streams or seekers now, which frees up as other streams close).
RETRY_WITH_BACKOFF: frozenset[grpc.StatusCode] = RETRYABLE | {grpc.StatusCode.RESOURCE_EXHAUSTED}

_BY_CODE: dict[grpc.StatusCode, type[SdkError]] = {
    grpc.StatusCode.UNAUTHENTICATED: JoinRejected,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.NOT_FOUND: TableNotFound,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequest,
    grpc.StatusCode.OUT_OF_RANGE: InvalidRequest,
    grpc.StatusCode.FAILED_PRECONDITION: TableNotPlayable,
    grpc.StatusCode.RESOURCE_EXHAUSTED: LimitExceeded,
}


def retry_after_of(error: grpc.RpcError) -> float | None:
    """Seconds the server asks a ``RATE_LIMITED`` call to wait (``tricktable-retry-after-ms``); None for any other.

    Why the reason is checked and not only the code: RESOURCE_EXHAUSTED also says "too many tables or
    streams", which no wait of a known length cures.
    """
    trailers_fn = getattr(error, "trailing_metadata", None)
    trailers = trailers_fn() if callable(trailers_fn) else None
    found = {str(key): str(value) for key, value in trailers or ()}
    if found.get(REASON_KEY) != RATE_LIMITED:
        return None
    try:
        milliseconds = float(found.get(RETRY_AFTER_KEY, ""))
    except ValueError:
        return None
    return max(0.0, milliseconds) / 1000.0


def error_for_status(code: grpc.StatusCode, details: str) -> SdkError:
    """The SDK error for a gRPC status (retryable codes give :class:`ConnectionLost`)."""
    cls = _BY_CODE.get(code, ConnectionLost if code in RETRYABLE else SdkError)
    return cls(f"{code.name}: {details}" if details else code.name, code)


def error_from_rpc(error: grpc.RpcError) -> SdkError:
    """The SDK error for a failed call (``grpc.aio.AioRpcError`` or a sync ``grpc.RpcError``)."""
    code_fn = getattr(error, "code", None)
    details_fn = getattr(error, "details", None)
    code = code_fn() if callable(code_fn) else grpc.StatusCode.UNKNOWN
    details = details_fn() if callable(details_fn) else str(error)
    sdk_error = error_for_status(code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.UNKNOWN,
                                 str(details or ""))
    if isinstance(sdk_error, LimitExceeded):
        sdk_error.retry_after = retry_after_of(error)
    return sdk_error
