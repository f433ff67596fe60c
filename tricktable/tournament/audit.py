"""Checking a tournament's export against its deck key: what ``tricktable verify EXPORT_FOLDER`` adds to a replay.

Three checks, each of the export alone (``summary.json``, ``matches.csv``,
``records.jsonl``), so anyone who kept the commitment shown when the
tournament began can run them:

- the key: ``summary.json`` reveals the deck key and salt, and they open its
  commitment (:func:`tricktable.tournament.deck_key.opens`);
- every deck set: each game of ``matches.csv`` was dealt from the seed the key
  derives for its round and deck set (:func:`tricktable.tournament.schedule.deck_seed`),
  and its match id names that round and deck set;
- every record: it is the record of a game of ``matches.csv`` (same seed and
  seats), and its decks are the ones that seed deals
  (:func:`tricktable.rules.verify.check_seeded_decks`). The replay itself is
  the record check ``tricktable verify`` runs on any record.

The commitment in the export is only as good as the one seen at the start:
compare it with the commitment the tournament page (or the organiser)
published when the tournament began.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tricktable.rules.record import RecordFieldError, parse_record
from tricktable.rules.verify import check_seeded_decks
from tricktable.tournament.config import ConfigError, TournamentConfig, config_from_mapping
from tricktable.tournament.deck_key import DeckKeyDisclosure, opens
from tricktable.tournament.report import read_csv_rows
from tricktable.tournament.schedule import deck_seed


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing checked: where, and what is wrong (None when it holds)."""

    where: str
    problem: str | None = None


@dataclass(slots=True)
class ExportAudit:
    """The deck-key checks of one export folder: the key and every deck set at once, records one at a time.

    Records are checked as they are read (:meth:`record`), so a large ``records.jsonl`` is never held whole.
    """

    key: Finding
    deck_sets: list[Finding]
    #: (seed, seat names) of the games of matches.csv whose record has not been seen yet.
    _games: Counter[tuple[str, tuple[str, ...]]] = field(default_factory=Counter)
    #: The seed each game's deck set should have, by the seed matches.csv gives it.
    _expected: dict[str, str] = field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        """The key's finding and the deck sets'."""
        return [self.key, *self.deck_sets]

    @classmethod
    def read(cls, folder: Path) -> ExportAudit:
        """Check ``summary.json``'s deck key and every deck set of ``matches.csv``.

        Raises:
            OSError, ValueError: a missing or unreadable ``summary.json`` or ``matches.csv``.
        """
        summary_path, matches_path = folder / "summary.json", folder / "matches.csv"
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        if not isinstance(summary, dict) or "tournament" not in summary:
            raise ValueError(f"{summary_path} is not a tournament summary")
        if not matches_path.exists():
            raise FileNotFoundError(f"no {matches_path}")
        return cls.of(summary, read_csv_rows(matches_path), str(summary_path), str(matches_path))

    @classmethod
    def of(cls, summary: Mapping[str, Any], rows: list[dict[str, str]], summary_where: str = "summary.json",
           matches_where: str = "matches.csv") -> ExportAudit:
        """The checks of a loaded ``summary.json`` and the rows of ``matches.csv``."""
        try:
            config = config_from_mapping(summary.get("config") or {})
            disclosure = DeckKeyDisclosure.from_json(summary.get("deck_key"))
        except (ConfigError, ValueError) as exc:
            return cls(key=Finding(f"{summary_where}: deck key", str(exc)),
                       deck_sets=[Finding(f"{matches_where}: deck sets", "not checked: no deck key to check them")])
        key = Finding(f"{summary_where}: deck key", _key_problem(disclosure, str(summary["tournament"]), config,
                                                                 summary.get("status")))
        audit = cls(key=key, deck_sets=[])
        audit._check_rows(config, disclosure.key, rows, matches_where)
        return audit

    def _check_rows(self, config: TournamentConfig, key: str | None, rows: list[dict[str, str]], where: str) -> None:
        problems: dict[str, str | None] = {}
        for number, row in enumerate(rows, start=1):
            try:
                round_index, deck_set = int(row["round"]), int(row["deck_set"])
                match_id, seed, seats = row["match_id"], row["seed"], tuple(row["seats"].split(" "))
            except (KeyError, ValueError, AttributeError) as exc:
                problems.setdefault(f"game {number}", f"not a row of matches.csv: {type(exc).__name__}: {exc}")
                continue
            label = f"round {round_index} deck set {deck_set}"
            problems.setdefault(label, None)
            self._games[seed, seats] += 1
            if key is None:
                problems[label] = problems[label] or "not checked: the deck key is not revealed"
                continue
            expected = deck_seed(config, round_index, deck_set, key)
            self._expected[seed] = expected
            if not match_id.startswith(f"r{round_index}-d{deck_set}-"):
                problems[label] = problems[label] or f"game {match_id} does not belong to this deck set"
            elif seed != expected:
                problems[label] = problems[label] or (
                    f"game {match_id} was dealt from seed {seed}, but the deck key gives {expected}")
        self.deck_sets = [Finding(f"{where}: {label}", problem) for label, problem in problems.items()]

    def record(self, value: object) -> str | None:
        """What is wrong with one record of ``records.jsonl`` as a game of this export (None: nothing).

        It must be the record of a game of ``matches.csv`` (its seed and seats; each game has one record),
        dealt from its deck set's seed as the key derives it, every deck the one that seed deals.
        """
        try:
            record = parse_record(value)
        except RecordFieldError:
            return None  # the replay reports a malformed record
        game = (record.seed or "", tuple(name for _seat, name in record.seats))
        if self._games[game] <= 0:
            return "not the record of any game of matches.csv (no game has its seed and seats, or it has two records)"
        self._games[game] -= 1
        expected = self._expected.get(game[0])
        if expected is not None and expected != game[0]:
            return f"dealt from seed {game[0]}, but the deck key gives its deck set {expected}"
        found = check_seeded_decks(record)
        return None if found is None else str(found)


def _key_problem(disclosure: DeckKeyDisclosure, tournament: str, config: TournamentConfig,
                 status: object) -> str | None:
    if disclosure.commitment is None:
        return "no commitment to the deck key was published when the tournament began"
    if disclosure.key is None or disclosure.salt is None:
        return (f"the deck key is not revealed (the tournament is {status}): it is revealed once "
                "every table of the tournament has ended")
    if not opens(disclosure.commitment, tournament=tournament, seed=config.seed, salt=disclosure.salt,
                 key=disclosure.key):
        return f"the revealed key and salt do not open the commitment {disclosure.commitment}"
    return None
