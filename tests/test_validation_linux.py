"""The simulator side of five row sets of docs/validation-linux.md, rerun over the stored seeds and
judged against the STORED kernel runs with the suite's own verdict code: a row the page says holds
must still hold (a change to the simulator that breaks agreement with Linux fails here). No root:
the kernel side is read from python/bufferlab/kernel/suite/kernel/."""

import os
from pathlib import Path

import pytest

from bufferlab import validate_linux as suite
from bufferlab.scenario import load_scenario

PAGE = Path(__file__).resolve().parents[1] / "docs" / "validation-linux.md"

# (case, metrics): the headline, a 10-flow Cubic CoDel dumbbell, a 10-flow Reno FIFO one, BBR against Cubic,
# ten BBR flows through FQ-CoDel, the asymmetric access link.
CHECKED = {
    suite.HEADLINE: ("aggregate goodput", "mean sojourn client->server", "drops client->server", "retransmits (all TCP flows)"),
    "cubic-codel-10": ("utilization r1->r2", "aggregate goodput", "mean sojourn r1->r2", "drops r1->r2", "retransmits (all TCP flows)"),
    "reno-fifo-1bdp-10": ("utilization r1->r2", "aggregate goodput", "mean sojourn r1->r2", "drops r1->r2", "retransmits (all TCP flows)"),
    # BBR against Cubic in one BDP of FIFO: both flows' shares, the queue, the drops.
    "bbr-cubic-fifo-1bdp": ("aggregate goodput", "per-class goodput, tcp-1, RTT 44 ms", "per-class goodput, tcp-2, RTT 44 ms",
                            "mean sojourn r1->r2", "drops r1->r2", "retransmits (all TCP flows)"),
    # Ten BBR flows through FQ-CoDel: each flow's own queue, which GSO pairs set (a single-segment
    # sender kept a third of Linux's p99 sojourn: 44.2 ms against 129.6).
    "bbr-fq-codel-10": ("aggregate goodput", "mean sojourn r1->r2", "p99 sojourn r1->r2", "RTT p99, tcp ×10, RTT 44 ms"),
    # A download whose ACKs share a slow uplink with an upload: its share of the downlink turns on
    # tens of microseconds at the hosts (validation-linux-differences.md#asymmetric-access).
    "asymmetric-access": ("utilization server->client", "aggregate goodput", "drops server->client",
                          "RTT p50, tcp-2, RTT 40 ms"),
}


def _case(name: str) -> suite.Case:
    return next(c for c in suite.CASES if c.name == name)


@pytest.mark.parametrize("name", list(CHECKED))
def test_rows_the_page_says_hold_still_hold(name):
    case = _case(name)
    seeds = list(range(1, suite.SEEDS + 1))
    kruns = suite.stored_runs(case, seeds)
    if not kruns or not PAGE.is_file():
        pytest.skip(f"no stored kernel runs of {name} (python -m bufferlab.validate_linux --kernel --only {name})")
    on_page = suite.rows_on_page(PAGE.read_text(), name)
    if not on_page:
        pytest.skip(f"{PAGE.name} has no rows of {name} yet (python -m bufferlab.validate_linux rebuilds it)")
    sims = suite.run_sim(case, [r["seed"] for r in kruns], kernels={r["seed"]: r for r in kruns})
    rows = {r["metric"]: r for r in suite.case_rows(case, load_scenario(case.file), sims, [r["summary"] for r in kruns])}
    for metric in CHECKED[name]:
        assert metric in rows and metric in on_page, metric
        if on_page[metric] == "holds":
            r = rows[metric]
            assert r["verdict"] is True, (
                f"{name}, {metric}: the page says it holds; now simulator {r['sim']} vs Linux {r['linux']} "
                f"({r['difference']}, tolerance {r['tolerance']})")


