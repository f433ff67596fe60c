"""Entrants sealed off from each other: each bot process of a match runs in a bubblewrap sandbox of its own.

Why: an entrant is code the organiser did not write. On one machine, without
a sandbox, a bot can read every other process's command line and (same
user) environment and open files, the tournament's database and data
directory, and what an earlier match of its own left in ``/tmp`` (the twin
table of a duplicate deck set deals the same cards). In the sandbox
(``bwrap``, Debian's ``bubblewrap``), a bot has:

- its own PID, IPC, UTS and network namespaces: it sees no other process and
  reaches nothing over the network; the server only through the Unix socket
  bound in at :data:`SANDBOX_SOCKET` (and a webhook entrant its URL's host and
  port only, through the relay bound in at :data:`SANDBOX_WEBHOOK_SOCKET`);
- a file system built from a few read-only parts: the system directories,
  the Python that runs the tournament and its import path, the working
  directory, and the files named on the entrant's command line or in its
  ``files``; the data directory, the databases and the output folder hidden
  under empty ones; a fresh empty ``/tmp`` that ends with the process;
- as root, a user id of its own with no capabilities, and limits on its
  address space and number of processes (``prlimit``);
- its seat token on an inherited descriptor, and an environment of
  :data:`PASSED_ENV` only (no deck key, no tournament variables).

Where ``bwrap`` is missing or cannot build a sandbox, :meth:`Sandbox.detect`
raises :class:`SandboxUnavailable`: the tournament stops with that message,
and only runs unsandboxed when the organiser asks for it
(``--trusted-entrants``), never silently.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

#: ``sandbox``: every bot process sealed off (the default); ``trusted``: plain processes, for entrants the
#: organiser trusts (they can read each other's secrets).
Isolation = Literal["sandbox", "trusted"]
#: Where a sandboxed bot finds the server: ``unix:`` this path.
SANDBOX_SOCKET = "/run/tricktable/server.sock"
#: Where a webhook entrant's sandbox finds its URL: a socket relayed to the URL's host and port only.
SANDBOX_WEBHOOK_SOCKET = "/run/tricktable/webhook.sock"
#: The only environment variables a bot inherits (an allowlist: anything else, such as a deck key, stays out).
PASSED_ENV: tuple[str, ...] = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "PYTHONPATH",
                               "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONHASHSEED", "VIRTUAL_ENV",
                               "HOME", "USER", "LOGNAME", "TMPDIR")
#: System directories every sandbox sees read-only (those that exist; symbolic links are kept as links).
SYSTEM_PATHS: tuple[str, ...] = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
#: Sandboxed bots run as user ids from here on (as root): one per process started, none shared at once.
FIRST_UID = 200_000
_UIDS = 100_000
#: Seconds the check that ``bwrap`` works may take.
_PROBE_SECONDS = 30.0


class SandboxUnavailable(RuntimeError):
    """This host cannot sandbox entrants: the message says why and what to do."""


def trusted_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """A bot's environment: :data:`PASSED_ENV` from this process's, and ``extra``."""
    return {**{name: os.environ[name] for name in PASSED_ENV if name in os.environ}, **extra}


def runtime_paths() -> list[Path]:
    """What a Python bot needs to start as this process does: its interpreter, its libraries, its import path."""
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.executable).resolve().parent]
    import tricktable

    paths.append(Path(tricktable.__file__).resolve().parent)
    paths += [Path(entry) for entry in sys.path if entry and os.path.isabs(entry)]
    return paths


def entrant_paths(argv: Sequence[str], files: Iterable[str] = (), bot: str | None = None) -> list[Path]:
    """The paths an entrant names: arguments (or ``--opt=value`` values) that exist, its ``files``, its bot file."""
    names = [*argv, *(arg.partition("=")[2] for arg in argv if arg.startswith("-")), *files]
    if bot is not None and ".py:" in bot:
        names.append(bot.rpartition(":")[0])
    if bot is not None and bot.startswith("exec:"):  # a program in any language: it and the files it names
        with contextlib.suppress(ValueError):
            names += shlex.split(bot.removeprefix("exec:"))
    found = []
    for name in names:
        if name and ("/" in name or name in files) and os.path.exists(name):
            path = Path(os.path.abspath(name))
            if not path.is_relative_to("/dev") and not path.is_relative_to("/proc"):  # the sandbox has its own
                found.append(path)
    return found


def _minimal(paths: Iterable[Path]) -> list[Path]:
    """The paths without those inside another one (a bind of the outer one shows them already)."""
    unique = sorted({p for p in paths if p != Path("/") and p.exists()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


@dataclass(frozen=True, slots=True, kw_only=True)
class Sandbox:
    """How to start one bot process sealed off (see the module docstring); made by :meth:`detect`."""

    #: The server's Unix socket on this host, bound into every sandbox at :data:`SANDBOX_SOCKET`.
    server_socket: Path
    #: Directories no bot may read (the data directory, the database's, the output folder).
    hidden: tuple[Path, ...] = ()
    #: Address-space limit of a bot process, in MiB.
    memory_mb: int = 4096
    #: Processes (and threads) a bot may run at once (as root, where each bot has a user id of its own).
    max_processes: int = 256
    bwrap: str = "bwrap"
    as_root: bool = True

    @classmethod
    def detect(cls, server_socket: Path, hidden: Sequence[Path] = (), **limits: int) -> Sandbox:
        """A sandbox that works here, checked by starting one.

        Raises:
            SandboxUnavailable: ``bwrap`` (or, as root, ``setpriv``/``prlimit``) is missing or cannot start.
        """
        bwrap = shutil.which("bwrap")
        advice = ("install Debian's bubblewrap package (apt-get install bubblewrap), or, only if you trust every "
                  "entrant, run with --trusted-entrants (entrants can then read each other's seat tokens and "
                  "files: docs/tournament.md, Isolation)")
        if bwrap is None:
            raise SandboxUnavailable(f"cannot sandbox the entrants: bwrap is not installed; {advice}")
        as_root = os.geteuid() == 0
        for tool in ("setpriv", "prlimit"):
            if shutil.which(tool) is None:
                raise SandboxUnavailable(f"cannot sandbox the entrants: {tool} (util-linux) is not installed; {advice}")
        sandbox = cls(server_socket=server_socket, hidden=tuple(hidden), bwrap=bwrap, as_root=as_root, **limits)
        try:
            with tempfile.NamedTemporaryFile() as stand_in:  # the server's socket may not be bound yet
                probe = dataclasses.replace(sandbox, server_socket=Path(stand_in.name)).command(
                    ["/bin/sh", "-c", "exit 0"], visible=(), uid=FIRST_UID)
                done = subprocess.run(probe, capture_output=True, timeout=_PROBE_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"cannot sandbox the entrants: bwrap did not start: {exc}; {advice}") from None
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip()[-300:] or f"exit {done.returncode}"
            raise SandboxUnavailable(f"cannot sandbox the entrants: bwrap failed here ({why}); {advice}")
        return sandbox

    @property
    def address(self) -> str:
        """The server's address as a sandboxed bot dials it."""
        return f"unix:{SANDBOX_SOCKET}"

    def describe(self) -> str:
        """One line for the organiser: what the entrants run in."""
        who = "a user id of its own" if self.as_root else "a user namespace"
        return (f"sandboxed (bwrap): each bot process in its own PID, IPC and network namespaces, as {who}, "
                f"a read-only file system without the data directory, a fresh /tmp, the server through a Unix "
                f"socket; at most {self.memory_mb} MiB and {self.max_processes} processes")

    def command(self, argv: Sequence[str], *, visible: Iterable[Path], uid: int,
                webhook_socket: Path | None = None) -> list[str]:
        """``argv`` wrapped to run sealed off, seeing the system, the ``visible`` paths (read-only) and the socket.

        ``uid`` (as root): the user id the bot runs as, not shared with a bot running at the same time.
        ``webhook_socket``: a webhook entrant's relay to its URL, bound in at :data:`SANDBOX_WEBHOOK_SOCKET`.
        """
        args = [self.bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--hostname", "tricktable-bot"]
        if not self.as_root:
            args.append("--unshare-user")
        args += ["--tmpfs", "/"]
        for name in SYSTEM_PATHS:
            if os.path.islink(name):
                args += ["--symlink", os.readlink(name), name]
            elif os.path.isdir(name):
                args += ["--ro-bind", name, name]
        args += ["--dev", "/dev", "--proc", "/proc", "--perms", "01777", "--tmpfs", "/tmp",
                 "--perms", "01777", "--tmpfs", "/var/tmp", "--tmpfs", "/run", "--dir", "/run/tricktable"]
        made = {Path("/"), Path("/tmp"), Path("/var/tmp"), Path("/run"), Path("/run/tricktable"),
                *(Path(p) for p in SYSTEM_PATHS)}
        # A path inside a hidden directory stays hidden, whoever names it (a command line naming the database).
        shown = [p for p in _minimal(visible) if not any(p.is_relative_to(s) for s in SYSTEM_PATHS)
                 and not any(p.is_relative_to(h) for h in self.hidden)]
        for path in shown:
            for parent in reversed(path.parents):  # bwrap would copy the host's modes (a 0700 /root)
                if parent not in made:
                    args += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
            args += ["--ro-bind", str(path), str(path)]
            made.add(path)
        args += ["--ro-bind", str(self.server_socket), SANDBOX_SOCKET]
        if webhook_socket is not None:
            args += ["--ro-bind", str(webhook_socket), SANDBOX_WEBHOOK_SOCKET]
        for secret in self.hidden:  # hidden last: it covers a visible directory that holds it
            if secret.is_dir() and any(secret.is_relative_to(p) for p in shown):
                args += ["--tmpfs", str(secret)]
        cwd = Path.cwd()
        args += ["--chdir", str(cwd) if any(cwd.is_relative_to(p) for p in shown) else "/tmp", "--"]
        limits = ["prlimit", f"--as={self.memory_mb * 1024 * 1024}"]
        if self.as_root:
            limits.append(f"--nproc={self.max_processes}")
            drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--bounding-set=-all",
                    "--no-new-privs", "--"]
        else:
            drop = []
        return [*args, *limits, "--", *drop, *argv]

    def environment(self, extra: Mapping[str, str]) -> dict[str, str]:
        """A sandboxed bot's environment: :data:`PASSED_ENV` with a home and temporary directory of its own."""
        return {**trusted_environment(extra), "HOME": "/tmp", "TMPDIR": "/tmp"}


def bound_to_this_process(argv: Sequence[str]) -> list[str]:
    """``argv`` started so that it is killed when this process dies, even if it dies as ``argv`` starts.

    Why not only ``bwrap --die-with-parent``: bwrap arms that once it runs, and a tournament killed between
    the fork and that moment would leave the sandbox running. ``setpriv --pdeathsig`` arms it before
    anything else runs, then a shell checks that its parent is still this process (a parent already gone
    ends it at once) and becomes ``argv``. Without ``setpriv`` (a trusted run on another system),
    ``argv`` as it is.
    """
    if shutil.which("setpriv") is None:
        return list(argv)
    return ["setpriv", "--pdeathsig", "KILL", "--", "/bin/sh", "-c", 'test "$PPID" = "$0" || exit 3; exec "$@"',
            str(os.getpid()), *argv]


def user_ids() -> Iterator[int]:
    """User ids for sandboxed bots, in turn (far more than bots can run at once)."""
    return itertools.cycle(range(FIRST_UID, FIRST_UID + _UIDS))
