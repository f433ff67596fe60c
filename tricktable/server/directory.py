"""Many machines: a lobby process and game processes that find each other in the shared database.

``tricktable serve --role game --game-index K --games N`` is game process K
of N: it runs tables (ids ``tK-...``, tokens ``K.``) and journals them in its
own data directory, and once it listens it writes the address clients reach
it at (``--advertise-address``, else the address it bound) into the record
store's game directory (``game_processes``). ``--role lobby`` runs no table:
it matches seekers, places each new table on the next game process (round
robin) and forwards every call about a table to the game process its id
names, reading their addresses from the directory. Both are a
:class:`tricktable.server.shards.ShardedTableService` whose shard addresses
come from the directory instead of the parent process of ``--shards``
(:class:`DirectoryShards`); the records are in the shared PostgreSQL
database, so every process answers ``ListTables`` with them.

A game process restarted (after kill -9 too) with the same index and data
directory resumes its journaled tables and advertises its address again; the
lobby reads the directory again at most every :data:`REFRESH_SECONDS` when
it needs an address, so a game process that moved is found.
"""

from __future__ import annotations

import asyncio
import time

import grpc

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc
from tricktable.server.errors import ShardUnavailableError
from tricktable.server.record_store import RecordStore
from tricktable.server.shards import LOBBY, Shards

#: The roles of ``serve --role``.
ROLES = ("lobby", "game")
#: Seconds between two reads of the game directory (only when an address is needed).
REFRESH_SECONDS = 2.0
#: The channels to game processes retry a lost connection at least every second: gRPC's own backoff grows to two
#: minutes, and a game process restarted after a crash should be reached as soon as it listens.
CHANNEL_OPTIONS = (("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
                   ("grpc.max_reconnect_backoff_ms", 1_000))


class DirectoryShards(Shards):
    """The game processes of the shared database's directory: ``index`` is this game process's (or :data:`LOBBY`)."""

    #: SeekGame is matched where it arrives: clients seek at the lobby.
    matchmaker = None
    #: A game process starting, restarting or slow to take a connection is waited for, this long, by the calls
    #: forwarded to it (a placement, a GetTable), rather than failed at once.
    forward_wait = 10.0

    def __init__(self, index: int, count: int, store: RecordStore) -> None:
        super().__init__(index, count)
        self.store = store
        self.addresses = [""] * count
        self._read_at = -REFRESH_SECONDS
        self._stub_addresses: dict[int, str] = {}

    def set_own_address(self, address: str) -> None:
        """This game process's advertised address (written to the directory by the caller)."""
        self.addresses[self.index] = address

    async def refresh(self) -> None:
        """Read every game process's address from the directory (at most every :data:`REFRESH_SECONDS`)."""
        now = time.monotonic()
        if now - self._read_at < REFRESH_SECONDS:
            return
        self._read_at = now
        found = await asyncio.to_thread(self.store.game_addresses)
        for shard, address in found.items():
            if 0 <= shard < self.count and shard != self.index:
                self.addresses[shard] = address

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
        stub = self._stubs.get(shard)
        if stub is None or self._stub_addresses.get(shard) != address:
            channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
            self._channels.append(channel)
            stub = self._stubs[shard] = pb_grpc.TableServiceStub(channel)
            self._stub_addresses[shard] = address
        return stub


def shards_for(role: str, index: int | None, count: int, store: RecordStore) -> DirectoryShards:
    """The directory of a process of ``role``: a game process's own ``index``, or the lobby's place (none)."""
    if role not in ROLES:
        raise ValueError(f"--role must be one of {', '.join(ROLES)}, not {role!r}")
    if role == "game":
        if index is None or not 0 <= index < count:
            raise ValueError(f"--game-index must be from 0 to {count - 1} (--games {count}), not {index}")
        return DirectoryShards(index, count, store)
    return DirectoryShards(LOBBY, count, store)
