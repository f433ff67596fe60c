"""Running ``tricktable conformance`` from the tests, as a real command in its own process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


#: The four games, each checked with the conformance check's own default options for it.
GAMES = ("twenty_five", "forty_five", "all_fives", "cinq_cents")


def _check_command(command: Sequence[str], args: Sequence[str]) -> list[str]:
    """``tricktable conformance ARGS -- COMMAND``, with 5 s per decision in the clock situation unless ``args``
    say otherwise (the last ``--clock-ms`` wins): the 2-core test machines are shared, and a correct client
    must not fail on a busy one."""
    return [sys.executable, "-m", "tricktable.cli.main", "conformance", "--timeout", "120", "--clock-ms", "5000", *args,
            "--", *command]


#: The SDK's spectator: ``tricktable watch`` follows a table over Spectate (the ``spectate`` situation).
SPECTATOR = ["--spectator", f"{sys.executable} -m tricktable.cli.main watch {{table}} --server {{address}} --quiet"]


def passed_or_declared(lines: dict[str, str], declared: tuple[str, ...] = ()) -> list[str]:
    """The lines that are neither a PASS nor the SKIP of a situation the client declared unsupported."""
    return [line for name, line in lines.items()
            if not (line.startswith("PASS") or (name in declared and line.startswith("SKIP")))]


def run_check(command: list[str], *args: str, timeout: float = 400.0) -> subprocess.CompletedProcess[str]:
    """``tricktable conformance ARGS -- COMMAND`` against an in-process server; its output and exit status."""
    return subprocess.run(_check_command(command, args), cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          check=False)


def run_checks_in_every_game(command: list[str], *args: str,
                             timeout: float = 900.0) -> dict[str, subprocess.CompletedProcess[str]]:
    """:func:`run_check` in each of the four games, the four checks running at once (each its own server)."""
    running = {game: subprocess.Popen(_check_command(command, ["--game", game, *args]), cwd=ROOT, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE) for game in GAMES}
    done = {}
    try:
        for game, process in running.items():
            out, err = process.communicate(timeout=timeout)
            done[game] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    return done


def verdict_lines(output: str) -> dict[str, str]:
    """Situation name -> its PASS/FAIL/SKIP line."""
    lines = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASS", "FAIL", "SKIP"):
            lines[rest.split(":", 1)[0]] = line
    return lines
