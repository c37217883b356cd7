"""Høiland-Jørgensen, Täht & Morton (2018): CAKE's shaper moves the bottleneck off a bloated modem.

``cake/adsl`` puts the ADSL line (Braud, Heusse & Duda (2014), Table I) behind a home
router and compares the router's egress queue: FIFO and FQ-CoDel (unshaped: the queue stays in
the modem), CAKE shaped at the nominal ATM rate without overhead compensation, and CAKE shaped
at 97% of it with `atm` and the line's 16 B of AAL5/LLC overhead (the paper's §III-E and
tc-cake(8)'s overhead keywords).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .claims import ClaimSpec, at_least, at_most
from .figures import new_figure, per_seed, ratio_by_seed
from .item import Data, Item, Output, register
from .papers import CAKE

QUEUES = ("fifo", "fq_codel", "cake-nominal", "cake-atm")
LABELS = {"fifo": "FIFO", "fq_codel": "FQ-CoDel", "cake-nominal": "CAKE\nnominal", "cake-atm": "CAKE 97%\natm + 16 B"}
SWEPT = "link[1].queue"
UPLINK_BPS = 854e3
# A 1500 B packet is 32 ATM cells on the line: 1696 B, 15.9 ms at 854 kb/s.
MTU_WIRE_MS = 32 * 53 * 8 / UPLINK_BPS * 1e3
# CAKE's target at 828 kb/s (Linux cake_set_rate): 1.5 MTU times of 1514 B, above the 5 ms default.
CAKE_TARGET_MS = 1.5 * 1514 * 8 / 828e3 * 1e3


def _label(v) -> str:
    s = json.dumps(v) if isinstance(v, dict) else str(v)
    if "cake" in s:
        return "cake-atm" if "atm" in s else "cake-nominal"
    return "fq_codel" if "fq_codel" in s else "fifo"


def _flows(d: Data, sweep: str) -> pd.DataFrame:
    f = d.table(sweep, "flows")
    f = f.copy()
    f["queue"] = f[SWEPT].map(_label) if SWEPT in f.columns else "fifo"
    return f


def _rtt(d: Data, sweep: str) -> dict[str, dict[int, float]]:
    """The ping's mean RTT (ms) by router queue and seed."""
    f = _flows(d, sweep)
    p = f[f["kind"] == "ping"]
    return {q: {s: v * 1e3 for s, v in per_seed(g, "rtt_mean_s").items()} for q, g in p.groupby("queue")}


def _download(d: Data, sweep: str) -> dict[str, dict[int, float]]:
    """The download's goodput (b/s) by router queue and seed."""
    f = _flows(d, sweep)
    t = f[(f["kind"] == "tcp") & (f["src"] == "server")]
    return {q: per_seed(g, "goodput_bps") for q, g in t.groupby("queue")}


def _minus(a: dict[int, float], b: dict[int, float]) -> list[float]:
    return [a[s] - b[s] for s in sorted(set(a) & set(b))]


def _analyze(d: Data) -> Output:
    idle = _rtt(d, "idle")["fifo"]
    up = _rtt(d, "up")
    both = _rtt(d, "both")
    alone = _download(d, "down")["fifo"]
    down = _download(d, "both")
    rows = []
    for q in QUEUES:
        for load, rtt in (("upload", up), ("upload + download", both)):
            v = _minus(rtt.get(q, {}), idle)
            rows.append({"queue": q, "load": load, "added_rtt_ms": float(np.mean(v)) if v else float("nan")})
        share = ratio_by_seed(down.get(q, {}), alone)
        rows.append({"queue": q, "load": "download share", "added_rtt_ms": float("nan"),
                     "download_share": float(np.mean(share)) if share else float("nan")})
    plotted = pd.DataFrame(rows)
    fig, ax = new_figure(2, w=3.6)
    xs = np.arange(len(QUEUES))
    for i, load in enumerate(("upload", "upload + download")):
        sel = plotted[plotted["load"] == load]
        ax[0, 0].bar(xs + (i - 0.5) * 0.4, sel["added_rtt_ms"], 0.4, label=f"under {load}")
    ax[0, 0].set_yscale("log")
    ax[0, 0].set_xticks(xs, [LABELS[q] for q in QUEUES], fontsize=6)
    ax[0, 0].set_ylabel("ping RTT above idle (ms)")
    ax[0, 0].axhline(CAKE_TARGET_MS + MTU_WIRE_MS, color="k", lw=0.8, ls=":", label="CAKE target + 1 MTU on the line")
    ax[0, 0].legend(fontsize=6, loc="lower left", framealpha=0.9)
    sh = plotted[plotted["load"] == "download share"]
    ax[0, 1].bar(xs, sh["download_share"], 0.6, color="C2")
    ax[0, 1].set_xticks(xs, [LABELS[q] for q in QUEUES], fontsize=6)
    ax[0, 1].set_ylim(0, 1.05)
    ax[0, 1].set_ylabel("download goodput vs upload / alone", fontsize=8)
    fig.suptitle("ADSL 854/3815 kb/s (30/60-packet modem buffers) behind the router's queue", fontsize=9)
    fig.tight_layout()
    samples = {
        "idle": list(idle.values()),
        "cake-atm-up": _minus(up.get("cake-atm", {}), idle),
        "fifo-up": _minus(up.get("fifo", {}), idle),
        "fq_codel-up": _minus(up.get("fq_codel", {}), idle),
        "cake-nominal-up": _minus(up.get("cake-nominal", {}), idle),
        "cake-atm-down": ratio_by_seed(down.get("cake-atm", {}), alone),
    }
    return Output(fig, plotted, samples)


