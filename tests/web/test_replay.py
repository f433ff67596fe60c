"""Replays: every step of a recorded game through the rules engine, every hand face up."""

from __future__ import annotations

from typing import Any

import pytest

from tricktable.rules.registry import new_match
from tricktable.web.replay import ReplayError, replay

GAMES = [("twenty_five", {"players": 4}), ("forty_five", {"players": 5, "jink": True}), ("all_fives", {"players": 3}),
         ("cinq_cents", {"players": 4, "target": 200})]


def played_record(game: str, options: dict[str, object], seed: str, max_actions: int = 3000) -> dict[str, Any]:
    match = new_match(game, options, seed=seed)
    for _ in range(max_actions):
        if match.is_over:
            break
        match = match.apply(match.legal_actions()[0])
    else:
        match = match.abort("long enough for a test")
    return match.to_record(seed=seed)


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_replay_has_a_frame_per_deal_and_action_and_each_deal_ends_with_the_recorded_tricks(
        game: str, options: dict[str, object]) -> None:
    record = played_record(game, options, seed=f"replay-{game}")
    data = replay(record)
    deals = record["deals"]
    assert len(data["frames"]) == sum(1 + len(d["actions"]) for d in deals)
    for deal, line in zip(deals, data["deals"], strict=True):
        first = data["frames"][line["frame"]]
        assert (first["deal"], first["trick"], line["scores"]) == (deal["number"], 0, deal["scores"])
        assert [sorted(h) for h in first["board"]["hands"]] == [sorted(deal["hands"][str(s)])
                                                              for s in range(len(deal["hands"]))]
        last = data["frames"][line["frame"] + len(deal["actions"])]
        assert [(t["leader"], t["cards"], t["winner"]) for t in last["board"]["tricks"]] == [
            (t["leader"], t["cards"], t["winner"]) for t in deal["tricks"]]
    assert data["meta"]["result"] == record["result"]


def test_replay_frames_know_their_trick_so_the_page_can_jump_to_it() -> None:
    data = replay(played_record("twenty_five", {"players": 4}, seed="jump"))
    deal_one = [f for f in data["frames"] if f["deal"] == 1]
    tricks = [f["trick"] for f in deal_one]
    assert tricks == sorted(tricks) and tricks[0] == 0 and set(range(1, 6)) <= set(tricks)
    third = next(f for f in deal_one if f["trick"] == 3)
    assert len(third["board"]["current_trick"]["cards"]) == 1 and len(third["board"]["tricks"]) == 2


def test_a_record_that_does_not_verify_is_refused_with_where_it_departs() -> None:
    record = played_record("all_fives", {"players": 2}, seed="bad")
    record["deals"][0]["actions"][0] = {"seat": 0, "type": "play", "card": "JKB"}
    with pytest.raises(ReplayError, match=r"deals\[0\]\.actions\[0\]"):
        replay(record)
