"""The tournament page's data: standings, crosstable, paired results, SPRT, progress and the games played.

Read from the tournament tables of a database (:class:`TournamentStore`,
opened read-only, so a tournament can be watched while it runs: the SQLite
file, or the PostgreSQL database of a server's ``--database-url``) or from a
tournament's export folder (``summary.json``, ``matches.csv`` and
``records.jsonl``, for ``tricktable view``). Both give the same page; the
figures are the report's own (:func:`tricktable.tournament.report.summarize`).
"""

from __future__ import annotations

import collections
import json
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tricktable.server import withholding
from tricktable.server.withholding import DeckSet
from tricktable.tournament.config import TournamentConfig
from tricktable.tournament.engine import UNPLAYED_REASON, stored_games, swiss_round_groups
from tricktable.tournament.ratings import Game
from tricktable.tournament.report import read_csv_rows, summarize
from tricktable.tournament.schedule import deck_set_index, fixed_groups, round_matches, tables_per_deck_set
from tricktable.tournament.store import ENDED_STATUSES, TournamentStore, tournament_store


def replay_path(tournament: str, match_id: str) -> str:
    """The replay page of one game of a tournament."""
    return f"/replay/{quote(tournament, safe='')}/{quote(match_id, safe='')}"


def tournament_path(tournament: str) -> str:
    """The tournament page."""
    return f"/tournament/{quote(tournament, safe='')}"


def scheduled_games(config: TournamentConfig) -> int:
    """Games the tournament plays when it runs to the end (an SPRT may stop it earlier).

    Every round of a format has as many matches as the first (as the engine counts its progress).
    """
    if config.format == "swiss":
        groups, _bye = swiss_round_groups(config, 0, [], {})
        return len(round_matches(config, 0, groups)) * config.swiss_rounds
    return len(round_matches(config, 0, fixed_groups(config)))


def _reader(db: Path, database_url: str | None) -> TournamentStore | None:
    """The tournaments of the PostgreSQL database at ``database_url``, else of the file ``db``, read-only.

    None for a file that does not exist (nothing stored yet).
    """
    if database_url is None and not db.exists():
        return None
    return tournament_store(db, database_url, read_only=True)


def list_database(db: Path, database_url: str | None = None) -> list[dict[str, Any]]:
    """The tournaments of a database, newest first (none when it has none, or the file does not exist)."""
    store = _reader(db, database_url)
    if store is None:
        return []
    try:
        return [{"name": name, "game": config.game, "format": config.format, "status": status,
                 "games": store.count(name), "scheduled": scheduled_games(config), "url": tournament_path(name)}
                for name, config, status in store.tournaments()]
    finally:
        store.close()


def page_from_database(db: Path, name: str, owner_token: str = "",
                       database_url: str | None = None) -> dict[str, Any] | None:
    """The page of tournament ``name`` as stored so far, or None when the database has no such tournament.

    Fair play: the public page holds only the games of deck sets that are over (every one of their games
    stored, :func:`public_games`), as the server withholds their tables until then; the holder of the
    tournament's owner token (its organiser) gets every game stored. ``withheld_games`` counts the others.
    """
    store = _reader(db, database_url)
    if store is None:
        return None
    try:
        found = [config for stored, config, _ in store.tournaments() if stored == name]
        if not found:
            return None
        config = found[0]
        games = stored_games(store, name)
        expected = store.owner_token(name)
        organiser = bool(owner_token and expected) and secrets.compare_digest(owner_token.encode(), expected.encode())
        shown = games if organiser else public_games(config, games)
        page = summarize(config, store, shown).to_json()
        page["scheduled"] = scheduled_games(config)
        page["withheld_games"] = len(games) - len(shown)
        page["organiser"] = organiser
        page["matches"] = [_match_row(name, spec.to_json(), outcome.to_json(), replay=outcome.status != "error")
                           for spec, outcome in shown]
        return page
    finally:
        store.close()


