"""``python -m bots.world_rate``: decision points of each kind, and the worlds a bot drew over its CPU time."""

from __future__ import annotations

import pytest

from tricktable.bots.search import SearchBot
from tricktable.bots.world_rate import KINDS, decision_points, main, world_rate


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_decision_points_are_of_the_kind_asked(kind: str) -> None:
    views = decision_points("cinq_cents", kind, 2)
    assert len(views) == 2 and all(KINDS[kind](v) for v in views)


def test_world_rate_counts_every_world_the_bot_drew() -> None:
    views = decision_points("cinq_cents", "bid", 2)
    worlds, cpu = world_rate(SearchBot(1, simulations=3, bid_worlds=3), views)
    assert worlds == 6 and cpu > 0


def test_the_command_prints_worlds_per_cpu_second(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--game", "forty_five", "--kind", "card", "--bot", "pimc", "--sims", "2", "--points", "2"])
    assert "worlds per CPU s" in capsys.readouterr().out


def test_the_command_measures_pimc_exact_too(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--game", "twenty_five", "--kind", "card", "--bot", "pimc-exact", "--sims", "2", "--points", "2"])
    assert "pimc-exact sims=2: 2 decisions, 4 worlds" in capsys.readouterr().out
