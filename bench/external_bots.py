"""What a bot in another language pays per decision: the exec and webhook adapters against an SDK bot, one run.

Three seats of the same kind of bot, answering the same way (the first legal
action), play whole games at a real server on 127.0.0.1 in this process, each
against an SDK bot that answers the first legal action too:

- ``sdk``: :class:`tricktable.bots.first_legal.FirstLegalBot` over gRPC, the baseline;
- ``exec``: a Python program on stdin/stdout (standard library only), played by
  :class:`tricktable.bots.external.exec_bot.ExecBot` as ``tricktable bot --exec`` plays it;
- ``webhook``: a standard-library HTTP service in a process of its own, played by
  :class:`tricktable.bots.external.webhook_bot.WebhookBot`.

A decision's time is what the SDK runner waits for the bot's answer
(``choose_action``, through the adapter's worker thread as ``tricktable bot``
runs it): writing the view as JSON, the pipe or the HTTP request, the
program's reading and answering, reading the answer back. The gRPC part of a
decision is the same for all three and is not in the figure. The kinds
alternate game by game, so that the machine's load falls on all three alike;
the overhead is each adapter's median (and 90th percentile) less the SDK
bot's, in the same run.

Run ``python -m bench.external_bots`` (JSON to ``bench/results/external_bots.json``
and a table on stdout).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import cli

RESULTS = Path(__file__).resolve().parent / "results" / "external_bots.json"
KINDS = ("sdk", "exec", "webhook")

#: The exec bot: answers the first legal action, as the SDK bot does.
PROGRAM = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "decision":
        print(json.dumps({"decision": message["decision"], "action": message["legal"][0]["id"]}), flush=True)
    elif message["type"] == "end":
        break
"""

#: The webhook bot: the same answers over HTTP; prints its port, then serves until stdin closes.
SERVICE = """\
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Bot(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = {}
        if message["type"] == "decision":
            answer = {"decision": message["decision"], "action": message["legal"][0]["id"]}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Bot)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
"""


class Timed:
    """An SDK bot whose every answer is timed (the wait the runner sees)."""

    def __init__(self, bot: Any, times: list[float]) -> None:
        self.bot = bot
        self.times = times

    async def choose_action(self, view: Any) -> Any:
        from tricktable.client_sdk.bot import ask, current_decision

        started = time.perf_counter()
        try:
            return await ask(self.bot, view, current_decision())
        finally:
            self.times.append(time.perf_counter() - started)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(game: str, games: int, seed: str) -> dict[str, Any]:
    """Play ``games`` games per kind, alternating kinds; every decision's time per kind, in microseconds."""
    import structlog

    from tricktable.bots.external.adapter import ThreadedBot
    from tricktable.bots.external.exec_bot import ExecBot
    from tricktable.bots.external.webhook_bot import WebhookBot
    from tricktable.bots.first_legal import FirstLegalBot
    from tricktable.client_sdk.runner import create_table, run_bot_async
    from tricktable.server.app import GameServer, ServerConfig
    from tricktable.server.clocks import TimeControl

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # the server's logs: errors only
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    with tempfile.TemporaryDirectory(prefix="tricktable-external-bots-") as tmp:
        program = Path(tmp) / "bot.py"
        program.write_text(PROGRAM)
        service = subprocess.Popen([sys.executable, "-c", SERVICE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   text=True)
        assert service.stdout is not None
        url = f"http://127.0.0.1:{int(service.stdout.readline())}/"
        clocks = TimeControl(decision_seconds=60.0, bank_seconds=60.0, join_seconds=60.0)
        server = GameServer(ServerConfig(host="127.0.0.1", port=0, data_dir=Path(tmp) / "data", journal=False,
                                         time_control=clocks))
        await server.start()
        try:
            for number in range(games):
                for kind in KINDS:
                    bot: Any = FirstLegalBot()
                    if kind == "exec":
                        bot = ThreadedBot(ExecBot([sys.executable, str(program)]))
                    elif kind == "webhook":
                        bot = ThreadedBot(WebhookBot(url))
                    table = await create_table(server.address, game=game, seed=f"{seed}/{number}",
                                               seat_names=[kind, "sdk"])
                    await asyncio.gather(
                        run_bot_async(Timed(bot, times[kind]), server.address, token=table.tokens[0]),
                        run_bot_async(FirstLegalBot(), server.address, token=table.tokens[1]))
        finally:
            await server.stop()
            if service.stdin is not None:
                service.stdin.close()
            service.wait(timeout=10)
    return {kind: [t * 1e6 for t in values] for kind, values in times.items()}


def run(games: int = 20, game: str = "all_fives", seed: str = "external-bots") -> dict[str, Any]:
    """Measure, and the report: per kind its decisions, median and p90 in microseconds, and its overhead."""
    measured = asyncio.run(measure(game, games, seed))
    rows: dict[str, dict[str, Any]] = {}
    for kind, values in measured.items():
        rows[kind] = {"decisions": len(values), "us_per_decision_median": statistics.median(values),
                      "us_per_decision_p90": _percentile(values, 0.9)}
    base = rows["sdk"]
    for kind in ("exec", "webhook"):
        rows[kind]["overhead_us_median"] = rows[kind]["us_per_decision_median"] - base["us_per_decision_median"]
        rows[kind]["overhead_us_p90"] = rows[kind]["us_per_decision_p90"] - base["us_per_decision_p90"]
    return {"benchmark": "external_bots", "game": game, "games_per_kind": games, "rows": rows,
            "machine": cli.machine()}


def render(report: dict[str, Any]) -> str:
    """The report as a table."""
    lines = [f"{report['game']}, {report['games_per_kind']} games per kind (microseconds per decision)",
             f"{'bot':<8} {'decisions':>9} {'median':>9} {'p90':>9} {'+median':>9} {'+p90':>9}"]
    for kind, row in report["rows"].items():
        extra = "" if kind == "sdk" else f" {row['overhead_us_median']:>9.0f} {row['overhead_us_p90']:>9.0f}"
        lines.append(f"{kind:<8} {row['decisions']:>9} {row['us_per_decision_median']:>9.0f} "
                     f"{row['us_per_decision_p90']:>9.0f}{extra}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=20, help="games per kind of bot")
    parser.add_argument("--game", default="all_fives")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    report = run(args.games, args.game)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
