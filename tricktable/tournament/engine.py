"""Running a tournament: schedule, dispatch with bounded concurrency, store, stop when decided.

The engine is one asyncio loop. It recomputes the schedule from the config
(Swiss: round by round, from the stored results), skips the matches already
stored, and hands the rest to a :class:`Dispatcher` with at most
``concurrency`` in flight. Each outcome is stored as soon as it arrives, so a
Ctrl-C or a kill loses only the matches in flight, which ``--resume`` plays
again. The store is called from a thread of its own, never from the loop, so a
database that is slow to answer holds up no match. With an SPRT configured, no new match starts once the test has
decided (over the leading run of complete deck sets, so the decision is the
same whatever order matches finished in).

Dispatchers: :class:`ThreadDispatcher` (a runner in worker threads; tests and
concurrency 1), :class:`ProcessDispatcher` (the in-process runner in a pool
of worker processes, one per core), and the server and Ray dispatchers of
:mod:`tricktable.tournament.server_runner` and :mod:`tricktable.tournament.ray_runner`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import os
import signal
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

import structlog

from tricktable.client_sdk.errors import ConnectionLost
from tricktable.tournament.config import TournamentConfig
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.ratings import Game, SprtState, match_points, pairwise_score, sprt, sprt_from_games
from tricktable.tournament.runner import LocalRunner, MatchOutcome, MatchRunner
from tricktable.tournament.schedule import (
    MatchSpec,
    arrangements_per_deck_set,
    deck_sets_per_group,
    fixed_groups,
    groups_met,
    round_matches,
    swiss_groups,
)
from tricktable.tournament.store import TournamentStore
from tricktable.tournament.store_errors import StoreUnreachableError

log = structlog.get_logger("tricktable.tournament")
T = TypeVar("T")


class Dispatcher(Protocol):
    """Plays matches asynchronously (in threads, processes, over a server or on a cluster)."""

    async def play(self, spec: MatchSpec) -> MatchOutcome:
        """Play one match; raise only for a failure of the machinery itself, never for a bot's fault."""
        ...

    async def close(self) -> None:
        """Release workers, servers and processes."""
        ...


@runtime_checkable
class WaitsForServer(Protocol):
    """A dispatcher over a server that can be away (restarting): the engine waits for it before a replay."""

    async def wait_for_server(self, patience_s: float) -> bool:
        """Whether the server answers within ``patience_s`` seconds."""
        ...


@runtime_checkable
class CreatesTables(Protocol):
    """A dispatcher that creates server tables: they are all given the tournament's organiser credential."""

    owner_token: str


#: Times a match whose server went away is played again from its start before the tournament stops
#: (``interrupted``: ``--resume`` plays it once the server is back).
SERVER_AWAY_ATTEMPTS = 5
#: Seconds the engine waits for an away server before each replay.
SERVER_AWAY_PATIENCE_S = 300.0
#: Seconds before the first retry of a write the database could not take; doubled each retry up to
#: :data:`DATABASE_RETRY_MAX_S` (the whole wait is bounded by the config's ``database_patience_s``).
DATABASE_RETRY_FIRST_S = 0.5
DATABASE_RETRY_MAX_S = 10.0


class ProgressSink(Protocol):
    """Receives progress: ``start`` once per round (totals so far), ``advance`` per stored match."""

    def start(self, total: int, done: int) -> None: ...
    def advance(self, spec: MatchSpec, outcome: MatchOutcome) -> None: ...


