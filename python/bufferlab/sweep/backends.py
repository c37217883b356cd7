"""Where points run: in this process, on a local process pool, or on a Dask cluster.

Each backend takes the points to run and yields their outcomes as they finish, and says how many
are running now (for the progress bar). Results come back to the caller, which alone writes the
store, so a Dask worker on another machine needs no access to the results folder. Which backend
ran a point never changes its numbers: the engine is deterministic and a point carries its seed.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as mp_wait
from multiprocessing.process import BaseProcess
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


@contextlib.contextmanager
def _main_not_reimported() -> Iterator[None]:
    """A new process re-imports the parent's ``__main__`` from its ``__file__``; a script read
    from standard input (``python - <<EOF``) has ``<stdin>`` there, which is no file, and every
    worker would die importing it. Such a main is hidden while a worker starts (the workers never
    need it: they run the engine's functions, not the script's)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    if main is None or path is None or spec_name is not None or os.path.isfile(path):
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


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


class _Interrupted:
    """What a worker sends back when the run function raised KeyboardInterrupt."""


def _worker_main(conn: Connection, engine_version: str, run_fn: RunFn) -> None:
    # Ctrl-C reaches the whole process group; the parent alone decides what to keep and then
    # ends the workers, so a worker ignores it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            point = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if point is None:
            return
        try:
            outcome: Outcome | _Interrupted = run_point(point, engine_version, run_fn)
        except KeyboardInterrupt:
            outcome = _Interrupted()
        try:
            conn.send(outcome)
        except OSError:  # BrokenPipeError and kin: the parent died while the point ran
            return


class PoolBackend(Backend):
    """A local pool of ``workers`` processes, each with its own pipe, one point at a time.

    Own pipes rather than ``concurrent.futures``: on Ctrl-C a worker half-way through a long
    point can be ended at once without corrupting a queue shared with the others, and a worker
    that dies (killed, out of memory) fails only its own point: it is recorded as failed and a
    new worker takes its place. Processes start from a fork server (safe beside threads).
    """

    def __init__(self, workers: int, engine_version: str, run_fn: RunFn = None) -> None:
        self.workers = workers
        self.engine_version = engine_version
        self.run_fn = run_fn
        self.ctx = multiprocessing.get_context("forkserver")
        # The fork server imports the package once; workers forked from it start with it
        # loaded instead of each importing pandas and pyarrow again.
        self.ctx.set_forkserver_preload(["bufferlab", "bufferlab.sweep.worker"])
        self.procs: list[tuple[BaseProcess, Connection]] = [self._start() for _ in range(workers)]
        self.busy: dict[int, Point] = {}

    def _start(self) -> tuple[BaseProcess, Connection]:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(
            target=_worker_main, args=(child, self.engine_version, self.run_fn), daemon=True
        )
        with _main_not_reimported():
            proc.start()
        child.close()
        return proc, parent

    def outcomes(self, points: list[Point]) -> Iterator[Outcome]:
        todo = iter(points)

        def feed(i: int) -> None:
            p = next(todo, None)
            if p is None:
                return
            self.busy[i] = p
            try:
                self.procs[i][1].send(p)
            except OSError:  # the worker is gone (its pipe is closed): start another
                self.procs[i][1].close()
                self.procs[i] = self._start()
                self.procs[i][1].send(p)

        for i in range(self.workers):
            feed(i)
        while self.busy:
            self.running = len(self.busy)
            waits = {}
            for i in self.busy:
                proc, conn = self.procs[i]
                waits[conn] = i
                waits[proc.sentinel] = i
            ready = mp_wait(list(waits))
            for i in sorted({waits[r] for r in ready}):
                if i not in self.busy:
                    continue
                proc, conn = self.procs[i]
                point = self.busy.pop(i)
                try:
                    got = conn.recv() if conn.poll() else None
                except (EOFError, OSError):
                    got = None
                if isinstance(got, _Interrupted):
                    raise KeyboardInterrupt
                if got is None:  # the worker died with the point
                    proc.join(1)
                    got = _died(point, self.engine_version, proc.exitcode)
                    conn.close()
                    self.procs[i] = self._start()
                feed(i)  # keep the worker busy while this process stores the result
                yield got
        self.running = 0

    def drain(self) -> list[Outcome]:
        out = []
        for i in list(self.busy):
            conn = self.procs[i][1]
            try:
                if conn.poll():
                    got = conn.recv()
                    if isinstance(got, Outcome):
                        out.append(got)
                        del self.busy[i]
            except (EOFError, OSError):
                pass
        return out

    def close(self) -> None:
        for proc, conn in self.procs:
            if proc.is_alive():
                if self.busy:
                    proc.kill()  # interrupted: end the points still running at once
                else:
                    try:
                        conn.send(None)
                    except OSError:
                        proc.kill()
        for proc, conn in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
            conn.close()
        self.busy.clear()
        self.running = 0


