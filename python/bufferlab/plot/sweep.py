"""A metric against a swept parameter, one line per group, with confidence bands over seeds
(seed 003's Figs. 2-6: a metric against the buffer size or the number of flows, per rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from ..sweep.stats import aggregate
from ._common import group_label, groups, label, new_axes, to_numbers, value_label

__all__ = ["metric_vs_param"]


def metric_vs_param(
    df: pd.DataFrame,
    x: str,
    y: str,
    *,
    group: Sequence[str] = (),
    level: float = 0.95,
    reduce: str = "mean",
    logx: bool = False,
    logy: bool = False,
    ax: Any = None,
) -> tuple[Figure, pd.DataFrame]:
    """Mean of ``y`` over seeds against ``x``, one line per ``group``, with a Student-t band at
    ``level``. Rows of one seed in one cell (several flows, say) are first combined with
    ``reduce``. ``x`` values with units ("20pkt", "10Mbps") are placed by their number.

    Returns the figure and the plotted data: :func:`bufferlab.aggregate`'s columns plus ``x``
    (the number on the axis), sorted by group and ``x``.
    """
    group = list(group)
    agg = aggregate(df, by=group + [x], metrics=[y], level=level, reduce=reduce)
    nums = to_numbers(agg[x].tolist())
    if nums is None:
        agg.insert(len(group) + 1, "x", range(len(agg)))
        categories = True
        unit = ""
    else:
        agg.insert(len(group) + 1, "x", nums[0])
        categories, unit = False, nums[1]
    agg = agg.sort_values(group + ["x"], kind="stable").reset_index(drop=True)
    if categories:
        order = {v: i for i, v in enumerate(dict.fromkeys(agg[x]))}
        agg["x"] = agg[x].map(order).astype(float)
    fig, ax = new_axes(ax)
    for key, g in groups(agg, group):
        line = ax.plot(g["x"], g[f"{y}_mean"], marker="o", ms=3, lw=1.5, label=group_label(group, key) or None)[0]
        if g[f"{y}_ci"].notna().any():
            ax.fill_between(g["x"], g[f"{y}_lo"], g[f"{y}_hi"], color=line.get_color(), alpha=0.2, lw=0)
    short = x.split(".")[-1]
    ax.set_xlabel(f"{short} ({unit})" if unit else short)
    ax.set_ylabel(label(y))
    if categories:
        ticks = dict.fromkeys(agg[x])
        ax.set_xticks(range(len(ticks)), [value_label(v) for v in ticks], rotation=20)
    if logx and not categories:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if group:
        ax.legend(fontsize="small")
    return fig, agg
