"""Tournament tests compare runs over separate stores: they share one deck key, so equal configs deal equal decks.

The store's own tests run on both of its backends (:func:`stores`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench.postgres_cluster import PostgresCluster
from tricktable.tournament.store import DECK_KEY_ENV, TournamentStore, tournament_store

#: The deck key of every tournament the tests begin.
SHARED_DECK_KEY = "tests-deck-key"


@pytest.fixture(autouse=True)
def shared_deck_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tournament begun by these tests (in-process or a child process) draws the same deck key."""
    monkeypatch.setenv(DECK_KEY_ENV, SHARED_DECK_KEY)


@dataclass
class StoreBackend:
    """Where the tournament stores of a test live: SQLite files in its directory, or databases on a real PostgreSQL.

    ``open(name)`` opens the store called ``name`` (a test comparing two runs opens two); each is its own file or
    its own fresh database, dropped after the test.
    """

    name: str
    folder: Path
    postgres: PostgresCluster | None = None
    urls: dict[str, str] = field(default_factory=dict)

    def url(self, name: str) -> str | None:
        """The PostgreSQL URL of store ``name`` (None in SQLite)."""
        if self.postgres is None:
            return None
        if name not in self.urls:
            self.urls[name] = self.postgres.create_database()
        return self.urls[name]

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.sqlite3"

    def open(self, name: str = "tricktable", *, read_only: bool = False) -> TournamentStore:
        return tournament_store(self.path(name), self.url(name), read_only=read_only)

    def sql(self, name: str, statement: str, params: tuple[object, ...] = ()) -> None:
        """Run ``statement`` (``?`` placeholders) on store ``name``'s database, as another process would."""
        url = self.url(name)
        if url is None:
            with closing(sqlite3.connect(self.path(name))) as db, db:
                db.execute(statement, params)
            return
        import psycopg

        with psycopg.connect(url, autocommit=True) as pg:
            pg.execute(statement.replace("?", "%s"), params)


@pytest.fixture(params=["sqlite", "postgres"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreBackend]:
    """The tournament store's backends: every test taking this runs on SQLite, then on a real PostgreSQL."""
    cluster = request.getfixturevalue("postgres") if request.param == "postgres" else None
    backend = StoreBackend(request.param, tmp_path, cluster)
    yield backend
    if cluster is not None:
        for url in backend.urls.values():
            cluster.drop_database(url)
