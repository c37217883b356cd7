"""Mean and 95% confidence interval over seeds (Student's t, from scipy).

Each seed is one independent replication of a chaotic system, so a claim's sample is one value
per seed and the interval is mean ± t(0.975, n − 1) · s / √n, s the sample standard deviation.
One seed has no interval (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st


@dataclass(frozen=True)
class Estimate:
    mean: float
    lo: float
    hi: float
    n: int

    @property
    def half(self) -> float:
        return (self.hi - self.lo) / 2


def estimate(samples: Iterable[float], level: float = 0.95) -> Estimate:
    """The mean of ``samples`` (NaNs dropped) and its Student-t interval at ``level``."""
    x = np.asarray([float(v) for v in samples], dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, math.nan, math.nan, 1)
    sd = float(x.std(ddof=1))
    half = float(_st.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)
