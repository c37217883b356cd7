"""A bufferlab plan in ns-3's terms: the configuration ``ns3-program/main.cc`` builds from.

Every choice that makes ns-3 run what bufferlab runs is made here, where a test can read it
(``tests/test_crosscheck.py``); the C++ program only applies attribute names and values.

What is matched, and how (docs/crosscheck.md explains each):

* **Buffer.** ns-3 puts a device queue under the queue disc. It is one packet here, and with flow
  control the disc stops while it is full, so one packet waits there besides the one on the wire.
  bufferlab's port holds ``limit`` packets besides the one on the wire, so the disc gets
  ``limit - 1`` packets (or ``limit - MTU`` bytes): the same number of packets can wait.
* **Wire time.** ns-3's point-to-point device adds a 2 B PPP header to every packet; the device
  rate is raised by ``(P + 2) / P``, P the largest data packet, so those packets take exactly
  bufferlab's time on the wire (smaller ones take up to 2 B longer).
* **TCP.** Every default that differs is set from the plan: segment size, initial window,
  ssthresh from SND.NXT − SND.UNA rather than ns-3's pipe (NewReno),
  delayed ACKs (count and 40 ms timer), SACK, minimum RTO, buffers (1 GiB), classic (RFC 6675)
  recovery instead of PRR, no limited transmit, no timestamps (bufferlab does not charge option
  bytes on the wire), no HyStart for Cubic, an RTO of ``SRTT + max(min_rto, 4 RTTVAR)`` (ns-3's
  clock granularity set to ``min_rto``), SYN timeout 1 s, no connection abort after 6 retries.

What ns-3 cannot express is refused, each problem naming the key in the scenario file.
"""

from __future__ import annotations

import copy

import math
from collections import deque
from typing import Any

from .. import plan_types as pt
from ..plan_types import flow_ids
from ..errors import Problem, ScenarioError
from ..scenario import Scenario, translate as map_key
from ..scenario import TCP_KINDS
from .options import Ns3Options

__all__ = ["to_ns3", "matched_for_ns3", "NS3_LACKS", "Unsupported", "DEVICE_QUEUE_PKTS", "PPP_HEADER_BYTES", "BASE_PORT", "flow_ids"]

DEVICE_QUEUE_PKTS = 1
PPP_HEADER_BYTES = 2
BASE_PORT = 10_000
IP_MTU_BYTES = 1500
DEFAULT_MSS = 1460
TCP_HEADERS = 40
DEFAULT_MIN_RTO_NS = 200_000_000  # bufferlab's default (docs/tcp.md), Linux TCP_RTO_MIN
DEFAULT_DELACK_NS = 40_000_000  # Linux TCP_DELACK_MIN
ONE_GIB = 1 << 30

NS3_QDISC = {
    "fifo": "ns3::FifoQueueDisc",
    "red": "ns3::RedQueueDisc",
    "codel": "ns3::CoDelQueueDisc",
    "fq_codel": "ns3::FqCoDelQueueDisc",
    "pie": "ns3::PieQueueDisc",
    "fq_pie": "ns3::FqPieQueueDisc",
    # COBALT in flow queues (set-associative, 8 ways): CAKE without its shaper, tins and hosts.
    "cake": "ns3::FqCobaltQueueDisc",
}
# Why a discipline has no ns-3 counterpart, where more can be said than that.
NS3_NO_QDISC = {
    "fq": "ns-3 (3.44) has no fq (Linux sch_fq): its traffic-control models have FqCoDel, FqCobalt and FqPie, "
          "none of which holds packets to a departure time or caps a flow's rate",
}
# bufferlab's NewReno grows its window by bytes acknowledged (RFC 3465 with L = 2, RFC 5681 §3.1),
# so delayed ACKs do not slow it. Neither ns-3 class does that: TcpNewReno grows per ACK
# (MSS²/cwnd in avoidance, one MSS per ACK in slow start: half as fast with delayed ACKs), and
# TcpLinuxReno counts segments without the L = 2 limit and halves cwnd rather than FlightSize.
# The program carries bl::Rfc3465Reno (ns3-program/reno.h), a TcpNewReno with bufferlab's growth;
# recovery, timers and SACK stay ns-3's.
# BBR is ns-3's TcpBbr (Linux's v1, without the long-term policer sampling), which turns on its
# socket's pacing itself.
# DCTCP is ns-3's TcpDctcp (RFC 8257: g = 1/16, alpha starting at 1, ECT(0)); the program builds
# the receiving socket with the same algorithm, which gives it DCTCP's per-segment echo, and ECN
# is on for both ends as DCTCP needs.
NS3_CC = {"newreno": "bl::Rfc3465Reno", "cubic": "ns3::TcpCubic", "vegas": "ns3::TcpVegas", "bbr": "ns3::TcpBbr",
          "dctcp": "ns3::TcpDctcp"}
