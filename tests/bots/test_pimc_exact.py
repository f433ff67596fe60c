"""PIMC with an exact endgame: legal in every game over the real server, reproducible, exact at the end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from unittest import mock

import pytest

from tests.bots.support import ENDGAME_OPTIONS, ENDGAME_TRICKS, GAMES, advance, endgame_deck
from tests.live_server import running_server
from tricktable.bots import BOTS, make_bot, solver_cinq_cents
from tricktable.bots.fast_worlds import WorldStream, decision_rng, win_bonus
from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.ladder import play_match
from tricktable.bots.pimc_exact import SOLVED_PER_HAND, WORLDS, PimcExactBot
from tricktable.bots.solver import DealSolver
from tricktable.bots.world_rate import decision_points
from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.runner import Backoff, create_table, get_record, run_bot_async
from tricktable.rules.actions import Play
from tricktable.rules.cards import card
from tricktable.rules.fast.codec import encode
from tricktable.rules.game import SeatView
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl

FAST = Backoff(initial=0.02, maximum=0.2, attempts=8)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    clocks = TimeControl(decision_seconds=10.0, bank_seconds=60.0, grace_seconds=5.0, join_seconds=10.0)
    async with running_server(tmp_path / "data", clocks) as game_server:
        yield game_server


@pytest.mark.parametrize("game", GAMES)
async def test_pimc_exact_finishes_every_game_through_the_server(server: GameServer, game: str) -> None:
    players = new_match(game, {}, seed="exact-sdk").config.players
    searchers: list[PimcExactBot] = []
    bots: list[Bot] = []
    for seat in range(players):
        if seat % 2:
            bots.append(HeuristicBot())
            continue
        bot = make_bot("pimc-exact", seat)
        assert isinstance(bot, PimcExactBot)
        bot.simulations = 2  # a whole game in a test's time; the worlds' count does not change the path
        searchers.append(bot)
        bots.append(bot)
    options = {"target": 200} if game == "cinq_cents" else {}
    table = await create_table(server.address, game=game, seed="exact-sdk", options=options,
                               seat_names=[f"bot-{i}" for i in range(players)])
    runs = [run_bot_async(bot, server.address, token=token, backoff=FAST, seed=i)
            for i, (bot, token) in enumerate(zip(bots, table.tokens, strict=True))]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=600)
    assert all(r.status == "finished" for r in results)
    record = json.loads(await get_record(server.address, table.table_id))
    assert record["result"]["status"] == "finished"
    for seat in record["seats"]:
        assert seat["rejected"] == 0 and seat["default_actions"] == 0, "every action the bot's own and legal"
    assert sum(bot.total_worlds for bot in searchers) > 0, "the bot searched"


def test_pimc_exact_is_a_named_bot_of_forty_worlds() -> None:
    assert "pimc-exact" in BOTS
    bot = make_bot("pimc-exact", 5)
    assert isinstance(bot, PimcExactBot)
    assert bot.simulations == WORLDS == 40 and bot.solved_per_hand == SOLVED_PER_HAND == 3


@pytest.mark.parametrize("game", GAMES)
def test_pimc_exact_choices_are_reproducible_with_a_seed_and_worlds(game: str) -> None:
    match, _ = advance(game, f"exact-{game}", 6)
    seat = match.to_act
    assert seat is not None
    view = match.view(seat)
    bot = PimcExactBot("p", simulations=10)
    first = bot.choose_action(view)
    values = dict(bot.last_values)
    PimcExactBot("other", simulations=3).choose_action(view)
    again = PimcExactBot("p", simulations=10)
    assert again.choose_action(view) == first and again.last_values == values
    assert first in view.legal_actions


def test_pimc_exact_refuses_nonsense_settings() -> None:
    with pytest.raises(ValueError, match="simulations"):
        PimcExactBot(simulations=0)
    with pytest.raises(ValueError, match="solved_per_hand"):
        PimcExactBot(solved_per_hand=0)


def _endgame_view() -> SeatView:
    """Seat 1 to lead the last two tricks holding the 5 of spades (top trump) and the 2 of diamonds.

    Leading the 5 draws the other side's last trumps and both tricks are
    seat 1's side's (the match: 25 points); leading the 2 lets seat 0, void
    in diamonds, trump it. Only one card wins.
    """
    match = new_match("twenty_five", ENDGAME_OPTIONS, decks=RecordedDecks([endgame_deck()]))
    for code in ENDGAME_TRICKS:
        seat = match.to_act
        assert seat is not None
        match = match.apply(Play(card=card(code)), seat)
    return match.view(1)


def test_pimc_exact_plays_the_only_winning_card_of_an_endgame() -> None:
    view = _endgame_view()
    bot = PimcExactBot("endgame")
    assert bot.choose_action(view) == Play(card=card("5S"))
    assert bot.last_worlds == WORLDS
    assert bot.last_values[Play(card=card("5S"))] > bot.last_values[Play(card=card("2D"))]


def test_with_few_cards_left_each_value_is_the_exact_solution_of_the_same_worlds() -> None:
    """Below three cards a hand nothing is played out: a candidate's value is its mean solved value."""
    view = _endgame_view()
    bot = PimcExactBot("exact", simulations=12)
    bot.choose_action(view)
    sides = tuple(view.side_of(s) for s in range(view.players))
    worlds = WorldStream(view, decision_rng("exact", view), 12)
    expected = dict.fromkeys(view.legal_actions, 0.0)
    for state in worlds:
        solver = DealSolver(sides, sides[view.seat], list(state.scores), win_bonus(view.game))
        for action in view.legal_actions:
            child = state.clone()
            child.apply(encode(view.game, action))
            expected[action] += solver.value(child)
    assert worlds.drawn == 12
    assert bot.last_values == {a: total / 12 for a, total in expected.items()}


