"""What the plot functions share: figures on the Agg canvas, axis labels from unit suffixes,
saving, and turning swept values with units ("20pkt", "10Mbps") into numbers for an axis.

Figures are made with ``matplotlib.figure.Figure`` and an Agg canvas, not pyplot: no window, no
global figure list, and the caller's backend (a notebook's, say) is left alone.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..scenario import NAMES
from ..units import quantity_value

__all__ = [
    "new_axes", "label", "scale", "axis", "bounds", "save", "to_numbers", "group_label", "groups", "value_label",
    "natural_key", "legend_title", "series_label", "series_colors", "place_legend", "colorbar_for", "log_axis",
    "covers_data", "legend_clear_of_data",
]

_SUFFIX = {
    "_s": "s",
    "_ns": "ns",
    "_bps": "Mb/s",
    "_pps": "pkt/s",
    "_pkts": "packets",
    "_bytes": "bytes",
}

# Values are drawn in the unit of the label: rates in Mb/s (as papers give them), the data
# returned stays in the table's base unit.
_SCALE = {"_bps": 1e-6}

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


def scale(name: str) -> float:
    """The factor from a column's base unit to the unit its axis shows (bps -> Mb/s: 1e-6)."""
    return next((f for suffix, f in _SCALE.items() if name.endswith(suffix)), 1.0)


def axis(name: str, values: Iterable[float]) -> tuple[float, str]:
    """(factor, axis label) for a column: rates in Mb/s; times in ms when they are all below
    half a second (a queueing delay of 0.0042 s reads as 4.2 ms)."""
    text = label(name)
    if name.endswith("_s") and not name.endswith("_bps"):
        finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
        if finite and max(finite) < 0.5:
            return 1e3, text[: -len("(s)")] + "(ms)"
    return scale(name), text


# What a metric can physically be: a confidence band is not drawn past it.
_FRACTIONS = ("loss_rate", "utilization", "cdf", "fairness")
# Times, rates, sizes and counts: the plan's unit suffixes (as the engine declares them) and the
# results' own.
_NONNEGATIVE = ("_s", *NAMES["unit_suffixes"], "dropped", "enqueued", "retransmits", "timeouts", "_sent",
                "_delivered", "_samples", "events", "count")


def bounds(name: str) -> tuple[float, float]:
    """(lowest, highest) values ``name`` can take: [0, 1] for a fraction, [0, inf) for times,
    rates, sizes and counts, unbounded otherwise."""
    base = name.rsplit(".", 1)[-1]
    if base in _FRACTIONS or base.endswith(("_rate", "_fraction", "_ratio")) and not base.endswith("_bps"):
        return 0.0, 1.0
    if base.endswith(_NONNEGATIVE) or base.startswith(("drops_", "pkts_", "bytes_")):
        return 0.0, math.inf
    return -math.inf, math.inf


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
    clear_legends(fig)
    fig.savefig(path, dpi=dpi)
    return path


# A swept quantity's base unit -> (factor, unit shown on an axis).
_AXIS_UNITS = {"s": (1.0, "s"), "bps": (1e-6, "Mb/s"), "pps": (1.0, "pkt/s"), "B": (1.0, "bytes"),
               "pkt": (1.0, "packets"), "": (1.0, "")}


def to_numbers(values: Iterable[Any]) -> tuple[list[float], str] | None:
    """Numbers for an axis from swept values: plain numbers, or quantities all in one unit
    ("20pkt", "50pkt" -> 20, 50, "packets"; rates in Mb/s). None when they are not all such
    (then the values are categories)."""
    out, units = [], set()
    for v in values:
        q = quantity_value(v)
        if q is None:
            return None
        out.append(q[0])
        units.add(q[1])
    units.discard("")
    if len(units) > 1:
        return None
    unit = units.pop() if units else ""
    f, shown = _AXIS_UNITS.get(unit, (1.0, unit))
    return [x * f for x in out], shown


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
    enough (``limit=20pkt``); a table value reads ``queue: discipline=fifo, limit=5pkt``; the
    run folder, a flow or a queue by itself (``tcp-2``, ``r1->r2``)."""
    values = values if isinstance(values, tuple) else (values,)
    parts = []
    for k, v in zip(keys, values):
        short = k.split(".")[-1]
        text = value_label(v)
        if short in ("id", "link", "run", "flow"):
            parts.append(text)
        else:
            parts.append(f"{short}: {text}" if "=" in text else f"{short}={text}")
    return "; ".join(parts) if any(": " in p for p in parts) else ", ".join(parts)


def legend_title(by: Sequence[str]) -> str | None:
    """One swept key names the legend (its entries then read as values); a flow, queue or run
    column, or several keys, do not."""
    if len(by) != 1 or by[0] in ("id", "link", "run", "flow", "seed"):
        return None
    return by[0].split(".")[-1]


def series_label(by: Sequence[str], key: Any) -> str:
    """A legend entry: the value alone under a :func:`legend_title`, else ``key=value`` parts."""
    if legend_title(by) is not None:
        return value_label(key[0] if isinstance(key, tuple) else key)
    return group_label(by, key)


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """Sort key reading digit runs as numbers: tcp-2 before tcp-10, s9->r1 before s10->r1."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in _DIGITS.split(str(text)) if t)


