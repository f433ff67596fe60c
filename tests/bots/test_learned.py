"""The learned bot: its shipped weights load, it plays every game legally and the same way twice, and it
plays through the real server; its labels are the search's values less the heuristic's choice's, with no
margin reached it is the heuristic (in a whole game, or in one kind of decision), and its training command
runs on a tiny budget and writes weights it can play."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from tests.bots.support import GAMES
from tests.bots.test_sdk_play import FAST, server
from tricktable.bots import heuristic, make_bot
from tricktable.bots.learned import labels, train
from tricktable.bots.learned.bot import LearnedBot
from tricktable.bots.learned.features import INPUT_SIZE, KINDS, SUGGESTION, decision_kind
from tricktable.bots.learned.network import WEIGHTS, Network, load
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.runner import create_table, get_record, run_bot_async
from tricktable.rules.actions import Action, Discard, Play
from tricktable.rules.match import Match, play_out
from tricktable.rules.registry import new_match
from tricktable.server.app import GameServer

__all__ = ["server"]
#: Deals a test match plays at most (a match of bots that never make a contract could go on to the engine's limit).
DEALS = 40  # the live-server fixture, shared with the other SDK play tests


def _play(game: str, seed: str, bots: list[LearnedBot] | None = None,
          options: dict[str, object] | None = None) -> tuple[Match, list[Action]]:
    """A whole match of learned bots, every choice checked against the view's legal actions."""
    match = new_match(game, options or train.TRAIN_OPTIONS.get(game, {}), seed=seed)
    players = bots or [LearnedBot() for _ in range(match.config.players)]
    chosen: list[Action] = []

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        action = players[seat].choose_action(view)
        assert action in view.legal_actions, (game, seat, action)
        chosen.append(action)
        return action

    return play_out(match, choose, max_deals=DEALS), chosen


@pytest.mark.parametrize("game", GAMES)
def test_the_learned_bot_plays_whole_matches_legally(game: str) -> None:
    match, chosen = _play(game, f"learned-legal-{game}")
    assert match.is_over or len(match.finished) == DEALS
    if game == "cinq_cents":
        assert any(isinstance(a, Discard) for a in chosen), "a discard was made by six picks"


def test_the_learned_bot_is_registered_and_plays_the_same_match_the_same_way() -> None:
    bot = make_bot("learned", 7)
    assert isinstance(bot, LearnedBot)
    first = _play("forty_five", "learned-same")[1]
    second = _play("forty_five", "learned-same")[1]
    assert first == second and len(first) > 20


async def test_the_learned_bot_finishes_a_game_through_the_server(server: GameServer) -> None:
    bots: list[Bot] = [LearnedBot() if s % 2 else SearchBot(s, simulations=2) for s in range(4)]
    table = await create_table(server.address, game="twenty_five", seed="learned-sdk",
                               seat_names=[f"bot-{i}" for i in range(4)])
    runs = [run_bot_async(bot, server.address, token=token, backoff=FAST, seed=i)
            for i, (bot, token) in enumerate(zip(bots, table.tokens, strict=True))]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=240)
    assert [r.status for r in results] == ["finished"] * 4
    record = json.loads(await get_record(server.address, table.table_id))
    assert record["result"]["status"] == "finished"
    assert all(s["default_actions"] == 0 for s in record["seats"]), "every move was the bot's own"