def cores() -> int:
    """CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def bounded_concurrency(requested: int) -> int:
    """``requested`` capped by the cores (matches are CPU-bound: more in flight only queue)."""
    return max(1, min(requested, cores()))


class ThreadDispatcher:
    """Runs a :class:`MatchRunner` in a thread pool (the GIL makes this one core: tests and concurrency 1)."""

    def __init__(self, runner: MatchRunner, entrants: Mapping[str, EntrantSpec], workers: int = 1) -> None:
        self.runner = runner
        self.entrants = dict(entrants)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="match")

    async def play(self, spec: MatchSpec) -> MatchOutcome:
        """Run the match in a worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.runner.run, spec, self.entrants)

    async def close(self) -> None:
        """Stop the threads (after the running matches)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def _worker_init() -> None:
    # Ctrl-C is the tournament's to handle: a worker killed mid-match would be a lost match, not a result.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_local(spec_json: dict[str, Any], entrants: dict[str, dict[str, Any]], forfeit_after: int,
               decision_ms: int | None, max_deals: int) -> dict[str, Any]:
    runner = LocalRunner(forfeit_after=forfeit_after, decision_ms=decision_ms, max_deals=max_deals)
    specs = {name: EntrantSpec(**e) for name, e in entrants.items()}
    return runner.run(MatchSpec.from_json(spec_json), specs).to_json()


class ProcessDispatcher:
    """The in-process runner in a pool of worker processes (one match per worker at a time)."""

    def __init__(self, config: TournamentConfig, workers: int) -> None:
        self.config = config
        self._entrants = {e.name: {"name": e.name, "bot": e.bot, "command": e.command} for e in config.entrants}
        self._pool: Executor = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)

    async def play(self, spec: MatchSpec) -> MatchOutcome:
        """Run the match in a worker process."""
        data = await asyncio.get_running_loop().run_in_executor(
            self._pool, _run_local, spec.to_json(), self._entrants, self.config.forfeit_after,
            self.config.decision_ms, self.config.max_deals)
        return MatchOutcome.from_json(data)

    async def close(self) -> None:
        """Stop the workers (after the running matches)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def local_dispatcher(config: TournamentConfig, concurrency: int) -> Dispatcher:
    """The in-process runner: in a thread for one worker, else in a process pool."""
    if concurrency <= 1:
        runner = LocalRunner(forfeit_after=config.forfeit_after, decision_ms=config.decision_ms,
                             max_deals=config.max_deals)
        return ThreadDispatcher(runner, {e.name: e for e in config.entrants})
    return ProcessDispatcher(config, concurrency)


@dataclass(slots=True)
class RunStats:
    """What one run did (this invocation; a resumed tournament counts only what it played)."""

    scheduled: int = 0
    already_done: int = 0
    played: int = 0
    wall_s: float = 0.0
    stopped_by_sprt: bool = False
    sprt: SprtState | None = None
    byes: dict[int, list[str]] = field(default_factory=dict)

    @property
    def games_per_s(self) -> float:
        """Matches played per wall-clock second in this run."""
        return self.played / self.wall_s if self.wall_s > 0 else 0.0


def stored_games(store: TournamentStore, tournament_id: str) -> list[Game]:
    """The stored matches as (spec, outcome), in schedule order."""
    return [(m.spec, m.outcome) for m in store.iter_matches(tournament_id)]


def swiss_round_groups(config: TournamentConfig, round_index: int, games: Sequence[Game],
                       byes_so_far: Mapping[str, int]) -> tuple[list[tuple[str, ...]], list[str]]:
    """Groups of Swiss round ``round_index`` from the results of the earlier rounds (and their byes)."""
    names = [e.name for e in config.entrants]
    scores: dict[str, float] = collections.defaultdict(float)
    earlier = [g for g in games if g[0].round < round_index]
    for spec, outcome in earlier:
        for name, pts in match_points(spec, outcome).items():
            scores[name] += pts
    for name, count in byes_so_far.items():
        scores[name] += count * _bye_points(config)
    met = groups_met(tuple(dict.fromkeys(spec.seats)) for spec, _ in earlier)
    return swiss_groups(names, scores, met, byes_so_far, config.units_per_table, seed=config.seed,
                        round_index=round_index)


def _bye_points(config: TournamentConfig) -> float:
    # A bye is worth a won game in each of the games the entrant would have played that round.
    return float(arrangements_per_deck_set(config) * deck_sets_per_group(config))


#: How a stored outcome says the machinery failed (not a bot): ``--resume`` plays such a match again.
UNPLAYED_REASON = "could not be played"

_NO_OUTCOME = MatchOutcome(match_id="", status="error", winners=(), scores=())


