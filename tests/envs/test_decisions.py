"""Decision rows: what a seat saw, and nothing more; the same rows through JSON Lines and Parquet; refused records.

The cheater's test replays each record itself and, at every decision, gathers the cards the other
seats hold (and their discards, and a card another seat buried): none may appear in any view field
of the row, in its legal actions or in its encoded observation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.games_support import LAYOUTS, layout_id, random_record
from tricktable.envs import dataset
from tricktable.envs.dataset import DatasetError, read_rows, read_table, write_rows
from tricktable.envs.decisions import COLUMN_NAMES, COLUMNS, RecordRefused, decision_rows
from tricktable.envs.encoding import CARD_COUNT, CARDS, OBSERVATION_SIZE, PARTS, encode
from tricktable.rules.cards import Card
from tricktable.rules.match import Match
from tricktable.rules.record import parse_record
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import RecordedDecks

#: Columns that tell what the seat saw (the ids, options and outcomes are not views).
VIEW_TEXT = ("hand", "trump", "turn_up", "exposed", "trick", "history", "contract", "kitty", "discards", "picked",
             "buried", "legal_actions", "action")
#: The encoding's parts that are card sets.
CARD_PARTS = [name for name, size in PARTS if size == CARD_COUNT]


def _record(game: str, options: dict[str, Any], seed: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps(random_record(game, options, seed, max_deals=4)))
    return loaded


def _cards_in(value: object) -> set[str]:
    """Every card code written anywhere in a value: a card, a notation, a history line, lists of them."""
    if value is None:
        return set()
    if isinstance(value, list):
        return set().union(*(_cards_in(v) for v in value))
    found = set()
    for token in str(value).replace(" ", "-").split("-"):
        try:
            found.add(Card.parse(token).code)
        except ValueError:
            continue
    return found


def _observed_cards(observation: list[float]) -> set[str]:
    cards: set[str] = set()
    offset = 0
    for name, size in PARTS:
        if name in CARD_PARTS:
            cards |= {CARDS[i].code for i, v in enumerate(observation[offset:offset + size]) if v}
        offset += size
    return cards


def _hidden_from(match: Match, seat: int) -> set[str]:
    """The cards the other seats hold or put away unseen; the turn-up and exposed cards are public."""
    hidden: set[str] = set()
    for other in range(match.config.players):
        if other == seat:
            continue
        view = match.view(other)
        hidden |= {c.code for c in (*view.hand, *view.discards)}
        if view.buried is not None:
            hidden.add(view.buried.code)
    mine = match.view(seat)
    return hidden - {c.code for c in (*mine.exposed, *([mine.turn_up] if mine.turn_up else []))}


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_no_row_shows_a_card_another_seat_holds(layout: tuple[str, dict[str, Any]]) -> None:
    game, options = layout
    for seed in ("a", "b"):
        data = _record(game, options, seed)
        rows = decision_rows("r", data)
        by_place: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for row in rows:
            by_place.setdefault((row["deal"], row["decision"]), []).append(row)
        record = parse_record(data)
        match = Match.start(game_rules(game), record.options, RecordedDecks([d.deck for d in record.deals]),
                            seed=record.seed)
        checked = 0
        for number, deal in enumerate(record.deals, start=1):
            for index, recorded in enumerate(deal.actions):
                hidden = _hidden_from(match, recorded.seat)
                own = {c.code for c in match.view(recorded.seat).hand}
                for row in by_place.pop((number, index)):
                    assert row["seat"] == recorded.seat
                    assert set(row["hand"]) == own
                    for column in VIEW_TEXT:
                        leaked = _cards_in(row[column]) & hidden
                        assert not leaked, f"deal {number} action {index}: {column} shows {sorted(leaked)}"
                    leaked = _observed_cards(row["observation"]) & hidden
                    assert not leaked, f"deal {number} action {index}: the observation holds {sorted(leaked)}"
                    checked += bool(hidden)
                match = match.apply(recorded.action, recorded.seat)
        assert not by_place, "rows of decisions the record does not have"
        assert checked > 10  # the check met hidden cards to keep out


def test_every_row_has_the_documented_columns_and_the_encodings_size() -> None:
    rows = decision_rows("r", _record("forty_five", {"players": 4, "jink": True}, "c"))
    assert rows and all(tuple(row) == COLUMN_NAMES for row in rows)
    assert all(len(row["observation"]) == OBSERVATION_SIZE for row in rows)
    assert all(row["action"] in row["legal_actions"] and row["action_index"] in row["legal_indices"] for row in rows)
    assert {c.name for c in COLUMNS if not c.nullable} <= {k for k, v in rows[0].items() if v is not None}


def test_a_discard_is_six_picks_in_card_order_ending_in_the_recorded_discard() -> None:
    data = _record("cinq_cents", {}, "d")
    rows = decision_rows("r", data)
    picks = [r for r in rows if r["pick"] is not None]
    assert picks and len(picks) % 6 == 0
    first = picks[:6]
    assert [r["pick"] for r in first] == list(range(6))
    cards = [r["action"].removeprefix("pick-") for r in first]
    assert cards == sorted(cards, key=lambda c: Card.parse(c))
    assert [r["picked"] for r in first] == [cards[:k] for k in range(6)]
    deal = data["deals"][first[0]["deal"] - 1]
    assert sorted(deal["actions"][first[0]["decision"]]["cards"]) == sorted(cards)
    assert all(set(r["legal_actions"]) == {f"pick-{c}" for c in r["hand"] if c not in r["picked"]} for r in first)


def test_outcomes_are_the_engines_for_the_seats_side() -> None:
    data = json.loads(json.dumps(random_record("twenty_five", {}, "e", max_deals=200)))
    assert data["result"]["status"] == "finished"
    rows = decision_rows("r", data)
    sides = data["sides"]
    for row in rows:
        side = row["side"]
        assert row["seat"] in sides[side]
        points = data["deals"][row["deal"] - 1]["points"]
        assert row["deal_outcome"] == points[side]
        assert row["deal_margin"] == points[side] - max(p for k, p in enumerate(points) if k != side)
        assert row["game_outcome"] == (1 if side in data["result"]["winners"] else -1)
    assert {row["game_outcome"] for row in rows} == {1, -1}


def test_an_aborted_game_has_no_game_outcome_and_no_outcome_for_its_unfinished_deal() -> None:
    data = json.loads(json.dumps(random_record("all_fives", {}, "f", max_deals=200, max_actions=7)))
    assert data["result"]["status"] == "aborted" and len(data["deals"]) == 1  # stopped in the first deal's play
    rows = decision_rows("r", data)
    assert len(rows) == 7
    assert {r["game_status"] for r in rows} == {"aborted"} and {r["game_outcome"] for r in rows} == {None}
    assert {r["deal_outcome"] for r in rows} == {None} and {r["deal_margin"] for r in rows} == {None}


def test_the_observation_is_the_encoding_of_the_seats_view() -> None:
    data = _record("all_fives", {"players": 3}, "g")
    rows = decision_rows("r", data)
    record = parse_record(data)
    match = Match.start(game_rules("all_fives"), record.options, RecordedDecks([d.deck for d in record.deals]),
                        seed=record.seed)
    first = record.deals[0].actions
    for row, recorded in zip(rows, first, strict=False):
        assert row["observation"] == encode(match.view(recorded.seat))
        match = match.apply(recorded.action, recorded.seat)


def test_a_record_that_does_not_replay_gives_no_rows_and_says_where() -> None:
    data = _record("twenty_five", {}, "h")
    data["deals"][0]["actions"][0]["card"] = "JKB"
    with pytest.raises(RecordRefused, match="deal 1, action 0"):
        decision_rows("r", data)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_written_rows_read_back_the_same_in_each_format(tmp_path: Path, fmt: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset, "BATCH_ROWS", 50)  # several Parquet row groups, read back in order
    rows = [row for game in ("cinq_cents", "forty_five") for row in decision_rows(game, _record(game, {}, "i"))]
    assert len(rows) > 3 * dataset.BATCH_ROWS
    path = tmp_path / f"d.{fmt}"
    assert write_rows(iter(rows), path, fmt) == len(rows)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        assert pq.ParquetFile(path).num_row_groups > 3
    assert list(read_rows(path)) == rows
    table = read_table(path)
    assert table.num_rows == len(rows) and table.column_names == list(COLUMN_NAMES)
    assert table.to_pylist() == rows


def test_an_empty_dataset_is_a_file_of_no_rows(tmp_path: Path) -> None:
    for fmt in ("jsonl", "parquet"):
        path = tmp_path / f"empty.{fmt}"
        assert write_rows(iter([]), path, fmt) == 0
        assert list(read_rows(path)) == []


def test_a_file_of_another_format_is_refused_by_the_loader(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"format": "something-else/1"}\n')
    with pytest.raises(DatasetError, match=r"other\.jsonl:1"):
        list(read_rows(path))


def test_parquet_without_pyarrow_is_a_clear_error_and_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    path = tmp_path / "d.parquet"
    with pytest.raises(DatasetError, match=r"pip install 'tricktable\[train\]'"):
        write_rows(iter(decision_rows("r", _record("all_fives", {}, "j"))), path, "parquet")
    assert list(tmp_path.iterdir()) == []
