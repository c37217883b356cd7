"""The tables a run prints (``bufferlab run``, ``bufferlab shell``): flows, queues and links, a
large topology's host ports summed up."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..units import format_bytes, format_rate_bps, format_time_ns

if TYPE_CHECKING:
    from rich.console import Console

    from ..results import Result


def counted(n: int, noun: str) -> str:
    """``1 link``, ``2 links``, ``1,000 nodes``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _f(x: Any, fmt) -> str:
    if x is None:
        return "-"
    try:
        return fmt(x)
    except (TypeError, ValueError):
        return str(x)


def _s(x: Any) -> str:
    return _f(x, lambda v: format_time_ns(float(v) * 1e9))


def _limit(q: dict[str, Any]) -> str:
    if q.get("limit_pkts") is not None:
        limit = f"{q['limit_pkts']}pkt"
    elif q.get("limit_bytes") is not None:
        limit = format_bytes(q["limit_bytes"])
    else:
        limit = "-"
    if q.get("sizing"):
        limit += f" ({q['sizing']})"
    return limit


def _print_table(console: Console, title: str, cols: list[tuple[str, str, Callable[[dict[str, Any]], str]]], items: list[dict[str, Any]]) -> None:
    """A table of ``items``, leaving out columns no item has a value in (RTTs of a UDP-only run,
    ring delays where there is no ring)."""
    from rich.table import Table

    rows = [[get(x) for _, _, get in cols] for x in items]
    keep = [i for i in range(len(cols)) if any(r[i] != "-" for r in rows)]
    t = Table(title=title, title_justify="left")
    for i in keep:
        t.add_column(cols[i][0], justify=cols[i][1], no_wrap=True)
    for r in rows:
        t.add_row(*(r[i] for i in keep))
    console.print(t)


# Up to this many queues every one is listed; beyond, the host ports are summed up.
HOST_PORTS_SHOWN = 8
# Up to this many flows every one is listed; beyond, the first FLOWS_LISTED and a line per kind
# (a table of thousands of rows is unreadable and takes seconds to draw).
FLOWS_SHOWN = 24
FLOWS_LISTED = 12


def _host_nodes(plan: dict[str, Any] | None) -> set[str]:
    """Nodes at the edge: those with one link (a dumbbell's senders and receivers)."""
    degree: dict[str, int] = {}
    for ln in (plan or {}).get("links", []):
        for end in (ln.get("a"), ln.get("b")):
            degree[end] = degree.get(end, 0) + 1
    return {n for n, d in degree.items() if d == 1}


def _at_host(row: dict[str, Any], hosts: set[str]) -> bool:
    a, _, b = str(row.get("link", "")).partition("->")
    return a in hosts or b in hosts


def _split_host_ports(rows: list[dict[str, Any]], hosts: set[str], all_rows: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rows to list, host rows summed up): a host's port is listed only when it dropped
    packets, the topology is small, or ``all_rows``; at least one row is always listed."""
    if all_rows or len(rows) <= HOST_PORTS_SHOWN:
        return rows, []
    shown = [r for r in rows if not _at_host(r, hosts) or (r.get("dropped") or 0) > 0]
    if not shown:
        return rows, []
    hidden = [r for r in rows if not any(r is x for x in shown)]
    return shown, hidden


def _hidden_queues_line(hidden: list[dict[str, Any]]) -> str:
    head = f"+ {counted(len(hidden), 'host queue')} not listed: none dropped"
    worst = max(hidden, key=lambda q: q.get("sojourn_mean_s") or 0.0)
    if not worst.get("sojourn_mean_s"):
        # Nothing waited in any of them (or nothing passed): no queue to name.
        return f"{head}, none held a packet waiting (--all lists them)"
    return f"{head}; the longest mean sojourn {_s(worst['sojourn_mean_s'])} at {worst.get('link')} (--all lists them)"


def _hidden_links_line(hidden: list[dict[str, Any]]) -> str:
    u = [ln.get("utilization") for ln in hidden if ln.get("utilization") is not None]
    span = f"; utilization {100 * min(u):.1f}% to {100 * max(u):.1f}%" if u else ""
    return f"+ {counted(len(hidden), 'host link')} not listed{span} (--all lists them)"


def _jain(xs: list[float]) -> float | None:
    """Jain's fairness index of ``xs`` (1 when all are equal)."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if xs and sq > 0 else None


def _hidden_flows_lines(hidden: list[dict[str, Any]], flows: list[dict[str, Any]]) -> list[str]:
    """A line per kind of the flows not listed: how many, and the spread of the goodput over all
    flows of that kind."""
    import statistics

    lines = []
    for kind in dict.fromkeys(str(f.get("kind")) for f in hidden):
        n = sum(1 for f in hidden if str(f.get("kind")) == kind)
        same = [f for f in flows if str(f.get("kind")) == kind]
        g = [float(f["goodput_bps"]) for f in same if f.get("goodput_bps") is not None]
        what = f"+ {counted(n, kind + ' flow')} not listed"
        if g and kind != "ping":
            j = _jain(g)
            fair = f", Jain's index {j:.3f}" if j is not None else ""
            what += (f"; goodput of all {len(same):,}: {format_rate_bps(min(g))} to {format_rate_bps(max(g))}, "
                     f"median {format_rate_bps(statistics.median(g))}{fair}")
        r = [int(f["retransmits"]) for f in same if f.get("retransmits") is not None]
        if r and kind not in ("ping", "udp"):
            what += f", {sum(r):,} retransmits"
        lines.append(what + " (--all lists them)")
    return lines


