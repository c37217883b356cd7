"""The ``bufferlab plot`` commands.

A figure never averages over something the user did not name: a swept key that varies among the
rows drawn, or several queues, links or flows of one run. Such a plot is refused with the choices
(draw one line per value, keep one value, or say how to combine), or -- for the runs of several
folders side by side and the queues of a CDF -- drawn as one series each.

Exit status: 0 written; 2 a bad command line (what to draw is ambiguous, a path that cannot be
written, a metric that is not there).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import LongRunError, ScenarioError
from .common import err_console, fail, long_run_hint, parse_sets

if TYPE_CHECKING:
    import pandas as pd

FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
DATA_SUFFIXES = (".csv", ".parquet")

# A default plot of a large topology draws its busiest few series, not one per host port: beyond
# MANY_SERIES queues, links or flows (a ten-pair dumbbell has 42 queues), those whose mean is at
# least BUSY_SHARE of the busiest one's, at most FEW_SERIES; --id draws others.
MANY_SERIES = 12
FEW_SERIES = 4
BUSY_SHARE = 0.1

# What to do when a table a plot needs is empty, by table.
EMPTY_HINT = {
    "timeseries": ": the run recorded no time series; set run.sample (run.sample = \"10ms\" in the "
                  "scenario's [run], or --set run.sample=10ms with a scenario file) and run it again",
}

plot_app = typer.Typer(
    help="Draw figures from run output folders (one or several side by side), a sweep's results folder or a scenario file.",
    no_args_is_help=True,
)

OutFile = Annotated[Path, typer.Option("--out", "-o", help="Image to write: .png or .svg (or .pdf).")]
DataFile = Annotated[
    Optional[Path], typer.Option("--data", help="Also write the plotted data as CSV (or .parquet).")
]
Sources = Annotated[
    list[Path],
    typer.Argument(help="Run output folders (several: one series each), a sweep's results folder, or scenario .toml files (run now).", show_default=False),
]
PointOpt = Annotated[Optional[str], typer.Option("--point", help="Sweep folder: one point (point_id or its start).")]
SeedOpt = Annotated[Optional[int], typer.Option("--seed", help="Sweep folder: one seed.")]
SetOpt = Annotated[
    Optional[list[str]],
    typer.Option("--set", metavar="KEY=VALUE", help='Scenario files: override a key before running, e.g. --set run.sample=10ms (repeatable).'),
]
ByOpt = Annotated[Optional[list[str]], typer.Option("--by", help="Swept key (or column) giving one line per value (repeatable).")]
SeedsOpt = Annotated[
    Optional[int],
    typer.Option("--seeds", "-n", min=1, help="Scenario files: run this many seeds (the file's seed and the next ones) "
                 "on every core, as `bufferlab run --seeds` does.", show_default=False),
]


def _check_outputs(out: Path, data: Path | None) -> None:
    """The figure's and the data's paths, checked before any data is read or run."""
    from ..outpath import OutputError, check_out_file

    for opt, path, suffixes in (("-o", out, FIGURE_SUFFIXES), ("--data", data, DATA_SUFFIXES)):
        if path is None:
            continue
        try:
            check_out_file(path, suffixes)
        except OutputError as e:
            fail(f"{opt} {path}: {e}")


def _write(fig, data: "pd.DataFrame", out: Path, data_out: Path | None) -> None:
    from ..plot import save

    save(fig, out)
    if data_out is not None:
        data_out.parent.mkdir(parents=True, exist_ok=True)
        if data_out.suffix == ".parquet":
            data.to_parquet(data_out, index=False)
        else:
            data.to_csv(data_out, index=False)
    err_console.print(f"wrote {out}" + (f" and {data_out}" if data_out else ""), markup=False)


# ---------------------------------------------------------------- sources


@dataclass
class Source:
    """A table to plot and what it varies over: ``swept`` keys (a sweep folder) and ``runs``
    (the labels of several run folders or scenario files, a ``run`` column)."""

    df: "pd.DataFrame"
    swept: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


_RAN: dict = {}  # scenario files run in this command (a CDF may look in two of their tables)


def _run_tables(srcs: list[Path], table: str, overrides: dict | None = None, seeds: int | None = None) -> Source:
    import pandas as pd

    from ..results import Result
    from ..store import StoreError, run_labels

    frames = []
    try:
        labels = run_labels([s.with_suffix("") if s.suffix == ".toml" else s for s in srcs])
    except StoreError as e:
        fail(str(e))
    for src, name in zip(srcs, labels):
        key = (str(src), repr(sorted((overrides or {}).items())), seeds)
        if src.suffix == ".toml":
            if key not in _RAN:
                _RAN[key] = _ran(src, overrides, seeds)
            r = _RAN[key]
            if seeds is not None and seeds > 1:
                # Every seed's rows, with their `seed` (and the one point's `point_id`) columns.
                frames.append(r.runs[table].assign(run=name))
                continue
        else:
            r = Result.read(src)
        df = getattr(r, table)
        frames.append(df.assign(seed=int(r.summary.get("run", {}).get("seed", 1) or 1), run=name))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return Source(df, [], labels if len(labels) > 1 else [])


def _ran(src: Path, overrides: dict | None, seeds: int | None) -> Any:
    """A scenario file run now (over ``seeds`` when more than one: :func:`bufferlab.run_seeds`),
    its refusals as the command's."""
    from ..errors import EngineError
    from ..seeds import run_seeds
    from ..simulate import run
    from ..sweep import SweepInterrupted

    many = seeds is not None and seeds > 1
    try:
        if many:
            return run_seeds(src, seeds, overrides=overrides, progress=err_console.is_terminal)
        return run(src, overrides=overrides)
    except ScenarioError as e:
        for p in e.problems:
            err_console.print(p if str(src) in p else f"{src}: {p}", markup=False)
        raise typer.Exit(2) from None
    except LongRunError as e:
        again = f" --seeds {seeds}" if many else ""
        fail(f"{src}: {'a' if many else 'this'} run is {long_run_hint(e)}; to draw it as it is, run it with "
             f"`bufferlab run {src}{again} --yes --out DIR` and plot DIR")
    except SweepInterrupted:
        err_console.print("interrupted; nothing drawn", markup=False)
        raise typer.Exit(130) from None
    except EngineError as e:
        fail(str(e), 1)


