"""Figures a researcher can publish: nothing averaged that the user did not name, readable legends
for many series, distinct colours, flows in natural order, categories drawn as categories, a
labelled confidence band that stops at physical bounds, rates in Mb/s, log axes, no warnings, and
run folders plotted and queried side by side."""

from __future__ import annotations

import json
import warnings

import matplotlib.colors as mcolors
from matplotlib.collections import PolyCollection
import numpy as np
import pandas as pd
import pytest
from conftest import example_path
from typer.testing import CliRunner

import bufferlab
from bufferlab import plot
from bufferlab.cli import app
from bufferlab.plot._common import natural_key, series_colors
from bufferlab.sweep import load_spec, run_sweep

runner = CliRunner()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def mdl(tmp_path_factory):
    """The tour's M/D/1 sweep, small: two loads x two buffers x two seeds."""
    out = tmp_path_factory.mktemp("mdl") / "runs"
    spec = load_spec({
        "base": str(example_path("udp-fifo")), "seeds": 2,
        "set": {"run.duration": "2s", "run.measure": ["0.5s", "2s"]},
        "grid": {"traffic[0].rate": ["300pps", "750pps"], "topology.up.queue.limit": ["10pkt", "100pkt"]},
    })
    run_sweep(spec, out, backend="inline")
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two run folders of the Linux-stack example, BQL on and off (TCP small queues off: with
    them one upload never fills the ring)."""
    d = tmp_path_factory.mktemp("runs")
    short = {"run.duration": "3s", "run.measure": ["0.5s", "3s"], "traffic[0].tsq": False}
    bufferlab.run(example_path("linux-stack"), overrides=short).write(d / "bql")
    bufferlab.run(example_path("linux-stack"), overrides={**short, "topology.up.ring": {"size": 512, "bql": "off"}}).write(d / "nobql")
    return d


# ---------------------------------------------------------------- nothing averaged silently


def test_plot_sweep_refuses_to_average_over_an_unnamed_swept_key(mdl, tmp_path):
    # the README's old example: buffers of 10 and 100 packets would be one line
    r = cli("plot", "sweep", mdl, "--x", "traffic[0].rate", "--y", "queues.sojourn_mean_s",
            "--where", "link = 'client->server'", "-o", tmp_path / "w.png")
    assert r.exit_code == 2
    assert "would average over topology.up.queue.limit" in r.output
    assert '--group "topology.up.queue.limit"' in r.output and "10pkt, 100pkt" in r.output
    assert not (tmp_path / "w.png").exists()


def test_plot_sweep_refuses_to_average_several_queues_of_a_run(mdl, tmp_path):
    r = cli("plot", "sweep", mdl, "--x", "traffic[0].rate", "--y", "queues.sojourn_mean_s",
            "--group", "topology.up.queue.limit", "-o", tmp_path / "w.png")
    assert r.exit_code == 2
    assert "queues has 2 rows per run (link: client->server, server->client)" in r.output
    assert "--where \"link = 'client->server'\"" in r.output and "--group link" in r.output
    # one line per link is a choice the user can make
    r = cli("plot", "sweep", mdl, "--x", "traffic[0].rate", "--y", "queues.sojourn_mean_s",
            "--group", "link", "--where", "\"topology.up.queue.limit\" = '100pkt'",
            "-o", tmp_path / "w.png", "--data", tmp_path / "w.csv")
    assert r.exit_code == 0, r.output
    assert set(pd.read_csv(tmp_path / "w.csv")["link"]) == {"client->server", "server->client"}


def test_plot_cdf_refuses_to_average_over_an_unnamed_swept_key(mdl, tmp_path):
    args = ["plot", "cdf", mdl, "--metric", "sojourn_s", "--id", "client->server", "-o", tmp_path / "c.png"]
    r = cli(*args)
    assert r.exit_code == 2
    assert "would average over traffic[0].rate, topology.up.queue.limit" in r.output
    assert '--by "traffic[0].rate"' in r.output
    r = cli(*args, "--by", "traffic[0].rate", "--by", "topology.up.queue.limit", "--data", tmp_path / "c.csv")
    assert r.exit_code == 0, r.output
    d = pd.read_csv(tmp_path / "c.csv")
    assert len(d.groupby(["traffic[0].rate", "topology.up.queue.limit"])) == 4 and set(d["seeds"]) == {2}


# ---------------------------------------------------------------- many series


def flows_frame(n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = [{"time_s": t, "object": "flow", "id": f"tcp-{i}", "metric": "goodput_bps", "value": rng.uniform(0, 2e6)}
            for i in range(1, n + 1) for t in np.arange(0, 2, 0.5)]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=2)  # any order in, natural order out


def test_flows_are_in_natural_order_with_distinct_colours_and_a_legend_outside():
    fig, _ = plot.timeseries(flows_frame(12), "goodput_bps")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [f"tcp-{i}" for i in range(1, 13)]
    colors = {mcolors.to_hex(ln.get_color()) for ln in ax.lines}
    assert len(colors) == 12
    fig.canvas.draw()
    legend_box = ax.get_legend().get_window_extent()
    assert legend_box.x0 >= ax.get_window_extent().x1  # outside the axes, on the right
    assert ax.get_ylabel() == "goodput (Mb/s)"
    np.testing.assert_allclose(max(ln.get_ydata().max() for ln in ax.lines) * 1e6,
                               flows_frame(12)["value"].max())


def test_series_colours_never_repeat_and_names_sort_naturally():
    for n in (1, 9, 10, 11, 20, 21, 60):
        assert len({mcolors.to_hex(c, keep_alpha=True) for c in series_colors(n)}) == n
    assert sorted(["tcp-10", "tcp-2", "s10->r1", "s9->r1"], key=natural_key) == ["s9->r1", "s10->r1", "tcp-2", "tcp-10"]


def test_many_numeric_groups_get_a_colour_bar(tmp_path):
    rows = [{"limit": f"{b}pkt", "rate": f"{r}pps", "seed": s, "y": b * r * 1e-6 + 0.001 * s}
            for b in (2, 3, 5, 8, 10, 20, 30, 50, 100, 200) for r in (300, 600) for s in (1, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig, _ = plot.metric_vs_param(pd.DataFrame(rows), "rate", "y", group=["limit"])
        plot.save(fig, tmp_path / "bar.png")
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "limit (packets)"
    assert len({mcolors.to_hex(ln.get_color()) for ln in fig.axes[0].lines}) == 10


# ---------------------------------------------------------------- axes, bands, units


def test_a_categorical_x_is_drawn_as_categories():
    q = ['{"discipline": "fifo"}', '{"discipline": "codel"}', '{"discipline": "fq_codel"}']
    rows = [{"queue": v, "cc": cc, "seed": s, "goodput_bps": 9e6 + 1e5 * i + 1e4 * s}
            for i, v in enumerate(q) for cc in ("cubic", "newreno") for s in (1, 2, 3)]
    fig, data = plot.metric_vs_param(pd.DataFrame(rows), "queue", "goodput_bps", group=["cc"])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["discipline=codel", "discipline=fifo", "discipline=fq_codel"]
    assert sorted(data["x"].unique()) == [0.0, 1.0, 2.0]
    assert len(ax.containers) == 2  # error bars per group
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]  # no band joining categories
    assert all(ln.get_linestyle() == "None" for ln in ax.lines)  # nor lines
    xs = [np.asarray(c.lines[0].get_xdata(), dtype=float) for c in ax.containers]
    assert not np.allclose(xs[0], xs[1])  # the groups side by side, not on top of each other
    assert ax.get_ylabel() == "goodput (Mb/s)"


def test_the_band_is_labelled_and_clipped_at_physical_bounds():
    rows = [{"n": n, "seed": s, "sojourn_mean_s": v, "loss_rate": min(1.0, v * 10)}
            for n in (10, 20) for s, v in zip((1, 2, 3), (0.001, 0.002, 0.09))]
    df = pd.DataFrame(rows)
    fig, data = plot.metric_vs_param(df, "n", "sojourn_mean_s")
    assert (data["sojourn_mean_s_lo"] == 0.0).all()  # mean - t*s/sqrt(n) < 0: no negative delay
    ax = fig.axes[0]
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].min() >= 0.0
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["band: 95% CI of the mean (Student t, 3 seeds)"]
    _, data = plot.metric_vs_param(df, "n", "loss_rate", level=0.99)
    assert (data["loss_rate_hi"] <= 1.0).all() and (data["loss_rate_lo"] >= 0.0).all()


def test_swept_rates_are_placed_in_mbps():
    rows = [{"rate": r, "seed": s, "utilization": 0.5} for r in ("10Mbps", "2.5Mbps") for s in (1, 2)]
    fig, data = plot.metric_vs_param(pd.DataFrame(rows), "rate", "utilization")
    assert data["x"].tolist() == [2.5, 10.0] and fig.axes[0].get_xlabel() == "rate (Mb/s)"


def test_cdf_log_axes_from_the_command_line(mdl, tmp_path):
    base = ["plot", "cdf", mdl, "--metric", "sojourn_s", "--id", "client->server", "--point", "", "--seed", "1"]
    pid = bufferlab.load(mdl).points["point_id"].iloc[0]
    base[base.index("")] = pid
    r = cli(*base, "--logx", "--logy", "-o", tmp_path / "c.png", "--data", tmp_path / "c.csv")
    assert r.exit_code == 0, r.output
    fig, _ = plot.cdf(pd.read_csv(tmp_path / "c.csv").rename(columns={"percentile": "cdf"}), cdf_col="cdf",
                      metric="sojourn_s", logx=True, logy=True)
    assert fig.axes[0].get_xscale() == "log" and fig.axes[0].get_yscale() == "log"


def test_plots_raise_no_warnings(mdl, tmp_path):
    t = bufferlab.load(mdl)
    d = t.with_params("distributions")
    d = d[(d.metric == "sojourn_s") & (d.id == "client->server")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for logs in ((False, False), (True, True)):
            fig, _ = plot.cdf(d, cdf_col="cdf", by=["traffic[0].rate", "topology.up.queue.limit"],
                              metric="sojourn_s", logx=logs[0], logy=logs[1])
            plot.save(fig, tmp_path / "c.png")
        fig, _ = plot.timeseries(flows_frame(30), "goodput_bps")
        plot.save(fig, tmp_path / "t.png")
        q = t.with_params("queues")
        fig, _ = plot.metric_vs_param(q[q.link == "client->server"], "traffic[0].rate", "dropped",
                                      group=["topology.up.queue.limit"], logx=True, logy=True)
        plot.save(fig, tmp_path / "s.svg")
    r = cli("plot", "sweep", mdl, "--x", "traffic[0].rate", "--y", "queues.dropped", "--group",
            "topology.up.queue.limit", "--where", "link = 'client->server'", "--logy", "-o", tmp_path / "s.png")
    assert r.exit_code == 0 and "Warning" not in r.output


# ---------------------------------------------------------------- run folders side by side


def test_query_a_single_run_folder_and_several_side_by_side(runs):
    r = cli("query", runs / "bql", "SELECT link, dropped FROM queues ORDER BY link", "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == "link,dropped" and "client->server" in r.output
    r = cli("query", runs / "bql", runs / "nobql",
            "SELECT run, rtt_mean_s FROM flows WHERE kind = 'ping' ORDER BY run", "--format", "json")
    assert r.exit_code == 0, r.output
    rows = pd.DataFrame(json.loads(r.output))
    assert rows["run"].tolist() == ["bql", "nobql"]
    assert rows["rtt_mean_s"].iloc[1] > 5 * rows["rtt_mean_s"].iloc[0]  # the bloated ring
    r = cli("query", runs / "bql", runs, "SELECT 1")
    assert r.exit_code == 2 and "not a run's output folder" in r.output
    # The same folder twice would count its rows twice under one label.
    r = cli("query", runs / "bql", runs / "nobql" / ".." / "bql", "SELECT count(*) FROM flows")
    assert r.exit_code == 2 and "is given twice: give each folder once" in r.output, r.output
    r = cli("plot", "cdf", runs / "bql", runs / "bql", "--metric", "rtt_s", "-o", runs / "twice.png")
    assert r.exit_code == 2 and "is given twice" in r.output and not (runs / "twice.png").exists(), r.output


def test_plots_draw_run_folders_side_by_side(runs, tmp_path):
    r = cli("plot", "cdf", runs / "bql", runs / "nobql", "--metric", "rtt_s", "--id", "ping-1", "--logx",
            "-o", tmp_path / "c.png", "--data", tmp_path / "c.csv")
    assert r.exit_code == 0, r.output
    d = pd.read_csv(tmp_path / "c.csv")
    assert set(d["run"]) == {"bql", "nobql"}
    med = d[np.isclose(d["percentile"], 0.5)].set_index("run")["value"]
    assert med["nobql"] > 5 * med["bql"]
    r = cli("plot", "sweep", runs / "bql", "--x", "a", "--y", "flows.goodput_bps", "-o", tmp_path / "s.png")
    assert r.exit_code == 2 and "not a sweep's results folder" in r.output


# ---------------------------------------------------------------- a first plot of a large topology


@pytest.fixture(scope="module")
def dumbbell(tmp_path_factory):
    """The dumbbell example (ten pairs: 42 queues, 10 flows) for 5 s, sampled: long enough for a
    flow whose SYN and first window were lost in the others' slow start to send again."""
    d = tmp_path_factory.mktemp("db") / "run"
    short = {"run.duration": "5s", "run.measure": ["0.5s", "5s"], "run.sample": "100ms"}
    bufferlab.run(example_path("dumbbell"), overrides=short).write(d)
    return d


