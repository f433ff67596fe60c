"""The view a bot is given: a :class:`tricktable.rules.game.SeatView` decoded field by field, when first read.

Why: a decision's view is on the critical path of every move, between the
bot's process reading the message and its bot being asked. A bot that reads
a few fields (its hand, the trick, its legal actions) does not wait for the
decoding of the rest, and a field is decoded at most once. The view is a
``SeatView`` (an instance of the class, equal to the fully decoded one,
with the same ``repr``, ``dataclasses.replace`` and pickling), so a bot
never needs to know (docs/sdk.md, "The view your bot is given").

A seat's history is decoded through its :class:`KeptHistory`: within a deal
it only grows, so each decision decodes only the entries new since the last.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from tricktable.protocol.convert import VIEW_FIELDS, game_from_proto, history_from_proto, options_from_proto
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.rules.actions import Action
from tricktable.rules.events import ActionEvent
from tricktable.rules.game import Seat, SeatView

#: Every field of a ``SeatView``, in order (what equality compares).
_SEAT_VIEW_FIELDS = tuple(f.name for f in fields(SeatView))
#: The fields :func:`view_on_read` reads at once: plain numbers, cheaper to read than a miss of the slot.
_READ_AT_ONCE = ("seat", "players", "deal_number", "dealer", "to_act", "no_trump")


class KeptHistory:
    """A seat's history decoded from its successive views, each entry once.

    Why: a view carries the deal's whole history, and within a deal it only
    grows; a client decoding every decision's view decodes only the entries
    new since the last one. A view of another deal, or whose history does not
    continue the one kept, is decoded whole.
    """

    def __init__(self) -> None:
        self._deal = -1
        self._events: tuple[ActionEvent, ...] = ()
        #: The wire bytes of the last entry kept (a message's bytes compare faster than the message).
        self._last = b""

    def of(self, view: game_pb2.SeatView) -> tuple[ActionEvent, ...]:
        """``view``'s history as :func:`tricktable.protocol.convert.view_from_proto` decodes it.

        Raises:
            NotationError: when a new entry has no action case or a malformed field.
        """
        entries = view.history
        count = len(entries)
        known = len(self._events)
        if view.deal_number != self._deal or count < known or (
                known and entries[known - 1].SerializeToString() != self._last):
            self._deal, self._events, known = view.deal_number, (), 0
        if count > known:
            self._events += history_from_proto(view, entries[known:])
            self._last = entries[count - 1].SerializeToString()
        return self._events


def view_on_read(
    message: game_pb2.SeatView,
    *,
    options: Mapping[str, Any] | None,
    sides: tuple[tuple[Seat, ...], ...] | None,
    legal_actions: tuple[Action, ...] | None,
    history: KeptHistory,
) -> SeatView:
    """:func:`tricktable.protocol.convert.view_from_proto` of a decision's view, each field but the game, options,
    sides, legal actions and plain numbers decoded when it is first read (``history`` through the seat's
    :class:`KeptHistory`).

    ``options``, ``sides`` and ``legal_actions``, when given, are used instead of decoding the message's (the SDK
    holds the table's options and sides, and reads the legal actions from the decision request). The view is
    equal to the one ``view_from_proto`` decodes.

    Raises:
        OptionsError: for an unset game or options of another game (the rest raises when read, as
            ``view_from_proto`` would).
    """
    game = game_from_proto(message.game)
    view = _ViewOnRead.__new__(_ViewOnRead)
    setter = object.__setattr__
    setter(view, "game", game)
    setter(view, "options", options_from_proto(game, message.options) if options is None else options)
    for name in _READ_AT_ONCE:
        setter(view, name, VIEW_FIELDS[name](message))
    if sides is not None:
        setter(view, "sides", sides)
    if legal_actions is not None:
        setter(view, "legal_actions", legal_actions)
    setter(view, "_message", message)
    setter(view, "_history", history)
    return view


class _ViewOnRead(SeatView):
    """A :class:`rules.game.SeatView` whose fields are decoded from its message when first read (:func:`view_on_read`).

    A field not decoded yet is an unset slot: reading it falls through to
    :meth:`__getattr__`, which decodes it and sets the slot, so the next read
    is a plain attribute read. Equality, ``repr``, ``replace`` and pickling go
    through the fields and decode what they read.
    """

    __slots__ = ("_history", "_message")
    _message: game_pb2.SeatView
    _history: KeptHistory

    def __getattr__(self, name: str) -> Any:
        decode = VIEW_FIELDS.get(name)
        if decode is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        message = self._message
        value = self._history.of(message) if name == "history" else decode(message)
        object.__setattr__(self, name, value)
        return value

    def __eq__(self, other: object) -> bool:
        """Equal to any view with the same fields (a decoded ``SeatView`` too)."""
        if not isinstance(other, SeatView):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _SEAT_VIEW_FIELDS)

    __hash__ = SeatView.__hash__
