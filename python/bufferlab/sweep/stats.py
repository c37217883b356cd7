"""Mean and Student-t confidence interval over seeds.

Each seed is one independent replication, so the sample for a group is one value per seed; when
a table has several rows per seed (one per flow, say), they are first reduced to one per seed.
The interval is mean ± t(1 - (1 - level)/2, n - 1) · s / √n with s the sample standard deviation
(n - 1 in the denominator); with one seed there is no interval (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
# Student's t from scipy.special, not scipy.stats: the same functions (`t.cdf` and `t.ppf` call
# them), without scipy.stats's second of import time on every command that reads a sweep; and
# imported where used, since running a sweep (which loads this package) needs no t at all.

__all__ = ["aggregate", "t_quantile", "t_cdf"]


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom (scipy)."""
    from scipy.special import stdtr

    return float(stdtr(df, t))


def t_quantile(p: float, df: float) -> float:
    """The t with P(T ≤ t) = p (scipy's inverse CDF)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), not {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


# How the rows of one group and one seed become that seed's value.
REDUCERS = ("mean", "sum", "min", "max", "median")


def aggregate(
    df: pd.DataFrame,
    by: Sequence[str] = (),
    metrics: Sequence[str] = (),
    *,
    level: float = 0.95,
    seed: str = "seed",
    reduce: str = "mean",
) -> pd.DataFrame:
    """One row per group of ``by``: for each metric ``m``, ``m_mean``, ``m_sd``, ``m_n`` (seeds
    with a value), ``m_ci`` (half-width of the ``level`` interval), ``m_lo`` and ``m_hi``.

    Rows sharing a group and a seed are first combined with ``reduce`` (``"mean"``, ``"sum"``,
    ``"min"``, ``"max"``, ``"median"``) so the sample is one value per seed; a table without a
    ``seed`` column takes each row as one sample.
    """
    by = list(by)
    metrics = list(metrics)
    if not metrics:
        raise ValueError("name at least one metric column to aggregate")
    missing = [c for c in by + metrics if c not in df.columns]
    if missing:
        raise KeyError(f"no column {', '.join(map(repr, missing))}; the columns are {list(df.columns)}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), not {level}")
    if reduce not in REDUCERS:
        raise ValueError(f"reduce must be one of {', '.join(map(repr, REDUCERS))}, not {reduce!r}")
    data = df[by + ([seed] if seed in df.columns else []) + metrics].copy()
    for m in metrics:
        data[m] = pd.to_numeric(data[m], errors="coerce").astype("float64")
    if seed in data.columns:
        data = data.groupby(by + [seed], dropna=False, sort=True)[metrics].agg(reduce).reset_index()
    q = 1.0 - (1.0 - level) / 2.0
    rows = []
    groups = data.groupby(by, dropna=False, sort=True) if by else [((), data)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        for m in metrics:
            x = g[m].dropna().to_numpy()
            n = len(x)
            mean = float(np.mean(x)) if n else math.nan
            sd = float(np.std(x, ddof=1)) if n > 1 else math.nan
            half = t_quantile(q, n - 1) * sd / math.sqrt(n) if n > 1 else math.nan
            row.update({f"{m}_mean": mean, f"{m}_sd": sd, f"{m}_n": n, f"{m}_ci": half,
                        f"{m}_lo": mean - half, f"{m}_hi": mean + half})
        rows.append(row)
    return pd.DataFrame(rows)
