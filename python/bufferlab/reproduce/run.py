"""Run reproductions through the sweep runner and write their figures, data and claims.

Layout of ``--out DIR``::

    DIR/report.md                 every item run: figure, claims, assumptions; then all claims
    DIR/claims.csv                every claim of every item run
    DIR/<item>/runs/<sweep>/      the sweep's results store (resumable; docs/sweeps.md)
    DIR/<item>/figure.png         the paper's axes and series, error bars over seeds
    DIR/<item>/plotted.csv        the numbers the figure plots
    DIR/<item>/claims.csv         this item's claims

Rerunning the same command reuses every stored point (same scenario, same engine), so an
interrupted run resumes; results of another profile in the same folder are ignored.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..outpath import check_out_dir
from ..store import Tables, load
from ..sweep import load_spec, run_sweep
from ..sweep.backends import Backend, PoolBackend, default_workers
from ..sweep.runner import engine_version
from .claims import ClaimResult, judge
from .figures import clear_legends
from .item import Data, Item

# A reproduction figure is for print: at least 150 dpi (docs/figures/ and each item's figure.png).
FIGURE_DPI = 150

__all__ = ["ItemResult", "SharedPool", "check_repro_dir", "run_item", "run_items", "slug", "dask_local"]


def slug(name: str) -> str:
    return name.replace("/", "-")


@dataclass
class ItemResult:
    item: Item
    profile: str
    seeds: list[int]
    folder: Path
    claims: list[ClaimResult] = field(default_factory=list)
    runs: int = 0
    wall_seconds: float = 0.0
    engine_seconds: float = 0.0
    failed: list[str] = field(default_factory=list)
    reused: bool = False  # every run was in the folder already: the times are those of the run that made them

    @property
    def figure(self) -> Path | None:
        p = self.folder / "figure.png"
        return p if p.is_file() else None


def _only(tables: Tables, keep: set[tuple[str, int]]) -> Tables:
    """The tables restricted to the points × seeds of this run (a folder may hold others), each
    filtered when first read."""
    wanted = pd.MultiIndex.from_tuples(sorted(keep), names=["point_id", "seed"]) if keep else None

    def read(name: str) -> pd.DataFrame:
        df = tables[name]
        if len(df) and "point_id" in df.columns:
            if wanted is None:
                return df.iloc[:0]
            at = pd.MultiIndex.from_arrays([df["point_id"].astype(str), df["seed"].astype("int64")])
            df = df[at.isin(wanted)].reset_index(drop=True)
        return df

    return Tables(read, swept=tables.swept)


def _is_repro_dir(root: Path) -> bool:
    """A folder ``reproduce`` wrote (its report, or an item's folder of runs), or an empty one."""
    from .item import ITEMS

    if (root / "report.md").is_file() or (root / "claims.csv").is_file() or not any(root.iterdir()):
        return True
    return any((root / slug(n) / "runs").is_dir() or (root / slug(n) / "claims.csv").is_file() for n in ITEMS)


def check_repro_dir(out: str | Path) -> Path:
    """Check, before anything runs, that ``out`` can hold reproductions: a new or empty folder,
    or one ``reproduce`` wrote (to resume); returns it absolute. Raises
    :class:`~bufferlab.outpath.OutputError`."""
    return check_out_dir(
        out, ours=_is_repro_dir, what="a reproductions folder",
        rule="reproduce writes into a new or empty folder, or resumes in a folder it wrote",
    )


class SharedPool(Backend):
    """One local process pool for every sweep of a command, started when a sweep first has a
    point to run (a rerun that finds every point stored starts none): an item of many small
    sweeps no longer pays a pool's start-up (fork server, package import) for each of them."""

    def __init__(self, workers: int | None, engine_version: str) -> None:
        self.workers = workers or default_workers()
        self.engine_version = engine_version
        self.pool: PoolBackend | None = None
        self.starts = 0

    @property
    def running(self) -> int:  # type: ignore[override]
        return self.pool.running if self.pool else 0

    def outcomes(self, points):
        if self.pool is None:
            self.pool = PoolBackend(self.workers, self.engine_version)
            self.starts += 1
        yield from self.pool.outcomes(points)

    def drain(self):
        return self.pool.drain() if self.pool else []

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def __enter__(self) -> SharedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def dask_local(workers: int | None) -> Iterator[str]:
    """A local Dask cluster for the whole run (one start-up, every sweep uses it)."""
    from dask.distributed import LocalCluster

    from ..sweep.backends import NO_DASHBOARD, default_workers

    cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1, processes=True,
                           **NO_DASHBOARD)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def run_item(
    item: Item,
    profile: str,
    out: Path,
    *,
    seeds: int | None = None,
    backend: str | Backend = "pool",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool = False,
    log: Callable[[str], None] = lambda s: None,
) -> ItemResult:
    """Run ``item``'s sweeps for ``profile`` into ``out/<item>``, then analyze, draw and judge.
    ``backend``: as :func:`bufferlab.sweep.run_sweep`'s; with ``"pool"`` the item's sweeps share
    one pool."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(out) / slug(item.name)
    folder.mkdir(parents=True, exist_ok=True)
    res = ItemResult(item, profile, [], folder)
    if not item.runnable:
        res.claims = [judge(item.name, c, None, f"not yet reproducible: needs {item.needs}") for c in item.claims]
        _write_claims(res)
        return res
    t0 = time.perf_counter()
    version = engine_version()
    if backend == "pool" and not scheduler:
        with SharedPool(workers, version) as pool:
            return run_item(item, profile, out, seeds=seeds, backend=pool, workers=workers,
                            progress=progress, log=log)
    sweeps = {}
    for name, doc in item.sweeps(profile, seeds).items():
        spec = load_spec(doc)
        res.seeds = list(spec.seeds or [])
        store = folder / "runs" / name
        log(f"{item.name}: sweep {name} ({len(spec.points(version))} runs)")
        rep = run_sweep(spec, store, backend="dask" if scheduler else backend, scheduler=scheduler,
                        workers=workers, progress=progress)
        res.runs += rep.done + rep.failed
        res.engine_seconds += rep.engine_seconds
        keep = {(p.point_id, p.seed) for p in spec.points(version)}
        tables = _only(load(store), keep)
        pts = tables.points
        bad = pts[pts["status"] != "done"] if len(pts) else pts
        if len(bad):
            res.failed += [f"{name}: {e}" for e in bad["error"].dropna().unique()]
        sweeps[name] = tables
    if res.failed:
        raise RuntimeError(f"{item.name}: runs failed: " + "; ".join(res.failed[:3]))
    res.wall_seconds = time.perf_counter() - t0
    _timing(res, version)
    output = item.analyze(Data(item.name, profile, sweeps, res.seeds))
    # Print quality: 150 dpi, and no legend over the data.
    clear_legends(output.figure)
    output.figure.savefig(folder / "figure.png", dpi=FIGURE_DPI, bbox_inches="tight")
    plt.close(output.figure)
    output.plotted.to_csv(folder / "plotted.csv", index=False)
    res.claims = []
    for c in item.claims:
        samples = output.samples.get(c.id)
        res.claims.append(judge(item.name, c, samples, output.notes.get(c.id, "")))
    _write_claims(res)
    return res


def _timing(res: ItemResult, version: str) -> None:
    """Keep the cost of the runs with them: a rerun that reuses every stored run reports the time
    they took when they were made (``timing.json``), not the seconds it took to find them. An
    interrupted run's parts add up; runs of another engine (every point made again) do not."""
    path = res.folder / f"timing-{res.profile}-{len(res.seeds)}.json"
    none = {"runs": 0, "wall_seconds": 0.0, "engine_seconds": 0.0, "engine": version}
    old = json.loads(path.read_text()) if path.is_file() else none
    if old.get("engine", version) != version:
        old = none
    if res.runs:
        old = {"runs": old["runs"] + res.runs, "wall_seconds": old["wall_seconds"] + res.wall_seconds,
               "engine_seconds": old["engine_seconds"] + res.engine_seconds, "engine": version}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(old))
        tmp.replace(path)
    elif old["runs"]:
        res.runs, res.wall_seconds, res.engine_seconds = old["runs"], old["wall_seconds"], old["engine_seconds"]
        res.reused = True


