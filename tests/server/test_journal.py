"""The journal of running tables: what it keeps, how a new lobby resumes from it, and the drain on shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tricktable.protocol.reasons import RejectReason
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import seed_commitment
from tricktable.server import journal as journal_module
from tricktable.server.clocks import TimeControl
from tricktable.server.errors import ShuttingDownError
from tricktable.server.events import DecisionRequested, Event
from tricktable.server.journal import JOURNAL_NAME, Journal, Opening
from tricktable.server.limits import Limits
from tricktable.server.lobby import Lobby
from tricktable.server.seats import token_digest
from tricktable.server.storage import DB_NAME, Storage
from tricktable.server.tables import Table, TableStatus

CLOCKS = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=5.0)


class Server:
    """A lobby with storage and journal on one data directory: what a server process holds (no network)."""

    def __init__(self, data_dir: Path, clocks: TimeControl = CLOCKS) -> None:
        self.storage = Storage(data_dir).open()
        self.journal = Journal(data_dir, checkpoint_seconds=0.05).open()
        self.lobby = Lobby(self.storage, journal=self.journal, time_control=clocks, limits=Limits(retain_seconds=60))

    def crash(self) -> None:
        """Stop without any clean-up of the tables (what kill -9 leaves is the files)."""
        for table in self.lobby.tables():
            table.suspend()  # only so that this process's timers stay quiet: it writes nothing
        self.journal.close()
        self.storage.close()


@pytest.fixture
async def data_dir(tmp_path: Path) -> AsyncIterator[Path]:
    yield tmp_path / "data"


def opening(table_id: str = "t-1") -> Opening:
    return Opening(table_id=table_id, game="all_fives", options={"players": 2}, seed="s", time_control={},
                   names=["a", "b"], token_digests=["d0", "d1"], created_at=1.0, client="c")


def play_moves(table: Table, moves: int) -> None:
    """``moves`` first-legal answers by whichever seat is to act."""
    for _ in range(moves):
        seat = table.match.to_act
        assert seat is not None
        pending = table.pending_for(seat)
        assert pending is not None
        assert table.submit(seat, pending.decision_id, pending.legal_actions[0]).accepted


async def events_of(table: Table, audience: int | None) -> list[tuple[int, Any]]:
    """The audience's log as (sequence, body): what a client resuming from 0 receives."""
    last = table.snapshot(audience).seq
    seen: list[tuple[int, Any]] = []
    if last == 0:
        return seen
    async for item in table.follow(audience, 0):
        if isinstance(item, Event):
            seen.append((item.seq, item.body))
            if item.seq == last:
                break
    return seen


async def started_table(server: Server, game: str = "all_fives", seed: str = "journal-seed",
                        players: int = 2) -> tuple[Table, list[str]]:
    table, tokens = server.lobby.create_table(game=game, options={"players": players}, seed=seed, names=["n0"])
    for seat in range(players):
        table.connect(seat, f"bot-{seat}")
    assert table.status is TableStatus.RUNNING
    return table, tokens


def test_the_journal_keeps_openings_and_steps_in_order_across_a_reopen(data_dir: Path) -> None:
    journal = Journal(data_dir).open()
    journal.open_table(opening("t-1"))
    journal.open_table(opening("t-2"))
    for n in range(3):
        journal.append("t-1", {"k": "play", "n": n})
    journal.append("t-2", {"k": "start"})
    journal.close()
    again = Journal(data_dir).open()
    found = {entry.opening.table_id: entry for entry in again.tables()}
    assert found["t-1"].opening == opening("t-1")
    assert [s["n"] for s in found["t-1"].steps] == [0, 1, 2]
    assert found["t-2"].steps == [{"k": "start"}]
    again.append("t-1", {"k": "play", "n": 3})  # numbering goes on after the steps found
    again.close_table("t-2")
    again.close()
    assert [len(e.steps) for e in Journal(data_dir).open().tables()] == [4]


def test_a_closed_table_leaves_no_row_in_the_journal(data_dir: Path) -> None:
    journal = Journal(data_dir).open()
    journal.open_table(opening())
    journal.append("t-1", {"k": "start"})
    journal.close_table("t-1")
    assert journal.count() == 0 and journal.tables() == []
    journal.close()


