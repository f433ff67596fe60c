"""The SDK's annotations: a bot returns ``AnnotatedAction`` (sync or async), the record has its note after the end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.live_server import running_server
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import AnnotatedAction, Choice, split_choice
from tricktable.client_sdk.runner import create_table, get_record, run_bot_async
from tricktable.rules.actions import Play
from tricktable.rules.annotation import MAX_NOTE_CHARS, Annotation, AnnotationError
from tricktable.rules.cards import Card
from tricktable.rules.game import SeatView
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl


class NotingBot:
    """Plays the first legal action, noting its view's hand size and a value for each legal action."""

    def choose_action(self, view: SeatView) -> Choice:
        legal = view.legal_actions
        return AnnotatedAction(legal[0], note=f"hand of {len(view.hand)}",
                               values={a: float(i) for i, a in enumerate(legal[:5])})


class AsyncNotingBot:
    """The same, asynchronous, with ids for keys."""

    async def choose_action(self, view: SeatView) -> Choice:
        await asyncio.sleep(0)
        legal = view.legal_actions
        return AnnotatedAction(legal[-1], note="async", values={"last": -1.5})


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=10.0)
    async with running_server(tmp_path / "data", clocks) as game_server:
        yield game_server


async def test_sync_and_async_bots_annotations_reach_the_record_beside_their_moves(server: GameServer) -> None:
    table = await create_table(server.address, game="all_fives", options={"target": 11}, seed="sdk-notes")
    await asyncio.wait_for(asyncio.gather(run_bot_async(NotingBot(), server.address, token=table.tokens[0]),
                                          run_bot_async(AsyncNotingBot(), server.address, token=table.tokens[1])), 90)
    record = json.loads(await get_record(server.address, table.table_id))
    actions = [a for d in record["deals"] for a in d["actions"]]
    mine = [a for a in actions if a["seat"] == 0]
    assert mine and all(a["annotation"]["note"].startswith("hand of ") for a in mine)
    assert all(a["annotation"]["values"] for a in mine)
    theirs = [a for a in actions if a["seat"] == 1]
    assert theirs and all(a["annotation"] == {"note": "async", "values": {"last": -1.5}} for a in theirs)


async def test_the_search_bot_s_notes_reach_the_record(server: GameServer) -> None:
    table = await create_table(server.address, game="all_fives", options={"target": 11}, seed="search-notes")
    await asyncio.wait_for(asyncio.gather(*(run_bot_async(SearchBot(s, simulations=8), server.address, token=t)
                                            for s, t in enumerate(table.tokens))), 120)
    record = json.loads(await get_record(server.address, table.table_id))
    notes = [a["annotation"] for d in record["deals"] for a in d["actions"] if "annotation" in a]
    assert notes and all(n["note"] == "search: 8 worlds" and len(n["values"]) > 1 for n in notes)


FIVE_OF_HEARTS = Play(card=Card.parse("5H"))


def test_an_over_limit_note_is_refused_where_the_bot_makes_it() -> None:
    with pytest.raises(AnnotationError, match="over the limit of 280"):
        AnnotatedAction(FIVE_OF_HEARTS, note="x" * (MAX_NOTE_CHARS + 1))


def test_split_choice_gives_the_action_and_its_note_and_an_empty_note_is_none() -> None:
    play = FIVE_OF_HEARTS
    assert split_choice(play) == (play, None)
    assert split_choice(AnnotatedAction(play)) == (play, None)
    assert split_choice(AnnotatedAction(play, note="n", values={"play-5H": 1.0})) == (
        play, Annotation(note="n", values={"play-5H": 1.0}))
