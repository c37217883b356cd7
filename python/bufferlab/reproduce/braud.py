"""Seed 000 (Braud, Heusse, Duda — TCP over large buffers): Table II."""

from __future__ import annotations

import copy

from .. import run
from ._registry import Row, register

# Table II's setup (the same as scenarios/braud-table2.toml).
TABLE2 = {
    "run": {"duration": "200s", "seed": 1, "measure": ["50s", "150s"]},
    "topology": {
        "template": "access",
        "up": {"rate": "800kbps", "delay": "52ms", "queue": {"discipline": "fifo", "limit": "120pkt"}},
        "down": {"rate": "5Mbps", "delay": "42ms", "queue": {"discipline": "fifo", "limit": "120pkt"}},
    },
    "traffic": [
        {"kind": "tcp", "from": "client", "to": "server", "cc": "newreno"},
        {"kind": "udp", "from": "client", "to": "server", "rate": "250pps", "size": "29B"},
        {"kind": "ping", "from": "client", "to": "server", "interval": "100ms"},
    ],
}

# FreeBSD 9.1's default send buffer (net.inet.tcp.sendspace = 32768): the paper's hosts were
# window-limited, which is why its RTT without UDP is 280 ms and not the 1.9 s a full 120-packet
# uplink buffer would give.
FREEBSD_SNDBUF = "32KiB"


def table2(udp: bool, sndbuf: str | None, seed: int, quick: bool) -> dict:
    sc = copy.deepcopy(TABLE2)
    sc["run"]["seed"] = seed
    if quick:
        sc["run"].update(duration="80s", measure=["30s", "80s"])
    if not udp:
        sc["traffic"] = [t for t in sc["traffic"] if t["kind"] != "udp"]
    if sndbuf:
        sc["traffic"][0]["sndbuf"] = sndbuf
    return sc


@register(
    "braud/table2",
    "Braud, Heusse, Duda — TCP over Large Buffers: When Adding Traffic Improves Latency (seed 000), Table II",
    "One TCP upload over an 800 kb/s uplink with a 120-packet buffer, with and without a 250 pkt/s stream of 29 B UDP packets",
    [
        "RTT is the mean of 10 pings per second client -> server over 50-150 s",
        f"the 'FreeBSD hosts' case limits the sender's buffer to {FREEBSD_SNDBUF} (FreeBSD 9.1 default sendspace); "
        "the default case has no such limit",
    ],
)
def reproduce(seeds: int, quick: bool) -> list[Row]:
    rows: list[Row] = []
    paper = {False: (770.0, 100.0, 280.0), True: (657.0, 85.0, 113.7)}
    for label, sndbuf in (("unlimited window", None), ("FreeBSD hosts", FREEBSD_SNDBUF)):
        got = {}
        for udp in (False, True):
            def one(seed: int, udp=udp) -> tuple[float, float, float]:
                s = run(table2(udp, sndbuf, seed, quick)).summary
                tcp = next(f for f in s["flows"] if f["kind"] == "tcp")
                ping = next(f for f in s["flows"] if f["kind"] == "ping")
                up = next(l for l in s["links"] if l["link"] == "client->server")
                return tcp["goodput_bps"] / 1e3, up["utilization"] * 100, ping["rtt_mean_s"] * 1e3

            vals = [one(s) for s in range(1, seeds + 1)]
            got[udp] = tuple(sum(v[i] for v in vals) / len(vals) for i in range(3))
        for udp in (False, True):
            case = f"{label}, {'with' if udp else 'without'} UDP"
            g, u, r = got[udp]
            pg, pu, pr = paper[udp]
            rows.append(Row("TCP goodput", case, pg, g, "kb/s", "near the uplink rate", g > 500))
            rows.append(Row("uplink utilization", case, pu, u, "%", "TCP keeps the uplink busy", u > 80))
            rows.append(Row("RTT", case, pr, r, "ms", "-", True))
        ratio = got[False][2] / got[True][2]
        rows.append(Row("RTT without / with UDP", label, 280 / 113.7, ratio, "x",
                        "adding the UDP stream divides the RTT several-fold", ratio > 2.0))
        loss = 1 - got[True][0] / got[False][0]
        rows.append(Row("goodput lost to UDP", label, (770 - 657) / 770 * 100, loss * 100, "%",
                        "at the cost of a slight loss in throughput", loss < 0.3))
    return rows
