"""One notation per action, both ways: every legal action of random games of every game round-trips.

``notation`` writes an action's one form; ``from_notation`` reads exactly those forms back and
refuses anything else, naming what is wrong. The wire's legal action ids are these notations.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.rules.test_properties import Setup, setups, step_through
from tricktable.protocol.convert import fill_legal_action
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.actions import Action, Bid, Denomination, Discard, Play, Run
from tricktable.rules.cards import Card, Suit
from tricktable.rules.errors import NotationError
from tricktable.rules.notation import from_notation, notation


@settings(max_examples=40)
@given(setups())
def test_every_legal_action_of_a_random_game_round_trips_through_its_notation(setup: Setup) -> None:
    game, options, seed = setup
    for match in step_through(game, options, seed):
        legal = match.legal_actions()
        written = [notation(action) for action in legal]
        assert len(set(written)) == len(legal)  # one action, one notation, and no two actions share one
        for action, text in zip(legal, written, strict=True):
            assert from_notation(text) == (Discard(cards=tuple(sorted(action.cards)))
                                           if isinstance(action, Discard) else action)
            wire = pb.LegalAction()
            fill_legal_action(wire, action)
            assert wire.id == text  # the wire's ids are the notation


@pytest.mark.parametrize(("action", "text"), [
    (Play(card=Card.parse("5H")), "play-5H"),
    (Play(card=Card.parse("JKB"), suit=Suit.HEARTS), "play-JKB-H"),
    (Bid(tricks=7, denomination=Denomination.NO_TRUMP), "bid-7-NT"),
    (Run(), "run"),
    (Discard(cards=tuple(Card.parse(c) for c in ("QS", "4C", "TD", "5C", "7D", "9D"))), "discard-4C-5C-7D-9D-TD-QS"),
])
def test_known_notations(action: Action, text: str) -> None:
    assert notation(action) == text
    assert from_notation(text) == (Discard(cards=tuple(sorted(action.cards))) if isinstance(action, Discard)
                                   else action)


@pytest.mark.parametrize(("text", "says"), [
    ("", "non-empty string"),
    ("fold", "unknown action type 'fold'"),
    ("play", "a play action needs its card"),
    ("play-5X", "not a card: '5X'"),
    ("stand-now", "has no part after its fields ('now')"),
    ("bid-07-S", "tricks: not a number: '07'"),
    ("bid-7-XX", "not a denomination"),
    ("discard-5C-4C", "is not in the one written form of that action: 'discard-4C-5C'"),
])
def test_anything_but_a_written_form_is_refused_with_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(NotationError) as refused:
        from_notation(text)
    assert says in str(refused.value)