def test_training_on_a_tiny_budget_writes_weights_the_bot_plays(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out, data = tmp_path / "tiny.npz", tmp_path / "decisions"
    argv = ["--seed", "tiny", "--matches", "twenty_five=1,cinq_cents=1", "--epochs", "1",
            "--hidden", "8", "--holdout", "0.5", "--data", str(data), "--out", str(out)]
    train.main(argv)
    printed = capsys.readouterr().out
    assert "decisions from 2 matches" in printed and "cinq_cents bid (" in printed
    net = load(out)
    assert net.w1.shape == (INPUT_SIZE, 8)
    rows = train.Rows.join([train.Rows.load(shard) for shard in sorted(data.iterdir())])
    assert len(rows) > 0 and rows.x.shape[1] == INPUT_SIZE
    assert not rows.target[~rows.mask].any(), "only the valued actions have an advantage"
    suggested = rows.x[:, SUGGESTION] > 0
    assert (rows.mask & suggested).any(axis=1).all(), "the heuristic's choice is valued in every row"
    assert not rows.target[suggested & rows.mask].any(), "advantages are over the heuristic's choice"
    again = tmp_path / "again.npz"
    train.main([*argv[:-2], "--out", str(again)])  # the same decisions, read back from their files
    assert np.array_equal(load(again).w2, net.w2) and np.array_equal(load(again).trust, net.trust), \
        "the same arguments give the same weights"
    _, chosen = _play("cinq_cents", "learned-tiny", [LearnedBot(out) for _ in range(4)])
    assert any(isinstance(a, Discard) for a in chosen)


def test_labels_are_the_true_deals_values_played_on_by_the_heuristic_less_its_choices() -> None:
    """Each valued action's advantage is its played-on value less the heuristic's choice's; and in heuristic
    self-play, the choice's value is what its side then gained in the deal, less the best other side's."""
    match = new_match("forty_five", {}, seed="labels")
    side = {seat: k for k, members in enumerate(match.config.sides) for seat in members}
    taken: list[tuple[int, tuple[int, ...], float]] = []
    departing: list[float] = []

    def choose(state: Match, seat: int) -> Action:
        row = labels.label(state, state.view(seat))
        if row is not None:
            assert row.heuristic == heuristic.choose_action(state.view(seat))
            played = {a: labels.played_on(state, seat, a) for a in row.advantage}
            assert row.advantage[row.heuristic] == 0
            assert row.advantage == {a: v - played[row.heuristic] for a, v in played.items()}
            taken.append((seat, state.scores, played[row.heuristic]))
            departing.extend(v for a, v in row.advantage.items() if a != row.heuristic)
        return heuristic.choose_action(state.view(seat))

    end = play_out(match, choose, max_deals=1)
    assert len(taken) >= 5, "a deal of Forty-Five has decisions with a choice"
    assert any(v != 0 for v in departing), "some departure changes the deal's outcome"
    deal, before_deal = end.finished[0]
    after = [b + p for b, p in zip(before_deal, deal.points, strict=True)]
    assert not end.is_over, "one deal does not end a match to 45: no win bonus in these values"
    for seat, before, value in taken:
        gains = [a - b for a, b in zip(after, before, strict=True)]
        assert value == gains[side[seat]] - max(g for k, g in enumerate(gains) if k != side[seat])


@pytest.mark.parametrize("game", GAMES)
def test_a_network_that_never_departs_plays_the_heuristic(game: str, tmp_path: Path) -> None:
    net = load(WEIGHTS)
    stubborn = tmp_path / "stubborn.npz"
    Network(net.w1, net.b1, net.w2, net.b2, np.full_like(net.trust, train.NEVER)).save(stubborn)
    bot = LearnedBot(stubborn)

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        action = bot.choose_action(view)
        assert action == heuristic.choose_action(view), view.legal_actions
        return action

    play_out(new_match(game, train.TRAIN_OPTIONS.get(game, {}), seed=f"stubborn-{game}"), choose, max_deals=3)


def test_weights_for_another_encoding_are_refused(tmp_path: Path) -> None:
    net = load(WEIGHTS)
    bad = tmp_path / "bad.npz"
    np.savez(bad, w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2, input_size=np.array(INPUT_SIZE - 1),
             games=np.array(["twenty_five"]))
    with pytest.raises(ValueError, match="another encoding"):
        load(bad)


def test_a_kind_never_departs_where_its_margin_is_never_and_departs_where_it_is_zero(tmp_path: Path) -> None:
    net = load(WEIGHTS)
    kind = "first_trick_follow"
    settings = train.margins(f"twenty_five=0,twenty_five:{kind}=never")
    assert settings == {("twenty_five", None): 0.0, ("twenty_five", kind): train.NEVER}
    path = tmp_path / "kinds.npz"
    train.with_margins(net, settings).save(path)
    bot = LearnedBot(path)
    departed = {k: 0 for k in KINDS}

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        action = bot.choose_action(view)
        if action != heuristic.choose_action(view):
            departed[decision_kind(view)] += 1
            assert decision_kind(view) != kind, "a kind whose margin is never plays the heuristic's choice"
        return action

    play_out(new_match("twenty_five", {}, seed="kinds"), choose, max_deals=20)
    assert sum(departed.values()) > 0, "at margin 0 the network departs somewhere: the check above is not vacuous"


def test_margin_settings_name_their_game_kind_and_number() -> None:
    assert train.margins("forty_five=0.5,forty_five:lead=never") == {("forty_five", None): 0.5,
                                                                   ("forty_five", "lead"): train.NEVER}
    for bad in ("forty_five:nowhere=1", "chess=1", "forty_five=-1", "forty_five=lots"):
        with pytest.raises(argparse.ArgumentTypeError, match="GAME:KIND=X"):
            train.margins(bad)


def test_each_card_play_has_the_kind_its_trick_says() -> None:
    seen: dict[str, int] = {k: 0 for k in KINDS}

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        kind = decision_kind(view)
        seen[kind] += 1
        trick = view.current_trick
        if all(isinstance(a, Play) for a in view.legal_actions):
            leading = trick is None or not trick.cards
            assert (kind in ("opening_lead", "lead")) == leading
            assert (kind == "opening_lead") == (leading and not view.tricks)
            assert (kind == "last_to_play") == (trick is not None and len(trick.cards) == view.players - 1)
        return heuristic.choose_action(view)

    play_out(new_match("twenty_five", {}, seed="kinds-of-play"), choose, max_deals=10)
    assert all(seen[k] for k in ("rob", "opening_lead", "lead", "last_to_play", "first_trick_follow", "follow")), seen
