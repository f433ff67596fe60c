"""``tricktable verify RECORD...``: replay game records and report the first discrepancy of each.

A file holds one record (a JSON document) or several (JSON Lines, one
record per line; assumed when the whole file is not one JSON document but
its first non-empty line is). Every
invalid record prints one line naming the file (and line), the deal, the
action and what was expected against what the record says; a summary
``N records, M invalid`` follows. Exit status 1 when any record is invalid
or a file cannot be read, else 0. A malformed file is an error line, never
a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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
    out: list[tuple[str, str | None]] = []
    for loaded in load_records(path):
        if loaded.error is not None:
            out.append((loaded.where, loaded.error))
            continue
        if not isinstance(loaded.value, dict):
            out.append((loaded.where, "not a game record: expected a JSON object"))
            continue
        try:
            found = verify_record(loaded.value)
        except Exception as exc:  # an engine bug must not hide the other records
            out.append((loaded.where, f"internal error while replaying: {type(exc).__name__}: {exc}"))
            continue
        out.append((loaded.where, None if found is None else str(found)))
    return out


def verify_command(
    records: Annotated[list[Path], typer.Argument(help="Record files: JSON, or JSON Lines (one record per line).")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only invalid records and the summary.")] = False,
) -> None:
    """Replay game records with the rules engine; report the first discrepancy of each invalid record."""
    total = invalid = 0
    for path in records:
        for where, problem in check_file(path):
            total += 1
            if problem is None:
                if not quiet:
                    typer.echo(f"{where}: ok")
            else:
                invalid += 1
                typer.echo(f"{where}: invalid: {problem}")
    typer.echo(f"{total} records, {invalid} invalid")
    raise typer.Exit(1 if invalid else 0)


def register(app: typer.Typer) -> None:
    """Add ``verify`` to the command line."""
    app.command("verify")(verify_command)
