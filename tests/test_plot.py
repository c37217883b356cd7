"""Plots: each returns the data it drew; tests check that data (and what the axes hold)
against hand computations, and that PNG and SVG files are written."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import bufferlab
from bufferlab import plot
from bufferlab.cli import app
from bufferlab.sweep import aggregate, load_spec, run_sweep

from conftest import example_path


def test_timeseries_from_a_real_run(tmp_path):
    r = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "3s", "run.measure": ["0s", "3s"], "run.sample": "100ms"})
    fig, data = plot.timeseries(r.timeseries, "qlen_pkts", object="queue")
    ts = r.timeseries
    want = ts[(ts.metric == "qlen_pkts") & (ts.object == "queue")]
    assert len(data) == len(want) and set(data["id"]) == {"client->server", "server->client"}
    ax = fig.axes[0]
    assert len(ax.lines) == 2
    up = data[data["id"] == "client->server"]
    line = next(ln for ln in ax.lines if ln.get_label() == "client->server")
    np.testing.assert_array_equal(line.get_xdata(), up["time_s"])
    np.testing.assert_array_equal(line.get_ydata(), up["value"])
    assert up["value"].max() > 0  # the 80%-loaded queue does build up
    assert ax.get_ylabel() == "queue length (packets)"
    for suffix in (".png", ".svg"):
        path = plot.save(fig, tmp_path / f"ts{suffix}")
        assert path.stat().st_size > 1000
    assert (tmp_path / "ts.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "ts.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no time series of 'cwnd'"):
        plot.timeseries(r.timeseries, "cwnd")


def test_cdf_of_samples_with_sem_over_seeds():
    rng = np.random.default_rng(3)
    frames = [pd.DataFrame({"seed": s, "value": rng.uniform(0, 1, 20001) * (1 + 0.1 * s)}) for s in (1, 2, 3)]
    samples = pd.concat(frames)
    fig, data = plot.cdf(samples)
    median = data.loc[np.isclose(data["percentile"], 0.5)].iloc[0]
    per_seed = [f["value"].quantile(0.5) for f in frames]
    assert median["value"] == pytest.approx(np.mean(per_seed))
    assert median["sem"] == pytest.approx(np.std(per_seed, ddof=1) / math.sqrt(3))
    assert median["seeds"] == 3
    # uniform on [0, 1.1..1.3]: the mean median is ~ 0.6
    assert median["value"] == pytest.approx(0.6, abs=0.01)
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.lines[0].get_xdata(), data["value"])
    assert ax.get_ylim() == (0.0, 1.0)


def test_cdf_from_cdf_points_inverts_them():
    # a CDF given as points (value, cdf): uniform on [0, 10]
    pts = pd.DataFrame({"value": [0.0, 5.0, 10.0], "cdf": [0.0, 0.5, 1.0], "seed": 1})
    _, data = plot.cdf(pts, cdf_col="cdf", points=11)
    np.testing.assert_allclose(data["value"], np.linspace(0, 10, 11))
    assert data["sem"].isna().all()


def test_cdf_of_sojourn_from_a_sweep(tmp_path):
    out = tmp_path / "out"
    spec = load_spec({
        "base": str(example_path("udp-fifo")), "seeds": 2,
        "set": {"run.duration": "3s", "run.measure": ["0s", "3s"]},
        "grid": {"traffic[0].rate": ["300pps", "750pps"]},
    })
    run_sweep(spec, out, backend="inline")
    t = bufferlab.load(out)
    d = t.with_params("distributions")
    d = d[(d.metric == "sojourn_s") & (d.id == "client->server")]
    fig, data = plot.cdf(d, cdf_col="cdf", by=["traffic[0].rate"], metric="sojourn_s")
    p90 = data[np.isclose(data.percentile, 0.9)].set_index("traffic[0].rate")["value"]
    # more load, longer waits (M/D/1 at 34% vs 90% load)
    assert p90["750pps"] > 3 * p90["300pps"]
    assert set(data["seeds"]) == {2}
    assert fig.axes[0].get_xlabel() == "sojourn time (ms)"  # waits below half a second read in ms
    np.testing.assert_allclose(fig.axes[0].lines[0].get_xdata(), data[data["traffic[0].rate"] == "300pps"]["value"] * 1e3)
    # the same through the command line, with the data written out
    res = CliRunner().invoke(app, ["plot", "cdf", str(out), "--metric", "sojourn_s", "--id", "client->server",
                                   "--by", "traffic[0].rate", "-o", str(tmp_path / "c.svg"), "--data", str(tmp_path / "c.csv")])
    assert res.exit_code == 0, res.output
    cli = pd.read_csv(tmp_path / "c.csv")
    np.testing.assert_allclose(cli["value"], data["value"])
    assert (tmp_path / "c.svg").stat().st_size > 1000


def test_metric_vs_param_draws_the_aggregate():
    rows = []
    for g in ("fifo", "codel"):
        for i, limit in enumerate(["20pkt", "50pkt", "100pkt"]):
            for seed in (1, 2, 3, 4):
                rows.append({"q": g, "limit": limit, "seed": seed, "y": (i + 1) * (2 if g == "fifo" else 1) + 0.1 * seed})
    df = pd.DataFrame(rows)
    fig, data = plot.metric_vs_param(df, "limit", "y", group=["q"])
    want = aggregate(df, by=["q", "limit"], metrics=["y"])
    merged = data.merge(want, on=["q", "limit"], suffixes=("", "_want"))
    np.testing.assert_allclose(merged["y_mean"], merged["y_mean_want"])
    np.testing.assert_allclose(merged["y_ci"], merged["y_ci_want"])
    # x is placed by the number in "20pkt", and sorted: 20, 50, 100
    assert data[data.q == "fifo"]["x"].tolist() == [20.0, 50.0, 100.0]
    ax = fig.axes[0]
    assert ax.get_xlabel() == "limit (packets)"
    lines = {ln.get_label(): ln for ln in ax.lines}
    np.testing.assert_allclose(lines["fifo"].get_ydata(), data[data.q == "fifo"]["y_mean"])
    assert ax.get_legend().get_title().get_text() == "q"  # one key: its name titles the legend
    assert len(ax.collections) == 2  # one band per group


def test_response_time_bins_by_size():
    sizes = np.array([150, 180, 1500, 1800, 15000, 18000, 150000, 170000], dtype=float)
    tr = pd.DataFrame({"size_bytes": sizes, "completion_time_s": 0.1 + sizes / 1e5})
    tr = pd.concat([tr, pd.DataFrame({"size_bytes": [16000.0], "completion_time_s": [np.nan]})])
    fig, data = plot.response_time(tr, per_decade=1)
    assert data["size_lo"].tolist() == [100.0, 1000.0, 10000.0, 100000.0]
    np.testing.assert_allclose(data["mean_s"], [0.1 + 165 / 1e5, 0.1 + 1650 / 1e5, 0.1 + 16500 / 1e5, 0.1 + 160000 / 1e5])
    assert data["n"].tolist() == [2, 2, 2, 2] and data["unfinished"].tolist() == [0, 0, 1, 0]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[0].get_ydata(), data["mean_s"])


def test_plot_sweep_command(tmp_path):
    out = tmp_path / "out"
    spec = load_spec({
        "base": str(example_path("udp-fifo")), "seeds": 3,
        "set": {"run.duration": "2s", "run.measure": ["0.5s", "2s"]},
        "grid": {"traffic[0].rate": ["300pps", "500pps", "700pps"], "topology.up.queue.limit": ["4pkt", "1000pkt"]},
    })
    run_sweep(spec, out, backend="inline")
    res = CliRunner().invoke(app, [
        "plot", "sweep", str(out), "--x", "traffic[0].rate", "--y", "queues.sojourn_mean_s",
        "--group", "topology.up.queue.limit", "--where", "link = 'client->server'",
        "-o", str(tmp_path / "s.png"), "--data", str(tmp_path / "s.csv"),
    ])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(tmp_path / "s.csv")
    q = bufferlab.load(out).with_params("queues")
    q = q[q.link == "client->server"]
    want = aggregate(q, by=["topology.up.queue.limit", "traffic[0].rate"], metrics=["sojourn_mean_s"])
    m = got.merge(want, on=["topology.up.queue.limit", "traffic[0].rate"], suffixes=("", "_w"))
    assert len(m) == 6
    np.testing.assert_allclose(m["sojourn_mean_s_mean"], m["sojourn_mean_s_mean_w"])
    np.testing.assert_allclose(m["sojourn_mean_s_ci"], m["sojourn_mean_s_ci_w"])
    assert sorted(got["x"].unique()) == [300.0, 500.0, 700.0]
    bad = CliRunner().invoke(app, ["plot", "sweep", str(out), "--x", "run.duration", "--y", "flows.goodput_bps", "-o", str(tmp_path / "x.png")])
    assert bad.exit_code == 2 and "not swept" in bad.output


def test_plot_timeseries_command_on_a_scenario(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(example_path("udp-fifo").read_text().replace('duration = "120s"', 'duration = "2s"\nsample = "50ms"')
                  .replace('measure = ["10s", "120s"]', 'measure = ["0s", "2s"]'))
    res = CliRunner().invoke(app, ["plot", "timeseries", str(sc), "--metric", "qlen_pkts", "--id", "client->server",
                                   "-o", str(tmp_path / "t.svg"), "--data", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    d = pd.read_csv(tmp_path / "t.csv")
    assert set(d["id"]) == {"client->server"}
    np.testing.assert_allclose(d["time_s"], np.arange(len(d)) * 0.05)
    assert len(d) >= 40


def test_plot_timeseries_of_one_sweep_point(tmp_path):
    out = tmp_path / "out"
    spec = load_spec({
        "base": str(example_path("udp-fifo")), "seeds": 2,
        "set": {"run.duration": "1s", "run.measure": ["0s", "1s"], "run.sample": "100ms"},
        "grid": {"traffic[0].rate": ["300pps", "700pps"]},
    })
    run_sweep(spec, out, backend="inline")
    pts = bufferlab.load(out).points
    pid = pts.loc[pts["traffic[0].rate"] == "700pps", "point_id"].iloc[0]
    args = ["plot", "timeseries", str(out), "--metric", "qlen_pkts", "--id", "client->server", "-o", str(tmp_path / "t.png")]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and 'draw a line per value with --by "traffic[0].rate"' in res.output
    assert "or pick one point with --point" in res.output
    res = CliRunner().invoke(app, [*args, "--point", pid[:6], "--data", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    d = pd.read_csv(tmp_path / "t.csv")
    assert sorted(d["seed"].unique()) == [1, 2] and len(d) == 20  # one line per seed
    ts = bufferlab.load(out).timeseries
    want = ts[(ts.point_id == pid) & (ts.metric == "qlen_pkts") & (ts.id == "client->server")]
    np.testing.assert_array_equal(np.sort(d["value"].to_numpy()), np.sort(want["value"].to_numpy()))
    # One line per swept value instead, at one seed (a time series is one run's: seeds are not
    # averaged): the lowest unless --seed names another, and the title says which.
    res = CliRunner().invoke(app, [*args, "--by", "traffic[0].rate", "--data", str(tmp_path / "b.csv")])
    assert res.exit_code == 0, res.output
    d = pd.read_csv(tmp_path / "b.csv")
    assert sorted(d["traffic[0].rate"].unique()) == ["300pps", "700pps"] and len(d) == 20
    for rate, g in d.groupby("traffic[0].rate"):
        p = pts.loc[pts["traffic[0].rate"] == rate, "point_id"].iloc[0]
        want = ts[(ts.point_id == p) & (ts.seed == 1) & (ts.metric == "qlen_pkts") & (ts.id == "client->server")]
        np.testing.assert_array_equal(g["value"].to_numpy(), want.sort_values("time_s")["value"].to_numpy())
    res = CliRunner().invoke(app, [*args, "--by", "traffic[0].rate", "--seed", "2", "--data", str(tmp_path / "b2.csv")])
    assert res.exit_code == 0, res.output
    assert not pd.read_csv(tmp_path / "b2.csv").equals(d)
    res = CliRunner().invoke(app, [*args, "--by", "nosuch"])
    assert res.exit_code == 2 and "--by nosuch: not a column; swept keys: traffic[0].rate" in res.output


def test_a_scenario_file_plotted_over_seeds(tmp_path):
    """`--seeds N` on a scenario file runs it as `run --seeds` does: the CDF is each
    percentile's mean over the N seeds (with its SEM), the time series a line per seed; a folder
    holds its own seeds and is refused."""
    sc = str(example_path("dumbbell"))
    sets = ["--set", 'run.duration="6s"', "--set", 'run.measure=["1s", "6s"]', "--set", "topology.pairs=2"]
    res = CliRunner().invoke(app, ["plot", "cdf", sc, "-m", "sojourn_s", "--id", "r1->r2", "--seeds", "3", *sets,
                                   "-o", str(tmp_path / "c.png"), "--data", str(tmp_path / "c.csv")])
    assert res.exit_code == 0, res.output
    d = pd.read_csv(tmp_path / "c.csv")
    assert set(d["seeds"]) == {3} and d["sem"].dropna().gt(0).any()
    # The mean of each percentile over the seeds' own runs.
    runs = [bufferlab.run(sc, seed=s, overrides={"run.duration": "6s", "run.measure": ["1s", "6s"],
                                                 "topology.pairs": 2}) for s in (1, 2, 3)]
    want = plot.quantile_curves(pd.concat([r.distributions.assign(seed=s) for s, r in zip((1, 2, 3), runs)])
                                .query("metric == 'sojourn_s' and id == 'r1->r2'"), cdf_col="cdf")
    np.testing.assert_allclose(d["value"].to_numpy(), want["value"].to_numpy(), rtol=1e-12)
    res = CliRunner().invoke(app, ["plot", "timeseries", sc, "-m", "qlen_pkts", "--id", "r1->r2", "--seeds", "2",
                                   *sets, "--set", 'run.sample="200ms"', "-o", str(tmp_path / "t.png"),
                                   "--data", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    assert sorted(pd.read_csv(tmp_path / "t.csv")["seed"].unique()) == [1, 2]
    res = CliRunner().invoke(app, ["plot", "cdf", str(tmp_path), "-m", "sojourn_s", "--seeds", "2",
                                   "-o", str(tmp_path / "x.png")])
    assert res.exit_code == 2 and "--seeds runs scenario files" in res.output


def test_response_times_pool_a_scenario_files_seeds(tmp_path):
    sc = str(example_path("web-poisson"))
    over = {"run.duration": "10s"}
    res = CliRunner().invoke(app, ["plot", "response", sc, "--seeds", "2", "--set", 'run.duration="10s"',
                                   "-o", str(tmp_path / "r.png"), "--data", str(tmp_path / "r.csv")])
    assert res.exit_code == 0, res.output
    d = pd.read_csv(tmp_path / "r.csv")
    first = bufferlab.load_scenario(sc).seed
    runs = [bufferlab.run(sc, seed=s, overrides=over) for s in (first, first + 1)]
    assert int(d["n"].sum() + d["unfinished"].sum()) == sum(len(r.transfers) for r in runs)


def test_a_scenario_too_long_to_draw_says_how(tmp_path):
    sc = str(example_path("udp-fifo"))
    for extra, again in (([], f"bufferlab run {sc} --yes --out DIR"), (["--seeds", "2"], f"bufferlab run {sc} --seeds 2 --yes --out DIR")):
        res = CliRunner().invoke(app, ["plot", "cdf", sc, "-m", "sojourn_s", "--set", 'traffic[0].rate="10Tbps"', *extra,
                                       "-o", str(tmp_path / "x.png")])
        assert res.exit_code == 2 and again in res.output, res.output
