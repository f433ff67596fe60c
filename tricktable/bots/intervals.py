"""The one 95% confidence interval of a mean used by the ladder and the tournament reports.

Why Student's t and not the normal 1.96: with few duplicate pairs (2, 3,
5) the normal interval is far too narrow (and with one pair it has no width
at all); t with ``n - 1`` degrees of freedom is right at every count and
tends to 1.96 as ``n`` grows (1.97 at 200). With fewer than two samples there
is no interval: callers say "too few pairs".
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

#: Two-sided 95% critical values of Student's t for 1..30 degrees of freedom.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
#: The normal quantile the t values tend to.
Z95 = 1.959963984540054


def t95(degrees: int) -> float:
    """The two-sided 95% critical value of Student's t with ``degrees`` degrees of freedom (>= 1).

    Beyond the table, the Cornish-Fisher expansion around the normal quantile
    (within 0.001 of the exact value from 30 degrees on).
    """
    if degrees < 1:
        raise ValueError("a t interval needs at least one degree of freedom (two samples)")
    if degrees <= len(_T95):
        return _T95[degrees - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * degrees) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * degrees ** 2)


def half_width(samples: Sequence[float]) -> float | None:
    """Half the width of the 95% t interval of the mean of ``samples``; None for fewer than two."""
    n = len(samples)
    if n < 2:
        return None
    return t95(n - 1) * statistics.stdev(samples) / math.sqrt(n)
