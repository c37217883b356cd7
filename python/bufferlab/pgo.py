"""The training runs of the engine's profile-guided build (``make pgo``).

A profile-guided build compiles the engine twice: once with counters on every branch and call,
which this module's runs fill (``python -m bufferlab.pgo``), then again with what they counted, so
that the compiler lays out and inlines the paths real scenarios take. The set covers what users
run: many flows on a fast link, the 100-flow dumbbell with each congestion control, every queue
discipline, a host's Linux egress (ring and BQL), short transfers, traces, UDP. Each runs a few
seconds of simulated time: about 21 million events, which the instrumented engine runs in 6-9 s
on a two-core machine. Two of the benchmarks the build is judged on in ``docs/BENCHMARKS.md`` are
left out of the set on purpose (``stanford-10G-10000``, ``dumbbell-100M-500``), so that its gain is
also measured on scenarios it did not see.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (scenario file relative to the repository, or a built-in benchmark's name; simulated seconds)
TRAINING: tuple[tuple[str, float], ...] = (
    ("python/bufferlab/bench_scenarios/stanford-2.5G-2000.toml", 6.0),
    ("scenarios/bench/dumbbell-100M-100.toml", 100.0),
    ("scenarios/bench/dumbbell-100M-100-cubic.toml", 20.0),
    ("scenarios/bench/dumbbell-100M-100-bbr.toml", 20.0),
    ("scenarios/bench/dumbbell-100M-100-paced.toml", 10.0),
    ("scenarios/bench/dumbbell-100M-100-cubic-paced.toml", 10.0),
    ("scenarios/bench/dumbbell-10M-10.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-fq_codel.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-fq_pie.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-fq.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-cake.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-dualpi2.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-prague.toml", 60.0),
    ("scenarios/bench/dumbbell-10M-10-splitbuff.toml", 60.0),
    ("scenarios/linux-stack.toml", 20.0),
    ("scenarios/web-poisson.toml", 30.0),
    ("scenarios/dumbbell.toml", 20.0),
    ("scenarios/rrul.toml", 20.0),
    ("scenarios/cellular.toml", 20.0),
    ("scenarios/udp-fifo.toml", 20.0),
    ("udp-fifo-1g", 2.0),
    ("udp-3hop-1g", 2.0),
)


def training_set(root: Path = ROOT) -> list[tuple[str | Path, float]]:
    """The runs with their files' paths resolved (built-in names stay names)."""
    return [(name if name.startswith("udp-") else root / name, s) for name, s in TRAINING]


def main() -> int:
    from .bench import builtin, scenario_file

    t0 = time.perf_counter()
    for target, seconds in training_set():
        r = builtin(str(target), seconds) if isinstance(target, str) else scenario_file(target, seconds)
        print(f"  {Path(str(target)).name}: {seconds:g} s simulated, {r['events']:,} events", flush=True)
    print(f"training runs done in {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
