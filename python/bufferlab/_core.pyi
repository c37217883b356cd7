"""Type stubs for the engine extension (crates/bufferlab-py)."""

from collections.abc import Callable
from typing import Any

__version__: str

def run(plan_json: str, progress: Callable[[float, int], Any] | None = None) -> dict[str, Any]:
    """Run a plan (JSON). Returns ``{"summary": <JSON str>, "timeseries": {col: list},
    "transfers": {col: list}, "distributions": {col: list}}``.

    Raises ``ValueError`` (one ``"path: message"`` per line) for plan problems, ``RuntimeError``
    for engine failures, ``KeyboardInterrupt`` when interrupted. The GIL is released while the
    engine runs; ``progress(sim_seconds, events)`` is called about every 0.2 s of wall time.
    """

def check(plan_json: str) -> list[str]:
    """Every problem with a plan, as ``"path: message"`` strings; empty when it can run."""

def estimate(plan_json: str) -> str:
    """Check a plan and estimate its cost: JSON with ``flows``, ``packets`` (created),
    ``link_packets`` (transmissions over all links), ``busiest_link``, ``busiest_link_packets``,
    ``events``, ``wall_s`` and the ``events_per_s`` it assumes. ``ValueError`` for plan problems.
    """

def version() -> str:
    """The engine's version."""

def bench(name: str, seconds: float) -> str:
    """Run a built-in benchmark for ``seconds`` of simulated time; its figures as JSON."""

def bench_names() -> list[str]:
    """Names of the built-in benchmarks."""