async def test_finished_tables_leave_the_journal_together_within_the_forget_delay(
        data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_module, "FORGET_SECONDS", 0.01)
    journal = Journal(data_dir).open()
    for table_id in ("t-1", "t-2", "t-3"):
        journal.open_table(opening(table_id))
        journal.append(table_id, {"k": "start"})
    journal.close_table("t-1")
    journal.close_table("t-2")

    def rows() -> int:
        with sqlite3.connect(data_dir / JOURNAL_NAME) as db:  # another connection: what a crash would leave
            return int(db.execute("SELECT COUNT(*) FROM openings").fetchone()[0])

    assert rows() == 3  # not one transaction per table: they wait for the batch
    while rows() == 3:  # the batch's timer; no verdict on how long it takes (the suite's timeout bounds it)
        await asyncio.sleep(0.01)
    assert rows() == 1 and [e.opening.table_id for e in journal.tables()] == ["t-3"]
    journal.close_table("t-3")
    journal.close()  # a clean stop deletes what waits
    assert rows() == 0


async def test_a_table_stored_before_a_crash_the_journal_had_not_yet_forgotten_is_not_played_again(
        data_dir: Path, tmp_path: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server)
    while not table.is_over:
        play_moves(table, 1)
    await server.lobby.drain()  # the record is stored; the table leaves the journal with the next batch
    stored = server.storage.meta(table.id)
    left = tmp_path / "left"  # what kill -9 leaves at this moment: every commit so far
    left.mkdir()
    for name in (JOURNAL_NAME, DB_NAME):
        with sqlite3.connect(data_dir / name) as source, sqlite3.connect(left / name) as copy:
            source.backup(copy)
    server.crash()
    again = Server(left)
    assert [e.opening.table_id for e in again.journal.tables()] == [table.id]
    assert again.lobby.resume() == []
    assert again.journal.count() == 0
    assert stored is not None and again.storage.meta(table.id) == stored  # stored once, not replayed and stored again
    again.crash()


def wal_starts(data_dir: Path) -> int:
    """How many times the journal's WAL was started over from its beginning: the checkpoint sequence number in its
    header (SQLite's WAL format: bytes 12-15, big-endian), which SQLite increments at each start over."""
    with (data_dir / f"{JOURNAL_NAME}-wal").open("rb") as wal:
        return int.from_bytes(wal.read(16)[12:16], "big")


