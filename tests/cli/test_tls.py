"""``--tls-ca``: the client commands reach a TLS server (``serve --tls-cert/--tls-key``)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournament.helpers import config
from tricktable.client_sdk.runner import create_table
from tricktable.server.app import GameServer, ServerConfig
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.server_runner import ServerDispatcher, bot_argv
from tricktable.tournament.store import TournamentStore

ROOT = Path(__file__).resolve().parents[2]

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


def certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


@needs_openssl
async def test_match_and_its_bots_play_on_a_tls_server_with_tls_ca(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path / "data", tls_cert=cert, tls_key=key, stop_grace=0.5))
    await server.start()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tricktable.cli.main", "match", "--game", "all_fives", "--bots",
            "first-legal,first-legal",
            "--option", "target=11", "--server", server.address, "--tls-ca", str(cert), "--quiet",
            "--data-dir", str(tmp_path / "out"), cwd=ROOT, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 120)
    finally:
        await server.stop()
    assert process.returncode == 0, (out.decode()[-2000:], err.decode()[-2000:])
    assert list((tmp_path / "out" / "records").glob("*.json"))


def test_tournament_bots_get_the_tls_ca() -> None:
    mine = {"name": "mine", "command": "{python} bot.py {address} {token_file} --ca {tls_ca}"}
    cfg = config(entrants=["random", mine])
    ca = Path("/certs/ca.pem")
    assert bot_argv(cfg.entrants[0], address="a:1", token_fd=3, seat=0, seed="s", tls_ca=ca)[-1] == str(ca)
    assert bot_argv(cfg.entrants[1], address="a:1", token_fd=3, seat=1, seed="s", tls_ca=ca)[-2:] == ["--ca", str(ca)]


@needs_openssl
async def test_tables_and_record_reach_a_tls_server_with_tls_ca(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path / "data", tls_cert=cert, tls_key=key, stop_grace=0.5))
    await server.start()
    try:
        table = await create_table(server.address, game="all_fives", root_certificates=cert.read_bytes())

        async def cli(*args: str) -> tuple[int | None, str]:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tricktable.cli.main", *args, "--server", server.address, cwd=ROOT,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
            out, _ = await asyncio.wait_for(process.communicate(), 120)
            return process.returncode, out.decode()

        code, out = await cli("tables", "--tls-ca", str(cert))
        assert code == 0 and table.table_id in out, out
        code, out = await cli("record", table.table_id, "--tls-ca", str(cert))
        assert code != 0 and "record" in out, out  # reached: the server says the table has not ended
        code, out = await cli("tables")  # plaintext to a TLS server: refused
        assert code != 0, out
    finally:
        await server.stop()


@needs_openssl
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (`make test` installs it)")
async def test_sandboxed_bots_play_on_a_remote_tls_server_through_the_relay(tmp_path: Path) -> None:
    """A sandboxed bot has no network: the tournament relays its socket to the server and speaks TLS itself."""
    cert, key = certificate(tmp_path)
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path / "data", tls_cert=cert, tls_key=key, stop_grace=0.5))
    await server.start()
    cfg = config(entrants=["first-legal", "random"], games=2)
    store = TournamentStore(tmp_path / "tournament.sqlite3")
    try:
        dispatcher = await ServerDispatcher.open(cfg, address=server.address, data_dir=tmp_path / "t", tls_ca=cert)
        assert dispatcher.isolation.startswith("sandboxed")
        await Tournament(cfg, store, dispatcher, concurrency=2).run()
        games = stored_games(store, "t")
        assert len(games) == 2 and all(o.status == "finished" for _, o in games), [o.reason for _, o in games]
    finally:
        store.close()
        await server.stop()
