"""`bufferlab run FILE --seeds N`: a scenario over N seeds, its tables as means with their 95%
Student-t intervals (docs/results.md, "Over seeds")."""

from __future__ import annotations

import json
import math

from conftest import example_path
from scipy import stats
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app

runner = CliRunner()

SHORT = {"run.duration": "6s", "run.measure": ["1s", "6s"], "topology.pairs": 3}
SETS = [x for k, v in SHORT.items() for x in ("--set", f"{k}={json.dumps(v)}")]


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_the_figures_are_the_seeds_means_and_t_intervals(tmp_path):
    """Each figure is the mean over the seeds' own runs (the file's seed and the next ones), and
    its interval the Student-t half-width of those runs' values: checked against the runs made
    one by one through the Python API."""
    dumbbell = example_path("dumbbell")
    r = cli("run", dumbbell, "--seeds", 4, "--seed", 11, "--json", *SETS)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["seeds"] == [11, 12, 13, 14] and doc["level"] == 0.95 and doc["warnings"] == []
    runs = [bufferlab.run(dumbbell, seed=s, overrides=SHORT) for s in doc["seeds"]]
    t = stats.t.ppf(0.975, 3)
    for flow in doc["flows"]:
        xs = [float(x.flows.set_index("id").loc[flow["id"], "goodput_bps"]) for x in runs]
        g = flow["goodput_bps"]
        mean = sum(xs) / 4
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / 3)
        assert g["n"] == 4 and math.isclose(g["mean"], mean, rel_tol=1e-12)
        assert math.isclose(g["ci"], t * sd / 2, rel_tol=1e-9) and g["ci"] > 0
        assert math.isclose(g["lo"], mean - g["ci"], rel_tol=1e-12)
    q = next(x for x in doc["queues"] if x["link"] == "r1->r2")
    drops = [int(x.queues.set_index("link").loc["r1->r2", "dropped"]) for x in runs]
    assert q["dropped"]["mean"] == sum(drops) / 4
    assert all("rtt_mean_s" in f for f in doc["flows"])


def test_the_tables_show_mean_and_half_width(tmp_path):
    r = cli("run", example_path("dumbbell"), "--seeds", 3, *SETS)
    assert r.exit_code == 0, r.output
    head = r.stdout.splitlines()[0]
    assert "3 seeds (1..3), 6 s simulated each" in head and "95% interval" in head
    row = next(ln for ln in r.stdout.splitlines() if "tcp-1" in ln)
    assert "±" in row and "r1->r2" in r.stdout and "warning" not in r.stdout


def test_fixed_starts_are_one_run_and_it_says_so():
    """A file that draws nothing at random (every flow started at 0 s) gives the same figures at
    every seed: no interval, and a warning that says why and what to change."""
    r = cli("run", example_path("dumbbell"), "--seeds", 3, *SETS, "--set", 'traffic[0].start="0s"')
    assert r.exit_code == 0, r.output
    assert "±" not in "".join(r.stdout.splitlines()[1:])
    assert "warning: every seed gave the same figures" in r.stdout and 'start = "uniform(0s, 1s)"' in r.stdout


def test_out_keeps_a_sweep_folder_that_resumes(tmp_path):
    out = tmp_path / "seeds"
    args = ["run", example_path("udp-fifo"), "--seeds", 3, "--out", out, "-q", "--set", 'run.duration="4s"',
            "--set", 'run.measure=["1s", "4s"]']
    r = cli(*args)
    assert r.exit_code == 0, r.output
    assert f"wrote {out}" in r.stdout
    t = bufferlab.load(out)
    assert sorted(t.points["seed"]) == [7, 8, 9] and set(t.points["status"]) == {"done"}
    again = cli(*args, "--json")
    assert again.exit_code == 0, again.output
    first = json.loads(cli(*args, "--json").stdout)
    assert json.loads(again.stdout) == first  # read back, not run again
    # A UDP flow has no RTT: the metric is left out, not given as nulls.
    assert "goodput_bps" in first["flows"][0] and "rtt_mean_s" not in first["flows"][0]
    assert len(bufferlab.load(out).points) == 3


