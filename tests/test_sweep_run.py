"""Running sweeps on the real engine: same numbers on a process pool, on Dask and in-process;
resuming after an interrupt with no stored point run twice and none lost; failed points recorded
with the key that made them fail."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
import warnings
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app
from bufferlab.store import load
from bufferlab.sweep import SweepInterrupted, load_spec, run_sweep
from bufferlab.sweep.backends import NO_DASHBOARD

from conftest import example_path

# 3 x 3 grid x 2 seeds of a short UDP-into-FIFO run (about a millisecond of engine time each).
SPEC = """
base = "{base}"
seeds = 2
[set]
"run.duration" = "2s"
"run.measure" = ["0.5s", "2s"]
[grid]
"traffic[0].rate" = ["300pps", "500pps", "700pps"]
"topology.up.queue" = [{{ discipline = "fifo", limit = "3pkt" }}, {{ discipline = "fifo", limit = "10pkt" }}, {{ discipline = "fifo", limit = "1000pkt" }}]
"""

VOLATILE = ["wall_seconds", "engine_seconds"]


@pytest.fixture
def spec_path(tmp_path: Path) -> Path:
    p = tmp_path / "sweep.toml"
    p.write_text(SPEC.format(base=example_path("udp-fifo")))
    return p


class CountingRun:
    """bufferlab.run that logs each finished run to a folder and, once ``stop_after`` runs have
    finished, raises KeyboardInterrupt (as Ctrl-C would) instead of running."""

    def __init__(self, log: Path, stop_after: int | None = None) -> None:
        self.log = log
        self.stop_after = stop_after

    def finished(self) -> list[dict]:
        return [json.loads(p.read_text()) for p in sorted(self.log.glob("*.json"))]

    def __call__(self, scenario: dict):
        if self.stop_after is not None and len(list(self.log.glob("*.json"))) >= self.stop_after:
            raise KeyboardInterrupt
        result = bufferlab.run(scenario)
        entry = {"seed": scenario["run"]["seed"], "scenario": scenario}
        (self.log / f"{uuid.uuid4().hex}.json").write_text(json.dumps(entry, sort_keys=True))
        return result


def sorted_tables(out: Path) -> dict[str, pd.DataFrame]:
    t = load(out)
    keys = {"points": [], "flows": ["id"], "queues": ["link"], "links": ["link"],
            "distributions": ["id", "metric", "value"]}
    out_tables = {}
    for name, extra in keys.items():
        df = t[name].drop(columns=[c for c in VOLATILE if c in t[name].columns])
        out_tables[name] = df.sort_values(["point_id", "seed", *extra], kind="stable").reset_index(drop=True)
    return out_tables


def assert_same_results(a: Path, b: Path) -> None:
    ta, tb = sorted_tables(a), sorted_tables(b)
    for name in ta:
        pd.testing.assert_frame_equal(ta[name], tb[name], check_dtype=False, obj=name)


def test_pool_dask_and_inline_give_identical_points(spec_path, tmp_path):
    pool = tmp_path / "pool"
    r = run_sweep(spec_path, pool, workers=2)
    assert (r.total, r.done, r.failed, r.skipped) == (18, 18, 0, 0)
    points = load(pool).points
    assert len(points) == 18 and set(points["status"]) == {"done"}
    assert points.groupby("point_id")["seed"].apply(sorted).tolist() == [[1, 2]] * 9
    # the buffer matters: the 3-packet FIFO drops at 700 pps, the 1000-packet one does not
    q = load(pool).with_params("queues")
    q = q[q["link"] == "client->server"]
    drops = q.groupby(["topology.up.queue", "traffic[0].rate"])["dropped"].sum()
    assert drops[('{"discipline": "fifo", "limit": "3pkt"}', "700pps")] > 0
    assert drops[('{"discipline": "fifo", "limit": "1000pkt"}', "700pps")] == 0

    dask = tmp_path / "dask"
    res = CliRunner().invoke(app, ["sweep", str(spec_path), "--out", str(dask), "--dask-local", "--workers", "2", "-q"])
    assert res.exit_code == 0, res.output
    assert_same_results(pool, dask)

    inline = tmp_path / "inline"
    run_sweep(spec_path, inline, backend="inline")
    assert_same_results(pool, inline)
    # seeds differ, so the seeds of one point are not copies of each other
    f = load(pool).flows
    assert f.groupby("point_id")["bytes_delivered"].nunique().min() == 2


def test_interrupted_sweep_resumes_without_running_a_point_twice(spec_path, tmp_path):
    out = tmp_path / "out"
    first = CountingRun(tmp_path / "log1", stop_after=7)
    first.log.mkdir()
    with pytest.raises(SweepInterrupted) as e:
        run_sweep(spec_path, out, backend="inline", run_fn=first)
    assert e.value.report.done == 7 and e.value.report.missing == 11
    stored = {p.name for p in (out / "parts").iterdir()}
    assert len(stored) == 7
    assert not any((out / ".tmp").iterdir())
    second = CountingRun(tmp_path / "log2")
    second.log.mkdir()
    r = run_sweep(spec_path, out, backend="inline", run_fn=second)
    assert (r.skipped, r.done) == (7, 11)
    assert not stored & set(r.ran)
    runs = [(json.dumps(x["scenario"], sort_keys=True)) for x in first.finished() + second.finished()]
    assert len(runs) == 18 and len(set(runs)) == 18  # every point x seed ran exactly once
    assert len(load(out).points) == 18
    # a third run has nothing to do
    third = run_sweep(spec_path, out, backend="inline", run_fn=CountingRun(tmp_path / "log1", stop_after=0))
    assert (third.skipped, third.done) == (18, 0)


def test_interrupt_inside_a_pool_worker_keeps_what_finished(spec_path, tmp_path):
    out = tmp_path / "out"
    log = tmp_path / "log"
    log.mkdir()
    with pytest.raises(SweepInterrupted) as e:
        run_sweep(spec_path, out, workers=2, run_fn=CountingRun(log, stop_after=5))
    kept = {p.name for p in (out / "parts").iterdir()}
    assert len(kept) == e.value.report.done + e.value.report.failed >= 4
    r = run_sweep(spec_path, out, workers=2)
    assert r.skipped == len(kept) and r.done == 18 - len(kept)
    assert not kept & set(r.ran)
    assert len(load(out).points) == 18


# Signals to a running sweep race with its work: one at a time (`make test`'s serial lane).
@pytest.mark.serial
def test_killed_sweep_leaves_no_partial_point(spec_path, tmp_path):
    """SIGKILL the sweep command (and its workers) part-way: every stored part is whole, and a
    rerun runs exactly the rest."""
    spec = spec_path.read_text().replace('"run.duration" = "2s"', '"run.duration" = "400s"')
    spec_path.write_text(spec.replace('"run.measure" = ["0.5s", "2s"]', ""))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "bufferlab.cli", "sweep", str(spec_path), "--out", str(out), "-j", "2", "-q"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            parts = out / "parts"
            if parts.is_dir() and len(list(parts.iterdir())) >= 3:
                break
            if proc.poll() is not None:
                pytest.fail(f"the sweep ended before it could be killed: {proc.stderr.read().decode()}")
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    kept = {p.name for p in (out / "parts").iterdir()}
    assert 3 <= len(kept) < 18
    for part in kept:
        files = {f.name for f in (out / "parts" / part).iterdir()}
        assert {"points.parquet", "flows.parquet", "queues.parquet", "links.parquet"} <= files
    r = run_sweep(spec_path, out, workers=2)
    assert r.skipped == len(kept) and r.done == 18 - len(kept) and not kept & set(r.ran)
    assert not any((out / ".tmp").iterdir())  # a killed sweep's leftovers are cleared


@pytest.mark.serial
def test_ctrl_c_on_the_command_exits_130_and_rerun_finishes(spec_path, tmp_path):
    spec = spec_path.read_text().replace('"run.duration" = "2s"', '"run.duration" = "400s"')
    spec_path.write_text(spec.replace('"run.measure" = ["0.5s", "2s"]', ""))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "bufferlab.cli", "sweep", str(spec_path), "--out", str(out), "-j", "2", "-q"]
    # A shell may start background jobs with Ctrl-C ignored; a terminal's foreground job has it.
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            parts = out / "parts"
            if parts.is_dir() and len(list(parts.iterdir())) >= 2:
                break
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = proc.stderr.read().decode()
    assert rc == 130, err
    assert "run the same command to finish" in err
    kept = {p.name for p in (out / "parts").iterdir()}
    r = run_sweep(spec_path, out, workers=2)
    assert r.skipped == len(kept) and r.done + r.skipped == 18


def test_failed_point_is_recorded_with_the_key_and_the_rest_run(tmp_path):
    spec = load_spec({
        "base": str(example_path("udp-fifo")),
        "seeds": [1, 2],
        "set": {"run.duration": "2s", "run.measure": ["0s", "2s"]},
        "grid": {"traffic[0].rate": ["300pps", "fast", "500pps"]},
    }, base_dir="/")
    out = tmp_path / "out"
    # The sweep refuses such a spec before running (tests/test_sweep_edges.py); unchecked, as
    # for a run_fn of one's own, the point fails alone and is recorded.
    r = run_sweep(spec, out, workers=2, check=False)
    assert (r.done, r.failed) == (4, 2)
    p = load(out).points
    bad = p[p["traffic[0].rate"] == "fast"]
    assert set(bad["status"]) == {"failed"}
    for err in bad["error"]:
        assert 'traffic[0].rate: "fast" is not a rate' in err
    good = p[p["traffic[0].rate"] != "fast"]
    assert set(good["status"]) == {"done"} and good["error"].isna().all()
    assert set(load(out).flows["point_id"]) == set(good["point_id"])
    # a rerun keeps the failure; --retry-failed runs it again
    assert run_sweep(spec, out, workers=2, check=False).skipped == 6
    again = run_sweep(spec, out, backend="inline", retry_failed=True, check=False)
    assert (again.failed, again.skipped) == (2, 4)
    assert len(load(out).points) == 6


def test_cli_refuses_a_bad_value_in_the_grid_before_running(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(textwrap.dedent(f"""
        base = "{example_path('udp-fifo')}"
        [set]
        "run.duration" = "1s"
        "run.measure" = ["0s", "1s"]
        [grid]
        "topology.up.queue.limit" = ["10pkt", "-5pkt"]
    """))
    res = CliRunner().invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "o"), "-q", "-j", "1"])
    assert res.exit_code == 2
    assert 'topology.up.queue.limit: "-5pkt": a size must not be negative' in res.output
    assert 'point 2 of 2 (topology.up.queue.limit="-5pkt")' in res.output
    assert not (tmp_path / "o").exists()
    bad = CliRunner().invoke(app, ["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o2")])
    assert bad.exit_code == 2 and "no such sweep spec" in bad.output


def test_engine_error_is_a_failed_point(spec_path, tmp_path):
    out = tmp_path / "out"
    r = run_sweep(spec_path, out, backend="inline", run_fn=explode_on_700pps)
    assert (r.done, r.failed) == (12, 6)
    p = load(out).points
    assert set(p.loc[p["status"] == "failed", "traffic[0].rate"]) == {"700pps"}
    assert p.loc[p["status"] == "failed", "error"].str.startswith("EngineError: boom").all()


def explode_on_700pps(scenario):
    if scenario["traffic"][0]["rate"] == "700pps":
        raise bufferlab.EngineError("boom")
    return bufferlab.run(scenario)


def test_new_engine_version_replaces_old_results(spec_path, tmp_path):
    out = tmp_path / "out"
    spec = load_spec(spec_path)
    run_sweep(spec, out, backend="inline", version="old")
    r = run_sweep(spec, out, backend="inline", version="new")
    assert r.done == 18 and r.skipped == 0
    p = load(out).points
    assert len(p) == 18 and set(p["engine_version"]) == {"new"}
    assert len(list((out / "parts").iterdir())) == 18


def die_on_500pps(scenario):
    if scenario["traffic"][0]["rate"] == "500pps" and scenario["run"]["seed"] == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return bufferlab.run(scenario)


def test_a_worker_that_dies_fails_only_its_point(spec_path, tmp_path):
    out = tmp_path / "out"
    r = run_sweep(spec_path, out, workers=2, run_fn=die_on_500pps)
    assert (r.done, r.failed) == (15, 3)
    p = load(out).points
    bad = p[p["status"] == "failed"]
    assert set(bad["traffic[0].rate"]) == {"500pps"} and set(bad["seed"]) == {2}
    assert bad["error"].str.contains("killed by signal 9").all()


def test_stored_tables_are_the_results_tables(spec_path, tmp_path):
    """What a sweep stores for a point is what bufferlab.run returns for its scenario."""
    out = tmp_path / "out"
    spec = load_spec(spec_path)
    run_sweep(spec, out, backend="inline")
    t = load(out)
    point = spec.points(bufferlab.engine_version())[5]
    r = bufferlab.run(point.scenario)
    for name in ("flows", "queues", "links", "distributions"):
        got = t[name]
        got = got[(got["point_id"] == point.point_id) & (got["seed"] == point.seed)]
        got = got.drop(columns=["point_id", "seed"]).reset_index(drop=True)
        want = getattr(r, name)
        assert list(got.columns) == list(want.columns), name
        got = got.astype(object).where(got.notna(), None)
        want = want.astype(object).where(want.notna(), None)
        pd.testing.assert_frame_equal(got, want, check_dtype=False, obj=name)


def test_running_dask_cluster_by_address(spec_path, tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, **NO_DASHBOARD) as cluster:
        res = CliRunner().invoke(app, ["sweep", str(spec_path), "--out", str(tmp_path / "d"), "-q",
                                       "--scheduler", cluster.scheduler_address])
        assert res.exit_code == 0, res.output
    run_sweep(spec_path, tmp_path / "i", backend="inline")
    assert_same_results(tmp_path / "d", tmp_path / "i")
    both = CliRunner().invoke(app, ["sweep", str(spec_path), "--out", str(tmp_path / "x"), "--dask-local",
                                    "--scheduler", "tcp://127.0.0.1:1"])
    assert both.exit_code == 2


def test_two_local_clusters_at_once_take_no_fixed_port():
    """Two sweeps on local clusters at once (two users, a sweep beside a reproduction): neither
    warns that the scheduler's HTTP port, 8787 by default, is taken."""
    from bufferlab.sweep.backends import DaskBackend

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning, raised where the cluster starts, fails it
        first = DaskBackend(bufferlab.engine_version(), workers=1)
        try:
            DaskBackend(bufferlab.engine_version(), workers=1).close()
        finally:
            first.close()