def test_verdict_rules():
    # Counts near zero: both means below 5 per run -> absolute rule (|difference| <= 3).
    assert suite.judge("drops", [1, 2, 3], [4, 4, 4])["verdict"] is True
    assert suite.judge("drops", [0, 0, 0], [4, 4, 4.5])["verdict"] is False
    assert suite.judge("retransmits", [100, 110], [80, 90])["verdict"] is True  # +23.5%, within ±30%
    assert suite.judge("retransmits", [100, 110], [70, 80])["verdict"] is False  # +40%
    # Relative rules: simulator relative to Linux.
    j = suite.judge("aggregate goodput", [9.7e6, 9.7e6], [9.5e6, 9.5e6])
    assert j["verdict"] is True and j["difference"] == "+2.1%"
    # Timeouts: context unless both sides exceed 5 per run.
    assert suite.judge("timeouts", [1, 2], [30, 40])["verdict"] is None
    assert suite.judge("timeouts", [10, 12], [30, 34])["verdict"] is False
    assert suite.judge("timeouts", [10, 12], [12, 14])["verdict"] is True
    # A difference inside two standard errors of the difference of means is "within seed noise".
    j = suite.judge("mean sojourn", [0.01, 0.05], [0.02, 0.0201])
    assert j["verdict"] is False and j["within_noise"] is True
    # The seeds are paired: the noise is that of the per-seed differences, so a difference the
    # same in every seed is not noise however much the seeds differ among themselves (unpaired,
    # two standard errors would be ±83% here, paired ±21%).
    j = suite.judge("mean sojourn", [1.4, 2.8, 4.2, 5.6], [1.0, 2.0, 3.0, 4.0])
    assert j["verdict"] is False and j["within_noise"] is False and j["noise"] == "±20.7%"


# Cases that run longer than the suite's 20 s: asymmetric-access has one to three loss episodes of
# its download in 15 s, so it runs 60 s (docs/validation-linux-differences.md#asymmetric-access).
LONGER = {"asymmetric-access": 60, "asymmetric-access-nogso": 60}


def test_every_case_file_loads_and_describes_itself():
    for c in suite.CASES + suite.EXTRA_CASES:
        sc = load_scenario(c.file)
        assert c.title(), c.name
        assert sc.plan["run"]["duration_ns"] == LONGER.get(c.name, 20) * 10**9, c.name


def test_bbr_10bdp_row_as_a_time_series():
    """The figure of the bbr-fifo-10bdp-1 row, from its own scenario file through the engine and
    the run's sampler (tcp/bbr_tests.rs checks the modes on the TCP test network): STARTUP's queue
    peaks between one and two BDP and DRAIN empties it; afterwards the queue stays well under one
    BDP, and the window drops to 4 packets (PROBE_RTT) about every 10 s, the queue empty then."""
    case = _case("bbr-fifo-10bdp-1")
    sc = load_scenario(case.file, overrides={"run.sample": "10ms", "run.duration": "25s"})
    from bufferlab.simulate import run

    res = run(sc)
    bdp = 10e6 * 0.044 / (1500 * 8)  # 36.7 packets
    ts = res.timeseries
    q = ts[(ts["object"] == "queue") & (ts["id"] == "r1->r2") & (ts["metric"] == "qlen_pkts")].set_index("time_s")["value"]
    cwnd = ts[(ts["object"] == "flow") & (ts["metric"] == "cwnd_bytes")].set_index("time_s")["value"] / 1448
    assert res.summary["queues"][0]["limit_pkts"] >= 10 * bdp
    startup, after = q[q.index < 1.5], q[q.index >= 2.0]
    assert bdp <= startup.max() <= 2.2 * bdp, startup.max()
    assert after.mean() < 0.25 * bdp and after.max() < bdp, (after.mean(), after.max())
    # PROBE_RTT: the window at 4 packets, in spans that start about 10 s apart and last 200 ms
    # and a round trip or so.
    low = cwnd[(cwnd.index > 2.0) & (cwnd <= 4)]
    spans, start, last = [], None, None
    for t in low.index:
        if start is None or t - last > 0.05:
            if start is not None:
                spans.append((start, last))
            start = t
        last = t
    spans.append((start, last))
    assert len(spans) == 2, spans
    assert 10.0 <= spans[0][0] <= 11.0 and 9.9 <= spans[1][0] - spans[0][0] <= 10.8, spans
    for a, b in spans:
        assert 0.18 <= b - a <= 0.4, spans
        assert q[(q.index > a + 0.1) & (q.index <= b)].max() <= 4, (a, b)


