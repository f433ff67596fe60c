"""The viewer in a real browser: headless Chromium (Debian's ``chromium``, driven by playwright).

One walk through every page, as a person would: the lobby shows a waiting
table; its live page follows a game of bots to its end, and the tricks it
showed, trick by trick, are the table's record; the replay steps forward and
back and keeps its place in a permalink; a tournament's page shows its
standings and links to replays; every page fits a phone's width. No request
may leave 127.0.0.1. Screenshots of each page go to ``artifacts/screenshots``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import BrowserContext, Page, Route, ViewportSize, async_playwright, expect

from tests.server.test_annotations import annotated_moves
from tests.web.conftest import Site
from tests.web.support import run_tournament
from tricktable.bots import make_bot
from tricktable.client_sdk.bot import Bot, Choice, ask, current_decision
from tricktable.client_sdk.runner import create_table, run_bot_async
from tricktable.rules.game import SeatView
from tricktable.server.clocks import TimeControl

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
PHONE: ViewportSize = {"width": 390, "height": 844}


class Gate:
    """Lets the bots act one decision per look at the page, so the page is seen following the game.

    A fixed pace cannot promise that on a loaded machine: a slow browser saw a finished game
    at its first look. At most one permit waits, so a slow page never lets a burst through.
    """

    def __init__(self) -> None:
        self._permits = asyncio.Semaphore(0)

    def open_once(self) -> None:
        if self._permits.locked():
            self._permits.release()

    def gated(self, bot: Bot) -> GatedBot:
        return GatedBot(bot, self._permits)


class GatedBot:
    """``bot``, answering each decision only once the gate has let one through."""

    def __init__(self, bot: Bot, permits: asyncio.Semaphore) -> None:
        self.bot = bot
        self.permits = permits

    async def choose_action(self, view: SeatView) -> Choice:
        await self.permits.acquire()
        return await ask(self.bot, view, current_decision())


def chromium() -> str:
    """Debian's chromium (``make test`` installs it); TRICKTABLE_CHROMIUM names another."""
    path = os.environ.get("TRICKTABLE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("no chromium for the browser test: run `make browser` (apt-get install chromium)")
    return path


class Guard:
    """Lets requests to 127.0.0.1 through and blocks (and notes) any other."""

    def __init__(self) -> None:
        self.outside: list[str] = []
        self.seen = 0

    async def __call__(self, route: Route) -> None:
        url = route.request.url
        self.seen += 1
        if urlsplit(url).hostname == "127.0.0.1":
            await route.continue_()
        else:
            self.outside.append(url)
            await route.abort()


async def shown_tricks(page: Page) -> list[tuple[int, int, str, int]]:
    """The tricks the page lists: (deal, number, cards, winner)."""
    rows: list[dict[str, str]] = await page.locator("ol.tricks li.trick").evaluate_all(
        "items => items.map(li => ({...li.dataset}))")
    return [(int(r["deal"]), int(r["number"]), r["cards"], int(r["winner"])) for r in rows]


def record_tricks(record: dict[str, Any]) -> list[tuple[int, int, str, int]]:
    return [(deal["number"], i, " ".join(t["cards"]), t["winner"])
            for deal in record["deals"] for i, t in enumerate(deal["tricks"], start=1)]


async def fits_phone(page: Page) -> bool:
    width: int = await page.evaluate("document.documentElement.scrollWidth")
    return width <= PHONE["width"]


@contextlib.asynccontextmanager
async def browser_context(guard: Guard) -> AsyncIterator[BrowserContext]:
    """A headless Chromium context whose every request goes through ``guard``."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            context = await browser.new_context(viewport={"width": 1100, "height": 900})
            await context.route("**/*", guard)
            yield context
        finally:
            await browser.close()


async def test_lobby_live_game_replay_and_tournament_in_a_real_browser(site: Site) -> None:
    guard = Guard()
    async with browser_context(guard) as context:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        # The lobby shows the table waiting for its bots.
        created = await create_table(site.server.address, game="twenty_five", options={"players": 4},
                                     seat_names=[f"random-{s}" for s in range(4)], seed="browser")
        await page.goto(site.url)
        row = page.locator(f"tr[data-table='{created.table_id}']")
        await expect(row).to_have_attribute("data-status", "waiting")
        await page.screenshot(path=SHOTS / "lobby.png", full_page=True)

        # Its live page, open before the game starts, follows the game to its end.
        await row.locator("a").click()
        await expect(page.get_by_test_id("status")).to_contain_text("waiting")
        gate = Gate()
        bots = [asyncio.create_task(run_bot_async(gate.gated(make_bot("random", f"browser-{s}")),
                                                  site.server.address, token=token))
                for s, token in enumerate(created.tokens)]
        samples = []
        result = page.get_by_test_id("result")
        shot_mid_game = False
        while not await result.is_visible():
            samples.append(await shown_tricks(page))
            if not shot_mid_game and len(samples[-1]) >= 3:
                await page.screenshot(path=SHOTS / "table.png", full_page=True)
                shot_mid_game = True
            gate.open_once()
            await asyncio.sleep(0.05)
        await asyncio.gather(*bots)
        record = await site.server.lobby.record(created.table_id)
        expected = record_tricks(record)
        assert await shown_tricks(page) == expected
        assert shot_mid_game and len({len(s) for s in samples}) > 2  # it was seen growing, trick by trick
        assert all(s == expected[:len(s)] for s in samples)
        await expect(result).to_contain_text("finished")

        # The replay: step forward and back, the permalink keeps the step.
        await page.get_by_test_id("replay-link").click()
        counter = page.get_by_test_id("step")
        await expect(counter).to_contain_text("step 0 of")
        for _ in range(6):
            await page.get_by_test_id("forward").click()
        await expect(counter).to_contain_text("step 6 of")
        await page.get_by_test_id("back").click()
        await expect(counter).to_contain_text("step 5 of")
        assert page.url.endswith("#step=5")
        frames = (await (await page.request.get(page.url.replace("/replay/", "/api/replay/").split("#")[0])).json())
        frame = frames["frames"][5]
        current = frame["board"]["current_trick"] or {"cards": []}
        played = await page.get_by_test_id("played").locator(".card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)")
        assert sorted(played) == sorted(current["cards"])
        hands = await page.locator(".seat .hand").evaluate_all(
            "hands => hands.map(h => [...h.querySelectorAll('.card')].map(c => c.dataset.card))")
        assert hands == frame["board"]["hands"]  # every hand face up
        await page.locator("select[aria-label=trick]").select_option("3")
        await expect(page.get_by_test_id("step-label")).to_contain_text("play")
        await page.goto(page.url.split("#")[0] + "#step=5")
        await page.reload()
        await expect(counter).to_contain_text("step 5 of")
        await page.screenshot(path=SHOTS / "replay.png", full_page=True)

        # A tournament stored in the server's database: standings, games, a replay of one.
        await run_tournament(site.server.storage.path, "web-cup")
        await page.goto(site.url + "tournament/web-cup")
        await expect(page.get_by_test_id("leaderboard").locator("tr[data-entrant]")).to_have_count(3)
        await expect(page.get_by_test_id("games").locator("a")).to_have_count(6)
        await expect(page.get_by_test_id("progress")).to_contain_text("6 of 6 games")
        # one deck set per pair: no interval, as the report says, rather than [0.000, 1.000]
        await expect(page.get_by_test_id("pairs").locator("td.ci")).to_have_text(["too few deck sets"] * 3)
        # ended: the deck key and its salt beside the commitment shown from the start
        await expect(page.get_by_test_id("deck-key").locator(".digest")).to_have_count(3)
        await page.screenshot(path=SHOTS / "tournament.png", full_page=True)
        await page.get_by_test_id("games").locator("a").first.click()
        await expect(counter).to_contain_text("step 0 of")

        await page.goto(site.url)  # the lobby again: the game ended, the tournament listed
        await expect(page.get_by_test_id("tournaments")).to_contain_text("web-cup")
        await page.screenshot(path=SHOTS / "lobby-later.png", full_page=True)

        # Every page at phone width.
        phone = await context.new_page()
        await phone.set_viewport_size(PHONE)
        for name, path in [("lobby", ""), ("table", f"table/{created.table_id}"),
                           ("replay", f"replay/{created.table_id}#step=5"), ("tournament", "tournament/web-cup")]:
            await phone.goto(site.url + path)
            await phone.locator("main :not(p.muted)").first.wait_for()
            await phone.wait_for_timeout(300)
            await phone.screenshot(path=SHOTS / f"{name}-phone.png", full_page=False)
            assert await fits_phone(phone), name
        assert errors == []
    assert guard.seen > 10 and guard.outside == []


async def test_live_page_runs_the_clock_and_marks_a_timeout_and_its_default_action(site: Site) -> None:
    clocks = TimeControl(decision_seconds=1.5, bank_seconds=0.0, grace_seconds=60.0, join_seconds=60.0)
    table, _ = site.server.lobby.create_table(game="all_fives", names=["slow", "slower"], time_control=clocks)
    guard = Guard()
    async with browser_context(guard) as context:
        page = await context.new_page()
        await page.goto(site.url + f"table/{table.id}")
        await expect(page.get_by_test_id("status")).to_contain_text("waiting")
        for seat in range(2):
            table.connect(seat)  # both seats joined, neither ever answers
        await expect(page.get_by_test_id("clock")).to_contain_text(" s")
        await expect(page.get_by_test_id("timed-out").first).to_be_visible(timeout=15_000)
        await expect(page.locator("ol.log li.timeout").first).to_contain_text("timed out")
        await page.screenshot(path=SHOTS / "table-timeout.png", full_page=True)
        table.abort("test over")
        await expect(page.get_by_test_id("result")).to_contain_text("aborted")
    assert guard.outside == []


async def test_replay_shows_each_bot_s_note_beside_its_move_and_the_analysis_timeline(site: Site,
                                                                                     tmp_path: Path) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", options={"players": 2, "target": 11},
                                              names=["noter", "other"], seed="timeline")
    for seat in range(2):
        table.connect(seat)
    annotated_moves(table, None, "because")
    await site.server.lobby.drain()
    guard = Guard()
    async with browser_context(guard) as context:
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(site.url + f"replay/{table.id}#step=1")
        frames = (await (await page.request.get(site.url + f"api/replay/{table.id}")).json())["frames"]
        first = frames[1]  # the first move
        note = page.get_by_test_id("annotation")
        await expect(page.get_by_test_id("note-text")).to_have_text(f"because 0 by seat {first['actor']}")
        await expect(note).to_contain_text(f"{['noter', 'other'][first['actor']]}'s note")
        await expect(note.locator("li.played")).to_have_attribute("data-action", first["action_id"])
        await page.get_by_test_id("back").click()
        await expect(note).to_be_hidden()  # the deal as dealt: no move, no note

        # On demand: seat 0's decisions valued by the search bot (a few worlds each, to keep the test short).
        await page.locator("input[aria-label='worlds a decision']").fill("3")
        await page.get_by_test_id("analyse").click()
        timeline = page.get_by_test_id("timeline")
        await expect(timeline).to_have_count(1, timeout=60_000)
        analysis = (await (await page.request.get(site.url + f"api/analysis/{table.id}?seat=0&sims=3")).json())
        bars = timeline.get_by_test_id("decision")
        await expect(bars).to_have_count(len(analysis["decisions"]))
        assert len(analysis["decisions"]) > 3
        deals = timeline.get_by_test_id("loss-per-deal").locator("tr[data-deal]")
        await expect(deals).to_have_count(len(analysis["loss_per_deal"]))
        await expect(page.locator(".timeline .bar.costly")).to_have_count(analysis["costly"])
        last = analysis["decisions"][-1]
        await bars.last.click()  # a bar goes to its move, which shows the analysis beside it
        await expect(page.get_by_test_id("step-label")).to_contain_text(f"noter: {last['played_name']}")
        await expect(page.get_by_test_id("step-analysis")).to_contain_text(f"loss {last['loss']:.2f}")
        await page.screenshot(path=SHOTS / "replay-analysis.png", full_page=True)

        # From a file of `tricktable analyse --json` (one line per seat): a timeline for each.
        lines = tmp_path / "analysis.jsonl"
        lines.write_text("\n".join(json.dumps({**analysis, "seat": s}) for s in (0, 1)) + "\n")
        await page.get_by_test_id("analysis-file").set_input_files(lines)
        await expect(timeline).to_have_count(2)
        await expect(page.get_by_test_id("analysis-status")).to_contain_text("analysis.jsonl")
        assert errors == []
    assert guard.outside == []
