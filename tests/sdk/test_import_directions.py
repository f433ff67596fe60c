"""Import directions of STYLE.md: protocol -> rules; client_sdk -> protocol, rules; bots -> client_sdk, protocol, rules.

None may import the server, the CLI or the tournament code, so a bot author
can install the SDK without the server, and the server takes its wire types
from :mod:`protocol` without pulling in the SDK or the bots.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUR_PACKAGES = {"rules", "protocol", "client_sdk", "bots", "server", "cli", "tournament", "tests", "bench", "web",
                "analysis"}
ALLOWED = {
    "protocol": {"protocol", "rules"},
    "client_sdk": {"client_sdk", "protocol", "rules"},
    "bots": {"bots", "client_sdk", "protocol", "rules"},
    # The web viewer reads the server's tables and the tournaments' store, names actions as the protocol does, and
    # analyses a replayed game on demand; nothing below imports it but the CLI.
    "web": {"web", "server", "tournament", "rules", "protocol", "analysis"},
}


def _ours(name: str) -> str:
    """``tricktable.rules.x`` as ``rules.x``: the directions are between our packages."""
    return name.removeprefix("tricktable.")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {_ours(a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(_ours(node.module).split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_its_direction_allows(package: str) -> None:
    bad = []
    for path in sorted((ROOT / "tricktable" / package).rglob("*.py")):
        if "generated" in path.parts:
            continue
        for name in sorted(_imports(path) & OUR_PACKAGES - ALLOWED[package]):
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []
