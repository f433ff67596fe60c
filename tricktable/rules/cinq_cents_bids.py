"""Cinq Cents bids as data: the ladder (which bid is higher) and the value table.

Two separate facts, kept apart on purpose (docs/games.md 3.6, last ruling): the
*ladder* of docs/games.md 3.3 says which bid beats which (more tricks, or as many
tricks in a higher denomination, spades < clubs < diamonds < hearts <
no-trump); the *table* says what a contract is worth. A club may load its
own table through the ``bid_values`` option; the ladder never changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tricktable.rules.actions import Bid, Denomination
from tricktable.rules.errors import OptionsError

GAME = "cinq_cents"

#: Bid sizes, 6 to 10 tricks (docs/games.md 3.3).
MIN_TRICKS, MAX_TRICKS = 6, 10
TRICKS: tuple[int, ...] = tuple(range(MIN_TRICKS, MAX_TRICKS + 1))
#: Denominations low to high (docs/games.md 3.3): the Quebec order, spades lowest.
DENOMINATIONS: tuple[Denomination, ...] = tuple(sorted(Denomination, key=lambda d: d.order))


def ladder_rank(bid: Bid) -> int:
    """Position of ``bid`` on the bidding ladder (0 = 6 spades, 24 = 10 no-trump); independent of values."""
    return (bid.tricks - MIN_TRICKS) * len(DENOMINATIONS) + bid.denomination.order


def is_higher(bid: Bid, than: Bid | None) -> bool:
    """True when ``bid`` beats ``than`` (docs/games.md 3.3); any bid beats no bid at all."""
    return than is None or ladder_rank(bid) > ladder_rank(than)


#: Every bid, lowest first.
LADDER: tuple[Bid, ...] = tuple(Bid(tricks=t, denomination=d) for t in TRICKS for d in DENOMINATIONS)


@dataclass(frozen=True, slots=True)
class BidTable:
    """Contract values: ``values[tricks - 6][denomination.order]`` (docs/games.md 3.3 table, option ``bid_values``)."""

    values: tuple[tuple[int, ...], ...]

    def value(self, tricks: int, denomination: Denomination) -> int:
        """What a contract of ``tricks`` in ``denomination`` is worth, made or failed."""
        return self.values[tricks - MIN_TRICKS][denomination.order]

    def to_json(self) -> dict[str, dict[str, int]]:
        """The option's JSON form, as the record writes it: ``{"6": {"S": 40, ...}, ...}``."""
        return {str(t): {d.value: self.value(t, d) for d in DENOMINATIONS} for t in TRICKS}

    @classmethod
    def from_json(cls, data: object) -> BidTable:
        """Read the ``bid_values`` option: a JSON object (or its text) keyed "6".."10", each keyed S, C, D, H, NT.

        Raises:
            OptionsError: naming the bad key or value, e.g.
                ``cinq_cents: bid_values['7']['NT'] must be a non-negative integer, not '220'``.
        """
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError as exc:
                raise OptionsError(f"{GAME}: bid_values is not valid JSON ({exc})") from None
        if not isinstance(data, Mapping):
            raise OptionsError(f"{GAME}: bid_values must be a JSON object keyed '6' to '10', not {data!r}")
        _same_keys("bid_values", data, [str(t) for t in TRICKS])
        rows: list[tuple[int, ...]] = []
        for t in TRICKS:
            row = data[str(t)]
            where = f"bid_values[{str(t)!r}]"
            if not isinstance(row, Mapping):
                raise OptionsError(f"{GAME}: {where} must be a JSON object keyed S, C, D, H, NT, not {row!r}")
            _same_keys(where, row, [d.value for d in DENOMINATIONS])
            values: list[int] = []
            for d in DENOMINATIONS:
                value = row[d.value]
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise OptionsError(
                        f"{GAME}: {where}[{d.value!r}] must be a non-negative integer, not {value!r}"
                    )
                values.append(value)
            rows.append(tuple(values))
        return cls(tuple(rows))


def _same_keys(where: str, data: Mapping[Any, Any], expected: list[str]) -> None:
    missing = [k for k in expected if k not in data]
    unknown = sorted(repr(k) for k in data if k not in expected)
    if missing or unknown:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(repr(k) for k in missing))
        if unknown:
            parts.append("unknown " + ", ".join(unknown))
        raise OptionsError(
            f"{GAME}: {where} must have exactly the keys {', '.join(expected)} ({'; '.join(parts)})"
        )


#: The standard table of docs/games.md 3.3 (Ruling in 3.6: the source's own table is missing).
STANDARD_TABLE = BidTable((
    #  S    C    D    H   NT
    (40, 60, 80, 100, 120),      # 6 tricks
    (140, 160, 180, 200, 220),   # 7
    (240, 260, 280, 300, 320),   # 8
    (340, 360, 380, 400, 420),   # 9
    (440, 460, 480, 500, 520),   # 10
))