def test_what_seeds_do_not_combine_with(tmp_path):
    f = example_path("udp-fifo")
    for extra, words in ((["--backend", "kernel"], "bufferlab compare FILE --seeds N"),
                         (["--flent", tmp_path / "x.flent.gz"], "bufferlab sweep SPEC --flent DIR"),
                         (["--capture", "client->server", "--out", tmp_path / "c"], "capture one run")):
        r = cli("run", f, "--seeds", 2, *extra)
        assert r.exit_code == 2 and words in r.output, r.output
    r = cli("run", f, "--workers", 2)
    assert r.exit_code == 2 and "--seeds N" in r.output
    r = cli("run", f, "--seeds", 0)
    assert r.exit_code == 2
    # Seeds past what a results folder keeps (a 64-bit signed column) are refused before any run.
    r = cli("run", f, "--seeds", 3, "--seed", 2**64 - 2)
    assert r.exit_code == 2 and "the largest seed a results folder keeps" in r.output
    # A run over the hour is refused as one run is, with the command line's advice.
    r = cli("run", f, "--seeds", 2, "--set", 'traffic[0].rate="10Tbps"')
    assert r.exit_code == 2 and "pass --yes to run it as it is" in r.output and "max_wall_s" not in r.output


def test_from_python_the_same_figures_as_dataframes():
    """`bufferlab.run_seeds` gives what the command prints, as DataFrames (a row per flow or
    link, `m_mean`, `m_sd`, `m_n`, `m_ci`, `m_lo`, `m_hi` per metric), with the runs themselves
    in `.runs`; without `out` their folder goes with the result."""
    import gc
    import os

    import pytest

    s = bufferlab.run_seeds(example_path("dumbbell"), 3, seed=11, overrides=SHORT)
    assert s.seeds == [11, 12, 13] and s.level == 0.95 and s.warnings == []
    assert list(s.flows["id"]) == ["tcp-1", "tcp-2", "tcp-3"]
    assert {"goodput_bps_mean", "goodput_bps_ci", "goodput_bps_n"} <= set(s.flows.columns)
    doc = json.loads(cli("run", example_path("dumbbell"), "--seeds", 3, "--seed", 11, "--json", *SETS).stdout)
    assert [f["goodput_bps"]["mean"] for f in doc["flows"]] == list(s.flows["goodput_bps_mean"])
    r1 = s.runs.queues.set_index(["link", "seed"]).loc[("r1->r2", 12), "dropped"]
    assert r1 == bufferlab.run(example_path("dumbbell"), seed=12, overrides=SHORT).queue("r1->r2")["dropped"]
    folder = s._folder.name
    del s
    gc.collect()
    assert not os.path.exists(folder)
    with pytest.raises(ValueError):
        bufferlab.run_seeds(example_path("dumbbell"), 0)
    with pytest.raises(bufferlab.ScenarioError):
        bufferlab.run_seeds(example_path("dumbbell"), 2, overrides={"topology.bottleneck.rate": "10Mbsp"})


def test_a_script_read_from_standard_input_runs_seeds():
    """The workers start without re-importing a `__main__` that is no file (`python - <<EOF`):
    they would otherwise each die importing `<stdin>`."""
    import subprocess
    import sys

    script = (f"import bufferlab\n"
              f"s = bufferlab.run_seeds({str(example_path('udp-fifo'))!r}, 2, "
              f"overrides={{'run.duration': '3s', 'run.measure': ['1s', '3s']}})\n"
              f"print('seeds', s.seeds, int(s.flows['goodput_bps_n'].iloc[0]))\n")
    r = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "seeds [7, 8] 2" in r.stdout and "Traceback" not in r.stderr, r.stderr[-2000:]


def test_a_scenario_given_as_a_dict_runs_over_seeds():
    import tomllib

    doc = tomllib.loads(example_path("udp-fifo").read_text())
    over = {"run.duration": "2s", "run.measure": ["0s", "2s"]}
    s = bufferlab.run_seeds(doc, 2, overrides=over)
    assert s.seeds == [7, 8] and s.scenario == "scenario"
    t = bufferlab.run_seeds(example_path("udp-fifo"), 2, overrides=over)
    assert list(s.flows["goodput_bps_mean"]) == list(t.flows["goodput_bps_mean"])
