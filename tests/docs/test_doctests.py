"""The examples in the main entry points' docstrings run as written (``>>>`` lines and their output).

A reader copies these first; an example that no longer runs teaches the wrong
call. Every module of the package with an example is listed here, so none
goes untested.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "tricktable"
MODULES = (
    "tricktable.rules.notation",
    "tricktable.rules.perft",
    "tricktable.rules.registry",
    "tricktable.tournament.arena",
)


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_of_an_entry_point_run_as_written(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, report=True)
    assert result.attempted > 0
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (output above)"


def test_every_module_with_examples_is_run() -> None:
    with_examples = {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for path in PACKAGE.rglob("*.py")
        if "generated" not in path.parts and ">>> " in path.read_text(encoding="utf-8")
    }
    assert with_examples == set(MODULES)
