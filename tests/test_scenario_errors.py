"""A scenario that cannot run is refused with every problem at once, each at its key path."""

from __future__ import annotations

import copy
import tomllib

import pytest
from conftest import example_doc, example_path

from bufferlab import Problem, ScenarioError, load_scenario, loads_scenario, validate


def problems(doc: dict) -> list[Problem]:
    """What the file's reading and the engine's check find (the engine owns every bound)."""
    try:
        load_scenario(doc)
    except ScenarioError as e:
        return e.problems
    return []


def mutate(name: str, fn) -> dict:
    doc = copy.deepcopy(example_doc(name))
    fn(doc)
    return doc


def setk(path: list, value):
    def fn(doc):
        d = doc
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value

    return fn


def delk(path: list):
    def fn(doc):
        d = doc
        for k in path[:-1]:
            d = d[k]
        del d[path[-1]]

    return fn


CASES = [
    # (example, mutation, key path, part of the message)
    ("dumbbell", setk(["topology", "bottleneck", "rate"], "10Mbsp"), "topology.bottleneck.rate", '"10Mbsp" is not a rate (try "10Mbps")'),
    ("dumbbell", setk(["topology", "bottleneck", "rate"], 10), "topology.bottleneck.rate", 'needs a unit (try "10Mbps"'),
    ("dumbbell", setk(["topology", "bottleneck", "rate"], "0Mbps"), "topology.bottleneck.rate", "greater than zero"),
    ("dumbbell", setk(["topology", "bottleneck", "rate"], "-10Mbps"), "topology.bottleneck.rate", "greater than zero"),
    ("dumbbell", setk(["topology", "bottleneck", "rate"], "250pps"), "topology.bottleneck.rate", "bits per second"),
    ("dumbbell", setk(["topology", "bottleneck", "delay"], "50"), "topology.bottleneck.delay", 'try "50ms"'),
    ("dumbbell", setk(["topology", "bottleneck", "delay"], "1000h"), "topology.bottleneck.delay", "at most 720 h, got 1000 h"),
    ("dumbbell", delk(["topology", "bottleneck", "delay"]), "topology.bottleneck.delay", "missing"),
    ("dumbbell", setk(["topology", "bottlenek"], {}), "topology.bottlenek", 'did you mean "bottleneck"?'),
    ("dumbbell", setk(["topology", "pairs"], 0), "topology.pairs", "too small"),
    ("dumbbell", setk(["topology", "pairs"], 10**6), "topology.pairs", "too large"),
    ("dumbbell", setk(["topology", "pairs"], "10"), "topology.pairs", "expected a number of sender/receiver pairs"),
    ("dumbbell", setk(["topology", "template"], "dumbell"), "topology.template", 'did you mean "dumbbell"?'),
    ("dumbbell", setk(["topology", "access", "delay"], ["1ms", "2ms"]), "topology.access.delay", "gives 2 delays for 10 pairs"),
    ("dumbbell", setk(["topology", "access", "delay"], "uniform(5ms,1ms)"), "topology.access.delay", "try uniform(1ms,5ms)"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "fifo", "sizing": "bdp2"}), "topology.bottleneck.queue.sizing", "not a sizing rule"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"sizing": "bdp", "limit": "10pkt"}), "topology.bottleneck.queue.limit", "either limit or sizing"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"limit": "10pkt", "scale": 2}), "topology.bottleneck.queue.scale", 'add sizing = "bdp"'),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "fq-codel"}), "topology.bottleneck.queue.discipline", '(try "fq_codel")'),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "fifo", "target": "5ms"}), "topology.bottleneck.queue.target", "fifo has no parameter 'target'"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "codel", "traget": "5ms"}), "topology.bottleneck.queue.traget", 'did you mean "target"?'),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "codel", "target": "0ms"}), "topology.bottleneck.queue.target", "must be at least 1 ns, got 0 ns (default 5 ms)"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "fq_codel", "limit": "64KB"}), "topology.bottleneck.queue.limit", "counts packets"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "splitbuff", "buffers": 4, "limit": "10pkt"}), "topology.bottleneck.queue.buffers", "must be at least 2 and at most 3, got 4"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"limit": "0pkt"}), "topology.bottleneck.queue.limit", "must be at least 1 packet and"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"limit": "10TB"}), "topology.bottleneck.queue.limit", "at most 1 TiB"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], "fifo"), "topology.bottleneck.queue", "expected a table"),
    ("dumbbell", setk(["topology", "bottleneck", "ring"], {"size": 0}), "topology.bottleneck.ring.size", "must be at least 1 and"),
    ("dumbbell", setk(["topology", "bottleneck", "ring"], {"size": 64, "bql": "on"}), "topology.bottleneck.ring.bql", '"auto", "off" or a byte limit'),
    ("dumbbell", setk(["topology", "bottleneck", "ring"], {"bql": "auto"}), "topology.bottleneck.ring.size", "missing"),
    ("dumbbell", setk(["topology", "bottleneck", "framing"], "aal5"), "topology.bottleneck.framing", "not one of"),
    ("dumbbell", setk(["topology", "bottleneck", "loss"], 1.5), "topology.bottleneck.loss", "must be at least 0 and at most 1, got 1.5"),
    ("dumbbell", setk(["topology", "bottleneck_reverse"], {"rate": "1Gbsp"}), "topology.bottleneck_reverse.rate", 'try "1Gbps"'),
    ("dumbbell", setk(["traffic", 0, "from"], "sendrs"), "traffic[0].from", 'did you mean "senders"?'),
    ("dumbbell", setk(["traffic", 0, "to"], ["d1", "d2"]), "traffic[0].to", "2 destinations cannot pair with 10 sources"),
    ("dumbbell", setk(["traffic", 0, "cc"], "reno"), "traffic[0].cc", 'did you mean "newreno"?'),
    ("dumbbell", setk(["traffic", 0, "start"], "uniform(0s,1)"), "traffic[0].start", "needs a unit"),
    ("dumbbell", setk(["traffic", 0, "kind"], "tpc"), "traffic[0].kind", 'did you mean "tcp"?'),
    ("dumbbell", delk(["traffic", 0, "kind"]), "traffic[0].kind", "missing"),
    ("dumbbell", setk(["traffic", 0, "windw"], 3), "traffic[0].windw", "unknown key"),
    ("dumbbell", setk(["traffic", 0, "stop"], "10s"), "traffic[0].stop", "not supported yet"),
    ("dumbbell", setk(["traffic", 0, "beta"], 1.5), "traffic[0].beta", "must be above 0 and below 1, got 1.5"),
    ("dumbbell", setk(["traffic", 0, "mss"], 1460), "traffic[0].mss", 'try "1460B"'),
    ("dumbbell", setk(["traffic", 0, "mss"], "20B"), "traffic[0].mss", "must be at least 64 B and at most 65495 B, got 20 B (default 1460 B)"),
    ("dumbbell", setk(["traffic", 0, "sack"], "yes"), "traffic[0].sack", "expected true or false"),
    ("dumbbell", setk(["traffic", 0, "size"], "infinite"), "traffic[0].size", 'write "inf"'),
    ("dumbbell", setk(["traffic", 0, "count"], 0), "traffic[0].count", "must be at least 1 and at most 100000, got 0"),
    ("braud-table2", setk(["run", "duration"], "0s"), "run.duration", "at least 1 ns"),
    ("braud-table2", setk(["run", "duration"], "100d"), "run.duration", "not a time"),
    ("braud-table2", setk(["run", "duration"], "1000h"), "run.duration", "at most 720 h"),
    ("braud-table2", delk(["run", "duration"]), "run.duration", "missing"),
    ("braud-table2", setk(["run", "seed"], -1), "run.seed", "too small"),
    ("braud-table2", setk(["run", "seed"], 1.5), "run.seed", "expected a seed"),
    ("braud-table2", setk(["run", "measure"], ["150s", "50s"]), "run.measure", 'try ["50s", "150s"]'),
    ("braud-table2", setk(["run", "measure"], ["50s", "250s"]), "run.measure", 'after the run (duration 200s); measure within it (try ["50s", "200s"])'),
    ("braud-table2", setk(["run", "measure"], ["250s", "300s"]), "run.measure", '(try ["0s", "200s"])'),
    ("braud-table2", setk(["run", "measure"], "50s"), "run.measure", "expected a window"),
    ("braud-table2", setk(["run", "measure"], ["50s", "1x"]), "run.measure[1]", "not a time"),
    ("braud-table2", setk(["run", "sample"], "1ns"), "run.sample", "longer step"),
    ("braud-table2", setk(["run", "sampel"], "1s"), "run.sampel", 'did you mean "sample"?'),
    ("braud-table2", setk(["topology", "up", "rate"], "800kbsp"), "topology.up.rate", 'try "800kbps"'),
    ("braud-table2", delk(["topology", "down"]), "topology.down", "missing"),
    ("braud-table2", setk(["traffic", 1, "rate"], "250"), "traffic[1].rate", 'try "250Mbps" or "250pps"'),
    ("braud-table2", setk(["traffic", 1, "size"], "10B"), "traffic[1].size", "must be at least 28 B and at most 65535 B, got 10 B"),
    ("braud-table2", setk(["traffic", 1, "size"], "100KB"), "traffic[1].size", "at most 65535 B, got 100000 B"),
    ("braud-table2", setk(["traffic", 1, "ttl"], 0), "traffic[1].ttl", "must be at least 1 and at most 255, got 0"),
    ("braud-table2", setk(["traffic", 1, "rate"], "9Tbps"), "traffic[1].rate", "at most 1000000000 packets/s"),
    ("braud-table2", setk(["traffic", 1, "arrivals"], "possion"), "traffic[1].arrivals", 'did you mean "poisson"?'),
    ("braud-table2", setk(["traffic", 1, "burst"], {"packets": 10}), "traffic[1].burst.every", "missing"),
    ("braud-table2", setk(["traffic", 1, "stop"], "0s"), "traffic[1].stop", "before the source starts"),
    ("braud-table2", setk(["traffic", 2, "to"], "client"), "traffic[2].to", "also the source"),
    ("braud-table2", setk(["traffic", 2, "to"], "sever"), "traffic[2].to", 'did you mean "server"?'),
    ("braud-table2", setk(["traffic", 2, "interval"], "0s"), "traffic[2].interval", "must be at least 1 ns, got 0 ns"),
    ("braud-table2", setk(["traffic", 2, "size"], "20B"), "traffic[2].size", "must be at least 28 B"),
    ("braud-table2", setk(["bogus"], 1), "bogus", "unknown key"),
    ("braud-table2", setk(["traffic"], {"kind": "ping"}), "traffic[0].from", "missing"),
    ("braud-table2", setk(["traffic"], "ping"), "traffic", "expected [[traffic]] tables"),
    ("braud-table2", setk(["topology"], "access"), "topology", "expected a table"),
    ("braud-table2", delk(["topology"]), "topology", "missing"),
    ("braud-table2", delk(["run"]), "run", "missing"),
    ("web-poisson", setk(["traffic", 1, "size"], "zipf(1.7)"), "traffic[1].size", "zipf needs max"),
    ("web-poisson", setk(["traffic", 1, "size"], "zipf(0, max=10pkt)"), "traffic[1].size", "exponent"),
    ("web-poisson", setk(["traffic", 1, "arrival_rate"], 1), "traffic[1].arrival_rate", 'try "1/s"'),
    ("web-poisson", delk(["traffic", 1, "size"]), "traffic[1].size", "missing"),
    ("web-poisson", setk(["traffic", 1, "count"], 3), "traffic[1].count", "not supported yet"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "red", "max_p": float("nan"), "limit": "10pkt"}), "topology.bottleneck.queue.max_p", "expected a number, got nan"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "red", "min_th": "30KB", "max_th": "20pkt"}), "topology.bottleneck.queue.max_th", "same unit"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "red", "min_th": "30KB"}), "topology.bottleneck.queue.min_th", "give both min_th and max_th in bytes"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "red", "min_th": "1ms"}), "topology.bottleneck.queue.min_th", "is a time, not a size"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "red", "min_th": 20, "max_th": 10}), "topology.bottleneck.queue.max_th", "must not be below min_th (20)"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "red", "avpkt": "500B"}), "topology.bottleneck.queue.avpkt", "unknown key"),
    ("dumbbell", setk(["topology", "bottleneck", "queue"], {"discipline": "blind_splitbuff", "update": "1s"}), "topology.bottleneck.queue.update", "blind_splitbuff has no parameter 'update'"),
    ("splitbuff", setk(["topology", "bottleneck", "queue", "buffers"], 1), "topology.bottleneck.queue.buffers", "must be at least 2"),
    ("splitbuff", setk(["topology", "bottleneck", "queue", "smoothing"], 0), "topology.bottleneck.queue.smoothing", "must be above 0 and at most 1, got 0"),
    ("linux-stack", setk(["topology", "up", "ring", "bql"], "5B"), "topology.up.ring.bql", "at least 64 B"),
    ("linux-stack", setk(["topology", "up", "ring", "gso"], "yes"), "topology.up.ring.gso", "expected true or false"),
    ("linux-stack", setk(["topology", "up", "ring", "gso"], "true"), "topology.up.ring.gso", "write true without quotes"),
    ("linux-stack", setk(["topology", "up", "queue", "quantum"], 10), "topology.up.queue.quantum", "must be at least 64 B and at most 1 MiB, got 10 B (default 1514 B)"),
]