def test_a_web_cases_kernel_runs_are_those_of_its_seeds_draws():
    """A stored kernel run of a case with web flows counts only if it played the draws its seed
    has now (the simulator's, on both sides): one made with other draws is measured again."""
    web, bulk = _case("web-fifo-1bdp"), _case(suite.HEADLINE)
    assert suite.workload_sha256(bulk, 1) is None
    h1, h2 = suite.workload_sha256(web, 1), suite.workload_sha256(web, 2)
    assert h1 and h2 and h1 != h2
    run = {"seed": 1, "file_sha256": web.file_hash()}
    assert suite._current(web, [run]) == []
    assert suite._current(web, [{**run, "workload_sha256": h2}]) == []
    assert suite._current(web, [{**run, "workload_sha256": h1}]) == [{**run, "workload_sha256": h1}]
    for r in (suite.load_record(web.name) or {}).get("runs", []):
        assert r.get("workload_sha256") == suite.workload_sha256(web, r["seed"]), f"seed {r['seed']}"


def test_every_explanation_the_page_links_to_exists():
    # A row that does not hold links to its section of the differences page: the anchor must be
    # there, or the row's "explained" leads nowhere.
    import re

    diffs = (PAGE.parent / "validation-linux-differences.md").read_text()
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', diffs))
    linked = set(re.findall(r"validation-linux-differences\.md#([a-z0-9-]+)", PAGE.read_text()))
    assert linked, "the page links to no explanation"
    assert linked <= anchors, sorted(linked - anchors)


def test_kernel_groups_share_the_missing_time_and_keep_the_order():
    cases = [suite.Case(n, ("r1->r2",)) for n in ("a", "b", "c", "d", "e")]
    seconds = {"a": 100.0, "b": 100.0, "c": 60.0, "d": 40.0, "e": 0.0}
    groups = suite.kernel_groups(cases, seconds, 2)
    names = [[c.name for c in g] for g in groups]
    # Nothing missing, no group; every other case once; each group in the order given.
    assert sorted(n for g in names for n in g) == ["a", "b", "c", "d"]
    assert all(g == sorted(g) for g in names)
    assert sorted(sum(seconds[n] for n in g) for g in names) == [140.0, 160.0]
    assert [[c.name for c in g] for g in suite.kernel_groups(cases, seconds, 1)] == [["a", "b", "c", "d"]]
    assert suite.kernel_groups(cases, dict.fromkeys(seconds, 0.0), 2) == []


def test_jobs_leave_the_bbr_cases_to_an_otherwise_idle_machine(monkeypatch):
    """`--kernel --jobs 3` measures the other cases in three processes at once, and the BBR cases
    afterwards, one at a time in its own process (BBR's estimate follows the hosts' load:
    `measured_alone`). Neither root nor time: the processes and the runs are faked."""
    started, alone = [], []

    class FakeProc:
        def __init__(self, args, env=None):
            self.args = args
            assert "--measure-only" in args, args
            # Drivers measuring side by side do not spin (kernel/run.py): they would take the
            # cores the hosts' programs need.
            assert env is not None and env["BUFFERLAB_KERNEL_SPIN_US"] == os.environ.get("BUFFERLAB_KERNEL_SPIN_US", "0")
            started.append(args[args.index("--only") + 1:])

        def poll(self):
            assert not alone, "the BBR cases waited for the groups to finish"
            return 0

        def wait(self):
            assert not alone, "the BBR cases waited for the groups to finish"
            return 0

    monkeypatch.setattr(suite.subprocess, "Popen", FakeProc)
    monkeypatch.setattr(suite, "missing_seconds", lambda case, seeds: 20.0 * len(seeds))
    again = []

    def measure(case, seeds, log=None, attempts=None, redo_busy=False):
        (again if redo_busy else alone).append(case.name)
        return 0

    monkeypatch.setattr(suite, "run_kernel_seeds", measure)
    names = ["reno-fifo-1bdp-1", "bbr-fq-codel-1", "cubic-codel-10", "reno-pie-10", "bbr-cubic-fifo-1bdp"]
    assert suite.main(["--kernel", "--jobs", "3", "--measure-only", "--only", *names]) == 0
    assert len(started) == 3
    assert sorted(n for g in started for n in g) == ["cubic-codel-10", "reno-fifo-1bdp-1", "reno-pie-10"]
    assert sorted(alone) == ["bbr-cubic-fifo-1bdp", "bbr-fq-codel-1"]
    # Each group's process measures each run once (`--measure-only`); what it stored busy is measured
    # again here, alone, before the BBR cases.
    assert sorted(again) == ["cubic-codel-10", "reno-fifo-1bdp-1", "reno-pie-10"]


