"""No ``assert`` statement in the shipped packages: ``python -O`` must not change what the code does.

An ``assert`` that narrows a type or guards a state vanishes under ``-O``,
and the code then runs on with the value it was meant to refuse. The
packages say what they mean instead: a narrower type, a checked accessor
(``Trick.taken_by``, ``Match.final_result``...) or an explicit ``raise``
with a real error type. Tests keep their asserts.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "server", "client_sdk", "protocol", "bots", "cli", "tournament", "web", "analysis")


def _asserts(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]


def test_no_assert_statement_in_the_shipped_packages() -> None:
    files = [p for package in PACKAGES for p in sorted((ROOT / "tricktable" / package).rglob("*.py"))
             if "generated" not in p.parts] + sorted((ROOT / "tricktable").glob("*.py"))
    assert len(files) > 100, "the packages were not found"
    found = [f"{path.relative_to(ROOT)}:{line}" for path in files for line in _asserts(path)]
    assert found == [], "assert statements outside the tests (use a type, an accessor or a raise): " + ", ".join(found)