# Prague ns-3 3.44 lacks.
NS3_REFUSED_CC = {
    "prague": "ns-3 (3.44) has no TCP Prague (nor AccECN feedback); run it on the simulator only",
}
# Pacing for the other algorithms: ns-3's TcpSocketState paces by a timer at Linux's rate (ratios
# in percent), leaving the initial window unpaced as Linux leaves its first ten segments. These
# are attribute defaults, so one setting for every socket of the run.
NS3_PACING = "ns3::TcpSocketState::"


class Unsupported(ScenarioError):
    """A scenario ns-3 cannot run as bufferlab does; ``.problems`` name the keys that block it."""


def _ns(t_ns: float) -> str:
    return f"{int(round(t_ns))}ns"


class _Refusals:
    def __init__(self, sc: Scenario) -> None:
        self.sc = sc
        self.items: list[Problem] = []

    def add(self, plan_path: str, why: str) -> None:
        """A refusal at a plan key, reported at the file's key (via the scenario's origins)."""
        p = map_key(f"{plan_path}: {why}", self.sc.origins)
        if plan_path.endswith(".queue.qdisc"):
            p = Problem(f"{p.path}.discipline", p.message)
        if p not in self.items:
            self.items.append(p)


def _largest_packet(plan: pt.Scenario) -> int:
    sizes = [DEFAULT_MSS + TCP_HEADERS]
    for block in plan.traffic:
        if isinstance(block, pt.TCP_TRAFFIC):
            sizes.append(block.tcp.mss_bytes + TCP_HEADERS)
        else:
            sizes.append(block.size_bytes)
    data = [s for s in sizes if s]
    # The TCP default is only a floor when the plan has TCP; a UDP-only plan has its own sizes.
    if not any(isinstance(b, pt.TCP_TRAFFIC) for b in plan.traffic) and len(data) > 1:
        data = data[1:]
    return max(data)


def _limit(queue: pt.QueueSpec, resolved: dict[str, Any] | None, path: str, why: _Refusals) -> tuple[str, int, str] | None:
    """(unit, value, as the results show it) of the buffer bufferlab's port holds; ``resolved`` is
    the engine's queues-table row for a sizing rule."""
    if queue.sizing:
        rule = queue.sizing.rule
        if rule == "rtt-adaptive":
            why.add(f"{path}.sizing", "ns-3 has no RTT-adaptive buffer (it re-sizes during the run); give a fixed limit or a static rule")
            return None
        if not resolved or (resolved.get("limit_pkts") is None and resolved.get("limit_bytes") is None):
            why.add(f"{path}.sizing", f'the "{rule}" rule is resolved by bufferlab\'s engine; pass the limit it resolved (crosscheck does)')
            return None
        if resolved.get("limit_pkts") is not None:
            return "p", int(resolved["limit_pkts"]), f"{int(resolved['limit_pkts'])}pkt ({rule})"
        return "B", int(resolved["limit_bytes"]), f"{int(resolved['limit_bytes'])}B ({rule})"
    if queue.limit_pkts is not None:
        return "p", queue.limit_pkts, f"{queue.limit_pkts}pkt"
    if queue.limit_bytes is None:
        raise ValueError(f"{path}: the plan gives no limit and no sizing rule")
    return "B", queue.limit_bytes, f"{queue.limit_bytes}B"


