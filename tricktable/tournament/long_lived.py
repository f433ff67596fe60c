"""Long-lived entrant processes: one bot process plays many matches, never two tables of one deck set.

Why: starting a Python bot (the interpreter, its imports, a sandbox) costs
more CPU than the game it then plays. A long-lived process is started once
and handed one seat after another on its control descriptor
(:mod:`tricktable.tournament.control`), each seat's token on that private
descriptor only.

What it must never do is play two tables of one deck set: the twin tables
deal the same cards with the sides rotated, so a process that had seen one
would know the other's hands. :class:`EntrantPool` keeps, for every
process, the table it played of each deck set, and hands a seat only to an
idle process of the same entrant that has played no other table of that
deck set (a new process otherwise); :meth:`EntrantProcess.hand` checks it
again where the token is written. Processes share nothing: each is a
sandbox of its own (its own ``/tmp``, user id and namespaces), so what one
learnt cannot reach another.

A process that exits while it holds a seat answers for it ``exit N``, as a
per-match process's exit would: the dispatcher counts the fault and hands the
seat again (to another process, or a new one). A process that exits while
idle is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tricktable.tournament.bot_output import StderrTail
from tricktable.tournament.control import ControlError, Done, Fault, Hand, parse_reply
from tricktable.tournament.entrants import EntrantSpec

#: Told a fault of the seat's bot as the process reports it: its kind and its message.
OnFault = Callable[[str, str], None]
#: A deck set of the schedule: (round, deck set).
DeckSet = tuple[int, int]
#: Long-lived processes alive at once, at most; beyond it the least recently used idle one is stopped.
MAX_PROCESSES = 64

_plays = itertools.count(1)


class TwinTableRefused(RuntimeError):
    """A seat of a second table of one deck set was about to reach a process: a bug, never a bot's fault."""


@dataclass(eq=False, slots=True)
class EntrantProcess:
    """One long-lived bot process of one entrant, and what it has been handed."""

    entrant: str
    process: asyncio.subprocess.Process
    stderr: StderrTail
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    #: The table of each deck set this process was handed a seat of.
    tables: dict[DeckSet, str] = field(default_factory=dict)
    busy: bool = False
    used: float = field(default_factory=time.monotonic)
    #: Seats handed and not yet answered for, by play id.
    _pending: dict[str, asyncio.Future[str]] = field(default_factory=dict)
    #: Who is told the faults reported for each seat handed, by play id.
    _on_fault: dict[str, OnFault] = field(default_factory=dict)
    _reading: asyncio.Task[None] | None = None
    _gone: bool = False
    #: Why the process was taken for crashed though it still ran (a line that broke the protocol).
    protocol_error: str = ""
    #: Seats this process was handed in all.
    handed: int = 0

    def __post_init__(self) -> None:
        self._reading = asyncio.ensure_future(self._read())

    @property
    def alive(self) -> bool:
        """The process has not exited (nor closed its control descriptor, nor broken the protocol)."""
        return not self._gone

    def may_play(self, deck_set: DeckSet, table_id: str) -> bool:
        """Whether this process may be handed a seat of ``table_id``: no other table of its deck set so far."""
        return self.tables.get(deck_set, table_id) == table_id

    async def hand(self, deck_set: DeckSet, table_id: str, *, token: str, seat: int, seed: str,
                   address: str, on_fault: OnFault | None = None) -> asyncio.Future[str]:
        """Hand the process a seat; the future gives its answer (``said finished``) or ``exit N`` if it died.

        ``on_fault`` is told each fault the process reports for the seat (:class:`Fault`), as it comes.

        Raises:
            TwinTableRefused: the process played another table of this deck set.
        """
        if not self.may_play(deck_set, table_id):
            raise TwinTableRefused(f"a process of {self.entrant} played table {self.tables[deck_set]} of deck "
                                   f"set {deck_set}; it may not be handed {table_id}")
        self.tables[deck_set] = table_id
        self.handed += 1
        play = str(next(_plays))
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending[play] = answer
        if on_fault is not None:
            self._on_fault[play] = on_fault
        if not self.alive:
            await self._ended()
            return answer
        try:
            self.writer.write(Hand(play=play, token=token, seat=seat, seed=seed, address=address).line())
            await self.writer.drain()
        except (ConnectionError, OSError):
            await self._ended()
        return answer

    async def _read(self) -> None:
        try:
            while line := await self.reader.readline():
                try:
                    reply = parse_reply(line)
                except ControlError as exc:
                    self.protocol_error = str(exc)
                    break
                if isinstance(reply, Fault):
                    told = self._on_fault.get(reply.play)
                    if told is not None and reply.play in self._pending:
                        told(reply.kind, reply.message)
                    continue
                done: Done = reply
                self._on_fault.pop(done.play, None)
                answer = self._pending.pop(done.play, None)
                if answer is not None and not answer.done():
                    answer.set_result(done.describe())
        except (ConnectionError, OSError, ValueError):  # ValueError: a line over the limit
            pass
        await self._ended()

    async def _ended(self) -> None:
        """The process is gone (or broke the protocol): every seat it held is answered with its exit."""
        self._gone = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), timeout=5.0)
        how = (f"broke the control protocol ({self.protocol_error})" if self.protocol_error
               else f"exit {self.process.returncode}")
        for answer in self._pending.values():
            if not answer.done():
                answer.set_result(how)
        self._pending.clear()
        self._on_fault.clear()

    async def kill(self) -> None:
        """Kill the process (and its group) and reap it; its stderr is still read to its end, and kept."""
        await self._ended()

    async def stop(self) -> None:
        """Stop the process and its children (its process group), whatever it is doing."""
        with contextlib.suppress(Exception):
            self.writer.close()
        await self._ended()
        if self._reading is not None:
            self._reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reading
        await self.stderr.close()