def _order(key: Any) -> tuple:
    """Sort key for a group: quantities by their number ("10pkt" before "100pkt"), then text
    in natural order ("tcp-2" before "tcp-10")."""
    key = key if isinstance(key, tuple) else (key,)
    out = []
    for v in key:
        q = quantity_value(v)
        out.append((0, q[1], q[0], ()) if q is not None else (1, "", 0.0, natural_key(value_label(v))))
    return tuple(out)


def frame(data: Any, function: str, table: str) -> pd.DataFrame:
    """``data`` if it is a DataFrame; else a TypeError naming the table the function draws
    (``plot.cdf(result)`` is an easy slip for ``plot.cdf(result.distributions, …)``)."""
    if isinstance(data, pd.DataFrame):
        return data
    given = type(data).__name__
    raise TypeError(f"plot.{function} takes a DataFrame, not a {given}: pass a run's {table} "
                    f"(bufferlab.Result.{table}) or a sweep's (bufferlab.load(DIR).{table})")


def groups(df: pd.DataFrame, by: Sequence[str]) -> Iterable[tuple[Any, pd.DataFrame]]:
    """The groups of ``by`` in natural order (so legends read 10pkt, 20pkt, 100pkt)."""
    if not by:
        yield (), df
        return
    yield from sorted(df.groupby(list(by), dropna=False, sort=False), key=lambda kv: _order(kv[0]))


def series_colors(n: int) -> list[Any]:
    """``n`` colours, no two alike: the qualitative tab10 / tab20 palettes while they last,
    then evenly spaced along a perceptually ordered map."""
    if n <= 10:
        return list(matplotlib.colormaps["tab10"].colors[:n])
    if n <= 20:
        # tab20 pairs a dark and a light shade: darks first, so neighbours differ most
        c = matplotlib.colormaps["tab20"].colors
        return [c[i] for i in list(range(0, 20, 2)) + list(range(1, 20, 2))][:n]
    cmap = matplotlib.colormaps["turbo"]
    return [cmap(0.05 + 0.9 * i / (n - 1)) for i in range(n)]


# Up to this many entries the legend sits inside the axes; beyond, outside on the right, where it
# hides no curve.
LEGEND_INSIDE = 4
LEGEND_ROWS = 18


def place_legend(ax: Any, title: str | None = None, extra: Sequence[Any] = ()) -> None:
    """A legend that stays readable and off the data: inside for a few series where it covers
    none, else outside the axes on the right (in columns of at most LEGEND_ROWS); nothing when
    no series has a label. ``extra`` handles (a confidence band's entry) come last."""
    handles, labels = ax.get_legend_handles_labels()
    handles = [*handles, *extra]
    labels = [*labels, *(h.get_label() for h in extra)]
    if not labels:
        return
    n = len(labels)
    if n <= LEGEND_INSIDE:
        legend_clear_of_data(ax, handles, labels, fontsize="small", title=title, title_fontsize="small")
        return
    _legend_outside(ax, handles, labels, ncol=math.ceil(n / LEGEND_ROWS), fontsize="x-small", title=title,
                    title_fontsize="small", frameon=False)


def _legend_outside(ax: Any, *args: Any, ncol: int = 1, **kw: Any) -> Any:
    """The legend outside the axes on the right, the figure widened to hold it."""
    kw = {k: v for k, v in kw.items() if k not in ("loc", "bbox_to_anchor", "borderaxespad")}
    leg = ax.legend(*args, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, ncol=ncol, **kw)
    fig = ax.figure
    w, h = fig.get_size_inches()
    fig.set_size_inches(w + 1.6 * ncol, h)
    return leg


def legend_clear_of_data(ax: Any, *args: Any, **kw: Any) -> Any:
    """``ax.legend(...)`` where matplotlib finds the emptiest place (``loc="best"``), moved
    outside the axes on the right if even that place covers a curve, a marker, a bar or a
    label (:func:`covers_data`)."""
    leg = ax.legend(*args, **{**kw, "loc": "best"})
    if covers_data(ax, leg):
        leg.remove()
        leg = _legend_outside(ax, *args, **kw)
    return leg


def _right_of_twins(ax: Any, renderer: Any) -> float:
    """Where, in ``ax``'s axes coordinates, a right-hand y axis drawn at ``ax``'s place (its own
    or a twin's, ``twinx``: ticks and label on the right) ends; 1.0, the frame, without one. A
    legend moved beside the axes goes past it, not over its tick labels."""
    right = 1.0
    for other in ax.figure.axes:
        if other.bbox.bounds == ax.bbox.bounds:
            x1 = other.yaxis.get_tightbbox(renderer)
            if x1 is not None:
                right = max(right, (x1.x1 - ax.bbox.x0) / ax.bbox.width)
    return right