def print_result(result: Result, console: Console, title: str | None = None, list_all: bool = False) -> None:
    """The readable summary: a line about the run, then flows, queues and links (many flows, and
    a large topology's host ports, summed up in a line each unless ``list_all``)."""
    s = result.summary
    e = s.get("engine", {})
    events = e.get("events", 0) or 0
    wall = e.get("wall_seconds", 0.0) or 0.0
    rate = f", {events / wall / 1e6:.3g} M events/s" if wall > 0 else ""
    head = f"{title}: " if title else ""
    if s.get("backend") == "kernel":
        d = s.get("kernel", {}).get("driver", {})
        late = ", ".join(f"{q} {_s(d.get(f'lateness_{q}_s'))}" for q in ("p50", "p99", "max"))
        console.print(
            f"{head}{e.get('sim_seconds', 0):g} s in real time on the kernel backend ({wall:.3g} s with set-up); "
            f"{d.get('pkts_in', 0):,} packets from the hosts, delivery lateness {late}",
            markup=False,
        )
    else:
        console.print(
            f"{head}{e.get('sim_seconds', 0):g} s simulated in {wall:.3g} s ({events:,} events{rate}); "
            f"engine {e.get('version', '?')}",
            markup=False,
        )
    flows = s.get("flows", [])
    if flows:
        cols = [
            ("flow", "left", lambda f: str(f.get("id"))),
            ("kind", "left", lambda f: str(f.get("kind"))),
            ("path", "left", lambda f: f"{f.get('src')}->{f.get('dst')}"),
            # A ping carries no payload: no goodput, nothing to retransmit.
            ("goodput", "right", lambda f: "-" if f.get("kind") == "ping" else _f(f.get("goodput_bps"), format_rate_bps)),
            ("rtt mean", "right", lambda f: _s(f.get("rtt_mean_s"))),
            ("rtt p99", "right", lambda f: _s(f.get("rtt_p99_s"))),
            ("one-way mean", "right", lambda f: _s(f.get("owd_mean_s"))),
            ("loss", "right", lambda f: _f(f.get("loss_rate"), lambda v: f"{100 * v:.2f}%")),
            ("retx", "right", lambda f: "-" if f.get("kind") in ("ping", "udp") else _f(f.get("retransmits"), str)),
            ("done in", "right", lambda f: _s(f.get("completion_time_s"))),
        ]
        shown = flows if list_all or len(flows) <= FLOWS_SHOWN else flows[:FLOWS_LISTED]
        _print_table(console, "flows", cols, shown)
        for line in _hidden_flows_lines(flows[len(shown):], flows):
            console.print(line, markup=False)
    hosts = _host_nodes(result.plan)
    queues, hidden_queues = _split_host_ports(s.get("queues", []), hosts, list_all)
    if queues:
        cols = [
            ("link", "left", lambda q: str(q.get("link"))),
            ("qdisc", "left", lambda q: str(q.get("discipline"))),
            ("limit", "right", _limit),
            ("sojourn mean", "right", lambda q: _s(q.get("sojourn_mean_s"))),
            ("sojourn p99", "right", lambda q: _s(q.get("sojourn_p99_s"))),
            ("ring mean", "right", lambda q: _s(q.get("ring_sojourn_mean_s"))),
            ("bql", "right", lambda q: _f(q.get("bql_limit_bytes"), format_bytes)),
            ("mean occupancy", "right", lambda q: _f(q.get("occupancy_mean_pkts"), lambda v: f"{v:.3g} pkt")),
            ("enqueued", "right", lambda q: _f(q.get("enqueued"), lambda v: f"{v:,}")),
            ("dropped", "right", lambda q: _f(q.get("dropped"), lambda v: f"{v:,}")),
        ]
        _print_table(console, "queues", cols, queues)
    if hidden_queues:
        console.print(_hidden_queues_line(hidden_queues), markup=False)
    links, hidden_links = _split_host_ports(s.get("links", []), hosts, list_all)
    if links:
        cols = [
            ("link", "left", lambda ln: str(ln.get("link"))),
            ("rate", "right", lambda ln: _f(ln.get("rate_bps"), format_rate_bps)),
            ("framing", "left", lambda ln: "-" if ln.get("framing") in (None, "none") else str(ln["framing"])),
            ("utilization", "right", lambda ln: _f(ln.get("utilization"), lambda v: f"{100 * v:.1f}%")),
            ("sent", "right", lambda ln: _f(ln.get("bytes_sent"), format_bytes)),
        ]
        _print_table(console, "links", cols, links)
    if hidden_links:
        console.print(_hidden_links_line(hidden_links), markup=False)
    # What would mislead a reader of the figures above (summary.json has the same list).
    for w in s.get("warnings", []):
        console.print(f"warning: {w}", markup=False, style="bold")