class Tournament:
    """One tournament over one store: :meth:`run` plays what is missing; the store then holds it all."""

    def __init__(self, config: TournamentConfig, store: TournamentStore, dispatcher: Dispatcher, *,
                 concurrency: int = 1, progress: ProgressSink | None = None,
                 on_begin: Callable[[str], None] | None = None) -> None:
        self.config = config
        #: Told the organiser credential once the tournament is registered (the command line writes it down).
        self.on_begin = on_begin
        self.store = store
        self.dispatcher = dispatcher
        self.concurrency = max(1, concurrency)
        self.progress = progress
        self.stats = RunStats()
        self._stop = False
        self._scheduled: list[MatchSpec] = []
        #: Stored games (schedule order at load, then in the order they finish) and their ids.
        self._games: list[Game] = []
        self._done: set[str] = set()
        #: SPRT bookkeeping per (round, deck set): matches scheduled, matches stored, head-to-head scores.
        self._deck_totals: collections.Counter[tuple[int, int]] = collections.Counter()
        self._deck_done: collections.Counter[tuple[int, int]] = collections.Counter()
        self._h2h: dict[tuple[int, int], list[float]] = collections.defaultdict(list)
        #: The one thread the store is called from while :meth:`run` runs (:meth:`_patiently`); each run its own.
        self._store_thread: ThreadPoolExecutor | None = None

    def rounds(self) -> int:
        """Rounds of the format (one unless Swiss)."""
        return self.config.swiss_rounds if self.config.format == "swiss" else 1

    async def run(self, *, resume: bool = False) -> RunStats:
        """Play every scheduled match not yet stored; returns this run's figures.

        Raises:
            StoreError: see :meth:`TournamentStore.begin`.
        """
        started = time.perf_counter()
        tid = self.config.name
        self._store_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tournament-store")
        try:
            # Once: a registration retried after its answer was lost would be refused as existing.
            await self._patiently("begin the tournament", self.store.begin, self.config, resume=resume, retry=False)
            owner_token = await self._patiently("read the organiser token", self.store.owner_token, tid)
        except BaseException:
            await self.dispatcher.close()
            self._close_store_thread()
            raise
        if isinstance(self.dispatcher, CreatesTables):
            self.dispatcher.owner_token = owner_token
        if self.on_begin is not None:
            self.on_begin(owner_token)
        byes: dict[str, int] = collections.defaultdict(int)
        try:
            if resume:
                await self._patiently("forget the unplayed matches", self.store.forget_unplayed, tid, UNPLAYED_REASON)
            self._games = await self._patiently("read the stored matches", stored_games, self.store, tid)
            self._done = {spec.match_id for spec, _ in self._games}
            for game_spec, outcome in self._games:
                self._note_sprt(game_spec, outcome)
            for r in range(self.rounds()):
                done = set(self._done)
                if self.config.format == "swiss":
                    groups, bye = swiss_round_groups(self.config, r, self._games, byes)
                    for name in bye:
                        byes[name] += 1
                    self.stats.byes[r] = bye
                else:
                    groups = fixed_groups(self.config)
                deck_key = await self._patiently("read the deck key", self.store.deck_key, tid)
                specs = round_matches(self.config, r, groups, deck_key)
                self._scheduled.extend(specs)
                for spec in specs:
                    self._note_sprt(spec, _NO_OUTCOME, scheduled=True)
                todo = [s for s in specs if s.match_id not in done]
                self.stats.scheduled = len(self._scheduled)
                self.stats.already_done += len(specs) - len(todo)
                if self.progress is not None and r == 0:
                    # Every round of a format has as many matches as the first.
                    stored = await self._patiently("count the stored matches", self.store.count, tid)
                    self.progress.start(len(specs) * self.rounds(), stored)
                self._check_sprt()
                if self._stop:
                    break
                await self._play_all(todo)
                if self._stop:
                    break
            status = "stopped by sprt" if self.stats.stopped_by_sprt else "finished"
            await self._patiently("store the tournament's end", self.store.set_status, tid, status)
        except BaseException:
            with contextlib.suppress(StoreUnreachableError):  # gone for good: the error raised says so already
                await self._patiently("store the tournament's stop",
                                      self.store.set_status, tid, "interrupted", retry=False)
            raise
        finally:
            self.stats.wall_s = time.perf_counter() - started
            await self.dispatcher.close()
            self._close_store_thread()
        return self.stats

    def _close_store_thread(self) -> None:
        """Wait for the store call still in the store's thread, if any (one whose wait was cancelled), and end it.

        Why wait, and no thread after: the caller goes on using the store from its own thread once :meth:`run`
        returns (the report), and the store is used from one thread at a time; a match still finishing then
        (its tournament stopped) is not stored, and ``--resume`` plays it again.
        """
        if self._store_thread is not None:
            self._store_thread.shutdown(wait=True)
            self._store_thread = None

    async def _play_all(self, todo: list[MatchSpec]) -> None:
        queue = collections.deque(todo)

        async def worker() -> None:
            while queue and not self._stop:
                spec = queue.popleft()
                try:
                    outcome = await self._play_through_restarts(spec)
                except (BrokenProcessPool, ConnectionLost, asyncio.CancelledError):
                    raise
                except Exception as exc:  # the machinery failed for this match: record it, go on
                    outcome = MatchOutcome(match_id=spec.match_id, status="error", winners=(), scores=(),
                                           reason=f"{UNPLAYED_REASON}: {type(exc).__name__}: {exc}")
                await self._patiently(f"store match {spec.match_id}",
                                      self.store.save, self.config.name, spec, outcome)
                self._games.append((spec, outcome))
                self._done.add(spec.match_id)
                self._note_sprt(spec, outcome)
                self.stats.played += 1
                if self.progress is not None:
                    self.progress.advance(spec, outcome)
                if self.config.sprt is not None and {self.config.sprt.a, self.config.sprt.b} & set(spec.seats):
                    self._check_sprt()

        await asyncio.gather(*(worker() for _ in range(min(self.concurrency, max(1, len(todo))))))

    async def _patiently(self, what: str, call: Callable[..., T], *args: Any, retry: bool = True,
                         **kwargs: Any) -> T:
        """``call(*args, **kwargs)`` (one store call) in the store's thread, tried again while the database is away.

        Why another thread: the store is synchronous, and a database host that drops packets holds each call
        for seconds (psycopg's connect timeout and TCP timeouts); on this loop run the matches in flight and,
        with the server runner, the in-process server with its tables' clocks, which must not stop meanwhile.
        Why one thread: the calls keep their order, and the store's connection is used from one thread at a
        time. This is the one place the running tournament calls its store.

        Why retry: a PostgreSQL restart or a cut connection under a running tournament must not stop it, nor
        lose the match just played; the matches in flight go on meanwhile (the waits are the loop's). A write
        retried after its first try had in fact landed counts once (:meth:`TournamentStore.save`). One
        warning per retry; past ``database_patience_s`` the tournament stops (``interrupted``: ``--resume``
        plays what was not stored). ``retry=False``: tried once (a call that may not be repeated, or one
        made while the tournament stops).

        Raises:
            StoreUnreachableError: the database stayed away for ``database_patience_s`` seconds (or, with
                ``retry=False``, did not answer).
        """
        loop = asyncio.get_running_loop()
        if self._store_thread is None:
            raise RuntimeError(f"{what}: the tournament's store is called while it runs only")
        patience = self.config.database_patience_s
        give_up = loop.time() + patience
        delay = DATABASE_RETRY_FIRST_S
        attempt = 0
        while True:
            try:
                return await loop.run_in_executor(self._store_thread, functools.partial(call, *args, **kwargs))
            except StoreUnreachableError as exc:
                if not retry:
                    raise
                left = give_up - loop.time()
                if left <= 0:
                    raise StoreUnreachableError(
                        f"{exc} (still, after {patience:g} s of retries: database_patience_s); the matches "
                        "stored are kept: run the same command with --resume once it can be used again") from None
                attempt += 1
                wait = min(delay, left)
                log.warning("tournament database unreachable; retrying", action=what, attempt=attempt,
                            retry_in_s=round(wait, 2), gives_up_in_s=round(left, 1), error=str(exc))
            await asyncio.sleep(wait)
            delay = min(DATABASE_RETRY_MAX_S, delay * 2)

    async def _play_through_restarts(self, spec: MatchSpec) -> MatchOutcome:
        """Play ``spec``; a match cut off by an away server is played again from its start once it is back.

        Why never stored: a lost connection says nothing about the bots, so a result built on it would
        differ from an undisturbed run's.

        Raises:
            ConnectionLost: the server stayed away (the tournament stops as ``interrupted``).
        """
        waiter = self.dispatcher if isinstance(self.dispatcher, WaitsForServer) else None
        attempt = 1
        while True:
            try:
                return await self.dispatcher.play(spec)
            except ConnectionLost:
                if (waiter is None or attempt == SERVER_AWAY_ATTEMPTS
                        or not await waiter.wait_for_server(SERVER_AWAY_PATIENCE_S)):
                    raise
                attempt += 1

    def _note_sprt(self, spec: MatchSpec, outcome: MatchOutcome, *, scheduled: bool = False) -> None:
        """Keep the SPRT's per-deck-set counts and head-to-head scores up to date (O(1) per match)."""
        key = (spec.round, spec.deck_set)
        if scheduled:
            self._deck_totals[key] += 1
            return
        self._deck_done[key] += 1
        test = self.config.sprt
        if test is not None and test.a in spec.seats:
            score = pairwise_score(spec, outcome, test.a, test.b)
            if score is not None:
                self._h2h[key].append(score)

    def _check_sprt(self) -> None:
        """Evaluate the SPRT over the leading run of complete deck sets; stop dispatching once it decides.

        Head-to-head scores are kept per deck set as games arrive, so a check is one pass over the deck
        sets, not over every game; entrants that never meet fall back to common opponents.
        """
        spec = self.config.sprt
        if spec is None:
            return
        prefix: list[tuple[int, int]] = []
        for key in sorted(self._deck_totals):
            if self._deck_done[key] < self._deck_totals[key]:
                break
            prefix.append(key)
        if self._h2h:
            state = sprt([statistics.fmean(self._h2h[k]) for k in prefix if k in self._h2h], spec)
        else:
            pair = {spec.a, spec.b}
            complete = {k: self._deck_done[k] >= n for k, n in self._deck_totals.items()}
            state = sprt_from_games([g for g in self._games if pair & set(g[0].seats)], spec, complete)
        self.stats.sprt = state
        if state.decision is not None:
            self._stop = True
            self.stats.stopped_by_sprt = True
