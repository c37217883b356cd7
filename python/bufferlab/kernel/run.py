"""A kernel-backend run: the hosts' namespaces and programs around the engine's network.

Order: refuse what the kernel cannot honour; build the network and the namespaces; start each
host's program and wait until all are ready; start the network's clock a moment later (the
programs schedule themselves from the same CLOCK_MONOTONIC origin); follow the run; collect
the programs' measurements into the same summary a simulation gives. The namespaces are removed
on every way out: the end, an error, Ctrl-C, SIGTERM (after SIGKILL, by the next run or
``bufferlab cleanup``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import plan_types as pt
from ..errors import BufferlabError
from ..results import Result
from ..units import format_time_ns
from . import plan as kplan
from .merge import fix_timeseries, merge

# Time the programs get between "ready" and the start of the clock.
START_LEAD_NS = 200_000_000
# The hosts' program (agent.py, the standard library alone) run as a file in isolated mode, without
# the site packages: 38 ms to start where `-m bufferlab.kernel.agent`, importing the package, took
# 175 ms; the twenty hosts of a ten-flow dumbbell start together on two cores, so a run's set-up
# fell by about 1.3 s.
AGENT_ARGS = ("-I", "-S", str(Path(__file__).with_name("agent.py")))
READY_TIMEOUT_S = 30.0
# Microseconds the driver polls without sleeping before each event: wake-ups from sleep cost
# tens of microseconds on a busy or virtual machine; spinning trades a core for precision (at most
# 80% of it: the driver's spin budget). And whether every core is kept out of its idle state
# for the run by idle-priority spinners (keep_awake.rs), which takes only time the cores would
# have spent halted. Both on by default: together they bring the delivery lateness's median from
# about 60 to 18 us here, and a case that turns on the hosts' reaction times moved by 10 points
# with them (docs/kernel-backend.md, "Keeping the cores awake").
SPIN_ENV = "BUFFERLAB_KERNEL_SPIN_US"
SPIN_US_DEFAULT = 200.0
KEEP_AWAKE_ENV = "BUFFERLAB_KERNEL_KEEP_AWAKE"


def spin_us_setting() -> float:
    """The driver's spin margin: ``BUFFERLAB_KERNEL_SPIN_US`` or the default."""
    v = os.environ.get(SPIN_ENV, "").strip()
    if not v:
        return SPIN_US_DEFAULT
    try:
        us = float(v)
    except ValueError:
        us = -1.0
    if not 0 <= us <= 1e6:
        raise BufferlabError(f"{SPIN_ENV}={v}: give the driver's spin margin in microseconds, 0 to 1000000 (0: no spinning)")
    return us


def keep_awake_setting() -> bool:
    """Whether the cores are kept awake: ``BUFFERLAB_KERNEL_KEEP_AWAKE`` (0 turns it off)."""
    return os.environ.get(KEEP_AWAKE_ENV, "1").strip() not in ("0", "false", "no", "off")
# How late the driver may deliver before the results move, as shares of the network's shortest
# round trip (docs/kernel-backend.md, "Honest real time"). A delivery late by L adds L to every
# delay a host sees, and a round trip holds two deliveries (the data's, the ACK's or reply's):
# a median within 1% keeps mean RTTs (and the rates of TCP, which follow 1/RTT) within about 2%,
# a 99th percentile within 5% keeps the tails within about 10%.
LATENESS_P50_SHARE = 0.01
LATENESS_P99_SHARE = 0.05
# The receiving applications' lateness (agent.py, read_backlog): a bulk flow's reads that found
# three or more full segments waiting, as a share of its reads in the window (reads right after
# out-of-order arrivals, which find the queue a retransmission released, left out). A prompt reader
# takes each segment as it comes (0.2% of reads backlogged in a 20 s Reno run at 10 Mb/s on this
# machine at load 1.5; 1.1% with three busy loops beside it). Each backlogged read is a stretch
# ACK the simulator's receiver, which reads every segment at once, never sends; at 1% of the
# reads that is one per hundred segments, about one each round trip or two of a 10 Mb/s flow:
# enough to change how its sender bursts (validation-linux-differences.md#reno-fifo-1bdp-1).
READ_BACKLOG_SHARE = 0.01
# Three or more full segments waiting: the application was descheduled while they arrived. Linux
# ACKs data it has not read only when the window may still open (`__tcp_ack_snd_check`) or when the
# application reads (`tcp_cleanup_rbuf`), so such a read ends in a stretch ACK.
BACKLOG_SEGMENTS = 3


