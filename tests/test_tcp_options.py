"""Every TCP option the engine accepts can be written in a scenario, and reaches the engine."""

import json

import bufferlab


SCENARIO = {
    "run": {"duration": "2s"},
    "topology": {
        "template": "access",
        "up": {"rate": "10Mbps", "delay": "10ms"},
        "down": {"rate": "10Mbps", "delay": "10ms"},
    },
    "traffic": [
        {
            "kind": "tcp", "from": "client", "to": "server", "cc": "vegas", "sack": False, "prr": False, "frto": True, "badrxt_undo": False, "rack": False, "dsack": False, "ssthresh_from": "flight", "cwnd_unit": "byte", "abc_limit": 2, "grow_by_delivered": True, "timestamps": False, "ecn": True, "delayed_ack": True,
            "delack": "100ms", "beta": 0.7, "initial_window": 4, "min_rto": "300ms", "max_rto": "30s",
            "initial_rto": "3s", "rto_floor": "total", "rtt_samples": "one_per_rtt",
            "sndbuf_auto": True, "sndbuf_inc": "16KB", "sndbuf_max": "4MB",
            "rwnd_auto": False, "rwnd_inc": "32KB", "rwnd_max": "2MB",
            "mss": "1000B", "rwnd": "1MB", "sndbuf": "2MB", "handshake": True, "vegas_alpha": 2,
            "vegas_beta": 4, "vegas_gamma": 1, "cubic_c": 0.4, "cubic_beta": 0.8, "cubic_fast_convergence": False, "cubic_alpha_switch": True, "cubic_hystart": False,
            "pacing": True, "pacing_ss_ratio": 150, "pacing_ca_ratio": 110,
            "tsq": True, "limit_output": "1MB", "gso": True, "min_tso_segs": 3, "rto_rearm": True, "tlp": False, "cwnd_latch": False, "quickack": False, "comp_sack": True, "comp_sack_delay": "500us", "push_ack": True, "window_quickack": True, "sack_rtt": False, "grow_below_rwnd": True, "accecn": True, "prague_rtt_target": "10ms", "prague_rtt_transition": 100,
        }
    ],
}


def engine_tcp_keys() -> set[str]:
    """The TCP options the engine declares (its plan schema)."""
    from bufferlab import _core

    return set(json.loads(_core.plan_schema())["$defs"]["TcpOptions"]["properties"])


def test_every_engine_option_is_reachable_from_a_scenario():
    sc = bufferlab.load_scenario(SCENARIO)
    assert set(sc.plan["traffic"][0]["tcp"]) == engine_tcp_keys()
    assert sc.plan["traffic"][0]["tcp"]["delack_ns"] == 100_000_000
    assert sc.plan["traffic"][0]["tcp"]["max_rto_ns"] == 30_000_000_000
    assert sc.plan["traffic"][0]["tcp"]["comp_sack_delay_ns"] == 500_000


def test_scenario_with_every_option_runs():
    r = bufferlab.run(SCENARIO)
    assert r.flows.loc[0, "goodput_bps"] > 1e6


def test_a_pkt_is_a_full_segments_payload():
    # 1448 B with the timestamp option (the default, as Linux), 1460 B without, MSS − 12 B with a
    # smaller MSS: "10pkt" is ten full segments, never an eleventh sliver.
    def plan(**opts):
        block = {"kind": "tcp", "from": "client", "to": "server", "size": "10pkt", "rwnd": "60pkt", **opts}
        return bufferlab.load_scenario({**SCENARIO, "traffic": [block]}).plan["traffic"][0]

    for opts, seg in (({}, 1448), ({"timestamps": False}, 1460), ({"mss": "1000B"}, 988)):
        t = plan(**opts)
        assert (t["size_bytes"], t["tcp"]["rwnd_bytes"]) == (10 * seg, 60 * seg), opts
    r = bufferlab.run({**SCENARIO, "traffic": [{"kind": "tcp", "from": "client", "to": "server", "size": "10pkt"}]})
    assert r.flows.loc[0, "pkts_sent"] == 10 + 2  # ten segments, the SYN and the FIN
