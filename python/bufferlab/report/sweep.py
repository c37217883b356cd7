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
    if done.empty:
        return
    if not t.swept:
        _over_seeds(page, t)
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


def _pm(row: dict[str, Any], metric: str, scale: float = 1.0, digits: str = ".4g") -> str | None:
    """``mean ± half-width`` of a metric over seeds, in the table's unit (the half-width left out
    where the seeds did not spread)."""
    from ..seeds import spread

    mean = row.get(f"{metric}_mean")
    if mean is None or pd.isna(mean):
        return None
    text = format(mean * scale, digits)
    if spread(row, metric) > 0:
        text += " ± " + format(row[f"{metric}_ci"] * scale, digits)
    return text


def _over_seeds(page: Page, t: Tables) -> None:
    """A sweep of one point over seeds (``bufferlab run FILE --seeds N --out DIR``): its flows,
    queues and links as means with their intervals, and the busiest queue's length, seed by seed."""
    from ..seeds import FLOW_KEEP, FLOW_METRICS, LINK_KEEP, LINK_METRICS, QUEUE_KEEP, QUEUE_METRICS, over_seeds
    from ..sweep.same_seeds import SAME_SEEDS_ADVICE, same_at_every_seed

    seeds = int(t.points["seed"].nunique())
    sec = page.section("Over seeds")
    sec.text(f"Each figure: the mean over the {seeds} seeds ± the half-width of its {LEVEL:.0%} Student-t interval.",
             "note")
    if same_at_every_seed(t.flows):
        sec.text(f"Every seed gave the same figures: {SAME_SEEDS_ADVICE}.", "fails")
    flows = over_seeds(t.flows, "id", FLOW_METRICS, FLOW_KEEP).to_dict("records")
    sec.heading("Flows")
    sec.raw(table([{**f, "goodput": None if f.get("kind") == "ping" else _pm(f, "goodput_bps", 1e-6),
                    "rtt": _pm(f, "rtt_mean_s", 1e3), "rtt99": _pm(f, "rtt_p99_s", 1e3), "loss": _pm(f, "loss_rate"),
                    "retx": None if f.get("kind") in ("ping", "udp") else _pm(f, "retransmits", digits=".3g")}
                   for f in flows],
                  [("id", "flow"), ("kind", "kind"), ("src", "from"), ("dst", "to"), ("goodput", "goodput (Mb/s)"),
                   ("rtt", "RTT mean (ms)"), ("rtt99", "RTT p99 (ms)"), ("loss", "loss rate"), ("retx", "retransmits")]))
    queues = over_seeds(t.queues, "link", QUEUE_METRICS, QUEUE_KEEP).to_dict("records")
    sec.heading("Queues")
    sec.raw(table([{**q, "sojourn": _pm(q, "sojourn_mean_s", 1e3), "sojourn99": _pm(q, "sojourn_p99_s", 1e3),
                    "occupancy": _pm(q, "occupancy_mean_pkts"), "drops": _pm(q, "dropped", digits=".3g")}
                   for q in queues],
                  [("link", "queue"), ("discipline", "discipline"), ("sojourn", "sojourn mean (ms)"),
                   ("sojourn99", "sojourn p99 (ms)"), ("occupancy", "mean occupancy (pkt)"), ("drops", "dropped")]))
    links = over_seeds(t.links, "link", LINK_METRICS, LINK_KEEP).to_dict("records")
    sec.heading("Links")
    sec.raw(table([{**lk, "rate": lk["rate_bps"] / 1e6 if lk.get("rate_bps") is not None else None,
                    "util": _pm(lk, "utilization")} for lk in links],
                  [("link", "link"), ("rate", "rate (Mb/s)"), ("util", "utilization")]))
    ts = t.timeseries
    link = _busiest(t.queues)
    if link is not None and len(ts):
        q = ts[(ts["object"] == "queue") & (ts["metric"] == "qlen_pkts") & (ts["id"] == link)]
        if len(q):
            q = q.assign(id=q["seed"].map(lambda s: f"seed {s}"))
            fig, dropped = figures.lines(q, "qlen_pkts", title=f"Length of the queue {link}, seed by seed")
            sec.raw(f'<div class="figure">{page.figure(fig)}</div>')
            if dropped:
                sec.text(f"(the first {figures.MAX_SERIES} seeds; {dropped} more are in the folder)", "note")


def _key(v: Any) -> Any:
    """A grouping value that groups (a table stored as JSON text stays text)."""
    return value_label(v) if isinstance(v, (dict, list)) else v


def is_sweep(path: Path) -> bool:
    return (path / "parts").is_dir()
