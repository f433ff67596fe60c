"""A Go client generated from the shipped .proto files compiles and passes conformance in all four games.

The proof that the protocol is a contract other languages build on: ``protoc`` with the Go
plugins generates the client from the files the wheel installs (``tricktable/v1/*.proto``, read
through ``importlib.resources`` from the package, not from ``protos/``), the seat of
``examples/go-grpc`` compiles against it with Debian's grpc-go and plays every conformance
situation over the real server. ``make test`` installs the toolchain (``make go-toolchain``:
golang-go, protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc, grpc-go); where a tool is still
missing the test is skipped and names it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from tests.conformance.helpers import ROOT, passed_or_declared, run_checks_in_every_game, verdict_lines
from tricktable.server.conformance import situations

TOOLS = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
GOCODE = Path("/usr/share/gocode")  # Debian's Go libraries (grpc-go, protobuf-go), used in GOPATH mode
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None] + (
    [] if (GOCODE / "src" / "google.golang.org" / "grpc").is_dir() else ["golang-google-grpc-dev"])

pytestmark = [pytest.mark.skipif(bool(MISSING), reason=f"Go toolchain missing: {', '.join(MISSING)} "
                                                      "(make go-toolchain installs it)"),
              pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def go_seat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example seat built from code generated from the package's own .proto files."""
    gopath = tmp_path_factory.mktemp("gopath")
    generated = gopath / "src" / "tricktable.dev" / "gen" / "go"
    generated.mkdir(parents=True)
    shipped = Path(str(resources.files("tricktable"))).parent
    protos = sorted(str(p.relative_to(shipped)) for p in (shipped / "tricktable" / "v1").glob("*.proto"))
    subprocess.run(["protoc", f"-I{shipped}", f"--go_out={generated}", "--go_opt=paths=source_relative",
                    f"--go-grpc_out={generated}", "--go-grpc_opt=paths=source_relative", *protos],
                   check=True, capture_output=True, text=True, timeout=120)
    seat = gopath / "src" / "seat"
    seat.mkdir()
    shutil.copy(ROOT / "examples" / "go-grpc" / "main.go", seat)
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": f"{gopath}:{GOCODE}", "GOCACHE": str(gopath / "cache"),
           "GOFLAGS": ""}
    built = subprocess.run(["go", "build", "-o", str(gopath / "seat-bin"), "."], cwd=seat, env=env,
                           capture_output=True, text=True, timeout=400)
    assert built.returncode == 0, built.stdout + built.stderr
    return gopath / "seat-bin"


def test_the_generated_go_client_passes_every_conformance_situation_in_all_four_games(go_seat: Path) -> None:
    """Every situation but PlayMany, annotations and Spectate, which the example does not do and declares."""
    runs = run_checks_in_every_game([str(go_seat), "--server", "{address}", "--token", "{token}"],
                                    "--skip", "play-many", "--skip", "annotations")
    for game, done in runs.items():
        lines = verdict_lines(done.stdout)
        assert done.returncode == 0, f"{game}:\n{done.stdout}{done.stderr}"
        assert len(lines) == len(situations()), f"{game}:\n{done.stdout}"
        assert passed_or_declared(lines, ("play-many", "annotations", "spectate")) == [], f"{game}:\n{done.stdout}"
