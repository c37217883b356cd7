"""`bufferlab compare`: the same scenario on the simulator and on the kernel, side by side. The
queues are the same code on both sides; what differs is the TCP (the simulator's model vs the
kernel's), the hosts, and the wall clock's error."""

from __future__ import annotations

from statistics import mean
from typing import Any

from rich.console import Console
from rich.table import Table

# timeouts: RTO expiries (the kernel's from TCP_INFO's tcpi_total_rto, Linux >= 6.7).
# start_s: the simulator's bulk flows start when the kernel's did (kernel/paired.py); the row shows it.
FLOW_METRICS = ("start_s", "goodput_bps", "rtt_mean_s", "rtt_p50_s", "rtt_p99_s", "retransmits", "timeouts")
# Percentiles read off each run's RTT CDF (the distributions table), beside the summary's.
RTT_CDF_QUANTILES = (0.1, 0.9)
QUEUE_METRICS = ("sojourn_mean_s", "occupancy_mean_pkts", "dropped")
LINK_METRICS = ("utilization",)


def _mean(values: list[Any]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return mean(xs) if xs else None


# Below these both sides count as idle: a queue that holds nothing, a link barely used.
_IDLE = {"sojourn_mean_s": 1e-6, "occupancy_mean_pkts": 1e-3, "utilization": 0.01}


def _idle(metric: str, v: float | None) -> bool:
    return v is None or abs(v) < _IDLE.get(metric, 1e-12)


def cdf_quantile(result: Any, flow_id: str, q: float) -> float | None:
    """The smallest RTT whose CDF reaches ``q`` in a run's ``rtt_s`` distribution of a flow."""
    d = result.distributions
    if not len(d):
        return None
    d = d[(d["object"] == "flow") & (d["id"] == flow_id) & (d["metric"] == "rtt_s") & (d["cdf"] >= q)]
    return float(d["value"].min()) if len(d) else None


# The kernel's TCP RTTs are TCP_INFO's smoothed RTT (tcpi_rtt) read every 10 ms; the simulator's
# runs sample their own SRTT at this step, so that its RTT quantiles read the same probe.
SRTT_STEP = "10ms"


def srtt_quantile(result: Any, flow_id: str, q: float) -> float | None:
    """The ``q``-quantile of a flow's smoothed RTT as the run sampled it (its ``srtt_s`` time
    series) over the measurement window; None when the run has no such series (pings, a run
    without ``run.sample``, the kernel's runs)."""
    import numpy as np

    ts = getattr(result, "timeseries", None)
    if ts is None or not len(ts):
        return None
    a, b = result.summary["run"]["measure_s"]
    v = ts[(ts["metric"] == "srtt_s") & (ts["id"] == flow_id) & (ts["time_s"] >= a) & (ts["time_s"] < b) & (ts["value"] > 0)]["value"]
    return float(np.quantile(v.to_numpy(), q)) if len(v) else None


def _sim_rtt(result: Any, flow_id: str, q: float, otherwise: Any) -> Any:
    """A simulator run's RTT quantile by the kernel's probe where it has one, else ``otherwise``."""
    s = srtt_quantile(result, flow_id, q)
    return otherwise if s is None else s


def compare_results(sims: list[Any], kernels: list[Any]) -> list[dict[str, Any]]:
    """One row per (table, id, metric): the simulator's and the kernel's means over the runs, the
    kernel's relative difference from the simulator, and each side's per-run values
    (``sim_values``, ``kernel_values``; None where a run lacks the metric). Flows with RTTs also
    get percentiles of their RTT distribution (``rtt_p10_s``, ``rtt_p90_s``, from the CDF tables).
    A TCP flow's RTT quantiles on the simulator side are its smoothed RTT's where the run sampled
    it (``SRTT_STEP``), as the kernel's are; otherwise every sample's."""
    rows = []
    for f in sims[0].summary["flows"]:
        for q in RTT_CDF_QUANTILES:
            sv = [_sim_rtt(r, f["id"], q, cdf_quantile(r, f["id"], q)) for r in sims]
            kv = [cdf_quantile(r, f["id"], q) for r in kernels]
            s, k = _mean(sv), _mean(kv)
            if s is None and k is None:
                continue
            rel = (k - s) / abs(s) if s not in (None, 0.0) and k is not None else None
            rows.append({"table": "distributions", "id": f["id"], "metric": f"rtt_p{round(100 * q)}_s", "sim": s, "kernel": k, "rel_diff": rel,
                         "sim_values": sv, "kernel_values": kv})
    for table, key, metrics in (("flows", "id", FLOW_METRICS), ("queues", "link", QUEUE_METRICS), ("links", "link", LINK_METRICS)):
        ids = [r[key] for r in sims[0].summary[table]]
        for i, ident in enumerate(ids):
            for m in metrics:
                sv = [r.summary[table][i].get(m) for r in sims]
                if table == "flows" and m in ("rtt_p50_s", "rtt_p99_s"):
                    q = 0.5 if m == "rtt_p50_s" else 0.99
                    sv = [_sim_rtt(r, ident, q, v) for r, v in zip(sims, sv)]
                kv = [r.summary[table][i].get(m) for r in kernels]
                s, k = _mean(sv), _mean(kv)
                if _idle(m, s) and _idle(m, k):
                    continue  # an idle direction (ACK paths, access links): nothing to compare
                rel = (k - s) / abs(s) if s not in (None, 0.0) and k is not None else None
                rows.append({"table": table, "id": ident, "metric": m, "sim": s, "kernel": k, "rel_diff": rel,
                             "sim_values": sv, "kernel_values": kv})
    return rows


def _fmt(metric: str, v: float | None) -> str:
    from ..units import format_rate_bps, format_time_ns

    if v is None:
        return "-"
    if metric.endswith("_bps"):
        return format_rate_bps(v)
    if metric.endswith("_s"):
        return format_time_ns(v * 1e9)
    if metric == "utilization":
        return f"{100 * v:.1f}%"
    return f"{v:.3g}"


def comparison_json(rows: list[dict[str, Any]]) -> str:
    """One JSON record per row and line: table, id, metric, sim and kernel means, rel_diff, and
    each side's per-run values."""
    import json

    keys = ("table", "id", "metric", "sim", "kernel", "rel_diff", "sim_values", "kernel_values")
    return "".join(json.dumps({k: r.get(k) for k in keys}) + "\n" for r in rows)


def print_comparison(rows: list[dict[str, Any]], console: Console, title: str) -> None:
    t = Table(title=title, title_justify="left")
    for c, j in (("table", "left"), ("id", "left"), ("metric", "left"), ("simulator", "right"), ("kernel", "right"), ("difference", "right")):
        t.add_column(c, justify=j, no_wrap=True)
    for r in rows:
        rel = "-" if r["rel_diff"] is None else f"{100 * r['rel_diff']:+.1f}%"
        t.add_row(r["table"], str(r["id"]), r["metric"], _fmt(r["metric"], r["sim"]), _fmt(r["metric"], r["kernel"]), rel)
    console.print(t)