#: Every decision (fast-path action codes, in order) of whole matches of four ``PimcExactBot("<seed>|<seat>")``,
#: as the bot played them when every world was solved by the generic search: a faster solver must not change one.
MATCH_DECISIONS: dict[tuple[str, str], str] = {
    ("twenty_five", "g1"): (
        "7 10 58 24 2 16 31 5 21 25 46 4 38 35 27 29 41 26 50 32 9 8 33 3 0 49 16 42 7 27 18 31 34 "
        "20 22 2 5"
    ),
    ("twenty_five", "g2"): (
        "77 35 37 34 47 2 1 9 7 16 23 14 18 12 19 20 42 32 48 21 43 21 23 24 18 39 44 41 40 33 27 "
        "30 8"
    ),
    ("forty_five", "g2"): (
        "84 25 14 1 9 43 23 48 18 19 20 16 7 35 2 34 42 37 21 47 12 41 40 39 44 24 27 30 19 49 8 42 "
        "32 18 21 22 33 13 5 46 23 50 67 34 37 29 12 5 32 33 22 14 23 26 38 8 1 24 40 9 17 48"
    ),
    ("forty_five", "g3"): (
        "0 14 9 49 34 27 19 35 29 33 41 21 13 24 25 1 47 18 4 20 18 19 23 17 42 4 40 50 34 36 47 27 "
        "16 20 46 14 31 9 7 30"
    ),
}


@pytest.mark.parametrize(("game", "seed"), sorted(MATCH_DECISIONS))
def test_pimc_exact_plays_whole_matches_as_it_always_has(game: str, seed: str) -> None:
    bots = [PimcExactBot(f"{seed}|{s}") for s in range(4)]
    match = play_match(game, {}, seed, bots)
    record = match.to_record()
    assert record["result"]["status"] == "finished"
    played = [encode(game, action_from_json(entry)) for deal in record["deals"] for entry in deal["actions"]]
    assert " ".join(map(str, played)) == MATCH_DECISIONS[game, seed]


def test_a_cinq_cents_decision_is_the_same_whichever_search_solves_its_worlds() -> None:
    """First-trick card decisions (every candidate solved from three cards a hand in each of 40 worlds): the same
    action and the same values with the dedicated Cinq Cents solver as with the generic search."""
    for view in decision_points("cinq_cents", "card", 3, seed="same"):
        dedicated = PimcExactBot("same")
        action = dedicated.choose_action(view)
        generic = PimcExactBot("same")
        with mock.patch.object(solver_cinq_cents, "can_solve", return_value=False) as declined:
            assert generic.choose_action(view) == action
        assert declined.called, "the worlds were solved, by the generic search"
        assert generic.last_values == dedicated.last_values and generic.last_worlds == dedicated.last_worlds == WORLDS
