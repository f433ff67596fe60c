"""What the tournament store raises: a refusal, or a database that can not be reached now.

A module of their own so that each database backend (:mod:`tricktable.tournament.sqlite_store`,
:mod:`tricktable.tournament.pg_store`) raises them without importing the store built over it.
"""

from __future__ import annotations


class StoreError(RuntimeError):
    """The database refuses what was asked (a tournament that exists, a resume of a different config)."""


class StoreUnreachableError(StoreError):
    """The database can not be reached now (restarting, a cut connection): the same call may succeed later.

    Why apart from :class:`StoreError`: a running tournament waits for a database that went away and
    tries again (:attr:`tricktable.tournament.config.TournamentConfig.database_patience_s`), while a
    refusal is final. Raised by the PostgreSQL backend (:mod:`tricktable.tournament.pg_store`) and, for a
    SQLite file on a full disk, by :mod:`tricktable.tournament.sqlite_store`.
    """


__all__ = ["StoreError", "StoreUnreachableError"]
