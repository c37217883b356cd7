"""One scenario over several seeds: its flows, queues and links as distributions.

One run of a network of TCP flows is one sample of a chaotic system: the seed moves its start
times and random traffic, and with them every figure. :func:`run_seeds` runs the scenario's seed
and the ``n - 1`` after it through the sweep runner (every core; an interrupted run resumes from
``out``) and gives each row's mean, standard deviation and Student-t interval over the seeds, as
ns-3 users do with ``--RngRun`` loops and Flent with repeated runs (docs/results.md, "Over
seeds"). ``bufferlab run FILE --seeds N`` prints it.

    import bufferlab
    s = bufferlab.run_seeds("scenarios/dumbbell.toml", 10)
    s.flows[["id", "goodput_bps_mean", "goodput_bps_ci"]]
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cost import LONG_RUN_S
from .sweep.check import CAPTURE_NOTE
from .sweep.same_seeds import SAME_SEEDS_ADVICE, same_at_every_seed

if TYPE_CHECKING:
    import pandas as pd

    from .store import Tables

__all__ = ["run_seeds", "over_seeds", "SeedsResult", "FLOW_METRICS", "QUEUE_METRICS", "LINK_METRICS"]

# The interval's level.
LEVEL = 0.95

# The metrics summed up over seeds, by table, and the columns kept as the first seed has them.
FLOW_METRICS = ["goodput_bps", "rtt_mean_s", "rtt_p99_s", "loss_rate", "retransmits", "timeouts", "completion_time_s"]
QUEUE_METRICS = ["sojourn_mean_s", "sojourn_p99_s", "occupancy_mean_pkts", "dropped", "marked"]
LINK_METRICS = ["utilization"]
FLOW_KEEP = ["kind", "src", "dst"]
QUEUE_KEEP = ["discipline", "limit_pkts", "limit_bytes", "sizing"]
LINK_KEEP = ["rate_bps"]


@dataclass
class SeedsResult:
    """A scenario over seeds. ``flows``, ``queues`` and ``links`` have a row per flow id or link
    (in the order a run lists them) with the first seed's descriptive columns and, per metric
    ``m``, ``m_mean``, ``m_sd``, ``m_n`` (seeds with a value), ``m_ci`` (the half-width of the
    ``level`` Student-t interval), ``m_lo`` and ``m_hi``; ``runs`` is the results store of the
    runs themselves (one point, a row per seed: ``runs.flows``, ``runs.queues``, ...)."""

    scenario: str
    seeds: list[int]
    level: float
    flows: "pd.DataFrame"
    queues: "pd.DataFrame"
    links: "pd.DataFrame"
    runs: "Tables"
    wall_seconds: float
    engine_seconds: float
    warnings: list[str] = field(default_factory=list)
    # Without ``out``: the temporary folder ``runs`` reads from, removed with this result.
    _folder: Any = field(default=None, repr=False)


def spread(row: dict[str, Any], metric: str) -> float:
    """A row's standard deviation over the seeds, 0 where the seeds gave the same value (up to
    the rounding of averaging equal floating-point numbers), NaN where there is none."""
    sd, mean = row.get(f"{metric}_sd"), row.get(f"{metric}_mean")
    if sd is None or mean is None or math.isnan(sd) or math.isnan(mean):
        return math.nan
    return 0.0 if sd <= 1e-9 * abs(mean) else sd


def _plain(v: Any) -> Any:
    """A table cell as the single run's summary has it: a missing value None, a whole number an int."""
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer():
            return int(v)
    return v


def over_seeds(df: "pd.DataFrame", key: str, metrics: list[str], keep: list[str]) -> "pd.DataFrame":
    """One row per ``key`` in the order the runs list them: its ``keep`` columns as the first seed
    has them, then each metric over the seeds (:func:`bufferlab.sweep.stats.aggregate`)."""
    import pandas as pd

    from .sweep.stats import aggregate

    if df.empty:
        return pd.DataFrame(columns=[key])
    metrics = [m for m in metrics if m in df.columns]
    agg = aggregate(df, by=[key], metrics=metrics, level=LEVEL).set_index(key)
    first = df.sort_values("seed", kind="stable").drop_duplicates(key)
    fixed = first[[key] + [c for c in keep if c in df.columns]]
    rows = [{**{k: _plain(v) for k, v in r.items()}, **agg.loc[r[key]].to_dict()} for r in fixed.to_dict("records")]
    return pd.DataFrame(rows)


