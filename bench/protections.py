"""What a flood of unary calls and the viewer's on-demand analyses cost the tables: a commit and this tree, one run.

Two measurements, each of every tree of ``--refs`` (exported with ``git archive``)
and of this working tree, in alternating rounds, a fresh ``tricktable serve`` of
that tree each round (the clients are this tree's, the same for every tree):

1. **flood**: one table after another played at full speed by two first-legal
   bots over Play (a client process), and a second client process flooding
   ``SubmitAction`` with one seat token and a stale decision, ``--flood-calls``
   in flight at once on one connection, as fast as the server answers. Over a
   window without the flood and one with it: the server's CPU (user + system,
   in cores), the other table's moves a second, the flood's calls a second
   answered and refused.
2. **analysis**: the same table client, and the server's viewer
   (``--http-port``) asked for three analyses at ``sims=400`` (seats 0, 1, 2 of
   a three-player All Fives game it played first), after one small analysis
   that starts the analysis worker (its start, once a server's life, is not
   what is measured). Over a window without and one while the three are
   running: the other table's moves a second and the server's CPU.

Results go to ``bench/results/protections.json`` and a table on stdout. Run
``python -m bench.protections --refs main`` (``--quick`` for a smoke-sized run).
The machine is shared: only the ratios inside one run mean anything.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from bench.server_bench import _cpu_seconds, _env, _first_line
from bench.server_clients import play_seat
from bench.trees import ROOT, commit_titles, refs_of, save_report, trees
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc

RESULTS = ROOT / "bench" / "results" / "protections.json"
#: The table whose pace is measured: All Fives to 31 for two first-legal bots, a new one as soon as one ends.
GAME = "all_fives"
#: The analysed game: three players, so three analyses of one record (one a seat) at the most worlds.
ANALYSED_OPTIONS = {"players": 3}
SIMS = 400


@dataclass(slots=True)
class Served:
    """A ``tricktable serve`` process of one tree: its gRPC address and its viewer's URL ("" without one)."""

    process: subprocess.Popen[str]
    address: str
    url: str

    def cpu(self) -> float:
        return _cpu_seconds(self.process.pid)


@contextmanager
def served(root: Path, data_dir: Path, *, http: bool) -> Iterator[Served]:
    """``tricktable serve`` of the tree at ``root`` on free ports (a viewer with ``http``), killed at the end.

    Killed, not stopped: a server of the tree before still runs its analyses in a thread of its own process,
    and would wait for them to finish.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    args = [sys.executable, "-m", "tricktable.cli.main", "serve", "--port", "0", "--data-dir", str(data_dir),
            "--log-level", "WARNING", "--json-logs", "--no-journal",
            *(["--http-port", "0"] if http else ["--no-http"])]
    with (data_dir / "server.log").open("w") as log:
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, text=True, cwd=root, env=_env(root))
        try:
            address = _first_line(process, "listening on ").removeprefix("listening on ")
            url = _first_line(process, "web viewer on ").removeprefix("web viewer on ") if http else ""
            yield Served(process, address, url)
        finally:
            process.kill()
            process.wait()


def _client(role: str, *args: str) -> subprocess.Popen[str]:
    """A client process of this tree (``role``: table or flood), which prints one JSON line when done."""
    return subprocess.Popen([sys.executable, "-m", "bench.protections", role, *args], stdout=subprocess.PIPE,
                            text=True, cwd=ROOT, env=_env(ROOT))


def _result(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate(timeout=600)
    if not out.strip():
        raise RuntimeError(f"the client {process.args!r} printed nothing (exit {process.returncode})")
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


# --- clients (run as their own processes) ------------------------------------------------------


async def _table_client(address: str, seconds: float, options: dict[str, Any]) -> dict[str, Any]:
    """Play tables of :data:`GAME` one after another for ``seconds``; the time of every move answered."""
    records: list[Any] = []
    errors = 0
    until = time.monotonic() + seconds
    tables: list[str] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)

        async def tables_in_turn() -> None:
            nonlocal errors
            while True:
                try:
                    created = await stub.CreateTable(pb.CreateTableRequest(
                        game=convert.game_to_proto(GAME), options=convert.options_to_proto(GAME, options)))
                    await asyncio.gather(*(play_seat(stub, t.token, created.table_id, records)
                                           for t in created.seat_tokens))
                    tables.append(created.table_id)  # played to its end
                except grpc.aio.AioRpcError:
                    errors += 1

        playing = asyncio.ensure_future(tables_in_turn())
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        moves = len(records)
    return {"moves": moves, "seconds": seconds, "tables": tables, "errors": errors}


async def _flood_client(address: str, seconds: float, in_flight: int) -> dict[str, Any]:
    """SubmitAction with one seat's token and a stale decision, ``in_flight`` at once, for ``seconds``."""
    counts = {"answered": 0, "refused": 0, "other": 0}
    async with grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(pb.CreateTableRequest(game=convert.game_to_proto(GAME)))
        request = pb.SubmitActionRequest(token=created.seat_tokens[0].token,
                                         decide=pb.Decide(decision_id="999999", action_id="x"))
        until = time.monotonic() + seconds

        async def flood() -> None:
            while time.monotonic() < until:
                try:
                    await stub.SubmitAction(request)
                    counts["answered"] += 1
                except grpc.aio.AioRpcError as error:
                    counts["refused" if error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED else "other"] += 1

        await asyncio.gather(*(flood() for _ in range(in_flight)))
    return {**counts, "seconds": seconds}