def _source(srcs: list[Path], table: str, point: str | None = None, seed: int | None = None,
            sets: list[str] | None = None, allow_empty: bool = False, seeds: int | None = None) -> Source:
    """``table`` from the sources: scenario files (run now) and run folders side by side, or one
    sweep folder with its swept columns joined on (narrowed by ``point`` / ``seed``). No rows is
    an error unless ``allow_empty``."""
    from ..store import StoreError, is_run_folder, load

    runs = [s for s in srcs if (s.is_file() and s.suffix == ".toml") or is_run_folder(s)]
    if seeds is not None and seeds > 1 and not all(s.suffix == ".toml" for s in srcs):
        fail("--seeds runs scenario files; a run folder holds one seed and a sweep's folder its own "
             "(`bufferlab run FILE --seeds N --out DIR` keeps a folder of seeds)")
    if len(runs) == len(srcs):
        if point is not None:
            fail("--point picks a point of a sweep's results folder; these are runs")
        src = _run_tables(srcs, table, parse_sets(sets), seeds)
        if seed is not None:
            src.df = src.df[src.df["seed"] == seed]
        if src.df.empty and not allow_empty:
            fail(f"no {table} rows in {', '.join(map(str, srcs))}" + (f" for --seed {seed}" if seed is not None else "")
                 + EMPTY_HINT.get(table, ""))
        return src
    if sets:
        fail("--set changes a scenario file before it runs; these are stored results")
    if len(srcs) > 1:
        bad = ", ".join(str(s) for s in srcs if s not in runs)
        fail(f"{bad}: not a run's output folder or scenario; folders side by side must all be runs "
             "(bufferlab run FILE --out DIR); plot a sweep's folder on its own")
    try:
        tables = load(srcs[0])
    except StoreError:
        fail(f"{srcs[0]} is neither a run's output folder, a sweep's results folder nor a .toml scenario")
    df = tables.with_params(table)
    if point is not None:
        df = df[df["point_id"].str.startswith(point)]
    if seed is not None:
        df = df[df["seed"] == seed]
    if df.empty and not allow_empty:
        fail(f"no {table} rows in {srcs[0]}" + (" for that --point/--seed" if point or seed is not None else "")
             + EMPTY_HINT.get(table, ""))
    return Source(df, tables.swept)


