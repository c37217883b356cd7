"""DualPI2's base probability p' in the time series (`base_prob`): the probability its PI
controller sets, which the L queue applies as k·p' (RFC 9332 §2.1) and the C queue as p'²."""

import bufferlab
import pytest

SCENARIO = """
[run]
duration = "30s"
measure = ["10s", "30s"]
sample = "10ms"
seed = 1

[topology]
template = "dumbbell"
pairs = 2
bottleneck = { rate = "50Mbps", delay = "1ms", queue = { discipline = "%s" } }
access = { rate = "1Gbps", delay = "4ms" }

[[traffic]]
kind = "tcp"
from = "s1"
to = "d1"
cc = "prague"

[[traffic]]
kind = "tcp"
from = "s2"
to = "d2"
cc = "cubic"
"""


def _run(discipline: str):
    return bufferlab.run(bufferlab.loads_scenario(SCENARIO % discipline))


def test_the_l_queue_marks_as_often_as_k_times_the_sampled_base_probability():
    r = _run("dualpi2")
    ts = r.timeseries
    p = ts[(ts["metric"] == "base_prob") & (ts["id"] == "r1->r2") & (ts["time_s"] >= 10)]["value"].to_numpy()
    assert len(p) > 1000
    # Without drop_overload p' is capped at 1/k, so k·p' never exceeds 1.
    assert p.min() >= 0.0 and p.max() <= 0.5
    flows = r.flows.set_index("id")
    q = r.queues.set_index("link").loc["r1->r2"]
    # Marks land on Prague's packets only (Cubic is not ECN-capable); the share marked is the time
    # average of k·p' (plus the few step marks of a 1 ms L queue), within 15%. A series of p'² or
    # of k·p' would miss it by a factor of 20 or 2.
    share = q["marked"] / flows.loc["tcp-1", "pkts_sent"]
    assert share == pytest.approx(2 * p.mean(), rel=0.15)
    # The C queue drops Cubic with p'²: of the same order as its loss rate (time against packet
    # weighting keeps them apart by some tens of per cent).
    assert 0.5 < flows.loc["tcp-2", "loss_rate"] / (p**2).mean() < 1.5


def test_no_base_probability_without_dualpi2():
    ts = _run("fifo").timeseries
    assert not (ts["metric"] == "base_prob").any()
    assert (ts["metric"] == "qlen_pkts").any()
