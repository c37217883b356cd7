"""`bufferlab bench`: the built-in benchmarks run the scenario they name and report consistent figures."""

import json
import subprocess
import sys
from pathlib import Path

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


def test_scenario_file_reports_its_bottleneck():
    (r,) = _bench(str(EXAMPLES / "udp-fifo.toml"), "--seconds", "5")
    assert r["bottleneck"] == "client->server"
    assert r["sim_seconds"] == 5.0
