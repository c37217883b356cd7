"""Claims: what a paper says, what we measured over seeds, and whether it holds.

A claim's tolerance is part of its declaration, written beside the item before anything runs;
the verdict compares the mean over seeds with it. A claim the paper makes only in words gets a
band that says what the words mean ("several-fold" = at least 2×), written in the claim.

A claim whose statistic is the paper's ratio of two averages (``stat = "ratio_of_means"``) is
given (numerator, denominator) pairs per seed and judged on mean(num) / mean(den), as the paper
computed it from its runs. Where the per-seed values fall into two modes, the note says which
and how often (``stats.modes``), and how often an experiment of the paper's own number of runs
(PAPER_RUNS), drawn from our seeds, would have met the claim with the paper's statistic. A claim the paper's own numbers contradict (a load above the
capacity, two numbers no one setting gives) is declared ``inconsistent`` with the arithmetic:
our value is still measured and shown, but there is nothing consistent to hold it to.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .stats import Estimate, describe_modes, estimate, modes, ratio_of_means, resampled_hits

HOLDS, FAILS, NOT_COMPARABLE, INCONSISTENT = "holds", "does not hold", "not comparable", "inconsistent"
# Runs behind each of the papers' figures (Braud et al. §IV-A and Cardozo et al. §V-A: 10 each).
PAPER_RUNS = 10


@dataclass(frozen=True)
class Check:
    """A band the mean must fall in: [lo, hi] (either may be open)."""

    lo: float = -math.inf
    hi: float = math.inf
    text: str = ""

    def holds(self, value: float) -> bool:
        return self.lo <= value <= self.hi


def within(target: float, rel: float | None = None, abs_: float | None = None) -> Check:
    """Within ``rel`` (a fraction) or ``abs_`` of ``target``."""
    d = abs(target) * rel if rel is not None else abs_
    if d is None:
        raise ValueError("within needs rel or abs_")
    text = f"within {rel:.0%} of {target:.4g}" if rel is not None else f"{target:.4g} ± {abs_:.4g}"
    return Check(target - d, target + d, text)


def at_least(x: float) -> Check:
    return Check(lo=x, text=f"≥ {x:.4g}")


def at_most(x: float) -> Check:
    return Check(hi=x, text=f"≤ {x:.4g}")


def between(lo: float, hi: float) -> Check:
    return Check(lo, hi, f"in [{lo:.4g}, {hi:.4g}]")


@dataclass(frozen=True)
class ClaimSpec:
    """One claim of a paper, declared before the run.

    ``id``: short and stable (``T1-delay``); ``where``: table / figure / section; ``paper``: the
    paper's value or its claim in words; ``check``: the tolerance; ``unit`` of our number.
    ``not_comparable``: a reason when our setup cannot speak to the claim. ``inconsistent``: the
    arithmetic that shows the paper's own numbers contradict the claim (the verdict is then
    ``inconsistent`` whatever we measure). ``stat``: ``mean`` (of per-seed values) or
    ``ratio_of_means`` (per-seed (num, den) pairs).
    """

    id: str
    where: str
    paper: str
    check: Check | None
    unit: str = ""
    not_comparable: str | None = None
    inconsistent: str | None = None
    stat: str = "mean"


@dataclass
class ClaimResult:
    item: str
    spec: ClaimSpec
    est: Estimate
    verdict: str
    note: str = ""

    def row(self) -> dict:
        e = self.est
        return {
            "item": self.item,
            "claim": self.spec.id,
            "where": self.spec.where,
            "paper": self.spec.paper,
            "ours_mean": e.mean,
            "ours_ci_lo": e.lo,
            "ours_ci_hi": e.hi,
            "seeds": e.n,
            "unit": self.spec.unit,
            "tolerance": self.spec.check.text if self.spec.check else "",
            "verdict": self.verdict,
            "note": self.note,
        }


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def judge(item: str, spec: ClaimSpec, samples: Iterable | None, note: str = "") -> ClaimResult:
    """The verdict of ``spec`` on per-seed ``samples`` (None: nothing to compare): values, or
    (num, den) pairs for a ``ratio_of_means`` claim."""
    samples = None if samples is None else list(samples)
    if spec.stat == "ratio_of_means":
        est = ratio_of_means(samples or [])
        per_seed = [n / d for n, d in samples or [] if d]
    else:
        est = estimate(samples or [])
        per_seed = samples or []
    two = describe_modes(modes(per_seed))
    if two and spec.check is not None and spec.inconsistent is None:
        hit = resampled_hits(list(samples or []), PAPER_RUNS, spec.check.holds, ratio=spec.stat == "ratio_of_means")
        two += f"; a {PAPER_RUNS}-run experiment drawn from our seeds meets the tolerance {hit:.0%} of the time"
    note = _join(note, two)
    if spec.inconsistent is not None:
        return ClaimResult(item, spec, est, INCONSISTENT, _join(note, spec.inconsistent))
    if spec.not_comparable is not None or samples is None or spec.check is None:
        return ClaimResult(item, spec, est, NOT_COMPARABLE, note or (spec.not_comparable or ""))
    if est.n == 0:
        return ClaimResult(item, spec, est, NOT_COMPARABLE, note or "no sample")
    return ClaimResult(item, spec, est, HOLDS if spec.check.holds(est.mean) else FAILS, note)


def fmt_estimate(e: Estimate) -> str:
    if e.n == 0 or math.isnan(e.mean):
        return "–"
    if math.isnan(e.lo):
        return f"{e.mean:.4g}"
    return f"{e.mean:.4g} [{e.lo:.4g}, {e.hi:.4g}]"