async def test_the_wal_starts_over_while_moves_never_pause(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = Journal(data_dir, checkpoint_seconds=3600).open()  # the thread's checkpoints: run below, at set moments
    journal.open_table(opening())
    moves = 0

    async def checkpoints_during_groups(rounds: int) -> None:
        """The thread's checkpoint while a group of moves is open each time: what moves that never pause meet."""
        nonlocal moves
        with contextlib.closing(sqlite3.connect(journal.path, isolation_level=None)) as thread_connection:
            for _ in range(rounds):
                journal.append("t-1", {"k": "play", "n": moves})
                moves += 1
                journal.background_checkpoint(thread_connection)
                await asyncio.sleep(0)  # the group commits, after the checkpoint

    monkeypatch.setattr(journal_module, "WAL_RESTART_PAGES", 10**9)
    await checkpoints_during_groups(5)
    assert wal_starts(data_dir) == 0  # the thread's checkpoints alone: the WAL grows for as long as moves come
    monkeypatch.setattr(journal_module, "WAL_RESTART_PAGES", 0)
    await checkpoints_during_groups(5)
    journal.append("t-1", {"k": "play", "n": moves})
    moves += 1
    await asyncio.sleep(0)
    assert wal_starts(data_dir) == 5  # the write after each checkpoint started the WAL over
    assert [len(e.steps) for e in journal.tables()] == [moves]  # with every move kept
    journal.close()


def test_a_failed_journal_write_drops_the_table_rather_than_keep_part_of_it(data_dir: Path) -> None:
    journal = Journal(data_dir).open()
    journal.open_table(opening("t-1"))
    journal.open_table(opening("t-2"))
    journal.append("t-1", {"k": "start"})
    journal.append("t-2", {"k": "start"})
    with sqlite3.connect(data_dir / JOURNAL_NAME) as db:  # a write that fails, as a full disk would
        db.execute("CREATE TRIGGER fail BEFORE INSERT ON steps WHEN NEW.step LIKE '%boom%'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    journal.append("t-1", {"k": "play", "x": "boom"})
    assert journal.broken == {"t-1"}
    assert [e.opening.table_id for e in journal.tables()] == ["t-2"]  # nothing of t-1 is left to resume
    journal.append("t-1", {"k": "play"})  # later steps of a dropped table are not written
    with sqlite3.connect(data_dir / JOURNAL_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM steps WHERE table_id = 't-1'").fetchone() == (0,)
    journal.close()


async def test_the_journal_keeps_token_digests_never_tokens(data_dir: Path) -> None:
    server = Server(data_dir)
    _, tokens = await started_table(server)
    server.crash()
    text = b"".join(p.read_bytes() for p in data_dir.glob(JOURNAL_NAME + "*"))
    assert not any(t.encode() in text for t in tokens)
    assert all(token_digest(t).encode() in text for t in tokens)


async def test_a_resumed_table_has_the_same_logs_pending_decision_counters_and_tokens(data_dir: Path) -> None:
    clocks = TimeControl(decision_seconds=0.2, bank_seconds=0.0, grace_seconds=5.0, join_seconds=5.0)
    server = Server(data_dir, clocks)
    table, tokens = await started_table(server)
    play_moves(table, 5)
    table.disconnect(1)
    table.connect(1, "renamed")
    table.reject(0, RejectReason.MALFORMED_ACTION, "counted")
    seat = table.match.to_act
    assert seat is not None
    await asyncio.wait_for(_until(lambda: table.seats[seat].timeouts == 1), 5)  # a default action by the server
    play_moves(table, 3)
    before = {a: await events_of(table, a) for a in (0, 1, None)}
    pending = table.pending_for(table.match.to_act or 0)
    counters = [s.counters() for s in table.seats]
    server.crash()

    again = Server(data_dir, clocks)
    (resumed,) = again.lobby.resume()
    assert resumed.id == table.id and resumed.status is TableStatus.RUNNING
    assert {a: await events_of(resumed, a) for a in (0, 1, None)} == before
    again_pending = resumed.pending_for(resumed.match.to_act or 0)
    assert pending is not None and again_pending is not None
    assert (again_pending.decision_id, again_pending.seat, again_pending.legal_actions) == (
        pending.decision_id, pending.seat, pending.legal_actions)
    assert [s.counters() for s in resumed.seats] == counters and counters[seat]["timeouts"] == 1
    assert resumed.names == ["bot-0", "renamed"] and resumed.created_at == table.created_at
    assert [again.lobby.resolve(t) for t in tokens] == [(resumed, 0), (resumed, 1)]
    assert not any(s.connected for s in resumed.seats) and all(s.grace is not None for s in resumed.seats)
    again.crash()


async def test_a_resumed_table_plays_on_to_the_record_of_an_uninterrupted_game(data_dir: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server, game="cinq_cents", seed="uninterrupted", players=4)
    published = table.seed_sha256
    play_moves(table, 17)
    server.crash()
    for _ in range(2):  # crash after crash: every start replays what the last one journaled
        again = Server(data_dir)
        (table,) = again.lobby.resume()
        play_moves(table, 11)
        again.crash()
    again = Server(data_dir)
    (table,) = again.lobby.resume()
    while not table.is_over:
        play_moves(table, 1)
    await again.lobby.drain()
    match = new_match("cinq_cents", {"players": 4}, seed="uninterrupted")
    while not match.is_over:
        match = match.apply(match.legal_actions()[0])
    expected = match.to_record(seed="uninterrupted", names=["bot-0", "bot-1", "bot-2", "bot-3"])
    assert table.record is not None and table.record["deals"] == expected["deals"]
    # The commitment published before the crashes still opens with the record's salt (the journal kept it).
    assert table.record["seed_sha256"] == published == seed_commitment("uninterrupted", table.record["salt"])
    server_only = {"seats", "seed_sha256", "salt", "seed_chosen"}
    assert {k: v for k, v in table.record.items() if k not in server_only} == {
        k: v for k, v in expected.items() if k not in server_only}
    assert again.storage.record(table.id) == table.record
    assert again.journal.count() == 0  # a finished table leaves the journal once its record is stored
    again.crash()


async def test_a_journaled_table_that_can_not_be_replayed_is_aborted_with_the_reason(data_dir: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server)
    play_moves(table, 2)
    server.crash()
    with sqlite3.connect(data_dir / JOURNAL_NAME) as db:
        (n, text), = db.execute("SELECT seq, step FROM steps ORDER BY seq DESC LIMIT 1").fetchall()
        step = json.loads(text)
        step["d"] = 99
        db.execute("UPDATE steps SET step = ? WHERE seq = ?", (json.dumps(step), n))
    again = Server(data_dir)
    (resumed,) = again.lobby.resume()
    assert resumed.status is TableStatus.ABORTED
    assert resumed.match.result is not None and "could not resume after a restart" in resumed.match.result.reason
    await again.lobby.drain()
    meta = again.storage.meta(table.id)
    assert meta is not None and meta.status == "aborted" and again.journal.count() == 0
    again.crash()


async def test_shutdown_lets_running_tables_finish_within_the_drain(data_dir: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server)

    async def finish_soon() -> None:
        await asyncio.sleep(0.2)
        while not table.is_over:
            play_moves(table, 1)

    playing = asyncio.ensure_future(finish_soon())
    await server.lobby.shutdown(drain_seconds=30)
    await playing
    assert table.status is TableStatus.FINISHED and server.storage.record(table.id) is not None
    assert server.journal.count() == 0
    with pytest.raises(ShuttingDownError):
        server.lobby.create_table(game="all_fives")
    server.crash()


async def test_shutdown_leaves_tables_still_running_after_the_drain_to_the_next_start(data_dir: Path) -> None:
    server = Server(data_dir)
    table, tokens = await started_table(server)
    play_moves(table, 3)
    pending = table.pending_for(table.match.to_act or 0)
    assert pending is not None
    follower = asyncio.ensure_future(_drain_follow(table, pending.seat))
    await server.lobby.shutdown(drain_seconds=0.1)
    assert table.suspended and not table.is_over and server.storage.record(table.id) is None
    refused = table.submit(pending.seat, pending.decision_id, pending.legal_actions[0])
    assert not refused.accepted and refused.reason is RejectReason.STALE_DECISION
    with pytest.raises(ShuttingDownError):  # its streams end (UNAVAILABLE) so seats rejoin after the restart
        await asyncio.wait_for(follower, 5)
    table.disconnect(pending.seat)  # the stream's end is not counted against the seat
    assert table.seats[pending.seat].disconnects == 0
    server.crash()
    again = Server(data_dir)
    (resumed,) = again.lobby.resume()
    assert resumed.actions_played == 3 and again.lobby.resolve(tokens[0])[0] is resumed
    again.crash()


async def _drain_follow(table: Table, seat: int) -> None:
    table.connect(seat)
    async for item in table.follow(seat):
        assert isinstance(item, Event | DecisionRequested)


async def _until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.02)


async def test_moves_of_one_loop_turn_share_one_commit_made_before_anything_is_sent(data_dir: Path) -> None:
    server = Server(data_dir)
    first, _ = await started_table(server, seed="group-1")
    second, _ = await started_table(server, seed="group-2")
    await asyncio.sleep(0)  # what the starts wrote is committed

    def journaled() -> int:
        with sqlite3.connect(data_dir / JOURNAL_NAME) as reader:
            return int(reader.execute("SELECT COUNT(*) FROM steps").fetchone()[0])

    before = journaled()
    play_moves(first, 2)
    play_moves(second, 1)
    assert journaled() == before  # three moves in one open group, none committed yet
    to_act = first.match.to_act or 0
    follower = first.follow(to_act, first.snapshot(to_act).seq)  # a snapshot commits the group before it is handed out
    assert journaled() == before + 3
    play_moves(second, 1)
    assert journaled() == before + 3
    assert isinstance(await anext(follower), DecisionRequested)  # so does a follower before it sends
    assert journaled() == before + 4
    play_moves(first, 1)
    await asyncio.sleep(0)  # and the loop's next turn, at the latest
    assert journaled() == before + 5
    await follower.aclose()
    server.crash()


async def test_a_table_cancelled_for_a_missing_seat_stays_cancelled_after_a_restart(data_dir: Path) -> None:
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=0.1)
    server = Server(data_dir, clocks)
    table, _ = server.lobby.create_table(game="all_fives", seed="cancelled")
    table.connect(0)
    server.storage.close()  # the crash comes before the record is stored (its store fails), so the journal keeps it
    await asyncio.wait_for(table.ended.wait(), 5)
    await server.lobby.drain()
    server.crash()
    again = Server(data_dir, clocks)
    (resumed,) = again.lobby.resume()
    assert resumed.status is TableStatus.ABORTED and resumed.match.result is not None
    assert "did not join" in resumed.match.result.reason
    again.crash()
