"""Shared drawing: per-seed values reduced to mean and 95% interval, drawn as error bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..plot._common import clear_legends  # noqa: F401  (the reproductions' figures use it before saving)
from .stats import estimate


def over_seeds(df: pd.DataFrame, by: Sequence[str], value: str) -> pd.DataFrame:
    """One row per group of ``by``: ``mean``, ``lo``, ``hi`` (95% Student-t) and ``seeds`` (the count) of
    ``value`` over seeds (rows of one seed in a group are averaged first)."""
    by = list(by)
    per_seed = df.groupby(by + ["seed"], dropna=False)[value].mean().reset_index()
    rows = []
    for key, g in per_seed.groupby(by, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        e = estimate(g[value])
        rows.append({**dict(zip(by, key)), "mean": e.mean, "lo": e.lo, "hi": e.hi, "seeds": e.n})
    return pd.DataFrame(rows)


def errorbars(ax, agg: pd.DataFrame, x: str, label: str | None = None, **kw) -> None:
    """Mean with its 95% interval (no bar where one seed gives no interval)."""
    agg = agg.sort_values(x)
    lo = (agg["mean"] - agg["lo"]).fillna(0).to_numpy()
    # a positive quantity's interval may reach below zero with few seeds: stop the bar at 1% of
    # the mean so it still shows on a log axis
    m = agg["mean"].to_numpy()
    lo = np.where((m > 0) & (lo >= m), 0.99 * m, lo)
    hi = (agg["hi"] - agg["mean"]).fillna(0).to_numpy()
    ax.errorbar(agg[x].to_numpy(), agg["mean"].to_numpy(), yerr=np.vstack([lo, hi]), capsize=3,
                label=label, **{"marker": "o", "ms": 4, **kw})


def new_figure(ncols: int = 1, nrows: int = 1, w: float = 5.2, h: float = 3.6):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False)
    return fig, axes


def per_seed(df: pd.DataFrame, value: str) -> dict[int, float]:
    """``value`` by seed (mean of the rows of each seed)."""
    return df.groupby("seed")[value].mean().to_dict()


def ratio_by_seed(num: dict[int, float], den: dict[int, float]) -> list[float]:
    """num[s] / den[s] for the seeds both have (paired by seed)."""
    return [num[s] / den[s] for s in sorted(set(num) & set(den)) if den[s]]


def pairs_by_seed(num: dict[int, float], den: dict[int, float]) -> list[tuple[float, float]]:
    """(num[s], den[s]) for the seeds both have: a ratio-of-means claim's sample."""
    return [(num[s], den[s]) for s in sorted(set(num) & set(den))]
