"""``tricktable verify RECORD...``: replay game records and report the first discrepancy of each.

A file holds one record (a JSON document) or several (JSON Lines, one
record per line; assumed when the whole file is not one JSON document but
its first non-empty line is). Every
invalid record prints one line naming the file (and line), the deal, the
action and what was expected against what the record says; a summary
``N records, M invalid`` follows. Exit status 1 when any record is invalid
or a file cannot be read, else 0. A malformed file is an error line, never
a traceback.

A tournament's export folder (``tricktable tournament``'s ``--out``) is
checked whole: every record of its ``records.jsonl`` (replayed, and each the
record of a game of ``matches.csv``, dealt from that game's seed), the deck
key that ``summary.json`` reveals against its commitment, and every deck
set's seed against the key (:mod:`tricktable.tournament.audit`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from tricktable.rules.errors import OptionsError
from tricktable.rules.record import GameRecord, RecordFieldError, parse_record
from tricktable.rules.verify import verify_record


@dataclass(frozen=True, slots=True)
class Loaded:
    """One record read from a file: where it came from, and the value or why it could not be read."""

    where: str
    value: object = None
    error: str | None = None


class RecordWork:
    """Runs one piece of work on every record of some files, one error line per record it fails on.

    The ``replay`` and ``analyse`` commands each walked their files the same way: read, parse,
    work, and on a bad record or a failing bot print ``WHERE: error: ...`` and go on.
    """

    FAILURES = (ValueError, OptionsError, RecordFieldError)

    def __init__(self) -> None:
        self.errors = 0

    def each(self, paths: list[Path]) -> Iterator[tuple[str, GameRecord]]:
        """The parsed records of ``paths`` with where each came from; bad ones are reported and skipped."""
        for path in paths:
            for loaded in load_records(path):
                try:
                    if loaded.error is not None:
                        raise ValueError(loaded.error)
                    yield loaded.where, parse_record(loaded.value)
                except self.FAILURES as exc:
                    self.fail(loaded.where, exc)

    def fail(self, where: str, exc: Exception) -> None:
        """Count and report a record the work could not be done on."""
        self.errors += 1
        typer.echo(f"{where}: error: {exc}")


def load_records(path: Path) -> Iterator[Loaded]:
    """Read the records of a file: one JSON document, or JSON Lines. Never raises for bad input."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        yield Loaded(str(path), error="no such file")
        return
    except (OSError, UnicodeDecodeError) as exc:
        yield Loaded(str(path), error=f"cannot read: {exc}")
        return
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        yield Loaded(str(path), error="empty file: no record")
        return
    try:
        yield Loaded(str(path), value=json.loads(text))
        return
    except json.JSONDecodeError as exc:
        whole_error = exc
    try:
        json.loads(lines[0][1])
    except json.JSONDecodeError:
        # Not JSON Lines either: report the error of the file as a whole.
        yield Loaded(str(path), error=f"not JSON: {whole_error}")
        return
    for number, line in lines:
        where = f"{path}:{number}"
        try:
            yield Loaded(where, value=json.loads(line))
        except json.JSONDecodeError as exc:
            yield Loaded(where, error=f"not JSON: {exc}")


def check_file(path: Path) -> list[tuple[str, str | None]]:
    """Verify every record of a file: ``(where, None)`` for a valid record, ``(where, problem)`` otherwise."""
    return list(check_records(path))


def check_records(path: Path, also: Callable[[object], str | None] | None = None
                  ) -> Iterator[tuple[str, str | None]]:
    """:func:`check_file` one record at a time; ``also`` is a further check of each record that replays."""
    for loaded in load_records(path):
        if loaded.error is not None:
            yield loaded.where, loaded.error
            continue
        if not isinstance(loaded.value, dict):
            yield loaded.where, "not a game record: expected a JSON object"
            continue
        try:
            found = verify_record(loaded.value)
        except Exception as exc:  # an engine bug must not hide the other records
            yield loaded.where, f"internal error while replaying: {type(exc).__name__}: {exc}"
            continue
        if found is not None:
            yield loaded.where, str(found)
        else:
            yield loaded.where, None if also is None else also(loaded.value)


def check_export(folder: Path) -> tuple[list[tuple[str, str | None]], Iterator[tuple[str, str | None]]]:
    """A tournament's export folder: the deck key and deck-set findings, then each record's (replay, deck set).

    Raises:
        OSError, ValueError: ``summary.json`` or ``matches.csv`` missing or unreadable.
    """
    from tricktable.tournament.audit import ExportAudit

    audit = ExportAudit.read(folder)
    return [(f.where, f.problem) for f in audit.findings], check_records(folder / "records.jsonl", audit.record)


def verify_command(
    records: Annotated[list[Path], typer.Argument(
        help="Record files: JSON, or JSON Lines (one record per line); or a tournament's export folder.")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only invalid records and the summary.")] = False,
) -> None:
    """Replay game records with the rules engine; report the first discrepancy of each invalid record.

    An export folder of ``tricktable tournament`` is checked as a whole: its records, and its deck
    key (revealed once the tournament ended) against the commitment and every deck set's seed.
    """
    records_seen = Tally()
    checks = Tally()
    for path in records:
        if not path.is_dir():
            records_seen.add_all(check_records(path), quiet)
            continue
        try:
            findings, per_record = check_export(path)
        except (OSError, ValueError) as exc:
            checks.add(str(path), f"not a tournament's export folder: {exc}", quiet)
            continue
        checks.add_all(findings, quiet)
        records_seen.add_all(per_record, quiet)
    summary = f"{records_seen.total} records, {records_seen.invalid} invalid"
    if checks.total:
        summary += f"; {checks.total} deck-key checks, {checks.invalid} failed"
    typer.echo(summary)
    raise typer.Exit(1 if records_seen.invalid or checks.invalid else 0)


class Tally:
    """Prints each check's line (``WHERE: ok`` or ``WHERE: invalid: PROBLEM``) and counts them."""

    def __init__(self) -> None:
        self.total = self.invalid = 0

    def add(self, where: str, problem: str | None, quiet: bool) -> None:
        """One check."""
        self.total += 1
        if problem is None:
            if not quiet:
                typer.echo(f"{where}: ok")
        else:
            self.invalid += 1
            typer.echo(f"{where}: invalid: {problem}")

    def add_all(self, found: Iterable[tuple[str, str | None]], quiet: bool) -> None:
        """Several checks."""
        for where, problem in found:
            self.add(where, problem, quiet)


def register(app: typer.Typer) -> None:
    """Add ``verify`` to the command line."""
    app.command("verify")(verify_command)
