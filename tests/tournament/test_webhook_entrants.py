"""Webhook entrants in sandboxed tournaments: the seat, without network, reaches its entrant's URL through a relay.

The service is an HTTP server in this test process on 127.0.0.1 (a free port) that answers every decision with
its first legal action; the tournament is one deck set of All Fives to 11 played twice against the heuristic,
each seat sandboxed, with a clock of 20 s a decision (a bound against a hang, never reached by an answer). A
URL where nothing listens is the entrant's fault (``unreachable``), not a stalled table.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from tests.tournament.helpers import config
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import TournamentStore

pytestmark = [pytest.mark.timeout(600),
              pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (`make test` installs it)")]


class _FirstLegal(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    decisions: ClassVar[int] = 0
    hosts: ClassVar[set[str]] = set()

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).hosts.add(self.headers.get("Host", ""))
        answer = {}
        if message["type"] == "decision":
            type(self).decisions += 1
            answer = {"decision": message["decision"], "action": message["legal"][0]["id"]}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def service() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FirstLegal)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _play(tmp_path: Path, url: str) -> list[MatchOutcome]:
    cfg = config(entrants=[{"name": "hook", "bot": f"webhook:{url}"}, "heuristic"], games=2,
                 options={"target": 11}, forfeit_after=3, decision_ms=20_000, bank_ms=0)

    async def go() -> list[MatchOutcome]:
        store = TournamentStore(tmp_path / "tricktable.sqlite3")
        try:
            dispatcher = await ServerDispatcher.open(cfg, address=None, data_dir=tmp_path / "data",
                                                     isolation="sandbox")
            await Tournament(cfg, store, dispatcher, concurrency=2).run()
            return [outcome for _, outcome in stored_games(store, cfg.name)]
        finally:
            store.close()

    return asyncio.run(go())


def test_a_webhook_entrant_plays_a_sandboxed_tournament_through_the_relay_to_its_url(
        tmp_path: Path, service: ThreadingHTTPServer) -> None:
    port = service.server_address[1]
    outcomes = _play(tmp_path, f"http://127.0.0.1:{port}/")
    assert len(outcomes) == 2
    assert all(o.status == "finished" and o.faults == {"hook": 0, "heuristic": 0} for o in outcomes), outcomes
    assert _FirstLegal.decisions > 0 and _FirstLegal.hosts == {f"127.0.0.1:{port}"}


def test_a_webhook_entrant_whose_url_does_not_answer_forfeits_as_unreachable(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcomes = _play(tmp_path, f"http://127.0.0.1:{port}/")
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert outcome.status == "forfeit" and outcome.forfeit_by == "hook", outcome.reason
        assert outcome.fault_kinds["hook"] == {"unreachable": 3}
