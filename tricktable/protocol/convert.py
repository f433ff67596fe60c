"""The one conversion module between rules objects and ``tricktable.v1`` proto messages.

Both the server and the SDK use it, so the wire form of a card, an action, an
option set or a view is defined in exactly one place. Every ``*_to_proto`` has
a ``*_from_proto`` and the pair round-trips (tests/sdk/test_convert.py).

Wire choices (see the design notes at the top of protos/tricktable/v1/*.proto):

- Cards are their record notation (``"5H"``, ``"JKB"``); ``""`` means no card
  or a card hidden from the recipient.
- Actions are ``Action`` messages whose oneof case is the record's action
  ``type``. History entries (record-form dicts with ``seat``, possibly with a
  hidden card) are ``SeatAction`` messages, with hidden fields left empty.
- Options are the rules' options dicts; known options go to the game's typed
  message (unset = default), any other key to ``extra_json`` as JSON text.
  A ``None`` value (e.g. ``first_dealer`` unset) is the same as an absent key.
- A Cinq Cents discard decision goes as a ``DiscardChoice`` ("choose 6 of
  these 16 cards", :func:`tricktable.rules.actions.discard_choice`) instead of its 8008
  actions, unless the caller asks to enumerate them; decoding expands it back
  with :func:`tricktable.rules.actions.discards_of`, so a decoded view always lists its
  legal actions.
- A spectator's view has no seat on the wire and ``seat == SPECTATOR_SEAT``
  (-1) in a :class:`tricktable.rules.game.SeatView`.

Decoded actions, tricks and history entries are kept by their wire bytes
(:mod:`tricktable.protocol.wire_cache`): a client meets the same ones in
every decision. The server's byte caches of what it sends are
:mod:`tricktable.server.wire_entries`; the SDK's lazily decoded view is
:mod:`tricktable.client_sdk.lazy_view`.

Errors: decoding raises :class:`tricktable.rules.errors.NotationError` for a malformed
action or card (the server answers it with ``MALFORMED_ACTION``) and
:class:`tricktable.rules.errors.OptionsError` for options that do not fit the game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, TypeVar

from google.protobuf.message import Message

from tricktable.protocol.game_entries import enum_value
from tricktable.protocol.generated.tricktable.v1 import events_pb2, game_pb2, table_service_pb2
from tricktable.protocol.wire_cache import (
    ACTIONS_DECODED,
    LEGAL_DECODED,
    SEAT_ACTIONS_DECODED,
    TRICKS_DECODED,
    decoded_once,
    remember,
)
from tricktable.rules.actions import (
    ACTION_CLASSES,
    Action,
    Bid,
    Denomination,
    Discard,
    Gift,
    Play,
    Rob,
    Run,
    describe,
    discard_choice,
    discards_of,
)
from tricktable.rules.annotation import Annotation
from tricktable.rules.cards import ALL_CARDS, Card, Suit
from tricktable.rules.errors import NotationError, OptionsError
from tricktable.rules.events import (
    ACTION_EVENTS,
    ActionEvent,
    Begged,
    BidMade,
    CardPlayed,
    ContractSet,
    DealScored,
    DealStarted,
    DealVoided,
    Discarded,
    Gifted,
    Jinked,
    JinkPassed,
    KittyTaken,
    PackRun,
    Passed,
    Robbed,
    RobPassed,
    Stood,
    TrickWon,
    TrumpSet,
    event_of,
)
from tricktable.rules.events import Event as RulesEvent
from tricktable.rules.game import Contract, Result, Seat, SeatView, Trick
from tricktable.rules.notation import notation
from tricktable.rules.registry import game_definition, games, is_registered
from tricktable.rules.spoil_five_config import DEAL_PATTERNS, DealPattern

#: The seat number of a spectator's view (no seat on the wire).
SPECTATOR_SEAT: Seat = -1

# --- games, suits, denominations, cards ------------------------------------

K = TypeVar("K")
V = TypeVar("V", covariant=True)


class _ProtoEnum(Protocol[V]):
    """A generated proto enum: ``Value(name)`` gives the number of a value name."""

    def Value(self, name: str) -> V: ...


def by_name(keys: Iterable[K], enum: _ProtoEnum[V], prefix: str) -> tuple[dict[K, V], dict[V, K]]:
    """The mapping both ways between ``keys`` and a proto enum whose values are named ``PREFIX_<KEY NAME>``.

    A key's name is its enum member name (``Suit.CLUBS`` -> ``SUIT_CLUBS``) or,
    for a string, the string upper-cased (``"finished"`` -> ``RESULT_STATUS_FINISHED``).
    The name is the only link, so a value added on one side and not the other
    fails at import.
    """
    to = {k: enum.Value(f"{prefix}_{k.name if isinstance(k, Enum) else str(k).upper()}") for k in keys}
    return to, {v: k for k, v in to.items()}


_SUITS, _SUIT_OF = by_name(Suit, game_pb2.Suit, "SUIT")
_DENOMINATIONS, _DENOMINATION_OF = by_name(Denomination, game_pb2.Denomination, "DENOMINATION")


#: ``Game`` values met so far, both ways (name -> value, value -> name), filled on first use of each game: a
#: game registered after import is found, and the registry is still asked at each call (a hit is two lookups).
_GAME_VALUES: dict[str, game_pb2.Game.ValueType] = {}
_GAME_NAMES: dict[game_pb2.Game.ValueType, str] = {}


def game_to_proto(game: str) -> game_pb2.Game.ValueType:
    """The ``Game`` enum value of a registered game's name (``"twenty_five"``, ...).

    The registry is asked at each call, so a game registered after this module was imported is found
    (its value is ``GAME_`` and its name upper-cased, :func:`tricktable.protocol.game_entries.enum_value`).

    Raises:
        OptionsError: for a name the registry does not know, or a registered game game.proto has no value for.
    """
    if not is_registered(game):
        raise OptionsError(f"unknown game {game!r} (games: {', '.join(games())})")
    value = _GAME_VALUES.get(game)
    if value is None:
        try:
            value = game_pb2.Game.Value(enum_value(game))
        except ValueError:
            raise OptionsError(f"game {game!r} has no Game value and options message in tricktable/v1/game.proto"
                               " (make protos writes them)") from None
        _GAME_VALUES[game], _GAME_NAMES[value] = value, game
    return value


def game_from_proto(game: game_pb2.Game.ValueType) -> str:
    """The registered game's name of a ``Game`` enum value.

    Raises:
        OptionsError: for ``GAME_UNSPECIFIED``, an unknown number, or the value of a game not registered.
    """
    name = _GAME_NAMES.get(game)
    if name is not None and is_registered(name):
        return name
    for registered in games():
        if enum_value(registered) in game_pb2.Game.DESCRIPTOR.values_by_name and game_to_proto(registered) == game:
            return registered
    values = ", ".join(value for value in map(enum_value, games()) if value in game_pb2.Game.DESCRIPTOR.values_by_name)
    raise OptionsError(f"game must be one of {values}, not {int(game)}")


def suit_to_proto(suit: Suit | None) -> game_pb2.Suit.ValueType:
    """A suit, or ``SUIT_UNSPECIFIED`` for ``None``."""
    return game_pb2.SUIT_UNSPECIFIED if suit is None else _SUITS[suit]


def suit_from_proto(suit: game_pb2.Suit.ValueType) -> Suit | None:
    """A suit, or ``None`` for ``SUIT_UNSPECIFIED``.

    Raises:
        NotationError: for a number that is no suit.
    """
    if suit == game_pb2.SUIT_UNSPECIFIED:
        return None
    try:
        return _SUIT_OF[suit]
    except KeyError:
        raise NotationError(f"not a suit: enum value {int(suit)}") from None


def denomination_to_proto(denomination: Denomination) -> game_pb2.Denomination.ValueType:
    """A bid's denomination."""
    return _DENOMINATIONS[denomination]


