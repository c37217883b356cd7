"""The plan as the engine reads it: every plan the front produces deserializes in Rust, and
whatever the engine refuses comes back named by the file's own key paths."""

from __future__ import annotations

import json
import math
import tomllib

import pytest
from conftest import EXAMPLE_NAMES, example_path
from test_scenario_plan import BASE

import bufferlab
from bufferlab import ScenarioError, _core, load_scenario, loads_scenario

UNSUPPORTED = "not supported yet"


def engine_problems(plan: dict) -> list[str]:
    return list(_core.check(json.dumps(plan)))


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_plans_deserialize_in_the_engine(name):
    plan = load_scenario(example_path(name), engine_check=False).plan
    for msg in engine_problems(plan):
        # A feature still missing from the engine is fine; a plan it cannot read is not.
        assert UNSUPPORTED in msg, msg


@pytest.mark.parametrize(
    "extra",
    [
        'framing = "atm"',
        "loss = 0.01",
        'queue = { limit = "64KB" }',
        'queue = { sizing = "bdp/sqrt(n)", scale = 0.5 }',
        'queue = { discipline = "codel", target = "5ms", interval = "100ms" }',
        'queue = { discipline = "fq_codel", flows = 1024, quantum = "1514B", limit = 10240 }',
        'queue = { discipline = "pie", target = "15ms", tupdate = "15ms", alpha = 0.125, beta = 1.25 }',
        'queue = { discipline = "splitbuff", buffers = 3, update = "1s", smoothing = 0.25, limit = "100pkt" }',
        'queue = { discipline = "blind_splitbuff", buffers = 2, limit = "100pkt" }',
        'queue = { discipline = "prio_small", threshold = "100B" }',
        'queue = { discipline = "red", min_th = "5pkt", max_th = 15, max_p = 0.1, weight = 0.002, gentle = true, wait = true, mean_pkt = "500B", limit = "200KB" }',
        'queue = { discipline = "red", min_th = "30KB", max_th = "90KB", limit = "200KB" }',
        'ring = { size = 256, bql = "30KB" }',
        'ring = { size = 256, bql = "off" }',
    ],
)
def test_every_direction_form_deserializes(extra):
    plan = loads_scenario(BASE.format(up=extra, traffic=""), engine_check=False).plan
    for msg in engine_problems(plan):
        assert UNSUPPORTED in msg, msg


@pytest.mark.parametrize(
    "block",
    [
        'kind = "udp"\nfrom = "client"\nto = "server"\nrate = "2Mbps"\nsize = "1000B"\nburst = { packets = 10, every = "1s" }\nttl = 3\nstart = "1s"\nstop = "5s"\narrivals = "cbr"',
        'kind = "ping"\nfrom = "client"\nto = "server"\ninterval = "10ms"\nsize = "1000B"\nstart = "uniform(0s,1s)"',
        'kind = "tcp"\nfrom = "client"\nto = "server"\nsize = "10pkt"\ncount = 2\ncc = "cubic"\nmin_rto = "200ms"\nmss = "1000B"\nrwnd = "64KB"',
        'kind = "web"\nfrom = "server"\nto = "client"\narrival_rate = "2/s"\nsize = "pareto(1.2, mean=36KB)"',
        'kind = "tcp_onoff"\nfrom = "server"\nto = "client"\nsize = "36KB"\nidle = "exp(1s)"',
    ],
)
def test_every_traffic_kind_deserializes(block):
    plan = loads_scenario(BASE.format(up="", traffic="[[traffic]]\n" + block), engine_check=False).plan
    for msg in engine_problems(plan):
        assert UNSUPPORTED in msg, msg


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_engine_refusals_name_the_files_keys(name):
    try:
        load_scenario(example_path(name))
    except ScenarioError as e:
        for p in e.problems:
            assert UNSUPPORTED in p.message, p
            # Mapped back from the plan's "links[0].forward..." to the file's keys.
            assert p.path.startswith(("topology.", "traffic[", "link[", "run.")), p


def test_engine_paths_map_back_to_file_keys():
    sc = load_scenario(example_path("braud-table2"), engine_check=False)
    from bufferlab.scenario import translate

    assert translate("links[0].forward.queue.qdisc: boom", sc.origins) == "topology.up.queue: boom"
    assert translate("links[0].reverse.rate_bps: boom", sc.origins) == "topology.down.rate: boom"
    assert translate("traffic[2].interval_ns: boom", sc.origins) == "traffic[2].interval: boom"
    assert translate("run.duration_ns: boom", sc.origins) == "run.duration: boom"
    assert translate("something odd happened", sc.origins) == "something odd happened"
    # The engine's problems carry their place as data: no text is taken apart.
    from bufferlab.scenario import translate_loc

    p = translate_loc(["links", 0, "forward", "queue", "qdisc", "target_ns"], "must be below interval", sc.origins)
    assert (p.path, p.loc, p.message) == (
        "topology.up.queue.target", ("topology", "up", "queue", "target"), "must be below interval"
    )
    assert translate_loc(["links", 0, "forward", "queue", "sizing", "scale"], "x", sc.origins) == "topology.up.queue.scale: x"
    assert translate_loc(["links", 0, "forward", "queue", "sizing", "rule"], "x", sc.origins) == "topology.up.queue.sizing: x"
    assert translate_loc(["traffic", 0, "tcp", "min_rto_ns"], "x", sc.origins) == "traffic[0].min_rto: x"


