"""``tricktable bot``: the author's own bot by file, several games in a row, and failing fast."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.live_server import running_server
from tricktable.server.clocks import TimeControl

ROOT = Path(__file__).resolve().parents[2]
HIGH_CARD = """
class HighCard:
    def choose_action(self, view):
        return view.legal_actions[-1]
"""


async def bot(*args: str, cwd: Path = ROOT, timeout: float = 120) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "tricktable.cli.main", "bot", *args, cwd=cwd,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except BaseException:
        if process.returncode is None:
            process.kill()
            await process.wait()
        raise
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_an_authors_bot_file_plays_two_games_in_a_row_with_a_line_per_game(tmp_path: Path) -> None:
    mine = tmp_path / "high_card.py"
    mine.write_text(HIGH_CARD)
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=30.0)
    async with running_server(tmp_path / "data", clocks) as server:
        common = ["--server", server.address, "--seek", "all_fives", "--games", "2"]
        (code_a, out_a, err_a), (code_b, out_b, _) = await asyncio.gather(
            bot(f"{mine}:HighCard", *common), bot("random", *common, "--seed", "s"))
    assert (code_a, code_b) == (0, 0), err_a
    for out in (out_a, out_b):
        lines = out.splitlines()
        assert [line.split(":")[0] for line in lines[:2]] == ["game 1", "game 2"], out
        assert all(" seat " in line and "scores" in line for line in lines[:2])
        assert lines[2].startswith("2 games: ")
    assert "HighCard" not in err_a  # nothing went wrong with the author's bot


async def test_a_token_with_several_games_is_refused() -> None:
    code, _, err = await bot("random", "--token", "t", "--games", "2")
    assert code == 2 and "--games, --forever and --seats need --seek" in err


async def test_a_token_with_several_seats_is_refused() -> None:
    code, _, err = await bot("random", "--token", "t", "--seats", "2")
    assert code == 2 and err.startswith("error: a token is one seat of one game")


async def test_an_unreachable_server_fails_at_once_in_one_line() -> None:
    code, out, err = await bot("random", "--server", "127.0.0.1:1", "--seek", "all_fives", timeout=60)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["error: cannot connect to 127.0.0.1:1: is a tricktable server running there?"]


async def test_an_unknown_bot_is_refused_naming_the_choices() -> None:
    code, _, err = await bot("nobody", "--seek", "all_fives")
    assert code == 2 and "unknown bot 'nobody'" in err and "module:Class" in err


async def test_several_tokens_are_played_at_once_over_one_play_many_call(tmp_path: Path) -> None:
    """``--token T1,T2``: two tables' seats in one process, a line per game; the opponents the same way."""
    from tricktable.client_sdk.runner import create_table

    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=30.0)
    async with running_server(tmp_path / "data", clocks) as server:
        tables = [await create_table(server.address, game="all_fives", seed=f"tokens-{n}") for n in range(2)]
        (code_a, out_a, err_a), (code_b, out_b, err_b) = await asyncio.gather(*(
            bot("random", "--server", server.address, "--token", ",".join(t.tokens[seat] for t in tables))
            for seat in (0, 1)))
    assert (code_a, code_b) == (0, 0), err_a + err_b
    for out in (out_a, out_b):
        lines = out.splitlines()
        assert [line.split(":")[0] for line in lines[:2]] == ["game 1", "game 2"], out
        assert lines[2].startswith("2 games: ")


async def test_a_program_plays_with_exec_and_a_service_with_webhook_two_seats_each(tmp_path: Path) -> None:
    from tests.bots.test_webhook_bots import service

    starter = ROOT / "examples" / "stdio-python" / "bot.py"
    clocks = TimeControl(decision_seconds=10.0, bank_seconds=10.0, grace_seconds=5.0, join_seconds=30.0)
    with service("good") as (state, httpd):
        url = f"http://127.0.0.1:{httpd.server_address[1]}/"
        async with running_server(tmp_path / "data", clocks) as server:
            common = ["--server", server.address, "--seek", "all_fives", "--games", "2", "--seats", "2"]
            (code_a, out_a, err_a), (code_b, out_b, err_b) = await asyncio.gather(
                bot("--exec", f"{sys.executable} {starter}", *common, timeout=400),
                bot("--webhook", url, *common, timeout=400))
    assert (code_a, code_b) == (0, 0), err_a + err_b
    for out in (out_a, out_b):
        assert out.splitlines()[-1].startswith("4 games: "), out
    assert "playing all_fives in seat" in err_a, "the program's stderr is passed on"
    assert len(state.sessions) == 4, "a session per game"


async def test_a_bot_named_twice_or_not_at_all_is_refused() -> None:
    code, _, err = await bot("random", "--exec", "./mybot", "--token", "t")
    assert code == 2 and "name one bot: BOT, --exec CMD or --webhook URL" in err
    code, _, err = await bot("--token", "t")
    assert code == 2 and "name one bot" in err
    code, _, err = await bot("--exec", "./no-such-bot", "--token", "t")
    assert code == 2 and "no such program" in err
