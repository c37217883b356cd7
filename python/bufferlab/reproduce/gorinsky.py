"""Seed 003 (Gorinsky, Kantawala, Turner — Link buffer sizing): utilization with minimal buffers."""

from __future__ import annotations

from .. import run
from ._registry import Row, mean_over_seeds, register


def one_flow(limit: str | dict, beta: float, seed: int, quick: bool) -> dict:
    dur = 60 if quick else 200
    queue = {"discipline": "fifo", **({"limit": limit} if isinstance(limit, str) else limit)}
    return {
        "run": {"duration": f"{dur}s", "seed": seed, "measure": ["20s", f"{dur}s"]},
        "topology": {
            "template": "dumbbell",
            "pairs": 1,
            "bottleneck": {"rate": "10Mbps", "delay": "50ms", "queue": queue},
            "access": {"rate": "20Mbps", "delay": "0.5ms"},
        },
        "traffic": [{"kind": "tcp", "from": "senders", "to": "receivers", "cc": "newreno", "beta": beta}],
    }


@register(
    "gorinsky/beta",
    "Gorinsky, Kantawala, Turner — Link Buffer Sizing: A New Look at the Old Problem (seed 003), §5",
    "One long NewReno flow over a 10 Mb/s, 50 ms bottleneck: utilization with a 2-packet buffer for AIMD beta 0.5 and 0.875, and with a BDP buffer",
    ["the paper's 2L buffer for one input link: 2 packets", "measured over 20 s to the end of the run"],
)
def reproduce(seeds: int, quick: bool) -> list[Row]:
    def util(limit, beta) -> float:
        return mean_over_seeds(
            lambda s: next(l for l in run(one_flow(limit, beta, s, quick)).summary["links"] if l["link"] == "r1->r2")[
                "utilization"
            ],
            seeds,
        ) * 100

    u05, u0875, ubdp = util("2pkt", 0.5), util("2pkt", 0.875), util({"sizing": "bdp"}, 0.5)
    return [
        Row("bottleneck utilization", "2-packet buffer, beta 0.5", 75.0, u05, "%",
            "load oscillates between 100% and at least 50%: at least 75%", u05 >= 72),
        Row("bottleneck utilization", "2-packet buffer, beta 0.875", 94.0, u0875, "%",
            "beta 0.875 boosts utilization to at least 94%", u0875 >= 93),
        Row("bottleneck utilization", "BDP buffer, beta 0.5", 100.0, ubdp, "%",
            "a bitrate-delay product of buffer keeps the link busy", ubdp >= 99),
    ]
