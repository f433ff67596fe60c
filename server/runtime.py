"""How a server process runs its event loop: uvloop when installed, and the start-up heap frozen for the GC.

Both were measured with ``make bench`` (README, "The server over gRPC"):
uvloop's loop costs less per callback and per socket event than asyncio's,
and ``gc.freeze()`` after start-up keeps the collector from walking the
interpreter's and the libraries' long-lived objects (rules tables, protobuf
descriptors) on every full collection. uvloop is optional (the ``fast``
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


def freeze_startup_heap() -> None:
    """Move everything allocated so far out of the collector's reach (call once the server is up).

    Start-up objects live as long as the process; a full collection would
    walk them again and again for nothing.
    """
    gc.collect()
    gc.freeze()
