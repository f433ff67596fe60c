"""Values the rules narrow with a checked accessor instead of an ``assert``: each refuses with a real error.

A joker has no printed suit, a trick still being played has no taker, a
Cinq Cents deal has no contract or trick in play while the bidding is on,
and a match still being played has no final result. Each raises the same
way under ``python -O``, where an ``assert`` would vanish.
"""

from __future__ import annotations

import pytest

from tests.rules.test_cinq_cents_helpers import apply_all, bid, new_deal
from tricktable.rules.actions import Denomination, Pass
from tricktable.rules.cards import Suit, card, cards
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.game import Contract, Trick
from tricktable.rules.registry import new_match


def test_an_ordinary_card_has_a_printed_suit_and_a_joker_has_none() -> None:
    assert card("5H").printed_suit is Suit.HEARTS
    with pytest.raises(ValueError, match="JKB is a joker"):
        _ = card("JKB").printed_suit


def test_a_trick_is_taken_by_its_winner_and_one_still_being_played_by_no_one() -> None:
    assert Trick(leader=1, cards=cards("5H 9H"), winner=2).taken_by == 2
    with pytest.raises(ValueError, match="still being played"):
        _ = Trick(leader=1, cards=cards("5H 9H")).taken_by


def test_a_cinq_cents_deal_in_the_bidding_has_no_settled_contract_nor_trick_in_play() -> None:
    state = new_deal()
    for accessor in ("settled_contract", "trick_in_play"):
        with pytest.raises(RuleError) as caught:
            getattr(state, accessor)
        assert caught.value.code is ErrorCode.WRONG_PHASE
    discarding = apply_all(state, [bid("7 H"), Pass(), Pass(), Pass()])
    assert discarding.settled_contract == Contract(seat=1, tricks=7, denomination=Denomination.HEARTS)


def test_a_match_still_being_played_has_no_final_result_and_an_aborted_one_has() -> None:
    match = new_match("all_fives", {}, seed="typed-access")
    with pytest.raises(ValueError, match="still being played"):
        _ = match.final_result
    assert match.abort("stopped").final_result.status == "aborted"
