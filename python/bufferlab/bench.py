"""``bufferlab bench``: how fast the engine runs, in events and packets per wall second.

Built-in benchmarks (``udp-fifo-1g``, ``udp-3hop-1g``) run in the engine alone; a scenario file is
run as ``bufferlab run`` would and reported with its busiest link's packets per wall second (the
"bottleneck packets" figure ns-3 comparisons use). Figures go in ``docs/BENCHMARKS.md`` with
the scenario and the machine.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table


def builtin(name: str, seconds: float) -> dict[str, Any]:
    """Run a built-in benchmark for ``seconds`` of simulated time; its figures as a dict."""
    from . import _core  # type: ignore[attr-defined]

    return json.loads(_core.bench(name, seconds))


def scenario_file(path: str | Path, seconds: float | None = None) -> dict[str, Any]:
    """Run a scenario file (optionally for ``seconds`` of simulated time) and report its speed."""
    from . import run

    # A shorter run measures over all of itself (the file's window may lie beyond it).
    overrides = {"run.duration": f"{seconds}s", "run.measure": ["0s", f"{seconds}s"]} if seconds else None
    t0 = time.perf_counter()
    res = run(path, overrides=overrides)
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
    }


def _peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        targets: Annotated[
            Optional[list[str]],
            typer.Argument(help="Built-in benchmark names (udp-fifo-1g, udp-3hop-1g) or scenario files; all built-ins if none."),
        ] = None,
        seconds: Annotated[
            Optional[float], typer.Option("--seconds", "-s", min=0.001, help="Simulated seconds (built-ins default to 10 s; files keep their own duration).")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per benchmark.")] = False,
    ) -> None:
        """Measure events and packets per wall second of the engine (one core)."""
        from . import _core  # type: ignore[attr-defined]

        names = list(targets or _core.bench_names())
        console = Console(highlight=False)
        if not console.is_terminal:
            console.width = 200
        rows = []
        for name in names:
            try:
                if name in _core.bench_names():
                    r = builtin(name, seconds or 10.0)
                elif os.path.exists(name):
                    r = scenario_file(name, seconds)
                else:
                    console.print(f"{name}: neither a built-in benchmark ({', '.join(_core.bench_names())}) nor a file", style="red")
                    raise typer.Exit(2)
            except typer.Exit:
                raise
            except Exception as e:  # a scenario problem: report, go on with the rest
                console.print(f"{name}: {e}", style="red", markup=False)
                continue
            r["peak_rss_mb"] = _peak_rss_mb()
            rows.append(r)
            if as_json:
                print(json.dumps(r))
        if as_json:
            return
        t = Table(title=f"bufferlab bench — {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
        for col in ["benchmark", "sim s", "wall s", "events", "M events/s", "M packets/s", "bottleneck kpkt/s", "peak RSS"]:
            t.add_column(col, justify="left" if col == "benchmark" else "right")
        for r in rows:
            bn = r.get("bottleneck_pkts_per_sec")
            t.add_row(
                r["name"],
                f"{r['sim_seconds']:g}",
                f"{r['wall_seconds']:.3f}",
                f"{r['events']:,}",
                f"{r['events_per_sec'] / 1e6:.2f}",
                f"{r['packets_per_sec'] / 1e6:.2f}",
                f"{bn / 1e3:,.0f}" if bn is not None else "-",
                f"{r['peak_rss_mb']:.0f} MB",
            )
        console.print(t)
