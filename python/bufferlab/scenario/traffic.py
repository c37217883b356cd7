"""``[[traffic]]`` blocks -> the plan's ``TrafficSpec`` list (one entry per block, same order).

``from`` and ``to`` name nodes, groups (the dumbbell's ``senders`` and ``receivers``) or lists of
nodes. Two groups of equal size pair member by member (``s_i`` with ``d_i``); a single node on
either side pairs with every member of the other. Every pair must be joined by some path of links.

TCP options go into the block's ``tcp`` map with units in the key names; the ones a file leaves out
are left out, so the transport's own defaults (each citing its RFC) apply. ``pkt`` in a TCP size or
window is one full segment's payload: the MSS (default 1460 B, a 1500 B Ethernet MTU less 40 B of IP
and TCP headers) less the timestamp option's 12 B when the block sends it (the default): 1448 B.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..units import UnitError, parse_bytes, parse_dist, parse_per_second, parse_rate, parse_size, parse_time_ns
from ._check import Problems, Table, boolean, choice, describe, did_you_mean, integer, join, number
from .schema import reader, tcp_keys
from .templates import Topology

KINDS = ("tcp", "web", "tcp_onoff", "udp", "ping", "ballast")
# The kinds that run TCP (and take its options).
TCP_KINDS = ("tcp", "web", "tcp_onoff")
DEFAULT_MSS_BYTES = 1460
TCP_HEADER_BYTES = 40
TS_OPTION_BYTES = 12  # RFC 7323's option, padded: the engine's TS_OPTION_BYTES
PING_DEFAULT_SIZE_BYTES = 84  # Linux ping: 56 B data + 8 B ICMP + 20 B IP
MAX_IP_BYTES = 65535

_COMMON = ("kind", "from", "to", "start")
_OWN_KEYS = {
    "tcp": _COMMON + ("count", "size"),
    "web": _COMMON + ("arrival_rate", "size"),
    "tcp_onoff": _COMMON + ("size", "idle"),
    "udp": _COMMON + ("rate", "size", "arrivals", "burst", "ttl", "stop"),
    "ping": _COMMON + ("interval", "size", "stop"),
    "ballast": _COMMON + ("rate", "size", "burst", "ttl", "stop", "auto", "target", "max_share", "period"),
}


def block_keys(kind: str) -> tuple[str, ...]:
    """The keys a traffic block of ``kind`` takes: its own, and the TCP options (from the
    engine's parameter schema) for the TCP kinds."""
    own = _OWN_KEYS[kind]
    return own + tuple(tcp_keys()) if kind in TCP_KINDS else own


BALLAST_DEFAULT_SIZE_BYTES = 29  # Braud et al. (2013): 1 B of payload
BALLAST_AUTO_ONLY = ("target", "max_share", "period")
_UNSUPPORTED = {
    "tcp": {"stop": "TCP sources run to the end of the run or of their transfer"},
    "web": {"stop": "web sources run to the end of the run", "count": "web arrivals are set by arrival_rate"},
    "tcp_onoff": {"stop": "on/off sources run to the end of the run"},
}


def read_traffic(doc: Table, topo: Topology | None, problems: Problems) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    raw = doc.raw("traffic", [])
    if isinstance(raw, dict):
        raw = [raw]  # [traffic] written for [[traffic]]: accept a single block
    if not isinstance(raw, list):
        problems.add("traffic", f"expected [[traffic]] tables, got {describe(raw)}")
        return [], []
    out: list[dict[str, Any]] = []
    origins: list[tuple[str, str]] = []
    graph = _graph(topo) if topo is not None else None
    for i, block in enumerate(raw):
        path = join("traffic", i)
        spec = _block(block, path, topo, graph, problems)
        if spec is not None:
            origins.append((f"traffic[{len(out)}]", path))
            out.append(spec)
    return out, origins


def _block(block: Any, path: str, topo: Topology | None, graph: dict[str, int] | None, problems: Problems) -> dict[str, Any] | None:
    if not isinstance(block, dict):
        problems.add(path, f'expected a table, got {describe(block)} (e.g. [[traffic]] kind = "tcp")')
        return None
    kind_raw = block.get("kind")
    if kind_raw is None:
        problems.add(join(path, "kind"), f"missing (one of {', '.join(KINDS)})")
        return None
    try:
        kind = choice(*KINDS)(kind_raw)
    except UnitError as e:
        problems.add(join(path, "kind"), str(e))
        return None
    t = Table(block, path, problems, block_keys(kind), _UNSUPPORTED.get(kind))
    pairs = _pairs(t, topo, graph)
    spec: dict[str, Any] = {"kind": kind, "pairs": pairs}
    if t.has("start"):
        spec["start_ns"] = t.get("start", lambda v: parse_dist(v, "time"))
    if kind in TCP_KINDS:
        tcp, mss = _tcp_options(t)
        if kind == "tcp":
            spec["count"] = t.get("count", integer(what="a number of connections per pair"), 1)
            if t.has("size"):
                spec["size_bytes"] = t.get("size", lambda v: _transfer_size(v, mss))
        elif kind == "web":
            spec["arrival_rate"] = t.get("arrival_rate", parse_per_second, required=True, example='"1/s"')
            spec["size_bytes"] = t.get("size", lambda v: _size_dist(v, mss), required=True, example='"zipf(1.7, max=100000pkt)"')
        else:
            spec["size_bytes"] = t.get("size", lambda v: _size_dist(v, mss), required=True, example='"36KB"')
            spec["idle_ns"] = t.get("idle", lambda v: parse_dist(v, "time"), required=True, example='"exp(1s)"')
        spec["tcp"] = tcp
        if kind == "tcp" and spec.get("size_bytes") is None:
            spec.pop("size_bytes", None)  # "inf" (or absent): a bulk transfer
    elif kind == "udp":
        size = t.get("size", parse_bytes, required=True, example='"1500B"')
        rate = t.get("rate", parse_rate, required=True, example='"250pps"')
        spec["size_bytes"] = size
        if rate is not None:
            if rate.pps is not None:
                spec["rate_pps"] = rate.pps
            elif size and rate.bps is not None:
                spec["rate_pps"] = rate.bps / (8 * size)
        if t.has("arrivals"):
            spec["arrivals"] = t.get("arrivals", choice("cbr", "poisson"))
        if t.has("burst"):
            spec["burst"] = _burst(t)
        if t.has("ttl"):
            spec["ttl"] = t.get("ttl", _ttl)
        _stop(t, spec)
    elif kind == "ballast":
        _ballast(t, spec)
    else:  # ping
        spec["interval_ns"] = t.get("interval", parse_time_ns, 1_000_000_000)  # ping's default: 1 s
        spec["size_bytes"] = t.get("size", parse_bytes, PING_DEFAULT_SIZE_BYTES)
        _stop(t, spec)
    return spec


def _ballast(t: Table, spec: dict[str, Any]) -> None:
    """A fixed-rate ballast is a UDP stream with other defaults; ``auto`` lets the controller
    choose the rate (docs/ballast.md)."""
    size = t.get("size", parse_bytes, BALLAST_DEFAULT_SIZE_BYTES)
    spec["size_bytes"] = size
    auto = t.get("auto", boolean, False)
    if auto:
        spec["auto"] = True
        for key in ("rate", "burst"):
            if t.has(key):
                t.problem(key, "auto = true chooses the rate itself (remove this key, or auto)")
        if t.has("target"):
            spec["target_ns"] = t.get("target", parse_time_ns)
        if t.has("max_share"):
            spec["max_share"] = t.get("max_share", _share)
        if t.has("period"):
            spec["period_ns"] = t.get("period", parse_time_ns)
    else:
        for key in BALLAST_AUTO_ONLY:
            if t.has(key):
                t.problem(key, "only the automatic ballast takes this key (add auto = true)")
        rate = t.get("rate", parse_rate, required=True, example='"250pps" (or auto = true)')
        if rate is not None and size:
            spec["rate_pps"] = rate.pps if rate.pps is not None else (rate.bps or 0) / (8 * size)
        if t.has("burst"):
            spec["burst"] = _burst(t)
    if t.has("ttl"):
        spec["ttl"] = t.get("ttl", _ttl)
    _stop(t, spec)


def _share(value: Any) -> float:
    """A share of the uplink: 0.2 or "20%"."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            v = float(value.strip()[:-1]) / 100
        except ValueError:
            raise UnitError(f'"{value}" is not a share (e.g. 0.2 or "20%")') from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
    else:
        raise UnitError(f'{describe(value)} is not a share (e.g. 0.2 or "20%")')
    return v  # its bounds are the engine's (`BallastSpec.max_share`)


def _stop(t: Table, spec: dict[str, Any]) -> None:
    if not t.has("stop"):
        return
    stop = t.get("stop", parse_time_ns)
    spec["stop_ns"] = stop
    start = spec.get("start_ns", {"dist": "const", "value": 0.0})
    if stop is not None and isinstance(start, dict):
        earliest = start.get("value", start.get("lo"))
        if start["dist"] in ("const", "uniform") and earliest is not None and stop <= earliest:
            t.problem("stop", "comes before the source starts (make stop later than start)")


def _burst(t: Table) -> dict[str, Any] | None:
    bt = t.sub("burst", ("packets", "every"), example='{ packets = 100, every = "1s" }')
    if bt is None or not bt.ok:
        return None
    packets = bt.get("packets", integer(0, None, "a number of packets"), required=True, example="100")
    every = bt.get("every", parse_time_ns, required=True, example='"1s"')
    return {"packets": packets, "every_ns": every}


def _ttl(value: Any) -> int:
    """An IP TTL: it fits one byte; the engine wants at least 1 (`UdpSpec.ttl`)."""
    return integer(0, 255, "an IP TTL (1 to 255)")(value)


def _transfer_size(value: Any, mss: int) -> int | None:
    if value == "inf":
        return None
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinite", "infinity"):
        raise UnitError('write "inf" for a transfer that never ends')
    try:
        s = parse_size(value)
    except UnitError as e:
        raise UnitError(f'{e}; or "inf" for a transfer that never ends') from None
    n = s.bytes if s.bytes is not None else (s.pkts or 0) * mss
    if n <= 0:
        raise UnitError(f'"{value}": a transfer must carry at least 1 B (or "inf")')
    return n


def _size_dist(value: Any, mss: int) -> dict[str, Any]:
    d = parse_dist(value, "size", pkt_bytes=mss)
    lo = d.get("value", d.get("lo", 1))
    if d["dist"] in ("const", "uniform") and lo <= 0:
        raise UnitError(f'"{value}": transfers must carry at least 1 B')
    return d


def _tcp_options(t: Table) -> tuple[dict[str, Any], int]:
    """The block's ``tcp`` map and what ``pkt`` means in its sizes and windows: a full segment's
    payload, the MSS less the timestamp option's 12 B when the block sends it (the default, as
    Linux: 1448 B of a 1460 B MSS)."""
    tcp: dict[str, Any] = {}
    mss = t.get("mss", _mss)
    if mss is not None and t.has("mss"):
        tcp["mss_bytes"] = mss
    mss = mss or DEFAULT_MSS_BYTES

    def segment() -> int:
        return mss - (TS_OPTION_BYTES if tcp.get("timestamps", True) else 0)

    def window(value: Any) -> int:
        s = parse_size(value)
        return s.bytes if s.bytes is not None else (s.pkts or 0) * segment()

    special = {"mss": None, "rwnd": window, "sndbuf": window}
    # The timestamp option first: windows in `pkt` depend on it.
    for key, (plan_key, prop) in sorted(tcp_keys().items(), key=lambda kv: kv[0] != "timestamps"):
        if key == "mss" or not t.has(key):
            continue
        v = t.get(key, special.get(key) or reader(plan_key, prop))
        if v is not None:
            tcp[plan_key] = v
    return tcp, segment()


def _mss(value: Any) -> int:
    """The MSS (its bounds are the engine's)."""
    return parse_bytes(value)


# ---------------------------------------------------------------- endpoints


def _graph(topo: Topology) -> dict[str, int]:
    """Each node's connected component (links carry both directions): one pass over the graph,
    so checking that each of N pairs is joined costs N look-ups, not N searches."""
    adj: dict[str, list[str]] = {n: [] for n in topo.nodes}
    for link in topo.links:
        adj.setdefault(link["a"], []).append(link["b"])
        adj.setdefault(link["b"], []).append(link["a"])
    comp: dict[str, int] = {}
    for root in adj:
        if root in comp:
            continue
        c = len(comp)
        comp[root] = c
        todo = deque([root])
        while todo:
            for m in adj[todo.popleft()]:
                if m not in comp:
                    comp[m] = c
                    todo.append(m)
    return comp


def _reachable(graph: dict[str, int], src: str, dst: str) -> bool:
    return src in graph and graph.get(src) == graph.get(dst)


def _endpoints(t: Table, key: str, topo: Topology | None) -> list[str] | None:
    raw = t.raw(key)
    if raw is None:
        t.problem(key, 'missing (a node or group name, e.g. "client" or "senders")')
        return None
    if topo is None:
        return None
    names = topo.nodes + list(topo.groups)
    if isinstance(raw, str):
        if raw in topo.groups:
            return list(topo.groups[raw])
        if raw in topo.nodes:
            return [raw]
        t.problem(key, f'unknown node or group "{raw}"{did_you_mean(raw, names)}; known: {", ".join(names)}')
        return None
    if isinstance(raw, list) and raw and all(isinstance(x, str) for x in raw):
        out, ok = [], True
        for j, x in enumerate(raw):
            if x in topo.nodes:
                out.append(x)
            else:
                t.problems.add(join(t.at(key), j), f'unknown node "{x}"{did_you_mean(x, topo.nodes)}')
                ok = False
        return out if ok else None
    t.problem(key, f"expected a node or group name, or a list of node names, got {describe(raw)}")
    return None


def _pairs(t: Table, topo: Topology | None, graph: dict[str, int] | None) -> list[list[str]]:
    src = _endpoints(t, "from", topo)
    dst = _endpoints(t, "to", topo)
    if src is None or dst is None or graph is None:
        return []
    if len(src) == len(dst):
        pairs = list(zip(src, dst))
    elif len(src) == 1:
        pairs = [(src[0], d) for d in dst]
    elif len(dst) == 1:
        pairs = [(s, dst[0]) for s in src]
    else:
        t.problem("to", f"{len(dst)} destinations cannot pair with {len(src)} sources (give as many of each, or one on either side)")
        return []
    out = []
    for s, d in pairs:
        if s == d:
            t.problem("to", f'"{d}" is also the source; traffic needs two different nodes')
        elif not _reachable(graph, s, d):
            t.problem("to", f'"{d}" cannot be reached from "{s}": no path of links joins them')
        else:
            out.append([s, d])
    return out
