"""Structured logs: JSON lines in production, a readable console on a terminal.

Every line about a table is bound with ``table`` and ``game`` ids (and
``seat`` where one is concerned) by the code that logs it; this module only
sets up the processors and the renderer.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

#: Whether :func:`configure` lets structlog cache each logger on its first use (:func:`cache_loggers`).
_cache_loggers = True


def cache_loggers(on: bool) -> None:
    """Choose whether later :func:`configure` calls let structlog cache each logger on its first use.

    On by default, as a server wants it: a cached logger resolves its configuration once instead of at
    every call. A process that configures logging more than once and then reads what its loggers log
    (a test suite running commands in-process, then ``structlog.testing.capture_logs``) turns it off
    before the first :func:`configure`: a cached logger keeps the configuration it first saw and
    escapes every later capture.
    """
    global _cache_loggers
    _cache_loggers = on


def configure(*, json: bool | None = None, level: str = "INFO") -> None:
    """Configure structlog once for the process.

    ``json`` None picks JSON lines unless stderr is a terminal; loggers are cached on first use
    unless :func:`cache_loggers` turned that off.
    """
    use_json = (not sys.stderr.isatty()) if json is None else json
    renderer: Any = structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=_cache_loggers,
    )
