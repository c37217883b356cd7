"""The hosts' measurements folded into the engine's summary: per-flow goodput, RTT (TCP_INFO
samples, echo replies), retransmissions and completion times, in the same rows a simulation
fills. Loss, packets sent and throughput are the engine's own counts (it sees every packet)."""

from __future__ import annotations

from typing import Any

from .plan import KernelPlan


DISTRIBUTION_COLUMNS = ("object", "id", "metric", "value", "cdf")


def _rtt(row: dict[str, Any], rtts_ns: list[int], dists: dict[str, list[Any]] | None) -> None:
    """The flow's RTT fields and its ``rtt_s`` CDF rows from the hosts' samples, binned in the
    simulator's own histogram (``metrics/hist.rs``), so both backends' tables and percentiles
    have the same buckets."""
    from ..simulate import engine

    mean, p50, p99, values, cdf = engine().kernel_rtt_distribution([max(0, int(v)) for v in rtts_ns])
    row["rtt_samples"] = len(rtts_ns)
    row["rtt_mean_s"], row["rtt_p50_s"], row["rtt_p99_s"] = mean, p50, p99
    if dists is not None:
        for col in DISTRIBUTION_COLUMNS:
            dists.setdefault(col, [])
        for v, c in zip(values, cdf):
            for col, x in zip(DISTRIBUTION_COLUMNS, ("flow", row["id"], "rtt_s", v, c)):
                dists[col].append(x)


def _in_window_count(steps: list[list[int]], a_ns: float, b_ns: float) -> int:
    """From (time, running total) steps, how much the total grew inside ``[a, b)``."""
    before = lambda t: max((v for u, v in steps if u < t), default=0)  # noqa: E731
    return before(b_ns) - before(a_ns)


def _timeouts(report: dict[str, Any], a: float, b: float) -> int | None:
    """RTO expiries in the window, from the sender's tcpi_total_rto steps (None when the kernel's
    TCP_INFO lacks the field: Linux before 6.7)."""
    steps = report.get("rto_at")
    return None if steps is None else _in_window_count(steps, a * 1e9, b * 1e9)


def merge(
    summary: dict[str, Any], kp: KernelPlan, reports: list[dict[str, Any]], distributions: dict[str, list[Any]] | None = None
) -> list[dict[str, Any]]:
    """Fold the reports into ``summary`` (and the flows' RTT CDFs into ``distributions``, the
    engine's columns); returns the transfers (web and on/off) as rows."""
    transfers: list[dict[str, Any]] = []
    a, b = summary["run"]["measure_s"]
    window_s = max(b - a, 1e-9)
    in_window = lambda t_ns: a <= t_ns / 1e9 < b  # noqa: E731
    by_flow: dict[int, dict[str, dict[str, Any]]] = {}
    for r in reports:
        by_flow.setdefault(r["flow"], {})[r["role"]] = r
    errors = []
    for f in kp.flows:
        row = summary["flows"][f.index]
        got = by_flow.get(f.index, {})
        for r in got.values():
            if r.get("error"):
                errors.append(f"{row['id']} ({r['role']}): {r['error']}")
        if f.kind == "tcp":
            sink, src = got.get("tcp_sink", {}), got.get("tcp_source", {})
            row["goodput_bps"] = sink.get("window_bytes", 0) * 8 / window_s
            row["bytes_delivered"] = sink.get("window_bytes", 0)
            _rtt(row, [s[1] for s in src.get("samples", []) if in_window(s[0])], distributions)
            row["retransmits"] = _in_window_count(src.get("retrans_at", []), a * 1e9, b * 1e9)
            row["timeouts"] = _timeouts(src, a, b)
            if sink.get("reads_by_segments"):  # how late the receiving application read (run.py)
                summary.setdefault("kernel_read_backlog", {})[row["id"]] = {
                    "reads_by_segments": sink["reads_by_segments"], "read_max_bytes": sink.get("read_max_bytes", 0),
                    "reads_after_reordering": sink.get("reads_after_reordering", 0)}
            if src.get("start_ns") is not None:
                row["start_s"] = src["start_ns"] / 1e9
                if f.size is not None and sink.get("total_bytes") == f.size and sink.get("last_ns") is not None:
                    row["completion_time_s"] = (sink["last_ns"] - src["start_ns"]) / 1e9
        elif f.kind in ("web", "tcp_onoff"):
            server, client = got.get("tcp_server", {}), got.get("tcp_client", {})
            row["goodput_bps"] = client.get("window_bytes", 0) * 8 / window_s
            row["bytes_delivered"] = client.get("window_bytes", 0)
            _rtt(row, [s[1] for s in server.get("samples", []) if in_window(s[0])], distributions)
            row["retransmits"] = _in_window_count(server.get("retrans_at", []), a * 1e9, b * 1e9)
            row["timeouts"] = _timeouts(server, a, b)
            for n, t in enumerate(sorted(client.get("transfers", []), key=lambda t: t["start_ns"]), 1):
                end = t["end_ns"]
                transfers.append({
                    "flow": row["id"], "conn": n, "size_bytes": t["size"], "start_s": t["start_ns"] / 1e9,
                    "end_s": end / 1e9 if end is not None else float("nan"),
                    "completion_time_s": (end - t["start_ns"]) / 1e9 if end is not None else float("nan"),
                })
        elif f.kind in ("udp", "ballast"):
            sink = got.get("udp_sink", {})
            row["goodput_bps"] = sink.get("window_bytes", 0) * 8 / window_s
            row["bytes_delivered"] = sink.get("window_bytes", 0)
            n = sink.get("owd_n", 0)
            row["owd_mean_s"] = sink["owd_sum_ns"] / n / 1e9 if n else None
            if f.kind == "ballast":
                tool = got.get("ballast", {})
                summary.setdefault("kernel_ballast", {})[row["id"]] = {
                    "tool_sent": tool.get("sent", 0), "tool_pps": tool.get("pps"), "received": sink.get("packets", 0),
                    "last_arrival_s": sink["last_ns"] / 1e9 if sink.get("last_ns") is not None else None,
                    "ttls": sink.get("ttls", {}), "decisions": [list(d) for d in tool.get("decisions", [])],
                    "argv": tool.get("argv"),
                }
        elif f.kind == "ping":
            p = got.get("ping", {})
            _rtt(row, [r[1] for r in p.get("rtts", []) if in_window(r[0])], distributions)
    if errors:
        summary.setdefault("kernel_errors", errors)
    return transfers


