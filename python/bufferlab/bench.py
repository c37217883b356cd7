"""How fast the engine runs, in events and packets per wall second.

Built-in benchmarks (``udp-fifo-1g``, ``udp-3hop-1g``) run in the engine alone; a scenario file is
run as ``bufferlab run`` would and reported with its busiest link's packets per wall second (the
"bottleneck packets" figure ns-3 comparisons use). Figures go in ``docs/BENCHMARKS.md`` with
the scenario and the machine.
"""

from __future__ import annotations

import json
import resource
import statistics
import time
from pathlib import Path
from typing import Any, Callable


def builtin(name: str, seconds: float) -> dict[str, Any]:
    """Run a built-in benchmark for ``seconds`` of simulated time; its figures as a dict."""
    from . import _core  # type: ignore[attr-defined]
    from .simulate import engine_build

    r = json.loads(_core.bench(name, seconds))
    r["build"] = engine_build()
    return r


def packaged() -> dict[str, Path]:
    """The benchmarks shipped as scenario files (``bench_scenarios/NAME.toml``): the many-flow
    regime of buffer-sizing theory, run through the whole reader and engine."""
    d = Path(__file__).parent / "bench_scenarios"
    return {p.stem: p for p in sorted(d.glob("*.toml"))}


def scenario_file(path: str | Path, seconds: float | None = None) -> dict[str, Any]:
    """Run a scenario file (optionally for ``seconds`` of simulated time) and report its speed,
    with the engine's estimate of its wall time beside the measured one."""
    from .scenario import load_scenario
    from .simulate import engine_build, run_prepared

    # A shorter run measures over all of itself (the file's window may lie beyond it).
    overrides = {"run.duration": f"{seconds}s", "run.measure": ["0s", f"{seconds}s"]} if seconds else None
    sc = load_scenario(path, overrides=overrides, engine_check=False)
    t0 = time.perf_counter()
    prepared = sc.prepare()
    estimate = json.loads(prepared.estimate())
    res = run_prepared(prepared, sc.plan)
    wall = time.perf_counter() - t0
    e = res.summary["engine"]
    busiest = max(res.summary["links"], key=lambda l: l["pkts_sent"], default=None)
    bottleneck_pkts = busiest["pkts_sent"] if busiest else 0
    return {
        "name": str(path),
        "sim_seconds": e["sim_seconds"],
        "wall_seconds": wall,
        "engine_seconds": e["wall_seconds"],
        "events": e["events"],
        "packets": e["packets"],
        "events_per_sec": e["events"] / e["wall_seconds"] if e["wall_seconds"] else 0.0,
        "packets_per_sec": e["packets"] / e["wall_seconds"] if e["wall_seconds"] else 0.0,
        "bottleneck": busiest["link"] if busiest else None,
        "bottleneck_pkts_per_sec": bottleneck_pkts / e["wall_seconds"] if e["wall_seconds"] else 0.0,
        "peak_packets": e["peak_packets"],
        "estimated_wall_seconds": estimate["wall_s"],
        "build": engine_build(),
    }


# The figures that vary from run to run (the wall clock's); everything else a run reports is the
# same at every repetition, the engine being deterministic.
TIMED = ("wall_seconds", "engine_seconds", "events_per_sec", "packets_per_sec", "bottleneck_pkts_per_sec")


def repeated(run_once: Callable[[], dict[str, Any]], n: int) -> dict[str, Any]:
    """Run a benchmark ``n`` times and report the median of each timed figure, as hyperfine and
    criterion do: one run on a shared machine is one sample of its load (the first of a series is
    often the slowest, docs/BENCHMARKS.md). ``runs`` keeps every run's timed figures in order.
    The runs must agree on everything else (events, packets): a difference is an engine that is
    not deterministic, and is an error."""
    runs = [run_once() for _ in range(n)]
    first = runs[0]
    for i, r in enumerate(runs[1:], 2):
        for k in ("events", "packets", "sim_seconds"):
            if r[k] != first[k]:
                raise RuntimeError(f"run {i} of {first['name']} gave {k} = {r[k]} against {first[k]} in run 1: "
                                   "the engine is not deterministic")
    out = dict(first)
    for k in TIMED:
        if k in first:
            out[k] = statistics.median(r[k] for r in runs)
    out["repeat"] = n
    out["runs"] = [{k: r[k] for k in TIMED if k in r} for r in runs]
    return out


def peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