def die_on_one_point(scenario):
    if scenario["traffic"][0]["rate"] == "500pps" and scenario["run"]["seed"] == 2 \
            and scenario["topology"]["up"]["queue"]["limit"] == "10pkt":
        os.kill(os.getpid(), signal.SIGKILL)
    return bufferlab.run(scenario)


def test_a_dask_point_whose_worker_dies_is_failed(spec_path, tmp_path):
    # Dask retries a task whose worker died (3 times by default, once here), then gives up with
    # KilledWorker; points that only shared a worker with it get a run of their own and finish.
    # The culprit is failed either by Dask (KilledWorker) or, on a machine so loaded that its
    # restarts keep every nanny down for the grace period, by the backend (WorkerDied): seen
    # once on a 2-vCPU host under `make test`, where it killed eight workers in its two lives.
    # One retry rather than Dask's three: the same path (a retry, then KilledWorker), two
    # restarts of a worker fewer.
    # distributed first: it adds its defaults to dask's config on import, and a `config.set` made
    # before that would take the whole `distributed` section away on exit, from every later test
    # in this process.
    import dask
    import distributed  # noqa: F401

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        r = run_sweep(spec_path, tmp_path / "out", backend="dask", workers=2, run_fn=die_on_one_point)
    assert (r.done, r.failed) == (17, 1)
    p = load(tmp_path / "out").points
    failed = p.loc[p["status"] == "failed"]
    assert failed["error"].str.startswith(("KilledWorker", "WorkerDied")).all(), failed["error"].tolist()