register(Item(
    name="cake/adsl",
    paper=CAKE,
    where="§III-E (overhead compensation), §IV (home gateway)",
    title="CAKE on the router in front of Braud et al.'s ADSL modem (Table I: 854/3815 kb/s ATM, 30/60-packet buffers): "
          "ping RTT under an upload, and the download's share against it, for FIFO, FQ-CoDel, CAKE at the "
          "nominal rate without compensation, and CAKE at 97% with atm + 16 B overhead",
    spec="cake-adsl.toml",
    analyze=_analyze,
    claims=[
        ClaimSpec("idle", "§IV", "the idle RTT: 2 × 15 ms of line delay plus a ping's serialization",
                  at_most(40), "ms"),
        ClaimSpec("cake-atm-up", "§III-E", "shaped just under the line's rate with its ATM framing accounted, the "
                  f"queue stays in CAKE: the RTT under an upload stays within CAKE's target ({CAKE_TARGET_MS:.1f} ms at "
                  f"this rate) plus one MTU on the line ({MTU_WIRE_MS:.1f} ms) of idle",
                  at_most(CAKE_TARGET_MS + MTU_WIRE_MS), "ms above idle"),
        ClaimSpec("fifo-up", "§I (bufferbloat)", "without a shaper the modem's 30-packet FIFO fills: hundreds of ms "
                  "(30 × 15.9 ms = 477 ms full; at least 200 ms, over 12 full packets waiting)", at_least(200),
                  "ms above idle"),
        ClaimSpec("fq_codel-up", "§I", "FQ-CoDel on the router's 100 Mb/s egress never holds a queue: the modem's FIFO "
                  "does, as with FIFO (at least 200 ms)", at_least(200), "ms above idle"),
        ClaimSpec("cake-nominal-up", "§III-E", "shaping at the nominal rate without overhead compensation charges a "
                  "1500 B packet 1514 B against 1696 B on the line: CAKE sends 12% too fast, the queue moves back into "
                  "the modem and latency rises as without a shaper (at least 200 ms)", at_least(200), "ms above idle"),
        ClaimSpec("cake-atm-down", "§IV", "behind CAKE the download's ACKs are a sparse flow and pass the upload, "
                  "and the shaper takes only 3% of the uplink: the download keeps its rate alone (within 5%)",
                  at_least(0.95), "× alone"),
    ],
    discussion=(
        "Shaped at 97% of the line with `atm` and the line's own 16 B of AAL5/LLC overhead, CAKE charges each "
        "packet exactly the cells the modem sends, so the modem's queue stays empty and the upload's standing "
        "queue is CAKE's, where the ping, a sparse flow, passes it: the ping's RTT rises by about one packet "
        "on the line and one shaper slot (8 ms), not by the modem's buffer. The same CAKE at the nominal "
        "854 kb/s without compensation counts a 1500 B packet as 1514 B against 1696 B on the line, lets 12% "
        "more through than the line carries, and the queue is back in the modem, as behind FIFO or an "
        "unshaped FQ-CoDel, whose queue on the router's 100 Mb/s egress never forms. The download keeps its "
        "rate behind CAKE (its ACKs are a sparse flow); with these Cubic hosts and Linux-sized windows it also "
        "keeps it behind FIFO (0.98 of its rate alone), unlike Braud et al.'s NewReno hosts (2.80 of 3.26 "
        "Mb/s, braud/table1): a window that covers the inflated RTT hides the ACKs' wait. Under an upload "
        "and a download together the ping's RTT is dominated by the downlink's unshaped 60-packet buffer "
        "(the figure's second bars), which an ingress CAKE would be needed to remove."
    ),
    assumptions=[
        "the line as braud/table1: 854 kb/s up and 3815 kb/s down at the ATM layer, AAL5/LLC framing "
        "(16 B, then 48 B per 53 B cell), 15 ms one way, 30 packets up and 60 down in the modem",
        "a router between the client and the modem, 100 Mb/s Ethernet to the modem; its egress to the "
        "modem is the queue compared",
        "CAKE otherwise at Linux's defaults (diffserv3, triple-isolate, rtt 100 ms, target 5 ms); "
        "nothing shapes the download (no ingress CAKE)",
        "Cubic on both hosts, one upload and one download, each starting at uniform(0 s, 1 s); a ping "
        "every 100 ms from the client",
    ],
))
