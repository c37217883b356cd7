"""From a scenario to what runs on the kernel: which nodes are hosts, the namespace settings
(sysctls, per-route options) and each host's programs. Options the kernel cannot honour are
refused here, before anything is created, each naming its key and the reason.

How TCP options map (every one per namespace or per route, never on the machine itself):

=====================  ==========================================================================
``cc``                 ``TCP_CONGESTION`` on the sending socket (``newreno`` is Linux ``reno``:
                       NewReno recovery, with SACK when negotiated; ``bbr`` is ``bbr``, which paces
                       itself); refused if the kernel lacks it
``pacing``             ``SO_MAX_PACING_RATE`` of 2^64 − 2 B/s on the sending socket: no cap, but it
                       turns on TCP's own timer-based pacing (``SK_PACING_NEEDED``, as BBR does),
                       the mechanism the simulator models; the kernel here has no ``fq`` qdisc
``pacing_ss_ratio``    ``net.ipv4.tcp_pacing_ss_ratio`` / ``tcp_pacing_ca_ratio`` inside the
``pacing_ca_ratio``    sender's namespace when the block sets them (a new namespace starts at
                       Linux's 200 and 120, the simulator's defaults, whatever the machine runs)
``sack``               ``net.ipv4.tcp_sack`` inside both ends' namespaces
``frto``               ``net.ipv4.tcp_frto`` inside the sender's namespace, always set: ``0`` for
                       ``false``, ``2`` for ``true`` (the default, as Linux's own)
``rack``               ``net.ipv4.tcp_recovery`` inside the sender's namespace, always set: ``1``
                       (RACK loss detection, the default, as Linux's own) or ``0`` for ``false``
``tlp``                ``net.ipv4.tcp_early_retrans`` inside the sender's namespace, always set:
                       ``3`` (tail loss probes, the default, as Linux's own) or ``0`` for ``false``
``timestamps``         ``net.ipv4.tcp_timestamps`` inside both ends' namespaces, always set: ``1``
                       (the default, as Linux's own) or ``0``
``ecn``                ``net.ipv4.tcp_ecn`` inside both ends' namespaces, always set: ``1`` (ask,
                       ``true``) at the sender, ``2`` (accept when asked: Linux's default, and the
                       simulator's receiver) at the receiver and at a sender with ``false``; the
                       engine's AQMs read and set the real packets' ECN field
``ssthresh_from``      ``cwnd`` is what Linux does; ``flight`` is refused
``cwnd_unit``          ``segment`` is what Linux does (its window counts packets); ``byte`` is
                       refused
``abc_limit``,         not Linux settings: Linux's ``tcp_slow_start`` grows by every packet an
``grow_by_delivered``  ACK newly delivered (the simulator's ``abc_limit = 0`` with
                       ``grow_by_delivered = true``), whatever the block says
``delayed_ack``        ``false``: route ``quickack 1`` at the receiver towards the sender
``comp_sack``          ``net.ipv4.tcp_comp_sack_nr`` inside the receiver's namespace when the block
                       sets it: ``44`` (Linux's default) or ``0`` for ``false``
``comp_sack_delay``    ``net.ipv4.tcp_comp_sack_delay_ns`` inside the receiver's namespace when set
``initial_window``     route ``initcwnd`` at the sender towards the receiver
``min_rto``            route ``rto_min`` at the sender (whole milliseconds)
``mss``                ``TCP_MAXSEG`` on the sending socket
``rwnd``               ``SO_RCVBUF`` on the receiving socket (Linux doubles it for overhead)
``sndbuf``             ``SO_SNDBUF`` on the sending socket
``tsq``                ``false`` (or left out) is what the engine's queues see: the hosts' own
                       TCP small queues act on their TUN device, which the driver drains at once,
                       never on the engine's qdisc and ring; ``true`` is refused
=====================  ==========================================================================

A ``web`` or ``tcp_onoff`` flow plays the simulator's own workload for the run's seed: the engine
builds the scenario as a run would and each sender replays its random stream
(``bufferlab._core.workload_draws``), so the client connects at each drawn arrival (web) with the
drawn size, or takes the drawn sizes and idle times in order (on/off). A seed's transfers are the
same on both backends, and a comparison is paired seed by seed. A bulk ``tcp`` flow whose block
draws its start starts at the engine's draw too (``bulk_starts``): which flow starts first can set a
whole run. The other random times (UDP and ping starts) the kernel draws with a generator of its own.

A ``ballast`` block becomes the real tool, ``bufferlab ballast``, in the source's namespace with
the block's options (``ballast_args``), and a UDP sink at the destination.

Refused: ``delack`` other than Linux's fixed 40 ms, ``push_ack = false`` and ``window_quickack = false`` (with delayed ACKs), ``sack_rtt = false`` (with SACK), ``beta``, ``max_rto``, ``handshake =
false``, ``prr = false`` (Linux's recovery is always PRR), ``badrxt_undo = true``, the Vegas and Cubic constants (module-wide parameters of the running kernel, not
settable per namespace), ``tsq = true`` and ``limit_output`` (see above); on a link, a ring's ``gso =
true`` (the engine's ring gets the hosts' packets already segmented, with nothing marking a GSO
buffer's segments).

The simulator's side of a comparison with the kernel runs with TCP small queues off where a
block leaves ``tsq`` out (``sim_matched``): what the engine's queues see on the kernel.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import plan_types as pt
from ..errors import Problem, ScenarioError
from .dist import sample

FLOW_PORT_BASE = 20_000  # the driver's FLOW_PORT_BASE: flow k's port and echo identifier
IP_UDP_HEADERS = 28
MTU_BYTES = 1500
DELACK_LINUX_NS = 40_000_000
CC_NAMES = {"newreno": "reno", "cubic": "cubic", "vegas": "vegas", "bbr": "bbr"}
AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")

# A Linux device's default (and largest) segments per GSO buffer (`GSO_MAX_SEGS`).
GSO_MAX_SEGS = "65535"

_REFUSED = {
    "beta": "Linux has no per-socket or per-namespace decrease factor (it is fixed by each congestion control)",
    "max_rto_ns": "Linux fixes the largest RTO at 120 s (TCP_RTO_MAX); no route or socket option changes it",
    "vegas_alpha": "Vegas' thresholds are parameters of the tcp_vegas module, shared by the whole machine",
    "vegas_beta": "Vegas' thresholds are parameters of the tcp_vegas module, shared by the whole machine",
    "vegas_gamma": "Vegas' thresholds are parameters of the tcp_vegas module, shared by the whole machine",
    "cubic_c": "Cubic's constants are parameters of the tcp_cubic module, shared by the whole machine",
    "cubic_beta": "Cubic's constants are parameters of the tcp_cubic module, shared by the whole machine",
    "cubic_fast_convergence": "Cubic's constants are parameters of the tcp_cubic module, shared by the whole machine",
    "limit_output_bytes": "the kernel's TCP small queues act on the host's TUN device, which the driver drains at once, "
                          "never on the engine's qdisc and ring: their limit changes nothing there",
    "accecn": "the hosts feed ECN back as RFC 3168 says (net.ipv4.tcp_ecn); AccECN feedback (tcp_ecn = 3) is not "
              "set up by the backend",
    "prague_rtt_target_ns": "Prague's RTT target is a parameter of the out-of-tree tcp_prague module",
    "prague_rtt_transition": "Prague's RTT transition is a parameter of the out-of-tree tcp_prague module",
}
if _stale := set(_REFUSED) - pt.field_names(pt.TcpOptions):  # a renamed engine key fails at import
    raise ImportError(f"kernel backend: refused TCP keys the plan no longer has: {sorted(_stale)}")
# Congestion controls the simulator has and a stock kernel may lack: refused by the `cc` key
# unless the running kernel lists them (an unreadable list refuses them too).
_NOT_IN_KERNEL = {
    "dctcp": "this kernel has no dctcp congestion control (the tcp_dctcp module is not loaded)",
    "prague": "this kernel has no prague congestion control (tcp_prague is out of tree, in the L4S team's kernel)",
}
# Most transfers of one web or on/off flow handed to its client: a web flow at 1,000 arrivals a
# second for 100 s; an on/off flow without idle time ends its run there (each transfer takes at
# least a round trip on the kernel: its request, then its data).
MAX_DRAWN_TRANSFERS = 100_000
_PLAN_TO_USER = {"max_rto_ns": "max_rto", "delack_ns": "delack", "min_rto_ns": "min_rto", "mss_bytes": "mss",
                 "limit_output_bytes": "limit_output", "prague_rtt_target_ns": "prague_rtt_target",
                 "comp_sack_delay_ns": "comp_sack_delay"}


@dataclass
class Host:
    node: int
    name: str
    sysctls: dict[str, str] = field(default_factory=dict)
    routes: dict[int, dict[str, str]] = field(default_factory=dict)
    roles: list[dict[str, Any]] = field(default_factory=list)
    # ``ip link set eth0`` settings (``gso_max_segs``).
    link: dict[str, str] = field(default_factory=dict)

    def arg(self) -> tuple[int, str, list[tuple[str, str]], list[tuple[int, str]], list[tuple[str, str]]]:
        """The form ``KernelNet`` takes."""
        routes = [(d, " ".join(f"{k} {v}" for k, v in sorted(o.items()))) for d, o in sorted(self.routes.items())]
        return (self.node, self.name, sorted(self.sysctls.items()), routes, sorted(self.link.items()))


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


def host_nodes(plan: Any) -> list[int]:
    """Nodes that become hosts: every traffic endpoint and every node with a single link (a
    leaf such as a dumbbell's idle sender); the others are routers inside the engine. ``plan``
    is a loaded scenario, a plan dict or a typed plan."""
    p = pt.typed(plan)
    ids = {n: i for i, n in enumerate(p.nodes)}
    degree = [0] * len(p.nodes)
    for link in p.links:
        degree[ids[link.a]] += 1
        degree[ids[link.b]] += 1
    hosts = {i for i, d in enumerate(degree) if d == 1}
    for t in p.traffic:
        for s, d in t.pairs:
            hosts.update((ids[s], ids[d]))
    return sorted(hosts)


def workload_draws(plan: Any) -> dict[int, dict[str, Any]]:
    """Each web and on/off flow's workload draws in a simulator run of ``plan`` (a loaded
    scenario, a plan dict or a typed plan) with its seed, by flow index: ``start_ns``,
    ``sizes_bytes``, ``arrivals_ns`` (web), ``idles_ns`` (on/off), ``complete`` (false when cut
    at MAX_DRAWN_TRANSFERS), with the engine's ``id``, ``kind``, ``src`` and ``dst`` of the flow.
    The engine builds the plan as a run would and replays each sender's own stream."""
    from ..scenario import engine_problems
    from ..simulate import engine

    p = pt.typed(plan)
    if not any(isinstance(t, (pt.WebTraffic, pt.TcpOnoffTraffic)) for t in p.traffic):
        return {}
    raw = getattr(plan, "plan", plan)
    core = engine()
    try:
        draws = core.workload_draws(json.dumps(raw if isinstance(raw, Mapping) else pt.to_dict(p)), MAX_DRAWN_TRANSFERS)
    except core.PlanError as e:
        raise ScenarioError(engine_problems(e.args[1], list(getattr(plan, "origins", []) or [])),
                            getattr(plan, "source", None)) from None
    return {d["flow"]: d for d in draws if d["kind"] in ("web", "tcp_onoff")}


