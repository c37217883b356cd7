"""What the plot functions share: figures on the Agg canvas, axis labels from unit suffixes,
saving, and turning swept values with units ("20pkt", "10Mbps") into numbers for an axis.

Figures are made with ``matplotlib.figure.Figure`` and an Agg canvas, not pyplot: no window, no
global figure list, and the caller's backend (a notebook's, say) is left alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..units import UnitError, parse_rate, parse_size, parse_time_ns

__all__ = ["new_axes", "label", "save", "to_numbers", "group_label", "groups", "value_label"]

_SUFFIX = {
    "_s": "s",
    "_ns": "ns",
    "_bps": "b/s",
    "_pps": "pkt/s",
    "_pkts": "packets",
    "_bytes": "bytes",
}

_NAMES = {
    "qlen": "queue length",
    "cwnd": "congestion window",
    "srtt": "smoothed RTT",
    "rtt": "RTT",
    "sojourn": "sojourn time",
    "goodput": "goodput",
    "throughput": "throughput",
    "utilization": "utilization",
    "completion_time": "response time",
}


def label(name: str) -> str:
    """``"qlen_pkts"`` -> ``"queue length (packets)"``; other names pass through readably."""
    for suffix, unit in _SUFFIX.items():
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            for k, v in _NAMES.items():
                if stem == k or stem.startswith(k + "_"):
                    stem = v + stem[len(k):].replace("_", " ")
                    break
            else:
                stem = stem.replace("_", " ")
            return f"{stem} ({unit})"
    return _NAMES.get(name, name.replace("_", " "))


def new_axes(ax: Any = None, size: tuple[float, float] = (6.0, 4.0)) -> tuple[Figure, Any]:
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def save(fig: Figure, path: str | Path, dpi: int = 150) -> Path:
    """Write the figure; the format follows the suffix (``.png`` or ``.svg``)."""
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ValueError(f"{path}: write a .png, .svg or .pdf file")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    return path


def _parse_one(v: Any) -> tuple[float, str] | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v), ""
    if not isinstance(v, str):
        return None
    for parse in (_time, _rate, _size):
        try:
            return parse(v)
        except (UnitError, ValueError, TypeError):
            continue
    try:
        return float(v), ""
    except ValueError:
        return None


def _time(v: str) -> tuple[float, str]:
    return parse_time_ns(v) / 1e9, "s"


def _rate(v: str) -> tuple[float, str]:
    r = parse_rate(v)
    return (float(r.bps), "b/s") if r.bps is not None else (float(r.pps), "pkt/s")


def _size(v: str) -> tuple[float, str]:
    s = parse_size(v)
    return (float(s.bytes), "bytes") if s.bytes is not None else (float(s.pkts), "packets")


def to_numbers(values: Iterable[Any]) -> tuple[list[float], str] | None:
    """Numbers for an axis from swept values: plain numbers, or quantities all in one unit
    ("20pkt", "50pkt" -> 20, 50, "packets"). None when they are not all such (then the values
    are categories)."""
    out, units = [], set()
    for v in values:
        p = _parse_one(v)
        if p is None:
            return None
        out.append(p[0])
        units.add(p[1])
    units.discard("")
    if len(units) > 1:
        return None
    return out, (units.pop() if units else "")


def value_label(v: Any) -> str:
    """A swept value for a legend or a tick: a table (stored as JSON text) as ``a=1, b=2``."""
    if isinstance(v, str) and v.startswith(("{", "[")):
        try:
            d = json.loads(v)
        except ValueError:
            return v
        if isinstance(d, dict):
            return ", ".join(f"{a}={b}" for a, b in d.items())
        return ", ".join(map(str, d))
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return str(int(v))
    return str(v)


def group_label(keys: Sequence[str], values: Any) -> str:
    """Legend text for one group: ``key=value`` per key, the last part of a key path being
    enough (``limit=20pkt``); a table value reads ``queue: discipline=fifo, limit=5pkt``."""
    values = values if isinstance(values, tuple) else (values,)
    parts = []
    for k, v in zip(keys, values):
        short = k.split(".")[-1]
        text = value_label(v)
        parts.append(f"{short}: {text}" if "=" in text else f"{short}={text}")
    return "; ".join(parts) if any(": " in p for p in parts) else ", ".join(parts)


def _order(key: Any) -> tuple:
    """Sort key for a group: quantities by their number ("10pkt" before "100pkt"), then text."""
    key = key if isinstance(key, tuple) else (key,)
    out = []
    for v in key:
        p = _parse_one(v)
        out.append((0, p[0], "") if p is not None else (1, 0.0, str(v)))
    return tuple(out)


def groups(df: pd.DataFrame, by: Sequence[str]) -> Iterable[tuple[Any, pd.DataFrame]]:
    """The groups of ``by`` in natural order (so legends read 10pkt, 20pkt, 100pkt)."""
    if not by:
        yield (), df
        return
    yield from sorted(df.groupby(list(by), dropna=False, sort=False), key=lambda kv: _order(kv[0]))

