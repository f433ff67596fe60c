"""Tournament tests compare runs over separate stores: they share one deck key, so equal configs deal equal decks."""

from __future__ import annotations

import pytest

from tricktable.tournament.store import DECK_KEY_ENV

#: The deck key of every tournament the tests begin.
SHARED_DECK_KEY = "tests-deck-key"


@pytest.fixture(autouse=True)
def shared_deck_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tournament begun by these tests (in-process or a child process) draws the same deck key."""
    monkeypatch.setenv(DECK_KEY_ENV, SHARED_DECK_KEY)
