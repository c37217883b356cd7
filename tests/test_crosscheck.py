"""The plan-to-ns-3 translation (what the ns-3 program is told to build), its refusals, the
comparison, and the crosscheck command without ns-3. One test runs ns-3 itself, when it is there."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from conftest import example_path
from typer.testing import CliRunner

from bufferlab.cli import app
from bufferlab.crosscheck import Unsupported, to_ns3
from bufferlab.crosscheck.compare import ALL, records, summarize
from bufferlab.crosscheck.runner import Pair
from bufferlab.crosscheck.translate import flow_ids, path_delay_ns
from bufferlab.scenario import load_scenario

runner = CliRunner()

DUMBBELL = """
[run]
duration = "20s"
measure = ["5s", "20s"]
[topology]
template = "dumbbell"
pairs = 3
[topology.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = QUEUE
[topology.access]
rate = "100Mbps"
delay = "1ms"
[[traffic]]
kind = "tcp"
from = "senders"
to = "receivers"
start = "uniform(0s,1s)"
TCP
"""


def dumbbell(queue: str = '{ discipline = "fifo", limit = "50pkt" }', tcp: str = "", **limits):
    text = DUMBBELL.replace("QUEUE", queue).replace("TCP", tcp)
    return load_scenario(_toml(text))


def _toml(text: str) -> dict:
    import tomllib

    return tomllib.loads(text)


def bottleneck(cfg: dict) -> dict:
    return cfg["links"][0]["forward"]


# ---------------------------------------------------------------- links and queues


def test_dumbbell_links_and_buffer():
    cfg = to_ns3(dumbbell())
    assert cfg["nodes"][:3] == ["s1", "s2", "s3"] and len(cfg["links"]) == 7
    fwd = bottleneck(cfg)
    assert fwd["name"] == "r1->r2" and cfg["links"][0]["reverse"]["name"] == "r2->r1"
    # One packet waits in ns-3's device queue, so the disc holds the rest of the 50.
    assert fwd["device_queue_pkts"] == 1
    assert fwd["qdisc"] == {"type": "ns3::FifoQueueDisc", "attrs": {"MaxSize": "49p"}}
    # The 2 B PPP header is paid for by a faster device: a 1500 B packet takes 1.2 ms, as in bufferlab.
    assert fwd["device_rate_bps"] == pytest.approx(10e6 * 1502 / 1500)
    assert 1502 * 8 / fwd["device_rate_bps"] == pytest.approx(1500 * 8 / 10e6)
    assert fwd["delay_ns"] == 20_000_000 and cfg["links"][1]["forward"]["delay_ns"] == 1_000_000
    assert cfg["measure_ns"] == [5_000_000_000, 20_000_000_000] and cfg["mtu"] == 1500


def test_byte_limit_leaves_one_packet_to_the_device():
    cfg = to_ns3(dumbbell('{ discipline = "fifo", limit = "60000B" }'))
    assert bottleneck(cfg)["qdisc"]["attrs"]["MaxSize"] == f"{60000 - 1500}B"


def test_asymmetric_directions_keep_their_own_rate_and_delay():
    sc = load_scenario(example_path("web-poisson"))
    cfg = to_ns3(sc)
    link = cfg["links"][0]
    assert (link["forward"]["rate_bps"], link["forward"]["delay_ns"]) == (400_000, 52_000_000)
    assert (link["reverse"]["rate_bps"], link["reverse"]["delay_ns"]) == (2_400_000, 42_000_000)
    assert link["forward"]["qdisc"]["attrs"]["MaxSize"] == "59p"


def test_sizing_rule_takes_the_limit_bufferlab_resolved():
    sc = dumbbell('{ discipline = "fifo", sizing = "bdp" }')
    cfg = to_ns3(sc, limits={"r1->r2": {"limit_pkts": 37}, "r2->r1": {"limit_pkts": 37}})
    assert bottleneck(cfg)["qdisc"]["attrs"]["MaxSize"] == "36p"
    assert bottleneck(cfg)["limit"] == "37pkt (bdp)"
    with pytest.raises(Unsupported) as e:
        to_ns3(sc)
    assert any(p.path == "topology.bottleneck.queue.sizing" for p in e.value.problems)


def test_aqm_parameters_in_ns3_names():
    codel = bottleneck(to_ns3(dumbbell('{ discipline = "codel", target = "3ms", interval = "50ms" }')))["qdisc"]
    assert codel["type"] == "ns3::CoDelQueueDisc"
    assert codel["attrs"] == {"MaxSize": "999p", "Target": "3000000ns", "Interval": "50000000ns", "UseEcn": "false"}
    fq = bottleneck(to_ns3(dumbbell('{ discipline = "fq_codel" }')))["qdisc"]
    # ns-3's FQ-CoDel marks ECN by default; bufferlab's drops.
    # FQ-CoDel marks by default (Linux's ecn), CoDel does not (noecn): ns-3's UseEcn follows.
    assert fq["type"] == "ns3::FqCoDelQueueDisc" and fq["attrs"]["UseEcn"] == "true"
    assert fq["attrs"]["Flows"] == "1024" and fq["attrs"]["MaxSize"] == "10239p"
    # ns-3's quantum defaults to the device MTU (1500 B); bufferlab's, as Linux's, is 1514 B.
    assert fq["quantum_bytes"] == 1514
    assert bottleneck(to_ns3(dumbbell('{ discipline = "fq_codel", quantum = 300 }')))["qdisc"]["quantum_bytes"] == 300
    pie = bottleneck(to_ns3(dumbbell('{ discipline = "pie", target = "20ms" }')))["qdisc"]["attrs"]
    assert pie["QueueDelayReference"] == "20000000ns" and pie["Tupdate"] == "15000000ns"
    assert pie["UseDequeueRateEstimator"] == "true" and pie["MaxBurstAllowance"] == "150000000ns"
    red = bottleneck(to_ns3(dumbbell('{ discipline = "red", min_th = 10, max_th = 30, max_p = 0.05 }')))["qdisc"]["attrs"]
    assert (red["MinTh"], red["MaxTh"], red["QW"]) == ("10.0", "30.0", "0.002")
    assert float(red["LInterm"]) == pytest.approx(20.0)  # ns-3 takes max_p as 1 / LInterm
    red = bottleneck(to_ns3(dumbbell('{ discipline = "red", min_th = "4pkt", max_th = "12pkt" }')))["qdisc"]["attrs"]
    assert (red["MinTh"], red["MaxTh"], red["LInterm"]) == ("4.0", "12.0", "10.0")
    with pytest.raises(Unsupported) as e:
        to_ns3(dumbbell('{ discipline = "red", min_th = "10KB", max_th = "30KB" }'))
    assert e.value.problems[0].path.startswith("topology.bottleneck.queue")


# ---------------------------------------------------------------- TCP


def test_tcp_defaults_are_set_explicitly():
    tcp = to_ns3(dumbbell())["flows"][0]["tcp"]
    # ns-3's TcpNewReno grows per ACK (half as fast with delayed ACKs): the program's own
    # TcpNewReno subclass grows by bytes acknowledged, as bufferlab's NewReno (RFC 3465, L = 2).
    # ssthresh as bufferlab's sender: FlightSize from the sequence numbers, but the pipe at a
    # timeout when the connection has SACK.
    assert tcp["cc"] == "bl::Rfc3465Reno"
    assert tcp["cc_attrs"] == {"FlightSizeFromSequence": "true", "TimeoutFlightFromPipe": "true"}
    no_sack = to_ns3(dumbbell(tcp="sack = false"))["flows"][0]["tcp"]
    assert no_sack["cc_attrs"] == {"FlightSizeFromSequence": "true"}
    s = tcp["socket"]
    # ns-3's own defaults differ from bufferlab's in each of these.
    assert s["SegmentSize"] == "1460" and s["InitialCwnd"] == "10"
    assert s["MinRto"] == "200000000ns" and s["ClockGranularity"] == "200000000ns"
    assert s["DelAckCount"] == "2" and s["DelAckTimeout"] == "40000000ns"
    assert s["SndBufSize"] == s["RcvBufSize"] == str(1 << 30)
    assert s["Timestamp"] == "false" and s["LimitedTransmit"] == "false" and s["Sack"] == "true"
    assert int(s["DataRetries"]) > 6


def test_tcp_options_from_the_file():
    tcp = to_ns3(dumbbell(tcp='cc = "cubic"\nsack = false\ndelayed_ack = false\nmss = "960B"\ninitial_window = 4\nmin_rto = "1s"\nrwnd = "64KB"'))["flows"][0]
    s = tcp["tcp"]["socket"]
    assert (s["Sack"], s["DelAckCount"], s["SegmentSize"], s["InitialCwnd"]) == ("false", "1", "960", "4")
    assert s["MinRto"] == "1000000000ns" and s["RcvBufSize"] == "64000"
    assert tcp["tcp"]["cc"] == "ns3::TcpCubic"
    assert tcp["tcp"]["cc_attrs"] == {"Beta": "0.7", "C": "0.4", "FastConvergence": "true", "HyStart": "true"}
    assert tcp["mss"] == 960
    off = to_ns3(dumbbell(tcp='cc = "cubic"\ncubic_hystart = false'))["flows"][0]
    assert off["tcp"]["cc_attrs"]["HyStart"] == "false"
    # Vegas runs bufferlab's thresholds on both sides, given or not (ns-3's own are 2, 4, 1).
    vegas = to_ns3(dumbbell(tcp='cc = "vegas"'))["flows"][0]["tcp"]["cc_attrs"]
    assert (vegas["Alpha"], vegas["Beta"], vegas["Gamma"]) == ("1", "3", "1")
    given = to_ns3(dumbbell(tcp='cc = "vegas"\nvegas_alpha = 2\nvegas_beta = 5'))["flows"][0]["tcp"]["cc_attrs"]
    assert (given["Alpha"], given["Beta"]) == ("2", "5")


def test_flows_ports_and_start_times():
    cfg = to_ns3(dumbbell())
    assert [f["id"] for f in cfg["flows"]] == ["tcp-1", "tcp-2", "tcp-3"]
    assert len({f["port"] for f in cfg["flows"]}) == 3
    f = cfg["flows"][1]
    assert cfg["nodes"][f["src"]] == "s2" and cfg["nodes"][f["dst"]] == "d2"
    assert f["start_ns"] == {"dist": "uniform", "lo": 0.0, "hi": 1e9} and f["mode"] == "bulk"


def test_bulk_flows_start_when_bufferlabs_did_when_given():
    # Paired seeds: bufferlab's run of the seed gives each bulk flow's start; ns-3 takes it as is.
    starts = {"tcp-1": 0.25, "tcp-2": 0.125, "tcp-3": 0.75}
    cfg = to_ns3(dumbbell(), starts=starts)
    assert [f["start_ns"] for f in cfg["flows"]] == [{"dist": "const", "value": v * 1e9} for v in (0.25, 0.125, 0.75)]
    # A start the file fixes stays the file's.
    fixed = load_scenario(_toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", "").replace(
        'start = "uniform(0s,1s)"', 'start = "2s"')))
    assert all(f["start_ns"] == {"dist": "const", "value": 2e9} for f in to_ns3(fixed, starts=starts)["flows"])


def test_flow_ids_match_the_engine():
    sc = load_scenario(example_path("web-poisson"), overrides={"run.duration": "2s"})
    from bufferlab import run

    engine_ids = [f["id"] for f in run(sc).summary["flows"]]
    assert [f[0] for f in flow_ids(sc.plan)] == engine_ids
    assert [f["id"] for f in to_ns3(sc)["flows"]] == engine_ids


def test_udp_web_and_distributions():
    cfg = to_ns3(load_scenario(example_path("web-poisson")))
    web = next(f for f in cfg["flows"] if f["kind"] == "web")
    assert web["mode"] == "web" and web["arrival_rate"] == 1.0
    assert web["size_dist"]["dist"] == "zipf" and web["size_dist"]["max"] == 100000
    udp = next(f for f in cfg["flows"] if f["kind"] == "udp")
    assert (udp["rate_pps"], udp["size_bytes"], udp["arrivals"]) == (125.0, 29, "cbr")
    # Pareto and lognormal in ns-3's parameters keep the plan's mean.
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", ""))
    doc["traffic"] = [
        {"kind": "tcp_onoff", "from": "s1", "to": "d1", "size": "pareto(1.5, 30KB)", "idle": "lognormal(1s, 0.5s)"}
    ]
    f = to_ns3(load_scenario(doc))["flows"][0]
    p, ln = f["size_dist"], f["idle_ns"]
    assert p["scale"] * p["shape"] / (p["shape"] - 1) == pytest.approx(30_000, rel=0.03)
    assert math.exp(ln["mu"] + ln["sigma"] ** 2 / 2) == pytest.approx(1e9)


def test_path_delay_follows_the_fewest_hops():
    sc = dumbbell()
    assert path_delay_ns(sc.plan, "s1", "d1") == 22_000_000


# ---------------------------------------------------------------- refusals


def test_refusals_name_every_blocking_key():
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "splitbuff" }').replace("TCP", "handshake = false\nmax_rto = \"10s\"\nfrto = true"))
    doc2 = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", "frto = false\nbadrxt_undo = true"))
    with pytest.raises(Unsupported) as e2:
        to_ns3(load_scenario(doc2))
    assert "traffic[0].badrxt_undo" in {p.path for p in e2.value.problems}
    doc["topology"]["access"]["framing"] = "atm"
    doc["topology"]["bottleneck"]["jitter"] = "1ms"
    doc["topology"]["bottleneck"]["rate"] = f"trace({Path(__file__).parents[1] / 'scenarios' / 'traces' / 'constant-12mbps.trace'})"
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(doc))
    paths = {p.path for p in e.value.problems}
    assert paths >= {"topology.bottleneck.queue.discipline", "topology.access.framing", "traffic[0].handshake", "traffic[0].max_rto", "traffic[0].frto",
                     "topology.bottleneck.rate", "topology.bottleneck.jitter"}
    assert all(p.message for p in e.value.problems)


def test_fq_codel_ce_threshold_maps_to_ns3s_and_red_step_marking_is_refused():
    q = '{ discipline = "fq_codel", ce_threshold = "1ms" }'
    attrs = bottleneck(to_ns3(dumbbell(q)))["qdisc"]["attrs"]
    assert (attrs["CeThreshold"], attrs["UseL4s"]) == ("1000000ns", "true")
    q = '{ discipline = "fq_codel", ce_threshold = "1ms", ce_threshold_mask = 0, ce_threshold_selector = 0 }'
    assert bottleneck(to_ns3(dumbbell(q)))["qdisc"]["attrs"]["UseL4s"] == "false"
    # Step marking: ns-3's MinTh just under K, so an average of K packets or more is in the
    # forced region, which marks (UseHardDrop false) as Linux's RED.
    step = '{ discipline = "red", min_th = 20, max_th = 20, max_p = 1.0, weight = 1.0, ecn = true }'
    red = bottleneck(to_ns3(dumbbell(step)))["qdisc"]["attrs"]
    assert (red["MaxTh"], red["UseHardDrop"], red["QW"], red["Gentle"]) == ("20.0", "false", "1.0", "false")
    assert 19.999 < float(red["MinTh"]) < 20.0
    with pytest.raises(Unsupported) as e:
        to_ns3(dumbbell(step.replace("max_p = 1.0", "max_p = 0.5")))
    assert "topology.bottleneck.queue.gentle" in {p.path for p in e.value.problems}


def test_dctcp_maps_to_ns3s_with_ecn_on_both_ends():
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", 'cc = "dctcp"'))
    tcp = to_ns3(load_scenario(doc))["flows"][0]["tcp"]
    assert tcp["cc"] == "ns3::TcpDctcp" and tcp["socket"]["UseEcn"] == "On"


def test_prague_is_refused_by_the_cc_key():
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", 'cc = "prague"\naccecn = true'))
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(doc))
    got = {p.path: p.message for p in e.value.problems}
    assert set(got) == {"traffic[0].cc", "traffic[0].accecn"}, got
    assert "simulator only" in got["traffic[0].cc"]


@pytest.mark.parametrize(
    ("example", "key"),
    [("splitbuff", "topology.bottleneck.queue.discipline"), ("linux-stack", "topology.up.ring")],
)
def test_examples_ns3_cannot_express(example, key):
    sc = load_scenario(example_path(example))
    with pytest.raises(Unsupported) as e:
        to_ns3(sc, limits={n: {"limit_pkts": 10} for n in sc.link_names})
    assert key in {p.path for p in e.value.problems}


def test_frto_off_is_what_ns3_runs():
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", "frto = false"))
    assert to_ns3(load_scenario(doc))["flows"]


def test_bufferlab_runs_without_what_ns3_lacks():
    from bufferlab.crosscheck.translate import matched_for_ns3

    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", ""))
    doc["traffic"].append({"kind": "udp", "from": "s1", "to": "d1", "rate": "10pps", "size": "100B"})
    m = matched_for_ns3(doc)
    # RACK, F-RTO and D-SACK (on by default, as Linux) off for the TCP block, the UDP block
    # untouched, the caller's document unchanged.
    assert (m["traffic"][0]["rack"], m["traffic"][0]["frto"], m["traffic"][0]["dsack"]) == (False, False, False)
    assert "rack" not in m["traffic"][1] and "rack" not in doc["traffic"][0]
    assert load_scenario(m).plan["traffic"][0]["tcp"]["rack"] is False
    assert load_scenario(m).plan["traffic"][0]["tcp"]["dsack"] is False
    # A block that asks for RACK keeps it, and the translation refuses it by name.
    doc["traffic"][0]["rack"] = True
    m = matched_for_ns3(doc)
    assert m["traffic"][0]["rack"] is True
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(m))
    assert "traffic[0].rack" in {p.path for p in e.value.problems}
    # Likewise D-SACK: ns-3 3.44 has none.
    doc["traffic"][0].update(rack=False, dsack=True)
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(matched_for_ns3(doc)))
    assert {p.path for p in e.value.problems} >= {"traffic[0].dsack"}


def test_bufferlab_reduces_from_what_ns3_reduces_from():
    from bufferlab.crosscheck.translate import matched_for_ns3

    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", ""))
    doc["traffic"].append(dict(doc["traffic"][0], cc="cubic"))
    m = matched_for_ns3(doc)
    # ns-3's NewReno (bl::Rfc3465Reno) reduces from FlightSize, its TcpCubic from cwnd.
    assert [b["ssthresh_from"] for b in m["traffic"]] == ["flight", "cwnd"]
    assert "ssthresh_from" not in doc["traffic"][0]
    # The window in bytes and slow start at L = 2, as the crosscheck's pairs were measured.
    assert [(b["cwnd_unit"], b["abc_limit"]) for b in m["traffic"]] == [("byte", 2)] * 2
    to_ns3(load_scenario(m))
    # A block that asks for the other base keeps it, and the translation refuses it by name.
    doc["traffic"][0]["ssthresh_from"] = "cwnd"
    doc["traffic"][1]["ssthresh_from"] = "flight"
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(matched_for_ns3(doc)))
    assert {"traffic[0].ssthresh_from", "traffic[1].ssthresh_from"} <= {p.path for p in e.value.problems}


def test_rtt_adaptive_and_prio_small_are_refused():
    with pytest.raises(Unsupported) as e:
        to_ns3(dumbbell('{ discipline = "fifo", sizing = "rtt-adaptive" }'), limits={"r1->r2": {"limit_pkts": 10}, "r2->r1": {"limit_pkts": 10}})
    assert e.value.problems[0].path == "topology.bottleneck.queue.sizing"
    with pytest.raises(Unsupported) as e:
        to_ns3(dumbbell('{ discipline = "prio_small" }'))
    assert e.value.problems[0].path == "topology.bottleneck.queue.discipline"


def test_fq_and_tcp_small_queues_are_refused():
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fq" }').replace("TCP", "tsq = true"))
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(doc))
    why = {p.path: p.message for p in e.value.problems}
    assert "sch_fq" in why["topology.bottleneck.queue.discipline"]
    assert "small queues" in why["traffic[0].tsq"]
    # Left out, TCP small queues are off on every link the crosscheck accepts (no ring, no fq).
    assert to_ns3(load_scenario(_toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo" }').replace("TCP", "tsq = false"))))["flows"]


def test_cli_refuses_before_running(tmp_path):
    r = runner.invoke(app, ["crosscheck", str(example_path("splitbuff"))])
    assert r.exit_code == 2
    assert "topology.bottleneck.queue.discipline" in r.output


def test_cli_without_ns3_says_how_to_get_it(monkeypatch, tmp_path):
    import bufferlab.crosscheck.ns3env as env

    monkeypatch.setattr(env, "find_prefix", lambda: (_ for _ in ()).throw(env.Ns3Missing(env.hint())))
    r = runner.invoke(app, ["crosscheck", str(example_path("udp-fifo"))])
    assert r.exit_code == 2
    # Commands that work: the Makefile's target (which exists) and the wheel it installs.
    assert "make ns3" in r.output and "ns3==3.44.post0" in r.output, r.output
    assert "bufferlab[ns3]" not in r.output
    from conftest import REPO

    assert re.search(r"^ns3:", (REPO / "Makefile").read_text(), re.M), "the advised make target exists"
    assert "Traceback" not in r.output


def test_missing_ns3_is_found_missing(monkeypatch, tmp_path):
    import bufferlab.crosscheck.ns3env as env

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BUFFERLAB_NS3_VENV", raising=False)
    monkeypatch.setattr(env.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(env.Ns3Missing, match="make ns3"):
        env.find_prefix()
    monkeypatch.setenv("BUFFERLAB_NS3_PREFIX", str(tmp_path))
    with pytest.raises(env.Ns3Missing, match="BUFFERLAB_NS3_PREFIX"):
        env.find_prefix()


# ---------------------------------------------------------------- comparison


def _summary(goodputs, util, sojourn):
    return {
        "flows": [{"id": f"tcp-{i + 1}", "goodput_bps": g, "rtt_mean_s": 0.1} for i, g in enumerate(goodputs)],
        "queues": [{"link": "r1->r2", "sojourn_mean_s": sojourn, "dropped": 10}],
        "links": [{"link": "r1->r2", "utilization": util}],
    }


def test_compare_over_seeds():
    pairs = [
        Pair(1, _summary([4e6, 6e6], 1.0, 0.02), _summary([5e6, 5e6], 0.99, 0.01), 0.1, 1.0),
        Pair(2, _summary([6e6, 4e6], 1.0, 0.04), _summary([5e6, 4e6], 0.97, 0.03), 0.1, 1.0),
    ]
    summary = {(r["object"], r["id"], r["metric"]): r for r in summarize(records(pairs))}
    agg = summary[("flow", ALL, "goodput_bps")]
    assert agg["bufferlab_mean"] == 10e6 and agg["ns3_mean"] == 9.5e6
    assert agg["rel_diff"] == pytest.approx(0.5 / 9.5)
    soj = summary[("queue", "r1->r2", "sojourn_mean_s")]
    assert soj["bufferlab_mean"] == pytest.approx(0.03) and soj["ns3_mean"] == pytest.approx(0.02)
    assert soj["bufferlab_sd"] == pytest.approx(math.sqrt(2) * 0.01)
    assert soj["rel_diff"] == pytest.approx(0.5)
    assert summary[("flow", "tcp-1", "goodput_bps")]["bufferlab_values"] == "[4000000.0, 6000000.0]"


def test_suite_covers_the_issue_and_its_files_load():
    from bufferlab.crosscheck.suite import CASES, TOLERANCES, flow_classes

    assert len(CASES) >= 12 and all(c.seeds >= 8 for c in CASES)
    assert TOLERANCES == {"utilization": ("abs", 0.02), "aggregate goodput": ("rel", 0.03),
                          "per-flow goodput": ("rel", 0.15), "mean sojourn": ("rel", 0.25)}
    for case in CASES:
        sc = load_scenario(case.file)
        to_ns3(sc, limits={n: {"limit_pkts": 10} for n in sc.link_names})
        assert all(t.get("start_ns", {}).get("dist") != "const" for t in sc.plan["traffic"]), case.name
    jabeen = load_scenario(next(c for c in CASES if c.name == "jabeen-two-flows").file)
    assert sorted(flow_classes(jabeen)) == ["tcp-1, RTT 10 ms", "tcp-2, RTT 990 ms"]


# ---------------------------------------------------------------- ns-3 itself, when installed


def _ns3_or_skip():
    from bufferlab.crosscheck.ns3env import Ns3Missing, find_prefix

    try:
        find_prefix()
    except Ns3Missing as e:
        pytest.skip(f"ns-3 is not installed here ({e})")


def test_ns3_runs_an_mdl_queue_like_bufferlab():
    """A Poisson UDP stream at 80% load through a FIFO (an M/D/1 queue): both simulators must
    deliver the offered load and agree on the mean wait, W = rho / (2 mu (1 - rho)) = 2.4 ms."""
    _ns3_or_skip()
    from bufferlab.crosscheck.runner import run_pair

    sc = load_scenario(example_path("udp-fifo"), overrides={"run.duration": "40s", "run.measure": ["5s", "40s"]})
    p = run_pair(sc, 1)
    for side in (p.bufferlab, p.ns3):
        q = next(q for q in side["queues"] if q["link"] == "client->server")
        assert q["sojourn_mean_s"] == pytest.approx(0.0024, rel=0.15)
        assert side["flows"][0]["goodput_bps"] == pytest.approx(666.67 * 1472 * 8, rel=0.02)


def test_ns3_queue_measures_obey_littles_law():
    """In ns-3 a TCP segment keeps the uid of the application write it was cut from, so the
    program must pair a packet's enqueue and transmission by the packet itself: then, for a FIFO
    that drops only on arrival, mean occupancy = arrival rate × mean sojourn (Little), and every
    packet sent has its sojourn."""
    _ns3_or_skip()
    from bufferlab.crosscheck.runner import run_pair

    sc = dumbbell(tcp='cc = "newreno"')
    p = run_pair(sc, 1)
    q = next(q for q in p.ns3["queues"] if q["link"] == "r1->r2")
    sent = next(ln for ln in p.ns3["links"] if ln["link"] == "r1->r2")["pkts_sent"]
    assert abs(q["sojourn_samples"] - sent) <= 5
    rate = q["enqueued"] / 15.0
    assert q["occupancy_mean_pkts"] == pytest.approx(rate * q["sojourn_mean_s"], rel=0.02)


def test_out_dir_holds_the_tables_and_is_replaced_whole(tmp_path):
    import pandas as pd

    from bufferlab.crosscheck.compare import write_out

    pairs = [Pair(1, _summary([4e6], 1.0, 0.02), _summary([5e6], 0.99, 0.01), 0.1, 1.0)]
    recs = records(pairs)
    out = write_out(tmp_path / "xc", pairs, recs, summarize(recs), {"seeds": [1]})
    assert {p.name for p in out.iterdir()} == {"crosscheck.json", "records.parquet", "summary.parquet", "runs.parquet"}
    assert set(pd.read_parquet(out / "records.parquet").columns) == {"seed", "object", "id", "metric", "bufferlab", "ns3"}
    assert pd.read_parquet(out / "runs.parquet")["ns3_wall_s"].tolist() == [1.0]
    write_out(tmp_path / "xc", pairs, recs, summarize(recs), {"seeds": [1]})  # replaces its own
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError):
        write_out(tmp_path / "other", pairs, recs, summarize(recs), {})
    assert (tmp_path / "other" / "notes.txt").read_text() == "keep"


def test_suite_page_verdicts_noise_and_partial_mark():
    from bufferlab.crosscheck.suite import CASES, CaseResult, render, rows_for

    case = next(c for c in CASES if c.name == "one-flow-fifo")
    sc = load_scenario(case.file)
    # bufferlab 100% busy, ns-3 97%: 3 points apart, steady over seeds (noise far below).
    pairs = [
        Pair(s, _summary([9.7e6 + s * 1e3], 1.0, 0.030), _summary([9.6e6 + s * 1e3], 0.97, 0.020), 0.01, 1.0)
        for s in (1, 2, 3)
    ]
    res = CaseResult(case, sc, pairs)
    rows = {r["metric"]: r for r in rows_for(res)}
    assert rows["utilization r1->r2"]["verdict"] is False and rows["utilization r1->r2"]["difference"] == "+3.00 pt"
    assert rows["aggregate goodput"]["verdict"] is True  # +1.0% against ±3%
    assert rows["per-flow goodput, tcp-1, RTT 44 ms"]["verdict"] is True
    assert rows["mean sojourn r1->r2"]["verdict"] is False and rows["mean sojourn r1->r2"]["difference"] == "+50.0%"
    assert rows["drops r1->r2"]["verdict"] is None  # context only
    page = render([res], planned=2, started="today", seeds_override=None)
    assert "Partial run: 1 of 2 scenarios" in page
    assert "differs: [explained](ns3-differences.md)" in page and "2 of 4 compared rows hold" in page
    assert "| **one-flow-fifo** (3 seeds) | utilization r1->r2 | 100.00% | 97.00% | +3.00 pt |" in page


EXPLICIT = """
[run]
duration = "20s"
[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"
[[link]]
between = ["a", "r"]
rate = "50Mbps"
delay = "2ms"
[[link]]
between = ["r", "b"]
rate = "10Mbps"
delay = "10ms"
queue = { discipline = "pie" }
[link.reverse]
delay = "30ms"
rate = "2Mbps"
[[traffic]]
kind = "ping"
from = "b"
to = "a"
interval = "50ms"
"""


def test_explicit_topology_with_directions_of_their_own():
    sc = load_scenario(_toml(EXPLICIT))
    cfg = to_ns3(sc)
    assert cfg["nodes"] == ["a", "r", "b"]
    rb = cfg["links"][1]
    assert (rb["a"], rb["b"]) == (1, 2)
    assert (rb["forward"]["rate_bps"], rb["forward"]["delay_ns"], rb["forward"]["discipline"]) == (10_000_000, 10_000_000, "pie")
    assert (rb["reverse"]["rate_bps"], rb["reverse"]["delay_ns"], rb["reverse"]["discipline"]) == (2_000_000, 30_000_000, "pie")
    ping = cfg["flows"][0]
    assert (ping["kind"], ping["interval_ns"], ping["size_bytes"]) == ("ping", 50_000_000, 84)
    # The ping's round trip: 30 + 2 ms out, 2 + 10 ms back.
    assert path_delay_ns(sc.plan, "b", "a") + path_delay_ns(sc.plan, "a", "b") == 44_000_000


def test_bbr_is_tcp_bbr_and_pacing_is_a_default_for_every_socket():
    cfg = to_ns3(dumbbell(tcp='cc = "bbr"'))
    assert cfg["flows"][0]["tcp"]["cc"] == "ns3::TcpBbr"
    # TcpBbr paces its own socket: no default is needed (nor set, so a Cubic block beside it
    # stays unpaced).
    assert cfg["defaults"] == {}
    cfg = to_ns3(dumbbell(tcp='cc = "cubic"\npacing = true\npacing_ca_ratio = 100'))
    assert cfg["defaults"] == {
        "ns3::TcpSocketState::EnablePacing": "true",
        "ns3::TcpSocketState::PacingSsRatio": "200",
        "ns3::TcpSocketState::PacingCaRatio": "100",
        "ns3::TcpSocketState::PaceInitialWindow": "false",
    }
    # Paced and unpaced blocks (BBR aside) cannot share a run.
    doc = _toml(DUMBBELL.replace("QUEUE", '{ discipline = "fifo", limit = "50pkt" }').replace("TCP", "pacing = true"))
    doc["traffic"].append(dict(doc["traffic"][0], pacing=False))
    doc["traffic"].append(dict(doc["traffic"][0], cc="bbr", pacing=False))
    with pytest.raises(Unsupported) as e:
        to_ns3(load_scenario(doc))
    assert {p.path for p in e.value.problems} == {"traffic[1].pacing"}


def test_fq_pie_maps_to_ns3_fq_pie_set_as_linux_runs_it():
    fqp = bottleneck(to_ns3(dumbbell('{ discipline = "fq_pie", target = "10ms", ecn = true, quantum = 600 }')))["qdisc"]
    assert fqp["type"] == "ns3::FqPieQueueDisc" and fqp["quantum_bytes"] == 600
    a = fqp["attrs"]
    assert (a["QueueDelayReference"], a["Tupdate"], a["Supdate"]) == ("10000000ns", "15000000ns", "500000000ns")
    # Linux's fq_pie: delay from timestamps, derandomized, marks up to 10%.
    assert (a["UseDequeueRateEstimator"], a["UseDerandomization"]) == ("false", "true")
    assert (a["UseEcn"], float(a["MarkEcnThreshold"]), a["Flows"], a["MaxSize"]) == ("true", 0.1, "1024", "10239p")


def test_dualpi2_is_refused_by_key():
    # ns-3 3.44 has no DualPI2 in its main tree (docs/qdisc-dualpi2.md).
    with pytest.raises(Unsupported) as e:
        to_ns3(dumbbell('{ discipline = "dualpi2" }'))
    assert e.value.problems[0].path == "topology.bottleneck.queue.discipline"
    assert "dualpi2" in e.value.problems[0].message


def test_cake_is_fq_cobalt_where_they_are_one_discipline():
    # Unshaped, one tin, fair between flows: CAKE is COBALT in 1024 set-associative flow queues.
    q = bottleneck(to_ns3(dumbbell('{ discipline = "cake", isolation = "flows", diffserv = "besteffort" }')))["qdisc"]
    assert q["type"] == "ns3::FqCobaltQueueDisc"
    a = q["attrs"]
    assert (a["Target"], a["Interval"], a["UseEcn"]) == ("5000000ns", "100000000ns", "true")
    assert (a["Flows"], a["SetWays"], a["EnableSetAssociativeHash"], a["MaxSize"]) == ("1024", "8", "true", "10239p")
    assert float(a["Increment"]) == 1 / 256 and float(a["Decrement"]) == 1 / 4096
    assert q["quantum_bytes"] == 1500  # 1514 B of CAKE's raw length, in IP bytes


def test_cake_keys_fq_cobalt_lacks_are_refused_by_key():
    with pytest.raises(Unsupported) as e:
        to_ns3(dumbbell('{ discipline = "cake", bandwidth = "9Mbps", atm = "atm", overhead = 16 }'))
    paths = {p.path for p in e.value.problems}
    base = "topology.bottleneck.queue"
    assert paths == {f"{base}.{k}" for k in ("bandwidth", "atm", "overhead", "diffserv", "isolation")}
    assert all(p.message for p in e.value.problems)
