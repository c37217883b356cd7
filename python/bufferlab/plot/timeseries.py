"""A metric over time from a run's time series (queue length, cwnd, RTT, rates)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from ._common import axis, frame, group_label, groups, new_axes, place_legend, series_colors

__all__ = ["timeseries"]


def timeseries(
    ts: pd.DataFrame,
    metric: str,
    *,
    ids: Sequence[str] | None = None,
    object: str | None = None,
    by: Sequence[str] = (),
    ax: Any = None,
) -> tuple[Figure, pd.DataFrame]:
    """One line per object id (and per combination of ``by`` columns, e.g. ``["seed"]``) of
    ``metric`` against time, from a long time series (time_s, object, id, metric, value).

    Returns the figure and the plotted rows (``by``..., id, time_s, value), sorted by time.
    """
    ts = frame(ts, "timeseries", "timeseries")
    known = sorted(ts["metric"].unique()) if len(ts) else []
    if metric not in known:
        raise ValueError(f"no time series of {metric!r}; this one has {', '.join(known) or 'none (set run.sample)'}")
    sel = ts[ts["metric"] == metric]
    if object is not None:
        sel = sel[sel["object"] == object]
    if ids is not None:
        missing = sorted(set(ids) - set(sel["id"]))
        if missing:
            raise ValueError(f"no {metric} for {', '.join(missing)}; ids: {', '.join(sorted(set(sel['id'])))}")
        sel = sel[sel["id"].isin(list(ids))]
    by = list(by)
    data = sel[by + ["id", "time_s", "value"]].sort_values(by + ["id", "time_s"], kind="stable")
    data = data.reset_index(drop=True)
    fig, ax = new_axes(ax, (7.0, 3.5))
    f, ylabel = axis(metric, data["value"])
    keyed = list(groups(data, by + ["id"]))
    for (key, g), color in zip(keyed, series_colors(max(1, len(keyed)))):
        key = key if isinstance(key, tuple) else (key,)
        name = group_label(by, key[:-1])
        ax.plot(g["time_s"], g["value"] * f, lw=1.0, color=color, label=f"{key[-1]}" + (f" ({name})" if name else ""))
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    if data["id"].nunique() > 1 or by:
        place_legend(ax)
    return fig, data
