"""The l4s/dualpi2 item's arithmetic: base delays of its path, Prague's RTT-independent rate ratio
(tcp_prague.c's 25 ms target), the trace names of its bursty hop and the per-run table."""

from pathlib import Path

import pandas as pd
import pytest
from bufferlab.reproduce import l4s


def test_base_delays_of_the_path():
    # 20 ms of propagation (2 x (8.5 + 0.5 + 1) ms); a 1500 B packet takes 12 us at 1 Gb/s,
    # 120 us at 100 Mb/s, 240 us at 50 Mb/s; a 52 B ACK 0.416 + 4.16 + 8.32 us
    assert l4s.serialization_ms(1500) == pytest.approx(0.372)
    assert l4s.base_owd_ms(8.5) == pytest.approx(10.372)
    assert l4s.base_rtt_ms(8.5) == pytest.approx(20.372 + 0.012896)
    # 1000 packets of 1500 B at 50 Mb/s
    assert l4s.fifo_full_ms() == pytest.approx(240.0)


def test_times_and_burst_periods():
    assert l4s.to_ms("8.5ms") == 8.5 and l4s.to_ms("250us") == 0.25 and l4s.to_ms("1s") == 1000.0
    with pytest.raises(ValueError):
        l4s.to_ms("fast")
    assert l4s.burst_ms("100Mbps") == 0.0
    assert l4s.burst_ms("trace(/x/specs/l4s-burst-4ms.trace)") == 4.0


def test_prague_rate_ratio_follows_its_rtt_target():
    # Below the 25 ms target a flow runs as a 25 ms flow: 10 vs 160 ms gives 160/25, not 16
    assert l4s.prague_rate_ratio(10.0, 160.0) == pytest.approx(6.4)
    # both above the target: plain 1/RTT
    assert l4s.prague_rate_ratio(30.0, 60.0) == pytest.approx(2.0)
    # both below: equal rates
    assert l4s.prague_rate_ratio(5.0, 20.0) == pytest.approx(1.0)


def test_expand_points_the_trace_at_the_file_beside_the_spec():
    s = l4s.expand({"grid": {"link[2].rate": ["100Mbps", "trace(l4s-burst-4ms.trace)"]}, "set": {"x": 1}})
    plain, trace = s["grid"]["link[2].rate"]
    assert plain == "100Mbps"
    path = Path(trace[len("trace("):-1])
    assert path.is_absolute() and path.is_file()
    assert path.read_text().split() == ["4"] * 34  # 34 packets every 4 ms: 102 Mb/s
    assert s["set"] == {"x": 1}


def test_coexist_table():
    # One DualPI2 run at 20 ms: Prague 30 Mb/s, 0.5 ms of queue one way; Cubic 15 Mb/s, 15 ms
    owd0, rtt0 = l4s.base_owd_ms(8.5) / 1e3, l4s.base_rtt_ms(8.5) / 1e3
    f = pd.DataFrame({
        "seed": [1, 1], "src": ["s1", "s2"], "cc": ["prague", "cubic"], "access": ["8.5ms", "8.5ms"],
        "link[3].queue.discipline": ["dualpi2", "dualpi2"], "goodput_bps": [30e6, 15e6],
        "owd_mean_s": [owd0 + 0.5e-3, owd0 + 15e-3], "rtt_mean_s": [rtt0 + 0.6e-3, rtt0 + 15e-3],
        "rtt_p50_s": [rtt0 + 0.5e-3, rtt0 + 14e-3], "rtt_p99_s": [rtt0 + 2e-3, rtt0 + 25e-3],
        "retransmits": [0, 30], "ce_received": [4000, 0],
    })
    links = pd.DataFrame({"seed": [1], "link[3].queue.discipline": ["dualpi2"], "link[0].delay": ["8.5ms"],
                          "utilization": [0.99]})
    t = l4s.coexist_table(f, links)
    assert len(t) == 1
    row = t.iloc[0]
    assert row["rtt_ms"] == 20.0 and row["aqm"] == "dualpi2"
    assert row["ratio"] == pytest.approx(2.0) and row["prague_share"] == pytest.approx(2 / 3)
    assert row["prague_q_mean"] == pytest.approx(0.5) and row["cubic_q_mean"] == pytest.approx(15.0)
    assert row["prague_q_p50"] == pytest.approx(0.5) and row["cubic_q_p99"] == pytest.approx(25.0)
    assert row["utilization"] == 0.99
