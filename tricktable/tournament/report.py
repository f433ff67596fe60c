"""Reports: the live progress bar, the final tables, and the JSON/CSV exports.

Everything here reads the store, so a report of a resumed tournament is the
report of the whole tournament. Exports (in the output directory):

- ``summary.json``: config, leaderboard, pairs (paired results with 95%
  intervals: ``ci95_method`` says which, ``wilson`` or ``t``; with one deck
  set it is ``too few`` and the bounds are null), crosstable, SPRT state,
  forfeits and errors, ``faults`` (each entrant's faults by kind, in all and
  match by match), and ``deck_key``: the commitment to the deck key, with
  the key and its salt once every table has ended
  (:mod:`tricktable.tournament.deck_key`);
- ``leaderboard.csv``, ``crosstable.csv`` (A's score against B per cell),
  ``pairs.csv``, ``matches.csv`` (one line per game, its faults in words),
  ``faults.csv`` (one line per game, entrant and kind of fault);
- ``stderr.jsonl``: for each game, what each entrant's bot processes wrote
  to stderr (its end: :data:`tricktable.bots.stderr.STDERR_TAIL_BYTES` at
  most), one JSON object per game and entrant that wrote any;
- ``records.jsonl``: every game's record, one per line, which
  ``tricktable verify records.jsonl`` replays (``tricktable verify FOLDER``
  also checks every deck set against the revealed deck key).
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from tricktable.stats import SMALL_SAMPLE
from tricktable.tournament.config import TournamentConfig
from tricktable.tournament.deck_key import DeckKeyDisclosure
from tricktable.tournament.engine import RunStats, stored_games
from tricktable.tournament.faults import describe
from tricktable.tournament.ratings import (
    Game,
    PairResult,
    SprtState,
    Standing,
    crosstable,
    games_by_entrant,
    leaderboard,
    pair_games,
    pair_result,
    sprt,
)
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec
from tricktable.tournament.store import TournamentStore


class RateColumn(ProgressColumn):
    """Games per second since the bar started."""

    def render(self, task: Task) -> Text:
        """The rate as text."""
        speed = task.finished_speed or task.speed
        return Text("-- games/s" if speed is None else f"{speed:.1f} games/s", style="progress.data.speed")


class RichProgress:
    """A rich progress bar: games done of the total, rate, time elapsed and left, forfeits so far."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
            TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
            console=self.console, transient=False)
        self._task: Any = None
        self.forfeits = 0
        self.errors = 0

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start(self, total: int, done: int) -> None:
        """Set the total (games scheduled) and the games already stored."""
        if self._task is None:
            self._task = self._progress.add_task("games", total=total, completed=done, note="")
        else:
            self._progress.update(self._task, total=total, completed=done)

    def advance(self, spec: MatchSpec, outcome: MatchOutcome) -> None:
        """One more game stored."""
        if outcome.status == "forfeit":
            self.forfeits += 1
        elif outcome.status == "error":
            self.errors += 1
        note = ""
        if self.forfeits or self.errors:
            note = f"{self.forfeits} forfeits, {self.errors} errors"
        self._progress.update(self._task, advance=1, note=note)


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """Everything the final report shows, computed from the stored games."""

    config: TournamentConfig
    standings: list[Standing]
    pairs: list[PairResult]
    cross: dict[str, dict[str, PairResult]]
    sprt: SprtState | None
    games: int
    forfeits: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    status: str | None
    #: The deck key's commitment (and, once every table has ended, the key): None for an unknown tournament.
    deck_key: DeckKeyDisclosure | None = None
    #: Each entrant's faults by kind over every game, and the games with faults (match, entrant, kinds).
    fault_kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    faulty: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, stats: RunStats | None = None) -> dict[str, Any]:
        """``summary.json``."""
        data: dict[str, Any] = {
            "tournament": self.config.name, "status": self.status, "config": self.config.to_json(),
            "games": self.games,
            "leaderboard": [s.to_json() for s in self.standings],
            "pairs": [p.to_json() for p in self.pairs],
            "crosstable": {a: {b: r.to_json() for b, r in row.items()} for a, row in self.cross.items()},
            "sprt": None if self.sprt is None else self.sprt.to_json(),
            "forfeits": self.forfeits, "errors": self.errors,
            "faults": {"by_entrant": self.fault_kinds, "matches": self.faulty},
            "deck_key": None if self.deck_key is None else self.deck_key.to_json(),
        }
        if stats is not None:
            data["run"] = {"played": stats.played, "already_done": stats.already_done, "scheduled": stats.scheduled,
                           "wall_s": round(stats.wall_s, 3), "games_per_s": round(stats.games_per_s, 2),
                           "stopped_by_sprt": stats.stopped_by_sprt}
        return data


