"""Both simulators' summaries side by side, over seeds.

``records`` is the long form, one row per (seed, object, id, metric) with bufferlab's and ns-3's
values; ``summarize`` gives, per (object, id, metric), each side's mean and standard deviation
over the seeds, the relative difference of the means, and the per-seed values.
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .runner import Pair

__all__ = ["ALL", "METRICS", "records", "summarize", "rel_diff", "write_out"]

METRICS: dict[str, tuple[str, ...]] = {
    # duplicates: ns-3 only (segments resent although the receiver held them), as context.
    "flow": ("goodput_bps", "rtt_mean_s", "rtt_p50_s", "rtt_p99_s", "retransmits", "timeouts", "duplicates"),
    "queue": ("sojourn_mean_s", "sojourn_p99_s", "occupancy_mean_pkts", "dropped", "enqueued"),
    "link": ("utilization",),
}
ALL = "all flows"
_TABLE = {"flow": ("flows", "id"), "queue": ("queues", "link"), "link": ("links", "link")}


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) and x is not None and math.isfinite(float(x)) else math.nan


def records(pairs: Iterable[Pair]) -> list[dict[str, Any]]:
    out = []
    for p in pairs:
        for obj, metrics in METRICS.items():
            table, key = _TABLE[obj]
            ns = {row[key]: row for row in p.ns3.get(table, [])}
            for row in p.bufferlab.get(table, []):
                other = ns.get(row[key], {})
                for m in metrics:
                    if m not in row and m not in other:
                        continue
                    out.append({
                        "seed": p.seed, "object": obj, "id": row[key], "metric": m,
                        "bufferlab": _num(row.get(m)), "ns3": _num(other.get(m)),
                    })
        # The aggregate: every flow's goodput together.
        out.append({
            "seed": p.seed, "object": "flow", "id": ALL, "metric": "goodput_bps",
            "bufferlab": sum(_num(f.get("goodput_bps")) for f in p.bufferlab.get("flows", [])),
            "ns3": sum(_num(f.get("goodput_bps")) for f in p.ns3.get("flows", [])),
        })
    return out


def rel_diff(a: float, b: float) -> float:
    """(a - b) / |b|: bufferlab relative to ns-3; 0 when both are 0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if b == 0:
        return 0.0 if a == 0 else math.inf
    return (a - b) / abs(b)


def _stats(values: list[float]) -> tuple[float, float]:
    v = [x for x in values if not math.isnan(x)]
    if not v:
        return math.nan, math.nan
    return statistics.fmean(v), statistics.stdev(v) if len(v) > 1 else 0.0


def summarize(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in recs:
        groups.setdefault((r["object"], r["id"], r["metric"]), []).append(r)
    out = []
    for (obj, oid, metric), rows in groups.items():
        rows.sort(key=lambda r: r["seed"])
        bl = [r["bufferlab"] for r in rows]
        ns = [r["ns3"] for r in rows]
        bm, bs = _stats(bl)
        nm, nsd = _stats(ns)
        out.append({
            "object": obj, "id": oid, "metric": metric, "seeds": len(rows),
            "bufferlab_mean": bm, "bufferlab_sd": bs, "ns3_mean": nm, "ns3_sd": nsd,
            "rel_diff": rel_diff(bm, nm),
            "bufferlab_values": json.dumps(bl), "ns3_values": json.dumps(ns),
        })
    return out


def write_out(out: Path, pairs: list[Pair], recs: list[dict[str, Any]], summary: list[dict[str, Any]], meta: dict[str, Any]) -> Path:
    """``out/`` with ``crosscheck.json`` and Parquet tables (records, summary, runs), written in a
    fresh folder and renamed into place, as ``bufferlab run --out`` does."""
    import pandas as pd

    from ..results import _swap_into_place, _write_text

    out = Path(out).absolute()
    if out.exists() and not (out.is_dir() and ((out / "crosscheck.json").is_file() or not any(out.iterdir()))):
        raise FileExistsError(f"{out} exists and is not a crosscheck result directory (no crosscheck.json); choose another output directory")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.part-", dir=out.parent))
    try:
        _write_text(tmp / "crosscheck.json", json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
        pd.DataFrame.from_records(recs).to_parquet(tmp / "records.parquet", index=False)
        pd.DataFrame.from_records(summary).to_parquet(tmp / "summary.parquet", index=False)
        runs = [{"seed": p.seed, "bufferlab_wall_s": p.bufferlab_wall_s, "ns3_wall_s": p.ns3_wall_s} for p in pairs]
        pd.DataFrame.from_records(runs).to_parquet(tmp / "runs.parquet", index=False)
        _swap_into_place(tmp, out)
    except BaseException:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out

