"""A real PostgreSQL cluster for tests and benchmarks: initdb in a temporary directory, started and stopped by them.

Why a cluster of its own: the storage suite and the database-gone test run
against a real server (never a mock), and stopping it must not disturb any
other. It listens on a Unix socket in its own directory only (no TCP port to
collide with), trusts local connections, and runs as ``nobody`` when the
tests run as root (PostgreSQL refuses to run as root). The binaries are found
on the PATH, else in Debian's ``/usr/lib/postgresql/<version>/bin``.

The tests run it with ``fsync=off`` (nothing they check needs a commit to
reach the disk); a benchmark asks for PostgreSQL's durable defaults
(``durable=True``: every commit waits for its WAL to be flushed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The port names the socket file only (``.s.PGSQL.5432``); nothing listens on TCP.
PORT = 5432
#: The superuser initdb makes (trusted, on the cluster's own socket).
SUPERUSER = "tricktable"


def binaries() -> Path | None:
    """The folder of initdb, pg_ctl and postgres, or None when PostgreSQL is not installed."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "pg_ctl").exists():
            return folder
    return None


class PostgresCluster:
    """One PostgreSQL cluster in ``root`` (created by :meth:`init`), started and stopped on demand."""

    def __init__(self, root: Path, bin_dir: Path, *, durable: bool = False) -> None:
        self.root = root
        self.durable = durable
        self.bin = bin_dir
        self.data = root / "pgdata"
        self.socket_dir = root / "socket"
        self._as_nobody = os.geteuid() == 0

    def _run(self, *args: str, timeout: float = 120.0) -> None:
        command = list(args)
        if self._as_nobody:
            command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
        subprocess.run(command, check=True, timeout=timeout, capture_output=True, cwd=self.root)

    def init(self) -> PostgresCluster:
        self.socket_dir.mkdir()
        if self._as_nobody:
            for path in (self.root, self.socket_dir):
                shutil.chown(path, "nobody", "nogroup")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                  "--no-sync", "-E", "UTF8", "--locale=C")
        return self

    def start(self) -> None:
        options = (f"-p {PORT} -k {self.socket_dir} -c listen_addresses='' -c max_connections=100"
                   + ("" if self.durable else " -c fsync=off -c shared_buffers=16MB"))
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "120", "start")

    def stop(self) -> None:
        """Stop at once (``-m fast``: connections are cut, as when the database goes away)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "120", "stop")

    def cpu_seconds(self) -> float:
        """CPU seconds the cluster's processes have used so far: the postmaster's own and its children's (those
        it reaped included, through its ``cutime``/``cstime``)."""
        ticks = os.sysconf("SC_CLK_TCK")
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:  # ended meanwhile
                continue
            pid = int(stat.parent.name)
            if pid == postmaster:
                total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
            elif int(fields[1]) == postmaster:
                total += int(fields[11]) + int(fields[12])
        return total / ticks

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this cluster (its Unix socket)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={PORT}"

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.split("/")[-1].split("?")[0]
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def running_cluster(*, durable: bool = False) -> Iterator[PostgresCluster]:
    """A started cluster in a fresh temporary directory, stopped and removed when the block ends.

    Raises:
        FileNotFoundError: PostgreSQL's binaries are not installed.
    """
    bin_dir = binaries()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL is not installed (no pg_ctl on the PATH or in /usr/lib/postgresql)")
    root = Path(tempfile.mkdtemp(prefix="tricktable-pg-"))
    try:
        cluster = PostgresCluster(root, bin_dir, durable=durable).init()
        cluster.start()
        try:
            yield cluster
        finally:
            if (cluster.data / "postmaster.pid").exists():
                cluster.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
