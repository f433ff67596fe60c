"""One server as N processes (``tricktable serve --shards N``): placement and routing between shards.

Why processes: a table runs on one event loop, and one loop uses at most one
core; shards put the tables of one public server on every core.

- **Shard k** is a whole server process (lobby, tables, event loop) on its own
  port; shard 0's port is the public address. Table ids and join tokens name
  their shard (:mod:`tricktable.server.shard_ids`), so every process can route any call.
- **Placement**: CreateTable on any shard places the new table round robin
  over the shards and answers with ``play_address``, the address of the
  table's shard. SeekGame is matched on shard 0 (one queue per game and player
  count for the whole server), which places each seated table the same way.
- **Routing**: a call about a table (Play and Watch by token, SubmitAction,
  GetTable, GetRecord and Spectate by table id) that reaches another shard is
  forwarded to the table's shard and its answer relayed: every address of the
  server works, ``play_address`` saves the hop. ListTables gathers the tables
  of every shard.
- **Records**: every shard stores into the same SQLite database (WAL) in the
  shared data directory, so the records of all shards are read in one place.

A forwarded call carries the ``tricktable-hop`` metadata, signed with the
server's forwarding secret (:mod:`tricktable.server.forwarding`), and is never
forwarded again (a table whose shard does not answer is an error, not a loop).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import grpc
import structlog

from tricktable.protocol import convert
from tricktable.protocol.channel_options import RECONNECT_OPTIONS
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc
from tricktable.protocol.stream import forwarded as relayed_stream
from tricktable.server.errors import ShardStatusError, ShardUnavailableError
from tricktable.server.forwarding import Forwarding, forwarded
from tricktable.server.interceptors import client_of
from tricktable.server.lobby import Lobby, SeatTicket
from tricktable.server.service import Context, TableService
from tricktable.server.shard_ids import shard_of_table, shard_of_token

log = structlog.get_logger("tricktable.shards")

#: The gRPC service every process serves and forwards to.
SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["TableService"].full_name
#: The shard that matches seekers for the whole server.
MATCHMAKER = 0
#: The index of a process that runs no table and forwards every table's calls (``serve --role lobby``).
LOBBY = -1


class Shards:
    """This process's place among the shards: its index, every shard's address, channels to the others."""

    #: Seconds a forwarded unary call waits for its shard to be reachable (None: it fails at once when not).
    forward_wait: float | None = None

    def __init__(self, index: int, count: int, forwarding: Forwarding) -> None:
        if not 0 <= index < count and index != LOBBY:
            raise ValueError(f"shard {index} of {count} does not exist")
        self.index = index
        self.count = count
        #: Signs the calls forwarded from here (the shards share one secret).
        self.forwarding = forwarding
        self.addresses: list[str] = []
        self._stubs: dict[int, pb_grpc.TableServiceAsyncStub] = {}
        self._channels: list[grpc.aio.Channel] = []
        self._turn = itertools.cycle(range(count))
        self._known = asyncio.Event()

    def set_addresses(self, addresses: Sequence[str]) -> None:
        """Every shard's address, in shard order (known once all have bound their ports)."""
        if len(addresses) != self.count:
            raise ValueError(f"{len(addresses)} addresses for {self.count} shards")
        self.addresses = list(addresses)
        self._known.set()

    def own_address(self) -> str:
        """This shard's address for clients (empty while unknown, and for a lobby)."""
        return self.addresses[self.index] if 0 <= self.index < len(self.addresses) else ""

    async def place(self) -> int:
        """The shard of the next table: round robin, which spreads tables evenly when they cost alike."""
        return next(self._turn)

    async def matchmaker_stub(self) -> pb_grpc.TableServiceAsyncStub | None:
        """A stub to the process that matches this server's seekers, or None when it is this one."""
        return None if self.index == MATCHMAKER else await self.stub(MATCHMAKER)

    async def stub(self, shard: int) -> pb_grpc.TableServiceAsyncStub:
        """A stub to ``shard`` (its channel opened on first use).

        Raises:
            ShardUnavailableError: the shard does not exist, or the addresses never became known.
        """
        if not 0 <= shard < self.count:
            raise ShardUnavailableError(f"no shard {shard} in this server of {self.count}")
        if not self._known.is_set():
            try:
                await asyncio.wait_for(self._known.wait(), 10.0)
            except TimeoutError:
                raise ShardUnavailableError("the server's shards are still starting") from None
        stub = self._stubs.get(shard)
        if stub is None:
            channel = grpc.aio.insecure_channel(self.addresses[shard], options=RECONNECT_OPTIONS)
            self._channels.append(channel)
            stub = self._stubs[shard] = pb_grpc.TableServiceStub(channel)
        return stub

    def hop(self, method: str, client: str) -> tuple[tuple[str, str], ...]:
        """The metadata of a call to ``method`` (``"GetTable"``) forwarded from here for ``client``: signed, never
        forwarded again."""
        return self.forwarding.metadata(f"/{SERVICE_NAME}/{method}", client)

    async def close(self) -> None:
        """Close the channels to the other shards."""
        for channel in self._channels:
            await channel.close(None)
        self._channels.clear()
        self._stubs.clear()


