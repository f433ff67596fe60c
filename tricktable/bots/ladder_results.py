"""A ladder run's results file: each duplicate pair as one JSON line the moment it ends, so long runs can stop.

Ladder rows that matter take hours. With a results file (``tricktable
ladder --results FILE.jsonl``) a run that is killed keeps every pair it
finished, and running the same command again plays only the pairs missing
from the file: pairs are independent (pair ``i``'s decks come from
``f"{seed}|{game}|{i}"``), so the resumed run's outcomes are the ones an
uninterrupted run would have had (exactly so with a fixed number of worlds a
decision).

The file is JSON Lines:

- the first line, the header: ``{"format": "tricktable-ladder-results",
  "version": 1, "settings": {...}}``, the settings being the game and bots
  of every step (each bot with its worlds, budget and clock), the table
  options and the seed. A file whose settings differ from the command's is
  refused: its pairs would measure something else.
- then one line per pair, in the order they ended: the step (``game``,
  ``stronger``, ``weaker``), the pair's ``index``, the stronger bot's
  ``points`` and ``games`` shares, ``deals``, both bots' effort
  (decisions, CPU and wall seconds, worlds), the CPU and wall seconds of the
  pair, the one-minute ``load`` average when it ended and the Unix times
  ``started`` (of the run that played it) and ``ended``.
- a line ``{"stopped": TIME, "games": N}`` when a run reached its stop time
  (``--until``) before playing its ``N`` pairs a step.

The rows of a file come back as :class:`~tricktable.bots.ladder.PairResult`,
the same as a run's, so its table is the run's table.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from tricktable.bots.ladder import BotSpec, Effort, PairOutcome, PairResult

#: The header's ``format``, and the version of the lines' layout.
FORMAT = "tricktable-ladder-results"
VERSION = 1

#: A step of a run: its game, the weaker bot and the stronger bot.
Step = tuple[str, BotSpec, BotSpec]


class ResultsFileError(ValueError):
    """A results file that cannot be read, or that another run wrote: nothing is played and nothing written."""


def settings(steps: Sequence[Step], options: Mapping[str, Any], seed: str) -> dict[str, Any]:
    """The run's settings as its header holds them (JSON values only, so they compare equal after a read)."""
    run: dict[str, Any] = json.loads(json.dumps({
        "steps": [{"game": game, "stronger": asdict(stronger), "weaker": asdict(weaker)}
                  for game, weaker, stronger in steps],
        "options": dict(options), "seed": seed,
    }))
    return run