# Points of clearance between a legend's frame and the data (a curve closer than that touches it).
LEGEND_MARGIN_PT = 3.0


def covers_data(ax: Any, legend: Any) -> bool:
    """Whether ``legend`` (of ``ax``) lies over anything drawn in the axes, or in a twin drawn at
    its place (``twinx``): a line or its markers, a filled area or bar, a collection (error
    bars), a text; only what shows inside the axes counts, so a legend outside them covers
    nothing."""
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.transforms import Bbox

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    # A margin of a few points around the frame: a curve that grazes it reads as covered.
    pad = LEGEND_MARGIN_PT * fig.dpi / 72.0
    box = Bbox.intersection(legend.get_window_extent(renderer).expanded(1.0, 1.0).padded(pad),
                            ax.get_window_extent(renderer))
    if box is None or box.width <= 0 or box.height <= 0:
        return False

    def path_hits(path: Any, transform: Any, filled: bool) -> bool:
        return bool(transform.transform_path(path).intersects_bbox(box, filled=filled))

    here = [o for o in fig.axes if o.bbox.bounds == ax.bbox.bounds]
    for line in (line for o in here for line in o.lines):
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(line.get_xydata())
        if line.get_marker() not in (None, "None", "none", "", " ") and any(box.contains(x, y) for x, y in xy):
            return True
        if line.get_linestyle() not in ("None", "none", "", " ") and path_hits(line.get_path(), line.get_transform(), False):
            return True
    for coll in (c for o in here for c in o.collections):
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection):  # scatter: a marker at each offset
            xy = coll.get_offset_transform().transform(coll.get_offsets())
            if any(box.contains(x, y) for x, y in xy):
                return True
            continue
        filled = len(coll.get_facecolor()) > 0 and not isinstance(coll, LineCollection)
        if any(path_hits(p, coll.get_transform(), filled) for p in coll.get_paths()):
            return True
    for patch in (p for o in here for p in o.patches):
        if patch.get_visible() and path_hits(patch.get_path(), patch.get_transform(), True):
            return True
    return any(t.get_visible() and t.get_text() and box.overlaps(t.get_window_extent(renderer))
               for o in here for t in o.texts)


def clear_legends(fig: Any) -> None:
    """Move every legend that lies over data in the figure as it will be drawn outside its axes
    on the right, and widen the figure to hold it. Matplotlib places a legend at ``"best"`` only
    when the figure is drawn, after the layout (constrained, or tight) has made room for what
    came after the legend (a title): a legend checked where it stood when it was made can end up
    over the curves. So the figure is laid out first (without rasterizing: the save draws it),
    and each legend judged where it then is (:func:`covers_data`)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    moved = 0.0
    # Per place in the figure (an axes and its twins share one), where the next legend moved
    # beside it starts, in axes fraction from the top: legends of twins stack, not overlap.
    tops: dict[tuple[float, ...], float] = {}
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None and covers_data(ax, leg):
            place = tuple(ax.bbox.bounds)
            top = tops.get(place, 1.0)
            leg.set_loc("upper left")
            leg.set_bbox_to_anchor((_right_of_twins(ax, renderer) + 0.02, top), transform=ax.transAxes)
            box = leg.get_window_extent(renderer)
            tops[place] = top - box.height / ax.bbox.height - 0.03
            moved = max(moved, box.width / fig.dpi)
    if moved:
        w, h = fig.get_size_inches()
        fig.set_size_inches(w + moved + 0.2, h)
        if not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
            fig.tight_layout()


def log_axis(ax: Any, which: str) -> None:
    """A logarithmic x or y axis whose tick labels stay apart: plain numbers, and over less than
    two decades evenly spaced ticks instead of matplotlib's crowded 2x10^2 2.2x10^2 ..."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    getattr(ax, f"set_{which}scale")("log")
    a = ax.xaxis if which == "x" else ax.yaxis
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.autoscale_view()
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    if lo > 0 and hi / lo < 10:
        a.set_major_locator(MaxNLocator(6))
        a.set_minor_formatter(NullFormatter())
    elif lo > 0 and hi / lo < 1000:
        a.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        a.set_minor_formatter(plain)
    else:
        a.set_minor_formatter(NullFormatter())
    a.set_major_formatter(plain)


def colorbar_for(ax: Any, values: Sequence[float], key: str, unit: str) -> list[Any]:
    """Colours for many numeric series (a swept buffer size, say) from one sequential map, with
    a colour bar for a legend; returns one colour per value, in order."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import LogNorm, Normalize

    lo, hi = min(values), max(values)
    norm = LogNorm(lo, hi) if lo > 0 and hi / lo >= 100 else Normalize(lo, hi if hi > lo else lo + 1)
    cmap = matplotlib.colormaps["viridis"]
    sm = ScalarMappable(norm=norm, cmap=cmap)
    bar = ax.figure.colorbar(sm, ax=ax)
    short = key.split(".")[-1]
    bar.set_label(f"{short} ({unit})" if unit else short)
    return [cmap(norm(v)) for v in values]