@pytest.mark.parametrize("name, fn, path, message", CASES, ids=[f"{c[2]}:{c[3][:30]}" for c in CASES])
def test_error_names_the_key_and_the_fix(name, fn, path, message):
    ps = problems(mutate(name, fn))
    assert ps, "the mutation should have been refused"
    matching = [p for p in ps if p.path == path]
    assert matching, f"no problem at {path}: {ps}"
    assert any(message in p.message for p in matching), matching


def test_every_problem_is_reported_at_once():
    doc = example_doc("dumbbell")
    doc["topology"]["bottleneck"]["rate"] = "10Mbsp"
    doc["topology"]["bottleneck"]["delay"] = 50
    doc["traffic"][0]["cc"] = "reno"
    doc["run"]["duratoin"] = doc["run"].pop("duration")
    paths = [p.path for p in problems(doc)]
    assert {"topology.bottleneck.rate", "topology.bottleneck.delay", "traffic[0].cc", "run.duratoin", "run.duration"} <= set(paths)
    assert len(paths) == len(set(paths))  # each once


# Thirteen independent mistakes of every kind, in one file: each must be reported on the first
# try, not after the others are fixed (the reader's, the bounds', the rules across keys that
# only the engine's build used to find, and those of parts of a link the others spoil).
EVERY_KIND = """
[run]
duration = "1000s"
measure = ["800s", "200s"]      # reversed window
sample = "1us"                  # 1e9 samples per series
[topology]
template = "access"
[topology.up]
rate = "10Mbps"
delay = "10 parsecs"            # bad unit
reorder = "25%"                 # unknown key
queue = { discipline = "codel", limit = "100pkt", target = "200ms", interval = "100ms" }  # target >= interval
[topology.down]
rate = "20Tbps"                 # out of range
delay = "10ms"
queue = { discipline = "fifoo", limit = "0pkt" }  # unknown discipline, zero limit
[[traffic]]
kind = "tcp"
from = "sender"                 # unknown node
to = "server"
[[traffic]]
kind = "udp"
from = "client"
to = "server"
rate = "1Mbps"
size = true                     # wrong type
[[traffic]]
kind = "tpc"                    # misspelt kind
from = "client"
to = "server"
[[traffic]]
kind = "tcp"
from = "server"
to = "client"
min_rto = "10s"                 # above max_rto
max_rto = "1s"
[[traffic]]
kind = "web"
from = "server"
to = "client"
arrival_rate = "1/s"
size = "10KB"
rwnd = "100B"                   # less than a segment
"""


