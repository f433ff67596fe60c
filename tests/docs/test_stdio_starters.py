"""The starter bots in other languages (examples/stdio-*) pass ``tricktable conformance`` in all four games.

Each is a program on standard input/output, played by ``tricktable bot --exec`` through the real server
in every situation of the check: the proof that a newcomer's first bot in Python without the SDK, in
Node.js without packages or in Go with its standard library plays every game legally. The Go starter is
built here with the Go toolchain (``make go-toolchain``); without ``go`` that case is skipped and says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.helpers import ROOT, run_checks_in_every_game, verdict_lines
from tricktable.server.conformance import situations

pytestmark = pytest.mark.timeout(900)
EXAMPLES = ROOT / "examples"
#: What a starter leaves out, declared as an outside author would: it sends no annotation and does not spectate.
SKIPPED = ("annotations", "spectate")
NOT_STARTER_FEATURES = tuple(arg for name in SKIPPED for arg in ("--skip", name))


@pytest.fixture(scope="module")
def go_starter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go starter, built with the standard library only (no module downloads)."""
    if shutil.which("go") is None:
        pytest.skip("Go toolchain missing: go (make go-toolchain installs it)")
    out = tmp_path_factory.mktemp("stdio-go")
    env = {**os.environ, "GOCACHE": str(out / "cache"), "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GO111MODULE": "on"}
    built = subprocess.run(["go", "build", "-o", str(out / "bot"), "."], cwd=EXAMPLES / "stdio-go", env=env,
                           capture_output=True, text=True, timeout=400)
    assert built.returncode == 0, built.stdout + built.stderr
    return out / "bot"


def _passes_everywhere(program: str) -> None:
    runs = run_checks_in_every_game([], "--bot", f"exec:{program}", *NOT_STARTER_FEATURES, timeout=600)
    for game, done in runs.items():
        lines = verdict_lines(done.stdout)
        assert done.returncode == 0, f"{game}:\n{done.stdout}{done.stderr}"
        assert len(lines) == len(situations()), f"{game}:\n{done.stdout}"
        assert all(line.startswith("SKIP" if name in SKIPPED else "PASS")
                   for name, line in lines.items()), f"{game}:\n{done.stdout}"


def test_the_python_starter_passes_conformance_in_every_game() -> None:
    _passes_everywhere(f"{sys.executable} {EXAMPLES / 'stdio-python' / 'bot.py'}")


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js missing: node")
def test_the_node_starter_passes_conformance_in_every_game() -> None:
    _passes_everywhere(f"node {EXAMPLES / 'stdio-node' / 'bot.js'}")


def test_the_go_starter_passes_conformance_in_every_game(go_starter: Path) -> None:
    _passes_everywhere(str(go_starter))
