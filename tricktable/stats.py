"""The 95% intervals the ladder, the tournament reports and the viewer print: one home for each.

Three kinds of quantity, three functions:

- :func:`mean_interval`: the mean of an unbounded quantity (a points
  difference). Student's t with ``n - 1`` degrees of freedom,
  ``mean +- t(n-1) * sd / sqrt(n)``: with few samples (2, 3, 5) the normal
  1.96 is far too narrow, while t is right at every count for a roughly
  normal quantity and tends to 1.96 as ``n`` grows (1.97 at 200).
- :func:`share_interval`: the mean of a share held in [0, 1] and measured
  finely (the ladder's share of the points). Student's t as above, cut to
  [0, 1]; when every sample is the same the samples' spread says nothing
  (t would give an interval of no width), so the Wilson interval below.
- :func:`score_interval`: the mean of a score per pair built from wins (1),
  draws (0.5) and losses (0), as a tournament's paired results and the
  ladder's share of the games won. With fewer than :data:`SMALL_SAMPLE`
  samples, or samples that all agree, it is the Wilson score interval of the
  mean taken as a proportion of ``n`` trials, ``n`` the number of samples
  (pairs, deck sets); from :data:`SMALL_SAMPLE` samples on, t on the
  samples' own spread (cut to [0, 1]).

Why Wilson for a score at small ``n``: a score in [0, 1] with mean ``m`` has a
variance of at most ``m (1 - m)`` (a pure win-or-loss score's), so the
interval that assumes that variance holds whatever the draws and the pairing
do, has width at every ``n`` and never leaves [0, 1]. Student's t instead
estimates the variance from the samples, and with few of them, or a mean
near 0 or 1, that estimate is often zero or far too small: two deck sets in
which A won every game give a t interval of ``[1, 1]``. Simulated, with deck
sets of two games and a true mean of 0.84 or 0.95, the 95% t interval held
the mean in 18-84% of runs of 2 to 5 deck sets and 64-97% of runs of 10 to
20, Wilson's in 97% or more at every count. Once the samples are many, t is the better figure:
duplicate decks make a pair's score vary less than a coin's, and t (unlike
Wilson) sees that (at 50 deck sets and a true mean of 0.5 its interval is a
third narrower). Near 0 or 1 it still falls short at that size (88% at a true
0.95).

With fewer than two samples there is no interval at all: the result says
"too few" (:attr:`Interval.too_few`) and callers print that instead of a
range. Pure standard library, so that every package can import it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: Two-sided 95% critical values of Student's t for 1..30 degrees of freedom.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
#: The two-sided 95% normal quantile (the t values tend to it; Wilson's ``z``).
Z95 = 1.959963984540054
#: Below this many samples a score's interval is Wilson's, not t's (see the module's docstring).
SMALL_SAMPLE = 30

#: :attr:`Interval.method` values.
STUDENT_T = "t"
WILSON = "wilson"
TOO_FEW = "too few"


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


def wilson(proportion: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion observed over ``n`` trials (``n >= 1``).

    ``(p + z^2/2n +- z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n)``: the proportions
    the observed one is within ``z`` standard errors of, each judged by its own standard error.
    It has width even at ``p = 0`` or ``p = 1`` and never leaves [0, 1].
    """
    if n < 1:
        raise ValueError("a Wilson interval needs at least one trial")
    if not 0.0 <= proportion <= 1.0:
        raise ValueError(f"a proportion is in [0, 1], not {proportion}")
    z2 = z * z
    centre = (proportion + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(proportion * (1 - proportion) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean with its 95% interval and how that interval was found.

    With fewer than two samples ``method`` is :data:`TOO_FEW`, and ``low`` and
    ``high`` are the mean: there is no interval to print.
    """

    mean: float
    low: float
    high: float
    n: int
    method: str

    @property
    def too_few(self) -> bool:
        """Fewer than two samples: no interval."""
        return self.method == TOO_FEW


def _too_few(samples: Sequence[float], empty: float) -> Interval:
    mean = statistics.fmean(samples) if samples else empty
    return Interval(mean, mean, mean, len(samples), TOO_FEW)


def _spread(samples: Sequence[float]) -> bool:
    return max(samples) > min(samples)


def mean_interval(samples: Sequence[float]) -> Interval:
    """The mean of an unbounded quantity and its 95% t interval; too few below two samples."""
    if len(samples) < 2:
        return _too_few(samples, 0.0)
    mean = statistics.fmean(samples)
    half = t95(len(samples) - 1) * statistics.stdev(samples) / math.sqrt(len(samples))
    return Interval(mean, mean - half, mean + half, len(samples), STUDENT_T)


#: How far outside [0, 1] a share may fall by rounding.
_ROUNDING = 1e-9


def _bounded(samples: Sequence[float]) -> None:
    if any(not -_ROUNDING <= s <= 1.0 + _ROUNDING for s in samples):
        raise ValueError(f"a share or a score is in [0, 1], not {min(samples)}..{max(samples)}")


def _wilson_of(samples: Sequence[float]) -> Interval:
    mean = statistics.fmean(samples)
    low, high = wilson(min(1.0, max(0.0, mean)), len(samples))
    return Interval(mean, low, high, len(samples), WILSON)


def _t_in_unit(samples: Sequence[float]) -> Interval:
    t = mean_interval(samples)
    return Interval(t.mean, max(0.0, t.low), min(1.0, t.high), t.n, STUDENT_T)


def share_interval(samples: Sequence[float]) -> Interval:
    """The mean of a finely measured share in [0, 1]: t cut to [0, 1], Wilson when every sample is the same."""
    _bounded(samples)
    if len(samples) < 2:
        return _too_few(samples, 0.5)
    return _t_in_unit(samples) if _spread(samples) else _wilson_of(samples)


def score_interval(samples: Sequence[float]) -> Interval:
    """The mean of a win/draw/loss score per pair: Wilson below :data:`SMALL_SAMPLE` or when all agree, else t."""
    _bounded(samples)
    if len(samples) < 2:
        return _too_few(samples, 0.5)
    if len(samples) < SMALL_SAMPLE or not _spread(samples):
        return _wilson_of(samples)
    return _t_in_unit(samples)


__all__ = ["SMALL_SAMPLE", "STUDENT_T", "TOO_FEW", "WILSON", "Z95", "Interval", "mean_interval",
           "score_interval", "share_interval", "t95", "wilson"]
