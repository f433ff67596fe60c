"""The bot processes a tournament started, found from outside it: for checking that none is left behind.

Every process the server runner starts for a seat (a built-in bot, an
entrant's command, and the ``setpriv``/``bwrap`` wrappers of a sandboxed one)
is given the tournament's pid in its environment (:data:`PARENT_ENV`), and
its children inherit it. A process's starting environment stays readable in
``/proc/PID/environ`` whatever the process does later (forks, ``setsid``, a
double fork that leaves it a child of init) and whatever PID namespace it
runs in (a sandbox's pid 1 is an ordinary pid from outside), so that mark
finds a tournament's bots where a process group or a parent chain would
lose the ones that left them. Reading another user's environment (sandboxed
bots run under user ids of their own) takes root or the same user; a
process that cannot be read is not counted.

Linux only (``/proc``); elsewhere nothing is found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tricktable.tournament.seat import PARENT_ENV

_PROC = Path("/proc")
#: Bit of SIGKILL in ``/proc/PID/status``'s pending masks.
_SIGKILL_BIT = 1 << (9 - 1)


@dataclass(frozen=True, slots=True)
class BotProcess:
    """One live process started for a seat of the tournament (or by such a process)."""

    pid: int
    #: Its command line, as ``ps`` shows it.
    command: str


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:  # gone meanwhile, or not ours to read
        return None


def _dying(pid: int) -> bool:
    """A zombie, or a process a SIGKILL is already on its way to: it is over, whatever ``/proc`` still lists."""
    status = _read(_PROC / str(pid) / "status")
    if status is None:
        return True
    fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
    if fields.get(b"State", b"").strip()[:1] in (b"Z", b"X"):
        return True
    pending = 0
    for name in (b"SigPnd", b"ShdPnd"):  # sent to the thread, or to the whole process
        pending |= int(fields.get(name, b"0").strip() or b"0", 16)
    return bool(pending & _SIGKILL_BIT)


def bot_processes(tournament_pid: int) -> list[BotProcess]:
    """The live processes marked as started by the tournament running as ``tournament_pid``, by pid."""
    mark = f"{PARENT_ENV}={tournament_pid}".encode()
    found = []
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        environ = _read(entry / "environ")
        if environ is None or mark not in environ.split(b"\0"):
            continue
        pid = int(entry.name)
        if _dying(pid):
            continue
        argv = (_read(entry / "cmdline") or b"").rstrip(b"\0").split(b"\0")
        found.append(BotProcess(pid=pid, command=" ".join(a.decode("utf-8", "replace") for a in argv)))
    return sorted(found, key=lambda p: p.pid)
