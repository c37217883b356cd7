"""Scenario files -> the engine's plan: every example, templates, defaults, unit conversion."""

from __future__ import annotations

import filecmp
import hashlib
import json
import tomllib

import pytest
from conftest import EXAMPLE_NAMES, REPO, SHARED, example_doc, example_path

from bufferlab import load_scenario, loads_scenario
from bufferlab.scenario import apply_overrides

MS = 1_000_000


def plan_of(name: str, **kw) -> dict:
    return load_scenario(example_path(name), engine_check=False, **kw).plan


def link(plan: dict, a: str, b: str) -> dict:
    """The direction a -> b of the link between a and b."""
    for ln in plan["links"]:
        if (ln["a"], ln["b"]) == (a, b):
            return ln["forward"]
        if (ln["b"], ln["a"]) == (a, b):
            return ln["reverse"]
    raise KeyError(f"{a}->{b}")


def path_rtt_ns(plan: dict, hops: list[str]) -> int:
    """Round-trip propagation time along a node path and back."""
    out = sum(link(plan, x, y)["delay_ns"] for x, y in zip(hops, hops[1:]))
    back = sum(link(plan, y, x)["delay_ns"] for x, y in zip(hops, hops[1:]))
    return out + back


def test_all_six_examples_are_present():
    assert set(EXAMPLE_NAMES) >= {"braud-table2", "dumbbell", "linux-stack", "splitbuff", "udp-fifo", "web-poisson"}
    assert set(SHARED_NAMES) == {"braud-table2", "dumbbell", "linux-stack", "splitbuff", "udp-fifo", "web-poisson"}
    if SHARED.is_dir():
        assert sorted(p.stem for p in SHARED.glob("*.toml")) == SHARED_NAMES


# The shared examples' digests, recorded beside the repository's copies: a clone without the shared
# folder still checks its copies against them (sha256sum -c reads the file).
SHARED_DIGESTS = REPO / "tests" / "golden" / "shared-examples.sha256"
SHARED_NAMES = sorted(line.split("  ", 1)[1].removesuffix(".toml") for line in SHARED_DIGESTS.read_text().splitlines())


@pytest.mark.parametrize("name", SHARED_NAMES)
def test_shipped_copies_match_the_shared_examples(name):
    copy = REPO / "scenarios" / f"{name}.toml"
    if SHARED.is_dir():
        assert filecmp.cmp(SHARED / f"{name}.toml", copy, shallow=False)
        # The recorded digests follow the shared folder too.
        assert f"{hashlib.sha256((SHARED / f'{name}.toml').read_bytes()).hexdigest()}  {name}.toml" in SHARED_DIGESTS.read_text()
    digests = dict(reversed(line.split("  ", 1)) for line in SHARED_DIGESTS.read_text().splitlines())
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == digests[f"{name}.toml"]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_examples_expand_to_json(name):
    sc = load_scenario(example_path(name), engine_check=False)
    assert json.loads(sc.plan_json()) == sc.plan
    assert set(sc.plan) == {"run", "nodes", "links", "traffic"}


