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

# The kernel backend (Linux only; see docs/kernel-backend.md).

KERNEL_FLOW_PORT_BASE: int

class KernelNet:
    """The plan's network between one namespace per host; the driver runs on its own thread."""

    def __init__(self, plan_json: str, hosts: list[tuple[int, str, list[tuple[str, str]], list[tuple[int, str]]]]) -> None: ...
    def hosts(self) -> list[tuple[int, str, str, str]]:
        """(node id, name, namespace, address) of every host."""
    def start(self, t0_ns: int, duration_ns: int, spin_ns: int = 0) -> None: ...
    def elapsed(self) -> float: ...
    def running(self) -> bool: ...
    def stop(self) -> None: ...
    def finish(self) -> dict[str, Any]:
        """As ``run()``, plus ``"driver"``: packet counts and delivery lateness."""
    def close(self) -> None: ...

def kernel_preflight() -> str | None:
    """What the machine lacks for the kernel backend (one line), or None."""

def kernel_cleanup() -> list[str]:
    """Remove namespaces left by runs killed with SIGKILL; their names."""

def kernel_node_addr(id: int) -> str: ...
def kernel_rtt_distribution(samples_ns: list[int]) -> tuple[float | None, float | None, float | None, list[float], list[float]]:
    """RTT samples in the simulator's histogram: (mean, p50, p99 in s, CDF values in s, CDF fractions)."""
