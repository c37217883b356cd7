"""The rrul traffic kind (docs/traffic-rrul.md): the reader's expansion into tcp and ping blocks,
its defaults (Flent's rrul.conf), its refusals, and a short run whose flows carry its label."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import bufferlab
from bufferlab import ScenarioError
from bufferlab.crosscheck import Unsupported, to_ns3
from bufferlab.kernel import plan as kplan

ACCESS = """
[run]
duration = "{duration}"

[topology]
template = "access"
up = {{ rate = "10Mbps", delay = "10ms", queue = {{ discipline = "fifo", limit = "100pkt" }} }}
down = {{ rate = "20Mbps", delay = "10ms", queue = {{ discipline = "fifo", limit = "100pkt" }} }}
"""


def scenario(tmp_path: Path, traffic: str, duration: str = "10s", topology: str | None = None) -> Path:
    p = tmp_path / "s.toml"
    top = topology if topology is not None else ACCESS.format(duration=duration)
    p.write_text(top + textwrap.dedent(traffic))
    return p


def blocks(tmp_path: Path, traffic: str, **kw) -> list[dict]:
    return bufferlab.load_scenario(scenario(tmp_path, traffic, **kw)).plan["traffic"]


RRUL = """
[[traffic]]
kind = "rrul"
from = "client"
to = "server"
"""


def test_flents_rrul_by_default(tmp_path):
    up, down, icmp, udp = blocks(tmp_path, RRUL)
    # tests/rrul.conf: 4 TCP_STREAM and 4 TCP_MAERTS from DELAY (5 s); a ping and 3 irtt probes
    # every STEP_SIZE (0.2 s) from the start.
    assert (up["kind"], up["count"], up["pairs"]) == ("tcp", 4, [["client", "server"]])
    assert (down["kind"], down["count"], down["pairs"]) == ("tcp", 4, [["server", "client"]])
    assert up["start_ns"] == down["start_ns"] == {"dist": "const", "value": 5e9}
    assert (icmp["kind"], icmp["proto"], icmp["pairs"]) == ("ping", "icmp", [["client", "server"]])
    assert (udp["kind"], udp["proto"], udp["pairs"]) == ("ping", "udp", [["client", "server"]] * 3)
    assert icmp["interval_ns"] == udp["interval_ns"] == 200_000_000
    assert icmp["start_ns"] == {"dist": "const", "value": 0.0}
    assert {b["group"] for b in (up, down, icmp, udp)} == {"rrul-1"}
    # TCP options the block leaves out stay out of the plan (the transport's defaults apply).
    assert up["tcp"] == down["tcp"] == {}


def test_the_papers_fifty_downloads_and_one_upload(tmp_path):
    up, down, icmp, udp = blocks(tmp_path, RRUL + 'uploads = 1\ndownloads = 50\ndelay = "1s"\ncc = "cubic"\n')
    assert (up["count"], down["count"]) == (1, 50)
    assert up["start_ns"]["value"] == 1e9
    assert up["tcp"] == down["tcp"] == {"cc": "cubic"}
    n = sum(b.get("count", 1) * len(b["pairs"]) for b in (up, down, icmp, udp))
    assert n == 55


def test_no_streams_one_way_and_intervals(tmp_path):
    got = blocks(tmp_path, RRUL + 'uploads = 0\nudp_probes = 1\nping_interval = "1s"\nudp_interval = "50ms"\n')
    assert [(b["kind"], b["pairs"][0][0]) for b in got] == [("tcp", "server"), ("ping", "client"), ("ping", "client")]
    assert (got[1]["interval_ns"], got[2]["interval_ns"], len(got[2]["pairs"])) == (10**9, 50_000_000, 1)


DUMBBELL = """
[run]
duration = "5s"

[topology]
template = "dumbbell"
pairs = 3
bottleneck = { rate = "10Mbps", delay = "10ms" }
"""


def test_one_labelled_test_per_pair(tmp_path):
    traffic = RRUL.replace('"client"', '"senders"').replace('"server"', '"receivers"')
    got = blocks(tmp_path, traffic, topology=DUMBBELL)
    assert len(got) == 3 * 4
    assert [b["group"] for b in got[::4]] == ["rrul-1", "rrul-2", "rrul-3"]
    assert got[4]["pairs"] == [["s2", "d2"]]
    named = blocks(tmp_path, traffic + 'group = "home"\n' + traffic, topology=DUMBBELL)
    assert [b["group"] for b in named[::4]] == ["home-1", "home-2", "home-3", "rrul-4", "rrul-5", "rrul-6"]


def test_refusals_at_the_blocks_keys(tmp_path):
    with pytest.raises(ScenarioError) as e:
        blocks(tmp_path, RRUL + 'start = "1s"\nuploads = -1\nudp_interval = 5\nbogus = 1\n')
    got = {p.path: p.message for p in e.value.problems}
    assert "an rrul test's probes start with the run" in got["traffic[0].start"]
    assert "traffic[0].uploads" in got and "traffic[0].udp_interval" in got
    assert "unknown key" in got["traffic[0].bogus"]
    # A count beyond the plan's bound is reported at the rrul key, not at the tcp block it makes.
    with pytest.raises(ScenarioError) as e:
        bufferlab.run(scenario(tmp_path, RRUL + "downloads = 200000\n"))
    assert [p.path for p in e.value.problems] == ["traffic[0].downloads"]


def test_a_short_run_has_the_tests_flows(tmp_path):
    r = bufferlab.run(scenario(tmp_path, RRUL + 'delay = "1s"\n', duration="3s"))
    f = r.flows
    assert list(f["group"]) == ["rrul-1"] * 12
    tcp = f[f["kind"] == "tcp"]
    assert list(tcp["src"]) == ["client"] * 4 + ["server"] * 4
    assert (tcp["start_s"] == 1.0).all() and (tcp["goodput_bps"] > 0).all()
    probes = f[f["kind"] == "ping"]
    assert len(probes) == 4 and (probes["rtt_samples"] >= 10).all()
    # Before the streams start the probes see the idle path: 2 x 10 ms plus serialization.
    assert probes["rtt_p50_s"].min() > 0.02


def test_a_delay_law_gives_each_stream_its_own_start_and_each_seed_its_own_run(tmp_path):
    f = scenario(tmp_path, RRUL + 'delay = "uniform(1s,1.2s)"\n', duration="3s")
    runs = [bufferlab.run(f, seed=s).flows for s in (1, 2)]
    starts = [r.loc[r["kind"] == "tcp", "start_s"] for r in runs]
    for s in starts:
        assert s.between(1.0, 1.2).all() and s.nunique() == 8
    assert list(starts[0]) != list(starts[1])
    # A bad law is named at the rrul block's key.
    with pytest.raises(ScenarioError) as e:
        bufferlab.run(scenario(tmp_path, RRUL + 'delay = "uniform(1s)"\n'))
    assert [p.path for p in e.value.problems] == ["traffic[0].delay"]


def test_udp_probes_are_refused_where_the_backends_have_none(tmp_path, monkeypatch):
    sc = bufferlab.load_scenario(scenario(tmp_path, RRUL.replace("rrul", "ping") + 'proto = "udp"\n'))
    assert sc.plan["traffic"][0]["proto"] == "udp"
    monkeypatch.setattr(kplan, "available_cc", lambda: ["reno", "cubic"])
    with pytest.raises(ScenarioError) as e:
        kplan.build(sc)
    assert [p.path for p in e.value.problems] == ["traffic[0].proto"]
    with pytest.raises(Unsupported) as e:
        to_ns3(sc)
    assert any(p.path == "traffic[0].proto" for p in e.value.problems)
