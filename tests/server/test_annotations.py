"""Annotations at the table: kept with the action, refused over a limit, journaled, in the record after the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server.test_journal import Server, data_dir, started_table
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.reasons import RejectReason
from tricktable.rules.annotation import MAX_NOTE_CHARS, MAX_VALUES, Annotation
from tricktable.rules.record import parse_record
from tricktable.rules.verify import verify_record
from tricktable.server.service import decide
from tricktable.server.tables import Table

__all__ = ["data_dir"]  # the fixture, shared with the journal tests


def annotated_moves(table: Table, moves: int | None, tag: str = "move") -> None:
    """``moves`` first-legal answers (None: to the end), each noting ``tag``, its action number and seat, and a
    value for each of the first legal actions."""
    while (moves is None or moves > 0) and not table.is_over:
        seat = table.match.to_act
        assert seat is not None
        pending = table.pending_for(seat)
        assert pending is not None
        note = Annotation(note=f"{tag} {table.actions_played} by seat {seat}",
                          values={convert.action_id(a): float(i) for i, a in enumerate(pending.legal_actions[:8])})
        assert table.submit(seat, pending.decision_id, pending.legal_actions[0], note).accepted
        moves = None if moves is None else moves - 1


def decide_message(table: Table, annotation: pb.Annotation) -> tuple[int, pb.Decide]:
    seat = table.match.to_act
    assert seat is not None
    pending = table.pending_for(seat)
    assert pending is not None
    return seat, pb.Decide(decision_id=str(pending.decision_id), action_id=convert.action_id(pending.legal_actions[0]),
                           annotation=annotation)


@pytest.mark.parametrize("annotation", [
    pb.Annotation(note="x" * (MAX_NOTE_CHARS + 1)),
    pb.Annotation(values={f"k{i}": 1.0 for i in range(MAX_VALUES + 1)}),
    pb.Annotation(values={"play-5H": float("nan")}),
    pb.Annotation(values={"play-5H": float("inf")}),
    pb.Annotation(values={"k" * 65: 1.0}),
    pb.Annotation(note="bell\x07"),
], ids=["long-note", "too-many-values", "nan", "infinity", "long-key", "control-character"])
async def test_an_over_limit_annotation_refuses_the_decide_with_bad_annotation_and_changes_nothing(
        data_dir: Path, annotation: pb.Annotation) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server)
    seat, message = decide_message(table, annotation)
    before = (table.actions_played, table.pending_for(seat))
    outcome = decide(table, seat, message)
    assert not outcome.accepted and outcome.reason is RejectReason.BAD_ANNOTATION
    assert outcome.message.startswith("annotation: ")
    assert (table.actions_played, table.pending_for(seat)) == before  # the same decision is still pending
    message.ClearField("annotation")
    assert decide(table, seat, message).accepted  # answered again without it, it plays
    server.crash()


async def test_an_annotated_decide_plays_and_the_record_has_the_note_on_its_action(data_dir: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server)
    seat, message = decide_message(table, pb.Annotation(note="first", values={"play-5H": 2.5}))
    assert decide(table, seat, message).accepted
    annotated_moves(table, None)
    assert table.record is not None
    first = table.record["deals"][0]["actions"][0]
    assert first["annotation"] == {"note": "first", "values": {"play-5H": 2.5}}
    actions = [a for d in table.record["deals"] for a in d["actions"]]
    assert [a["annotation"]["note"] for a in actions[1:]] == [f"move {n} by seat {a['seat']}"
                                                             for n, a in enumerate(actions[1:], start=1)]
    assert verify_record(table.record) is None  # a record with notes still replays
    assert parse_record(table.record).deals[0].actions[0].annotation == Annotation(note="first",
                                                                                     values={"play-5H": 2.5})
    server.crash()


async def test_a_table_resumed_from_the_journal_keeps_the_annotations_of_its_moves(data_dir: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server, seed="noted")
    annotated_moves(table, 9)
    server.crash()
    again = Server(data_dir)
    (table,) = again.lobby.resume()
    annotated_moves(table, None)
    await again.lobby.drain()
    assert table.record is not None
    actions = [a for d in table.record["deals"] for a in d["actions"]]
    assert [a["annotation"]["note"] for a in actions] == [f"move {n} by seat {a['seat']}"
                                                         for n, a in enumerate(actions)]
    again.crash()


async def test_a_default_action_and_an_unannotated_move_carry_no_annotation(data_dir: Path) -> None:
    server = Server(data_dir)
    table, _ = await started_table(server)
    seat, message = decide_message(table, pb.Annotation())  # set but empty: no annotation
    assert decide(table, seat, message).accepted
    table.abort("test over")
    assert table.record is not None
    assert "annotation" not in table.record["deals"][0]["actions"][0]
    server.crash()
