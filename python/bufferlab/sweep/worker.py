"""What a worker does with one point: run it, time it, and turn the result into tables.

This runs in a pool process or on a Dask worker, so its inputs and outputs are plain picklable
values; it never touches the results folder (a remote worker may not see it). An ``Exception``
from the scenario check or the engine becomes a failed outcome carrying its text; a
``KeyboardInterrupt`` is not a failure of the point and propagates.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from ..results import DROP_REASONS
from .spec import Point

__all__ = ["Outcome", "run_point", "TABLES", "default_run_fn"]

# Result attributes stored per point (empty ones, e.g. timeseries without sampling, are not).
TABLES = ("flows", "queues", "links", "transfers", "timeseries", "distributions")
SUMMARY_TABLES = ("flows", "queues", "links")


@dataclass
class Outcome:
    point_id: str
    seed: int
    part: str
    status: str  # "done" | "failed"
    error: str | None
    wall_seconds: float
    engine_seconds: float | None
    engine_version: str
    tables: dict[str, pa.Table] = field(default_factory=dict)


def default_run_fn(scenario: dict[str, Any]) -> Any:
    from ..simulate import run  # imported here: a worker imports the engine only when it runs a point

    # The sweep checked each point's cost before any ran (or its caller chose to run them all).
    return run(scenario, max_wall_s=None)


def _plain(v: Any) -> Any:
    """A cell Parquet can hold in one column across points: tables and lists become JSON text."""
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, sort_keys=True, default=str)
    return v


def _keyed(t: pa.Table, point: Point) -> pa.Table:
    n = t.num_rows
    t = t.add_column(0, "seed", pa.array([point.seed] * n, pa.int64()))
    return t.add_column(0, "point_id", pa.array([point.point_id] * n, pa.string()))


def _flat(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary rows as Result's tables give them: tables and lists as JSON text, and a queue's
    drops_by_reason spread into ``drops_<reason>`` columns at the end (every reason the engine
    knows and any other one seen, 0 when absent), so every row has the same columns."""
    seen = {r for row in rows for r in (row.get("drops_by_reason") or {})}
    reasons = [*DROP_REASONS, *sorted(seen - set(DROP_REASONS))]
    out = []
    for row in rows:
        flat = {k: _plain(v) for k, v in row.items() if k != "drops_by_reason"}
        if "drops_by_reason" in row:
            by = row.get("drops_by_reason") or {}
            for reason in reasons:
                flat[f"drops_{reason}"] = int(by.get(reason, 0))
        out.append(flat)
    return out


def _tables(result: Any, point: Point) -> dict[str, pa.Table]:
    """The result's tables as Arrow, each led by point_id and seed. The summary tables are built
    from the summary's rows and the others column by column: Arrow, not pandas, crosses back to
    the parent and goes into Parquet, which keeps a point's bookkeeping to a few milliseconds."""
    out: dict[str, pa.Table] = {}
    summary = getattr(result, "summary", None)
    for name in TABLES:
        rows = summary.get(name) if isinstance(summary, dict) and name in SUMMARY_TABLES else None
        if isinstance(rows, list):
            if rows:
                out[name] = _keyed(pa.Table.from_pylist(_flat(rows)), point)
            continue
        df = getattr(result, name, None)
        if df is None:
            continue
        df = df if isinstance(df, pd.DataFrame) else pd.DataFrame(df)
        if df.empty:
            continue
        cols = {}
        for c in df.columns:
            col = df[c]
            if col.dtype == object:
                col = col.map(_plain)
            cols[str(c)] = pa.array(col, from_pandas=True)
        out[name] = _keyed(pa.table(cols), point)
    return out


def _engine_seconds(result: Any) -> float | None:
    """The engine's own wall time from the run summary, when it reports one."""
    try:
        return float(result.summary["engine"]["wall_seconds"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def run_point(
    point: Point, engine_version: str, run_fn: Callable[[dict[str, Any]], Any] | None = None
) -> Outcome:
    """Run one point × seed; never raises for a bad point (only for an interrupt)."""
    fn = run_fn or default_run_fn
    t0 = time.perf_counter()
    try:
        result = fn(point.scenario)
        tables = _tables(result, point)
        status, error = "done", None
        engine_seconds = _engine_seconds(result)
    except Exception as e:  # noqa: BLE001 - any failure of one point is recorded, the sweep goes on
        tables, status, engine_seconds = {}, "failed", None
        error = f"{type(e).__name__}: {e}"
    wall = time.perf_counter() - t0
    return Outcome(
        point.point_id, point.seed, point.part, status, error, wall, engine_seconds, engine_version, tables
    )
