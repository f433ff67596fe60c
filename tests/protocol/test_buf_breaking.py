"""The protocol only grows within v1: ``buf breaking`` against the committed baseline (what ``make buf-breaking`` runs).

``protos/baseline/v1.binpb`` is the image of the released v1 (``buf build -o``); a change that
renumbers, renames or removes anything a generated client depends on fails here, and the same
check proves it can fail by breaking a copy of the protos on purpose.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.protocol.test_buf_lint import ROOT, _buf_command

pytestmark = pytest.mark.skipif(shutil.which("npx") is None,
                                reason="npx (Node.js) is not installed: buf comes from npm")


def _breaking(protos: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_buf_command(), "breaking", "--against", "baseline/v1.binpb"], cwd=protos,
                          capture_output=True, text=True, timeout=240)


def test_the_protos_keep_every_v1_contract_of_the_baseline() -> None:
    result = _breaking(ROOT / "protos")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_removed_field_is_caught_as_breaking(tmp_path: Path) -> None:
    copy = tmp_path / "protos"
    (copy / "tricktable" / "v1").mkdir(parents=True)
    shutil.copy(ROOT / "protos" / "buf.yaml", copy)
    shutil.copytree(ROOT / "protos" / "baseline", copy / "baseline")
    for proto in (ROOT / "tricktable" / "v1").glob("*.proto"):
        shutil.copy(proto, copy / "tricktable" / "v1")
    service = copy / "tricktable" / "v1" / "table_service.proto"
    text = service.read_text()
    assert "  string table_id = 1;\n" in text
    service.write_text(text.replace("  string table_id = 1;\n", "  reserved 1;\n", 1))
    result = _breaking(copy)
    assert result.returncode != 0 and "table_id" in result.stdout + result.stderr
