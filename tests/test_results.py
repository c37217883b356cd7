"""Result tables, and writing them: complete or not at all."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from conftest import example_path

import bufferlab
from bufferlab.outpath import OutputError
from bufferlab.results import DROP_REASONS, Result

SUMMARY = {
    "engine": {"version": "x", "events": 10, "wall_seconds": 0.5, "sim_seconds": 1.0},
    "run": {"duration_s": 1.0, "seed": 1, "measure_s": [0.0, 1.0], "sample_s": None},
    "flows": [
        {"id": "udp-1", "kind": "udp", "src": "a", "dst": "b", "goodput_bps": 1e6, "rtt_mean_s": None},
        {"id": "ping-1", "kind": "ping", "src": "a", "dst": "b", "goodput_bps": 0.0, "rtt_mean_s": 0.02},
    ],
    "queues": [
        {"link": "a->b", "discipline": "fifo", "limit_pkts": 10, "dropped": 3, "drops_by_reason": {"overflow": 3}},
        {"link": "b->a", "discipline": "fifo", "limit_pkts": 10, "dropped": 0, "drops_by_reason": {}},
    ],
    "links": [{"link": "a->b", "utilization": 0.5, "bytes_sent": 100}],
}
TS = {"time_s": [0.0, 1.0], "object": ["queue", "queue"], "id": ["a->b", "a->b"], "metric": ["qlen_pkts"] * 2, "value": [0.0, 2.0]}
TR = {"flow": ["web-1"], "conn": [0], "size_bytes": [1460], "start_s": [0.1], "end_s": [0.3], "completion_time_s": [0.2]}


def result(**kw) -> Result:
    return Result(json.loads(json.dumps(SUMMARY)), kw.get("ts", TS), kw.get("tr", TR), plan={"run": {}})


def test_tables():
    r = result()
    assert list(r.flows["id"]) == ["udp-1", "ping-1"]
    assert r.flows["rtt_mean_s"].isna().tolist() == [True, False]
    q = r.queues
    # drops_by_reason spread into one column per reason, every known reason present.
    assert [f"drops_{x}" for x in DROP_REASONS] == [c for c in q.columns if c.startswith("drops_")]
    assert q["drops_overflow"].tolist() == [3, 0] and q["drops_aqm"].tolist() == [0, 0]
    assert "drops_by_reason" not in q.columns
    assert list(r.timeseries.columns) == ["time_s", "object", "id", "metric", "value"]
    assert r.transfers["completion_time_s"].tolist() == [0.2]
    assert r.flow("ping-1")["rtt_mean_s"] == 0.02
    assert r.queue("a->b")["dropped"] == 3
    with pytest.raises(KeyError, match="udp-1, ping-1"):
        r.flow("tcp-9")


def test_write_and_read_back(tmp_path):
    out = result().write(tmp_path / "run")
    names = sorted(os.listdir(out))
    assert names == ["flows.parquet", "links.parquet", "plan.json", "queues.parquet", "summary.json",
                     "timeseries.parquet", "transfers.parquet"]
    assert json.loads((out / "summary.json").read_text()) == SUMMARY
    pd.testing.assert_frame_equal(pd.read_parquet(out / "queues.parquet"), result().queues)
    back = Result.read(out)
    assert back.summary == SUMMARY
    pd.testing.assert_frame_equal(back.timeseries, result().timeseries)
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no temporary left beside it


def test_reading_what_is_not_a_run_says_what_it_is(tmp_path):
    (tmp_path / "sweep" / "parts").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    for name, says in (("sweep", "is a sweep's results folder: read it with bufferlab.load("),
                       ("empty", "is a folder without a run's output"), ("file", "is a file"),
                       ("none", "does not exist")):
        with pytest.raises(FileNotFoundError, match=f"{name} {says}".replace("(", r"\(")):
            Result.read(tmp_path / name)


def test_no_timeseries_or_transfers_files_when_empty(tmp_path):
    out = result(ts={}, tr={}).write(tmp_path / "run")
    assert not (out / "timeseries.parquet").exists() and not (out / "transfers.parquet").exists()


class Boom(Exception):
    pass


def _fail_on(monkeypatch, table_file: str, exc: type[BaseException]):
    real = pd.DataFrame.to_parquet

    def to_parquet(self, path, *a, **kw):
        if str(path).endswith(table_file):
            # Leave a partial file behind, as a crash mid-write would.
            with open(path, "wb") as f:
                f.write(b"PAR1 half")
            raise exc("disk full")
        return real(self, path, *a, **kw)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", to_parquet)


@pytest.mark.parametrize("exc", [OSError, KeyboardInterrupt])
def test_failed_write_leaves_no_directory(tmp_path, monkeypatch, exc):
    _fail_on(monkeypatch, "queues.parquet", exc)
    with pytest.raises(exc):
        result().write(tmp_path / "run")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("exc", [OSError, KeyboardInterrupt])
def test_failed_write_keeps_the_previous_result(tmp_path, monkeypatch, exc):
    old = result()
    old.summary["engine"]["version"] = "old"
    old.write(tmp_path / "run")
    _fail_on(monkeypatch, "links.parquet", exc)
    with pytest.raises(exc):
        result().write(tmp_path / "run")
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["engine"]["version"] == "old"
    assert (tmp_path / "run" / "flows.parquet").exists()


def test_a_failed_rename_restores_the_previous_result(tmp_path, monkeypatch):
    result().write(tmp_path / "run")
    real = os.rename
    calls = []

    def rename(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the old result moved aside; now the new one fails to move in
            raise OSError("rename failed")
        return real(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError):
        result(ts={}).write(tmp_path / "run")
    monkeypatch.setattr(os, "rename", real)
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
    assert (tmp_path / "run" / "timeseries.parquet").exists()  # the old one, intact


def test_replaces_a_previous_result_completely(tmp_path):
    result().write(tmp_path / "run")
    result(ts={}, tr={}).write(tmp_path / "run")
    assert not (tmp_path / "run" / "timeseries.parquet").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_refuses_to_replace_a_directory_that_is_not_a_result(tmp_path):
    d = tmp_path / "precious"
    d.mkdir()
    (d / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="already holds other files"):
        result().write(d)
    assert (d / "notes.txt").read_text() == "keep me"
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        result().write(f)
    (tmp_path / "empty").mkdir()
    result().write(tmp_path / "empty")  # an empty directory is fine
    assert (tmp_path / "empty" / "summary.json").exists()


def test_engine_result_round_trips_through_parquet(tmp_path):
    r = bufferlab.run(example_path("udp-fifo"), overrides={"run.duration": "5s", "run.measure": ["1s", "5s"], "run.sample": "1s"})
    out = r.write(tmp_path / "udp")
    for name in ("flows", "queues", "links", "timeseries"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"), getattr(r, name), check_dtype=False)
    assert json.loads((out / "plan.json").read_text()) == r.plan
    assert json.loads((out / "summary.json").read_text()) == r.summary


def test_nested_values_become_json_text(tmp_path):
    summary = json.loads(json.dumps(SUMMARY))
    summary["flows"][0]["extra"] = {}
    summary["flows"][1]["extra"] = {"a": [1, 2]}
    summary["links"][0]["parts"] = []
    r = Result(summary)
    assert r.flows["extra"].tolist() == ["{}", '{"a": [1, 2]}']
    out = r.write(tmp_path / "run")  # an empty table would be an unwritable struct column
    assert pd.read_parquet(out / "flows.parquet")["extra"].tolist() == ["{}", '{"a": [1, 2]}']
