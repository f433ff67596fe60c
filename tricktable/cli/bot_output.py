"""A bot process's stderr, read as it comes: its first lines shown at once, its last ones kept, never blocking it.

Why: a bot whose stderr nobody reads blocks once the pipe is full (a noisy bot
then times out at every decision), and one that fails at every decision,
read only at the end, shows nothing while it loses. Each bot started by
``tricktable match`` gets one :class:`BotOutput`: up to :data:`LINES_SHOWN`
lines are printed as they arrive, prefixed with the bot's seat name, the
rest only counted; the last :data:`TAIL_KEPT` bytes stay for the message when
the bot exits badly.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

#: Lines of one bot's stderr printed as they come; the rest is counted, and its end kept.
LINES_SHOWN = 20
#: Bytes of one bot's stderr kept (the last ones).
TAIL_KEPT = 16_384
#: Longest line read at once; a longer one is shown in pieces.
LINE_LIMIT = 65_536


class BotOutput:
    """Reads ``stream`` to its end in a task of its own, passing the first lines to ``show``."""

    def __init__(self, name: str, stream: asyncio.StreamReader, show: Callable[[str, str], None]) -> None:
        self.name = name
        self.lines = 0
        self._show = show
        self._tail = bytearray()
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await stream.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                line = end.partial
            except asyncio.LimitOverrunError as over:
                line = await stream.readexactly(over.consumed)
            if not line:
                return
            self._tail += line
            del self._tail[:-TAIL_KEPT]
            self.lines += 1
            if self.lines <= LINES_SHOWN:
                self._show(self.name, line.decode("utf-8", "replace").rstrip())
            elif self.lines == LINES_SHOWN + 1:
                self._show(self.name, f"(more stderr of {self.name} not shown here; its last lines are kept)")

    @property
    def hidden(self) -> int:
        """Lines read but not shown."""
        return max(0, self.lines - LINES_SHOWN)

    def tail(self, limit: int = 600) -> str:
        """The end of what the bot wrote, at most ``limit`` characters."""
        return bytes(self._tail).decode("utf-8", "replace").strip()[-limit:]

    async def finish(self, timeout: float = 1.0) -> None:
        """Wait briefly for the rest of the output (the process has exited), then stop reading."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.task), timeout)
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task
