"""Run a sweep: expand the spec, skip what the store already has, run the rest, store each point.

Only this process writes the store, one finished point at a time, so an interrupt (Ctrl-C, a
killed worker, a crash) loses no finished point and leaves no partial one; rerunning the same
command runs only what is missing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..cost import LONG_RUN_S
from ..errors import LongRunError
from ..main_guard import refuse_in_a_starting_worker
from ..store import UNIT_SUFFIX, VALUE_SUFFIX, Store, check_store_dir
from ..units import quantity_value
from .check import check_points, long_points
from .backends import Backend, DaskBackend, InlineBackend, PoolBackend, default_workers
from .progress import SweepProgress
from .spec import Point, SweepSpec, load_spec
from .worker import Outcome

__all__ = ["run_sweep", "SweepReport", "SweepInterrupted", "engine_version"]


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    """The engine's version and a digest of its built extension, ``"0.1.0+3f9a0c12d4e5"``.

    The digest makes a rebuilt engine a new engine for the store: during development the
    version number stays while the code changes, and results of two builds must not mix.
    """
    from .. import _core

    version = _core.version()
    path = getattr(_core, "__file__", None)
    if not path:
        return version
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return f"{version}+{h.hexdigest()[:12]}"


@dataclass
class SweepReport:
    out: Path
    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    ran: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    engine_seconds: float = 0.0
    interrupted: bool = False

    @property
    def missing(self) -> int:
        return self.total - self.skipped - self.done - self.failed


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or a worker's interrupt) stopped the sweep; ``report`` says what was kept."""

    def __init__(self, report: SweepReport) -> None:
        super().__init__(f"sweep interrupted: {report.missing} of {report.total} points left")
        self.report = report


def _column(values: list[Any]) -> Callable[[Any], Any]:
    """How one swept key's values are stored in the points table, with one type per column:
    integers stay integers, numbers become floats, strings stay strings, anything else
    (tables, lists, mixed kinds) is JSON text."""
    if all(isinstance(v, bool) for v in values):
        return bool
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return int
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return float
    if all(isinstance(v, str) for v in values):
        return str
    return lambda v: json.dumps(v, sort_keys=True, default=str)


def _columns(spec: SweepSpec) -> dict[str, Callable[[Any], Any]]:
    values: dict[str, list[Any]] = {k: list(v) for k, v in spec.grid.items()}
    for z in spec.zips:
        for k, v in z.items():
            values.setdefault(k, []).extend(v)
    out: dict[str, Callable[[Any], Any]] = {}
    for k, v in values.items():
        out[k] = _column(v)
        if any(isinstance(x, str) and quantity_value(x) is not None for x in v):
            # A quantity is stored as written ("100pkt", the label) and as a number in its base
            # unit beside it, so that 100 packets sort after 10 (as text they would not).
            out[k + VALUE_SUFFIX] = _typed(0)
            out[k + UNIT_SUFFIX] = _typed(1)
    return out


def _typed(i: int) -> Callable[[Any], Any]:
    def get(v: Any) -> Any:
        q = quantity_value(v)
        return None if q is None else q[i]

    return get


_POINT_TYPES = {
    "status": pa.string(),
    "error": pa.string(),
    "wall_seconds": pa.float64(),
    "engine_seconds": pa.float64(),
    "engine_version": pa.string(),
    "part": pa.string(),
}


def _points_row(point: Point, o: Outcome, columns: Mapping[str, Callable[[Any], Any]]) -> pa.Table:
    """The point's row of the points table, with fixed types so parts line up."""
    cols: dict[str, pa.Array] = {
        "point_id": pa.array([o.point_id], pa.string()),
        "seed": pa.array([o.seed], pa.int64()),
    }
    for k, conv in columns.items():
        key = k.removesuffix(VALUE_SUFFIX).removesuffix(UNIT_SUFFIX)
        kind = pa.float64() if k.endswith(VALUE_SUFFIX) else pa.string() if k.endswith(UNIT_SUFFIX) else None
        cols[k] = pa.array([conv(point.params[key])], kind)
    values = {
        "status": o.status,
        "error": o.error,
        "wall_seconds": o.wall_seconds,
        "engine_seconds": o.engine_seconds,
        "engine_version": o.engine_version,
        "part": o.part,
    }
    for k, v in values.items():
        cols[k] = pa.array([v], _POINT_TYPES[k])
    return pa.table(cols)


