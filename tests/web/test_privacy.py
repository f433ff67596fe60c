"""No private card reaches a live table's page: everything sent is what a spectator may know.

The cards a spectator may know are computed here from the table's truth
(the record: cards played, the turn-up, cards exposed), not from the
visibility code under test; every card anywhere in what the page receives
must be one of them. The scenario includes a rob, whose buried card only
the robber may see (docs/games.md, "What each player may know").
"""

from __future__ import annotations

import re
from typing import Any

from tests.web.conftest import Site
from tests.web.support import play, sse_messages
from tricktable.rules.registry import new_match
from tricktable.server.tables import Table

CARD = re.compile(r"^(?:[2-9TJQKA][CDHS]|JK[BF])$")
ACTIONS = 7


def cards_in(value: Any) -> set[str]:
    """Every string in ``value`` (keys included) that is a card."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(k) | cards_in(v) for k, v in value.items())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def public_cards(table: Table) -> set[str]:
    """What everyone at the table may know of the cards, read from the table's record form."""
    known: set[str] = set()
    for deal in table.match.to_record()["deals"]:
        known |= {deal["turn_up"]} if deal.get("turn_up") else set()
        for action in deal["actions"]:
            if action["type"] == "play":
                known.add(action["card"])
            known |= set(action.get("exposed", []))
    return known


def seed_with_an_early_rob() -> str:
    """A Twenty-Five seed whose first deal has a rob within the first moves (robs preferred)."""
    for n in range(500):
        match = new_match("twenty_five", {"players": 4}, seed=f"rob-{n}")
        for _ in range(ACTIONS):
            legal = match.legal_actions()
            robs = [a for a in legal if a.type == "rob"]
            if robs:
                return f"rob-{n}"
            match = match.apply(legal[0])
    raise AssertionError("no seed with an early rob")


async def test_live_page_receives_no_card_a_spectator_may_not_know(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="twenty_five", options={"players": 4}, seed=seed_with_an_early_rob())
    for seat in range(4):
        table.connect(seat)
    play(table, ACTIONS, prefer="rob")
    record = table.match.to_record()
    assert any(a["type"] == "rob" for a in record["deals"][0]["actions"])  # a buried card now exists
    hidden = {c for hand in record["deals"][0]["hands"].values() for c in hand} - public_cards(table)
    assert hidden  # the hands still hold cards nobody else has seen
    received: list[Any] = []
    async with site.http.get(f"/api/tables/{table.id}/events") as response:
        messages = sse_messages(response)
        received += [await anext(messages), await anext(messages)]  # the state, then every event so far
    async with site.http.get("/api/tables") as response:
        received.append(await response.json())
    shown = cards_in(received)
    assert shown  # the page does show cards (played ones, the turn-up)
    assert shown <= public_cards(table), f"private cards sent to the page: {sorted(shown - public_cards(table))}"