def test_a_file_with_every_kind_of_mistake_reports_them_all_in_one_pass(tmp_path):
    from typer.testing import CliRunner

    from bufferlab.cli import app

    f = tmp_path / "every.toml"
    f.write_text(EVERY_KIND)
    want = {
        "run.measure": "the window ends before it starts",
        "run.sample": "samples per series",
        "topology.up.delay": "unknown unit",
        "topology.up.reorder": "unknown key",
        "topology.up.queue.target": "must be below interval",
        "topology.down.rate": "absurd rate",
        "topology.down.queue.discipline": 'did you mean "fifo"',
        "topology.down.queue.limit": "at least 1 packet",
        "traffic[0].from": 'unknown node or group "sender"',
        "traffic[1].size": "got true",
        "traffic[2].kind": 'did you mean "tcp"',
        "traffic[3].min_rto": "above max_rto",
        "traffic[4].rwnd": "less than one segment",
    }
    got = {p.path: p.message for p in problems(tomllib.loads(EVERY_KIND))}
    assert set(got) == set(want), sorted(got)
    for path, words in want.items():
        assert words in got[path], (path, got[path])
    r = CliRunner().invoke(app, ["validate", str(f)])
    assert r.exit_code == 2
    assert f"{len(want)} problems" in r.stderr, r.stderr
    for path in want:
        assert f"{path}: " in r.stderr