def _qdisc(q: pt.QdiscSpec, path: str, limit: tuple[str, int, str], mtu_pkt: int, why: _Refusals, opts: Ns3Options) -> dict[str, Any] | None:
    kind = q.kind
    if kind not in NS3_QDISC:
        why.add(f"{path}.queue.qdisc", NS3_NO_QDISC.get(kind, f"ns-3 has no {kind} queue discipline"))
        return None
    unit, value, _ = limit
    # One packet waits in ns-3's device queue (DEVICE_QUEUE_PKTS, or the option's): the disc
    # holds the rest.
    dev = opts.device_queue_pkts
    if unit == "p":
        size = f"{max(1, value - dev)}p"
    else:
        size = f"{max(mtu_pkt, value - dev * mtu_pkt)}B"
    attrs: dict[str, str] = {"MaxSize": size}
    if isinstance(q, pt.RedQdisc):
        in_bytes = q.min_th_bytes is not None or q.max_th_bytes is not None
        if in_bytes != (unit == "B"):
            why.add(f"{path}.queue.qdisc.max_th", "ns-3's RED counts its thresholds in the unit of its limit: give both in packets or both in bytes")
            return None
        # A plain number counts packets, as in ns-2 (the plan keeps it without a unit suffix);
        # absent, ns-2's thresh_ 5 and maxthresh_ 15.
        step = False
        min_th = _first(q.min_th_bytes if in_bytes else q.min_th_pkts, q.min_th, 5)
        max_th = _first(q.max_th_bytes if in_bytes else q.max_th_pkts, q.max_th, 15)
        if max_th == min_th:
            # Step marking (DCTCP's K): ns-3's RED takes its slope as 1 / (MaxTh - MinTh), so
            # MinTh goes a millionth of a unit below K. The average (a whole number of packets
            # with weight 1) is then either below both thresholds or at MaxTh or above, where
            # ns-3's forced region marks as Linux's RED does (UseHardDrop false, below).
            # With max_p = 1 the gentle region marks with probability 1 too: the step is the
            # same either way, and ns-3 runs it without gentle.
            if q.gentle and q.max_p < 1.0:
                why.add(f"{path}.queue.qdisc.gentle", "step marking (min_th = max_th) with gentle and max_p < 1 has "
                        "no ns-3 equivalent: leave gentle off or set max_p = 1")
                return None
            min_th = max_th - 1e-6
            step = True
        attrs.update({
            # Linux's RED marks (rather than drops) ECN-capable packets above max_th unless
            # `harddrop`, as bufferlab's does; ns-3 hard-drops there by default.
            "UseHardDrop": "false",
            "MinTh": repr(float(min_th)),
            "MaxTh": repr(float(max_th)),
            # ns-3 (as ns-2) takes max_p as 1 / LInterm.
            "LInterm": repr(1.0 / q.max_p),
            "QW": repr(q.weight),
            "Gentle": "true" if q.gentle and not step else "false",
            "Wait": "true" if q.wait else "false",
            "MeanPktSize": str(q.mean_pkt_bytes),
            "UseEcn": "true" if q.ecn else "false",
        })
    elif isinstance(q, (pt.CodelQdisc, pt.FqCodelQdisc)):
        attrs["Target"] = _ns(q.target_ns)
        attrs["Interval"] = _ns(q.interval_ns)
        attrs["UseEcn"] = "true" if q.ecn else "false"
        if isinstance(q, pt.FqCodelQdisc):
            attrs["Flows"] = str(q.flows)
            if q.ce_threshold_ns is not None:
                # ns-3's FqCoDel marks past CeThreshold every ECN-capable packet, or with
                # UseL4s only ECT(1) (and CE): Linux's selector/mask 0x1/0x1 or mask 0.
                sel = (q.ce_threshold_selector, q.ce_threshold_mask)
                if sel not in ((1, 1), (0, 0)):
                    why.add(f"{path}.queue.qdisc.ce_threshold_mask", "ns-3's FqCoDel applies its CeThreshold to every "
                            "ECN-capable packet or (UseL4s) to ECT(1) only; use selector/mask 1/1 or 0/0")
                attrs["CeThreshold"] = _ns(q.ce_threshold_ns)
                attrs["UseL4s"] = "true" if sel == (1, 1) else "false"
            attrs.update(_extra(opts.qdisc, kind))
            # Not an attribute in ns-3 (whose default is the device MTU, 1500 B): set through
            # FqCoDelQueueDisc::SetQuantum. bufferlab's default is Linux's 1514 B.
            return {"type": NS3_QDISC[kind], "attrs": attrs, "quantum_bytes": q.quantum_bytes}
    elif isinstance(q, pt.CakeQdisc):
        return _cake(q, path, attrs, why)
    elif isinstance(q, pt.PieQdisc):
        attrs.update({
            "QueueDelayReference": _ns(q.target_ns),
            "Tupdate": _ns(q.tupdate_ns),
            "A": repr(q.alpha),
            "B": repr(q.beta),
            "MaxBurstAllowance": _ns(q.max_burst_ns),
            # bufferlab's PIE estimates the departure rate (RFC 8033 §5.2) over 16 KiB.
            "UseDequeueRateEstimator": "true",
            "DequeueThreshold": "16384",
            "UseCapDropAdjustment": "true",
            # RFC 8033 §5.1: marks up to a 10% probability (ns-3's MarkEcnThreshold default).
            "UseEcn": "true" if q.ecn else "false",
        })
    elif isinstance(q, pt.FqPieQdisc):
        # ns-3's FqPie runs an ns-3 PieQueueDisc per flow queue; set as Linux's sch_fq_pie runs
        # its PIE (docs/qdisc-fq-pie.md): the delay from timestamps, derandomized, the first
        # update after 0.5 s. What stays ns-3's: on overload it drops from the fattest queue where
        # Linux refuses the arrival, and its PIE keeps RFC 8033's 2% decay and drop test.
        attrs.update({
            "QueueDelayReference": _ns(q.target_ns),
            "Tupdate": _ns(q.tupdate_ns),
            "Supdate": _ns(500_000_000),
            "A": repr(q.alpha),
            "B": repr(q.beta),
            "MaxBurstAllowance": _ns(150_000_000),
            "UseDequeueRateEstimator": "false",
            "UseDerandomization": "true",
            "UseCapDropAdjustment": "true",
            "UseEcn": "true" if q.ecn else "false",
            "MarkEcnThreshold": repr(q.ecn_prob),
            "Flows": str(q.flows),
        })
        attrs.update(_extra(opts.qdisc, kind))
        return {"type": NS3_QDISC[kind], "attrs": attrs, "quantum_bytes": q.quantum_bytes}
    attrs.update(_extra(opts.qdisc, kind))
    return {"type": NS3_QDISC[kind], "attrs": attrs}


