"""What a server process did, in the Prometheus exposition format: tables, moves, clocks, refusals, the journal.

An operator's first questions (is it playing, how fast, who is slow, what is refused, is the
disk keeping up) are answered here, scraped from ``/metrics`` on the HTTP port. Each lobby has
its own registry, so several servers in one process (the tests, ``tricktable match``) never
mix their counts. Counting is a handful of increments a move; what can be read from the lobby
when asked (tables by status, streams, spectators) is read at scrape time instead of kept.

Nothing secret is ever a value or a label: no token, seed or card. A bot's latency is labelled
with its seat name (the name the table's creator gave, without a trailing ``-N`` seat number),
and at most :data:`MAX_BOT_NAMES` distinct names are kept, so a client naming seats at random
cannot grow the registry without bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

#: The exposition format's content type, for the HTTP answer.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Distinct bot names with their own label; the rest are counted as "other".
MAX_BOT_NAMES = 100
#: A seat number appended to a bot's name (``heuristic-2``), dropped from its label.
_SEAT_SUFFIX = re.compile(r"-\d+$")
#: Buckets (seconds) of a bot's thinking: from a fast bot's round trip to a clock's worth.
THINK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: Buckets (seconds) of the server's own work: a move's step and a journal commit.
STEP_BUCKETS = (0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5)


class TableLike(Protocol):
    """What the scrape-time collector reads of a table."""

    game: str

    @property
    def status(self) -> object: ...


class _Silent:
    """An instrument that counts nothing: every metric's stand-in once they are off (``serve --no-metrics``)."""

    def labels(self, *_values: str) -> _Silent:
        return self

    def inc(self, _amount: float = 1.0) -> None:
        return None

    def observe(self, _value: float) -> None:
        return None


#: The instruments of :class:`Metrics` (what :meth:`Metrics.switch_off` silences).
INSTRUMENTS = ("moves", "think", "step", "timeouts", "defaults", "rejections", "rate_limited", "faults",
               "journal_commit", "records_stored", "storage_errors")


class Metrics:
    """The counters and histograms of one server process's lobby."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.moves = Counter("tricktable_moves", "Actions played, by game", ["game"], registry=r)
        self.think = Histogram("tricktable_bot_think_seconds",
                               "From a decision request to the seat's accepted answer, by bot name", ["bot"],
                               buckets=THINK_BUCKETS, registry=r)
        self.step = Histogram("tricktable_move_step_seconds",
                              "The server's own time from an accepted answer to the next decision request",
                              buckets=STEP_BUCKETS, registry=r)
        self.timeouts = Counter("tricktable_timeouts", "Decisions whose time ran out, by game", ["game"], registry=r)
        self.defaults = Counter("tricktable_default_actions", "Actions the server played for a seat, by reason",
                                ["game", "reason"], registry=r)
        self.rejections = Counter("tricktable_rejections", "Answers refused, by reason", ["reason"], registry=r)
        self.rate_limited = Counter("tricktable_rate_limited",
                                    "Unary calls refused past their call rate, by method and scope "
                                    "(seat_token, connection)", ["method", "scope"], registry=r)
        self.faults = Counter("tricktable_bot_faults", "Refused answers and timeouts, by bot name", ["bot"],
                              registry=r)
        self.journal_commit = Histogram("tricktable_journal_commit_seconds", "Time of one journal commit",
                                        buckets=STEP_BUCKETS, registry=r)
        self.records_stored = Counter("tricktable_records_stored", "Game records written to the record store",
                                      registry=r)
        self.storage_errors = Counter("tricktable_storage_errors", "Failed writes, by store (journal, records)",
                                      ["store"], registry=r)
        self._bots: set[str] = set()
        #: False once :meth:`switch_off` ran.
        self.counting = True

    def switch_off(self) -> None:
        """Count nothing from now on, and expose nothing (``serve --no-metrics``: a server nobody scrapes).

        Why on this object rather than a second kind of lobby: the lobby made it and handed it to its tables,
        its journal and the interceptors, which keep calling the same instruments; each is now a no-op. What
        is left of the cost is the calls themselves (``bench.server_bench --metrics-cost`` measures the rest).
        """
        silent = _Silent()
        for name in INSTRUMENTS:
            setattr(self, name, silent)
        self.registry = CollectorRegistry(auto_describe=True)  # no collector: the exposition is empty
        self.counting = False

    def bot(self, name: str) -> str:
        """The label of a seat named ``name``: its bot's name, or "other" once :data:`MAX_BOT_NAMES` are known."""
        if not self.counting:
            return ""
        label = _SEAT_SUFFIX.sub("", name)[:64] or "unnamed"
        if label in self._bots:
            return label
        if len(self._bots) >= MAX_BOT_NAMES:
            return "other"
        self._bots.add(label)
        return label

    def watch(self, tables: Callable[[], Iterable[TableLike]], streams: Callable[[], int],
              spectators: Callable[[], int]) -> None:
        """Report the lobby's tables by game and status, its open streams and spectators, read at each scrape."""
        self.registry.register(_LobbyCollector(tables, streams, spectators))

    def watch_storage(self, writable: Callable[[], bool], unstored: Callable[[], int]) -> None:
        """Report whether storage writes and how many records wait to be stored, read at each scrape."""
        self.registry.register(_StorageCollector(writable, unstored))

    def exposition(self) -> bytes:
        """Every metric, in the text exposition format."""
        return generate_latest(self.registry)


class _LobbyCollector(Collector):
    """The gauges read from the lobby when scraped."""

    def __init__(self, tables: Callable[[], Iterable[TableLike]], streams: Callable[[], int],
                 spectators: Callable[[], int]) -> None:
        self._tables, self._streams, self._spectators = tables, streams, spectators

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())  # described at collection: the labels depend on the tables

    def collect(self) -> Iterator[GaugeMetricFamily]:
        counts: dict[tuple[str, str], int] = {}
        for table in self._tables():
            status = getattr(table.status, "value", str(table.status))
            counts[(table.game, status)] = counts.get((table.game, status), 0) + 1
        tables = GaugeMetricFamily("tricktable_tables", "Tables in memory, by game and status",
                                   labels=["game", "status"])
        for (game, status), count in sorted(counts.items()):
            tables.add_metric([game, status], count)
        yield tables
        yield GaugeMetricFamily("tricktable_streams", "Open streams (calls and PlayMany conversations)",
                                value=self._streams())
        yield GaugeMetricFamily("tricktable_spectators", "Open spectator streams", value=self._spectators())


class _StorageCollector(Collector):
    """The storage gauges: 0 while the journal or the record store fails (a full disk), and the records kept."""

    def __init__(self, writable: Callable[[], bool], unstored: Callable[[], int]) -> None:
        self._writable, self._unstored = writable, unstored

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("tricktable_storage_writable",
                                "1 while the journal and the record store write, 0 while they fail (no new tables)",
                                value=int(self._writable()))
        yield GaugeMetricFamily("tricktable_records_unstored",
                                "Ended tables whose records are kept in memory until they are stored",
                                value=self._unstored())
