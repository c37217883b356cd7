"""Gorinsky, Kantawala & Turner (2005): link buffer sizing."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .claims import ClaimSpec, at_least
from .figures import new_figure, over_seeds
from .item import Data, Item, Output, register
from .papers import GORINSKY

BOTTLENECK = "r1->r2"


def _util(d: Data, sweep: str) -> pd.DataFrame:
    lk = d.table(sweep, "links")
    lk = lk[lk["link"] == BOTTLENECK].copy()
    lk["util_pct"] = lk["utilization"] * 100
    return lk


def _analyze_beta(d: Data) -> Output:
    m = _util(d, "minimal")
    b = _util(d, "bdp")
    agg = over_seeds(m, ["traffic[0].beta"], "util_pct").rename(columns={"traffic[0].beta": "beta"})
    agg["buffer"] = "2 packets"
    ab = over_seeds(b.assign(beta=0.5), ["beta"], "util_pct")
    ab["buffer"] = "BDP"
    plotted = pd.concat([agg, ab], ignore_index=True)
    fig, ax = new_figure()
    labels = ["β = 0.5, 2 pkts", "β = 0.875, 2 pkts", "β = 0.5, BDP"]
    xs = np.arange(3)
    ax[0, 0].bar(xs - 0.2, plotted["mean"], 0.4, yerr=(plotted["mean"] - plotted["lo"]).fillna(0), capsize=3,
                 label="bufferlab (mean, 95% CI)")
    ax[0, 0].bar(xs + 0.2, [75, 94, 100], 0.4, color="C7", label="paper (lower bound)")
    ax[0, 0].set_xticks(xs, labels, fontsize=8)
    ax[0, 0].set(ylabel="bottleneck utilization (%)", ylim=(0, 105), title="§5: AIMD β with a minimal buffer")
    ax[0, 0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return Output(fig, plotted, {
        "beta-0.5": list(m[m["traffic[0].beta"] == 0.5]["util_pct"]) or None,
        "beta-0.875": list(m[m["traffic[0].beta"] == 0.875]["util_pct"]) or None,
        "beta-bdp": list(b["util_pct"]) or None,
    })


register(Item(
    name="gorinsky/beta",
    paper=GORINSKY,
    where="§5",
    title="One NewReno flow, 10 Mb/s × 50 ms: utilization with a 2-packet buffer for β = 0.5 and 0.875, "
          "and with a BDP buffer",
    spec="gorinsky-beta.toml",
    analyze=_analyze_beta,
    claims=[
        ClaimSpec("beta-0.5", "§5", "with the minimal buffer NewReno keeps at least 75% utilization", at_least(75), "%"),
        ClaimSpec("beta-0.875", "§5", "β = 0.875 boosts utilization to at least 94%", at_least(94), "%"),
        ClaimSpec("beta-bdp", "§3.1", "a bitrate-delay product of buffer keeps the link fully used", at_least(99), "%"),
    ],
    assumptions=["the minimal buffer is the 2L rule for one input link: 2 packets",
                 "utilization over 20 s to the end of the run", "the flow starts at uniform(0 s, 1 s)"],
))
