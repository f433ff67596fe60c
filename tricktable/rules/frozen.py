"""A cheaper ``dataclasses.replace`` for the engine's immutable states (a deal, the match).

Why: every step of the rules copies its state, a Spoil Five deal of 22 fields
once and the match once. ``dataclasses.replace`` walks each field's
metadata and calls ``__init__`` with keywords; copying the slots directly
(every value read by one ``attrgetter`` call) costs about a third of it.
It is only for what needs no ``__init__``: frozen, slotted dataclasses
without ``__post_init__`` (nothing to validate), which is what the states
are. Configs and other validated values keep ``dataclasses.replace``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")

#: Per class copied so far (a class's fields never change): its field names, in order and as a set, and a getter of
#: every field's value at once (one call in C instead of one ``getattr`` per field).
_FIELDS: dict[type, tuple[tuple[str, ...], frozenset[str], Callable[[Any], tuple[Any, ...]]]] = {}
_set = object.__setattr__


def evolve(state: T, /, **changes: Any) -> T:
    """A copy of ``state`` with ``changes``, equal to ``dataclasses.replace(state, **changes)``.

    Raises:
        TypeError: ``state`` is not a slotted dataclass without ``__post_init__``, or a change names no field.
    """
    cls = type(state)
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = _fields_of(cls)
    names, named, values = known
    if not changes.keys() <= named:
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - named)[0]!r}")
    copy = object.__new__(cls)
    for name, value in zip(names, values(state), strict=True):
        _set(copy, name, value)
    for name, value in changes.items():
        _set(copy, name, value)
    return copy


def _fields_of(cls: type) -> tuple[tuple[str, ...], frozenset[str], Callable[[Any], tuple[Any, ...]]]:
    if not is_dataclass(cls) or "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"evolve copies slotted dataclasses without __post_init__, not {cls.__name__}")
    names = tuple(f.name for f in fields(cls))
    if len(names) == 1:  # attrgetter of one name gives the value, not a tuple of it
        return names, frozenset(names), lambda state: (getattr(state, names[0]),)
    return names, frozenset(names), attrgetter(*names) if names else lambda state: ()