def denomination_from_proto(denomination: game_pb2.Denomination.ValueType) -> Denomination:
    """A bid's denomination.

    Raises:
        NotationError: for ``DENOMINATION_UNSPECIFIED`` or an unknown number.
    """
    try:
        return _DENOMINATION_OF[denomination]
    except KeyError:
        raise NotationError(f"a bid needs a denomination (got enum value {int(denomination)})") from None


def card_to_proto(card: Card | None) -> str:
    """A card's notation, or ``""`` for no card."""
    return "" if card is None else card.code


#: Every card by its wire form (its notation): decoding a card is one lookup.
_CARD_OF: dict[str, Card] = {c.code: c for c in ALL_CARDS}


def card_from_proto(text: str) -> Card | None:
    """A card from its notation, or ``None`` for ``""``.

    Raises:
        NotationError: for text that is not a card.
    """
    if text == "":
        return None
    card = _CARD_OF.get(text)
    return Card.parse(text) if card is None else card  # Card.parse says what is wrong with the text


def cards_to_proto(items: Iterable[Card]) -> list[str]:
    """Several cards in notation, order kept."""
    return [c.code for c in items]


def cards_from_proto(items: Sequence[str]) -> tuple[Card, ...]:
    """Several cards from notation, order kept (one lookup each: a view has a dozen card lists).

    Raises:
        NotationError: on the first bad card.
    """
    if not items:
        return ()
    try:
        return tuple(map(_CARD_OF.__getitem__, items))
    except KeyError:
        return tuple(Card.parse(c) for c in items)  # raises, naming the first bad card


# --- actions -----------------------------------------------------------------
#
# An action's wire form is its record form: the ``Action`` oneof case is the
# record's ``type`` and each field is one of the action's attributes. The one
# table below says, per action class, which attribute goes to which field and
# how its value is written; every conversion of actions reads it.


@dataclass(frozen=True, slots=True)
class _Field:
    """One attribute of a rules object and its proto field: ``put`` writes the value, ``get`` reads it back."""

    attr: str
    wire: str
    put: Callable[[Any], Any]
    get: Callable[[Any], Any]


def _required_card(text: str) -> Card:
    card = card_from_proto(text)
    if card is None:
        raise NotationError("a card is required")
    return card


def _card_field(attr: str, wire: str | None = None) -> _Field:
    return _Field(attr, wire or attr, card_to_proto, _required_card)