Spawn = Callable[[EntrantSpec], Awaitable["EntrantProcess | str"]]


class EntrantPool:
    """The long-lived processes of a tournament: :meth:`lease` one for a seat, :meth:`release` it after."""

    def __init__(self, spawn: Spawn, *, limit: int = MAX_PROCESSES) -> None:
        self._spawn = spawn
        self.limit = limit
        self._processes: list[EntrantProcess] = []
        #: Processes started in all (a figure for the benchmark and the tests).
        self.started = 0

    async def lease(self, entrant: EntrantSpec, deck_set: DeckSet, table_id: str) -> EntrantProcess | str:
        """An idle process of ``entrant`` that may play ``table_id`` (a new one if none), marked busy.

        Returns why no process could be started, instead, as the per-match launcher does.
        """
        self._processes = [p for p in self._processes if p.alive or p.busy]
        for proc in sorted(self._processes, key=lambda p: -p.used):
            if proc.entrant == entrant.name and not proc.busy and proc.alive and proc.may_play(deck_set, table_id):
                proc.busy = True
                return proc
        idle = sorted((p for p in self._processes if not p.busy), key=lambda p: p.used)
        while idle and len(self._processes) >= self.limit:
            oldest = idle.pop(0)
            self._processes.remove(oldest)
            await oldest.stop()
        spawned = await self._spawn(entrant)
        if isinstance(spawned, str):
            return spawned
        self.started += 1
        spawned.busy = True
        self._processes.append(spawned)
        return spawned

    def release(self, proc: EntrantProcess) -> None:
        """The process is through with its seat: it may be handed another (of a deck set it has not played)."""
        proc.busy = False
        proc.used = time.monotonic()

    async def discard(self, proc: EntrantProcess) -> None:
        """Stop a process that cannot be handed another seat (it never answered for its last one)."""
        proc.busy = False
        if proc in self._processes:
            self._processes.remove(proc)
        await proc.stop()

    async def close(self) -> None:
        """Stop every process (the tournament is over)."""
        processes, self._processes = self._processes, []
        for proc in processes:
            await proc.stop()
