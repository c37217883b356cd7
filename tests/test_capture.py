"""Packet captures (``run.capture``, ``--capture``) read by the field's own tools.

tshark and tcpdump read every file of a short run with no malformed packet and every checksum
right; tcptrace reports a one-flow capture's bytes, retransmissions and RTT as the run's own
summary does. The tools come from the distribution (``make tool-deps`` installs them as root);
without them these tests skip and say so.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bufferlab.cli import app

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (`make tool-deps` installs tcpdump, tshark and tcptrace as root)")
    return path


# h1 sends 1 MB to h2 over a 10 Mb/s, 20 ms bottleneck with a 20-packet FIFO: slow start overflows
# it, so the transfer has losses and retransmissions. h2's ACKs come back one per segment
# (no delayed ACK), so tcptrace's RTT samples are the sender's own (docs/capture.md).
ONE_FLOW = """
[run]
duration = "4s"
capture = ["h1", "r1->r2:drops"]

[[node]]
name = "h1"
[[node]]
name = "r1"
[[node]]
name = "r2"
[[node]]
name = "h2"

[[link]]
between = ["h1", "r1"]
rate = "10Gbps"
delay = "1ms"

[[link]]
between = ["r1", "r2"]
rate = "10Mbps"
delay = "20ms"
queue = { discipline = "fifo", limit = "20pkt" }

[[link]]
between = ["r2", "h2"]
rate = "10Gbps"
delay = "1ms"

[[traffic]]
kind = "tcp"
from = "h1"
to = "h2"
size = "1MB"
delayed_ack = false
"""

# Every kind of packet: TCP with ECN marks from FQ-CoDel (CE, ECE, CWR) and SACK blocks, UDP,
# echo requests and replies, and a ballast whose TTL runs out at r2.
MIXED = ONE_FLOW.replace(
    'capture = ["h1", "r1->r2:drops"]',
    'capture = ["r1->r2", "r2->r1", "r1->r2:arrivals", "r1->r2:departures", "r1->r2:drops", "h2:ingress", "r2:egress"]\n'
    'capture_snaplen = "2000B"',
).replace(
    'queue = { discipline = "fifo", limit = "20pkt" }',
    'queue = { discipline = "fq_codel", target = "2ms", interval = "40ms", limit = 30 }',
) + """
[[traffic]]
kind = "tcp"
from = "h1"
to = "h2"
ecn = true
start = "0.5s"

[[traffic]]
kind = "udp"
from = "h1"
to = "h2"
rate = "200pps"
size = "400B"

[[traffic]]
kind = "ping"
from = "h2"
to = "h1"
interval = "50ms"

[[traffic]]
kind = "ballast"
from = "h1"
to = "h2"
rate = "50pps"
"""


def run(tmp_path: Path, text: str, *extra: str) -> tuple[Path, dict]:
    sc = tmp_path / "sc.toml"
    sc.write_text(text)
    out = tmp_path / "out"
    r = cli("run", str(sc), "--out", str(out), "--json", *extra)
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout)


def pcap_records(path: Path) -> list[tuple[int, int, int]]:
    """(timestamp ns, kept bytes, length) of each record, read by the format's definition."""
    b = path.read_bytes()
    magic, major, minor, _, _, snaplen, linktype = struct.unpack("<IHHiIII", b[:24])
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 101)
    out, i = [], 24
    while i < len(b):
        sec, ns, kept, length = struct.unpack("<IIII", b[i : i + 16])
        assert kept <= snaplen
        out.append((sec * 10**9 + ns, kept, length))
        i += 16 + kept
    assert i == len(b)
    return out


def test_files_of_every_point_and_the_summary(tmp_path):
    out, s = run(tmp_path, MIXED, "--capture", "h1:egress")
    rows = {c["point"]: c for c in s["captures"]}
    assert set(rows) == {"r1->r2", "r2->r1", "r1->r2:arrivals", "r1->r2:departures", "r1->r2:drops",
                         "h2:ingress", "r2:egress", "h1:egress"}
    files = {c["file"] for c in s["captures"]}
    assert "r1_to_r2.departures.pcap" in files and "h1.egress.pcap" in files
    q = next(r for r in s["queues"] if r["link"] == "r1->r2")
    link = next(r for r in s["links"] if r["link"] == "r1->r2")
    counts = {p: len(pcap_records(out / rows[p]["file"])) for p in rows}
    for p, c in rows.items():
        assert c["packets"] == counts[p] and c["note"] is None
        assert (out / c["file"]).stat().st_size == c["bytes"]
    # The whole run is the window here: the captures count what the port counts.
    assert counts["r1->r2:arrivals"] == q["arrivals"]
    assert counts["r1->r2:drops"] == q["dropped"] > 0
    assert counts["r1->r2"] == link["pkts_sent"]
    # Without a ring, what leaves the discipline goes straight onto the wire.
    assert counts["r1->r2:departures"] == counts["r1->r2"]
    recs = pcap_records(out / "r1_to_r2.pcap")
    assert all(kept == min(length, 2000) for _, kept, length in recs)
    assert [t for t, _, _ in recs] == sorted(t for t, _, _ in recs)


