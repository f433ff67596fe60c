"""The Node.js example bot (examples/node) against the real server: conformance, then whole games.

The npm packages are installed by the test itself (``npm ci``, pinned by
package-lock.json). Where node or the npm registry is missing the tests FAIL
and say so: a skipped Node check would look like a passing one.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.conformance.helpers import ROOT, passed_or_declared, run_checks_in_every_game, verdict_lines
from tests.server.clients import create
from tests.server.restarts import (
    fleet_outcomes,
    killed_at_exit,
    opened,
    running_tables,
    serve,
    start_fleet,
    uninterrupted_record,
)
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc
from tricktable.rules.verify import verify_record
from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.conformance import situations

NODE_DIR = ROOT / "examples" / "node"
BOT = str(NODE_DIR / "bot.js")


def _installed_matches_lock() -> bool:
    """Whether node_modules holds exactly what package-lock.json pins (npm's own hidden lockfile says so)."""
    hidden = NODE_DIR / "node_modules" / ".package-lock.json"
    if not hidden.exists():
        return False

    def pins(path: Path) -> dict[str, tuple[str, str]]:
        packages = json.loads(path.read_text())["packages"]
        return {k: (v.get("version"), v.get("integrity")) for k, v in packages.items() if k}

    try:
        return pins(hidden) == pins(NODE_DIR / "package-lock.json")
    except (ValueError, KeyError):
        return False


@pytest.fixture(scope="module")
def node() -> str:
    """The node executable, with examples/node's packages installed by ``npm ci``.

    The registry must answer (``npm ping``) on every run. ``npm ci`` (which
    first deletes node_modules) runs only when node_modules does not match the
    lock, under a lock file: several test runs share one working tree, and a
    reinstall under a running bot breaks it.
    """
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("node and npm are required for the Node.js client tests (Node >= 18); they are not on PATH")
    registry = subprocess.run([npm, "config", "get", "registry"], capture_output=True, text=True, check=False,
                              cwd=NODE_DIR).stdout.strip()
    ping = subprocess.run([npm, "ping"], cwd=NODE_DIR, capture_output=True, text=True, timeout=120, check=False)
    if ping.returncode != 0:
        pytest.fail(f"the npm registry {registry} cannot be reached (npm ping failed), so the Node.js client "
                    f"cannot be installed and checked:\n{ping.stdout}{ping.stderr}")
    digest = hashlib.sha256(str(NODE_DIR).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"tricktable-npm-{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed_matches_lock():
            install = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True,
                                     text=True, timeout=600, check=False)
            if install.returncode != 0:
                pytest.fail(f"npm ci in examples/node failed (registry {registry}):\n{install.stdout}{install.stderr}")
    return node


def test_package_versions_are_pinned_exactly():
    package = json.loads((NODE_DIR / "package.json").read_text())
    lock = json.loads((NODE_DIR / "package-lock.json").read_text())
    for name, version in package["dependencies"].items():
        assert version[0].isdigit(), f"{name} must be pinned to an exact version, not {version!r}"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version


def test_node_bot_loads_the_protos_at_run_time_and_copies_nothing():
    source = (NODE_DIR / "bot.js").read_text()
    assert "'..', '..', 'protos'" in source
    assert not list(NODE_DIR.glob("*.proto")) and not list(NODE_DIR.glob("*_pb*"))


@pytest.mark.parametrize("transport", ["play", "watch"])
def test_node_bot_passes_every_conformance_situation_in_all_four_games(node, transport):
    """Every situation but PlayMany and Spectate, which the example does not do and declares (--skip)."""
    runs = run_checks_in_every_game([node, BOT, "--server", "{address}", "--token", "{token}", "--quiet",
                                     "--transport", transport, "--annotate"], "--skip", "play-many")
    for game, done in runs.items():
        lines = verdict_lines(done.stdout)
        assert done.returncode == 0, f"{game}:\n{done.stdout}{done.stderr}"
        assert len(lines) == len(situations()), f"{game}:\n{done.stdout}"
        assert passed_or_declared(lines, ("play-many", "spectate")) == [], f"{game}:\n{done.stdout}"
        assert lines["annotations"].startswith("PASS"), done.stdout
        # On Play the bot asks for coalesced events and still plays to the end; Watch never coalesces.
        assert ("joined with coalesce_events" in lines["coalesced"]) == (transport == "play"), done.stdout


async def test_conformance_against_a_running_server(node, tmp_path: Path):
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, stop_grace=0.5))
    await server.start()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tricktable.cli.main", "conformance", "--server", server.address, "--only",
            "normal-game", "--only", "reconnect", "--", node, BOT, "--quiet", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env={**os.environ, "TRICKTABLE_SERVER": "", "TRICKTABLE_TOKEN": ""})
        out, err = await asyncio.wait_for(process.communicate(), 240)
        async with grpc.aio.insecure_channel(server.address) as channel:
            listed = await pb_grpc.TableServiceStub(channel).ListTables(
                pb.ListTablesRequest(status=pb.TABLE_STATUS_FINISHED))
    finally:
        await server.stop()
    # The bot got address and token from the environment only (no placeholders on its command line).
    assert process.returncode == 0, out.decode() + err.decode()
    assert sorted(verdict_lines(out.decode())) == ["normal-game", "reconnect"]
    assert len(listed.tables) == 2


