"""A bot's annotation of its own decision: a short note and numbers, secret until the table ends.

With each answer a bot may say why it chose: a note (``"18 worlds; the 5H
wins 3 tricks in most"``) and numbers keyed by the legal actions' ids (its
estimated value of each, ``{"play-5H": 4.2, "play-2C": -1.0}``). The server
keeps it with the action, shows it to nobody while the table runs, and
writes it into the record afterwards (an ``annotation`` object on the action,
docs/records.md); the replay viewer shows it beside the move.

One home for the form and its limits, read by the record parser
(:mod:`tricktable.rules.record`), the server (which refuses an over-limit annotation
with the in-band reason ``BAD_ANNOTATION``, changing nothing) and the SDK
(which refuses it when the bot builds it). The limits keep a record of a
long game small and the viewer readable: a note of at most
:data:`MAX_NOTE_CHARS` characters (newlines and tabs allowed, no other
control character), at most :data:`MAX_VALUES` numbers, each a finite
number keyed by a non-empty string of at most :data:`MAX_KEY_CHARS`
characters. An empty annotation (no note, no number) is no annotation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tricktable.rules.errors import TricktableError

#: Characters at most in a note (a short message's worth).
MAX_NOTE_CHARS = 280
#: Numbers at most in an annotation (a value for every legal action of any decision but a Cinq Cents discard).
MAX_VALUES = 64
#: Characters at most in a number's key (a legal action id such as ``"bid-10-NT"``; a discard's is 23).
MAX_KEY_CHARS = 64
#: Control characters a note may hold.
_ALLOWED_CONTROLS = frozenset("\n\t")


class AnnotationError(TricktableError, ValueError):
    """An annotation over a limit or malformed; the message names the limit."""


@dataclass(frozen=True, slots=True)
class Annotation:
    """A note and numbers keyed by action id, checked against the limits when made.

    Raises:
        AnnotationError: a limit is exceeded or a value is not a finite number.
    """

    note: str = ""
    values: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problem = annotation_problem(self.note, self.values)
        if problem is not None:
            raise AnnotationError(problem)
        object.__setattr__(self, "values", {k: float(v) for k, v in self.values.items()})

    def __bool__(self) -> bool:
        """False for the empty annotation (which is none)."""
        return bool(self.note or self.values)

    def to_json(self) -> dict[str, Any]:
        """The record form: ``{"note": ..., "values": {...}}``, each key only when it has content."""
        out: dict[str, Any] = {}
        if self.note:
            out["note"] = self.note
        if self.values:
            out["values"] = dict(self.values)
        return out

    @classmethod
    def from_json(cls, data: object) -> Annotation:
        """Parse the record form (``note`` and ``values`` both optional, nothing else).

        Raises:
            AnnotationError: naming what is wrong.
        """
        if not isinstance(data, dict):
            raise AnnotationError(f"an annotation is an object, not {type(data).__name__}")
        unknown = sorted(set(data) - {"note", "values"})
        if unknown:
            raise AnnotationError(f"an annotation has only 'note' and 'values', not {unknown[0]!r}")
        note = data.get("note", "")
        values = data.get("values", {})
        if not isinstance(note, str):
            raise AnnotationError(f"note: expected a string, not {type(note).__name__}")
        if not isinstance(values, dict):
            raise AnnotationError(f"values: expected an object, not {type(values).__name__}")
        return cls(note=note, values=values)


def annotation_problem(note: object, values: Mapping[Any, Any]) -> str | None:
    """What makes ``note`` and ``values`` no valid annotation, or None when they are one."""
    if not isinstance(note, str):
        return f"note: expected a string, not {type(note).__name__}"
    if len(note) > MAX_NOTE_CHARS:
        return f"note: {len(note)} characters, over the limit of {MAX_NOTE_CHARS}"
    bad = next((c for c in note if (c < " " or c == "\x7f") and c not in _ALLOWED_CONTROLS), None)
    if bad is not None:
        return f"note: control character {bad!r} (only newline and tab are allowed)"
    if len(values) > MAX_VALUES:
        return f"values: {len(values)} numbers, over the limit of {MAX_VALUES}"
    for key, value in values.items():
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_CHARS:
            shown = repr(key)[:MAX_KEY_CHARS + 2]
            return f"values: key {shown} is not a string of 1 to {MAX_KEY_CHARS} characters"
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return f"values[{key!r}]: {str(value)[:20]} is not a finite number"
    return None


__all__ = ["MAX_KEY_CHARS", "MAX_NOTE_CHARS", "MAX_VALUES", "Annotation", "AnnotationError", "annotation_problem"]