def _show_values(values: list, limit: int = 6) -> str:
    from ..plot._common import _order, value_label

    vs = sorted(values, key=_order)
    labels = [value_label(v) for v in vs[:limit]]
    sep = " | " if any("," in t for t in labels) else ", "
    shown = sep.join(labels)
    return shown + (f", ... ({len(vs)} in all)" if len(vs) > limit else "")


def _quote_sql(v) -> str:
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else "'" + str(v).replace("'", "''") + "'"


def refuse_unnamed_keys(df: "pd.DataFrame", swept: list[str], named: list[str], *, line_opt: str, what: str) -> None:
    """Exit 2 if a swept key not in ``named`` varies among the rows: drawing would average over
    it. The message gives the choices: a line per value, or keep one value."""
    import pandas as pd

    loose = [(k, list(pd.unique(df[k].dropna()))) for k in swept if k not in named and k in df.columns]
    loose = [(k, vs) for k, vs in loose if len(vs) > 1]
    if not loose:
        return
    lines = [f"{what} would average over {', '.join(k for k, _ in loose)}, which the plot does not name:"]
    for k, vs in loose:
        one = sorted(vs, key=lambda v: str(v))[0]
        lines.append(f'  {k} takes {_show_values(vs)}: draw a line per value with {line_opt} "{k}", '
                     f'or keep one with --where "\\"{k}\\" = {_quote_sql(one)}"' if line_opt == "--group" else
                     f'  {k} takes {_show_values(vs)}: draw a line per value with {line_opt} "{k}", or pick one point with --point')
    fail("\n".join(lines))


def _id_means(df: "pd.DataFrame", cdf_col: str | None) -> "pd.Series":
    """Each id's mean value: of its samples, or of its CDF points (sum of value x step of the
    CDF), averaged over its curves (seeds, runs)."""
    if cdf_col is None:
        return df.groupby("id")["value"].mean()
    curve = [c for c in ("id", "run", "point_id", "seed") if c in df.columns]

    def mean(g: "pd.DataFrame") -> float:
        g = g.sort_values(cdf_col, kind="stable")
        step = g[cdf_col].diff().fillna(g[cdf_col])
        return float((g["value"] * step).sum())

    per_curve = df.groupby(curve)[["value", cdf_col]].apply(mean).rename("mean").reset_index()
    return per_curve.groupby("id")["mean"].mean()


def _default_ids(df: "pd.DataFrame", cdf_col: str | None) -> tuple[list[str] | None, str]:
    """The ids a plot given no --id draws (None: every one) and the title's words for them."""
    import pandas as pd

    means = _id_means(df, cdf_col).sort_values(ascending=False, kind="stable")
    n = len(means)
    noun = str(df["object"].iloc[0]) if "object" in df.columns and df["object"].nunique() == 1 else "series"
    nouns = noun if noun == "series" else noun + "s"
    if n <= MANY_SERIES:
        shown = list(means.index)
        return None, (", ".join(map(str, shown)) if n <= FEW_SERIES else f"all {n} {nouns}")
    top = means.iloc[0] if pd.notna(means.iloc[0]) else 0.0
    busy = [i for i, m in means.items() if top > 0 and m >= BUSY_SHARE * top][:FEW_SERIES] or [means.index[0]]
    which = "the busiest" if len(busy) == 1 else f"the {len(busy)} busiest"
    return busy, f"{', '.join(map(str, busy))} ({which} of {n} {nouns} by mean; --id for others)"


