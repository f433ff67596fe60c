"""The server's event loop runner: uvloop when installed unless turned off, asyncio otherwise; the collector's
frozen heap and thresholds."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import sys
import weakref

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
    thresholds = gc.get_threshold()
    try:
        runtime.settle_collector()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_a_settled_server_collects_at_its_own_thresholds() -> None:
    thresholds = gc.get_threshold()
    try:
        runtime.settle_collector()
        assert gc.get_threshold() == runtime.COLLECTOR_THRESHOLDS != (700, 10, 10)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_garbage_cycles_are_still_reclaimed_without_an_explicit_collection_at_the_servers_thresholds() -> None:
    thresholds = gc.get_threshold()
    try:
        runtime.settle_collector()
        first = _Node()
        gone = weakref.ref(first)
        del first
        young, middle, _ = runtime.COLLECTOR_THRESHOLDS
        for _ in range(young * (middle + 2)):  # new cycles enough for young collections and a middle one after them
            _Node()
        assert gone() is None
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
