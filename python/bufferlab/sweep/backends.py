"""Where points run: in this process, on a local process pool, or on a Dask cluster.

Each backend takes the points to run and yields their outcomes as they finish, and says how many
are running now (for the progress bar). Results come back to the caller, which alone writes the
store, so a Dask worker on another machine needs no access to the results folder. Which backend
ran a point never changes its numbers: the engine is deterministic and a point carries its seed.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from .spec import Point
from .worker import Outcome, run_point

__all__ = ["Backend", "InlineBackend", "PoolBackend", "DaskBackend", "default_workers"]

RunFn = Callable[[dict[str, Any]], Any] | None


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class Backend:
    running = 0

    def outcomes(self, points: list[Point]) -> Iterator[Outcome]:
        raise NotImplementedError

    def drain(self) -> list[Outcome]:
        """After an interrupt: outcomes already finished but not yet yielded (none are lost)."""
        return []

    def close(self) -> None:
        """Stop: cancel what has not started and end the workers."""


class InlineBackend(Backend):
    """One point after another in this process (debugging, and tests of interruption)."""

    def __init__(self, engine_version: str, run_fn: RunFn = None) -> None:
        self.engine_version = engine_version
        self.run_fn = run_fn

    def outcomes(self, points: list[Point]) -> Iterator[Outcome]:
        for p in points:
            self.running = 1
            yield run_point(p, self.engine_version, self.run_fn)
        self.running = 0


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group; the parent alone decides what to keep and then
    # ends the workers, so a worker must not die half-way through handing back a result.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class PoolBackend(Backend):
    """A local process pool of ``workers`` processes (forkserver: safe beside threads)."""

    def __init__(self, workers: int, engine_version: str, run_fn: RunFn = None) -> None:
        self.workers = workers
        self.engine_version = engine_version
        self.run_fn = run_fn
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("forkserver"),
            initializer=_ignore_sigint,
        )
        self.inflight: set[Future[Outcome]] = set()

    def outcomes(self, points: list[Point]) -> Iterator[Outcome]:
        todo = iter(points)
        # Two per worker keeps every worker busy while the parent writes a finished point.
        depth = 2 * self.workers

        def fill() -> None:
            while len(self.inflight) < depth:
                p = next(todo, None)
                if p is None:
                    return
                self.inflight.add(self.pool.submit(run_point, p, self.engine_version, self.run_fn))

        fill()
        while self.inflight:
            self.running = min(len(self.inflight), self.workers)
            done, _ = wait(self.inflight, return_when=FIRST_COMPLETED)
            for f in done:
                self.inflight.discard(f)
                yield f.result()  # KeyboardInterrupt raised in a worker comes out here
            fill()
        self.running = 0

    def drain(self) -> list[Outcome]:
        out = []
        for f in list(self.inflight):
            if f.done() and not f.cancelled() and f.exception() is None:
                out.append(f.result())
                self.inflight.discard(f)
        return out

    def close(self) -> None:
        for f in self.inflight:
            f.cancel()
        terminate = getattr(self.pool, "terminate_workers", None)  # Python >= 3.14
        if terminate is not None:
            terminate()
        else:
            # Before 3.14 the executor has no public way to stop a running task; end the
            # processes so an interrupted sweep does not wait for its longest point.
            for proc in list((getattr(self.pool, "_processes", None) or {}).values()):
                proc.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.running = 0


class DaskBackend(Backend):
    """A dask.distributed cluster: a new local one (``workers`` processes) or a running one."""

    def __init__(
        self,
        engine_version: str,
        run_fn: RunFn = None,
        scheduler: str | None = None,
        workers: int | None = None,
    ) -> None:
        from distributed import Client, LocalCluster

        self.engine_version = engine_version
        self.run_fn = run_fn
        self.cluster = None
        if scheduler is None:
            self.cluster = LocalCluster(
                n_workers=workers or default_workers(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            self.client = Client(self.cluster)
        else:
            self.client = Client(scheduler)
        self.futures: list[Any] = []
        self.pending: set[Any] = set()

    def _slots(self) -> int:
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - only for the progress display
            return 1

    def outcomes(self, points: list[Point]) -> Iterator[Outcome]:
        from distributed import as_completed

        slots = self._slots()
        self.futures = [
            self.client.submit(
                run_point, p, self.engine_version, self.run_fn, key=f"bufferlab-{p.part}", pure=False
            )
            for p in points
        ]
        self.pending = set(self.futures)
        for f in as_completed(self.futures):
            self.pending.discard(f)
            self.running = min(len(self.pending), slots)
            yield f.result()
        self.running = 0

    def drain(self) -> list[Outcome]:
        out = []
        for f in list(self.pending):
            if f.status == "finished":
                out.append(f.result())
                self.pending.discard(f)
        return out

    def close(self) -> None:
        try:
            if self.pending:
                self.client.cancel(list(self.pending))
        finally:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()
        self.running = 0