def test_the_suite_says_what_it_will_take_and_when_the_host_cannot_keep_its_pace(monkeypatch, capsys):
    """Before measuring, the suite says how long the missing runs take at the quiet machine's pace
    (docs/kernel-backend.md); while its groups run, once 30 of their runs are stored, it warns if
    more than a tenth came back busy, with what measuring them again alone will add; then it says
    how many it measures again. (Processes, runs and stored records faked: no root, no time.)"""
    polls = iter([None, None])

    class FakeProc:
        def __init__(self, args, env=None):
            self.args = args

        def poll(self):
            return next(polls, 0)

        def wait(self):
            return 0

    monkeypatch.setattr(suite.subprocess, "Popen", FakeProc)
    monkeypatch.setattr(suite, "BUSY_POLL_SECONDS", 0)
    monkeypatch.setattr(suite, "missing_seconds", lambda case, seeds: 20.0 * len(seeds))
    monkeypatch.setattr(suite, "stored_runs", lambda case, seeds: [])
    # What the groups' cases have stored, at the start, at the first look and after them (the BBR
    # cases, measured alone, have nothing stored).
    counts = iter([(0, 0), (40, 20), (80, 35)])
    monkeypatch.setattr(suite, "_stored_and_busy", lambda cases, seeds_of: (
        (0, 0) if all(suite.measured_alone(c) for c in cases) else next(counts)))
    monkeypatch.setattr(suite, "run_kernel_seeds", lambda *a, **k: 0)
    names = ["reno-fifo-1bdp-1", "cubic-codel-10", "reno-pie-10", "bbr-fq-codel-1"]
    runs = sum(_case(n).seeds for n in names)
    assert suite.main(["--kernel", "--jobs", "3", "--measure-only", "--only", *names]) == 0
    err = capsys.readouterr().err
    assert f"{runs} kernel runs to measure" in err and "3 groups side by side" in err
    assert "warning: 20 of the first 40 runs came back busy" in err
    assert "35 runs came back busy: measured again alone now" in err


def test_the_suite_estimate_and_the_busy_warning():
    """The estimate at the pace of the quiet machine's `--jobs 3` suite (its groups of 45.0, 43.3
    and 43.3 min of scenario time took 46.8, 45.0 and 46.5 min; its BBR cases, 18.3 min, 18.9 min)
    also gives the same machine's one-at-a-time suite, measured at 2 h 41 min for its 150 min."""
    text = suite.suite_estimate([45.0 * 60, 43.3 * 60, 43.3 * 60], 18.3 * 60, 410)
    assert text.startswith("410 kernel runs to measure (150 min of scenario time): about 70 min")
    assert "3 groups side by side about 48 min" in text and "measured alone about 19 min" in text
    one = suite.suite_estimate([150 * 60], 0.0, 410)
    assert "one case at a time about 159 min" in one
    minutes = int(one.split("about ")[1].split(" min")[0])
    assert abs(minutes - 161) <= 0.03 * 161
    # No warning before 30 runs, nor at a tenth busy or less (the quiet machine: 2 of 410).
    assert suite.busy_outlook(29, 29, 300, 20.0) is None
    assert suite.busy_outlook(410, 41, 0, 20.0) is None
    assert suite.busy_outlook(400, 2, 10, 20.0) is None
    # Half busy after 60 of 310: about 155 runs again alone, at least 155 x 20 s x the pace.
    w = suite.busy_outlook(60, 30, 250, 20.0)
    assert "about 155 runs will be measured again alone" in w and "at least 55 min more" in w


def test_a_measuring_run_with_nothing_missing_does_nothing():
    """`--kernel --jobs 2` over a case whose every seed is stored starts no process and, as a
    worker (`--measure-only`), writes no page: it needs neither root nor time."""
    assert suite.missing_seconds(_case(suite.HEADLINE), list(range(1, _case(suite.HEADLINE).seeds + 1))) == 0
    assert suite.main(["--kernel", "--jobs", "2", "--measure-only", "--only", suite.HEADLINE]) == 0


