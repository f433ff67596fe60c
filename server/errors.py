"""Domain errors of the server and the one table that maps them to gRPC status codes.

Every refusal the server gives outside a table's stream is one of these
errors; the error interceptor turns it into the status code of
:data:`STATUS_CODES` with the error's message. A test checks that every
error class is mapped. Refusals inside a seat's stream (an illegal or stale
action) are not errors: they are in-band rejections with a
:class:`RejectReason`, and the stream stays open.
"""

from __future__ import annotations

from enum import StrEnum

import grpc

from rules.errors import ErrorCode, NotationError, OptionsError, RecordError


class ServerError(Exception):
    """Base of the server's domain errors; ``message`` is what the client reads."""

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


class ShuttingDownError(ServerError):
    """The server is stopping and accepts no new tables or seekers."""


class TableNotOverError(ServerError):
    """The record of a table that is still running was asked for."""


class AlreadyJoinedError(ServerError):
    """A stream tried to join twice."""


#: Domain error -> status code. Rules errors that reach the service layer
#: (options, notation, records) are the client's bad input.
STATUS_CODES: dict[type[Exception], grpc.StatusCode] = {
    TableNotFoundError: grpc.StatusCode.NOT_FOUND,
    BadTokenError: grpc.StatusCode.UNAUTHENTICATED,
    InvalidRequestError: grpc.StatusCode.INVALID_ARGUMENT,
    TooManyTablesError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    TooManyStreamsError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ShuttingDownError: grpc.StatusCode.UNAVAILABLE,
    TableNotOverError: grpc.StatusCode.FAILED_PRECONDITION,
    AlreadyJoinedError: grpc.StatusCode.FAILED_PRECONDITION,
    OptionsError: grpc.StatusCode.INVALID_ARGUMENT,
    NotationError: grpc.StatusCode.INVALID_ARGUMENT,
    RecordError: grpc.StatusCode.INVALID_ARGUMENT,
}


def status_for(error: BaseException) -> grpc.StatusCode | None:
    """The status code for ``error`` (most specific class first), or None when it is not a domain error."""
    for cls in type(error).__mro__:
        code = STATUS_CODES.get(cls)
        if code is not None:
            return code
    return None


class RejectReason(StrEnum):
    """Why an action was refused in-band: the rules' codes plus the server's own.

    Values travel on the wire (the protocol's rejection reason enum has the
    same names), so a bot can react without parsing the message.
    """

    NOT_YOUR_TURN = ErrorCode.NOT_YOUR_TURN.value
    GAME_OVER = ErrorCode.GAME_OVER.value
    WRONG_PHASE = ErrorCode.WRONG_PHASE.value
    CARD_NOT_IN_HAND = ErrorCode.CARD_NOT_IN_HAND.value
    MUST_FOLLOW_SUIT = ErrorCode.MUST_FOLLOW_SUIT.value
    MUST_PLAY_TRUMP = ErrorCode.MUST_PLAY_TRUMP.value
    MUST_FOLLOW_OR_TRUMP = ErrorCode.MUST_FOLLOW_OR_TRUMP.value
    ROB_NOT_ALLOWED = ErrorCode.ROB_NOT_ALLOWED.value
    MUST_PLAY_AFTER_ROB = ErrorCode.MUST_PLAY_AFTER_ROB.value
    GIFT_NOT_ALLOWED = ErrorCode.GIFT_NOT_ALLOWED.value
    BID_TOO_LOW = ErrorCode.BID_TOO_LOW.value
    BID_OUT_OF_RANGE = ErrorCode.BID_OUT_OF_RANGE.value
    BAD_DISCARD = ErrorCode.BAD_DISCARD.value
    JOKER_NOT_ALLOWED = ErrorCode.JOKER_NOT_ALLOWED.value
    BAD_NAMED_SUIT = ErrorCode.BAD_NAMED_SUIT.value
    MALFORMED_ACTION = ErrorCode.MALFORMED_ACTION.value
    #: The decision id is not the pending one (already answered differently, or never issued).
    STALE_DECISION = "STALE_DECISION"
    #: The table has not started: not every seat has joined yet.
    NOT_STARTED = "NOT_STARTED"
    #: The action id is not one of the pending decision's legal action ids.
    UNKNOWN_ACTION_ID = "UNKNOWN_ACTION_ID"
    #: A decide arrived on a stream that has not joined.
    NOT_JOINED = "NOT_JOINED"
    #: A second join arrived on a stream that has joined.
    ALREADY_JOINED = "ALREADY_JOINED"


def reason_for(code: ErrorCode) -> RejectReason:
    """The in-band reason for a rules error code (one to one)."""
    return RejectReason(code.value)
