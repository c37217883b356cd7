"""A run's output folder (``bufferlab run FILE --out DIR``) as report sections: the run, its
flows, queues and links, its time series and its distributions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..plot._common import label, natural_key
from ..results import Result
from . import figures
from .page import Page, table

__all__ = ["run_sections"]

# The time series in the order a reader looks for them; others follow by name.
ORDER = [("queue", "qlen_pkts"), ("queue", "qlen_bytes"), ("link", "throughput_bps"), ("link", "utilization"),
         ("flow", "goodput_bps"), ("flow", "cwnd_bytes"), ("flow", "srtt_s"), ("flow", "rtt_s")]

FLOW_COLUMNS = [("id", "flow"), ("kind", "kind"), ("group", "group"), ("src", "from"), ("dst", "to"),
                ("goodput_mbps", "goodput (Mb/s)"), ("rtt_mean_ms", "RTT mean (ms)"), ("rtt_p99_ms", "RTT p99 (ms)"),
                ("loss_rate", "loss rate"), ("retransmits", "retransmits")]
QUEUE_COLUMNS = [("link", "queue"), ("discipline", "discipline"), ("limit", "limit"),
                 ("sojourn_mean_ms", "sojourn mean (ms)"), ("sojourn_p99_ms", "sojourn p99 (ms)"),
                 ("occupancy_mean_pkts", "mean occupancy (pkt)"), ("enqueued", "enqueued"), ("dropped", "dropped")]
LINK_COLUMNS = [("link", "link"), ("rate_mbps", "rate (Mb/s)"), ("delay_ms", "delay (ms)"),
                ("utilization", "utilization"), ("bytes_sent", "bytes sent")]


def _ms(v: Any) -> float | None:
    return None if v is None else float(v) * 1e3


def _flow_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for f in summary.get("flows", []):
        probe = f.get("kind") == "ping"  # a probe's echoes carry no data, and it never retransmits
        out.append({**f, "goodput_mbps": None if probe else f.get("goodput_bps", 0.0) / 1e6,
                    "retransmits": None if probe or f.get("kind") == "udp" else f.get("retransmits"),
                    "rtt_mean_ms": _ms(f.get("rtt_mean_s")), "rtt_p99_ms": _ms(f.get("rtt_p99_s"))})
    return out


def _queue_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for q in summary.get("queues", []):
        limit = f"{q['limit_pkts']} pkt" if q.get("limit_pkts") else (f"{q['limit_bytes']} B" if q.get("limit_bytes") else "")
        out.append({**q, "limit": limit, "sojourn_mean_ms": _ms(q.get("sojourn_mean_s")),
                    "sojourn_p99_ms": _ms(q.get("sojourn_p99_s"))})
    return out


def _link_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**lk, "rate_mbps": lk.get("rate_bps", 0) / 1e6, "delay_ms": _ms(lk.get("delay_s"))}
            for lk in summary.get("links", [])]


def _ordered(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    known = [p for p in ORDER if p in pairs]
    return known + sorted((p for p in pairs if p not in ORDER), key=lambda p: (p[0], natural_key(p[1])))


def _left_out(n: int) -> str:
    return f"(the first {figures.MAX_SERIES} series in natural order; {n} more are in the tables)"


def run_sections(page: Page, result: Result, name: str) -> None:
    s = result.summary
    run = s.get("run", {})
    eng = s.get("engine", {})
    over = page.section(f"Run {name}")
    window = run.get("measure_s") or [0, run.get("duration_s")]
    over.text(
        f"{run.get('duration_s', 0):g} s simulated, seed {run.get('seed')}, statistics over "
        f"[{window[0]:g} s, {window[1]:g} s]; "
        + (f"time series every {run['sample_s']:g} s; " if run.get("sample_s") else "no time series (run.sample unset); ")
        + f"engine {eng.get('version', '?')}, {eng.get('events', 0):,} events."
    )
    flows = _flow_rows(s)
    cols = FLOW_COLUMNS if any(f.get("group") for f in flows) else [c for c in FLOW_COLUMNS if c[0] != "group"]
    over.heading("Flows")
    over.raw(table(flows, cols))
    over.heading("Queues")
    over.raw(table(_queue_rows(s), QUEUE_COLUMNS))
    over.heading("Links")
    over.raw(table(_link_rows(s), LINK_COLUMNS))

    ts = result.timeseries
    if len(ts):
        pairs = _ordered(sorted({(str(o), str(m)) for o, m in zip(ts["object"], ts["metric"])}))
        _figures(page, page.section("Time series"), ts, pairs, figures.lines, "{obj}s: {what}")
    dist = result.distributions
    if len(dist):
        sec = page.section("Distributions")
        sec.text("Empirical CDFs from the engine's histograms, over the statistics window.", "note")
        pairs = sorted({(str(o), str(m)) for o, m in zip(dist["object"], dist["metric"])})
        _figures(page, sec, dist, pairs, figures.cdfs, "{obj}s: CDF of {what}")


def _figures(page: Page, sec: Any, table_: Any, pairs: list[tuple[str, str]], draw: Any, title: str) -> None:
    """One figure per (object, metric) of a long table, drawn by ``draw``."""
    for obj, metric in pairs:
        data = table_[(table_["object"] == obj) & (table_["metric"] == metric)]
        fig, dropped = draw(data, metric, title=title.format(obj=obj, what=label(metric)))
        sec.raw(f'<div class="figure">{page.figure(fig)}</div>')
        if dropped:
            sec.text(_left_out(dropped), "note")


def is_run(path: Path) -> bool:
    return (path / "summary.json").is_file()