def _relayed(error: grpc.aio.AioRpcError) -> ShardStatusError:
    """The error that ends this call (or PlayMany conversation) with the status the table's shard answered."""
    return ShardStatusError(error.details() or "", error.code())


class ShardedTableService(TableService):
    """:class:`TableService` of one shard: local calls as usual, the others forwarded to their shard."""

    def __init__(self, lobby: Lobby, shards: Shards) -> None:
        super().__init__(lobby)
        self.shards = shards
        lobby.placer = self._place_seated

    def _elsewhere(self, shard: int | None, context: Context) -> int | None:
        """The shard to forward to: the one named, unless it is this one, none, or the call was forwarded."""
        if shard is None or shard == self.shards.index or forwarded(context):
            return None
        return shard

    async def _unary(self, shard: int, method: str, request: Any, context: Context) -> Any:
        stub = await self.shards.stub(shard)
        wait = self.shards.forward_wait
        hop = self.shards.hop(method, client_of(context))
        try:
            if wait is None:
                return await getattr(stub, method)(request, metadata=hop)
            return await getattr(stub, method)(request, metadata=hop, wait_for_ready=True, timeout=wait)
        except grpc.aio.AioRpcError as error:
            raise _relayed(error) from None

    async def _routed(self, shard: int | None, method: str, request: Any, context: Context,
                      here: Callable[[Any, Context], Awaitable[Any]]) -> Any:
        """A unary call about a table or token: answered ``here``, or forwarded to its shard (one hop)."""
        target = self._elsewhere(shard, context)
        if target is None:
            return await here(request, context)
        return await self._unary(target, method, request, context)

    async def _stream_routed(self, shard: int | None, method: str, request: Any, context: Context,
                             here: Callable[[Any, Context], AsyncIterator[Any]]) -> AsyncIterator[Any]:
        """A server stream about a table or token: served ``here``, or relayed from its shard (one hop)."""
        target = self._elsewhere(shard, context)
        responses = here(request, context) if target is None else self._stream(target, method, request, context)
        async for response in responses:
            yield response

    async def _stream(self, shard: int, method: str, request: Any, context: Context) -> AsyncIterator[Any]:
        async for response in self._relay(await self.shards.stub(shard), method, request, context):
            yield response

    async def _relay(self, stub: pb_grpc.TableServiceAsyncStub, method: str, request: Any,
                     context: Context) -> AsyncIterator[Any]:
        """The responses of server stream ``method`` of another process, its error ending this one alike."""
        call = getattr(stub, method)(request, metadata=self.shards.hop(method, client_of(context)))
        try:
            async for response in call:
                yield response
        except grpc.aio.AioRpcError as error:
            raise _relayed(error) from None
        finally:
            call.cancel()

    # --- placement -------------------------------------------------------

    async def CreateTable(self, request: pb.CreateTableRequest, context: Context) -> pb.CreateTableResponse:
        shard = await self.shards.place() if not forwarded(context) else self.shards.index
        if shard != self.shards.index:
            placed: pb.CreateTableResponse = await self._unary(shard, "CreateTable", request, context)
            return placed
        response = await super().CreateTable(request, context)
        response.play_address = self.shards.own_address()
        return response

    async def SeekGame(self, request: pb.SeekGameRequest, context: Context) -> AsyncIterator[pb.SeekGameResponse]:
        """Matched by the server's matchmaker: relayed there, or matched here when this is it or it is unreachable.

        A matchmaker that can not be reached before it answered anything (killed, and not yet taken for gone) is
        logged and the seek matched here, so a seeker is not refused for it.
        """
        stub = None if forwarded(context) else await self.shards.matchmaker_stub()
        if stub is not None:
            answered = False
            try:
                async for response in self._relay(stub, "SeekGame", request, context):
                    answered = True
                    yield response
                return
            except ShardStatusError as error:
                if answered or error.code != grpc.StatusCode.UNAVAILABLE:
                    raise
                log.warning("the matchmaker is unreachable; matching here", error=str(error))
        async for response in super().SeekGame(request, context):
            yield response

    async def _place_seated(self, game: str, players: int, names: list[str], client: str) -> list[SeatTicket]:
        """The lobby's placer: a seated group's table on the next shard (here: the lobby's own)."""
        shard = await self.shards.place()
        if shard == self.shards.index:
            table, tokens = self.lobby.create_table(game=game, options={"players": players}, names=names,
                                                    client=client)
            table_id, seed_sha256, address = table.id, table.seed_sha256, self.shards.addresses[shard]
        else:
            stub = await self.shards.stub(shard)
            created = await stub.CreateTable(pb.CreateTableRequest(
                game=convert.game_to_proto(game), seat_names=names,
                options=convert.options_to_proto(game, {"players": players})),
                metadata=self.shards.hop("CreateTable", client))
            table_id, seed_sha256, address = created.table_id, created.seed_sha256, created.play_address
            tokens = [t.token for t in created.seat_tokens]
        log.info("seated table placed", table=table_id, game=game, shard=shard, client=client)
        return [SeatTicket(table_id=table_id, seat=seat, token=token, seed_sha256=seed_sha256, play_address=address)
                for seat, token in enumerate(tokens)]

    # --- routing by table id ---------------------------------------------

    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> pb.GetTableResponse:
        response: pb.GetTableResponse = await self._routed(
            shard_of_table(request.table_id), "GetTable", request, context, super().GetTable)
        return response

    async def GetRecord(self, request: pb.GetRecordRequest, context: Context) -> pb.GetRecordResponse:
        response: pb.GetRecordResponse = await self._routed(
            shard_of_table(request.table_id), "GetRecord", request, context, super().GetRecord)
        return response

    async def Spectate(self, request: pb.SpectateRequest, context: Context) -> AsyncIterator[pb.SpectateResponse]:
        async for response in self._stream_routed(shard_of_table(request.table_id), "Spectate", request, context,
                                                  super().Spectate):
            yield response

    async def ListTables(self, request: pb.ListTablesRequest, context: Context) -> pb.ListTablesResponse:
        """This shard's tables and records, with every other shard's open tables when asked directly."""
        own = await super().ListTables(request, context)
        if forwarded(context) or self.shards.count == 1:
            return own
        others = [s for s in range(self.shards.count) if s != self.shards.index]
        answers = await asyncio.gather(*(self._unary(s, "ListTables", request, context) for s in others),
                                       return_exceptions=True)
        for shard, answer in zip(others, answers, strict=True):
            if isinstance(answer, BaseException):  # its tables are missing from this answer, not the others'
                log.warning("a shard did not list its tables", shard=shard, error=str(answer))
        merged = {info.table_id: info for answer in (own, *answers) if not isinstance(answer, BaseException)
                  for info in answer.tables}
        return pb.ListTablesResponse(tables=sorted(merged.values(), key=lambda i: i.created_unix_ms))

    # --- routing by token ------------------------------------------------

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: Context) -> pb.SubmitActionResponse:
        response: pb.SubmitActionResponse = await self._routed(shard_of_token(request.token), "SubmitAction",
                                                               request, context, super().SubmitAction)
        return response

    async def Watch(self, request: pb.WatchRequest, context: Context) -> AsyncIterator[pb.WatchResponse]:
        async for response in self._stream_routed(shard_of_token(request.token), "Watch", request, context,
                                                  super().Watch):
            yield response

    def _played_elsewhere(self, join: pb.Join, requests: AsyncIterator[pb.PlayRequest],
                          context: Context) -> AsyncIterator[pb.PlayResponse] | None:
        """A Play stream (or PlayMany conversation) of a seat of another shard: relayed there from its join on."""
        shard = self._elsewhere(shard_of_token(join.token), context)
        return None if shard is None else self._relay_play(shard, join, requests, client_of(context))

    async def _relay_play(self, shard: int, join: pb.Join, requests: AsyncIterator[pb.PlayRequest],
                          client: str) -> AsyncIterator[pb.PlayResponse]:
        stub = await self.shards.stub(shard)
        call = stub.Play(metadata=self.shards.hop("Play", client))  # type: ignore[call-arg]  # grpc-stubs: the iterator is optional
        try:
            async for response in relayed_stream(call, _replayed([pb.PlayRequest(join=join)], requests)):
                yield response
        except grpc.aio.AioRpcError as error:
            raise _relayed(error) from None

async def _replayed(first: list[pb.PlayRequest], rest: AsyncIterator[pb.PlayRequest]) -> AsyncIterator[pb.PlayRequest]:
    """The requests already read, then the rest of the stream."""
    for request in first:
        yield request
    async for request in rest:
        yield request