def _write_claims(res: ItemResult) -> None:
    pd.DataFrame([c.row() for c in res.claims]).to_csv(res.folder / "claims.csv", index=False)


def run_items(items: list[Item], profile: str, out: Path, *, docs: Path | None = None,
              profile_of: dict[str, str] | None = None, **kw) -> list[ItemResult]:
    """Run ``items`` one after the other into ``out`` and write the report (and, with ``docs``,
    regenerate ``docs/reproductions.md`` and ``docs/figures/``). ``profile_of`` maps an item
    (``jabeen/fig1``) or a paper (``jabeen``) to the profile it runs in instead of ``profile``."""
    profile_of = profile_of or {}
    from .report import write_docs, write_report

    check_repro_dir(out)  # before anything runs
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    scheduler = kw.pop("scheduler", None)
    dask_local_cluster = kw.pop("dask_local", False)
    results = []
    with contextlib.ExitStack() as stack:
        if dask_local_cluster and not scheduler:
            scheduler = stack.enter_context(dask_local(kw.get("workers")))
        if kw.get("backend", "pool") == "pool" and not scheduler:
            # one pool for every sweep of every item
            kw["backend"] = stack.enter_context(SharedPool(kw.get("workers"), engine_version()))
        for item in items:
            own = profile_of.get(item.name, profile_of.get(item.paper.key, profile))
            results.append(run_item(item, own, out, scheduler=scheduler, **kw))
            write_report(results, out, profile)
    if docs is not None:
        write_docs(results, out, docs, profile)
    return results
