"""The native load client (``native_load.cc`` beside this file): built here, on demand, or told why it can not be.

Why a C++ client: the throughput bench's Python bots (``bench.server_clients load --many``) cost about 100-160 us
of CPU per move on the server's own cores, which hides what a second shard buys on a 2-core machine. The native
client does the same work with the same handshake and result (a drop-in client process of
:func:`bench.server_bench.measure_load`, chosen by the ``:native`` suffix of a run) at a few microseconds a move.

It is built by ``make -C bench/native_load`` into ``build/native_load`` (ignored by git), its protobuf and gRPC
code generated there from ``protos/``. A machine without the toolchain skips the ``:native`` runs with the reason
(:func:`unavailable`); nothing else depends on it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().parent
BUILD = SOURCE.parent.parent / "build" / "native_load"
BINARY = BUILD / "native_load"
#: Programs the build runs, and the pkg-config packages it compiles against (Debian: libgrpc++-dev
#: protobuf-compiler-grpc protobuf-compiler libprotobuf-dev).
TOOLS = ("make", "g++", "pkg-config", "protoc", "grpc_cpp_plugin")
PACKAGES = ("grpc++", "protobuf")
#: Seconds the build may take (about a minute on 2 busy cores).
BUILD_TIMEOUT = 900.0


class NativeLoadUnavailableError(RuntimeError):
    """The native client can not be built here: its message says why."""


def missing_toolchain() -> str | None:
    """What this machine lacks to build the client (None: nothing)."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"not on PATH: {', '.join(missing)}"
    absent = [p for p in PACKAGES if subprocess.run(["pkg-config", "--exists", p], check=False).returncode != 0]
    if absent:
        return f"pkg-config does not know {', '.join(absent)} (Debian: libgrpc++-dev libprotobuf-dev)"
    return None


def build() -> Path:
    """Build the client (``make``: nothing to do when it is up to date) and return its path.

    Raises:
        NativeLoadUnavailableError: the toolchain is missing, or the build failed (its last lines of output).
    """
    missing = missing_toolchain()
    if missing is not None:
        raise NativeLoadUnavailableError(f"the native load client needs a C++ toolchain with grpc++: {missing}")
    made = subprocess.run(["make", "--no-print-directory", "-C", str(SOURCE), "-j2", f"BUILD={BUILD}"],
                          capture_output=True, text=True, check=False, timeout=BUILD_TIMEOUT)
    if made.returncode != 0:
        tail = "\n".join((made.stdout + made.stderr).strip().splitlines()[-8:])
        raise NativeLoadUnavailableError(f"building the native load client failed (make -C {SOURCE}):\n{tail}")
    return BINARY


def unavailable() -> str | None:
    """Why the client can not run here (None: it is built and up to date)."""
    try:
        build()
    except NativeLoadUnavailableError as error:
        return str(error)
    return None
