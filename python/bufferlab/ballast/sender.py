"""The ballast sender: tiny UDP packets, paced, continuous or in bursts, at a fixed rate or at the
rate the automatic controller chooses.

Pacing never catches up: a sender that falls behind (a busy host, a suspended process) skips the
packets it missed instead of sending them back to back, so it cannot flood.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .tcpinfo import TcpSnapshot, snapshot

IP_UDP_HEADERS = 28  # IPv4 20 B + UDP 8 B
IP6_UDP_HEADERS = 48  # IPv6 40 B + UDP 8 B
DEFAULT_SIZE = 29  # Braud et al. (2013): 1 B of payload
DEFAULT_TTL = 2  # crosses the home router and the access link, dies at the first router beyond
DEFAULT_PORT = 9  # discard (RFC 863): nothing answers
SAFE_PPS = 2000.0  # above this the sender asks for --force
HARD_MAX_PPS = 100_000.0


@dataclass
class BallastOptions:
    host: str
    port: int = DEFAULT_PORT
    rate_pps: float | None = None
    auto: bool = False
    size: int = DEFAULT_SIZE
    ttl: int = DEFAULT_TTL
    burst: int | None = None
    every_s: float | None = None
    max_share: float = 0.2
    target_s: float | None = None
    period_s: float | None = None
    duration_s: float | None = None
    force: bool = False

    def check(self) -> list[str]:
        """Problems with the options, each naming the option and the fix."""
        p: list[str] = []
        if self.auto == (self.rate_pps is not None):
            p.append("--rate / --auto: give exactly one (e.g. --rate 250pps, or --auto)")
        if self.rate_pps is not None:
            if not self.rate_pps > 0:
                p.append("--rate: must be positive")
            elif self.rate_pps > HARD_MAX_PPS:
                p.append(f"--rate: at most {HARD_MAX_PPS:.0f} packets per second")
            elif self.rate_pps > SAFE_PPS and not self.force:
                p.append(f"--rate: {self.rate_pps:g} pps is above the safe cap of {SAFE_PPS:.0f} pps (add --force if you mean it)")
        if (self.burst is None) != (self.every_s is None):
            p.append("--burst / --every: give both (e.g. --burst 100 --every 1s)")
        if self.burst is not None:
            if self.auto:
                p.append("--burst: the automatic rate is continuous (remove --burst/--every or --auto)")
            if self.burst < 1:
                p.append("--burst: at least 1 packet")
            if self.every_s is not None and self.every_s <= 0:
                p.append("--every: must be longer than zero")
            elif self.burst and self.rate_pps and self.every_s is not None and self.burst / self.rate_pps > self.every_s:
                p.append(f"--burst: {self.burst} packets at {self.rate_pps:g} pps take longer than --every (send fewer or more often)")
        if not 0 < self.max_share < 1:
            p.append("--max-share: a share between 0 and 1 (e.g. 20%)")
        if not 1 <= self.ttl <= 255:
            p.append("--ttl: an IP TTL from 1 to 255")
        if not IP_UDP_HEADERS <= self.size <= 1500:
            p.append(f"--size: {IP_UDP_HEADERS} B (headers only) to 1500 B")
        if not 0 < self.port < 65536:
            p.append("--to: port must be 1-65535")
        if self.period_s is not None and not self.auto:
            p.append("--period: only --auto decides periodically (remove --period or add --auto)")
        if self.period_s is not None and self.period_s <= 0:
            p.append("--period: must be longer than zero")
        if self.duration_s is not None and self.duration_s <= 0:
            p.append("--duration: must be longer than zero")
        return p


@dataclass
class BallastReport:
    packets: int = 0
    bytes: int = 0
    seconds: float = 0.0
    decisions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mean_pps(self) -> float:
        return self.packets / self.seconds if self.seconds > 0 else 0.0


class _Schedule:
    """When the next packet is due, at a rate that may change, in bursts or continuously."""

    def __init__(self, opts: BallastOptions, now: int) -> None:
        self.burst = opts.burst
        self.every_ns = round((opts.every_s or 0) * 1e9)
        self.period_ns: float | None = None
        self.burst_start = now
        self.in_burst = 0
        self.next_ns: int | None = None

    def set_rate(self, pps: float, now: int) -> None:
        was_quiet = self.period_ns is None
        self.period_ns = 1e9 / pps if pps > 0 else None
        if self.period_ns is None:
            self.next_ns = None
        elif was_quiet:
            self.next_ns = now
            self.burst_start, self.in_burst = now, 0

    def sent(self, now: int) -> None:
        assert self.period_ns is not None
        if self.burst:
            self.in_burst += 1
            if self.in_burst >= self.burst:
                self.burst_start += self.every_ns
                while self.burst_start + self.every_ns <= now:  # never catch up on missed bursts
                    self.burst_start += self.every_ns
                self.in_burst = 0
                self.next_ns = max(self.burst_start, now)
                return
        nxt = (self.next_ns or now) + round(self.period_ns)
        self.next_ns = nxt if nxt > now - round(self.period_ns) else now  # skip what was missed


def run_ballast(
    opts: BallastOptions,
    *,
    stop: threading.Event | None = None,
    log: Callable[[dict[str, Any]], None] | None = None,
    observe: Callable[[], TcpSnapshot] = snapshot,
    clock: Callable[[], int] = time.monotonic_ns,
    start_at: Callable[[], int | None] | None = None,
) -> BallastReport:
    """Send until ``stop`` is set or ``duration_s`` has passed; return what was sent. With
    ``start_at``, everything is set up first, then ``start_at()`` gives the ``clock`` time to
    start at (a program that launches the tool ahead of time knows it only later)."""
    problems = opts.check()
    if problems:
        raise ValueError("\n".join(problems))
    stop = stop or threading.Event()
    infos = socket.getaddrinfo(opts.host, opts.port, type=socket.SOCK_DGRAM)
    family, _, _, _, addr = infos[0]
    headers = IP6_UDP_HEADERS if family == socket.AF_INET6 else IP_UDP_HEADERS
    payload = b"\0" * max(opts.size - headers, 0)
    sock = socket.socket(family, socket.SOCK_DGRAM)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, opts.ttl)
    else:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, opts.ttl)
    sock.connect(addr)

    report = BallastReport()
    if start_at is not None:
        t = start_at()
        while t is not None and not stop.is_set() and clock() < t:
            stop.wait(min((t - clock()) / 1e9, 0.1))
    start = clock()
    end = start + round(opts.duration_s * 1e9) if opts.duration_s else None
    sched = _Schedule(opts, start)
    controller = None
    next_decision = start
    prev_snap: TcpSnapshot | None = None
    if opts.auto:
        from .. import _core  # the engine's controller: the simulator runs the same code

        controller = _core.BallastController(
            target_ns=round(opts.target_s * 1e9) if opts.target_s else None,
            max_share=opts.max_share,
            udp_bytes=opts.size,
            max_pps=SAFE_PPS if not opts.force else HARD_MAX_PPS,
            **({"period_ns": round(opts.period_s * 1e9)} if opts.period_s else {}),
        )
    else:
        sched.set_rate(opts.rate_pps or 0.0, start)
    try:
        while not stop.is_set():
            now = clock()
            if end is not None and now >= end:
                break
            if controller is not None and now >= next_decision:
                snap = observe()
                busiest = snap.busiest_since(prev_snap)
                d = controller.observe(
                    now - start,
                    snap.data_segs_out,
                    snap.bytes_sent,
                    busiest.srtt_ns if busiest else None,
                    busiest.min_rtt_ns if busiest else None,
                )
                prev_snap = snap
                report.decisions.append(d)
                if log:
                    log(d)
                sched.set_rate(d["rate_pps"], now)
                next_decision = now + controller.period_ns
            due = sched.next_ns
            if due is not None and now >= due:
                try:
                    sock.send(payload)
                    report.packets += 1
                    report.bytes += opts.size
                except OSError:
                    pass  # e.g. ECONNREFUSED from an ICMP port-unreachable: keep pacing
                sched.sent(now)
                continue
            wake = [t for t in (due, next_decision if controller else None, end) if t is not None]
            delay = (min(wake) - now) / 1e9 if wake else 0.1
            stop.wait(min(max(delay, 0.0), 0.1))
    finally:
        sock.close()
        report.seconds = (clock() - start) / 1e9
    return report
