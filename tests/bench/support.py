"""What the benchmarks' smoke tests may say of a measured figure: that it was recorded, never how large it is.

Why: a time, a rate or a share of a core depends on the machine and its
load (a coarse clock can even read zero), so speed is judged in ``make
bench``, never here.
"""

from __future__ import annotations

import math


def recorded(figure: object) -> bool:
    """``figure`` is a measured number (a finite int or float, not None and not a bool): recorded, not judged."""
    return isinstance(figure, int | float) and not isinstance(figure, bool) and math.isfinite(figure)
