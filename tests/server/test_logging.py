"""Logs: every line about a table carries its table and game ids, and the seat where one is concerned."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys

import structlog
from structlog.testing import capture_logs

from tests.server.test_tables import bot
from tests.server.toy_game import RULES
from tricktable.rules.actions import Play
from tricktable.rules.cards import card
from tricktable.rules.match import Match
from tricktable.rules.shuffle import SeededDecks
from tricktable.server.clocks import TimeControl
from tricktable.server.logging import configure
from tricktable.server.tables import Table


async def test_table_log_lines_are_bound_with_table_game_and_seat() -> None:
    clocks = TimeControl(decision_seconds=5, bank_seconds=5, grace_seconds=5, join_seconds=5)
    configure(json=True, level="INFO")
    with capture_logs() as lines:
        table = Table(table_id="t-logs", match=Match.start(RULES, {}, SeededDecks("l"), seed="l"), seed="l",
                      time_control=clocks)
        await asyncio.wait_for(asyncio.gather(bot(table, 0), bot(table, 1)), 10)
        table.submit(0, 999, Play(card=card("2C")))  # refused: the table is over
    configure(json=True, level="WARNING")
    assert lines
    assert all(line["table"] == "t-logs" and line["game"] == "toy" for line in lines)
    seat_lines = [line for line in lines if line["event"] in ("seat connected", "action rejected")]
    assert seat_lines and all("seat" in line for line in seat_lines)


def test_json_lines_when_not_on_a_terminal() -> None:
    out = io.StringIO()
    configure(json=True, level="INFO")
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=out))
    try:
        structlog.get_logger("x").bind(table="t-1", game="toy").info("hello", seat=2)
    finally:
        configure(json=True, level="WARNING")
    line = json.loads(out.getvalue().strip())
    assert line["event"] == "hello" and line["table"] == "t-1" and line["seat"] == 2 and line["level"] == "info"


def test_a_logger_used_before_a_capture_is_still_captured_in_the_suite() -> None:
    """The suite turns logger caching off (tests/conftest.py): a logger first used under one configuration
    (a command run in-process) still reports to a ``capture_logs`` under the next one."""
    configure(json=True, level="INFO")
    logger = structlog.get_logger("early")
    logger.info("under the first configuration")
    configure(json=True, level="INFO")
    with capture_logs() as lines:
        logger.info("inside the capture")
    configure(json=True, level="WARNING")
    assert [line["event"] for line in lines] == ["inside the capture"]


def test_a_server_process_caches_its_loggers_and_the_switch_turns_it_off() -> None:
    probe = ("import json, structlog\n"
             "from tricktable.server.logging import cache_loggers, configure\n"
             "configure(json=True)\n"
             "cached = structlog.get_config()['cache_logger_on_first_use']\n"
             "cache_loggers(False)\n"
             "configure(json=True)\n"
             "print(json.dumps([cached, structlog.get_config()['cache_logger_on_first_use']]))\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(run.stdout) == [True, False]
