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


def configure(*, json: bool | None = None, level: str = "INFO") -> None:
    """Configure structlog once for the process.

    ``json`` None picks JSON lines unless stderr is a terminal.
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
        cache_logger_on_first_use=True,
    )
