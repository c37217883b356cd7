"""The results store of a sweep: a folder of Parquet tables, read with pandas or DuckDB.

Layout::

    DIR/sweep.json                        what was swept (keys, spec, engine version)
    DIR/parts/<point_id>.s<seed>.<key>/   one finished point × seed
        points.parquet                    one row: point_id, seed, swept keys, status, error, ...
        flows.parquet  queues.parquet  links.parquet     the run's tables (an empty one, such as
        transfers.parquet  timeseries.parquet              timeseries without sampling, is left
        distributions.parquet                              out)

A part is written in ``DIR/.tmp`` and renamed into ``parts/`` in one step, so a part is either
complete or absent: an interrupted sweep leaves no half-written point, and a rerun runs what is
missing. The tables of all parts are the dataset: ``load(DIR)`` gives them as DataFrames,
``query(DIR, sql)`` runs DuckDB over them by name (``points``, ``flows``, ``queues``, ``links``,
``transfers``, ``timeseries``, ``distributions``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["TABLE_NAMES", "VALUE_SUFFIX", "UNIT_SUFFIX", "Store", "Tables", "load", "connect", "query", "StoreError", "check_store_dir",
           "connect_runs", "open_folders", "is_run_folder", "run_labels", "RUN_TABLES"]

TABLE_NAMES = ("points", "flows", "queues", "links", "transfers", "timeseries", "distributions")

# A swept quantity ("100pkt") also has its number in base units and the unit, in the points
# columns "<key>:value" (100.0) and "<key>:unit" ("pkt"): sort and plot by the value.
VALUE_SUFFIX = ":value"
UNIT_SUFFIX = ":unit"


class StoreError(RuntimeError):
    """A folder that is not a results store, or one another sweep is writing."""


@dataclass(frozen=True)
class PartName:
    point_id: str
    seed: int
    key: str

    @classmethod
    def parse(cls, name: str) -> PartName | None:
        bits = name.split(".")
        if len(bits) != 3 or not bits[1].startswith("s") or not bits[1][1:].isdigit():
            return None
        return cls(bits[0], int(bits[1][1:]), bits[2])

    def __str__(self) -> str:
        return f"{self.point_id}.s{self.seed}.{self.key}"


def _arrow(df: pd.DataFrame | pa.Table) -> pa.Table:
    if isinstance(df, pa.Table):
        return df
    return pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)


class Store:
    """Writing side of a results folder (the sweep runner uses it; readers use load/query)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.parts = self.root / "parts"
        self.tmp = self.root / ".tmp"

    def create(self) -> None:
        self.parts.mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder for one sweep at a time; leftovers of a killed sweep are removed."""
        self.create()
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"{self.root} is being written by another sweep") from None
            # Only a sweep holding the lock writes to .tmp, so what is there is a dead sweep's.
            for leftover in self.tmp.iterdir():
                shutil.rmtree(leftover, ignore_errors=True)
            yield
        finally:
            os.close(fd)

    def existing(self) -> dict[str, PartName]:
        """Finished parts by directory name."""
        if not self.parts.is_dir():
            return {}
        out = {}
        for entry in os.scandir(self.parts):
            name = PartName.parse(entry.name)
            if name is not None and entry.is_dir():
                out[entry.name] = name
        return out

    def write(self, part: str, tables: Mapping[str, pd.DataFrame | pa.Table], replace: bool = False) -> None:
        """Write one point's tables as a part, atomically (temp folder + rename); ``replace``
        swaps out a part of the same name (a failed point run again)."""
        tmp = self.tmp / f"{part}.{uuid.uuid4().hex[:8]}"
        tmp.mkdir(parents=True)
        try:
            for name, df in tables.items():
                pq.write_table(_arrow(df), tmp / f"{name}.parquet")
            if replace and (self.parts / part).is_dir():
                self.remove(part)
            os.rename(tmp, self.parts / part)
        except BaseException as e:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(e, OSError) and (self.parts / part).is_dir():
                return  # already there: the same point, stored before
            raise

    def remove(self, part: str) -> None:
        """Take a part out of the dataset in one step, then delete it."""
        src = self.parts / part
        trash = self.tmp / f"old.{part}.{uuid.uuid4().hex[:8]}"
        os.rename(src, trash)
        shutil.rmtree(trash, ignore_errors=True)

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        tmp = self.tmp / f"sweep.json.{uuid.uuid4().hex[:8]}"
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
        os.replace(tmp, self.root / "sweep.json")


def _is_store_or_empty(root: Path) -> bool:
    return (root / "parts").is_dir() or (root / "sweep.json").is_file() or not any(root.iterdir())


def check_store_dir(root: str | Path) -> Path:
    """Check, before a sweep runs, that ``root`` can hold its results: a new folder, an empty
    one, or a sweep's results folder (to resume); returns it absolute. Raises
    :class:`~bufferlab.outpath.OutputError`."""
    from .outpath import check_out_dir

    return check_out_dir(
        root, ours=_is_store_or_empty, what="a sweep's results folder",
        rule="a sweep writes into a new or empty folder, or resumes in a sweep's results folder",
    )


def _check_root(root: Path) -> None:
    if (root / "parts").is_dir():
        return
    if is_run_folder(root):
        raise StoreError(
            f"{root} is a run's output folder, not a sweep's: read it with "
            f"bufferlab.Result.read({str(root)!r}) (bufferlab.query takes either)"
        )
    raise StoreError(
        f"{root} is neither a sweep's results folder (no parts/ folder) nor a run's output "
        "folder (no summary.json)"
    )


def _files(root: Path, table: str) -> list[Path]:
    """The table's part files in a fixed order (by part name), so reads are repeatable."""
    parts = sorted(e.name for e in os.scandir(root / "parts") if PartName.parse(e.name))
    return [p for p in (root / "parts" / n / f"{table}.parquet" for n in parts) if p.is_file()]