def _cards_field(attr: str, wire: str | None = None) -> _Field:
    """A tuple of cards; ``None`` (unknown, or hidden from the recipient) is written as no cards."""
    return _Field(attr, wire or attr, lambda v: [] if v is None else cards_to_proto(v),
                  lambda v: cards_from_proto(v) or None)


_ACTION_FIELDS: dict[type[Action], tuple[_Field, ...]] = {
    Play: (_card_field("card"), _Field("suit", "named_suit", suit_to_proto, suit_from_proto)),
    Rob: (_card_field("card"),),
    Run: (_cards_field("exposed"),),
    Bid: (_Field("tricks", "tricks", int, int),
          _Field("denomination", "denomination", denomination_to_proto, denomination_from_proto)),
    Discard: (_Field("cards", "cards", cards_to_proto, cards_from_proto),),
}
_ACTION_CLASS: dict[str, type[Action]] = {cls.type: cls for cls in ACTION_CLASSES}

#: The oneof case of ``Action`` for each action type (they are the record's ``type`` names).
ACTION_TYPES: tuple[str, ...] = tuple(_ACTION_CLASS)


def _put(message: Any, wire: str, value: Any) -> None:
    """Write one converted value: a message is copied, a list extends a repeated field, None leaves it unset."""
    if value is None:
        return
    if isinstance(value, list):
        getattr(message, wire).extend(value)
    elif isinstance(value, Message):
        getattr(message, wire).CopyFrom(value)
    else:
        setattr(message, wire, value)


def action_to_proto(action: Action) -> game_pb2.Action:
    """An action as an ``Action`` message (a ``Run``'s exposed cards included when known)."""
    out = game_pb2.Action()
    _fill_action(out, action)
    return out


def _fill_action(out: game_pb2.Action, action: Action) -> None:
    """Write ``action`` into ``out`` in place (a message built inside its parent is not copied again)."""
    case = getattr(out, action.type)
    case.SetInParent()
    for f in _ACTION_FIELDS.get(type(action), ()):
        value = getattr(action, f.attr)
        if value is not None:  # unset: the field's default
            _put(case, f.wire, f.put(value))


@decoded_once(ACTIONS_DECODED)
def action_from_proto(message: game_pb2.Action) -> Action:
    """An action from an ``Action`` message (one met before is not decoded again: :func:`decoded_once`).

    Raises:
        NotationError: no case set, a bad card, a missing card or denomination.
    """
    kind = message.WhichOneof("kind")
    if kind is None:
        raise NotationError("an action needs one of: " + ", ".join(ACTION_TYPES))
    cls = _ACTION_CLASS[kind]
    case = getattr(message, kind)
    values: dict[str, Any] = {}
    for f in _ACTION_FIELDS.get(cls, ()):
        try:
            values[f.attr] = f.get(getattr(case, f.wire))
        except NotationError as error:
            raise NotationError(f"{kind}: {f.wire}: {error}") from None
    action: Action = cls(**values)
    return action


def seat_action_to_proto(event: ActionEvent) -> game_pb2.SeatAction:
    """A history entry (an action event, as its recipient sees it) as a ``SeatAction``.

    A field hidden from the recipient (another seat's buried card, the
    declarer's discards) is left empty.
    """
    out = game_pb2.SeatAction()
    fill_seat_action(out, event)
    return out


def fill_seat_action(out: game_pb2.SeatAction, event: ActionEvent) -> None:
    """Write a history entry into ``out`` in place (a seat's history is built inside its view)."""
    out.seat = event.seat
    action = event.action
    if action is None:
        getattr(out.action, event.action_type).SetInParent()
    else:
        _fill_action(out.action, action)


def seat_action_from_proto(message: game_pb2.SeatAction, *, turn_up: Card | None, dealer: Seat,
                           players: int) -> ActionEvent:
    """A ``SeatAction`` as the action event it tells (``turn_up``, ``dealer``: the deal's, for a rob and a gift).

    An entry met before is not decoded again (:data:`tricktable.protocol.wire_cache.SEAT_ACTIONS_DECODED`).

    Raises:
        NotationError: when the action has no case set, or a malformed field.
    """
    key = message.SerializeToString()
    event = SEAT_ACTIONS_DECODED.get(key)
    if event is not None:
        return event
    action = message.action
    kind = action.WhichOneof("kind")
    if kind == "rob" and not action.rob.card:
        if turn_up is None:
            raise NotationError("a rob takes the turn-up, and this deal has none")
        return Robbed(seat=message.seat, taken=turn_up, buried=None)
    if kind == "discard" and not action.discard.cards:
        return Discarded(seat=message.seat, cards=None)
    try:
        event = event_of(message.seat, action_from_proto(action), turn_up=turn_up, eldest=(dealer + 1) % players)
    except ValueError as error:
        raise NotationError(str(error)) from None
    # A rob's event names the deal's turn-up, a gift's its eldest hand: the only entries not told by their bytes.
    return event if kind in _DEAL_TOLD else remember(SEAT_ACTIONS_DECODED, key, event)


#: The history entries whose event depends on the deal, not only on their wire bytes.
_DEAL_TOLD = frozenset({Rob.type, Gift.type})


