"""The results store: DuckDB queries agree with pandas on the same files, writes are atomic,
one sweep at a time, and the confidence interval of bufferlab.aggregate is Student's."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app
from bufferlab.store import Store, StoreError, load, query
from bufferlab.sweep import aggregate, load_spec, run_sweep, t_quantile
from bufferlab.sweep.stats import t_cdf

from conftest import example_path


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("store") / "out"
    spec = load_spec({
        "base": str(example_path("udp-fifo")),
        "seeds": 3,
        "set": {"run.duration": "2s", "run.measure": ["0.5s", "2s"]},
        "grid": {"traffic[0].rate": ["400pps", "700pps"], "topology.up.queue.limit": ["4pkt", "1000pkt"]},
    })
    run_sweep(spec, out, backend="inline")
    return out


def test_tables_carry_point_and_seed(swept):
    t = bufferlab.load(swept)
    assert len(t.points) == 12
    assert t.swept == ["traffic[0].rate", "topology.up.queue.limit"]
    for name in ("flows", "queues", "links", "distributions"):
        df = t[name]
        assert list(df.columns[:2]) == ["point_id", "seed"]
        assert set(zip(df["point_id"], df["seed"])) == set(zip(t.points["point_id"], t.points["seed"]))
    assert t.transfers.empty and list(t.transfers.columns) == ["point_id", "seed"]
    assert len(t.with_params("flows")) == len(t.flows)


def test_query_aggregates_match_pandas(swept):
    sql = """
        SELECT p."traffic[0].rate" AS rate, p."topology.up.queue.limit" AS q,
               avg(q.sojourn_mean_s) AS sojourn, sum(q.dropped) AS dropped, count(*) AS n
        FROM queues q JOIN points p USING (point_id, seed)
        WHERE q.link = 'client->server'
        GROUP BY ALL ORDER BY rate, q
    """
    got = query(swept, sql)
    t = load(swept)
    q = t.with_params("queues")
    q = q[q["link"] == "client->server"]
    want = (
        q.groupby(["traffic[0].rate", "topology.up.queue.limit"])
        .agg(sojourn=("sojourn_mean_s", "mean"), dropped=("dropped", "sum"), n=("seed", "size"))
        .reset_index()
        .sort_values(["traffic[0].rate", "topology.up.queue.limit"])
    )
    assert got["rate"].tolist() == want["traffic[0].rate"].tolist()
    np.testing.assert_allclose(got["sojourn"], want["sojourn"], rtol=1e-12)
    assert got["dropped"].tolist() == want["dropped"].tolist()
    assert got["n"].tolist() == [3, 3, 3, 3]
    # the small buffer at 700 pps drops; the big one never does
    assert got.loc[(got["rate"] == "700pps") & (got["q"] == "4pkt"), "dropped"].item() > 0
    assert got.loc[got["q"] == "1000pkt", "dropped"].sum() == 0


def test_query_command_formats(swept):
    sql = "SELECT point_id, seed, goodput_bps FROM flows ORDER BY point_id, seed"
    want = query(swept, sql)
    res = CliRunner().invoke(app, ["query", str(swept), sql, "--format", "csv"])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(io.StringIO(res.output))
    assert got["seed"].tolist() == want["seed"].tolist()
    np.testing.assert_allclose(got["goodput_bps"], want["goodput_bps"])
    res = CliRunner().invoke(app, ["query", str(swept), sql, "--format", "json"])
    rows = json.loads(res.output)
    assert [r["point_id"] for r in rows] == want["point_id"].tolist()
    res = CliRunner().invoke(app, ["query", str(swept), "SELECT count(*) AS n FROM points"])
    assert res.exit_code == 0 and "12" in res.output
    res = CliRunner().invoke(app, ["query", str(swept), "SELECT nope FROM points"])
    assert res.exit_code == 1 and "nope" in res.output


def test_query_refuses_a_folder_that_is_not_a_store(tmp_path):
    with pytest.raises(StoreError, match="is neither a sweep.s results folder"):
        query(tmp_path, "SELECT 1")
    res = CliRunner().invoke(app, ["query", str(tmp_path), "SELECT 1"])
    assert res.exit_code == 2


def test_load_of_a_run_folder_points_at_result_read(tmp_path):
    # load() reads a sweep's folder; a run's is Result.read's (query takes either).
    out = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "1s", "run.measure": ["0s", "1s"]}).write(tmp_path / "run")
    with pytest.raises(StoreError, match=r"is a run's output folder, not a sweep's: read it with bufferlab.Result.read\("):
        load(out)
    assert len(query(out, "SELECT * FROM flows")) == 1


def test_aggregate_matches_a_hand_computation():
    # four seeds of one point: mean 2.5, s = sqrt(5/3), t(0.975, 3) = 3.182446305
    df = pd.DataFrame({"k": ["a"] * 4 + ["b"] * 2 + ["c"], "seed": [1, 2, 3, 4, 1, 2, 1],
                       "x": [1.0, 2.0, 3.0, 4.0, 10.0, 14.0, 5.0]})
    agg = aggregate(df, by=["k"], metrics=["x"]).set_index("k")
    s = math.sqrt(5.0 / 3.0)
    half = 3.182446305 * s / 2.0
    assert agg.loc["a", "x_mean"] == pytest.approx(2.5)
    assert agg.loc["a", "x_sd"] == pytest.approx(s)
    assert agg.loc["a", "x_ci"] == pytest.approx(half, rel=1e-8)
    assert agg.loc["a", "x_lo"] == pytest.approx(2.5 - half, rel=1e-8)
    assert agg.loc["a", "x_hi"] == pytest.approx(2.5 + half, rel=1e-8)
    # two seeds: t(0.975, 1) = 12.70620474, s = 2*sqrt(2)
    assert agg.loc["b", "x_ci"] == pytest.approx(12.70620474 * 2 * math.sqrt(2) / math.sqrt(2), rel=1e-8)
    # one seed: no interval
    assert agg.loc["c", "x_n"] == 1 and math.isnan(agg.loc["c", "x_ci"])
    # 90% level: t(0.95, 3) = 2.353363435
    a90 = aggregate(df[df.k == "a"], by=["k"], metrics=["x"], level=0.90)
    assert a90["x_ci"].item() == pytest.approx(2.353363435 * s / 2.0, rel=1e-8)


def test_aggregate_names_what_it_takes():
    df = pd.DataFrame({"g": [1, 1], "seed": [1, 2], "bps": [1.0, 2.0]})
    with pytest.raises(ValueError, match="reduce must be one of 'mean', 'sum', 'min', 'max', 'median', not 'avg'"):
        aggregate(df, by=["g"], metrics=["bps"], reduce="avg")


def test_aggregate_reduces_rows_of_one_seed_first():
    # two flows per seed: the sample is one value per seed (their sum), not four flow values
    df = pd.DataFrame({"seed": [1, 1, 2, 2], "g": 1, "bps": [1.0, 2.0, 5.0, 6.0]})
    s = aggregate(df, by=["g"], metrics=["bps"], reduce="sum")
    assert s["bps_n"].item() == 2 and s["bps_mean"].item() == pytest.approx(7.0)
    m = aggregate(df, by=["g"], metrics=["bps"])
    assert m["bps_mean"].item() == pytest.approx(3.5)
    assert m["bps_sd"].item() == pytest.approx(np.std([1.5, 5.5], ddof=1))
    with pytest.raises(KeyError, match="no column 'nope'"):
        aggregate(df, by=["nope"], metrics=["bps"])


@pytest.mark.parametrize(
    "p, df, want",
    # Student's t table (two-sided 95%, 99%, one-sided 90%).
    [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 5, 2.5706), (0.975, 9, 2.2622),
     (0.975, 30, 2.0423), (0.995, 4, 4.6041), (0.995, 20, 2.8453), (0.90, 10, 1.3722)],
)
def test_t_quantile_against_the_table(p, df, want):
    assert t_quantile(p, df) == pytest.approx(want, abs=6e-5)
    assert t_quantile(1 - p, df) == pytest.approx(-want, abs=6e-5)


def test_t_approaches_the_normal():
    assert t_quantile(0.975, 1e7) == pytest.approx(1.959964, abs=1e-5)


@given(st.floats(0.001, 0.999), st.integers(1, 200))
def test_t_cdf_inverts_t_quantile(p, df):
    assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=1e-9)


def test_write_is_all_or_nothing(tmp_path):
    store = Store(tmp_path / "s")
    with store.lock():
        good = pd.DataFrame({"point_id": ["a"], "seed": [1]})
        bad = pd.DataFrame({"x": [object()]})  # Parquet cannot hold it
        with pytest.raises(Exception):
            store.write("a.s1.k", {"points": good, "flows": bad})
        assert not (store.parts / "a.s1.k").exists()
        assert not any(store.tmp.iterdir())
        store.write("a.s1.k", {"points": good})
        assert (store.parts / "a.s1.k" / "points.parquet").is_file()


def test_one_sweep_at_a_time(tmp_path):
    a, b = Store(tmp_path / "s"), Store(tmp_path / "s")
    with a.lock():
        with pytest.raises(StoreError, match="being written by another sweep"):
            with b.lock():
                pass
    with b.lock():
        pass


def test_parts_with_different_columns_line_up(tmp_path):
    store = Store(tmp_path)
    with store.lock():
        store.write("a.s1.k1", {"points": pd.DataFrame({"point_id": ["a"], "seed": [1], "status": ["done"]}),
                                "flows": pd.DataFrame({"point_id": ["a"], "seed": [1], "x": [1.0]})})
        store.write("b.s1.k2", {"points": pd.DataFrame({"point_id": ["b"], "seed": [1], "status": ["done"]}),
                                "flows": pd.DataFrame({"point_id": ["b"], "seed": [1], "x": [None], "y": [2]})})
    f = load(tmp_path).flows
    assert f["point_id"].tolist() == ["a", "b"]
    assert f["x"].iloc[0] == 1.0 and pd.isna(f["x"].iloc[1]) and pd.isna(f["y"].iloc[0]) and f["y"].iloc[1] == 2
    got = query(tmp_path, "SELECT point_id, x, y FROM flows ORDER BY point_id")
    assert got["x"].iloc[0] == 1.0 and pd.isna(got["y"].iloc[0]) and got["y"].iloc[1] == 2
