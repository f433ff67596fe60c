"""An action's one written form, both ways: ``"play-5H"``, ``"bid-7-NT"``, ``"discard-4C-5C-7D-9D-TD-QS"``.

The notation is the record form (:data:`tricktable.rules.record.RECORD_FIELDS`, docs/records.md's
action table) written on one line: the action's type, then its fields' values in the table's
order, joined by ``-``; a list field (a discard's cards, a run's exposed cards) takes the rest,
a discard's cards sorted, since their order carries no meaning. It is what the wire's legal
action ids are, what the CLI and the logs print, and what a client may parse: every action has
exactly one notation, and :func:`from_notation` accepts exactly the notations :func:`notation`
writes (python-chess's ``Move.uci()`` / ``Move.from_uci()``), refusing anything else with a
:class:`NotationError` that names what is wrong.

    >>> from tricktable.rules.actions import Bid, Denomination
    >>> notation(Bid(tricks=7, denomination=Denomination.NO_TRUMP))
    'bid-7-NT'
    >>> from_notation("play-5H")
    Play(card=Card(5H), suit=None)
    >>> from_notation("play-5X")
    Traceback (most recent call last):
    ...
    tricktable.rules.errors.NotationError: 'play-5X': card: not a card: '5X' (bad suit 'X'; suits are C, D, H, S)
"""

from __future__ import annotations

from typing import Any

from tricktable.rules.actions import ACTION_CLASSES, Action, Discard
from tricktable.rules.errors import NotationError
from tricktable.rules.record import RECORD_FIELDS, action_from_json, action_to_json

#: Record keys whose value is a list of cards: in a notation they take every remaining part.
LIST_KEYS = frozenset({"cards", "exposed"})
#: Record keys whose value is an integer.
INT_KEYS = frozenset({"tricks"})
_CLASS_OF = {cls.type: cls for cls in ACTION_CLASSES}


def notation(action: Action) -> str:
    """The action's one written form (a discard's cards sorted)."""
    if isinstance(action, Discard):
        action = Discard(cards=tuple(sorted(action.cards)))
    return "-".join(str(part) for value in action_to_json(action).values()
                    for part in (value if isinstance(value, list) else (value,)))


def from_notation(text: str) -> Action:
    """The action written ``text``: the inverse of :func:`notation`.

    Raises:
        NotationError: an unknown type, a missing, extra or malformed part, or a form that is
            not the one :func:`notation` writes (a discard's cards out of order).
    """
    if not isinstance(text, str) or not text:
        raise NotationError(f"an action's notation is a non-empty string, not {text!r}")
    kind, *parts = text.split("-")
    cls = _CLASS_OF.get(kind)
    if cls is None:
        raise NotationError(f"{text[:80]!r}: unknown action type {kind[:40]!r} (types: {', '.join(_CLASS_OF)})")
    record: dict[str, Any] = {"type": kind}
    for field in RECORD_FIELDS.get(cls, ()):
        if field.key in LIST_KEYS:
            if parts or not field.optional:
                record[field.key], parts = parts, []
        elif parts:
            part, *parts = parts
            record[field.key] = _int(text, field.key, part) if field.key in INT_KEYS else part
        elif not field.optional:
            raise NotationError(f"{text[:80]!r}: a {kind} action needs its {field.key}")
    if parts:
        raise NotationError(f"{text[:80]!r}: a {kind} action has no part after its fields ({'-'.join(parts)[:40]!r})")
    try:
        action = action_from_json(record)
    except NotationError as error:
        raise NotationError(f"{text[:80]!r}: {error}") from None
    if notation(action) != text:
        raise NotationError(f"{text[:80]!r} is not in the one written form of that action: {notation(action)!r}")
    return action


def _int(text: str, key: str, part: str) -> int:
    if not part.isdigit() or part != str(int(part)):
        raise NotationError(f"{text[:80]!r}: {key}: not a number: {part[:20]!r}")
    return int(part)
