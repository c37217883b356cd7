"""Empirical CDFs (RTT, sojourn time, throughput) averaged over seeds, with the spread between
seeds at each percentile as error bars, as in Cardozo et al.'s Figs. 5-6 (ten experiments, the
SEM of each percentile)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from matplotlib.lines import Line2D

from ._common import axis, frame, groups, legend_title, log_axis, new_axes, place_legend, series_colors, series_label

__all__ = ["cdf", "quantile_curves"]


def _quantiles(g: pd.DataFrame, value: str, cdf_col: str | None, p: np.ndarray) -> np.ndarray:
    if cdf_col is None:
        x = pd.to_numeric(g[value], errors="coerce").dropna().to_numpy(dtype=float)
        return np.quantile(x, p) if len(x) else np.full(len(p), np.nan)
    # A CDF given as (value, cdf) points, e.g. the engine's histogram CDFs: invert it by
    # interpolation between its points.
    g = g.sort_values([cdf_col, value], kind="stable")
    c = g[cdf_col].to_numpy(dtype=float)
    v = g[value].to_numpy(dtype=float)
    if len(c) == 0:
        return np.full(len(p), np.nan)
    c, first = np.unique(c, return_index=True)
    return np.interp(p, c, v[first])


# The columns that tell a run's CDFs apart (the `distributions` table's).
CURVE_KEYS = ("metric", "object", "id")


def _one_curve_each(data: pd.DataFrame, keys: list[str]) -> None:
    """CDF points of several curves in one group would be inverted as one: refused, naming the
    column that tells them apart."""
    for col in CURVE_KEYS:
        if col in data.columns and col not in keys:
            many = data.groupby(keys, dropna=False)[col].nunique() if keys else pd.Series([data[col].nunique()])
            if (many > 1).any():
                seen = sorted(data[col].dropna().unique(), key=str)
                values = ", ".join(map(str, seen[:6])) + (", ..." if len(seen) > 6 else "")
                raise ValueError(f"the CDF points hold several curves in one group ({col}: {values}): "
                                 f"select one (data[data[{col!r}] == ...]) or add {col!r} to by")


def quantile_curves(
    data: pd.DataFrame,
    *,
    value: str = "value",
    cdf_col: str | None = None,
    by: Sequence[str] = (),
    replicate: Sequence[str] = ("seed",),
    points: int = 101,
) -> pd.DataFrame:
    """Per group of ``by``: the value at each percentile, averaged over replicates (one curve
    per distinct ``replicate`` columns, the seed by default), with its standard error of the
    mean (NaN with one replicate). Input is samples (a ``value`` column) or CDF points (``value``
    and ``cdf_col``); with CDF points, ``by`` + ``replicate`` must pick out single curves."""
    p = np.linspace(0.0, 1.0, points)
    by = list(by)
    data = frame(data, "cdf", "distributions")
    if cdf_col is not None:
        _one_curve_each(data, by + [c for c in replicate if c in data.columns])
    rows = []
    for key, g in groups(data, by):
        key = key if isinstance(key, tuple) else (key,)
        reps = [c for c in replicate if c in g.columns]
        per_seed = (
            [_quantiles(s, value, cdf_col, p) for _, s in g.groupby(reps, sort=True)]
            if reps
            else [_quantiles(g, value, cdf_col, p)]
        )
        q = np.vstack(per_seed)
        n = np.sum(~np.isnan(q), axis=0)
        mean = np.full(len(p), np.nan)
        sem = np.full(len(p), np.nan)
        for i in range(len(p)):
            col = q[:, i][~np.isnan(q[:, i])]
            if len(col):
                mean[i] = col.mean()
            if len(col) > 1:
                sem[i] = col.std(ddof=1) / np.sqrt(len(col))
        for i in range(len(p)):
            rows.append({**dict(zip(by, key)), "percentile": p[i], "value": mean[i], "sem": sem[i], "seeds": int(n[i])})
    return pd.DataFrame(rows)


def cdf(
    data: pd.DataFrame,
    *,
    value: str = "value",
    cdf_col: str | None = None,
    by: Sequence[str] = (),
    replicate: Sequence[str] = ("seed",),
    metric: str | None = None,
    points: int = 101,
    errorbars: int = 10,
    logx: bool = False,
    logy: bool = False,
    ax: Any = None,
) -> tuple[Figure, pd.DataFrame]:
    """One CDF per group of ``by``; with several seeds (``replicate``), the mean over seeds of
    each percentile and an error bar of ± one SEM every ``100/errorbars`` percent.

    ``data`` holds samples in ``value`` (e.g. time-series throughput samples) or CDF points in
    ``value`` and ``cdf_col`` (e.g. the ``distributions`` table: ``cdf_col="cdf"``). Returns the
    figure and the plotted curve: (``by``..., percentile, value, sem, seeds), ``seeds``
    counting the replicates averaged. Rates are drawn in Mb/s (the data stays in b/s). ``logx``
    leaves out values at or below zero (a log axis has no place for them), ``logy`` the 0th
    percentile.
    """
    curves = quantile_curves(data, value=value, cdf_col=cdf_col, by=by, replicate=replicate, points=points)
    fig, ax = new_axes(ax)
    by = list(by)
    f, xlabel = axis(metric or value, curves["value"]) if metric else (1.0, value)
    step = max(1, (points - 1) // max(1, errorbars))
    keyed = list(groups(curves, by))
    for (key, g), color in zip(keyed, series_colors(max(1, len(keyed)))):
        shown = g[g["value"].notna()]
        if logx:
            shown = shown[shown["value"] > 0]
        if logy:
            shown = shown[shown["percentile"] > 0]
        if shown.empty:
            continue
        ax.plot(shown["value"] * f, shown["percentile"], lw=1.5, color=color, label=series_label(by, key) or None)
        marks = shown.iloc[::step]
        marks = marks[marks["sem"].notna()]
        if len(marks):
            ax.errorbar(marks["value"] * f, marks["percentile"], xerr=marks["sem"] * f, fmt="none",
                        ecolor=color, capsize=2, lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("CDF")
    if logy:
        log_axis(ax, "y")
        ax.set_ylim(top=1.0)
    else:
        ax.set_ylim(0.0, 1.0)
    if logx:
        log_axis(ax, "x")
    extra = []
    if curves["sem"].notna().any():
        n = curves.loc[curves["sem"].notna(), "seeds"]
        seeds = f"{int(n.min())}" if n.min() == n.max() else f"{int(n.min())}-{int(n.max())}"
        extra.append(Line2D([], [], color="0.4", marker="|", ms=10, ls="none",
                            label=f"bars: ± 1 SEM of the percentile ({seeds} seeds)"))
    if by or extra:
        place_legend(ax, title=legend_title(by), extra=extra)
    return fig, curves
