"""The four games as PettingZoo AEC environments, with action masks (Farama's multi-agent API).

``env = tricktable.envs.pettingzoo_env.env("forty_five", {"players": 5, "jink": True})``: one
agent per seat (``seat_0`` ...), the agent selected is the seat to act, its observation is
``{"observation": encode(view), "action_mask": mask}`` of :mod:`tricktable.envs.encoding` (only
what its view holds), and its action an index into :data:`~tricktable.envs.encoding.ACTIONS`. A
Cinq Cents discard is six steps of the declarer, one card each. The rules engine is the table:
every option and layout it supports, seeded by ``reset(seed=...)`` for reproducible deals.

Rewards, for every seat at once (:mod:`tricktable.envs.rewards`): when a deal is scored, the seat's
side's score change minus the best other side's, divided by the game's target (a shared signal per
deal); when the game ends, +1 to each seat of a winning side and -1 to the others (0 for all if it
was stopped). A game that reaches :data:`~tricktable.rules.match.MAX_DEALS` deals is truncated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tricktable.envs.encoding import ACTION_COUNT, DISCARD_SIZE, OBSERVATION_SIZE, action_mask, decode, encode
from tricktable.envs.rewards import deal_rewards, game_rewards
from tricktable.rules.actions import Action, Discard
from tricktable.rules.cards import Card
from tricktable.rules.match import MAX_DEALS, Match
from tricktable.rules.registry import game_rules, new_match


class TricktableEnv(AECEnv):  # type: ignore[misc]
    """One table of ``game`` with ``options``; each reset deals a new game."""

    metadata: ClassVar[dict[str, Any]] = {"name": "tricktable_v0", "is_parallelizable": False, "render_modes": []}

    def __init__(self, game: str, options: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.game = game
        self.options = dict(options or {})
        players = game_rules(game).config(self.options).players
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        observation = spaces.Dict({
            "observation": spaces.Box(-10.0, 10.0, (OBSERVATION_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
        })
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in self.possible_agents}
        self.match: Match | None = None
        self._picked: list[Card] = []
        self._seed = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed = seed
        else:
            self._seed += 1
        self.match = new_match(self.game, self.options, seed=f"env/{self._seed}")
        self._picked = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        match = self.match
        if match is not None and match.to_act is not None:
            self.agent_selection = self.possible_agents[match.to_act]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        if self.match is None:
            raise RuntimeError("reset() the environment first")
        seat = self.possible_agents.index(agent)
        view = self.match.view(seat)
        picked = self._picked if self.match.to_act == seat else []
        mask = action_mask(view, picked) if self.match.to_act == seat else [0] * ACTION_COUNT
        return {"observation": np.asarray(encode(view, picked), dtype=np.float32),
                "action_mask": np.asarray(mask, dtype=np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self.match
        if match is None or match.to_act is None or action is None:
            raise RuntimeError("step() needs a reset() environment and an action for the seat to act")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        seat = match.to_act
        if not self.observe(agent)["action_mask"][int(action)]:
            raise ValueError(f"action {action} is not allowed for {agent} now (see its action_mask)")
        choice = decode(int(action))
        if isinstance(choice, Card):  # one card of a discard
            self._picked.append(choice)
            if len(self._picked) < DISCARD_SIZE:
                self._accumulate_rewards()
                return
            chosen: Action = Discard(cards=tuple(self._picked))
            self._picked = []
        else:
            chosen = choice
        after = match.apply(chosen, seat)
        if len(after.finished) > len(match.finished):
            self._reward_deal(match.scores, after.scores)
        if after.is_over:
            self._reward_game(after)
        elif len(after.finished) >= MAX_DEALS:
            self.truncations = dict.fromkeys(self.agents, True)
        self.match = after
        self._accumulate_rewards()
        self._select()

    def _reward_deal(self, before: tuple[int, ...], after: tuple[int, ...]) -> None:
        match = self.match
        if match is None:
            return
        for agent, reward in zip(self.possible_agents, deal_rewards(match.config, before, after), strict=True):
            self.rewards[agent] += reward

    def _reward_game(self, after: Match) -> None:
        for agent, reward in zip(self.possible_agents, game_rewards(after.config, after.final_result), strict=True):
            self.rewards[agent] += reward
        self.terminations = dict.fromkeys(self.agents, True)

    def render(self) -> None:
        """No rendering: the web viewer replays records (``tricktable view``)."""

    def close(self) -> None:
        """Nothing to release."""


def env(game: str, options: Mapping[str, Any] | None = None) -> TricktableEnv:
    """A new environment of ``game`` (PettingZoo's ``env()`` convention)."""
    return TricktableEnv(game, options)
