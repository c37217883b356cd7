"""Write the link traces of this folder (Mahimahi's format, docs/links-trace.md).

Each trace lists delivery opportunities, one per line: a time in milliseconds at which the link
may deliver one 1500-byte packet; the trace repeats after its last time. Run
``python scenarios/traces/make_traces.py`` to rewrite them; the same seed gives the same files.

- ``constant-12mbps.trace``: the single line ``1`` (one packet per millisecond, 12 Mbps), the
  example of Mahimahi's traces README.
- ``step-12-3mbps.trace``: 12 Mbps for 5 s, then 3 Mbps for 5 s (one packet every 4 ms).
- ``onoff-12mbps.trace``: 12 Mbps for 500 ms, then nothing until 1 s (a link that comes and goes;
  the opportunity at 1000 ms closes the period).
- ``cellular.trace``: 30 s of a synthetic cellular downlink, from the process below (seed 1).

The cellular process: the capacity changes every 20 ms; its logarithm is an AR(1) process
x[k] = mu + phi (x[k-1] - mu) + sigma e[k] with e[k] standard normal, mu = ln(8 Mbps),
phi = 0.98 and sigma = 0.15 (a stationary spread of sigma / sqrt(1 - phi^2) = 0.75 in the log:
the rate wanders between about a fifth and five times its median over seconds), clamped to
0.3-40 Mbps; in each 20 ms step an outage (no capacity) starts with probability 0.004 and lasts
100-800 ms (uniform). Within a millisecond at rate r the link gets a Poisson number of
opportunities of mean r x 1 ms / 12,000 bits, as a saturating sender measures a cellular link
(Winstein et al., "Stochastic Forecasts Achieve High Throughput and Low Delay over Cellular
Networks", NSDI 2013, whose traces Mahimahi ships). The file ends with an opportunity at 30,000 ms,
its period.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
MTU_BITS = 1500 * 8
SEED = 1


def write(name: str, times_ms: list[int]) -> None:
    (HERE / name).write_text("".join(f"{t}\n" for t in times_ms))


def poisson(rng: random.Random, lam: float) -> int:
    """A Poisson draw (Knuth's method; lam is small here)."""
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def cellular(rng: random.Random, seconds: int = 30) -> list[int]:
    step_ms, mu, phi, sigma = 20, math.log(8e6), 0.98, 0.15
    x, outage_left = mu, 0
    out: list[int] = []
    for k in range(seconds * 1000 // step_ms):
        x = mu + phi * (x - mu) + sigma * rng.gauss(0.0, 1.0)
        rate = min(max(math.exp(x), 0.3e6), 40e6)
        if outage_left == 0 and rng.random() < 0.004:
            outage_left = rng.randint(100, 800)
        for ms in range(k * step_ms + 1, (k + 1) * step_ms + 1):
            if outage_left > 0:
                outage_left -= 1
                continue
            out += [ms] * poisson(rng, rate * 1e-3 / MTU_BITS)
    end = seconds * 1000
    out = [t for t in out if t < end] + [end]
    return out


def main() -> None:
    write("constant-12mbps.trace", [1])
    write("step-12-3mbps.trace", list(range(1, 5001)) + list(range(5004, 10001, 4)))
    write("onoff-12mbps.trace", list(range(1, 501)) + [1000])
    write("cellular.trace", cellular(random.Random(SEED)))


if __name__ == "__main__":
    main()
