"""What a reproduction is: a paper's experiment as sweeps in a spec file, an analysis, claims.

An item's spec (``specs/<name>.toml``) holds one or more sweeps (``[sweep.NAME]``, each a sweep
spec as in docs/sweeps.md with an inline ``base`` scenario) and per-profile overrides::

    [base]                           # optional: the scenario every sweep starts from
    [sweep.NAME]                     # base (or the shared one), set, grid, zip
    [profiles.smoke]                 # 1 seed, tiny durations: the test suite
    seeds = 1
    set = { "run.duration" = "8s", "run.measure" = ["2s", "8s"] }
    grid = { "topology.pairs" = [2] }   # replaces a swept key's values in every sweep having it
    [profiles.quick]                 # >= 3 seeds
    [profiles.full]                  # >= 10 seeds

The analysis turns the sweeps' tables into the plotted data, a figure and one sample per seed
for each claim; the claims and their tolerances are declared with the item, before any run.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from ..scenario import TCP_KINDS
from .claims import ClaimSpec

PROFILES = ("smoke", "quick", "full")
MIN_SEEDS = {"smoke": 1, "quick": 3, "full": 10}


@dataclass(frozen=True)
class TcpProfile:
    """The TCP stack a paper's experiments ran, as bufferlab's TCP keys: each setting with the
    source it stands for (a simulator's default, a kernel's sysctl), stated in the report."""

    name: str  # "ns2"
    what: str  # "ns-2's Agent/TCP/Newreno sending to a TCPSink, with ns-2's defaults"
    settings: list[tuple[str, Any, str]]  # (traffic-block key, value, its source)

    @property
    def tcp(self) -> dict[str, Any]:
        """The keys set on every TCP block of the paper's scenarios that does not set them."""
        return {k: v for k, v, _ in self.settings}

    def derive(self, name: str, what: str, changes: list[tuple[str, Any, str]]) -> TcpProfile:
        """This profile with ``changes`` replacing (or adding) settings."""
        new = {k: (k, v, why) for k, v, why in changes}
        kept = [new.pop(k, (k, v, why)) for k, v, why in self.settings]
        return TcpProfile(name, what, kept + list(new.values()))

    def note(self) -> str:
        """The profile as one Markdown sentence: each setting, then its source."""
        parts = "; ".join(f"`{k} = {_toml(v)}` ({why})" for k, v, why in self.settings)
        return f"TCP profile `{self.name}`, {self.what}: {parts}"


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


@dataclass(frozen=True)
class Paper:
    key: str  # braud, cardozo, gorinsky, jabeen, theory
    cite: str  # "Braud, Heusse & Duda (2014)"
    title: str
    venue: str = ""
    # The stack the paper's experiments ran: its settings go on every TCP block of the paper's
    # scenarios that does not set them, and the report states them with their sources.
    stack: TcpProfile | None = None

    @property
    def tcp(self) -> dict[str, Any]:
        return self.stack.tcp if self.stack else {}

    @property
    def tcp_note(self) -> str:
        return self.stack.note() if self.stack else ""


@dataclass
class Data:
    """What an analysis reads: each sweep's tables (this profile's points only)."""

    item: str
    profile: str
    sweeps: dict[str, Any]  # name -> bufferlab.store.Tables
    seeds: list[int]

    def table(self, sweep: str, name: str) -> pd.DataFrame:
        """Table ``name`` of sweep ``sweep`` with its swept columns joined on."""
        return self.sweeps[sweep].with_params(name)


@dataclass
class Output:
    """An analysis's result: the figure, the data it plots, one sample per seed per claim."""

    figure: Any  # matplotlib Figure
    plotted: pd.DataFrame
    samples: dict[str, list[float] | None]
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class Item:
    name: str  # "braud/alpha"
    paper: Paper
    where: str  # "§II, eqs. 1–7"
    title: str
    claims: list[ClaimSpec]
    assumptions: list[str]
    spec: str | None = None  # file in specs/
    analyze: Callable[[Data], Output] | None = None
    needs: str | None = None  # not yet reproducible: what the engine lacks
    discussion: str = ""  # Markdown: what we found, and why a claim does or does not hold
    # For each claim that does not hold (by id): in one sentence, what separates ours from the
    # paper's (the mechanism, the open parameter, the cause of two modes), or "not identified:"
    # with what has been ruled out. The page lists it beside the row; a test asks one of every
    # claim the page says does not hold.
    misses: dict[str, str] = field(default_factory=dict)
    # Turns an item-specific table of a sweep (one the item's module documents) into sweep keys,
    # for values a plain grid cannot spell (per-pair delay lists); called on every sweep.
    expand: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    @property
    def runnable(self) -> bool:
        return self.needs is None and self.spec is not None and self.analyze is not None

    def spec_text(self) -> str:
        return resources.files(__package__).joinpath("specs", self.spec).read_text()

    def sweeps(self, profile: str, seeds: int | None = None) -> dict[str, dict[str, Any]]:
        """The item's sweep specs (dicts for ``load_spec``) for ``profile``; ``seeds`` overrides
        the profile's seed count."""
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, not {profile!r}")
        doc = tomllib.loads(self.spec_text())
        prof = doc.get("profiles", {}).get(profile, {})
        n = seeds if seeds is not None else prof.get("seeds", MIN_SEEDS[profile])
        out = {}
        for name, sweep in doc["sweep"].items():
            s = copy.deepcopy(sweep)
            if "base" not in s and "base" in doc:
                s["base"] = copy.deepcopy(doc["base"])  # the item's shared scenario
            s["name"] = f"{self.name}:{name}"
            s["seeds"] = n
            s["set"] = {**s.get("set", {}), **prof.get("set", {}), **prof.get("sweep", {}).get(name, {}).get("set", {})}
            for k, v in prof.get("sweep", {}).get(name, {}).items():
                if k not in ("set", "grid"):  # an item-specific table: the profile's keys win
                    s[k] = {**s.get(k, {}), **v} if isinstance(v, dict) else v
            grid = s.get("grid", {})
            for k, v in {**prof.get("grid", {}), **prof.get("sweep", {}).get(name, {}).get("grid", {})}.items():
                if k in grid:
                    grid[k] = v
            if grid:
                s["grid"] = grid
            zips = s.get("zip")
            if isinstance(zips, dict):
                zips = [zips]
            for z in zips or []:
                for k, v in prof.get("zip", {}).items():
                    if k in z:
                        # a zipped group is shortened as a whole: every key keeps the same indexes
                        idx = [z[k].index(x) for x in v]
                        for kk in z:
                            z[kk] = [z[kk][i] for i in idx]
            if zips is not None:
                s["zip"] = zips
            if self.expand is not None:
                s = self.expand(s)
            # Traffic is the base's, or a whole list a sweep's `set` puts in its place.
            for block in [*s.get("base", {}).get("traffic", []), *s.get("set", {}).get("traffic", [])]:
                if isinstance(block, dict) and block.get("kind") in TCP_KINDS:
                    for k, v in self.paper.tcp.items():
                        block.setdefault(k, v)
            out[name] = s
        return out


ITEMS: dict[str, Item] = {}


def register(item: Item) -> Item:
    if item.name in ITEMS:
        raise ValueError(f"reproduction {item.name} registered twice")
    ITEMS[item.name] = item
    return item


def get(name: str) -> Item:
    try:
        return ITEMS[name]
    except KeyError:
        raise KeyError(f"no reproduction {name!r}; `bufferlab reproduce` lists them: {', '.join(ITEMS)}") from None


def specs_dir() -> Path:
    return Path(str(resources.files(__package__).joinpath("specs")))
