"""Errors of the rules package.

Every refusal carries a machine-readable :class:`ErrorCode` and an exact,
human-readable message. The server maps the code to its in-band rejection
reason one to one, so a bot in any language can react to ``MUST_FOLLOW_SUIT``
without parsing English.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why an action was refused. Values are stable: they travel on the wire."""

    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    GAME_OVER = "GAME_OVER"
    WRONG_PHASE = "WRONG_PHASE"
    """The action's type is not one the current step of the deal accepts."""
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    MUST_PLAY_TRUMP = "MUST_PLAY_TRUMP"
    """Spoil Five family: a trump was led and a non-exempt trump is held."""
    MUST_FOLLOW_OR_TRUMP = "MUST_FOLLOW_OR_TRUMP"
    """Spoil Five family with ``trump_at_will``: follow suit or trump, nothing else."""
    ROB_NOT_ALLOWED = "ROB_NOT_ALLOWED"
    MUST_PLAY_AFTER_ROB = "MUST_PLAY_AFTER_ROB"
    GIFT_NOT_ALLOWED = "GIFT_NOT_ALLOWED"
    BID_TOO_LOW = "BID_TOO_LOW"
    BID_OUT_OF_RANGE = "BID_OUT_OF_RANGE"
    BAD_DISCARD = "BAD_DISCARD"
    JOKER_NOT_ALLOWED = "JOKER_NOT_ALLOWED"
    """Cinq Cents at no-trump: a joker played while able to follow, or led on the first trick."""
    BAD_NAMED_SUIT = "BAD_NAMED_SUIT"
    """A joker led at no-trump names no suit, or one not yet led; or a suit named where none may be."""
    MALFORMED_ACTION = "MALFORMED_ACTION"


class TricktableError(Exception):
    """Base of every error this project raises on purpose."""


class NotationError(TricktableError, ValueError):
    """A card, suit or action could not be parsed from its notation."""


class OptionsError(TricktableError, ValueError):
    """Table options are unknown, mistyped or inconsistent.

    The message names the game and the offending values, e.g.
    ``forty_five: sides must divide players (7 players, sides 3)``.
    """


class RuleError(TricktableError, ValueError):
    """An action the rules refuse. The state it was checked against is unchanged."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleError({self.code.value}, {self.message!r})"


class RecordError(TricktableError, ValueError):
    """A game record is malformed (not a record of format 1, or a field of the wrong type)."""
