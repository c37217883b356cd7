"""What a run will cost, seen before and while paying it: `validate` prints the expected work,
`run` wants --yes beyond an hour, a long run reports progress, Ctrl-C stops it cleanly, and a
scenario beyond what one run can hold is refused with its key."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from conftest import REPO, example_path
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app

DUMBBELL = str(example_path("dumbbell"))
BENCH_100 = str(REPO / "scenarios" / "bench" / "dumbbell-100M-100.toml")


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def test_validate_prints_the_expected_work():
    r = cli("validate", DUMBBELL)
    assert r.exit_code == 0, r.output
    # 10 Mb/s for 200 s of 1500 B packets: 166,666 through the bottleneck.
    assert "expected work" in r.output and "166,666 on r1->r2" in r.output, r.output


def test_a_run_beyond_an_hour_wants_yes_and_says_how_to_shorten_it():
    big = ["--set", "topology.pairs=1000", "--set", 'run.duration="30000s"', "--set", 'topology.bottleneck.rate="10Gbps"']
    r = cli("validate", DUMBBELL, *big)
    assert r.exit_code == 0 and "note: this run is estimated at about" in r.output, r.output
    r = cli("run", DUMBBELL, *big)
    assert r.exit_code == 2
    assert "--set run.duration=" in r.output and "--yes" in r.output, r.output
    assert "rates' units" not in r.output, r.output  # many flows, not an overload


def test_flows_beyond_what_a_run_holds_are_refused_with_the_key():
    r = cli("validate", DUMBBELL, "--set", "topology.pairs=10000", "--set", "traffic[0].count=100000")
    assert r.exit_code == 2
    assert "traffic[0].count" in r.output and "1000000000 flows" in r.output, r.output


def test_progress_gets_simulated_time_and_events():
    seen: list[tuple[float, int]] = []
    # 200 s of the 100-flow dumbbell: a second or two of wall time, a callback every 0.2 s.
    r = bufferlab.run(BENCH_100, overrides={"run.duration": "200s"}, progress=lambda s, e: seen.append((s, e)))
    assert len(seen) >= 2, "a run of a wall second or more reports progress, in order"
    assert all(a[0] <= b[0] and a[1] < b[1] for a, b in zip(seen, seen[1:]))
    assert seen[-1][1] <= r.summary["engine"]["events"]
    # One-argument callbacks still get the simulated seconds alone.
    one: list[float] = []
    bufferlab.run(BENCH_100, overrides={"run.duration": "150s"}, progress=one.append)
    assert one and all(isinstance(x, float) for x in one)


# Ctrl-C three wall seconds in, once the interpreter has started: one at a time (`make test`'s serial lane).
@pytest.mark.serial
def test_ctrl_c_stops_a_run_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    p = subprocess.Popen(
        [sys.executable, "-m", "bufferlab", "run", BENCH_100, "--set", 'run.duration="5000s"', "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell may start background jobs with Ctrl-C ignored (`make test &`); a terminal's
        # foreground job has it, and the run is started as one.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert err.strip() == "interrupted; nothing written", err
    assert not out.exists()


UDP_FIFO = str(REPO / "scenarios" / "udp-fifo.toml")
# The M/D/1 example's 12 Mb/s Poisson source typed in Tbps: ~833 M packets a second, nearly all
# dropped at the first queue, each still an event.
TERA = ["--set", 'traffic[0].rate="10Tbps"']


def test_an_offered_load_beyond_the_links_is_estimated_as_the_long_run_it_is():
    r = cli("validate", UDP_FIFO, *TERA)
    assert r.exit_code == 0, r.output
    # 120 s x 833 M packets a second: ~100 G packets created, ~3 h at 9 M events/s.
    assert "~100,000,000,000 packets" in r.output.replace("99,999,999,999", "100,000,000,000"), r.output
    assert "note: this run is estimated at about" in r.output, r.output
    r = cli("run", UDP_FIFO, *TERA)
    assert r.exit_code == 2 and "--yes" in r.output, r.output
    assert "check the traffic rates' units" in r.output, r.output


def test_the_overload_estimate_is_within_2x_of_the_events_counted():
    from bufferlab.scenario import load_scenario
    from bufferlab.simulate import prepare_plan, run_prepared

    sc = load_scenario(UDP_FIFO, overrides={"traffic[0].rate": "10Tbps", "run.duration": "2ms", "run.measure": ["0s", "2ms"]})
    prepared = prepare_plan(sc)
    e = json.loads(prepared.estimate())
    assert e["packets"] > 1_000_000, e  # the offered load, not the ~2 packets the link carries
    events = run_prepared(prepared, sc.plan).summary["engine"]["events"]
    assert 0.5 <= e["events"] / events <= 2.0, (e, events)


def test_a_sweep_with_a_point_beyond_an_hour_wants_yes(tmp_path):
    spec = tmp_path / "tera.toml"
    spec.write_text(f'base = "{UDP_FIFO}"\nseeds = 2\n[grid]\n"traffic[0].rate" = ["500pps", "10Tbps"]\n')
    r = cli("sweep", str(spec), "--out", str(tmp_path / "out"))
    assert r.exit_code == 2, r.output
    # The hours at this machine's speed (the process's calibration, as the sweep's check used):
    # ~1.4 h at the fitted speed.
    from bufferlab.cli.common import hms
    from bufferlab.scenario import load_scenario

    e = json.loads(load_scenario(UDP_FIFO, overrides={"traffic[0].rate": "10Tbps"}).prepare().estimate())
    assert 0.5 * 3600 < e["wall_s"] * e["speed_factor"] < 3 * 3600, e
    assert f'point 2 of 2 (traffic[0].rate="10Tbps") is estimated at about {hms(e["wall_s"])}' in r.output, r.output
    assert "--yes" in r.output and not (tmp_path / "out").exists()


def test_the_python_api_refuses_a_run_beyond_an_hour_and_runs_it_when_told(tmp_path):
    # bufferlab.run as `bufferlab run` without --yes: refused before the engine starts, with how to
    # shorten it in the API's own terms; max_wall_s=None (or a larger bound) lifts the bound.
    with pytest.raises(bufferlab.LongRunError) as got:
        bufferlab.run(UDP_FIFO, overrides={"traffic[0].rate": "10Tbps"})
    e = got.value
    assert e.wall_s > 3600 and e.duration_s == 120 and e.estimate["wall_s"] == e.wall_s
    msg = str(e)
    assert msg.startswith(f"{UDP_FIFO}: this run is estimated at about"), msg
    assert 'overrides={"run.duration": "' in msg and "check the traffic rates' units" in msg, msg
    assert msg.endswith("or pass max_wall_s=None to run it as it is"), msg
    # A bound of the caller's own: the same run, shortened until it fits, runs.
    short = {"traffic[0].rate": "10Tbps", "run.duration": "1ms", "run.measure": ["0s", "1ms"]}
    with pytest.raises(bufferlab.LongRunError, match=r"fits 1e-06 s\)"):
        bufferlab.run(UDP_FIFO, overrides=short, max_wall_s=1e-6)
    assert bufferlab.run(UDP_FIFO, overrides=short, max_wall_s=None).summary["engine"]["sim_seconds"] == pytest.approx(1e-3)
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="give a bound above 0 wall seconds, or None"):
            bufferlab.run(UDP_FIFO, overrides=short, max_wall_s=bad)


def test_an_expanded_plan_is_bounded_as_a_scenario_is():
    # bufferlab.run_plan, the engine's JSON form: the same bound, the hint in the plan's terms.
    from bufferlab.scenario import load_scenario

    plan = load_scenario(UDP_FIFO, overrides={"traffic[0].rate": "10Tbps"}).plan
    with pytest.raises(bufferlab.LongRunError) as got:
        bufferlab.run_plan(plan, source="tera")
    msg = str(got.value)
    assert msg.startswith("tera: this run is estimated at about") and got.value.duration_s == 120, msg
    assert 'plan["run"]["duration_ns"] for ' in msg and msg.endswith("pass max_wall_s=None to run it as it is"), msg
    plan["run"].update(duration_ns=1_000_000, measure_ns=[0, 1_000_000])
    with pytest.raises(bufferlab.LongRunError):
        bufferlab.run_plan(plan, max_wall_s=1e-6)
    assert bufferlab.run_plan(plan, max_wall_s=None).summary["engine"]["sim_seconds"] == pytest.approx(1e-3)


def test_the_python_sweep_refuses_a_point_beyond_an_hour(tmp_path):
    from bufferlab.sweep import run_sweep

    spec = tmp_path / "tera.toml"
    spec.write_text(f'base = "{UDP_FIFO}"\nseeds = 2\n[grid]\n"traffic[0].rate" = ["500pps", "10Tbps"]\n')
    with pytest.raises(bufferlab.LongRunError) as got:
        run_sweep(spec, tmp_path / "out", backend="inline")
    msg = str(got.value)
    assert 'point 2 of 2 (traffic[0].rate="10Tbps") is estimated at about' in msg, msg
    assert msg.endswith("pass max_wall_s=None to run them as they are") and got.value.wall_s > 3600, msg
    assert not (tmp_path / "out").exists()


def test_a_plot_of_a_scenario_beyond_an_hour_says_how_to_draw_it(tmp_path):
    r = cli("plot", "cdf", UDP_FIFO, "-m", "sojourn_s", "-o", str(tmp_path / "x.png"), *TERA)
    assert r.exit_code == 2, r.output
    assert "this run is estimated at about" in r.output and "--set run.duration=" in r.output, r.output
    assert f"bufferlab run {UDP_FIFO} --yes --out DIR" in r.output and "max_wall_s" not in r.output, r.output
    assert not (tmp_path / "x.png").exists()


def test_a_command_without_yes_reports_a_refused_run_as_run_does(monkeypatch, capsys):
    # `crosscheck` runs the scenario through bufferlab.run; its refusal reaches the command
    # line's entry point, which tells it in the command line's terms (exit 2, no traceback).
    import bufferlab.cli as cli_pkg

    def refused():
        bufferlab.run(UDP_FIFO, overrides={"traffic[0].rate": "10Tbps"})

    monkeypatch.setattr(cli_pkg, "app", refused)
    with pytest.raises(SystemExit) as got:
        cli_pkg.main()
    err = capsys.readouterr().err
    assert got.value.code == 2 and "Traceback" not in err, err
    assert "this run is estimated at about" in err and '--set run.duration="' in err, err
    assert "`bufferlab run FILE --yes` runs it as it is" in err and "max_wall_s" not in err, err


def test_the_engine_time_counts_the_build_and_the_run_not_what_comes_between():
    """`engine.wall_seconds` of a prepared run is its build and its run: an estimate (whose first
    call measures the machine) or a confirmation between `prepare` and `run` is not the engine's
    time. The bound holds however loaded the machine: each part is timed around its own call."""
    from bufferlab.scenario import load_scenario
    from bufferlab.simulate import run_prepared

    sc = load_scenario(UDP_FIFO, overrides={"run.duration": "1s", "run.measure": ["0s", "1s"]})
    t = time.perf_counter()
    prepared = sc.prepare()
    build = time.perf_counter() - t
    json.loads(prepared.estimate())
    time.sleep(0.2)
    t = time.perf_counter()
    res = run_prepared(prepared, sc.plan)
    run = time.perf_counter() - t
    assert 0 < res.summary["engine"]["wall_seconds"] <= build + run, (res.summary["engine"], build, run)
