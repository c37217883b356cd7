"""What a run returns: the summary and its tables as pandas DataFrames, and writing them out.

``Result.write(dir)`` writes ``summary.json``, ``plan.json`` (the resolved scenario the engine
ran) and Parquet tables -- ``flows``, ``queues``, ``links``, plus ``timeseries`` when the run
sampled, ``transfers`` when it had finite transfers and ``distributions`` (CDFs) when any, and
the run's packet captures (one ``.pcap`` per ``run.capture`` point, docs/capture.md). It writes into a fresh directory beside
``dir`` and renames it into place only once every file is complete, so an interrupted or failed
write leaves no half-written ``dir``, and an existing ``dir`` is replaced only by a complete one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import jsonfile
from .outpath import check_out_dir, make_sibling, remove_leftovers

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Result", "TABLES", "check_result_dir"]

TABLES = ("flows", "queues", "links", "timeseries", "transfers", "distributions")
TIMESERIES_COLUMNS = ("time_s", "object", "id", "metric", "value")
TRANSFER_COLUMNS = ("flow", "conn", "size_bytes", "start_s", "end_s", "completion_time_s")
DISTRIBUTION_COLUMNS = ("object", "id", "metric", "value", "cdf")

# Drop reasons the engine reports; their columns are always present so tables from different runs
# line up.
DROP_REASONS = ("overflow", "aqm", "fq_overflow", "ttl", "loss", "flow_limit", "horizon")

# A directory we may replace holds a summary.json (a previous result) or nothing at all.
_MARKER = "summary.json"


class Result:
    """A finished run: ``.summary`` (dict) and ``.flows``, ``.queues``, ``.links``,
    ``.timeseries``, ``.transfers`` (DataFrames)."""

    def __init__(
        self,
        summary: dict[str, Any],
        timeseries: dict[str, list[Any]] | None = None,
        transfers: dict[str, list[Any]] | None = None,
        plan: dict[str, Any] | None = None,
        distributions: dict[str, list[Any]] | None = None,
        capture_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.summary = summary
        self.plan = plan
        # Where the engine wrote the packet captures (copied into each folder written).
        self.capture_dir = None if capture_dir is None else Path(capture_dir)
        self._timeseries = timeseries or {}
        self._transfers = transfers or {}
        self._distributions = distributions or {}
        self._cache: dict[str, pd.DataFrame] = {}

    # -- tables

    @property
    def flows(self) -> pd.DataFrame:
        return self._table("flows", lambda: _rows(self.summary.get("flows", [])))

    @property
    def queues(self) -> pd.DataFrame:
        return self._table("queues", lambda: _queues(self.summary.get("queues", [])))

    @property
    def links(self) -> pd.DataFrame:
        return self._table("links", lambda: _rows(self.summary.get("links", [])))

    @property
    def timeseries(self) -> pd.DataFrame:
        """Long form: one row per (time_s, object, id, metric) with its value."""
        return self._table("timeseries", lambda: _columns(self._timeseries, TIMESERIES_COLUMNS))

    @property
    def transfers(self) -> pd.DataFrame:
        """One row per finite TCP transfer: flow, conn, size, start, end, completion time."""
        return self._table("transfers", lambda: _columns(self._transfers, TRANSFER_COLUMNS))

    @property
    def distributions(self) -> pd.DataFrame:
        """Empirical CDFs from the engine's histograms: (object, id, metric, value, cdf) rows."""
        return self._table("distributions", lambda: _columns(self._distributions, DISTRIBUTION_COLUMNS))

    def _table(self, name: str, build) -> pd.DataFrame:
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]

    @property
    def engine(self) -> dict[str, Any]:
        return self.summary.get("engine", {})

    @property
    def captures(self) -> list[dict[str, Any]]:
        """The packet capture files of the run: point, file, packets, bytes, and when and why
        capturing stopped early (``stopped_s``, ``note``; None when it did not)."""
        return list(self.summary.get("captures", []))

    def flow(self, flow_id: str) -> dict[str, Any]:
        """One flow's summary row by id (``"udp-1"``)."""
        for row in self.summary.get("flows", []):
            if row.get("id") == flow_id:
                return row
        raise KeyError(f"no flow {flow_id!r}; flows: {', '.join(r.get('id', '?') for r in self.summary.get('flows', []))}")

    def queue(self, link: str) -> dict[str, Any]:
        """One queue's summary row by its link direction (``"r1->r2"``)."""
        for row in self.summary.get("queues", []):
            if row.get("link") == link:
                return row
        raise KeyError(f"no queue at {link!r}; queues: {', '.join(r.get('link', '?') for r in self.summary.get('queues', []))}")

    def summary_json(self) -> str:
        return jsonfile.dumps(self.summary)

    def __repr__(self) -> str:
        e = self.engine
        return (
            f"<Result: {len(self.summary.get('flows', []))} flows, {len(self.summary.get('queues', []))} queues, "
            f"{e.get('sim_seconds', 0):g} s simulated in {e.get('wall_seconds', 0):.3g} s>"
        )

    # -- files

    def write(self, out_dir: str | os.PathLike[str]) -> Path:
        """Write the result to ``out_dir`` atomically (see the module's docstring); returns its path.

        Raises :class:`~bufferlab.outpath.OutputError` for a place that cannot hold it (a file,
        a folder of other files, no permission) and ``OSError`` for a write that fails half-way
        (a full disk), after removing what it wrote."""
        out = check_result_dir(out_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(out)
        tmp = make_sibling(out, "part")
        try:
            self._write_files(tmp)
            _swap_into_place(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return out

    def _write_files(self, d: Path) -> None:
        _write_text(d / "summary.json", self.summary_json())
        if self.plan is not None:
            _write_text(d / "plan.json", jsonfile.dumps(self.plan, sort_keys=True))
        self.flows.to_parquet(d / "flows.parquet", index=False)
        self.queues.to_parquet(d / "queues.parquet", index=False)
        self.links.to_parquet(d / "links.parquet", index=False)
        if len(self.timeseries):
            self.timeseries.to_parquet(d / "timeseries.parquet", index=False)
        if len(self.transfers):
            self.transfers.to_parquet(d / "transfers.parquet", index=False)
        if len(self.distributions):
            self.distributions.to_parquet(d / "distributions.parquet", index=False)
        if self.capture_dir is not None:
            for c in self.captures:
                _link_or_copy(self.capture_dir / c["file"], d / c["file"])

    @classmethod
    def read(cls, out_dir: str | os.PathLike[str]) -> Result:
        """A result written by :meth:`write`; :class:`FileNotFoundError` saying what ``out_dir`` is
        instead (nothing there, a file, a sweep's results folder) when it holds none."""
        d = Path(out_dir)
        if not (d / _MARKER).is_file():
            if (d / "parts").is_dir():
                what = f"is a sweep's results folder: read it with bufferlab.load({str(d)!r})"
            elif d.is_dir():
                what = "is a folder without a run's output (no summary.json)"
            else:
                what = "is a file, not a run's output folder" if d.exists() else "does not exist"
            raise FileNotFoundError(f"{d} {what}")
        summary = json.loads((d / _MARKER).read_text())
        plan_path = d / "plan.json"
        plan = json.loads(plan_path.read_text()) if plan_path.exists() else None
        import pandas as pd

        # Its packet captures sit beside the tables (and go along when it is written again).
        r = cls(summary, plan=plan, capture_dir=d if summary.get("captures") else None)
        for name in ("timeseries", "transfers", "distributions"):
            p = d / f"{name}.parquet"
            if p.exists():
                r._cache[name] = pd.read_parquet(p)
        return r


def _rows(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    return _nested_as_json(pd.DataFrame.from_records(rows)) if rows else pd.DataFrame()


def _nested_as_json(df: pd.DataFrame) -> pd.DataFrame:
    """Nested values (tables, lists) as JSON text, so every column is a plain Parquet column.
    Column by column, not row by row: a run of 10,000 flows has 40,000 queue and link rows."""
    for c in df.columns:
        col = df[c]
        if col.dtype != object:
            continue
        values = col.tolist()
        if any(isinstance(v, (dict, list)) for v in values):
            df[c] = [json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v for v in values]
    return df


def _queues(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Queue rows with ``drops_by_reason`` spread into ``drops_<reason>`` columns (0 when absent)."""
    import pandas as pd

    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame.from_records(rows)
    by = [b if isinstance(b, dict) else {} for b in df.pop("drops_by_reason")] if "drops_by_reason" in df else [{}] * len(df)
    seen = {r for b in by for r in b}
    reasons = list(DROP_REASONS) + sorted(seen - set(DROP_REASONS))
    drops = pd.DataFrame({f"drops_{r}": [int(b.get(r, 0)) for b in by] for r in reasons}, index=df.index)
    # The drop columns follow the first row's own keys (keys first seen in later rows after them).
    first = [k for k in rows[0] if k != "drops_by_reason"]
    later = [c for c in df.columns if c not in set(first)]
    return pd.concat([_nested_as_json(df), drops], axis=1)[first + list(drops.columns) + later]


def _columns(cols: dict[str, list[Any]], order: tuple[str, ...]) -> pd.DataFrame:
    import pandas as pd

    if not cols:
        return pd.DataFrame({c: [] for c in order})
    names = [c for c in order if c in cols] + [c for c in cols if c not in order]
    return pd.DataFrame({c: cols[c] for c in names})


def _link_or_copy(src: Path, dst: Path) -> None:
    """``src`` at ``dst`` too: a hard link where the file system allows one, else a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def check_result_dir(out_dir: str | os.PathLike[str]) -> Path:
    """Check, before a run, that ``out_dir`` can receive its result (see :mod:`bufferlab.outpath`);
    returns it as an absolute path. Raises :class:`~bufferlab.outpath.OutputError`."""
    return check_out_dir(
        out_dir, ours=_replaceable, what="a previous result",
        rule=f"a result replaces only an empty folder or a previous result, one with a {_MARKER}",
    )


def _replaceable(out: Path) -> bool:
    if not out.is_dir():
        return False
    if (out / _MARKER).is_file():
        return True
    return not any(out.iterdir())


def _swap_into_place(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` to ``out``; an existing ``out`` is moved aside first and removed after."""
    if not out.exists():
        os.rename(tmp, out)
        return
    old = make_sibling(out, "old")
    os.rmdir(old)
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        if not out.exists():
            os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
