"""The replay page's analysis timeline, computed on demand: a seat's decisions valued by the search bot.

``tricktable analyse`` (:mod:`tricktable.analysis.decisions`) run from the page: the
record is replayed and, at each decision of the seat, the search bot values
every legal action from that seat's view only. It costs CPU seconds (the
search's worlds, ``sims`` a decision), and the viewer shares its process with
the game server's tables (``tricktable serve``, ``tricktable match``): a
thread of that process would hold its interpreter lock and slow every table.
So each analysis runs in a worker process of its own pool, started on the
first request, at the lowest CPU priority the system grants (nice 19, and
``SCHED_IDLE`` on Linux: it gets only the CPU nothing else wants), with
bounded work: :data:`WORKERS` at once, :data:`QUEUED` more waiting (beyond:
:class:`AnalysisBusyError`, answered 503), each stopped after
:data:`TIME_LIMIT_SECONDS` (:class:`AnalysisTimeoutError`). The last
:data:`KEPT` results are kept, so looking again costs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from pebble import ProcessPool

from tricktable.analysis.decisions import analyse, search_estimator
from tricktable.rules.record import parse_record
from tricktable.rules.verify import verify_record

#: Worlds a decision by default: a few seconds for a whole game, with losses under a deal point of noise.
DEFAULT_SIMS = 50
#: Worlds a decision at most (an analysis is bounded work for one request).
MAX_SIMS = 400
#: Analyses kept (by record, seat and worlds), so looking again costs nothing.
KEPT = 32
#: Analyses running at once (each in its worker process).
WORKERS = 1
#: Analyses waiting for a worker; one more is refused (503) until one ends.
QUEUED = 4
#: Seconds an analysis may run (a long Cinq Cents game at the most worlds fits); then its worker is stopped.
TIME_LIMIT_SECONDS = 600.0
#: Seconds a refused request is told to wait (``Retry-After``).
RETRY_AFTER_SECONDS = 30

#: What an analysis job is: (record, seat, sims) -> the analysis as ``tricktable analyse --json``.
Job = Callable[[dict[str, Any], int, int], dict[str, Any]]


class AnalysisError(ValueError):
    """The request can not be analysed: a bad seat or world count, or a record that does not replay."""


class AnalysisBusyError(RuntimeError):
    """As many analyses are running and waiting as the viewer allows: ask again later."""


class AnalysisTimeoutError(RuntimeError):
    """The analysis ran past its time limit and was stopped."""


def lowest_priority() -> None:
    """Make this process take only the CPU that nothing else wants: nice 19, and ``SCHED_IDLE`` where granted."""
    os.nice(19 - os.nice(0))
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):  # a system or container may refuse it: nice 19 stays
            os.sched_setscheduler(0, idle, os.sched_param(0))


def analysis(data: dict[str, Any], seat: int, sims: int) -> dict[str, Any]:
    """The analysis job (it runs in a worker process)."""
    problem = verify_record(data)
    if problem is not None:
        raise AnalysisError(f"the record does not replay: {problem}")
    record = parse_record(data)
    try:
        result = analyse(record, seat, search_estimator(sims, seed="web"))
    except ValueError as error:  # no such seat
        raise AnalysisError(str(error)) from None
    return {"analyser": "search", "sims": sims, **result.to_json()}


class Analyses:
    """On-demand analyses in a low-priority worker pool, bounded, the last :data:`KEPT` kept.

    ``job`` is what a worker runs (a test gives one it can hold); it must be a
    module-level function (or a partial of one): workers are started fresh
    (``spawn``), never forked from a process with the server's threads.
    """

    def __init__(self, *, workers: int = WORKERS, queued: int = QUEUED, time_limit: float = TIME_LIMIT_SECONDS,
                 job: Job = analysis) -> None:
        self.workers = workers
        self.queued = queued
        self.time_limit = time_limit
        self.job = job
        self._pool: ProcessPool | None = None
        self._running: dict[tuple[str, int, int], asyncio.Task[dict[str, Any]]] = {}
        self._kept: OrderedDict[tuple[str, int, int], dict[str, Any]] = OrderedDict()

    @property
    def pending(self) -> int:
        """Analyses running or waiting for a worker."""
        return len(self._running)

    async def of(self, key: str, record: dict[str, Any], seat: int, sims: int) -> dict[str, Any]:
        """The analysis of ``seat`` in ``record`` (``key`` names the record), as ``tricktable analyse --json``.

        A request for an analysis already running waits for that one.

        Raises:
            AnalysisError: the seat or world count is out of range, or the record does not replay.
            AnalysisBusyError: :data:`WORKERS` analyses run and :data:`QUEUED` wait.
            AnalysisTimeoutError: it ran past the time limit.
        """
        if not 1 <= sims <= MAX_SIMS:
            raise AnalysisError(f"sims must be 1 to {MAX_SIMS}, not {sims}")
        wanted = (key, seat, sims)
        found = self._kept.get(wanted)
        if found is not None:
            self._kept.move_to_end(wanted)
            return found
        running = self._running.get(wanted)
        if running is None:
            if len(self._running) >= self.workers + self.queued:
                raise AnalysisBusyError(
                    f"the viewer is busy: {len(self._running)} analyses are running or waiting, the most it takes "
                    f"({self.workers} at once, {self.queued} waiting); ask again in a while")
            running = asyncio.get_running_loop().create_task(self._run(wanted, record, seat, sims))
            self._running[wanted] = running
        # Shielded: a page closed while waiting does not stop the analysis another page may be waiting for.
        return await asyncio.shield(running)

    async def _run(self, wanted: tuple[str, int, int], record: dict[str, Any], seat: int,
                   sims: int) -> dict[str, Any]:
        try:
            future = self._workers().schedule(self.job, args=(record, seat, sims), timeout=self.time_limit)
            try:
                found: dict[str, Any] = await asyncio.wrap_future(future)
            except FutureTimeout:
                raise AnalysisTimeoutError(f"the analysis ran past its limit of {self.time_limit:g} s and was "
                                           "stopped; ask for fewer worlds (sims)") from None
            self._kept[wanted] = found
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
            return found
        finally:
            del self._running[wanted]

    def _workers(self) -> ProcessPool:
        if self._pool is None:
            self._pool = ProcessPool(max_workers=self.workers, initializer=lowest_priority,
                                     context=multiprocessing.get_context("spawn"))
        return self._pool

    async def close(self) -> None:
        """Stop the workers (a running analysis with them)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]  # pebble leaves stop() unannotated
            await asyncio.to_thread(pool.join)
