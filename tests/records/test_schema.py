"""docs/record.schema.json against real records: every game and layout, server records, and corrupted ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.golden import PLAYTHROUGHS
from tricktable.cli import doc_schemas
from tricktable.cli.selfplay import play_random
from tricktable.rules.registry import games

jsonschema = pytest.importorskip("jsonschema")

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCHEMA = json.loads((DOCS / "record.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
#: The playthroughs of the registered games (a game only the tests register has no place in the schema).
REAL_PLAYTHROUGHS = tuple(p for p in PLAYTHROUGHS if p.registered is None)


def _records() -> list[dict[str, Any]]:
    out = []
    for play in REAL_PLAYTHROUGHS:  # every game and layout; aborted ones (the deal limit) included
        match = play_random(play.game, play.options, play.seed, max_deals=5)
        out.append(match.to_record(seed=play.seed))
    return out


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_schema_names_every_registered_game() -> None:
    path = DOCS / doc_schemas.RECORD_SCHEMA
    text = path.read_text(encoding="utf-8")
    assert doc_schemas.problems(path, text, doc_schemas.with_games(text, games())) == [], (
        f"run {doc_schemas.COMMAND}")


@pytest.mark.parametrize("record", _records(), ids=[p.name for p in REAL_PLAYTHROUGHS])
def test_real_records_of_every_game_and_layout_match_the_schema(record: dict[str, Any]) -> None:
    errors = [e.message for e in VALIDATOR.iter_errors(record)]
    assert errors == []


@pytest.mark.parametrize(("path", "value"), [
    (["format"], "tricktable-record/2"),
    (["deals", 0, "deck", 0], "1H"),
    (["deals", 0, "actions", 0, "type"], "fold"),
    (["result", "status"], "won"),
    (["seats", 0, "seat"], "0"),
])
def test_a_record_with_a_bad_field_does_not_match(path: list[Any], value: object) -> None:
    record = copy.deepcopy(_records()[0])
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert list(VALIDATOR.iter_errors(record))


async def test_a_record_stored_by_the_server_matches_the_schema(tmp_path: Path) -> None:
    import asyncio

    from tests.live_server import running_server
    from tricktable.bots.first_legal import FirstLegalBot
    from tricktable.client_sdk.runner import create_table, get_record, run_bot_async
    from tricktable.server.clocks import TimeControl

    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=20.0)
    async with running_server(tmp_path / "data", clocks) as server:
        table = await create_table(server.address, game="all_fives", options={"target": 11}, seed="schema")
        await asyncio.wait_for(asyncio.gather(*(run_bot_async(FirstLegalBot(), server.address, token=t)
                                                for t in table.tokens)), 60)
        record = json.loads(await get_record(server.address, table.table_id))
    assert "timeouts" in record["seats"][0]  # the server's counters are part of the shape
    assert [e.message for e in VALIDATOR.iter_errors(record)] == []


def _annotated(annotation: object) -> dict[str, Any]:
    record = copy.deepcopy(_records()[0])
    record["deals"][0]["actions"][0]["annotation"] = annotation
    return record


def test_a_record_with_an_annotated_action_matches_the_schema_parses_and_verifies() -> None:
    from tricktable.rules.annotation import Annotation
    from tricktable.rules.record import parse_record
    from tricktable.rules.verify import verify_record

    record = _annotated({"note": "search: 200 worlds", "values": {"play-5H": 4.25, "play-2C": -1}})
    assert [e.message for e in VALIDATOR.iter_errors(record)] == []
    assert verify_record(record) is None
    assert parse_record(record).deals[0].actions[0].annotation == Annotation(
        note="search: 200 worlds", values={"play-5H": 4.25, "play-2C": -1.0})


@pytest.mark.parametrize("annotation", [
    "a note",
    {"note": "x" * 281},
    {"values": {f"k{i}": 1 for i in range(65)}},
    {"values": {"play-5H": "high"}},
    {"values": {"": 1}},
    {"note": "n", "mood": "good"},
], ids=["not-an-object", "long-note", "too-many-values", "not-a-number", "empty-key", "unknown-field"])
def test_an_annotation_over_a_limit_fails_the_schema_and_the_record_check_at_its_path(annotation: object) -> None:
    from tricktable.rules.record import RecordFieldError, parse_record

    record = _annotated(annotation)
    assert list(VALIDATOR.iter_errors(record))
    with pytest.raises(RecordFieldError) as error:
        parse_record(record)
    assert error.value.path == "deals[0].actions[0].annotation"
