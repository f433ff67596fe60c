"""An exec bot (a program on stdin/stdout) plays through the real server, and survives every bad program.

Each bad behaviour is a test named after it: the table always finishes, every faulty decision is played
with the server's default action and counted by kind, and the program is stopped at the end.
"""

from __future__ import annotations

import gc
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bots.external_support import GAME, OPTIONS, PROGRAM, Played, play_against_heuristic, program, server
from tricktable.bots.ladder import BotSpec, duplicate_pair
from tricktable.bots.stderr import STDERR_TAIL_BYTES as STDERR_KEPT
from tricktable.server.app import GameServer
from tricktable.tournament.arena import play as play_arena

__all__ = ["server"]  # the fixture, used by name
pytestmark = pytest.mark.timeout(300)


def _finished(played: Played) -> None:
    assert played.status == "finished", played.record["result"]
    assert played.record["result"]["status"] == "finished"


async def test_a_well_behaved_program_plays_a_whole_game_without_a_fault(server: GameServer) -> None:
    bot = program("good")
    _finished(await play_against_heuristic(server, bot))
    assert bot.decisions > 0 and not bot.faults
    assert bot.pid > 0 and bot._process.poll() is not None, "the program is stopped at the game's end"


async def test_a_program_that_writes_garbage_gets_the_default_action_at_every_decision(server: GameServer) -> None:
    bot = program("garbage")
    _finished(await play_against_heuristic(server, bot))
    assert bot.faults == {"garbage": bot.decisions} and bot.decisions > 0


async def test_a_program_that_answers_an_illegal_id_gets_the_default_action(server: GameServer) -> None:
    bot = program("illegal")
    _finished(await play_against_heuristic(server, bot))
    assert bot.faults == {"illegal_action": bot.decisions} and bot.decisions > 0


async def test_a_program_that_answers_an_unknown_id_gets_the_default_action(server: GameServer) -> None:
    bot = program("unknown")
    _finished(await play_against_heuristic(server, bot))
    assert bot.faults == {"unknown_action": bot.decisions} and bot.decisions > 0


async def test_a_program_that_answers_late_loses_those_decisions_only(server: GameServer) -> None:
    bot = program("late:2")
    _finished(await play_against_heuristic(server, bot))
    # While it sleeps the decisions queue up; its late answers name their decisions, so none is taken for a
    # later decision's, and once it has caught up it answers in time again.
    assert set(bot.faults) == {"late"} and 2 <= bot.faults["late"] < bot.decisions, bot.faults


async def test_a_program_that_floods_stderr_never_blocks_and_its_stderr_is_kept_bounded(server: GameServer) -> None:
    bot = program("flood")
    _finished(await play_against_heuristic(server, bot))
    assert not bot.faults and bot.decisions > 0
    tail = bot.stderr_tail()
    assert tail.endswith("x\n") and len(tail.encode()) <= STDERR_KEPT


async def test_a_program_that_exits_gets_the_default_action_for_the_rest_of_the_game(server: GameServer) -> None:
    bot = program("exit:2")
    _finished(await play_against_heuristic(server, bot))
    assert bot.faults == {"exited": bot.decisions - 2} and bot.decisions > 2


async def test_a_program_that_never_reads_its_input_does_not_stall_the_table(server: GameServer) -> None:
    bot = program("deaf")
    _finished(await play_against_heuristic(server, bot))
    assert bot.decisions > 0
    assert bot.faults["late"] + bot.faults["not_reading"] == bot.decisions, bot.faults


async def test_a_program_s_note_and_values_reach_the_record(server: GameServer) -> None:
    bot = program("noted")
    played = await play_against_heuristic(server, bot)
    _finished(played)
    noted = [a for deal in played.record["deals"] for a in deal["actions"] if a["seat"] == 0 and "annotation" in a]
    assert noted and noted[0]["annotation"]["note"] == "the first legal action"


def test_a_program_whose_bot_is_dropped_is_stopped() -> None:
    bot = program("good")
    process = bot._process
    del bot
    gc.collect()
    assert process.wait(timeout=30) is not None, "the program outlived its bot"


def test_the_arena_counts_an_exec_bot_s_faults_and_forfeits_it() -> None:
    garbage = f"exec:{sys.executable} {PROGRAM} garbage"
    result = play_arena(GAME, [garbage, "heuristic"], games=1, options=OPTIONS, seed="arena-exec", forfeit_after=3)
    outcome, = result.outcomes
    assert outcome.status == "forfeit" and outcome.forfeit_by == garbage, outcome.reason
    assert "garbage" in outcome.reason


def test_the_ladder_plays_out_a_duplicate_pair_with_a_program_that_writes_garbage() -> None:
    garbage = BotSpec(name=f"exec:{sys.executable} {PROGRAM} garbage")
    outcome = duplicate_pair(GAME, dict(OPTIONS), "ladder-exec", garbage, BotSpec(name="heuristic"))
    assert outcome.deals > 0 and outcome.b_effort.decisions > 0, "played to the end"


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="util-linux setpriv missing (Linux only)")
def test_a_program_that_never_reads_dies_with_its_adapter_killed_outright(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from tests.bots.external_support import program\n"
        "bot = program('deaf')\n"
        "print(bot.pid, flush=True)\n"
        "time.sleep(600)\n")], cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    pid = int(holder.stdout.readline())
    holder.kill()  # SIGKILL: no finalizer runs
    holder.wait()
    deadline = time.monotonic() + 60
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the program outlived its adapter"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"
