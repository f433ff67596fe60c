"""The registry: every game loads whole, and a wrong or incomplete game fails when it is loaded, saying why."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tricktable.rules import registry
from tricktable.rules.definition import BotTuning, GameDefinition, OptionSpec
from tricktable.rules.errors import OptionsError
from tricktable.rules.registry import game_definition, game_rules, games


@pytest.mark.parametrize("game", games())
def test_every_game_loads_as_a_definition_of_its_own_name(game: str) -> None:
    definition = game_definition(game)
    assert isinstance(definition, GameDefinition)
    assert definition.name == game
    assert game_rules(game) is definition.rules


@pytest.mark.parametrize("game", games())
def test_the_option_schema_names_every_option_the_config_writes(game: str) -> None:
    definition = game_definition(game)
    for options in ({}, definition.short_options, definition.demo_options):
        written = definition.rules.config(options).to_options()
        assert set(written) == {o.name for o in definition.options}, game


def test_an_unknown_game_is_refused_naming_the_games() -> None:
    with pytest.raises(OptionsError, match=r"unknown game 'whist' .*twenty_five"):
        game_definition("whist")


@pytest.mark.parametrize(("entry", "error", "message"), [
    ("tricktable.rules.all_fives_game", ValueError, "must be \"module:ATTRIBUTE\""),
    ("tricktable.rules.all_fives_game:RULES", TypeError, "is not a GameDefinition"),
    ("tricktable.rules.all_fives_game:MISSING", TypeError, "is not a GameDefinition but NoneType"),
    ("tricktable.rules.cinq_cents_game:CINQ_CENTS", ValueError, "defines the game 'cinq_cents'"),
    ("tricktable.rules.no_such_module:GAME", ModuleNotFoundError, "no_such_module"),
])
def test_a_wrong_registry_entry_fails_on_first_use(monkeypatch: pytest.MonkeyPatch, entry: str,
                                                  error: type[Exception], message: str) -> None:
    monkeypatch.setitem(registry.GAME_MODULES, "mistaken", entry)
    with pytest.raises(error, match=message):
        game_definition("mistaken")


def _fields(**changes: Any) -> dict[str, Any]:
    """The All Fives definition's fields, some changed."""
    definition = game_definition("all_fives")
    fields = {f.name: getattr(definition, f.name) for f in dataclasses.fields(definition)}
    return {**fields, **changes}


def test_a_definition_missing_a_field_can_not_be_made() -> None:
    fields = _fields()
    del fields["lowness"]
    with pytest.raises(TypeError, match="lowness"):
        GameDefinition(**fields)


@pytest.mark.parametrize(("changes", "message"), [
    ({"options": (OptionSpec("players", "int"), OptionSpec("players", "int"))}, "declared twice"),
    ({"options": (OptionSpec("players", "float"),)}, "option kinds must be one of"),
    ({"short_options": {"target": 0}}, "target must be a positive integer"),
    ({"demo_options": {"trumps": "yes"}}, "unknown option"),
])
def test_a_bad_schema_or_preset_is_refused_on_construction(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        GameDefinition(**_fields(**changes))


@pytest.mark.parametrize(("tuning", "message"), [
    (BotTuning(heuristic="not a module", win_bonus=5.0, playout="greedy", solve_at=0), "must name a module"),
    (BotTuning(heuristic="tricktable.bots.heuristic.all_fives", win_bonus=5.0, playout="greedy", solve_at=-1),
     "solve_at must be 0"),
])
def test_bad_bot_tuning_is_refused_on_construction(tuning: BotTuning, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameDefinition(**_fields(bots=tuning))
