"""``tricktable export-decisions``: one row per decision of recorded or self-played games, for training.

Sources, any number and any mix:

- record files (one JSON record, or JSON Lines such as a tournament's ``records.jsonl``);
- a directory of records (its ``*.json`` and ``*.jsonl`` files, in name order, such as
  ``tricktable selfplay --out``);
- a tournament's export folder (``summary.json`` beside ``records.jsonl``): each row's
  ``record_id`` is the game's match id from ``matches.csv``;
- ``--selfplay GAME --games N --bots a,b --seed S``: games played here and now, seat ``s`` by the
  ``s mod len(bots)``-th bot, game ``i`` dealt from seed ``S-i`` (its ``record_id``) and each bot
  seeded from it, so the same command writes the same rows; ``--records-out DIR`` keeps the records.

Each record is replayed by the rules engine and every decision becomes a row made of what the
deciding seat could see (:mod:`tricktable.envs.decisions`, docs/datasets.md). ``--out`` names the
file; its suffix (``.parquet``, ``.jsonl``) or ``--format`` says the format. A record that does
not replay is one ``WHERE: skipped: ...`` line and gives no rows; the file is written with the
others and the exit status is 1. Bad flags exit 2 and write nothing.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from tricktable.bots import SPEC_HELP, BotSpecError, bot_factory
from tricktable.cli.selfplay import parse_options, record_text
from tricktable.cli.verify import load_records
from tricktable.envs.dataset import FORMATS, DatasetError, format_of, write_rows
from tricktable.envs.decisions import RecordRefused, decision_rows
from tricktable.rules.errors import OptionsError
from tricktable.rules.match import MAX_DEALS
from tricktable.rules.registry import game_rules, games


class SourceRecord(NamedTuple):
    """A record read from a source, or why it could not be."""

    record_id: str
    #: Where it came from, for the line that reports a record skipped.
    where: str
    value: object
    error: str | None = None


def file_records(path: Path) -> Iterator[SourceRecord]:
    """The records of one file; each one's id is where it is (the file, and line for JSON Lines)."""
    for loaded in load_records(path):
        yield SourceRecord(loaded.where, loaded.where, loaded.value, loaded.error)


def folder_records(folder: Path) -> Iterator[SourceRecord]:
    """A tournament's export folder (by match id) or a directory of record files (by file)."""
    if (folder / "summary.json").exists():
        yield from export_records(folder)
        return
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".json", ".jsonl"))
    if not files:
        yield SourceRecord(str(folder), str(folder), None, "no *.json or *.jsonl record file in this directory")
    for path in files:
        yield from file_records(path)


def export_records(folder: Path) -> Iterator[SourceRecord]:
    """The records of a tournament's export, each named by its match id (its seed and seats in ``matches.csv``)."""
    from tricktable.tournament.report import read_csv_rows

    ids: defaultdict[tuple[str, tuple[str, ...]], deque[str]] = defaultdict(deque)
    for row in read_csv_rows(folder / "matches.csv"):
        ids[row.get("seed", ""), tuple(row.get("seats", "").split(" "))].append(row.get("match_id", ""))
    for loaded in file_records(folder / "records.jsonl"):
        key = _game_key(loaded.value)
        queue = ids.get(key) if key is not None else None
        yield loaded._replace(record_id=queue.popleft()) if queue else loaded


def _game_key(value: object) -> tuple[str, tuple[str, ...]] | None:
    """A record's (seed, seat names), as ``matches.csv`` writes a game; None when the record has no such fields."""
    if not isinstance(value, dict) or not isinstance(value.get("seats"), list):
        return None
    names = tuple(str(s.get("name", "")) if isinstance(s, dict) else "" for s in value["seats"])
    return str(value.get("seed") or ""), names


def selfplay_records(game: str, options: dict[str, Any], games: int, bots: list[str], seed: str,
                     max_deals: int, records_out: Path | None) -> Iterator[SourceRecord]:
    """Play ``games`` games with ``bots`` around the table (seat ``s``: ``bots[s % len(bots)]``), one record each."""
    from tricktable.bots.ladder import BotSpec, play_match

    players = game_rules(game).config(options).players
    for i in range(games):
        game_seed = f"{seed}-{i}"
        specs = [bots[s % len(bots)] for s in range(players)]
        seated = [BotSpec(spec).build(f"{game_seed}/{s}") for s, spec in enumerate(specs)]
        match = play_match(game, options, game_seed, seated, max_deals=max_deals)
        record = match.to_record(seed=game_seed, names=[f"{spec}-{s}" for s, spec in enumerate(specs)])
        if records_out is not None:
            (records_out / f"{game}-{i}.json").write_text(record_text(record), encoding="utf-8")
        yield SourceRecord(game_seed, f"selfplay {game_seed}", record)