def action_id(action: Action) -> str:
    """The stable id of a legal action on the wire: its notation (:func:`tricktable.rules.notation.notation`).

    ``"play-5H"``, ``"play-JKB-H"``, ``"rob-2C"``, ``"bid-7-NT"``, ``"discard-4C-5C-..."``, ``"pass"``.
    The same action always has the same id, so an id stays valid across a
    reconnect for the same decision; :func:`tricktable.rules.notation.from_notation` reads it back.
    """
    return notation(action)


def annotation_to_proto(annotation: Annotation) -> table_service_pb2.Annotation:
    """The wire form of a bot's annotation (``Decide.annotation``)."""
    return table_service_pb2.Annotation(note=annotation.note, values=dict(annotation.values))


def annotation_from_proto(message: table_service_pb2.Annotation) -> Annotation | None:
    """A decide's annotation, None when it is empty (unset).

    Raises:
        AnnotationError: over a limit or malformed (the server refuses the decide with ``BAD_ANNOTATION``).
    """
    annotation = Annotation(note=message.note, values=dict(message.values))
    return annotation if annotation else None


def legal_actions_to_proto(actions: Iterable[Action]) -> list[table_service_pb2.LegalAction]:
    """Legal actions with their stable ids and readable names, order kept."""
    out = []
    for action in actions:
        item = table_service_pb2.LegalAction()
        fill_legal_action(item, action)
        out.append(item)
    return out


def fill_legal_action(out: table_service_pb2.LegalAction, action: Action) -> None:
    """Write ``action`` with its id and name into ``out`` in place (a decision's list is built inside it)."""
    if isinstance(action, Discard):
        # Cinq Cents offers thousands of discards at once: id, name and message from one pass over the cards
        # (the same as action_id, describe and action_to_proto give).
        cards = [c.code for c in action.cards]
        out.id = "discard-" + "-".join(c.code for c in sorted(action.cards, key=_card_index))
        out.name = "discard " + " ".join(cards)
        out.action.discard.cards.extend(cards)
        out.action.discard.SetInParent()
        return
    out.id = action_id(action)
    out.name = describe(action)
    _fill_action(out.action, action)


def _card_index(card: Card) -> int:
    return card.index


def discard_choice_to_proto(actions: Sequence[Action]) -> game_pb2.DiscardChoice | None:
    """The compact ``DiscardChoice`` of a decision whose legal actions are every discard of k of n cards, else None."""
    found = discard_choice(actions)
    if found is None:
        return None
    cards, count = found
    return game_pb2.DiscardChoice(cards=cards_to_proto(cards), count=count)


def discard_choice_from_proto(message: game_pb2.DiscardChoice) -> tuple[Action, ...]:
    """The legal actions a ``DiscardChoice`` stands for (every discard of ``count`` of ``cards``), sorted.

    Raises:
        NotationError: for a bad card, or a count that leaves nothing to choose.
    """
    cards = cards_from_proto(message.cards)
    if not 0 < message.count <= len(cards):
        raise NotationError(f"discard_choice: count {message.count} does not fit {len(cards)} cards")
    return tuple(discards_of(cards, message.count))


def legal_actions_from_proto(items: Iterable[table_service_pb2.LegalAction]) -> dict[str, Action]:
    """A decision's legal actions by id, order kept (an entry met before is not read again: ``LEGAL_DECODED``).

    Why by the entry's bytes: a client reads these on the critical path of every move, between its process
    reading the decision and its bot being asked, and a table offers the same few dozen entries again and
    again; one serialization and one lookup an entry cost less than reading its id and its action apart.

    Raises:
        NotationError: for a malformed action.
    """
    out: dict[str, Action] = {}
    for item in items:
        key = item.SerializeToString()
        known = LEGAL_DECODED.get(key)
        if known is None:
            known = remember(LEGAL_DECODED, key, (item.id, action_from_proto(item.action)))
        out[known[0]] = known[1]
    return out


# --- options -------------------------------------------------------------------

_DEAL_PATTERNS, _DEAL_PATTERN_OF = by_name(DealPattern, game_pb2.DealPattern, "DEAL_PATTERN")

#: Typed option fields per game, option name -> kind, each derived once from the game's definition (its
#: ``options``: tricktable.rules.definition.OPTION_KINDS); tests/protocol/test_option_schema.py checks them
#: against game.proto.
_OPTION_FIELDS: dict[str, dict[str, str]] = {}


def _option_fields(game: str) -> dict[str, str]:
    """The typed option fields of ``game``.

    Raises:
        OptionsError: for an unknown game, or one the protocol has no ``Game`` value for (game.proto).
    """
    fields = _OPTION_FIELDS.get(game)
    if fields is None:
        kinds = game_definition(game).option_kinds()
        game_to_proto(game)  # the game has a Game value and options message in game.proto
        fields = _OPTION_FIELDS[game] = kinds
    return fields


