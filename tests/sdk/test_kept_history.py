"""A client decodes each history entry once (``KeptHistory``) and gets the views the whole decoding gives.

Whole matches of every game (new deals, redeals, robs with hidden buried
cards, Cinq Cents discards), each seat decoding every view it is sent,
compared with decoding the view whole.
"""

from __future__ import annotations

import pytest

from tests.games_support import SHORT_GAMES
from tricktable.client_sdk import lazy_view
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.rules.registry import new_match


@pytest.mark.parametrize(("game", "options"), SHORT_GAMES)
def test_views_decoded_with_the_history_kept_between_them_equal_the_whole_decoding(
        game: str, options: dict[str, int]) -> None:
    match = new_match(game, options, seed=f"kept-history-{game}")
    kept = [lazy_view.KeptHistory() for _ in range(match.config.players)]
    moves = deals = 0
    while not match.is_over and moves < 400:
        seat = match.to_act
        assert seat is not None
        message = convert.view_to_proto(match.view(seat))
        whole = convert.view_from_proto(message)
        assert convert.view_from_proto(message, history=kept[seat].of(message)) == whole
        deals = max(deals, whole.deal_number)
        legal = match.legal_actions()
        match = match.apply(legal[moves % len(legal)], seat)
        moves += 1
    assert deals > 1


def test_a_history_that_does_not_continue_the_kept_one_is_decoded_whole() -> None:
    match = new_match("twenty_five", {}, seed="kept-history-reset")
    seat = match.to_act
    assert seat is not None
    kept = lazy_view.KeptHistory()
    for _ in range(6):  # a few moves into the deal
        match = match.apply(match.legal_actions()[0], match.to_act)
    longer = convert.view_to_proto(match.view(0))
    assert len(longer.history) == 6
    kept.of(longer)
    other = game_pb2.SeatView()
    other.CopyFrom(longer)
    other.history[5].seat = (other.history[5].seat + 1) % 4  # the same length, another last entry
    other.history.add().CopyFrom(longer.history[0])
    assert kept.of(other) == convert.view_from_proto(other).history
