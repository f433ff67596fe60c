"""The rules package stays pure: standard library only, no I/O, no clock, no global random.

Walks every module of ``rules/`` with ``ast`` and checks what it imports and calls.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "tricktable" / "rules"

#: Standard-library modules the rules may not use: I/O, clocks, processes, network.
FORBIDDEN_STDLIB = {
    "os", "io", "sys", "time", "datetime", "socket", "subprocess", "threading", "asyncio",
    "pathlib", "shutil", "tempfile", "logging", "sqlite3", "urllib", "http", "multiprocessing",
    "secrets", "uuid", "glob", "signal", "select",
}
#: Calls on the random module that would use the global generator.
GLOBAL_RANDOM = {"random", "shuffle", "choice", "choices", "randrange", "randint", "sample",
                 "seed", "uniform", "getrandbits"}


def _modules() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def test_rules_package_has_modules() -> None:
    assert len(_modules()) >= 5


def test_rules_imports_only_the_standard_library_and_itself() -> None:
    bad: list[str] = []
    for path in _modules():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if name == "tricktable.rules" or name.startswith("tricktable.rules.") or top == "__future__":
                    continue
                if top not in sys.stdlib_module_names:
                    bad.append(f"{path.name}: imports non-stdlib {name}")
                elif top in FORBIDDEN_STDLIB:
                    bad.append(f"{path.name}: imports {name} (I/O, clock or process)")
    assert bad == []


def test_rules_never_calls_the_global_random_generator_or_open() -> None:
    bad: list[str] = []
    for path in _modules():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id == "random" and func.attr in GLOBAL_RANDOM):
                bad.append(f"{path.name}:{node.lineno}: random.{func.attr}()")
            if isinstance(func, ast.Name) and func.id in {"open", "print", "input"}:
                bad.append(f"{path.name}:{node.lineno}: {func.id}()")
    assert bad == []
