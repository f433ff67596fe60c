"""The protos lint clean with buf's standard rules plus the comment rules (what ``make buf-lint`` runs)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _buf_command() -> list[str]:
    makefile = (ROOT / "Makefile").read_text()
    match = re.search(r"^BUF := (.+)$", makefile, re.MULTILINE)
    assert match, "the Makefile pins buf in BUF := ..."
    return match.group(1).split()


@pytest.mark.skipif(shutil.which("npx") is None, reason="npx (Node.js) is not installed: buf comes from npm")
def test_protos_pass_buf_lint() -> None:
    result = subprocess.run([*_buf_command(), "lint"], cwd=ROOT / "protos", capture_output=True, text=True,
                            timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
