"""The OpenSpiel games: OpenSpiel's own random simulation test in every game, its ISMCTS playing whole deals, and
a cheating algorithm's look at the information states (a seat's strings and tensors carry no hidden card)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel has no wheel for this platform (pip install '.[train]')")

from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]  # noqa: E402

from tricktable.envs import openspiel_game  # noqa: E402
from tricktable.envs.encoding import ACTION_COUNT, ACTIONS, OBSERVATION_SIZE  # noqa: E402
from tricktable.envs.openspiel_game import TricktableState, load  # noqa: E402
from tricktable.rules.cards import Card  # noqa: E402
from tricktable.rules.game import SeatView  # noqa: E402
from tricktable.rules.registry import game_definition, games  # noqa: E402

LAYOUTS: list[tuple[str, dict[str, Any]]] = [
    ("twenty_five", {}), ("twenty_five", {"players": 6, "sides": 3}), ("forty_five", {"players": 5, "jink": True}),
    ("forty_five", {"players": 2, "first_dealer": 1, "deal_pattern": "two_three", "robbing": False}),
    ("all_fives", {"players": 3}), ("cinq_cents", {"target": 300}), ("twenty_five", {"whole_game": True}),
    ("all_fives", {"whole_game": True, "target": 11}),
]


def _chance(state: Any, rng: random.Random) -> None:
    outcomes = state.chance_outcomes()
    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])


def _to_decision(state: Any, rng: random.Random, decisions: int = 0) -> Any:
    """Deal by chance and take ``decisions`` random decisions; stop at the next decision point."""
    while state.is_chance_node() or decisions > 0:
        if state.is_terminal():
            raise AssertionError("the deal ended before the decision point asked for")
        if state.is_chance_node():
            _chance(state, rng)
            continue
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        decisions -= 1
    return state


@pytest.mark.parametrize(("game", "params"), LAYOUTS)
def test_each_layout_passes_openspiels_random_simulation_test(game: str, params: dict[str, Any]) -> None:
    pyspiel.random_sim_test(load(game, **params), num_sims=2, serialize=True, verbose=False)


def test_every_game_is_registered_with_every_engine_option_as_a_parameter() -> None:
    names = set(pyspiel.registered_names())
    for game in games():
        assert openspiel_game.PREFIX + game in names
        spec = pyspiel.load_game(openspiel_game.PREFIX + game).get_type().parameter_specification
        assert set(spec) == {o.name for o in game_definition(game).options} | {openspiel_game.WHOLE_GAME}
    five = load("forty_five", players=5, jink=True)
    assert five.num_players() == 5
    assert five.num_distinct_actions() == ACTION_COUNT
    assert five.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert load("twenty_five").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    table = {str(t): {d: 10 * t for d in ("S", "C", "D", "H", "NT")} for t in range(6, 11)}  # a club's own values
    assert load("cinq_cents", bid_values=json.dumps(table)).max_utility() == (100 + 100) / 1000
    for written in ("two_three", "2-3"):  # the parameter's name for it, or the engine's own spelling
        assert load("forty_five", deal_pattern=written).config.to_options()["deal_pattern"] == "2-3"


@pytest.mark.parametrize(("game", "params", "says"), [
    ("twenty_five", {"players": 3}, "players"), ("twenty_five", {"colour": 1}, "colour"),
    ("forty_five", {"players": 5, "sides": 2}, "sides"), ("cinq_cents", {"bid_values": "{"}, "bid_values")])
def test_a_bad_parameter_is_refused_with_the_engines_reason(game: str, params: dict[str, Any], says: str) -> None:
    with pytest.raises(Exception, match=says):
        load(game, **params)


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    state = _to_decision(load("twenty_five").new_initial_state(), random.Random(3))
    before = state.information_state_string(state.current_player())
    illegal = next(a for a in range(ACTION_COUNT) if a not in state.legal_actions())
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(illegal)
    assert state.information_state_string(state.current_player()) == before


def test_a_cinq_cents_discard_is_six_picks_of_the_declarer() -> None:
    rng = random.Random(5)
    for _ in range(20):
        state = load("cinq_cents").new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
                continue
            legal = state.legal_actions()
            if ACTIONS[legal[0]].startswith("pick-"):
                declarer = state.current_player()
                for picks in range(6):
                    assert state.current_player() == declarer
                    assert len(state.legal_actions()) == 16 - picks
                    other = (declarer + 1) % 4
                    assert "picked" not in state.observation_string(other)
                    state.apply_action(state.legal_actions()[0])
                assert "discards" in state.information_state_string(declarer)
                assert "discards" not in state.information_state_string((declarer + 1) % 4)
                return
            state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError("no contract in 20 deals")


def _hidden_cards(state: TricktableState, seat: int) -> set[Card]:
    """Every card ``seat`` may not see now: other hands, the stock, another robber's buried card, the kitty."""
    view = state.seat_view(seat)
    assert isinstance(view, SeatView)
    seen = set(view.hand) | set(view.exposed) | set(view.kitty) | set(view.discards)
    seen |= {c for trick in (*view.tricks, view.current_trick) if trick is not None for c in trick.cards}
    seen |= {c for c in (view.turn_up, view.buried) if c is not None}
    return set(state.tt_game.deck) - seen


