"""Running ``tricktable conformance`` from the tests, as a real command in its own process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_check(command: list[str], *args: str, timeout: float = 240.0) -> subprocess.CompletedProcess[str]:
    """``tricktable conformance ARGS -- COMMAND`` against an in-process server; its output and exit status.

    The clock situation gets 5 s per decision unless ``args`` say otherwise (the last ``--clock-ms``
    wins): the 2-core test machines are shared, and a correct client must not fail on a busy one.
    """
    return subprocess.run(
        [sys.executable, "-m", "cli.main", "conformance", "--timeout", "120", "--clock-ms", "5000", *args, "--",
         *command],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False)


def verdict_lines(output: str) -> dict[str, str]:
    """Situation name -> its PASS/FAIL line."""
    lines = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASS", "FAIL"):
            lines[rest.split(":", 1)[0]] = line
    return lines
