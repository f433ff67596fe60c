"""Tournaments over the real gRPC server (in-process, free port), each bot a separate process."""

from __future__ import annotations

import asyncio

import pytest

from tests.tournament.helpers import config
from tricktable.rules.verify import verify_record
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.faults import FaultTally
from tricktable.tournament.server_runner import ServerDispatcher, bot_argv
from tricktable.tournament.store import TournamentStore

pytestmark = pytest.mark.timeout(120)


async def play(cfg, tmp_path, concurrency=2, end_grace_s=None):
    """Run the tournament over an in-process server; ``end_grace_s`` shortens the wait for bots after a game."""
    store = TournamentStore(tmp_path / "tricktable.sqlite3")
    dispatcher = await ServerDispatcher.open(cfg, address=None, data_dir=tmp_path)
    if end_grace_s is not None:
        dispatcher.end_grace_s = end_grace_s
    await Tournament(cfg, store, dispatcher, concurrency=concurrency).run()
    return store


def test_bot_argv_fills_the_template_and_names_the_token_descriptor_not_the_token():
    cfg = config(entrants=[{"name": "mine", "command": "{python} bot.py --at {address} --t {token_file} --s {seat}"},
                           "random"])
    argv = bot_argv(cfg.entrants[0], address="127.0.0.1:5", token_fd=7, seat=1, seed="x")
    assert argv[1:] == ["bot.py", "--at", "127.0.0.1:5", "--t", "/dev/fd/7", "--s", "1"]
    builtin = bot_argv(cfg.entrants[1], address="127.0.0.1:5", token_fd=7, seat=1, seed="x")
    assert builtin[1:] == ["-m", "tricktable.tournament.seat", "random", "127.0.0.1:5", "x", "random"]


def test_matches_over_the_server_store_server_records_with_the_decks_seed(tmp_path):
    cfg = config(entrants=["random", {"name": "cmd", "command": "{python} -m tricktable.tournament.seat first-legal "
                                                              "{address} {seed} {name}"}], games=2)
    store = asyncio.run(play(cfg, tmp_path))
    games = stored_games(store, "t")
    assert len(games) == 2
    records = [store.record("t", spec.match_id) for spec, _ in games]
    for (spec, outcome), record in zip(games, records, strict=True):
        assert outcome.status == "finished" and outcome.table_id
        assert verify_record(record) is None
        assert record["seed"] == spec.seed and [s["name"] for s in record["seats"]] == list(spec.seats)
    # duplicate: the same decks both directions
    assert records[0]["deals"][0]["deck"] == records[1]["deals"][0]["deck"]
    # the server's own table of records is in the same database
    import sqlite3

    with sqlite3.connect(tmp_path / "tricktable.sqlite3") as con:
        ids = {r[0] for r in con.execute("SELECT id FROM tables")}
        sealed = {r[0] for r in con.execute("SELECT id FROM tables WHERE sealed = 1 AND seed_chosen = 1")}
    assert {o.table_id for _, o in games} <= ids
    assert {o.table_id for _, o in games} <= sealed  # records for the tournament's owner token only
    store.close()


def test_a_bot_that_keeps_crashing_forfeits_and_the_table_is_played_out(tmp_path):
    crash = "{python} -c \"import sys; print('dying', file=sys.stderr); sys.exit(3)\""
    cfg = config(entrants=["first-legal", {"name": "crasher", "command": crash}], games=1, forfeit_after=2)
    store = asyncio.run(play(cfg, tmp_path, concurrency=1))
    games = stored_games(store, "t")
    assert len(games) == 2
    for spec, outcome in games:
        assert outcome.status == "forfeit" and outcome.forfeit_by == "crasher"
        assert "crashed 2 times" in outcome.reason and "dying" in outcome.reason
        assert outcome.fault_kinds == {"crasher": {"process_exit": 2}}
        kept, = (m.outcome.stderr["crasher"] for m in store.matches("t", with_records=True)
                 if m.spec.match_id == spec.match_id)
        assert kept.count("dying") == 2  # both processes' stderr, kept with the match
        assert outcome.winners == (spec.seats.index("first-legal"),)
        record = store.record("t", spec.match_id)
        assert record["result"]["status"] == "finished"  # a substitute played the seat out
    store.close()


def test_a_table_stopped_at_the_servers_deal_limit_is_adjudicated():
    from tricktable.tournament.schedule import fixed_groups, round_matches

    cfg = config(game="cinq_cents", options={}, games=2)
    spec = round_matches(cfg, 0, fixed_groups(cfg))[0]
    dispatcher = ServerDispatcher(cfg, "127.0.0.1:1")
    seats: list[dict[str, int]] = [{"seat": s, "timeouts": 0} for s in range(4)]
    record = {"seats": seats,
              "result": {"status": "aborted", "winners": [], "scores": [-300, 120],
                         "reason": "deal limit: 200 deals played without a result"}}
    outcome = dispatcher._outcome(spec, "t-1", record, FaultTally(spec.seats, cfg.forfeit_after), None, 0.0)
    assert outcome.status == "adjudicated" and outcome.winners == (1,)
    seats[1]["timeouts"] = 3
    outcome = dispatcher._outcome(spec, "t-1", record, FaultTally(spec.seats, cfg.forfeit_after), None, 0.0)
    assert outcome.status == "forfeit" and outcome.forfeit_by == spec.seats[1] and "timed out 3 times" in outcome.reason


