"""Seed 001 (Cardozo et al. — On the interoperability of bufferbloat solutions): qdisc x BQL."""

from __future__ import annotations

from .. import run
from ._registry import Row, mean_over_seeds, register


def host(queue: dict, bql: str, seed: int, quick: bool) -> dict:
    dur = 30 if quick else 60
    return {
        "run": {"duration": f"{dur}s", "seed": seed, "measure": ["10s", f"{dur}s"]},
        "topology": {
            "template": "access",
            "up": {"rate": "10Mbps", "delay": "5ms", "queue": queue, "ring": {"size": 512, "bql": bql}},
            "down": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "fifo", "limit": "1000pkt"}},
        },
        "traffic": [
            {"kind": "tcp", "from": "client", "to": "server", "cc": "cubic"},
            {"kind": "ping", "from": "client", "to": "server", "interval": "100ms"},
        ],
    }


CASES = [
    ("FQ-CoDel, BQL auto", {"discipline": "fq_codel"}, "auto", "low"),
    ("CoDel, BQL auto", {"discipline": "codel"}, "auto", "low"),
    ("PIE, BQL auto", {"discipline": "pie"}, "auto", "low"),
    ("FQ-CoDel, BQL off", {"discipline": "fq_codel"}, "off", "high"),
    ("FQ-CoDel, BQL mis-set to 1 MB", {"discipline": "fq_codel"}, "1MB", "high"),
    ("FIFO 1000 packets, BQL auto", {"discipline": "fifo", "limit": "1000pkt"}, "auto", "high"),
]


@register(
    "cardozo/bql",
    "Cardozo, Vieira, Ziviani, Couto da Silva — On the Interoperability of Bufferbloat Solutions (seed 001), Figs. 5-6",
    "RTT under load (ping) from a host whose egress is qdisc -> 512-descriptor ring -> 10 Mb/s wire, one Cubic upload",
    [
        "the paper gives figures, not numbers: we check its claims (low RTT only when BQL keeps the ring short "
        "and an AQM runs above it; hundreds of ms otherwise)",
        "'low' means a mean RTT under 50 ms; 'high' means over 200 ms",
    ],
)
def reproduce(seeds: int, quick: bool) -> list[Row]:
    rows = []
    for label, q, bql, expect in CASES:
        rtt = mean_over_seeds(
            lambda s: next(f for f in run(host(q, bql, s, quick)).summary["flows"] if f["kind"] == "ping")["rtt_mean_s"],
            seeds,
        ) * 1e3
        ok = rtt < 50 if expect == "low" else rtt > 200
        rows.append(Row("ping RTT", label, None, rtt, "ms", f"RTT under load is {expect}", ok))
    return rows
