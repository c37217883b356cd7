"""Every unit parser under generated input: whatever is typed, the answer is a value or a message
(a :class:`UnitError` in Python, the reader's message in the engine, a problem naming its key in
`bufferlab validate`), never an exception of another kind, a traceback, an infinite value or a
message that spells out a number of a million digits. Numbers with huge or tiny exponents, every
unit and its neighbours, rates per time, distributions, and arbitrary text."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from test_units_one_parser import KINDS, engine_side, python_side
from typer.testing import CliRunner

from bufferlab.cli import app

UNITS = [
    "ns", "us", "µs", "ms", "s", "min", "h", "bps", "kbps", "Mbps", "Gbps", "Tbps", "pps", "kpps", "Mpps",
    "B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "pkt", "Bps", "KBps", "MBps", "GBps", "B/s",
    "KB/s", "Mb/s", "/s", "/ms", "/min", "/100ms", "/0s", "/1e9999h", "sec", "m", "b", "k", "x", "",
]

digits = st.text("0123456789", min_size=1, max_size=40)
exponent = st.one_of(st.integers(-40, 40), st.integers(-(10**10), 10**10))
number = st.builds(
    lambda sign, whole, frac, e: f"{sign}{whole}{frac}{'' if e is None else f'e{e}'}",
    st.sampled_from(["", "-", "+"]),
    digits,
    st.one_of(st.just(""), digits.map(lambda d: "." + d)),
    st.one_of(st.none(), exponent),
)
quantity = st.builds(lambda n, sp, u: f"{n}{sp}{u}", number, st.sampled_from(["", " "]), st.sampled_from(UNITS))
dist = st.builds(
    lambda name, args: f"{name}({', '.join(args)})",
    st.sampled_from(["exp", "uniform", "zipf", "pareto", "lognormal", "const", "expo"]),
    st.lists(st.one_of(quantity, number, st.builds(lambda k, q: f"{k}={q}", st.sampled_from(["mean", "sd", "max", "lo"]), quantity)),
             max_size=3),
)
typed = st.one_of(quantity, number, dist, st.text(max_size=30))
# A message may quote what was typed (twice: the value, and a fix built from it), never much more.
MESSAGE_SLACK = 400


def _finite(v) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    return v is not None


def _check(kind: str, value: str) -> None:
    got, err = python_side(kind, value)  # only UnitError is caught there: anything else fails here
    assert (got is None) != (err is None), (kind, value)
    if err is not None:
        assert len(err) < 2 * len(value) + MESSAGE_SLACK, (kind, value, len(err))
    else:
        assert _finite(got), (kind, value, got)
    eng, eng_err = engine_side(kind, value)
    assert (eng, eng_err) == (got, err), (kind, value)


@settings(max_examples=500, deadline=None)
@given(kind=st.sampled_from(KINDS), value=typed)
def test_every_parser_answers_a_value_or_a_message(kind, value):
    _check(kind, value)


def test_the_reported_overflows():
    for kind in KINDS:
        for value in ("3333362e33707073", "3333362e33707073Mbps", "1e999999999Mbps", "1e99999999/s",
                      "5/1e-99999s", "1e-99999", "1e99999KBps", "exp(1e99999999s)", "1e-99999999s"):
            _check(kind, value)


SCENARIO = """[run]
duration = "1s"
[topology]
template = "access"
[topology.up]
rate = {rate}
delay = {delay}
[topology.down]
rate = "10Mbps"
delay = "5ms"
[[traffic]]
kind = "web"
from = "client"
to = "server"
arrival_rate = {arrivals}
size = {size}
"""


def toml_str(s: str) -> str:
    """A TOML basic string holding ``s`` exactly (control characters escaped, as TOML asks)."""
    body = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F or c in '"\\' else c for c in s)
    return f'"{body}"'


@settings(max_examples=25, deadline=None)
@given(rate=typed, delay=typed, arrivals=typed, size=typed)
def test_validate_names_the_key_of_whatever_was_typed(tmp_path_factory, rate, delay, arrivals, size):
    f = tmp_path_factory.mktemp("fuzz") / "f.toml"
    f.write_text(SCENARIO.format(**{k: toml_str(v) for k, v in
                                    dict(rate=rate, delay=delay, arrivals=arrivals, size=size).items()}))
    r = CliRunner().invoke(app, ["validate", str(f)])
    assert r.exit_code in (0, 2), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    if r.exit_code == 2:
        problems = [line for line in r.stderr.splitlines() if ": " in line and "problem" not in line]
        assert problems and all(line.startswith(("topology.", "traffic[", "run.")) for line in problems), r.stderr
        assert len(r.stderr) < 4 * (len(rate) + len(delay) + len(arrivals) + len(size)) + 4 * MESSAGE_SLACK