def summarize(config: TournamentConfig, store: TournamentStore, games: list[Game] | None = None) -> Summary:
    """The report of everything stored for ``config``'s tournament (or of ``games`` of it: a public page's)."""
    if games is None:
        games = stored_games(store, config.name)
    names = [e.name for e in config.entrants]
    index = games_by_entrant(names, games)
    pairs = [pair_result(pair_games(index, a, b), a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    sprt_state = None
    if config.sprt is not None:
        from tricktable.tournament.ratings import sprt_samples

        sprt_state = sprt(sprt_samples(games, config.sprt.a, config.sprt.b), config.sprt)
    return Summary(
        config=config, standings=leaderboard(names, games), pairs=[p for p in pairs if p.deck_sets],
        cross=crosstable(names, games), sprt=sprt_state, games=len(games),
        forfeits=[{"match_id": s.match_id, "entrant": o.forfeit_by, "reason": o.reason}
                  for s, o in games if o.status == "forfeit"],
        errors=[{"match_id": s.match_id, "reason": o.reason} for s, o in games if o.status == "error"],
        status=store.status(config.name), deck_key=store.deck_key_disclosure(config.name),
        fault_kinds=_fault_totals(names, games),
        faulty=[{"match_id": s.match_id, "entrant": name, "faults": sum(kinds.values()), "kinds": dict(kinds)}
                for s, o in games for name, kinds in o.fault_kinds.items() if kinds])


def _fault_totals(names: Sequence[str], games: Sequence[Game]) -> dict[str, dict[str, int]]:
    """Each entrant's faults by kind over ``games`` (only those with any), the most frequent kind first."""
    totals: dict[str, Counter[str]] = {}
    for _, outcome in games:
        for name, kinds in outcome.fault_kinds.items():
            totals.setdefault(name, Counter()).update(kinds)
    return {name: dict(totals[name].most_common()) for name in names if name in totals}


# --- tables ---------------------------------------------------------------------------


def _table(title: str) -> Table:
    """A report table light enough to fit 80 columns: no vertical rules, so no cell is cut to fit."""
    return Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)


def leaderboard_table(summary: Summary) -> Table:
    """The leaderboard as a rich table."""
    table = _table(f"{summary.config.name}: {summary.config.game}, {summary.config.format}, {summary.games} games")
    longest = max((len(s.name) for s in summary.standings), default=0)
    for col in ("#", "entrant", "mu", "sigma", "mu-3σ", "games", "wins", "points", "forfeits", "faults"):
        table.add_column(col, justify="left" if col == "entrant" else "right", overflow="fold",
                         min_width=longest if col == "entrant" else None)
    for i, s in enumerate(summary.standings, start=1):
        table.add_row(str(i), s.name, f"{s.mu:.2f}", f"{s.sigma:.2f}", f"{s.conservative:.2f}", str(s.games),
                      f"{s.win_share:.3f}", f"{s.points_for}-{s.points_against}", str(s.forfeits), str(s.faults))
    return table


def crosstable_table(summary: Summary) -> Table:
    """A's score against B (row against column), with the games played."""
    names = [s.name for s in summary.standings]
    table = _table("crosstable: row's score against column (games)")
    table.add_column("", overflow="fold")
    for n in names:
        table.add_column(n, justify="right", overflow="fold")
    for a in names:
        cells = []
        for b in names:
            r = summary.cross.get(a, {}).get(b)
            cells.append("·" if a == b else "" if r is None else f"{r.score:.3f} ({r.games})")
        table.add_row(a, *cells)
    return table


#: Which interval the paired results show (:func:`tricktable.stats.score_interval`).
INTERVAL_NOTE = f"95% CI: Wilson below {SMALL_SAMPLE} deck sets or when all agree, else Student's t"


def pairs_table(summary: Summary) -> Table:
    """Paired results on shared decks with their 95% intervals."""
    table = _table("paired results on shared decks (A's mean score per deck set, 95% CI)")
    table.caption = INTERVAL_NOTE
    for col in ("A", "B", "W-D-L", "deck sets", "mean", "95% CI"):
        table.add_column(col, justify="left" if col in ("A", "B") else "right", overflow="fold")
    for p in summary.pairs:
        wdl = f"{p.wins}-{p.draws}-{p.losses}" if p.basis == "head-to-head" else "via common opp."
        interval = "too few deck sets" if p.too_few else f"[{p.low:.3f}, {p.high:.3f}]"
        table.add_row(p.a, p.b, wdl, str(p.deck_sets), f"{p.mean:.3f}", interval)
    return table


def print_report(summary: Summary, console: Console, stats: RunStats | None = None) -> None:
    """The final report on the console."""
    console.print(leaderboard_table(summary))
    console.print(crosstable_table(summary))
    console.print(pairs_table(summary))
    if summary.sprt is not None:
        s = summary.sprt
        verdict = {"H1": f"{s.a} is stronger than {s.b}", "H0": f"{s.a} is not stronger than {s.b}",
                   None: "undecided"}[s.decision]
        console.print(f"SPRT {s.a} vs {s.b}: LLR {s.llr:.3f} in [{s.lower:.3f}, {s.upper:.3f}] after "
                      f"{s.samples} deck sets: {verdict}")
    for f in summary.forfeits[:10]:
        console.print(f"forfeit {f['match_id']}: {f['reason']}")
    if len(summary.forfeits) > 10:
        console.print(f"... and {len(summary.forfeits) - 10} more forfeits (summary.json lists them all)")
    for e in summary.errors[:10]:
        console.print(f"error {e['match_id']}: {e['reason']}")
    for name, kinds in summary.fault_kinds.items():
        games = sum(1 for f in summary.faulty if f["entrant"] == name)
        console.print(f"faults of {name}: {describe(kinds)} (in {games} games; faults.csv and stderr.jsonl in "
                      "the export say which, and what it wrote to stderr)")
    if summary.deck_key is not None and summary.deck_key.commitment is not None:
        console.print(f"deck-key commitment: {summary.deck_key.commitment}")
        console.print("the deck key and its salt are in summary.json: tricktable verify checks every deck set"
                      if summary.deck_key.revealed else
                      "the deck key is revealed once every table of the tournament has ended")
    if stats is not None:
        console.print(f"this run: {stats.played} games in {stats.wall_s:.1f} s ({stats.games_per_s:.1f} games/s); "
                      f"{stats.already_done} were already stored")


# --- exports ----------------------------------------------------------------------------


@contextlib.contextmanager
def _whole(path: Path, *, newline: str | None = None) -> Iterator[TextIO]:
    """A text file for ``path`` that appears there only once all of it is written.

    Why: an export the disk had no room for must not be left behind cut short, to be read as the whole
    tournament; the file written so far is removed and the one ``path`` had (an earlier export) stays.
    """
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("w", newline=newline, encoding="utf-8") as fh:
            yield fh
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    with _whole(path, newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    """The rows of an exported CSV file (``matches.csv``...) by column name; none when the file is missing."""
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def export(summary: Summary, store: TournamentStore, out: Path, stats: RunStats | None = None) -> list[Path]:
    """Write the exports into ``out``; returns the files written.

    Each file is written whole or not at all (:func:`_whole`).

    Raises:
        OSError: a file could not be written (a full disk): the files written before it are complete.
    """
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / "summary.json"
    data = summary.to_json(stats)
    data["exported_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with _whole(path) as fh:
        fh.write(json.dumps(data, indent=2) + "\n")
    written.append(path)
    path = out / "leaderboard.csv"
    keys = list(Standing(name="", mu=0, sigma=0).to_json())
    _write_csv(path, ["rank", *keys], [[i, *s.to_json().values()] for i, s in enumerate(summary.standings, 1)])
    written.append(path)
    names = [s.name for s in summary.standings]
    path = out / "crosstable.csv"
    rows = []
    for a in names:
        row: list[Any] = [a]
        for b in names:
            r = summary.cross.get(a, {}).get(b)
            row.append("" if r is None else round(r.score, 4))
        rows.append(row)
    _write_csv(path, ["entrant", *names], rows)
    written.append(path)
    path = out / "pairs.csv"
    pair_keys = list(PairResult(a="", b="", games=0, wins=0, draws=0, losses=0, deck_sets=0, mean=0, low=0,
                                high=0).to_json())
    _write_csv(path, pair_keys, [list(p.to_json().values()) for p in summary.pairs])
    written.append(path)
    path = out / "matches.csv"
    match_rows = []
    fault_rows: list[list[Any]] = []
    records, stderr = out / "records.jsonl", out / "stderr.jsonl"
    with _whole(records) as fh, _whole(stderr) as err:
        for m in store.iter_matches(summary.config.name, with_records=True):
            s, o = m.spec, m.outcome
            faults = "; ".join(f"{name}: {describe(dict(kinds))}" for name, kinds in o.fault_kinds.items() if kinds)
            match_rows.append([s.match_id, s.round, s.deck_set, s.group, s.arrangement, s.seed, " ".join(s.seats),
                               o.status, " ".join(map(str, o.winners)), " ".join(map(str, o.scores)),
                               o.forfeit_by or "", o.reason, faults, o.table_id or "", round(o.duration_s, 4)])
            fault_rows.extend([s.match_id, name, kind, n] for name, kinds in o.fault_kinds.items()
                              for kind, n in kinds.items())
            if o.record:
                fh.write(json.dumps(o.record, separators=(",", ":")) + "\n")
            for name, text in o.stderr.items():
                err.write(json.dumps({"match_id": s.match_id, "entrant": name, "stderr": text},
                                     ensure_ascii=False) + "\n")
    _write_csv(path, ["match_id", "round", "deck_set", "group", "arrangement", "seed", "seats", "status", "winners",
                      "scores", "forfeit_by", "reason", "faults", "table_id", "duration_s"], match_rows)
    faults_csv = out / "faults.csv"
    _write_csv(faults_csv, ["match_id", "entrant", "kind", "count"], fault_rows)
    written.extend([path, faults_csv, records, stderr])
    return written
