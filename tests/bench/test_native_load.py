"""The native load client (bench/native_load) plays as the Python PlayMany bots do, and a machine that can not
build it skips its runs with the reason (no speed is asserted)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bench import native_load, shard_bench
from bench.server_bench import (
    NATIVE,
    PLAY_MANY,
    QUICK,
    ROOT,
    _first_line,
    _load_client,
    _reaped,
    _result_of,
    game_server,
    load_game,
    measure_load,
    runnable_load_games,
)

MISSING = native_load.missing_toolchain()
needs_toolchain = pytest.mark.skipif(MISSING is not None, reason=f"no C++ toolchain with grpc++ here: {MISSING}")


def _play(address: str, game: str, tables: int, seconds: float) -> dict[str, Any]:
    """One throughput client of ``game`` (a name with its suffixes) through the handshake: its JSON result."""
    name, flags = load_game(game)
    client = _load_client(ROOT, address, "--game", name, "--tables", str(tables), *flags)
    with _reaped([client]):
        _first_line(client, "ready")
        start = time.monotonic_ns() + int(0.3e9)
        end = start + int(seconds * 1e9)
        assert client.stdin is not None
        client.stdin.write(f"go {end} {start} {end}\n")
        client.stdin.flush()
        result = _result_of(client, timeout=120)
    result["window"] = (start, end)
    return result


@needs_toolchain
@pytest.mark.timeout(900)  # the first build compiles the generated code: about a minute on two busy cores
def test_the_native_bots_report_what_the_python_play_many_bots_report(tmp_path: Path) -> None:
    native_load.build()
    with game_server(tmp_path / "server", "--join-ms", "600000") as server:
        native = _play(server.address, "twenty_five" + NATIVE, 2, 1.5)
        python = _play(server.address, "twenty_five" + PLAY_MANY, 2, 1.5)
    assert set(native) == set(python)
    assert native["errors"] == native["rejections"] == 0
    assert native["tables_finished"] > 0 and native["tables_started"] >= native["tables_finished"]
    assert native["moves_in_window"] == len(native["records"]) > 0 and native["moves_total"] >= len(native["records"])
    start, end = native.pop("window")
    for table_id, decision_id, deal_number, received, sent in native["records"]:
        assert isinstance(table_id, str) and decision_id > 0 and deal_number >= 1
        assert received <= sent and start <= sent < end
    # Counted both ways: a finished table's joins went out in a message, and its closings came in one or more.
    assert native["messages_sent"] >= native["tables_finished"] and native["messages"] >= native["tables_finished"]


@needs_toolchain
@pytest.mark.timeout(900)
def test_the_native_bots_play_a_sharded_servers_tables_at_each_shards_address(tmp_path: Path) -> None:
    native_load.build()
    sizes = replace(QUICK, load_tables=4, load_clients=1, load_warmup=0.5, load_seconds=2.0)
    with game_server(tmp_path / "server", "--shards", "2", "--join-ms", "600000") as server:
        load = measure_load(server, sizes, "twenty_five" + NATIVE)
    assert load["errors"] == load["rejections"] == 0 and load["moves_in_window"] > 0
    assert set(load["moves_by_shard"]) == {"0", "1"}  # placement spread the tables; each shard's moves were answered
    assert load["turnaround_under_load"]["n"] > 0  # each table's decisions came in order, one after another
    assert load["client_cpu_us_per_move"] is not None


def test_a_machine_that_can_not_build_the_native_client_skips_its_runs_with_the_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_load, "missing_toolchain", lambda: "not on PATH: grpc_cpp_plugin")
    runnable, skipped = runnable_load_games(["twenty_five", "twenty_five" + NATIVE, "twenty_five" + PLAY_MANY])
    assert runnable == ("twenty_five", "twenty_five" + PLAY_MANY)
    assert list(skipped) == ["twenty_five" + NATIVE] and "not on PATH: grpc_cpp_plugin" in skipped["twenty_five:native"]
    report = shard_bench.run(replace(shard_bench.QUICK_SHARDS, transports=(NATIVE,)), out=None)
    assert report["bots_skipped"] == {"native": skipped["twenty_five" + NATIVE]} and report["rounds"] == [{}]
    assert ("native bots (C++, PlayMany) not measured: the native load client needs a C++ toolchain with grpc++: "
            "not on PATH: grpc_cpp_plugin") in shard_bench.render(report)


def test_the_shard_bench_refuses_a_bots_kind_it_does_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        shard_bench.main(["--bots", "many,rust"])
    assert "unknown bots' kind rust (known: play, many, native)" in capsys.readouterr().err
