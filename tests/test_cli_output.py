"""What a new user reads from the command line: counts in the singular, a sweep spec given to
`run`, unit suggestions, large dumbbells summed up, pings without goodput."""

from __future__ import annotations

import re
import textwrap

from conftest import example_path
from typer.testing import CliRunner

from bufferlab.cli import app

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_validate_counts_in_the_singular():
    r = cli("validate", str(example_path("udp-fifo")))
    assert r.exit_code == 0
    assert "2 nodes, 1 link, 1 traffic block," in r.stdout
    r = cli("validate", str(example_path("linux-stack")))
    assert "2 traffic blocks" in r.stdout


def test_run_on_a_sweep_spec_says_to_use_sweep(tmp_path):
    spec = tmp_path / "mdl.toml"
    spec.write_text(f'base = "{example_path("udp-fifo")}"\nseeds = 2\n[grid]\n"traffic[0].rate" = ["1pps"]\n')
    for cmd in ("run", "validate"):
        r = cli(cmd, str(spec))
        assert r.exit_code == 2
        assert f"is a sweep spec" in r.stderr and f"bufferlab sweep {spec} --out DIR" in r.stderr
        assert "unknown key" not in r.stderr


def test_a_bare_rate_is_suggested_in_bits_per_second(tmp_path):
    r = cli("validate", str(example_path("udp-fifo")), "--set", "topology.up.rate=10000000")
    assert r.exit_code == 2
    assert 'topology.up.rate: 10000000 is a bare number; a rate needs a unit (try "10Mbps"' in r.stderr
    assert "10000000Mbps" not in r.stderr


def test_a_large_dumbbell_sums_up_its_host_ports():
    args = ("run", str(example_path("dumbbell")), "--set", "topology.pairs=6", "--set", 'run.duration="2s"')
    r = cli(*args)
    assert r.exit_code == 0, r.output
    assert "r1->r2" in r.stdout and "s1->r1" not in r.stdout
    assert "+ 24 host queues not listed" in r.stdout and "--all lists them" in r.stdout
    assert "+ 24 host links not listed" in r.stdout
    assert re.search(r"the longest mean sojourn \d[\d.]* ?[mµn]?s at (?:[sd]\d+->r\d|r\d->[sd]\d+) ", r.stdout), r.stdout
    every = cli(*args, "--all-queues")
    assert "s6->r1" in every.stdout and "r2->d6" in every.stdout and "not listed" not in every.stdout


def test_host_queues_where_nothing_waited_name_none():
    # A run too short for any packet to wait: the summary line says so instead of naming a queue
    # with no sojourn at all.
    r = cli("run", str(example_path("dumbbell")), "--set", "topology.pairs=6", "--set", 'run.duration="1us"',
            "--set", 'run.measure=["0s", "1us"]')
    assert r.exit_code == 0, r.output
    assert "+ 24 host queues not listed: none dropped, none held a packet waiting (--all lists them)" in r.stdout, r.stdout
    assert "longest mean sojourn" not in r.stdout


def test_many_flows_are_summed_up_per_kind():
    args = ("run", str(example_path("dumbbell")), "--set", "topology.pairs=30", "--set", 'run.duration="2s"')
    r = cli(*args)
    assert r.exit_code == 0, r.output
    rows = [line for line in r.stdout.splitlines() if line.startswith("│ tcp-")]
    assert len(rows) == 12
    line = next(line for line in r.stdout.splitlines() if "tcp flows not listed" in line)
    assert line.startswith("+ 18 tcp flows not listed; goodput of all 30: ")
    assert "Jain's index" in line and "retransmits" in line
    every = cli(*args, "--all")
    assert len([line for line in every.stdout.splitlines() if line.startswith("│ tcp-")]) == 30
    assert "flows not listed" not in every.stdout


def test_jains_index():
    from bufferlab.cli.tables import _jain

    assert _jain([5.0, 5.0, 5.0]) == 1.0
    assert abs(_jain([1.0, 0.0, 0.0, 0.0]) - 0.25) < 1e-12
    assert _jain([]) is None


def test_a_small_topology_lists_every_queue():
    r = cli("run", str(example_path("udp-fifo")), "--set", 'run.duration="2s"', "--set", 'run.measure=["1s","2s"]')
    assert "client->server" in r.stdout and "server->client" in r.stdout and "not listed" not in r.stdout


def test_ping_rows_show_no_goodput():
    r = cli("run", str(example_path("linux-stack")), "--set", 'run.duration="2s"', "--set", 'run.measure=["1s","2s"]')
    assert r.exit_code == 0, r.output
    ping = next(line for line in r.stdout.splitlines() if "ping-1" in line)
    cells = [c.strip() for c in ping.strip("│ ").split("│")]
    header = next(line for line in r.stdout.splitlines() if "goodput" in line)
    names = [c.strip() for c in header.strip("┃ ").split("┃")]
    assert cells[names.index("goodput")] == "-"
    assert "bps" not in cells[names.index("goodput")]
    tcp = next(line for line in r.stdout.splitlines() if "tcp-1" in line)
    assert "Mbps" in tcp