def test_a_missing_direction_does_not_hide_the_others_problems():
    # An access link with its downlink left out: the uplink's own mistakes come in the same report.
    # Its nodes are known without the link, so a misspelt endpoint is reported too (the routes,
    # which need the link, are not judged).
    doc = {
        "topology": {"template": "access", "up": {"rate": "3333362e33707073", "delay": "1 parsec"}},
        "traffic": [{"kind": "tcp", "from": "sender", "to": "server"}, {"kind": "tcp", "from": "client", "to": "server"}],
    }
    got = {p.path: p.message for p in problems(doc)}
    assert set(got) == {"run", "topology.down", "topology.up.rate", "topology.up.delay", "traffic[0].from"}, got
    assert 'unknown node or group "sender"' in got["traffic[0].from"], got
    assert "a rate needs a unit" in got["topology.up.rate"] and "unknown unit" in got["topology.up.delay"], got
    # A dumbbell without its bottleneck: the access links' and the reverse direction's too.
    doc = {
        "run": {"duration": "10s"},
        "topology": {"template": "dumbbell", "pairs": 2, "access": {"delay": "1 parsec"},
                     "bottleneck_reverse": {"rate": "10Mbsp"}},
        "traffic": [{"kind": "tcp", "from": "senders", "to": "receivers"}, {"kind": "tcp", "from": "s1", "to": "dd1"}],
    }
    got = {p.path: p.message for p in problems(doc)}
    assert set(got) == {"topology.bottleneck", "topology.access.delay", "topology.bottleneck_reverse.rate",
                        "traffic[1].to"}, got
    # A number of pairs it cannot take: the names any dumbbell has still judge the endpoints.
    doc = mutate("dumbbell", setk(["topology", "pairs"], 0))
    doc["traffic"][0]["to"] = "dd1"
    doc["traffic"].append({**doc["traffic"][0], "from": "s3", "to": "d3"})
    got = {p.path: p.message for p in problems(doc)}
    assert set(got) == {"topology.pairs", "traffic[0].to"}, got
    assert 'unknown node or group "dd1" (did you mean "d1"?)' in got["traffic[0].to"], got


