"""The report's interactive figures (Plotly): lines over time, CDFs, means over a swept value
with their confidence interval, and a reproduction's plotted numbers. Units and axis labels are
the static plots' (``bufferlab.plot``): rates in Mb/s, short times in ms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..plot._common import axis, natural_key, to_numbers, value_label
from .page import COLORS

__all__ = ["lines", "cdfs", "means", "plotted"]

# More series than this in one figure: the first ones, in natural order, and a note.
MAX_SERIES = 40


def _go():
    import plotly.graph_objects as go

    return go


def _rgba(color: str, alpha: float) -> str:
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def lines(data: pd.DataFrame, metric: str, *, x: str = "time_s", xlabel: str = "time (s)", title: str = "") -> tuple[Any, int]:
    """One line per ``id`` of ``metric`` (rows: id, x, value); returns the figure and how many
    series were left out."""
    go = _go()
    f, ylabel = axis(metric, data["value"])
    ids = sorted(data["id"].unique(), key=natural_key)
    fig = go.Figure()
    for i, fid in enumerate(ids[:MAX_SERIES]):
        g = data[data["id"] == fid].sort_values(x)
        fig.add_trace(go.Scatter(x=g[x], y=g["value"] * f, mode="lines", name=str(fid),
                                   line=dict(width=1.2, color=COLORS[i % len(COLORS)])))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=ylabel, showlegend=len(ids) > 1)
    return fig, max(0, len(ids) - MAX_SERIES)


def cdfs(data: pd.DataFrame, metric: str, *, title: str = "") -> tuple[Any, int]:
    """One empirical CDF per ``id`` (rows: id, value, cdf, as the distributions table)."""
    go = _go()
    f, xlabel = axis(metric, data["value"])
    ids = sorted(data["id"].unique(), key=natural_key)
    fig = go.Figure()
    for i, fid in enumerate(ids[:MAX_SERIES]):
        g = data[data["id"] == fid].sort_values(["cdf", "value"])
        fig.add_trace(go.Scatter(x=g["value"] * f, y=g["cdf"], mode="lines", name=str(fid), line_shape="hv",
                                 line=dict(width=1.4, color=COLORS[i % len(COLORS)])))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title="CDF", yaxis_range=[0, 1.02],
                      showlegend=len(ids) > 1)
    return fig, max(0, len(ids) - MAX_SERIES)


def _log(xs: Sequence[float]) -> bool:
    v = [x for x in xs if x is not None and math.isfinite(x)]
    return bool(v) and min(v) > 0 and max(v) / min(v) >= 100


def _band_traces(go: Any, fig: Any, x: list[Any], mean: list[float], lo: list[float], hi: list[float],
                 name: str, color: str, categorical: bool, shift: float = 0.0) -> None:
    if categorical:
        err = [max(m - l, 0.0) if not (math.isnan(m) or math.isnan(l)) else 0.0 for m, l in zip(mean, lo)]
        errp = [max(h - m, 0.0) if not (math.isnan(m) or math.isnan(h)) else 0.0 for m, h in zip(mean, hi)]
        fig.add_trace(go.Scatter(x=x, y=mean, mode="markers", name=name, marker=dict(color=color, size=8),
                                 error_y=dict(type="data", symmetric=False, array=errp, arrayminus=err, color=color)))
        return
    fig.add_trace(go.Scatter(x=x, y=mean, mode="lines+markers", name=name, line=dict(color=color, width=1.8),
                             marker=dict(size=5, color=color), legendgroup=name))
    ok = [i for i in range(len(x)) if not (math.isnan(lo[i]) or math.isnan(hi[i]))]
    if ok:
        xs = [x[i] for i in ok]
        fig.add_trace(go.Scatter(x=xs + xs[::-1], y=[hi[i] for i in ok] + [lo[i] for i in ok][::-1], fill="toself", mode="lines",
                                 fillcolor=_rgba(color, 0.18), line=dict(width=0), hoverinfo="skip",
                                 name=f"{name} 95% CI", legendgroup=name, showlegend=False))


def means(agg: pd.DataFrame, x: str, y: str, group: Sequence[str], *, title: str = "", level: float = 0.95,
          name: str | None = None) -> Any:
    """Mean of ``y`` against ``x`` per group of ``group`` with its interval (the ``aggregate``
    columns ``y_mean``, ``y_lo``, ``y_hi``): lines with a band for numeric ``x`` ("20pkt" placed at
    20), points with error bars for categories."""
    go = _go()
    f, ylabel = axis(y, agg[f"{y}_hi"].fillna(agg[f"{y}_mean"]))
    nums = to_numbers(agg[x].tolist())
    categorical = nums is None
    agg = agg.copy()
    agg["_x"] = [value_label(v) for v in agg[x]] if categorical else nums[0]
    fig = go.Figure()
    keys = sorted(dict.fromkeys(agg[list(group)].itertuples(index=False, name=None)),
                  key=lambda k: natural_key(str(k))) if group else [()]
    for i, key in enumerate(keys[:MAX_SERIES]):
        key = key if isinstance(key, tuple) else (key,)
        g = agg
        for c, v in zip(group, key):
            g = g[g[c].isna()] if isinstance(v, float) and math.isnan(v) else g[g[c] == v]
        g = g.sort_values("_x") if not categorical else g
        series = ", ".join(f"{c.split('.')[-1]}={value_label(v)}" for c, v in zip(group, key)) or name or y
        col = lambda s: [float(v) * f for v in g[f"{y}_{s}"]]  # noqa: E731
        _band_traces(go, fig, g["_x"].tolist(), col("mean"), col("lo"), col("hi"), series, COLORS[i % len(COLORS)],
                     categorical)
    xlabel = x.split(".")[-1] + (f" ({nums[1]})" if nums and nums[1] else "")
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=f"{ylabel}, mean and {level:.0%} CI",
                      showlegend=bool(group))
    if not categorical and _log(nums[0]):
        fig.update_xaxes(type="log")
    return fig


# ---------------------------------------------------------------- a reproduction's plotted.csv

_FACETS = ("quantity", "panel", "figure")


def go_scatter(x: Any, y: Any, name: str) -> Any:
    """A reference curve: dashed, grey."""
    return _go().Scatter(x=list(x), y=list(y), mode="lines", name=name, line=dict(color="#555", dash="dash", width=1.2))


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def plotted(df: pd.DataFrame) -> list[tuple[str, Any]]:
    """Interactive figures of a reproduction's plotted numbers (``plotted.csv``), when they have
    a shape the report knows: means with intervals (``mean``, ``lo``, ``hi``, or ``p_mean``... for
    a prefix ``p_``) against the first column, CDFs (``value``, ``cdf``), or a time series
    (``time_s``, ``value``); one figure per value of a ``quantity``/``panel``/``figure`` column.
    Returns (title, figure) pairs; none for another shape (the static figure then stands alone)."""
    cols = list(df.columns)
    if not cols or df.empty:
        return []
    facet = next((c for c in _FACETS if c in cols), None)
    prefixes = [c[: -len("mean")] for c in cols if c.endswith("mean") and f"{c[:-4]}lo" in cols and f"{c[:-4]}hi" in cols]
    out: list[tuple[str, Any]] = []
    facets = [(None, df)] if facet is None else [(v, df[df[facet] == v]) for v in dict.fromkeys(df[facet])]
    if prefixes:
        x = cols[0]
        used = {x, facet, *(p + s for p in prefixes for s in ("mean", "lo", "hi"))}
        used |= {c for c in cols if c.startswith("seeds")}
        for fv, sub in facets:
            # A column that tells series apart at one x is a group (a rule, a CC); a number with
            # one value per x is a curve of its own (a model's prediction), drawn dashed.
            rest = [c for c in cols if c not in used]
            group = [c for c in rest if not _numeric(sub[c]) or sub.groupby(x)[c].nunique().max() > 1]
            curves = [c for c in rest if c not in group and sub[c].nunique() > 1]
            for p in prefixes:
                agg = sub.rename(columns={f"{p}mean": "y_mean", f"{p}lo": "y_lo", f"{p}hi": "y_hi"})
                agg = agg.assign(**{c: agg[c].astype(str) for c in group})
                name = str(fv) if fv is not None else (p.rstrip("_") or "mean")
                fig = means(agg, x, "y", group, title=name, name="ours")
                stem = p.rstrip("_")
                for c in (c for c in curves if not stem or c.startswith(stem)):
                    ref = sub[[x, c]].drop_duplicates(x).sort_values(x)
                    fig.add_trace(go_scatter(ref[x], ref[c], c))
                fig.update_layout(yaxis_title=name, showlegend=True)
                out.append((name, fig))
        return out
    go = _go()
    if {"value", "cdf"} <= set(cols):
        group = [c for c in cols if c not in ("value", "cdf", facet)]
        for fv, sub in facets:
            fig = go.Figure()
            keyed = list(sub.groupby(group, sort=False)) if group else [((), sub)]
            for i, (key, g) in enumerate(keyed[:MAX_SERIES]):
                key = key if isinstance(key, tuple) else (key,)
                g = g.sort_values(["cdf", "value"])
                fig.add_trace(go.Scatter(x=g["value"], y=g["cdf"], mode="lines", line_shape="hv",
                                         name=", ".join(value_label(k) for k in key) or "CDF",
                                         line=dict(color=COLORS[i % len(COLORS)], width=1.4)))
            fig.update_layout(title=str(fv or "CDF"), xaxis_title="value", yaxis_title="CDF", yaxis_range=[0, 1.02])
            out.append((str(fv or "CDF"), fig))
        return out
    if {"time_s", "value"} <= set(cols):
        group = [c for c in cols if c not in ("time_s", "value", facet) and not _numeric(df[c])]
        for fv, sub in facets:
            fig = go.Figure()
            keyed = list(sub.groupby(group, sort=False)) if group else [((), sub)]
            for i, (key, g) in enumerate(keyed[:MAX_SERIES]):
                key = key if isinstance(key, tuple) else (key,)
                fig.add_trace(go.Scatter(x=g["time_s"], y=g["value"], mode="lines",
                                           name=", ".join(value_label(k) for k in key) or "value",
                                           line=dict(color=COLORS[i % len(COLORS)], width=1.2)))
            fig.update_layout(title=str(fv or "over time"), xaxis_title="time (s)", yaxis_title="value")
            out.append((str(fv or "over time"), fig))
    return out