def _title(fig, metric: str, words: str) -> None:
    fig.axes[0].set_title(f"{metric} of {words}", fontsize="small")


# ---------------------------------------------------------------- timeseries


@plot_app.command("timeseries")
def plot_timeseries(
    srcs: Sources,
    metric: Annotated[str, typer.Option("--metric", "-m", help="qlen_pkts, qlen_bytes, cwnd_bytes, srtt_s, throughput_bps, ...")],
    out: OutFile,
    ids: Annotated[Optional[list[str]], typer.Option("--id", help=f"Queue/link/flow id to show (repeatable; default all, or beyond {MANY_SERIES} the busiest few).")] = None,
    by: ByOpt = None,
    point: PointOpt = None,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    seeds: SeedsOpt = None,
    data: DataFile = None,
) -> None:
    """A metric against time, one line per queue/link/flow (and per seed, run folder or --by
    value).

    A scenario file is run on the spot; it must record time series (`run.sample`): set it in
    the file or here, e.g. `--set run.sample=10ms`. A sweep's folder draws one point (--point),
    or one line per value of a swept key (--by) at one seed: a time series is one run's, so
    seeds are not averaged; the lowest is drawn unless --seed names another.
    """
    from ..plot import timeseries

    _check_outputs(out, data)
    src = _source(srcs, "timeseries", point, seed, sets, seeds=seeds)
    df = src.df
    groups = list(by or [])
    for k in groups:
        if k not in df.columns:
            fail(f"--by {k}: not a column; swept keys: {', '.join(src.swept) or 'none'}")
    refuse_unnamed_keys(df, src.swept, groups, line_opt="--by", what=f"a time series of {metric}")
    note = ""
    if groups and seed is None and df["seed"].nunique() > 1:
        seeds = sorted(df["seed"].unique())
        df = df[df["seed"] == seeds[0]]
        note = f"; seed {seeds[0]} of {len(seeds)}, --seed for another"
    if groups:
        by_cols = groups
    else:
        # A line per run folder or scenario file, and per seed where one of them has several.
        by_cols = (["run"] if src.runs else []) + (["seed"] if df["seed"].nunique() > 1 else [])
    sel = df[df["metric"] == metric]
    words = ", ".join(ids) if ids else ""
    if not ids and len(sel):
        ids, words = _default_ids(sel, None)
    try:
        fig, d = timeseries(df, metric, ids=ids, by=by_cols)
    except ValueError as e:
        fail(str(e))
    if words or note:
        _title(fig, metric, (words or "every series") + note)
    _write(fig, d, out, data)


# ---------------------------------------------------------------- cdf


def _values(df, column: str) -> set:
    """The distinct values of a column (none if it is absent), taken without walking its rows one
    Python object at a time: a time-series table has a row per sample."""
    return set(df[column].unique()) if column in df.columns else set()


