"""A sweep's results folder as report sections: what was swept, and each metric's mean over
seeds against each swept value with its 95% Student-t interval (``bufferlab.aggregate``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..plot._common import natural_key, to_numbers, value_label
from ..store import Tables, load, manifest
from ..sweep.stats import aggregate
from . import figures
from .page import Page, table

__all__ = ["sweep_sections"]

LEVEL = 0.95
# (table, column, how one run's rows combine, what the figure says)
METRICS = [
    ("flows", "goodput_bps", "sum", "total goodput of the run's flows"),
    ("flows", "rtt_mean_s", "mean", "mean RTT over the run's flows"),
    ("flows", "loss_rate", "mean", "mean loss rate over the run's flows"),
    ("queues", "sojourn_mean_s", "mean", "mean sojourn time in the busiest queue"),
    ("queues", "occupancy_mean_pkts", "mean", "mean occupancy of the busiest queue"),
    ("queues", "dropped", "mean", "drops at the busiest queue"),
]


def _busiest(queues: pd.DataFrame) -> str | None:
    """The queue that holds the most bytes on average over the sweep (its bottleneck)."""
    if queues.empty or "occupancy_mean_bytes" not in queues.columns:
        return None
    by = queues.groupby("link")["occupancy_mean_bytes"].mean()
    return str(by.idxmax()) if len(by) else None


def _xs(t: Tables) -> list[str]:
    """The swept keys to put on the x axis: each whose values are quantities or numbers, else the
    first."""
    numeric = [k for k in t.swept if to_numbers(t.points[k].dropna().unique().tolist()) is not None]
    return numeric or t.swept[:1]


def sweep_sections(page: Page, root: Path) -> None:
    t = load(root)
    m = manifest(root)
    pts = t.points
    over = page.section(f"Sweep {m.get('name') or root.name}")
    status = pts["status"].value_counts().to_dict() if "status" in pts.columns else {}
    over.text(
        f"{pts['point_id'].nunique()} points x {pts['seed'].nunique()} seeds = {len(pts)} runs "
        f"({status.get('done', 0)} done, {status.get('failed', 0)} failed); swept: "
        f"{', '.join(t.swept) or 'nothing'}; engine {m.get('engine_version', '?')}. Every figure shows the mean over "
        f"seeds and its {LEVEL:.0%} Student-t confidence interval."
    )
    rows = sorted(pts.to_dict("records"),
                  key=lambda r: (*(natural_key(value_label(r.get(k))) for k in t.swept), r.get("seed", 0)))
    over.raw(table([{**r, **{k: value_label(r.get(k)) for k in t.swept}} for r in rows],
                   [("point_id", "point"), ("seed", "seed"), *((k, k) for k in t.swept), ("status", "status"),
                    ("wall_seconds", "wall (s)")], limit=200))
    done = pts[pts["status"] == "done"] if "status" in pts.columns else pts
    if done.empty or not t.swept:
        return
    link = _busiest(t.queues)
    for x in _xs(t):
        group = [k for k in t.swept if k != x]
        sec = page.section(f"Against {x}")
        for name, col, reduce, what in METRICS:
            df = t.with_params(name)
            if col not in df.columns or df.empty:
                continue
            if name == "queues":
                if link is None:
                    continue
                df = df[df["link"] == link]
                what = what.replace("the busiest queue", link)
            df = df.assign(**{k: df[k].map(_key) for k in group})
            agg = aggregate(df, by=group + [x], metrics=[col], level=LEVEL, reduce=reduce)
            fig = figures.means(agg, x, col, group, title=what[0].upper() + what[1:], level=LEVEL)
            sec.raw(f'<div class="figure">{page.figure(fig)}</div>')


def _key(v: Any) -> Any:
    """A grouping value that groups (a table stored as JSON text stays text)."""
    return value_label(v) if isinstance(v, (dict, list)) else v


def is_sweep(path: Path) -> bool:
    return (path / "parts").is_dir()