def second_run(scenario):
    time.sleep(1.0)
    return bufferlab.run(scenario)


def test_nannies_left_without_a_worker_are_replaced_and_every_point_runs(spec_path):
    """A nanny that fails to start its worker again after the last one died stays up without one
    (Dask logs "Failed to restart worker" and moves on): the points would wait for ever. A cluster
    of our own in that state gets fresh nannies, and every point runs."""
    import threading

    from bufferlab.sweep.backends import DaskBackend

    points = load_spec(spec_path).points(bufferlab.engine_version())[:3]
    b = DaskBackend(bufferlab.engine_version(), run_fn=second_run, workers=1)
    b.RENEW_AFTER_S = 0.5

    def strand():
        # The nanny cannot start a worker any more; then its worker dies.
        for nanny in list(b.cluster.workers.values()):
            async def refuse():
                raise OSError("cannot start a worker")
            nanny.instantiate = refuse
            os.kill(nanny.pid, signal.SIGKILL)

    stranded = list(b.cluster.workers.values())
    strander = threading.Timer(0.5, strand)
    try:
        strander.start()
        got = list(b.outcomes(points))
        renewed = [n for n in b.cluster.workers.values() if n not in stranded]
    finally:
        strander.cancel()
        b.close()
    assert sorted(o.part for o in got) == sorted(p.part for p in points)
    assert all(o.status == "done" for o in got), got
    assert renewed and all(n.status.name == "closed" for n in stranded)


