"""Shared test set-up: Hypothesis profiles, uncached loggers, and a real PostgreSQL for the stores' suites.

``ci`` (used by ``.ci/run``) is derandomised and bounded so CI is repeatable;
``dev`` (the default) explores more. Pick one with ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from bench.postgres_cluster import PostgresCluster, binaries, running_cluster
from tricktable.server.logging import cache_loggers

settings.register_profile(
    "ci", max_examples=40, derandomize=True, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# A test that runs a command in-process configures the server's logging; a logger cached then would
# escape every later test's ``capture_logs`` in that worker, whichever tests the worker ran before.
cache_loggers(False)


def need_postgres() -> None:
    """Skip, saying why, when PostgreSQL's server or psycopg is not installed (``make test`` installs both)."""
    if binaries() is None:
        pytest.skip("PostgreSQL is not installed (make postgres-server installs Debian's postgresql)")
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (pip install -e '.[postgres]')")


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """One real PostgreSQL cluster for the session's tests, in a temporary directory, stopped at the end."""
    need_postgres()
    with running_cluster() as cluster:
        yield cluster


@pytest.fixture
def database_url(postgres: PostgresCluster) -> Iterator[str]:
    """A fresh empty database on the session's cluster, dropped after the test."""
    url = postgres.create_database()
    yield url
    postgres.drop_database(url)