# CAKE keys ns-3's FqCobalt has nothing for, with what to write instead.
_CAKE_ONLY = {
    "bandwidth_bps": "ns-3's FqCobalt has no shaper; leave bandwidth out (unlimited)",
    "memlimit_bytes": "ns-3's FqCobalt limits packets, not memory; leave memlimit out",
    "overhead_bytes": "without a shaper overhead only changes CAKE's DRR accounting, which FqCobalt charges in IP bytes; leave overhead out",
    "mpu_bytes": "without a shaper mpu only changes CAKE's DRR accounting; leave mpu out",
}


def _cake(q: pt.CakeQdisc, path: str, attrs: dict[str, str], why: _Refusals) -> dict[str, Any] | None:
    """CAKE as ns-3's FqCobaltQueueDisc: only where they are the same discipline (unshaped, one
    tin, per-flow fairness); every other key is refused by name."""
    key = f"{path}.queue.qdisc"
    for k, msg in _CAKE_ONLY.items():
        if getattr(q, k) not in (None, 0):
            why.add(f"{key}.{k.rsplit('_', 1)[0]}", msg)
    if q.atm != "noatm":
        why.add(f"{key}.atm", "ns-3's FqCobalt has no shaper to account cells for; leave atm out")
    if q.diffserv != "besteffort":
        why.add(f"{key}.diffserv", 'ns-3\'s FqCobalt has no DiffServ tins; give diffserv = "besteffort"')
    if q.isolation != "flows":
        why.add(f"{key}.isolation", 'ns-3\'s FqCobalt is fair between flows only, not hosts; give isolation = "flows"')
    if q.ingress:
        why.add(f"{key}.ingress", "ns-3's FqCobalt has no ingress mode; leave ingress out")
    attrs.update({
        "Target": _ns(q.target_ns),
        # Unshaped, CAKE's interval is its rtt (Linux cake_set_rate).
        "Interval": _ns(q.rtt_ns),
        "UseEcn": "true",  # CAKE always marks ECN-capable packets
        "Flows": "1024",
        "EnableSetAssociativeHash": "true",
        "SetWays": "8",
        "DropBatchSize": "1",  # cake_drop takes one packet per overflow
        "Increment": repr(1 / 256),
        "Decrement": repr(1 / 4096),
    })
    # CAKE charges DRR the IP packet and its 14 B Ethernet header against a 1514 B quantum;
    # ns-3 charges IP bytes: the same quantum in IP bytes.
    return {"type": NS3_QDISC["cake"], "attrs": attrs, "quantum_bytes": 1500}


def _first(*values: float | None) -> float:
    """The first value that is set."""
    return next(v for v in values if v is not None)


# Queue-disc attributes only some disciplines have: an option names them once for all links.
_QDISC_ONLY = {"DropBatchSize": ("fq_codel", "fq_pie"), "Flows": ("fq_codel", "fq_pie"), "Perturbation": ("fq_codel", "fq_pie")}


def _extra(attrs: dict[str, str], kind: str) -> dict[str, str]:
    return {k: v for k, v in attrs.items() if kind in _QDISC_ONLY.get(k, (kind,))}


def _direction(d: pt.DirSpec, path: str, name: str, limits: dict[str, Any], mtu_pkt: int, why: _Refusals, opts: Ns3Options) -> dict[str, Any]:
    if d.framing != "none":
        why.add(f"{path}.framing", f"ns-3's point-to-point link has no {d.framing} framing; use framing = \"none\"")
    if d.ring is not None:
        why.add(f"{path}.ring", "ns-3 has no NIC ring with BQL under a queue disc that matches bufferlab's; leave ring out")
    if d.trace is not None:
        why.add(f"{path}.rate", "ns-3's point-to-point link has a constant rate, not a trace's delivery opportunities; give a rate")
    if d.jitter_ns:
        why.add(f"{path}.jitter", "ns-3's point-to-point channel has one fixed delay, without a random part; leave jitter out")
    out: dict[str, Any] = {
        "name": name,
        "rate_bps": d.rate_bps,
        "delay_ns": d.delay_ns,
        "device_rate_bps": d.rate_bps * (mtu_pkt + PPP_HEADER_BYTES) / mtu_pkt,
        "device_queue_pkts": opts.device_queue_pkts,
        "discipline": d.queue.qdisc.kind,
    }
    if d.loss:
        out["loss"] = d.loss
    limit = _limit(d.queue, limits.get(name), f"{path}.queue", why)
    if limit is not None:
        out["limit"] = limit[2]
        qd = _qdisc(d.queue.qdisc, path, limit, mtu_pkt, why, opts)
        if qd is not None:
            out["qdisc"] = qd
    return out


