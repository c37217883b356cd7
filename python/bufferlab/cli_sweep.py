"""The ``bufferlab sweep``, ``bufferlab query`` and ``bufferlab plot`` commands.

Exit status: 0 done; 1 some points failed (each recorded in the store with its error), or a
plot/query failed; 2 a bad spec or command line; 130 interrupted (what finished is kept: run the
same command again to finish).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from .errors import ScenarioError
from .store import StoreError

out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)
if not out_console.is_terminal:
    out_console.width = 200  # piped: tables at their natural width (no truncated column names)

OutFile = Annotated[Path, typer.Option("--out", "-o", help="Image to write: .png or .svg (or .pdf).")]
DataFile = Annotated[
    Optional[Path], typer.Option("--data", help="Also write the plotted data as CSV (or .parquet).")
]


def _fail(msg: str, code: int = 2) -> None:
    err_console.print(f"error: {msg}", markup=False)
    raise typer.Exit(code)


# ---------------------------------------------------------------- sweep


def sweep(
    spec: Annotated[Path, typer.Argument(help="Sweep spec (TOML): base, seeds, [set], [grid], [zip].")],
    out: Annotated[Path, typer.Option("--out", help="Results folder (created; reused to resume).")],
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
) -> None:
    """Run every point × seed of a sweep spec into a Parquet results folder.

    Points already in the folder (same resolved scenario, same engine version) are not run
    again, so an interrupted sweep resumes where it stopped. Query the folder with `bufferlab
    query`, or in Python with `bufferlab.load(DIR)`.
    """
    from .sweep import SweepInterrupted, load_spec, run_sweep
    from .sweep.check import check_points
    from .sweep.runner import engine_version

    if dask_local and scheduler:
        _fail("--dask-local starts a cluster and --scheduler uses a running one: give one of them")
    try:
        sp = load_spec(spec)
        version = engine_version()
        points = sp.points(version)
        check_points(points, str(spec))  # every point, before any runs
    except ScenarioError as e:
        for p in e.problems:
            err_console.print(f"{spec}: {p}", markup=False)
        raise typer.Exit(2) from None
    if not dry_run:
        _check_out_dir(out)
    if dry_run:
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
        _fail(str(e), 1)
    except OSError as e:
        from .outpath import describe_os_error

        _fail(f"--out {out}: storing a run failed: {describe_os_error(e)}; what was stored is kept "
              "(run the same command again to finish)", 1)
    r = report
    err_console.print(
        f"{r.total} runs: {r.done} done, {r.failed} failed, {r.skipped} already in {out} "
        f"({r.wall_seconds:.1f} s)", markup=False,
    )
    if r.failed:
        _show_failures(out, r.ran)
        raise typer.Exit(1)


def _check_out_dir(out: Path) -> None:
    from .outpath import OutputError
    from .store import check_store_dir

    try:
        check_store_dir(out)
    except OutputError as e:
        _fail(f"--out {out}: {e}")


def _check_out_file(opt: str, path: Path | None, suffixes: tuple[str, ...] | None) -> None:
    """A figure's or a data file's path, checked before any data is read."""
    from .outpath import OutputError, check_out_file

    if path is None:
        return
    try:
        check_out_file(path, suffixes)
    except OutputError as e:
        _fail(f"{opt} {path}: {e}")


FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
DATA_SUFFIXES = (".csv", ".parquet")


def _check_outputs(out: Path, data: Path | None) -> None:
    _check_out_file("-o", out, FIGURE_SUFFIXES)
    _check_out_file("--data", data, DATA_SUFFIXES)


def _show_failures(out: Path, parts: list[str], limit: int = 5) -> None:
    from .store import query as q

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
    folder: Annotated[Path, typer.Argument(help="A sweep's results folder.")],
    sql: Annotated[str, typer.Argument(help="SQL over the tables points, flows, queues, links, transfers, timeseries, distributions.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv or json.")] = "table",
) -> None:
    """Run DuckDB SQL over a results folder; the tables are views by name.

    Example: `bufferlab query out "SELECT seed, avg(goodput_bps) FROM flows GROUP BY seed"`.
    Swept keys are columns of `points` (quote dotted names: `"topology.pairs"`); join with
    `USING (point_id, seed)`.
    """
    import duckdb

    from .store import query as run_query

    if fmt not in ("table", "csv", "json"):
        _fail(f'--format {fmt}: choose "table", "csv" or "json"')
    try:
        df = run_query(folder, sql)
    except StoreError as e:
        _fail(str(e), 2)
    except duckdb.Error as e:
        _fail(str(e).strip(), 1)
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


# ---------------------------------------------------------------- plot

plot_app = typer.Typer(
    help="Draw figures from a run's output folder, a sweep's results folder or a scenario file.",
    no_args_is_help=True,
)


def _write(fig, data: pd.DataFrame, out: Path, data_out: Path | None) -> None:
    from .plot import save

    try:
        save(fig, out)
    except ValueError as e:
        _fail(str(e))
    if data_out is not None:
        data_out.parent.mkdir(parents=True, exist_ok=True)
        if data_out.suffix == ".parquet":
            data.to_parquet(data_out, index=False)
        else:
            data.to_csv(data_out, index=False)
    err_console.print(f"wrote {out}" + (f" and {data_out}" if data_out else ""), markup=False)


def _source(src: Path, table: str, point: str | None, seed: int | None) -> tuple[pd.DataFrame, list[str]]:
    """A table from a run folder, a scenario file (run now) or a sweep folder (with the swept
    columns joined on); returns it and the swept keys."""
    if src.is_file() and src.suffix == ".toml":
        from . import run

        try:
            return getattr(run(src), table).assign(seed=1), []
        except ScenarioError as e:
            for p in e.problems:
                err_console.print(p, markup=False)
            raise typer.Exit(2) from None
    if (src / "summary.json").is_file():
        from .results import Result

        return getattr(Result.read(src), table).assign(seed=1), []
    from .store import load

    try:
        tables = load(src)
    except StoreError:
        _fail(f"{src} is neither a run's output folder, a sweep's results folder nor a .toml scenario")
    df = tables.with_params(table)
    if point is not None:
        df = df[df["point_id"].str.startswith(point)]
    if seed is not None:
        df = df[df["seed"] == seed]
    if df.empty:
        _fail(f"no {table} rows in {src}" + (" for that --point/--seed" if point or seed is not None else ""))
    return df, tables.swept


PointOpt = Annotated[Optional[str], typer.Option("--point", help="Sweep folder: one point (point_id or its start).")]
SeedOpt = Annotated[Optional[int], typer.Option("--seed", help="Sweep folder: one seed.")]
ByOpt = Annotated[Optional[list[str]], typer.Option("--by", help="Swept key (or column) giving one line per value (repeatable).")]


@plot_app.command("timeseries")
def plot_timeseries(
    src: Annotated[Path, typer.Argument(help="Run folder, sweep folder or scenario .toml (with run.sample).")],
    metric: Annotated[str, typer.Option("--metric", "-m", help="qlen_pkts, qlen_bytes, cwnd_bytes, srtt_s, throughput_bps, ...")],
    out: OutFile,
    ids: Annotated[Optional[list[str]], typer.Option("--id", help="Queue/link/flow id to show (repeatable; default all).")] = None,
    point: PointOpt = None,
    seed: SeedOpt = None,
    data: DataFile = None,
) -> None:
    """A metric against time, one line per queue/link/flow (and per seed)."""
    _check_outputs(out, data)
    from .plot import timeseries

    df, _ = _source(src, "timeseries", point, seed)
    if "point_id" in df.columns and df["point_id"].nunique() > 1:
        _fail(f"{src} holds {df['point_id'].nunique()} points: choose one with --point "
              f"({', '.join(sorted(df['point_id'].unique())[:5])}, ...)")
    by = ["seed"] if df["seed"].nunique() > 1 else []
    try:
        fig, d = timeseries(df, metric, ids=ids, by=by)
    except ValueError as e:
        _fail(str(e))
    _write(fig, d, out, data)


@plot_app.command("cdf")
def plot_cdf(
    src: Annotated[Path, typer.Argument(help="Run folder, sweep folder or scenario .toml.")],
    metric: Annotated[str, typer.Option("--metric", "-m", help="sojourn_s, rtt_s (from the CDF tables) or a time-series metric such as throughput_bps.")],
    out: OutFile,
    ids: Annotated[Optional[list[str]], typer.Option("--id", help="Queue/flow id (repeatable; default all, one line each).")] = None,
    by: ByOpt = None,
    point: PointOpt = None,
    seed: SeedOpt = None,
    logx: Annotated[bool, typer.Option("--logx")] = False,
    data: DataFile = None,
) -> None:
    """CDF of a metric; over several seeds, the mean of each percentile with ± SEM bars."""
    _check_outputs(out, data)
    from .plot import cdf

    dist, swept = _source(src, "distributions", point, seed)
    cdf_col: str | None = "cdf"
    if metric not in set(dist.get("metric", pd.Series(dtype=str))):
        dist, swept = _source(src, "timeseries", point, seed)
        cdf_col = None
        known = set(dist.get("metric", pd.Series(dtype=str)))
        if metric not in known:
            _fail(f"no {metric} in {src}; metrics: {', '.join(sorted(known)) or 'none'}")
    df = dist[dist["metric"] == metric]
    if ids:
        df = df[df["id"].isin(ids)]
    groups = list(by or [])
    for k in groups:
        if k not in df.columns:
            _fail(f"--by {k}: not a column; swept keys: {', '.join(swept) or 'none'}")
    if df["id"].nunique() > 1:
        groups.append("id")
    fig, d = cdf(df, cdf_col=cdf_col, by=groups, replicate=[c for c in ("point_id", "seed") if c in df.columns],
                 metric=metric, logx=logx)
    _write(fig, d, out, data)


@plot_app.command("sweep")
def plot_sweep(
    folder: Annotated[Path, typer.Argument(help="A sweep's results folder.")],
    x: Annotated[str, typer.Option("--x", help="Swept key for the x axis.")],
    y: Annotated[str, typer.Option("--y", help="TABLE.COLUMN, e.g. flows.goodput_bps or queues.sojourn_mean_s.")],
    out: OutFile,
    group: Annotated[Optional[list[str]], typer.Option("--group", help="Swept key giving one line per value (repeatable).")] = None,
    where: Annotated[Optional[str], typer.Option("--where", help="SQL condition on the table's rows, e.g. \"link = 'r1->r2'\".")] = None,
    reduce: Annotated[str, typer.Option("--reduce", help="Combine a seed's rows (several flows): mean, sum, min, max.")] = "mean",
    level: Annotated[float, typer.Option("--level", help="Confidence level of the band.")] = 0.95,
    logx: Annotated[bool, typer.Option("--logx")] = False,
    logy: Annotated[bool, typer.Option("--logy")] = False,
    data: DataFile = None,
) -> None:
    """A metric against a swept key, mean over seeds with a Student-t band, one line per group."""
    _check_outputs(out, data)
    from .plot import metric_vs_param
    from .store import manifest, query as run_query

    table, _, column = y.partition(".")
    if not column or table not in ("points", "flows", "queues", "links", "transfers"):
        _fail(f"--y {y}: write TABLE.COLUMN with TABLE one of points, flows, queues, links, transfers")
    swept = manifest(folder).get("swept", [])
    keys = [x, *(group or [])]
    missing = [k for k in keys if k not in swept]
    if missing:
        _fail(f"{', '.join(missing)}: not swept in {folder}; swept keys: {', '.join(swept) or 'none'}")
    cols = ", ".join('p."' + k.replace('"', '""') + '"' for k in keys)
    sql = f"SELECT t.*, {cols} FROM {table} t JOIN points p USING (point_id, seed) WHERE p.status = 'done'"
    if table == "points":
        sql = f"SELECT * FROM points WHERE status = 'done'"
    if where:
        sql += f" AND ({where})"
    try:
        df = run_query(folder, sql)
    except Exception as e:  # noqa: BLE001 - duckdb's errors name the column or the syntax
        _fail(str(e).strip())
    if column not in df.columns:
        _fail(f"--y {y}: no column {column}; {table} has {', '.join(c for c in df.columns if c not in keys)}")
    fig, d = metric_vs_param(df, x, column, group=group or [], level=level, reduce=reduce, logx=logx, logy=logy)
    _write(fig, d, out, data)


@plot_app.command("response")
def plot_response(
    src: Annotated[Path, typer.Argument(help="Run folder, sweep folder or scenario .toml with finite transfers.")],
    out: OutFile,
    by: ByOpt = None,
    flow: Annotated[Optional[list[str]], typer.Option("--flow", help="Only these flows' transfers (repeatable).")] = None,
    per_decade: Annotated[int, typer.Option("--per-decade", min=1, help="Size bins per factor of ten.")] = 5,
    point: PointOpt = None,
    seed: SeedOpt = None,
    data: DataFile = None,
) -> None:
    """Mean response time against transfer size (log-binned), one line per group."""
    _check_outputs(out, data)
    from .plot import response_time

    df, swept = _source(src, "transfers", point, seed)
    if flow:
        df = df[df["flow"].isin(flow)]
    for k in by or []:
        if k not in df.columns:
            _fail(f"--by {k}: not a column; swept keys: {', '.join(swept) or 'none'}")
    fig, d = response_time(df, by=by or [], per_decade=per_decade)
    _write(fig, d, out, data)


def register(app: typer.Typer) -> None:
    """Add the sweep, query and plot commands to the ``bufferlab`` command."""
    app.command("sweep")(sweep)
    app.command("query")(query)
    app.add_typer(plot_app, name="plot")
