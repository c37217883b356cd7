"""The ``bufferlab`` command.

Exit status: 0 done; 1 the engine or the output failed; 2 the scenario (or the command line) has
problems, each printed on its own line on stderr as ``key.path: what is wrong (the fix)``.
"""

from __future__ import annotations

import json
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from .errors import EngineError, ScenarioError
from .results import Result
from .units import format_bytes, format_rate_bps, format_time_ns

app = typer.Typer(
    name="bufferlab",
    help=(
        "A deterministic packet-level simulator for router-buffer experiments.\n\n"
        "Write a scenario (TOML: [run], [topology], [[traffic]]), check it with "
        "`bufferlab validate FILE`, run it with `bufferlab run FILE`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)

out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)
if not out_console.is_terminal:
    # Piped or in CI: no terminal width to fit, so let tables take their natural width.
    out_console.width = 200

SetOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help='Override a key of the file, e.g. `--set topology.bottleneck.rate=20Mbps` or `--set "traffic[0].cc=cubic"` (repeatable). VALUE is read as TOML, else as a string.',
    ),
]
SeedOption = Annotated[Optional[int], typer.Option("--seed", min=0, help="Replace run.seed (same file and seed, same results).")]
YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Run even if the estimate says it takes over an hour.")]


def _overrides(sets: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in sets or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            _fail_usage(f'--set {item}: expected KEY=VALUE (e.g. --set topology.pairs=20)')
        try:
            parsed = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            parsed = value
        out[key.strip()] = parsed
    return out


def _fail_usage(msg: str) -> None:
    err_console.print(f"error: {msg}", markup=False)
    raise typer.Exit(2)


def _report_problems(e: ScenarioError, file: Path | None) -> None:
    for p in e.problems:
        err_console.print(p, markup=False)
    n = len(e.problems)
    where = f"{file}: " if file is not None and not any(str(file) in p for p in e.problems) else ""
    err_console.print(f"{where}{n} problem{'s' if n != 1 else ''}; nothing was run", markup=False, style="bold")
    raise typer.Exit(2)


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Write summary.json and Parquet tables to this directory (replaced atomically)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print summary.json to stdout instead of tables.")] = False,
    seed: SeedOption = None,
    sets: SetOption = None,
    all_queues: Annotated[
        bool, typer.Option("--all-queues", help="List every host's queue and link too (by default a large topology's host ports are summed up in one line).")
    ] = False,
    yes: YesOption = False,
    backend: Annotated[
        str,
        typer.Option("--backend", help="`sim` (the simulator) or `kernel` (real Linux hosts in namespaces, the network in real time; root). See docs/kernel-backend.md."),
    ] = "sim",
) -> None:
    """Run a scenario and print its flows, queues and links.

    Example: `bufferlab run scenarios/udp-fifo.toml --out out/udp-fifo`
    """
    from . import prepare_plan, run_prepared
    from .scenario import load_scenario

    if backend not in ("sim", "kernel"):
        _fail_usage(f"--backend {backend}: expected sim or kernel")
    try:
        # The simulator checks the plan as it builds it, once; the kernel backend checks first.
        sc = load_scenario(file, seed=seed, overrides=_overrides(sets), engine_check=backend == "kernel")
        if out is not None:
            _check_out(out)  # before the simulation: a bad --out costs nothing
        prepared = prepare_plan(sc.plan, origins=sc.origins, source=sc.source) if backend == "sim" else None
        _confirm_cost(sc, yes, prepared)
        with _progress(sc.duration_s, quiet=as_json) as progress:
            if backend == "kernel":
                from .kernel.cli import run_kernel_cli

                result = run_kernel_cli(sc, progress)
            else:
                result = run_prepared(prepared, sc.plan, progress=progress)
    except KeyboardInterrupt:
        err_console.print("interrupted; nothing written", markup=False)
        raise typer.Exit(130) from None
    except ScenarioError as e:
        _report_problems(e, file)
    except EngineError as e:
        err_console.print(f"{file}: {e}", markup=False)
        raise typer.Exit(1) from None
    except ImportError as e:
        err_console.print(str(e), markup=False)
        raise typer.Exit(1) from None
    if out is not None:
        written = _write_result(result, out)
    if as_json:
        sys.stdout.write(result.summary_json())
        return
    print_result(result, out_console, title=str(file), all_queues=all_queues)
    if out is not None:
        out_console.print(f"wrote {written}", markup=False)