def test_tshark_and_tcpdump_read_every_file_cleanly(tmp_path):
    tshark, tcpdump = need("tshark"), need("tcpdump")
    out, s = run(tmp_path, MIXED)
    seen_protocols = set()
    for c in s["captures"]:
        f = str(out / c["file"])
        checks = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]
        # Malformed packets, errors of the dissectors, and bad checksums, which tshark reports
        # as expert errors too: none.
        bad = subprocess.run(
            [tshark, "-r", f, *checks, "-Y", "_ws.malformed || _ws.expert.severity >= error", "-T", "fields", "-e", "frame.number"],
            capture_output=True, text=True, check=True,
        )
        assert bad.stdout.strip() == "", f"{c['file']}: bad frames {bad.stdout.split()[:10]}"
        fields = subprocess.run(
            [tshark, "-r", f, *checks, "-T", "fields", "-E", "separator=,", "-e", "ip.checksum.status",
             "-e", "tcp.checksum.status", "-e", "udp.checksum.status", "-e", "icmp.checksum.status", "-e", "frame.protocols"],
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
        assert len(fields) == c["packets"]
        for line in fields:
            ip, tcp, udp, icmp, protos = line.split(",", 4)
            assert ip == "1", line  # 1: good
            if "tcp" in protos:
                assert tcp == "1", line
            if ":udp" in protos:
                assert udp == "1", line
            if "icmp" in protos:
                assert icmp == "1", line
            seen_protocols.update(protos.split(":"))
        dump = subprocess.run([tcpdump, "-r", f, "-nn", "-vv"], capture_output=True, text=True)
        assert dump.returncode == 0, dump.stderr
        # tcpdump's complaints ("bad cksum", "incorrect -> 0x..", "bad hdr length"), not a
        # checksum that happens to read 0xbad3.
        words = re.sub(r"(cksum|sum) 0x[0-9a-f]+", "", dump.stdout)
        assert "bad" not in words and "incorrect" not in words
        assert len([ln for ln in dump.stdout.splitlines() if ln[:1].isdigit()]) == c["packets"]
    assert {"tcp", "udp", "icmp"} <= seen_protocols
    # The marks and the ECN handshake are on the wire: CE from FQ-CoDel, ECE and CWR back.
    marks = subprocess.run(
        [tshark, "-r", str(out / "r1_to_r2.departures.pcap"), "-Y", "ip.dsfield.ecn == 3", "-T", "fields", "-e", "frame.number"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    q = next(r for r in s["queues"] if r["link"] == "r1->r2")
    assert len(marks) >= q["marked"] > 0
    cwr = subprocess.run(
        [tshark, "-r", str(out / "r1_to_r2.pcap"), "-Y", "tcp.flags.cwr == 1 && tcp.len > 0", "-T", "fields", "-e", "frame.number"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert cwr


def _tcptrace_field(text: str, name: str) -> list[float]:
    """The two values (a->b, b->a) tcptrace -l prints for `name`."""
    m = re.search(rf"^\s*{re.escape(name)}:\s+([\d.]+)[^\d\n]*?{re.escape(name)}:\s+([\d.]+)", text, re.M)
    assert m, f"tcptrace printed no {name!r}:\n{text}"
    return [float(m.group(1)), float(m.group(2))]


def tcptrace(path: Path) -> str:
    r = subprocess.run([need("tcptrace"), "-l", "-r", "-n", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "TCP connection 1:" in r.stdout and "TCP connection 2:" not in r.stdout
    return r.stdout


def test_tcptrace_counts_the_bytes_and_retransmissions_of_the_summary(tmp_path):
    out, s = run(tmp_path, ONE_FLOW)
    flow = s["flows"][0]
    assert flow["retransmits"] > 0 and flow["completion_time_s"] is not None
    text = tcptrace(out / "h1.pcap")
    assert "complete conn: yes" in text
    assert _tcptrace_field(text, "unique bytes sent")[0] == flow["bytes_delivered"] == 1_000_000
    assert _tcptrace_field(text, "rexmt data pkts")[0] == flow["retransmits"]
    assert _tcptrace_field(text, "actual data pkts")[0] == flow["pkts_sent"] - 2  # less the SYN and FIN
    # Its shortest RTT is the handshake's: the propagation there and back (2 x 22 ms) and the
    # SYN's serialization.
    assert 44.0 <= _tcptrace_field(text, "RTT min")[0] <= 44.2


def test_tcptrace_times_the_round_trips_the_sender_timed(tmp_path):
    # No loss (a large buffer) and no handshake: tcptrace then times every data segment to its
    # ACK (Karn's rule leaves none out, and no SYN or FIN joins them), as the sender's timestamps
    # time every ACK, and the capture at h1 sees both when the sender does (its link is fast).
    text_in = ONE_FLOW.replace('limit = "20pkt"', 'limit = "1000pkt"').replace(
        "delayed_ack = false", "delayed_ack = false\nhandshake = false"
    )
    out, s = run(tmp_path, text_in)
    flow = s["flows"][0]
    assert flow["retransmits"] == 0
    text = tcptrace(out / "h1.pcap")
    assert _tcptrace_field(text, "unique bytes sent")[0] == flow["bytes_delivered"]
    assert _tcptrace_field(text, "RTT samples")[0] == flow["rtt_samples"]
    # The same samples: the means agree within tcptrace's printing (0.1 ms); the RTT grows from
    # 45 ms to over 400 ms as slow start fills the buffer, so the check is not a close call.
    rtt_avg, mean_ms = _tcptrace_field(text, "RTT avg")[0], flow["rtt_mean_s"] * 1e3
    assert abs(rtt_avg - mean_ms) <= 0.05, (rtt_avg, mean_ms)
    assert _tcptrace_field(text, "RTT max")[0] > 4 * _tcptrace_field(text, "RTT min")[0]


def test_snap_length_and_the_size_limit(tmp_path):
    # Headers only by default: 52 bytes of a full segment (IPv4, TCP, timestamps), its length 1500.
    out, s = run(tmp_path, ONE_FLOW)
    recs = pcap_records(out / "h1.pcap")
    assert (52, 1500) in {(k, n) for _, k, n in recs}
    assert all(k <= 80 for _, k, _ in recs)
    # A limit stops capturing with a note (and says so on stderr), rather than filling a disk.
    sc = tmp_path / "small.toml"
    sc.write_text(ONE_FLOW.replace('capture = ["h1", "r1->r2:drops"]', 'capture = ["h1"]\ncapture_limit = "20KB"'))
    r = cli("run", str(sc), "--out", str(tmp_path / "small"), "--json")
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)["captures"][0]
    assert row["note"].startswith("capturing stopped: the files reached capture_limit (20000 bytes)")
    assert 0 < row["stopped_s"] < 1
    assert row["bytes"] <= 20_000 and (tmp_path / "small" / "h1.pcap").stat().st_size == row["bytes"]
    assert "capturing stopped" in r.stderr


def test_a_result_read_back_keeps_its_captures(tmp_path):
    from bufferlab import Result

    out, s = run(tmp_path, ONE_FLOW)
    r = Result.read(out)
    assert [c["file"] for c in r.captures] == ["h1.pcap", "r1_to_r2.drops.pcap"]
    r.write(tmp_path / "copy")
    assert (tmp_path / "copy" / "h1.pcap").read_bytes() == (out / "h1.pcap").read_bytes()
    # Written over itself, it keeps them too.
    r.write(out)
    assert (out / "h1.pcap").stat().st_size == s["captures"][0]["bytes"]


def test_bad_points_and_flags_exit_2(tmp_path):
    sc = tmp_path / "sc.toml"
    sc.write_text(ONE_FLOW)
    r = cli("run", str(sc), "--out", str(tmp_path / "o"), "--capture", "r1->h2")
    assert r.exit_code == 2
    assert "run.capture[2]: no link from r1 to h2" in r.stderr
    r = cli("run", str(sc), "--out", str(tmp_path / "o"), "--capture", "r1->r2:drop")
    assert r.exit_code == 2 and 'did you mean "drops"' in r.stderr
    r = cli("run", str(sc), "--capture", "h1")
    assert r.exit_code == 2 and "--out" in r.stderr
    assert not (tmp_path / "o").exists()
    # Nothing is left beside the folder: the captures joined the result or were removed.
    assert [p.name for p in tmp_path.iterdir()] == ["sc.toml"]


def test_no_capture_no_files_and_the_same_summary(tmp_path):
    """Capturing changes nothing the run measures."""
    _, with_capture = run(tmp_path, ONE_FLOW)
    plain = ONE_FLOW.replace('capture = ["h1", "r1->r2:drops"]', "")
    sc = tmp_path / "plain.toml"
    sc.write_text(plain)
    r = cli("run", str(sc), "--out", str(tmp_path / "plain"), "--json")
    without = json.loads(r.stdout)
    assert "captures" not in without
    for k in ("flows", "queues", "links", "conservation"):
        assert with_capture[k] == without[k]
    assert not list((tmp_path / "plain").glob("*.pcap"))
