"""docs/datasets.md's schema table is the code's: every column, in order, with its type.

A learner's training code reads these names; a column renamed or retyped in the code without the card
would break it silently.
"""

from __future__ import annotations

from pathlib import Path

from tricktable.envs.decisions import COLUMNS, FORMAT

CARD = Path(__file__).resolve().parents[2] / "docs" / "datasets.md"


def _table() -> list[tuple[str, str]]:
    lines = CARD.read_text(encoding="utf-8").splitlines()
    start = lines.index("| column | type | meaning |") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        name, kind = (cell.strip() for cell in line.strip("|").split("|")[:2])
        rows.append((name.strip("`"), kind))
    return rows


def test_the_schema_table_lists_every_column_in_order_with_its_type() -> None:
    assert _table() == [(c.name, c.kind) for c in COLUMNS]


def test_the_card_names_the_format_the_rows_carry() -> None:
    assert f"`{FORMAT}`" in CARD.read_text(encoding="utf-8")