def options_to_proto(game: str, options: Mapping[str, Any]) -> game_pb2.TableOptions:
    """A rules options dict as ``TableOptions`` (the game's case set even when empty).

    Known options fill the game's typed message; other keys go to ``extra_json``;
    ``None`` values are left unset.

    Raises:
        OptionsError: for an unknown game, or a known option of the wrong type.
    """
    out = game_pb2.TableOptions()
    fields = _option_fields(game)
    typed = getattr(out, game)
    typed.SetInParent()
    for name, value in options.items():
        kind = fields.get(name)
        if value is None:
            continue
        if kind is None:
            out.extra_json[name] = json.dumps(value, sort_keys=True)
        elif kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise OptionsError(f"{game}: option {name} must be an integer, not {value!r}")
            setattr(typed, name, value)
        elif kind == "bool":
            if not isinstance(value, bool):
                raise OptionsError(f"{game}: option {name} must be true or false, not {value!r}")
            setattr(typed, name, value)
        elif kind == "deal_pattern":
            if not isinstance(value, str) or value not in DEAL_PATTERNS:
                raise OptionsError(f"{game}: deal_pattern must be one of {', '.join(DEAL_PATTERNS)}, not {value!r}")
            typed.deal_pattern = _DEAL_PATTERNS[DealPattern(value)]
        else:
            typed.bid_values.extend(_bid_values_to_proto(game, value))
    return out


def options_from_proto(game: str, message: game_pb2.TableOptions) -> dict[str, Any]:
    """``TableOptions`` as a rules options dict: only the options set (unset = default).

    Raises:
        OptionsError: when the options are for another game, or ``extra_json`` is not JSON.
    """
    fields = _option_fields(game)
    case = message.WhichOneof("game_options")
    if case is not None and case != game:
        raise OptionsError(f"options.{case} was given for a {game} table; set options.{game} or leave options unset")
    out: dict[str, Any] = {}
    if case is not None:
        typed = getattr(message, case)
        for name, kind in fields.items():
            if kind in ("int", "bool") and typed.HasField(name):
                out[name] = getattr(typed, name)
            elif kind == "deal_pattern" and typed.deal_pattern != game_pb2.DEAL_PATTERN_UNSPECIFIED:
                pattern = _DEAL_PATTERN_OF.get(typed.deal_pattern)
                if pattern is None:
                    raise OptionsError(f"{game}: unknown deal_pattern enum value {typed.deal_pattern}")
                out[name] = pattern.value
            elif kind == "bid_values" and len(typed.bid_values) > 0:
                out[name] = _bid_values_from_proto(game, typed.bid_values)
    for name, text in sorted(message.extra_json.items()):
        try:
            out[name] = json.loads(text)
        except ValueError:
            raise OptionsError(f"{game}: option {name} is not valid JSON: {text!r}") from None
    return out


def _bid_values_to_proto(game: str, value: object) -> list[game_pb2.BidValue]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise OptionsError(f"{game}: bid_values is not valid JSON") from None
    if not isinstance(value, Mapping):
        raise OptionsError(f"{game}: bid_values must be an object keyed by tricks, not {value!r}")
    cells: list[game_pb2.BidValue] = []
    for tricks_text, row in value.items():
        try:
            tricks = int(tricks_text)
        except (TypeError, ValueError):
            raise OptionsError(f"{game}: bid_values key {tricks_text!r} is not a number of tricks") from None
        if not isinstance(row, Mapping):
            raise OptionsError(f"{game}: bid_values[{tricks_text!r}] must be an object keyed S, C, D, H, NT")
        for denomination_text, points in row.items():
            try:
                denomination = Denomination(denomination_text)
            except ValueError:
                raise OptionsError(f"{game}: bid_values[{tricks_text!r}] has a bad denomination "
                                   f"{denomination_text!r}") from None
            if not isinstance(points, int) or isinstance(points, bool):
                raise OptionsError(f"{game}: bid_values[{tricks_text!r}][{denomination_text!r}] must be an integer")
            cells.append(game_pb2.BidValue(tricks=tricks, denomination=_DENOMINATIONS[denomination], value=points))
    return cells


