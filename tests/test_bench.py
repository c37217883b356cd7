"""`bufferlab bench`: the built-in benchmarks run the scenario they name and report consistent figures."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "scenarios"


def _bench(*args):
    out = subprocess.run(
        [sys.executable, "-m", "bufferlab.cli", "bench", "--json", *args],
        capture_output=True, text=True, check=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_builtin_benchmark_runs_its_scenario():
    (r,) = _bench("udp-fifo-1g", "--seconds", "0.5")
    # 90% of 1 Gb/s in 1500 B packets is 75 000 packets/s (Poisson: within a few percent).
    assert abs(r["packets"] - 37_500) < 0.03 * 37_500
    # Each packet costs its source timer and its arrival, and a transmission end only when
    # another packet waits behind it: with Poisson arrivals a packet finds the link busy with
    # probability ρ = 0.9 (PASTA), so about 2.9 events per packet.
    assert 2.85 * r["packets"] < r["events"] < 2.95 * r["packets"]
    assert r["events_per_sec"] == r["events"] / r["wall_seconds"]
    assert r["build"] == _engine_build()


def _engine_build():
    from bufferlab.simulate import engine_build

    return engine_build()


def test_scenario_file_reports_its_bottleneck():
    (r,) = _bench(str(EXAMPLES / "udp-fifo.toml"), "--seconds", "5")
    assert r["bottleneck"] == "client->server"
    assert r["sim_seconds"] == 5.0
    assert r["build"] == _engine_build()


def test_packaged_stanford_benchmark_runs_by_name():
    (r,) = _bench("stanford-2.5G-2000", "--seconds", "0.05")
    assert r["name"] == "stanford-2.5G-2000"
    assert r["bottleneck"] == "r1->r2"
    assert r["sim_seconds"] == 0.05
    assert r["estimated_wall_seconds"] > 0


def test_an_unknown_benchmark_names_the_packaged_ones():
    out = subprocess.run([sys.executable, "-m", "bufferlab.cli", "bench", "no-such"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "stanford-10G-10000" in out.stdout + out.stderr


def test_the_table_names_the_faster_build_when_it_is_not_installed():
    out = subprocess.run(
        [sys.executable, "-m", "bufferlab.cli", "bench", "udp-fifo-1g", "--seconds", "0.05"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert ("make pgo" in out) == (_engine_build() == "release")
    assert ("profile-guided build)" in out) == (_engine_build() == "pgo")


def test_repeat_reports_the_median_of_identical_runs():
    (r,) = _bench("udp-fifo-1g", "--seconds", "0.2", "--repeat", "3")
    assert r["repeat"] == 3 and len(r["runs"]) == 3
    # Each timed figure is the median of the runs' own; the counts are one run's, since every
    # repetition of a deterministic engine gives the same.
    for k in ("wall_seconds", "events_per_sec", "packets_per_sec"):
        assert r[k] == sorted(run[k] for run in r["runs"])[1]
    (once,) = _bench("udp-fifo-1g", "--seconds", "0.2")
    assert (r["events"], r["packets"]) == (once["events"], once["packets"])
    assert once["repeat"] == 1 and len(once["runs"]) == 1


def test_repeat_refuses_a_run_that_differs():
    from bufferlab.bench import repeated

    counts = iter([100, 100, 101])
    with pytest.raises(RuntimeError, match="run 3 of x gave events = 101 against 100"):
        repeated(lambda: {"name": "x", "events": next(counts), "packets": 5, "sim_seconds": 1.0, "wall_seconds": 0.1}, 3)
