"""Sweeps at their edges: every point checked before any runs, swept quantities stored as numbers
beside their labels, a results folder checked before the sweep, and workers that outlive their
parent leaving quietly."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import example_path
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app
from bufferlab.outpath import OutputError
from bufferlab.store import load, query
from bufferlab.sweep import load_spec, run_sweep
from bufferlab.sweep.backends import _worker_main

runner = CliRunner()


def spec_file(tmp_path: Path, grid: str, seeds: int = 2, duration: str = "1s", base: str = "udp-fifo",
              also: str = "") -> Path:
    """A sweep spec over an example (``also``: more lines of its [set])."""
    p = tmp_path / "s.toml"
    p.write_text(textwrap.dedent(f"""
        base = "{example_path(base)}"
        seeds = {seeds}
        [set]
        "run.duration" = "{duration}"
        "run.measure" = ["0s", "{duration}"]
    """) + textwrap.dedent(also) + "[grid]\n" + textwrap.dedent(grid))
    return p


# ---------------------------------------------------------------- checked before any runs


def test_a_typo_in_a_grid_key_is_refused_before_anything_runs(tmp_path):
    spec = spec_file(tmp_path, '"topology.up.queue.limt" = ["10pkt", "100pkt"]\n')
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "o"), "-q", "-j", "1"])
    assert res.exit_code == 2, res.output
    assert 'topology.up.queue.limt: unknown key (did you mean "limit"?)' in res.output
    assert 'in point 1 of 2 (topology.up.queue.limt="10pkt") (and 1 more point)' in res.output
    assert not (tmp_path / "o").exists()


def test_one_bad_value_among_good_ones_stops_the_whole_sweep(tmp_path):
    spec = spec_file(tmp_path, '''
        "traffic[0].rate" = ["300pps", "fast", "500pps"]
        "topology.up.queue.limit" = ["10pkt", "100pkt"]
    ''')
    with pytest.raises(bufferlab.ScenarioError) as e:
        run_sweep(spec, tmp_path / "o", backend="inline", run_fn=None)
    text = "\n".join(e.value.problems)
    assert 'traffic[0].rate: "fast" is not a rate' in text
    assert 'point 3 of 6 (traffic[0].rate="fast", topology.up.queue.limit="10pkt") (and 1 more point)' in text
    assert not (tmp_path / "o").exists()
    # --dry-run checks too: it lists only runs that can run
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "o"), "--dry-run"])
    assert res.exit_code == 2 and '"fast" is not a rate' in res.output


def test_a_value_only_the_engine_refuses_is_caught_too(tmp_path):
    spec = spec_file(tmp_path, '"run.sample" = ["1s", "0s"]\n', seeds=1)
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "o"), "-q"])
    assert res.exit_code == 2
    assert "run.sample" in res.output and 'point 2 of 2 (run.sample="0s")' in res.output


# ---------------------------------------------------------------- typed swept values


def test_swept_quantities_are_stored_as_numbers_beside_their_labels(tmp_path):
    spec = spec_file(tmp_path, '''
        "topology.up.queue.limit" = ["100pkt", "10pkt", "2pkt"]
        "topology.up.rate" = ["9Mbps", "10Mbps"]
    ''', seeds=1)
    out = tmp_path / "o"
    run_sweep(spec, out, backend="inline")
    p = load(out).points
    assert p["topology.up.queue.limit:value"].dtype == "float64"
    assert set(p["topology.up.queue.limit:unit"]) == {"pkt"} and set(p["topology.up.rate:unit"]) == {"bps"}
    rows = query(out, 'SELECT DISTINCT "topology.up.queue.limit" AS q FROM points ORDER BY "topology.up.queue.limit:value"')
    assert rows["q"].tolist() == ["2pkt", "10pkt", "100pkt"]  # as text: "100pkt" < "10pkt" < "2pkt"
    rates = query(out, 'SELECT DISTINCT "topology.up.rate:value" AS r FROM points ORDER BY r')["r"].tolist()
    assert rates == [9e6, 10e6]
    # joined onto the run tables by with_params, as the plots use them
    q = load(out).with_params("queues")
    assert {"topology.up.queue.limit:value", "topology.up.rate:value"} <= set(q.columns)


def test_plain_and_table_values_get_no_typed_columns(tmp_path):
    spec = spec_file(tmp_path, '''
        "topology.up.queue" = [{ discipline = "fifo", limit = "5pkt" }, { discipline = "codel" }]
        "traffic[0].size" = [1000, 1500]
    '''.replace("[1000, 1500]", '["1000B", "1500B"]'), seeds=1)
    out = tmp_path / "o"
    run_sweep(spec, out, backend="inline")
    cols = set(load(out).points.columns)
    assert "topology.up.queue" in cols and not any(c.startswith("topology.up.queue:") for c in cols)
    assert {"traffic[0].size:value", "traffic[0].size:unit"} <= cols


# ---------------------------------------------------------------- --out of a sweep


def test_sweep_out_is_checked_before_running(tmp_path):
    spec = spec_file(tmp_path, '"topology.up.queue.limit" = ["10pkt"]\n', seeds=1)
    (tmp_path / "file").write_text("x")
    for out, words in [(tmp_path / "file", "is a file"), (tmp_path / "file" / "sub", "is a file, so"),
                       (Path("/proc/bufferlab-out"), "cannot write in /proc")]:
        res = runner.invoke(app, ["sweep", str(spec), "--out", str(out), "-q"])
        assert res.exit_code == 2, res.output
        assert words in res.output and "Errno" not in res.output and "Traceback" not in res.output
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(other), "-q"])
    assert res.exit_code == 2 and "already holds other files" in res.output
    assert sorted(p.name for p in other.iterdir()) == ["keep.txt"]
    with pytest.raises(OutputError, match="already holds other files"):
        run_sweep(spec, other, backend="inline")  # the Python API refuses it too
    assert sorted(p.name for p in other.iterdir()) == ["keep.txt"]


# ---------------------------------------------------------------- workers whose parent died


def _point():
    spec = load_spec({"base": str(example_path("udp-fifo")), "set": {"run.duration": "1s", "run.measure": ["0s", "1s"]}})
    return spec.points("test")[0]


def test_a_worker_whose_parent_is_gone_returns_quietly():
    parent, child = multiprocessing.Pipe()
    parent.send(_point())
    parent.close()  # the parent dies while the worker runs the point
    assert _worker_main(child, "test", None) is None  # no BrokenPipeError


# A signal to a running sweep races with its work: one at a time (`make test`'s serial lane).
@pytest.mark.serial
def test_a_killed_sweep_leaves_no_traceback_from_its_workers(tmp_path):
    spec = spec_file(tmp_path, '"traffic[0].rate" = ["300pps", "500pps", "700pps", "800pps"]\n', seeds=2,
                     duration="300s")
    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "bufferlab.cli", "sweep", str(spec), "--out", str(out), "-j", "2", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "parts").is_dir() and any((out / "parts").iterdir()):
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)  # only the parent: its workers are left running
    proc.wait()
    err = proc.stderr.read().decode()  # until the last worker has closed its stderr
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


@pytest.mark.parametrize("workers", [0, -1, 1.5])
def test_a_worker_count_below_one_is_refused_as_the_command_refuses_it(workers, tmp_path):
    spec = {"base": str(example_path("udp-fifo")), "grid": {"traffic[0].rate": ["1Mbps"]}}
    with pytest.raises(ValueError, match="at least 1"):
        run_sweep(spec, tmp_path / "out", workers=workers)
    assert not (tmp_path / "out").exists()


def test_a_point_whose_seeds_ran_the_same_is_named(tmp_path):
    """Seeds of a scenario that draws nothing at random are one run repeated: the sweep names
    the point and says what to change; a point with random starts is not named."""
    spec = spec_file(tmp_path, '"traffic[0].start" = ["0s", "uniform(0s, 1s)"]\n', duration="5s", base="dumbbell",
                     also='"topology.pairs" = 2\n')
    r = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "out"), "-q"])
    assert r.exit_code == 0, r.output
    pts = load(tmp_path / "out").points
    fixed = pts.loc[pts["traffic[0].start"] == "0s", "point_id"].iloc[0]
    assert f"warning: 1 of 2 points with several seeds gave the same figures at every seed ({fixed})" in r.output
    assert 'start = "uniform(0s, 1s)"' in r.output


def test_same_at_every_seed_reads_the_flows_alone():
    import pandas as pd

    from bufferlab.sweep.same_seeds import same_at_every_seed

    rows = []
    for pid, moved in (("a", False), ("b", True), ("c", False)):
        for seed in (1, 2, 3) if pid != "c" else (1,):
            for fid, rtt in (("tcp-1", 0.1), ("udp-1", float("nan"))):
                g = 1e6 + (seed if moved and fid == "tcp-1" else 0)
                rows.append({"point_id": pid, "seed": seed, "id": fid, "goodput_bps": g, "rtt_mean_s": rtt,
                             "pkts_sent": 10, "pkts_dropped": 0, "bytes_delivered": 100})
    # "a": the same at every seed (a UDP flow's missing RTT included); "b": one flow moved;
    # "c": one seed, nothing to compare.
    assert same_at_every_seed(pd.DataFrame(rows)) == ["a"]
    assert same_at_every_seed(pd.DataFrame()) == []


def test_a_base_that_names_a_trace_runs_from_any_folder(tmp_path, monkeypatch):
    """A base scenario's `trace(FILE)` is relative to the base's folder, as `bufferlab run` reads
    it, wherever the spec and the working directory are; the point's identity keeps the name as
    written, so the same scenarios in another folder give the same points."""
    import shutil

    repo = Path(__file__).resolve().parent.parent / "scenarios"
    ids = []
    for where in ("a", "b"):
        shutil.copytree(repo / "traces", tmp_path / where / "traces")
        shutil.copy(repo / "cellular.toml", tmp_path / where / "cellular.toml")
        (tmp_path / "specs").mkdir(exist_ok=True)
        spec = tmp_path / "specs" / f"{where}.toml"
        spec.write_text(textwrap.dedent(f"""
            base = "../{where}/cellular.toml"
            seeds = 1
            [set]
            "run.duration" = "2s"
            "run.measure" = ["0s", "2s"]
            """))
        (tmp_path / "elsewhere").mkdir(exist_ok=True)
        monkeypatch.chdir(tmp_path / "elsewhere")
        sp = load_spec(spec)
        pts = sp.points("v")
        traces = [v for v in json_strings(pts[0].scenario) if v.startswith("trace(")]
        assert traces and all(Path(t[len("trace("):-1]).is_file() for t in traces), traces
        rep = run_sweep(sp, tmp_path / f"out-{where}", backend="inline")
        assert rep.done == 1 and rep.failed == 0
        ids.append(pts[0].point_id)
    assert ids[0] == ids[1]


def json_strings(v):
    """Every string in a nested document."""
    if isinstance(v, dict):
        for x in v.values():
            yield from json_strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from json_strings(x)
    elif isinstance(v, str):
        yield v


def test_a_sweep_says_it_writes_no_captures(tmp_path):
    spec = spec_file(tmp_path, "", seeds=1, also='"run.capture" = ["client->server"]\n')
    r = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "out"), "-q"])
    assert r.exit_code == 0, r.output
    assert "warning: run.capture is set, but a sweep writes no packet captures" in r.output
    assert not list((tmp_path / "out").rglob("*.pcap"))
    s = bufferlab.run_seeds(example_path("udp-fifo"), 2, overrides={"run.duration": "1s", "run.measure": ["0s", "1s"],
                                                                     "run.capture": ["client->server"]})
    assert any("writes no packet captures" in w for w in s.warnings)
