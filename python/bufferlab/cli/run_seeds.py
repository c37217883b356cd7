"""``bufferlab run FILE --seeds N``: one scenario over N seeds, its tables as distributions.

One run of a network of TCP flows is one sample of a chaotic system: the seed moves its start
times and random traffic, and with them every figure. ``--seeds N`` runs the file's seed and the
N - 1 after it through the sweep runner (every core; an interrupted run resumes) and prints each
row's mean with the half-width of its 95% Student-t interval over the seeds, as ns-3 users do with
``--RngRun`` loops and Flent with repeated runs. ``--out DIR`` keeps the runs as a sweep's results
folder of one point, which ``bufferlab query``, ``plot`` and ``report`` read.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .common import err_console, fail, out_console
from .tables import FLOWS_LISTED, FLOWS_SHOWN, _host_nodes, _limit, _print_table, _split_host_ports, counted

if TYPE_CHECKING:
    import pandas as pd

# The interval printed beside each mean.
LEVEL = 0.95

# What each table shows, by column of the results' tables: (column, heading, kind). The kind picks
# the format: a rate, a time, a share (percent), a count.
FLOW_COLUMNS = [
    ("goodput_bps", "goodput", "rate"),
    ("rtt_mean_s", "rtt mean", "time"),
    ("rtt_p99_s", "rtt p99", "time"),
    ("loss_rate", "loss", "share"),
    ("retransmits", "retx", "count"),
    ("timeouts", "timeouts", "count"),
    ("completion_time_s", "done in", "time"),
]
QUEUE_COLUMNS = [
    ("sojourn_mean_s", "sojourn mean", "time"),
    ("sojourn_p99_s", "sojourn p99", "time"),
    ("occupancy_mean_pkts", "mean occupancy", "pkts"),
    ("dropped", "dropped", "count"),
    ("marked", "marked", "count"),
]
LINK_COLUMNS = [("utilization", "utilization", "share")]


def seed_list(first: int, n: int) -> list[int]:
    """The file's seed (or --seed) and the ``n - 1`` after it, as `crosscheck` and `compare` count."""
    return list(range(first, first + n))


def _fmt(kind: str, v: float) -> str:
    from ..units import format_rate_bps, format_time_ns

    if kind == "rate":
        return format_rate_bps(v)
    if kind == "time":
        return format_time_ns(v * 1e9)
    if kind == "share":
        return f"{100 * v:.2f}%"
    if kind == "pkts":
        return f"{v:.3g} pkt"
    return f"{v:,.1f}" if abs(v) < 100 and v != round(v) else f"{v:,.0f}"


def _spread(row: dict[str, Any], col: str) -> float:
    """The row's standard deviation over the seeds, 0 where the seeds gave the same value (up to
    the rounding of averaging equal floating-point numbers)."""
    sd, mean = row.get(f"{col}_sd"), row.get(f"{col}_mean")
    if sd is None or mean is None or math.isnan(sd) or math.isnan(mean):
        return math.nan
    return 0.0 if sd <= 1e-9 * abs(mean) else sd


def _cell(row: dict[str, Any], col: str, kind: str) -> str:
    """``mean ± half-width`` (the half-width left out with one seed or nothing to spread)."""
    mean = row.get(f"{col}_mean")
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    text = _fmt(kind, mean)
    if _spread(row, col) > 0:
        text += " ± " + _fmt(kind, row[f"{col}_ci"])
    return text


def _aggregate(df: "pd.DataFrame", key: str, columns: list[tuple[str, str, str]], keep: list[str]) -> list[dict[str, Any]]:
    """One dict per row of ``key`` (in the order the runs list them): its ``keep`` columns as the
    first seed has them, and for each metric its mean, sd, count and interval over the seeds."""
    from ..sweep.stats import aggregate

    if df.empty:
        return []
    metrics = [c for c, _, _ in columns if c in df.columns]
    agg = aggregate(df, by=[key], metrics=metrics, level=LEVEL)
    first = df.sort_values("seed", kind="stable").drop_duplicates(key)
    fixed = {r[key]: {k: _plain(v) for k, v in r.items()}
             for r in first[[key] + [c for c in keep if c in df.columns]].to_dict("records")}
    by_key = {r[key]: r for r in agg.to_dict("records")}
    return [{**fixed[k], **by_key[k]} for k in first[key]]


