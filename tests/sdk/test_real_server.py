"""The SDK against the product's server (server/), in process on 127.0.0.1:0.

Whole games of the reference bots created with a table or seeked; a real
dropped TCP connection (through a local proxy that cuts every connection
mid-game) resumed by the runner with the last sequence it saw; a real
in-band rejection answered by asking the bot again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.live_server import running_server
from tests.sdk.test_runner import _WrongOnceBot
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.bots.random_bot import RandomBot
from tricktable.client_sdk.bot import Bot, DecisionInfo, current_decision
from tricktable.client_sdk.errors import JoinRejected
from tricktable.client_sdk.runner import Backoff, create_table, get_record, run_bot_async, seek_and_run_async, spectate
from tricktable.rules.actions import Action
from tricktable.rules.game import Result, SeatView
from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.clocks import TimeControl

FAST = Backoff(initial=0.02, maximum=0.2, attempts=8)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=10.0)
    async with running_server(tmp_path / "data", clocks) as game_server:
        yield game_server


async def _run_table(address: str, game: str, bots: list[Bot], *, seed: str = "sdk-real") -> tuple[str, list[Result]]:
    table = await create_table(address, game=game, seed=seed, seat_names=[f"bot-{i}" for i in range(len(bots))])
    runs = [run_bot_async(bot, address, token=token, backoff=FAST, seed=i)
            for i, (bot, token) in enumerate(zip(bots, table.tokens, strict=True))]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=90)
    return table.table_id, list(results)


@pytest.mark.parametrize("game", ["twenty_five", "all_fives"])
async def test_reference_bots_finish_a_game_and_the_record_is_stored(server: GameServer, game: str) -> None:
    bots: list[Bot] = [RandomBot(1), FirstLegalBot(), RandomBot(2), FirstLegalBot()]
    table_id, results = await _run_table(server.address, game, bots[: 4 if game == "twenty_five" else 2])
    assert results[0].status == "finished"
    assert all(r == results[0] for r in results)
    record = json.loads(await get_record(server.address, table_id))
    assert record["game"] == game
    assert record["result"]["winners"] == list(results[0].winners)


async def test_seek_and_run_seats_two_bots_at_one_table(server: GameServer) -> None:
    runs = [seek_and_run_async(FirstLegalBot(), server.address, game="all_fives", players=2, name=f"s{i}",
                               backoff=FAST) for i in range(2)]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=90)
    assert results[0] == results[1]
    assert results[0].status == "finished"


async def test_rejection_from_the_server_is_answered_by_asking_the_bot_again(server: GameServer) -> None:
    wrong = _WrongOnceBot()
    # Seat 1 is eldest hand whenever seat 0 deals; any seat's first decision gets one wrong card.
    bots: list[Bot] = [wrong, FirstLegalBot(), FirstLegalBot(), FirstLegalBot()]
    table_id, results = await _run_table(server.address, "twenty_five", bots)
    assert results[0].status == "finished"
    record = json.loads(await get_record(server.address, table_id))
    assert record["seats"][0]["rejected"] == len(wrong.reasons) >= 1
    assert wrong.reasons and wrong.reasons[0] in ("CARD_NOT_IN_HAND", "WRONG_PHASE", "MUST_PLAY_AFTER_ROB")


async def test_bad_token_is_join_rejected(server: GameServer) -> None:
    with pytest.raises(JoinRejected):
        await asyncio.wait_for(run_bot_async(FirstLegalBot(), server.address, token="not-a-token", backoff=FAST), 20)


class _Proxy:
    """A TCP proxy that can cut every open connection at once (a dropped network, not a polite close).

    ``hold_first_reply``: seconds each connection's first bytes from the server (its HTTP/2 settings) are held
    back, as a loaded machine or a relay in between delays them; :attr:`held` counts the connections held.

    Note: cutting a live stream once made the server segfault now and then in
    ``context.peer()`` called after the call was cancelled (server/interceptors.py
    ``client_of`` in the access log's ``finally``; gRPC core use-after-free of the
    peer string, grpc/grpc#29069). Reading the peer at the start of the call avoids it.
    """

    def __init__(self, upstream_port: int, *, hold_first_reply: float = 0.0) -> None:
        self.upstream_port = upstream_port
        self.hold_first_reply = hold_first_reply
        self.writers: list[asyncio.StreamWriter] = []
        self.connections = 0
        self.held = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        self.writers += [writer, up_writer]

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, hold: float = 0.0) -> None:
            try:
                while data := await src.read(65536):
                    if hold:
                        await asyncio.sleep(hold)
                        self.held += 1
                        hold = 0.0
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer, self.hold_first_reply))

    def cut(self) -> None:
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def stop(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()


class _CuttingBot:
    """First-legal, but cuts the network after its third decision (once)."""

    def __init__(self, proxy: _Proxy) -> None:
        self.proxy = proxy
        self.decisions = 0

    def choose_action(self, view: SeatView) -> Action:
        self.decisions += 1
        if self.decisions == 3:
            asyncio.get_running_loop().call_later(0.05, self.proxy.cut)
        return view.legal_actions[0]


async def test_dropped_connection_is_resumed_and_the_game_finishes(server: GameServer,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tricktable.sdk")
    proxy = _Proxy(server.port)
    address = await proxy.start()
    try:
        table = await create_table(server.address, game="all_fives", seed="sdk-drop")
        runs = [run_bot_async(_CuttingBot(proxy), address, token=table.tokens[0], backoff=FAST, seed=0),
                run_bot_async(FirstLegalBot(), server.address, token=table.tokens[1], backoff=FAST, seed=1)]
        results = await asyncio.wait_for(asyncio.gather(*runs), timeout=90)
    finally:
        await proxy.stop()
    assert results[0] == results[1]
    assert results[0].status == "finished"
    assert proxy.connections >= 2  # the runner connected again after the cut
    assert any("reconnecting" in r.getMessage() for r in caplog.records)
    assert not any("never arrived" in r.getMessage() for r in caplog.records)  # resumed without a gap
    record = json.loads(await get_record(server.address, table.table_id))
    assert record["result"]["status"] == "finished"
    assert record["seats"][0]["disconnects"] >= 1


async def test_a_server_slow_to_answer_the_handshake_is_waited_for_not_taken_for_absent(server: GameServer) -> None:
    """Every connection's first bytes from the server held for a second (a busy machine's handshake): the first
    connection waits for them (it fails only when refused, or silent past the connect timeout), and so does
    each later one; the game is played through."""
    proxy = _Proxy(server.port, hold_first_reply=1.0)
    address = await proxy.start()
    try:
        table = await create_table(address, game="all_fives", seed="sdk-slow-handshake")
        runs = [run_bot_async(FirstLegalBot(), address, token=token, backoff=FAST, seed=i)
                for i, token in enumerate(table.tokens)]
        results = await asyncio.wait_for(asyncio.gather(*runs), timeout=90)
    finally:
        await proxy.stop()
    assert results[0] == results[1]
    assert results[0].status == "finished"
    assert proxy.held >= 3  # the table's creation and both seats' first connections were held


async def test_watch_and_submit_path_plays_a_whole_game(server: GameServer) -> None:
    table = await create_table(server.address, game="all_fives", seed="sdk-watch")
    runs = [run_bot_async(RandomBot(0), server.address, token=table.tokens[0], backoff=FAST, transport="watch"),
            run_bot_async(FirstLegalBot(), server.address, token=table.tokens[1], backoff=FAST)]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=90)
    assert results[0] == results[1]
    assert results[0].status == "finished"


class _SlowFirstBot:
    """An async bot that sleeps far past its clock on its first decision only."""

    def __init__(self) -> None:
        self.asked = 0

    async def choose_action(self, view: SeatView) -> Action:
        self.asked += 1
        if self.asked == 1:
            await asyncio.sleep(60)
        return view.legal_actions[-1]


async def test_an_async_bot_overrunning_its_clock_is_answered_for_in_time(server: GameServer) -> None:
    table = await create_table(server.address, game="all_fives", seed="sdk-slow", decision_ms=1000, bank_ms=0)
    slow = _SlowFirstBot()
    runs = [run_bot_async(slow, server.address, token=table.tokens[0], backoff=FAST),
            run_bot_async(FirstLegalBot(), server.address, token=table.tokens[1], backoff=FAST)]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=50)
    assert results[0].status == "finished"
    assert slow.asked > 1


async def _cli(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tricktable.cli.main", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=str(Path(__file__).resolve().parents[2]))
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    return process.returncode or 0, out.decode(), err.decode()


async def test_cli_bots_in_separate_processes_play_a_seeked_game(server: GameServer) -> None:
    runs = [_cli("bot", name, "--server", server.address, "--seek", "all_fives", "--players", "2")
            for name in ("random", "first-legal")]
    (code_a, out_a, err_a), (code_b, out_b, _) = await asyncio.gather(*runs)
    assert code_a == 0, err_a
    assert code_b == 0
    assert out_a.startswith("game 1: table ") and out_b.startswith("game 1: table ")
    assert out_a.split()[3] == out_b.split()[3]  # the same table
    assert {out_a.split(": ")[2].split(";")[0], out_b.split(": ")[2].split(";")[0]} in ({"won", "lost"},
                                                                                      {"shared the win"})


async def test_cli_bot_with_a_bad_token_says_so_and_exits_2(server: GameServer) -> None:
    code, _, err = await _cli("bot", "random", "--server", server.address, "--token", "bad")
    assert code == 2
    assert err.startswith("error: UNAUTHENTICATED")
    assert "Traceback" not in err


async def test_spectator_sees_the_public_game_and_no_hand(server: GameServer) -> None:
    table = await create_table(server.address, game="twenty_five", seed="sdk-spectate")
    runs = [run_bot_async(FirstLegalBot(), server.address, token=token, backoff=FAST) for token in table.tokens]
    players = asyncio.gather(*runs)
    kinds: list[str] = []
    async with asyncio.timeout(60):
        async for message in spectate(server.address, table.table_id):
            if message.WhichOneof("kind") == "started":
                assert not message.started.view.HasField("seat")
                assert list(message.started.view.hand) == []
            else:
                kinds.append(message.event.WhichOneof("kind") or "")
                if message.event.HasField("deal_started"):
                    assert list(message.event.deal_started.hand) == []
                if message.event.HasField("robbed"):
                    assert message.event.robbed.buried == ""
    results = await asyncio.wait_for(players, timeout=60)
    assert kinds[-1] == "game_ended"
    assert "card_played" in kinds
    assert results[0].status == "finished"


async def test_seek_told_to_wait_waits_for_a_server_that_is_still_starting(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    patient = Backoff(initial=0.05, maximum=0.2, attempts=40)
    runs = asyncio.gather(*(seek_and_run_async(FirstLegalBot(), address, game="all_fives", players=2, backoff=patient,
                                               wait_for_server=30)
                            for _ in range(2)))
    await asyncio.sleep(0.3)
    late = GameServer(ServerConfig(host="127.0.0.1", port=port, data_dir=tmp_path / "late", stop_grace=1.0))
    await late.start()
    try:
        results = await asyncio.wait_for(runs, timeout=60)
    finally:
        await late.stop()
    assert results[0] == results[1] and results[0].status == "finished"


class _ClockReadingBot:
    """Records the decision info the runner exposes while it chooses."""

    def __init__(self) -> None:
        self.seen: list[DecisionInfo | None] = []

    def choose_action(self, view: SeatView) -> Action:
        self.seen.append(current_decision())
        return view.legal_actions[0]


async def test_a_bot_can_read_the_clock_of_the_decision_it_answers(server: GameServer) -> None:
    table = await create_table(server.address, game="all_fives", seed="sdk-clock", decision_ms=3000, bank_ms=1000)
    reader = _ClockReadingBot()
    runs = [run_bot_async(reader, server.address, token=table.tokens[0], backoff=FAST),
            run_bot_async(FirstLegalBot(), server.address, token=table.tokens[1], backoff=FAST)]
    await asyncio.wait_for(asyncio.gather(*runs), timeout=60)
    assert reader.seen and all(info is not None for info in reader.seen)
    first = reader.seen[0]
    assert first is not None and first.decision_id and first.deadline_unix_ms > 0
    assert len({info.decision_id for info in reader.seen if info is not None}) == len(reader.seen)
    assert current_decision() is None


class _DiscardCounter(FirstLegalBot):
    """First legal, noting how many legal actions each discard decision offered the bot."""

    def __init__(self) -> None:
        self.discard_choices: list[int] = []

    def choose_action(self, view: SeatView) -> Action:
        if view.legal_actions[0].type == "discard":
            self.discard_choices.append(len(view.legal_actions))
            return view.legal_actions[-1]  # not the first: the answer travels as an Action, checked by the engine
        return super().choose_action(view)


async def test_sdk_bots_see_every_legal_discard_of_a_compact_discard_choice(server: GameServer) -> None:
    table = await create_table(server.address, game="cinq_cents", options={"target": 100, "first_dealer": 0},
                               seed="sdk-discard")
    bots = [_DiscardCounter() for _ in range(4)]
    runs = [run_bot_async(bot, server.address, token=token, backoff=FAST, seed=i)
            for i, (bot, token) in enumerate(zip(bots, table.tokens, strict=True))]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=90)
    assert results[0].status == "finished"
    assert bots[0].discard_choices and all(n == 8008 for bot in bots for n in bot.discard_choices)
    record = json.loads(await get_record(server.address, table.table_id))
    assert all(seat["rejected"] == 0 for seat in record["seats"])
