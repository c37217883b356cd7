"""``bufferlab run`` and ``bufferlab validate``: one scenario file run (on the simulator or the
kernel backend), or checked with the engine's estimate of what a run would cost."""

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..cost import LONG_RUN_S, estimate, shorten_hint
from ..errors import EngineError, ScenarioError
from .common import (
    SeedOption,
    SetOption,
    YesOption,
    err_console,
    fail,
    hms,
    out_console,
    parse_sets,
    progress_line,
    report_problems,
)
from .tables import counted, print_result

if TYPE_CHECKING:
    from ..results import Result

def run(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Write summary.json and Parquet tables to this directory (replaced atomically)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print summary.json to stdout instead of tables.")] = False,
    seed: SeedOption = None,
    sets: SetOption = None,
    list_all: Annotated[
        bool, typer.Option("--all", "--all-queues", help="List every flow, and every host's queue and link (by default many flows, and a large topology's host ports, are summed up in a line each).")
    ] = False,
    yes: YesOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar (there is none either when stderr is not a terminal).")] = False,
    backend: Annotated[
        str,
        typer.Option("--backend", help="`sim` (the simulator) or `kernel` (real Linux hosts in namespaces, the network in real time; root). See docs/kernel-backend.md."),
    ] = "sim",
    flent: Annotated[
        Optional[Path],
        typer.Option("--flent", help="Also write Flent's data file (FILE.flent.gz) for Flent's plots and GUI; samples at Flent's 0.2 s step if run.sample is not set. See docs/flent.md.", show_default=False),
    ] = None,
    seeds: Annotated[
        Optional[int],
        typer.Option(
            "--seeds", "-n", min=1,
            help="Run this many seeds (the file's seed, or --seed, and the next ones) on every core and print each "
            "figure's mean ± the half-width of its 95% interval; --out then keeps a sweep's results folder. "
            "See docs/results.md.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        Optional[int], typer.Option("--workers", "-j", min=1, help="With --seeds: worker processes (default: the cores).", show_default=False)
    ] = None,
    capture: Annotated[
        Optional[list[str]],
        typer.Option(
            "--capture",
            help="Write a pcap file of this capture point into --out (repeatable; added to the scenario's run.capture): "
            "`A->B` (a link direction), `A->B:arrivals`, `A->B:departures`, `A->B:drops` (its queue), `H`, `H:egress`, `H:ingress` (a node). See docs/capture.md.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario and print its flows, queues and links.

    Example: `bufferlab run scenarios/udp-fifo.toml --out out/udp-fifo`
    """
    from ..simulate import prepare_plan, run_prepared
    from ..scenario import load_scenario

    if backend not in ("sim", "kernel"):
        fail(f"--backend {backend}: expected sim or kernel")
    if capture and out is None:
        fail("--capture: the pcap files go into the run's --out DIR; give one")
    if seeds is not None and seeds > 1:
        _refuse_with_seeds(backend=backend, flent=flent, capture=capture)
    elif workers is not None:
        fail("--workers: runs the seeds of --seeds N in parallel; one run uses one core")
    stage = None
    try:
        # The engine checks the plan as it builds it, once; the estimate comes from that build (the
        # kernel backend then builds its own network around the real hosts).
        overrides = _with_captures(file, parse_sets(sets), capture)
        sc = load_scenario(file, seed=seed, overrides=overrides, engine_check=False)
        if flent is not None:
            check_flent_path(flent)
            _check_flent_plan(flent, sc.plan)
            if sc.plan["run"].get("sample_ns") is None:
                # Sampling reads the engine's counters and changes nothing in the run.
                from ..flent import STEP

                sc = load_scenario(file, seed=seed, overrides={**overrides, "run.sample": STEP}, engine_check=False)
        if out is not None and not (seeds is not None and seeds > 1):
            _check_out(out)  # before the simulation: a bad --out costs nothing
        prepared = prepare_plan(sc, origins=sc.origins, source=sc.source)
        _confirm_cost(sc, yes, prepared)
        if seeds is not None and seeds > 1:
            from .run_seeds import run_seeds

            # Every seed costs about what the first does: it was judged above, as one run is.
            return run_seeds(file, sc, overrides, seeds, out=out, as_json=as_json, quiet=quiet, yes=True,
                             workers=workers, list_all=list_all)
        stage = _capture_stage(sc, out)
        with progress_line(sc.duration_s, quiet=quiet or as_json) as progress:
            if backend == "kernel":
                from .kernel import run_kernel_cli

                result = run_kernel_cli(sc, progress, capture_dir=stage)
            else:
                result = run_prepared(prepared, sc.plan, progress=progress, capture_dir=stage)
        if out is not None:
            written = _write_result(result, out)
    except KeyboardInterrupt:
        err_console.print("interrupted; nothing written", markup=False)
        raise typer.Exit(130) from None
    except ScenarioError as e:
        report_problems(e, file)
    except EngineError as e:
        err_console.print(f"{file}: {e}", markup=False)
        raise typer.Exit(1) from None
    except ImportError as e:
        err_console.print(str(e), markup=False)
        raise typer.Exit(1) from None
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
    _capture_notes(result)
    if flent is not None:
        write_flent_file(result, flent, title=file.stem, note=f"{file}, seed {sc.seed}")
    if as_json:
        sys.stdout.write(result.summary_json())
        return
    print_result(result, out_console, title=str(file), list_all=list_all)
    if out is not None:
        out_console.print(f"wrote {written}", markup=False)
    if flent is not None:
        out_console.print(f"wrote {flent}", markup=False)


def _refuse_with_seeds(*, backend: str, flent: Path | None, capture: list[str] | None) -> None:
    """What --seeds does not combine with, and the command that does it."""
    if backend != "sim":
        fail("--seeds with --backend kernel: kernel runs take real time one at a time; "
             "`bufferlab compare FILE --seeds N` runs both backends over seeds side by side")
    if flent is not None:
        fail("--seeds with --flent: one Flent file a run; `bufferlab sweep SPEC --flent DIR` writes one per seed")
    if capture:
        fail("--seeds with --capture: capture one run (`--seed S --capture ...`)")


def _with_captures(file: Path, overrides: dict[str, Any], points: list[str] | None) -> dict[str, Any]:
    """The overrides with ``--capture`` points added to the file's ``run.capture``."""
    if not points:
        return overrides
    from ..scenario import read_document

    if "run.capture" in overrides:
        given = overrides["run.capture"]
    else:
        doc, _ = read_document(file)
        run = doc.get("run")
        given = run.get("capture", []) if isinstance(run, dict) else []
    # A malformed list is left as it is, for the reader to report.
    if isinstance(given, list):
        overrides = {**overrides, "run.capture": given + [p for p in points if p not in given]}
    return overrides


def _capture_stage(sc: Any, out: Path | None) -> Path | None:
    """A fresh folder beside ``out`` for the run's pcap files until its result is written
    (None when the run captures nothing, or has nowhere to keep it)."""
    if not sc.plan["run"].get("capture"):
        return None
    if out is None:
        err_console.print("note: run.capture is set but there is no --out DIR, so no pcap file is written", markup=False)
        return None
    from ..outpath import make_sibling

    target = out.expanduser().absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    return make_sibling(target, "capture")


def _capture_notes(result: "Result") -> None:
    """A capture that stopped early says so on stderr (the summary keeps the note too)."""
    notes = {(c.get("note"), c.get("stopped_s")) for c in result.captures if c.get("note")}
    for note, at in sorted(notes, key=str):
        err_console.print(f"note: {note} at {at:g} s; the pcap files hold the packets before that", markup=False)


def check_flent_path(path: Path) -> None:
    """Refuse a Flent file name Flent would not find, or a place it cannot be written (exit 2)."""
    if not path.name.endswith(".flent.gz"):
        fail(f"--flent {path}: name it *.flent.gz, the suffix Flent opens (e.g. {path.name.split('.')[0] or 'run'}.flent.gz)")
    if path.is_dir():
        fail(f"--flent {path}: is a folder; give a file name")
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        fail(f"--flent {path}: {parent} is not a folder")


def _check_flent_plan(path: Path, plan: dict[str, Any]) -> None:
    """A run Flent cannot show is refused before it runs (exit 2, like any bad input)."""
    from ..flent import FlentError, check_plan

    try:
        check_plan(plan)
    except FlentError as e:
        fail(f"--flent {path}: {e}")


def write_flent_file(result: "Result", path: Path, *, title: str, note: str) -> None:
    """Write the run as a Flent data file; a run Flent cannot show, or a failed write, exits 1."""
    from ..flent import FlentError, write_result
    from ..outpath import describe_os_error

    try:
        write_result(result, path, title=title, note=note)
    except FlentError as e:
        err_console.print(f"--flent {path}: {e}", markup=False)
        raise typer.Exit(1) from None
    except OSError as e:
        err_console.print(f"--flent {path}: writing failed: {describe_os_error(e)}", markup=False)
        raise typer.Exit(1) from None


def _check_out(out: Path) -> None:
    """Refuse an output folder that cannot be written (exit 2, like any bad input)."""
    from ..outpath import OutputError
    from ..results import check_result_dir

    try:
        check_result_dir(out)
    except OutputError as e:
        fail(f"--out {out}: {e}")


def _write_result(result: "Result", out: Path) -> Path:
    """Write ``result`` to ``out``; a place refused now exits 2, a write failing half-way 1."""
    from ..outpath import OutputError, describe_os_error

    try:
        return result.write(out)
    except OutputError as e:
        fail(f"--out {out}: {e}")
    except OSError as e:
        err_console.print(f"--out {out}: writing the results failed: {describe_os_error(e)}; nothing was written", markup=False)
        raise typer.Exit(1) from None


def _cost_line(e: dict[str, Any]) -> str:
    return (
        f"expected work: ~{e['packets']:,} packets ({e['link_packets']:,} link transmissions, "
        f"{e['busiest_link_packets']:,} on {e['busiest_link']}), ~{e['events']:,} events; "
        f"about {hms(e['wall_s'])} at {e['events_per_s'] / 1e6:.0f} M events/s"
    )


def _confirm_cost(sc: Any, yes: bool, prepared: Any) -> None:
    """Refuse a run estimated at over an hour unless --yes."""
    if yes:
        return
    e = estimate(prepared)
    if e is not None and e["wall_s"] > LONG_RUN_S:
        err_console.print(f"this run is {shorten_hint(sc.duration_s, e)}; or pass --yes to run it as it is", markup=False)
        raise typer.Exit(2)


def validate(
    files: Annotated[list[Path], typer.Argument(help="Scenario files (TOML).", show_default=False)],
    plan: Annotated[bool, typer.Option("--plan", help="Print the resolved plan (what the engine gets) as JSON.")] = False,
    seed: SeedOption = None,
    sets: SetOption = None,
) -> None:
    """Check scenarios without running them; list every problem with its key path.

    Exit status 2 if any file has problems.
    """
    from ..simulate import prepare_plan
    from ..scenario import load_scenario

    if plan and len(files) != 1:
        fail("--plan takes exactly one file")
    overrides = parse_sets(sets)
    failed: list[ScenarioError] = []
    for file in files:
        try:
            sc = load_scenario(file, seed=seed, overrides=overrides, engine_check=False)
            # The engine checks the plan as it builds it; the estimate comes from that build.
            prepared = prepare_plan(sc, origins=sc.origins, source=sc.source)
        except ScenarioError as e:
            if len(files) == 1:
                report_problems(e, file)
            for p in e.problems:
                err_console.print(p if str(file) in p else f"{file}: {p}", markup=False)
            failed.append(e)
            continue
        if plan:
            sys.stdout.write(json.dumps(sc.plan, indent=2, sort_keys=True) + "\n")
            return
        n_nodes, n_dirs, n_traffic = sc.counts()
        out_console.print(
            f"{file}: ok -- {counted(n_nodes, 'node')}, {counted(n_dirs // 2, 'link')}, "
            f"{counted(n_traffic, 'traffic block')}, {sc.duration_s:g} s, seed {sc.seed}",
            markup=False,
        )
        e = estimate(prepared)
        if e is not None:
            out_console.print(f"  {_cost_line(e)}", markup=False)
            if e["wall_s"] > LONG_RUN_S:
                out_console.print(f"  note: this run is {shorten_hint(sc.duration_s, e)}; `bufferlab run` asks for --yes", markup=False)
    if failed:
        n = sum(len(e.problems) for e in failed)
        err_console.print(f"{len(failed)} of {len(files)} files have problems ({n} in all)", markup=False, style="bold")
        raise typer.Exit(2)
