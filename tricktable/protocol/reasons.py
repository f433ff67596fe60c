"""Why a decision was refused in-band: the one Python form of the protocol's ``RejectionReason``.

A refusal inside a seat's stream (an illegal or stale action) is not an error:
the server answers with a ``Rejection`` carrying one of these reasons and the
stream stays open. The reasons are the rules' :class:`tricktable.rules.errors.ErrorCode`
values plus the protocol's own; the wire enum has the same names with the
prefix ``REJECTION_REASON_`` (:func:`tricktable.protocol.convert.rejection_reason_to_proto`
maps by name, and a test checks both lists are the same), so a bot can react
without parsing the message.
"""

from __future__ import annotations

from enum import StrEnum

from tricktable.rules.errors import ErrorCode


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
    #: The decide's annotation is over a limit or malformed (:mod:`tricktable.rules.annotation`).
    BAD_ANNOTATION = "BAD_ANNOTATION"


def reason_for(code: ErrorCode) -> RejectReason:
    """The in-band reason for a rules error code (one to one)."""
    return RejectReason(code.value)