def run_seeds(
    scenario: str | Path | Mapping[str, Any],
    n: int,
    *,
    seed: int | None = None,
    overrides: dict[str, Any] | None = None,
    out: str | Path | None = None,
    workers: int | None = None,
    progress: bool = False,
    max_wall_s: float | None = LONG_RUN_S,
) -> SeedsResult:
    """Run the scenario (a TOML file, or a dict as :func:`bufferlab.run` takes one) over ``n``
    seeds: its own (or ``seed``) and the ``n - 1`` after it,
    as ``compare`` and ``crosscheck`` count them, on ``workers`` processes (the cores). ``out``
    keeps the runs as a sweep's results folder of one point (read back, not run again, when the
    same call comes again); without it they go into a temporary folder that is removed.

    Raises :class:`~bufferlab.ScenarioError` for a bad file or override,
    :class:`~bufferlab.LongRunError` when a run is estimated over ``max_wall_s``,
    :class:`~bufferlab.sweep.SweepInterrupted` on Ctrl-C (what finished is kept in ``out``), and
    :class:`~bufferlab.EngineError` when a seed's run fails.
    """
    from .errors import EngineError
    from .scenario import load_scenario
    from .store import check_store_dir, load
    from .sweep import load_spec, run_sweep

    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    overrides = dict(overrides or {})
    if isinstance(scenario, Mapping):
        # A dict's trace files are read from the working directory, as `bufferlab.run` reads them.
        base: Any = dict(scenario)
        name = label = "scenario"
    else:
        base, name, label = str(Path(scenario).resolve()), Path(scenario).stem, str(scenario)
    sc = load_scenario(scenario, seed=seed, overrides=overrides, engine_check=False)
    seeds = list(range(sc.seed, sc.seed + n))
    spec = load_spec({"base": base, "seeds": seeds, "set": overrides, "name": name})
    notes = [CAPTURE_NOTE] if sc.plan["run"].get("capture") else []
    if out is not None:
        check_store_dir(Path(out))
        folder, store = None, Path(out)
    else:
        folder = tempfile.TemporaryDirectory(prefix="bufferlab-seeds-")
        store = Path(folder.name)
    try:
        report = run_sweep(spec, store, workers=workers, backend="pool", progress="seeds" if progress else False,
                           max_wall_s=max_wall_s)
        runs = load(store)
        pts = runs.points
        bad = pts[pts["status"] != "done"] if len(pts) else pts
        if len(bad):
            err = bad["error"].dropna()
            why = str(err.iloc[0]).splitlines()[0] if len(err) else "no error recorded"
            raise EngineError(f"{label}: {len(bad)} of {n} seeds failed (seed {int(bad['seed'].iloc[0])}: {why})")
        flows = over_seeds(runs.flows, "id", FLOW_METRICS, FLOW_KEEP)
        queues = over_seeds(runs.queues, "link", QUEUE_METRICS, QUEUE_KEEP)
        links = over_seeds(runs.links, "link", LINK_METRICS, LINK_KEEP)
    except BaseException:
        if folder is not None:
            folder.cleanup()
        raise
    same = n > 1 and bool(same_at_every_seed(runs.flows))
    return SeedsResult(
        scenario=label, seeds=seeds, level=LEVEL, flows=flows, queues=queues, links=links, runs=runs,
        wall_seconds=report.wall_seconds, engine_seconds=float(pts["engine_seconds"].sum()),
        warnings=([f"every seed gave the same figures: {SAME_SEEDS_ADVICE}"] if same else []) + notes, _folder=folder,
    )
