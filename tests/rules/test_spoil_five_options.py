"""docs/games.md 1.1 (players and sides) and the table options of section 1."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.rules.spoil_five_helpers import config
from tricktable.rules.errors import OptionsError
from tricktable.rules.registry import game_rules, new_match
from tricktable.rules.spoil_five import FORTY_FIVE, RULES, TWENTY_FIVE, SpoilFiveConfig


def test_twenty_five_options_written_out_with_defaults() -> None:
    assert config("twenty_five").to_options() == {
        "players": 4, "sides": 2, "deal_pattern": "3-2", "robbing": True,
        "trump_at_will": False, "target": 25, "first_dealer": None,
    }


def test_forty_five_options_written_out_with_defaults() -> None:
    assert config("forty_five").to_options() == {
        "players": 4, "sides": 2, "deal_pattern": "3-2", "robbing": True,
        "trump_at_will": True, "target": 45, "first_dealer": None, "jink": False,
    }


def test_both_games_are_presets_of_one_frozen_keyword_only_config() -> None:
    assert type(TWENTY_FIVE) is type(FORTY_FIVE) is SpoilFiveConfig
    assert type(config("twenty_five")) is type(config("forty_five")) is SpoilFiveConfig
    params = SpoilFiveConfig.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen
    assert not hasattr(TWENTY_FIVE, "__dict__")
    with pytest.raises(TypeError):
        SpoilFiveConfig("twenty_five")  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TWENTY_FIVE.players = 6  # type: ignore[misc]


def test_registry_finds_both_games_here() -> None:
    assert game_rules("twenty_five") is RULES["twenty_five"]
    assert game_rules("forty_five") is RULES["forty_five"]
    assert RULES["twenty_five"].name == "twenty_five"
    assert RULES["forty_five"].name == "forty_five"


def test_deck_is_52_cards_no_jokers() -> None:
    deck = config("forty_five").deck()
    assert len(deck) == 52 and len(set(deck)) == 52
    assert not any(c.is_joker for c in deck)


def test_seat_belongs_to_side_seat_mod_sides_partners_alternate() -> None:
    assert config("twenty_five").sides == ((0, 2), (1, 3))
    assert config("twenty_five", players=6).sides == ((0, 2, 4), (1, 3, 5))
    assert config("twenty_five", players=6, sides=3).sides == ((0, 3), (1, 4), (2, 5))


@pytest.mark.parametrize(
    ("players", "sides"),
    [(2, ((0,), (1,))), (3, ((0,), (1,), (2,))), (4, ((0, 2), (1, 3))), (5, tuple((s,) for s in range(5))),
     (6, ((0, 2, 4), (1, 3, 5))), (7, tuple((s,) for s in range(7))), (8, tuple((s,) for s in range(8))),
     (9, tuple((s,) for s in range(9))), (10, tuple((s,) for s in range(10)))],
)
def test_forty_five_default_sides_partnerships_with_four_and_six_else_everyone_alone(
    players: int, sides: tuple[tuple[int, ...], ...]
) -> None:
    cfg = config("forty_five", players=players)
    assert cfg.sides == sides
    assert cfg.to_options()["sides"] == len(sides)


@pytest.mark.parametrize(("players", "sides"), [(4, 4), (6, 3), (6, 6), (8, 2), (8, 4), (9, 3), (10, 5), (10, 2)])
def test_forty_five_sides_any_divisor_of_players_from_two_up(players: int, sides: int) -> None:
    cfg = config("forty_five", players=players, sides=sides)
    assert len(cfg.sides) == sides
    assert all(seat % sides == k for k, members in enumerate(cfg.sides) for seat in members)
    assert sorted(s for members in cfg.sides for s in members) == list(range(players))


@pytest.mark.parametrize(
    ("game", "options", "message"),
    [
        ("forty_five", {"players": 7, "sides": 3}, "forty_five: sides must divide players (7 players, sides 3)"),
        ("forty_five", {"players": 6, "sides": 1}, "forty_five: sides must be at least 2 (6 players, sides 1)"),
        ("forty_five", {"players": 4, "sides": 8}, "forty_five: sides must divide players (4 players, sides 8)"),
        ("forty_five", {"players": 11}, "forty_five: players must be 2 to 10, not 11"),
        ("forty_five", {"players": 1}, "forty_five: players must be 2 to 10, not 1"),
        ("twenty_five", {"players": 5}, "twenty_five: players must be 4 or 6, not 5"),
        ("twenty_five", {"players": 4, "sides": 4}, "twenty_five: sides must be 2 with 4 players, not 4"),
        ("twenty_five", {"players": 6, "sides": 6}, "twenty_five: sides must be 2 or 3 with 6 players, not 6"),
        ("twenty_five", {"jink": True}, "twenty_five: option 'jink' exists only in forty_five"),
        ("twenty_five", {"jink": False}, "twenty_five: option 'jink' exists only in forty_five"),
        ("twenty_five", {"trumps": True},
         "twenty_five: unknown option 'trumps' (options: deal_pattern, first_dealer, players, robbing, sides, "
         "target, trump_at_will)"),
        ("forty_five", {"players": True}, "forty_five: option 'players' must be an integer, not True"),
        ("forty_five", {"players": "4"}, "forty_five: option 'players' must be an integer, not '4'"),
        ("forty_five", {"sides": 2.0}, "forty_five: option 'sides' must be an integer, not 2.0"),
        ("twenty_five", {"target": False}, "twenty_five: option 'target' must be an integer, not False"),
        ("twenty_five", {"target": 0}, "twenty_five: target must be at least 1, not 0"),
        ("twenty_five", {"robbing": 1}, "twenty_five: option 'robbing' must be true or false, not 1"),
        ("forty_five", {"trump_at_will": "yes"},
         "forty_five: option 'trump_at_will' must be true or false, not 'yes'"),
        ("forty_five", {"jink": None}, "forty_five: option 'jink' must be true or false, not None"),
        ("twenty_five", {"deal_pattern": "3-3"}, "twenty_five: deal_pattern must be '3-2' or '2-3', not '3-3'"),
        ("twenty_five", {"first_dealer": 4}, "twenty_five: first_dealer must be a seat 0 to 3 or null, not 4"),
        ("forty_five", {"first_dealer": True}, "forty_five: first_dealer must be a seat 0 to 3 or null, not True"),
        ("forty_five", {"first_dealer": -1}, "forty_five: first_dealer must be a seat 0 to 3 or null, not -1"),
    ],
)
def test_bad_options_are_refused_with_an_exact_message(game: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError) as caught:
        RULES[game].config(options)
    assert str(caught.value) == message


def test_options_round_trip_through_to_options() -> None:
    cfg = config("forty_five", players=6, sides=3, deal_pattern="2-3", robbing=False, trump_at_will=False,
                 target=60, first_dealer=5, jink=True)
    again = RULES["forty_five"].config(cfg.to_options())
    assert again == cfg
    assert again.to_options() == {"players": 6, "sides": 3, "deal_pattern": "2-3", "robbing": False,
                                  "trump_at_will": False, "target": 60, "first_dealer": 5, "jink": True}


def test_first_dealer_option_sets_the_first_dealer_and_the_deal_passes_left() -> None:
    match = new_match("twenty_five", {"first_dealer": 2}, seed="first-dealer")
    assert match.deal.dealer == 2
    while match.deal.number == 1:
        match = match.apply(match.legal_actions()[0])
    assert match.is_over or match.deal.dealer == 3
    assert match.to_record(seed="first-dealer")["options"]["first_dealer"] == 2


def test_first_dealer_unset_is_drawn_from_the_seed_and_recorded() -> None:
    match = new_match("forty_five", {}, seed="drawn")
    again = new_match("forty_five", {}, seed="drawn")
    assert match.deal.dealer == again.deal.dealer
    assert match.to_record(seed="drawn")["options"]["first_dealer"] == match.deal.dealer
