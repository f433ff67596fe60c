"""How a server process runs its event loop and its garbage collector.

Each was measured with ``make bench`` (docs/benchmarks.md, "The server over gRPC"):
uvloop's loop costs less per callback and per socket event than asyncio's;
``gc.freeze()`` after start-up keeps the collector from walking the
interpreter's and the libraries' long-lived objects (rules tables, protobuf
descriptors) on every full collection; and the collector's thresholds are
raised (:data:`COLLECTOR_THRESHOLDS`). uvloop is optional (the ``fast``
extra): without it, or with ``TRICKTABLE_LOOP=asyncio``, the standard loop
runs, with the same behaviour.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: Environment variable choosing the loop: "uvloop" (the default when it is installed) or "asyncio".
ENV_LOOP = "TRICKTABLE_LOOP"

#: The cyclic collector's thresholds once a server is up (``gc.set_threshold``; Python's are 700, 10, 10).
#: Why: a move leaves about 18 more tracked objects alive than it frees (log entries, events, tricks, the
#: next decision's view), nearly none of them garbage cycles, so at 700 the collector ran a young collection
#: every ~40 moves and a full one (every table still held, ~400,000 objects at 40 tables) every few seconds,
#: 11-13% of the server's CPU for almost nothing reclaimed. A young collection every 5,000 leaves that a
#: quarter or less; cycles are still reclaimed, later (docs/benchmarks.md, "The collector's thresholds").
COLLECTOR_THRESHOLDS = (5000, 10, 10)


def loop_name() -> str:
    """The event loop this process will run: "uvloop" when installed and not turned off, else "asyncio"."""
    if os.environ.get(ENV_LOOP, "uvloop").strip().lower() == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401  # optional: the `fast` extra
    except ImportError:
        return "asyncio"
    return "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the chosen loop (:func:`loop_name`)."""
    if loop_name() == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


def settle_collector() -> None:
    """Call once the server is up: what is allocated so far goes out of the collector's reach, and its
    thresholds become :data:`COLLECTOR_THRESHOLDS`.

    Start-up objects live as long as the process; a full collection would
    walk them again and again for nothing.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
