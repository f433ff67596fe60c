"""Checks of command-line values that end in one line, ``error: ...``, in the user's units, and exit status 2.

Why not Typer's ``min=``/``max=``: those print a boxed usage panel, and a
value the server would refuse later (a port over 65535, a zero clock) would
otherwise surface as a traceback in seconds when the flag was in
milliseconds. Every command checks its flags here, before it starts anything.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import NoReturn, TypeVar

import typer

#: Log levels ``--log-level`` accepts.
LOG_LEVELS: tuple[str, ...] = ("DEBUG", "INFO", "WARNING", "ERROR")

Number = TypeVar("Number", int, float)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with status 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def port(flag: str, value: int) -> int:
    """A TCP port to bind: 0 (any free port) to 65535."""
    if not 0 <= value <= 65535:
        fail(f"{flag} must be a port from 0 (any free port) to 65535, not {value}")
    return value


def ms_in_range(flag: str, value: int, low_seconds: float, high_seconds: float) -> int:
    """A duration in milliseconds within a range given in seconds (as the server states its limits)."""
    low, high = round(low_seconds * 1000), round(high_seconds * 1000)
    if not low <= value <= high:
        fail(f"{flag} must be from {low:,} to {high:,} milliseconds, not {value:,}")
    return value


def at_least(flag: str, value: Number, low: Number) -> Number:
    """A count (or a rate) of at least ``low``."""
    if value < low:
        fail(f"{flag} must be at least {low:g}, not {value:g}")
    return value


#: A duration from now: days, hours, minutes and seconds, each optional, in that order (``1h30m``, ``90m``).
_DURATION = re.compile(r"(?:(?P<d>\d+)d)?(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?")
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def stop_time(flag: str, value: str, now: float) -> float:
    """A time to stop at, as Unix time: an ISO time (local unless it names a zone) or a duration from ``now``."""
    text = value.strip()
    duration = _DURATION.fullmatch(text)
    if text and duration is not None:
        return now + sum(int(n) * _SECONDS[unit] for unit, n in duration.groupdict().items() if n)
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        fail(f"{flag} must be an ISO time (2026-12-07T07:30, 2026-12-07T07:30Z) or a duration from now "
             f"(90m, 2h, 1h30m, 45s), not {value!r}")


def log_level(value: str) -> str:
    """One of :data:`LOG_LEVELS`, in any case; returned upper-case."""
    level = value.upper()
    if level not in LOG_LEVELS:
        fail(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not {value!r}")
    return level
