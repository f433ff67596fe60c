"""A webhook bot (an HTTP service on 127.0.0.1) plays through the real server, and survives every bad service.

The service is a standard-library HTTP server in a thread of the test, misbehaving as each test names:
the table always finishes, every faulty decision is played with the server's default action and
counted by kind.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.bots.external_support import play_against_heuristic, server
from tests.conformance.helpers import run_check, verdict_lines
from tests.docs.test_stdio_starters import NOT_STARTER_FEATURES, SKIPPED
from tricktable.bots.external.webhook_bot import WebhookBot
from tricktable.server.app import GameServer
from tricktable.server.conformance import situations

__all__ = ["server"]  # the fixture, used by name
pytestmark = pytest.mark.timeout(300)


class Service:
    """What the service got (every message, in order) and how it answers decisions."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour, _, count = behaviour.partition(":")
        self.limit = int(count or 0)
        self.received: list[dict[str, Any]] = []
        self.sessions: set[str] = set()
        self.decisions = 0

    def answer(self, message: dict[str, Any]) -> tuple[int, bytes]:
        """The HTTP status and body for ``message``."""
        self.received.append(message)
        if message["type"] != "decision":
            return 200, b"{}"
        self.decisions += 1
        ids = [a["id"] for a in message["legal"]]
        answer: dict[str, Any] = {"action": ids[0]}
        if self.behaviour == "garbage":
            return 200, b"<html>not JSON</html>"
        if self.behaviour == "http_error":
            return 500, b"{}"
        if self.behaviour == "illegal":
            answer["action"] = next(f"play-{r}{s}" for r in "23456789TJQKA" for s in "CDHS"
                                    if f"play-{r}{s}" not in ids)
        elif self.behaviour == "unknown":
            answer["action"] = "fly-away"
        elif self.behaviour == "late" and self.decisions <= self.limit:
            time.sleep(3.0)
        return 200, json.dumps(answer).encode()


@contextmanager
def service(behaviour: str) -> Iterator[tuple[Service, ThreadingHTTPServer]]:
    """The service listening on 127.0.0.1 (a free port) until the block ends."""
    state = Service(behaviour)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the adapter uses it
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.sessions.add(self.headers["X-Tricktable-Session"])
            status, reply = state.answer(json.loads(body))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


def _url(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/bot"


async def _play(server: GameServer, behaviour: str) -> tuple[WebhookBot, Service]:
    with service(behaviour) as (state, httpd):
        bot = WebhookBot(_url(httpd))
        played = await play_against_heuristic(server, bot)
    assert played.status == "finished", played.record["result"]
    return bot, state


async def test_a_service_that_answers_well_plays_a_whole_game_and_hears_hello_decisions_and_end(
        server: GameServer) -> None:
    bot, state = await _play(server, "good")
    assert not bot.faults and bot.decisions > 0
    kinds = [m["type"] for m in state.received]
    assert kinds[0] == "hello" and kinds[-1] == "end" and kinds.count("decision") == bot.decisions
    assert all(isinstance(m["time_ms"], int) for m in state.received if m["type"] == "decision"), "the budget travels"
    assert state.sessions == {bot.session}, "every request of the game names it"


async def test_a_service_that_answers_garbage_gets_the_default_action(server: GameServer) -> None:
    bot, _ = await _play(server, "garbage")
    assert bot.faults == {"garbage": bot.decisions} and bot.decisions > 0


async def test_a_service_that_answers_an_illegal_id_gets_the_default_action(server: GameServer) -> None:
    bot, state = await _play(server, "illegal")
    assert bot.faults == {"illegal_action": bot.decisions} and bot.decisions > 0
    errors = [m for m in state.received if m["type"] == "error"]
    assert errors and errors[0]["error"] == "illegal_action" and errors[0]["played"], "the service is told"


async def test_a_service_that_answers_an_unknown_id_gets_the_default_action(server: GameServer) -> None:
    bot, _ = await _play(server, "unknown")
    assert bot.faults == {"unknown_action": bot.decisions} and bot.decisions > 0


async def test_a_service_that_answers_late_loses_those_decisions_only(server: GameServer) -> None:
    bot, _ = await _play(server, "late:2")
    assert bot.faults == {"late": 2} and bot.decisions > 2


async def test_a_service_that_answers_with_an_http_error_gets_the_default_action(server: GameServer) -> None:
    bot, _ = await _play(server, "http_error")
    assert bot.faults == {"http_error": bot.decisions} and bot.decisions > 0


async def test_a_service_that_is_gone_does_not_stall_the_table(server: GameServer) -> None:
    with service("good") as (_, httpd):
        url = _url(httpd)  # a port nobody listens on once the block has ended
    bot = WebhookBot(url)
    played = await play_against_heuristic(server, bot)
    assert played.status == "finished"
    assert bot.faults == {"unreachable": bot.decisions} and bot.decisions > 0


def test_a_webhook_bot_passes_the_conformance_check() -> None:
    with service("good") as (_, httpd):
        done = run_check([], "--bot", f"webhook:{_url(httpd)}", "--game", "cinq_cents", *NOT_STARTER_FEATURES)
    lines = verdict_lines(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(lines) == len(situations()), done.stdout
    assert all(line.startswith("SKIP" if name in SKIPPED else "PASS") for name, line in lines.items()), done.stdout