def _title(args) -> str:
    """Run a plot command; the title of the figure it saved."""
    import bufferlab.plot as p

    seen = []
    real = p.save
    p.save = lambda fig, path, **kw: (seen.append(fig), real(fig, path, **kw))[1]
    try:
        r = cli(*args)
    finally:
        p.save = real
    assert r.exit_code == 0, r.output
    return seen[-1].axes[0].get_title()


def test_plots_of_a_dumbbell_draw_its_bottleneck_not_all_42_queues(dumbbell, tmp_path):
    for kind, metric in (("timeseries", "qlen_pkts"), ("cdf", "sojourn_s")):
        title = _title(["plot", kind, dumbbell, "--metric", metric, "-o", tmp_path / "f.png", "--data", tmp_path / "f.csv"])
        d = pd.read_csv(tmp_path / "f.csv")
        drawn = set(d["id"]) if "id" in d.columns else {"r1->r2"}  # one id: no id column
        assert drawn == {"r1->r2"}, (kind, drawn)
        assert title == f"{metric} of r1->r2 (the busiest of 42 queues by mean; --id for others)", title
    # Asked for, every queue is drawn, and the title says which.
    title = _title(["plot", "timeseries", dumbbell, "--metric", "qlen_pkts", "--id", "s1->r1", "--id", "r1->r2",
                    "-o", tmp_path / "g.png", "--data", tmp_path / "g.csv"])
    assert set(pd.read_csv(tmp_path / "g.csv")["id"]) == {"s1->r1", "r1->r2"}
    assert title == "qlen_pkts of s1->r1, r1->r2"
    # Ten flows are few enough to draw all.
    title = _title(["plot", "cdf", dumbbell, "--metric", "rtt_s", "-o", tmp_path / "h.png", "--data", tmp_path / "h.csv"])
    assert pd.read_csv(tmp_path / "h.csv")["id"].nunique() == 10 and title == "rtt_s of all 10 flows"


