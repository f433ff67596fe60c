"""An entrant that tries to learn what its seat may not: ``python -m tests.tournament.cheater ADDRESS TOKEN_FILE ...``.

``python -m tests.tournament.cheater --serve ADDRESS ...`` is the same cheater as a long-lived entrant: it
reads its seats on its control descriptor and cheats afresh at each one, its own earlier tokens aside.

Before it plays it looks, as a cheating entrant on the same machine would,
for other seats' tokens and the tournament's deck key: in every visible
process's command line, environment and open descriptors, in the paths
given after ``--probe`` (the data directory, the database), in what an
earlier match left in ``/tmp``, and over the network (every listening TCP
port it can see). Every token-shaped string it finds it tries as a
credential (``Watch``). Then it plays first-legal and reports what it found
in the note of its actions, which the record keeps::

    cheat procs=1 tokens=0 worked=0 keys=0 tmp=none probed=0 net=0 process=<random id>

``tmp=seen``: ``/tmp`` holds what another process wrote there: the cheaters of one test share a marker
file there, named by ``--marker NAME`` (unique per test, so that tests running side by side, or a file an
earlier run left, can not be what a cheater sees).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import socket
import stat
import sys
from pathlib import Path

import grpc

from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.bot import AnnotatedAction
from tricktable.client_sdk.runner import run_bot
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2, table_service_pb2_grpc
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView

TOKEN = re.compile(rb"[A-Za-z0-9_-]{43}")
DECK_KEY = re.compile(rb"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
#: The marker's name when none is given.
MARKER_NAME = "tricktable-cheater-was-here"
PROCESS = secrets.token_hex(8)
_READ = 1 << 20


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(_READ)
    except OSError:
        return b""


def scan_processes() -> tuple[int, bytes]:
    """Other processes seen, and all of their command lines, environments and open files that could be read."""
    me = os.getpid()
    seen, found = 0, bytearray()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        seen += 1
        found += _read(entry / "cmdline") + b"\0" + _read(entry / "environ") + b"\0"
        try:
            descriptors = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in descriptors:
            try:
                regular = stat.S_ISREG(os.stat(fd).st_mode)  # a pipe or socket would block (or steal its data)
            except OSError:
                continue
            if regular:
                found += _read(fd) + b"\0"
    return seen, bytes(found)


def scan_paths(paths: list[str]) -> bytes:
    """Everything readable under the probed paths (files, or directories walked)."""
    found = bytearray()
    for name in paths:
        root = Path(name)
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()] if root.is_dir() else []
        for path in files:
            found += _read(path) + b"\0"
    return bytes(found)


def listening_ports() -> list[int]:
    """TCP ports in the LISTEN state that this process can see."""
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in _read(Path(table)).decode(errors="replace").splitlines()[1:]:
            fields = line.split()
            if len(fields) > 3 and fields[3] == "0A":
                ports.append(int(fields[1].rpartition(":")[2], 16))
    return sorted(set(ports))


def connects(ports: list[int]) -> int:
    """How many of ``ports`` accept a connection on the loopback address."""
    count = 0
    for port in ports[:50]:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            try:
                probe.connect(("127.0.0.1", port))
                count += 1
            except OSError:
                pass
    return count


async def tokens_that_work(address: str, candidates: set[str]) -> int:
    """How many candidate tokens the server accepts (a Watch stream that sends a first message)."""
    worked = 0
    give_up = asyncio.get_running_loop().time() + 10.0
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        for token in sorted(candidates):
            if asyncio.get_running_loop().time() > give_up:
                break
            call = stub.Watch(table_service_pb2.WatchRequest(token=token))
            try:
                await asyncio.wait_for(call.read(), timeout=1.0)
                worked += 1
            except (grpc.aio.AioRpcError, TimeoutError):
                pass
            finally:
                call.cancel()
    return worked


class ReportingBot(FirstLegalBot):
    """First-legal, with the findings as the note of every action.

    Every action, not the first only: on a loaded machine the first answer may come after its clock,
    be refused as stale and take its note with it, and the report would be lost for a reason that is
    not what the test looks at.
    """

    def __init__(self, note: str) -> None:
        self.note = note

    def choose_action(self, view: SeatView) -> Action | AnnotatedAction:  # type: ignore[override]
        return AnnotatedAction(super().choose_action(view), note=self.note)


def cheat(address: str, own: set[str], probes: list[str], marker: Path) -> str:
    """Look everywhere for what this seat may not know; the findings as a note (``own``: this process's tokens)."""
    procs, seen = scan_processes()
    earlier = _read(marker)
    with contextlib.suppress(OSError):
        marker.write_text(PROCESS)
    probed = scan_paths(probes)
    text = seen + probed
    tokens = {m.decode() for m in TOKEN.findall(text)} - own
    keys = {m.decode() for m in DECK_KEY.findall(text)}
    worked = asyncio.run(tokens_that_work(address, tokens)) if tokens else 0
    print(f"candidates {len(tokens)} worked {worked}", file=sys.stderr)
    net = connects(listening_ports())
    other = bool(earlier) and earlier != PROCESS.encode()
    return (f"cheat procs={procs} tokens={len(tokens)} worked={worked} keys={len(keys)} "
            f"tmp={'seen' if other else 'none'} probed={len(probed)} net={net} process={PROCESS}")


def options(argv: list[str]) -> tuple[list[str], Path]:
    """The paths after ``--probe`` (the rest of the line) and the marker file ``--marker NAME`` names in /tmp."""
    probes = argv[argv.index("--probe") + 1:] if "--probe" in argv else []
    name = argv[argv.index("--marker") + 1] if "--marker" in argv else MARKER_NAME
    return probes, Path("/tmp") / name


def serve(argv: list[str]) -> int:
    """Cheat at every seat handed on the control descriptor (a long-lived entrant)."""
    probes, marker = options(argv)
    control = socket.socket(fileno=int(os.environ["TRICKTABLE_CONTROL_FD"]))
    own: set[str] = set()
    for line in control.makefile("rb"):
        seat = json.loads(line)
        own.add(seat["token"])
        note = cheat(seat["address"], own, probes, marker)
        result = run_bot(ReportingBot(note), seat["address"], token=seat["token"], name="cheater")
        status = "finished" if result.status == "finished" else "aborted"
        control.sendall(json.dumps({"done": seat["play"], "status": status}).encode() + b"\n")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--serve"]:
        return serve(argv[1:])
    address, token_file = argv[0], argv[1]
    probes, marker = options(argv)
    own = Path(token_file).read_text().strip()
    note = cheat(address, {own}, probes, marker)
    result = run_bot(ReportingBot(note), address, token=own, name="cheater")
    return 0 if result.status == "finished" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