def _tcp(opts: pt.TcpOptions, path: str, why: _Refusals, ns3: Ns3Options) -> dict[str, Any]:
    cc = opts.cc
    if cc in NS3_REFUSED_CC:
        why.add(f"{path}.tcp.cc", NS3_REFUSED_CC[cc])
        cc = "newreno"  # to go on collecting the block's other problems
    if opts.has("accecn") and opts.accecn:
        why.add(f"{path}.tcp.accecn", "ns-3 (3.44) has no AccECN feedback (RFC 9768); leave accecn out")
    min_rto = opts.min_rto_ns
    if not opts.handshake:
        why.add(f"{path}.tcp.handshake", "ns-3's TCP always opens with a handshake; remove handshake = false")
    if opts.has("max_rto_ns"):
        why.add(f"{path}.tcp.max_rto_ns", "ns-3's TCP has no maximum RTO setting; leave max_rto out")
    if opts.has("rtt_samples") and opts.rtt_samples != "every_ack":
        why.add(f"{path}.tcp.rtt_samples", "ns-3's TCP samples the RTT on every ACK of new data; leave rtt_samples out")
    if opts.has("initial_rto_ns") and opts.initial_rto_ns != 1_000_000_000:
        why.add(f"{path}.tcp.initial_rto_ns", "the crosscheck runs ns-3 with its 1 s initial RTO (RFC 6298); leave "
                "initial_rto out")
    total_floor = opts.has("rto_floor") and opts.rto_floor == "total"
    # Refused only where the block asks for them: the crosscheck runs bufferlab with them off
    # where it leaves them out (matched_for_ns3).
    if opts.has("frto") and opts.frto:
        why.add(f"{path}.tcp.frto", "ns-3 (3.44) has no F-RTO (RFC 5682): it never finds a timeout spurious; "
                "leave frto out (the crosscheck then runs bufferlab without it too)")
    if opts.has("timestamps") and opts.timestamps:
        why.add(f"{path}.tcp.timestamps", "the crosscheck runs ns-3 without the timestamp option's 12 B (Timestamp = false); "
                "leave timestamps out (the crosscheck then runs bufferlab without them too)")
    if opts.has("gso") and opts.gso and opts.sack:
        why.add(f"{path}.tcp.gso", "ns-3 (3.44) sends each segment as its window allows (no GSO bursts or deferral); "
                "leave gso out (the crosscheck then runs bufferlab without it too)")
    if opts.has("rto_rearm") and opts.rto_rearm:
        why.add(f"{path}.tcp.rto_rearm", "ns-3 (3.44) restarts its retransmission timer on new ACKs only; leave "
                "rto_rearm out (the crosscheck then runs bufferlab without the restart too)")
    if opts.has("tlp") and opts.tlp and opts.sack:
        why.add(f"{path}.tcp.tlp", "ns-3 (3.44) has no tail loss probes (RFC 8985 §7): a lost tail waits for its "
                "retransmission timer; leave tlp out (the crosscheck then runs bufferlab without them too)")
    if opts.tsq:
        why.add(f"{path}.tcp.tsq", "ns-3 (3.44) has no TCP small queues: its sockets hand the device every segment the "
                "window allows; leave tsq out (off on the links the crosscheck accepts, which have no ring and no fq)")
    for key, needs, lacks in NS3_LACKS_WHY:
        if opts.has(key) and getattr(opts, key) and getattr(opts, needs):
            why.add(f"{path}.tcp.{key}", f"ns-3 (3.44) {lacks}; leave {key} out (the crosscheck then runs bufferlab "
                    "without it too)")
    if opts.grow_below_rwnd:
        why.add(f"{path}.tcp.grow_below_rwnd", "ns-3 (3.44) has no FreeBSD window-growth test; leave grow_below_rwnd out")
    if opts.badrxt_undo:
        why.add(f"{path}.tcp.badrxt_undo", "ns-3 (3.44) never finds a timeout spurious (no FreeBSD t_badrxtwin undo); "
                "leave badrxt_undo out")
    # ns-3's NewReno here (bl::Rfc3465Reno) reduces from FlightSize, its TcpCubic from cwnd
    # (TcpCubic::GetSsThresh), each the only way it can: the crosscheck runs bufferlab the same.
    own_base = NS3_SSTHRESH_FROM.get(cc)
    if own_base is not None and opts.has("ssthresh_from") and opts.ssthresh_from != own_base:
        why.add(f"{path}.tcp.ssthresh_from", f"ns-3's {cc} takes ssthresh from {own_base} only; leave ssthresh_from out "
                f"(the crosscheck then runs bufferlab with {own_base} too)")
    cc_attrs: dict[str, str] = {}
    beta = opts.beta
    if cc == "newreno":
        # ssthresh from FlightSize = SND.NXT - SND.UNA (RFC 5681 eq. 4, RFC 6675 §5 (4.2)), as
        # bufferlab; ns-3's own rule halves its pipe, which leaves out SACKed and lost bytes (and,
        # without SACK, a segment per duplicate ACK). docs/ns3-differences.md measures the change.
        cc_attrs["FlightSizeFromSequence"] = "true"
        if opts.sack:
            # At a timeout bufferlab's SACK sender halves the pipe instead (docs/tcp.md): with
            # FlightSize there, behind FQ-CoDel, ns-3 queued twice as much (ns3-differences.md).
            cc_attrs["TimeoutFlightFromPipe"] = "true"
    if cc == "cubic":
        cc_attrs["Beta"] = repr(beta if beta is not None else opts.cubic_beta)
        cc_attrs["C"] = repr(opts.cubic_c)
        cc_attrs["FastConvergence"] = "true" if opts.cubic_fast_convergence else "false"
        # Linux's HyStart, which ns-3's TcpCubic carries too (same constants).
        cc_attrs["HyStart"] = "true" if opts.cubic_hystart else "false"
    elif beta is not None and not (cc == "newreno" and beta == 0.5):
        why.add(f"{path}.tcp.beta", f"ns-3's {cc} has no decrease-factor setting (NewReno halves); leave beta out")
    if cc == "vegas":
        # bufferlab's thresholds whether the block gives them or not (its defaults, 1, 3 and 1
        # packets, are Brakmo & Peterson's; ns-3's own are 2, 4, 1): both sides run one model.
        vegas = (("vegas_alpha", "Alpha", opts.vegas_alpha), ("vegas_beta", "Beta", opts.vegas_beta),
                 ("vegas_gamma", "Gamma", opts.vegas_gamma))
        for key, attr, v in vegas:
            if float(v) != int(v):
                why.add(f"{path}.tcp.{key}", "ns-3's Vegas takes whole packets; give an integer")
            cc_attrs[attr] = str(int(v))
    socket = {
        "SegmentSize": str(opts.mss_bytes),
        "InitialCwnd": str(opts.initial_window),
        "Sack": "true" if opts.sack else "false",
        # RFC 3168: both ends of a connection are built with this; "On" asks and accepts.
        "UseEcn": "On" if opts.ecn or cc == "dctcp" else "Off",
        "DelAckCount": "2" if opts.delayed_ack else "1",
        "DelAckTimeout": _ns(opts.delack_ns),
        # ns-3: RTO = max(SRTT + max(G, 4 RTTVAR), MinRto); bufferlab: SRTT + max(min_rto, 4 RTTVAR),
        # or with rto_floor = "total" max(min_rto, SRTT + 4 RTTVAR): G of 1 ns.
        "MinRto": _ns(min_rto),
        "ClockGranularity": "1ns" if total_floor else _ns(min_rto),
        "SndBufSize": str(min(opts.sndbuf_bytes, 2**32 - 1)),
        "RcvBufSize": str(min(opts.rwnd_bytes, 2**32 - 1)),
        "Timestamp": "false",
        "WindowScaling": "true",
        "LimitedTransmit": "false",
        "ConnTimeout": "1000000000ns",
        "ConnCount": "100",
        "DataRetries": "1000",
    }
    socket.update(ns3.socket)
    cc_attrs.update(ns3.cc)
    # RFC 6937 PRR paces SACK recovery in bufferlab unless the block turns it off; ns-3's
    # TcpPrrRecovery is the same rule, TcpClassicRecovery RFC 6675's alone.
    own = "prr" if opts.sack and opts.prr else "classic"
    return {"cc": NS3_CC[cc], "cc_attrs": cc_attrs, "socket": socket, "recovery": ns3.recovery or own}


