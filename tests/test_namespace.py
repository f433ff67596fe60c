"""The one ``tricktable`` namespace stays whole: the code lives in the package folder, nothing imports a bare name.

The design card's top-level names (``rules``, ``server``, ``client_sdk``, ``bots``) are links into
``tricktable/``, so from the repository root a bare ``import rules`` would still work; the installed wheel has
only ``tricktable.rules``: such an import would pass here and fail for every user, and here it would load a
second copy of the module (two ``Play`` classes, so ``isinstance`` fails across them).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tricktable"
OUTSIDE = ("tests", "bench", "examples", "protos")


def _subpackages() -> set[str]:
    return {p.parent.name for p in PACKAGE.glob("*/__init__.py")}


def test_the_package_folder_holds_no_link() -> None:
    assert [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*") if p.is_symlink()] == []


def test_every_top_level_link_points_into_the_package() -> None:
    links = {p.name: p.resolve() for p in ROOT.iterdir() if p.is_symlink()}
    assert links == {name: (PACKAGE / name).resolve() for name in links}
    assert set(links) <= _subpackages()


def test_no_module_imports_a_package_outside_the_namespace() -> None:
    bare = _subpackages()
    bad = []
    for folder in (PACKAGE, *(ROOT / name for name in OUTSIDE)):
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
                bad += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in bare]
    assert bad == []