def test_an_unknown_node_among_thousands_gets_a_line_not_a_page():
    doc = mutate("dumbbell", setk(["topology", "pairs"], 5000))
    doc["traffic"][0]["to"] = "dd1"
    (problem,) = problems(doc)
    assert problem.path == "traffic[0].to", problem
    assert problem.message == ('unknown node or group "dd1" (did you mean "d1"?); '
                               "known: s1..s5000, r1, r2, d1..d5000, senders, receivers"), problem.message


def test_problems_are_strings_with_path_and_message():
    ps = problems(mutate("dumbbell", setk(["topology", "bottleneck", "rate"], "10Mbsp")))
    (p,) = ps
    assert p == 'topology.bottleneck.rate: "10Mbsp" is not a rate (try "10Mbps")'
    assert (p.path, p.message) == ("topology.bottleneck.rate", '"10Mbsp" is not a rate (try "10Mbps")')


def test_unknown_nodes_and_unreachable_destinations():
    base = """
[run]
duration = "1s"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
[[link]]
between = ["b", "x"]
rate = "1Mbps"
delay = "1ms"
[[link]]
between = ["a", "b"]
rate = "1Mbps"
[[traffic]]
kind = "udp"
from = "a"
to = "c"
rate = "1pps"
size = "100B"
"""
    with pytest.raises(ScenarioError) as e:
        loads_scenario(base, engine_check=False)
    got = {p.path: p.message for p in e.value.problems}
    assert 'unknown node "x"' in got["link[1].between[1]"]
    assert "a second link" in got["link[2].between"]
    assert "missing" in got["link[2].delay"]
    assert 'cannot be reached from "a"' in got["traffic[0].to"]


