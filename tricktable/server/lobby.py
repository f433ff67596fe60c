"""The set of tables: creation with limits, join tokens, seek, storage of ended tables, shutdown.

The lobby creates each table from a fresh secret seed (or the creator's),
hands out one join token per seat and one owner token to the creator, seats
seekers once enough wait for the
same game and player count, and stores every ended table's record. With a
journal (:mod:`tricktable.server.journal`) it journals each table from its creation,
resumes the journaled tables on start (:meth:`Lobby.resume`) and forgets a
table in the journal once its record is stored.

On shutdown it stops accepting tables and seekers, lets the running tables
play on for up to ``drain_seconds``, then suspends the rest for the next
start (with a journal) or aborts them with reason "server shutdown"
(without), and waits until every ended table's record is stored.

When storage fails (a full disk; :mod:`tricktable.server.store_health`), the
lobby creates no table and seats no seeker or first join
(:class:`StorageUnavailableError`), and the running tables play on. An
ended table's record that could not be stored stays in memory with its
table, and is stored again every :data:`tricktable.server.store_health.CHECK_SECONDS`
by the storage keeper (:meth:`Lobby.keep_storage`) and at shutdown, for up
to :data:`STORE_PATIENCE_SECONDS`; the journal keeps the table meanwhile,
so even a restart before then plays it to its end and stores the record.
How many records may wait is bounded (``Limits.max_unstored_records``): at
the bound no table is created until they are stored.

What is withheld (docs/protocol.md, section 19): a table whose seed the
creator chose may share its decks with other tables (a tournament plays each
deck set several times). While another table dealt from the same seed is not
over - or, when the creator sealed the table, until its deck set is over (for
good without one) - its record, its spectating and its progress are withheld
from anyone without its owner token, so nothing about a running table's cards
leaks through its twin. The rule is :func:`tricktable.server.withholding.withheld`;
the lobby gathers its facts (open twins, the deck-set indexes ended, here and
in the store) and, when a twin is created, wakes the spectators of the tables
it withholds so that their streams end.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import structlog

from tricktable.rules.game import Seat
from tricktable.rules.registry import game_rules, new_match
from tricktable.server import withholding
from tricktable.server.clocks import TimeControl
from tricktable.server.errors import (
    BadTokenError,
    InvalidRequestError,
    ShuttingDownError,
    StorageUnavailableError,
    TableNotFoundError,
    TableNotOverError,
    TooManyStreamsError,
    TooManyTablesError,
    WithheldError,
)
from tricktable.server.journal import Journal, Opening, TableJournal
from tricktable.server.limits import Limits
from tricktable.server.metrics import Metrics
from tricktable.server.record_store import RecordStore
from tricktable.server.seats import TokenBook, clean_name, new_token, token_digest
from tricktable.server.shard_ids import table_id_for, token_prefix
from tricktable.server.storage import TableMeta
from tricktable.server.store_health import CHECK_SECONDS, JOURNAL, RECORDS, StoreHealth, check_free_space
from tricktable.server.stream_guard import ClientStreams
from tricktable.server.tables import Table, TableStatus
from tricktable.server.withholding import MAX_OWNER_TOKEN, MIN_OWNER_TOKEN, DeckSet, twin_key

log = structlog.get_logger("tricktable.lobby")

MAX_SEED = 256
#: Longest an ended table's record waits to be stored with the others ended meanwhile (one transaction and one
#: worker-thread hop a batch instead of a table). The table keeps its record in memory until then and after, and
#: the journal keeps the table until its record is stored, so a crash meanwhile loses nothing.
STORE_SECONDS = 0.5
#: How long a shutdown keeps trying to store records that fail to be stored (a full disk) before it gives up on
#: them: the journal still holds those tables, and the next start stores their records.
STORE_PATIENCE_SECONDS = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTicket:
    """A seat at a table: what seek hands out (the table may run in another shard: ``play_address``)."""

    table_id: str
    seat: Seat
    token: str
    seed_sha256: str
    #: Where the table runs when another process placed it; empty: this server.
    play_address: str = ""


#: Creates the table of a group of seekers somewhere (a sharded server's placement): game, player
#: count, names, client -> one ticket per seat.
Placer = Callable[[str, int, list[str], str], Awaitable[list[SeatTicket]]]


@dataclass(slots=True)
class _Seeker:
    name: str
    client: str
    future: asyncio.Future[SeatTicket] = field(repr=False)


class Lobby:
    """Every open table of one server process."""

    def __init__(self, storage: RecordStore, *, limits: Limits | None = None,
                 time_control: TimeControl | None = None, journal: Journal | None = None,
                 shard: int | None = None) -> None:
        self.storage = storage
        self.journal = journal
        self.limits = limits or Limits()
        #: Open streams per connection and per client address (calls and PlayMany conversations), every kind.
        self.client_streams = ClientStreams(self.limits.max_streams_per_client,
                                            self.limits.max_streams_per_connection)
        self.time_control = time_control or TimeControl()
        #: This process's shard (``serve --shards``): its table ids and tokens name it; None: unsharded.
        self.shard = shard
        #: Where seated seekers' tables are created; None: in this lobby.
        self.placer: Placer | None = None
        self.tokens = TokenBook(token_prefix(shard))
        self._tables: dict[str, Table] = {}
        #: The tables not over yet, and how many of them each client address created: what the limits count.
        self._open: dict[str, Table] = {}
        self._open_by_client: Counter[str] = Counter()
        self._owners: dict[str, str] = {}
        self._seekers: dict[tuple[str, int], list[_Seeker]] = {}
        #: Per (game, players): an event set when the number of waiting seekers changes.
        self._seek_changed: dict[tuple[str, int], asyncio.Event] = {}
        self._storing: set[asyncio.Task[None]] = set()
        #: Ended tables whose records wait to be stored together (:data:`STORE_SECONDS`), the timer that will
        #: start storing them, and the task storing them.
        self._unstored: list[Table] = []
        self._store_timer: asyncio.TimerHandle | None = None
        self._storer: asyncio.Task[None] | None = None
        #: Twin key (:func:`twin_key` of a chosen seed) -> ids of its tables not over yet: while there are two,
        #: each withholds its cards.
        self._open_twins: dict[str, set[str]] = {}
        #: Twin key -> deck-set indexes of its sealed tables ended in this process, and of those in the store
        #: (read once per key: every table that ends later ends here): when a deck set is over, its seal lifts.
        self._ended_here: dict[str, set[int]] = {}
        self._ended_stored: dict[str, set[int]] = {}
        self._reading_ended: dict[str, asyncio.Future[None]] = {}
        #: Ids of the ended tables whose records are not stored yet (waiting, being stored, or failed to be).
        self._unstored_ids: set[str] = set()
        #: Whether the journal and the record store write (:meth:`check_storage` refuses while not).
        self.health = StoreHealth()
        self._keeper: asyncio.Task[None] | None = None
        #: Spectate streams open per table id.
        self._spectators: Counter[str] = Counter()
        self.closing = False
        #: This process's metrics (``/metrics``): counted by its tables, journal and record store.
        self.metrics = Metrics()
        self.metrics.watch(self.tables, lambda: sum(self.client_streams.open.values()),
                           lambda: sum(self._spectators.values()))
        self.metrics.watch_storage(lambda: self.health.writable, lambda: len(self._unstored_ids))
        if journal is not None:
            journal.metrics = self.metrics
            journal.health = self.health

    # --- tables ----------------------------------------------------------

    def open_tables(self, client: str | None = None) -> list[Table]:
        """Tables not over yet, optionally only those ``client`` created."""
        return [t for t in self._open.values()
                if not t.is_over and (client is None or self._owners.get(t.id) == client)]

    def create_table(
        self,
        *,
        game: str,
        options: Mapping[str, Any] | None = None,
        time_control: TimeControl | None = None,
        seed: str | None = None,
        names: list[str] | None = None,
        client: str = "",
        sealed: bool = False,
        deck_set: DeckSet | None = None,
        owner_token: str = "",
    ) -> tuple[Table, list[str]]:
        """A new table and one join token per seat (the creator's owner token is ``table.owner_token``).

        ``deck_set``: a sealed table's place among the tables dealt from its seed (when its seal lifts);
        ``owner_token``: the creator's own (a tournament's, for all its tables); empty: one is drawn.

        Raises:
            ShuttingDownError, TooManyTablesError, InvalidRequestError, OptionsError.
        """
        if self.closing:
            raise ShuttingDownError("the server is shutting down and accepts no new tables")
        self.check_storage()
        if len(self._open) >= self.limits.max_tables:
            raise TooManyTablesError(f"the server holds its limit of {self.limits.max_tables} open tables")
        if client and self._open_by_client[client] >= self.limits.max_tables_per_client:
            raise TooManyTablesError(
                f"this client holds its limit of {self.limits.max_tables_per_client} open tables")
        if seed is not None and not 1 <= len(seed) <= MAX_SEED:
            raise InvalidRequestError(f"seed must be 1 to {MAX_SEED} characters when set (leave it unset and the "
                                      f"server draws a secret one), not {len(seed)}")
        _check_withholding(seed, sealed, deck_set, owner_token)
        control = (time_control or self.time_control).validate()
        secret = seed if seed else secrets.token_hex(16)
        asked = dict(options or {})
        match = new_match(game, asked, seed=secret)
        if names is not None and len(names) > match.config.players:
            raise InvalidRequestError(f"seat_names has {len(names)} names for a {match.config.players}-player "
                                      f"table")
        table_id = table_id_for(self.shard, secrets.token_hex(6))
        table = Table(table_id=table_id, match=match, seed=secret, time_control=control, names=names,
                      on_end=self._table_ended, max_deals=self.limits.max_deals, seed_chosen=bool(seed),
                      sealed=sealed, deck_set=deck_set, metrics=self.metrics)
        owner = owner_token or new_token()
        table.owner_token, table.owner_digest = owner, token_digest(owner)
        tokens = [self.tokens.issue(table_id, state.seat) for state in table.seats]
        digests = [token_digest(t) for t in tokens]
        if self.journal is not None:
            self.journal.open_table(Opening(
                table_id=table_id, game=game, options=asked, seed=secret, time_control=asdict(control),
                names=table.names, token_digests=digests, created_at=table.created_at, client=client,
                salt=table.salt, seed_chosen=table.seed_chosen, sealed=sealed, owner_digest=table.owner_digest,
                deck_set=None if deck_set is None else [deck_set.tables, deck_set.index]))
            if table_id in self.journal.broken:  # not journaled: it would not survive a restart
                table.discard()
                self.tokens.revoke(digests)
                self.journal.broken.discard(table_id)  # never handed out: nothing more is written for it
                self.check_storage()
                raise StorageUnavailableError("storage unavailable: the table could not be journaled")
            table.journal = TableJournal(self.journal, table_id)
        self._add(table, digests, client)
        log.info("table created", table=table_id, game=game, players=table.players, client=client)
        return table, tokens

    def check_storage(self) -> None:
        """Pass while the journal and the record store write and the records waiting are under their bound.

        Raises:
            StorageUnavailableError
        """
        if not self.health.writable:
            raise StorageUnavailableError(f"storage unavailable: {self.health.reason}; the server takes no new "
                                          "tables or seats until it writes again (running tables play on)")
        if len(self._unstored_ids) >= self.limits.max_unstored_records:
            raise StorageUnavailableError(f"storage unavailable: {len(self._unstored_ids)} records wait to be "
                                          "stored; the server takes no new tables until they are")

    def check_join(self, table: Table) -> None:
        """Pass unless a join would seat a table that has not started while storage fails (its start is a write).

        Raises:
            StorageUnavailableError
        """
        if table.status is TableStatus.WAITING:
            self.check_storage()

    def _add(self, table: Table, digests: list[str], client: str) -> None:
        """Hold ``table`` open, its seats bound to the tokens of ``digests``; withhold its twins from now on.

        Spectators already following a twin that this table withholds (it was not withheld before) are
        woken: their streams check the rule again and end (:meth:`check_open`), before any more event.
        """
        for state, digest in zip(table.seats, digests, strict=True):
            state.token_digest = digest
            self.tokens.restore(table.id, state.seat, digest)
        self._tables[table.id] = table
        self._open[table.id] = table
        self._owners[table.id] = client
        self._open_by_client[client] += 1
        if table.twin_key:
            twins = self._open_twins.setdefault(table.twin_key, set())
            for twin in twins:
                self._tables[twin].wake()
            twins.add(table.id)
            if table.deck_set is not None:
                self._read_ended_soon(table.twin_key)

    def resume(self) -> list[Table]:
        """Rebuild every table of the journal (at start-up, before serving) and return them.

        Each is replayed through the rules engine to its pending decision; its
        seats rejoin with their old tokens. A table that can not be rebuilt is
        aborted with the reason (its record stored), never left half-resumed.
        A table whose record is stored already (the journal forgets in batches,
        :meth:`Journal.close_table`) is forgotten, not played again.
        """
        if self.journal is None:
            return []
        resumed = []
        for entry in self.journal.tables():
            o = entry.opening
            if self.storage.meta(o.table_id) is not None:  # ended before the crash; the journal had yet to forget it
                log.info("journaled table already stored; forgotten", table=o.table_id, game=o.game)
                self.journal.close_table(o.table_id)
                continue
            try:
                match = new_match(o.game, o.options, seed=o.seed)
                table = Table(table_id=o.table_id, match=match, seed=o.seed,
                              time_control=TimeControl(**o.time_control).validate(), names=o.names,
                              on_end=self._table_ended, max_deals=self.limits.max_deals, salt=o.salt or None,
                              seed_chosen=o.seed_chosen, sealed=o.sealed,
                              deck_set=None if o.deck_set is None else DeckSet(*o.deck_set), metrics=self.metrics)
                table.owner_digest = o.owner_digest
            except Exception:
                log.exception("journaled table can not be rebuilt; dropped", table=o.table_id, game=o.game)
                self.journal.close_table(o.table_id)
                continue
            table.created_at = o.created_at
            self._add(table, o.token_digests, o.client)
            try:
                table.replay(entry.steps)
            except Exception as error:
                log.exception("journaled table can not be replayed", table=o.table_id, game=o.game)
                table.abort(f"could not resume after a restart: {error}")
            if not table.is_over:
                table.journal = TableJournal(self.journal, table.id)
            resumed.append(table)
        log.info("tables resumed from the journal", tables=len(resumed),
                 running=sum(t.status is TableStatus.RUNNING for t in resumed))
        return resumed

    def tables(self) -> list[Table]:
        """Every table in memory: open ones and those ended in the last ``retain_seconds``."""
        return list(self._tables.values())

    def find(self, table_id: str) -> Table | None:
        """The table in memory with this id, or None."""
        return self._tables.get(table_id)

    def table(self, table_id: str) -> Table:
        """The table in memory with this id.

        Raises:
            TableNotFoundError
        """
        table = self._tables.get(table_id)
        if table is None:
            raise TableNotFoundError(f"no open table {table_id!r}")
        return table

    def resolve(self, token: str) -> tuple[Table, Seat]:
        """The table and seat a join token is bound to.

        Raises:
            BadTokenError
        """
        table_id, seat = self.tokens.resolve(token)
        table = self._tables.get(table_id)
        if table is None:
            raise BadTokenError("the token's table is closed")
        return table, seat

    def check_seat_streams(self, table: Table, seat: Seat) -> None:
        """Pass while ``seat`` holds fewer open streams than the limit.

        Raises:
            TooManyStreamsError
        """
        if table.seats[seat].connections >= self.limits.max_streams_per_seat:
            raise TooManyStreamsError(f"this seat holds its limit of {self.limits.max_streams_per_seat} open streams")

    @contextlib.contextmanager
    def spectating(self, table: Table) -> Iterator[None]:
        """Count one spectator of ``table`` for the block.

        Raises:
            TooManyStreamsError: the table has its limit of spectators.
        """
        if self._spectators[table.id] >= self.limits.max_spectators_per_table:
            raise TooManyStreamsError(
                f"this table has its limit of {self.limits.max_spectators_per_table} spectators")
        self._spectators[table.id] += 1
        try:
            yield
        finally:
            self._spectators[table.id] -= 1
            if not self._spectators[table.id]:
                del self._spectators[table.id]

    # --- seek ------------------------------------------------------------

    async def seek(self, *, game: str, players: int, name: str = "", client: str = "") -> SeatTicket:
        """Wait until ``players`` seekers want ``game``, then seat them at a new table (default options).

        Raises:
            ShuttingDownError, TooManyTablesError, OptionsError (bad game or player count).
        """
        if self.closing:
            raise ShuttingDownError("the server is shutting down and seats no seekers")
        self.check_storage()
        game_rules(game).config({"players": players})  # OptionsError for an unknown game or a bad count
        if sum(len(q) for q in self._seekers.values()) >= self.limits.max_seekers:
            raise TooManyTablesError(f"the server holds its limit of {self.limits.max_seekers} seekers")
        future: asyncio.Future[SeatTicket] = asyncio.get_running_loop().create_future()
        queue = self._seekers.setdefault((game, players), [])
        seeker = _Seeker(name=clean_name(name, "seeker"), client=client, future=future)
        queue.append(seeker)
        log.info("seeking", game=game, players=players, waiting=len(queue), client=client)
        if len(queue) >= players:
            group, queue[:] = queue[:players], queue[players:]
            self._seat_group(game, players, group)
        self._seekers_changed(game, players)
        try:
            return await future
        finally:
            if seeker in queue:
                queue.remove(seeker)
                self._seekers_changed(game, players)

    def _seat_group(self, game: str, players: int, group: list[_Seeker]) -> None:
        if self.placer is not None:
            task = asyncio.get_running_loop().create_task(self._seat_placed(game, players, group, self.placer))
            self._storing.add(task)  # held until done, like a record being stored
            task.add_done_callback(self._storing.discard)
            return
        try:
            table, tokens = self.create_table(game=game, options={"players": players},
                                              names=[s.name for s in group], client=group[0].client)
        except Exception as error:
            _hand_out(group, error)
            return
        _hand_out(group, [SeatTicket(table_id=table.id, seat=seat, token=token, seed_sha256=table.seed_sha256)
                          for seat, token in enumerate(tokens)])

    async def _seat_placed(self, game: str, players: int, group: list[_Seeker], placer: Placer) -> None:
        try:
            tickets = await placer(game, players, [s.name for s in group], group[0].client)
        except Exception as error:
            _hand_out(group, error)
            return
        _hand_out(group, tickets)

    def seekers(self, game: str, players: int) -> int:
        """How many seekers wait for ``game`` with ``players``."""
        return len(self._seekers.get((game, players), []))

    async def seekers_change(self, game: str, players: int) -> None:
        """Return when the number of seekers waiting for ``game`` with ``players`` changes."""
        changed = self._seek_changed.setdefault((game, players), asyncio.Event())
        await changed.wait()

    def _seekers_changed(self, game: str, players: int) -> None:
        changed = self._seek_changed.pop((game, players), None)
        if changed is not None:
            changed.set()

    # --- ended tables ----------------------------------------------------

    def _table_ended(self, table: Table) -> None:
        if self._open.pop(table.id, None) is not None:
            client = self._owners.get(table.id, "")
            self._open_by_client[client] -= 1
            if not self._open_by_client[client]:
                del self._open_by_client[client]
        twins = self._open_twins.get(table.twin_key)
        if twins is not None:
            twins.discard(table.id)
            if not twins:
                del self._open_twins[table.twin_key]
        if table.deck_set is not None:
            self._ended_here.setdefault(table.twin_key, set()).add(table.deck_set.index)
        self._unstored.append(table)
        self._unstored_ids.add(table.id)
        if self._store_timer is None and self._storer is None:
            self._store_timer = asyncio.get_running_loop().call_later(STORE_SECONDS, self._store_waiting)

    def _store_waiting(self) -> None:
        """Start storing the records of the ended tables waiting, unless a store running already takes them."""
        if self._store_timer is not None:
            self._store_timer.cancel()
            self._store_timer = None
        if self._storer is not None or not self._unstored:
            return
        task = self._storer = asyncio.get_running_loop().create_task(self._store_batches())
        self._storing.add(task)
        task.add_done_callback(self._stored)

    def _stored(self, task: asyncio.Task[None]) -> None:
        self._storing.discard(task)
        self._storer = None

    async def _store_batches(self) -> None:
        """Store the waiting records, a batch at a time (one transaction each), until none waits or one fails."""
        while self._unstored:
            batch, self._unstored = self._unstored, []
            if not await self._store(batch):
                return  # kept: the storage keeper tries again

    async def _store(self, tables: list[Table]) -> bool:
        """Store ``tables``' records in one transaction; False when the store failed (the batch waits again)."""
        ended = [(meta_of(table), table.record or {}) for table in tables]
        try:
            failed = await self.storage.save_all_async(ended)
        except Exception as refused:
            self.metrics.storage_errors.labels(RECORDS).inc(len(tables))
            log.error("record store failed; the records are kept and stored again", tables=len(tables),
                      waiting=len(self._unstored_ids), error=f"{type(refused).__name__}: {refused}")
            self.health.failed(RECORDS, refused)
            self._unstored[:0] = tables
            return False
        self.health.recovered(RECORDS)
        loop = asyncio.get_running_loop()
        for (meta, _), table in zip(ended, tables, strict=True):
            self._unstored_ids.discard(table.id)
            lost = failed.get(table.id)
            if lost is not None:  # the journal keeps the table: the next start plays it to its end and stores it
                self.metrics.storage_errors.labels(RECORDS).inc()
                log.error("record store failed", table=table.id, game=table.game, error=repr(lost))
            else:
                self.metrics.records_stored.inc()
                log.info("record stored", table=table.id, game=table.game, status=meta.status)
                if self.journal is not None:
                    self.journal.close_table(table.id)
            loop.call_later(self.limits.retain_seconds, self._forget, table.id)
        return True

    def unstored(self) -> int:
        """How many ended tables' records are not stored yet."""
        return len(self._unstored_ids)

    def keep_storage(self) -> None:
        """Start the storage keeper (once the server runs): every :data:`CHECK_SECONDS`, :meth:`check_storage_once`."""
        if self._keeper is None:
            self._keeper = asyncio.get_running_loop().create_task(self._keep_storage())

    async def _keep_storage(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            try:
                await self.check_storage_once()
            except Exception:  # the keeper must outlive any one look
                log.exception("storage check failed")

    async def check_storage_once(self) -> None:
        """Look at the free space, retry what failed (records, the journal's stale tables) and clear what writes.

        A remote record store (PostgreSQL) is written to every time, failing or not: it can go away while no
        table ends, and readiness should say so before a record waits on it.
        """
        folders = {self.storage.data_dir}
        if self.journal is not None:
            folders.add(self.journal.path.parent)
        check_free_space(self.health, sorted(folders), self.limits.min_free_bytes)
        if self.journal is not None and (self.journal.stale or self.health.failing(JOURNAL)):
            self.journal.check()
        if self._unstored and self.health.failing(RECORDS):
            self._store_waiting()
        elif (self.health.failing(RECORDS) or self.storage.remote) and self._storer is None:
            try:
                await asyncio.to_thread(self.storage.check)
            except Exception as error:
                if self.health.failing(RECORDS):
                    log.warning("record store still fails", error=f"{type(error).__name__}: {error}")
                self.health.failed(RECORDS, error)
            else:
                self.health.recovered(RECORDS)

    def _forget(self, table_id: str) -> None:
        table = self._tables.pop(table_id, None)
        self._owners.pop(table_id, None)
        if table is not None:
            self.tokens.revoke([s.token_digest for s in table.seats])

    async def record(self, table_id: str, owner_token: str = "") -> dict[str, Any]:
        """The stored record of an ended table (a withheld one only for its owner token).

        Raises:
            TableNotOverError: the table is still open.
            TableNotFoundError: no such table.
            WithheldError: the record is withheld and ``owner_token`` is not the table's.
        """
        table = self._tables.get(table_id)
        if table is not None and table.end_held:
            raise TableNotOverError(f"table {table_id!r} is ending: its end waits for the storage to write again")
        if table is not None and not table.is_over:
            raise TableNotOverError(f"table {table_id!r} is still {table.status.value}; its record comes at the end")
        if table is not None and table_id in self._unstored_ids:
            found = table.record  # not stored yet (the store fails): the table in memory has it
        else:
            found = await asyncio.to_thread(self.storage.record, table_id)
        if found is None and table is not None:
            found = table.record
        if found is None:
            raise TableNotFoundError(f"no table {table_id!r}")
        if table is not None:
            if table.deck_set is not None:
                await self._read_ended(table.twin_key)
            self.check_reveal(table, owner_token)
        else:
            meta = await self.stored_meta(table_id)
            if await self.withheld_meta(meta, found) and not self.owns_stored(meta, owner_token):
                raise WithheldError(_WITHHELD)
        return found

    def withheld(self, table: Table) -> bool:
        """Whether ``table``'s record, spectating and progress are withheld from anyone without its owner token."""
        return self._withheld(table.id, table.twin_key, table.sealed, table.deck_set)

    async def withheld_meta(self, meta: TableMeta, record: Mapping[str, Any] | None = None) -> bool:
        """:meth:`withheld` for a stored table.

        Its twins are found by its twin key; a table stored by a version that kept none has its seed read
        from its record (``record`` when the caller has it) only when a twin of it could be open.
        """
        deck_set = DeckSet(meta.deck_set_tables, meta.deck_set_index) if meta.deck_set_tables else None
        if meta.sealed and deck_set is None:
            return True  # sealed for good: nothing to look up
        key = meta.twin_key
        if not key and meta.seed_chosen and self._open_twins:
            if record is None:
                record = await asyncio.to_thread(self.storage.record, meta.id)
            seed = record.get("seed") if record else None
            key = twin_key(seed) if isinstance(seed, str) else ""
        if meta.sealed and key:
            await self._read_ended(key)
        return self._withheld(meta.id, key, meta.sealed, deck_set)

    def check_reveal(self, table: Table, owner_token: str) -> None:
        """Pass when ``table`` is not withheld or ``owner_token`` is its creator's.

        Raises:
            WithheldError
        """
        if self.withheld(table) and not self.owns(table, owner_token):
            raise WithheldError(_WITHHELD)

    def check_open(self, table: Table) -> None:
        """Pass while ``table`` is not withheld: a spectator's stream let in before checks it before each event.

        Raises:
            WithheldError: a twin created since withholds the table (the stream ends, PERMISSION_DENIED).
        """
        if self.withheld(table):
            raise WithheldError(_WITHHELD_SINCE)

    def owns(self, table: Table, owner_token: str) -> bool:
        """Whether ``owner_token`` is ``table``'s creator's (reads whatever is withheld)."""
        return _owner_matches(owner_token, table.owner_digest)

    def owns_stored(self, meta: TableMeta, owner_token: str) -> bool:
        """:meth:`owns` for a stored table."""
        return _owner_matches(owner_token, meta.owner_sha256)

    def _withheld(self, table_id: str, key: str, sealed: bool, deck_set: DeckSet | None) -> bool:
        """The rule (:func:`withholding.withheld`) on what this lobby knows of the table's twins."""
        twins = self._open_twins.get(key) if key else None
        open_twins = 0 if twins is None else len(twins) - (table_id in twins)  # checked per event a spectator gets
        ended = self._ended_indexes(key) if sealed and key and deck_set is not None else None
        return withholding.withheld(open_twins=open_twins, sealed=sealed, deck_set=deck_set, ended=ended)

    def _ended_indexes(self, key: str) -> set[int] | None:
        """The deck-set indexes of twin key ``key`` of which a table has ended (None until the store was read)."""
        stored = self._ended_stored.get(key)
        return None if stored is None else stored | self._ended_here.get(key, set())

    async def _read_ended(self, key: str) -> None:
        """Read from the store, once per key, which deck-set indexes of twin key ``key`` ended before.

        A failed read is logged and tried again at the next ask; until then the seal holds.
        """
        if key in self._ended_stored:
            return
        reading = self._reading_ended.get(key)
        if reading is None:
            reading = self._reading_ended[key] = asyncio.ensure_future(self._load_ended(key))
        await asyncio.shield(reading)

    async def _load_ended(self, key: str) -> None:
        try:
            self._ended_stored[key] = await asyncio.to_thread(self.storage.ended_twins, key)
        except StorageUnavailableError as error:  # the database is away: expected, and said once by its keeper
            log.warning("ended twins not read; read again when next needed (the seal holds meanwhile)",
                        twin_key=key[:12], error=str(error))
        except Exception:
            log.exception("ended twins not read", twin_key=key[:12])
        finally:
            self._reading_ended.pop(key, None)

    def _read_ended_soon(self, key: str) -> None:
        """Start :meth:`_read_ended` for a sealed table just added, so its seal can lift without a wait."""
        if key in self._ended_stored or key in self._reading_ended:
            return
        with contextlib.suppress(RuntimeError):  # no running loop (a table built outside the server): on demand
            self._reading_ended[key] = asyncio.get_running_loop().create_task(self._load_ended(key))

    async def stored(self, *, game: str | None = None, limit: int = 100) -> list[TableMeta]:
        """Stored (ended) tables, newest first."""
        return await asyncio.to_thread(self.storage.list_tables, game=game, limit=limit)

    async def stored_meta(self, table_id: str) -> TableMeta:
        """The stored metadata of an ended table.

        Raises:
            TableNotFoundError
        """
        meta = await asyncio.to_thread(self.storage.meta, table_id)
        if meta is None:
            raise TableNotFoundError(f"no table {table_id!r}")
        return meta

    async def drain(self, patience: float = STORE_PATIENCE_SECONDS) -> None:
        """Wait until every ended table's record is stored (those waiting for their batch are stored now).

        Records that fail to be stored are tried again every :data:`CHECK_SECONDS` for up to ``patience``
        seconds, then given up on with a log line each (the journal still holds their tables; without a
        journal they are lost, and the line says so).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while True:
            self._store_waiting()
            while self._storing:
                await asyncio.gather(*list(self._storing), return_exceptions=True)
            if not self._unstored:
                return
            if not self.health.failing(RECORDS):  # ended while the last batch was stored: store them now
                continue
            if loop.time() >= deadline:
                # Without a journal (``--no-journal``, a tournament's in-process server) nothing keeps them.
                message = ("record not stored at shutdown; the journal keeps its table for the next start"
                           if self.journal is not None else "record not stored at shutdown and lost: no journal")
                for table in self._unstored:
                    log.error(message, table=table.id, game=table.game, reason=self.health.reason)
                return
            await asyncio.sleep(CHECK_SECONDS)
            if self.journal is not None and self.journal.stale:
                self.journal.settle()

    async def shutdown(self, reason: str = "server shutdown", *, drain_seconds: float = 0.0) -> None:
        """Stop accepting tables and seekers; let open tables play for up to ``drain_seconds``; store every record.

        Tables still open after that are suspended, to resume from the journal
        on the next start, or, without a journal, aborted with ``reason``.
        """
        self.closing = True
        for queue in self._seekers.values():
            for s in queue:
                if not s.future.done():
                    s.future.set_exception(ShuttingDownError("the server is shutting down"))
        self._seekers.clear()
        running = [t for t in self.open_tables() if t.status is TableStatus.RUNNING]
        if running and drain_seconds > 0:
            log.info("draining", running=len(running), seconds=drain_seconds)
            waits = [asyncio.ensure_future(t.ended.wait()) for t in running]
            try:
                await asyncio.wait(waits, timeout=drain_seconds)
            finally:
                for waiting in waits:
                    waiting.cancel()
        left = self.open_tables()
        for table in left:
            if self.journal is not None:
                table.suspend()
            else:
                table.abort(reason)
        await self.drain()
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
            self._keeper = None
        log.info("lobby closed", tables=len(self._tables), suspended=len(left) if self.journal is not None else 0)


_WITHHELD = ("withheld: the table is sealed, or a table dealt from the same seed is not over yet; "
             "only its creator's owner token reads it now")


_WITHHELD_SINCE = ("withheld since this stream began: a table dealt from the same seed was created; "
                   "only its creator's owner token follows it now")


def _check_withholding(seed: str | None, sealed: bool, deck_set: DeckSet | None, owner_token: str) -> None:
    """Refuse a deck set without a seal and a seed, a bad deck set, or an owner token too short or odd.

    Raises:
        InvalidRequestError: naming the field as the protos do.
    """
    if deck_set is not None:
        if not (sealed and seed):
            raise InvalidRequestError("deck_set needs sealed and a seed: it says when a sealed table's seal lifts")
        problem = deck_set.check()
        if problem is not None:
            raise InvalidRequestError(problem)
    if owner_token and not (MIN_OWNER_TOKEN <= len(owner_token) <= MAX_OWNER_TOKEN
                            and owner_token.isascii() and owner_token.isprintable() and " " not in owner_token):
        raise InvalidRequestError(f"owner_token must be {MIN_OWNER_TOKEN} to {MAX_OWNER_TOKEN} printable ASCII "
                                  f"characters without spaces when set, not {len(owner_token)} characters")


def _owner_matches(token: str, digest: str) -> bool:
    return bool(token and digest) and secrets.compare_digest(token_digest(token), digest)


def _hand_out(group: list[_Seeker], outcome: list[SeatTicket] | Exception) -> None:
    """Give each seeker of ``group`` its seat, or the error that prevented the table."""
    for seat, s in enumerate(group):
        if s.future.done():  # the seeker left at the last moment: its seat will time out to defaults
            continue
        if isinstance(outcome, Exception):
            s.future.set_exception(outcome)
        else:
            s.future.set_result(outcome[seat])


def meta_of(table: Table) -> TableMeta:
    """The metadata the store keeps for ``table``."""
    result = table.match.result
    return TableMeta(
        id=table.id, game=table.game, players=table.players,
        status=table.status.value if table.is_over else TableStatus.ABORTED.value,
        reason=result.reason if result else "", options=dict(table.options), names=table.names,
        time_control=asdict(table.time_control), seed_sha256=table.seed_sha256,
        winners=list(result.winners) if result else [], scores=list(result.scores) if result else [],
        actions=table.actions_played, created_at=table.created_at, started_at=table.started_at,
        ended_at=table.ended_at, seed_chosen=table.seed_chosen, sealed=table.sealed,
        owner_sha256=table.owner_digest, twin_key=table.twin_key,
        deck_set_tables=0 if table.deck_set is None else table.deck_set.tables,
        deck_set_index=0 if table.deck_set is None else table.deck_set.index)