def _plain(v: Any) -> Any:
    """A table cell as the single run's summary has it: a missing value None, a whole number an int."""
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer():
            return int(v)
    return v


def _same_every_seed(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]]) -> bool:
    """Whether no metric of any row moved between the seeds."""
    spread = [_spread(r, c) for r in rows for c, _, _ in columns]
    spread = [s for s in spread if not math.isnan(s)]
    return bool(spread) and all(s == 0 for s in spread)


def _json_rows(rows: list[dict[str, Any]], key: str, keep: list[str], columns: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    def num(v: Any) -> Any:
        return None if isinstance(v, float) and math.isnan(v) else v

    out = []
    for r in rows:
        d = {k: num(r.get(k)) for k in [key, *keep] if k in r}
        for c, _, _ in columns:
            if r.get(f"{c}_n"):
                d[c] = {s: num(r[f"{c}_{s}"]) for s in ("mean", "sd", "ci", "lo", "hi", "n")}
        out.append(d)
    return out


def run_seeds(
    file: Path,
    sc: Any,
    overrides: dict[str, Any],
    n: int,
    *,
    out: Path | None,
    as_json: bool,
    quiet: bool,
    yes: bool,
    workers: int | None,
    list_all: bool,
) -> None:
    """Run ``file`` (already read as ``sc``, with ``overrides``) over ``n`` seeds and print its
    flows, queues and links as means with 95% intervals (or their JSON)."""
    from ..cost import LONG_RUN_S
    from ..errors import LongRunError, ScenarioError
    from ..store import StoreError, check_store_dir, load
    from ..sweep import SweepInterrupted, load_spec, run_sweep

    seeds = seed_list(sc.seed, n)
    spec = {"base": str(file.resolve()), "seeds": seeds, "set": dict(overrides), "name": file.stem}
    if out is not None:
        from ..outpath import OutputError

        try:
            check_store_dir(out)
        except OutputError as e:
            fail(f"--out {out}: {e}")
    store = out if out is not None else Path(tempfile.mkdtemp(prefix="bufferlab-seeds-"))
    try:
        try:
            sp = load_spec(spec)
            report = run_sweep(sp, store, workers=workers, backend="pool", progress=not (quiet or as_json),
                               max_wall_s=None if yes else LONG_RUN_S)
        except ScenarioError as e:
            for p in e.problems:
                err_console.print(p if str(file) in p else f"{file}: {p}", markup=False)
            raise typer.Exit(2) from None
        except LongRunError as e:
            fail(f"{file}: {e}; pass --yes to run it as it is")
        except SweepInterrupted as e:
            r = e.report
            kept = f"; the {r.done + r.failed} finished are kept in {out}: run the same command to finish" if out else ""
            err_console.print(f"interrupted{kept}", markup=False)
            raise typer.Exit(130) from None
        except StoreError as e:
            fail(str(e), 1)
        tables = load(store)
        pts = tables.points
        failed = pts[pts["status"] != "done"] if len(pts) else pts
        if len(failed):
            first = str(failed["error"].dropna().iloc[0]).splitlines()[0] if failed["error"].notna().any() else "?"
            fail(f"{file}: {len(failed)} of {len(seeds)} seeds failed (seed {int(failed['seed'].iloc[0])}: {first})", 1)
        flows = _aggregate(tables.flows, "id", FLOW_COLUMNS, ["kind", "src", "dst"])
        queues = _aggregate(tables.queues, "link", QUEUE_COLUMNS, ["discipline", "limit_pkts", "limit_bytes", "sizing"])
        links = _aggregate(tables.links, "link", LINK_COLUMNS, ["rate_bps"])
        engine_s = float(pts["engine_seconds"].sum()) if "engine_seconds" in pts.columns else math.nan
    finally:
        if out is None:
            shutil.rmtree(store, ignore_errors=True)
    same = _same_every_seed(flows, FLOW_COLUMNS) and _same_every_seed(queues, QUEUE_COLUMNS)
    if as_json:
        doc = {
            "scenario": str(file), "seeds": seeds, "level": LEVEL,
            "flows": _json_rows(flows, "id", ["kind", "src", "dst"], FLOW_COLUMNS),
            "queues": _json_rows(queues, "link", ["discipline"], QUEUE_COLUMNS),
            "links": _json_rows(links, "link", ["rate_bps"], LINK_COLUMNS),
            "warnings": [SAME_WARNING] if same else [],
        }
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return
    spent = f" ({engine_s:.3g} engine-seconds)" if not math.isnan(engine_s) else ""
    out_console.print(
        f"{file}: {counted(len(seeds), 'seed')} ({seeds[0]}..{seeds[-1]}), {sc.duration_s:g} s simulated each, "
        f"in {report.wall_seconds:.3g} s{spent}; mean ± half-width of the {LEVEL:.0%} interval over the seeds",
        markup=False,
    )
    _print_rows(flows, queues, links, _host_nodes(sc.plan), list_all)
    if same:
        out_console.print(f"warning: {SAME_WARNING}", markup=False, style="bold")
    if out is not None:
        out_console.print(f"wrote {out} (a sweep's results folder: bufferlab query / plot / report read it)", markup=False)


SAME_WARNING = ("every seed gave the same figures: nothing in the file is drawn at random, so these are one run, "
                "not a distribution; give the flows random starts (start = \"uniform(0s, 1s)\") or random traffic")


# Counts shown only where some row has one (a run without ECN marks no packet).
SHOWN_IF_ANY = {"marked", "timeouts"}


def _print_rows(flows: list[dict[str, Any]], queues: list[dict[str, Any]], links: list[dict[str, Any]],
                hosts: set[str], list_all: bool) -> None:
    def cols(columns: list[tuple[str, str, str]], rows: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
        def any_of(c: str) -> bool:
            return any((r.get(f"{c}_mean") or 0) != 0 and not math.isnan(r[f"{c}_mean"]) for r in rows)

        return [(head, "right", lambda r, c=c, k=k: _cell(r, c, k)) for c, head, k in columns
                if c not in SHOWN_IF_ANY or any_of(c)]

    if flows:
        shown = flows if list_all or len(flows) <= FLOWS_SHOWN else flows[:FLOWS_LISTED]
        head = [("flow", "left", lambda r: str(r.get("id"))), ("kind", "left", lambda r: str(r.get("kind"))),
                ("path", "left", lambda r: f"{r.get('src')}->{r.get('dst')}")]
        _print_table(out_console, "flows", head + cols(FLOW_COLUMNS, flows), shown)
        if len(shown) < len(flows):
            out_console.print(f"+ {counted(len(flows) - len(shown), 'more flow')} (--all lists them)", markup=False)
    shown_q, hidden_q = _split_host_ports(queues, hosts, list_all)
    if shown_q:
        head = [("link", "left", lambda r: str(r.get("link"))), ("qdisc", "left", lambda r: str(r.get("discipline"))),
                ("limit", "right", _limit)]
        _print_table(out_console, "queues", head + cols(QUEUE_COLUMNS, shown_q), shown_q)
    if hidden_q:
        out_console.print(f"+ {counted(len(hidden_q), 'host queue')} not listed (--all lists them)", markup=False)
    shown_l, hidden_l = _split_host_ports(links, hosts, list_all)
    if shown_l:
        from ..units import format_rate_bps

        head = [("link", "left", lambda r: str(r.get("link"))),
                ("rate", "right", lambda r: format_rate_bps(r["rate_bps"]) if r.get("rate_bps") is not None else "-")]
        _print_table(out_console, "links", head + cols(LINK_COLUMNS, shown_l), shown_l)
    if hidden_l:
        out_console.print(f"+ {counted(len(hidden_l), 'host link')} not listed (--all lists them)", markup=False)
