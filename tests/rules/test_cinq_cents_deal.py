"""Cinq Cents players, deck, deal and options (docs/games.md 3.1, 3.2, 3.6 ruling on ``bid_values``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.test_cinq_cents_helpers import new_deal
from tricktable.rules.cards import card, cards, cinq_cents_deck
from tricktable.rules.cinq_cents import RULES, CinqCentsConfig, CinqCentsDeal
from tricktable.rules.cinq_cents_bids import STANDARD_TABLE
from tricktable.rules.errors import OptionsError
from tricktable.rules.registry import game_rules


def test_registry_finds_cinq_cents() -> None:
    assert game_rules("cinq_cents") is RULES
    assert RULES.name == "cinq_cents"


def test_deck_is_46_cards_without_twos_and_threes_plus_both_jokers() -> None:
    deck = CinqCentsConfig().deck()
    assert len(deck) == 46 and len(set(deck)) == 46
    assert not [c for c in deck if not c.is_joker and c.rank < 4]
    assert card("JKB") in deck and card("JKF") in deck
    for suit in "CDHS":
        assert len([c for c in deck if c.code.endswith(suit)]) == 11


def test_four_players_in_two_sides_seats_0_2_against_1_3() -> None:
    config = CinqCentsConfig.from_options({})
    assert config.players == 4
    assert config.sides == ((0, 2), (1, 3))


def test_deal_pattern_is_3_each_3_kitty_4_each_3_each_3_kitty_from_eldest_hand() -> None:
    deck = cinq_cents_deck()  # unshuffled, index order: 4C 5C 6C ... AS JKB JKF
    state = CinqCentsDeal.start(CinqCentsConfig(), number=1, dealer=2, deck=deck)
    top = [c.code for c in deck]
    # Eldest hand is seat 3 (dealer 2's left), then 0, 1 and the dealer 2 last.
    assert [c.code for c in state.dealt[3]] == top[0:3] + top[15:19] + top[31:34]
    assert [c.code for c in state.dealt[0]] == top[3:6] + top[19:23] + top[34:37]
    assert [c.code for c in state.dealt[1]] == top[6:9] + top[23:27] + top[37:40]
    assert [c.code for c in state.dealt[2]] == top[9:12] + top[27:31] + top[40:43]
    assert [c.code for c in state.kitty] == top[12:15] + top[43:46]
    assert [len(h) for h in state.hands] == [10, 10, 10, 10]
    assert len(state.kitty) == 6


def test_deal_refuses_a_deck_that_is_not_the_cinq_cents_deck() -> None:
    with pytest.raises(ValueError, match="46 cards"):
        CinqCentsDeal.start(CinqCentsConfig(), number=1, dealer=0, deck=cinq_cents_deck()[:-1])
    with pytest.raises(ValueError, match="46 cards"):
        CinqCentsDeal.start(CinqCentsConfig(), number=1, dealer=0,
                            deck=(*cinq_cents_deck()[:-1], card("2C")))


def test_eldest_hand_bids_first() -> None:
    assert new_deal(dealer=0).to_act == 1
    assert new_deal(dealer=3).to_act == 0


# --- options -------------------------------------------------------------


def test_options_default_to_rules_md_and_are_all_written_out() -> None:
    options = CinqCentsConfig.from_options({}).to_options()
    assert options == {"players": 4, "target": 1000, "first_dealer": None, "bid_values": STANDARD_TABLE.to_json()}
    assert options["bid_values"]["6"] == {"S": 40, "C": 60, "D": 80, "H": 100, "NT": 120}
    assert options["bid_values"]["10"] == {"S": 440, "C": 460, "D": 480, "H": 500, "NT": 520}


def test_standard_bid_table_is_the_table_of_3_3() -> None:
    table = STANDARD_TABLE.to_json()
    expected = {
        "6": [40, 60, 80, 100, 120], "7": [140, 160, 180, 200, 220], "8": [240, 260, 280, 300, 320],
        "9": [340, 360, 380, 400, 420], "10": [440, 460, 480, 500, 520],
    }
    assert {t: [row[d] for d in ("S", "C", "D", "H", "NT")] for t, row in table.items()} == expected


def test_options_round_trip_through_to_options() -> None:
    values = STANDARD_TABLE.to_json()
    values["7"]["NT"] = 250
    config = CinqCentsConfig.from_options({"target": 500, "first_dealer": 2, "bid_values": values})
    again = CinqCentsConfig.from_options(config.to_options())
    assert again == config
    assert again.to_options()["bid_values"]["7"]["NT"] == 250


def test_bid_values_may_be_given_as_json_text() -> None:
    import json

    values = STANDARD_TABLE.to_json()
    values["6"]["S"] = 45
    config = CinqCentsConfig.from_options({"bid_values": json.dumps(values)})
    assert config.to_options()["bid_values"] == values


def _table_with(**change: Any) -> dict[str, Any]:
    table: dict[str, Any] = STANDARD_TABLE.to_json()
    for key, value in change.items():
        table[key] = value
    return table


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": 1}, "cinq_cents: unknown option 'colour' (options: players, target, first_dealer, bid_values)"),
        ({"players": 6}, "cinq_cents: players must be 4, not 6"),
        ({"players": True}, "cinq_cents: players must be 4, not True"),
        ({"target": 0}, "cinq_cents: target must be a positive integer, not 0"),
        ({"target": "1000"}, "cinq_cents: target must be a positive integer, not '1000'"),
        ({"first_dealer": 4}, "cinq_cents: first_dealer must be a seat 0 to 3 or null, not 4"),
        ({"first_dealer": 1.0}, "cinq_cents: first_dealer must be a seat 0 to 3 or null, not 1.0"),
        ({"bid_values": [1, 2]}, "cinq_cents: bid_values must be a JSON object keyed '6' to '10', not [1, 2]"),
        ({"bid_values": "{"}, "cinq_cents: bid_values is not valid JSON"),
        ({"bid_values": {k: v for k, v in STANDARD_TABLE.to_json().items() if k != "9"}},
         "cinq_cents: bid_values must have exactly the keys 6, 7, 8, 9, 10 (missing '9')"),
        ({"bid_values": _table_with(**{"11": {}})},
         "cinq_cents: bid_values must have exactly the keys 6, 7, 8, 9, 10 (unknown '11')"),
        ({"bid_values": _table_with(**{"7": 140})},
         "cinq_cents: bid_values['7'] must be a JSON object keyed S, C, D, H, NT, not 140"),
        ({"bid_values": _table_with(**{"7": {"S": 1, "C": 2, "D": 3, "H": 4}})},
         "cinq_cents: bid_values['7'] must have exactly the keys S, C, D, H, NT (missing 'NT')"),
        ({"bid_values": _table_with(**{"8": {"S": 1, "C": 2, "D": 3, "H": 4, "NT": 5, "X": 6}})},
         "cinq_cents: bid_values['8'] must have exactly the keys S, C, D, H, NT (unknown 'X')"),
        ({"bid_values": _table_with(**{"7": {"S": 1, "C": 2, "D": 3, "H": 4, "NT": "220"}})},
         "cinq_cents: bid_values['7']['NT'] must be a non-negative integer, not '220'"),
        ({"bid_values": _table_with(**{"6": {"S": 1.5, "C": 2, "D": 3, "H": 4, "NT": 5}})},
         "cinq_cents: bid_values['6']['S'] must be a non-negative integer, not 1.5"),
        ({"bid_values": _table_with(**{"6": {"S": False, "C": 2, "D": 3, "H": 4, "NT": 5}})},
         "cinq_cents: bid_values['6']['S'] must be a non-negative integer, not False"),
        ({"bid_values": _table_with(**{"10": {"S": 1, "C": 2, "D": -3, "H": 4, "NT": 5}})},
         "cinq_cents: bid_values['10']['D'] must be a non-negative integer, not -3"),
    ],
)
def test_bad_options_are_refused_with_an_exact_message(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError) as info:
        RULES.config(options)
    assert str(info.value).startswith(message)
    if "JSON" not in message:
        assert str(info.value) == message


def test_hands_as_dealt_are_kept_apart_from_the_kitty() -> None:
    state = new_deal({0: "JKB"}, "AS KS QS JS TS 9S")
    assert card("JKB") in state.dealt[0]
    assert state.kitty == cards("AS KS QS JS TS 9S")
    assert not set(state.kitty) & {c for h in state.hands for c in h}


def test_the_rules_refuse_another_games_config_with_a_type_error() -> None:
    from tricktable.rules.all_fives import RULES as ALL_FIVES
    from tricktable.rules.cinq_cents import RULES

    with pytest.raises(TypeError, match="CinqCentsConfig"):
        RULES.start_deal(ALL_FIVES.config({}), number=1, dealer=0, deck=cinq_cents_deck(), scores=(0, 0),
                         redeal=False)
