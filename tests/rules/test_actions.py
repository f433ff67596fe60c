"""The action values' own helpers: the order ``legal_actions()`` lists them in, a run as decided, and a value that
is no action refused."""

from __future__ import annotations

import random

import pytest

from tricktable.client_sdk.bot import AnnotatedAction
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
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.notation import notation
from tricktable.rules.registry import games, new_match


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


@pytest.mark.parametrize("game", games())
@pytest.mark.parametrize("passed", ["annotated", "action id", "none"])
def test_a_value_that_is_no_action_is_refused_as_malformed_and_changes_nothing(game: str, passed: str) -> None:
    match = new_match(game, {}, seed="not-an-action")
    legal = match.legal_actions()[0]
    wrong: object = {"annotated": AnnotatedAction(legal, "a bot's note"), "action id": notation(legal),
                     "none": None}[passed]
    before = match.to_record()
    with pytest.raises(RuleError) as refused:
        match.apply(wrong)  # type: ignore[arg-type]
    assert refused.value.code is ErrorCode.MALFORMED_ACTION
    assert "not an action" in refused.value.message
    assert ("pass its .action" in refused.value.message) == (passed == "annotated")
    assert match.to_record() == before
