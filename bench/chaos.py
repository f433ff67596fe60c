"""The chaos run: a tournament of bot processes over a ``tricktable serve`` that is killed and restarted under it.

``python -m bench.chaos --signal kill`` (or ``term``) does, in one run:

1. an **undisturbed** tournament: a ``tricktable serve`` process on a fresh
   data directory, and a ``tricktable tournament --server`` process over it
   (entrants sandboxed, the default; a built-in bot, a file bot and a command
   entrant, the command one answering no sooner than ``--pace-ms`` after each
   decision so that matches last long enough to be cut by the signals), with
   a fixed seed and deck key;
2. the **same** tournament (same config, seed and deck key) on another fresh
   data directory, the server signalled (``kill -9`` or SIGTERM) every
   ``--period`` seconds of its uptime and started again on the same port
   ``--down`` seconds after it exited, until the tournament process ends;
3. the checks, each a line of the report and a non-zero exit status when it
   fails: both tournaments exited 0; every match of the disturbed run has the
   undisturbed one's status, winners and scores (and no fault: a bot that
   gave up on an away server is not to blame); no bot process is left behind
   (see :mod:`tricktable.tournament.processes`: while the run goes on, none of
   a stored match may still be running 5 s later, and none of the run's may
   outlive the tournament process); ``tricktable verify`` accepts both export
   folders (every record replayed, every deck set checked against the key).

The report (``bench/results/chaos-<signal>.json`` unless ``--out``) gives the
matches, signals sent, restarts, faults, differences, leftover processes,
records verified, wall times and the load average at start and end: the
machine may be shared, and the figures are only for its conditions. The two
games: ``--game all_fives`` (2 seats, the default) or ``--game twenty_five``
(4 seats in two partnerships).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import signal
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tricktable.tournament.config import config_from_mapping
from tricktable.tournament.processes import BotProcess, bot_processes
from tricktable.tournament.runner import bot_seed
from tricktable.tournament.schedule import fixed_groups, round_matches
from tricktable.tournament.store import DECK_KEY_ENV, TournamentStore

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CLI = [sys.executable, "-m", "tricktable.cli.main"]
NAME = "chaos"
DECK_KEY = "chaos-deck-key"
#: Clocks no loaded machine runs out of: a timeout played by the server's clock would change a result.
DECISION_MS = 120_000
SERVE_FLAGS = ("--grace-ms", "120000", "--join-ms", "120000", "--log-level", "WARNING", "--no-http")
#: Seconds a process of a stored match may take to be gone before it counts as left behind.
LEFTOVER_GRACE_S = 5.0
#: Seconds the run's processes get to end after the tournament process has exited.
EXIT_GRACE_S = 30.0

#: The entrants: a built-in bot, a file bot and a command (``tricktable bot``) that answers no sooner than PACE ms.
#: The command waits for its server on its first connection as the built-in bots do: started as the server
#: restarts, or slowly on a loaded machine, it would otherwise give up at once.
ENTRANTS: list[dict[str, str]] = [
    {"name": "heuristic", "bot": "heuristic"},
    {"name": "high-card", "bot": "examples/python/high_card.py:HighCard"},
    {"name": "random-cmd", "command": "{python} -m tricktable.cli.main bot random --server {address} "
     "--token-file {token_file} --seed {seed} --delay-ms PACE --wait-for-server 60"},
]
#: Per game: its options and the default pace (a Twenty-Five match has far fewer decisions than an All Fives one).
GAMES: dict[str, dict[str, Any]] = {
    "all_fives": {"options": {"players": 2, "target": 61}, "pace_ms": 250},
    "twenty_five": {"options": {"players": 4}, "pace_ms": 1500},
}


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)  # strings and numbers: JSON's forms are TOML's


def config_text(game: str, matches: int, pace_ms: int, seed: str) -> tuple[str, int]:
    """The tournament's TOML and the number of matches it schedules (``matches`` rounded up to whole deck sets)."""
    spec = GAMES[game]
    pairs = math.comb(len(ENTRANTS), 2)  # both games are played by two sides (Twenty-Five's four seats: two pairs)
    games = max(1, math.ceil(matches / pairs))
    lines = [f"name = {json.dumps(NAME)}", f"game = {json.dumps(game)}", f"options = {_toml_value(spec['options'])}",
             'format = "round_robin"', f"games = {games}", f"seed = {json.dumps(seed)}", "concurrency = 2",
             f"decision_ms = {DECISION_MS}", f"bank_ms = {DECISION_MS}"]
    for entrant in ENTRANTS:
        lines.append("\n[[entrants]]")
        for key, value in entrant.items():
            lines.append(f"{key} = {_toml_value(value.replace('PACE', str(pace_ms)))}")
    text = "\n".join(lines) + "\n"
    config = config_from_mapping(tomllib.loads(text))
    return text, len(round_matches(config, 0, fixed_groups(config), DECK_KEY))