# --- the measurements -------------------------------------------------------------------------


def _window(server: Served, seconds: float, *, flood: int = 0) -> dict[str, Any]:
    """One window: the table client (and a flood of ``flood`` calls in flight), the server's CPU over it."""
    table = _client("table", server.address, str(seconds))
    flooder = _client("flood", server.address, str(seconds), str(flood)) if flood else None
    started, cpu = time.monotonic(), server.cpu()
    played = _result(table)
    flooded = _result(flooder) if flooder is not None else None
    wall = time.monotonic() - started
    out: dict[str, Any] = {"server_cores": round((server.cpu() - cpu) / wall, 3),
                           "moves_per_second": round(played["moves"] / played["seconds"], 1)}
    if flooded is not None:
        out["flood_answered_per_second"] = round(flooded["answered"] / flooded["seconds"], 1)
        out["flood_refused_per_second"] = round(flooded["refused"] / flooded["seconds"], 1)
    return out


def measure_flood(root: Path, folder: Path, seconds: float, in_flight: int) -> dict[str, Any]:
    with served(root, folder, http=False) as server:
        quiet = _window(server, seconds)
        flooded = _window(server, seconds, flood=in_flight)
    return {"quiet": quiet, "flood": flooded,
            "extra_server_cores": round(flooded["server_cores"] - quiet["server_cores"], 3),
            "moves_ratio": round(flooded["moves_per_second"] / quiet["moves_per_second"], 3)}


def _ask(url: str) -> None:
    """One analysis over HTTP, to its answer (or the end of the window: the request is then dropped)."""
    with contextlib.suppress(OSError):
        urllib.request.urlopen(url, timeout=3600).read()


def measure_analysis(root: Path, folder: Path, seconds: float) -> dict[str, Any]:
    with served(root, folder, http=True) as server:
        first = _result(_client("table", server.address, "3", json.dumps(ANALYSED_OPTIONS)))
        base = f"{server.url.rstrip('/')}/api/analysis/{first['tables'][0]}"  # a game played to its end
        _ask(f"{base}?seat=0&sims=1")  # warm: the analysis worker (after the change) started and imported
        quiet = _window(server, seconds)
        asked = [threading.Thread(target=_ask, args=(f"{base}?seat={seat}&sims={SIMS}",), daemon=True)
                 for seat in range(3)]
        for thread in asked:
            thread.start()
        time.sleep(1.0)  # the three requests are in
        busy = _window(server, seconds)
        still_running = sum(thread.is_alive() for thread in asked)
    return {"quiet": quiet, "analysing": busy, "analyses_still_running_at_the_end": still_running,
            "moves_ratio": round(busy["moves_per_second"] / quiet["moves_per_second"], 3)}


