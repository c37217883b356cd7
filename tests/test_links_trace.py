"""Trace-driven links (``rate = "trace(FILE)"``, Mahimahi's format, docs/links-trace.md): the
link carries the trace's mean rate, never more than its opportunities allow, reads files written
as Mahimahi's documentation writes them, and refuses a malformed one with its line number."""

from __future__ import annotations

import json
import struct
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from bufferlab import run
from bufferlab.cli import app

runner = CliRunner()
TRACES = Path(__file__).resolve().parents[1] / "scenarios" / "traces"


def scenario(rate: str, pps: float, duration: str = "60s", extra: str = "") -> str:
    """A UDP source at `pps` 1500-byte packets into a link a -> b at `rate`."""
    return f"""
[run]
duration = "{duration}"
{extra}

[[node]]
name = "a"
[[node]]
name = "b"

[[link]]
between = ["a", "b"]
rate = "{rate}"
delay = "10ms"
queue = {{ discipline = "fifo", limit = "1000pkt" }}

[[traffic]]
kind = "udp"
from = "a"
to = "b"
rate = "{pps}pps"
size = "1500B"
"""


def write(tmp_path: Path, text: str, name: str = "sc.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def opportunities(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()]


def test_a_saturated_trace_link_carries_the_trace_mean_rate(tmp_path):
    # Two repetitions of the 30 s cellular trace, offered 60 Mb/s (more than its fastest
    # stretches): every opportunity carries a packet, so the link's throughput is the trace's
    # mean rate -- its opportunities x 1500 bytes over its period.
    trace = TRACES / "cellular.trace"
    ms = opportunities(trace)
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "cell.trace").write_bytes(trace.read_bytes())
    sc = write(tmp_path, scenario("trace(traces/cell.trace)", 5000))
    r = run(sc)
    link = r.summary["links"][0]
    mean = len(ms) * 1500 * 8 * 1000 / ms[-1]
    assert link["rate_bps"] == round(mean)
    assert r.plan["links"][0]["forward"]["trace"]["file"] == "traces/cell.trace"
    # Opportunities in [0, 60 s): two repetitions, less the last one (at 60 s).
    assert link["pkts_sent"] == 2 * len(ms) - 1
    throughput = link["bytes_sent"] * 8 / 60
    assert abs(throughput / mean - 1) < 1e-4
    assert abs(link["utilization"] - 1) < 1e-3
    # A link's keys are both directions' unless [link.reverse] says otherwise.
    assert r.summary["links"][1]["rate_bps"] == link["rate_bps"]


def test_the_opportunities_are_never_exceeded(tmp_path):
    # The link's capture shows each packet as its transmission starts: on an opportunity, and
    # never more packets in a millisecond than the trace gives it.
    trace = TRACES / "cellular.trace"
    per_ms = Counter(opportunities(trace))
    sc = write(tmp_path, scenario(f"trace({trace})", 5000, "10s", 'capture = ["a->b"]'))
    r = run(sc, capture_dir=tmp_path)
    b = (tmp_path / "a_to_b.pcap").read_bytes()
    starts: Counter[int] = Counter()
    i = 24
    while i < len(b):
        sec, ns, kept, _ = struct.unpack("<IIII", b[i : i + 16])
        t = sec * 10**9 + ns
        assert t % 1_000_000 == 0, f"a transmission at {t} ns, off the trace's milliseconds"
        starts[t // 1_000_000] += 1
        i += 16 + kept
    assert sum(starts.values()) == r.summary["links"][0]["pkts_sent"] > 5_000
    assert all(n <= per_ms[ms] for ms, n in starts.items())
    # Saturated: every opportunity is taken.
    assert starts == Counter({ms: n for ms, n in per_ms.items() if ms < 10_000})


def test_the_format_of_mahimahis_documentation(tmp_path):
    # Mahimahi's traces README: "a link that can pass one MTU-sized packet per millisecond
    # (12 Mbps) can be represented by a file that contains just "1"", repeated; and "if more
    # than one MTU-sized packet can be transmitted in a particular millisecond, the same
    # timestamp is repeated on multiple lines".
    (tmp_path / "12mbps").write_text("1\n")
    (tmp_path / "36mbps").write_text("1\n1\n1\n")
    for name, mbps in (("12mbps", 12), ("36mbps", 36)):
        r = run(write(tmp_path, scenario(f"trace({name})", mbps * 125, "5s")))
        link = r.summary["links"][0]
        assert link["rate_bps"] == mbps * 1_000_000
        # Opportunities at 1, 2, ..., 4999 ms in the 5 s run.
        assert link["pkts_sent"] == mbps // 12 * 4999
    # The shipped examples: a step from 12 to 3 Mb/s, on/off.
    for name, mean in (("step-12-3mbps.trace", 7.5e6), ("onoff-12mbps.trace", 501 * 12000 / 1.0)):
        r = run(write(tmp_path, scenario(f"trace({TRACES / name})", 2000, "20s")))
        assert r.summary["links"][0]["rate_bps"] == round(mean)
        assert abs(r.summary["links"][0]["bytes_sent"] * 8 / 20 / mean - 1) < 2e-3


def test_a_malformed_trace_is_refused_with_its_line(tmp_path):
    (tmp_path / "bad.trace").write_text("1\n2\n2x\n")
    sc = write(tmp_path, scenario("trace(bad.trace)", 100, "1s"))
    r = runner.invoke(app, ["run", str(sc)])
    assert r.exit_code == 2
    assert f'link[0].rate: trace(bad.trace): {tmp_path / "bad.trace"} line 3: "2x" is not a time in whole milliseconds' in r.stderr
    assert "Traceback" not in r.output
    for text, line, why in (
        ("5\n3\n", 2, "3 comes after 5: times must not decrease"),
        ("1\n\n2\n", 2, "an empty line"),
        ("0\n", 1, "the trace must last longer than 0 ms"),
    ):
        (tmp_path / "bad.trace").write_text(text)
        r = runner.invoke(app, ["validate", str(sc)])
        assert r.exit_code == 2
        assert f"line {line}: {why}" in r.stderr, r.stderr
    r = runner.invoke(app, ["validate", str(write(tmp_path, scenario("trace(missing.trace)", 100, "1s")))])
    assert r.exit_code == 2 and "missing.trace: no such file" in r.stderr


def test_the_plan_carries_the_trace(tmp_path):
    """A plan runs without its trace file: the opportunities travel in it (a sweep's workers,
    `plan.json`)."""
    (tmp_path / "t.trace").write_text("1\n1\n2\n")
    r = runner.invoke(app, ["validate", "--plan", str(write(tmp_path, scenario("trace(t.trace)", 100, "1s")))])
    assert r.exit_code == 0, r.output
    fwd = json.loads(r.stdout)["links"][0]["forward"]
    assert fwd["trace"] == {"file": "t.trace", "opportunities_ms": [1, 1, 2]}
    assert fwd["rate_bps"] == 18_000_000
