"""bufferlab: a deterministic packet-level network simulator for router-buffer research.

    import bufferlab
    r = bufferlab.run("scenarios/udp-fifo.toml")
    r.flows[["id", "goodput_bps", "rtt_mean_s"]]
    r.queues[["link", "sojourn_mean_s", "dropped"]]
    r.write("out/udp-fifo")

A scenario (TOML file or dict) is checked and expanded in Python (:mod:`bufferlab.scenario`),
then run by the Rust engine (``bufferlab._core``) in one call; the results come back as a
:class:`~bufferlab.results.Result`.
"""

from __future__ import annotations

from typing import Any

from .errors import BufferlabError, EngineError, LongRunError, Problem, ScenarioError
from .results import Result
from .scenario import Scenario, load_scenario, loads_scenario, validate
from .simulate import engine_version, prepare_plan, run, run_plan, run_prepared

__all__ = [
    "run",
    "run_plan",
    "prepare_plan",
    "run_prepared",
    "load_scenario",
    "loads_scenario",
    "validate",
    "Scenario",
    "Result",
    "Problem",
    "ScenarioError",
    "EngineError",
    "LongRunError",
    "BufferlabError",
    "engine_version",
    "__version__",
]


def _version() -> str:
    # importlib.metadata costs 70 ms to import, a fifth of the command line's start: read on use.
    from importlib import metadata

    try:
        return metadata.version("bufferlab")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0.0.0+unknown"


_LAZY = {"load": "store", "query": "store", "aggregate": "sweep", "run_sweep": "sweep", "run_seeds": "seeds",
         "plot": None}


def __getattr__(name: str) -> Any:
    """Sweeps, the results store and plots load on first use (they import DuckDB, matplotlib)."""
    if name == "__version__":
        return _version()
    if name not in _LAZY:
        raise AttributeError(f"module 'bufferlab' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    return module if _LAZY[name] is None else getattr(module, name)