def bulk_starts(plan: Any) -> dict[int, int]:
    """The engine's start (ns), by flow index, of each bulk TCP flow whose block draws its start
    (not a constant), in a simulator run of ``plan`` with its seed; {} when there is none."""
    from ..simulate import engine

    p = pt.typed(plan)
    if not any(pt.drawn_bulk_start(t) for t in p.traffic):
        return {}
    raw = getattr(plan, "plan", plan)
    draws = engine().workload_draws(json.dumps(raw if isinstance(raw, Mapping) else pt.to_dict(p)), 0)
    return {d["flow"]: int(d["start_ns"]) for d in draws if d["kind"] == "tcp"}


def sim_matched(plan: Any) -> dict[str, Any]:
    """Overrides that make the simulator run a scenario as the kernel backend does: TCP small
    queues off in every TCP block that leaves ``tsq`` out. On the kernel a host's TSQ bounds what
    its TCP keeps in its own TUN device, which the driver drains at once; the engine's queues
    behind it (a host egress with a ring or ``fq``, where the simulator's TSQ is on by default)
    never hold the host back. ``plan`` is a loaded scenario, a plan dict or a typed plan."""
    return {
        f"traffic[{i}].tsq": False
        for i, t in enumerate(pt.typed(plan).traffic)
        if isinstance(t, pt.TCP_TRAFFIC) and not t.tcp.has("tsq")
    }


