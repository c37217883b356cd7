"""The kernel as referee: a suite case run on the kernel backend (real Linux TCP through
bufferlab's own queues, in real time), beside bufferlab and ns-3.

Where the two simulators disagree about a TCP rule, Linux's TCP through the same queue code says
which one real stacks follow (docs/ns3-differences.md). A kernel run takes the scenario's
duration in real time and needs root, so the suite does it only when asked
(``python -m bufferlab.crosscheck.suite --kernel``); the results are kept in
``suite/kernel/<case>.json`` with the kernel release and the TCP settings read inside the
hosts' namespaces, and every later run of the suite shows them from there.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import threading
from pathlib import Path
from typing import Any

from .. import plan_types as pt
from ..scenario import Scenario, load_scenario

__all__ = ["KERNEL_DIR", "SYSCTLS", "load_kernel", "run_kernel_case", "slim"]

KERNEL_DIR = Path(__file__).parent / "suite" / "kernel"

# The settings that decide how Linux recovers from loss (Documentation/networking/ip-sysctl.rst):
# SACK, RACK (tcp_recovery bit 0, RFC 8985), tail loss probes (tcp_early_retrans 3), F-RTO,
# and the duplicate-ACK threshold it starts from.
SYSCTLS = (
    "net.ipv4.tcp_sack", "net.ipv4.tcp_recovery", "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_frto",
    "net.ipv4.tcp_dsack", "net.ipv4.tcp_reordering", "net.ipv4.tcp_timestamps", "net.ipv4.tcp_ecn",
)


def slim(summary: dict[str, Any]) -> dict[str, Any]:
    """What the suite compares, from a summary: flows, queues and links (no time series)."""
    keep = {
        "flows": ("id", "goodput_bps", "rtt_mean_s", "retransmits", "start_s"),
        "queues": ("link", "sojourn_mean_s", "occupancy_mean_pkts", "dropped"),
        "links": ("link", "utilization"),
    }
    return {t: [{k: r.get(k) for k in ks} for r in summary.get(t, [])] for t, ks in keep.items()}


def _read_sysctls(prefix: str, node: str, out: dict[str, str], stop: threading.Event) -> None:
    """Read the settings inside namespace ``<prefix>-<node>`` once it exists (the backend names
    its namespaces ``bl<pid>-<node>``); only reads, inside the run's own namespace."""
    name = f"{prefix}-{node}"
    while not stop.wait(0.2):
        r = subprocess.run(["ip", "netns", "exec", name, "sysctl", "-n", *SYSCTLS], capture_output=True, text=True)
        if r.returncode == 0:
            out.update(zip(SYSCTLS, r.stdout.split("\n")))
            return


def run_kernel_case(name: str, sc: Scenario, seeds: list[int], log=None) -> dict[str, Any]:
    """Each seed on the kernel backend; the record written to ``suite/kernel/<name>.json``."""
    from ..kernel.run import run_kernel

    runs = []
    sysctls: dict[str, str] = {}
    plan = pt.typed(sc)
    sender = plan.traffic[0].pairs[0][0]
    for s in seeds:
        if log:
            log(f"{name}: kernel, seed {s} ({plan.run.duration_ns / 1e9:g} s in real time)")
        seeded = load_scenario(sc.document, seed=s)
        stop = threading.Event()
        t = threading.Thread(target=_read_sysctls, args=(f"bl{os.getpid()}", sender, sysctls, stop), daemon=True)
        if not sysctls:
            t.start()
        try:
            result = run_kernel(seeded)
        finally:
            stop.set()
        runs.append({"seed": s, "summary": slim(result.summary)})
    record = {
        "case": name,
        "measured": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "kernel": platform.release(),
        "sysctls": sysctls,
        "runs": runs,
    }
    KERNEL_DIR.mkdir(exist_ok=True)
    tmp = KERNEL_DIR / f".{name}.json.tmp"
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, KERNEL_DIR / f"{name}.json")
    return record


def load_kernel(name: str) -> dict[str, Any] | None:
    """The stored kernel record of a case, if it has one."""
    f = KERNEL_DIR / f"{name}.json"
    return json.loads(f.read_text()) if f.is_file() else None
