"""The PettingZoo environments: PettingZoo's own API test in every game, seeded deals, rewards, and a policy
trained there that plays over the real server through the SDK without a line changed."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

from tests.live_server import running_server
from tricktable.client_sdk.runner import create_table, get_record, play_seat_async
from tricktable.envs.encoding import ACTION_COUNT, OBSERVATION_SIZE, PolicyBot
from tricktable.envs.pettingzoo_env import TricktableEnv, env
from tricktable.server.clocks import TimeControl

LAYOUTS = [("twenty_five", {}), ("twenty_five", {"players": 6, "sides": 3}),
           ("forty_five", {"players": 5, "jink": True}), ("all_fives", {"players": 3}), ("cinq_cents", {"target": 300})]


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")  # a Dict observation with its mask, as classic envs
@pytest.mark.parametrize(("game", "options"), LAYOUTS)
def test_each_game_passes_pettingzoos_api_test(game: str, options: dict[str, object]) -> None:
    api_test(env(game, options), num_cycles=200, verbose_progress=False)


def _play(environment: TricktableEnv, seed: int, rng: random.Random) -> tuple[list[bytes], dict[str, float]]:
    """A whole game of masked random choices: every observation's bytes and each agent's summed reward."""
    environment.reset(seed=seed)
    seen: list[bytes] = []
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        totals[agent] += reward
        seen.append(observation["observation"].tobytes())
        if terminated or truncated:
            environment.step(None)
            continue
        assert observation["observation"].shape == (OBSERVATION_SIZE,)
        legal = np.flatnonzero(observation["action_mask"])
        assert legal.size > 0  # the seat to act always has a choice
        environment.step(int(rng.choice(list(legal))))
    return seen, totals


def test_a_seed_deals_the_same_game_and_the_game_end_pays_the_winners() -> None:
    one, totals = _play(env("all_fives"), 7, random.Random(1))
    two, _ = _play(env("all_fives"), 7, random.Random(1))
    assert one == two
    assert sorted(round(v, 6) for v in totals.values())[0] < 0 < sorted(totals.values())[-1]


def _trained_policy(game: str, steps: int = 3000) -> np.ndarray:
    """A small policy learned on the environment: each action's mean reward over masked random play."""
    environment = env(game)
    environment.reset(seed=0)
    rng = np.random.default_rng(0)
    total, count = np.zeros(ACTION_COUNT), np.ones(ACTION_COUNT)
    last: dict[str, int] = {}
    for step, agent in enumerate(environment.agent_iter()):
        observation, reward, terminated, truncated, _ = environment.last()
        if agent in last:
            total[last[agent]] += reward
        if terminated or truncated:
            environment.step(None)
            if not environment.agents:
                if step > steps:
                    break
                environment.reset()
                last.clear()
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        count[action] += 1
        last[agent] = action
        environment.step(action)
    preference: np.ndarray = total / count
    return preference


def test_a_policy_trained_on_the_env_plays_over_the_real_server_through_the_sdk(tmp_path: Path) -> None:
    preference = _trained_policy("all_fives")

    def policy(observation: list[float], mask: list[int]) -> int:
        return int(np.argmax(np.where(np.asarray(mask) > 0, preference, -np.inf)))

    async def play() -> None:
        clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=2.0, join_seconds=10.0)
        async with running_server(tmp_path / "data", clocks) as server:
            table = await create_table(server.address, game="all_fives", seat_names=["learned", "learned-too"])
            seats = await asyncio.gather(*(play_seat_async(PolicyBot(policy), server.address, token=token)
                                           for token in table.tokens))
            assert all(s.result.status == "finished" and s.rejections == 0 for s in seats)
            record = json.loads(await get_record(server.address, table.table_id, owner_token=table.owner_token))
            assert all(s["default_actions"] == 0 for s in record["seats"])  # every move was the policy's own

    asyncio.run(play())
