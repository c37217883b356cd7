"""The bufferlab command: output, exit codes, messages."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import example_path
from typer.testing import CliRunner

from bufferlab.cli import app

runner = CliRunner()

SHORT = ["--set", 'run.duration="5s"', "--set", 'run.measure=["1s", "5s"]']


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_run_prints_tables():
    r = cli("run", str(example_path("udp-fifo")), *SHORT)
    assert r.exit_code == 0, r.output
    for word in ("flows", "queues", "links", "client->server", "fifo", "1000pkt"):
        assert word in r.stdout


def test_run_json_is_the_summary():
    r = cli("run", str(example_path("udp-fifo")), "--json", "--seed", "3", *SHORT)
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert set(s) >= {"engine", "run", "flows", "queues", "links"}
    assert s["run"]["seed"] == 3 and s["run"]["duration_s"] == 5.0


def test_run_out_writes_the_directory(tmp_path):
    out = tmp_path / "res"
    r = cli("run", str(example_path("udp-fifo")), "--out", str(out), *SHORT)
    assert r.exit_code == 0, r.output
    assert (out / "summary.json").exists() and (out / "queues.parquet").exists()


def test_out_that_is_not_a_result_directory_fails_cleanly(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    r = cli("run", str(example_path("udp-fifo")), "--out", str(tmp_path), *SHORT)
    assert r.exit_code == 2
    assert "already holds other files" in r.stderr
    assert (tmp_path / "keep.txt").exists()


def test_validate_ok():
    r = cli("validate", str(example_path("udp-fifo")))
    assert r.exit_code == 0 and "ok" in r.stdout


def test_validate_plan_prints_the_plan():
    r = cli("validate", str(example_path("udp-fifo")), "--plan")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["links"][0]["forward"]["rate_bps"] == 10_000_000


@pytest.mark.parametrize("command", ["run", "validate"])
def test_scenario_problems_exit_2_with_each_on_stderr(tmp_path, command):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        example_path("udp-fifo").read_text().replace('"10Mbps"', '"10Mbsp"', 1).replace('"poisson"', '"possion"')
    )
    r = cli(command, str(bad))
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert 'topology.up.rate: "10Mbsp" is not a rate (try "10Mbps")' in lines
    assert any(ln.startswith("traffic[0].arrivals:") for ln in lines)
    assert "2 problems; nothing was run" in r.stderr
    assert r.stdout == ""


def test_set_overrides_and_bad_set():
    r = cli("validate", str(example_path("udp-fifo")), "--set", "topology.up.rate=20Mbps", "--set", "traffic[0].size=1000B", "--plan")
    assert r.exit_code == 0, r.output
    plan = json.loads(r.stdout)
    assert plan["links"][0]["forward"]["rate_bps"] == 20_000_000 and plan["traffic"][0]["size_bytes"] == 1000
    r = cli("validate", str(example_path("dumbbell")), "--set", "topology.pairs")
    assert r.exit_code == 2 and "KEY=VALUE" in r.stderr
    r = cli("validate", str(example_path("dumbbell")), "--set", "topology.pairs=0")
    assert r.exit_code == 2 and "topology.pairs" in r.stderr


def test_missing_file_exits_2():
    r = cli("run", "no/such/file.toml")
    assert r.exit_code == 2 and "no such file" in r.stderr


def test_version():
    from bufferlab.simulate import engine_build

    r = cli("version")
    assert r.exit_code == 0 and r.stdout.startswith("bufferlab ") and "engine" in r.stdout
    # `make pgo`'s extension says so; `make build`'s does not.
    assert engine_build() in ("release", "pgo")
    assert ("profile-guided build" in r.stdout) == (engine_build() == "pgo")


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_what_version_prints(flag):
    r = cli(flag)
    assert r.exit_code == 0, r.output
    assert r.stdout == cli("version").stdout


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["validate", "--help"], ["version", "--help"]])
def test_help(args):
    r = cli(*args)
    assert r.exit_code == 0
    assert "Usage" in r.stdout


def test_help_describes_the_options():
    r = cli("run", "--help")
    for opt in ("--out", "--json", "--seed", "--set"):
        assert opt in r.stdout


def test_real_process_no_traceback(tmp_path):
    """As a user runs it: a separate process, no stdin, a bad file -> exit 2 and no traceback."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[run]\nduration = 5\n[topology]\ntemplate = 'access'\n")
    p = subprocess.run(
        [sys.executable, "-m", "bufferlab.cli", "run", str(bad)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert 'run.duration: 5 is a bare number; a time needs a unit (try "5ms" or "5s")' in p.stderr
    assert "topology.up: missing" in p.stderr


def test_validate_many_files(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(example_path("udp-fifo").read_text().replace('"10ms"', '"10 parsecs"', 1))
    good = example_path("udp-fifo")
    r = cli("validate", str(good), str(bad), str(good))
    assert r.exit_code == 2
    assert r.stdout.count(": ok") == 2
    assert f"{bad}: topology.up.delay:" in r.stderr
    assert "1 of 3 files have problems" in r.stderr
    r = cli("validate", str(good), str(good), "--plan")
    assert r.exit_code == 2 and "exactly one file" in r.stderr


def test_python_dash_m():
    p = subprocess.run([sys.executable, "-m", "bufferlab", "version"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("bufferlab ")


def test_tables_leave_out_columns_no_row_has():
    from io import StringIO

    from rich.console import Console

    from bufferlab.cli.tables import print_result
    from bufferlab.results import Result

    summary = {
        "engine": {"version": "x", "events": 1, "wall_seconds": 0.1, "sim_seconds": 1.0},
        "flows": [{"id": "udp-1", "kind": "udp", "src": "a", "dst": "b", "goodput_bps": 1e6, "rtt_mean_s": None,
                   "owd_mean_s": 0.01, "loss_rate": 0.0, "retransmits": 0, "completion_time_s": None}],
        "queues": [{"link": "a->b", "discipline": "fifo", "limit_pkts": 10, "sojourn_mean_s": 0.001,
                    "ring_sojourn_mean_s": 0.002, "bql_limit_bytes": 3000, "dropped": 0},
                   {"link": "b->a", "discipline": "fifo", "limit_bytes": 64000, "sizing": "bdp", "dropped": 0}],
        "links": [{"link": "a->b", "rate_bps": 1e6, "framing": "atm", "utilization": 0.5, "bytes_sent": 10}],
    }
    buf = StringIO()
    print_result(Result(summary), Console(file=buf, width=200), title="t")
    text = buf.getvalue()
    assert "one-way mean" in text and "10ms" in text
    assert "rtt mean" not in text and "done in" not in text
    assert "ring mean" in text and "3KB" in text
    assert "64KB (bdp)" in text and "atm" in text


def test_refused_scenario_writes_nothing(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(example_path("udp-fifo").read_text().replace('"1500B"', '"1500"'))
    r = cli("run", str(bad), "--out", str(tmp_path / "res"))
    assert r.exit_code == 2 and 'traffic[0].size: 1500 is a bare number' in r.stderr
    assert not (tmp_path / "res").exists()
