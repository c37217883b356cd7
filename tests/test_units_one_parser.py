"""The quantity parsers exist in Python (``bufferlab.units``: the ballast command's options, the
sweeps' ordering of swept values, plots) and in the engine's scenario reader
(``crates/bufferlab-core/src/file/units.rs``, ``law.rs``). This test holds them to one behaviour:
the same value or the same message, word for word, for every input below and for generated
ones."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bufferlab import _core
from bufferlab.units import UnitError, parse_bytes, parse_dist, parse_per_second, parse_rate, parse_size, parse_time_ns


def python_side(kind, value):
    try:
        if kind == "time":
            return parse_time_ns(value), None
        if kind in ("rate", "bit_rate"):
            r = parse_rate(value, allow_pps=kind == "rate")
            return ({"bps": r.bps} if r.bps is not None else {"pps": r.pps}), None
        if kind == "size":
            z = parse_size(value)
            return ({"bytes": z.bytes} if z.bytes is not None else {"pkts": z.pkts}), None
        if kind == "bytes":
            return parse_bytes(value), None
        if kind == "per_second":
            return parse_per_second(value), None
        if kind == "time_dist":
            return parse_dist(value, "time"), None
        return parse_dist(value, "size", pkt_bytes=1448), None
    except UnitError as e:
        return None, str(e)


def engine_side(kind, value):
    got, err = _core.parse_quantity(kind, value)
    return (json.loads(got) if got is not None else None), err


KINDS = ("time", "rate", "bit_rate", "size", "bytes", "per_second", "time_dist", "size_dist")
VALUES = [
    "200s", "50ms", "0.5ms", "100us", "1ns", "2min", "1.5h", "1e3ns", "0s", " 10 ms ", "2.5ns", "-1s",
    "10Mbps", "800kbps", "2.4Mbps", "250pps", "666.67pps", "1MBps", "10 Mb/s", "10Kbps", "0bps", "20Tbps",
    "64KB", "64KiB", "120pkt", "1.5pkt", "1500B", "10 packets", "1,5s", "1.2.3ms", "ms", "", "10", "0.05",
    "1/s", "30/min", "5/100ms", "1/S", "3/sec", "exp(1s)", "uniform(0s,5s)", "uniform(5s, 1s)", "expo(1s)",
    "zipf(1.7, max=100000pkt)", "pareto(1.2, mean=36KB)", "lognormal(mean=130ms, sd=30ms)", "const(36KB)",
    "exp()", "exp(1s, 2s)", "pareto(1.0, mean=1KB)", "uniform(lo=1s, hi=2s)", "exp(mean=1s, x=2)",
    10, 0.05, 10_000_000, 2.5, True, None, [1], {"a": 1}, "1e400s", "inf",
    "3333362e33707073", "1e13", "10000000000001", 10**13, 10**13 + 1,
]


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_reading_or_the_same_message(kind):
    for v in VALUES:
        assert engine_side(kind, v) == python_side(kind, v), (kind, v)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    number=st.one_of(st.integers(-10, 10**7), st.decimals(min_value=-1000, max_value=10**6, allow_nan=False, places=3)),
    unit=st.sampled_from(["ns", "us", "ms", "s", "min", "h", "bps", "kbps", "Mbps", "pps", "B", "KB", "KiB", "pkt",
                          "msec", "m", "b", "Kb", "/s", "/min", "sec", "x", ""]),
    space=st.sampled_from(["", " "]),
)
def test_generated_quantities(kind, number, unit, space):
    value = f"{number}{space}{unit}"
    assert engine_side(kind, value) == python_side(kind, value), (kind, value)
