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

from .spec import Point

__all__ = ["Outcome", "run_point", "TABLES", "default_run_fn"]

# Result attributes stored per point (empty ones, e.g. timeseries without sampling, are not).
TABLES = ("flows", "queues", "links", "transfers", "timeseries", "distributions")


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
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


def default_run_fn(scenario: dict[str, Any]) -> Any:
    from .. import run  # imported here: a worker imports the engine only when it runs a point

    return run(scenario)


def _plain(v: Any) -> Any:
    """A cell Parquet can hold in one column across points: tables and lists become JSON text."""
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, sort_keys=True, default=str)
    return v


def _table(df: Any, point: Point) -> pd.DataFrame | None:
    if df is None:
        return None
    df = df if isinstance(df, pd.DataFrame) else pd.DataFrame(df)
    if df.empty and len(df.columns) == 0:
        return None
    df = df.reset_index(drop=True).copy()
    for col in df.columns:
        if df[col].dtype == object and df[col].map(lambda v: isinstance(v, (dict, list, tuple))).any():
            df[col] = df[col].map(_plain)
    df.insert(0, "seed", point.seed)
    df.insert(0, "point_id", point.point_id)
    return df


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
        tables = {}
        for name in TABLES:
            df = _table(getattr(result, name, None), point)
            if df is not None and not df.empty:
                tables[name] = df
        status, error = "done", None
        engine_seconds = _engine_seconds(result)
    except Exception as e:  # noqa: BLE001 - any failure of one point is recorded, the sweep goes on
        tables, status, engine_seconds = {}, "failed", None
        error = f"{type(e).__name__}: {e}"
    wall = time.perf_counter() - t0
    return Outcome(
        point.point_id, point.seed, point.part, status, error, wall, engine_seconds, engine_version, tables
    )