def _differences(mine: Any, theirs: Any, where: str = "") -> list[str]:
    """Where two settings differ, as ``path: file's value, run's value``."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        keys = sorted(set(mine) | set(theirs))
        return [d for k in keys for d in _differences(mine.get(k), theirs.get(k), f"{where}.{k}" if where else k)]
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return [d for i, (m, t) in enumerate(zip(mine, theirs, strict=True))
                for d in _differences(m, t, f"{where}[{i}]")]
    return [] if mine == theirs else [f"{where or 'settings'}: {json.dumps(theirs)} in the file, "
                                      f"{json.dumps(mine)} here"]


def _outcome_line(game: str, weaker: str, stronger: str, outcome: PairOutcome) -> dict[str, Any]:
    line = {"game": game, "stronger": stronger, "weaker": weaker, **asdict(outcome)}
    line["stronger_effort"], line["weaker_effort"] = line.pop("a_effort"), line.pop("b_effort")
    return line


def _outcome(line: Mapping[str, Any]) -> PairOutcome:
    fields = {k: v for k, v in line.items() if k not in ("game", "stronger", "weaker")}
    fields["a_effort"] = Effort(**fields.pop("stronger_effort"))
    fields["b_effort"] = Effort(**fields.pop("weaker_effort"))
    return PairOutcome(**fields)


class _Contents:
    """What a results file holds: its settings, each step's pairs and the last stop's pair count."""

    def __init__(self, path: Path, text: str) -> None:
        self.settings: dict[str, Any] = {}
        self.pairs: dict[tuple[str, str, str], dict[int, PairOutcome]] = {}
        #: Pairs a step the last run wanted, when the file's last line says it stopped at its time.
        self.stopped_games: int | None = None
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for number, raw in enumerate(lines, start=1):
            try:
                line = json.loads(raw)
            except json.JSONDecodeError:
                line = None
                if number > 1:
                    raise ResultsFileError(f"{path}: line {number} is not JSON") from None
            if number == 1:
                if not isinstance(line, dict) or line.get("format") != FORMAT or "settings" not in line:
                    raise ResultsFileError(f"{path} is not a ladder results file (its first line is no header)")
                if line.get("version") != VERSION:
                    raise ResultsFileError(f"{path}: results version {line.get('version')!r}; "
                                           f"this tricktable reads version {VERSION}")
                self.settings = line["settings"]
                try:
                    for step in self.settings["steps"]:
                        self.pairs[(step["game"], step["weaker"]["name"], step["stronger"]["name"])] = {}
                except (KeyError, TypeError):
                    raise ResultsFileError(f"{path}: its header names no steps (game and bots)") from None
                continue
            self._add(path, number, line)

    def _add(self, path: Path, number: int, line: Any) -> None:
        if isinstance(line, dict) and "stopped" in line:
            self.stopped_games = int(line["games"])
            return
        self.stopped_games = None
        try:
            key = (line["game"], line["weaker"], line["stronger"])
            outcome = _outcome(line)
        except (KeyError, TypeError) as exc:
            raise ResultsFileError(f"{path}: line {number} is not a pair's result ({exc})") from None
        if key not in self.pairs:
            raise ResultsFileError(f"{path}: line {number} is a pair of {key[0]} {key[2]} vs {key[1]}, "
                                   "a step the header does not name")
        if outcome.index in self.pairs[key]:
            raise ResultsFileError(f"{path}: line {number} repeats pair {outcome.index} of {key[0]} "
                                   f"{key[2]} vs {key[1]}")
        self.pairs[key][outcome.index] = outcome

    def results(self) -> list[PairResult]:
        """A row for each step of the header, in its order."""
        rows = []
        for (game, weaker, stronger), pairs in self.pairs.items():
            wanted = self.stopped_games or 0
            rows.append(PairResult.of(game, weaker, stronger, list(pairs.values()),
                                      stopped=any(i not in pairs for i in range(wanted))))
        return rows


def read_results(path: Path) -> list[PairResult]:
    """The rows of a results file, one per step, as the run that wrote it would print them.

    Raises:
        ResultsFileError: for a file that is no results file (or a damaged one).
        OSError: for a file that cannot be read.
    """
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):  # a run killed in the middle of a line: that pair is not there yet
        text = text[: text.rfind("\n") + 1]
    return _Contents(path, text).results()


class ResultsFile:
    """A run's results file, open for appending: the pairs it holds, and each new pair written as it ends.

    Opening checks the header against the run's settings (or writes it, for
    a new or empty file), drops an unfinished last line a killed run left,
    and takes an exclusive lock, so two runs cannot write the same file.
    """

    def __init__(self, path: Path, run_settings: Mapping[str, Any]) -> None:
        self.path = path
        self._file: IO[str] = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - closed by close()
        try:
            self._lock()
            self._file.seek(0)
            text = self._file.read()
            if text and not text.endswith("\n"):
                self._file.truncate(text.rfind("\n") + 1)
                text = text[: text.rfind("\n") + 1]
                self.dropped_unfinished_line = True
            else:
                self.dropped_unfinished_line = False
            wanted = json.loads(json.dumps(dict(run_settings)))
            if text:
                self._contents = _Contents(path, text)
                differ = _differences(wanted, self._contents.settings)
                if differ:
                    raise ResultsFileError(f"{path} holds a run with other settings ({'; '.join(differ)}): "
                                           "run it with the file's settings, or give another --results file")
            else:
                header = json.dumps({"format": FORMAT, "version": VERSION, "settings": wanted})
                self._contents = _Contents(path, header)
                self._file.write(header + "\n")
                self._sync()
        except BaseException:
            self._file.close()
            raise

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # no advisory locks on this system: one run a file is the user's to keep
            return
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ResultsFileError(f"{self.path} is being written by another ladder run") from None

    def _write(self, line: Mapping[str, Any]) -> None:
        self._file.write(json.dumps(line) + "\n")
        self._sync()

    def _sync(self) -> None:
        self._file.flush()
        os.fsync(self._file.fileno())

    def done(self, game: str, weaker: str, stronger: str) -> list[PairOutcome]:
        """The pairs of this step the file already holds."""
        return list(self._contents.pairs.get((game, weaker, stronger), {}).values())

    def append(self, game: str, weaker: str, stronger: str, outcome: PairOutcome) -> None:
        """Write one pair's result and flush it to disk before the next pair is counted."""
        self._write(_outcome_line(game, weaker, stronger, outcome))
        self._contents.pairs.setdefault((game, weaker, stronger), {})[outcome.index] = outcome

    def stopped(self, at: float, games: int) -> None:
        """Note that the run reached its stop time before playing ``games`` pairs of every step."""
        self._write({"stopped": at, "games": games})

    def close(self) -> None:
        """Release the lock and close the file."""
        self._file.close()


@contextlib.contextmanager
def results_file(path: Path, run_settings: Mapping[str, Any]) -> Iterator[ResultsFile]:
    """:class:`ResultsFile`, closed on the way out."""
    opened = ResultsFile(path, run_settings)
    try:
        yield opened
    finally:
        opened.close()


__all__ = ["FORMAT", "VERSION", "ResultsFile", "ResultsFileError", "Step", "read_results", "results_file",
           "settings"]