def slow_run(scenario):
    time.sleep(30)
    return bufferlab.run(scenario)


# A grace period of one wall second: one at a time (`make test`'s serial lane).
@pytest.mark.serial
def test_a_local_cluster_left_without_workers_fails_what_waits_instead_of_hanging(spec_path, tmp_path):
    """Workers whose nannies gave up leave the points with nowhere to run: they fail, saying so,
    once the cluster has had no worker for the grace period, instead of waiting for ever."""
    import threading

    from bufferlab.sweep.backends import DaskBackend

    points = load_spec(spec_path).points(bufferlab.engine_version())[:3]
    b = DaskBackend(bufferlab.engine_version(), run_fn=slow_run, workers=1, no_worker_grace_s=1.0)
    ender = threading.Timer(1.0, lambda: b.cluster.scale(0))
    try:
        t0 = time.monotonic()
        ender.start()
        got = list(b.outcomes(points))
    finally:
        ender.cancel()
        b.close()
    assert time.monotonic() - t0 < 25, "failed long before the slow runs could have ended"
    assert sorted(o.part for o in got) == sorted(p.part for p in points)
    assert all(o.status == "failed" and o.error.startswith("WorkerDied: every worker") for o in got), got


def test_dry_run_lists_the_runs_and_runs_nothing(spec_path, tmp_path):
    res = CliRunner().invoke(app, ["sweep", str(spec_path), "--out", str(tmp_path / "o"), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "18 runs" in res.output and "700pps" in res.output
    assert not (tmp_path / "o").exists()
    # A dry run needs no results folder; a sweep does, and says so.
    res = CliRunner().invoke(app, ["sweep", str(spec_path), "--dry-run"])
    assert res.exit_code == 0 and "18 runs" in res.output, res.output
    res = CliRunner().invoke(app, ["sweep", str(spec_path)])
    assert res.exit_code == 2 and "--out DIR: give the results folder" in res.output, res.output


def _script(tmp_path: Path, spec: Path, guarded: bool) -> subprocess.CompletedProcess:
    out = tmp_path / ("guarded" if guarded else "bare")
    short = "{'run.duration': '1s', 'run.measure': ['0s', '1s']}"
    body = (f"first = bufferlab.run({str(example_path('udp-fifo'))!r}, overrides={short})\n"
            f"r = run_sweep({str(spec)!r}, {str(out)!r}, workers=2)\n"
            "print('done', r.done, 'failed', r.failed)\n")
    if guarded:
        body = 'if __name__ == "__main__":\n' + textwrap.indent(body, "    ")
    script = tmp_path / "analysis.py"
    script.write_text("import bufferlab\nfrom bufferlab.sweep import run_sweep\n" + body)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_a_script_that_sweeps_on_a_pool_needs_its_main_guard_and_is_told_so(spec_path, tmp_path):
    # The pool's workers import the script that started them (as every multiprocessing start
    # method but fork does): its unguarded top level is refused there, run and sweep alike,
    # saying how to fix it, rather than paying for the run again in each worker and then waiting
    # on the folder the script's own sweep holds.
    bare = _script(tmp_path, spec_path, guarded=False)
    assert "bufferlab.run was called while a worker process was importing the script" in bare.stderr, bare.stderr[-3000:]
    assert 'put the script\'s runs and sweeps under `if __name__ == "__main__":`' in bare.stderr, bare.stderr[-3000:]
    assert "being written by another sweep" not in bare.stderr, bare.stderr[-3000:]
    guarded = _script(tmp_path, spec_path, guarded=True)
    assert guarded.returncode == 0 and "done 18 failed 0" in guarded.stdout, guarded.stderr[-3000:]
