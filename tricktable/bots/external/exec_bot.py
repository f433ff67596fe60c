"""A bot that is a program: JSON lines on its standard input and output, its stderr kept and shown, bounded.

Three threads per program, so that no behaviour of the program can stall the
caller: one writes to its stdin (a program that never reads blocks only that
thread, and is then told apart as ``not_reading``), one reads its stdout
lines (a line over :data:`tricktable.bots.external.messages.MAX_ANSWER_BYTES`
is garbage, a flood of lines keeps only the newest), one drains its stderr
(:class:`tricktable.bots.stderr.OutputTail`: its end kept for
:meth:`ExecBot.stderr_tail`, the first :data:`STDERR_SHOWN` bytes passed on
to this process's stderr, each line prefixed with the bot's label). The program runs in a session of
its own, so that closing the bot stops everything it started.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import IO, Any

from tricktable.bots.external import messages
from tricktable.bots.external.adapter import DEFAULT_ANSWER_SECONDS, ExternalBot
from tricktable.bots.stderr import OutputTail

#: Bytes of a program's stderr passed on to this process's stderr; the rest is only kept.
STDERR_SHOWN = 16_384
#: Lines of stdout waiting to be read: beyond, the oldest are dropped (they were not answers anyway).
STDOUT_LINES_KEPT = 256
#: Seconds a write to the program's stdin may stay blocked before the program counts as not reading.
NOT_READING_SECONDS = 1.0
#: Seconds a program gets to exit after its stdin is closed at the game's end, before it is killed.
EXIT_GRACE_SECONDS = 2.0
#: Stands in the stdout queue for the end of the program's output.
_EOF = b""


@functools.cache
def _dies_with_us() -> tuple[str, ...]:
    """A prefix that makes the program die with this process however it ends (a ``kill -9`` too), or nothing.

    Why: the program runs in a session of its own (so that closing stops all it started), out of reach of
    whoever kills this process's group; util-linux's ``setpriv --pdeathsig`` has the kernel stop it when this
    process's thread that started it is gone. Where ``setpriv`` is missing (not Linux), the program is stopped
    when the bot is closed or collected, or this process exits normally.
    """
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return ()
    prefix = (setpriv, "--pdeathsig", "KILL", "--")
    try:
        works = subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        works = False
    return prefix if works else ()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Stop the program and whatever it started (its session), and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5.0)


class _Program:
    """The running program and its three threads; apart from the bot, so that a bot nobody holds is collected
    (and its program stopped) although its threads run on."""

    def __init__(self, argv: Sequence[str], label: str, env: Mapping[str, str] | None, cwd: str | None) -> None:
        self.label = label
        self.process = subprocess.Popen([*_dies_with_us(), *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True, cwd=cwd,
                                        env=None if env is None else {**os.environ, **env})
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        #: Its stderr: the last bytes kept, the first :data:`STDERR_SHOWN` passed on to this process's stderr.
        self.stderr = OutputTail(show=self._show, show_bytes=STDERR_SHOWN)
        #: When the write under way began (None: the writer is waiting for a message).
        self.writing_since: float | None = None
        self.exited = False
        for target, name in ((self._write, "stdin"), (self._read, "stdout"), (self._drain, "stderr")):
            threading.Thread(target=target, name=f"{label} {name}", daemon=True).start()

    def _write(self) -> None:
        stdin = self.process.stdin
        if stdin is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while (data := self.outbox.get()) is not None:
                self.writing_since = time.monotonic()
                stdin.write(data)
                stdin.flush()
                self.writing_since = None
        self.writing_since = None
        with contextlib.suppress(OSError, ValueError):
            stdin.close()

    def _read(self) -> None:
        stdout = self.process.stdout
        if stdout is None:
            return
        skipping = False  # inside a line over the limit: its rest is dropped
        with contextlib.suppress(OSError, ValueError):
            while line := stdout.readline(messages.MAX_ANSWER_BYTES + 1):
                complete = line.endswith(b"\n")
                if not skipping:
                    self._put_line(line)
                skipping = not complete
        self.exited = True
        self._put_line(_EOF)

    def _put_line(self, line: bytes) -> None:
        while self.lines.qsize() >= STDOUT_LINES_KEPT and line != _EOF:
            with contextlib.suppress(queue.Empty):
                self.lines.get_nowait()
        self.lines.put(line)

    def _drain(self) -> None:
        stderr = self.process.stderr
        if stderr is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stderr.fileno(), 65_536):
                self.stderr.feed(chunk)
        self.stderr.end()

    def _show(self, line: str) -> None:
        out: IO[bytes] | None = getattr(sys.stderr, "buffer", None)
        if out is None:
            return
        with contextlib.suppress(OSError, ValueError):
            out.write(f"[{self.label}] {line}\n".encode())
            out.flush()

    def stop(self, grace: float = 0.0) -> None:
        """Close the program's stdin (its cue to exit), wait ``grace`` seconds, then stop its whole session."""
        self.outbox.put(None)
        if grace > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=grace)
        _kill_group(self.process)