def _result(output: str) -> dict[str, Any]:
    """The game result the Node bot prints as its JSON line on stdout."""
    for line in output.splitlines():
        if line.startswith("{"):
            return dict(json.loads(line)["result"])
    raise AssertionError(f"the Node bot printed no result line:\n{output}")


async def _run_node(node: str, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(node, BOT, *args, "--quiet", stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode() + err.decode()


async def test_four_node_bots_play_a_whole_game_of_twenty_five(node, tmp_path: Path):
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, stop_grace=0.5))
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            created = await stub.CreateTable(pb.CreateTableRequest(game=convert.game_to_proto("twenty_five"),
                                                                   seed="node-game"))
            runs = await asyncio.gather(*(_run_node(node, "--server", server.address, "--token", t.token,
                                                    *(["--annotate"] if t.seat % 2 == 0 else []))
                                          for t in created.seat_tokens))
            for code, output in runs:
                assert code == 0, output
            record = json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=created.table_id))).record_json)
    finally:
        await server.stop()
    assert record["result"]["status"] == "finished"
    assert verify_record(record) is None
    assert all(seat["timeouts"] == 0 and seat["default_actions"] == 0 for seat in record["seats"])
    actions = [a for d in record["deals"] for a in d["actions"]]
    # --annotate (seats 0 and 2): every answer's note is in the record beside its move, the others have none.
    assert all(("annotation" in a) == (a["seat"] % 2 == 0) for a in actions)
    assert all(a["annotation"]["note"].startswith("random of ") for a in actions if "annotation" in a)
    result = _result(runs[0][1])
    assert result["status"] == "RESULT_STATUS_FINISHED"
    assert result["scores"] == record["result"]["scores"]


async def test_two_node_bots_seek_and_play_all_fives(node, tmp_path: Path):
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, stop_grace=0.5))
    await server.start()
    try:
        runs = await asyncio.gather(*(_run_node(node, "--server", server.address, "--seek", "all_fives",
                                                "--players", "2", "--strategy", "first") for _ in range(2)))
    finally:
        await server.stop()
    for code, output in runs:
        assert code == 0, output
        assert _result(output)["status"] == "RESULT_STATUS_FINISHED", output


PRESENCE = """
const { has, loadDefinition } = require(process.argv[1]);
const play = loadDefinition()['tricktable.v1.TableService'].Play;
const roundTrip = (message) => play.responseDeserialize(play.responseSerialize(message)).decision;
const absent = roundTrip({ decision: { decision_id: '1', view: { seat: 0 } } });
const present = roundTrip({ decision: { decision_id: '2', view: { seat: 0, to_act: 0 },
                                        discard_choice: { cards: ['5H'], count: 1 } } });
console.log(JSON.stringify({
  absent: { has_to_act: has(absent.view, 'to_act'), keys: Object.keys(absent.view).filter((k) => k.startsWith('_')),
            to_act: absent.view.to_act === undefined ? 'undefined' : absent.view.to_act,
            discard_choice: absent.discard_choice, has_discard_choice: has(absent, 'discard_choice') },
  present: { has_to_act: has(present.view, 'to_act'), oneof: present.view._to_act, to_act: present.view.to_act,
             has_discard_choice: has(present, 'discard_choice') },
}));
"""


def test_node_reads_field_presence_as_the_guide_says(node):
    done = subprocess.run([node, "-e", PRESENCE, BOT], cwd=NODE_DIR, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # docs/protocol.md section 3: an absent optional scalar is missing (not 0, even with defaults: true); when
    # present its synthetic oneof `_name` names it; an unset message field is null.
    assert seen["absent"] == {"has_to_act": False, "keys": ["_seat"], "to_act": "undefined", "discard_choice": None,
                              "has_discard_choice": False}
    assert seen["present"] == {"has_to_act": True, "oneof": "to_act", "to_act": 0, "has_discard_choice": True}


async def test_the_node_bot_keeps_reconnecting_across_a_server_restart(node: str, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    processes: list[asyncio.subprocess.Process] = []
    with killed_at_exit(processes):
        async with serve(data_dir) as first, grpc.aio.insecure_channel(first.address) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            created = await create(stub, "all_fives", seed="node-restart")
            tokens = [t.token for t in created.seat_tokens]
            processes.append(await asyncio.create_subprocess_exec(
                node, BOT, "--server", first.address, "--token", tokens[0], "--name", "seat-0", "--strategy",
                "first", "--quiet", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE))
            processes.append(await start_fleet(first.address, tokens[1:]))
            while not any(t.deal_number >= 3 for t in await running_tables(stub)):
                assert all(p.returncode is None for p in processes)
                await asyncio.sleep(0.05)
            await first.signal(signal.SIGKILL)
            port = first.port
        async with serve(data_dir, port) as second, grpc.aio.insecure_channel(second.address) as channel:
            out, err = await asyncio.wait_for(processes[0].communicate(), 120)
            (seat_1,) = await fleet_outcomes(processes[1])
            record = json.loads((await pb_grpc.TableServiceStub(channel).GetRecord(
                pb.GetRecordRequest(table_id=created.table_id))).record_json)
    assert processes[0].returncode == 0, out.decode() + err.decode()
    assert _result(out.decode())["status"] == "RESULT_STATUS_FINISHED" and seat_1["status"] == "finished"
    assert opened(record) == uninterrupted_record("all_fives", {}, "node-restart")
