"""A sweep on a Dask cluster run as a cluster user runs it: `dask scheduler` and two `dask worker`
processes on this machine, `bufferlab sweep --scheduler`, and one worker killed half-way through.
Nothing is lost, nothing is stored twice, and the numbers are the local pool's."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bufferlab
from bufferlab.store import load
from bufferlab.sweep import run_sweep

from conftest import REPO
from test_sweep_run import assert_same_results

pytest.importorskip("distributed")
DASK = Path(sys.executable).parent / "dask"

# scenarios/mdl.toml's grid at two seeds, each run long enough (~0.3 s) that a worker dies with
# points still to run.
SPEC = f"""
base = "{REPO / 'scenarios' / 'udp-fifo.toml'}"
seeds = 2
[set]
"run.duration" = "1500s"
"run.measure" = ["5s", "1500s"]
[grid]
"traffic[0].rate" = ["250pps", "500pps", "750pps", "800pps"]
"topology.up.queue.limit" = ["10pkt", "100pkt"]
"""
RUNS = 16
DEADLINE_S = 50  # every process started here is ended by then


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(*args: str, env: dict[str, str]) -> subprocess.Popen:
    # A session of its own, so that killing it ends a worker's nanny and its process together.
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def kill(p: subprocess.Popen) -> None:
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait(10)


def wait_for_workers(address: str, n: int, until: float) -> None:
    from distributed import Client

    with Client(address, timeout=max(1.0, until - time.monotonic())) as c:
        c.wait_for_workers(n, timeout=max(1.0, until - time.monotonic()))


def stored(out: Path) -> int:
    parts = out / "parts"
    return sum(1 for p in parts.iterdir() if (p / "points.parquet").is_file()) if parts.is_dir() else 0


@pytest.mark.skipif(not DASK.is_file(), reason=f"no dask command beside {sys.executable}")
def test_a_sweep_survives_a_worker_killed_mid_way(tmp_path):
    spec = tmp_path / "mdl-short.toml"
    spec.write_text(SPEC)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(bufferlab.__file__).parent.parent), os.environ.get("PYTHONPATH", "")]))
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    until = time.monotonic() + DEADLINE_S
    procs: list[subprocess.Popen] = []
    try:
        procs.append(start(str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                           "--no-dashboard", env=env))
        for _ in range(2):
            procs.append(start(str(DASK), "worker", address, "--nworkers", "1", "--nthreads", "1",
                               "--host", "127.0.0.1", "--no-dashboard", env=env))
        wait_for_workers(address, 2, until)
        out = tmp_path / "cluster"
        sweep = subprocess.Popen(
            [sys.executable, "-m", "bufferlab", "sweep", str(spec), "--out", str(out), "--scheduler", address, "-q"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        procs.append(sweep)
        while stored(out) < 3 and sweep.poll() is None and time.monotonic() < until:
            time.sleep(0.05)
        assert stored(out) < RUNS, "the sweep ended before a worker could be killed: make its runs longer"
        kill(procs[1])  # one worker, with the point it was running
        _, err = sweep.communicate(timeout=max(1.0, until - time.monotonic()))
        assert sweep.returncode == 0, err
        assert f"{RUNS} runs: {RUNS} done, 0 failed" in err, err
    finally:
        for p in reversed(procs):
            kill(p)

    points = load(out).points
    assert len(points) == RUNS and set(points["status"]) == {"done"}
    assert not points.duplicated(["point_id", "seed"]).any()
    run_sweep(spec, tmp_path / "pool", workers=2)
    assert_same_results(out, tmp_path / "pool")
