"""Points whose seeds all ran the same: a scenario that draws nothing at random (every flow started
at a fixed time, no random traffic) gives the same run at every seed, and its "distribution" over
seeds is one sample repeated, with an interval of zero width. Found in the stored flows and said
after a sweep (and by `bufferlab run --seeds`), so that a band of zero width is not read as
certainty."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["same_at_every_seed", "SAME_SEEDS_ADVICE"]

# What to change, in the words of the scenario file.
SAME_SEEDS_ADVICE = ("nothing in the scenario is drawn at random, so its seeds are one run repeated, not a "
                     "distribution; give the flows random starts (start = \"uniform(0s, 1s)\") or random traffic")

# The flows' figures compared between seeds: a run that differs in anything moves at least one.
COMPARED = ["goodput_bps", "bytes_delivered", "pkts_sent", "pkts_dropped", "rtt_mean_s"]


def same_at_every_seed(flows: "pd.DataFrame") -> list[str]:
    """The ``point_id`` of every point with two seeds or more whose flows' figures are the same
    at every seed (``flows``: a results store's flows table, or a run's with ``point_id`` and
    ``seed`` columns), in order of first appearance."""
    if flows.empty or not {"point_id", "seed", "id"} <= set(flows.columns):
        return []
    cols = [c for c in COMPARED if c in flows.columns]
    out = []
    for pid, g in flows.groupby("point_id", sort=False):
        if g["seed"].nunique() < 2:
            continue
        # Each seed's flows as one row of values, in flow order; the point ran the same when
        # every seed's row is the first seed's.
        per_seed = g.sort_values(["seed", "id"], kind="stable").groupby("seed")[cols]
        # (a figure a flow has none of, such as a datagram flow's RTT, compared as -1)
        rows = [tuple(v.astype(float).fillna(-1.0).to_numpy().ravel().tolist()) for _, v in per_seed]
        if all(r == rows[0] for r in rows[1:]):
            out.append(str(pid))
    return out
