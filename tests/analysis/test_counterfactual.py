"""Counterfactual replay (``analysis.counterfactual``, ``tricktable replay``): same decks, one seat's bot swapped."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tricktable.analysis.counterfactual import ContinuedDecks, mirror_seat, replay
from tricktable.bots import heuristic
from tricktable.cli.main import app
from tricktable.rules.cards import Card
from tricktable.rules.match import play_out
from tricktable.rules.record import parse_record
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import SeededDecks

runner = CliRunner()


def _heuristic_record(game: str, options: dict[str, Any], seed: str) -> dict[str, Any]:
    """A game of heuristic bots (deterministic) at every seat, recorded."""
    match = new_match(game, options, seed=seed)
    match = play_out(match, lambda m, s: heuristic.choose_action(m.view(s)))
    return match.to_record(seed=seed, names=[f"heuristic-{s}" for s in range(match.config.players)])


def test_replay_with_the_recorded_deterministic_bot_reproduces_the_record() -> None:
    for game, options in (("twenty_five", {"players": 4}), ("all_fives", {"players": 2})):
        data = _heuristic_record(game, options, "same")
        result = replay(parse_record(data), 1, "heuristic")
        assert result.identical and not result.left
        assert result.match.to_record(seed="same", names=[s["name"] for s in data["seats"]]) == data
        assert result.score_change == 0 and result.verdict == "same result"


def test_replay_with_another_bot_reports_the_changed_result_and_the_seats_that_left_their_record() -> None:
    data = _heuristic_record("twenty_five", {"players": 4}, "g2")
    result = replay(parse_record(data), 0, "random")
    assert not result.identical
    assert result.left and all(x.seat != 0 for x in result.left)
    assert (result.replayed.score, result.replayed.won) != (result.recorded.score, result.recorded.won)
    assert result.score_change == result.replayed.score - result.recorded.score
    assert result.recorded == type(result.recorded)(score=data["result"]["scores"][0],
                                                    won=0 in data["result"]["winners"], status="finished")


def test_replay_from_a_later_deal_keeps_the_earlier_deals_as_recorded() -> None:
    data = _heuristic_record("twenty_five", {"players": 4}, "g1")
    assert len(data["deals"]) >= 2
    replayed = replay(parse_record(data), 0, "random", from_deal=2).match.to_record(seed="g1")
    assert replayed["deals"][0] == data["deals"][0]
    assert replayed["deals"][1]["actions"] != data["deals"][1]["actions"]


def test_deals_past_the_record_are_dealt_from_its_seed() -> None:
    cards = sorted(new_match("all_fives", {"players": 2}, seed="s").config.deck(), key=lambda c: c.index)
    recorded = [tuple(reversed(cards))]
    decks = ContinuedDecks(recorded, "s")
    assert decks.deck(0, cards) == recorded[0]
    assert decks.deck(3, cards) == SeededDecks("s").deck(3, cards)
    assert all(isinstance(c, Card) for c in decks.deck(5, cards))


def test_mirror_seat_is_the_first_seat_of_the_next_side() -> None:
    assert mirror_seat(parse_record(_heuristic_record("twenty_five", {"players": 4}, "m")), 0) == 1
    assert mirror_seat(parse_record(_heuristic_record("twenty_five", {"players": 4}, "m")), 3) == 0


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["replay", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_replay_command_over_a_records_file_with_duplicate_prints_both_ways_and_a_summary(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(_heuristic_record("twenty_five", {"players": 4}, seed)) + "\n"
                            for seed in ("g1", "g2")))
    code, out = _run(str(path), "--seat", "0", "--bot", "random", "--duplicate")
    assert code == 0, out
    assert out.count(f"{path}:1: seat 0 played by random") == 1 and out.count(f"{path}:1: seat 1 played by") == 1
    assert "stand-in heuristic" in out and "left their record: seat" in out
    assert out.splitlines()[-1].startswith("4 replays: ")


def test_replay_command_with_the_same_bot_says_the_replay_is_the_record(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_heuristic_record("twenty_five", {"players": 4}, "g1")))
    code, out = _run(str(path), "--seat", "2", "--bot", "heuristic", "--json")
    assert code == 0, out
    line = json.loads(out.splitlines()[0])
    assert line["identical"] is True and line["score_change"] == 0 and line["left_record"] == []


def test_replay_command_reports_bad_records_and_unknown_bots_in_one_line_and_exits_1(tmp_path: Path) -> None:
    good = tmp_path / "game.json"
    good.write_text(json.dumps(_heuristic_record("twenty_five", {"players": 4}, "g1")))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, out = _run(str(bad), str(good), "--seat", "0", "--bot", "no-such-bot")
    assert code == 1
    assert f"{bad}: error: not JSON" in out
    assert f"{good}: error: " in out and "no-such-bot" in out
    assert "Traceback" not in out
    code, out = _run(str(good), "--seat", "7", "--bot", "random")
    assert code == 1 and "no seat 7" in out


class _Crashing:
    def choose_action(self, view: object) -> object:
        raise RuntimeError("boom")


def test_a_bot_that_crashes_ends_its_replay_with_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from tricktable import bots

    monkeypatch.setitem(bots.BOTS, "crashing", lambda seed: _Crashing())
    data = _heuristic_record("twenty_five", {"players": 4}, "g1")
    with pytest.raises(ValueError, match="a bot failed: RuntimeError: boom"):
        replay(parse_record(data), 0, "crashing")


def test_a_record_with_the_bots_annotations_replays_as_the_same_record_without_them() -> None:
    from tricktable.rules.annotation import Annotation
    from tricktable.rules.record import annotate_record

    data = _heuristic_record("all_fives", {"players": 2}, "noted")
    plain = copy.deepcopy(data)
    annotate_record(data, {n: Annotation(note=f"move {n}", values={"x": 1.0}) for n in range(0, 40, 3)})
    result = replay(parse_record(data), 1, "heuristic")
    assert result.identical and not result.left
    assert result.match.to_record(seed="noted", names=[s["name"] for s in data["seats"]]) == plain
