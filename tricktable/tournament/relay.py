"""A Unix socket that forwards every connection to a TCP server: how sandboxed bots reach a remote ``--server``.

Why: a sandboxed bot has no network (:mod:`tricktable.tournament.sandbox`);
the only way out is the socket bound into its sandbox. For a server
started by the tournament that socket is the server's own; for one given as
``--server HOST:PORT`` it is this relay, which copies bytes both ways and,
with ``--tls-ca``, speaks TLS to the server itself (so the bot speaks plain
gRPC to the socket and never needs the CA file). A connection the server
drops (a restart) is closed on the bot's side too, and the bot reconnects
as it would over TCP.

A webhook entrant's seats reach its URL the same way (:func:`webhook_relays`):
a relay per entrant to the host and port of its URL, and nowhere else, bound
into that entrant's sandboxes only; the bytes are copied as they are, so an
``https`` URL is TLS from the seat to the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Sequence
from pathlib import Path

from tricktable.bots import WEBHOOK_PREFIX
from tricktable.bots.external.webhook_bot import check_url
from tricktable.tournament.entrants import EntrantSpec

_CHUNK = 65536


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(_CHUNK):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class SocketRelay:
    """Listens on ``path``; each connection is copied to ``address`` (``host:port``), over TLS with a CA file."""

    def __init__(self, server: asyncio.base_events.Server, connections: set[asyncio.Task[None]]) -> None:
        self._server = server
        self._connections = connections

    @classmethod
    async def start(cls, path: Path, address: str, tls_ca: Path | None = None) -> SocketRelay:
        """Listen on ``path`` (open to every local user: a sandboxed bot runs as a user of its own)."""
        host, _, port = address.rpartition(":")
        host = host.strip("[]")
        context: ssl.SSLContext | None = None
        if tls_ca is not None:
            context = ssl.create_default_context(cafile=str(tls_ca))
            context.set_alpn_protocols(["h2"])  # gRPC over TLS is HTTP/2, negotiated by ALPN
        connections: set[asyncio.Task[None]] = set()

        async def forward(bot_reader: asyncio.StreamReader, bot_writer: asyncio.StreamWriter) -> None:
            try:
                server_reader, server_writer = await asyncio.open_connection(
                    host, int(port), ssl=context, server_hostname=host if context else None)
            except (OSError, ssl.SSLError):
                bot_writer.close()  # the server is away: the bot sees its connection fail and tries again
                return
            await asyncio.gather(_pump(bot_reader, server_writer), _pump(server_reader, bot_writer))

        async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            if task is not None:
                connections.add(task)
            try:
                await forward(reader, writer)
            except asyncio.CancelledError:
                # Only close() cancels a connection, and awaits it: ended quietly, asyncio does not report the
                # cancel as an error of the connection's callback.
                pass
            finally:
                if task is not None:
                    connections.discard(task)

        server = await asyncio.start_unix_server(tracked, path=str(path))
        path.chmod(0o666)
        return cls(server, connections)

    async def close(self) -> None:
        """Stop listening and drop every connection."""
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        for task in list(self._connections):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self._server.wait_closed()


async def webhook_relays(entrants: Sequence[EntrantSpec], folder: Path) -> dict[str, tuple[Path, SocketRelay]]:
    """A relay in ``folder`` for each ``webhook:`` entrant to its URL's host and port: entrant name -> socket, relay.

    Raises:
        ValueError: an entrant's URL is not an http(s) URL with a host (the config's check says so first).
    """
    relays: dict[str, tuple[Path, SocketRelay]] = {}
    try:
        for number, entrant in enumerate(entrants):
            if entrant.bot is None or not entrant.bot.startswith(WEBHOOK_PREFIX):
                continue
            scheme, host, port, _ = check_url(entrant.bot.removeprefix(WEBHOOK_PREFIX))
            target = f"[{host}]" if ":" in host else host
            path = folder / f"webhook-{number}.sock"
            port = port or (443 if scheme == "https" else 80)
            relays[entrant.name] = (path, await SocketRelay.start(path, f"{target}:{port}"))
    except BaseException:
        for _, relay in relays.values():
            await relay.close()
        raise
    return relays
