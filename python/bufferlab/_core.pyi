"""Type stubs for the engine extension (crates/bufferlab-py)."""

from collections.abc import Callable
from typing import Any

__version__: str

def run(plan_json: str, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """Run a plan (JSON). Returns ``{"summary": <JSON str>, "timeseries": {col: list},
    "transfers": {col: list}, "distributions": {col: list}}``.

    Raises ``ValueError`` (one ``"path: message"`` per line) for plan problems, ``RuntimeError``
    for engine failures, ``KeyboardInterrupt`` when interrupted. The GIL is released while the
    engine runs; ``progress(sim_seconds)`` is called now and then.
    """

def check(plan_json: str) -> list[str]:
    """Every problem with a plan, as ``"path: message"`` strings; empty when it can run."""

def version() -> str:
    """The engine's version."""

def bench(name: str, seconds: float) -> str:
    """Run a built-in benchmark for ``seconds`` of simulated time; its figures as JSON."""

def bench_names() -> list[str]:
    """Names of the built-in benchmarks."""
