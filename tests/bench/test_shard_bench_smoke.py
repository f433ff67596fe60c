"""The shard benchmark accounts for every core and runs end to end at tiny sizes (no speed is asserted)."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bench import shard_bench
from bench.shard_bench import GRPC, LOOP, PYTHON, QUICK_SHARDS, CoreAccount, account_for, compare, render, run
from tests.bench.support import recorded


def _load(moves: int, seconds: float, bots_cores: float, by_shard: dict[str, int]) -> dict[str, object]:
    """What ``measure_load`` reports, reduced to the fields the accounting reads."""
    return {"window_seconds": seconds, "moves_in_window": moves, "moves_per_second": round(moves / seconds),
            "client_cpu_cores": [bots_cores], "moves_by_shard": by_shard, "tables": 40, "client_processes": 2,
            "errors": 0, "rejections": 0, "messages_per_move": 1.3}


def _account(shards: list[tuple[float, float, float]], busy: float, idle: float) -> CoreAccount:
    """An account whose window saw these CPU seconds (loop, gRPC threads, other Python threads) per shard."""
    account = CoreAccount(pids=tuple(range(len(shards))))
    zero = {LOOP: 0.0, GRPC: 0.0, PYTHON: 0.0}
    account.readings = [([dict(zero) for _ in shards], (100.0, 50.0), 3.0),
                        ([{LOOP: a, GRPC: b, PYTHON: c} for a, b, c in shards], (100.0 + busy, 50.0 + idle), 4.0)]
    return account


def test_a_window_is_accounted_core_by_core_with_the_ceilings_it_implies() -> None:
    # One shard, 10 s: 10,000 moves; its loop 6 s, gRPC threads 0.5 s, other Python threads 0.5 s; bots 0.3 cores
    # (3 s); the machine was busy 18 s of its 20 core-seconds, so others took 18 - 7 - 3 = 8 s.
    entry = account_for(_load(10_000, 10.0, 0.3, {"0": 10_000}), _account([(6.0, 0.5, 0.5)], 18.0, 2.0), 1, 2)
    assert entry["cores"] == {"server": 0.7, LOOP: 0.6, GRPC: 0.05, PYTHON: 0.05, "bots": 0.3, "others": 0.8,
                              "idle": 0.2, "machine": 2}
    assert entry["us_per_move"] == {"server": 700, LOOP: 600, GRPC: 50, PYTHON: 50, "bots": 300}
    assert entry["load_average_1min"] == [3.0, 4.0]
    # The loop is full at 10,000 / 6 moves/s; 2 cores hold 2 / 700 us and, with the bots, 2 / 1000 us.
    assert entry["ceilings_moves_per_second"] == {"event_loops": 1667, "cores_bots_elsewhere": 1667,
                                                  "cores_bots_here": 1667}


def test_the_busiest_shards_loop_bounds_a_sharded_server() -> None:
    # Two shards: the first shard's loop is the busier (5 s against 4 s for 12,000 moves in 10 s).
    entry = account_for(_load(12_000, 10.0, 0.5, {"0": 6_500, "1": 5_500}),
                        _account([(5.0, 0.5, 0.5), (4.0, 0.5, 0.5)], 20.0, 0.0), 2, 2)
    assert entry["server_cores_by_shard"] == [0.6, 0.5]
    assert entry["ceilings_moves_per_second"] == {"event_loops": 2400, "cores_bots_elsewhere": 2182,
                                                  "cores_bots_here": 1500}


def _entry(moves_per_second: int, server_us: int, here: int, elsewhere: int, others: float) -> dict[str, object]:
    return {"moves_per_second": moves_per_second, "us_per_move": {"server": server_us},
            "cores": {"machine": 2, "others": others},
            "ceilings_moves_per_second": {"cores_bots_here": here, "cores_bots_elsewhere": elsewhere}}


def test_two_over_one_is_taken_within_each_round_with_the_bots_budget_of_the_goal() -> None:
    rounds = [{"1": _entry(1000, 700, 1500, 1600, 0.1), "2": _entry(1100, 750, 1650, 2600, 0.0)},
              {"2": _entry(1300, 760, 1700, 2600, 0.0), "1": _entry(1000, 700, 1500, 1600, 0.2)}]
    out = compare(rounds)
    assert out["two_over_one_by_round"] == [1.1, 1.3]
    assert out["two_over_one"] == 1.2 and out["goal_met"] is False
    assert out["ceiling_two_over_one_bots_here_by_round"] == [1.1, 1.13]
    assert out["ceiling_two_over_one_bots_elsewhere"] == 1.62
    # 2 cores / (1.6 x 1500 moves/s) = 833 us per move for server and bots; the server took 750 and 760.
    assert out["bots_budget_us_for_goal"] == 78


def test_a_ratio_won_from_other_work_is_no_verdict_on_the_goal() -> None:
    # Other work took 0.9 cores from the one-shard run: two shards won more of the machine, not more per core.
    rounds = [{"1": _entry(600, 800, 1500, 1600, 0.9), "2": _entry(1300, 800, 1650, 2600, 0.1)}]
    out = compare(rounds)
    assert out["two_over_one"] == 2.17 and out["goal_met"] is None and out["others_cores_max"] == 0.9
    assert "not shown: other work took up to 0.9 cores" in render({**out, "rounds": [], "sizes": {
        "load": {"load_seconds": 10.0}}, "machine": {"cpu_count": 2, "python": "3", "grpcio": "1", "load_average": []}})


def test_a_python_thread_counts_apart_from_the_main_thread_even_once_it_has_ended() -> None:
    done = threading.Event()

    def spin() -> None:  # until this thread alone has used 0.15 s of CPU, however loaded the machine
        while time.thread_time() < 0.15:
            pass
        done.wait()

    before = shard_bench.thread_cpu(os.getpid())
    spinner = threading.Thread(target=spin)
    spinner.start()
    # Waits for 0.12 s to assert 0.1: the process's total and its main thread are read one after the other
    # (/proc, in ticks of 0.01 s), so the main thread's own tick between the two reads can lower the rest by one.
    while spinner.is_alive() and shard_bench.thread_cpu(os.getpid())[PYTHON] - before[PYTHON] < 0.12:
        time.sleep(0.01)
    running = shard_bench.thread_cpu(os.getpid())
    done.set()
    spinner.join()
    ended = shard_bench.thread_cpu(os.getpid())
    assert running[PYTHON] - before[PYTHON] >= 0.1
    assert ended[PYTHON] >= running[PYTHON]  # its time stays in the process's account
    assert running[LOOP] - before[LOOP] < 0.1  # the main thread only slept


@pytest.mark.timeout(300)
def test_one_and_two_shards_are_measured_in_one_run_with_play_and_play_many_bots_spread_over_both_shards(
        tmp_path: Path) -> None:
    out = tmp_path / "shards.json"
    report = run(replace(QUICK_SHARDS, load=replace(QUICK_SHARDS.load, load_seconds=1.0)), out)
    assert out.exists()
    (only,) = report["rounds"]
    assert list(only) == ["1", "2", "1:many", "2:many"]
    for transport, ratios in (("", report), (":many", report["many"])):
        one, two = only["1" + transport], only["2" + transport]
        for entry in (one, two):
            assert entry["moves_in_window"] > 0 and entry["errors"] == 0 and entry["rejections"] == 0
            assert recorded(entry["cores"]["server"]) and recorded(entry["cores"]["bots"])
        assert set(one["moves_by_shard"]) == {"0"}  # one shard is the plain server: its tables are shard 0's
        assert set(two["moves_by_shard"]) == {"0", "1"} and len(two["server_cores_by_shard"]) == 2
        assert ratios["two_over_one_by_round"] == [round(two["moves_per_second"] / one["moves_per_second"], 2)]
    assert only["2:many"]["transport"] == "many" and only["2"]["transport"] == "play"
    assert "bots on PlayMany: 2 shards / 1, measured" in render(report)
