"""The tournament store is handed its database file: the file's one home is :mod:`tricktable.server.storage`."""

from __future__ import annotations

import ast
from pathlib import Path

STORE = Path(__file__).resolve().parents[2] / "tricktable" / "tournament" / "store.py"


def test_the_tournament_store_imports_nothing_from_the_server() -> None:
    modules = {node.module for node in ast.walk(ast.parse(STORE.read_text()))
               if isinstance(node, ast.ImportFrom) and node.module}
    assert sorted(m for m in modules if m.split(".")[:2] == ["tricktable", "server"]) == []
