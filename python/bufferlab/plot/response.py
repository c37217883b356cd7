"""Conditional response time: mean completion time of transfers binned by size, on log axes
(Braud et al. 2014, Figs. 8-14: download response time against connection size)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ._common import frame, legend_title, series_label, group_label, groups, new_axes, place_legend, series_colors

__all__ = ["response_time", "size_bins"]


def size_bins(sizes: pd.Series, per_decade: int = 5) -> np.ndarray:
    """Logarithmic bin edges covering ``sizes``: ``per_decade`` bins per factor of ten, aligned
    on powers of ten so two runs bin alike."""
    s = pd.to_numeric(sizes, errors="coerce")
    s = s[s > 0]
    if s.empty:
        return np.array([1.0, 10.0])
    lo = math.floor(math.log10(s.min()) * per_decade) / per_decade
    hi = math.ceil(math.log10(s.max()) * per_decade) / per_decade
    if hi <= lo:
        hi = lo + 1.0 / per_decade
    n = round((hi - lo) * per_decade)
    return 10.0 ** (lo + np.arange(n + 1) / per_decade)


def response_time(
    transfers: pd.DataFrame,
    *,
    by: Sequence[str] = (),
    size: str = "size_bytes",
    time: str = "completion_time_s",
    per_decade: int = 5,
    edges: Sequence[float] | None = None,
    min_count: int = 1,
    ax: Any = None,
) -> tuple[Figure, pd.DataFrame]:
    """Mean ``time`` of the transfers in each log-spaced size bin, one line per ``by`` group,
    both axes logarithmic. Transfers that did not finish (no completion time) are counted in
    ``unfinished`` and left out of the mean, since their response time is unknown.

    Returns the figure and the plotted data: (``by``..., size_lo, size_hi, size (mean size in
    the bin), n, unfinished, mean_s, median_s), bins with fewer than ``min_count`` finished
    transfers left out.
    """
    by = list(by)
    df = frame(transfers, "response_time", "transfers").copy()
    df[size] = pd.to_numeric(df[size], errors="coerce")
    df[time] = pd.to_numeric(df[time], errors="coerce")
    e = np.asarray(edges, dtype=float) if edges is not None else size_bins(df[size], per_decade)
    df["_bin"] = pd.cut(df[size], e, right=False, labels=False)
    df = df[df["_bin"].notna()]
    rows = []
    for key, g in groups(df, by):
        key = key if isinstance(key, tuple) else (key,)
        for b, cell in g.groupby("_bin", sort=True):
            done = cell[cell[time].notna()]
            if len(done) < min_count or len(done) == 0:
                continue
            b = int(b)
            rows.append({
                **dict(zip(by, key)),
                "size_lo": e[b], "size_hi": e[b + 1], "size": float(done[size].mean()),
                "n": len(done), "unfinished": len(cell) - len(done),
                "mean_s": float(done[time].mean()), "median_s": float(done[time].median()),
            })
    data = pd.DataFrame(rows, columns=by + ["size_lo", "size_hi", "size", "n", "unfinished", "mean_s", "median_s"])
    fig, ax = new_axes(ax)
    keyed = list(groups(data, by))
    for (key, g), color in zip(keyed, series_colors(max(1, len(keyed)))):
        ax.plot(g["size"], g["mean_s"], marker="o", ms=3, lw=1.2, color=color, label=series_label(by, key) or None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("transfer size (bytes)")
    ax.set_ylabel("mean response time (s)")
    if by:
        place_legend(ax, title=legend_title(by))
    return fig, data