def run(refs: list[str], *, rounds: int, seconds: float, in_flight: int, folder: Path) -> dict[str, Any]:
    measured = trees(refs, folder / "trees")
    report: dict[str, Any] = {"commits": commit_titles(refs), "rounds": rounds, "window_seconds": seconds,
                              "flood_in_flight": in_flight, "load_average_start": list(os.getloadavg()),
                              "cpus": os.cpu_count(), "flood": {}, "analysis": {}}
    for r in range(rounds):
        for name, root in measured.items():
            tag = name.replace("/", "_")
            report["flood"].setdefault(name, []).append(
                measure_flood(root, folder / f"flood-{tag}-{r}", seconds, in_flight))
            report["analysis"].setdefault(name, []).append(
                measure_analysis(root, folder / f"analysis-{tag}-{r}", seconds))
    report["load_average_end"] = list(os.getloadavg())
    return report


def render(report: dict[str, Any]) -> str:
    lines = [f"window {report['window_seconds']} s, {report['rounds']} round(s), load average "
             f"{report['load_average_start'][0]:.2f} -> {report['load_average_end'][0]:.2f}, {report['cpus']} cpus"]
    lines.append("flood of SubmitAction (one token, one connection): server cores quiet -> flooded, "
                 "other table's moves/s quiet -> flooded, flood calls/s answered / refused")
    for name, runs in report["flood"].items():
        for run_ in runs:
            q, f = run_["quiet"], run_["flood"]
            lines.append(f"  {name:12} {q['server_cores']:.2f} -> {f['server_cores']:.2f} cores   "
                         f"{q['moves_per_second']:7.1f} -> {f['moves_per_second']:7.1f} moves/s "
                         f"(x{run_['moves_ratio']})   {f['flood_answered_per_second']:.0f} / "
                         f"{f['flood_refused_per_second']:.0f} calls/s")
    lines.append(f"three analyses at sims={SIMS}: other table's moves/s quiet -> analysing, server cores")
    for name, runs in report["analysis"].items():
        for run_ in runs:
            q, a = run_["quiet"], run_["analysing"]
            lines.append(f"  {name:12} {q['moves_per_second']:7.1f} -> {a['moves_per_second']:7.1f} moves/s "
                         f"(x{run_['moves_ratio']})   {q['server_cores']:.2f} -> {a['server_cores']:.2f} cores   "
                         f"analyses still running at the window's end: {run_['analyses_still_running_at_the_end']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "table":
        options = json.loads(args[3]) if len(args) > 3 else {}
        print(json.dumps(asyncio.run(_table_client(args[1], float(args[2]), options))))
        return 0
    if args and args[0] == "flood":
        print(json.dumps(asyncio.run(_flood_client(args[1], float(args[2]), int(args[3])))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refs", default="main", help="commits measured before this tree (comma separated)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each window")
    parser.add_argument("--flood-calls", type=int, default=8, help="SubmitAction calls the flood keeps in flight")
    parser.add_argument("--quick", action="store_true", help="a smoke-sized run (1 round of 2 s windows)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    options = parser.parse_args(args)
    rounds, seconds = (1, 2.0) if options.quick else (options.rounds, options.seconds)
    with tempfile.TemporaryDirectory(prefix="protections-") as folder:
        report = run(refs_of(options.refs), rounds=rounds, seconds=seconds, in_flight=options.flood_calls,
                     folder=Path(folder))
    return save_report(report, options.out, render(report))


if __name__ == "__main__":
    raise SystemExit(main())