@dataclass(slots=True)
class Server:
    """A ``tricktable serve`` process, restarted on the same port."""

    data_dir: Path
    log: Path
    port: int = 0
    process: asyncio.subprocess.Process | None = None
    starts: int = 0

    async def start(self) -> None:
        """Start it (on a free port the first time, then on the same one) and wait until it listens."""
        for attempt in range(30):  # the port may be held a moment by the process just killed
            with self.log.open("ab") as log:
                process = await asyncio.create_subprocess_exec(
                    *CLI, "serve", "--port", str(self.port), "--data-dir", str(self.data_dir), *SERVE_FLAGS,
                    cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log, start_new_session=True)
            assert process.stdout is not None
            try:
                line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode().strip()
            except TimeoutError:
                line = ""
            if line.startswith("listening on "):
                self.port = int(line.rpartition(":")[2])
                self.process = process
                self.starts += 1
                return
            if process.returncode is None:
                process.kill()
            await process.wait()
            await asyncio.sleep(min(2.0, 0.1 * (attempt + 1)))
        raise RuntimeError(f"tricktable serve did not start on port {self.port}: see {self.log}")

    async def signal(self, sig: signal.Signals) -> float:
        """Send ``sig`` and wait for the process to exit; returns the seconds it took (a SIGTERM drains)."""
        assert self.process is not None
        sent = time.monotonic()
        self.process.send_signal(sig)
        await self.process.wait()
        return time.monotonic() - sent

    async def stop(self) -> None:
        """Kill it if it runs."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    @property
    def address(self) -> str:
        """Where the tournament finds it."""
        return f"127.0.0.1:{self.port}"


@dataclass(slots=True)
class Watch:
    """The run's bot processes seen while it goes on, and those still running after their match was stored."""

    suspects: dict[int, tuple[float, BotProcess]] = field(default_factory=dict)
    left_behind: dict[int, str] = field(default_factory=dict)
    most_at_once: int = 0

    def look(self, tournament_pid: int, stored_seeds: set[str]) -> None:
        """One look at the processes: a process of a stored match seen twice :data:`LEFTOVER_GRACE_S` apart is left."""
        now = time.monotonic()
        alive = bot_processes(tournament_pid)
        self.most_at_once = max(self.most_at_once, len(alive))
        seen = set()
        for proc in alive:
            if not any(seed in proc.command for seed in stored_seeds):
                continue
            seen.add(proc.pid)
            first, _ = self.suspects.setdefault(proc.pid, (now, proc))
            if now - first >= LEFTOVER_GRACE_S:
                self.left_behind[proc.pid] = proc.command
        for pid in set(self.suspects) - seen:
            del self.suspects[pid]


