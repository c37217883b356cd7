"""Sweep specs: key paths, grid × zip × seeds expansion, identifiers, and spec errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bufferlab.errors import ScenarioError
from bufferlab.sweep import KeyPathError, load_spec, set_path
from bufferlab.sweep.keypath import parse

from conftest import example_path


def test_parse_key_paths():
    assert parse("run.duration") == ["run", "duration"]
    assert parse("traffic[0].rate") == ["traffic", 0, "rate"]
    assert parse("topology.access.delay[1]") == ["topology", "access", "delay", 1]
    for bad in ["", "run..duration", "traffic[x].rate", "run.dur ation", ".run"]:
        with pytest.raises(KeyPathError):
            parse(bad)


def test_set_path_creates_tables_and_indexes_arrays():
    doc = {"run": {"duration": "1s"}, "traffic": [{"kind": "udp", "rate": "1pps"}]}
    set_path(doc, "traffic[0].rate", "5pps")
    set_path(doc, "run.sample", "10ms")
    set_path(doc, "topology.up.queue", {"discipline": "fifo", "limit": "5pkt"})
    assert doc["traffic"][0]["rate"] == "5pps"
    assert doc["run"] == {"duration": "1s", "sample": "10ms"}
    assert doc["topology"]["up"]["queue"]["limit"] == "5pkt"


def test_set_path_errors_name_the_path():
    doc = {"run": {"duration": "1s"}, "traffic": [{"kind": "udp"}]}
    with pytest.raises(KeyPathError, match=r"traffic\[3\]\.rate: traffic has 1 entry, so index 3 is out of range"):
        set_path(doc, "traffic[3].rate", "1pps")
    with pytest.raises(KeyPathError, match="run.duration is not a table"):
        set_path(doc, "run.duration.x", 1)
    with pytest.raises(KeyPathError, match="run is not an array"):
        set_path(doc, "run[0]", 1)


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_grid_zip_seeds_expand_in_order(tmp_path):
    (tmp_path / "base.toml").write_text(example_path("udp-fifo").read_text())
    spec = load_spec(write(tmp_path, """
        base = "base.toml"
        seeds = 2
        [set]
        "run.duration" = "2s"
        [grid]
        "traffic[0].rate" = ["100pps", "200pps", "300pps"]
        "topology.up.queue" = [{ discipline = "fifo", limit = "5pkt" }, { discipline = "fifo", limit = "50pkt" }]
        [zip]
        "topology.up.rate" = ["5Mbps", "10Mbps"]
        "topology.up.delay" = ["1ms", "2ms"]
    """))
    assert spec.swept_keys == ["traffic[0].rate", "topology.up.queue", "topology.up.rate", "topology.up.delay"]
    points = spec.points("v1")
    assert len(points) == 3 * 2 * 2 * 2
    # seeds vary fastest, then the zip, then the grid's last key
    assert [p.seed for p in points[:4]] == [1, 2, 1, 2]
    assert points[0].params == {
        "traffic[0].rate": "100pps",
        "topology.up.queue": {"discipline": "fifo", "limit": "5pkt"},
        "topology.up.rate": "5Mbps",
        "topology.up.delay": "1ms",
    }
    assert points[2].params["topology.up.rate"] == "10Mbps" and points[2].params["topology.up.delay"] == "2ms"
    sc = points[-1].scenario
    assert sc["run"]["duration"] == "2s" and sc["run"]["seed"] == 2
    assert sc["traffic"][0]["rate"] == "300pps" and sc["topology"]["up"]["queue"]["limit"] == "50pkt"
    # the base is untouched and the points do not share state
    assert spec.base["traffic"][0]["rate"] == "666.67pps"
    assert points[0].scenario["traffic"][0]["rate"] == "100pps"


def test_identifiers(tmp_path):
    base = {"run": {"duration": "1s", "seed": 5}, "traffic": [{"kind": "udp", "rate": "1pps"}]}
    spec = load_spec({"base": base, "seeds": [3, 4], "grid": {"traffic[0].rate": ["1pps", "2pps"]}})
    a = spec.points("v1")
    # all seeds of a point share its point_id; each point x seed has its own key and part
    assert a[0].point_id == a[1].point_id != a[2].point_id
    assert len({p.key for p in a}) == 4
    # the key depends on the engine version; the point_id does not
    b = spec.points("v2")
    assert [p.point_id for p in a] == [p.point_id for p in b]
    assert not {p.key for p in a} & {p.key for p in b}
    # the point_id is the scenario's, not its place in the grid
    flipped = load_spec({"base": base, "seeds": [3, 4], "grid": {"traffic[0].rate": ["2pps", "1pps"]}})
    assert {p.part for p in flipped.points("v1")} == {p.part for p in a}


def test_seeds_default_to_the_base_seed():
    spec = load_spec({"base": {"run": {"seed": 9}}, "grid": {"run.duration": ["1s", "2s"]}})
    assert [p.seed for p in spec.points("v")] == [9, 9]


def test_spec_errors_name_the_key(tmp_path):
    with pytest.raises(ScenarioError) as e:
        load_spec({
            "base": {"run": {}},
            "seeds": 0,
            "grd": {},
            "grid": {"run.duration": "1s", "run.seed": [1, 2]},
            "zip": {"a.b": [1, 2], "a.c": [1]},
        })
    text = "\n".join(e.value.problems)
    assert 'grd: unknown key (did you mean "grid"?)' in text
    assert "seeds: 0 must be at least 1" in text
    assert 'grid."run.duration": must be a non-empty list' in text
    assert 'grid."run.seed": vary seeds with seeds = N' in text
    assert "zip: zipped lists must have the same length" in text
    with pytest.raises(ScenarioError, match='base: no scenario file "nope.toml"'):
        load_spec(write(tmp_path, 'base = "nope.toml"\n'))
    with pytest.raises(ScenarioError, match=r"traffic\[2\]\.rate: traffic has 1 entry"):
        load_spec({"base": {"traffic": [{}]}, "grid": {"traffic[2].rate": ["1pps"]}}).points("v")


def test_a_scenario_handed_to_sweep_is_named_as_one(tmp_path):
    """A first sweep often gets the scenario itself: one message that says what a spec is and
    how to run the scenario, not an unknown key per scenario table."""
    with pytest.raises(ScenarioError) as e:
        load_spec(example_path("dumbbell"))
    assert len(e.value.problems) == 1, e.value.problems
    text = e.value.problems[0]
    assert text.startswith("a scenario, not a sweep spec"), text
    assert 'base = "dumbbell.toml"' in text and f"bufferlab run {example_path('dumbbell')}" in text, text


def test_seeds_a_results_folder_cannot_keep_are_refused():
    """A count of seeds too large to list, or a seed above the store's 64-bit signed column,
    is a problem named at `seeds`, not an exception from the store after the runs."""
    from bufferlab.sweep.spec import MAX_SEEDS, MAX_STORED_SEED

    base = str(example_path("udp-fifo"))
    with pytest.raises(ScenarioError, match="more than a sweep takes"):
        load_spec({"base": base, "seeds": MAX_SEEDS + 1})
    with pytest.raises(ScenarioError, match="the largest seed a results folder keeps"):
        load_spec({"base": base, "seeds": [MAX_STORED_SEED + 1]}).points("v")
    assert len(load_spec({"base": base, "seeds": [MAX_STORED_SEED]}).points("v")) == 1
