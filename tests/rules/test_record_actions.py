"""The record form of actions: one table (tricktable.rules.record.RECORD_FIELDS) writes, reads and shape-checks them."""

from __future__ import annotations

import pytest

from tricktable.rules.actions import (
    ACTION_CLASSES,
    Action,
    Beg,
    Bid,
    Denomination,
    Discard,
    Gift,
    Jink,
    Pass,
    PassJink,
    PassRob,
    Play,
    Rob,
    Run,
    Stand,
)
from tricktable.rules.cards import Suit, card, cards
from tricktable.rules.errors import NotationError
from tricktable.rules.record import ACTION_FIELDS, RecordFieldError, action_from_json, action_to_json, parse_action

SAMPLES: tuple[Action, ...] = (
    Play(card=card("5H")), Play(card=card("JKB"), suit=Suit.CLUBS), Rob(card=card("2C")), PassRob(), Jink(),
    PassJink(), Stand(), Beg(), Gift(), Run(), Run(exposed=cards("4S 9D")),
    Bid(tricks=7, denomination=Denomination.NO_TRUMP), Pass(), Discard(cards=cards("4C 5C 6C 7C 8C 9C")),
)


def test_the_record_fields_are_game_record_mds_table() -> None:
    assert ACTION_FIELDS == {
        "play": ("card", "suit"), "rob": ("card",), "pass_rob": (), "jink": (), "pass_jink": (), "stand": (),
        "beg": (), "gift": (), "run": ("exposed",), "bid": ("tricks", "suit"), "pass": (), "discard": ("cards",),
    }
    assert {type(a) for a in SAMPLES} == set(ACTION_CLASSES)


@pytest.mark.parametrize("action", SAMPLES, ids=lambda a: str(action_to_json(a)))
def test_every_action_round_trips_through_its_record_form(action: Action) -> None:
    form = action_to_json(action)
    assert action_from_json({"seat": 1, **form}) == action
    assert parse_action({"seat": 1, **form}, "a").action == action


def test_record_forms_are_written_as_the_spec_shows() -> None:
    assert action_to_json(Play(card=card("JKB"), suit=Suit.CLUBS)) == {"type": "play", "card": "JKB", "suit": "C"}
    assert action_to_json(Bid(tricks=7, denomination=Denomination.NO_TRUMP)) == {"type": "bid", "tricks": 7,
                                                                                 "suit": "NT"}
    assert action_to_json(Run()) == {"type": "run"}


def test_a_bad_action_names_its_field() -> None:
    with pytest.raises(RecordFieldError, match=r"^d\.card: missing"):
        parse_action({"seat": 0, "type": "play"}, "d")
    with pytest.raises(RecordFieldError, match=r"^d\.colour: a 'play' action has no field 'colour'"):
        parse_action({"seat": 0, "type": "play", "card": "5H", "colour": "red"}, "d")
    with pytest.raises(RecordFieldError, match=r"^d\.suit: not a denomination"):
        parse_action({"seat": 0, "type": "bid", "tricks": 7, "suit": "X"}, "d")
    with pytest.raises(NotationError, match="unknown action type 'fold'"):
        action_from_json({"type": "fold"})
