"""The kernel backend's delivery lateness, judged on the machine it runs on: a run on a quiet
machine does not warn, one on a machine whose cores are taken by work the driver cannot preempt
says it ran late. Both need the machine to themselves: `make test` runs this file after every
other test (marker `alone`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_kernel_backend import BIN, needs_kernel, scenario

# The kernel backend's real hosts' other tests need no machine of their own: their network is the
# engine's driver thread under SCHED_FIFO, and the hosts' processes run at nice 0 against the
# CPU-bound tests' nice 19. These two do.
pytestmark = [pytest.mark.serial, pytest.mark.alone]

# Busy loops at a real-time priority above the driver's (sys.rs: SCHED_FIFO 10): 2 ms on, 2 ms
# off, on one core, for at most argv[1] seconds -- other work on a busy machine that the driver
# cannot preempt (other real-time tasks, or a virtual machine's cores taken by its host).
SPINNER = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[2])})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(20))
end = time.monotonic() + float(sys.argv[1])
while (t := time.monotonic()) < end:
    while time.monotonic() < min(t + 0.002, end):
        pass
    time.sleep(0.002)
"""


def _lateness_run(tmp_path: Path, name: str, cpu: int | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    f = scenario(tmp_path, '[[traffic]]\nkind = "ping"\nfrom = "client"\nto = "server"\ninterval = "10ms"\n'
                 '[[traffic]]\nkind = "udp"\nfrom = "server"\nto = "client"\nrate = "2Mbps"\nsize = "1000B"',
                 name=f"{name}.toml", duration="2s")
    out = tmp_path / name
    pin = None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))
    r = subprocess.run([str(BIN), "run", str(f), "--backend", "kernel", "--out", str(out)],
                       capture_output=True, text=True, timeout=60, preexec_fn=pin)
    assert r.returncode == 0, r.stderr
    return r, json.loads((out / "summary.json").read_text())


# A real-time sleeper's own lateness, without the backend: 1 ms sleeps at the driver's priority on
# one core until told to stop (SIGTERM), then the p99 of how late each one woke (seconds).
SLEEPER = """
import os, signal, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
except OSError:
    pass
late, stop = [], []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
while not stop:
    t = time.monotonic()
    time.sleep(0.001)
    late.append(time.monotonic() - t - 0.001)
late.sort()
print(late[int(0.99 * len(late))] if late else 0.0, flush=True)
"""


def _run_beside_sleepers(tmp_path: Path, name: str) -> tuple[subprocess.CompletedProcess, dict, float]:
    """A lateness run with a sleeper on each core the whole time: how late the machine itself woke
    its real-time tasks while the backend ran (the worst core's p99). A virtual machine's host
    takes its cores for a millisecond or more now and then; measured beside the run, that shows
    as the sleepers' lateness too, where a sleeper run after it may find the machine quiet again
    (2026-11-28: three runs at p99 915 us, then a sleeper under 250 us)."""
    sleepers = [subprocess.Popen([sys.executable, "-c", SLEEPER, str(c)], stdout=subprocess.PIPE, text=True)
                for c in sorted(os.sched_getaffinity(0))[:2]]
    try:
        time.sleep(0.2)
        r, summary = _lateness_run(tmp_path, name)
    finally:
        for p in sleepers:
            p.terminate()
        woke = [float(p.communicate(timeout=30)[0].strip() or 0.0) for p in sleepers]
    return r, summary, max(woke)


@needs_kernel
def test_a_run_on_a_quiet_machine_does_not_warn_of_lateness(tmp_path):
    # Up to three runs, as `make validate-linux` measures a late run again: beside `make test`'s
    # other workers (nice 19), a noisy virtual machine's host has delayed one 2 s run's p99 to
    # 616 us against the 500 us bound (2026-11-28) while the driver held its real-time priority.
    # One run on time passes. The test fails only when every run was late while sleepers beside
    # it at the driver's priority woke on time (p99 under half the bound): a backend late on a
    # quiet machine is late every time. A single such run proves nothing: a host that takes a
    # core for 4 ms delays every delivery due in those 4 ms but only one of a sleeper's wake-ups,
    # so the backend's p99 sees a stall the sleepers' p99 does not (CI, 2026-11-28: p99 608 us,
    # max 4.2 ms, sleepers' p99 211 us, after two runs late beside late sleepers).
    runs = []
    for attempt in range(3):
        r, summary, woke = _run_beside_sleepers(tmp_path, f"quiet{attempt}")
        if not summary["kernel"]["driver"]["realtime_priority"]:
            pytest.skip("the driver could not take a real-time priority here, so other work delays it")
        late = summary["kernel"]["lateness"]
        if late["p99_s"] < late["p99_bound_s"] and late["p50_s"] < late["p50_bound_s"]:
            break
        runs.append((late, woke))
    else:
        quiet = [woke <= late["p99_bound_s"] / 2 for late, woke in runs]
        assert not all(quiet), f"late every time while sleepers beside the run woke on time (lateness, sleepers' p99): {runs}"
        pytest.skip(f"the machine was not quiet in every run (lateness, sleepers' p99): {runs}")
    assert late["min_round_trip_s"] == 0.01  # 5 ms each way
    assert "ran late" not in r.stdout and "warnings" not in summary
    assert re.search(r"delivery lateness p50 [\d.]+us, p99 [\d.]+us, max ", r.stdout), r.stdout


@needs_kernel
def test_a_run_on_a_loaded_machine_says_it_ran_late(tmp_path):
    """Both cores busy with work the driver cannot preempt, the run pinned to the first: the
    lateness passes its bound and the run says so in its table and summary.json."""
    cpus = sorted(os.sched_getaffinity(0))
    spinners = [subprocess.Popen([sys.executable, "-c", SPINNER, "8", str(c)]) for c in cpus[:2]]
    try:
        time.sleep(0.3)
        if any(p.poll() not in (None, 0) for p in spinners):
            pytest.skip("busy loops cannot take a real-time priority here")
        r, summary = _lateness_run(tmp_path, "loaded", cpu=cpus[0])
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    late = summary["kernel"]["lateness"]
    assert late["p99_s"] > late["p99_bound_s"], late
    assert "warning: the network ran late" in r.stdout, r.stdout
    assert any(w.startswith("the network ran late") for w in summary["warnings"])
