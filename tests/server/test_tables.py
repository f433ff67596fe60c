"""The authoritative table without the network: play, rejections, idempotency, clocks, presence, cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from tests.server.toy_game import RULES
from tricktable.protocol.reasons import RejectReason
from tricktable.rules.actions import Action, Play
from tricktable.rules.cards import card
from tricktable.rules.defaults import default_action
from tricktable.rules.events import ACTION_EVENTS, DealScored, DealStarted, TrickWon
from tricktable.rules.match import Match
from tricktable.rules.record import action_from_json
from tricktable.rules.shuffle import RecordedDecks, SeededDecks
from tricktable.server.clocks import AWAY_AFTER_TIMEOUTS, TimeControl
from tricktable.server.events import ActionTimedOut, DecisionRequested, DefaultReason, TableEnded, TableStarted
from tricktable.server.tables import Table, TableStatus

FAST = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=5.0)


def make_table(*, seed: str = "s1", players: int = 2, target: int = 3, control: TimeControl = FAST,
               ended: list[Table] | None = None) -> Table:
    match = Match.start(RULES, {"players": players, "target": target}, SeededDecks(seed), seed=seed)
    return Table(table_id="t-test", match=match, seed=seed, time_control=control,
                 on_end=None if ended is None else ended.append)


async def bot(table: Table, seat: int, choose: Callable[[DecisionRequested], Action] | None = None,
              seen: list[object] | None = None) -> None:
    table.connect(seat, f"bot-{seat}")
    try:
        async for item in table.follow(seat):
            if seen is not None:
                seen.append(item)
            if isinstance(item, DecisionRequested):
                action = item.legal_actions[0] if choose is None else choose(item)
                table.submit(seat, item.decision_id, action)
    finally:
        table.disconnect(seat)


def replay(record: dict[str, Any]) -> Match:
    decks = RecordedDecks([[card(c) for c in d["deck"]] for d in record["deals"]])
    match = Match.start(RULES, record["options"], decks, seed=record["seed"])
    for deal in record["deals"]:
        for entry in deal["actions"]:
            match = match.apply(action_from_json(entry), entry["seat"])
    return match


async def test_complete_game_finishes_and_its_record_replays() -> None:
    ended: list[Table] = []
    table = make_table(ended=ended)
    spectator: list[object] = []

    async def watch() -> None:
        async for event in table.follow(None):
            spectator.append(event)

    watcher = asyncio.create_task(watch())
    await asyncio.wait_for(asyncio.gather(bot(table, 0), bot(table, 1)), 10)
    await asyncio.wait_for(watcher, 5)
    assert table.status is TableStatus.FINISHED
    assert ended == [table]
    record = table.record
    assert record is not None and record["result"]["status"] == "finished"
    assert record["seed"] == "s1"
    assert record["seats"][0]["name"] == "bot-0" and record["seats"][0]["timeouts"] == 0
    again = replay(record)
    assert again.to_record(seed="s1", names=table.names)["deals"] == record["deals"]
    bodies = [e.body for e in spectator]  # type: ignore[attr-defined]
    assert isinstance(bodies[0], TableStarted) and bodies[0].seed_sha256 == table.seed_sha256
    assert isinstance(bodies[1], DealStarted) and bodies[1].hands == {}
    assert isinstance(bodies[-1], TableEnded)
    assert sum(isinstance(b, ACTION_EVENTS) for b in bodies) == table.actions_played
    assert sum(isinstance(b, TrickWon) for b in bodies) == sum(len(d["tricks"]) for d in record["deals"])
    assert sum(isinstance(b, DealScored) for b in bodies) == len(record["deals"])
    assert [e.seq for e in spectator] == list(range(1, len(spectator) + 1))  # type: ignore[attr-defined]


async def test_seed_is_published_only_as_its_digest_until_the_end() -> None:
    table = make_table(seed="very-secret-seed")
    seen: list[object] = []
    task = asyncio.create_task(bot(table, 0, seen=seen))
    await asyncio.sleep(0)
    assert "very-secret-seed" not in repr(table.snapshot(0))
    await asyncio.wait_for(asyncio.gather(task, bot(table, 1)), 10)
    assert all("very-secret-seed" not in repr(item) for item in seen)
    assert table.record is not None and table.record["seed"] == "very-secret-seed"


async def started(table: Table) -> None:
    for seat in range(table.players):
        table.connect(seat)
    assert table.status is TableStatus.RUNNING


async def test_illegal_action_is_rejected_and_changes_nothing() -> None:
    table = make_table()
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    before, seq = table.match, table.snapshot(None).seq
    held = set(table.match.view(decision.seat).hand)
    outsider = next(c for c in (card(x) for x in ("2C", "3C", "4C", "5C")) if c not in held)
    outcome = table.submit(decision.seat, decision.decision_id, Play(card=outsider))
    assert not outcome.accepted and outcome.reason is RejectReason.CARD_NOT_IN_HAND
    assert table.match is before and table.snapshot(None).seq == seq
    assert table.pending_for(decision.seat) == decision
    assert table.seats[decision.seat].rejected == 1


async def test_not_your_turn_and_not_started_are_rejected() -> None:
    table = make_table()
    table.connect(0)
    outcome = table.submit(0, 1, Play(card=card("2C")))
    assert outcome.reason is RejectReason.NOT_STARTED
    table.connect(1)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    other = 1 - decision.seat
    outcome = table.submit(other, decision.decision_id, decision.legal_actions[0])
    assert outcome.reason is RejectReason.NOT_YOUR_TURN
    assert table.actions_played == 0


async def test_duplicate_submission_plays_once() -> None:
    table = make_table()
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    action = decision.legal_actions[0]
    first = table.submit(decision.seat, decision.decision_id, action)
    second = table.submit(decision.seat, decision.decision_id, action)
    assert first.accepted and not first.duplicate
    assert second.accepted and second.duplicate
    assert table.actions_played == 1
    assert table.seats[decision.seat].rejected == 0


async def test_changing_a_played_decision_is_stale() -> None:
    table = make_table()
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None and len(decision.legal_actions) > 1
    table.submit(decision.seat, decision.decision_id, decision.legal_actions[0])
    outcome = table.submit(decision.seat, decision.decision_id, decision.legal_actions[1])
    assert outcome.reason is RejectReason.STALE_DECISION
    assert table.actions_played == 1


async def test_unknown_decision_id_is_stale() -> None:
    table = make_table()
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    outcome = table.submit(decision.seat, decision.decision_id + 7, decision.legal_actions[0])
    assert outcome.reason is RejectReason.STALE_DECISION
    assert table.actions_played == 0


async def test_silent_seat_times_out_twice_then_is_away_and_the_game_finishes() -> None:
    control = TimeControl(decision_seconds=0.01, bank_seconds=0.02, grace_seconds=5.0, join_seconds=5.0)
    table = make_table(control=control)
    table.connect(1)  # joined but never answers
    seen: list[object] = []
    await asyncio.wait_for(bot(table, 0, seen=seen), 10)
    assert table.status is TableStatus.FINISHED
    assert table.seats[1].timeouts == AWAY_AFTER_TIMEOUTS and table.seats[0].timeouts == 0
    assert table.record is not None and table.record["seats"][1]["timeouts"] == table.seats[1].timeouts
    timed = [e.body for e in seen if not isinstance(e, DecisionRequested)  # type: ignore[attr-defined]
             and isinstance(e.body, ActionTimedOut)]  # type: ignore[attr-defined]
    assert len(timed) == table.seats[1].defaults > AWAY_AFTER_TIMEOUTS  # every default announced


async def test_default_action_is_the_rules_default_for_the_seats_view() -> None:
    control = TimeControl(decision_seconds=0.01, bank_seconds=0.0, grace_seconds=5.0, join_seconds=5.0)
    table = make_table(control=control)
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    expected = default_action(table.match.view(decision.seat))
    await asyncio.wait_for(table.ended.wait(), 10)
    assert table.record is not None
    assert action_from_json(table.record["deals"][0]["actions"][0]) == expected
    assert table.seats[0].defaults + table.seats[1].defaults == table.actions_played


async def test_seat_that_never_joins_gets_the_table_cancelled() -> None:
    ended: list[Table] = []
    control = TimeControl(decision_seconds=1.0, bank_seconds=1.0, grace_seconds=1.0, join_seconds=0.05)
    table = make_table(control=control, ended=ended)
    table.connect(0)
    await asyncio.wait_for(table.ended.wait(), 5)
    assert table.status is TableStatus.ABORTED
    assert ended == [table]
    assert table.record is not None
    assert table.record["result"]["status"] == "aborted"
    assert "seat(s) 1 did not join" in table.record["result"]["reason"]


async def test_disconnected_seat_keeps_its_turn_during_grace_then_defaults_play() -> None:
    control = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=0.05, join_seconds=5.0)
    table = make_table(control=control)
    seen: list[object] = []
    table.connect(1)
    table.disconnect(1)  # gone for good
    await asyncio.wait_for(bot(table, 0, seen=seen), 10)
    assert table.status is TableStatus.FINISHED
    assert table.seats[1].disconnects == 1 and table.seats[1].timeouts == 0
    assert table.seats[1].defaults > 0


async def test_reconnect_resumes_with_view_and_pending_decision() -> None:
    table = make_table()
    await started(table)
    seat = table.match.to_act
    assert seat is not None
    decision = table.pending_for(seat)
    table.disconnect(seat)
    table.connect(seat)
    snap = table.snapshot(seat)
    assert snap.view.hand == table.match.view(seat).hand
    assert table.pending_for(seat) == decision
    items = table.follow(seat, after_seq=snap.seq)
    first = await items.__anext__()  # the pending decision, at once (a hang meets the suite's timeout)
    assert first == decision
    await items.aclose()


async def test_abort_ends_the_table_once_and_keeps_the_deals() -> None:
    ended: list[Table] = []
    table = make_table(ended=ended)
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    table.submit(decision.seat, decision.decision_id, decision.legal_actions[0])
    table.abort("server shutdown")
    table.abort("again")
    assert ended == [table]
    assert table.record is not None and table.record["result"]["reason"] == "server shutdown"
    assert len(table.record["deals"][0]["actions"]) == 1
    later = table.submit(0, 99, decision.legal_actions[0])
    assert later.reason is RejectReason.GAME_OVER


async def test_engine_failure_aborts_the_table_instead_of_escaping(monkeypatch: pytest.MonkeyPatch) -> None:
    table = make_table()
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Table, "_request_decision", broken)
    table.submit(decision.seat, decision.decision_id, decision.legal_actions[0])
    assert table.status is TableStatus.ABORTED
    assert table.record is not None and "internal error" in table.record["result"]["reason"]


async def test_a_game_without_a_result_is_aborted_at_the_deal_limit() -> None:
    match = Match.start(RULES, {"players": 2, "target": 1000}, SeededDecks("long"), seed="long")
    table = Table(table_id="t-long", match=match, seed="long", time_control=FAST, max_deals=3)
    await asyncio.wait_for(asyncio.gather(bot(table, 0), bot(table, 1)), 10)
    assert table.status is TableStatus.ABORTED
    assert table.record is not None
    assert table.record["result"]["reason"] == "deal limit: 3 deals played without a result"
    # The fourth deal was dealt when the third ended; it is listed with no action (docs/records.md allows it).
    assert [len(d["actions"]) > 0 for d in table.record["deals"]] == [True, True, True, False]


async def test_a_seat_reconnecting_in_a_loop_does_not_grow_the_logs_without_end() -> None:
    from tricktable.server.tables import MAX_PRESENCE_EVENTS

    table = make_table()
    await started(table)
    before = table.snapshot(None).seq
    for _ in range(MAX_PRESENCE_EVENTS * 3):
        table.disconnect(1)
        table.connect(1)
    assert table.seats[1].disconnects == MAX_PRESENCE_EVENTS * 3
    assert table.snapshot(None).seq - before <= 2 * MAX_PRESENCE_EVENTS


async def test_an_engine_fault_on_an_odd_action_refuses_it_and_the_table_plays_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = make_table()
    await started(table)
    decision = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    assert decision is not None
    real_apply = Match.apply

    def flaky_apply(self: Match, action: Action, seat: int | None = None) -> Match:
        if action == decision.legal_actions[-1]:
            raise KeyError("engine bug")
        return real_apply(self, action, seat)

    monkeypatch.setattr(Match, "apply", flaky_apply)
    outcome = table.submit(decision.seat, decision.decision_id, decision.legal_actions[-1])
    assert outcome.reason is RejectReason.MALFORMED_ACTION and table.status is TableStatus.RUNNING
    assert table.submit(decision.seat, decision.decision_id, decision.legal_actions[0]).accepted


async def test_decisions_answered_in_time_share_one_deadline_timer() -> None:
    table = make_table()
    await started(table)
    timers = []
    for _ in range(4):
        seat = table.match.to_act
        assert seat is not None
        decision = table.pending_for(seat)
        assert decision is not None
        timers.append(table._deadline_timer)
        assert table.submit(seat, decision.decision_id, decision.legal_actions[0]).accepted
    assert timers[0] is not None and all(timer is timers[0] for timer in timers)  # no timer made or cancelled a move


async def test_a_decision_after_one_answered_in_time_gets_its_default_at_its_own_deadline_not_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept timer fires at the first decision's deadline, finds a later one pending, and waits for it."""
    control = TimeControl(decision_seconds=0.15, bank_seconds=0.0, grace_seconds=5.0, join_seconds=5.0)
    table = make_table(control=control)
    await started(table)
    loop = asyncio.get_running_loop()
    played: list[tuple[int, float, float]] = []
    default = table._guarded_default

    def timed(decision_id: int, reason: DefaultReason) -> None:
        p = table._pending
        assert p is not None and p.decision_id == decision_id
        played.append((decision_id, loop.time(), p.due))
        default(decision_id, reason)

    monkeypatch.setattr(table, "_guarded_default", timed)
    first = table.pending_for(table.match.to_act)  # type: ignore[arg-type]
    kept = table._deadline_timer
    assert first is not None and kept is not None
    # Nothing awaits between reading the decision and answering it, so its timer cannot fire first, whatever the
    # machine's load; the next decision is asked later, so it is due after the kept timer fires.
    assert table.submit(first.seat, first.decision_id, first.legal_actions[0]).accepted
    second = table._pending
    assert second is not None and table._deadline_timer is kept and kept.when() <= second.due
    while not played:
        await asyncio.sleep(0.01)
    decision_id, fired_at, due = played[0]
    assert (decision_id, due) == (second.decision_id, second.due) and fired_at >= due  # at its own deadline


async def test_a_public_event_is_one_log_entry_for_every_audience_and_a_hand_dealt_is_each_seats_own() -> None:
    table = make_table()
    await started(table)
    seat = table.match.to_act
    assert seat is not None
    decision = table.pending_for(seat)
    assert decision is not None
    table.submit(seat, decision.decision_id, decision.legal_actions[0])
    logs = [table._log(audience) for audience in (*range(table.players), None)]
    assert len({len(log) for log in logs}) == 1  # every audience's log has every event at the same place
    for entries in zip(*logs, strict=True):
        if isinstance(entries[0].body, DealStarted):
            assert len({id(entry) for entry in entries}) == len(entries)  # a seat's own hand, no other's
        else:
            assert all(entry is entries[0] for entry in entries)
    assert any(isinstance(entry.body, TableStarted) for entry in logs[0])
