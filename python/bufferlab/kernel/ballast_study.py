"""The ballast on the kernel backend: real Linux Reno and Cubic uploads through Braud et al.
(2013)'s Table II link, with the real tool (``bufferlab ballast``) in the client's namespace.

    nice -n -5 python -m bufferlab.kernel.ballast_study --out DIR [--seeds 3] [--duration 60]
        [--only table|quiet]

Needs root (the kernel backend). For each congestion control and seed: no ballast, 250 pkt/s
continuous, bursts of 80 at 250 pkt/s every second, and ``--auto``; the upload starts at a random
time in the first second and the window runs from 10 s to the end. Then, per congestion control
and seed, a sized upload (2 MB) with ``--auto`` to see how soon the ballast goes quiet once the
upload has finished. Writes ``kernel-runs.csv`` (every run), ``kernel-table.csv`` (means per
congestion control and mode), ``kernel-quiet.csv``, ``kernel-machine.txt`` and prints the table
and the issue's four checks, met or not, with the measured numbers. The simulator's side of the
study is ``bufferlab.ballast.study``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

from ..ballast.table2 import scenario

MODES: list[tuple[str, dict[str, Any] | None]] = [
    ("none", None),
    ("250 pps", {"rate": "250pps"}),
    ("bursts 80 @ 250 pps / 1 s", {"rate": "250pps", "burst": {"packets": 80, "every": "1s"}}),
    ("auto", {"auto": True}),
]
CCS = tuple(os.environ.get("BUFFERLAB_CCS", "newreno cubic").split())
WARM_S = 10
QUIET_SIZE = os.environ.get("BUFFERLAB_QUIET_SIZE", "2MB")
QUIET_DURATION_S = int(os.environ.get("BUFFERLAB_QUIET_S", "40"))


def _run(doc: dict[str, Any]):
    from ..scenario import load_scenario
    from .run import run_kernel

    return run_kernel(load_scenario(doc))


def one(cc: str, mode: str, ballast: dict[str, Any] | None, seed: int, duration_s: int) -> dict[str, Any]:
    r = _run(scenario(800_000, 120, ballast, seed, duration_s, cc=cc, warm_s=WARM_S))
    flows = {f["kind"]: f for f in r.summary["flows"]}
    b = flows.get("ballast", {})
    return {
        "cc": cc, "mode": mode, "seed": seed,
        "goodput_bps": flows["tcp"]["goodput_bps"],
        "rtt_s": flows["ping"]["rtt_mean_s"],
        "tcp_rtt_s": flows["tcp"]["rtt_mean_s"],
        "ballast_pkts": b.get("pkts_sent", 0),
        "lateness_p99_s": r.summary["kernel"]["driver"].get("lateness_p99_s"),
    }


def quiet(cc: str, seed: int) -> dict[str, Any]:
    """How long after the upload's last byte the automatic ballast's last packet arrives, and
    when its controller first decided on rate 0."""
    doc = scenario(800_000, 120, {"auto": True}, seed, QUIET_DURATION_S, cc=cc, warm_s=0)
    doc["traffic"][0]["size"] = QUIET_SIZE
    r = _run(doc)
    flows = {f["kind"]: f for f in r.summary["flows"]}
    tcp = flows["tcp"]
    b = r.summary["kernel"]["ballast"]["ballast-1"]
    done = tcp.get("completion_time_s")
    row = {"cc": cc, "seed": seed, "upload_end_s": None, "ballast_last_s": b["last_arrival_s"], "quiet_after_s": None, "zero_decision_after_s": None}
    if done is not None:
        end = tcp["start_s"] + done
        row["upload_end_s"] = end
        if b["last_arrival_s"] is not None:
            row["quiet_after_s"] = max(0.0, b["last_arrival_s"] - end)
        zero = [t / 1e9 for t, _, rate in b["decisions"] if rate == 0 and t / 1e9 >= end]
        row["zero_decision_after_s"] = zero[0] - end if zero else None
    return row


def machine() -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("model name")), "?")
    return (
        f"{platform.node()}: Linux {platform.release()}, {os.cpu_count()} x {cpu}, "
        f"load average {os.getloadavg()[0]:.1f} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def summarize(runs, quiets) -> tuple[Any, list[str]]:
    """Means per (cc, mode) with the cut and cost against no ballast, and the four checks."""
    df = runs.groupby(["cc", "mode"], sort=False).mean(numeric_only=True).drop(columns="seed").reset_index()
    checks: list[str] = []
    for cc, g in df.groupby("cc", sort=False):
        g = g.set_index("mode")
        base = g.loc["none"]
        cut = base["rtt_s"] / g["rtt_s"]
        cost = 1 - g["goodput_bps"] / base["goodput_bps"]
        df.loc[df.cc == cc, "rtt_cut_x"] = df.loc[df.cc == cc, "mode"].map(cut).values
        df.loc[df.cc == cc, "goodput_cost"] = df.loc[df.cc == cc, "mode"].map(cost).values
        cont, burst, auto = "250 pps", "bursts 80 @ 250 pps / 1 s", "auto"
        ok = cut[cont] >= 2 and cost[cont] <= 0.2
        checks.append(f"{cc}: 250 pps cuts the RTT {cut[cont]:.2f}x for {100 * cost[cont]:.1f}% of goodput (target >= 2x for <= 20%): {'met' if ok else 'NOT met'}")
        fewer = g.loc[cont, "ballast_pkts"] / max(g.loc[burst, "ballast_pkts"], 1)
        share = (base["rtt_s"] - g.loc[burst, "rtt_s"]) / (base["rtt_s"] - g.loc[cont, "rtt_s"])
        ok = fewer >= 3 and share >= 0.8
        checks.append(f"{cc}: bursts send {fewer:.2f}x fewer packets for {100 * share:.0f}% of the continuous cut (target >= 3x for >= 80%): {'met' if ok else 'NOT met'}")
        fixed = [m for m in (cont, burst) if m in g.index]
        best = min(fixed, key=lambda m: g.loc[m, "rtt_s"])
        within = g.loc[auto, "rtt_s"] / g.loc[best, "rtt_s"] - 1
        ok = within <= 0.25 and cost[auto] <= cost[best] + 1e-9
        checks.append(
            f"{cc}: auto {1e3 * g.loc[auto, 'rtt_s']:.0f} ms for {100 * cost[auto]:.1f}% vs best fixed ({best}) {1e3 * g.loc[best, 'rtt_s']:.0f} ms "
            f"for {100 * cost[best]:.1f}% (target within 25% at no more cost): {'met' if ok else 'NOT met'}"
        )
    q = quiets.dropna(subset=["quiet_after_s"])
    worst = q["quiet_after_s"].max() if len(q) else float("nan")
    checks.append(
        f"auto quiet after the upload ends: {', '.join(f'{x:.2f}' for x in q['quiet_after_s'])} s over {len(q)} of {len(quiets)} runs "
        f"(target <= 2 s): {'met' if len(q) == len(quiets) and worst <= 2 else 'NOT met'}"
    )
    return df, checks


def study(out: Path, seeds: int, duration_s: int, only: str | None = None) -> None:
    """Every run (or with ``only``, just the ``table`` runs or the ``quiet`` runs, the other
    part's results read back from ``out``), then the table and the checks."""
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    (out / f"kernel-machine{'-' + only if only else ''}.txt").write_text(machine() + "\n")
    rows, qrows = [], []
    for cc in CCS:
        for seed in range(1, seeds + 1):
            if only in (None, "table"):
                for mode, b in MODES:
                    rows.append(one(cc, mode, b, seed, duration_s))
                    print(rows[-1], flush=True)
                pd.DataFrame(rows).to_csv(out / "kernel-runs.csv", index=False)
            if only in (None, "quiet"):
                qrows.append(quiet(cc, seed))
                print(qrows[-1], flush=True)
                pd.DataFrame(qrows).to_csv(out / "kernel-quiet.csv", index=False)
    runs = pd.DataFrame(rows) if rows else pd.read_csv(out / "kernel-runs.csv")
    quiets = pd.DataFrame(qrows) if qrows else pd.read_csv(out / "kernel-quiet.csv")
    table, checks = summarize(runs, quiets)
    table.to_csv(out / "kernel-table.csv", index=False)
    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.float_format", "{:.3f}".format):
        print(table.to_string(index=False))
        print(quiets.to_string(index=False))
    print("\n".join(checks))
    (out / "kernel-checks.txt").write_text("\n".join(checks) + "\n")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bufferlab.kernel.ballast_study", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--duration", type=int, default=60, help="seconds per run, in real time")
    p.add_argument("--only", choices=("table", "quiet"), help="only the table's runs or only the runs that stop the upload")
    a = p.parse_args(argv)
    study(a.out, a.seeds, a.duration, a.only)


if __name__ == "__main__":
    main()
