"""`bufferlab compare`'s rows from fake results (no root, no kernel): timeouts beside
retransmits, per-run values of each side, the --json form, and the kernel's TCP_INFO layout."""

import json
import struct

import pandas as pd
from rich.console import Console

from bufferlab.kernel import agent
from bufferlab.kernel.compare import FLOW_METRICS, compare_results, comparison_json, print_comparison
from bufferlab.kernel.merge import _timeouts


class Fake:
    """What compare_results reads of a Result: ``summary`` and ``distributions``."""

    def __init__(self, goodput: float, retrans: int, timeouts: int | None, sojourn: float = 0.01, util: float = 0.99):
        self.summary = {
            "flows": [{"id": "tcp-1", "goodput_bps": goodput, "rtt_mean_s": 0.05, "rtt_p50_s": 0.05, "rtt_p99_s": 0.08,
                       "retransmits": retrans, "timeouts": timeouts}],
            "queues": [{"link": "r1->r2", "sojourn_mean_s": sojourn, "occupancy_mean_pkts": 5.0, "dropped": retrans},
                       {"link": "r2->r1", "sojourn_mean_s": 0.0, "occupancy_mean_pkts": 0.0, "dropped": 0}],
            "links": [{"link": "r1->r2", "utilization": util}, {"link": "r2->r1", "utilization": 0.0}],
        }
        self.distributions = pd.DataFrame({
            "object": ["flow"] * 3, "id": ["tcp-1"] * 3, "metric": ["rtt_s"] * 3,
            "value": [0.04, 0.05, 0.09], "cdf": [0.05, 0.5, 1.0],
        })


def _row(rows, table, ident, metric):
    return next(r for r in rows if (r["table"], r["id"], r["metric"]) == (table, ident, metric))


def test_timeouts_beside_retransmits():
    assert FLOW_METRICS.index("timeouts") == FLOW_METRICS.index("retransmits") + 1
    rows = compare_results([Fake(9e6, 10, 2), Fake(9e6, 20, 4)], [Fake(8e6, 30, 1), Fake(8e6, 50, 3)])
    t = _row(rows, "flows", "tcp-1", "timeouts")
    assert (t["sim"], t["kernel"]) == (3.0, 2.0)
    assert t["sim_values"] == [2, 4] and t["kernel_values"] == [1, 3]
    assert abs(t["rel_diff"] - (2 - 3) / 3) < 1e-12
    r = _row(rows, "flows", "tcp-1", "retransmits")
    assert (r["sim"], r["kernel"], r["sim_values"], r["kernel_values"]) == (15.0, 40.0, [10, 20], [30, 50])
    # Idle directions stay out; the CDF percentiles have per-run values too.
    assert not [r for r in rows if r["id"] == "r2->r1"]
    p10 = _row(rows, "distributions", "tcp-1", "rtt_p10_s")
    assert p10["sim_values"] == [0.05, 0.05] and p10["kernel_values"] == [0.05, 0.05]


def test_timeouts_missing_on_one_side():
    # A kernel without tcpi_total_rto reports None: the mean is the simulator's alone, no difference.
    rows = compare_results([Fake(9e6, 10, 2)], [Fake(8e6, 30, None)])
    t = _row(rows, "flows", "tcp-1", "timeouts")
    assert t["sim"] == 2.0 and t["kernel"] is None and t["rel_diff"] is None and t["kernel_values"] == [None]


def test_json_one_record_per_row():
    rows = compare_results([Fake(9e6, 10, 2)], [Fake(8e6, 30, 1)])
    lines = comparison_json(rows).splitlines()
    assert len(lines) == len(rows)
    recs = [json.loads(x) for x in lines]
    assert all(set(r) == {"table", "id", "metric", "sim", "kernel", "rel_diff", "sim_values", "kernel_values"} for r in recs)
    g = next(r for r in recs if r["metric"] == "goodput_bps")
    assert g["sim_values"] == [9e6] and g["kernel_values"] == [8e6] and abs(g["rel_diff"] + 1 / 9) < 1e-12
    # The table still prints, timeouts included.
    con = Console(record=True, width=200)
    print_comparison(rows, con, title="t")
    assert "timeouts" in con.export_text()


def test_tcp_info_layout():
    # include/uapi/linux/tcp.h (6.7+): 248 bytes to tcpi_total_rto_time; tcpi_total_rto (u16) at byte 240.
    assert agent.TCP_INFO_LEN == 248
    fields = struct.Struct(agent.TCP_INFO_FMT)
    raw = bytearray(fields.size)
    struct.pack_into("=I", raw, 8 + 23 * 4, 77)  # tcpi_total_retrans
    struct.pack_into("=H", raw, 240, 5)  # tcpi_total_rto
    v = fields.unpack(bytes(raw))
    assert v[8 + 23] == 77 and v[agent.TCPI_TOTAL_RTO] == 5


def test_timeouts_counted_in_the_window():
    assert _timeouts({"rto_at": [(1e9, 1), (6e9, 2), (7e9, 4), (21e9, 5)]}, 5.0, 20.0) == 3
    assert _timeouts({"rto_at": []}, 5.0, 20.0) == 0
    assert _timeouts({}, 5.0, 20.0) is None


def test_simulator_rtt_quantiles_read_the_kernels_probe():
    # A simulator run that sampled its SRTT (run.sample): its TCP RTT quantiles come from that
    # series inside the measurement window, as the kernel's come from tcpi_rtt every 10 ms; a run
    # without the series keeps every sample's quantiles.
    sampled = Fake(9e6, 10, 0)
    sampled.summary["run"] = {"measure_s": [1.0, 2.0]}
    t = [0.5] + [1.0 + k / 100 for k in range(100)] + [2.5]
    v = [9.0] + [0.060 + k / 10_000 for k in range(100)] + [9.0]  # outside the window: left out
    sampled.timeseries = pd.DataFrame({"time_s": t, "object": "flow", "id": "tcp-1", "metric": "srtt_s", "value": v})
    rows = compare_results([sampled, Fake(9e6, 10, 0)], [Fake(8e6, 30, 1), Fake(8e6, 30, 1)])
    p99 = _row(rows, "flows", "tcp-1", "rtt_p99_s")
    assert abs(p99["sim_values"][0] - 0.06980) < 1e-4 and p99["sim_values"][1] == 0.08
    assert abs(_row(rows, "flows", "tcp-1", "rtt_p50_s")["sim_values"][0] - 0.06495) < 1e-4
    assert abs(_row(rows, "distributions", "tcp-1", "rtt_p10_s")["sim_values"][0] - 0.06099) < 1e-4
    assert p99["kernel_values"] == [0.08, 0.08]
