"""The server's event loop runner: uvloop when installed unless turned off, asyncio otherwise; the frozen heap."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import sys

import pytest

from tricktable.server import runtime

HAS_UVLOOP = importlib.util.find_spec("uvloop") is not None


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_turning_uvloop_off_runs_asyncios_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runtime.ENV_LOOP, "asyncio")
    assert runtime.loop_name() == "asyncio"
    assert runtime.run(_loop_module()).startswith("asyncio")


def test_without_uvloop_installed_the_server_runs_on_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(runtime.ENV_LOOP, raising=False)
    monkeypatch.setitem(sys.modules, "uvloop", None)  # an import of it now fails, as when it is not installed
    assert runtime.loop_name() == "asyncio"
    assert runtime.run(_loop_module()).startswith("asyncio")


@pytest.mark.skipif(not HAS_UVLOOP, reason="uvloop is the optional `fast` extra")
def test_uvloop_runs_the_server_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(runtime.ENV_LOOP, raising=False)
    assert runtime.loop_name() == "uvloop"
    assert runtime.run(_loop_module()).startswith("uvloop")


def test_the_start_up_heap_is_frozen_out_of_collections() -> None:
    try:
        runtime.freeze_startup_heap()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