def _link_refusals(plan: pt.Scenario, origins: list[tuple[str, str]]) -> list[Problem]:
    """Link keys the kernel backend cannot honour, at the file's keys: a ring's ``gso``. The
    engine's ring sees the hosts' packets as the TUN device hands them over, one segment each
    (the backend's device has no GSO offload to pass buffers through), so no packet says which
    GSO buffer it belongs to and a descriptor could only ever hold one."""
    from ..scenario import translate_loc

    out: list[Problem] = []
    for k, link in enumerate(plan.links):
        for side in ("forward", "reverse"):
            d = getattr(link, side)
            if d is not None and d.ring is not None and d.ring.gso:
                p = translate_loc(
                    ["links", k, side, "ring", "gso"],
                    "the kernel backend cannot honour this: the engine's ring gets the hosts' packets one "
                    "segment at a time from their TUN devices, with nothing marking a GSO buffer's segments; "
                    "leave gso out (one packet per descriptor)",
                    origins,
                )
                if p not in out:
                    out.append(p)
    return out


def build(sc: Any, typed: pt.Scenario | None = None) -> KernelPlan:
    """The kernel plan of a loaded scenario, or ScenarioError listing every refusal. ``typed``:
    the scenario's typed plan where the caller has already read it (seconds for 10,000 pairs)."""
    plan = typed or pt.typed(sc)
    origins = dict(getattr(sc, "origins", []) or [])
    names = plan.nodes
    ids = {n: i for i, n in enumerate(names)}
    hosts = {n: Host(n, names[n]) for n in host_nodes(plan)}
    problems: list[Problem] = []
    flows: list[Flow] = []
    # Per host that runs TCP: for each ecn value its sending blocks use, the first such block.
    ecn_asks: dict[int, dict[bool, int]] = {}
    rng = random.Random(plan.run.seed)
    # Web and on/off clients, and bulk sources whose start is drawn, to be given the engine's draws
    # once the plan is accepted.
    clients: list[tuple[dict[str, Any], Flow]] = []
    bulk: list[tuple[dict[str, Any], Flow]] = []
    ccs = available_cc()
    duration = plan.run.duration_ns

    def where(i: int, key: str) -> str:
        base = origins.get(f"traffic[{i}]", f"traffic[{i}]")
        return f"{base}.{_PLAN_TO_USER.get(key, key)}"

    def refuse(i: int, key: str, why: str) -> None:
        problems.append(Problem(where(i, key), f"the kernel backend cannot honour this: {why}"))

    def set_once(h: Host, table: dict[Any, str], key: Any, value: str, i: int, user_key: str) -> None:
        if table.get(key, value) != value:
            refuse(i, user_key, f"another traffic block on {h.name} needs a different value ({table[key]})")
        table[key] = value

    problems.extend(_link_refusals(plan, list(origins.items())))
    for i, t in enumerate(plan.traffic):
        kind = t.kind
        tcp = t.tcp if isinstance(t, pt.TCP_TRAFFIC) else pt.TcpOptions()
        for key in tcp.given:
            if key in _REFUSED:
                refuse(i, key, _REFUSED[key])
        if tcp.delack_ns != DELACK_LINUX_NS:
            refuse(i, "delack_ns", "Linux's delayed-ACK timer is fixed (40 ms minimum, TCP_DELACK_MIN)")
        if not tcp.handshake:
            refuse(i, "handshake", "a kernel TCP connection always opens with a handshake")
        if not tcp.rto_rearm:
            refuse(i, "rto_rearm", "Linux always restarts the retransmission timer when it resends the oldest segment; "
                   "leave rto_rearm out")
        if not tcp.cwnd_latch:
            refuse(i, "cwnd_latch", "Linux always decides window growth by its latched test (tcp_is_cwnd_limited); "
                   "leave cwnd_latch out")
        if tcp.badrxt_undo:
            refuse(i, "badrxt_undo", "Linux has no FreeBSD bad-retransmission undo (t_badrxtwin); it judges a timeout "
                   "with F-RTO (the frto key): leave badrxt_undo out")
        if tcp.grow_below_rwnd:
            refuse(i, "grow_below_rwnd", "Linux grows the window by its own test of use (tcp_is_cwnd_limited), "
                   "not FreeBSD's; leave grow_below_rwnd out")
        if not tcp.quickack and tcp.delayed_ack:
            refuse(i, "quickack", "Linux's receiver always ACKs the first segments of a connection at once "
                   "(tcp_event_data_recv's quick-ACK mode); no setting turns it off: leave quickack out")
        if not tcp.push_ack and tcp.delayed_ack:
            refuse(i, "push_ack", "Linux's receiver always ACKs a full segment carrying PSH once it is read "
                   "(ICSK_ACK_PUSHED, since 6.6); no setting turns it off: leave push_ack out")
        if not tcp.window_quickack and tcp.delayed_ack:
            refuse(i, "window_quickack", "Linux's receiver always ACKs at once a segment that grows its receive "
                   "window (tcp_grow_window); no setting turns it off: leave window_quickack out")
        if not tcp.sack_rtt and tcp.sack:
            refuse(i, "sack_rtt", "Linux always takes an RTT sample from an ACK that only SACKs new data "
                   "(tcp_clean_rtx_queue's sack_rtt_us); no setting turns it off: leave sack_rtt out")
        if not tcp.prr:
            refuse(i, "prr", "Linux always paces loss recovery with PRR (RFC 6937); no setting turns it off")
        if tcp.tsq:
            refuse(i, "tsq", "the kernel's TCP small queues act on the host's TUN device, which the driver drains at once, "
                   "never on the engine's qdisc and ring; leave tsq out (the engine's queues then see no TSQ, "
                   "as the simulator with tsq = false)")
        if not tcp.cubic_hystart:
            refuse(i, "cubic_hystart", "HyStart is a parameter of the tcp_cubic module (hystart), shared by the whole machine; leave cubic_hystart out")
        if tcp.cubic_alpha_switch:
            refuse(i, "cubic_alpha_switch", "Linux's tcp_cubic has no RFC 9438 §4.3 switch to alpha = 1; leave cubic_alpha_switch out")
        if tcp.ssthresh_from != "cwnd":
            refuse(i, "ssthresh_from", "Linux always reduces from the congestion window (tcp_init_cwnd_reduction); "
                   "leave ssthresh_from out")
        if tcp.cwnd_unit != "segment":
            refuse(i, "cwnd_unit", "Linux counts its congestion window in whole packets (snd_cwnd); leave cwnd_unit out")
        cc = CC_NAMES.get(tcp.cc, tcp.cc)
        if isinstance(t, pt.TCP_TRAFFIC) and cc in _NOT_IN_KERNEL and cc not in ccs:
            refuse(i, "cc", _NOT_IN_KERNEL[cc] + f" (available: {' '.join(ccs) or 'unknown'}); run it on the simulator")
        elif isinstance(t, pt.TCP_TRAFFIC) and ccs and cc not in ccs:
            refuse(i, "cc", f"this kernel has no {cc} congestion control (available: {' '.join(ccs)})")
        if isinstance(t, pt.RrulTraffic):
            refuse(i, "kind", "give the plan the tcp and ping blocks an rrul block stands for (the scenario reader expands it)")
            continue
        if isinstance(t, pt.PingTraffic) and t.proto != "icmp":
            refuse(i, "proto", "the hosts' probe is iputils ping (ICMP); leave proto out")
        if isinstance(t, (pt.UdpTraffic, pt.PingTraffic)) and t.size_bytes > MTU_BYTES:
            refuse(i, "size", f"{t.size_bytes} B exceeds the hosts' {MTU_BYTES} B MTU (the kernel would fragment it)")
        # Socket sizes only where the block sets them: the kernel's own otherwise.
        mss = tcp.mss_bytes if tcp.has("mss_bytes") else None
        sndbuf = tcp.sndbuf_bytes if tcp.has("sndbuf_bytes") else None
        rcvbuf = tcp.rwnd_bytes if tcp.has("rwnd_bytes") else None
        count = t.count if isinstance(t, pt.TcpTraffic) else 1
        for s_name, d_name in t.pairs:
            for _ in range(count):
                k = len(flows)
                s, d = ids[s_name], ids[d_name]
                src, dst = hosts[s], hosts[d]
                port = FLOW_PORT_BASE + k
                # Web and on/off flows' starts, and drawn bulk starts, are the engine's draws (below).
                drawn_start = pt.drawn_bulk_start(t)
                engine_drawn = isinstance(t, (pt.WebTraffic, pt.TcpOnoffTraffic)) or drawn_start
                start = None if engine_drawn else int(sample(pt.to_dict(t.start_ns), rng))
                flows.append(Flow(k, kind, s, d, t.size_bytes if isinstance(t, pt.TcpTraffic) else None))

                dst_addr = _addr(d)
                if isinstance(t, pt.TCP_TRAFFIC):  # data goes src -> dst in all three
                    if tcp.has("sack"):
                        v = "1" if tcp.sack else "0"
                        for h in (src, dst):
                            set_once(h, h.sysctls, "ipv4/tcp_sack", v, i, "sack")
                    # F-RTO (RFC 5682) and RACK (RFC 8985) are the sender's alone. Set either way,
                    # so that the machine's own values never leak in.
                    frto = "2" if tcp.frto else "0"
                    set_once(src, src.sysctls, "ipv4/tcp_frto", frto, i, "frto")
                    rack = "1" if tcp.rack else "0"
                    set_once(src, src.sysctls, "ipv4/tcp_recovery", rack, i, "rack")
                    # Tail loss probes (RFC 8985 §7): 3 is Linux's default, probes on; 0 none.
                    tlp = "3" if tcp.tlp else "0"
                    set_once(src, src.sysctls, "ipv4/tcp_early_retrans", tlp, i, "tlp")
                    # D-SACK (RFC 2883) is the receiver's to send; Linux's sender reads any it
                    # gets whatever its own setting.
                    dsack = "1" if tcp.dsack else "0"
                    set_once(dst, dst.sysctls, "ipv4/tcp_dsack", dsack, i, "dsack")
                    # SACK compression is the receiver's too (tcp_comp_sack_nr 0 turns it off).
                    # Set only where the block says: a new namespace starts at Linux's 44 and 1 ms.
                    if tcp.has("comp_sack"):
                        nr = "44" if tcp.comp_sack else "0"
                        set_once(dst, dst.sysctls, "ipv4/tcp_comp_sack_nr", nr, i, "comp_sack")
                    if tcp.has("comp_sack_delay_ns"):
                        set_once(dst, dst.sysctls, "ipv4/tcp_comp_sack_delay_ns", str(tcp.comp_sack_delay_ns),
                                 i, "comp_sack_delay_ns")
                    # GSO bursts are the sender's: without them its device takes one segment per
                    # buffer (docs/tcp.md, GSO); the fewest segments per burst is a sysctl.
                    gso = GSO_MAX_SEGS if tcp.gso else "1"
                    set_once(src, src.link, "gso_max_segs", gso, i, "gso")
                    set_once(src, src.sysctls, "ipv4/tcp_min_tso_segs", str(tcp.min_tso_segs), i, "min_tso_segs")
                    # The pacing rate's ratios (Linux's tcp_update_pacing_rate) are the sender's.
                    for key in ("pacing_ss_ratio", "pacing_ca_ratio"):
                        if tcp.has(key):
                            set_once(src, src.sysctls, f"ipv4/tcp_{key}", str(getattr(tcp, key)), i, key)
                    # The option is negotiated in the handshake: both ends, like SACK.
                    ts = "1" if tcp.timestamps else "0"
                    for h in (src, dst):
                        set_once(h, h.sysctls, "ipv4/tcp_timestamps", ts, i, "timestamps")
                    # RFC 3168 §6.1.1: the sender asks in its SYN (set below, once every block
                    # is read); every host accepts, as Linux's default (2) and the simulator's
                    # receiver do.
                    ecn_asks.setdefault(src.node, {}).setdefault(bool(tcp.ecn), i)
                    ecn_asks.setdefault(dst.node, {})
                    if not tcp.delayed_ack:
                        set_once(dst, dst.routes.setdefault(s, {}), "quickack", "1", i, "delayed_ack")
                    if tcp.has("initial_window"):
                        set_once(src, src.routes.setdefault(d, {}), "initcwnd", str(tcp.initial_window), i, "initial_window")
                    if tcp.has("min_rto_ns"):
                        ms = max(1, round(tcp.min_rto_ns / 1e6))
                        set_once(src, src.routes.setdefault(d, {}), "rto_min", f"{ms}ms", i, "min_rto_ns")
                if isinstance(t, pt.TcpTraffic):
                    dst.roles.append({"role": "tcp_sink", "flow": k, "port": port, "rcvbuf": rcvbuf, "size": t.size_bytes, "cc": cc})
                    src.roles.append({
                        "role": "tcp_source", "flow": k, "dst": dst_addr, "port": port, "start_ns": start,
                        "size": t.size_bytes, "cc": cc, "mss": mss, "sndbuf": sndbuf, "pacing": tcp.pacing,
                    })
                    if drawn_start:
                        bulk.append((src.roles[-1], flows[-1]))
                elif isinstance(t, (pt.WebTraffic, pt.TcpOnoffTraffic)):
                    # Data flows from the pair's first node to its second: the second connects and
                    # asks for a size, the first sends it (as a web client and server). Web opens a
                    # connection per transfer; on/off keeps one for all of its transfers, as the
                    # simulator's sender does (tcp/endpoint.rs), so an idle time is a pause of one
                    # connection (its window kept, or restarted after an RTO: RFC 5681 §4.1).
                    src.roles.append({"role": "tcp_server", "flow": k, "port": port, "cc": cc, "mss": mss, "sndbuf": sndbuf,
                                      "pacing": tcp.pacing, "persistent": isinstance(t, pt.TcpOnoffTraffic)})
                    client = {"role": "tcp_client", "flow": k, "dst": _addr(s), "port": port, "cc": cc,
                              "mode": "poisson" if isinstance(t, pt.WebTraffic) else "onoff", "rcvbuf": rcvbuf}
                    dst.roles.append(client)
                    clients.append((client, flows[-1]))
                elif isinstance(t, pt.UdpTraffic):
                    dst.roles.append({"role": "udp_sink", "flow": k, "port": port})
                    src.roles.append({
                        "role": "udp_source", "flow": k, "dst": dst_addr, "port": port, "start_ns": start,
                        "stop_ns": t.stop_ns or duration, "rate_pps": t.rate_pps,
                        "payload": t.size_bytes - IP_UDP_HEADERS, "arrivals": t.arrivals,
                        "burst": [t.burst.packets, t.burst.every_ns] if t.burst else None, "ttl": t.ttl,
                        "seed": rng.randrange(1 << 32),
                    })
                elif isinstance(t, pt.BallastTraffic):
                    # The real tool in the source's namespace (docs/ballast.md); a sink takes its
                    # packets as the simulator's does, so the destination answers no port-unreachable.
                    dst.roles.append({"role": "udp_sink", "flow": k, "port": port})
                    src.roles.append({
                        "role": "ballast", "flow": k, "start_ns": start, "stop_ns": t.stop_ns or duration,
                        "args": ballast_args(t, f"{dst_addr}:{port}"),
                    })
                elif isinstance(t, pt.PingTraffic):
                    src.roles.append({
                        "role": "ping", "flow": k, "dst": dst_addr, "ident": port, "start_ns": start,
                        "stop_ns": t.stop_ns or duration, "interval_ns": t.interval_ns,
                        "payload": t.size_bytes - IP_UDP_HEADERS,
                    })
    for node, asks in ecn_asks.items():
        # A namespace has one tcp_ecn: its senders must agree (1 asks and also accepts).
        if len(asks) > 1:
            refuse(asks[False], "ecn", f"another traffic block sending from {hosts[node].name} sets ecn = true, and tcp_ecn is one setting per host")
        hosts[node].sysctls["ipv4/tcp_ecn"] = "1" if True in asks else "2"
    if problems:
        raise ScenarioError(problems, getattr(sc, "source", None))
    starts = bulk_starts(sc) if bulk else {}
    for source, f in bulk:
        source["start_ns"] = starts[f.index]
    drawn = workload_draws(sc) if clients else {}
    for client, f in clients:
        w = _flow_draws(drawn, f)
        client.update(start_ns=w["start_ns"], sizes=w["sizes_bytes"], arrivals_ns=w["arrivals_ns"],
                      idles_ns=w["idles_ns"], complete=w["complete"])
    return KernelPlan(hosts=list(hosts.values()), flows=flows)


