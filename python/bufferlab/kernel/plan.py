"""From a scenario to what runs on the kernel: which nodes are hosts, the namespace settings
(sysctls, per-route options) and each host's programs. Options the kernel cannot honour are
refused here, before anything is created, each naming its key and the reason.

How TCP options map (every one per namespace or per route, never on the machine itself):

=================  ==========================================================================
``cc``             ``TCP_CONGESTION`` on the sending socket (``newreno`` is Linux ``reno``:
                   NewReno recovery, with SACK when negotiated); refused if the kernel lacks it
``sack``           ``net.ipv4.tcp_sack`` inside both ends' namespaces
``frto``           ``net.ipv4.tcp_frto`` inside the sender's namespace, always set: ``0`` for
                   ``false``, ``2`` for ``true`` (the default, as Linux's own)
``rack``           ``net.ipv4.tcp_recovery`` inside the sender's namespace, always set: ``1``
                   (RACK loss detection, the default, as Linux's own) or ``0`` for ``false``
``timestamps``     ``net.ipv4.tcp_timestamps`` inside both ends' namespaces, always set: ``1``
                   (the default, as Linux's own) or ``0``
``ssthresh_from``  ``cwnd`` is what Linux does; ``flight`` is refused
``delayed_ack``    ``false``: route ``quickack 1`` at the receiver towards the sender
``initial_window`` route ``initcwnd`` at the sender towards the receiver
``min_rto``        route ``rto_min`` at the sender (whole milliseconds)
``mss``            ``TCP_MAXSEG`` on the sending socket
``rwnd``           ``SO_RCVBUF`` on the receiving socket (Linux doubles it for overhead)
``sndbuf``         ``SO_SNDBUF`` on the sending socket
=================  ==========================================================================

A ``ballast`` block becomes the real tool, ``bufferlab ballast``, in the source's namespace with
the block's options (``ballast_args``), and a UDP sink at the destination.

Refused: ``delack`` other than Linux's fixed 40 ms, ``beta``, ``max_rto``, ``handshake =
false``, ``prr = false`` (Linux's recovery is always PRR), the Vegas and Cubic constants (module-wide parameters of the running kernel, not
settable per namespace).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Problem, ScenarioError
from ..scenario import TCP_KINDS
from .dist import sample

FLOW_PORT_BASE = 20_000  # the driver's FLOW_PORT_BASE: flow k's port and echo identifier
IP_UDP_HEADERS = 28
MTU_BYTES = 1500
DELACK_LINUX_NS = 40_000_000
CC_NAMES = {"newreno": "reno", "cubic": "cubic", "vegas": "vegas"}
AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")

_REFUSED = {
    "beta": "Linux has no per-socket or per-namespace decrease factor (it is fixed by each congestion control)",
    "max_rto_ns": "Linux fixes the largest RTO at 120 s (TCP_RTO_MAX); no route or socket option changes it",
    "vegas_alpha": "Vegas' thresholds are parameters of the tcp_vegas module, shared by the whole machine",
    "vegas_beta": "Vegas' thresholds are parameters of the tcp_vegas module, shared by the whole machine",
    "vegas_gamma": "Vegas' thresholds are parameters of the tcp_vegas module, shared by the whole machine",
    "cubic_c": "Cubic's constants are parameters of the tcp_cubic module, shared by the whole machine",
    "cubic_fast_convergence": "Cubic's constants are parameters of the tcp_cubic module, shared by the whole machine",
}
_PLAN_TO_USER = {"max_rto_ns": "max_rto", "delack_ns": "delack", "min_rto_ns": "min_rto", "mss_bytes": "mss"}


@dataclass
class Host:
    node: int
    name: str
    sysctls: dict[str, str] = field(default_factory=dict)
    routes: dict[int, dict[str, str]] = field(default_factory=dict)
    roles: list[dict[str, Any]] = field(default_factory=list)

    def arg(self) -> tuple[int, str, list[tuple[str, str]], list[tuple[int, str]]]:
        """The form ``KernelNet`` takes."""
        routes = [(d, " ".join(f"{k} {v}" for k, v in sorted(o.items()))) for d, o in sorted(self.routes.items())]
        return (self.node, self.name, sorted(self.sysctls.items()), routes)


@dataclass
class Flow:
    """A scenario flow as the kernel runs it (index = its row in the flows table)."""

    index: int
    kind: str
    src: int
    dst: int
    size: int | None = None


@dataclass
class KernelPlan:
    hosts: list[Host]
    flows: list[Flow]

    def host(self, node: int) -> Host:
        return next(h for h in self.hosts if h.node == node)


def available_cc() -> list[str]:
    try:
        return AVAILABLE_CC.read_text().split()
    except OSError:
        return []


def host_nodes(plan: dict[str, Any]) -> list[int]:
    """Nodes that become hosts: every traffic endpoint and every node with a single link (a
    leaf such as a dumbbell's idle sender); the others are routers inside the engine."""
    names = plan["nodes"]
    ids = {n: i for i, n in enumerate(names)}
    degree = [0] * len(names)
    for link in plan["links"]:
        degree[ids[link["a"]]] += 1
        degree[ids[link["b"]]] += 1
    hosts = {i for i, d in enumerate(degree) if d == 1}
    for t in plan["traffic"]:
        for s, d in t["pairs"]:
            hosts.update((ids[s], ids[d]))
    return sorted(hosts)


def build(sc: Any) -> KernelPlan:
    """The kernel plan of a loaded scenario, or ScenarioError listing every refusal."""
    plan = sc.plan
    origins = dict(getattr(sc, "origins", []) or [])
    names = plan["nodes"]
    ids = {n: i for i, n in enumerate(names)}
    hosts = {n: Host(n, names[n]) for n in host_nodes(plan)}
    problems: list[Problem] = []
    flows: list[Flow] = []
    rng = random.Random(plan["run"].get("seed", 0))
    ccs = available_cc()
    duration = plan["run"]["duration_ns"]

    def where(i: int, key: str) -> str:
        base = origins.get(f"traffic[{i}]", f"traffic[{i}]")
        return f"{base}.{_PLAN_TO_USER.get(key, key)}"

    def refuse(i: int, key: str, why: str) -> None:
        problems.append(Problem(where(i, key), f"the kernel backend cannot honour this: {why}"))

    def set_once(h: Host, table: dict, key: Any, value: Any, i: int, user_key: str) -> None:
        if table.get(key, value) != value:
            refuse(i, user_key, f"another traffic block on {h.name} needs a different value ({table[key]})")
        table[key] = value

    for i, t in enumerate(plan["traffic"]):
        kind = t["kind"]
        tcp = t.get("tcp", {})
        for key in tcp:
            if key in _REFUSED:
                refuse(i, key, _REFUSED[key])
        if tcp.get("delack_ns", DELACK_LINUX_NS) != DELACK_LINUX_NS:
            refuse(i, "delack_ns", "Linux's delayed-ACK timer is fixed (40 ms minimum, TCP_DELACK_MIN)")
        if tcp.get("handshake", True) is False:
            refuse(i, "handshake", "a kernel TCP connection always opens with a handshake")
        if tcp.get("prr", True) is False:
            refuse(i, "prr", "Linux always paces loss recovery with PRR (RFC 6937); no setting turns it off")
        if tcp.get("cubic_hystart", True) is False:
            refuse(i, "cubic_hystart", "HyStart is a parameter of the tcp_cubic module (hystart), shared by the whole machine; leave cubic_hystart out")
        if tcp.get("cubic_alpha_switch", False) is True:
            refuse(i, "cubic_alpha_switch", "Linux's tcp_cubic has no RFC 9438 §4.3 switch to alpha = 1; leave cubic_alpha_switch out")
        if tcp.get("ssthresh_from", "cwnd") != "cwnd":
            refuse(i, "ssthresh_from", "Linux always reduces from the congestion window (tcp_init_cwnd_reduction); "
                   "leave ssthresh_from out")
        cc = CC_NAMES.get(tcp.get("cc", "newreno"), tcp.get("cc"))
        if kind in TCP_KINDS and ccs and cc not in ccs:
            refuse(i, "cc", f"this kernel has no {cc} congestion control (available: {' '.join(ccs)})")
        if kind in ("udp", "ping"):
            size = t["size_bytes"]
            if size > MTU_BYTES:
                refuse(i, "size", f"{size} B exceeds the hosts' {MTU_BYTES} B MTU (the kernel would fragment it)")
        count = t.get("count", 1) if kind == "tcp" else 1
        for s_name, d_name in t["pairs"]:
            for _ in range(count):
                k = len(flows)
                s, d = ids[s_name], ids[d_name]
                src, dst = hosts[s], hosts[d]
                port = FLOW_PORT_BASE + k
                start = int(sample(t.get("start_ns", {"dist": "const", "value": 0.0}), rng))
                flows.append(Flow(k, kind, s, d, t.get("size_bytes") if kind == "tcp" else None))

                dst_addr = _addr(d)
                if kind in TCP_KINDS:  # data goes src -> dst in all three
                    if "sack" in tcp:
                        v = "1" if tcp["sack"] else "0"
                        for h in (src, dst):
                            set_once(h, h.sysctls, "ipv4/tcp_sack", v, i, "sack")
                    # F-RTO (RFC 5682) and RACK (RFC 8985) are the sender's alone. Set either way,
                    # so that the machine's own values never leak in.
                    frto = "2" if tcp.get("frto", True) else "0"
                    set_once(src, src.sysctls, "ipv4/tcp_frto", frto, i, "frto")
                    rack = "1" if tcp.get("rack", True) else "0"
                    set_once(src, src.sysctls, "ipv4/tcp_recovery", rack, i, "rack")
                    # The option is negotiated in the handshake: both ends, like SACK.
                    ts = "1" if tcp.get("timestamps", True) else "0"
                    for h in (src, dst):
                        set_once(h, h.sysctls, "ipv4/tcp_timestamps", ts, i, "timestamps")
                    if tcp.get("delayed_ack") is False:
                        set_once(dst, dst.routes.setdefault(s, {}), "quickack", "1", i, "delayed_ack")
                    if "initial_window" in tcp:
                        set_once(src, src.routes.setdefault(d, {}), "initcwnd", str(tcp["initial_window"]), i, "initial_window")
                    if "min_rto_ns" in tcp:
                        ms = max(1, round(tcp["min_rto_ns"] / 1e6))
                        set_once(src, src.routes.setdefault(d, {}), "rto_min", f"{ms}ms", i, "min_rto_ns")
                if kind == "tcp":
                    dst.roles.append({"role": "tcp_sink", "flow": k, "port": port, "rcvbuf": tcp.get("rwnd_bytes"), "size": t.get("size_bytes")})
                    src.roles.append({
                        "role": "tcp_source", "flow": k, "dst": dst_addr, "port": port, "start_ns": start,
                        "size": t.get("size_bytes"), "cc": cc, "mss": tcp.get("mss_bytes"), "sndbuf": tcp.get("sndbuf_bytes"),
                    })
                elif kind in ("web", "tcp_onoff"):
                    # Data flows from the pair's first node to its second: the second connects and
                    # asks for a size, the first sends it (as a web client and server).
                    src.roles.append({"role": "tcp_server", "flow": k, "port": port, "cc": cc, "mss": tcp.get("mss_bytes"), "sndbuf": tcp.get("sndbuf_bytes")})
                    dst.roles.append({
                        "role": "tcp_client", "flow": k, "dst": _addr(s), "port": port, "start_ns": start,
                        "mode": "poisson" if kind == "web" else "onoff", "arrival_rate": t.get("arrival_rate"),
                        "size": t["size_bytes"], "idle": t.get("idle_ns"), "rcvbuf": tcp.get("rwnd_bytes"),
                        "seed": rng.randrange(1 << 32),
                    })
                elif kind == "udp":
                    dst.roles.append({"role": "udp_sink", "flow": k, "port": port})
                    burst = t.get("burst")
                    src.roles.append({
                        "role": "udp_source", "flow": k, "dst": dst_addr, "port": port, "start_ns": start,
                        "stop_ns": t.get("stop_ns") or duration, "rate_pps": t["rate_pps"],
                        "payload": t["size_bytes"] - IP_UDP_HEADERS, "arrivals": t.get("arrivals", "cbr"),
                        "burst": [burst["packets"], burst["every_ns"]] if burst else None, "ttl": t.get("ttl", 64),
                        "seed": rng.randrange(1 << 32),
                    })
                elif kind == "ballast":
                    # The real tool in the source's namespace (docs/ballast.md); a sink takes its
                    # packets as the simulator's does, so the destination answers no port-unreachable.
                    dst.roles.append({"role": "udp_sink", "flow": k, "port": port})
                    src.roles.append({
                        "role": "ballast", "flow": k, "start_ns": start, "stop_ns": t.get("stop_ns") or duration,
                        "args": ballast_args(t, f"{dst_addr}:{port}"),
                    })
                elif kind == "ping":
                    src.roles.append({
                        "role": "ping", "flow": k, "dst": dst_addr, "ident": port, "start_ns": start,
                        "stop_ns": t.get("stop_ns") or duration, "interval_ns": t["interval_ns"],
                        "payload": t["size_bytes"] - IP_UDP_HEADERS,
                    })
    if problems:
        raise ScenarioError(problems, getattr(sc, "source", None))
    return KernelPlan(hosts=list(hosts.values()), flows=flows)


def ballast_args(t: dict[str, Any], to: str) -> list[str]:
    """The ``bufferlab ballast`` options of a ``kind = "ballast"`` block (the same defaults: the
    scenario's are the tool's)."""
    from ..ballast.sender import DEFAULT_TTL, SAFE_PPS

    args = ["--to", to, "--size", f"{t['size_bytes']}B", "--ttl", str(t.get("ttl", DEFAULT_TTL))]
    if t.get("auto"):
        args.append("--auto")
        if "target_ns" in t:
            args += ["--target", f"{t['target_ns']}ns"]
        if "max_share" in t:
            args += ["--max-share", repr(t["max_share"])]
        if "period_ns" in t:
            args += ["--period", f"{t['period_ns']}ns"]
    else:
        args += ["--rate", f"{t['rate_pps']!r}pps"]
        if t["rate_pps"] > SAFE_PPS:
            args.append("--force")  # the scenario asked for it; the tool's cap is for people
        if t.get("burst"):
            args += ["--burst", str(t["burst"]["packets"]), "--every", f"{t['burst']['every_ns']}ns"]
    return args


def _addr(node: int) -> str:
    """Node ``node``'s address in the namespaces (the driver's ``node_addr``)."""
    n = node + 1
    return f"10.77.{n >> 8}.{n & 255}"