def run_sweep(
    spec: SweepSpec | str | Path | Mapping[str, Any],
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str | Backend = "pool",
    scheduler: str | None = None,
    run_fn: Callable[[dict[str, Any]], Any] | None = None,
    version: str | None = None,
    retry_failed: bool = False,
    progress: bool | str = False,
    check: bool | None = None,
    max_wall_s: float | None = LONG_RUN_S,
) -> SweepReport:
    """Run every point × seed of ``spec`` not already in the results folder ``out``.

    ``backend``: ``"pool"`` (local processes, ``workers`` defaults to the cores), ``"dask"``
    (a new local dask.distributed cluster of ``workers`` processes, or the running one at
    ``scheduler``), ``"inline"`` (this process), or a :class:`Backend` the caller made and
    closes, to share one pool among several sweeps (it is closed here only on an interrupt or
    an error, which end the caller's work too). ``run_fn(scenario_dict) -> Result`` replaces
    :func:`bufferlab.run` (it must be importable by the workers). A point × seed is skipped when
    its part (same resolved scenario, same engine version) is in ``out``; a failed one is kept
    as failed unless ``retry_failed``. Raises :class:`SweepInterrupted` on Ctrl-C after storing
    everything that finished. ``progress`` shows a bar on stderr (a string: the bar's label in
    place of "sweep").

    Every point is checked first, as ``bufferlab validate`` would (``check``, by default when
    the runs are :func:`bufferlab.run`'s): a value the scenario checker refuses raises
    :class:`~bufferlab.ScenarioError` naming the point and the key, and nothing runs; a point
    whose run the engine estimates at over ``max_wall_s`` wall seconds (an hour, as ``bufferlab
    sweep`` without ``--yes``) raises :class:`~bufferlab.errors.LongRunError` naming it, and
    nothing runs (``max_wall_s=None``: no bound). The workers then run every point unbounded.
    """
    refuse_in_a_starting_worker("run_sweep")
    if workers is not None and not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f"workers={workers!r}: give a number of processes, at least 1 (None: one per core)")
    if not isinstance(spec, SweepSpec):
        spec = load_spec(spec)
    version = version or engine_version()
    points = spec.points(version)
    if check if check is not None else run_fn is None:
        wall_s = check_points(points, spec.source)
        what = None if max_wall_s is None else long_points(points, wall_s, max_wall_s)
        if what is not None:
            head = f"{spec.source}: " if spec.source else ""
            raise LongRunError(f"{head}{what}; pass max_wall_s=None to run them as they are",
                               max(wall_s.values()))
    check_store_dir(out)  # a file, a folder of other files, no permission: refused before any run
    columns = _columns(spec)
    store = Store(out)
    report = SweepReport(out=Path(out), total=len(points))
    t0 = time.perf_counter()
    with store.lock():
        store.write_manifest(
            {
                "spec": spec.source,
                "name": spec.name,
                "base": str(spec.base_path) if spec.base_path else None,
                "swept": spec.swept_keys,
                "seeds": spec.seeds,
                "set": spec.set,
                "engine_version": version,
                "points": len(points),
            }
        )
        have = store.existing()
        retry = {n for n in have if _failed(store, n)} if retry_failed else set()
        have = {n: p for n, p in have.items() if n not in retry}
        # Parts of the same point × seed under another key: an older engine's result, replaced
        # once the new one is stored.
        by_point: dict[tuple[str, int], list[str]] = {}
        for name, part in have.items():
            by_point.setdefault((part.point_id, part.seed), []).append(name)
        todo = [p for p in points if p.part not in have]
        report.skipped = len(points) - len(todo)
        by_part = {p.part: p for p in todo}
        if not todo:
            return report

        def keep(o: Outcome) -> None:
            point = by_part[o.part]
            tables = {"points": _points_row(point, o, columns), **o.tables}
            with _sigint_deferred():
                store.write(o.part, tables, replace=o.part in retry)
                for old in by_point.get((o.point_id, o.seed), []):
                    if old != o.part:
                        store.remove(old)
            report.ran.append(o.part)
            if o.status == "done":
                report.done += 1
            else:
                report.failed += 1
            if o.engine_seconds:
                report.engine_seconds += o.engine_seconds

        owned = not isinstance(backend, Backend)
        runner = _backend(backend, workers, scheduler, version, run_fn, len(todo)) if owned else backend
        bar = SweepProgress(len(points), report.skipped, bool(progress),
                            label=progress if isinstance(progress, str) else "sweep")
        try:
            with bar:
                for o in runner.outcomes(todo):
                    keep(o)
                    bar.advance(o.status == "failed", runner.running)
                bar.running(0)
        except KeyboardInterrupt:
            for o in runner.drain():
                keep(o)
            report.interrupted = True
            runner.close()
            report.wall_seconds = time.perf_counter() - t0
            raise SweepInterrupted(report) from None
        except BaseException:
            runner.close()
            raise
        if owned:
            runner.close()
    report.wall_seconds = time.perf_counter() - t0
    return report


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C back while a finished point is stored: it takes effect just after, so the
    point is kept rather than thrown away half-written."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _failed(store: Store, name: str) -> bool:
    import pyarrow.parquet as pq

    try:
        status = pq.read_table(store.parts / name / "points.parquet", columns=["status"])
        return status.column("status")[0].as_py() == "failed"
    except (OSError, KeyError, IndexError):
        return True


def _backend(
    backend: str,
    workers: int | None,
    scheduler: str | None,
    version: str,
    run_fn: Callable[[dict[str, Any]], Any] | None,
    n: int,
) -> Backend:
    if backend == "inline":
        return InlineBackend(version, run_fn)
    if backend == "pool":
        return PoolBackend(max(1, min(workers or default_workers(), n)), version, run_fn)
    if backend == "dask":
        return DaskBackend(version, run_fn, scheduler=scheduler, workers=workers)
    raise ValueError(f'backend must be "pool", "dask" or "inline", not {backend!r}')

