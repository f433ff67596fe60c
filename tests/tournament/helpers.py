"""Test doubles for tournaments: bots that crash or play badly, and a rigged runner."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.tournament.config import TournamentConfig, config_from_mapping
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec


class CrashingBot:
    """Raises on every decision."""

    def choose_action(self, view: SeatView) -> Action:
        raise RuntimeError("boom")


class IllegalBot:
    """Answers with an action that is never legal (a card of another game's notation is not needed: reuse a Pass)."""

    def choose_action(self, view: SeatView) -> Action:
        from tricktable.rules.actions import Bid, Denomination

        return Bid(tricks=99, denomination=Denomination("NT"))


class RiggedRunner:
    """Decides matches by strength: the side with the higher strength wins with probability ``edge``.

    Deterministic: the coin is the hash of the match id and seed.
    """

    def __init__(self, strengths: Mapping[str, float], edge: float = 0.8) -> None:
        self.strengths = dict(strengths)
        self.edge = edge
        self.calls: list[str] = []

    def run(self, spec: MatchSpec, entrants: Mapping[str, EntrantSpec]) -> MatchOutcome:
        self.calls.append(spec.match_id)
        teams = spec.side_entrants()
        power = [sum(self.strengths[n] for n in team) for team in teams]
        order = sorted(range(len(teams)), key=lambda i: -power[i])
        digest = hashlib.sha256(f"{spec.seed}|{spec.match_id}".encode()).digest()
        coin = int.from_bytes(digest[:8], "big") / 2**64
        if power[order[0]] == power[order[-1]]:
            winner = order[0] if coin < 0.5 else order[-1]
        else:
            winner = order[0] if coin < self.edge else order[-1]
        scores = tuple(61 if i == winner else 40 for i in range(len(teams)))
        return MatchOutcome(match_id=spec.match_id, status="finished", winners=(winner,), scores=scores,
                            reason="target reached", faults={n: 0 for n in spec.seats},
                            record={"match": spec.match_id})


def config(**fields: Any) -> TournamentConfig:
    """A config with test defaults (All Fives, two random bots, 2 games)."""
    data: dict[str, Any] = {"name": "t", "game": "all_fives", "entrants": ["random", "first-legal"], "games": 2,
                            "seed": "test", "match_timeout_s": 60}
    data.update(fields)
    return config_from_mapping(data)


class SlowBot:
    """Plays the first legal action after a pause (for decision time limits)."""

    def choose_action(self, view: SeatView) -> Action:
        import time

        time.sleep(0.05)
        return view.legal_actions[0]