def _pacing(plan: pt.Scenario, why: _Refusals) -> dict[str, str]:
    """ns-3's attribute defaults for ``pacing``: its TCP blocks other than BBR (which paces
    itself) must agree, as ns-3 turns pacing on for every socket at once."""
    blocks = [(b, t.tcp) for b, t in enumerate(plan.traffic) if isinstance(t, pt.TCP_TRAFFIC) and t.tcp.cc != "bbr"]
    paced = [o for _, o in blocks if o.pacing]
    if not paced:
        return {}
    first = paced[0]
    for b, o in blocks:
        if not o.pacing:
            why.add(f"traffic[{b}].tcp.pacing", "ns-3 paces every TCP socket or none (TcpSocketState::EnablePacing is one "
                    "default for the run); give every TCP block the same pacing")
            continue
        for key in ("pacing_ss_ratio", "pacing_ca_ratio"):
            if getattr(o, key) != getattr(first, key):
                why.add(f"traffic[{b}].tcp.{key}", f"ns-3's {key} is one default for every socket of the run; "
                        "give every paced block the same")
    return {
        NS3_PACING + "EnablePacing": "true",
        NS3_PACING + "PacingSsRatio": str(first.pacing_ss_ratio),
        NS3_PACING + "PacingCaRatio": str(first.pacing_ca_ratio),
        NS3_PACING + "PaceInitialWindow": "false",
    }