def public_games(config: TournamentConfig, games: Sequence[Game]) -> list[Game]:
    """The games of ``games`` whose deck set is over: the server's rule (:func:`withholding.withheld`) on them.

    A deck set is over once a game of each of its places (:func:`deck_set_index`) is stored; a game the
    machinery could not play (played again on ``--resume``) does not count, as its table will be dealt again.
    """
    tables = tables_per_deck_set(config)
    ended: dict[tuple[int, int], set[int]] = collections.defaultdict(set)
    for spec, outcome in games:
        if not (outcome.status == "error" and outcome.reason.startswith(UNPLAYED_REASON)):
            ended[(spec.round, spec.deck_set)].add(deck_set_index(config, spec))
    return [(spec, outcome) for spec, outcome in games
            if not withholding.withheld(open_twins=0, sealed=True,
                                        deck_set=DeckSet(tables, deck_set_index(config, spec)),
                                        ended=ended[(spec.round, spec.deck_set)])]


def record_from_database(db: Path, name: str, match_id: str,
                         database_url: str | None = None) -> dict[str, Any] | None:
    """The record of one game of a tournament, or None."""
    store = _reader(db, database_url)
    if store is None:
        return None
    try:
        statuses = {stored: status for stored, _, status in store.tournaments()}  # none: no tournament tables
        if statuses.get(name) not in ENDED_STATUSES:
            return None  # fair play: a tournament still to (re)run may deal this game's decks again
        found = store.record(name, match_id)
        return dict(found) if found else None
    finally:
        store.close()


def _match_row(tournament: str, spec: dict[str, Any], outcome: dict[str, Any], *, replay: bool) -> dict[str, Any]:
    return {"match_id": spec["match_id"], "round": spec["round"], "deck_set": spec["deck_set"],
            "seats": spec["seats"], "status": outcome["status"], "winners": outcome["winners"],
            "scores": outcome["scores"], "reason": outcome["reason"], "forfeit_by": outcome.get("forfeit_by"),
            "replay": replay_path(tournament, spec["match_id"]) if replay else None}


@dataclass(slots=True)
class ExportFolder:
    """A tournament's export folder, read once: its page and its records by match id."""

    page: dict[str, Any]
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The tournament's name."""
        return str(self.page["tournament"])


def read_export(folder: Path) -> ExportFolder:
    """Read ``summary.json``, ``matches.csv`` and ``records.jsonl`` of an export folder.

    ``records.jsonl`` holds the records of the games that have one, in the
    order of ``matches.csv``; a record is matched to its line by its seed and
    seats, so a game without a record (an error) does not shift the others.

    Raises:
        OSError, ValueError: a missing or unreadable file.
    """
    page = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    if not isinstance(page, dict) or "tournament" not in page:
        raise ValueError(f"{folder / 'summary.json'} is not a tournament summary")
    export = ExportFolder(page=page)
    rows = read_csv_rows(folder / "matches.csv")
    records = iter(_jsonl(folder / "records.jsonl"))
    pending = next(records, None)
    matches = []
    for row in rows:
        seats = row["seats"].split(" ")
        has_record = (pending is not None and pending.get("seed") == row["seed"]
                      and [s.get("name") for s in pending.get("seats", [])] == seats)
        if has_record and pending is not None:
            export.records[row["match_id"]] = pending
            pending = next(records, None)
        spec = {"match_id": row["match_id"], "round": int(row["round"]), "deck_set": int(row["deck_set"]),
                "seats": seats}
        outcome = {"status": row["status"], "winners": [int(w) for w in row["winners"].split()],
                   "scores": [int(s) for s in row["scores"].split()], "reason": row["reason"],
                   "forfeit_by": row["forfeit_by"] or None}
        matches.append(_match_row(export.name, spec, outcome, replay=has_record))
    page["matches"] = matches
    page.setdefault("scheduled", page.get("run", {}).get("scheduled") or page.get("games", len(matches)))
    return export


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                value = json.loads(line)
                if isinstance(value, dict):
                    yield value