def test_a_run_without_time_series_names_the_key_to_set(tmp_path):
    run = tmp_path / "run"
    bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "2s", "run.measure": ["0s", "2s"]}).write(run)
    r = cli("plot", "timeseries", run, "--metric", "qlen_pkts", "-o", tmp_path / "q.png")
    assert r.exit_code == 2
    assert "set run.sample" in r.output and "--set run.sample=10ms" in r.output, r.output
    r = cli("plot", "cdf", run, "--metric", "throughput_bps", "-o", tmp_path / "q.png")
    assert r.exit_code == 2 and "set run.sample" in r.output, r.output
    # A metric that is neither a CDF nor a time series is named, with the CDFs the run has.
    r = cli("plot", "cdf", run, "--metric", "sojourn", "-o", tmp_path / "q.png")
    assert r.exit_code == 2 and "no sojourn in" in r.output and "CDFs: " in r.output, r.output
    assert "sojourn_s" in r.output and "set run.sample" in r.output, r.output


def test_a_legend_never_covers_data():
    """Where matplotlib's best place inside the axes still lies over a curve, the legend goes
    outside; a legend with a free place stays inside."""
    from bufferlab.plot._common import covers_data, legend_clear_of_data, new_axes

    fig, ax = new_axes()
    x = np.linspace(0, 1, 200)
    for k in range(12):  # curves through every corner and the middle
        ax.plot(x, (x * (k + 1)) % 1.0, label=f"c{k}" if k < 3 else None)
    leg = legend_clear_of_data(ax)
    assert not covers_data(ax, leg)
    fig.canvas.draw()
    assert leg.get_window_extent().x0 >= ax.get_window_extent().x1
    fig, ax = new_axes()
    ax.plot(x, x, label="rising")
    leg = legend_clear_of_data(ax)
    assert not covers_data(ax, leg)
    fig.canvas.draw()
    assert leg.get_window_extent().x1 <= ax.get_window_extent().x1  # inside, off the diagonal
    # The check sees a legend over a line, markers, bars and error bars.
    for draw in (lambda a: a.plot(x, 0 * x + 0.9), lambda a: a.plot([0.1], [0.9], "o"),
                 lambda a: a.bar([0.1], [1.0], width=0.2), lambda a: a.errorbar([0.1], [0.5], yerr=[0.5], fmt="none")):
        fig, ax = new_axes()
        draw(ax)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.plot([], [], label="x")
        assert covers_data(ax, ax.legend(loc="upper left")), draw


