"""A sweep spec: a base scenario, overrides, a grid, zipped lists and seeds -> the points to run.

```toml
base = "dumbbell.toml"          # relative to this file
seeds = 10                      # seeds 1..10, or a list: [1, 7, 42]
[set]                           # applied to every point
"run.duration" = "100s"
[grid]                          # cartesian product
"topology.pairs" = [1, 10, 100]
"topology.bottleneck.queue" = [{ discipline = "fifo", sizing = "bdp" }, { discipline = "codel" }]
[zip]                           # varied together (equal lengths), crossed with the grid
"topology.bottleneck.rate" = ["1Mbps", "10Mbps"]
"topology.bottleneck.delay" = ["20ms", "50ms"]
```

``[[zip]]`` (an array of tables) gives several independent zipped groups.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import itertools
import json
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from .keypath import KeyPathError, parse, set_path

__all__ = ["SweepSpec", "Point", "load_spec", "canonical_json"]

_KEYS = ("base", "seeds", "set", "grid", "zip", "name", "description")


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces; TOML dates and times as ISO text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, allow_nan=True)


def _digest(text: str, n: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


@dataclass(frozen=True)
class Point:
    """One point × seed: the resolved scenario and the identifiers it is stored under.

    ``point_id`` hashes the resolved scenario without its seed (so all seeds of a point share
    it); ``key`` hashes the resolved scenario with its seed and the engine version (with a
    digest of the engine build), and names the stored part, so a result is reused only for the
    same scenario run by the same engine.
    """

    index: int
    point_id: str
    seed: int
    key: str
    params: dict[str, Any]
    scenario: dict[str, Any]

    @property
    def part(self) -> str:
        """The part directory's name: ``<point_id>.s<seed>.<key>``."""
        return f"{self.point_id}.s{self.seed}.{self.key}"