def _died(point: Point, engine_version: str, exitcode: int | None) -> Outcome:
    how = f"killed by signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit status {exitcode}"
    return Outcome(
        point.point_id, point.seed, point.part, "failed",
        f"WorkerDied: the worker process running this point ended ({how})", 0.0, None, engine_version,
    )


# A local cluster without a dashboard, and with the scheduler's HTTP server (its health and metrics
# routes, started even without a dashboard) on a free port: on its default, 8787, a second cluster on
# the machine (another sweep, a reproduction) would warn that the port is taken.
NO_DASHBOARD = {"dashboard_address": None, "scheduler_kwargs": {"dashboard_address": ":0"}}


class DaskBackend(Backend):
    """A dask.distributed cluster: a new local one (``workers`` processes) or a running one."""

    def __init__(
        self,
        engine_version: str,
        run_fn: RunFn = None,
        scheduler: str | None = None,
        workers: int | None = None,
        no_worker_grace_s: float = 60.0,
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
                **NO_DASHBOARD,
            )
            self.client = Client(self.cluster)
        else:
            self.client = Client(scheduler)
        self.futures: list[Any] = []
        self.pending: set[Any] = set()
        # How long a cluster of our own may have no worker before its waiting points fail.
        self.no_worker_grace_s = no_worker_grace_s

    def _slots(self) -> int:
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - only for the progress display
            return 1

    def outcomes(self, points: list[Point]) -> Iterator[Outcome]:
        from distributed import as_completed

        slots = self._slots()
        by_future = {}
        for p in points:
            f = self.client.submit(
                run_point, p, self.engine_version, self.run_fn, key=f"bufferlab-{p.part}", pure=False
            )
            by_future[f] = p
        self.futures = list(by_future)
        self.pending = set(self.futures)
        retried: set[str] = set()
        done = as_completed(self.futures)
        no_worker_since: float | None = None
        renewals = 0
        while not done.is_empty():
            if not done.has_ready():
                # A cluster of our own without a live worker process would leave the points
                # waiting for ever: its nannies closed (the cluster was scaled down), or one failed
                # to start its worker again after the last one died and stays up without one (seen
                # on a loaded 2-vCPU host, where a point killing its worker eight times left both
                # nannies so). A running cluster may get workers later (a batch queue), so only
                # our own is looked after. The nannies are objects of this process: asking them
                # costs no call to the scheduler.
                if self.cluster is not None and not self._worker_alive():
                    no_worker_since = no_worker_since or time.monotonic()
                    idle = time.monotonic() - no_worker_since
                    if (renewals < self.MAX_RENEWALS and idle > self.RENEW_AFTER_S
                            and self.cluster.worker_spec):
                        # Nannies left without a worker: replace them with fresh ones (a few
                        # times: a point that kills every worker it gets is failed by Dask).
                        renewals += 1
                        self._renew_workers(renewals)
                        no_worker_since = None
                    elif idle > self.no_worker_grace_s:
                        yield from self._fail_pending(by_future)
                        break
                else:
                    no_worker_since = None
                time.sleep(0.05)
                continue
            for f in done.next_batch(block=False):
                if f.status not in ("finished", "error", "cancelled"):
                    # Its result was lost with the worker that held it (killed before this
                    # process fetched it): Dask computes it again. Waiting here with `result()`
                    # would wait for ever if no worker came back; the loop above looks after that.
                    done.add(f)
                    continue
                p = by_future[f]
                try:
                    # Lost between the status read and the fetch: the same, by the clock.
                    got = f.result(timeout=self.FETCH_TIMEOUT_S)
                except Exception as e:  # noqa: BLE001 - e.g. KilledWorker: the point's workers died
                    if isinstance(e, TimeoutError) and f.status != "error":  # the fetch's, not the run's
                        done.add(f)
                        continue
                    got = e
                self.pending.discard(f)
                self.running = min(len(self.pending), slots)
                if isinstance(got, Exception):
                    if type(got).__name__ == "KilledWorker" and p.part not in retried:
                        # Dask blames every task that was on a worker when it died; a point that only
                        # shared the worker with the culprit gets one more run of its own.
                        retried.add(p.part)
                        g = self.client.submit(
                            run_point, p, self.engine_version, self.run_fn, key=f"bufferlab-{p.part}-again", pure=False
                        )
                        by_future[g] = p
                        self.futures.append(g)
                        self.pending.add(g)
                        done.add(g)
                        continue
                    got = Outcome(p.point_id, p.seed, p.part, "failed", f"{type(got).__name__}: {got}",
                                  0.0, None, self.engine_version)
                yield got
        self.running = 0

    # A cluster of our own with no worker process for this long gets fresh workers, this many times
    # per sweep; then, after `no_worker_grace_s` more, its waiting points fail.
    RENEW_AFTER_S = 10.0
    MAX_RENEWALS = 3
    # A finished run's result is a few tables: fetching it takes milliseconds.
    FETCH_TIMEOUT_S = 30.0
    CLOSE_TIMEOUT_S = 60.0

    def _worker_alive(self) -> bool:
        """Whether a nanny of our own cluster has a live worker process: running, or starting
        again after the last one died (which on a busy machine can take a minute)."""
        from distributed.core import Status

        gone = (Status.closing, Status.closing_gracefully, Status.closed, Status.failed)
        return any(getattr(n, "status", Status.closed) not in gone and n.is_alive()
                   for n in list(self.cluster.workers.values()))

    def _renew_workers(self, round_: int) -> None:
        """Close every nanny of our own cluster and start as many new ones. The new ones need
        names of their own: the cluster keeps a nanny whose name is still in its spec."""
        old = list(self.cluster.worker_spec)
        for name in old:
            del self.cluster.worker_spec[name]
        for k in range(len(old)):
            self.cluster.worker_spec[f"renewed-{round_}-{k}"] = self.cluster.new_spec
        self.cluster.scale(len(old))  # closes the old nannies and starts the new ones

    def _fail_pending(self, by_future: dict[Any, Point]) -> Iterator[Outcome]:
        """Every point still waiting fails, saying why; a rerun of the sweep runs them again."""
        lost = [f for f in self.futures if f in self.pending]
        self.client.cancel(lost)
        for f in lost:
            p = by_future[f]
            self.pending.discard(f)
            yield Outcome(
                p.point_id, p.seed, p.part, "failed",
                f"WorkerDied: every worker of the local Dask cluster ended and none came back in "
                f"{self.no_worker_grace_s:g} s; run the sweep again to run this point",
                0.0, None, self.engine_version,
            )

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
                try:
                    # A nanny stuck closing would hold `close()` for ever (distributed's own
                    # comments describe it); the sweep's results are stored by now, so give up
                    # waiting: the worker processes are this process's children and end with it.
                    self.cluster.close(timeout=self.CLOSE_TIMEOUT_S)
                except Exception:  # noqa: BLE001 - a timeout, or a nanny that fails to close
                    pass
        self.running = 0