def test_the_python_functions_name_the_table_a_result_was_passed_for():
    r = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "1s", "run.measure": ["0s", "1s"]})
    for draw, table in ((lambda: plot.cdf(r), "distributions"), (lambda: plot.timeseries(r, "qlen_pkts"), "timeseries"),
                        (lambda: plot.response_time(r), "transfers")):
        with pytest.raises(TypeError, match=rf"takes a DataFrame, not a Result: pass a run's {table} \(bufferlab.Result.{table}\)"):
            draw()


def test_cdf_points_of_several_curves_are_not_inverted_as_one():
    # The distributions table holds one CDF per (metric, object, id): averaged point by point into
    # one curve they would draw a distribution no queue or flow has.
    r = bufferlab.run(example_path("dumbbell"), overrides={"run.duration": "2s", "run.measure": ["0s", "2s"]})
    d = r.distributions
    with pytest.raises(ValueError, match=r"several curves in one group \(metric: rtt_s, sojourn_s\): select one .* or add 'metric' to by"):
        plot.cdf(d, cdf_col="cdf")
    soj = d[d["metric"] == "sojourn_s"]
    with pytest.raises(ValueError, match=r"\(id: d1->r2, d10->r2, .*, \.\.\.\)"):
        plot.cdf(soj, cdf_col="cdf")
    _, curves = plot.cdf(soj, cdf_col="cdf", by=["id"])
    assert set(curves["id"]) == set(soj["id"])
    # Samples (no cdf_col) are pooled as given: a choice the caller may make.
    plot.cdf(d[d["metric"] == "sojourn_s"].rename(columns={"cdf": "p"}))


