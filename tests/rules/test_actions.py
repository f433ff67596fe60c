"""The action values' own helpers: the order ``legal_actions()`` lists them in, and a run as decided."""

from __future__ import annotations

import random

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
    action_sort_key,
    as_decided,
)
from tricktable.rules.cards import Suit, card, cards


def test_actions_sort_by_kind_in_the_action_table_then_by_card_suit_bid_or_discarded_cards() -> None:
    expected: list[Action] = [
        Play(card=card("2C")), Play(card=card("JKB")), Play(card=card("JKB"), suit=Suit.CLUBS),
        Play(card=card("JKB"), suit=Suit.SPADES), Rob(card=card("3C")), Rob(card=card("AS")), PassRob(), Jink(),
        PassJink(), Stand(), Beg(), Gift(), Run(), Bid(tricks=6, denomination=Denomination.NO_TRUMP),
        Bid(tricks=7, denomination=Denomination.SPADES), Bid(tricks=7, denomination=Denomination.CLUBS), Pass(),
        Discard(cards=cards("2C 3C 4C 5C 6C 7C")), Discard(cards=cards("8C 3C 4C 5C 6C 2C")),
    ]
    assert [cls for cls in dict.fromkeys(type(a) for a in expected)] == list(ACTION_CLASSES)
    shuffled = list(expected)
    random.Random(13).shuffle(shuffled)
    assert sorted(shuffled, key=action_sort_key) == expected


def test_as_decided_drops_the_cards_a_run_turned_and_keeps_every_other_action() -> None:
    assert as_decided(Run(exposed=cards("5H 9C"))) == Run()
    assert as_decided(Run()) == Run()
    for action in (Play(card=card("5H")), Stand(), Discard(cards=cards("2C 3C 4C 5C 6C 7C"))):
        assert as_decided(action) is action
