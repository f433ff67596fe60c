"""The replay page's analysis timeline, computed on demand: a seat's decisions valued by the search bot.

``tricktable analyse`` (:mod:`tricktable.analysis.decisions`) run from the page: the
record is replayed and, at each decision of the seat, the search bot values
every legal action from that seat's view only. It costs CPU seconds (the
search's worlds, ``sims`` a decision), so the viewer runs one analysis at a
time, in a worker thread, and keeps the last few results: the game server
that shares the process keeps its tables moving meanwhile.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from tricktable.analysis.decisions import analyse, search_estimator
from tricktable.rules.record import parse_record
from tricktable.rules.verify import verify_record

#: Worlds a decision by default: a few seconds for a whole game, with losses under a deal point of noise.
DEFAULT_SIMS = 50
#: Worlds a decision at most (an analysis is bounded work for one request).
MAX_SIMS = 400
#: Analyses kept (by record, seat and worlds), so looking again costs nothing.
KEPT = 32


class AnalysisError(ValueError):
    """The request can not be analysed: a bad seat or world count, or a record that does not replay."""


class Analyses:
    """On-demand analyses, one at a time, the last :data:`KEPT` kept."""

    def __init__(self) -> None:
        self._one_at_a_time = asyncio.Lock()
        self._kept: OrderedDict[tuple[str, int, int], dict[str, Any]] = OrderedDict()

    async def of(self, key: str, record: dict[str, Any], seat: int, sims: int) -> dict[str, Any]:
        """The analysis of ``seat`` in ``record`` (``key`` names the record), as ``tricktable analyse --json``.

        Raises:
            AnalysisError: the seat or world count is out of range, or the record does not replay.
        """
        if not 1 <= sims <= MAX_SIMS:
            raise AnalysisError(f"sims must be 1 to {MAX_SIMS}, not {sims}")
        wanted = (key, seat, sims)
        found = self._kept.get(wanted)
        if found is None:
            async with self._one_at_a_time:  # a second request for the same analysis waits for the first's
                found = self._kept.get(wanted)
                if found is None:
                    found = await asyncio.to_thread(_analysis, record, seat, sims)
            self._kept[wanted] = found
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        self._kept.move_to_end(wanted)
        return found


def _analysis(data: dict[str, Any], seat: int, sims: int) -> dict[str, Any]:
    problem = verify_record(data)
    if problem is not None:
        raise AnalysisError(f"the record does not replay: {problem}")
    record = parse_record(data)
    try:
        result = analyse(record, seat, search_estimator(sims, seed="web"))
    except ValueError as error:  # no such seat
        raise AnalysisError(str(error)) from None
    return {"analyser": "search", "sims": sims, **result.to_json()}