def fix_timeseries(ts: dict[str, list[Any]], kp: KernelPlan, reports: list[dict[str, Any]], sample_ns: int | None) -> None:
    """The flows' time series from the hosts (the engine's rows for queues and links stay):
    goodput over each step from the receivers' byte counts, cwnd and srtt from the last TCP_INFO
    sample at or before each row's time."""
    if not sample_ns or not ts.get("time_s"):
        return
    flow_ids = {}
    bins: dict[int, dict[int, int]] = {}
    samples: dict[int, list[tuple[int, int, int]]] = {}
    for r in reports:
        if "bins" in r:
            b = bins.setdefault(r["flow"], {})
            for k, v in r["bins"].items():
                b[int(k)] = b.get(int(k), 0) + v
        if r.get("samples"):
            samples.setdefault(r["flow"], []).extend(tuple(x) for x in r["samples"])
    for f in kp.flows:
        flow_ids[f.index] = f
        samples.get(f.index, []).sort()
    ids = {}
    step_s = sample_ns / 1e9
    for i, (obj, metric) in enumerate(zip(ts["object"], ts["metric"])):
        if obj != "flow":
            continue
        ident = ts["id"][i]
        if ident not in ids:
            ids[ident] = next((f.index for f in kp.flows if _row_id(f, kp) == ident), None)
        k = ids[ident]
        if k is None:
            continue
        t_ns = round(ts["time_s"][i] * 1e9)
        if metric == "goodput_bps":
            # Rows at time t report the step before it, as the engine's do.
            n = bins.get(k, {}).get(t_ns // sample_ns - 1, 0) if t_ns >= sample_ns else 0
            ts["value"][i] = n * 8 / step_s
        elif metric in ("cwnd_bytes", "srtt_s"):
            last = None
            for s in samples.get(k, []):
                if s[0] > t_ns:
                    break
                last = s
            if last is None:
                ts["value"][i] = float("nan")
            else:
                ts["value"][i] = last[2] if metric == "cwnd_bytes" else last[1] / 1e9


def _row_id(f: Any, kp: KernelPlan) -> str:
    """The flows table's id of flow ``f``: its kind and its number among flows of that kind."""
    n = sum(1 for g in kp.flows[: f.index + 1] if g.kind == f.kind)
    return f"{f.kind}-{n}"