def test_a_bot_that_hangs_after_the_game_is_stopped_and_the_match_stored(tmp_path):
    hang = "sh -c '{python} -m tricktable.tournament.seat first-legal {address} && exec sleep 300'"
    cfg = config(entrants=["random", {"name": "hang", "command": hang}], games=1)

    store = asyncio.run(play(cfg, tmp_path, end_grace_s=0.5))
    games = stored_games(store, "t")
    assert len(games) == 2 and all(o.status == "finished" and o.faults["hang"] == 0 for _, o in games)
    store.close()


def test_a_given_server_address_is_used(tmp_path):
    from tricktable.server.app import GameServer, ServerConfig

    cfg = config(games=2)

    async def go():
        server = GameServer(ServerConfig(port=0, data_dir=tmp_path / "server"))
        await server.start()
        try:
            store = TournamentStore(tmp_path / "tournament.sqlite3")
            dispatcher = await ServerDispatcher.open(cfg, address=server.address, data_dir=tmp_path)
            await Tournament(cfg, store, dispatcher, concurrency=2).run()
            await server.lobby.drain()  # records are stored in batches (lobby.STORE_SECONDS)
            return store, {t.id for t in server.storage.list_tables()}
        finally:
            await server.stop()

    store, server_tables = asyncio.run(go())
    games = stored_games(store, "t")
    assert len(games) == 2 and {o.table_id for _, o in games} == server_tables
    store.close()


def test_a_bot_that_keeps_timing_out_forfeits_with_the_reason(tmp_path):
    silent = "{python} -m tests.tournament.silent_client {address} {token_file}"
    # A short game (target 10) so that a generous clock (the other bot never runs out, even on a loaded
    # machine) still makes a quick test.
    cfg = config(entrants=["first-legal", {"name": "silent", "command": silent}], options={"target": 10}, games=1,
                 decision_ms=250, bank_ms=0, forfeit_after=2)

    store = asyncio.run(play(cfg, tmp_path, end_grace_s=0.5))
    games = stored_games(store, "t")
    assert len(games) == 2
    for spec, outcome in games:
        assert outcome.status == "forfeit" and outcome.forfeit_by == "silent", outcome.reason
        assert "timed out" in outcome.reason and outcome.faults["silent"] > outcome.faults["first-legal"]
        record = store.record("t", spec.match_id)
        assert verify_record(record) is None
        assert record["seats"][spec.seats.index("silent")]["timeouts"] >= 2
    store.close()


def test_a_command_that_cannot_start_forfeits(tmp_path):
    cfg = config(entrants=["first-legal", {"name": "ghost", "command": "/no/such/program"}], games=1)
    store = asyncio.run(play(cfg, tmp_path))
    for _, outcome in stored_games(store, "t"):
        assert outcome.status == "forfeit" and outcome.forfeit_by == "ghost"
        assert "could not start '/no/such/program'" in outcome.reason
    store.close()


def test_an_entrant_that_never_joins_forfeits_and_two_absent_entrants_are_an_error():
    from tricktable.tournament.schedule import fixed_groups, round_matches

    cfg = config(game="twenty_five", options={}, games=2)
    spec = round_matches(cfg, 0, fixed_groups(cfg))[0]
    dispatcher = ServerDispatcher(cfg, "127.0.0.1:1")

    def outcome(reason):
        record = {"seats": [], "result": {"status": "aborted", "winners": [], "scores": [0, 0], "reason": reason}}
        return dispatcher._outcome(spec, "t-1", record, FaultTally(spec.seats, cfg.forfeit_after), None, 0.0)

    absent = outcome("cancelled: seat(s) 1, 3 did not join within 60s")
    assert absent.status == "forfeit" and absent.forfeit_by == spec.seats[1] and "never joined" in absent.reason
    assert outcome("cancelled: seat(s) 0, 1 did not join within 60s").status == "error"


def test_two_crashing_entrants_are_not_restarted_for_ever(tmp_path):
    crash = "{python} -c \"import sys; sys.exit(3)\""
    cfg = config(entrants=[{"name": "c1", "command": crash}, {"name": "c2", "command": crash}], games=1,
                 forfeit_after=2)
    store = asyncio.run(play(cfg, tmp_path))
    for _, outcome in stored_games(store, "t"):
        assert outcome.status == "forfeit" and outcome.forfeit_by in ("c1", "c2")
        assert "also" in outcome.reason and outcome.faults == {"c1": 2, "c2": 2}
    store.close()


def test_a_bot_that_quits_quietly_before_its_game_ends_is_a_fault(tmp_path):
    quits = "{python} -c \"pass\""
    cfg = config(entrants=["first-legal", {"name": "quitter", "command": quits}], games=1, forfeit_after=2)
    store = asyncio.run(play(cfg, tmp_path))
    for _, outcome in stored_games(store, "t"):
        assert outcome.forfeit_by == "quitter" and "exit 0 before the game ended" in outcome.reason
    store.close()


def test_a_record_names_each_seat_after_its_entrant_whatever_name_its_bot_joins_with(tmp_path):
    """An entrant's command may name its seat (``--name``): the records still say which entrant played where,
    so that an audit finds each record's game and no entrant plays under another's name."""
    impostor = ("{python} -m tricktable.cli.main bot first-legal --server {address} --token-file {token_file} "
                "--name random")
    cfg = config(entrants=["random", {"name": "cmd", "command": impostor}], games=2)
    store = asyncio.run(play(cfg, tmp_path))
    games = stored_games(store, "t")
    assert len(games) == 2
    for spec, outcome in games:
        record = store.record("t", spec.match_id)
        assert outcome.status == "finished" and verify_record(record) is None
        assert [s["name"] for s in record["seats"]] == list(spec.seats)
    store.close()
