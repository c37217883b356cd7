"""``bufferlab bench``: the engine's speed on built-in benchmarks or scenario files, measured by
``bufferlab.bench``."""

import json
import os
import platform
from typing import Annotated, Optional

import typer


def bench(
    targets: Annotated[
        Optional[list[str]],
        typer.Argument(help="Built-in benchmark names (udp-fifo-1g, udp-3hop-1g; stanford-2.5G-2000, stanford-10G-10000) or scenario files; the engine's built-ins (udp-*) if none."),
    ] = None,
    seconds: Annotated[
        Optional[float], typer.Option("--seconds", "-s", min=0.001, help="Simulated seconds (built-ins default to 10 s; files keep their own duration).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per benchmark.")] = False,
    repeat: Annotated[int, typer.Option("--repeat", "-r", min=1, max=1000, help="Run each benchmark this many times and report the median of each timed figure (with --json, every run's under `runs`).")] = 1,
) -> None:
    """Measure events and packets per wall second of the engine (one core)."""
    from rich.console import Console
    from rich.table import Table

    from .. import _core  # type: ignore[attr-defined]
    from ..bench import builtin, packaged, peak_rss_mb, repeated, scenario_file
    from ..simulate import engine_build

    names = list(targets or _core.bench_names())
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = 200
    rows = []
    for name in names:
        try:
            if name in _core.bench_names():
                r = repeated(lambda: builtin(name, seconds or 10.0), repeat)
            elif name in packaged():
                r = repeated(lambda: scenario_file(packaged()[name], seconds), repeat)
                r["name"] = name
            elif os.path.exists(name):
                r = repeated(lambda: scenario_file(name, seconds), repeat)
            else:
                known = [*_core.bench_names(), *packaged()]
                console.print(f"{name}: neither a built-in benchmark ({', '.join(known)}) nor a file", style="red")
                raise typer.Exit(2)
        except typer.Exit:
            raise
        except Exception as e:  # a scenario problem: report, go on with the rest
            console.print(f"{name}: {e}", style="red", markup=False)
            continue
        r["peak_rss_mb"] = peak_rss_mb()
        rows.append(r)
        if as_json:
            print(json.dumps(r))
    if as_json:
        return
    build = " (profile-guided build)" if engine_build() == "pgo" else ""
    runs = f"; median of {repeat} runs, the slowest and fastest in brackets" if repeat > 1 else ""
    t = Table(title=f"bufferlab bench{build} — {platform.processor() or platform.machine()}, {os.cpu_count()} cores{runs}")
    for col in ["benchmark", "sim s", "wall s", "estimated", "events", "M events/s", "M packets/s", "bottleneck kpkt/s", "peak RSS"]:
        t.add_column(col, justify="left" if col == "benchmark" else "right")
    for r in rows:
        bn = r.get("bottleneck_pkts_per_sec")
        t.add_row(
            r["name"],
            f"{r['sim_seconds']:g}",
            f"{r['wall_seconds']:.3f}",
            f"{r['estimated_wall_seconds']:.3g}" if r.get("estimated_wall_seconds") is not None else "-",
            f"{r['events']:,}",
            f"{r['events_per_sec'] / 1e6:.2f}",
            _with_range(r, "packets_per_sec", 1e6, "{:.2f}"),
            _with_range(r, "bottleneck_pkts_per_sec", 1e3, "{:,.0f}") if bn is not None else "-",
            f"{r['peak_rss_mb']:.0f} MB",
        )
    console.print(t)
    if not build:
        console.print("The engine's release build; `make pgo` in the source tree installs its profile-guided "
                      "build, the same results in 5-20% less time (docs/BENCHMARKS.md).", style="dim", markup=False)


def _with_range(r: dict, key: str, unit: float, fmt: str) -> str:
    """A figure (the median of the runs), with the slowest and fastest run's when there were several."""
    text = fmt.format(r[key] / unit)
    values = [run[key] for run in r.get("runs", [])]
    if len(values) > 1:
        text += f" [{fmt.format(min(values) / unit)}–{fmt.format(max(values) / unit)}]"
    return text
