"""A closed form the engine must meet: the M/D/1 mean wait (Pollaczek–Khinchine)."""

from __future__ import annotations

import numpy as np

from .claims import ClaimSpec, within
from .figures import errorbars, new_figure, over_seeds
from .item import Data, Item, Output, register
from .papers import KLEINROCK

SERVICE = 1500 * 8 / 10e6  # 1.2 ms
RHOS = {"250pps": 0.3, "416.6667pps": 0.5, "666.6667pps": 0.8, "750pps": 0.9}


def pk_wait(rho: float) -> float:
    """W = ρS / (2(1 − ρ)) for deterministic service S (Kleinrock vol. 1, eq. 5.73)."""
    return rho * SERVICE / (2 * (1 - rho))


def _analyze(d: Data) -> Output:
    q = d.table("md1", "queues")
    q = q[q["link"] == "client->server"].copy()
    q["rho"] = q["traffic[0].rate"].map(RHOS)
    q["wait_ms"] = q["sojourn_mean_s"] * 1e3
    agg = over_seeds(q, ["rho"], "wait_ms")
    agg["pk_ms"] = agg["rho"].map(lambda r: pk_wait(r) * 1e3)
    fig, ax = new_figure()
    xs = np.linspace(0.05, 0.92, 100)
    ax[0, 0].plot(xs, [pk_wait(x) * 1e3 for x in xs], "k-", label="Pollaczek–Khinchine")
    errorbars(ax[0, 0], agg, "rho", label="bufferlab (mean, 95% CI)", ls="none", color="C3")
    ax[0, 0].set(xlabel="load ρ", ylabel="mean wait (ms)", title="M/D/1, S = 1.2 ms")
    ax[0, 0].legend(fontsize=8)
    fig.tight_layout()
    samples = {f"md1-{r}": list(q[q["rho"] == r]["wait_ms"]) or None for r in RHOS.values()}
    return Output(fig, agg, samples)


register(Item(
    name="theory/md1",
    paper=KLEINROCK,
    where="M/D/1 mean wait",
    title="Poisson 1500 B packets into a 10 Mb/s FIFO at ρ = 0.3, 0.5, 0.8, 0.9: mean wait against ρS/(2(1 − ρ))",
    spec="theory-md1.toml",
    analyze=_analyze,
    claims=[ClaimSpec(f"md1-{r}", f"ρ = {r}", f"W = {pk_wait(r) * 1e3:.3f} ms",
                      within(pk_wait(r) * 1e3, rel=0.05 if r < 0.85 else 0.10), "ms") for r in RHOS.values()],
    assumptions=["a 10 000-packet buffer so nothing is dropped; the wait is the sojourn before transmission"],
))
