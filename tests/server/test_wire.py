"""Wire encoding shortcuts give the same messages as the plain conversion.

The server converts a table's options once per stream, a decision's legal
actions once for both the request and its view, a seat's history one new
entry at a time, and a public event once for every seat; these tests play
whole matches of every game (new deals, redeals, Cinq Cents discards
included) and compare every message with the plain conversion.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.games_support import SHORT_GAMES
from tricktable.protocol import convert, wire_cache
from tricktable.protocol.generated.tricktable.v1 import events_pb2, game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.actions import Bid, Denomination, Discard, describe
from tricktable.rules.cards import cards
from tricktable.rules.registry import new_match
from tricktable.server import wire, wire_entries
from tricktable.server.clocks import TimeControl
from tricktable.server.events import DecisionRequested, Event, GameEvent
from tricktable.server.tables import Table, TableStatus
from tricktable.server.wire import SeatWire, decision_to_proto, event_to_proto, status_to_proto


def _plain(decision: DecisionRequested, enumerate_discards: bool) -> pb.DecisionRequest:
    choice = None if enumerate_discards else convert.discard_choice_to_proto(decision.legal_actions)
    return pb.DecisionRequest(
        decision_id=str(decision.decision_id),
        legal_actions=[] if choice else [
            pb.LegalAction(id=convert.action_id(a), name=describe(a), action=convert.action_to_proto(a))
            for a in decision.legal_actions],
        discard_choice=choice,
        deadline_unix_ms=round(decision.deadline * 1000), time_bank_ms=round(decision.bank_seconds * 1000),
        view=convert.view_to_proto(decision.view, enumerate_discards=enumerate_discards))


#: Every game, with options that keep a match short enough to play whole.


def _decisions(game: str, options: dict[str, int], seed: str) -> Iterator[DecisionRequested]:
    """Every decision of a whole match (at most 400), the seats answering with varied legal actions."""
    match = new_match(game, options, seed=seed)
    number = 0
    while not match.is_over and number < 400:
        seat = match.to_act
        assert seat is not None
        legal = tuple(match.legal_actions())
        number += 1
        yield DecisionRequested(decision_id=number, seat=seat, legal_actions=legal, view=match.view(seat),
                                deadline=1.5, bank_seconds=2.0)
        match = match.apply(legal[number % len(legal)], seat)


@pytest.mark.parametrize("enumerate_discards", [False, True])
@pytest.mark.parametrize(("game", "options"), SHORT_GAMES)
def test_decisions_with_options_converted_once_equal_the_plain_conversion(game: str, options: dict[str, int],
                                                                         enumerate_discards: bool) -> None:
    converted = convert.options_to_proto(game, new_match(game, options, seed=f"wire-{game}").view(0).options)
    number = discards = 0
    for decision in _decisions(game, options, f"wire-{game}"):
        number += 1
        assert decision_to_proto(decision, converted, enumerate_discards=enumerate_discards) == \
            _plain(decision, enumerate_discards)
        assert decision_to_proto(decision) == _plain(decision, enumerate_discards=False)
        discards += _discards(decision)
    assert number > 20
    if game == "cinq_cents":
        assert discards > 0


@pytest.mark.parametrize(("game", "options"), SHORT_GAMES)
def test_a_stream_with_legal_actions_once_sends_the_plain_request_without_the_views_copies(
        game: str, options: dict[str, int]) -> None:
    """``Join.legal_actions_once``: the request as ever, its view without the deprecated legal actions."""
    converted = convert.options_to_proto(game, new_match(game, options, seed=f"once-{game}").view(0).options)
    wires = [SeatWire(converted, legal_actions_once=True) for _ in range(4)]
    for decision in _decisions(game, options, f"once-{game}"):
        out = pb.DecisionRequest()
        wires[decision.seat].decision(decision, out)
        expected = _plain(decision, enumerate_discards=False)
        expected.view.ClearField("legal_actions")
        expected.view.ClearField("discard_choice")
        assert out == expected
        assert out.legal_actions or out.HasField("discard_choice")


def _discards(decision: DecisionRequested) -> int:
    return sum(1 for a in decision.legal_actions if a.type == "discard")


def test_every_table_status_has_the_wire_value_of_its_name() -> None:
    for status in TableStatus:
        assert pb.TableStatus.Name(status_to_proto(status.value)) == f"TABLE_STATUS_{status.name}"


@pytest.mark.parametrize(("game", "options"), SHORT_GAMES)
def test_a_streams_decisions_with_its_history_kept_between_them_equal_the_plain_conversion(
        game: str, options: dict[str, int]) -> None:
    """One ``SeatWire`` per seat for a whole match: each decision converts only the history entries new to it."""
    match = new_match(game, options, seed=f"kept-{game}")
    converted = convert.options_to_proto(game, match.view(0).options)
    wires = [SeatWire(converted) for _ in range(match.config.players)]
    deals = 0
    for decision in _decisions(game, options, f"kept-{game}"):
        out = pb.DecisionRequest()
        wires[decision.seat].decision(decision, out)
        assert out == _plain(decision, enumerate_discards=False)
        deals = max(deals, decision.view.deal_number)
    assert deals > 1  # the kept history started again at a new deal


def test_an_answer_by_id_is_found_among_the_streams_last_decision_only() -> None:
    match = new_match("twenty_five", {}, seed="ids")
    seat = match.to_act
    assert seat is not None
    legal = tuple(match.legal_actions())
    stream = SeatWire(convert.options_to_proto("twenty_five", match.view(seat).options))
    out = pb.DecisionRequest()
    stream.decision(DecisionRequested(decision_id=7, seat=seat, legal_actions=legal, view=match.view(seat),
                                    deadline=1.0, bank_seconds=1.0), out)
    for item in out.legal_actions:
        assert stream.action_named(7, item.id) == convert.action_from_proto(item.action)
    assert stream.action_named(8, out.legal_actions[0].id) is None  # another decision: the stream does not know it
    assert stream.action_named(7, "play-nothing") is None


def test_a_public_event_converted_for_every_seat_gives_each_the_same_event_with_its_own_sequence() -> None:
    match = new_match("twenty_five", {}, seed="events")
    seat = match.to_act
    assert seat is not None
    played = match.apply(match.legal_actions()[0], seat).events[0]
    dealt = match.events[0]  # the deal: each seat sees only its own hand
    messages = [event_to_proto(Event(10 + s, 1.0, played.seen_by(s))) for s in range(4)]
    assert [m.sequence for m in messages] == [10, 11, 12, 13]
    assert all(m.card_played == messages[0].card_played for m in messages)
    assert messages[0] == convert_plain(played, 10)
    hands = [list(event_to_proto(Event(1, 1.0, dealt.seen_by(s))).deal_started.hand) for s in range(4)]
    assert len({tuple(h) for h in hands}) == 4  # the hidden parts are each seat's own, never another's


def convert_plain(event: GameEvent, seq: int) -> events_pb2.Event:
    out = convert.event_to_proto(event)
    out.sequence, out.time_unix_ms = seq, 1000
    return out


def test_the_converted_log_entries_kept_for_other_seats_are_bounded() -> None:
    match = new_match("twenty_five", {}, seed="bounded")
    dealt = match.events[0]
    for n in range(wire.MAX_ENTRIES + 50):
        event_to_proto(Event(n + 1, 1.0, dealt.seen_by(n % 4)))  # a new body each time: seen_by copies the deal
    assert len(wire._ENTRIES) == wire.MAX_ENTRIES


def test_a_stream_given_views_that_do_not_continue_its_kept_tricks_and_history_starts_them_again() -> None:
    """Decisions of two matches of the same seat, in turn, on one ``SeatWire``: each view is still the plain one."""
    options = {"first_dealer": 0}  # the same table options, two different deals
    converted = convert.options_to_proto("twenty_five", new_match("twenty_five", options, seed="a").view(0).options)
    stream = SeatWire(converted)
    mixed = 0
    for first, second in zip(_decisions("twenty_five", options, "mixed-a"),
                             _decisions("twenty_five", options, "mixed-b"), strict=False):
        for decision in (first, second):
            if decision.seat != 0:
                continue
            out = pb.DecisionRequest()
            stream.decision(decision, out)
            assert out == _plain(decision, enumerate_discards=False)
            mixed += len(out.view.tricks) + len(out.view.history)
    assert mixed > 20  # tricks and history were there to be kept, and were started again


def test_a_legal_action_is_converted_once_and_the_kept_conversions_are_bounded() -> None:
    match = new_match("twenty_five", {}, seed="legal-kept")
    action = match.legal_actions()[0]
    item = wire_entries.legal_action_converted(action)
    assert wire_entries.legal_action_converted(action) is item  # converted once, then joined by the caller
    legal = pb.LegalAction(id=convert.action_id(action), name=describe(action), action=convert.action_to_proto(action))
    assert item.id == legal.id
    assert pb.DecisionRequest.FromString(item.in_request) == pb.DecisionRequest(legal_actions=[legal])
    assert game_pb2.SeatView.FromString(item.in_view) == game_pb2.SeatView(legal_actions=[legal.action])
    discard = Discard(cards=tuple(cards("4C 5C 6C 7C 8C 9C")))
    assert wire_entries.legal_action_converted(discard) is not wire_entries.legal_action_converted(discard)
    for tricks in range(wire_cache.MAX_CONVERTED_KEPT + 10):
        wire_entries.legal_action_converted(Bid(tricks=tricks, denomination=Denomination.SPADES))
    assert len(wire_entries.legal_action_converted.kept) == wire_cache.MAX_CONVERTED_KEPT


def test_a_history_entry_and_a_trick_are_converted_once_for_every_seat() -> None:
    match = new_match("twenty_five", {}, seed="entries-kept")
    for _ in range(4):
        match = match.apply(match.legal_actions()[0])
    views = [match.view(seat) for seat in range(4)]
    entry, trick = views[0].history[0], views[0].tricks[0]
    assert all(view.history[0] is entry and view.tricks[0] is trick for view in views)  # one object in every view
    history = wire_entries.seat_action_converted(entry)
    assert wire_entries.seat_action_converted(entry) is history
    assert game_pb2.SeatView.FromString(history) == game_pb2.SeatView(history=[convert.seat_action_to_proto(entry)])
    tricks = wire_entries.trick_converted(trick)
    assert wire_entries.trick_converted(trick) is tricks
    assert game_pb2.SeatView.FromString(tricks) == game_pb2.SeatView(tricks=[convert.trick_to_proto(trick)])


@pytest.mark.parametrize("game", ["twenty_five", "forty_five", "all_fives", "cinq_cents"])
def test_a_tables_options_are_converted_once_as_the_plain_conversion(game: str) -> None:
    options = new_match(game, {}, seed=f"options-{game}").config.to_options()
    kept = wire.options_message(game, options)
    assert kept == convert.options_to_proto(game, options)
    assert wire.options_message(game, options) is kept  # the table's own dict again: the same message
    assert wire.options_message(game, dict(options)) is not kept  # another dict is converted on its own


def _plain_info(table: Table) -> pb.TableInfo:
    """A table's ``TableInfo`` built whole from the table, as the server did before keeping its fixed facts."""
    match = table.match
    info = pb.TableInfo(
        table_id=table.id, game=convert.game_to_proto(table.game),
        options=convert.options_to_proto(table.game, table.options), status=status_to_proto(table.status.value),
        seats=[pb.SeatInfo(seat=s.seat, name=s.name, joined=s.joined, connected=s.connected) for s in table.seats],
        time_control=pb.TimeControl(decision_ms=round(table.time_control.decision_seconds * 1000),
                                    bank_ms=round(table.time_control.bank_seconds * 1000)),
        seed_sha256=table.seed_sha256, created_unix_ms=round(table.created_at * 1000),
        deal_number=match.deal.number if table.status is not TableStatus.WAITING else 0,
        scores=list(match.scores), seed_chosen=table.seed_chosen, sealed=table.sealed)
    if match.result is not None:
        info.result.CopyFrom(convert.result_to_proto(match.result))
    return info


async def test_a_tables_info_with_its_fixed_facts_kept_is_the_plain_one_through_its_life() -> None:
    """Waiting, each join, running, each move and ended: the same bytes as the info built whole."""
    table = Table(table_id="t-info", match=new_match("twenty_five", {}, seed="info"), seed="info",
                  time_control=TimeControl(), names=["ann"], seed_chosen=True)
    seen = [wire.table_info(table).SerializeToString()]
    assert seen[0] == _plain_info(table).SerializeToString()
    for seat in range(table.players):
        table.connect(seat, f"bot-{seat}")
        seen.append(wire.table_info(table).SerializeToString())
        assert seen[-1] == _plain_info(table).SerializeToString()
    while not table.is_over:
        decision = table.pending_for(table.match.to_act or 0)
        assert decision is not None
        assert table.submit(decision.seat, decision.decision_id, decision.legal_actions[0]).accepted
        assert wire.table_info(table).SerializeToString() == _plain_info(table).SerializeToString()
    assert table.match.result is not None
    assert len(set(seen)) == len(seen)  # every join changed what it says
