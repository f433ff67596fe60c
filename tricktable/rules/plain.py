"""Plain JSON from the rules' own objects: one generic conversion for every reader outside Python.

The web pages draw views and events from it, and bots in other languages
(:mod:`tricktable.bots.external`) read a seat's view in the same form, so a
field added to a view or an event reaches both without a second list of
fields to keep in step: dataclasses become objects (events carry their class
name as ``kind``), cards their record notation (``5H``), enums their value,
tuples lists. Whatever goes in is already cut to its audience; nothing here
decides visibility.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from enum import Enum
from typing import Any

from tricktable.rules.cards import Card


def to_json(value: object) -> Any:
    """``value`` as JSON-ready data (dicts, lists, strings, numbers, booleans, None)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return to_json(value.value)
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_json(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)


def event_json(body: object) -> dict[str, Any]:
    """An event body with its kind (the class name: ``TrickWon``, ``ActionTimedOut``...)."""
    data = to_json(body)
    if not isinstance(data, dict):
        data = {"value": data}
    return {"kind": type(body).__name__, **data}