def manifest(root: str | Path) -> dict[str, Any]:
    path = Path(root) / "sweep.json"
    return json.loads(path.read_text()) if path.is_file() else {}


class Tables:
    """A sweep's tables as DataFrames; ``swept`` names the points columns that were varied.

    Each table is read when first asked for (``tables.flows``, ``tables["links"]``) and kept: an
    analysis that needs the flows of 800 runs of 500 flows does not also hold their
    distributions (millions of rows) in memory.
    """

    def __init__(self, read: Callable[[str], pd.DataFrame], swept: list[str] | None = None):
        self._read = read
        self._frames: dict[str, pd.DataFrame] = {}
        self.swept = list(swept or [])

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in TABLE_NAMES:
            raise KeyError(f"no table {name!r}; the tables are {', '.join(TABLE_NAMES)}")
        if name not in self._frames:
            self._frames[name] = self._read(name)
        return self._frames[name]

    def with_params(self, name: str) -> pd.DataFrame:
        """Table ``name`` with the swept columns of its point joined on (point_id, seed), and
        their typed columns (``"<key>:value"``, ``"<key>:unit"``) where there are any."""
        cols = ["point_id", "seed", *self.swept]
        cols += [k + s for k in self.swept for s in (VALUE_SUFFIX, UNIT_SUFFIX) if k + s in self.points.columns]
        if name == "points":
            return self.points
        params = self.points[cols]
        # Text parameters joined as references to one Python string per point, not copied into
        # every row: a per-pair delay list is kilobytes, and a links table has a row per link.
        text = [c for c in cols[2:] if pd.api.types.is_string_dtype(params[c])]
        params = params.astype({c: object for c in text})
        return self[name].merge(params, on=["point_id", "seed"], how="left")

    points = property(lambda self: self["points"])
    flows = property(lambda self: self["flows"])
    queues = property(lambda self: self["queues"])
    links = property(lambda self: self["links"])
    transfers = property(lambda self: self["transfers"])
    timeseries = property(lambda self: self["timeseries"])
    distributions = property(lambda self: self["distributions"])


def _read(root: Path, table: str) -> pd.DataFrame:
    files = _files(root, table)
    if not files:
        return pd.DataFrame({"point_id": pd.Series(dtype="string"), "seed": pd.Series(dtype="int64")})
    t = pa.concat_tables([pq.read_table(f) for f in files], promote_options="permissive")
    return t.to_pandas()


def load(root: str | Path) -> Tables:
    """Every table of the results folder ``root`` as pandas DataFrames (each read on first use)."""
    root = Path(root)
    _check_root(root)
    tables = Tables(lambda name: _read(root, name))
    tables.swept = [k for k in manifest(root).get("swept", []) if k in tables.points.columns]
    return tables


