"""A cheaper ``dataclasses.replace`` for the engine's immutable states (a deal, the match).

Why: every step of the rules copies its state, a Spoil Five deal of 21 fields
once or twice and the match once. ``dataclasses.replace`` walks each field's
metadata and calls ``__init__`` with keywords; copying the slots directly
costs about half. It is only for what needs no ``__init__``: frozen,
slotted dataclasses without ``__post_init__`` (nothing to validate), which
is what the states are. Configs and other validated values keep
``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")

#: Field names of each class copied so far (a class's fields never change).
_FIELD_NAMES: dict[type, tuple[frozenset[str], tuple[str, ...]]] = {}
_set = object.__setattr__


def evolve(state: T, /, **changes: Any) -> T:
    """A copy of ``state`` with ``changes``, equal to ``dataclasses.replace(state, **changes)``.

    Raises:
        TypeError: ``state`` is not a slotted dataclass without ``__post_init__``, or a change names no field.
    """
    cls = type(state)
    known = _FIELD_NAMES.get(cls)
    if known is None:
        known = _FIELD_NAMES[cls] = _names(cls)
    if not changes.keys() <= known[0]:
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - known[0])[0]!r}")
    copy = object.__new__(cls)
    for name in known[1]:
        _set(copy, name, getattr(state, name))
    for name, value in changes.items():
        _set(copy, name, value)
    return copy


def _names(cls: type) -> tuple[frozenset[str], tuple[str, ...]]:
    if not is_dataclass(cls) or "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"evolve copies slotted dataclasses without __post_init__, not {cls.__name__}")
    names = tuple(f.name for f in fields(cls))
    return frozenset(names), names
