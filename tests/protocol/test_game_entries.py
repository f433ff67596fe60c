"""The writer of the games' entries in game.proto (``make protos``) adds what a definition lacks there, only that.

The whole step, a new game through the real server, is
``tests/docs/test_adding_a_game_wire.py``; these are the writer's other cases:
an option added to a game that is already on the wire, every kind of option,
and a game.proto it can not place an entry in.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.server import toy_game
from tricktable.protocol import game_entries
from tricktable.rules.definition import OPTION_KINDS, OptionSpec
from tricktable.rules.registry import game_definition

TEXT = game_entries.GAME_PROTO.read_text(encoding="utf-8")


def test_every_option_kind_has_a_declaration() -> None:
    assert sorted(game_entries.FIELD_TYPES) == sorted(OPTION_KINDS)


def test_an_option_added_to_a_games_schema_is_added_last_to_its_message_with_the_next_number() -> None:
    all_fives = game_definition("all_fives")
    grown = dataclasses.replace(all_fives, options=(*all_fives.options, OptionSpec("muggins", "bool")))
    assert game_entries.missing(TEXT, [grown]) == ["all_fives: the field AllFivesOptions.muggins"]
    after = game_entries.add_missing(TEXT, [grown])
    added = ("  // Option `muggins` (docs/games.md); unset: the rules' default.\n"
             "  optional bool muggins = 4;\n")
    last = "  optional int32 first_dealer = 3;\n}\n\n// One cell of the Cinq Cents bid value table"
    assert after == TEXT.replace(last, last.replace("}\n", added + "}\n", 1), 1) != TEXT


def test_a_new_game_gets_each_kind_declared_as_the_real_games_declare_it() -> None:
    kinds = tuple(OptionSpec(f"option_{kind}", kind) for kind in OPTION_KINDS)
    after = game_entries.add_missing(TEXT, [dataclasses.replace(toy_game.TOY, options=kinds)])
    assert "message ToyOptions {" in after and "ToyOptions toy = 6;" in after
    for number, kind in enumerate(OPTION_KINDS, start=1):
        assert f"  {game_entries.FIELD_TYPES[kind]} option_{kind} = {number};\n" in after


def test_the_registered_games_need_nothing_added() -> None:
    assert game_entries.missing(TEXT, game_entries.registered()) == [], "run make protos"
    assert game_entries.add_missing(TEXT, game_entries.registered()) == TEXT


def test_a_proto_without_the_game_enum_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no 'enum Game' block"):
        game_entries.missing(TEXT.replace("enum Game {", "enum Games {"), game_entries.registered())



def test_the_check_names_a_missing_entry_and_the_write_adds_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    proto = tmp_path / "game.proto"
    value = "  // Cinq Cents quebecois (docs/games.md section 3), record name \"cinq_cents\".\n  GAME_CINQ_CENTS = 4;\n"
    assert value in TEXT
    proto.write_text(TEXT.replace(value, ""), encoding="utf-8")
    assert game_entries.main(["--check", str(proto)]) == 1
    assert "lacks cinq_cents: the Game value GAME_CINQ_CENTS: run make protos" in capsys.readouterr().err
    assert proto.read_text(encoding="utf-8") == TEXT.replace(value, "")
    assert game_entries.main([str(proto)]) == 0
    assert "GAME_CINQ_CENTS = 4;" in proto.read_text(encoding="utf-8")
    assert game_entries.main(["--check", str(proto)]) == 0
