"""Commits measured beside the working tree, each exported with ``git archive`` and run in its own process.

The before/after benches (:mod:`bench.table_step`, :mod:`bench.sdk_decode`,
``bench.server_bench --against``) measure each commit named by ``--refs``
and this tree in alternating rounds of one run: on shared cores only a ratio
inside one run means anything. This module is what they share: the trees,
a worker run inside one of them (with a check that the code it ran is that
tree's), the commits' titles, and writing the report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The working tree: the checkout this bench runs from, always measured last as ``"tree"``.
ROOT = Path(__file__).resolve().parent.parent


def export(ref: str, into: Path) -> Path:
    """The files of commit ``ref`` in ``into``/ref (``git archive``)."""
    folder = into / ref.replace("/", "_").replace("~", "-")
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def trees(refs: Sequence[str], into: Path) -> dict[str, Path]:
    """Each ref exported under ``into``, then the working tree as ``"tree"`` (the order the rounds measure them)."""
    out = {ref: export(ref, into) for ref in refs}
    out["tree"] = ROOT
    return out


def run_worker(tree: Path, script: str, args: Sequence[str]) -> dict[str, Any]:
    """Run ``script`` (a bench module's file) with ``tree``'s packages; its last stdout line, as JSON.

    The worker reports in ``source`` the file its measured code came from,
    so a tree that silently ran another tree's code (a stale install on the
    path) is an error, not a figure.
    """
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, script, *args], cwd=tree, env=env, check=True, capture_output=True,
                         text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    if not Path(result["source"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"measuring {tree} ran the code of {result['source']}")
    return result


def refs_of(text: str) -> list[str]:
    """The commits of a ``--refs`` argument (comma separated; empty: none, only the working tree)."""
    return [r for r in text.split(",") if r]


def save_report(report: dict[str, Any], out: Path, rendered: str) -> int:
    """Write ``report`` as JSON to ``out`` and print its table: how every before/after bench ends (exit 0)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(rendered)
    return 0


def commit_titles(refs: Sequence[str]) -> dict[str, str]:
    """Each ref's short hash and subject, as the reports name the trees they measured."""
    return {ref: subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h %s", ref], check=True,
                                capture_output=True, text=True).stdout.strip() for ref in refs}
