"""Whether the server's storage can write: the journal, the record store and the data directory's free space.

Why one state for all three: a table the server can not journal does not
survive a restart, and a record it can not store lives only in memory, so
while any of them fails the server takes no new tables or seats
(``StorageUnavailableError``, ``UNAVAILABLE``) and its health service
answers ``NOT_SERVING``; the tables already running play on. A failure is
set by the write that failed (or by the free-space check); it is cleared
only by a write that succeeded afterwards, which the lobby's storage keeper
tries every :data:`CHECK_SECONDS` (``tricktable.server.lobby.Lobby.keep_storage``),
so one lucky write on a nearly full disk does not take tables in again.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

import structlog

log = structlog.get_logger("tricktable.storage")

#: Seconds between two looks of the storage keeper: free space, and a retry of what failed.
CHECK_SECONDS = 1.0
#: The stores a failure names.
JOURNAL, RECORDS, DISK = "journal", "records", "disk"


class StoreHealth:
    """Each failing store and why; writable when none fails. Used from the event loop's thread only."""

    def __init__(self) -> None:
        self._failing: dict[str, str] = {}
        self._listeners: list[Callable[[], None]] = []

    @property
    def writable(self) -> bool:
        """No store fails."""
        return not self._failing

    @property
    def reason(self) -> str:
        """What fails and why (empty while writable), e.g. ``journal: database or disk is full``."""
        return "; ".join(f"{store}: {why}" for store, why in sorted(self._failing.items()))

    def failing(self, store: str) -> bool:
        """Whether ``store`` fails."""
        return store in self._failing

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever :attr:`writable` changes (the health service follows it)."""
        self._listeners.append(listener)

    def failed(self, store: str, error: BaseException | str) -> None:
        """``store`` could not write (``error``): logged once until it recovers."""
        # An error that words itself for operators (``why``) is shown so; any other with its type.
        why = error if isinstance(error, str) else getattr(error, "why", None) or f"{type(error).__name__}: {error}"
        if store in self._failing:
            return
        was = self.writable
        self._failing[store] = why
        log.error("storage failing: no new tables or seats until it writes again", store=store, reason=why)
        self._changed(was)

    def recovered(self, store: str) -> None:
        """``store`` wrote again."""
        if store not in self._failing:
            return
        was = self.writable
        del self._failing[store]
        log.warning("storage writes again", store=store, writable=self.writable)
        self._changed(was)

    def _changed(self, was: bool) -> None:
        if was != self.writable:
            for listener in self._listeners:
                listener()


def check_free_space(health: StoreHealth, folders: Iterable[Path], min_free_bytes: int) -> None:
    """Mark the disk failing while a folder's file system has less than ``min_free_bytes`` free (0: never).

    Why before a write fails: a full disk fails the running tables' moves
    too; refusing new tables while some room is left keeps it for them.
    """
    if min_free_bytes <= 0:
        return
    for folder in folders:
        try:
            free = shutil.disk_usage(folder).free
        except OSError:  # a folder the keeper can not look at: its writes tell
            continue
        if free < min_free_bytes:
            health.failed(DISK, f"{free} bytes free in {folder}, under the {min_free_bytes} the server keeps")
            return
    health.recovered(DISK)
