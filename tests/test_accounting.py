"""Property: on generated dumbbells (any discipline, wire loss, UDP, ping and TCP of every
congestion control, with and without a `measure` window) every packet is accounted for and
every windowed number is bounded by what its window carries (docs/measurement.md)."""

from __future__ import annotations

from accounting_checks import assert_books_balance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bufferlab

disciplines = st.sampled_from(
    [
        {"discipline": "fifo", "limit": "20pkt"},
        {"discipline": "fifo", "limit": "30KB"},
        {"discipline": "fifo", "sizing": "bdp"},
        {"discipline": "codel", "limit": "100pkt"},
        {"discipline": "fq_codel"},
        {"discipline": "red", "limit": "60pkt"},
        {"discipline": "pie", "limit": "60pkt"},
        {"discipline": "splitbuff", "limit": "40pkt"},
        {"discipline": "splitbuff", "buffers": 3, "sizing": "bdp"},
        {"discipline": "blind_splitbuff", "limit": "1pkt"},
    ]
)

traffic = st.one_of(
    st.builds(lambda cc, size: {"kind": "tcp", "cc": cc, **({"size": size} if size else {})},
              st.sampled_from(["newreno", "cubic", "vegas"]), st.sampled_from([None, "50pkt", "300KB"])),
    st.builds(lambda pps, size: {"kind": "udp", "rate": f"{pps}pps", "size": f"{size}B"},
              st.integers(10, 3000), st.integers(28, 1500)),
    st.builds(lambda ms: {"kind": "ping", "interval": f"{ms}ms"}, st.integers(5, 200)),
)


@st.composite
def scenarios(draw):
    duration_ms = draw(st.integers(300, 1500))
    run = {"duration": f"{duration_ms}ms", "seed": draw(st.integers(0, 2**32))}
    if draw(st.booleans()):
        a = draw(st.integers(0, duration_ms - 1))
        b = draw(st.integers(a + 1, duration_ms))
        run["measure"] = [f"{a}ms", f"{b}ms"]
    bottleneck = {
        "rate": f"{draw(st.integers(1, 50))}Mbps",
        "delay": f"{draw(st.integers(0, 30))}ms",
        "queue": draw(disciplines),
    }
    if draw(st.booleans()):
        bottleneck["loss"] = draw(st.floats(0.001, 0.1))
    blocks = draw(st.lists(traffic, min_size=1, max_size=3))
    return {
        "run": run,
        "topology": {"template": "dumbbell", "pairs": draw(st.integers(1, 4)), "bottleneck": bottleneck},
        "traffic": [{"from": "senders", "to": "receivers", **b} for b in blocks],
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=scenarios())
def test_books_balance_on_generated_scenarios(doc):
    sc = bufferlab.load_scenario(doc)
    r = bufferlab.run(sc)
    assert_books_balance(r.summary, sc.plan)


def test_a_window_opened_mid_recovery_counts_no_more_than_the_link():
    """The shape reported: 10 Cubic flows through a 50 Mb/s bottleneck with loss, measured over a
    window that opens while flows recover. Goodput within the payload ceiling of the link."""
    for start in (2, 3, 5, 8):
        doc = {
            "run": {"duration": "12s", "seed": start, "measure": [f"{start}s", "12s"]},
            "topology": {
                "template": "dumbbell",
                "pairs": 10,
                "bottleneck": {"rate": "50Mbps", "delay": "20ms", "loss": 0.002, "queue": {"discipline": "fifo", "sizing": "bdp"}},
            },
            "traffic": [{"kind": "tcp", "from": "senders", "to": "receivers", "cc": "cubic"}],
        }
        sc = bufferlab.load_scenario(doc)
        r = bufferlab.run(sc)
        assert_books_balance(r.summary, sc.plan)
        total = sum(f["goodput_bps"] for f in r.summary["flows"])
        assert total <= 50e6 * 1460 / 1500, total