def _tokens(text: str) -> set[str]:
    return set(re.split(r"[\s:\-]+", text))


def _others_hands(state: TricktableState, seat: int) -> list[tuple[Card, ...]]:
    players = state.tt_game.config.players
    return [view.hand for s in range(players) if s != seat and (view := state.seat_view(s)) is not None]


@pytest.mark.parametrize(("game", "params"), [("twenty_five", {}), ("forty_five", {"players": 5, "jink": True}),
                                              ("all_fives", {"players": 3}), ("cinq_cents", {})])
def test_a_cheating_algorithm_learns_nothing_hidden_from_a_seats_strings_and_tensors(
        game: str, params: dict[str, Any]) -> None:
    """Two states that differ only in what the seat may not see give it the same strings and tensors."""
    spiel_game = load(game, **params)
    rng = random.Random(11)
    differing = 0
    for decisions in (0, 3, 7, 12):
        state = _to_decision(spiel_game.new_initial_state(), rng, decisions)
        seat = state.current_player()
        texts = (state.information_state_string(seat), state.observation_string(seat))
        for text in texts:
            assert not _tokens(text) & {c.code for c in _hidden_cards(state, seat)}, text
        tensor = state.observation_tensor(seat)
        assert len(tensor) == OBSERVATION_SIZE
        for _ in range(3):
            other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            assert isinstance(other, TricktableState)
            assert other.current_player() == seat
            assert other.information_state_string(seat) == texts[0]
            assert other.observation_string(seat) == texts[1]
            assert other.observation_tensor(seat) == tensor
            assert sorted(other.legal_actions()) == sorted(state.legal_actions())
            differing += _others_hands(other, seat) != _others_hands(state, seat)
    assert differing > 0  # the resampled worlds did hide other cards: the equalities above were tested


def test_two_decks_that_differ_in_other_hands_give_a_seat_the_same_view() -> None:
    """Built from the decks directly (not by resampling): two cards swapped between seats 1 and 2 before play."""
    game = load("twenty_five", first_dealer=0)
    rng = random.Random(2)
    first = _to_decision(game.new_initial_state(), rng)
    deck = list(first.progress.decks[0])
    one, two = first.seat_view(1).hand[0], first.seat_view(2).hand[0]
    i, j = deck.index(one), deck.index(two)
    deck[i], deck[j] = deck[j], deck[i]
    second = game.new_initial_state()
    for card in deck[:-1]:
        second.apply_action(card.index)
    assert second.seat_view(1).hand != first.seat_view(1).hand
    for seat in (0, 3):
        assert second.information_state_string(seat) == first.information_state_string(seat)
        assert second.observation_tensor(seat) == first.observation_tensor(seat)
    assert second.information_state_string(1) != first.information_state_string(1)


def test_openspiels_ismcts_plays_whole_deals_legally_on_all_fives() -> None:
    """OpenSpiel's own ISMCTS, resampling through the game, plays two deals against random choices to the end."""
    game = load("all_fives")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=12, random_state=np.random.RandomState(1))
    rng = random.Random(0)
    for deal in range(2):
        state = game.new_initial_state()
        searched = 0
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
            elif state.current_player() == deal % 2:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                searched += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
        assert searched >= 6  # at least its six cards
        returns = state.returns()
        assert returns[0] == -returns[1]


def test_worlds_are_drawn_only_for_the_seat_to_act() -> None:
    state = _to_decision(load("twenty_five").new_initial_state(), random.Random(8), 2)
    other = (state.current_player() + 1) % 4
    with pytest.raises(ValueError, match="seat to act"):
        state.resample_from_infostate(other, pyspiel.UniformProbabilitySampler(0.0, 1.0))