def test_files_that_cannot_be_read(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('[run]\nduration = "1s\n')
    with pytest.raises(ScenarioError) as e:
        load_scenario(bad)
    assert "not valid TOML" in str(e.value) and "line 2" in str(e.value)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8" in validate(binary)[0]
    assert "is a directory" in validate(tmp_path)[0]


def test_bad_overrides_and_seed():
    with pytest.raises(ScenarioError) as e:
        load_scenario(example_path("udp-fifo"), overrides={"traffic[3].rate": "1pps"})
    assert e.value.problems[0].path == "traffic[3].rate"
    with pytest.raises(ScenarioError, match="too small"):
        load_scenario(example_path("udp-fifo"), seed=-3)


def test_scenario_error_pickles():
    import pickle

    e = ScenarioError([Problem("a.b", "bad")], "f.toml")
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.problems == ["a.b: bad"] and e2.problems[0].path == "a.b" and e2.source == "f.toml"


def test_a_value_where_a_table_belongs_is_one_problem():
    doc = example_doc("braud-table2")
    doc["topology"]["up"] = "800kbps"
    doc["run"] = 200
    assert [p.path for p in problems(doc)] == ["run", "topology.up"]


def test_a_number_its_type_cannot_hold_is_placed_at_its_key():
    """A negative ring size reads as a number; the plan's type holds none below zero: the problem
    names the key and the range, not 'the plan cannot be read'."""
    doc = example_doc("linux-stack")
    doc["topology"]["up"]["ring"]["size"] = -1
    (p,) = problems(doc)
    assert p.path == "topology.up.ring.size", p
    assert "cannot be read" not in p.message


def test_a_zero_duration_is_one_problem_not_also_the_window():
    # The window cannot fit in a run of no time, and suggesting ["0s", "0s"] for it is noise: the
    # duration's own problem says what to fix.
    doc = example_doc("braud-table2")
    doc["run"]["duration"] = "0s"
    assert [p.path for p in problems(doc)] == ["run.duration"]
