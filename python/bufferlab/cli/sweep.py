"""``bufferlab sweep`` and ``bufferlab query`` (``bufferlab plot`` is in plot.py).

Exit status: 0 done; 1 some points failed (each recorded in the store with its error), or a
plot/query failed; 2 a bad spec or command line; 130 interrupted (what finished is kept: run the
same command again to finish).
"""

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..cost import LONG_RUN_S
from ..errors import ScenarioError
from .common import YesOption, err_console, fail, out_console

if TYPE_CHECKING:
    from ..sweep.spec import Point


# ---------------------------------------------------------------- sweep


def sweep(
    spec: Annotated[Path, typer.Argument(help="Sweep spec (TOML): base, seeds, [set], [grid], [zip].")],
    out: Annotated[Optional[Path], typer.Option("--out", help="Results folder (created; reused to resume). Not needed with --dry-run.")] = None,
    workers: Annotated[
        Optional[int], typer.Option("--workers", "-j", min=1, help="Worker processes (default: the cores).")
    ] = None,
    dask_local: Annotated[
        bool, typer.Option("--dask-local", help="Run on a new local dask.distributed cluster.")
    ] = False,
    scheduler: Annotated[
        Optional[str],
        typer.Option("--scheduler", metavar="ADDRESS", help="Run on a running Dask cluster (tcp://host:8786)."),
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run points stored as failed again.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List the points; run nothing.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    yes: YesOption = False,
    flent: Annotated[
        Optional[Path],
        typer.Option("--flent", metavar="DIR", help="Also write one Flent data file per point x seed into DIR (<point_id>.s<seed>.flent.gz); the points sample at Flent's 0.2 s step unless the spec sets run.sample. See docs/flent.md."),
    ] = None,
) -> None:
    """Run every point × seed of a sweep spec into a Parquet results folder.

    Points already in the folder (same resolved scenario, same engine version) are not run
    again, so an interrupted sweep resumes where it stopped. Query the folder with `bufferlab
    query`, or in Python with `bufferlab.load(DIR)`.
    """
    from ..store import StoreError
    from ..sweep import SweepInterrupted, load_spec, run_sweep
    from ..sweep.check import check_points
    from ..sweep.runner import engine_version

    if dask_local and scheduler:
        fail("--dask-local starts a cluster and --scheduler uses a running one: give one of them")
    try:
        sp = load_spec(spec)
        if out is None and not dry_run:
            fail("--out DIR: give the results folder (a new one, or a sweep's to resume); --dry-run lists the points without one")
        if flent is not None:
            from ..flent import sample_sweep

            if flent.exists() and not flent.is_dir():
                fail(f"--flent {flent}: is not a folder")
            sample_sweep(sp)
        version = engine_version()
        points = sp.points(version)
        wall_s = check_points(points, str(spec))  # every point, before any runs
        if flent is not None and points:
            _check_flent_points(flent, points)
    except ScenarioError as e:
        for p in e.problems:
            err_console.print(f"{spec}: {p}", markup=False)
        raise typer.Exit(2) from None
    if not yes and not dry_run:
        _confirm_cost(spec, points, wall_s)
    from ..sweep.check import captures_ignored

    note = captures_ignored(points)
    if note:
        err_console.print(f"warning: {note}", markup=False)
    if not dry_run:
        _check_out_dir(out)
    if dry_run:
        from rich.table import Table

        t = Table(title=f"{len(points)} runs", title_justify="left")
        for col in ["point_id", "seed", *sp.swept_keys]:
            t.add_column(col, overflow="fold")
        for p in points:
            t.add_row(p.point_id, str(p.seed), *(json.dumps(p.params[k]) for k in sp.swept_keys))
        out_console.print(t)
        return
    backend = "dask" if (dask_local or scheduler) else "pool"
    try:
        report = run_sweep(
            sp, out, workers=workers, backend=backend, scheduler=scheduler,
            version=version, retry_failed=retry_failed, progress=not quiet, check=False,
        )
    except SweepInterrupted as e:
        r = e.report
        err_console.print(
            f"interrupted: {r.done + r.failed} runs stored this time, {r.missing} left; "
            "run the same command to finish", markup=False,
        )
        raise typer.Exit(130) from None
    except StoreError as e:
        fail(str(e), 1)
    except OSError as e:
        from ..outpath import describe_os_error

        fail(f"--out {out}: storing a run failed: {describe_os_error(e)}; what was stored is kept "
             "(run the same command again to finish)", 1)
    r = report
    err_console.print(
        f"{r.total} runs: {r.done} done, {r.failed} failed, {r.skipped} already in {out} "
        f"({r.wall_seconds:.1f} s)", markup=False,
    )
    if flent is not None:
        from ..flent import FlentError, write_sweep

        try:
            written = write_sweep(points, out, flent, name=sp.name or spec.stem)
        except (FlentError, OSError) as e:
            fail(f"--flent {flent}: {e}", 1)
        err_console.print(f"wrote {len(written)} Flent files into {flent}", markup=False)
    _warn_same_seeds(out, {p.point_id for p in points})
    if r.failed:
        _show_failures(out, r.ran)
        raise typer.Exit(1)


def _warn_same_seeds(out: Path, point_ids: set[str]) -> None:
    """Say which of the spec's points ran the same at every seed: their bands over seeds have
    zero width because nothing in them is random, not because the result is certain."""
    from ..store import StoreError, load
    from ..sweep.same_seeds import SAME_SEEDS_ADVICE, same_at_every_seed

    try:
        flows = load(out).flows
    except (StoreError, OSError):
        return
    flows = flows[flows["point_id"].isin(point_ids)] if "point_id" in flows.columns else flows
    same = same_at_every_seed(flows)
    if same:
        many = flows.groupby("point_id")["seed"].nunique()
        n = int((many > 1).sum())
        err_console.print(
            f"warning: {len(same)} of {n} point{'s' if n != 1 else ''} with several seeds gave the same figures at "
            f"every seed ({', '.join(same[:3])}{', ...' if len(same) > 3 else ''}): {SAME_SEEDS_ADVICE}",
            markup=False,
        )


def _confirm_cost(spec: Path, points: "list[Point]", wall_s: dict[str, float]) -> None:
    """Refuse a sweep with a run estimated at over an hour, as `bufferlab run` would, naming the
    longest point."""
    from ..sweep.check import long_points

    what = long_points(points, wall_s, LONG_RUN_S)
    if what is not None:
        err_console.print(f"{spec}: {what}; pass --yes to run them as they are", markup=False)
        raise typer.Exit(2)


def _check_flent_points(flent: Path, points: "list[Point]") -> None:
    """Points Flent cannot show are refused before any runs (exit 2), naming the first."""
    from ..flent import FlentError, check_plan
    from ..scenario import load_scenario
    from ..sweep.check import describe_point

    firsts = list({p.point_id: p for p in points}.values())
    for number, p in enumerate(firsts, 1):
        try:
            check_plan(load_scenario(p.scenario, engine_check=False).plan)
        except FlentError as e:
            fail(f"--flent {flent}: {describe_point(p, number, len(firsts))}: {e}")


def _check_out_dir(out: Path) -> None:
    from ..outpath import OutputError
    from ..store import check_store_dir

    try:
        check_store_dir(out)
    except OutputError as e:
        fail(f"--out {out}: {e}")


def _show_failures(out: Path, parts: list[str], limit: int = 5) -> None:
    from ..store import query as q

    names = ", ".join("'" + p.replace("'", "''") + "'" for p in parts)
    failed = q(out, f"SELECT point_id, seed, error FROM points WHERE status = 'failed' AND part IN ({names}) "
               "ORDER BY point_id, seed")
    for row in failed.head(limit).itertuples():
        first = str(row.error).splitlines()
        detail = " ".join(s.strip() for s in first[1:3]) if len(first) > 1 else ""
        err_console.print(f"failed {row.point_id} seed {row.seed}: {first[0]} {detail}".rstrip(), markup=False)
    if len(failed) > limit:
        err_console.print(f"... and {len(failed) - limit} more: bufferlab query {out} "
                          "\"SELECT * FROM points WHERE status = 'failed'\"", markup=False)


# ---------------------------------------------------------------- query


def query(
    folders: Annotated[
        list[Path],
        typer.Argument(help="A sweep's results folder, or one or more run output folders (side by side).", show_default=False),
    ],
    sql: Annotated[str, typer.Argument(help="SQL over the tables: points, flows, queues, links, transfers, timeseries, distributions (runs instead of points for run folders).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv or json.")] = "table",
) -> None:
    """Run DuckDB SQL over result folders; the tables are views by name.

    A sweep's folder: `bufferlab query runs/mdl "SELECT seed, avg(goodput_bps) FROM flows GROUP BY seed"`.
    Swept keys are columns of `points` (quote dotted names: `"topology.pairs"`; a quantity also
    has its number in base units in `"KEY:value"`, to sort by); join with `USING (point_id, seed)`.

    Run folders (`bufferlab run FILE --out DIR`), one or several: each table has a `run` column
    (the folder's name) and `seed`, and `runs` lists the folders:
    `bufferlab query out/a out/b "SELECT run, link, sojourn_mean_s FROM queues"`.
    """
    import duckdb
    import pandas as pd
    from rich.table import Table

    from ..store import StoreError, query as run_query

    if fmt not in ("table", "csv", "json"):
        fail(f'--format {fmt}: choose "table", "csv" or "json"')
    try:
        df = run_query(folders, sql)
    except StoreError as e:
        fail(str(e), 2)
    except duckdb.Error as e:
        fail(str(e).strip(), 1)
    if fmt == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", double_precision=15) + "\n")
    else:
        t = Table(show_edge=False)
        for c in df.columns:
            t.add_column(str(c), justify="right" if pd.api.types.is_numeric_dtype(df[c]) else "left")
        for row in df.itertuples(index=False):
            t.add_row(*("" if v is None or (isinstance(v, float) and v != v) else f"{v:.6g}" if isinstance(v, float) else str(v) for v in row))
        out_console.print(t)
