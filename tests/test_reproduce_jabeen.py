"""Jabeen et al.'s reproduction: the arithmetic its rows quote and the worst-point reduction."""

import math

import pandas as pd
import pytest

from bufferlab.reproduce import jabeen as J


def test_eq1_bounds_quoted_for_the_loss_rates():
    # eq. 1: S = 0.87 MSS / (T sqrt(p)), MSS = 1000 B
    short = 0.87 * 8000 / (0.010 * math.sqrt(0.012))
    long_ = 0.87 * 8000 / (0.99 * math.sqrt(0.2))
    assert short == pytest.approx(6.35e6, rel=1e-3) and long_ == pytest.approx(15.72e3, rel=1e-3)
    assert "6.4 Mb/s" in J.LOSS_INCONSISTENT and "15.7 kb/s" in J.LOSS_INCONSISTENT
    # §II: 990/10 x sqrt(0.2/0.012) ~ 405; eq. 3 at ~230 ms: 1220/240 = 5.1
    assert 990 / 10 * math.sqrt(0.2 / 0.012) == pytest.approx(405, rel=0.01)
    assert (990 + 230) / (10 + 230) == pytest.approx(5.1, abs=0.02)
    # a ratio of 443 on the link's payload rate leaves the long flow 0.22 Mb/s
    assert J.PAYLOAD_MBPS / 444 == pytest.approx(0.2166, rel=1e-3)


def test_worst_point_is_judged_on_its_mean_over_seeds():
    g = pd.DataFrame({
        "n": [2, 2, 10, 10, 100, 100],
        "rttp2_ms": [500.0] * 6,
        "seed": [1, 2] * 3,
        # N = 2: seeds either side of 1 (mean 1.0); N = 10: both low (0.75); N = 100: 1.1
        "x": [0.4, 1.6, 0.7, 0.8, 1.05, 1.15],
    })
    vals, where = J._worst(g, "x", "far")
    assert vals == [0.7, 0.8] and "N = 10, 500 ms" in where
    vals, where = J._worst(g, "x", "max")
    assert vals == [1.05, 1.15] and "N = 100" in where
    assert J._worst(g.assign(x=math.nan), "x", "max") == (None, "")
