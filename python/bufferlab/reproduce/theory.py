"""Closed forms the engine must meet exactly: M/D/1 waiting time (Pollaczek–Khinchine)."""

from __future__ import annotations

from .. import run
from ._registry import Row, mean_over_seeds, register


def md1_scenario(rho: float, seed: int, duration_s: float) -> dict:
    """Poisson arrivals of 1500 B packets into a 10 Mb/s FIFO at load ``rho``."""
    pps = rho * 10e6 / (1500 * 8)
    return {
        "run": {"duration": f"{duration_s}s", "seed": seed, "measure": ["10s", f"{duration_s}s"]},
        "topology": {
            "template": "access",
            "up": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": "fifo", "limit": "10000pkt"}},
            "down": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": "fifo", "limit": "1000pkt"}},
        },
        "traffic": [
            {"kind": "udp", "from": "client", "to": "server", "rate": f"{pps:.4f}pps", "size": "1500B", "arrivals": "poisson"}
        ],
    }


@register(
    "theory/md1",
    "Pollaczek–Khinchine (Kleinrock, Queueing Systems vol. 1, §5.6)",
    "Mean wait of an M/D/1 queue: W = ρS / (2(1 − ρ)), at four loads",
    ["1500 B packets on a 10 Mb/s link: S = 1.2 ms; 10 000-packet buffer so nothing is dropped"],
)
def md1(seeds: int, quick: bool) -> list[Row]:
    rows = []
    duration = 40 if quick else 120
    service = 1500 * 8 / 10e6
    for rho in (0.3, 0.5, 0.8, 0.9):
        expect = rho * service / (2 * (1 - rho))
        got = mean_over_seeds(
            lambda s: run(md1_scenario(rho, s, duration)).summary["queues"][0]["sojourn_mean_s"], seeds
        )
        # The estimator's own spread: ~3% for one 110 s run at rho 0.8, larger at 0.9 and in quick runs.
        tol = 0.05 if rho < 0.85 else 0.10
        rows.append(
            Row("mean wait", f"rho={rho}", expect * 1e3, got * 1e3, "ms", f"within {tol:.0%} of the closed form",
                abs(got - expect) / expect < tol * (2 if quick else 1))
        )
    return rows
