"""A tournament's status row tells the truth after its process was killed."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from tests.tournament.helpers import config
from tricktable.tournament.store import TournamentStore


def test_a_tournament_left_running_by_a_killed_process_is_marked_interrupted_on_next_open(tmp_path):
    db = tmp_path / "tricktable.sqlite3"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    store = TournamentStore(db)
    store.begin(config(), resume=False)  # "running", as a kill -9 leaves it
    store.close()
    with sqlite3.connect(db) as con:  # ... by a process that has exited since
        con.execute("UPDATE tournaments SET runner_pid = ?", (int(gone.stdout),))
    again = TournamentStore(db)
    assert again.status("t") == "interrupted"
    again.begin(config(), resume=True)  # --resume runs it again, in this (living) process
    again.close()
    assert TournamentStore(db).status("t") == "running"