def test_a_kernel_run_on_a_busy_machine_is_measured_again(tmp_path, monkeypatch):
    """A kernel run whose network delivered late (the backend's own bound) is a measure of the
    machine's load: the suite measures it again, stores the first run without that warning, and
    stores the last one marked `busy` if every attempt had it. (The kernel is faked with the
    simulator's result for the same file: no root, no real time.)"""
    import bufferlab.kernel.run as kernel_run
    from bufferlab.simulate import run

    case = _case("reno-fifo-1bdp-1")
    sim = run(load_scenario(case.file, seed=1))
    quiet = {"lateness_p50_s": 40e-6, "lateness_p99_s": 90e-6, "lateness_max_s": 1e-3, "min_round_trip_s": 0.044}
    late = {**quiet, "lateness_p99_s": 4.2e-3}  # beyond 5% of the 44 ms round trip
    calls = []

    def fake(drivers):
        def run_kernel(sc):
            d = drivers[min(len(calls), len(drivers) - 1)]
            calls.append(d)
            sim.summary["kernel"] = {"driver": d, "read_backlog": {}}
            return sim
        return run_kernel

    monkeypatch.setattr(suite, "KERNEL_DIR", tmp_path)
    monkeypatch.setattr(suite, "_read_sysctls", lambda *a: None)
    monkeypatch.setattr(kernel_run, "run_kernel", fake([late, quiet]))
    assert suite.run_kernel_seeds(case, [1]) == 1
    assert len(calls) == 2
    (stored,) = suite.load_record(case.name)["runs"]
    assert "busy" not in stored and stored["lateness_p99_s"] == 90e-6

    calls.clear()
    (tmp_path / f"{case.name}.json").unlink()
    monkeypatch.setattr(kernel_run, "run_kernel", fake([late]))
    suite.run_kernel_seeds(case, [1])
    assert len(calls) == suite.KERNEL_ATTEMPTS
    (stored,) = suite.load_record(case.name)["runs"]
    assert stored["busy"] and stored["busy"][0].startswith("the network ran late")

    # A group's process (`--jobs`) measures once; what it stored busy is measured again alone
    # afterwards, and a quiet run then replaces it. A stored run without the mark is kept.
    calls.clear()
    (tmp_path / f"{case.name}.json").unlink()
    assert suite.run_kernel_seeds(case, [1], attempts=1) == 1 and len(calls) == 1
    assert "busy" in suite.load_record(case.name)["runs"][0]
    assert suite.run_kernel_seeds(case, [1]) == 0  # stored, busy or not: nothing missing
    monkeypatch.setattr(kernel_run, "run_kernel", fake([quiet]))
    calls.clear()
    assert suite.run_kernel_seeds(case, [1], redo_busy=True) == 1 and len(calls) == 1
    (stored,) = suite.load_record(case.name)["runs"]
    assert "busy" not in stored
    assert suite.run_kernel_seeds(case, [1], redo_busy=True) == 0


def test_the_cases_that_turn_on_the_hosts_timing_are_measured_alone():
    # Alone, the driver spins before each event as by default; beside other groups it does not.
    assert suite.measured_alone(_case("asymmetric-access"))
    assert suite.measured_alone(_case("bbr-fq-codel-1"))
    assert not suite.measured_alone(_case("reno-fifo-1bdp-1"))



def test_the_page_says_which_driver_settings_measured_which_runs():
    """Runs are grouped by the driver's spin margin (all spinning, all sleeping, or sleeping but for
    the busy runs measured again alone); scenarios measured before the cores were kept awake are
    counted apart."""
    spin = {"awake_cores": 2, "spin_us": 200.0, "lateness_p50_s": 15e-6}
    sleep = {"awake_cores": 2, "spin_us": 0.0, "lateness_p50_s": 30e-6}
    records = {"a-alone": [spin, spin], "b-group": [sleep, sleep], "c-group": [sleep, sleep],
               "d-busy": [sleep, spin], "e-old": [{"seed": 1}]}
    text = suite._precision(records)
    assert "those of the other 1 scenarios slept until each event on idle cores" in text
    assert "a-alone with the driver spinning 200 µs before each event (delivery lateness p50 15–15 µs)" in text
    assert "d-busy with the driver sleeping until each event, but for the runs that came back busy" in text
    assert "b-group, c-group with the driver sleeping until each event (delivery lateness p50 30–30 µs)" in text
    del records["e-old"]
    assert suite._precision(records).startswith(" Every scenario's runs were measured with every core kept awake")
    assert suite._precision({"e-old": [{"seed": 1}]}) == ""
    # Without a scenario whose runs all spun, the busy runs' margin is still the one they ran with.
    assert "measured again alone, spinning 200 µs" in suite._precision({"b-group": [sleep], "d-busy": [sleep, spin]})
