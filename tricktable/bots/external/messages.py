"""The bot protocol's objects, both ways: what the adapter writes and how a bot's answer is read.

One JSON object per message. The adapter writes ``hello`` (the game, its
options, the seat), ``decision`` (the seat's view in the plain JSON form of
:mod:`tricktable.rules.plain`, the legal actions with their ids, the time to
answer), ``error`` (what was wrong with an answer, and what was played
instead) and ``end`` (the result). The bot answers a decision with
``{"action": ID}``, ids being the actions' notation (:mod:`tricktable.rules.notation`:
``play-5H``, ``bid-7-NT``, ``pass``), optionally with a ``note`` and ``values``
(:mod:`tricktable.rules.annotation`), optionally echoing ``decision``.
docs/bot-protocol.schema.json is the schema of every object here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tricktable.rules.actions import Action, Discard
from tricktable.rules.annotation import Annotation, AnnotationError
from tricktable.rules.cards import card
from tricktable.rules.errors import NotationError, TricktableError
from tricktable.rules.game import Result, SeatView
from tricktable.rules.notation import from_notation, notation
from tricktable.rules.plain import event_json, to_json
from tricktable.rules.record import action_to_json

#: The protocol's version, in every ``hello``; a change that breaks a bot written for it makes a new one.
PROTOCOL_VERSION = 1
#: Longest answer read, in bytes: a longer line is garbage (and is not kept in memory).
MAX_ANSWER_BYTES = 65_536

#: The kinds of fault a bot can make, as the ``error`` message names them and the fault counts show them.
FAULTS: dict[str, str] = {
    "garbage": "the answer is not a JSON object with an \"action\" string",
    "unknown_action": "the answer's action is no action's id",
    "illegal_action": "the answer's action is not one of this decision's legal actions",
    "bad_annotation": "the answer's note or values break the annotation limits (the action was played)",
    "late": "no answer in the time given",
    "not_reading": "the program does not read its input",
    "exited": "the program has exited",
    "unreachable": "the bot's URL did not answer",
    "http_error": "the bot's URL answered with an HTTP error",
}


class AnswerFault(Exception):  # a bot's fault, named by kind
    """What is wrong with an answer: ``kind`` is a key of :data:`FAULTS`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's valid answer: one of the legal actions, with its note if it gave one."""

    action: Action
    annotation: Annotation | None = None
    #: What was wrong with the note (the action stands): a :class:`AnswerFault` of kind ``bad_annotation``.
    note_fault: str | None = None


def hello(view: SeatView, name: str) -> dict[str, Any]:
    """The first message: the game, its options, the seat and who sits where, read from the seat's first view."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "game": view.game, "options": to_json(view.options),
            "seat": view.seat, "players": view.players, "sides": to_json(view.sides), "name": name}


def legal_json(actions: Sequence[Action]) -> list[dict[str, Any]]:
    """The legal actions as the bot sees them: each its ``id`` and its record form (``type``, ``card``...)."""
    return [{"id": notation(a), **action_to_json(a)} for a in actions]


def view_json(view: SeatView) -> dict[str, Any]:
    """The seat's view in the plain JSON form, its history events with their kind; options are in ``hello``."""
    data: dict[str, Any] = to_json(view)
    data.pop("legal_actions", None)
    data.pop("options", None)
    data["history"] = [event_json(e) for e in view.history]
    return data


def decision(number: int, view: SeatView, time_ms: int | None) -> dict[str, Any]:
    """A decision: its number (echo it back to be safe), the view, the legal actions and the milliseconds to answer.

    ``time_ms`` is None when no clock runs and the adapter sets none either.
    """
    return {"type": "decision", "decision": number, "time_ms": time_ms, "legal": legal_json(view.legal_actions),
            "view": view_json(view)}


def error(number: int, kind: str, message: str, played: Action) -> dict[str, Any]:
    """Told to the bot after a faulty answer: what was wrong, and the action played for it instead."""
    return {"type": "error", "decision": number, "error": kind, "message": message, "played": notation(played)}


def end(result: Result) -> dict[str, Any]:
    """The last message: how the game ended (``winners`` are side numbers)."""
    return {"type": "end", "result": {"status": result.status, "winners": list(result.winners),
                                      "scores": list(result.scores), "reason": result.reason}}


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one line of UTF-8 JSON (no newline inside: the JSON is compact)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def stale(raw: bytes | str, number: int) -> bool:
    """Whether an answer names another decision than ``number`` (a late answer to an earlier one)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return isinstance(data, dict) and isinstance(data.get("decision"), int) and data["decision"] != number


def parse_answer(raw: bytes | str, legal: Sequence[Action]) -> Answer:
    """Read a bot's answer to a decision whose legal actions are ``legal``.

    Raises:
        AnswerFault: ``garbage``, ``unknown_action`` or ``illegal_action``, with a message for the bot.
    """
    if len(raw) > MAX_ANSWER_BYTES:
        raise AnswerFault("garbage", f"an answer of {len(raw)} bytes (at most {MAX_ANSWER_BYTES})")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        shown = raw[:60] if isinstance(raw, str) else raw[:60].decode("utf-8", "replace")
        raise AnswerFault("garbage", f"not JSON ({exc}): {shown!r}") from None
    if not isinstance(data, dict) or not isinstance(data.get("action"), str):
        raise AnswerFault("garbage", 'expected an object with an "action" string, e.g. {"action": "play-5H"}')
    text: str = data["action"]
    by_id = {notation(a): a for a in legal}
    action = by_id.get(text) or by_id.get(_discard_in_order(text))
    if action is None:
        try:
            from_notation(text)
        except NotationError as exc:
            raise AnswerFault("unknown_action", str(exc)) from None
        ids = ", ".join(list(by_id)[:12]) + (" ..." if len(by_id) > 12 else "")
        raise AnswerFault("illegal_action", f"{text!r} is not legal now (legal: {ids})")
    noted = {key: data[key] for key in ("note", "values") if data.get(key) not in (None, "", {})}
    if not noted:
        return Answer(action)
    try:
        annotation = Annotation.from_json(noted)
    except AnnotationError as exc:
        return Answer(action, note_fault=str(exc))
    return Answer(action, annotation or None)


def _discard_in_order(text: str) -> str:
    """A discard's id with its cards in the one written order (a bot may list them in any), else ``text``."""
    kind, *codes = text.split("-")
    if kind != Discard.type or not codes:
        return text
    try:
        return notation(Discard(cards=tuple(card(code) for code in codes)))
    except (TricktableError, ValueError):
        return text
