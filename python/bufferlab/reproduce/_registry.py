"""The registry of reproductions and what every one of them returns."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

COLUMNS = ["quantity", "case", "paper", "bufferlab", "unit", "claim", "holds"]


@dataclass
class Row:
    """One compared quantity. ``paper`` may be None where the paper gives only a figure;
    ``holds`` says whether our value meets the paper's ``claim`` (a sentence)."""

    quantity: str
    case: str
    paper: float | str | None
    bufferlab: float
    unit: str
    claim: str
    holds: bool


@dataclass
class Reproduction:
    name: str
    paper: str
    what: str
    run: Callable[[int, bool], list[Row]]
    assumptions: list[str] = field(default_factory=list)


REPRODUCTIONS: dict[str, Reproduction] = {}


def register(name: str, paper: str, what: str, assumptions: Iterable[str] = ()) -> Callable:
    def deco(fn: Callable[[int, bool], list[Row]]) -> Callable[[int, bool], list[Row]]:
        REPRODUCTIONS[name] = Reproduction(name, paper, what, fn, list(assumptions))
        return fn

    return deco


def get(name: str) -> Reproduction:
    try:
        return REPRODUCTIONS[name]
    except KeyError:
        raise KeyError(f"no reproduction {name!r}; one of: {', '.join(sorted(REPRODUCTIONS))}") from None


def run_reproduction(name: str, seeds: int = 3, quick: bool = False) -> pd.DataFrame:
    """Run reproduction ``name`` over ``seeds`` seeds (``quick``: shorter runs) as a table."""
    rows = get(name).run(seeds, quick)
    return pd.DataFrame([r.__dict__ for r in rows], columns=COLUMNS)


def mean_over_seeds(run_one: Callable[[int], float], seeds: int) -> float:
    """The mean of a quantity over seeds 1..``seeds``."""
    return statistics.fmean(run_one(s) for s in range(1, seeds + 1))


def set_key(doc: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """Set ``a.b.c`` in a nested dict (creating tables), returning the dict."""
    *head, last = dotted.split(".")
    d = doc
    for k in head:
        d = d.setdefault(k, {})
    d[last] = value
    return doc
