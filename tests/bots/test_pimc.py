"""The plain PIMC bot: legal, reproducible, always robs, and searches on the fast path."""

from __future__ import annotations

import pytest

from tests.bots.support import GAMES, advance
from tricktable.bots import make_bot
from tricktable.bots.pimc import PimcBot
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import action_of
from tricktable.rules.actions import Action, Play, Rob
from tricktable.rules.cards import Suit, cards
from tricktable.rules.events import CardPlayed
from tricktable.rules.game import SeatView, Trick

SIDES_4 = ((0, 2), (1, 3))


def _rob_offer(game: str) -> SeatView:
    """Seat 2, dealt the ace of trumps, at its first turn: it may rob (burying any card) or just play."""
    hand = cards("AS 9C KD 2C 4S")  # no heart: any card may follow the QH
    legal: list[Action] = [*(Play(card=c) for c in hand), *(Rob(card=c) for c in hand)]
    return SeatView(game=game, options={}, seat=2, players=4, sides=SIDES_4, deal_number=1, dealer=0,
                    hand=hand, to_act=2, legal_actions=tuple(legal), scores=(0, 0), deal_points=(0, 0),
                    trump=Suit.SPADES, turn_up=cards("7S")[0], hand_sizes=(5, 4, 5, 5),
                    current_trick=Trick(leader=1, cards=cards("QH")),
                    history=(CardPlayed(seat=1, card=cards("QH")[0]),))


@pytest.mark.parametrize("kind", [PimcBot, SearchBot])
@pytest.mark.parametrize("game", ["twenty_five", "forty_five"])
def test_the_searching_bots_always_rob_when_offered(kind: type[PimcBot | SearchBot], game: str) -> None:
    # One world a decision is noisy enough that a plain play would sometimes look best: it is never tried.
    for seed in range(24):
        bot = kind(seed, simulations=1)
        assert isinstance(action_of(bot.choose_action(_rob_offer(game))), Rob)
        assert bot.last_worlds == 1, "which card to bury is searched"


@pytest.mark.parametrize("game", GAMES)
def test_pimc_choices_are_reproducible_with_a_seed_and_simulation_count(game: str) -> None:
    match, _ = advance(game, f"pimc-{game}", 6)
    seat = match.to_act
    assert seat is not None
    view = match.view(seat)
    first = PimcBot("p", simulations=20).choose_action(view)
    PimcBot("other", simulations=5).choose_action(view)
    assert PimcBot("p", simulations=20).choose_action(view) == first
    assert first in view.legal_actions


def test_pimc_is_a_named_bot_with_a_time_budget() -> None:
    match, _ = advance("forty_five", "pimc-timed", 2)
    seat = match.to_act
    assert seat is not None
    bot = make_bot("pimc", 3)
    assert isinstance(bot, PimcBot)
    bot.budget = 0.02
    assert bot.choose_action(match.view(seat)) in match.view(seat).legal_actions
    assert bot.last_worlds >= 1


def test_pimc_refuses_a_zero_simulation_count() -> None:
    with pytest.raises(ValueError, match="simulations"):
        PimcBot(simulations=0)