def _dist(d: pt.Dist) -> dict[str, Any]:
    """A plan distribution in the parameters of ns-3's random variables."""
    if isinstance(d, pt.ParetoDist):
        a = d.shape
        return {"dist": "pareto", "shape": a, "scale": d.mean * (a - 1) / a}
    if isinstance(d, pt.LognormalDist):
        m, s = d.mean, d.sd
        sigma2 = math.log(1 + (s * s) / (m * m))
        return {"dist": "lognormal", "mu": math.log(m) - sigma2 / 2, "sigma": math.sqrt(sigma2)}
    return pt.to_dict(d)  # const, exp, uniform and zipf are ns-3's as they are


def _graph(plan: pt.Scenario) -> dict[str, list[tuple[str, int]]]:
    g: dict[str, list[tuple[str, int]]] = {n: [] for n in plan.nodes}
    for link in plan.links:
        g[link.a].append((link.b, link.forward.delay_ns))
        g[link.b].append((link.a, link.reverse.delay_ns))
    return g


def path_delay_ns(plan: Any, src: str, dst: str) -> int:
    """One-way propagation delay along the fewest-hop path (ns-3's global routing); ``plan`` is a
    loaded scenario, a plan dict or a typed plan."""
    g = _graph(pt.typed(plan))
    prev: dict[str, tuple[str, int] | None] = {src: None}
    todo = deque([src])
    while todo:
        n = todo.popleft()
        for m, d in g[n]:
            if m not in prev:
                prev[m] = (n, d)
                todo.append(m)
    total, n = 0, dst
    while (step := prev.get(n)) is not None:
        n, d = step
        total += d
    return total


# bufferlab's TCP options, on by default as in Linux, that ns-3 has no model of (RACK, F-RTO, GSO,
# the timer's restart on resending the head, tail loss probes, D-SACK, quick ACKs at the start,
# SACK compression, the ACK of a pushed segment) or
# that the crosscheck runs ns-3 without (the timestamp option's bytes: ns-3 runs Timestamp =
# false): the crosscheck runs bufferlab with them off where a block leaves them out, and refuses a
# block that asks for them (docs/crosscheck.md).
# Mechanisms ns-3 lacks that a block may ask for outright, each meaningful only with the setting
# beside it: (key, the setting it needs, what ns-3 does instead). The crosscheck refuses them
# and otherwise runs bufferlab without them (``NS3_LACKS``).
NS3_LACKS_WHY = (
    ("rack", "sack", "has no RACK (RFC 8985): it finds losses by duplicate ACKs only"),
    ("dsack", "sack", "has no D-SACK (RFC 2883): its receiver reports no duplicate and its sender undoes no recovery"),
    ("quickack", "delayed_ack", "has no quick-ACK mode: its receiver delays ACKs from the first segment "
                                "(TcpSocketBase's DelAckCount)"),
    ("push_ack", "delayed_ack", "has no PSH: its receiver delays the ACK of a lone segment whatever it carries"),
    ("window_quickack", "delayed_ack", "has no receive-window growth: its receiver delays the ACK of a lone "
                                       "segment however its window stands"),
    ("comp_sack", "sack", "has no SACK compression: its receiver sends a duplicate ACK for every out-of-order "
                          "segment at once"),
    ("sack_rtt", "sack", "takes no RTT sample from an ACK that only SACKs: its estimator is fed when the ACK "
                         "covers the oldest segment timed (TcpSocketBase::EstimateRtt)"),
)


NS3_LACKS = ("rack", "frto", "timestamps", "gso", "rto_rearm", "tlp", "dsack", "quickack", "comp_sack", "push_ack", "window_quickack",
             "sack_rtt")
# What ns-3's model of each algorithm reduces from (bufferlab's ``ssthresh_from``): the crosscheck
# runs bufferlab with it where a block leaves the key out, and refuses a block that sets another.
NS3_SSTHRESH_FROM = {"newreno": "flight", "cubic": "cwnd"}
# How the crosscheck's pairs were measured (docs/crosscheck.md): bufferlab's window in bytes and
# slow start at RFC 3465's L = 2 counting SND.UNA's advance, as ns-3's NewReno here (bl::Rfc3465Reno). bufferlab's default
# window counts whole segments, as Linux; the crosscheck keeps the byte window (and L = 2) where a
# block leaves the keys out.
NS3_WINDOW = {"cwnd_unit": "byte", "abc_limit": 2, "grow_by_delivered": False}


def matched_for_ns3(document: dict[str, Any]) -> dict[str, Any]:
    """The scenario document with the TCP options ns-3 lacks (``NS3_LACKS``) turned off, and the
    reduction base ns-3's algorithm uses (``NS3_SSTHRESH_FROM``), in every TCP block that does
    not set them: what bufferlab runs beside ns-3."""
    doc = copy.deepcopy(document)
    for block in doc.get("traffic", []):
        if isinstance(block, dict) and block.get("kind") in TCP_KINDS:
            for key in NS3_LACKS:
                block.setdefault(key, False)
            base = NS3_SSTHRESH_FROM.get(block.get("cc", "newreno"))
            if base is not None:
                block.setdefault("ssthresh_from", base)
            for key, value in NS3_WINDOW.items():
                block.setdefault(key, value)
    return doc