def test_a_legend_is_judged_where_the_drawn_figure_puts_it(tmp_path, monkeypatch):
    """Matplotlib places a legend at "best" only when the figure is drawn, after the layout made
    room for the title the command adds last: four seeds of a dumbbell's bottleneck queue, whose
    legend the title's room moved onto the curves, are saved with it beside the axes."""
    from bufferlab.plot._common import covers_data

    out = tmp_path / "seeds"
    r = cli("run", example_path("dumbbell"), "--seeds", 4, "--out", out, "-q", "--set", 'run.duration="30s"',
            "--set", 'run.sample="100ms"', "--set", 'run.measure=["5s", "30s"]')
    assert r.exit_code == 0, r.output
    saved = []
    real = plot.save
    monkeypatch.setattr(plot, "save", lambda fig, path, **kw: (saved.append(fig), real(fig, path, **kw))[1])
    r = cli("plot", "timeseries", out, "-m", "qlen_pkts", "-o", tmp_path / "q.png")
    assert r.exit_code == 0, r.output
    fig = saved[-1]
    ax = fig.axes[0]
    assert ax.get_title().startswith("qlen_pkts of r1->r2")
    leg = ax.get_legend()
    assert leg is not None and len(leg.get_texts()) == 4
    fig.canvas.draw()
    assert not covers_data(ax, leg)


