"""Draws from the plan's distributions (the engine's forms) for the kernel plan's start times of
bulk, UDP, ping and ballast blocks: the same laws as the simulator's, the kernel run's own draws
(web and on/off flows play the simulator's own: kernel/plan.py). Standard library only."""

from __future__ import annotations

import math
import random
from typing import Any


def sample(d: dict[str, Any], rng: random.Random) -> float:
    """One draw of a plan distribution (the engine's forms; same law, the kernel's own draws)."""
    kind = d["dist"]
    if kind == "const":
        return d["value"]
    if kind == "exp":
        return rng.expovariate(1.0 / d["mean"]) if d["mean"] > 0 else 0.0
    if kind == "uniform":
        return rng.uniform(d["lo"], d["hi"])
    if kind == "pareto":
        a = d["shape"]
        return d["mean"] * (a - 1) / a * rng.paretovariate(a)
    if kind == "lognormal":
        m, s = d["mean"], d["sd"]
        sigma2 = math.log(1 + (s / m) ** 2)
        return rng.lognormvariate(math.log(m) - sigma2 / 2, math.sqrt(sigma2))
    if kind == "zipf":
        ks = range(1, int(d["max"]) + 1)
        return rng.choices(ks, weights=[k ** -d["s"] for k in ks])[0] * d["unit"]
    raise ValueError(f"unknown distribution {kind!r}")
