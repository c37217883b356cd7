"""A ``kind = "ballast"`` block on the kernel backend runs the real tool (``bufferlab ballast``)
in its host's namespace: it sends at the block's rate with the block's TTL and size, and a TTL
that runs out at a router dies there (answered by ICMP Time Exceeded, rate-limited). Root, TUN
and namespaces needed (skipped otherwise, with the reason); every run is a few seconds."""

from __future__ import annotations

import bufferlab
from bufferlab.kernel import plan as kplan
from test_kernel_backend import needs_kernel, scenario

BALLAST = '[[traffic]]\nkind = "ballast"\nfrom = "client"\nto = "server"\n'


def test_ballast_blocks_map_to_the_tools_options(tmp_path):
    sc = bufferlab.load_scenario(
        scenario(
            tmp_path,
            BALLAST + 'rate = "250pps"\nburst = { packets = 80, every = "1s" }\nttl = 3\n'
            + BALLAST + 'auto = true\ntarget = "100ms"\nmax_share = "10%"\nperiod = "250ms"\nsize = "40B"\n',
        )
    )
    kp = kplan.build(sc)
    client, server = kp.host(0), kp.host(1)
    fixed, auto = (r for r in client.roles if r["role"] == "ballast")
    assert fixed["args"] == ["--to", "10.77.0.2:20000", "--size", "29B", "--ttl", "3", "--rate", "250.0pps", "--burst", "80", "--every", "1000000000ns"]
    assert auto["args"] == [
        "--to", "10.77.0.2:20001", "--size", "40B", "--ttl", "2", "--auto",
        "--target", "100000000ns", "--max-share", "0.1", "--period", "250000000ns",
    ]
    # A sink takes the packets at the destination, as the simulator's does.
    assert [(r["role"], r["port"]) for r in server.roles] == [("udp_sink", 20000), ("udp_sink", 20001)]
    # The options the plan writes are ones the tool accepts.
    from typer.testing import CliRunner

    from bufferlab.cli import app

    for role in (fixed, auto):
        r = CliRunner().invoke(app, ["ballast", *role["args"], "--duration", "1ms", "--quiet"])
        assert r.exit_code == 0, r.output


@needs_kernel
def test_a_ballast_block_sends_at_its_rate_and_ttl(tmp_path):
    from bufferlab.kernel import run_kernel

    f = scenario(tmp_path, BALLAST + 'rate = "200pps"\nttl = 5\n', duration="3s")
    r = run_kernel(bufferlab.load_scenario(f))
    b = r.summary["kernel"]["ballast"]["ballast-1"]
    row = next(x for x in r.summary["flows"] if x["id"] == "ballast-1")
    assert b["argv"][:2] == ["ballast", "--to"]
    # Every packet the tool sent crossed the engine (its row counts them) and reached the sink
    # with the TTL it was given (no router on an access link), but the last one or two: still
    # in the tool's socket or on the 5 ms link when the run ended.
    assert b["tool_sent"] > 0 and b["tool_sent"] - 2 <= b["received"] <= row["pkts_sent"] <= b["tool_sent"]
    assert b["ttls"] == {"5": b["received"]}
    # 29 B each at the IP layer: 1 B of payload reached the sink per packet.
    assert b["received"] > 0 and row["bytes_delivered"] == b["received"]
    # Launched ahead, the tool starts with the run: its packets over the run's 3 s, and its own
    # count over its own running time.
    assert abs(b["tool_sent"] / 3 / 200 - 1) < 0.05, b
    assert abs(b["tool_pps"] / 200 - 1) < 0.02, b


@needs_kernel
def test_a_ballast_ttl_that_runs_out_dies_at_the_router(tmp_path):
    from bufferlab.kernel import run_kernel

    f = tmp_path / "d.toml"
    f.write_text(
        '[run]\nduration = "3s"\n[topology]\ntemplate = "dumbbell"\npairs = 1\n'
        '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "2ms"\n[topology.access]\nrate = "100Mbps"\ndelay = "0.5ms"\n'
        '[[traffic]]\nkind = "ballast"\nfrom = "s1"\nto = "d1"\nrate = "100pps"\nttl = 2\n'
    )
    r = run_kernel(bufferlab.load_scenario(f))
    b = r.summary["kernel"]["ballast"]["ballast-1"]
    drv = r.summary["kernel"]["driver"]
    assert b["tool_sent"] > 50 and b["received"] == 0
    # s1 -> r1 -> r2: TTL 2 is spent at r2, which answers at most its burst plus one a second.
    ttl_drops = sum(q["drops_by_reason"].get("ttl", 0) for q in r.summary["queues"])
    # Every packet dies at r2 (but the last one or two, still on their way when the run ended),
    # and each drop is either answered or held back by the rate limit.
    assert b["tool_sent"] - 2 <= ttl_drops <= b["tool_sent"]
    assert drv["icmp_time_exceeded"] + drv["icmp_rate_limited"] == ttl_drops
    assert 6 <= drv["icmp_time_exceeded"] <= 6 + 3
