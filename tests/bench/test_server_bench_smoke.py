"""The server benchmark runs end to end at tiny sizes (no timing is asserted: figures depend on the machine)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench import server_bench
from bench.server_bench import (
    PLAY_MANY,
    SDK,
    Sizes,
    load_game,
    measure_throughput,
    render,
    render_throughput,
    run,
    summary,
    turnarounds,
)
from tests.bench.support import recorded

TINY = Sizes(ping_count=30, ping_sizes=(64,), rounds=2, turnaround_tables=1, sdk_turnaround_tables=0,
             batched_turnaround_tables=1, load_games=("twenty_five:batches",), load_tables=2,
             load_clients=1, load_warmup=0.3, load_seconds=0.7, loops=("asyncio",),
             hold_waiting_steps=(2, 3), hold_steps=(2, 4), journal_games=1,
             journal_rounds=1)


def test_turnarounds_pair_each_answer_with_the_next_decision_of_the_table() -> None:
    records = [("t1", 1, 1, 100_000, 110_000), ("t1", 2, 1, 150_000, 160_000), ("t1", 3, 2, 300_000, 301_000),
               ("t2", 1, 1, 120_000, 121_000), ("t1", 5, 2, 400_000, 401_000)]
    samples = turnarounds(records)
    assert samples["within_deal"] == [40.0]
    assert samples["next_deal"] == [140.0]
    assert samples["all"] == [40.0, 140.0]  # 3 -> 5 skipped: decision 4 was not answered by a bot


def test_turnarounds_split_at_the_first_message_the_next_seat_gets() -> None:
    # Seat process 0 answers decision 1 at 110 us; seat process 1 gets a message at 130 us (the event),
    # then its decision at 150 us.
    records = [("t1", 1, 1, 100_000, 110_000, 0), ("t1", 2, 1, 150_000, 160_000, 1)]
    arrivals = [{"t1": [100_000]}, {"t1": [90_000, 130_000, 150_000]}]
    samples = turnarounds(records, arrivals)
    assert samples["within_deal"] == [40.0]
    assert samples["first_message"] == [20.0]
    assert samples["decision_after_first"] == [20.0]


def test_summary_percentiles() -> None:
    s = summary([float(x) for x in range(1, 101)])
    assert (s["n"], s["median_us"], s["p90_us"], s["p99_us"], s["min_us"]) == (100, 50.5, 91.0, 100.0, 1.0)
    assert summary([]) == {"n": 0}


@pytest.mark.timeout(300)
def test_bench_runs_end_to_end_at_tiny_sizes(tmp_path: Path) -> None:
    out = tmp_path / "server.json"
    report = run(sizes=TINY, out=out)
    assert out.exists()
    assert report["raw_round_trip"]["64B"]["n"] == TINY.ping_count
    assert report["turnaround"]["rejections"] == 0
    assert report["turnaround"]["turnaround"]["n"] > 0
    assert len(report["turnaround"]["ratio_to_raw_by_round"]) == 2
    assert report["turnaround"]["within_deal_first_message"]["n"] > 0
    assert "turnaround_sdk" not in report
    load = report["load"]["twenty_five:batches"]
    assert load["moves_in_window"] > 0 and load["errors"] == 0 and load["rejections"] == 0
    assert [s["tables"] for s in report["hold"]["steps"]] == [2, 4]
    assert [s["streams"] for s in report["hold"]["steps"]] == [8, 16]
    assert [s["tables"] for s in report["hold"]["waiting_steps"]] == [2, 3]
    assert report["hold"]["steps"][0]["tables_waiting_too"] == 3
    assert [r["tables_at_once"] for r in report["journal"]["runs"]] == [1, 20]
    assert all(recorded(r["journal_us_per_move"]) for r in report["journal"]["runs"])
    assert "turnaround.turnaround / raw" in report["ratios"]
    assert report["turnaround_batched"]["turnaround"]["n"] > 0
    assert report["goals"]["messages_per_move"] is None  # its run (twenty_five, coalesced) was not made: no figure
    assert "goal turnaround with SDK bots" in render(report)
    assert report["loops"]["asyncio"]["moves_in_window"] > 0
    assert server_bench.RESULTS.name == "server.json"


@pytest.mark.timeout(300)
def test_the_play_many_rows_are_measured_beside_the_play_rows_in_alternating_rounds_of_one_server(
        tmp_path: Path) -> None:
    games = ("twenty_five", "twenty_five" + PLAY_MANY, "twenty_five" + SDK, "twenty_five" + SDK + PLAY_MANY)
    report = measure_throughput(tmp_path, replace(TINY, load_tables=3, load_games=games), rounds=2)
    for game in games:
        row = report["rows"][game]
        assert recorded(row["moves_per_second"]) and row["errors"] == 0 and len(row["by_round"]) == 2
        assert recorded(row["client_cpu_us_per_move"])
        assert all(r["server_rss_mib_at_end"] > 0 for r in row["by_round"])  # one server's memory, round by round
    assert report["rows"]["twenty_five" + SDK]["messages_per_move"] is None  # the runner's Play streams: not counted
    # The stubs' joins of a table go as one message, every answer in a message: at most one message per move.
    assert all(0 < r["messages_sent_per_move"] <= 1.0 + 1 / 4 for r in report["rows"]["twenty_five" + PLAY_MANY]
               ["by_round"])
    assert all(r["messages_per_move"] > 0 and r["messages_sent_per_move"] > 0
               for r in report["rows"]["twenty_five" + SDK + PLAY_MANY]["by_round"])  # counted on the multiplexer
    stubs, sdk = report["play_many_over_play"]["twenty_five"], report["play_many_over_play"]["twenty_five" + SDK]
    assert set(stubs) == {"moves_per_second", "server_cpu_us_per_move", "client_cpu_us_per_move",
                          "messages_per_move", "messages_sent_per_move"}
    assert set(sdk) == {"moves_per_second", "server_cpu_us_per_move", "client_cpu_us_per_move"}
    assert all(len(v) == 2 for v in report["play_many_over_play_by_round"]["twenty_five"].values())
    assert "PlayMany / Play (twenty_five:sdk), client_cpu_us_per_move: x" in render_throughput(report)
    assert "each round's twenty_five:many window (one server, older each time): server CPU [" in \
        render_throughput(report)


@pytest.mark.timeout(300)
def test_throughput_against_a_commit_keeps_one_server_per_tree_for_every_round(tmp_path: Path) -> None:
    game = "twenty_five" + PLAY_MANY
    report = measure_throughput(tmp_path, replace(TINY, load_tables=2, load_games=(game,)), rounds=2, refs=["HEAD"])
    tree, ref = report["rows"][game]["by_round"], report["refs"]["HEAD"]["rows"][game]["by_round"]
    assert len(tree) == len(ref) == 2 and all(recorded(r["server_cpu_us_per_move"]) for r in tree + ref)
    assert len({r["server_pid"] for r in tree}) == len({r["server_pid"] for r in ref}) == 1  # each server ages
    assert tree[0]["server_pid"] != ref[0]["server_pid"]
    assert "HEAD's server: " in render_throughput(report)


def test_a_throughput_rows_name_gives_its_game_and_client_flags() -> None:
    assert load_game("twenty_five") == ("twenty_five", [])
    assert load_game("all_fives:batches") == ("all_fives", ["--batches-only"])
    assert load_game("twenty_five:sdk:many") == ("twenty_five", ["--sdk", "--many"])


def test_a_before_after_plays_the_first_throughput_row_given_so_play_many_clients_can_be_compared(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    asked: list[str] = []

    def measured(folder: Path, sizes: Sizes, refs: list[str], rounds: int, game: str) -> dict[str, object]:
        asked.append(game)
        return {"game": game, "rounds": rounds, "tables": sizes.load_tables, "load_average": [0.0], "commits": {},
                "trees": {}}

    monkeypatch.setattr(server_bench, "measure_against", measured)
    out = tmp_path / "against.json"
    server_bench.main(["--against", "main", "--load-games", "twenty_five" + PLAY_MANY, "--out", str(out)])
    server_bench.main(["--against", "main", "--out", str(out)])
    assert asked == ["twenty_five" + PLAY_MANY, "twenty_five"]


def test_sdk_bots_rows_take_every_place_in_the_round_order_in_turn(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    played: list[tuple[str, bool]] = []

    @contextmanager
    def a_process(*args: object, **kwargs: object) -> Iterator[Any]:
        yield ("127.0.0.1:1", 1) if not args else SimpleNamespace(address="127.0.0.1:2")

    def turnaround_round(server: object, game: str, tables: int, *, sdk: bool, root: Path,
                         loop: str) -> dict[str, Any]:
        played.append((loop, sdk))
        return {"samples": {"all": [500.0 + 100 * sdk]}}

    monkeypatch.setattr(server_bench, "echo_server", a_process)
    monkeypatch.setattr(server_bench, "game_server", a_process)
    monkeypatch.setattr(server_bench, "ping", lambda *args: ([250.0], 0.0))
    monkeypatch.setattr(server_bench, "turnaround_round", turnaround_round)
    report = server_bench.measure_sdk_bots(tmp_path, TINY, [], rounds=3, tables=1, loops=("asyncio", "uvloop"))
    rows = [("asyncio", False), ("uvloop", False), ("asyncio", True), ("uvloop", True)]
    assert played == rows + rows[1:] + rows[:1] + rows[2:] + rows[:2]  # each round starts one row later
    assert report["rows"]["SDK bots tree, uvloop"] == {"moves": 3, "median_us": 600.0, "over_raw": 2.4,
                                                       "loop": "uvloop", "median_us_by_round": [600.0] * 3}
    assert "SDK bots tree, asyncio" in server_bench.render_sdk_bots(report)


@pytest.mark.timeout(300)
def test_sdk_bots_and_stub_bots_play_on_the_loop_asked_against_one_server(tmp_path: Path) -> None:
    report = server_bench.measure_sdk_bots(tmp_path, TINY, [], rounds=1, tables=1, loops=("uvloop",))
    assert set(report["rows"]) == {"stub bots, uvloop", "SDK bots tree, uvloop"}
    assert all(row["moves"] > 0 and recorded(row["over_raw"]) for row in report["rows"].values())
    assert set(report["raw_us"]) == {"uvloop"}
