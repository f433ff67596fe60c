"""CPU seconds of this process and everything it starts, sandboxed bots included: a cgroup v2 of the run's own.

Why not ``getrusage(RUSAGE_CHILDREN)``: it counts only children that were
waited for, and their waited-for descendants. A sandboxed bot is reaped
inside its PID namespace by bubblewrap's init, which is itself killed at the
end of its match, so the bot's CPU never reaches this process's count. A
cgroup counts every process that runs in it, however it ends: the meter
makes one under the host's cgroup v2 hierarchy, moves this process into it
(every process started afterwards is born there) and reads its
``cpu.stat``. Where no cgroup v2 is writable (not root, no unified
hierarchy), it falls back to rusage and says so (``method``), so a figure is
never taken for what it is not.
"""

from __future__ import annotations

import contextlib
import os
import resource
import uuid
from pathlib import Path
from types import TracebackType


def _cgroup2_root() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup`` or a hybrid host's ``unified``)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            if right.split(" ", 1)[0] == "cgroup2":
                return Path(left.split()[4])
    return None


def _own_cgroup2() -> str | None:
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return line[3:]
    return None


def rusage_cpu() -> float:
    """CPU seconds of this process and of its waited-for children (undercounts sandboxed bots)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class CpuMeter:
    """``with CpuMeter() as meter:`` ... ``meter.seconds()``: CPU of this process and all it started since.

    ``meter.self_seconds()`` is this process alone (the in-process server and the tournament's bookkeeping).
    """

    def __init__(self) -> None:
        self.method = "rusage"
        self._group: Path | None = None
        self._home: Path | None = None
        self._start = 0.0
        self._self_start = 0.0

    def __enter__(self) -> CpuMeter:
        root, home = _cgroup2_root(), _own_cgroup2()
        if root is not None and home is not None:
            group = root / f"tricktable-bench-{uuid.uuid4().hex[:8]}"
            try:
                group.mkdir()
                (group / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                with contextlib.suppress(OSError):
                    group.rmdir()
            else:
                self._group, self._home, self.method = group, root / home.lstrip("/"), "cgroup v2"
        self._start = self._total()
        self._self_start = self._self()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._group is None or self._home is None:
            return
        with contextlib.suppress(OSError):
            (self._home / "cgroup.procs").write_text(str(os.getpid()))
        # Processes of the run still exiting keep the group busy for a moment.
        for _ in range(50):
            try:
                self._group.rmdir()
                break
            except OSError:
                import time

                time.sleep(0.1)

    def _total(self) -> float:
        if self._group is None:
            return rusage_cpu()
        for line in (self._group / "cpu.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "usage_usec":
                return int(value) / 1e6
        raise RuntimeError(f"{self._group / 'cpu.stat'} has no usage_usec")

    @staticmethod
    def _self() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return own.ru_utime + own.ru_stime

    def seconds(self) -> float:
        """CPU seconds used since the meter started, by this process and every process it started."""
        return self._total() - self._start

    def self_seconds(self) -> float:
        """CPU seconds of this process alone since the meter started."""
        return self._self() - self._self_start