@dataclass
class SweepSpec:
    base: dict[str, Any]
    base_path: Path | None = None
    seeds: list[int] | None = None
    set: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zips: list[dict[str, list[Any]]] = field(default_factory=list)
    name: str | None = None
    source: str | None = None
    # The spec's own folder (a dict's: its base_dir, else the working directory).
    folder: Path | None = None

    @property
    def swept_keys(self) -> list[str]:
        """The varied key paths, in spec order: grid keys, then zipped keys."""
        keys = list(self.grid)
        for z in self.zips:
            keys.extend(k for k in z if k not in keys)
        return keys

    def combinations(self) -> list[dict[str, Any]]:
        """Every combination of swept values (grid product × each zip group), in spec order."""
        axes: list[list[dict[str, Any]]] = [
            [{k: v} for v in values] for k, values in self.grid.items()
        ]
        for z in self.zips:
            n = len(next(iter(z.values())))
            axes.append([{k: z[k][i] for k in z} for i in range(n)])
        combos = []
        for parts in itertools.product(*axes):
            combo: dict[str, Any] = {}
            for p in parts:
                combo.update(p)
            combos.append(combo)
        return combos

    def points(self, engine_version: str) -> list[Point]:
        """The points × seeds, seed varying fastest. Raises ScenarioError for a path that does
        not fit the base scenario."""
        problems: list[str] = []
        base = copy.deepcopy(self.base)
        for path, value in self.set.items():
            try:
                set_path(base, path, value)
            except KeyPathError as e:
                problems.append(f"set.{e}")
        seeds = self.seeds if self.seeds is not None else [self.base_seed]
        big = [x for x in seeds if x > MAX_STORED_SEED]
        if big:
            problems.append(f"seeds: {big[0]} is above {MAX_STORED_SEED}, the largest seed a results "
                            "folder keeps (a 64-bit signed integer); choose a smaller one")
        out: list[Point] = []
        for combo in self.combinations():
            doc = copy.deepcopy(base)
            for path, value in combo.items():
                try:
                    set_path(doc, path, value)
                except KeyPathError as e:
                    problems.append(str(e))
            if problems:
                continue
            run = doc.setdefault("run", {})
            if not isinstance(run, dict):
                problems.append("run: the base scenario's run is not a table")
                break
            run.pop("seed", None)
            point_id = _digest(canonical_json(doc), 12)
            for seed in seeds:
                sc = copy.deepcopy(doc)
                sc["run"]["seed"] = seed
                key = _digest(canonical_json({"engine": engine_version, "scenario": sc}), 16)
                out.append(Point(len(out), point_id, seed, key, dict(combo), self._files_found(sc)))
        if problems:
            raise ScenarioError(sorted(set(problems)), source=self.source)
        return out

    def _files_found(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The point's scenario with the files it names (``"trace(FILE)"``) made absolute: a
        relative name is the base file's (relative to its folder, as `bufferlab run` reads it;
        an inline base's, to the spec's folder), while the point is a dict that a worker reads
        from any directory. The point's identity keeps the names as written, so that a results
        folder moved with its scenarios still resumes."""
        folder = self.base_path.parent if self.base_path is not None else self.folder
        return _absolute_traces(doc, folder) if folder is not None else doc

    @property
    def base_seed(self) -> int:
        run = self.base.get("run")
        seed = run.get("seed", 1) if isinstance(run, dict) else 1
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else 1


_TRACE = re.compile(r"^(\s*trace\()(.*)(\)\s*)$")


def _absolute_traces(value: Any, folder: Path) -> Any:
    """``value`` with every ``"trace(FILE)"`` of a relative FILE rewritten from ``folder``."""
    if isinstance(value, dict):
        return {k: _absolute_traces(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [_absolute_traces(v, folder) for v in value]
    if isinstance(value, str):
        m = _TRACE.match(value)
        if m and m.group(2).strip() and not Path(m.group(2).strip()).is_absolute():
            return f"{m.group(1)}{(folder / m.group(2).strip()).resolve()}{m.group(3)}"
    return value


def _lists(table: Any, where: str, problems: list[str]) -> dict[str, list[Any]]:
    if not isinstance(table, Mapping):
        problems.append(f"{where}: must be a table of key path = [values]")
        return {}
    out: dict[str, list[Any]] = {}
    for k, v in table.items():
        try:
            parse(k)
        except KeyPathError as e:
            problems.append(f"{where}.{k}: {e}")
            continue
        if not isinstance(v, list) or not v:
            problems.append(f'{where}."{k}": must be a non-empty list of values, e.g. [1, 2, 3]')
            continue
        out[k] = v
    return out


# The most seeds a point may have, and the largest seed the results store keeps (its `seed`
# column is a 64-bit signed integer, as DuckDB and pandas read it).
MAX_SEEDS = 1_000_000
MAX_STORED_SEED = 2**63 - 1


def _seeds(value: Any, problems: list[str]) -> list[int] | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            problems.append(f"seeds: {value} must be at least 1 (seeds = N runs seeds 1..N)")
            return None
        if value > MAX_SEEDS:
            problems.append(f"seeds: {value:,} runs of each point is more than a sweep takes (at most {MAX_SEEDS:,})")
            return None
        return list(range(1, value + 1))
    if isinstance(value, list) and value and all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value
    ):
        if len(set(value)) != len(value):
            problems.append("seeds: the list repeats a seed")
            return None
        return list(value)
    problems.append("seeds: must be a count (seeds = 10 runs seeds 1..10) or a list of seeds, e.g. [1, 2, 3]")
    return None


def load_spec(spec: str | Path | Mapping[str, Any], base_dir: str | Path | None = None) -> SweepSpec:
    """Read a sweep spec from a TOML file or a dict; ``base`` is read relative to the spec's
    folder (or ``base_dir`` for a dict) and may also be an inline table (a scenario dict)."""
    source = None
    if isinstance(spec, Mapping):
        data = dict(spec)
        folder = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        path = Path(spec)
        source = str(path)
        try:
            with path.open("rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise ScenarioError([f"no such sweep spec: {path}"], source=source) from None
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError([f"not valid TOML: {e}"], source=source) from None
        folder = path.parent
    if "base" not in data and any(k in data for k in ("run", "topology", "traffic")):
        # A scenario handed to `sweep`: one message that says what a sweep spec is, not one
        # unknown key per scenario table.
        name = Path(source).name if source else "the scenario"
        run = f"bufferlab run {source}" if source else "bufferlab.run(...)"
        raise ScenarioError([f'a scenario, not a sweep spec: a sweep spec names it as its base (base = "{name}") and '
                             f'lists what to vary ([grid], e.g. "topology.pairs" = [1, 10, 100]) and its seeds; '
                             f"`{run}` runs it as it is (docs/sweeps.md)"], source=source)
    problems: list[str] = []
    for k in data:
        if k not in _KEYS:
            close = difflib.get_close_matches(k, _KEYS, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else f" (known: {', '.join(_KEYS)})"
            problems.append(f"{k}: unknown key{hint}")
    base_value = data.get("base")
    base: dict[str, Any] = {}
    base_path = None
    if isinstance(base_value, Mapping):
        base = copy.deepcopy(dict(base_value))
    elif isinstance(base_value, str):
        base_path = (folder / base_value).resolve()
        try:
            with base_path.open("rb") as f:
                base = tomllib.load(f)
        except FileNotFoundError:
            problems.append(f'base: no scenario file "{base_value}" (looked for {base_path})')
        except tomllib.TOMLDecodeError as e:
            problems.append(f'base: "{base_value}" is not valid TOML: {e}')
    else:
        problems.append('base: required: the scenario file to vary, e.g. base = "dumbbell.toml"')
    seeds = _seeds(data.get("seeds"), problems)
    set_ = data.get("set", {})
    if not isinstance(set_, Mapping):
        problems.append('set: must be a table of key path = value, e.g. "run.duration" = "100s"')
        set_ = {}
    for k in set_:
        try:
            parse(k)
        except KeyPathError as e:
            problems.append(f"set.{k}: {e}")
    grid = _lists(data.get("grid", {}), "grid", problems)
    zip_value = data.get("zip", [])
    zip_tables = [zip_value] if isinstance(zip_value, Mapping) else zip_value
    zips: list[dict[str, list[Any]]] = []
    if not isinstance(zip_tables, list):
        problems.append("zip: must be a table (or an array of tables) of key path = [values]")
        zip_tables = []
    for i, z in enumerate(zip_tables):
        where = "zip" if isinstance(zip_value, Mapping) else f"zip[{i}]"
        lists = _lists(z, where, problems)
        lengths = {k: len(v) for k, v in lists.items()}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f'"{k}" has {n}' for k, n in lengths.items())
            problems.append(f"{where}: zipped lists must have the same length ({shown})")
        elif lists:
            zips.append(lists)
    seen: dict[str, str] = {}
    for where, keys in [("grid", grid)] + [(f"zip[{i}]", z) for i, z in enumerate(zips)]:
        for k in keys:
            if k in seen:
                problems.append(f'{where}."{k}": also varied in {seen[k]}; vary a key in one place')
            seen[k] = where
            if k == "run.seed":
                problems.append(f'{where}."run.seed": vary seeds with seeds = N or seeds = [...]')
    for k, v in grid.items():
        for x in v:
            if isinstance(x, float) and math.isnan(x):
                problems.append(f'grid."{k}": nan is not a value a scenario accepts')
    if problems:
        raise ScenarioError(problems, source=source)
    name = data.get("name")
    return SweepSpec(
        base=base,
        base_path=base_path,
        seeds=seeds,
        set=dict(set_),
        grid=grid,
        zips=zips,
        name=name if isinstance(name, str) else None,
        source=source,
        folder=folder.resolve(),
    )