def stored_results(db: Path) -> tuple[dict[str, list[Any]], dict[str, int], set[str]]:
    """Per match: [status, winners, scores]; the faults per entrant; the bot seeds of the stored matches."""
    store = TournamentStore(db, read_only=True)
    try:
        results: dict[str, list[Any]] = {}
        faults: dict[str, int] = {}
        seeds: set[str] = set()
        for match in store.iter_matches(NAME):
            spec, outcome = match.spec, match.outcome
            results[spec.match_id] = [outcome.status, list(outcome.winners), list(outcome.scores)]
            for name, count in outcome.faults.items():
                faults[name] = faults.get(name, 0) + count
            seeds.update(bot_seed(spec, seat) for seat in range(len(spec.seats)))
        return results, faults, seeds
    finally:
        store.close()


async def _verify(folder: Path) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(*CLI, "verify", str(folder), cwd=ROOT,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await process.communicate()
    lines = out.decode(errors="replace").strip().splitlines()
    return {"exit_status": process.returncode, "summary": lines[-1] if lines else ""}


async def run_tournament(work: Path, config: Path, *, sig: signal.Signals | None, period_s: float, down_s: float,
                         timeout_s: float) -> dict[str, Any]:
    """One tournament over one served data directory, the server signalled every ``period_s`` if ``sig``."""
    work.mkdir(parents=True)
    server = Server(work / "server", work / "serve.log")
    db, exports = work / "tournament" / "tournament.sqlite3", work / "tournament" / "export"
    db.parent.mkdir()
    await server.start()
    env = {**os.environ, DECK_KEY_ENV: DECK_KEY, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    with (work / "tournament.log").open("wb") as log:
        tournament = await asyncio.create_subprocess_exec(
            *CLI, "tournament", str(config), "--server", server.address, "--db", str(db), "--out", str(exports),
            "--no-progress", cwd=ROOT, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
            start_new_session=True)
    watch = Watch()
    signals: list[dict[str, float]] = []
    timed_out = False
    done = asyncio.ensure_future(tournament.wait())
    try:
        next_signal = time.monotonic() + period_s
        stored: set[str] = set()
        while not done.done():
            await asyncio.wait([done], timeout=0.5)
            if db.exists():
                with contextlib.suppress(Exception):  # the database is being created: look again next time
                    stored = stored_results(db)[2]
            watch.look(tournament.pid, stored)
            if time.monotonic() - started > timeout_s:
                timed_out = True
                break
            if sig is not None and not done.done() and time.monotonic() >= next_signal:
                at = time.monotonic() - started
                took = await server.signal(sig)
                await asyncio.sleep(down_s)
                await server.start()
                signals.append({"at_s": round(at, 1), "exited_after_s": round(took, 2)})
                next_signal = time.monotonic() + period_s
    finally:
        if not done.done():
            os.killpg(tournament.pid, signal.SIGKILL)
        await done
        wall = time.monotonic() - started
        # The tournament process is gone: whatever it started must end with it.
        deadline = time.monotonic() + EXIT_GRACE_S
        while (after := bot_processes(tournament.pid)) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        for proc in after:  # leave nothing running, whatever the verdict
            os.kill(proc.pid, signal.SIGKILL)
        await server.stop()
    results, faults, _ = stored_results(db)
    verified = await _verify(exports)
    return {"exit_status": tournament.returncode, "timed_out": timed_out, "wall_s": round(wall, 1),
            "matches": len(results), "signals": signals, "server_starts": server.starts,
            "restarts": server.starts - 1, "faults": faults, "verify": verified,
            "bot_processes_at_once_max": watch.most_at_once,
            "left_behind_during_run": sorted(watch.left_behind.values()),
            "left_after_tournament_exit": [p.command for p in after],
            "results": results}


def differences(calm: dict[str, list[Any]], chaos: dict[str, list[Any]]) -> list[str]:
    """Each match whose status, winners or scores differ between the runs (or that one run lacks)."""
    found = []
    for match_id in sorted(set(calm) | set(chaos)):
        if calm.get(match_id) != chaos.get(match_id):
            found.append(f"{match_id}: undisturbed {calm.get(match_id)} / disturbed {chaos.get(match_id)}")
    return found


def problems(calm: dict[str, Any], chaos: dict[str, Any], expected: int) -> list[str]:
    """Everything the checks found wrong (empty: the run passed)."""
    found = []
    for label, run in (("undisturbed", calm), ("disturbed", chaos)):
        if run["exit_status"] != 0 or run["timed_out"]:
            found.append(f"{label}: the tournament exited {run['exit_status']} (timed out: {run['timed_out']})")
        if run["matches"] != expected:
            found.append(f"{label}: {run['matches']} matches stored of {expected}")
        if run["verify"]["exit_status"] != 0:
            found.append(f"{label}: tricktable verify: {run['verify']['summary']}")
        if run["left_behind_during_run"] or run["left_after_tournament_exit"]:
            found.append(f"{label}: bot processes left behind")
        if any(run["faults"].values()):
            found.append(f"{label}: faults {run['faults']}")
    found += differences(calm["results"], chaos["results"])
    return found


async def main_async(args: argparse.Namespace) -> int:
    """Both runs, the checks and the report; returns the exit status."""
    sig = signal.SIGKILL if args.signal == "kill" else signal.SIGTERM
    pace = args.pace_ms if args.pace_ms is not None else GAMES[args.game]["pace_ms"]
    work = Path(tempfile.mkdtemp(prefix="tricktable-chaos-", dir=args.workdir))
    text, expected = config_text(args.game, args.matches, pace, args.seed)
    config = work / "chaos.toml"
    config.write_text(text, encoding="utf-8")
    report: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "load_avg_at_start": [round(x, 2) for x in os.getloadavg()]},
        "game": args.game, "matches_scheduled": expected, "signal": args.signal, "period_s": args.period,
        "down_s": args.down, "pace_ms": pace, "seed": args.seed, "workdir": str(work), "config": text,
    }
    print(f"undisturbed run of {expected} matches ({args.game}) in {work}", flush=True)
    calm = await run_tournament(work / "undisturbed", config, sig=None, period_s=args.period, down_s=args.down,
                                timeout_s=args.timeout)
    print(f"  {calm['matches']} matches in {calm['wall_s']} s; verify: {calm['verify']['summary']}", flush=True)
    print(f"disturbed run: {args.signal} every {args.period:g} s", flush=True)
    chaos = await run_tournament(work / "disturbed", config, sig=sig, period_s=args.period, down_s=args.down,
                                 timeout_s=args.timeout)
    print(f"  {chaos['matches']} matches in {chaos['wall_s']} s, {len(chaos['signals'])} signals, "
          f"{chaos['restarts']} restarts; verify: {chaos['verify']['summary']}", flush=True)
    found = problems(calm, chaos, expected)
    report.update({"undisturbed": calm, "disturbed": chaos, "differences": differences(calm["results"],
                                                                                        chaos["results"]),
                   "problems": found, "passed": not found,
                   "load_avg_at_end": [round(x, 2) for x in os.getloadavg()]})
    out = args.out or RESULTS / f"chaos-{args.signal}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for line in found:
        print(f"FAIL {line}", flush=True)
    print(f"{'passed' if not found else 'FAILED'}; report: {out}", flush=True)
    return 0 if not found else 1


def main() -> None:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signal", choices=("kill", "term"), default="kill", help="kill: kill -9; term: SIGTERM")
    parser.add_argument("--period", type=float, default=30.0, help="seconds of the server's uptime between signals")
    parser.add_argument("--down", type=float, default=1.0, help="seconds between the server's exit and its restart")
    parser.add_argument("--matches", type=int, default=18, help="matches (rounded up to whole pairings)")
    parser.add_argument("--game", choices=sorted(GAMES), default="all_fives")
    parser.add_argument("--pace-ms", type=int, help="the command entrant's least time per decision")
    parser.add_argument("--seed", default="chaos-1")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds a tournament may take at most")
    parser.add_argument("--workdir", type=Path, help="where the runs' folders go (default: the temp directory)")
    parser.add_argument("--out", type=Path, help="the JSON report (default: bench/results/chaos-SIGNAL.json)")
    sys.exit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
