"""Ware, Mukerjee, Seshan & Sherry (2019) §4: the closed-form share of one BBR flow against
loss-based flows, against its defining balance and values worked by hand."""

import pytest
from bufferlab.reproduce.bbr import MIN_RTT_WIN_S, PKT_BITS, PROBE_RTT_S, RATE_BPS, RTT_S, ware_share

C = RATE_BPS / PKT_BITS  # 833.3 packets/s
BDP = C * RTT_S  # 36.67 packets


def loss_share(x: float, n: int = 1) -> float:
    """p backed out of ware_share: its PROBE_RTT factor divided off."""
    q = x * BDP
    return 1 - ware_share(x, n) / (1 - (q / C + PROBE_RTT_S + RTT_S) / MIN_RTT_WIN_S)


@pytest.mark.parametrize("x", [2.0, 4.0, 8.0, 16.0, 32.0])
@pytest.mark.parametrize("n", [1, 2])
def test_the_in_flight_cap_meets_bbrs_share_of_the_pipe(x, n):
    # eq. 8 = BBR's share of what is in flight: 2 (1 - p) c ((p q + 4N)/c + l) = (1 - p)(q + c l)
    p, q = loss_share(x, n), x * BDP
    assert 2 * (1 - p) * C * ((p * q + 4 * n) / C + RTT_S) == pytest.approx((1 - p) * (q + BDP), rel=1e-9)


def test_worked_values():
    # 4 BDP: q = 146.7 packets, p = 1/2 - 1/8 - 4/146.7 = 0.3477; PROBE_RTT costs
    # (0.176 + 0.2 + 0.044)/10 = 4.2% of the time: BBR's fraction 0.6523 * 0.958 = 0.6249
    assert ware_share(4.0) == pytest.approx(0.6249, abs=1e-4)
    # The simple model of §4.1 (q >> c l, one flow): p -> 1/2, BBR's queue share one half
    assert loss_share(1e6) == pytest.approx(0.5, abs=1e-5)
    # One BDP: the cap exceeds the pipe (p < 0, clamped): BBR takes all but PROBE_RTT's cost
    assert ware_share(1.0) == pytest.approx(1 - (RTT_S + PROBE_RTT_S + RTT_S) / MIN_RTT_WIN_S)
    # The share falls as the buffer grows, and more BBR flows take more in aggregate
    assert ware_share(2.0) > ware_share(8.0) > ware_share(32.0)
    assert ware_share(8.0, 4) > ware_share(8.0, 1)
