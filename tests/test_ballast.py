"""The ballast: the scenario kind, the controller seen from Python, and the sending tool
(on loopback only, a second or two of traffic at most)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import bufferlab
from bufferlab.ballast import BallastOptions, parse_ss, run_ballast
from bufferlab.ballast.tcpinfo import TcpSnapshot
from bufferlab.errors import ScenarioError
from bufferlab.scenario import loads_scenario

BASE = """
[run]
duration = "60s"
seed = 3
measure = ["20s", "60s"]
[topology]
template = "access"
[topology.up]
rate = "800kbps"
delay = "52ms"
queue = { discipline = "fifo", limit = "120pkt" }
[topology.down]
rate = "5Mbps"
delay = "42ms"
queue = { discipline = "fifo", limit = "120pkt" }
[[traffic]]
kind = "tcp"
from = "client"
to = "server"
[[traffic]]
kind = "ping"
from = "client"
to = "server"
interval = "100ms"
"""


def ballast_block(**keys: str) -> str:
    body = "\n".join(f"{k} = {v}" for k, v in keys.items())
    return f'\n[[traffic]]\nkind = "ballast"\nfrom = "client"\nto = "server"\n{body}\n'


def problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as e:
        loads_scenario(text)
    return [str(p) for p in e.value.problems]


def test_plan_defaults_follow_the_paper():
    sc = loads_scenario(BASE + ballast_block(rate='"250pps"'))
    b = sc.plan["traffic"][-1]
    assert b == {"kind": "ballast", "pairs": [["client", "server"]], "size_bytes": 29, "rate_pps": 250.0}
    sc = loads_scenario(BASE + ballast_block(auto="true", max_share='"10%"', target='"100ms"'))
    b = sc.plan["traffic"][-1]
    assert b["auto"] is True and b["max_share"] == pytest.approx(0.1) and b["target_ns"] == 100_000_000


@pytest.mark.parametrize(
    ("keys", "where", "text"),
    [
        ({}, "traffic[2].rate", "missing"),
        ({"auto": "true", "rate": '"250pps"'}, "traffic[2].rate", "auto = true chooses the rate"),
        ({"rate": '"250pps"', "max_share": "0.3"}, "traffic[2].max_share", "add auto = true"),
        ({"auto": "true", "max_share": '"120%"'}, "traffic[2].max_share", "must be above 0 and below 1, got 1.2"),
        ({"auto": "true", "target": '"-1s"'}, "traffic[2].target", ""),
        ({"rate": '"250pps"', "ttl": "0"}, "traffic[2].ttl", "at least 1"),
        ({"rate": '"250pps"', "size": '"20B"'}, "traffic[2].size", "28 B"),
    ],
)
def test_bad_ballast_blocks_name_their_key(keys, where, text):
    msgs = problems(BASE + ballast_block(**keys))
    assert any(m.startswith(where) and text in m for m in msgs), msgs


def test_the_simulated_ballast_cuts_the_rtt():
    none = bufferlab.run(loads_scenario(BASE)).summary["flows"]
    fixed = bufferlab.run(loads_scenario(BASE + ballast_block(rate='"250pps"'))).summary["flows"]
    auto = bufferlab.run(loads_scenario(BASE + ballast_block(auto="true"))).summary["flows"]
    r0, r1, r2 = (f[1]["rtt_mean_s"] for f in (none, fixed, auto))
    assert r0 / r1 > 2 and r0 / r2 > 2, (r0, r1, r2)
    assert fixed[2]["kind"] == auto[2]["kind"] == "ballast"
    # eq. 7: 250 packets of 29 B beside ~60 segments of 1500 B a second take ~7 % of the bytes.
    assert fixed[0]["goodput_bps"] > 0.85 * none[0]["goodput_bps"]


def test_controller_from_python_is_the_engines():
    c = bufferlab._core.BallastController()
    assert c.period_ns == 500_000_000
    c.observe(0, 0, 0, 100_000_000, 100_000_000)
    d = c.observe(500_000_000, 33, 33 * 1500, 1_900_000_000, 100_000_000)
    assert d["action"] == "start" and d["rate_pps"] == pytest.approx(66.0)
    d = c.observe(1_000_000_000, 66, 66 * 1500, 1_900_000_000, 100_000_000)
    assert d["action"] == "raise" and d["alpha"] == pytest.approx(3.0)
    with pytest.raises(ValueError):
        bufferlab._core.BallastController(max_share=1.5)


SS_OUTPUT = """\
0      0      10.0.0.1:41234 10.0.0.2:5201
\t cubic wscale:7,7 rto:1304 rtt:1100.5/20 ato:40 mss:1448 cwnd:80 bytes_sent:1500000 bytes_acked:1400001 segs_out:1100 segs_in:900 data_segs_out:1036 bbr:(bw:1bps,mrtt:0.5) rcv_rtt:3 minrtt:104.2
0      0      10.0.0.1:22 10.0.0.9:50000
\t cubic rtt:5/2 bytes_sent:3000 data_segs_out:10 minrtt:4
0      0      127.0.0.1:5000 127.0.0.1:6000
\t cubic rtt:0.05/0.02 bytes_sent:99999 data_segs_out:9999 minrtt:0.01
"""


def test_ss_parsing():
    snap = parse_ss(SS_OUTPUT)
    assert len(snap.connections) == 2  # loopback skipped
    assert snap.data_segs_out == 1046 and snap.bytes_sent == 1_503_000
    c = snap.busiest_since(None)
    assert c is not None and c.peer == "10.0.0.2:5201"
    assert c.srtt_ns == 1_100_500_000 and c.min_rtt_ns == 104_200_000  # not mrtt, not rcv_rtt
    assert len(parse_ss(SS_OUTPUT, skip_loopback=False).connections) == 3


# Under `state connected` ss adds the state column; an upload that has closed its end is in
# FIN-WAIT-1 with data still in flight, and TIME-WAIT sockets carry no tcp_info.
SS_CONNECTED = """\
ESTAB      0      0      10.0.0.1:41234 10.0.0.2:5201
\t cubic rtt:200/20 bytes_sent:1500000 data_segs_out:1036 minrtt:104.2
FIN-WAIT-1 0      2896   10.0.0.1:41240 10.0.0.2:5202
\t cubic rtt:900/20 bytes_sent:3000000 data_segs_out:2072 minrtt:100
TIME-WAIT  0      0      10.0.0.1:41200 10.0.0.2:5203
\t
"""


def test_ss_parsing_counts_closing_uploads():
    snap = parse_ss(SS_CONNECTED)
    assert snap.data_segs_out == 1036 + 2072
    c = snap.busiest_since(None)
    assert c is not None and c.peer == "10.0.0.2:5202" and c.srtt_ns == 900_000_000


def receiver() -> tuple[socket.socket, int]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_RECVTTL", 12), 1)  # Linux <linux/in.h>
    s.settimeout(0.2)
    return s, s.getsockname()[1]


def drain(s: socket.socket) -> tuple[int, set[int], set[int]]:
    n, sizes, ttls = 0, set(), set()
    while True:
        try:
            data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(4))
        except TimeoutError:
            return n, sizes, ttls
        n += 1
        sizes.add(len(data))
        for level, kind, value in anc:
            if level == socket.IPPROTO_IP and kind == socket.IP_TTL:
                ttls.add(int.from_bytes(value[:4], sys.byteorder))


# Loopback senders pace by the wall clock: one at a time (`make test`'s serial lane).
@pytest.mark.serial
def test_fixed_rate_on_loopback_is_paced_with_the_ttl():
    s, port = receiver()
    rep = run_ballast(BallastOptions(host="127.0.0.1", port=port, rate_pps=200, duration_s=1.0))
    n, sizes, ttls = drain(s)
    assert n == rep.packets
    assert 185 <= rep.packets <= 202, rep.packets  # 200 pps for 1 s, never more
    assert sizes == {1} and ttls == {2}  # 29 B on the IP layer: 1 B of payload


@pytest.mark.serial
def test_bursts_on_loopback():
    s, port = receiver()
    rep = run_ballast(BallastOptions(host="127.0.0.1", port=port, rate_pps=500, burst=20, every_s=0.5, duration_s=1.2))
    n, _, _ = drain(s)
    # bursts start at 0, 0.5 and 1.0 s: 60 packets, not 1.2 s x 500 = 600
    assert n == rep.packets and 55 <= n <= 60, n


@pytest.mark.serial
def test_auto_is_quiet_without_an_upload():
    s, port = receiver()
    rep = run_ballast(
        BallastOptions(host="127.0.0.1", port=port, auto=True, duration_s=1.3),
        observe=lambda: TcpSnapshot(),
    )
    assert rep.packets == 0 and drain(s)[0] == 0
    assert [d["action"] for d in rep.decisions] == ["idle", "idle", "idle"]


def test_unsafe_or_contradictory_options_are_refused():
    assert any("safe cap" in p for p in BallastOptions(host="x", rate_pps=5000).check())
    assert BallastOptions(host="x", rate_pps=5000, force=True).check() == []
    assert any("exactly one" in p for p in BallastOptions(host="x").check())
    assert any("--burst" in p for p in BallastOptions(host="x", auto=True, burst=5, every_s=1).check())


def cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bufferlab", "ballast", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_cli_refuses_bad_options_with_exit_2():
    p = cli("--to", "127.0.0.1:9", "--rate", "9000pps")
    out, errs = p.communicate(timeout=30)
    assert p.returncode == 2 and "safe cap" in errs and "Traceback" not in errs


@pytest.mark.serial
def test_cli_stops_on_sigint_and_says_what_it_sent():
    s, port = receiver()
    p = cli("--to", f"127.0.0.1:{port}", "--rate", "100pps", "--duration", "20s")
    # Interrupt once it sends (on a loaded machine the interpreter's start-up alone can take
    # seconds); the first packet is only peeked at, so that drain() still counts it.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            s.recv(1, socket.MSG_PEEK)
            break
        except TimeoutError:
            continue
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, errs = p.communicate(timeout=10)
    assert p.returncode == 0, errs
    assert out.startswith("sent ") and "TTL 2" in out
    sent = int(out.split()[1])
    assert 0 < sent == drain(s)[0]


@pytest.mark.serial
def test_start_at_waits_for_its_time_and_never_starts_without_one():
    s, port = receiver()
    # Started ahead: the packets go only from the given CLOCK_MONOTONIC time on, for --duration.
    p = cli("--to", f"127.0.0.1:{port}", "--rate", "100pps", "--duration", "300ms", "--start-at-stdin", stdin=subprocess.PIPE)
    assert p.stderr.readline().strip() == "ready"
    assert drain(s)[0] == 0, "nothing before the start time arrives"
    p.stdin.write(f"{time.monotonic_ns() + 200_000_000}\n")
    p.stdin.close()
    p.stdin = None  # communicate() must not touch it
    out, errs = p.communicate(timeout=30)
    assert p.returncode == 0, errs
    sent = int(out.split()[1])
    assert 25 <= sent <= 31 and drain(s)[0] == sent, out  # 100 pps for 0.3 s
    # Whoever launched it went away before saying when: it exits without sending.
    p = cli("--to", f"127.0.0.1:{port}", "--rate", "100pps", "--start-at-stdin", stdin=subprocess.PIPE)
    assert p.stderr.readline().strip() == "ready"
    p.stdin.close()
    p.stdin = None
    out, errs = p.communicate(timeout=30)
    assert p.returncode == 0 and out.startswith("sent 0 packets"), (out, errs)
    assert drain(s)[0] == 0
