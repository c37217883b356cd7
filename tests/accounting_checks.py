"""The identities every run's summary must satisfy, inside and outside a `measure` window
(docs/measurement.md): shared by the property tests over generated and mutated scenarios."""

from __future__ import annotations

from typing import Any

EPS = 1e-9


def assert_books_balance(summary: dict[str, Any], plan: dict[str, Any] | None = None) -> None:
    c = summary["conservation"]
    assert c["created"] == c["delivered"] + c["dropped"] + c["queued"] + c["in_flight"], c
    start, end = summary["run"]["measure_s"]
    window = end - start
    whole = start == 0 and end == summary["run"]["duration_s"]
    for f in summary["flows"]:
        assert f["pkts_dropped"] <= f["pkts_sent"], f
        assert 0.0 <= f["loss_rate"] <= 1.0, f
        assert f["goodput_bps"] <= f["throughput_bps"] * (1 + 1e-12) + EPS, f
    links = {ln["link"]: ln for ln in summary["links"]}
    dropped = 0
    for q in summary["queues"]:
        lost = q["drops_by_reason"].get("loss", 0)
        assert q["enqueued"] <= q["arrivals"], q
        assert q["dropped"] - lost <= q["arrivals"], q
        assert sum(q["drops_by_reason"].values()) == q["dropped"], q
        assert lost <= links[q["link"]]["pkts_sent"], q
        dropped += q["dropped"]
    if whole:
        assert dropped == c["dropped"], (dropped, c)
    for ln in summary["links"]:
        assert ln["utilization"] <= 1 + EPS, ln
        # What a link sent in the window fits in it (a packet started just before its end may
        # finish after: one packet of slack).
        assert ln["wire_bytes_sent"] * 8 <= ln["rate_bps"] * window + 8 * 65535, ln
    if plan is not None:
        _check_goodput_against_path(summary, plan, window)


def _check_goodput_against_path(summary: dict[str, Any], plan: dict[str, Any], window: float) -> None:
    """Goodput counts bytes that crossed every link of their path inside the window, so it is at
    most the slowest link's rate. Routes: fewest hops (as the engine), checked only where the
    route is unique enough not to matter: the bound uses the slowest link on any shortest path."""
    from collections import deque

    rate: dict[tuple[str, str], int] = {}
    adj: dict[str, list[str]] = {}
    for ln in plan["links"]:
        a, b = ln["a"], ln["b"]
        rate[(a, b)] = ln["forward"]["rate_bps"]
        rate[(b, a)] = ln["reverse"]["rate_bps"]
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    for f in summary["flows"]:
        # Largest rate bottleneck over all shortest paths: a bound that holds whichever one the
        # engine picked.
        dist = {f["src"]: 0}
        best = {f["src"]: float("inf")}
        todo = deque([f["src"]])
        while todo:
            u = todo.popleft()
            for v in adj.get(u, []):
                cand = min(best[u], rate[(u, v)])
                if v not in dist:
                    dist[v] = dist[u] + 1
                    best[v] = cand
                    todo.append(v)
                elif dist[v] == dist[u] + 1:
                    best[v] = max(best[v], cand)
        if f["dst"] in best:
            assert f["bytes_delivered"] * 8 <= best[f["dst"]] * window * (1 + 1e-9), f
