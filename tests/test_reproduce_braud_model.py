"""Braud, Heusse & Duda (2014) §II, eqs. 1-7, against values worked by hand from the paper's text."""

import pytest
from bufferlab.reproduce import braud_model as m


def test_section1_example_buffer_drain():
    # §I: 50 packets of 1500 B on a 400 kb/s uplink take 1.5 s to send
    assert m.drain_time(50, 1500, 400e3) == pytest.approx(1.5)


def test_eq7_tenfold_delay_cut_costs_15_percent():
    # §II-D: 1500 B segments, 29 B UDP packets (1 B payload): "the delay may be decreased by a
    # factor 10 at the cost of 15% of capacity": 1 / (1 + (1500/29)/9) = 0.1482
    assert m.udp_overhead(10, 1500, 29) == pytest.approx(0.1482, abs=5e-4)
    assert round(m.udp_overhead(10, 1500, 29), 2) == 0.15
    assert m.udp_overhead(1, 1500, 29) == 0.0


def test_size_ratios_of_the_text():
    # "the size ratio is then 52 to 1" (29 B), and 18 to 1 for a minimal Ethernet frame (64 + 20 B)
    assert round(1500 / 29) == 52
    assert round(1500 / (64 + 20)) == 18


def test_eq6_matching_tcp_rate_halves_delay():
    # "matching this rate will halve queueing delay": R_U = R_T gives alpha = 2, and eq. 6 inverts eq. 5
    r_t = m.tcp_packet_rate(854e3 / 8, 1500)  # Table I's uplink, 1500 B segments: 71.17 pkt/s
    assert r_t == pytest.approx(71.1667, rel=1e-4)
    assert m.udp_rate_for(2, r_t) == pytest.approx(r_t)
    assert m.alpha(r_t, m.udp_rate_for(3.7, r_t)) == pytest.approx(3.7)


def test_table1_rate_predicts_the_measured_cut():
    # Table I: 125 pkt/s of UDP on 854 kb/s: alpha = 1 + 125/71.17 = 2.756; the paper measured
    # 346/124 = 2.79 (IP sizes); on the ATM wire (1696 B per segment) R_T = 62.94 and alpha = 2.986
    assert m.alpha(m.tcp_packet_rate(854e3 / 8, 1500), 125) == pytest.approx(2.756, abs=1e-3)
    assert m.alpha(m.tcp_packet_rate(854e3 / 8, 1696), 125) == pytest.approx(2.986, abs=1e-3)
    assert 346 / 124 == pytest.approx(2.79, abs=5e-3)


def test_eq1_to_eq5_growth_ratio():
    # Table II's uplink (800 kb/s, 100 kB/s): TCP sends 1% faster than the link drains (congestion
    # avoidance), 250 pkt/s of 29 B UDP. Eq. 1: dQ_T = 0.6667 pkt/s; eq. 4 (D_U << D_T) gives
    # exactly alpha = (250 + 67.33)/67.33 = 4.713 times that; eq. 2 (exact S, eq. 3) differs since
    # D_U = 7.25 kB/s is not negligible against 100 kB/s: it drains 250 x 29 B of capacity.
    c_u, s_t, s_u, r_u = 100e3, 1500.0, 29.0, 250.0
    r_t = 1.01 * c_u / s_t
    dq_t = m.queue_growth_tcp(r_t, c_u, s_t, 1.0)
    assert dq_t == pytest.approx(0.6667, abs=1e-4)
    approx = m.queue_growth_tcp_udp_approx(r_t, s_t, r_u, c_u, 1.0)
    assert approx / dq_t == pytest.approx(m.alpha(r_t, r_u)) == pytest.approx(4.713, abs=1e-3)
    s = m.mean_packet_size(r_t, s_t, r_u, s_u)
    assert s == pytest.approx((250 * 29 + 67.333 * 1500) / 317.333, rel=1e-4)
    exact = m.queue_growth_tcp_udp(r_t, s_t, r_u, s_u, c_u, 1.0)
    assert exact == pytest.approx(317.333 - 100e3 / s, rel=1e-4)
    # with a negligible UDP byte rate, eq. 2 tends to eq. 4
    tiny = m.queue_growth_tcp_udp(r_t, s_t, r_u, 0.001, c_u, 1.0)
    assert tiny == pytest.approx(approx, rel=1e-3)


def test_eqs_5_to_7_are_the_engines():
    # one copy of each equation: the reproduction's model calls the ballast's (Rust) closed forms
    from bufferlab import _core

    for a in (1.5, 2.0, 10.0):
        assert m.udp_overhead(a, 1500, 29) == _core.ballast_overhead_share(a, 1500, 29)
        assert m.udp_rate_for(a, 70.0) == _core.ballast_rate_for_reduction(70.0, a)
    assert m.alpha(70.0, 35.0) == _core.ballast_reduction_for_rate(70.0, 35.0) == 1.5
    # the engine's reading below α = 1: no UDP rate removes delay it would add
    assert m.udp_rate_for(0.5, 70.0) == 0.0