def test_discipline_refusals_name_the_files_key():
    doc = {**tomllib.loads(example_path("udp-fifo").read_text())}
    doc["topology"]["up"]["queue"] = {"discipline": "codel", "target": "200ms", "interval": "100ms"}
    with pytest.raises(ScenarioError) as e:
        load_scenario(doc)
    assert [p.path for p in e.value.problems] == ["topology.up.queue.target"], e.value.problems


def test_udp_fifo_end_to_end_is_an_md1_queue():
    r = bufferlab.run(example_path("udp-fifo"))
    q = r.queue("client->server")
    # M/D/1 (Pollaczek-Khinchine): mean wait = rho * S / (2 (1 - rho)); 1500 B at 10 Mb/s is
    # S = 1.2 ms and rho = 666.67 * 1.2 ms = 0.8, so 2.4 ms. A wrong rate or size conversion
    # (bits for bytes, pps for bps) would be far off.
    s = 1500 * 8 / 10e6
    rho = 666.67 * s
    expected = rho * s / (2 * (1 - rho))
    assert math.isclose(q["sojourn_mean_s"], expected, rel_tol=0.1), (q["sojourn_mean_s"], expected)
    assert q["limit_pkts"] == 1000 and q["discipline"] == "fifo"
    f = r.flow(r.summary["flows"][0]["id"])
    assert (f["src"], f["dst"]) == ("client", "server")
    assert math.isclose(r.links.set_index("link").loc["client->server", "utilization"], 0.8, rel_tol=0.03)
    assert r.summary["run"]["seed"] == 7


def test_same_seed_same_result_different_seed_different_result():
    a = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "20s", "run.measure": ["1s", "20s"]})
    b = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "20s", "run.measure": ["1s", "20s"]})
    c = bufferlab.run(example_path("udp-fifo"), seed=8, overrides={"run.duration": "20s", "run.measure": ["1s", "20s"]})
    strip = lambda r: {k: v for k, v in r.summary.items() if k != "engine"}  # noqa: E731
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


def test_timeseries_when_sampling():
    r = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "5s", "run.measure": ["0s", "5s"], "run.sample": "1s"})
    ts = r.timeseries
    assert list(ts.columns[:5]) == ["time_s", "object", "id", "metric", "value"]
    assert set(ts["id"]) >= {"client->server"}
    assert ts["time_s"].max() <= 5.0 and len(ts) > 0


def test_engine_value_errors_become_scenario_errors():
    sc = load_scenario(example_path("udp-fifo"), engine_check=False)
    plan = json.loads(sc.plan_json())
    plan["links"][0]["forward"]["queue"]["sizing"] = {"rule": "no-such-rule", "scale": 1.0}
    del plan["links"][0]["forward"]["queue"]["limit_pkts"]
    with pytest.raises(ScenarioError) as e:
        bufferlab.run_plan(plan, origins=sc.origins)
    assert any(p.path.startswith("topology.up.queue") for p in e.value.problems), e.value.problems


@pytest.mark.parametrize(
    "queue, limit_pkts, limit_bytes, sizing",
    [
        ('{ discipline = "fifo", limit = "50pkt" }', 50, None, None),
        ('{ discipline = "fifo", limit = "30KB" }', None, 30_000, None),
        ('{ discipline = "red", min_th = "5pkt", max_th = "15pkt", limit = "100pkt" }', 100, None, None),
        ('{ discipline = "red", min_th = "6KB", max_th = "20KB", limit = "100KB" }', None, 100_000, None),
        ('{ discipline = "codel" }', 1000, None, None),
        ('{ discipline = "fq_codel", quantum = 300 }', 10240, None, None),
        ('{ discipline = "pie" }', 1000, None, None),
        ('{ discipline = "splitbuff", limit = "100pkt" }', 100, None, None),
        ('{ discipline = "blind_splitbuff", limit = "100pkt" }', 100, None, None),
        ('{ discipline = "prio_small", threshold = "100B" }', 1000, None, None),
        # BDP of the 20 ms round trip at 10 Mb/s: 25 KB, 17 packets of 1500 B.
        ('{ sizing = "bdp" }', 17, None, "bdp"),
    ],
)
def test_every_discipline_runs_from_a_file(queue, limit_pkts, limit_bytes, sizing):
    doc = tomllib.loads(example_path("udp-fifo").read_text())
    doc["topology"]["up"]["queue"] = tomllib.loads("q = " + queue)["q"]
    doc["topology"]["up"]["ring"] = {"size": 64, "bql": "auto"}
    doc["topology"]["down"]["framing"] = "atm"
    doc["traffic"][0]["rate"] = "1000pps"  # 12 Mb/s into 10 Mb/s: the queue fills and drops
    doc["traffic"].append({"kind": "ping", "from": "client", "to": "server", "interval": "100ms"})
    doc["run"].update(duration="5s", measure=["1s", "5s"])
    r = bufferlab.run(doc)
    q = r.queue("client->server")
    kind = tomllib.loads("q = " + queue)["q"].get("discipline", "fifo")
    assert (q["discipline"], q["limit_pkts"], q["limit_bytes"], q["sizing"]) == (kind, limit_pkts, limit_bytes, sizing)
    assert sum(q["drops_by_reason"].values()) == q["dropped"]
    c = r.summary["conservation"]
    assert c["created"] == c["delivered"] + c["dropped"] + c["queued"] + c["in_flight"]
    assert r.links.set_index("link").loc["server->client", "framing"] == "atm"
    ping = r.flow(next(f["id"] for f in r.summary["flows"] if f["kind"] == "ping"))
    assert ping["rtt_mean_s"] >= 0.020  # at least the 2 x 10 ms of propagation
