"""``make schemas``: the published JSON Schemas' game names follow the registry, and a stale one is named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tricktable.cli import doc_schemas
from tricktable.rules import registry
from tricktable.rules.registry import games

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = (*doc_schemas.HAND_WRITTEN, doc_schemas.TOURNAMENT_SCHEMA)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A copy of docs/'s schemas."""
    for name in SCHEMAS:
        shutil.copy(ROOT / "docs" / name, tmp_path / name)
    return tmp_path


def test_the_published_schemas_name_the_registered_games() -> None:
    for name in SCHEMAS:
        path = ROOT / "docs" / name
        assert doc_schemas.schema_games(path.read_text(encoding="utf-8")) == list(games()), f"run make schemas ({name})"
    assert doc_schemas.main(["--check", str(ROOT / "docs")]) == 0


def test_a_game_no_longer_registered_is_named_and_the_step_removes_it(docs: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delitem(registry.GAME_MODULES, "cinq_cents")
    assert doc_schemas.main(["--check", str(docs)]) == 1
    told = capsys.readouterr().err.splitlines()
    assert sorted(told) == sorted(f"{docs / name} names the game 'cinq_cents', which is not registered: "
                                  "run make schemas" for name in SCHEMAS)
    assert doc_schemas.main([str(docs)]) == 0
    assert all("cinq_cents" not in doc_schemas.schema_games((docs / name).read_text(encoding="utf-8"))
               for name in SCHEMAS)


def test_a_missing_schema_is_named_and_written(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (docs / doc_schemas.TOURNAMENT_SCHEMA).unlink()
    assert doc_schemas.main(["--check", str(docs)]) == 1
    assert capsys.readouterr().err == f"{docs / doc_schemas.TOURNAMENT_SCHEMA} is missing: run make schemas\n"
    assert doc_schemas.main([str(docs)]) == 0
    assert (docs / doc_schemas.TOURNAMENT_SCHEMA).read_text(encoding="utf-8") == (
        (ROOT / "docs" / doc_schemas.TOURNAMENT_SCHEMA).read_text(encoding="utf-8"))


def test_a_hand_written_schema_without_a_game_line_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"no line '\"game\": \{\"enum\": \[\.\.\.\]\}'"):
        doc_schemas.with_games('{"properties": {"game": {"type": "string"}}}', games())
