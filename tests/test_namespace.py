"""The one ``tricktable`` namespace stays whole: every package folder is linked in, nothing imports a bare one.

From the repository root a bare ``import rules`` still works (the folder is there), but the installed wheel
has only ``tricktable.rules``: such an import would pass here and fail for every user, and here it would
load a second copy of the module (two ``Play`` classes, so ``isinstance`` fails across them).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = ROOT / "tricktable"
NOT_INSTALLED = {"tests", "bench", "examples", "protos", "docs", "tricktable"}


def _package_folders() -> set[str]:
    return {p.parent.name for p in ROOT.glob("*/__init__.py")} - NOT_INSTALLED


def test_every_package_folder_is_linked_into_the_namespace() -> None:
    linked = {p.name for p in NAMESPACE.iterdir() if p.is_symlink()}
    assert linked == _package_folders()
    for name in linked:
        assert (NAMESPACE / name).resolve() == (ROOT / name).resolve()


def test_no_module_imports_a_package_outside_the_namespace() -> None:
    bare = _package_folders()
    bad = []
    for folder in sorted(bare | {"tests", "bench", "examples", "protos"}):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
                bad += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in bare]
    assert bad == []
