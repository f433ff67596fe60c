"""The SDK runner against a real gRPC server on 127.0.0.1:0 (the scripted fake of tests/sdk/fake_server.py).

Covers: whole games of reference bots; a dropped stream resumed with the
last sequence seen; in-band rejections re-asked then answered with the
first legal action; typed errors for a bad token and an unreachable server.
"""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

from tests.sdk.fake_server import FakeTable, fake_table, start_fake_server
from tricktable.bots import BOTS, BotSpecError, make_bot
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.bots.random_bot import RandomBot
from tricktable.client_sdk.bot import Bot, not_an_action
from tricktable.client_sdk.errors import ConnectionLost, JoinRejected, ServerUnreachable
from tricktable.client_sdk.runner import Backoff, _decide_request, run_bot_async, seek_async
from tricktable.protocol import convert
from tricktable.rules.actions import Action, Discard, Play
from tricktable.rules.cards import ALL_CARDS, Card
from tricktable.rules.game import Result, SeatView

FAST = Backoff(initial=0.01, maximum=0.05, attempts=5)


async def _play_all(table: FakeTable, bots: list[Bot]) -> list[Result]:
    server, address = await start_fake_server(table)
    try:
        runs = [run_bot_async(bot, address, token=f"tok-{seat}", backoff=FAST, seed=seat)
                for seat, bot in enumerate(bots)]
        return list(await asyncio.wait_for(asyncio.gather(*runs), timeout=60))
    finally:
        await server.stop(None)


@pytest.mark.parametrize("game", ["twenty_five", "all_fives"])
async def test_reference_bots_play_a_whole_game(game: str) -> None:
    table = fake_table(game)
    bots: list[Bot] = [RandomBot(seat) if seat % 2 else FirstLegalBot() for seat in range(table.players)]
    results = await _play_all(table, bots)
    assert table.match.result is not None
    assert all(r == table.match.result for r in results)
    assert results[0].status == "finished"
    assert table.rejections == []


async def test_dropped_stream_resumes_from_the_last_sequence_seen(caplog: pytest.LogCaptureFixture) -> None:
    table = fake_table("twenty_five")
    table.drop_after = {1: 2}
    caplog.set_level(logging.WARNING, logger="tricktable.sdk")
    results = await _play_all(table, [FirstLegalBot() for _ in range(table.players)])
    assert results[1] == table.match.result
    seat_one_joins = [last for seat, last in table.joins if seat == 1]
    assert seat_one_joins[0] is None
    assert len(seat_one_joins) == 2 and seat_one_joins[1] is not None and seat_one_joins[1] >= 2
    assert any("reconnecting" in r.getMessage() for r in caplog.records)
    assert not any("never arrived" in r.getMessage() for r in caplog.records)  # resumed without a gap


class _SlowBot:
    """First-legal after a pause, so the stream can end while it thinks."""

    def __init__(self) -> None:
        self.asked = 0

    async def choose_action(self, view: SeatView) -> Action:
        self.asked += 1
        await asyncio.sleep(0.2)
        return view.legal_actions[0]


async def test_stream_ending_while_the_bot_thinks_is_resumed_and_asked_again() -> None:
    table = fake_table("twenty_five")
    seat = table.match.to_act or 0
    table.drop_after_asking = {seat: 1}
    slow = _SlowBot()
    bots: list[Bot] = [FirstLegalBot() for _ in range(table.players)]
    bots[seat] = slow
    results = await _play_all(table, bots)
    assert results[seat] == table.match.result
    assert [s for s, _ in table.joins].count(seat) == 2
    assert slow.asked == table.accepted_by_seat[seat] + 1  # the first request was asked twice


class _WrongOnceBot:
    """Plays a card it does not hold at its first decision, then plays legally; records rejections."""

    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.wrong_sent = False
        self.result: Result | None = None

    def choose_action(self, view: SeatView) -> Action:
        if not self.wrong_sent:
            self.wrong_sent = True
            missing = next(c for c in ALL_CARDS[:52] if c not in view.hand)
            return Play(card=missing)
        return view.legal_actions[0]

    def on_rejection(self, view: SeatView, action: Action | None, reason: str, message: str) -> None:
        self.reasons.append(reason)
        assert isinstance(action, Play) and action.card not in view.hand

    def on_game_end(self, result: Result) -> None:
        self.result = result


class _StubbornBot:
    """Always plays a card it does not hold: the runner must fall back to the first legal action."""

    def __init__(self) -> None:
        self.asked = 0

    async def choose_action(self, view: SeatView) -> Action:
        self.asked += 1
        return Play(card=next(c for c in ALL_CARDS[:52] if c not in view.hand))


async def test_rejection_keeps_the_stream_and_the_bot_is_asked_again() -> None:
    table = fake_table("twenty_five")
    wrong = _WrongOnceBot()
    bots: list[Bot] = [FirstLegalBot() for _ in range(table.players)]
    bots[table.match.to_act or 0] = wrong
    results = await _play_all(table, bots)
    assert wrong.reasons == ["CARD_NOT_IN_HAND"]
    assert wrong.result == results[0]
    assert results[0].status == "finished"
    assert len(table.joins) == table.players  # nobody had to reconnect


async def test_a_bot_refused_twice_gets_the_first_legal_action_played() -> None:
    table = fake_table("twenty_five")
    stubborn = _StubbornBot()
    seat = table.match.to_act or 0
    bots: list[Bot] = [FirstLegalBot() for _ in range(table.players)]
    bots[seat] = stubborn
    results = await _play_all(table, bots)
    assert results[seat].status == "finished"
    decisions = table.accepted_by_seat[seat]
    assert stubborn.asked == 2 * decisions  # asked, re-asked once, then the runner's fallback
    assert [r for s, r in table.rejections if s == seat] == ["CARD_NOT_IN_HAND"] * (2 * decisions)


async def test_bad_token_raises_join_rejected() -> None:
    server, address = await start_fake_server(fake_table())
    try:
        with pytest.raises(JoinRejected):
            await asyncio.wait_for(run_bot_async(FirstLegalBot(), address, token="nope", backoff=FAST), 20)
    finally:
        await server.stop(None)


async def test_unreachable_server_fails_at_the_first_connection_without_reconnecting(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tricktable.sdk")
    with pytest.raises(ServerUnreachable, match="cannot connect to 127\\.0\\.0\\.1:1"):
        await asyncio.wait_for(run_bot_async(FirstLegalBot(), "127.0.0.1:1", token="x"), 30)
    assert not any("reconnecting" in r.getMessage() for r in caplog.records)
    assert issubclass(ServerUnreachable, ConnectionLost)  # callers catching ConnectionLost still do


async def test_seeking_on_an_unreachable_server_fails_at_once() -> None:
    with pytest.raises(ServerUnreachable):
        await asyncio.wait_for(seek_async("127.0.0.1:1", game="all_fives"), 30)


class _WrongTypeBot:
    """Returns the card code as a string instead of an action (the mistake a new author makes)."""

    def choose_action(self, view: SeatView) -> Action:
        return view.hand[0].code  # type: ignore[return-value]


class _ForgetfulAsyncBot:
    """An asynchronous bot that forgets to return."""

    async def choose_action(self, view: SeatView) -> Action:
        await asyncio.sleep(0)
        return None  # type: ignore[return-value]


@pytest.mark.parametrize("wrong", [_WrongTypeBot, _ForgetfulAsyncBot])
async def test_a_bot_returning_no_action_gets_the_first_legal_action_and_a_warning(
        wrong: type, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tricktable.sdk")
    table = fake_table("twenty_five")
    bots: list[Bot] = [wrong()] + [FirstLegalBot() for _ in range(table.players - 1)]
    results = await _play_all(table, bots)
    assert results[0].status == "finished"
    assert table.rejections == []  # the fallback sent a legal action, never the string
    warnings = [r.getMessage() for r in caplog.records if "not an action" in r.getMessage()]
    assert warnings and "return one of view.legal_actions" in warnings[0]
    assert ("returned str" in warnings[0]) if wrong is _WrongTypeBot else ("did you forget to return?" in warnings[0])


def test_not_an_action_names_the_mistake_and_accepts_actions() -> None:
    assert not_an_action(Play(card=ALL_CARDS[0])) is None
    assert "returned str '5H'" in (not_an_action("5H") or "")
    assert "returned int 3" in (not_an_action(3) or "")


def test_every_answer_is_sent_by_its_id_the_offered_object_an_equal_one_a_discard_or_an_illegal_one() -> None:
    offered = Play(card=ALL_CARDS[0])
    legal = {convert.action_id(offered): offered, convert.action_id(Play(card=ALL_CARDS[1])): Play(card=ALL_CARDS[1])}
    assert _decide_request("7", offered, legal).decide.action_id == "play-2C"
    equal = Play(card=ALL_CARDS[0])
    assert equal is not offered
    assert _decide_request("7", equal, legal).decide.action_id == "play-2C"
    # Not among the offered ids: still an id, the action's notation (the server's rules judge it).
    assert _decide_request("7", Play(card=ALL_CARDS[2]), legal).decide.action_id == "play-4C"
    # A discard of a DiscardChoice has no offered id; the bot's card order does not matter.
    discard = Discard(cards=(Card.parse("TD"), Card.parse("4C"), Card.parse("QS")))
    assert _decide_request("7", discard, {}).decide.action_id == "discard-4C-TD-QS"
    for action in (offered, Play(card=ALL_CARDS[2]), discard):
        assert _decide_request("7", action, legal).decide.WhichOneof("choice") == "action_id"


def test_backoff_grows_exponentially_to_its_cap() -> None:
    import random

    schedule = Backoff(initial=0.1, factor=2.0, maximum=1.0, jitter=0.0)
    rng = random.Random(0)
    assert [schedule.delay(n, rng) for n in range(1, 6)] == [0.1, 0.2, 0.4, 0.8, 1.0]


def test_bot_registry_names_the_reference_bots() -> None:
    assert set(BOTS) >= {"random", "first-legal"}
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(BotSpecError, match="unknown bot"):
        make_bot("nobody")


def test_the_default_reconnect_schedule_outlasts_a_server_restart() -> None:
    # docs/protocol.md promises a client keeps reconnecting for at least 30 s ("Across a server restart").
    assert Backoff().patience() == pytest.approx(36.3)
    rng = random.Random(1)
    assert sum(Backoff().delay(n, rng) for n in range(1, Backoff().attempts + 1)) >= Backoff().patience()
