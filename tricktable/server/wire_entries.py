"""The server's byte caches: legal actions, completed tricks and history entries as protobuf wire entries.

Why bytes: protobuf fields concatenate. A server sends the same few dozen
actions, history entries and tricks to every seat in every decision, so
each is converted once (:class:`ConvertedOnce`) into the bytes of one entry
of the field that holds it (:func:`wire_entry`: tag, length, message), and a
decision is built by joining the entries and parsing them once (in C)
instead of copying every kept message into it (:class:`tricktable.server.wire.SeatWire`).

What each entry holds is the conversion of :mod:`tricktable.protocol.convert`;
only its wire framing is made here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from google.protobuf.message import Message

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2, table_service_pb2
from tricktable.protocol.wire_cache import MAX_CONVERTED_KEPT, remember
from tricktable.rules.actions import Action
from tricktable.rules.events import ActionEvent
from tricktable.rules.game import Trick

K = TypeVar("K")
#: A converted message.
M = TypeVar("M")


class ConvertedOnce(Generic[K, M]):
    """Conversions of frozen rules values (their wire bytes, :func:`wire_entry`), kept by the value.

    At most ``limit`` are kept, the oldest forgotten first; a value ``keep``
    refuses is converted every time.
    """

    def __init__(self, convert: Callable[[K], M], limit: int, keep: Callable[[K], bool] | None = None) -> None:
        self._convert = convert
        self._keep = keep
        self.limit = limit
        self.kept: dict[K, M] = {}

    def __call__(self, value: K) -> M:
        message = self.kept.get(value)
        if message is None:
            message = self._convert(value)
            if self._keep is None or self._keep(value):
                remember(self.kept, value, message, self.limit)
        return message


def _varint(number: int) -> bytes:
    """A non-negative integer as a protobuf varint (a length or a field's tag)."""
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def field_tag(message: type[Message], name: str) -> bytes:
    """The wire tag of ``message``'s message field ``name`` (wire type 2: a length follows), as bytes."""
    return _varint(message.DESCRIPTOR.fields_by_name[name].number << 3 | 2)


def wire_entry(tag: bytes, message: Message) -> bytes:
    """``message`` as one entry of the field whose ``tag`` is given (:func:`field_tag`): tag, length, bytes."""
    body = message.SerializeToString()
    return tag + _varint(len(body)) + body


#: The tag of a view's history entries and of its completed tricks.
_HISTORY_TAG = field_tag(game_pb2.SeatView, "history")
_TRICKS_TAG = field_tag(game_pb2.SeatView, "tricks")

#: A history entry as a ``SeatView.history`` entry's wire bytes: a public entry is one object in every seat's
#: history, converted once for all of them.
seat_action_converted: ConvertedOnce[ActionEvent, bytes] = ConvertedOnce(
    lambda event: wire_entry(_HISTORY_TAG, convert.seat_action_to_proto(event)), MAX_CONVERTED_KEPT)

#: A completed trick as a ``SeatView.tricks`` entry's wire bytes: one object in every seat's view, converted once
#: for all of them.
trick_converted: ConvertedOnce[Trick, bytes] = ConvertedOnce(
    lambda trick: wire_entry(_TRICKS_TAG, convert.trick_to_proto(trick)), MAX_CONVERTED_KEPT)


@dataclass(frozen=True, slots=True)
class LegalActionWire:
    """A legal action as a decision sends it: its id and its two entries' wire bytes (:func:`wire_entry`)."""

    id: str
    #: A ``DecisionRequest.legal_actions`` entry: the ``LegalAction`` (id, name, action).
    in_request: bytes
    #: A ``SeatView.legal_actions`` entry: the ``Action``.
    in_view: bytes


_REQUEST_LEGAL_TAG = field_tag(table_service_pb2.DecisionRequest, "legal_actions")
_VIEW_LEGAL_TAG = field_tag(game_pb2.SeatView, "legal_actions")


def _legal_action_wire(action: Action) -> LegalActionWire:
    item = table_service_pb2.LegalAction()
    convert.fill_legal_action(item, action)
    return LegalActionWire(item.id, wire_entry(_REQUEST_LEGAL_TAG, item), wire_entry(_VIEW_LEGAL_TAG, item.action))


#: A legal action's id and entries: a table offers the same few dozen actions in every decision. Discards are not
#: kept (thousands; they go as a ``DiscardChoice``).
legal_action_converted: ConvertedOnce[Action, LegalActionWire] = ConvertedOnce(
    _legal_action_wire, MAX_CONVERTED_KEPT, lambda action: action.type != "discard")