def _check_out(out: Path) -> None:
    """Refuse an output folder that cannot be written (exit 2, like any bad input)."""
    from .outpath import OutputError
    from .results import check_result_dir

    try:
        check_result_dir(out)
    except OutputError as e:
        _fail_usage(f"--out {out}: {e}")


def _write_result(result: Result, out: Path) -> Path:
    """Write ``result`` to ``out``; a place refused now exits 2, a write failing half-way 1."""
    from .outpath import OutputError, describe_os_error

    try:
        return result.write(out)
    except OutputError as e:
        _fail_usage(f"--out {out}: {e}")
    except OSError as e:
        err_console.print(f"--out {out}: writing the results failed: {describe_os_error(e)}; nothing was written", markup=False)
        raise typer.Exit(1) from None
    raise AssertionError  # pragma: no cover

# Beyond this estimated wall time, `run` wants --yes and `validate` says how to shorten the run.
LONG_RUN_S = 3600.0


def _estimate(sc: Any, prepared: Any = None) -> dict[str, Any] | None:
    """The engine's estimate of a run's cost (from the built engine when there is one), or None
    if the engine cannot give one."""
    from . import _engine

    try:
        if prepared is not None:
            return json.loads(prepared.estimate())
        est = getattr(_engine(), "estimate", None)
        return json.loads(est(json.dumps(sc.plan))) if est is not None else None
    except (ImportError, ValueError, RuntimeError):
        return None


