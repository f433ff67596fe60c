"""A decision's view decoded field by field as it is read (``view_on_read``) is the view decoded whole.

Whole matches of every game, each seat's views read in different ways (one
field, every field, in another order, copied, pickled, replaced), compared
with :func:`view_from_proto`; and what is not read is not decoded.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from tests.games_support import SHORT_GAMES
from tricktable.client_sdk import lazy_view
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.rules.errors import NotationError
from tricktable.rules.game import SeatView
from tricktable.rules.registry import new_match

_FIELDS = [f.name for f in dataclasses.fields(SeatView)]


def _on_read(message: game_pb2.SeatView, kept: lazy_view.KeptHistory) -> SeatView:
    return lazy_view.view_on_read(message, options=None, sides=None, legal_actions=None, history=kept)


@pytest.mark.parametrize(("game", "options"), SHORT_GAMES)
def test_a_view_decoded_on_read_equals_the_view_decoded_whole_however_it_is_read(
        game: str, options: dict[str, int]) -> None:
    match = new_match(game, options, seed=f"on-read-{game}")
    kept = [lazy_view.KeptHistory() for _ in range(match.config.players)]
    moves = 0
    while not match.is_over and moves < 300:
        seat = match.to_act
        assert seat is not None
        message = convert.view_to_proto(match.view(seat))
        whole = convert.view_from_proto(message)
        view = _on_read(message, kept[seat])
        if moves % 3 == 0:  # some views only as a first-legal bot reads them: the history kept skips them
            assert view.legal_actions == whole.legal_actions
        else:
            order = _FIELDS if moves % 2 else list(reversed(_FIELDS))
            assert {name: getattr(view, name) for name in order} == {name: getattr(whole, name) for name in order}
            assert view == whole and whole == view
        legal = match.legal_actions()
        match = match.apply(legal[moves % len(legal)], seat)
        moves += 1


def test_a_view_decoded_on_read_copies_pickles_and_replaces_as_the_whole_view() -> None:
    match = new_match("twenty_five", {}, seed="on-read-copies")
    for _ in range(7):
        match = match.apply(match.legal_actions()[0], match.to_act)
    seat = match.to_act
    assert seat is not None
    message = convert.view_to_proto(match.view(seat))
    whole = convert.view_from_proto(message)
    for read in (copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))):
        assert read(_on_read(message, lazy_view.KeptHistory())) == whole
    replaced = dataclasses.replace(_on_read(message, lazy_view.KeptHistory()), to_act=None)
    assert replaced == dataclasses.replace(whole, to_act=None)
    assert repr(_on_read(message, lazy_view.KeptHistory())).split("(", 1)[1] == repr(whole).split("(", 1)[1]


def test_a_field_not_read_is_not_decoded_and_a_bad_one_raises_when_read() -> None:
    match = new_match("twenty_five", {}, seed="on-read-lazy")
    seat = match.to_act
    assert seat is not None
    message = convert.view_to_proto(match.view(seat))
    message.hand[0] = "??"  # a card no notation has
    view = _on_read(message, lazy_view.KeptHistory())
    assert view.legal_actions == convert.view_from_proto(convert.view_to_proto(match.view(seat))).legal_actions
    with pytest.raises(NotationError):
        _ = view.hand
    with pytest.raises(NotationError):
        convert.view_from_proto(message)
    with pytest.raises(AttributeError, match="no_such_field"):
        _ = view.no_such_field  # type: ignore[attr-defined]  # not a field of a view
