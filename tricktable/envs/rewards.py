"""What a deal and a game are worth to each seat: the one reward the learning environments share.

Why one home: a policy trained on the PettingZoo environment and an algorithm run on the
OpenSpiel game should chase the same numbers, so both take them from here.

- A deal: the seat's side's score change minus the best other side's, divided by the game's
  target (a shared signal per deal, the same for partners).
- A game: +1 to each seat of a winning side, -1 to the others; 0 for every seat when the game
  was stopped (aborted or cut off at the deal limit).
"""

from __future__ import annotations

from collections.abc import Sequence

from tricktable.rules.game import GameConfig, Result

#: The target of a game whose options carry none (the scale of a deal's reward).
DEFAULT_TARGET = 100


def target_of(config: GameConfig) -> float:
    """The game's target, the scale of a deal's reward."""
    return float(config.to_options().get("target") or DEFAULT_TARGET) or float(DEFAULT_TARGET)


def seat_sides(config: GameConfig) -> list[int]:
    """Each seat's side index, in seat order."""
    return [next(k for k, members in enumerate(config.sides) if s in members) for s in range(config.players)]


def deal_rewards(config: GameConfig, before: Sequence[int], after: Sequence[int]) -> list[float]:
    """Each seat's reward for the side totals going from ``before`` to ``after``."""
    change = [a - b for a, b in zip(after, before, strict=True)]
    target = target_of(config)
    out = []
    for side in seat_sides(config):
        others = [c for k, c in enumerate(change) if k != side]
        out.append((change[side] - max(others, default=0)) / target)
    return out


def game_rewards(config: GameConfig, result: Result | None) -> list[float]:
    """Each seat's reward for the game's end (all 0 when it was stopped or has no result)."""
    if result is None or result.status != "finished":
        return [0.0] * config.players
    winners = set(result.winners)
    return [1.0 if side in winners else -1.0 for side in seat_sides(config)]
