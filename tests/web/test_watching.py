"""Watching a tournament in the viewer: the public sees a sealed deck set once it is over, as gRPC does; its
organiser's owner token follows every table live; a live page is cut off when a twin of its table comes."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.web.conftest import Site
from tests.web.support import play, sse_messages
from tricktable.server.tables import Table
from tricktable.server.withholding import DeckSet
from tricktable.tournament.config import config_from_mapping
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import fixed_groups, round_matches, tables_per_deck_set
from tricktable.tournament.store import TournamentStore

ORGANISER = secrets.token_urlsafe(32)
BEARER = {"Authorization": f"Bearer {ORGANISER}"}


@pytest.fixture
async def organiser(site: Site) -> AsyncIterator[aiohttp.ClientSession]:
    """A browser signed in as the organiser (the viewer's cookie; 127.0.0.1 needs an unsafe cookie jar)."""
    async with aiohttp.ClientSession(base_url=site.url, cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post("/api/organiser", json={"token": ORGANISER}) as response:
            assert response.status == 200
        yield http


def sealed_table(site: Site, seed: str, index: int, tables: int = 2) -> Table:
    """A running sealed table of a deck set, bound to the organiser's token, its seats joined."""
    table, _ = site.server.lobby.create_table(game="all_fives", options={"target": 5}, seed=seed, sealed=True,
                                              deck_set=DeckSet(tables, index), owner_token=ORGANISER)
    for seat in range(table.players):
        table.connect(seat)
    return table


def finish(table: Table) -> None:
    while not table.is_over:
        play(table, 1)


async def rows(http: aiohttp.ClientSession, headers: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    async with http.get("/api/tables", headers=headers) as response:
        return {r["id"]: r for r in (await response.json())["tables"]}


async def test_public_lobby_hides_a_sealed_deck_set_until_every_table_of_it_has_ended_then_shows_it(
        site: Site) -> None:
    first, second = sealed_table(site, "cup-deck", 0), sealed_table(site, "cup-deck", 1)
    play(first, 6)
    assert first.id not in await rows(site.http) and second.id not in await rows(site.http)
    mine = await rows(site.http, BEARER)
    assert mine[first.id]["status"] == "running" and mine[first.id]["url"] == f"/table/{first.id}"
    finish(first)
    await site.server.lobby.drain()
    assert first.id not in await rows(site.http)  # ended, but its twin is still to be played
    assert (await rows(site.http, BEARER))[first.id]["winners"]
    finish(second)
    await site.server.lobby.drain()
    shown = await rows(site.http)
    assert shown[first.id]["winners"] == list(first.match.result.winners)  # type: ignore[union-attr]
    assert shown[second.id]["scores"] == list(second.match.result.scores)  # type: ignore[union-attr]


async def test_organiser_follows_a_sealed_running_table_live_where_the_public_gets_404(
        site: Site, organiser: aiohttp.ClientSession) -> None:
    table = sealed_table(site, "cup-live", 0)
    play(table, 4)
    for path in (f"/table/{table.id}", f"/api/tables/{table.id}/events"):
        async with site.http.get(path) as response:
            assert response.status == 404
    async with organiser.get(f"/table/{table.id}") as response:
        assert response.status == 200
    async with organiser.get("/api/tables") as response:
        lobby = await response.json()
    assert lobby["organiser"] and [r["id"] for r in lobby["tables"]] == [table.id]
    async with organiser.get(f"/api/tables/{table.id}/events") as response:
        messages = sse_messages(response)
        name, state = await anext(messages)
        assert name == "state" and state["table"]["status"] == "running"
        finish(table)
        async for name, _ in messages:
            if name == "end":
                break
    assert name == "end"
    await site.server.lobby.drain()
    async with organiser.get(f"/api/replay/{table.id}") as response:  # its deck set is not over: for it only
        assert response.status == 200
    async with site.http.get(f"/api/replay/{table.id}") as response:
        assert response.status == 404
    async with organiser.delete("/api/organiser"):
        pass
    async with organiser.get(f"/api/replay/{table.id}") as response:
        assert response.status == 404


async def test_a_live_page_is_cut_off_with_a_reason_when_a_twin_of_its_table_is_created(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", seed="twin-page")
    for seat in range(2):
        table.connect(seat)
    play(table, 4)
    async with site.http.get(f"/api/tables/{table.id}/events") as response:
        messages = sse_messages(response)
        assert (await anext(messages))[0] == "state"
        assert (await anext(messages))[0] == "batch"
        site.server.lobby.create_table(game="all_fives", seed="twin-page")
        play(table, 4)  # what follows is withheld now: none of it reaches the page
        received = [(name, data) async for name, data in messages]
    assert [name for name, _ in received] == ["withheld"]
    assert "same seed was created" in received[0][1]["reason"]


async def test_public_tournament_page_shows_a_deck_set_once_all_its_arrangements_are_stored(
        site: Site) -> None:
    config = config_from_mapping({"name": "seal-cup", "game": "all_fives", "entrants": ["random", "first-legal",
                                                                                        "heuristic"],
                                  "games": 2, "seed": "seal"})
    store = TournamentStore(site.server.storage.path)
    store.begin(config, resume=False)
    specs = round_matches(config, 0, fixed_groups(config))
    assert len(specs) == tables_per_deck_set(config) == 6  # one deck set, every pair in both directions
    for spec in specs[:-1]:
        store.save("seal-cup", spec, MatchOutcome(match_id=spec.match_id, status="finished", winners=(0,),
                                                  scores=(5, 2)))
    organiser_token = store.owner_token("seal-cup")
    async with site.http.get("/api/tournaments/seal-cup") as response:
        page = await response.json()
    assert (page["matches"], page["games"], page["withheld_games"]) == ([], 0, 5)
    assert all(row["games"] == 0 for row in page["leaderboard"])
    async with site.http.get("/api/tournaments/seal-cup",
                             headers={"Authorization": f"Bearer {organiser_token}"}) as response:
        whole = await response.json()
    assert whole["organiser"] and len(whole["matches"]) == 5 and whole["withheld_games"] == 0
    last = specs[-1]
    store.save("seal-cup", last, MatchOutcome(match_id=last.match_id, status="finished", winners=(1,), scores=(1, 5)))
    store.close()
    async with site.http.get("/api/tournaments/seal-cup") as response:
        page = await response.json()
    assert len(page["matches"]) == page["games"] == 6 and page["withheld_games"] == 0


async def test_organiser_sign_in_refuses_what_is_not_an_owner_token(site: Site) -> None:
    async with site.http.post("/api/organiser", json={"token": "short"}) as response:
        text = await response.text()
    assert response.status == 400 and "Set-Cookie" not in response.headers and len(text.splitlines()) == 1
