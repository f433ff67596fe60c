"""``--tls-ca``: the client commands reach a TLS server (``serve --tls-cert/--tls-key``)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournament.helpers import config
from tricktable.server.app import GameServer, ServerConfig
from tricktable.tournament.server_runner import bot_argv

ROOT = Path(__file__).resolve().parents[1]

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