def _flow_draws(drawn: dict[int, dict[str, Any]], f: Flow) -> dict[str, Any]:
    """Flow ``f``'s draws, checked to be the engine's flow of its index: the kernel's flows are
    numbered as the engine's (block, pair, count), which their ports and result rows rely on."""
    w = drawn.get(f.index)
    if w is None or (w["kind"], w["src"], w["dst"]) != (f.kind, f.src, f.dst):
        got = "none" if w is None else f"{w['id']} ({w['kind']}, nodes {w['src']} -> {w['dst']})"
        raise RuntimeError(f"kernel plan: flow {f.index} is a {f.kind} flow from node {f.src} to {f.dst}, the engine's is {got}")
    return w


def ballast_args(t: pt.BallastTraffic, to: str) -> list[str]:
    """The ``bufferlab ballast`` options of a ``kind = "ballast"`` block (the same defaults: the
    scenario's are the tool's, ``ttl`` 2 and ``max_share`` 0.2 among them)."""
    from ..ballast.sender import SAFE_PPS

    args = ["--to", to, "--size", f"{t.size_bytes}B", "--ttl", str(t.ttl)]
    if t.auto:
        args.append("--auto")
        if t.target_ns is not None:
            args += ["--target", f"{t.target_ns}ns"]
        if t.has("max_share"):
            args += ["--max-share", repr(t.max_share)]
        if t.period_ns is not None:
            args += ["--period", f"{t.period_ns}ns"]
        return args
    if t.rate_pps is None:
        raise ValueError("a ballast block without auto needs rate_pps")
    args += ["--rate", f"{t.rate_pps!r}pps"]
    if t.rate_pps > SAFE_PPS:
        args.append("--force")  # the scenario asked for it; the tool's cap is for people
    if t.burst:
        args += ["--burst", str(t.burst.packets), "--every", f"{t.burst.every_ns}ns"]
    return args


def _addr(node: int) -> str:
    """Node ``node``'s address in the namespaces (the driver's ``node_addr``)."""
    n = node + 1
    return f"10.77.{n >> 8}.{n & 255}"
