"""The committed generated code matches the protos (what ``make protos-check`` checks, here for CI's ``make test``)."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "tricktable" / "protocol" / "generated"


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_generated_code_is_what_make_protos_writes(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "protos" / "generate.py"), str(tmp_path)], check=True,
                   capture_output=True)
    fresh, committed = _files(tmp_path), _files(GENERATED)
    assert sorted(fresh) == sorted(committed), "run `make protos`"
    stale = [name for name in fresh if not filecmp.cmp(fresh[name], committed[name], shallow=False)]
    assert stale == [], f"stale generated files (run `make protos`): {stale}"
