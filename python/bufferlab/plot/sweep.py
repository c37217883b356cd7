"""A metric against a swept parameter, one line per group, with confidence bands over seeds
(Gorinsky et al. 2005, Figs. 2-6: a metric against the buffer size or the number of flows, per
rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..sweep.stats import aggregate
from ._common import (
    _order,
    axis,
    bounds,
    colorbar_for,
    groups,
    legend_title,
    log_axis,
    new_axes,
    place_legend,
    series_colors,
    series_label,
    to_numbers,
    value_label,
)

__all__ = ["metric_vs_param"]

# More numeric groups than this get one colour map and a colour bar instead of a legend.
COLORBAR_FROM = 9


def _interval_text(level: float, agg: pd.DataFrame, y: str) -> str:
    n = agg[f"{y}_n"]
    seeds = f"{int(n.min())}" if n.min() == n.max() else f"{int(n.min())}-{int(n.max())}"
    return f"{level:.0%} CI of the mean (Student t, {seeds} seeds)"


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
    ``reduce``. ``x`` values with units ("20pkt", "10Mbps") are placed by their number; values
    that are not quantities (a queue spec) are categories, drawn as points with error bars side
    by side rather than joined by lines. The band is labelled and stops at what ``y`` can be
    (no negative delays, no loss rate above 1); rates are drawn in Mb/s.

    Returns the figure and the plotted data: :func:`bufferlab.aggregate`'s columns (``_lo`` and
    ``_hi`` clipped to those bounds, in the table's units) plus ``x`` (the position on the axis),
    sorted by group and ``x``.
    """
    group = list(group)
    agg = aggregate(df, by=group + [x], metrics=[y], level=level, reduce=reduce)
    lo_bound, hi_bound = bounds(y)
    for c in (f"{y}_lo", f"{y}_hi", f"{y}_mean"):
        agg[c] = agg[c].clip(lower=lo_bound, upper=hi_bound)
    nums = to_numbers(agg[x].tolist())
    categories = nums is None
    if categories:
        order = sorted(dict.fromkeys(agg[x]), key=_order)
        position = {v: float(i) for i, v in enumerate(order)}
        agg.insert(len(group) + 1, "x", agg[x].map(position))
        unit = ""
    else:
        agg.insert(len(group) + 1, "x", nums[0])
        unit = nums[1]
    keyed = sorted(groups(agg, group), key=lambda kv: _order(kv[0])) if group else [((), agg)]
    agg = pd.concat([g.sort_values("x", kind="stable") for _, g in keyed]).reset_index(drop=True)
    keyed = list(groups(agg, group)) if group else [((), agg)]

    fig, ax = new_axes(ax)
    f, ylabel = axis(y, agg[f"{y}_hi"].fillna(agg[f"{y}_mean"]))
    n = len(keyed)
    numeric_groups = len(group) == 1 and to_numbers([k[0] if isinstance(k, tuple) else k for k, _ in keyed])
    use_bar = n >= COLORBAR_FROM and bool(numeric_groups)
    if use_bar:
        colors = colorbar_for(ax, numeric_groups[0], group[0], numeric_groups[1])
    else:
        colors = series_colors(max(n, 1))
    width = min(0.8 / max(n, 1), 0.2)
    title = None if use_bar else legend_title(group)
    has_band = agg[f"{y}_ci"].notna().any()
    for i, ((key, g), color) in enumerate(zip(keyed, colors)):
        name = None if use_bar else (series_label(group, key) or None)
        mean = g[f"{y}_mean"] * f
        if categories:
            dx = (i - (n - 1) / 2) * width
            err = [(g[f"{y}_mean"] - g[f"{y}_lo"]) * f, (g[f"{y}_hi"] - g[f"{y}_mean"]) * f] if has_band else None
            ax.errorbar(g["x"] + dx, mean, yerr=err, fmt="o", ms=4, capsize=3, lw=1.2, color=color, label=name)
        else:
            ax.plot(g["x"], mean, marker="o", ms=3, lw=1.5, color=color, label=name)
            if g[f"{y}_ci"].notna().any():
                ax.fill_between(g["x"], g[f"{y}_lo"] * f, g[f"{y}_hi"] * f, color=color, alpha=0.2, lw=0)
    extra = []
    if has_band:
        text = _interval_text(level, agg, y)
        extra.append(Line2D([], [], color="0.4", marker="|", ms=10, ls="none", label=f"bars: {text}") if categories
                     else Patch(facecolor="0.5", alpha=0.3, label=f"band: {text}"))
    short = x.split(".")[-1]
    ax.set_xlabel(f"{short} ({unit})" if unit else short)
    ax.set_ylabel(ylabel)
    if categories:
        ticks = sorted(dict.fromkeys(agg[x]), key=_order)
        ax.set_xticks(range(len(ticks)), [value_label(v) for v in ticks], rotation=20 if len(ticks) > 3 else 0)
        ax.set_xlim(-0.5, len(ticks) - 0.5)
    if logx and not categories:
        log_axis(ax, "x")
    if logy:
        log_axis(ax, "y")
    elif lo_bound == 0.0:
        # From zero, with the autoscale's margin above the data over the whole span (the margin
        # taken over the data's own span alone leaves curves near their top on the frame).
        ax.update_datalim([(ax.get_xlim()[0], 0.0)])
        ax.autoscale_view(scalex=False)
        ax.set_ylim(bottom=0.0)
    place_legend(ax, title=title, extra=extra)
    return fig, agg