class Export:
    """The rows of every record it is given, with one line per record it skips."""

    def __init__(self) -> None:
        self.records = self.skipped = 0

    def rows(self, loaded: Iterator[SourceRecord]) -> Iterator[dict[str, Any]]:
        """Each record's rows in turn; a record that cannot be read or replayed is reported and skipped."""
        for record in loaded:
            try:
                if record.error is not None:
                    raise RecordRefused(record.error)
                if not isinstance(record.value, dict):
                    raise RecordRefused("not a game record: expected a JSON object")
                rows = decision_rows(record.record_id, record.value)
            except RecordRefused as exc:
                self.skipped += 1
                typer.echo(f"{record.where}: skipped: {exc}", err=True)
                continue
            self.records += 1
            yield from rows


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def export_decisions_command(
    out: Annotated[Path, typer.Option("--out", help="The dataset file (.parquet or .jsonl).")],
    sources: Annotated[list[Path] | None, typer.Argument(
        help="Record files (JSON or JSON Lines), directories of them, or tournament export folders.")] = None,
    fmt: Annotated[str | None, typer.Option(
        "--format", help=f"One of: {', '.join(FORMATS)} (default: by the suffix of --out).")] = None,
    selfplay: Annotated[str | None, typer.Option(
        "--selfplay", help=f"Also play games of this game here: {', '.join(games())}.")] = None,
    games: Annotated[int, typer.Option("--games", min=1, help="Self-play: how many games.")] = 1,
    bots: Annotated[str, typer.Option(
        "--bots", help=f"Self-play: the bots around the table, comma separated: {SPEC_HELP}.")] = "random",
    seed: Annotated[str, typer.Option("--seed", help="Self-play: game i is dealt from '<seed>-<i>'.")] = "selfplay",
    players: Annotated[int | None, typer.Option("--players", help="Self-play: number of players.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Self-play: table option KEY=VALUE (JSON when it parses); repeatable.")] = None,
    max_deals: Annotated[int, typer.Option(
        "--max-deals", min=1, help="Self-play: a game still running after this many deals is aborted.")] = MAX_DEALS,
    records_out: Annotated[Path | None, typer.Option(
        "--records-out", help="Self-play: also write each game's record here (<game>-<i>.json).")] = None,
) -> None:
    """Write one row per decision (the seat's view, legal actions, action taken, outcomes) as Parquet or JSON Lines."""
    try:
        chosen = format_of(out, fmt)
    except DatasetError as exc:
        raise _fail(str(exc)) from None
    if not sources and selfplay is None:
        raise _fail("give record files, folders, or --selfplay GAME")
    if records_out is not None and selfplay is None:
        raise _fail("--records-out keeps the records of --selfplay games; the other sources are records already")
    missing = [str(p) for p in sources or [] if not p.exists()]
    if missing:
        raise _fail(f"no such file or folder: {', '.join(missing)}")
    streams = [folder_records(p) if p.is_dir() else file_records(p) for p in sources or []]
    if selfplay is not None:
        streams.append(_selfplay_stream(selfplay, games, bots, seed, players, option or [], max_deals, records_out))
    export = Export()
    try:
        written = write_rows((row for stream in streams for row in export.rows(stream)), out, chosen)
    except (DatasetError, OptionsError, BotSpecError) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write {out}: {exc}") from None
    typer.echo(f"wrote {written} rows from {export.records} records to {out} ({chosen})"
               + (f"; {export.skipped} records skipped" if export.skipped else ""))
    raise typer.Exit(1 if export.skipped else 0)


def _selfplay_stream(game: str, games: int, bots: str, seed: str, players: int | None, option: list[str],
                     max_deals: int, records_out: Path | None) -> Iterator[SourceRecord]:
    """Check every self-play flag before the first game (a bad one exits 2 with nothing written), then play."""
    try:
        options = parse_options(option, players)
        game_rules(game).config(options)
        specs = [b.strip() for b in bots.split(",") if b.strip()]
        if not specs:
            raise BotSpecError("--bots names no bot")
        for spec in specs:
            bot_factory(spec)
        if records_out is not None:
            records_out.mkdir(parents=True, exist_ok=True)
    except (OptionsError, BotSpecError) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write records to {records_out}: {exc}") from None
    return selfplay_records(game, options, games, specs, seed, max_deals, records_out)


def register(app: typer.Typer) -> None:
    """Add ``export-decisions`` to the command line."""
    app.command("export-decisions")(export_decisions_command)
