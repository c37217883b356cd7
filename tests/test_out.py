"""``--out``: checked before the simulation, refused cleanly (exit 2, no errno), leftovers of a
killed write removed by the next one, results readable by the group."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import example_path
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app

runner = CliRunner()
SHORT = ["--set", 'run.duration="2s"', "--set", 'run.measure=["1s", "2s"]']


@pytest.fixture
def no_engine(monkeypatch):
    """Fail the test if the simulation starts: a bad --out must be refused before it."""

    def run(*a, **k):
        raise AssertionError("the simulation ran before --out was checked")

    monkeypatch.setattr(bufferlab, "run", run)


def run_cli(*args: str):
    return runner.invoke(app, ["run", str(example_path("udp-fifo")), *SHORT, *args])


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda t: (t / "f").write_text("x") and t / "f", "is a file; give a folder name"),
        (lambda t: (t / "f").write_text("x") and t / "f" / "sub", "is a file, so"),
        (lambda t: Path("/proc/bufferlab-out"), "cannot write in /proc"),
        (lambda t: (t / "d").mkdir() or (t / "d" / "keep.txt").write_text("x") and t / "d", "already holds other files"),
    ],
    ids=["a file", "under a file", "unwritable place", "a folder of other files"],
)
def test_a_bad_out_is_refused_before_the_run(tmp_path, no_engine, make, words):
    out = make(tmp_path)
    r = run_cli("--out", str(out))
    assert r.exit_code == 2, r.output
    assert words in r.stderr
    assert "Errno" not in r.stderr and "Traceback" not in r.output


def test_a_read_only_folder_is_refused(tmp_path, no_engine):
    if os.geteuid() == 0:
        # root writes anywhere a mode allows nothing; a read-only mount is the same refusal,
        # and /proc stands for it above
        pytest.skip("root ignores folder permissions")
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    r = run_cli("--out", str(ro / "res"))
    assert r.exit_code == 2 and "permission denied" in r.stderr


def test_a_write_failing_half_way_is_clean_and_leaves_nothing(tmp_path, monkeypatch):
    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    r = run_cli("--out", str(tmp_path / "res"))
    assert r.exit_code == 1
    assert "no space left on the device" in r.stderr and "Errno" not in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_leftovers_of_a_killed_write_are_removed_by_the_next(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for name in (f".res.part-{dead_pid}-0a1b2c3d", ".res.part-k2j3h4", f".res.old-{dead_pid}-99aa88bb",
                     f".res.part-{live.pid}-feedbeef", f".other.part-{dead_pid}-0a1b2c3d"):
            (tmp_path / name).mkdir()
            (tmp_path / name / "summary.json").write_text("{}")
        r = run_cli("--out", str(tmp_path / "res"))
        assert r.exit_code == 0, r.output
        left = sorted(p.name for p in tmp_path.iterdir())
        # a dead writer's folders go; a live writer's and another result's stay
        assert left == [f".other.part-{dead_pid}-0a1b2c3d", f".res.part-{live.pid}-feedbeef", "res"]
    finally:
        live.kill()
        live.wait()


def test_results_are_readable_by_the_group(tmp_path):
    old = os.umask(0o027)
    try:
        r = run_cli("--out", str(tmp_path / "res"))
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    d = tmp_path / "res"
    assert d.stat().st_mode & 0o777 == 0o750
    for f in d.iterdir():
        assert f.stat().st_mode & 0o040, f.name  # group may read


def test_figure_and_data_paths_are_checked_before_any_data_is_read(tmp_path, no_engine):
    (tmp_path / "f").write_text("x")
    for args, words in [
        (["-o", str(tmp_path / "fig.jpg")], "write a .png, .svg or .pdf file"),
        (["-o", str(tmp_path / "f" / "fig.png")], "is a file, so"),
        (["-o", str(tmp_path)], "is a folder"),
        (["-o", str(tmp_path / "ok.png"), "--data", str(tmp_path / "f" / "d.csv")], "is a file, so"),
    ]:
        r = runner.invoke(app, ["plot", "cdf", str(example_path("udp-fifo")), "--metric", "sojourn_s", *args])
        assert r.exit_code == 2, r.output
        assert words in r.output and "Traceback" not in r.output
