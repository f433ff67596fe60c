"""Many machines: lobbies and game processes that find each other in the shared database.

``tricktable serve --role game --game-index K --games N`` is game process K
of N: it runs tables (ids ``tK-...``, tokens ``K.``) and journals them in its
own data directory. ``--role lobby`` runs no table: it matches seekers,
places each new table on a game process and forwards every call about a
table to the game process its id names. Both are a
:class:`tricktable.server.shards.ShardedTableService` whose shard addresses
come from the directory instead of the parent process of ``--shards``
(:class:`DirectoryShards`); the records are in the shared PostgreSQL
database, so every process answers ``ListTables`` with them.

The directory (the record store's ``game_processes`` and ``lobby_processes``)
is written by each process every :data:`HEARTBEAT_SECONDS`, once it listens:

- a game process writes the address clients reach it at
  (``--advertise-address``, else the address it bound) and its load: its
  tables not over yet, and whether it takes new ones (not while it drains,
  while its storage fails, or at its limit of tables);
- a lobby writes its address and is removed when it stops.

**Placement by load**: a lobby places a new table on the game process with
the fewest tables among those that take tables and were heard from within
:data:`STALE_SECONDS` (the tables it placed itself since it last read the
directory counted too, so a burst does not all land on one), the lowest
index on a tie. None taking tables: ``UNAVAILABLE``, and the client retries.

**Several lobbies**: any number may run; each places and forwards on its
own. Seekers of every lobby are matched by one, the oldest lobby heard from
within :data:`STALE_SECONDS` (the others relay their SeekGame streams to
it), so two seekers behind a load balancer meet whichever lobby each
reached. When that lobby stops it leaves the directory and the next oldest
matches at once; when it is killed, the others match their own seekers
after :data:`STALE_SECONDS` (a seek relayed to it meanwhile that can not
reach it is matched where it arrived).

**Claimed indexes** (``--claim-game-index``, for pods without an ordinal: an
Agones Fleet's): a game process takes the first index no process holds (or
whose holder has not spoken for :data:`STALE_SECONDS`) in one transaction,
and remembers it in its data directory, so the same process restarted in the
same pod takes it back and resumes its journal (:func:`claim_game_index`).

A game process restarted (after kill -9 too) with the same index and data
directory resumes its journaled tables and advertises its address again; a
lobby reads the directory again at most every :data:`REFRESH_SECONDS` when
it needs it, so a game process that moved is found. Ages are by the
database's clock, so machines whose clocks differ agree on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import grpc
import structlog

from tricktable.protocol.channel_options import RECONNECT_OPTIONS
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc
from tricktable.server.errors import ShardUnavailableError
from tricktable.server.forwarding import Forwarding
from tricktable.server.record_store import RecordStore
from tricktable.server.shards import LOBBY, Shards
from tricktable.server.storage import GameProcess, LobbyProcess

log = structlog.get_logger("tricktable.directory")

#: The roles of ``serve --role``.
ROLES = ("lobby", "game")
#: Seconds between two reads of the directory (only when an address, a placement or the matchmaker is needed).
REFRESH_SECONDS = 1.0
#: Seconds between two words of each process in the directory (a game process's load, a lobby's being alive).
HEARTBEAT_SECONDS = 1.0
#: A process not heard from for this long is taken for gone: no table is placed on it, no seeker relayed to it.
STALE_SECONDS = 5.0

#: What a game process says of its load: its tables not over yet, and whether it takes new ones.
Load = Callable[[], tuple[int, bool]]


class DirectoryShards(Shards):
    """The processes of the shared database's directory: ``index`` is this game process's (or :data:`LOBBY`)."""

    #: A game process starting, restarting or slow to take a connection is waited for, this long, by the calls
    #: forwarded to it (a placement, a GetTable), rather than failed at once.
    forward_wait = 10.0

    def __init__(self, index: int, count: int, store: RecordStore, forwarding: Forwarding, holder: str = "") -> None:
        super().__init__(index, count, forwarding)
        self.store = store
        #: Who holds this game index when it was claimed (:func:`claim_game_index`); empty: a fixed index.
        self.holder = holder
        self.addresses = [""] * count
        #: The game processes and lobbies as last read (:meth:`refresh`).
        self.processes: dict[int, GameProcess] = {}
        self.lobbies: list[LobbyProcess] = []
        #: This lobby's id in the directory (its start, then random: unique, and never reused by a restart).
        self.lobby_id = f"{time.time_ns():020d}-{secrets.token_hex(4)}" if index == LOBBY else ""
        self._read_at = -REFRESH_SECONDS
        #: Game process -> when (monotonic) this lobby placed its latest tables: those placed after its last word
        #: are counted on top of the tables it said it has.
        self._placed: dict[int, list[float]] = defaultdict(list)
        self._by_address: dict[str, pb_grpc.TableServiceAsyncStub] = {}
        self._heartbeat: asyncio.Task[None] | None = None
        self._own = ""

    def set_own_address(self, address: str) -> None:
        """This process's advertised address."""
        if 0 <= self.index < self.count:
            self.addresses[self.index] = address
        self._own = address

    async def refresh(self, *, now: bool = False) -> None:
        """Read the directory (at most every :data:`REFRESH_SECONDS`, unless ``now``)."""
        clock = time.monotonic()
        if not now and clock - self._read_at < REFRESH_SECONDS:
            return
        self._read_at = clock
        found = await asyncio.to_thread(self.store.game_processes)
        self.processes = {k: p for k, p in found.items() if 0 <= k < self.count}
        for shard, process in self.processes.items():
            if shard != self.index:
                self.addresses[shard] = process.address
        if self.index == LOBBY:
            self.lobbies = await asyncio.to_thread(self.store.lobbies)

    async def place(self) -> int:
        """The game process of the next table: the least loaded of those taking tables (see the module's text).

        Raises:
            ShardUnavailableError: no game process takes tables now.
        """
        await self.refresh()
        ready = [p for p in self.processes.values() if p.taking and p.age < STALE_SECONDS]
        if not ready:
            raise ShardUnavailableError("no game process takes tables now (all draining, full or unreachable)")
        chosen = min(ready, key=lambda p: (p.tables + self._placed_since(p), p.shard)).shard
        self._placed[chosen].append(time.monotonic())
        return chosen

    def _placed_since(self, process: GameProcess) -> int:
        """The tables this lobby placed on ``process`` after the word the directory holds (not in its count yet)."""
        said_at = self._read_at - process.age
        placed = self._placed[process.shard]
        placed[:] = [at for at in placed if at > said_at]  # the older ones are in its count already
        return len(placed)

    def matchmaker(self) -> LobbyProcess | None:
        """The lobby that matches every lobby's seekers: the oldest heard from lately (None: not known yet)."""
        live = [lobby for lobby in self.lobbies if lobby.age < STALE_SECONDS or lobby.id == self.lobby_id]
        return live[0] if live else None

    async def matchmaker_stub(self) -> pb_grpc.TableServiceAsyncStub | None:
        """A stub to the matchmaking lobby, or None to match here (this lobby is it; a game process matches its own)."""
        if self.index != LOBBY:
            return None
        await self.refresh()
        chosen = self.matchmaker()
        if chosen is None or chosen.id == self.lobby_id:
            return None
        return self._stub_at(chosen.address)

    async def stub(self, shard: int) -> pb_grpc.TableServiceAsyncStub:
        """A stub to game process ``shard`` at its address in the directory (a new channel when it moved).

        Raises:
            ShardUnavailableError: no such game process, or it never advertised an address.
        """
        if not 0 <= shard < self.count:
            raise ShardUnavailableError(f"no game process {shard} in this server of {self.count}")
        await self.refresh()
        address = self.addresses[shard]
        if not address:
            raise ShardUnavailableError(f"game process {shard} has not advertised its address yet")
        return self._stub_at(address)

    def _stub_at(self, address: str) -> pb_grpc.TableServiceAsyncStub:
        """The stub of the channel to ``address`` (opened on first use, kept for the process's life).

        The channel retries a lost connection at least every second (a process restarted after a crash is reached
        as soon as it listens) and gives a slow handshake its time (:mod:`tricktable.protocol.channel_options`).
        """
        stub = self._by_address.get(address)
        if stub is None:
            channel = grpc.aio.insecure_channel(address, options=RECONNECT_OPTIONS)
            self._channels.append(channel)
            stub = self._by_address[address] = pb_grpc.TableServiceStub(channel)
        return stub

    async def advertise(self, address: str, load: Load) -> None:
        """Write this process to the directory now, then every :data:`HEARTBEAT_SECONDS` until :meth:`close`.

        The first write fails the start (the database is not reachable); a later one that fails is logged once
        and tried again at the next beat (the others take this process for gone after :data:`STALE_SECONDS`).
        """
        self.set_own_address(address)
        await self._write(load)
        if self.index == LOBBY:
            await self.refresh(now=True)
        self._heartbeat = asyncio.get_running_loop().create_task(self._beat(load))

    async def _write(self, load: Load) -> None:
        if self.index == LOBBY:
            await asyncio.to_thread(self.store.advertise_lobby, self.lobby_id, self._own)
        else:
            tables, taking = load()
            await asyncio.to_thread(self.store.advertise, self.index, self._own, tables=tables, taking=taking,
                                    holder=self.holder)

    async def _beat(self, load: Load) -> None:
        failing = False
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await self._write(load)
            except Exception as error:  # the heartbeat must outlive a database away for a while
                if not failing:
                    log.warning("directory not written", error=f"{type(error).__name__}: {error}")
                failing = True
            else:
                if failing:
                    log.info("directory written again")
                failing = False

    async def say_now(self, load: Load) -> None:
        """Write this process's load at once (it stops taking tables: the lobbies should know before a beat)."""
        if self._heartbeat is not None:
            with contextlib.suppress(Exception):
                await self._write(load)

    async def close(self) -> None:
        """Stop the heartbeat and, for a lobby, leave the directory; then close the channels."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
            self._heartbeat = None
            if self.index == LOBBY:
                try:
                    await asyncio.to_thread(self.store.forget_lobby, self.lobby_id)
                except Exception as error:  # the others take it for gone after STALE_SECONDS
                    log.warning("lobby not removed from the directory", error=f"{type(error).__name__}: {error}")
        self._by_address.clear()
        await super().close()


def shards_for(role: str, index: int | None, count: int, store: RecordStore,
               forwarding: Forwarding, holder: str = "") -> DirectoryShards:
    """The directory of a process of ``role``: a game process's own ``index``, or the lobby's place (none)."""
    if role not in ROLES:
        raise ValueError(f"--role must be one of {', '.join(ROLES)}, not {role!r}")
    if role == "game":
        if index is None or not 0 <= index < count:
            raise ValueError(f"--game-index must be from 0 to {count - 1} (--games {count}), not {index}")
        return DirectoryShards(index, count, store, forwarding, holder)
    return DirectoryShards(LOBBY, count, store, forwarding)


#: The file in a game process's data directory that remembers its claimed index and holder id.
CLAIM_FILE = "game-index.json"


def claim_game_index(store: RecordStore, count: int, data_dir: Path) -> tuple[int, str]:
    """A game index of ``count`` for this process and its holder id (the store is open; see the module's text).

    Raises:
        RuntimeError: every index is held by a process heard from lately (more game processes than ``--games``).
    """
    remembered = data_dir / CLAIM_FILE
    preferred: int | None = None
    holder = ""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        kept = json.loads(remembered.read_text())
        preferred, holder = int(kept["index"]), str(kept["holder"])
    holder = holder or secrets.token_hex(8)
    index = store.claim_game_index(count, holder, preferred, STALE_SECONDS)
    if index is None:
        raise RuntimeError(f"all {count} game indexes are held by running game processes: raise --games, or run "
                           "fewer game processes")
    data_dir.mkdir(parents=True, exist_ok=True)
    remembered.write_text(json.dumps({"index": index, "holder": holder}))
    log.info("game index claimed", index=index, games=count)
    return index, holder