def _hms(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _cost_line(e: dict[str, Any]) -> str:
    return (
        f"expected work: ~{e['packets']:,} packets ({e['link_packets']:,} link transmissions, "
        f"{e['busiest_link_packets']:,} on {e['busiest_link']}), ~{e['events']:,} events; "
        f"about {_hms(e['wall_s'])} at {e['events_per_s'] / 1e6:.0f} M events/s"
    )


def _shorten_hint(sc: Any, e: dict[str, Any]) -> str:
    target = sc.duration_s * LONG_RUN_S / max(e["wall_s"], 1e-9)
    return (
        f"estimated at about {_hms(e['wall_s'])}; to shorten it, simulate less time "
        f"(--set run.duration=\"{max(target, 1):.0f}s\" fits an hour) or fewer pairs/flows"
    )


def _confirm_cost(sc: Any, yes: bool, prepared: Any = None) -> None:
    """Refuse a run estimated at over an hour unless --yes."""
    if yes:
        return
    e = _estimate(sc, prepared)
    if e is not None and e["wall_s"] > LONG_RUN_S:
        err_console.print(f"this run is {_shorten_hint(sc, e)}; or pass --yes to run it as it is", markup=False)
        raise typer.Exit(2)


@contextmanager
def _progress(duration_s: float, quiet: bool) -> Iterator[Callable[[float, int], None] | None]:
    """A progress line on stderr for runs long enough to want one, when stderr is a terminal:
    simulated time, the engine's events per second and the time left."""
    if quiet or not err_console.is_terminal:
        yield None
        return
    bar = Progress(
        TextColumn("simulating"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:g} s simulated"),
        TextColumn("{task.fields[speed]}"),
        TextColumn("{task.fields[eta]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    task = bar.add_task("run", total=duration_s, speed="", eta="")
    started = False
    t0 = time.monotonic()

    def update(sim_s: float, events: int = 0) -> None:
        nonlocal started
        wall = time.monotonic() - t0
        if not started and wall > 0.5:
            bar.start()
            started = True
        speed = f"{events / wall / 1e6:.1f} M events/s" if wall > 0 and events else ""
        left = (duration_s - sim_s) * wall / sim_s if sim_s > 0 else None
        eta = f"~{_hms(left)} left" if left is not None else ""
        bar.update(task, completed=sim_s, speed=speed, eta=eta)

    try:
        yield update
    finally:
        if started:
            bar.stop()


@app.command()
def validate(
    files: Annotated[list[Path], typer.Argument(help="Scenario files (TOML).", show_default=False)],
    plan: Annotated[bool, typer.Option("--plan", help="Print the resolved plan (what the engine gets) as JSON.")] = False,
    seed: SeedOption = None,
    sets: SetOption = None,
) -> None:
    """Check scenarios without running them; list every problem with its key path.

    Exit status 2 if any file has problems.
    """
    from .scenario import load_scenario

    if plan and len(files) != 1:
        _fail_usage("--plan takes exactly one file")
    overrides = _overrides(sets)
    failed: list[ScenarioError] = []
    for file in files:
        try:
            sc = load_scenario(file, seed=seed, overrides=overrides)
        except ScenarioError as e:
            if len(files) == 1:
                _report_problems(e, file)
            for p in e.problems:
                err_console.print(p if str(file) in p else f"{file}: {p}", markup=False)
            failed.append(e)
            continue
        if plan:
            sys.stdout.write(json.dumps(sc.plan, indent=2, sort_keys=True) + "\n")
            return
        p = sc.plan
        out_console.print(
            f"{file}: ok -- {_count(len(p['nodes']), 'node')}, {_count(len(p['links']), 'link')}, "
            f"{_count(len(p['traffic']), 'traffic block')}, {sc.duration_s:g} s, seed {sc.seed}",
            markup=False,
        )
        e = _estimate(sc)
        if e is not None:
            out_console.print(f"  {_cost_line(e)}", markup=False)
            if e["wall_s"] > LONG_RUN_S:
                out_console.print(f"  note: this run is {_shorten_hint(sc, e)}; `bufferlab run` asks for --yes", markup=False)
    if failed:
        n = sum(len(e.problems) for e in failed)
        err_console.print(f"{len(failed)} of {len(files)} files have problems ({n} in all)", markup=False, style="bold")
        raise typer.Exit(2)


@app.command()
def schema(
    sweep: Annotated[bool, typer.Option("--sweep", help="The sweep spec's schema instead of the scenario file's.")] = False,
    docs: Annotated[
        Optional[Path], typer.Option("--docs", help="Rewrite the generated key tables of this Markdown file (docs/scenario-format.md) instead.")
    ] = None,
) -> None:
    """Print the JSON Schema of scenario files (or of sweep specs), for editors.

    Example: `bufferlab schema > scenario.schema.json`, then `#:schema ./scenario.schema.json` as
    the first line of a scenario file lets Taplo / Even Better TOML complete and check it.
    """
    from .scenario.jsonschema import rewrite_docs, scenario_schema, sweep_schema

    if docs is not None:
        try:
            text = docs.read_text()
            new = rewrite_docs(text)
        except (OSError, ValueError) as e:
            err_console.print(f"{docs}: cannot rewrite its tables ({e})", markup=False)
            raise typer.Exit(2) from None
        if new != text:
            docs.write_text(new)
        out_console.print(f"{docs}: tables {'rewritten' if new != text else 'already current'}", markup=False)
        return
    sys.stdout.write(json.dumps(sweep_schema() if sweep else scenario_schema(), indent=2) + "\n")


@app.command()
def version() -> None:
    """Print the package's and the engine's versions."""
    from . import engine_version

    try:
        ev = engine_version()
    except ImportError:
        ev = "not built"
    out_console.print(f"bufferlab {__version__} (engine {ev})", markup=False)


# Command groups of other modules register here (e.g. sweeps, the benchmark).
from .cli_sweep import register as _register_sweep; _register_sweep(app)  # noqa: E402, E702
from .ballast.cli import register as _register_ballast; _register_ballast(app)  # noqa: E402, E702
from .bench import register as _register_bench; _register_bench(app)  # noqa: E402, E702
from .reproduce.cli import register as _register_reproduce; _register_reproduce(app)  # noqa: E402, E702
from .crosscheck.cli import register as _register_crosscheck; _register_crosscheck(app)  # noqa: E402, E702
from .kernel.cli import register as _register_kernel; _register_kernel(app)  # noqa: E402, E702


# ---------------------------------------------------------------- tables


def _count(n: int, noun: str) -> str:
    """``1 link``, ``2 links``, ``1,000 nodes``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _f(x: Any, fmt) -> str:
    if x is None:
        return "-"
    try:
        return fmt(x)
    except (TypeError, ValueError):
        return str(x)


def _s(x: Any) -> str:
    return _f(x, lambda v: format_time_ns(float(v) * 1e9))


def _limit(q: dict[str, Any]) -> str:
    if q.get("limit_pkts") is not None:
        limit = f"{q['limit_pkts']}pkt"
    elif q.get("limit_bytes") is not None:
        limit = format_bytes(q["limit_bytes"])
    else:
        limit = "-"
    if q.get("sizing"):
        limit += f" ({q['sizing']})"
    return limit


def _print_table(console: Console, title: str, cols: list[tuple[str, str, Callable[[dict[str, Any]], str]]], items: list[dict[str, Any]]) -> None:
    """A table of ``items``, leaving out columns no item has a value in (RTTs of a UDP-only run,
    ring delays where there is no ring)."""
    rows = [[get(x) for _, _, get in cols] for x in items]
    keep = [i for i in range(len(cols)) if any(r[i] != "-" for r in rows)]
    t = Table(title=title, title_justify="left")
    for i in keep:
        t.add_column(cols[i][0], justify=cols[i][1], no_wrap=True)
    for r in rows:
        t.add_row(*(r[i] for i in keep))
    console.print(t)


# Up to this many queues every one is listed; beyond, the host ports are summed up.
HOST_PORTS_SHOWN = 8


def _host_nodes(plan: dict[str, Any] | None) -> set[str]:
    """Nodes at the edge: those with one link (a dumbbell's senders and receivers)."""
    degree: dict[str, int] = {}
    for ln in (plan or {}).get("links", []):
        for end in (ln.get("a"), ln.get("b")):
            degree[end] = degree.get(end, 0) + 1
    return {n for n, d in degree.items() if d == 1}


def _at_host(row: dict[str, Any], hosts: set[str]) -> bool:
    a, _, b = str(row.get("link", "")).partition("->")
    return a in hosts or b in hosts


def _split_host_ports(rows: list[dict[str, Any]], hosts: set[str], all_rows: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(rows to list, host rows summed up): a host's port is listed only when it dropped
    packets, the topology is small, or ``all_rows``; at least one row is always listed."""
    if all_rows or len(rows) <= HOST_PORTS_SHOWN:
        return rows, []
    shown = [r for r in rows if not _at_host(r, hosts) or (r.get("dropped") or 0) > 0]
    if not shown:
        return rows, []
    hidden = [r for r in rows if not any(r is x for x in shown)]
    return shown, hidden


def _hidden_queues_line(hidden: list[dict[str, Any]]) -> str:
    worst = max(hidden, key=lambda q: q.get("sojourn_mean_s") or 0.0)
    return (f"+ {_count(len(hidden), 'host queue')} not listed: none dropped; the longest mean sojourn "
            f"{_s(worst.get('sojourn_mean_s'))} at {worst.get('link')} (--all-queues lists them)")


def _hidden_links_line(hidden: list[dict[str, Any]]) -> str:
    u = [ln.get("utilization") for ln in hidden if ln.get("utilization") is not None]
    span = f"; utilization {100 * min(u):.1f}% to {100 * max(u):.1f}%" if u else ""
    return f"+ {_count(len(hidden), 'host link')} not listed{span} (--all-queues lists them)"


def print_result(result: Result, console: Console, title: str | None = None, all_queues: bool = False) -> None:
    """The readable summary: a line about the run, then flows, queues and links (a large
    topology's host ports summed up in a line each unless ``all_queues``)."""
    s = result.summary
    e = s.get("engine", {})
    events = e.get("events", 0) or 0
    wall = e.get("wall_seconds", 0.0) or 0.0
    rate = f", {events / wall / 1e6:.3g} M events/s" if wall > 0 else ""
    head = f"{title}: " if title else ""
    if s.get("backend") == "kernel":
        d = s.get("kernel", {}).get("driver", {})
        late = d.get("lateness_p99_s")
        console.print(
            f"{head}{e.get('sim_seconds', 0):g} s in real time on the kernel backend ({wall:.3g} s with set-up); "
            f"{d.get('pkts_in', 0):,} packets from the hosts, delivery lateness p99 {_s(late)}",
            markup=False,
        )
    else:
        console.print(
            f"{head}{e.get('sim_seconds', 0):g} s simulated in {wall:.3g} s ({events:,} events{rate}); "
            f"engine {e.get('version', '?')}",
            markup=False,
        )
    flows = s.get("flows", [])
    if flows:
        cols = [
            ("flow", "left", lambda f: str(f.get("id"))),
            ("kind", "left", lambda f: str(f.get("kind"))),
            ("path", "left", lambda f: f"{f.get('src')}->{f.get('dst')}"),
            # A ping carries no payload: no goodput, nothing to retransmit.
            ("goodput", "right", lambda f: "-" if f.get("kind") == "ping" else _f(f.get("goodput_bps"), format_rate_bps)),
            ("rtt mean", "right", lambda f: _s(f.get("rtt_mean_s"))),
            ("rtt p99", "right", lambda f: _s(f.get("rtt_p99_s"))),
            ("one-way mean", "right", lambda f: _s(f.get("owd_mean_s"))),
            ("loss", "right", lambda f: _f(f.get("loss_rate"), lambda v: f"{100 * v:.2f}%")),
            ("retx", "right", lambda f: "-" if f.get("kind") in ("ping", "udp") else _f(f.get("retransmits"), str)),
            ("done in", "right", lambda f: _s(f.get("completion_time_s"))),
        ]
        _print_table(console, "flows", cols, flows)
    hosts = _host_nodes(result.plan)
    queues, hidden_queues = _split_host_ports(s.get("queues", []), hosts, all_queues)
    if queues:
        cols = [
            ("link", "left", lambda q: str(q.get("link"))),
            ("qdisc", "left", lambda q: str(q.get("discipline"))),
            ("limit", "right", _limit),
            ("sojourn mean", "right", lambda q: _s(q.get("sojourn_mean_s"))),
            ("sojourn p99", "right", lambda q: _s(q.get("sojourn_p99_s"))),
            ("ring mean", "right", lambda q: _s(q.get("ring_sojourn_mean_s"))),
            ("bql", "right", lambda q: _f(q.get("bql_limit_bytes"), format_bytes)),
            ("mean occupancy", "right", lambda q: _f(q.get("occupancy_mean_pkts"), lambda v: f"{v:.3g} pkt")),
            ("enqueued", "right", lambda q: _f(q.get("enqueued"), lambda v: f"{v:,}")),
            ("dropped", "right", lambda q: _f(q.get("dropped"), lambda v: f"{v:,}")),
        ]
        _print_table(console, "queues", cols, queues)
    if hidden_queues:
        console.print(_hidden_queues_line(hidden_queues), markup=False)
    links, hidden_links = _split_host_ports(s.get("links", []), hosts, all_queues)
    if links:
        cols = [
            ("link", "left", lambda ln: str(ln.get("link"))),
            ("rate", "right", lambda ln: _f(ln.get("rate_bps"), format_rate_bps)),
            ("framing", "left", lambda ln: "-" if ln.get("framing") in (None, "none") else str(ln["framing"])),
            ("utilization", "right", lambda ln: _f(ln.get("utilization"), lambda v: f"{100 * v:.1f}%")),
            ("sent", "right", lambda ln: _f(ln.get("bytes_sent"), format_bytes)),
        ]
        _print_table(console, "links", cols, links)
    if hidden_links:
        console.print(_hidden_links_line(hidden_links), markup=False)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted", markup=False)
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
