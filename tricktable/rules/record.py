"""Game records (docs/records.md, format 1): checked and parsed from already-loaded JSON values.

Reading files is I/O and lives in ``cli/``; this module takes the value
``json.loads`` returned and either returns a :class:`GameRecord` or raises a
:class:`RecordFieldError` whose message names the field path, e.g.
``deals[2].actions[5].card: not a card: '1S' (bad rank '1'; ...)``.

What is checked here is the *shape* of a record: required fields, strict
types (integers are ``int`` and never ``bool``, flags are ``bool``), cards in
notation, action types and their fields. Whether the content agrees with the
rules (legal actions, the right hands for the deck, scores) is the job of
:mod:`tricktable.rules.verify`, which replays the record.

Choices:
- Unknown keys at the top level, in a deal and in ``result`` are ignored
  (an implementation may add fields of its own); the fields of an action
  are exactly those of docs/records.md's table, so an unknown key in an
  action is an error (it would otherwise be silently dropped on replay).
  The one addition is the server's optional ``annotation`` on any action
  (:mod:`tricktable.rules.annotation`: the bot's note, revealed after the table ended),
  which replaying ignores.
- ``seed`` may be ``null`` as well as a string: the engine writes ``null``
  when a match was started from explicit decks; the replay needs the seed
  only when ``options.first_dealer`` is unset.
- ``result`` is required: the server writes a record for every finished or
  aborted game, never for one in progress.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tricktable.rules.actions import ACTION_CLASSES, Action, Bid, Denomination, Discard, Play, Rob, Run
from tricktable.rules.annotation import Annotation, AnnotationError
from tricktable.rules.cards import Card, Suit, codes
from tricktable.rules.errors import NotationError, RecordError
from tricktable.rules.match import RECORD_FORMAT
from tricktable.rules.registry import games

TRUMP_VALUES: tuple[str, ...] = ("C", "D", "H", "S", "NT")
RESULT_STATUSES: tuple[str, ...] = ("finished", "aborted")

__all__ = ["ANNOTATION_KEY", "RECORD_FIELDS", "RECORD_FORMAT", "GameRecord", "RecordFieldError", "action_from_json",
           "action_to_json", "annotate_record", "parse_action", "parse_deal", "parse_record"]


class RecordFieldError(RecordError):
    """A record field is missing or malformed; ``path`` names it (``deals[2].actions[5].card``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedAction:
    """One action of a deal: the acting seat, the parsed action, its JSON form and the bot's annotation, if any."""

    seat: int
    action: Action
    raw: Mapping[str, Any]
    annotation: Annotation | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedTrick:
    """A completed trick as the record writes it."""

    leader: int
    cards: tuple[Card, ...]
    winner: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedDeal:
    """A deal of the record, parsed; ``raw`` keeps the JSON object for field-by-field comparison."""

    number: int
    dealer: int
    deck: tuple[Card, ...]
    hands: Mapping[int, tuple[Card, ...]]
    turn_up: Card | None
    trump: str | None
    kitty: tuple[Card, ...] | None
    actions: tuple[RecordedAction, ...]
    tricks: tuple[RecordedTrick, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]
    redeal: bool
    raw: Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedResult:
    """How the recorded match ended."""

    status: str
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord:
    """A whole record, shape-checked. ``options`` are as recorded (the game validates them on replay)."""

    game: str
    options: Mapping[str, Any]
    seed: str | None
    seats: tuple[tuple[int, str], ...]
    sides: tuple[tuple[int, ...], ...]
    deals: tuple[RecordedDeal, ...]
    result: RecordedResult
    raw: Mapping[str, Any]


# --- primitive checks ---------------------------------------------------------


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordFieldError(path, f"expected an object, got {_type_name(value)} {_show(value)}")
    return value


def _require(obj: Mapping[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        raise RecordFieldError(_join(path, key), "missing")
    return obj[key]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _int(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordFieldError(path, f"expected an integer, got {_type_name(value)} {_show(value)}")
    return value


def _bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise RecordFieldError(path, f"expected a boolean, got {_type_name(value)} {_show(value)}")
    return value


def _str(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise RecordFieldError(path, f"expected a string, got {_type_name(value)} {_show(value)}")
    return value


def _list(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordFieldError(path, f"expected a list, got {_type_name(value)} {_show(value)}")
    return value


def _ints(value: object, path: str) -> tuple[int, ...]:
    return tuple(_int(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path)))


def _card(value: object, path: str) -> Card:
    try:
        return Card.parse(value)  # type: ignore[arg-type]  # Card.parse explains non-strings too
    except NotationError as exc:
        raise RecordFieldError(path, str(exc)) from None


def _cards(value: object, path: str) -> tuple[Card, ...]:
    return tuple(_card(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path)))


def _suit(value: object, path: str) -> Suit:
    try:
        return Suit.parse(_str(value, path))
    except NotationError as exc:
        raise RecordFieldError(path, str(exc)) from None


# --- actions -----------------------------------------------------------------
#
# The canonical form of an action is its record form, ``{"type": ..., <fields>}``
# (docs/records.md's table): the wire carries the same fields under the same oneof
# case (tricktable.protocol.convert) and the golden files write it. One table says, per action
# class, which attribute is written under which key and how; writing, reading and
# the record's shape check all read it.


@dataclass(frozen=True, slots=True)
class RecordField:
    """One attribute of an action and its record key: ``write`` gives the JSON value, ``read`` parses it back."""

    attr: str
    key: str
    write: Callable[[Any], Any]
    read: Callable[[object, str], Any]
    #: An optional field may be absent (or null): a play naming no suit, a run whose cards are not yet known.
    optional: bool = False


def _denomination(value: object, path: str) -> Denomination:
    text = _str(value, path)
    try:
        return Denomination(text)
    except ValueError:
        raise RecordFieldError(path, f"not a denomination: {text!r} (expected S, C, D, H or NT)") from None


def _code(card: Card) -> str:
    return card.code


def _value(enum: Suit | Denomination) -> str:
    return enum.value


RECORD_FIELDS: dict[type[Action], tuple[RecordField, ...]] = {
    Play: (RecordField("card", "card", _code, _card), RecordField("suit", "suit", _value, _suit, optional=True)),
    Rob: (RecordField("card", "card", _code, _card),),
    Run: (RecordField("exposed", "exposed", codes, _cards, optional=True),),
    Bid: (RecordField("tricks", "tricks", int, _int), RecordField("denomination", "suit", _value, _denomination)),
    Discard: (RecordField("cards", "cards", codes, _cards),),
}
_ACTION_CLASS: dict[str, type[Action]] = {cls.type: cls for cls in ACTION_CLASSES}

#: The key of a recorded action's optional annotation (:mod:`tricktable.rules.annotation`; the server's addition).
ANNOTATION_KEY = "annotation"

#: Action type -> the fields it carries besides ``seat`` and ``type`` (docs/records.md's table).
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    cls.type: tuple(f.key for f in RECORD_FIELDS.get(cls, ())) for cls in ACTION_CLASSES}


def action_to_json(action: Action) -> dict[str, Any]:
    """The record form of an action, without its seat."""
    out: dict[str, Any] = {"type": action.type}
    for f in RECORD_FIELDS.get(type(action), ()):
        value = getattr(action, f.attr)
        if value is not None:
            out[f.key] = f.write(value)
    return out


def _read_action(obj: Mapping[str, Any], path: str) -> Action:
    kind = _str(_require(obj, "type", path), _join(path, "type"))
    cls = _ACTION_CLASS.get(kind)
    if cls is None:
        raise RecordFieldError(_join(path, "type"), f"unknown action type {kind!r} (types: {', '.join(ACTION_FIELDS)})")
    values: dict[str, Any] = {}
    for f in RECORD_FIELDS.get(cls, ()):
        if f.optional and obj.get(f.key) is None:
            continue
        values[f.attr] = f.read(_require(obj, f.key, path), _join(path, f.key))
    action: Action = cls(**values)
    return action


def action_from_json(data: object) -> Action:
    """Parse an action from its record form (extra keys such as ``seat`` are ignored).

    Raises:
        NotationError: naming the missing or malformed field.
    """
    try:
        return _read_action(_object(data, "action"), "")
    except RecordFieldError as error:
        raise NotationError(str(error)) from None


def parse_action(value: object, path: str) -> RecordedAction:
    """Parse one recorded action (with its ``seat``): exactly the fields of its type, and maybe an ``annotation``.

    Raises:
        RecordFieldError: naming the bad field.
    """
    obj = _object(value, path)
    seat = _int(_require(obj, "seat", path), _join(path, "seat"))
    action = _read_action(obj, path)
    for key in obj:
        if key not in {"seat", "type", ANNOTATION_KEY, *ACTION_FIELDS[action.type]}:
            raise RecordFieldError(_join(path, key), f"a {action.type!r} action has no field {key!r}")
    annotation = None
    if ANNOTATION_KEY in obj:
        try:
            annotation = Annotation.from_json(obj[ANNOTATION_KEY])
        except AnnotationError as error:
            raise RecordFieldError(_join(path, ANNOTATION_KEY), str(error)) from None
    return RecordedAction(seat=seat, action=action, raw=obj, annotation=annotation)


# --- deals and the record ----------------------------------------------------


def annotate_record(record: dict[str, Any], annotations: Mapping[int, Annotation]) -> None:
    """Write each annotation on its action of ``record`` (``annotations`` keyed by action number, 0-based, over
    every deal in order): the server's step after the table ended.

    Raises:
        ValueError: an action number the record does not have.
    """
    if not annotations:
        return
    actions = [action for deal in record.get("deals", []) for action in deal.get("actions", [])]
    for number, annotation in annotations.items():
        if not 0 <= number < len(actions):
            raise ValueError(f"annotation of action {number}: the record has {len(actions)} actions")
        actions[number][ANNOTATION_KEY] = annotation.to_json()



def _parse_trick(value: object, path: str) -> RecordedTrick:
    obj = _object(value, path)
    return RecordedTrick(
        leader=_int(_require(obj, "leader", path), _join(path, "leader")),
        cards=_cards(_require(obj, "cards", path), _join(path, "cards")),
        winner=_int(_require(obj, "winner", path), _join(path, "winner")),
    )


def _parse_hands(value: object, path: str) -> dict[int, tuple[Card, ...]]:
    obj = _object(value, path)
    hands: dict[int, tuple[Card, ...]] = {}
    for key, cards in obj.items():
        if not (key.isdigit() and str(int(key)) == key):
            raise RecordFieldError(f"{path}.{key}", "hands are keyed by seat number as a string (\"0\", \"1\", ...)")
        hands[int(key)] = _cards(cards, f'{path}["{key}"]')
    return hands


def _parse_optional_object(obj: Mapping[str, Any], key: str, path: str,
                           fields: Mapping[str, str]) -> None:
    if key not in obj or obj[key] is None:
        return
    inner_path = _join(path, key)
    inner = _object(obj[key], inner_path)
    for name, kind in fields.items():
        value = _require(inner, name, inner_path)
        field_path = _join(inner_path, name)
        if kind == "int":
            _int(value, field_path)
        elif kind == "card":
            _card(value, field_path)
        elif kind == "denomination" and _str(value, field_path) not in TRUMP_VALUES:
            raise RecordFieldError(field_path, f"not a denomination: {value!r} (expected S, C, D, H or NT)")


def parse_deal(value: object, path: str) -> RecordedDeal:
    """Parse one deal object.

    Raises:
        RecordFieldError: naming the bad field.
    """
    obj = _object(value, path)
    turn_up_value = obj.get("turn_up")
    trump_value = obj.get("trump")
    if trump_value is not None and _str(trump_value, _join(path, "trump")) not in TRUMP_VALUES:
        raise RecordFieldError(_join(path, "trump"),
                               f"not a trump: {trump_value!r} (expected C, D, H, S, NT or null)")
    kitty_value = obj.get("kitty")
    redeal_value = obj.get("redeal", False)
    _parse_optional_object(obj, "bonus", path, {"seat": "int", "card": "card"})
    _parse_optional_object(obj, "contract", path, {"seat": "int", "tricks": "int", "suit": "denomination"})
    actions_path = _join(path, "actions")
    tricks_path = _join(path, "tricks")
    return RecordedDeal(
        number=_int(_require(obj, "number", path), _join(path, "number")),
        dealer=_int(_require(obj, "dealer", path), _join(path, "dealer")),
        deck=_cards(_require(obj, "deck", path), _join(path, "deck")),
        hands=_parse_hands(_require(obj, "hands", path), _join(path, "hands")),
        turn_up=None if turn_up_value is None else _card(turn_up_value, _join(path, "turn_up")),
        trump=trump_value,
        kitty=None if kitty_value is None else _cards(kitty_value, _join(path, "kitty")),
        actions=tuple(parse_action(a, f"{actions_path}[{i}]")
                      for i, a in enumerate(_list(_require(obj, "actions", path), actions_path))),
        tricks=tuple(_parse_trick(t, f"{tricks_path}[{i}]")
                     for i, t in enumerate(_list(_require(obj, "tricks", path), tricks_path))),
        points=_ints(_require(obj, "points", path), _join(path, "points")),
        scores=_ints(_require(obj, "scores", path), _join(path, "scores")),
        redeal=False if redeal_value is None else _bool(redeal_value, _join(path, "redeal")),
        raw=obj,
    )


def _parse_result(value: object, path: str) -> RecordedResult:
    obj = _object(value, path)
    status = _str(_require(obj, "status", path), _join(path, "status"))
    if status not in RESULT_STATUSES:
        raise RecordFieldError(_join(path, "status"), f"expected 'finished' or 'aborted', got {status!r}")
    return RecordedResult(
        status=status,
        winners=_ints(_require(obj, "winners", path), _join(path, "winners")),
        scores=_ints(_require(obj, "scores", path), _join(path, "scores")),
        reason=_str(_require(obj, "reason", path), _join(path, "reason")),
    )


def parse_record(data: object) -> GameRecord:
    """Check the shape of a loaded record and parse it.

    Raises:
        RecordFieldError: the first missing or malformed field, by path.
    """
    obj = _object(data, "")
    fmt = _require(obj, "format", "")
    if fmt != RECORD_FORMAT:
        raise RecordFieldError("format", f"expected {RECORD_FORMAT!r}, got {_show(fmt)}")
    game = _str(_require(obj, "game", ""), "game")
    if game not in games():
        raise RecordFieldError("game", f"unknown game {game!r} (games: {', '.join(games())})")
    options = _object(_require(obj, "options", ""), "options")
    seed_value = _require(obj, "seed", "")
    seed = None if seed_value is None else _str(seed_value, "seed")
    seats: list[tuple[int, str]] = []
    for i, entry in enumerate(_list(_require(obj, "seats", ""), "seats")):
        seat_obj = _object(entry, f"seats[{i}]")
        seat = _int(_require(seat_obj, "seat", f"seats[{i}]"), f"seats[{i}].seat")
        if seat != i:
            raise RecordFieldError(f"seats[{i}].seat", f"expected {i} (seats are listed in order), got {seat}")
        name = _str(_require(seat_obj, "name", f"seats[{i}]"), f"seats[{i}].name")
        seats.append((seat, name))
    sides = tuple(_ints(side, f"sides[{i}]")
                  for i, side in enumerate(_list(_require(obj, "sides", ""), "sides")))
    deals = tuple(parse_deal(d, f"deals[{i}]") for i, d in enumerate(_list(_require(obj, "deals", ""), "deals")))
    result = _parse_result(_require(obj, "result", ""), "result")
    return GameRecord(game=game, options=options, seed=seed, seats=tuple(seats), sides=sides, deals=deals,
                      result=result, raw=obj)
