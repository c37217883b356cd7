"""Seed 004 (Jabeen et al. — SplitBuff): short- vs long-RTT flows at one buffer."""

from __future__ import annotations

from .. import run
from ._registry import Row, register


def two_flows(queue: dict, seed: int, quick: bool) -> dict:
    dur = 80 if quick else 200
    return {
        "run": {"duration": f"{dur}s", "seed": seed, "measure": ["30s" if quick else "50s", f"{dur}s"]},
        "topology": {
            "template": "dumbbell",
            "pairs": 2,
            "bottleneck": {"rate": "100Mbps", "delay": "1ms", "queue": queue},
            "access": {"rate": "1Gbps", "delay": ["2ms", "247ms"]},
        },
        "traffic": [{"kind": "tcp", "from": "senders", "to": "receivers", "cc": "newreno", "sack": True, "mss": "960B"}],
    }


CASES = [
    ("SplitBuff", {"discipline": "splitbuff", "buffers": 2, "sizing": "bdp"}),
    ("Blind-SplitBuff", {"discipline": "blind_splitbuff", "sizing": "bdp"}),
    ("FIFO", {"discipline": "fifo", "sizing": "bdp"}),
]


@register(
    "jabeen/splitbuff",
    "Jabeen, Zafar, Qazi, Uzmi — SplitBuff (seed 004), Figs. 4-6",
    "A 10 ms and a 990 ms RTT NewReno flow share a 100 Mb/s bottleneck with one BDP of buffer",
    ["1 KB packets (MSS 960 B + 40 B), SACK on", "BDP from the mean round-trip propagation of the two flows"],
)
def reproduce(seeds: int, quick: bool) -> list[Row]:
    rows = []
    for label, q in CASES:
        ratios, rtts = [], []
        for s in range(1, seeds + 1):
            fl = {f["id"]: f for f in run(two_flows(q, s, quick)).summary["flows"]}
            short, long_ = fl["tcp-1"], fl["tcp-2"]
            ratios.append(short["goodput_bps"] / max(long_["goodput_bps"], 1.0))
            rtts.append(short["rtt_mean_s"] * 1e3)
        ratio, rtt = sum(ratios) / seeds, sum(rtts) / seeds
        if label == "SplitBuff":
            rows.append(Row("goodput short / long", label, 1.0, ratio, "x", "both flows get about the same throughput", ratio < 1.5))
            rows.append(Row("short flow RTT", label, 10.0, rtt, "ms", "the short flow's RTT stays near its propagation time", rtt < 60))
        else:
            rows.append(Row("goodput short / long", label, None, ratio, "x", "the short flow takes most of the link", ratio > 1.5))
            rows.append(Row("short flow RTT", label, None, rtt, "ms", "hundreds of ms of queueing for the short flow", rtt > 100))
    return rows
