"""The ballast in the simulator: what it buys and costs on Braud et al. (2013)'s Table II link,
and the automatic controller across uplink rates and buffer sizes.

    python -m bufferlab.ballast.study --out runs/ballast [--seeds 3] [--quick]

writes ``table2.csv`` (no ballast, fixed rates, bursts, auto on the Table II link),
``auto.csv`` (the controller over a grid of uplink rates and buffers) and ``auto.png``.
Every run starts its upload at a random time in the first second; numbers are means over seeds.
The same study with real Linux uploads on the kernel backend is ``bufferlab.kernel.ballast_study``.
"""

from __future__ import annotations

import argparse
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..units import format_rate_bps
from .table2 import scenario

UP_RATES_BPS = [256_000, 800_000, 2_000_000, 5_000_000, 20_000_000]
BUFFERS_PKTS = [20, 50, 120, 200]
TABLE2_MODES: list[tuple[str, dict[str, Any] | None]] = [
    ("none", None),
    ("fixed 100 pps", {"rate": "100pps"}),
    ("fixed 250 pps", {"rate": "250pps"}),
    ("fixed 500 pps", {"rate": "500pps"}),
    ("fixed 750 pps", {"rate": "750pps"}),
    ("bursts 80 @ 250 pps / 1 s", {"rate": "250pps", "burst": {"packets": 80, "every": "1s"}}),
    ("auto", {"auto": True}),
]


def _one(job: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    from ..simulate import run

    labels, doc = job
    flows = {f["kind"]: f for f in run(doc).summary["flows"]}
    b = flows.get("ballast", {})
    return {
        **labels,
        "goodput_bps": flows["tcp"]["goodput_bps"],
        "rtt_s": flows["ping"]["rtt_mean_s"],
        "ballast_pkts": b.get("pkts_sent", 0),
    }


def _run_all(jobs: list[tuple[dict[str, Any], dict[str, Any]]], workers: int):
    import pandas as pd

    with ProcessPoolExecutor(max_workers=workers) as ex:
        return pd.DataFrame(list(ex.map(_one, jobs, chunksize=4)))


def table2(seeds: int, duration_s: int, workers: int):
    jobs = [
        ({"mode": name, "seed": s}, scenario(800_000, 120, b, s, duration_s))
        for name, b in TABLE2_MODES
        for s in range(1, seeds + 1)
    ]
    df = _run_all(jobs, workers).groupby("mode", sort=False).mean(numeric_only=True).drop(columns="seed")
    base = df.loc["none"]
    df["rtt_cut_x"] = base["rtt_s"] / df["rtt_s"]
    df["goodput_cost"] = 1 - df["goodput_bps"] / base["goodput_bps"]
    return df.reset_index()


def auto_grid(seeds: int, duration_s: int, workers: int):
    jobs = [
        ({"up_bps": r, "limit_pkts": q, "mode": mode, "seed": s}, scenario(r, q, b, s, duration_s))
        for r in UP_RATES_BPS
        for q in BUFFERS_PKTS
        for mode, b in (("none", None), ("auto", {"auto": True}))
        for s in range(1, seeds + 1)
    ]
    df = _run_all(jobs, workers)
    m = df.groupby(["up_bps", "limit_pkts", "mode"]).mean(numeric_only=True).drop(columns="seed").unstack("mode")
    out = m["goodput_bps"].rename(columns=lambda c: f"goodput_{c}_bps")
    out = out.join(m["rtt_s"].rename(columns=lambda c: f"rtt_{c}_s"))
    out["rtt_cut_x"] = out["rtt_none_s"] / out["rtt_auto_s"]
    out["goodput_cost"] = 1 - out["goodput_auto_bps"] / out["goodput_none_bps"]
    return out.reset_index()


def draw(grid, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for r, g in grid.groupby("up_bps"):
        label = format_rate_bps(r)
        a.plot(g["limit_pkts"], g["rtt_cut_x"], marker="o", label=label)
        b.plot(g["limit_pkts"], 100 * g["goodput_cost"], marker="o", label=label)
    a.axhline(2, color="grey", lw=0.8, ls="--")
    a.set(xlabel="uplink buffer (packets)", ylabel="ping RTT without / with auto ballast", title="RTT cut")
    b.axhline(20, color="grey", lw=0.8, ls="--")
    b.set(xlabel="uplink buffer (packets)", ylabel="upload goodput cost (%)", title="cost (max share 20%)")
    b.set_ylim(bottom=min(0, 100 * grid["goodput_cost"].min() - 1))
    a.legend(title="uplink", fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bufferlab.ballast.study", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--duration", type=int, default=200, help="simulated seconds per run")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    a = p.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    t2 = table2(a.seeds, a.duration, a.jobs)
    t2.to_csv(a.out / "table2.csv", index=False)
    grid = auto_grid(a.seeds, a.duration, a.jobs)
    grid.to_csv(a.out / "auto.csv", index=False)
    draw(grid, a.out / "auto.png")
    import pandas as pd

    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.float_format", "{:.3f}".format):
        print(t2.to_string(index=False))
        print(grid.to_string(index=False))


if __name__ == "__main__":
    main()
