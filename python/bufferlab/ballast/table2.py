"""Braud et al. (2013)'s Table II access link as a scenario, at any uplink rate and buffer: the
one scenario the ballast studies (simulator and kernel backend) vary."""

from __future__ import annotations

import copy
from typing import Any


def scenario(
    up_bps: int, limit: int, ballast: dict[str, Any] | None, seed: int, duration_s: int, cc: str = "newreno", warm_s: int | None = None
) -> dict[str, Any]:
    """Table II's access link (52 ms up, 42 ms down) at another uplink rate and buffer; the
    downlink runs at 6.25x the uplink (5 Mb/s for 800 kb/s), with the same buffer."""
    warm = min(50, duration_s // 4) if warm_s is None else warm_s
    doc: dict[str, Any] = {
        "run": {"duration": f"{duration_s}s", "seed": seed, "measure": [f"{warm}s", f"{duration_s}s"]},
        "topology": {
            "template": "access",
            "up": {"rate": f"{up_bps}bps", "delay": "52ms", "queue": {"discipline": "fifo", "limit": f"{limit}pkt"}},
            "down": {"rate": f"{up_bps * 25 // 4}bps", "delay": "42ms", "queue": {"discipline": "fifo", "limit": f"{limit}pkt"}},
        },
        "traffic": [
            {"kind": "tcp", "from": "client", "to": "server", "cc": cc, "start": "uniform(0s,1s)"},
            {"kind": "ping", "from": "client", "to": "server", "interval": "100ms"},
        ],
    }
    if ballast is not None:
        doc["traffic"].append({"kind": "ballast", "from": "client", "to": "server", **copy.deepcopy(ballast)})
    return doc