@plot_app.command("cdf")
def plot_cdf(
    srcs: Sources,
    metric: Annotated[str, typer.Option("--metric", "-m", help="sojourn_s, rtt_s (from the CDF tables) or a time-series metric such as throughput_bps.")],
    out: OutFile,
    ids: Annotated[Optional[list[str]], typer.Option("--id", help=f"Queue/flow id (repeatable; default all, one line each, or beyond {MANY_SERIES} the busiest few).")] = None,
    by: ByOpt = None,
    point: PointOpt = None,
    seed: SeedOpt = None,
    logx: Annotated[bool, typer.Option("--logx", help="Logarithmic value axis (values above zero).")] = False,
    logy: Annotated[bool, typer.Option("--logy", help="Logarithmic CDF axis (the lower tail).")] = False,
    sets: SetOpt = None,
    seeds: SeedsOpt = None,
    data: DataFile = None,
) -> None:
    """CDF of a metric, one line per queue/flow (and per --by value or run folder); over several
    seeds, the mean of each percentile with ± SEM bars."""
    from ..plot import cdf

    _check_outputs(out, data)
    src = _source(srcs, "distributions", point, seed, sets, allow_empty=True, seeds=seeds)
    cdf_col: str | None = "cdf"
    cdfs = _values(src.df, "metric")
    if metric not in cdfs:
        # Not a CDF: a time-series metric, whose values make the CDF. A metric in neither names
        # both lists (and the key to set when the run recorded no time series).
        src = _source(srcs, "timeseries", point, seed, sets, allow_empty=True, seeds=seeds)
        cdf_col = None
        known = _values(src.df, "metric")
        if metric not in known:
            fail(f"no {metric} in {', '.join(map(str, srcs))}; CDFs: {', '.join(sorted(cdfs)) or 'none'}; "
                 + (f"time-series metrics: {', '.join(sorted(known))}" if known
                    else "no time-series metrics" + EMPTY_HINT["timeseries"]))
    df = src.df[src.df["metric"] == metric]
    if ids:
        missing = sorted(set(ids) - _values(df, "id"))
        if missing:
            fail(f"--id {', '.join(missing)}: no {metric} there; ids: {_show_values(list(df['id'].unique()), 12)}")
        df = df[df["id"].isin(ids)]
        words = ", ".join(ids)
    else:
        chosen, words = _default_ids(df, cdf_col)
        if chosen is not None:
            df = df[df["id"].isin(chosen)]
    groups = list(by or [])
    for k in groups:
        if k not in df.columns:
            fail(f"--by {k}: not a column; swept keys: {', '.join(src.swept) or 'none'}")
    refuse_unnamed_keys(df, src.swept, groups, line_opt="--by", what=f"a CDF of {metric}")
    if src.runs:
        groups.append("run")
    if df["id"].nunique() > 1:
        groups.append("id")
    fig, d = cdf(df, cdf_col=cdf_col, by=groups, replicate=[c for c in ("point_id", "seed") if c in df.columns],
                 metric=metric, logx=logx, logy=logy)
    _title(fig, metric, words)
    _write(fig, d, out, data)


# ---------------------------------------------------------------- sweep

# The column naming a table's rows within one run: several per run are never averaged silently.
ENTITY = {"flows": "id", "queues": "link", "links": "link", "transfers": "flow"}


