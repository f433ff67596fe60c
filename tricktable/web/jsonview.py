"""Plain JSON from the rules' and the server's own objects, for the pages.

The conversion itself is :mod:`tricktable.rules.plain` (bots in other
languages read views in the same form); here is what the pages add to it.
"""

from __future__ import annotations

from typing import Any

from tricktable.rules.game import SeatView
from tricktable.rules.plain import event_json, to_json


def board_json(view: SeatView, hands: list[list[str]] | None = None) -> dict[str, Any]:
    """What the table pages draw: a view, and every seat's hand when it may be shown face up (replays).

    Live pages pass the spectators' view and no hands: each seat is drawn
    as its number of cards face down (``hand_sizes``).
    """
    data: dict[str, Any] = to_json(view)
    data.pop("legal_actions", None)
    data.pop("hand", None)  # one seat's hand: ``hands`` holds every seat's
    for key in ("options", "history"):  # the table's options come once per page; the page draws no history
        data.pop(key, None)
    data["hands"] = hands if hands is not None else [[] for _ in range(view.players)]
    return data


__all__ = ["board_json", "event_json", "to_json"]
