"""Decision datasets on disk: rows of :mod:`tricktable.envs.decisions` as JSON Lines or Parquet, and back.

JSON Lines needs nothing but the standard library; Parquet needs pyarrow (``pip install
'.[train]'``). Both files hold the same rows: :func:`read_rows` gives back, from either, the very
dicts that were written (Parquet's columns are typed by :data:`~tricktable.envs.decisions.COLUMNS`;
the observation is stored as 64-bit floats so that no value changes on the way).
``read_rows("decisions.parquet")`` yields dicts; ``read_table("decisions.jsonl")`` gives a
``pyarrow.Table`` (``.to_pandas()``, ``.column("observation")``, ...).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from tricktable.envs.decisions import COLUMN_NAMES, COLUMNS, FORMAT

#: The file formats, by the name ``--format`` takes and the suffix a file of that format has.
FORMATS: dict[str, str] = {"parquet": ".parquet", "jsonl": ".jsonl"}
#: Rows per Parquet row group (and per batch written): bounded memory for any number of rows.
BATCH_ROWS = 4096


class DatasetError(ValueError):
    """A dataset file that cannot be written or read as asked (unknown format, pyarrow missing, wrong rows)."""


def format_of(path: Path, chosen: str | None = None) -> str:
    """The format ``chosen``, or the one the file's suffix names.

    Raises:
        DatasetError: an unknown format, or a suffix that names none.
    """
    if chosen is not None:
        if chosen not in FORMATS:
            raise DatasetError(f"unknown format {chosen!r} (formats: {', '.join(FORMATS)})")
        return chosen
    for name, suffix in FORMATS.items():
        if path.suffix == suffix:
            return name
    raise DatasetError(f"{path}: say the format with --format ({', '.join(FORMATS)}) or name the file "
                       f"{' or '.join('*' + s for s in FORMATS.values())}")


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # the submodule is what the callers use
    except ImportError:
        raise DatasetError("Parquet needs pyarrow: pip install 'tricktable[train]' "
                           "(JSON Lines needs nothing)") from None
    return pyarrow


def arrow_schema() -> Any:
    """The :class:`pyarrow.Schema` of a dataset: one field per column, typed and nullable as documented."""
    pa = _pyarrow()
    kinds = {"string": pa.string(), "int": pa.int64(), "floats": pa.list_(pa.float64()),
             "strings": pa.list_(pa.string()), "ints": pa.list_(pa.int64())}
    return pa.schema([pa.field(c.name, kinds[c.kind.rstrip("?")], nullable=c.nullable) for c in COLUMNS],
                     metadata={"format": FORMAT})


def to_table(rows: Iterable[dict[str, Any]]) -> Any:
    """Rows as a :class:`pyarrow.Table` of :func:`arrow_schema`."""
    return _pyarrow().Table.from_pylist(list(rows), schema=arrow_schema())


def write_rows(rows: Iterable[dict[str, Any]], path: Path, fmt: str) -> int:
    """Write ``rows`` to ``path`` in ``fmt`` and return how many; the file appears whole or not at all.

    Raises:
        DatasetError: Parquet without pyarrow, or a row whose keys are not the columns.
        OSError: the file cannot be written.
    """
    partial = path.with_name(path.name + ".partial")
    try:
        count = _write_parquet(rows, partial) if fmt == "parquet" else _write_jsonl(rows, partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return count


def _checked(row: dict[str, Any]) -> dict[str, Any]:
    if tuple(row) != COLUMN_NAMES:
        raise DatasetError(f"a row's keys are not the dataset's columns: {sorted(set(row) ^ set(COLUMN_NAMES))}")
    return row


def _write_jsonl(rows: Iterable[dict[str, Any]], path: Path) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(_checked(row), ensure_ascii=False, separators=(",", ":")) + "\n")
            count += 1
    return count


def _write_parquet(rows: Iterable[dict[str, Any]], path: Path) -> int:
    pa = _pyarrow()
    schema = arrow_schema()
    count = 0
    with pa.parquet.ParquetWriter(path, schema, compression="zstd") as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(_checked(row))
            if len(batch) >= BATCH_ROWS:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                count, batch = count + len(batch), []
        if batch or not count:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            count += len(batch)
    return count


def read_rows(path: str | Path, fmt: str | None = None) -> Iterator[dict[str, Any]]:
    """The rows of a dataset file, as the dicts that were written (Parquet one row group at a time).

    Raises:
        DatasetError: an unknown format, Parquet without pyarrow, or a file of another format or version.
    """
    path = Path(path)
    if format_of(path, fmt) == "jsonl":
        yield from _read_jsonl(path)
        return
    pa = _pyarrow()
    source = pa.parquet.ParquetFile(path)
    found = (source.schema_arrow.metadata or {}).get(b"format", b"").decode()
    if found != FORMAT:
        raise DatasetError(f"{path}: not a {FORMAT} file (its format: {found or 'none'})")
    for group in range(source.num_row_groups):
        yield from source.read_row_group(group).to_pylist()


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not JSON: {exc}") from None
            if not isinstance(row, dict) or row.get("format") != FORMAT:
                raise DatasetError(f"{path}:{number}: not a row of {FORMAT}")
            yield row


def read_table(path: str | Path, fmt: str | None = None) -> Any:
    """A dataset file, either format, as one :class:`pyarrow.Table` of :func:`arrow_schema`."""
    path = Path(path)
    if format_of(path, fmt) == "parquet":
        return _pyarrow().parquet.read_table(path, schema=arrow_schema())
    return to_table(read_rows(path, "jsonl"))