def test_braud_table2():
    p = plan_of("braud-table2")
    assert p["run"] == {"duration_ns": 200_000 * MS, "seed": 1, "measure_ns": [50_000 * MS, 150_000 * MS]}
    assert p["nodes"] == ["client", "server"]
    up, down = link(p, "client", "server"), link(p, "server", "client")
    assert (up["rate_bps"], up["delay_ns"]) == (800_000, 52 * MS)
    assert (down["rate_bps"], down["delay_ns"]) == (5_000_000, 42 * MS)
    for d in (up, down):
        assert d["queue"] == {"qdisc": {"kind": "fifo"}, "limit_pkts": 120}
        assert d["framing"] == "none"
    tcp, udp, ping = p["traffic"]
    assert tcp == {"kind": "tcp", "pairs": [["client", "server"]], "count": 1, "tcp": {"cc": "newreno"}}
    assert udp == {"kind": "udp", "pairs": [["client", "server"]], "rate_pps": 250.0, "size_bytes": 29}
    # Linux ping's default echo: 56 B data + 8 B ICMP + 20 B IP.
    assert ping == {"kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * MS, "size_bytes": 84}


def test_dumbbell_pairs_and_rtts():
    p = plan_of("dumbbell")
    n = 10
    assert p["nodes"] == [f"s{i}" for i in range(1, n + 1)] + ["r1", "r2"] + [f"d{i}" for i in range(1, n + 1)]
    assert len(p["links"]) == 1 + 2 * n
    bott = p["links"][0]
    assert (bott["a"], bott["b"]) == ("r1", "r2")
    assert bott["forward"]["queue"] == {"qdisc": {"kind": "fifo"}, "sizing": {"rule": "bdp", "scale": 1.0}}
    assert bott["reverse"] == bott["forward"]
    for i in range(1, n + 1):
        acc = link(p, f"s{i}", "r1")
        assert (acc["rate_bps"], acc["delay_ns"]) == (20_000_000, MS // 2)
        # 2 * (2 * 0.5 ms + 50 ms) = 102 ms for every pair.
        assert path_rtt_ns(p, [f"s{i}", "r1", "r2", f"d{i}"]) == 102 * MS
    (tcp,) = p["traffic"]
    assert tcp["pairs"] == [[f"s{i}", f"d{i}"] for i in range(1, n + 1)]
    assert tcp["start_ns"] == {"dist": "uniform", "lo": 0.0, "hi": 1e9}


def test_splitbuff_pairs_have_10ms_and_990ms_rtts():
    p = plan_of("splitbuff")
    assert path_rtt_ns(p, ["s1", "r1", "r2", "d1"]) == 10 * MS
    assert path_rtt_ns(p, ["s2", "r1", "r2", "d2"]) == 990 * MS
    q = p["links"][0]["forward"]["queue"]
    assert q == {"qdisc": {"kind": "splitbuff", "buffers": 2}, "sizing": {"rule": "bdp", "scale": 1.0}}
    assert p["traffic"][0]["tcp"] == {"cc": "newreno", "sack": True, "mss_bytes": 960}
    assert link(p, "s1", "r1")["rate_bps"] == 1_000_000_000


def test_linux_stack_defaults():
    p = plan_of("linux-stack")
    up = link(p, "client", "server")
    # fq_codel without a limit: Linux's default of 10240 packets.
    assert up["queue"] == {"qdisc": {"kind": "fq_codel"}, "limit_pkts": 10240}
    assert up["ring"] == {"size": 512, "bql": "auto"}
    down = link(p, "server", "client")
    assert "ring" not in down
    assert p["traffic"][0]["tcp"] == {"cc": "cubic"}


def test_udp_fifo():
    p = plan_of("udp-fifo")
    assert p["run"]["seed"] == 7
    (udp,) = p["traffic"]
    assert udp["rate_pps"] == 666.67 and udp["size_bytes"] == 1500 and udp["arrivals"] == "poisson"


def test_web_poisson_zipf_counts_full_segments():
    p = plan_of("web-poisson")
    tcp, web, udp = p["traffic"]
    assert web["pairs"] == [["server", "client"]]
    assert web["arrival_rate"] == 1.0
    # A full segment: the 1460 B MSS less the timestamp option's 12 B.
    assert web["size_bytes"] == {"dist": "zipf", "s": 1.7, "max": 100_000, "unit": 1448.0}
    assert web["tcp"] == {"cc": "newreno"}
    assert udp["rate_pps"] == 125.0


def test_seed_and_overrides():
    p = plan_of("dumbbell", seed=42, overrides={"topology.pairs": 3, "traffic[0].cc": "vegas"})
    assert p["run"]["seed"] == 42
    assert len(p["links"]) == 7
    assert p["traffic"][0]["tcp"]["cc"] == "vegas"


def test_overrides_create_tables_and_report_bad_paths():
    doc = {"a": [{"b": 1}]}
    assert apply_overrides(doc, {"a[0].b": 2, "a.0.c": 3, "x.y": 4}) == []
    assert doc == {"a": [{"b": 2, "c": 3}], "x": {"y": 4}}
    bad = apply_overrides(doc, {"a[5].b": 1, "a[0].b.c": 1, "..": 1})
    assert [p.path for p in bad] == ["a[5].b", "a[0].b.c", ".."]


# ---------------------------------------------------------------- conversions of single keys

BASE = """
[run]
duration = "10s"
[topology]
template = "access"
[topology.up]
rate = "10Mbps"
delay = "5ms"
{up}
[topology.down]
rate = "10Mbps"
delay = "5ms"
{traffic}
"""


def up_of(extra: str) -> dict:
    p = loads_scenario(BASE.format(up=extra, traffic=""), engine_check=False).plan
    return p["links"][0]["forward"]


def traffic_of(block: str) -> dict:
    p = loads_scenario(BASE.format(up="", traffic="[[traffic]]\n" + block), engine_check=False).plan
    return p["traffic"][0]


def test_default_queue_is_txqueuelen():
    assert up_of("")["queue"] == {"qdisc": {"kind": "fifo"}, "limit_pkts": 1000}
    assert up_of('queue = { discipline = "codel" }')["queue"]["limit_pkts"] == 1000


@pytest.mark.parametrize(
    "extra, key, value",
    [
        ('framing = "atm"', "framing", "atm"),
        ('framing = "ethernet"', "framing", "ethernet"),
        ("loss = 0.01", "loss", 0.01),
        ('jitter = "0.2ms"', "jitter_ns", 200_000),
        ('queue = { limit = "64KB" }', "queue", {"qdisc": {"kind": "fifo"}, "limit_bytes": 64_000}),
        ('queue = { limit = "64KiB" }', "queue", {"qdisc": {"kind": "fifo"}, "limit_bytes": 65_536}),
        ('queue = { sizing = "bdp/sqrt(n)", scale = 0.5 }', "queue",
         {"qdisc": {"kind": "fifo"}, "sizing": {"rule": "bdp/sqrt(n)", "scale": 0.5}}),
        ('queue = { sizing = "max(bdp, connection-proportional)" }', "queue",
         {"qdisc": {"kind": "fifo"}, "sizing": {"rule": "max(bdp, connection-proportional)", "scale": 1.0}}),
        ('queue = { sizing = "2L" }', "queue", {"qdisc": {"kind": "fifo"}, "sizing": {"rule": "2L", "scale": 1.0}}),
        ('queue = { discipline = "codel", target = "5ms", interval = "100ms" }', "queue",
         {"qdisc": {"kind": "codel", "target_ns": 5 * MS, "interval_ns": 100 * MS}, "limit_pkts": 1000}),
        ('queue = { discipline = "fq_codel", flows = 1024, quantum = "1514B", limit = 10240 }', "queue",
         {"qdisc": {"kind": "fq_codel", "flows": 1024, "quantum_bytes": 1514}, "limit_pkts": 10240}),
        ('queue = { discipline = "fq_codel", quantum = 300 }', "queue",
         {"qdisc": {"kind": "fq_codel", "quantum_bytes": 300}, "limit_pkts": 10240}),
        ('queue = { discipline = "pie", target = "15ms", tupdate = "15ms", alpha = 0.125, beta = 1.25, limit = "1000pkt" }', "queue",
         {"qdisc": {"kind": "pie", "target_ns": 15 * MS, "tupdate_ns": 15 * MS, "alpha": 0.125, "beta": 1.25}, "limit_pkts": 1000}),
        ('queue = { discipline = "splitbuff", buffers = 3, update = "1s", smoothing = 0.25, limit = "100pkt" }', "queue",
         {"qdisc": {"kind": "splitbuff", "buffers": 3, "update_ns": 1000 * MS, "smoothing": 0.25}, "limit_pkts": 100}),
        ('queue = { discipline = "prio_small", threshold = "100B" }', "queue",
         {"qdisc": {"kind": "prio_small", "threshold_bytes": 100}, "limit_pkts": 1000}),
        ('queue = { discipline = "red", min_th = "5pkt", max_th = 15, max_p = 0.1, weight = 0.002, gentle = true, wait = false, mean_pkt = "500B", limit = "200KB" }', "queue",
         {"qdisc": {"kind": "red", "min_th_pkts": 5.0, "max_th": 15.0, "max_p": 0.1, "weight": 0.002, "gentle": True, "wait": False,
                    "mean_pkt_bytes": 500}, "limit_bytes": 200_000}),
        ('queue = { discipline = "red", min_th = "30KB", max_th = "90KB", limit = "200KB" }', "queue",
         {"qdisc": {"kind": "red", "min_th_bytes": 30_000.0, "max_th_bytes": 90_000.0}, "limit_bytes": 200_000}),
        ('queue = { discipline = "blind_splitbuff", buffers = 3 }', "queue",
         {"qdisc": {"kind": "blind_splitbuff", "buffers": 3}, "limit_pkts": 1000}),
        ('ring = { size = 256, bql = "off" }', "ring", {"size": 256, "bql": "off"}),
        ('ring = { size = 256, bql = "30KB" }', "ring", {"size": 256, "bql": {"fixed": 30_000}}),
        ("ring = { size = 256 }", "ring", {"size": 256, "bql": "auto"}),
    ],
)
def test_direction_keys(extra, key, value):
    assert up_of(extra)[key] == value


@pytest.mark.parametrize(
    "block, expected",
    [
        ('kind = "udp"\nfrom = "client"\nto = "server"\nrate = "2Mbps"\nsize = "1000B"',
         {"rate_pps": 250.0, "size_bytes": 1000}),
        ('kind = "udp"\nfrom = "client"\nto = "server"\nrate = "100pps"\nsize = "29B"\nttl = 2\nburst = { packets = 100, every = "1s" }\nstop = "5s"',
         {"rate_pps": 100.0, "ttl": 2, "burst": {"packets": 100, "every_ns": 1000 * MS}, "stop_ns": 5000 * MS}),
        ('kind = "tcp"\nfrom = "client"\nto = "server"\nsize = "10pkt"\nmss = "1000B"',
         {"size_bytes": 9_880, "tcp": {"mss_bytes": 1000}}),  # ten full segments of 1000 − 12 B
        ('kind = "tcp"\nfrom = "client"\nto = "server"\nsize = "inf"\ncount = 4\nstart = "exp(1s)"',
         {"count": 4, "start_ns": {"dist": "exp", "mean": 1e9}, "tcp": {}}),
        ('kind = "tcp"\nfrom = "client"\nto = "server"\ncc = "vegas"\nsack = false\ndelayed_ack = true\nbeta = 0.875\n'
         'initial_window = 10\nmin_rto = "200ms"\nrwnd = "64KiB"\nsndbuf = "100pkt"\nhandshake = true',
         {"tcp": {"cc": "vegas", "sack": False, "delayed_ack": True, "beta": 0.875, "initial_window": 10,
                  "min_rto_ns": 200 * MS, "rwnd_bytes": 65_536, "sndbuf_bytes": 144_800, "handshake": True}}),
        ('kind = "tcp_onoff"\nfrom = "server"\nto = "client"\nsize = "36KB"\nidle = "exp(1s)"',
         {"size_bytes": {"dist": "const", "value": 36_000.0}, "idle_ns": {"dist": "exp", "mean": 1e9}}),
        ('kind = "ping"\nfrom = "client"\nto = "server"',
         {"interval_ns": 1000 * MS, "size_bytes": 84}),
    ],
)
def test_traffic_keys(block, expected):
    t = traffic_of(block)
    for k, v in expected.items():
        assert t[k] == v, k
    if "size = \"inf\"" in block:
        assert "size_bytes" not in t


def test_access_delay_list_and_distribution():
    doc = example_doc("dumbbell")
    doc["topology"]["pairs"] = 3
    doc["topology"]["access"]["delay"] = ["1ms", "2ms", "3ms"]
    p = load_scenario(doc, engine_check=False).plan
    assert [path_rtt_ns(p, [f"s{i}", "r1", "r2", f"d{i}"]) for i in (1, 2, 3)] == [
        2 * (2 * d + 50) * MS for d in (1, 2, 3)
    ]
    doc["topology"]["access"]["delay"] = "uniform(1ms,20ms)"
    a = load_scenario(doc, engine_check=False).plan
    b = load_scenario(doc, engine_check=False).plan
    delays = [link(a, f"s{i}", "r1")["delay_ns"] for i in (1, 2, 3)]
    assert delays == [link(b, f"s{i}", "r1")["delay_ns"] for i in (1, 2, 3)]  # same seed, same draw
    assert all(MS <= d <= 20 * MS for d in delays) and len(set(delays)) == 3
    c = load_scenario(doc, seed=99, engine_check=False).plan
    assert [link(c, f"s{i}", "r1")["delay_ns"] for i in (1, 2, 3)] != delays


def test_access_rate_defaults_to_twice_the_bottleneck():
    doc = example_doc("dumbbell")
    del doc["topology"]["access"]
    p = load_scenario(doc, engine_check=False).plan
    acc = link(p, "s1", "r1")
    assert acc["rate_bps"] == 20_000_000 and acc["delay_ns"] == MS // 2


def test_bottleneck_reverse_overrides_only_what_it_gives():
    doc = example_doc("dumbbell")
    doc["topology"]["bottleneck_reverse"] = {"rate": "1Mbps", "framing": "atm"}
    p = load_scenario(doc, engine_check=False).plan
    rev = link(p, "r2", "r1")
    assert rev["rate_bps"] == 1_000_000 and rev["framing"] == "atm"
    assert rev["delay_ns"] == 50 * MS
    assert rev["queue"] == p["links"][0]["forward"]["queue"]


def test_explicit_topology_with_overrides_and_groups():
    text = """
[run]
duration = "10s"
[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"
[[link]]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"
[[link]]
between = ["r", "b"]
rate = "10Mbps"
delay = "10ms"
framing = "atm"
queue = { limit = "50pkt" }
[link.reverse]
rate = "1Mbps"
queue = { limit = "20pkt" }
[topology.groups]
hosts = ["a"]
[[traffic]]
kind = "udp"
from = "hosts"
to = "b"
rate = "1Mbps"
size = "500B"
"""
    p = load_scenario(tomllib.loads(text), engine_check=False).plan
    assert p["nodes"] == ["a", "r", "b"]
    rb, br = link(p, "r", "b"), link(p, "b", "r")
    assert rb == {"rate_bps": 10_000_000, "delay_ns": 10 * MS, "framing": "atm",
                  "queue": {"qdisc": {"kind": "fifo"}, "limit_pkts": 50}}
    assert br == {"rate_bps": 1_000_000, "delay_ns": 10 * MS, "framing": "atm",
                  "queue": {"qdisc": {"kind": "fifo"}, "limit_pkts": 20}}
    assert p["traffic"][0]["pairs"] == [["a", "b"]]
    assert p["traffic"][0]["rate_pps"] == 250.0