def to_ns3(sc: Scenario, limits: dict[str, dict[str, Any]] | None = None, seed: int | None = None,
           options: Ns3Options | None = None, starts: dict[str, float] | None = None) -> dict[str, Any]:
    """The ns-3 configuration for ``sc``; raises :class:`Unsupported` naming every blocking key.

    ``limits`` maps a link direction ("r1->r2") to the limit bufferlab resolved for a sizing rule
    (its queues table's ``limit_pkts`` / ``limit_bytes``); ``seed`` is ns-3's RngRun; ``options``
    puts back ns-3 rules the translation otherwise matches to bufferlab's (options.py); ``starts``
    (flow id -> seconds: bufferlab's run of the same seed) starts each bulk TCP flow whose block
    draws its start when bufferlab's started, so that the two runs of a seed are paired (which
    flow starts first can set a whole run).
    """
    opts = options or Ns3Options()
    plan = pt.typed(sc)
    limits = limits or {}
    why = _Refusals(sc)
    mtu_pkt = _largest_packet(plan)
    nodes = list(plan.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    links = []
    for i, link in enumerate(plan.links):
        links.append({
            "a": index[link.a],
            "b": index[link.b],
            "forward": _direction(link.forward, f"links[{i}].forward", f"{link.a}->{link.b}", limits, mtu_pkt, why, opts),
            "reverse": _direction(link.reverse, f"links[{i}].reverse", f"{link.b}->{link.a}", limits, mtu_pkt, why, opts),
        })
    flows = []
    tcp_blocks: dict[int, dict[str, Any]] = {}
    defaults = _pacing(plan, why)
    for k, (fid, b, src, dst) in enumerate(flow_ids(plan)):
        block = plan.traffic[b]
        path = f"traffic[{b}]"
        f: dict[str, Any] = {
            "id": fid,
            "kind": block.kind,
            "src": index[src],
            "dst": index[dst],
            "port": BASE_PORT + k,
            "start_ns": _dist(block.start_ns),
        }
        if starts and fid in starts and pt.drawn_bulk_start(block):
            f["start_ns"] = {"dist": "const", "value": float(round(starts[fid] * 1e9))}
        if isinstance(block, pt.RrulTraffic):
            why.add(f"{path}.kind", "give the plan the tcp and ping blocks an rrul block stands for (the scenario reader expands it)")
            flows.append(f)
            continue
        if isinstance(block, (pt.UdpTraffic, pt.PingTraffic, pt.BallastTraffic)) and block.stop_ns is not None:
            f["stop_ns"] = block.stop_ns
        if isinstance(block, pt.TCP_TRAFFIC):
            if b not in tcp_blocks:
                tcp_blocks[b] = _tcp(block.tcp, path, why, opts)
            f["tcp"] = tcp_blocks[b]
            f["mss"] = block.tcp.mss_bytes
            if isinstance(block, pt.TcpTraffic):
                f["mode"] = "bulk"
                if block.size_bytes is not None:
                    f["size_bytes"] = block.size_bytes
            elif isinstance(block, pt.WebTraffic):
                f["mode"] = "web"
                f["arrival_rate"] = block.arrival_rate
                f["size_dist"] = _dist(block.size_bytes)
            else:
                f["mode"] = "onoff"
                f["size_dist"] = _dist(block.size_bytes)
                f["idle_ns"] = _dist(block.idle_ns)
        elif isinstance(block, pt.UdpTraffic):
            f["rate_pps"] = block.rate_pps
            f["size_bytes"] = block.size_bytes
            f["arrivals"] = block.arrivals
            f["ttl"] = block.ttl
            if block.burst:
                f["burst_packets"] = block.burst.packets
                f["burst_every_ns"] = block.burst.every_ns
        elif isinstance(block, pt.PingTraffic):
            if block.proto != "icmp":
                why.add(f"{path}.proto", "the ns-3 program's probe is an ICMP echo; leave proto out")
            f["interval_ns"] = block.interval_ns
            f["size_bytes"] = block.size_bytes
        else:
            why.add(f"{path}.kind", f"the ns-3 program has no {block.kind} source")
        flows.append(f)
    if why.items:
        raise Unsupported(why.items, sc.source)
    run = plan.run
    return {
        "rng_run": run.seed if seed is None else int(seed),
        "duration_ns": run.duration_ns,
        "measure_ns": list(run.measure_ns or [0, run.duration_ns]),
        "mtu": max(IP_MTU_BYTES, mtu_pkt),
        "defaults": {**defaults, **opts.defaults},
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }
