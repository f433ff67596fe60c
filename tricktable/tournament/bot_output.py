"""A bot process's stderr read on the event loop as it comes (:class:`tricktable.bots.stderr.OutputTail` keeps it).

Read by the tournament for every bot process (what a fault's reason quotes and what is stored for each entrant
in each match) and by ``tricktable match`` for its seats (their first lines shown as they come).
"""

from __future__ import annotations

import asyncio
import contextlib

from tricktable.bots.stderr import OutputTail

#: Bytes asked of the pipe at once.
_CHUNK = 65_536


class StderrTail:
    """A bot's stderr read to its end in a task of its own, kept (and shown) by ``output``: it never blocks the bot."""

    def __init__(self, stream: asyncio.StreamReader, output: OutputTail | None = None) -> None:
        self.output = output or OutputTail()
        self.task = asyncio.ensure_future(self._drain(stream))

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(_CHUNK):
            self.output.feed(chunk)
        self.output.end()

    def mark(self) -> int:
        """Where the output stands now (:meth:`text` ``since`` it gives only what comes after)."""
        return self.output.mark()

    async def text(self, *, settle_s: float = 1.0, since: int = 0) -> str:
        """What the bot wrote last, after ``since`` (once it has exited, all of it up to the bytes kept).

        ``settle_s``: how long to wait for the end of the stream (a process that exited may have left
        output in the pipe); 0 for a process still running.
        """
        await self.finish(settle_s, stop=False)
        return self.output.text(since)

    async def finish(self, settle_s: float = 1.0, *, stop: bool = True) -> None:
        """Wait up to ``settle_s`` for the end of the stream (the process has exited); then, ``stop``, stop reading."""
        if settle_s > 0 and not self.task.done():
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(self.task), timeout=settle_s)
        if stop:
            await self.close()

    async def close(self) -> None:
        """Stop reading (the process is gone or being stopped)."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task
