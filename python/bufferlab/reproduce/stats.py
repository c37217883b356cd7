"""Mean and 95% confidence interval over seeds (Student's t, from scipy); ratios of means; modes.

Each seed is one independent replication of a chaotic system, so a claim's sample is one value
per seed and the interval is mean ± t(0.975, n − 1) · s / √n, s the sample standard deviation.
One seed has no interval (NaN).

A paper that ran n experiments and compared two averages reports a ratio of means, not a mean of
per-run ratios; :func:`ratio_of_means` is that statistic, its interval from a seeded bootstrap
over the paired seeds. Where seeds fall into two distinct states (a flow starved in some seeds
and not in others), :func:`modes` says so: the per-seed values split at their widest gap when
that gap is wide against their spacing and the two sides stand apart (Ashman's D).
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


def ratio_of_means(pairs: Iterable[tuple[float, float]], level: float = 0.95, resamples: int = 2000) -> Estimate:
    """mean(num) / mean(den) over the seeds of ``pairs`` (num, den), with a percentile bootstrap
    interval over seeds (resampled in pairs; fixed generator seed, so the page is reproducible)."""
    a = np.asarray([(float(x), float(y)) for x, y in pairs], dtype=float).reshape(-1, 2)
    a = a[np.isfinite(a).all(axis=1)]
    n = len(a)
    if n == 0 or a[:, 1].mean() == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    r = float(a[:, 0].mean() / a[:, 1].mean())
    if n == 1:
        return Estimate(r, math.nan, math.nan, 1)
    idx = np.random.default_rng(0).integers(0, n, size=(resamples, n))
    num, den = a[idx, 0].mean(axis=1), a[idx, 1].mean(axis=1)
    boot = num[den != 0] / den[den != 0]
    q = (1 - level) / 2
    return Estimate(r, float(np.quantile(boot, q)), float(np.quantile(boot, 1 - q)), n)


@dataclass(frozen=True)
class Mode:
    lo: float
    hi: float
    count: int


# Two modes: the widest gap between the sorted per-seed values (each side keeping at least
# MODE_MIN seeds) is at least MODE_GAP times their median spacing, and the sides are apart by
# Ashman's D ≥ 2 (D = √2 |μ1 − μ2| / √(σ1² + σ2²); Ashman, Bird & Zepf 1994: D > 2 for a clean
# separation). Evenly spread values fail the first test, one tail the second.
MODE_GAP = 3.0
MODE_MIN = 2
ASHMAN_D = 2.0
# ...and the two sides' means differ by at least this fraction of the overall mean: states that
# matter to a claim, not a split of values equal to four digits.
MODE_REL = 0.2


def modes(samples: Iterable[float]) -> list[Mode]:
    """The per-seed values as one mode, or two when they split (see MODE_GAP)."""
    x = np.sort(np.asarray([float(v) for v in samples], dtype=float))
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return []
    one = [Mode(float(x[0]), float(x[-1]), len(x))]
    if len(x) < 2 * MODE_MIN:
        return one
    spacing = np.diff(x)
    gaps = spacing[MODE_MIN - 1:len(x) - MODE_MIN]
    k = int(np.argmax(gaps)) + MODE_MIN  # first index of the upper side
    lo, hi = x[:k], x[k:]
    if x[k] - x[k - 1] < MODE_GAP * float(np.median(spacing)):
        return one
    sd = math.sqrt(lo.var(ddof=1) + hi.var(ddof=1))
    if sd > 0 and math.sqrt(2) * (hi.mean() - lo.mean()) / sd < ASHMAN_D:
        return one
    if hi.mean() - lo.mean() < MODE_REL * abs(x.mean()):
        return one
    return [Mode(float(lo[0]), float(lo[-1]), len(lo)), Mode(float(hi[0]), float(hi[-1]), len(hi))]


def describe_modes(ms: list[Mode], fmt: str = "{:.4g}") -> str:
    """'two modes: 7 of 10 seeds in [a, b], 3 in [c, d]' (empty for one mode)."""
    if len(ms) < 2:
        return ""
    n = sum(m.count for m in ms)
    parts = [f"{m.count} of {n} seeds ({m.count / n:.0%}) in [{fmt.format(m.lo)}, {fmt.format(m.hi)}]" for m in ms]
    return "two modes: " + "; ".join(parts)


def resampled_hits(samples: list, runs: int, holds, ratio: bool = False, resamples: int = 2000) -> float:
    """The fraction of ``runs``-run experiments, drawn with replacement from our seeds, whose
    statistic (the mean, or the ratio of means of (num, den) pairs) ``holds``: how often the
    paper's method, its own number of runs, would have met the claim given the distribution our
    seeds show (seeded generator, reproducible)."""
    a = np.asarray(samples, dtype=float)
    if len(a) == 0:
        return math.nan
    idx = np.random.default_rng(1).integers(0, len(a), size=(resamples, runs))
    if ratio:
        stat = a[idx, 0].mean(axis=1) / a[idx, 1].mean(axis=1)
    else:
        stat = a[idx].mean(axis=1)
    return float(np.mean([bool(holds(v)) for v in stat]))
