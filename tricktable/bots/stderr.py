"""A bot's stderr as it comes: its last bytes kept, its first lines shown, and nothing ever left unread.

Why one home: a bot's stderr is read in three places (an exec bot's program,
read by the adapter; a tournament's bot processes; ``tricktable match``'s
seats), and each must read everything the bot writes (a pipe nobody reads
blocks its writer once full, and a bot blocked on its stderr times out at
every decision) while holding only a bounded end of it. The readers differ
only in how they are woken (a thread, an event loop); what they keep and
show is :class:`OutputTail`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

#: Bytes of a bot's stderr kept (its last ones): what a fault's message quotes, and what a tournament stores
#: for each entrant in each match.
STDERR_TAIL_BYTES = 16_384
#: A line longer than this without its end is shown in pieces.
LINE_PIECE_BYTES = 1_024


class OutputTail:
    """What a bot wrote, fed in chunks: the last ``keep`` bytes kept; the first lines passed to ``show``.

    ``show`` gets each complete line (without its end) until ``show_lines``
    lines or ``show_bytes`` bytes have been shown (None: no limit), then one
    notice that the rest is only kept (naming the bot's ``label``). Safe to
    feed from one thread while another reads.
    """

    def __init__(self, *, keep: int = STDERR_TAIL_BYTES, show: Callable[[str], None] | None = None,
                 show_lines: int | None = None, show_bytes: int | None = None, label: str = "") -> None:
        self.label = label
        self.keep = keep
        self.show = show
        self.show_lines = show_lines
        self.show_bytes = show_bytes
        #: Bytes fed in all, and lines seen in all (shown or not).
        self.total = 0
        self.lines = 0
        self._kept = bytearray()
        self._pending = b""
        self._shown_lines = 0
        self._shown_bytes = 0
        self._silenced = False
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        """Take the next chunk the bot wrote."""
        with self._lock:
            self._kept += chunk
            del self._kept[:-self.keep]
            self.total += len(chunk)
        pending = self._pending + chunk
        *lines, pending = pending.split(b"\n")
        if len(pending) > LINE_PIECE_BYTES:
            lines, pending = [*lines, pending], b""
        self._pending = pending
        self._lines(lines)

    def end(self) -> None:
        """The output has ended: a last line without its end counts (and shows) too."""
        if self._pending:
            pending, self._pending = self._pending, b""
            self._lines([pending])

    def _lines(self, lines: list[bytes]) -> None:
        self.lines += len(lines)
        if self.show is None or self._silenced:
            return
        for line in lines:
            if ((self.show_lines is not None and self._shown_lines >= self.show_lines)
                    or (self.show_bytes is not None and self._shown_bytes >= self.show_bytes)):
                self._silenced = True
                whose = f" of {self.label}" if self.label else ""
                self.show(f"(more stderr{whose} not shown here; its last {self.keep // 1024} KiB are kept)")
                return
            self._shown_lines += 1
            self._shown_bytes += len(line) + 1
            self.show(line.decode("utf-8", "replace").rstrip("\r"))

    @property
    def hidden(self) -> int:
        """Lines seen but not shown."""
        return max(0, self.lines - self._shown_lines)

    def mark(self) -> int:
        """Where the output stands now: :meth:`text` ``since`` it gives only what comes after."""
        with self._lock:
            return self.total

    def text(self, since: int = 0) -> str:
        """The bytes kept that were written after byte ``since`` (:meth:`mark`), at most ``keep`` of them."""
        with self._lock:
            fresh = max(0, min(self.total - since, len(self._kept)))
            data = bytes(self._kept[len(self._kept) - fresh:]) if fresh else b""
        return data.decode("utf-8", "replace")