@plot_app.command("sweep")
def plot_sweep(
    folder: Annotated[Path, typer.Argument(help="A sweep's results folder.")],
    x: Annotated[str, typer.Option("--x", help="Swept key for the x axis.")],
    y: Annotated[str, typer.Option("--y", help="TABLE.COLUMN, e.g. flows.goodput_bps or queues.sojourn_mean_s.")],
    out: OutFile,
    group: Annotated[Optional[list[str]], typer.Option("--group", help="Swept key, or a column such as link or id, giving one line per value (repeatable).")] = None,
    where: Annotated[Optional[str], typer.Option("--where", help="SQL condition on the rows, e.g. \"link = 'r1->r2'\" or '\"topology.pairs\" = 10'.")] = None,
    reduce: Annotated[Optional[str], typer.Option("--reduce", help="Combine several rows of one run (flows, queues): mean, sum, min, max, median.")] = None,
    level: Annotated[float, typer.Option("--level", help="Confidence level of the band.")] = 0.95,
    logx: Annotated[bool, typer.Option("--logx")] = False,
    logy: Annotated[bool, typer.Option("--logy")] = False,
    data: DataFile = None,
) -> None:
    """A metric against a swept key, mean over seeds with a Student-t band, one line per group.

    Every other swept key that varies must be named (`--group`) or fixed (`--where`), and a
    table with several rows per run (flows, queues, links) needs `--where` to keep one, `--group`
    to draw each, or `--reduce` to combine them.
    """
    import pandas as pd

    from ..plot import metric_vs_param
    from ..store import manifest, query as run_query
    from ..sweep.stats import REDUCERS

    _check_outputs(out, data)
    if reduce is not None and reduce not in REDUCERS:
        fail(f"--reduce {reduce}: choose {', '.join(map(repr, REDUCERS))}")
    table, _, column = y.partition(".")
    if not column or table not in ("points", "flows", "queues", "links", "transfers"):
        fail(f"--y {y}: write TABLE.COLUMN with TABLE one of points, flows, queues, links, transfers")
    if not (folder / "parts").is_dir():
        fail(f"{folder} is not a sweep's results folder; for run folders side by side use "
             "bufferlab plot cdf / timeseries, or bufferlab query")
    swept = manifest(folder).get("swept", [])
    if x not in swept:
        fail(f"--x {x}: not swept in {folder}; swept keys: {', '.join(swept) or 'none'}")
    group = list(group or [])
    entity = ENTITY.get(table)
    for k in group:
        if k not in swept and k != entity:
            fail(f"--group {k}: not swept in {folder}; swept keys: {', '.join(swept) or 'none'}"
                 + (f" (or {entity}, one line per {'flow' if entity == 'id' else entity})" if entity else ""))
    keys = list(dict.fromkeys(swept))
    cols = ", ".join('p."' + k.replace('"', '""') + '"' for k in keys)
    if table == "points":
        sql = "SELECT * FROM points WHERE status = 'done'"
    else:
        sql = f"SELECT t.*, {cols} FROM {table} t JOIN points p USING (point_id, seed) WHERE p.status = 'done'"
    if where:
        sql += f" AND ({where})"
    try:
        df = run_query(folder, sql)
    except Exception as e:  # noqa: BLE001 - duckdb's errors name the column or the syntax
        fail(f"--where {where}: {str(e).strip()}" if where else str(e).strip())
    if df.empty:
        fail(f"no finished {table} rows in {folder}" + (" where " + where if where else ""))
    if column not in df.columns:
        fail(f"--y {y}: no column {column}; {table} has {', '.join(c for c in df.columns if c not in keys)}")
    refuse_unnamed_keys(df, swept, [x, *group], line_opt="--group", what=f"plotting {y} against {x}")
    per_run = df.groupby(["point_id", "seed", *group], dropna=False).size()
    if reduce is None and (per_run > 1).any():
        n = int(per_run.max())
        if entity and entity in df.columns:
            names = list(pd.unique(df[entity]))
            first = sorted(names, key=str)[0]
            fail(f"{table} has {n} rows per run ({entity}: {_show_values(names)}); say which: "
                 f"keep one with --where \"{entity} = {_quote_sql(first)}\", draw one line each with "
                 f"--group {entity}, or combine them with --reduce sum (or mean, min, max, median)")
        fail(f"{table} has {n} rows per run; combine them with --reduce mean (or sum, min, max, median)")
    fig, d = metric_vs_param(df, x, column, group=group, level=level, reduce=reduce or "mean", logx=logx, logy=logy)
    _write(fig, d, out, data)


# ---------------------------------------------------------------- response


@plot_app.command("response")
def plot_response(
    srcs: Sources,
    out: OutFile,
    by: ByOpt = None,
    flow: Annotated[Optional[list[str]], typer.Option("--flow", help="Only these flows' transfers (repeatable).")] = None,
    per_decade: Annotated[int, typer.Option("--per-decade", min=1, help="Size bins per factor of ten.")] = 5,
    point: PointOpt = None,
    seed: SeedOpt = None,
    sets: SetOpt = None,
    seeds: SeedsOpt = None,
    data: DataFile = None,
) -> None:
    """Mean response time against transfer size (log-binned), one line per group (and per run
    folder); a scenario file's seeds (--seeds) pool their transfers."""
    from ..plot import response_time

    _check_outputs(out, data)
    src = _source(srcs, "transfers", point, seed, sets, seeds=seeds)
    df = src.df
    if flow:
        df = df[df["flow"].isin(flow)]
    groups = list(by or [])
    for k in groups:
        if k not in df.columns:
            fail(f"--by {k}: not a column; swept keys: {', '.join(src.swept) or 'none'}")
    refuse_unnamed_keys(df, src.swept, groups, line_opt="--by", what="the response-time plot")
    if src.runs:
        groups.append("run")
    fig, d = response_time(df, by=groups, per_decade=per_decade)
    _write(fig, d, out, data)
