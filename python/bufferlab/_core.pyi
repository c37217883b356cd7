"""Type stubs for the engine extension (crates/bufferlab-py)."""

from collections.abc import Callable
from typing import Any

__version__: str

def run(plan_json: str, progress: Callable[[float, int], Any] | None = None) -> dict[str, Any]:
    """Run a plan (JSON). Returns ``{"summary": <JSON str>, "timeseries": {col: list},
    "transfers": {col: list}, "distributions": {col: list}}``.

    Raises :class:`PlanError` for plan problems, ``RuntimeError`` for engine failures,
    ``KeyboardInterrupt`` when interrupted. The GIL is released while the
    engine runs; ``progress(sim_seconds, events)`` is called about every 0.2 s of wall time.
    """

Loc = list[str | int]

class PlanError(ValueError):
    """A plan the engine refuses: ``args[0]`` the problems as text, ``args[1]`` as
    ``[(loc, message)]`` with ``loc`` the key path from the plan's root (keys and indices)."""

class Prepared:
    """A plan checked and built once."""

    def estimate(self) -> str:
        """What running it costs, as JSON: ``flows``, ``packets`` (created), ``link_packets``
        (transmissions over all links), ``busiest_link``, ``busiest_link_packets``, ``events``,
        ``wall_s`` and the ``events_per_s`` it assumes."""

    def run(self, progress: Callable[[float, int], Any] | None = None, capture_dir: str | None = None) -> dict[str, Any]:
        """Run it (once); as :func:`run`."""

def prepare(plan_json: str) -> Prepared:
    """Check and build a plan; :class:`PlanError` with its problems."""

def check(plan_json: str) -> list[tuple[Loc, str]]:
    """Every problem with a plan as ``(loc, message)``; empty when it can run."""

def workload_draws(plan_json: str, limit: int) -> list[dict[str, Any]]:
    """Each TCP flow's workload draws in a run of the plan, at most ``limit`` transfers a flow:
    ``flow``, ``id``, ``kind``, ``src``, ``dst``, ``start_ns``, ``sizes_bytes``, ``arrivals_ns``
    (web), ``idles_ns`` (on/off), ``complete``; :class:`PlanError` as a build would."""

def name_list(names: list[str]) -> str:
    """Names for a message: numbered runs folded (``s1..s100``), past twenty items the rest counted."""

def plan_schema() -> str:
    """The plan's JSON Schema (as JSON): every key's type, bounds, default and doc line."""

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
    def start(self, t0_ns: int, duration_ns: int, spin_ns: int = 0, capture_dir: str | None = None) -> None: ...
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

def ballast_rate_for_reduction(tcp_pps: float, alpha: float) -> float:
    """Braud et al. eq. 6: R_U = R_T (α − 1), the UDP rate dividing the queueing delay by α (0 for α ≤ 1)."""

def ballast_reduction_for_rate(tcp_pps: float, udp_pps: float) -> float:
    """Eq. 5: α = 1 + R_U / R_T (infinite for R_T ≤ 0)."""

def ballast_overhead_share(alpha: float, tcp_bytes: float, udp_bytes: float) -> float:
    """Eq. 7: OH_U = 1 / (1 + (S_T / S_U) / (α − 1)), the UDP stream's share of the bytes (0 for α ≤ 1)."""

def kernel_rtt_distribution(samples_ns: list[int]) -> tuple[float | None, float | None, float | None, list[float], list[float]]:
    """RTT samples in the simulator's histogram: (mean, p50, p99 in s, CDF values in s, CDF fractions)."""
