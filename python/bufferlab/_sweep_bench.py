"""Measure what a sweep costs beyond the engine: ``python -m bufferlab._sweep_bench``.

1. Overhead per point: sweeps of N1 and N2 tiny points (a 2 s UDP-into-FIFO run, well under a
   millisecond of engine time) on one pool worker; the slope (T(N2) - T(N1)) / (N2 - N1) is the
   cost of one more point, fixed start-up excluded; minus the engine's own time per point it is
   the sweep's overhead (scenario check and expansion, tables, pickling, Parquet part, rename).
2. Speedup: the same grid of longer points (about a second of engine time each) on 1 and on 2
   workers, and how much of the workers' time went to running points (occupancy). On a shared
   machine the speedup is bounded by the cores actually free; the occupancy is not.

The scenario is the shared udp-fifo example (Poisson 1500 B UDP into a 10 Mb/s FIFO).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from .sweep import load_spec, run_sweep

EXAMPLE = Path(__file__).resolve().parents[2] / "scenarios" / "udp-fifo.toml"


def _spec(n: int, duration: str) -> dict:
    # n distinct points: vary the packet rate (all below the link rate)
    rates = [f"{300 + 400 * i / max(1, n - 1):.3f}pps" for i in range(n)]
    return {
        "base": str(EXAMPLE),
        "seeds": [1],
        "set": {"run.duration": duration, "run.measure": ["0s", duration]},
        "grid": {"traffic[0].rate": rates},
    }


def _timed(n: int, duration: str, workers: int, backend: str = "pool") -> tuple[float, float, float]:
    """(sweep wall, summed engine seconds, summed run-function seconds) for n points."""
    with tempfile.TemporaryDirectory() as d:
        spec = load_spec(_spec(n, duration))
        t0 = time.perf_counter()
        r = run_sweep(spec, Path(d) / "out", workers=workers, backend=backend)
        wall = time.perf_counter() - t0
        assert r.done == n, r
        from .store import load

        pts = load(Path(d) / "out").points
        return wall, float(pts["engine_seconds"].sum()), float(pts["wall_seconds"].sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", type=int, nargs=2, default=(40, 240), metavar=("N1", "N2"))
    ap.add_argument("--tiny-duration", default="2s")
    ap.add_argument("--big", type=int, default=8, help="points in the speedup sweep")
    ap.add_argument("--big-duration", default="6000s")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=("overhead", "speedup"), help="measure one of the two")
    a = ap.parse_args()
    # The first pool of a process starts the fork server (which imports the package); time that
    # once, apart, so that the per-point slope compares like with like.
    t0 = time.perf_counter()
    _timed(2, a.tiny_duration, 1)
    cold = time.perf_counter() - t0
    out: dict = {"cold_start_s": cold, "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"}
    for backend, workers in (("pool", 1), ("inline", 1)) if a.only != "speedup" else ():
        best = None
        for _ in range(a.repeat):
            w1, e1, f1 = _timed(a.small[0], a.tiny_duration, workers, backend)
            w2, e2, f2 = _timed(a.small[1], a.tiny_duration, workers, backend)
            dn = a.small[1] - a.small[0]
            per_point = (w2 - w1) / dn
            engine = (e2 - e1) / dn
            run_fn = (f2 - f1) / dn
            row = {"per_point_s": per_point, "engine_s": engine, "run_fn_s": run_fn,
                   "overhead_s": per_point - engine, "startup_s": w1 - a.small[0] * per_point}
            if best is None or row["overhead_s"] < best["overhead_s"]:
                best = row
        out[f"overhead_{backend}"] = best
    times = {}
    for workers in (1, 2) if a.only != "overhead" else ():
        runs = [_timed(a.big, a.big_duration, workers) for _ in range(a.repeat)]
        wall, engine, busy = min(runs)
        # busy / (wall x workers): the share of the workers' time spent running points; what
        # is left is the sweep's own cost (start-up, hand-over) or waiting for a core.
        times[workers] = {"wall_s": wall, "engine_s_per_point": engine / a.big,
                          "worker_occupancy": busy / (wall * workers)}
    if times:
        out["speedup"] = {"points": a.big, "duration": a.big_duration, **{f"workers_{k}": v for k, v in times.items()},
                          "speedup_2_vs_1": times[1]["wall_s"] / times[2]["wall_s"],
                          # If other work on the machine slowed each point down, scale the
                          # 2-worker time back to the 1-worker time per point: the speedup the
                          # sweep would give on two free cores (an estimate; the raw figure
                          # above is what was measured).
                          "speedup_per_point_normalized": times[1]["wall_s"] / (
                              times[2]["wall_s"] * times[1]["engine_s_per_point"] / times[2]["engine_s_per_point"])}
    out["loadavg"] = os.getloadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