class ExecBot(ExternalBot):
    """The program ``command`` (a command line, split like a shell's words) playing a seat.

    Raises:
        OSError: the program cannot be started (no such file, not executable).
    """

    def __init__(self, command: str | Sequence[str], *, label: str | None = None,
                 answer_seconds: float = DEFAULT_ANSWER_SECONDS, env: Mapping[str, str] | None = None,
                 cwd: str | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("an exec bot needs a command")
        super().__init__(label or f"exec:{os.path.basename(argv[0])}", answer_seconds=answer_seconds)
        self.argv = argv
        self._program = _Program(argv, self.label, env, cwd)
        self._process = self._program.process
        # Stops the program when the bot is closed, collected, or this process exits.
        self._finalizer = weakref.finalize(self, self._program.stop)

    # The transport.
    def _tell(self, message: dict[str, Any]) -> None:
        if not self._program.exited:
            self._program.outbox.put(messages.encode(message))

    def _exchange(self, message: dict[str, Any], number: int, seconds: float) -> bytes:
        program = self._program
        deadline = time.monotonic() + seconds
        if program.exited:
            raise messages.AnswerFault("exited", self._exit_status())
        since = program.writing_since
        if since is not None and time.monotonic() - since > NOT_READING_SECONDS:
            raise messages.AnswerFault("not_reading", f"stdin not read for {time.monotonic() - since:.1f} s")
        while True:  # what the program wrote before this decision answers none of it
            try:
                if program.lines.get_nowait() == _EOF:
                    raise messages.AnswerFault("exited", self._exit_status())
            except queue.Empty:
                break
        program.outbox.put(messages.encode(message))
        while True:
            left = deadline - time.monotonic()
            try:
                line = program.lines.get(timeout=left) if left > 0 else program.lines.get_nowait()
            except queue.Empty:
                raise messages.AnswerFault("late", f"no answer within {seconds * 1000:.0f} ms") from None
            if line == _EOF:
                raise messages.AnswerFault("exited", self._exit_status())
            if line.strip() and not messages.stale(line, number):
                return line

    def _exit_status(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self._process.wait(timeout=0.5)
            return f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
        return "its output ended"

    def stderr_tail(self) -> str:
        """The last :data:`tricktable.bots.stderr.STDERR_TAIL_BYTES` bytes the program wrote to its stderr."""
        return self._program.stderr.text()

    def show_all_stderr(self) -> None:
        """Pass all of the program's stderr on to this process's stderr, not only its start.

        Why: a tournament's seat process is read by the tournament, which keeps the end of it for the
        organiser (:mod:`tricktable.tournament.bot_output`); the end is what matters there.
        """
        self._program.stderr.show_bytes = None

    @property
    def pid(self) -> int:
        """The program's process id."""
        return self._process.pid

    def close(self) -> None:
        """Close the program's stdin (its cue to exit), give it :data:`EXIT_GRACE_SECONDS`, then stop it."""
        if self._finalizer.detach() is not None:
            self._program.stop(EXIT_GRACE_SECONDS)