def _bid_values_from_proto(game: str, cells: Iterable[game_pb2.BidValue]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for cell in cells:
        try:
            denomination = _DENOMINATION_OF[cell.denomination]
        except KeyError:
            raise OptionsError(f"{game}: bid_values cell for {cell.tricks} tricks has no denomination") from None
        table.setdefault(str(cell.tricks), {})[denomination.value] = cell.value
    return table


# --- tricks, contracts, results -----------------------------------------------


def trick_to_proto(trick: Trick) -> game_pb2.Trick:
    """A trick (in progress when ``winner`` is None)."""
    out = game_pb2.Trick()
    fill_trick(out, trick)
    return out


def fill_trick(out: game_pb2.Trick, trick: Trick) -> None:
    """Write ``trick`` into ``out`` in place (a view's tricks are built inside it)."""
    out.leader = trick.leader
    out.cards.extend([c.code for c in trick.cards])
    if trick.named_suit is not None:
        out.named_suit = _SUITS[trick.named_suit]
    if trick.winner is not None:
        out.winner = trick.winner


@decoded_once(TRICKS_DECODED)
def trick_from_proto(message: game_pb2.Trick) -> Trick:
    """A completed trick (one met before is not decoded again: :func:`decoded_once`).

    Raises:
        NotationError: for a bad card.
    """
    return _decode_trick(message)


def _decode_trick(message: game_pb2.Trick) -> Trick:
    return Trick(leader=message.leader, cards=cards_from_proto(message.cards),
                 winner=message.winner if message.HasField("winner") else None,
                 named_suit=suit_from_proto(message.named_suit))


def contract_to_proto(contract: Contract) -> game_pb2.Contract:
    """A Cinq Cents contract."""
    return game_pb2.Contract(seat=contract.seat, tricks=contract.tricks,
                             denomination=denomination_to_proto(contract.denomination))


def contract_from_proto(message: game_pb2.Contract) -> Contract:
    """A Cinq Cents contract.

    Raises:
        NotationError: for a missing denomination.
    """
    return Contract(seat=message.seat, tricks=message.tricks,
                    denomination=denomination_from_proto(message.denomination))


_STATUSES, _STATUS_OF = by_name(("finished", "aborted"), game_pb2.ResultStatus, "RESULT_STATUS")


def result_to_proto(result: Result) -> game_pb2.Result:
    """A match result.

    Raises:
        ValueError: for a status other than ``finished`` or ``aborted``.
    """
    if result.status not in _STATUSES:
        raise ValueError(f"result status must be finished or aborted, not {result.status!r}")
    return game_pb2.Result(status=_STATUSES[result.status], winners=list(result.winners),
                           scores=list(result.scores), reason=result.reason)


def result_from_proto(message: game_pb2.Result) -> Result:
    """A match result.

    Raises:
        ValueError: for an unset or unknown status.
    """
    status = _STATUS_OF.get(message.status)
    if status is None:
        raise ValueError(f"a result needs a status (got enum value {message.status})")
    return Result(status=status, winners=tuple(message.winners), scores=tuple(message.scores),
                  reason=message.reason)


# --- views ------------------------------------------------------------------------


def view_to_proto(view: SeatView, *, legal_actions: Sequence[game_pb2.Action] | None = None,
                  options: game_pb2.TableOptions | None = None,
                  enumerate_discards: bool = False, kept: bytes | None = None,
                  into: game_pb2.SeatView | None = None) -> game_pb2.SeatView:
    """A seat's view (or a spectator's, ``seat`` < 0) as a ``SeatView`` message, written into ``into`` when given.

    ``legal_actions`` and ``options``, when given, are those of ``view``
    already converted (a server converts a table's options once).
    ``kept``, when given, is the wire form of the view's parts a seat's
    stream keeps from one decision to the next (:func:`fill_view_shared`:
    game, options, players, sides, seat; this deal's tricks and history so
    far, each entry's bytes converted once for every seat), and of any other
    part the caller wrote there (a decision's legal actions, then given here
    as ``legal_actions=()``): parsed once into ``into`` (in C), which must be
    empty. Legal discards go as ``discard_choice`` unless
    ``enumerate_discards``. Every other part is built inside the message
    (``into``: inside its parent), so nothing is converted to a message and
    then copied.

    Raises:
        OptionsError: for an unknown game or options of the wrong type.
    """
    out = game_pb2.SeatView() if into is None else into
    choice = None if legal_actions is not None or enumerate_discards else discard_choice(view.legal_actions)
    if kept is not None:
        out.MergeFromString(kept)
    else:
        fill_view_shared(out, view, options_to_proto(view.game, view.options) if options is None else options)
        for trick in view.tricks:
            fill_trick(out.tricks.add(), trick)
        for event in view.history:
            fill_seat_action(out.history.add(), event)
    out.deal_number = view.deal_number
    out.dealer = view.dealer
    out.hand.extend([c.code for c in view.hand])
    if choice is not None:
        out.discard_choice.SetInParent()
        out.discard_choice.cards.extend([c.code for c in choice[0]])
        out.discard_choice.count = choice[1]
    elif legal_actions is not None:
        out.legal_actions.extend(legal_actions)
    else:
        for action in view.legal_actions:
            _fill_action(out.legal_actions.add(), action)
    out.scores.extend(view.scores)
    out.deal_points.extend(view.deal_points)
    if view.trump is not None:
        out.trump = _SUITS[view.trump]
    if view.no_trump:  # what a view mostly lacks is left unwritten: the message's default is the same
        out.no_trump = True
    if view.turn_up is not None:
        out.turn_up = view.turn_up.code
    if view.exposed:
        out.exposed.extend([c.code for c in view.exposed])
    if view.buried is not None:
        out.buried = view.buried.code
    if view.kitty:
        out.kitty.extend([c.code for c in view.kitty])
    if view.discards:
        out.discards.extend([c.code for c in view.discards])
    out.hand_sizes.extend(view.hand_sizes)
    if view.to_act is not None:
        out.to_act = view.to_act
    if view.current_trick is not None:
        out.current_trick.SetInParent()
        fill_trick(out.current_trick, view.current_trick)
    if view.robbed_by is not None:
        out.robbed_by = view.robbed_by
    if view.jinked_by is not None:
        out.jinked_by = view.jinked_by
    for seat, bid in view.bids:
        entry = out.bids.add(seat=seat)
        if bid is not None:
            entry.bid.tricks = bid[0]
            entry.bid.denomination = denomination_to_proto(bid[1])
    if view.contract is not None:
        out.contract.CopyFrom(contract_to_proto(view.contract))
    if view.result is not None:
        out.result.CopyFrom(result_to_proto(view.result))
    for name, value in view.extras.items():
        out.extras_json[name] = json.dumps(value, sort_keys=True)
    return out


def fill_view_shared(out: game_pb2.SeatView, view: SeatView, options: game_pb2.TableOptions) -> None:
    """Write what every view of one seat at one table shares: game, options (converted), players, sides, seat."""
    out.game = game_to_proto(view.game)
    out.options.CopyFrom(options)
    out.players = view.players
    for side in view.sides:
        out.sides.add().seats.extend(side)
    if view.seat >= 0:
        out.seat = view.seat


def view_from_proto(
    message: game_pb2.SeatView,
    *,
    options: Mapping[str, Any] | None = None,
    sides: tuple[tuple[Seat, ...], ...] | None = None,
    legal_actions: tuple[Action, ...] | None = None,
    history: tuple[ActionEvent, ...] | None = None,
) -> SeatView:
    """A ``SeatView`` message as a :class:`rules.game.SeatView` (a spectator's has ``seat == SPECTATOR_SEAT``).

    ``options``, ``sides``, ``legal_actions`` and ``history``, when given,
    are used instead of decoding the message's (the SDK already holds the
    table's options and sides, the same in every view of a table). A
    ``discard_choice`` is expanded into the legal discards it stands for.
    Every field is decoded now; the SDK's :func:`tricktable.client_sdk.lazy_view.view_on_read` decodes each
    when read.

    Raises:
        OptionsError: for an unset game or options of another game.
        NotationError: for a bad card or action.
        ValueError: for a result without a status.
    """
    game = game_from_proto(message.game)
    given: dict[str, Any] = {"sides": sides, "legal_actions": legal_actions, "history": history}
    return SeatView(game=game, options=options_from_proto(game, message.options) if options is None else options,
                    **{name: decode(message) if given.get(name) is None else given[name]
                       for name, decode in VIEW_FIELDS.items()})


#: How each field of a ``SeatView`` but its game and options is read from its message: all at once by
#: :func:`view_from_proto`, one by one when read by the SDK's lazy view. Parts a game does not use are skipped
#: when empty: each read of a message field is a call into protobuf.
VIEW_FIELDS: dict[str, Callable[[game_pb2.SeatView], Any]] = {
    "seat": lambda m: m.seat if m.HasField("seat") else SPECTATOR_SEAT,
    "players": lambda m: m.players,
    "sides": lambda m: tuple([tuple(side.seats) for side in m.sides]),
    "deal_number": lambda m: m.deal_number,
    "dealer": lambda m: m.dealer,
    "hand": lambda m: cards_from_proto(m.hand),
    "to_act": lambda m: m.to_act if m.HasField("to_act") else None,
    "legal_actions": lambda m: _legal_actions_of(m),
    "scores": lambda m: tuple(m.scores),
    "deal_points": lambda m: tuple(m.deal_points),
    "trump": lambda m: suit_from_proto(m.trump),
    "no_trump": lambda m: m.no_trump,
    "turn_up": lambda m: card_from_proto(m.turn_up),
    "exposed": lambda m: cards_from_proto(m.exposed),
    # A trick in progress is new in each view (a card more): decoded, not kept.
    "current_trick": lambda m: _decode_trick(m.current_trick) if m.HasField("current_trick") else None,
    "tricks": lambda m: tuple(map(trick_from_proto, m.tricks)),
    "history": lambda m: history_from_proto(m, m.history),
    "robbed_by": lambda m: m.robbed_by if m.HasField("robbed_by") else None,
    "buried": lambda m: card_from_proto(m.buried),
    "jinked_by": lambda m: m.jinked_by if m.HasField("jinked_by") else None,
    "bids": lambda m: tuple([_bid_from_proto(entry) for entry in m.bids]) if m.bids else (),
    "contract": lambda m: contract_from_proto(m.contract) if m.HasField("contract") else None,
    "kitty": lambda m: cards_from_proto(m.kitty),
    "discards": lambda m: cards_from_proto(m.discards),
    "hand_sizes": lambda m: tuple(m.hand_sizes),
    "result": lambda m: result_from_proto(m.result) if m.HasField("result") else None,
    "extras": lambda m: {name: json.loads(text) for name, text in sorted(m.extras_json.items())}
    if m.extras_json else {},
}
def _bid_from_proto(entry: game_pb2.AuctionEntry) -> tuple[Seat, tuple[int, Denomination] | None]:
    """A Cinq Cents bid of a view: the seat and its bid, None for a pass."""
    if entry.HasField("bid"):
        return entry.seat, (entry.bid.tricks, denomination_from_proto(entry.bid.denomination))
    return entry.seat, None


def history_from_proto(view: game_pb2.SeatView, entries: Iterable[game_pb2.SeatAction]) -> tuple[ActionEvent, ...]:
    """History ``entries`` of ``view`` as action events (the deal's turn-up, dealer and players read once)."""
    turn_up = card_from_proto(view.turn_up)
    return tuple(seat_action_from_proto(entry, turn_up=turn_up, dealer=view.dealer, players=view.players)
                 for entry in entries)


def _legal_actions_of(message: game_pb2.SeatView) -> tuple[Action, ...]:
    if message.HasField("discard_choice"):
        return discard_choice_from_proto(message.discard_choice)
    return tuple(action_from_proto(a) for a in message.legal_actions)


# --- rejection reasons ---------------------------------------------------------------

def rejection_reason_to_proto(reason: str) -> table_service_pb2.RejectionReason.ValueType:
    """The ``RejectionReason`` of a :class:`protocol.reasons.RejectReason` (or a rules :class:`ErrorCode`, or its name).

    The enum has one value per reason, named ``REJECTION_REASON_<NAME>``, so the
    mapping is by name and a test checks both lists are the same.

    Raises:
        ValueError: for a name with no enum value.
    """
    return table_service_pb2.RejectionReason.Value(f"REJECTION_REASON_{reason}")


def rejection_reason_from_proto(reason: table_service_pb2.RejectionReason.ValueType) -> str:
    """The name of a ``RejectionReason`` without its prefix (``"MUST_FOLLOW_SUIT"``), ``"UNSPECIFIED"`` for 0.

    Unknown numbers (a newer server) give ``"UNKNOWN_<n>"`` rather than an error,
    so an old client can still log and recover.
    """
    try:
        return table_service_pb2.RejectionReason.Name(reason).removeprefix("REJECTION_REASON_")
    except ValueError:
        return f"UNKNOWN_{int(reason)}"


# --- events ------------------------------------------------------------------------
#
# One table: each event of the rules has the ``Event`` case named after its
# class (``CardPlayed`` -> ``card_played``) and one field per attribute, under
# the names below where the wire's differ.


def _hand(hands: Mapping[Seat, tuple[Card, ...]]) -> list[str]:
    """The recipient's own hand: a ``DealStarted`` seen by a seat holds that seat's hand only."""
    return cards_to_proto(next(iter(hands.values()))) if len(hands) == 1 else []


def _bonus(bonus: tuple[Seat, Card] | None) -> events_pb2.Bonus | None:
    return None if bonus is None else events_pb2.Bonus(seat=bonus[0], card=bonus[1].code)


def _same(value: Any) -> Any:
    return value


def _ints(values: Iterable[int]) -> list[int]:
    return list(values)


def _optional(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


_SEAT = _Field("seat", "seat", _same, _same)
_NUMBER = _Field("number", "deal_number", _same, _same)
_EVENT_FIELDS: dict[type[RulesEvent], tuple[_Field, ...]] = {
    DealStarted: (_NUMBER, _Field("dealer", "dealer", _same, _same), _Field("redeal", "redeal", _same, _same),
                  _Field("hands", "hand", _hand, _same), _card_field("turn_up"),
                  _Field("hand_sizes", "hand_sizes", _ints, _same), _Field("scores", "scores", _ints, _same)),
    CardPlayed: (_SEAT, _card_field("card"), _Field("named_suit", "named_suit", suit_to_proto, _same)),
    Robbed: (_SEAT, _card_field("taken"), _card_field("buried")),
    RobPassed: (_SEAT,), Jinked: (_SEAT,), JinkPassed: (_SEAT,), Stood: (_SEAT,), Begged: (_SEAT,), Passed: (_SEAT,),
    Gifted: (_SEAT, _Field("receiver", "receiver", _same, _same)),
    PackRun: (_SEAT, _cards_field("exposed")),
    BidMade: (_SEAT, *_ACTION_FIELDS[Bid]),
    Discarded: (_SEAT, _cards_field("cards")),
    KittyTaken: (_SEAT, _cards_field("kitty")),
    ContractSet: (_Field("contract", "contract", contract_to_proto, _same),),
    TrumpSet: (_Field("trump", "trump", suit_to_proto, _same), _Field("no_trump", "no_trump", _same, _same)),
    TrickWon: (_Field("number", "trick_number", _same, _same), _Field("trick", "trick", trick_to_proto, _same),
               _Field("deal_points", "deal_points", _ints, _same)),
    DealScored: (_NUMBER, _Field("points", "points", _ints, _same), _Field("scores", "scores", _ints, _same),
                 _Field("bonus", "bonus", _bonus, _same),
                 _Field("contract", "contract", _optional(contract_to_proto), _same)),
    DealVoided: (_NUMBER, _Field("reason", "reason", _same, _same)),
}


def _case(cls: type) -> str:
    """The ``Event`` oneof case of an event class: its name in snake case."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in cls.__name__).lstrip("_")


#: The ``Event`` case of each event class, named once.
_EVENT_CASES: dict[type[RulesEvent], str] = {cls: _case(cls) for cls in _EVENT_FIELDS}


def event_to_proto(event: RulesEvent) -> events_pb2.Event:
    """An event of the rules (already cut to its recipient by ``seen_by``) as an ``Event``.

    ``sequence`` and ``time_unix_ms`` are left for the caller to set.
    """
    out = events_pb2.Event()
    case = getattr(out, _EVENT_CASES[type(event)])
    case.SetInParent()
    for f in _EVENT_FIELDS[type(event)]:
        _put(case, f.wire, f.put(getattr(event, f.attr)))
    return out


#: The ``Event`` cases that tell a seat's action.
ACTION_EVENT_CASES: frozenset[str] = frozenset(_case(cls) for cls in ACTION_EVENTS)
