"""Run the viewer's HTTP server in the current event loop, beside the game server or alone."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable

import structlog
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from tricktable.server.app import Companion, GameServer
from tricktable.web.analysed import Analyses
from tricktable.web.app import make_app
from tricktable.web.catalog import Catalog, ServerCatalog

log = structlog.get_logger("tricktable.web")


class _ClientFaults(logging.Filter):
    """A malformed request (a request line over 8 KB, bad headers) is the client's fault, answered 400 by aiohttp.

    aiohttp logs it as a server error with a traceback; here it is one line at info level, so that a client
    cannot fill the server's log with tracebacks and a real error still shows as one.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        fault = record.exc_info[1] if record.exc_info else None
        if isinstance(fault, HttpProcessingError):
            record.msg, record.args = "bad HTTP request refused (%s %s)", (fault.code, fault.message.splitlines()[0])
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


#: The HTTP server's own log (aiohttp's, with client faults made one line).
_HTTP_LOG = logging.getLogger("tricktable.web.http")
_HTTP_LOG.addFilter(_ClientFaults())

#: Seconds open pages (live streams) get to close when the viewer stops.
SHUTDOWN_SECONDS = 2.0


class WebViewer:
    """The viewer on ``host:port`` (127.0.0.1 by default: local only; port 0 picks a free one)."""

    def __init__(self, catalog: Catalog, *, host: str = "127.0.0.1", port: int = 8080, pages: bool = True,
                 analyses: Analyses | None = None) -> None:
        self.catalog = catalog
        #: Where the on-demand analyses run (None: the default worker pool, :mod:`tricktable.web.analysed`).
        self.analyses = analyses
        #: False: only the operator endpoints (/metrics, /healthz, /readyz), no viewer pages.
        self.pages = pages
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        """The lobby's address."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    async def start(self) -> int:
        """Bind and serve; returns the bound port.

        Raises:
            OSError: the address can not be bound.
        """
        runner = web.AppRunner(make_app(self.catalog, pages=self.pages, analyses=self.analyses), access_log=None,
                               shutdown_timeout=SHUTDOWN_SECONDS, logger=_HTTP_LOG)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port, reuse_port=False).start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        log.info("web viewer started", url=self.url)
        return self.port

    async def stop(self) -> None:
        """Close open pages' streams and stop serving."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
            log.info("web viewer stopped")


def beside_server(host: str, port: int, *, announce: Callable[[str], None], pages: bool = True) -> Companion:
    """The viewer as a companion of a game server (:func:`tricktable.server.app.serve`), over its lobby and database.

    ``pages=False``: the HTTP port answers the operator endpoints only (metrics and health).

    When the port can not be bound the server still runs, without the viewer, and ``announce`` says so.
    """
    @contextlib.asynccontextmanager
    async def run(server: GameServer) -> AsyncIterator[WebViewer | None]:
        catalog = ServerCatalog(server.lobby, server.storage.path, database_url=server.config.database_url)
        viewer = WebViewer(catalog, host=host, port=port, pages=pages)
        try:
            await viewer.start()
        except OSError as error:
            log.warning("web viewer not started", host=host, port=port, error=str(error))
            announce(f"web viewer not started: {error} (choose another --http-port, or --no-http)")
            yield None
            return
        announce(f"web viewer on {viewer.url}")
        try:
            yield viewer
        finally:
            await viewer.stop()
    return run
