"""The kernel backend's paths as a real network's: routers answer a spent TTL with ICMP Time
Exceeded (rate-limited as Linux does), IPv6 is off in the namespaces, RTTs come back as the
simulator's distribution tables, and ``compare --seeds N`` averages runs. Root, TUN and
namespaces needed (skipped otherwise, with the reason); every run is a few seconds."""

from __future__ import annotations

import json
import re
import sys
import textwrap

import bufferlab
from test_kernel_backend import SPIN, cli, needs_kernel, scenario

DUMBBELL = (
    '[run]\nduration = "30s"\n[topology]\ntemplate = "dumbbell"\npairs = 1\n'
    '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "2ms"\n[topology.access]\nrate = "100Mbps"\ndelay = "0.5ms"\n'
)

# Run in s1's namespace: 20 UDP probes with TTL 1 at once (they die at r1), then one with TTL 2
# (it dies at r2); print every ICMP message that comes back as JSON.
PROBE = textwrap.dedent(
    """
    import json, socket, struct, time
    rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    rx.settimeout(0.2)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dst = socket.gethostbyname("d1")
    def send(ttl, port):
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
        tx.sendto(b"probe", (dst, port))
    for i in range(20):
        send(1, 33434 + i)
    time.sleep(0.3)
    send(2, 33500)
    got, end = [], time.time() + 0.8
    while time.time() < end:
        try:
            m = rx.recv(2048)
        except socket.timeout:
            continue
        ihl = (m[0] & 15) * 4
        typ, code = m[ihl], m[ihl + 1]
        inner = m[ihl + 8:]
        iihl = (inner[0] & 15) * 4
        got.append({"type": typ, "code": code, "from": socket.inet_ntoa(m[12:16]), "len": len(m),
                    "quoted_dst": socket.inet_ntoa(inner[16:20]), "quoted_ttl": inner[8],
                    "quoted_dport": struct.unpack_from("!H", inner, iihl + 2)[0]})
    print(json.dumps(got))
    """
)


@needs_kernel
def test_routers_answer_a_spent_ttl_with_time_exceeded_rate_limited(tmp_path):
    f = tmp_path / "d.toml"
    f.write_text(DUMBBELL)
    out = tmp_path / "out"
    r = cli("shell", f, "--node", "s1", "--out", out, "--", sys.executable, "-c", PROBE)
    assert r.returncode == 0, r.stderr
    got = json.loads(next(ln for ln in r.stdout.splitlines() if ln.startswith("[")))
    addr = json.loads((out / "summary.json").read_text())["kernel"]["hosts"]
    d1 = addr["d1"]["address"]
    te = [g for g in got if g["type"] == 11]
    assert all(g["code"] == 0 and g["quoted_dst"] == d1 and g["len"] == 56 for g in te), te
    r1_replies = [g for g in te if g["quoted_dport"] < 33500]
    r2_replies = [g for g in te if g["quoted_dport"] == 33500]
    # Linux's limit: a burst of 6 per destination, then one a second (icmp_ratelimit 1000 ms).
    assert len(r1_replies) == 6, got
    assert len(r2_replies) == 1, got
    # Each from its own router (routers are nodes 10.77.x.y too), quoting the TTL it arrived with.
    assert len({g["from"] for g in r1_replies}) == 1 and r1_replies[0]["from"] != r2_replies[0]["from"]
    assert {g["quoted_ttl"] for g in te} == {1}
    drv = json.loads((out / "summary.json").read_text())["kernel"]["driver"]
    assert (drv["icmp_time_exceeded"], drv["icmp_rate_limited"]) == (7, 14)


@needs_kernel
def test_ipv6_is_off_in_the_namespaces_and_names_resolve_to_ipv4_only(tmp_path):
    f = scenario(tmp_path, "", duration="1s")
    code = (
        "import socket\n"
        "print(open('/proc/sys/net/ipv6/conf/all/disable_ipv6').read().strip(), open('/proc/sys/net/ipv6/conf/lo/disable_ipv6').read().strip())\n"
        "print(sorted({a[0].name for a in socket.getaddrinfo('server', 9)}))\n"
        "s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n"
        "try:\n    s.sendto(b'x', ('::1', 9)); print('sent')\n"
        "except OSError as e:\n    print('refused', e.errno)\n"
    )
    r = cli("shell", f, "--node", "client", "--", sys.executable, "-c", code)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[:3] == ["1 1", "['AF_INET']", lines[2]] and lines[2].startswith("refused"), r.stdout


PING_AND_TCP = (
    '[[traffic]]\nkind = "ping"\nfrom = "client"\nto = "server"\ninterval = "20ms"\n'
    '[[traffic]]\nkind = "tcp"\nfrom = "client"\nto = "server"\n'
)


@needs_kernel
def test_kernel_rtts_fill_the_simulators_distribution_tables(tmp_path):
    from bufferlab.kernel import run_kernel

    f = scenario(tmp_path, PING_AND_TCP, duration="2s")
    sim = bufferlab.run(f)
    ker = run_kernel(bufferlab.load_scenario(f))
    for r in (sim, ker):
        d = r.distributions
        flows = d[(d["object"] == "flow") & (d["metric"] == "rtt_s")]
        assert set(flows["id"]) == {"ping-1", "tcp-1"}
        for fid, g in flows.groupby("id"):
            assert g["cdf"].is_monotonic_increasing and g["cdf"].iloc[-1] == 1.0
            row = next(x for x in r.summary["flows"] if x["id"] == fid)
            # The summary's percentiles are the CDF's (same histogram, same buckets).
            assert row["rtt_p50_s"] == g.loc[g["cdf"] >= 0.5, "value"].min()
            assert row["rtt_samples"] > 0
    # The engine's queue tables stay, after the flows as in a simulation.
    d = ker.distributions
    assert list(dict.fromkeys(d["object"])) == ["flow", "queue"]


@needs_kernel
def test_compare_averages_seeds_and_shows_the_rtt_distribution(tmp_path):
    f = scenario(tmp_path, '[[traffic]]\nkind = "ping"\nfrom = "client"\nto = "server"\ninterval = "20ms"', duration="1.5s")
    r = cli("compare", f, "--seeds", "2", env=SPIN, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "simulator vs kernel (2 seeds)" in r.stdout, r.stdout
    for metric in ("rtt_mean_s", "rtt_p50_s", "rtt_p10_s", "rtt_p90_s"):
        assert re.search(rf"ping-1\s+│?\s*{metric}", r.stdout), (metric, r.stdout)
    # The idle ping's 10th percentile: the kernel's within 10% of the simulator's (the wall
    # clock's error is a few hundred microseconds of 10 ms).
    row = next(ln for ln in r.stdout.splitlines() if "ping-1" in ln and "rtt_p10_s" in ln)
    assert abs(float(re.search(r"([+-][\d.]+)%", row).group(1))) < 10, row


@needs_kernel
def test_compare_starts_the_simulators_flow_when_the_kernels_started(tmp_path):
    """A bulk flow whose start is drawn: the kernel draws it with its own generator, and the
    simulator's run of the same seed starts it at the kernel's time (kernel/paired.py)."""
    f = scenario(tmp_path, '[[traffic]]\nkind = "tcp"\nfrom = "client"\nto = "server"\nsize = "20KB"\nstart = "uniform(0.1s,0.5s)"',
                 duration="1s")
    r = cli("compare", f, "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    row = next(x for x in map(json.loads, r.stdout.splitlines()) if x["id"] == "tcp-1" and x["metric"] == "start_s")
    assert 0.1 <= row["kernel"] <= 0.5 and abs(row["sim"] - row["kernel"]) < 1e-6, row
