"""Decoding what a client sends never fails with anything but the documented errors.

The server decodes actions and options from any client; a malformed message
must become a NotationError (-> MALFORMED_ACTION) or an OptionsError
(-> INVALID_ARGUMENT), never an unexpected exception that could crash a table.
"""

from __future__ import annotations

import contextlib

from hypothesis import given
from hypothesis import strategies as st

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.rules.errors import NotationError, OptionsError
from tricktable.rules.registry import games

_TEXT = st.one_of(st.sampled_from(["5H", "JKB", "JKF", "TS", "", "10H", "5h", "ZZ"]), st.text(max_size=5))
_ENUM = st.integers(-3, 12)
_INT = st.integers(-(2**31), 2**31 - 1)


@st.composite
def actions(draw: st.DrawFn) -> game_pb2.Action:
    message = game_pb2.Action()
    case = draw(st.sampled_from([None, *convert.ACTION_TYPES]))
    if case is None:
        return message
    sub = getattr(message, case)
    sub.SetInParent()
    if case in ("play", "rob"):
        sub.card = draw(_TEXT)
    if case == "play":
        sub.named_suit = draw(_ENUM)
    if case == "run":
        sub.exposed.extend(draw(st.lists(_TEXT, max_size=4)))
    if case == "bid":
        sub.tricks = draw(_INT)
        sub.denomination = draw(_ENUM)
    if case == "discard":
        sub.cards.extend(draw(st.lists(_TEXT, max_size=7)))
    return message


@given(actions())
def test_decoding_any_action_gives_an_action_or_a_notation_error(message: game_pb2.Action) -> None:
    try:
        action = convert.action_from_proto(message)
    except NotationError:
        return
    assert convert.action_from_proto(convert.action_to_proto(action)) == action


@st.composite
def options(draw: st.DrawFn) -> game_pb2.TableOptions:
    message = game_pb2.TableOptions()
    case = draw(st.sampled_from([None, "twenty_five", "forty_five", "all_fives", "cinq_cents"]))
    if case is not None:
        sub = getattr(message, case)
        sub.SetInParent()
        for name in ("players", "target", "first_dealer"):
            if draw(st.booleans()):
                setattr(sub, name, draw(_INT))
        if case in ("twenty_five", "forty_five"):
            sub.deal_pattern = draw(_ENUM)
            if draw(st.booleans()):
                sub.robbing = draw(st.booleans())
        if case == "cinq_cents":
            for _ in range(draw(st.integers(0, 3))):
                sub.bid_values.add(tricks=draw(_INT), denomination=draw(_ENUM), value=draw(_INT))
    for _ in range(draw(st.integers(0, 2))):
        message.extra_json[draw(st.text(max_size=4))] = draw(st.sampled_from(["1", "true", "{", "[1]", "x"]))
    return message


@given(st.sampled_from(["twenty_five", "forty_five", "all_fives", "cinq_cents"]), options())
def test_decoding_any_options_gives_a_dict_or_an_options_error(game: str, message: game_pb2.TableOptions) -> None:
    try:
        decoded = convert.options_from_proto(game, message)
    except OptionsError:
        return
    assert isinstance(decoded, dict)
    assert convert.options_from_proto(game, convert.options_to_proto(game, decoded)) == decoded


@given(_ENUM)
def test_decoding_any_game_number_gives_a_game_or_an_options_error(number: int) -> None:
    with contextlib.suppress(OptionsError):
        assert convert.game_from_proto(game_pb2.Game.ValueType(number)) in games()
