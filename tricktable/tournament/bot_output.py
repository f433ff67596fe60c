"""What a bot process writes to its stderr, read as it comes with only its end kept (a fault's reason quotes it)."""

from __future__ import annotations

import asyncio
import contextlib

#: How much of a bot's stderr is kept while it runs (the rest is read and dropped).
STDERR_KEPT = 16_384


class StderrTail:
    """A bot's stderr read as it comes and only its end kept: a noisy bot never blocks on a full pipe."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._kept = bytearray()
        self.task = asyncio.ensure_future(self._drain(stream))

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self._kept += chunk
            del self._kept[:-STDERR_KEPT]

    async def text(self, *, settle_s: float = 1.0) -> str:
        """What the bot wrote last (once it has exited, all it wrote up to :data:`STDERR_KEPT` bytes).

        ``settle_s``: how long to wait for the end of the stream (a process that exited may have left
        output in the pipe); 0 for a process still running.
        """
        if settle_s > 0:
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(self.task), timeout=settle_s)
        return bytes(self._kept).decode("utf-8", "replace")

    async def close(self) -> None:
        """Stop reading (the process is gone or being stopped)."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task