class KernelUnavailable(BufferlabError):
    """The machine lacks root, TUN, namespaces or iproute2 (the message says which)."""


def core() -> Any:
    from ..simulate import engine

    c = engine()
    if not hasattr(c, "KernelNet"):
        raise KernelUnavailable("the kernel backend exists on Linux only")
    return c


def preflight() -> None:
    msg = core().kernel_preflight()
    if msg:
        raise KernelUnavailable(msg)


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while a run holds namespaces, so the same clean-up runs."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class Network:
    """The engine's network between namespaces, with the hosts' programs; a context manager
    that removes everything on exit."""

    def __init__(self, sc: Any, kp: kplan.KernelPlan, duration_ns: int | None = None) -> None:
        self.sc, self.kp = sc, kp
        plan = sc.plan
        if duration_ns is not None:  # a network that runs until stopped (`bufferlab shell`)
            plan = {**plan, "run": {**plan["run"], "duration_ns": duration_ns}}
        self.net = core().KernelNet(json.dumps(plan), [h.arg() for h in kp.hosts])
        self.ns = {node: ns for node, _, ns, _ in self.net.hosts()}
        self.procs: list[tuple[kplan.Host, subprocess.Popen]] = []

    def __enter__(self) -> Network:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def exec_args(self, node: int, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.ns[node], *argv]

    def start(self, duration_ns: int, spin_ns: int | None = None, capture_dir: str | os.PathLike[str] | None = None,
              keep_awake: bool | None = None) -> int:
        """Start every host's program, then the clock; returns t0 (CLOCK_MONOTONIC ns). The
        programs play the scenario's traffic for its own duration; the scenario's packet
        captures are written into ``capture_dir`` if given."""
        run = pt.typed(self.sc).run
        measure = list(run.measure_ns or [0, run.duration_ns])
        for h in self.kp.hosts:
            if not h.roles:
                continue
            p = subprocess.Popen(
                self.exec_args(h.node, [sys.executable, *AGENT_ARGS]),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            self.procs.append((h, p))
            spec = {"duration_ns": run.duration_ns, "measure_ns": measure, "sample_ns": run.sample_ns, "roles": h.roles}
            p.stdin.write(json.dumps(spec) + "\n")
            p.stdin.flush()
        deadline = time.monotonic() + READY_TIMEOUT_S
        for h, p in self.procs:
            line = _readline(p, deadline)
            if line.strip() != "ready":
                err = line + (p.stderr.read() if p.poll() is not None else "")
                raise BufferlabError(f"the program on host {h.name} did not start: {err.strip()[-500:]}")
        t0 = time.monotonic_ns() + (START_LEAD_NS if self.procs else 0)
        for _, p in self.procs:
            p.stdin.write(f"{t0}\n")
            p.stdin.close()
            p.stdin = None  # communicate() later must not touch it
        if spin_ns is None:
            spin_ns = int(spin_us_setting() * 1000)
        if keep_awake is None:
            keep_awake = keep_awake_setting()
        self.net.start(t0, duration_ns, spin_ns, None if capture_dir is None else os.fspath(capture_dir), keep_awake)
        self.t_start = time.monotonic()
        return t0

    def follow(self, progress: Callable[[float], Any] | None) -> None:
        while self.net.running():
            if progress is not None:
                progress(self.net.elapsed())
            time.sleep(0.1)

    def collect(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        out = self.net.finish()
        for _, p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGUSR1)  # end the programs' roles now if not already
        reports: list[dict[str, Any]] = []
        for h, p in self.procs:
            try:
                stdout, stderr = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                stdout, stderr = p.communicate()
            try:
                reports.extend(json.loads(stdout))
            except json.JSONDecodeError:
                raise BufferlabError(f"the program on host {h.name} failed: {stderr.strip()[-500:]}") from None
        return out, reports

    def close(self) -> None:
        for _, p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.procs.clear()
        self.net.close()


def _readline(p: subprocess.Popen, deadline: float) -> str:
    """The next line of a program's stderr, or what is there when it dies or time runs out."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(p.stderr, selectors.EVENT_READ)
    while time.monotonic() < deadline:
        if sel.select(timeout=0.1):
            return p.stderr.readline()
        if p.poll() is not None:
            return ""
    return "timed out"


def lateness_check(driver: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The driver's delivery lateness against its bounds (``LATENESS_*_SHARE`` of the shortest
    round trip): the figures for ``summary["kernel"]["lateness"]``, and a warning when either
    quantile is beyond its bound, else None."""
    rtt = driver.get("min_round_trip_s")
    q = {k: driver.get(f"lateness_{k}_s") for k in ("p50", "p99", "max")}
    bounds = {"p50": LATENESS_P50_SHARE * rtt, "p99": LATENESS_P99_SHARE * rtt} if rtt else {}
    figures = {**{f"{k}_s": v for k, v in q.items()}, "min_round_trip_s": rtt,
               **{f"{k}_bound_s": v for k, v in bounds.items()}}
    over = [k for k, b in bounds.items() if q[k] is not None and q[k] > b]
    if not over:
        return figures, None
    t = lambda s: format_time_ns(s * 1e9)  # noqa: E731
    share = {"p50": LATENESS_P50_SHARE, "p99": LATENESS_P99_SHARE}
    beyond = "; ".join(f"{k} beyond {t(bounds[k])} ({share[k]:.0%} of the shortest round trip, {t(rtt)})" for k in over)
    return figures, (
        f"the network ran late: delivery lateness p50 {t(q['p50'])}, p99 {t(q['p99'])}, max {t(q['max'])}; {beyond}. "
        "The delays the hosts measured (RTTs, one-way delays, completion times) carry up to twice that lateness, "
        "and TCP's rates follow them: the machine was too busy to keep this network in real time "
        "(docs/kernel-backend.md, Honest real time)"
    )


def busy_warnings(kernel: dict[str, Any]) -> list[str]:
    """What a run's ``summary["kernel"]`` says of a machine too busy for it: its network's
    delivery ran late (``lateness_check``), or its receiving applications read late
    (``read_backlog_check``). A run with either measured the machine's load as much as Linux."""
    late = lateness_check(kernel.get("driver", {}))[1]
    reads = read_backlog_check(kernel.get("read_backlog", {}))
    return [w for w in (late, reads) if w]


def read_backlog_check(backlog: dict[str, dict[str, Any]]) -> str | None:
    """Each bulk flow's reads (agent.py, read_backlog) gain ``reads`` and ``reads_backlogged``
    (those that found BACKLOG_SEGMENTS full segments or more); a warning when a flow's share of
    them passes READ_BACKLOG_SHARE, else None."""
    late = {}
    for f, b in backlog.items():
        hist = {int(k): v for k, v in b.get("reads_by_segments", {}).items()}
        b["reads"] = sum(hist.values())
        b["reads_backlogged"] = sum(v for k, v in hist.items() if k >= BACKLOG_SEGMENTS)
        if b["reads"]:
            late[f] = b["reads_backlogged"] / b["reads"]
    over = sorted(f for f, x in late.items() if x > READ_BACKLOG_SHARE)
    if not over:
        return None
    which = ", ".join(f"{f} {100 * late[f]:.1f}%" for f in over)
    return (f"the receiving applications read late: reads that found {BACKLOG_SEGMENTS} or more full segments "
            f"waiting ({which} of their reads; bound {READ_BACKLOG_SHARE:.0%}). Linux ACKs unread data only when its "
            "window may still open or when the application reads, so these flows' senders saw stretch ACKs that "
            "the simulator's receiver, which reads each segment at once, does not send "
            "(docs/kernel-backend.md, Honest real time)")


def window_warning(measure_ns: list[int] | None, run: dict[str, Any]) -> str | None:
    """What a network stopped before the end of its measurement window measured (``bufferlab
    shell``, where the command decides when it stops), or None: the engine measures only inside
    the window, so one stopped before it opened measured nothing, and says so rather than pass
    the whole run off as the window."""
    if not measure_ns or run["duration_s"] >= measure_ns[1] / 1e9:
        return None
    t = lambda s: format_time_ns(s * 1e9)  # noqa: E731
    a, b = (x / 1e9 for x in measure_ns)
    ma, mb = run["measure_s"]
    if mb <= ma:
        return (f"the network ran {t(run['duration_s'])} and stopped before the measurement window "
                f"[{t(a)}, {t(b)}] (run.measure) opened: nothing was measured, so every rate and count "
                f"above is 0; to measure from the start, --set 'run.measure=[\"0s\", \"{t(b)}\"]'")
    return (f"the network stopped at {t(run['duration_s'])}, inside the measurement window [{t(a)}, {t(b)}] "
            f"(run.measure): the figures above are over {t(ma)}-{t(mb)}, the part of it that ran")


def run_kernel(
    sc: Any,
    progress: Callable[[float], Any] | None = None,
    *,
    spin_us: float | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
) -> Result:
    """Run a loaded scenario with real hosts; the same Result as a simulation, with
    ``summary["backend"] == "kernel"`` and the driver's figures in ``summary["kernel"]``.
    The scenario's packet captures, of the real packets as the engine carries them, are
    written into ``capture_dir`` if given."""
    preflight()
    kp = kplan.build(sc)
    duration = pt.typed(sc).run.duration_ns
    t_wall = time.monotonic()
    with sigterm_as_interrupt(), Network(sc, kp) as net:
        net.start(duration, None if spin_us is None else int(spin_us * 1000), capture_dir)
        net.follow(progress)
        out, reports = net.collect()
    result = finish_result(sc, kp, net, out, reports)
    result.capture_dir = None if capture_dir is None else Path(capture_dir)
    result.summary["engine"]["wall_seconds"] = time.monotonic() - t_wall
    return result


def finish_result(sc: Any, kp: kplan.KernelPlan, net: Network, out: dict[str, Any], reports: list[dict[str, Any]]) -> Result:
    """The engine's summary with the hosts' measurements folded in."""
    summary = json.loads(out["summary"]) if isinstance(out["summary"], (str, bytes)) else out["summary"]
    # The flows' RTT CDFs from the hosts, first as in a simulation's table; then the engine's.
    distributions: dict[str, list[Any]] = {}
    rows = merge(summary, kp, reports, distributions)
    engine_dists = out.get("distributions") or {}
    for col, xs in engine_dists.items():
        distributions[col] = list(distributions.get(col, [])) + list(xs)
    fix_timeseries(out.get("timeseries") or {}, kp, reports, pt.typed(sc).run.sample_ns)
    transfers = out.get("transfers") or {}
    if rows:
        transfers = {k: [r[k] for r in rows] for k in ("flow", "conn", "size_bytes", "start_s", "end_s", "completion_time_s")}
    summary["backend"] = "kernel"
    summary["kernel"] = {
        "driver": dict(out["driver"]),
        "hosts": {h.name: {"namespace": net.ns[h.node], "address": kplan._addr(h.node)} for h in kp.hosts},
    }
    if "kernel_ballast" in summary:  # what each ballast tool sent and decided (docs/ballast.md)
        summary["kernel"]["ballast"] = summary.pop("kernel_ballast")
    if "kernel_read_backlog" in summary:
        summary["kernel"]["read_backlog"] = summary.pop("kernel_read_backlog")
    summary["kernel"]["lateness"] = lateness_check(summary["kernel"]["driver"])[0]
    window = window_warning(pt.typed(sc).run.measure_ns, summary["run"])
    warnings = ([window] if window else []) + busy_warnings(summary["kernel"])
    if warnings:
        summary["warnings"] = warnings
    return Result(summary, out.get("timeseries"), transfers, plan=sc.plan, distributions=distributions)
