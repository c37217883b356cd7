"""The ns-3 switches of a crosscheck (options.py), the packaged ns-3 program sources, and the
kernel column of the validation page (referee.py). None of these runs ns-3 or the kernel."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from conftest import example_path
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app
from bufferlab.crosscheck import to_ns3
from bufferlab.crosscheck.options import Ns3Options, parse_ns3_options
from bufferlab.crosscheck.runner import Pair
from bufferlab.errors import ScenarioError
from bufferlab.scenario import load_scenario

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def _plan(discipline: str = "fq_codel", limit: str = "100pkt", **tcp):
    return load_scenario({
        "run": {"duration": "5s"},
        "topology": {"template": "dumbbell", "pairs": 2,
                     "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": discipline, "limit": limit}},
                     "access": {"rate": "100Mbps", "delay": "1ms"}},
        "traffic": [{"kind": "tcp", "from": "senders", "to": "receivers", "sack": False, **tcp}],
    })


def test_defaults_match_bufferlab():
    cfg = to_ns3(_plan())
    b = cfg["links"][0]["forward"]
    assert b["device_queue_pkts"] == 1 and b["qdisc"]["attrs"]["MaxSize"] == "99p"
    assert cfg["flows"][0]["tcp"]["recovery"] == "classic"
    assert cfg["defaults"] == {}
    assert Ns3Options().describe() == ""


@pytest.mark.parametrize(("tcp", "recovery"), [
    ({"sack": True}, "prr"),
    ({"sack": True, "prr": False}, "classic"),
    ({"prr": True}, "classic"),  # no SACK: NewReno recovery in both
])
def test_ns3_recovers_as_the_block_does(tcp, recovery):
    assert to_ns3(_plan(**tcp))["flows"][0]["tcp"]["recovery"] == recovery
    forced = to_ns3(_plan(**tcp), options=parse_ns3_options(["recovery=classic"]))
    assert forced["flows"][0]["tcp"]["recovery"] == "classic"


def test_each_switch_reaches_the_configuration():
    opts = parse_ns3_options(["recovery=prr", "device_queue=100", "socket.LimitedTransmit=true",
                              "qdisc.DropBatchSize=1", "default.ns3::CoDelQueueDisc::MinBytes=0",
                              "cc.FlightSizeFromSequence=false"])
    cfg = to_ns3(_plan(), options=opts)
    b = cfg["links"][0]["forward"]
    # The device holds 100 packets; the disc the rest of the 100-packet buffer (at least one).
    assert b["device_queue_pkts"] == 100 and b["qdisc"]["attrs"]["MaxSize"] == "1p"
    assert b["qdisc"]["attrs"]["DropBatchSize"] == "1"
    tcp = cfg["flows"][0]["tcp"]
    assert tcp["recovery"] == "prr" and tcp["socket"]["LimitedTransmit"] == "true"
    assert tcp["cc_attrs"] == {"FlightSizeFromSequence": "false"}
    assert cfg["defaults"] == {"ns3::CoDelQueueDisc::MinBytes": "0"}
    assert opts.describe() == ("recovery=prr device_queue=100 cc.FlightSizeFromSequence=false "
                               "socket.LimitedTransmit=true qdisc.DropBatchSize=1 default.ns3::CoDelQueueDisc::MinBytes=0")


def test_fq_codel_only_attributes_stay_off_other_disciplines():
    cfg = to_ns3(_plan("codel", "1000pkt"), options=parse_ns3_options(["qdisc.DropBatchSize=1", "qdisc.UseEcn=true"]))
    attrs = cfg["links"][0]["forward"]["qdisc"]["attrs"]
    assert "DropBatchSize" not in attrs and attrs["UseEcn"] == "true"


@pytest.mark.parametrize("bad, key", [
    ("recovery=rack", "--ns3 recovery"),
    ("device_queue=0", "--ns3 device_queue"),
    ("device_queue=lots", "--ns3 device_queue"),
    ("sack=true", "--ns3 sack"),
    ("socket.Sack", "--ns3 socket.Sack"),
    ("default.MinBytes=0", "--ns3 default.MinBytes"),
])
def test_bad_switches_name_their_key(bad, key):
    with pytest.raises(ScenarioError) as e:
        parse_ns3_options([bad])
    assert e.value.problems[0].path == key


def test_cli_refuses_a_bad_switch_before_running():
    r = runner.invoke(app, ["crosscheck", str(example_path("udp-fifo")), "--ns3", "recovery=rack"])
    assert r.exit_code == 2
    assert "--ns3 recovery" in r.output and "Traceback" not in r.output


# ---------------------------------------------------------------- the program's sources, packaged


def test_program_sources_are_package_data():
    """The C++ sources live inside the Python package (maturin ships everything under
    python-source), so an installed wheel finds them where the source tree does."""
    from bufferlab.crosscheck.ns3env import _sources_dir

    src = _sources_dir()
    pkg = Path(bufferlab.__file__).resolve().parent
    assert src.is_relative_to(pkg)
    py_source = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["maturin"]["python-source"]
    assert pkg.is_relative_to((ROOT / py_source).resolve())
    # Every header the program includes from its own folder (not ns-3's) is there.
    for f in ("main.cc", "apps.h"):
        for inc in re.findall(r'#include "([^"/]+)"', (src / f).read_text()):
            assert (src / inc).is_file(), inc


# ---------------------------------------------------------------- the kernel column


def _summary(goodputs, util=1.0):
    return {
        "flows": [{"id": f"tcp-{i + 1}", "goodput_bps": g, "rtt_mean_s": 0.4} for i, g in enumerate(goodputs)],
        "queues": [{"link": "r1->r2", "sojourn_mean_s": 0.3, "dropped": 5}],
        "links": [{"link": "r1->r2", "utilization": util}],
    }


def test_kernel_record_becomes_a_column():
    from bufferlab.crosscheck.suite import CASES, CaseResult, render, rows_for

    case = next(c for c in CASES if c.kernel)
    sc = load_scenario(case.file)
    pairs = [Pair(s, _summary([9.4e6, 0.15e6]), _summary([9.0e6, 0.6e6]), 0.1, 10.0) for s in (1, 2)]
    record = {"case": case.name, "measured": "today", "kernel": "6.0-test",
              "sysctls": {"net.ipv4.tcp_recovery": "1"},
              "runs": [{"seed": s, "summary": _summary([9.3e6, g])} for s, g in ((1, 0.1e6), (2, 0.3e6))]}
    rows = {r["metric"]: r for r in rows_for(CaseResult(case, sc, pairs, record))}
    long = rows["per-flow goodput, tcp-2, RTT 990 ms"]
    assert long["kernel"] == "0.200 Mb/s" and long["k_values"] == [0.1e6, 0.3e6]
    assert rows["aggregate goodput"]["kernel"] == "9.500 Mb/s"
    page = render([CaseResult(case, sc, pairs, record)], planned=1, started="today", seeds_override=None)
    assert "| wall ns-3 | kernel |" in page and "Linux 6.0-test" in page and "`tcp_recovery` 1" in page
    assert "  - kernel: 0.1 0.3" in page
    # Without a record, no column.
    assert "kernel |" not in render([CaseResult(case, sc, pairs)], planned=1, started="today", seeds_override=None)


def test_stored_kernel_record_covers_the_refereed_cases():
    from bufferlab.crosscheck.referee import load_kernel
    from bufferlab.crosscheck.suite import CASES

    refereed = [c for c in CASES if c.kernel]
    assert refereed
    for case in refereed:
        record = load_kernel(case.name)
        assert record is not None, case.name
        assert len(record["runs"]) >= 12 and record["sysctls"]["net.ipv4.tcp_sack"] == "1"
        assert [r["seed"] for r in record["runs"]] == list(range(1, len(record["runs"]) + 1))
