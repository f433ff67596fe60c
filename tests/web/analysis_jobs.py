"""Analysis jobs the web tests give the viewer's worker pool: module-level, so a spawned worker imports them."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tricktable.web.analysed import analysis


def where(record: dict[str, Any], seat: int, sims: int) -> dict[str, Any]:
    """The real analysis, with the process it ran in: its pid, niceness and scheduling policy."""
    return {**analysis(record, seat, sims),
            "ran_in": {"pid": os.getpid(), "nice": os.nice(0), "policy": os.sched_getscheduler(0)}}


def held(gate: Path, record: dict[str, Any], seat: int, sims: int) -> dict[str, Any]:
    """An analysis that ends only once the file ``gate`` exists (so a test decides when a worker is free)."""
    while not gate.exists():
        time.sleep(0.02)
    return {"seat": seat, "sims": sims}