def connect(root: str | Path, con: Any = None) -> Any:
    """A DuckDB connection with one view per table over the part files."""
    import duckdb

    root = Path(root)
    _check_root(root)
    con = con or duckdb.connect()
    for name in TABLE_NAMES:
        files = _files(root, name)
        if files:
            listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
            con.execute(
                f"CREATE OR REPLACE VIEW {name} AS "
                f"SELECT * FROM read_parquet([{listed}], union_by_name = true)"
            )
        else:
            con.execute(
                f"CREATE OR REPLACE VIEW {name} AS "
                "SELECT NULL::VARCHAR AS point_id, NULL::BIGINT AS seed WHERE false"
            )
    return con


RUN_TABLES = ("flows", "queues", "links", "timeseries", "transfers", "distributions")


def is_run_folder(path: str | Path) -> bool:
    """A folder written by ``bufferlab run --out`` / ``Result.write``."""
    return (Path(path) / "summary.json").is_file()


def run_labels(dirs: list[Path]) -> list[str]:
    """A short name per run folder for a ``run`` column and a legend: the folder's name, or its
    path where two names are alike. A folder given twice is refused: its rows would be counted
    twice under one label."""
    seen: set[Path] = set()
    for d in dirs:
        r = Path(d).resolve()
        if r in seen:
            raise StoreError(f"{d} is given twice: give each folder once")
        seen.add(r)
    names = [Path(d).name for d in dirs]
    if len(set(names)) == len(names):
        return names
    return [str(d) for d in dirs]


def _sql_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def connect_runs(dirs: list[str | Path], con: Any = None) -> Any:
    """A DuckDB connection over run output folders side by side: each table is a view over the
    folders' files with a ``run`` column (the folder's name) and the run's ``seed`` first, and
    ``runs`` has one row per folder (run, path, seed, duration_s, engine_version)."""
    import duckdb

    paths = [Path(d) for d in dirs]
    for d in paths:
        if not is_run_folder(d):
            raise StoreError(f"{d} is not a run's output folder (it has no summary.json)")
    labels = run_labels(paths)
    summaries = [json.loads((d / "summary.json").read_text()) for d in paths]
    seeds = [int(s.get("run", {}).get("seed", 0) or 0) for s in summaries]
    con = con or duckdb.connect()
    runs = pd.DataFrame({
        "run": labels,
        "path": [str(d) for d in paths],
        "seed": pd.array(seeds, dtype="int64"),
        "duration_s": [s.get("run", {}).get("duration_s") for s in summaries],
        "engine_version": [s.get("engine", {}).get("version") for s in summaries],
    })
    con.register("_runs", runs)
    con.execute("CREATE OR REPLACE VIEW runs AS SELECT * FROM _runs")
    for name in RUN_TABLES:
        parts = [
            f"SELECT {_sql_text(label)} AS run, {seed}::BIGINT AS seed, * FROM read_parquet({_sql_text(str(d / f'{name}.parquet'))})"
            for label, seed, d in zip(labels, seeds, paths) if (d / f"{name}.parquet").is_file()
        ]
        body = " UNION ALL BY NAME ".join(parts) if parts else "SELECT NULL::VARCHAR AS run, NULL::BIGINT AS seed WHERE false"
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {body}")
    return con


def open_folders(roots: str | Path | list[str | Path]) -> Any:
    """A DuckDB connection over one sweep's results folder or over run output folders."""
    paths = [Path(r) for r in ([roots] if isinstance(roots, (str, Path)) else roots)]
    if not paths:
        raise StoreError("give a sweep's results folder or one or more run output folders")
    if all(is_run_folder(p) for p in paths):
        return connect_runs(paths)
    if len(paths) == 1:
        return connect(paths[0])
    bad = [str(p) for p in paths if not is_run_folder(p)]
    raise StoreError(
        f"{', '.join(bad)}: not a run's output folder; several folders side by side must all be "
        "run output folders (bufferlab run FILE --out DIR); query a sweep's folder on its own"
    )


def query(root: str | Path | list[str | Path], sql: str) -> pd.DataFrame:
    """Run ``sql`` over the tables of ``root`` (by name) and return the rows: a sweep's results
    folder, or one or more run output folders (tables with a ``run`` column, and ``runs``)."""
    con = open_folders(root)
    try:
        return con.execute(sql).df()
    finally:
        con.close()
