"""Each game's option schema (its definition's ``options``) is what game.proto's options message declares.

The protocol's option conversion is derived from the schema, so a field the
proto has and the schema lacks would travel as ``extra_json``, and one the
schema has and the proto lacks would fail at the first table: both are
caught here, with the field's type.
"""

from __future__ import annotations

import pytest
from google.protobuf.descriptor import FieldDescriptor

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.rules.registry import game_definition, games

_ONEOF = game_pb2.TableOptions.DESCRIPTOR.oneofs_by_name["game_options"]


def _kind(field: FieldDescriptor) -> str:
    """The schema kind a proto field carries."""
    if field.type == FieldDescriptor.TYPE_INT32 and field.has_presence:
        return "int"
    if field.type == FieldDescriptor.TYPE_BOOL and field.has_presence:
        return "bool"
    if field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None \
            and field.enum_type.name == "DealPattern":
        return "deal_pattern"
    if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None \
            and field.message_type.name == "BidValue" and field.is_repeated:
        return "bid_values"
    return f"unsupported {field.type}"


def test_every_options_message_of_the_proto_is_a_registered_game() -> None:
    assert [f.name for f in _ONEOF.fields] == list(games())


@pytest.mark.parametrize("game", games())
def test_the_proto_options_message_declares_the_schema_in_order_with_its_kinds(game: str) -> None:
    message = game_pb2.TableOptions.DESCRIPTOR.fields_by_name[game].message_type
    assert message is not None, f"TableOptions.{game} is not a message"
    declared = [(f.name, _kind(f)) for f in message.fields]
    assert declared == [(o.name, o.kind) for o in game_definition(game).options]


@pytest.mark.parametrize("game", games())
def test_every_default_option_travels_typed_and_comes_back(game: str) -> None:
    written = game_definition(game).rules.config({"first_dealer": 1}).to_options()
    message = convert.options_to_proto(game, written)
    assert not message.extra_json
    back = convert.options_from_proto(game, message)
    assert game_definition(game).rules.config(back).to_options() == written