def test_a_legend_that_grazes_a_curve_covers_it():
    """A curve a point or two above a legend's frame reads as touching it: the frame's margin
    (LEGEND_MARGIN_PT) counts it as covered; the same legend a few lines lower does not."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bufferlab.plot._common import LEGEND_MARGIN_PT, covers_data

    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.plot([0, 1], [0.8, 0.8], label="a")
    ax.set_ylim(0, 1)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    line_px = ax.transData.transform((0.5, 0.8))[1]
    for gap_pt, covered in ((LEGEND_MARGIN_PT / 2, True), (4 * LEGEND_MARGIN_PT, False)):
        leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=ax.transAxes, borderaxespad=0.0)
        fig.canvas.draw()
        h = leg.get_window_extent(r).height
        top_px = line_px - gap_pt * fig.dpi / 72.0
        y = ax.transAxes.inverted().transform((0, top_px))[1]
        leg.set_bbox_to_anchor((0.5, y), transform=ax.transAxes)
        fig.canvas.draw()
        assert abs(leg.get_window_extent(r).y1 - top_px) < 1.0 and h > 0
        assert covers_data(ax, leg) is covered, gap_pt
    plt.close(fig)


def test_a_sweep_plot_from_zero_keeps_headroom_above_its_curves():
    """Drawn from zero, a curve far above it (goodputs of 8.9 and 9.6 Mb/s, seeds that agree)
    keeps the autoscale's margin over the whole span above it, not a twentieth of its own span
    (which left the markers on the frame)."""
    df = pd.DataFrame({"traffic[0].rate": ["300pps", "300pps", "750pps", "750pps"], "seed": [1, 2, 1, 2],
                       "goodput_bps": [8.9e6, 8.9e6 + 1, 9.6e6, 9.6e6 + 1]})
    fig, _ = plot.metric_vs_param(df, "traffic[0].rate", "goodput_bps")
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    top = max(max(line.get_ydata()) for line in ax.lines if len(line.get_ydata()))
    assert lo == 0.0 and hi >= 1.04 * top, (lo, hi, top)


def test_legends_moved_beside_twin_axes_stack_past_the_right_hand_axis():
    """An axes and its twin (``twinx``), each with a legend over the curves: both are moved beside
    them, past the twin's tick labels, one under the other."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bufferlab.plot._common import clear_legends

    fig, ax = plt.subplots(figsize=(5, 3), dpi=100)
    xs = [i / 10 for i in range(11)]
    for k in range(3):
        ax.plot(xs, [0.1 + 0.4 * k + 0.05 * x for x in xs], label=f"left {k}")
    tw = ax.twinx()
    tw.plot(xs, [1 - x for x in xs], "k--", label="right")
    tw.set_ylabel("utilization (right axis)")
    ax.legend(loc="center left")
    tw.legend(loc="center right")
    clear_legends(fig)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    a, b = ax.get_legend().get_window_extent(r), tw.get_legend().get_window_extent(r)
    axis_right = tw.yaxis.get_tightbbox(r).x1
    assert a.x0 >= axis_right and b.x0 >= axis_right, (a, b, axis_right)
    assert not a.overlaps(b), (a, b)
    plt.close(fig)
