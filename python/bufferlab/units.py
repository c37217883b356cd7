"""Quantities with units, parsed strictly.

Every quantity in a scenario file is a string with its unit (``"50ms"``, ``"10Mbps"``,
``"64KiB"``, ``"120pkt"``). Parsing turns it into integers in base units -- nanoseconds, bits per
second, bytes -- which is what the engine takes. A parse failure raises :class:`UnitError` whose
message says what was wrong and how to write it instead; the scenario loader prefixes it with the
key path.

Times are rounded to the nearest nanosecond, the engine's resolution. Rates in bits per second and
sizes in bytes use SI prefixes (``k`` = 1000, ``KB`` = 1000 B); ``KiB``/``MiB``/``GiB`` are
binary.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from typing import Any

__all__ = [
    "UnitError",
    "Rate",
    "Size",
    "parse_time_ns",
    "parse_rate",
    "parse_size",
    "parse_bytes",
    "parse_per_second",
    "parse_dist",
    "format_time_ns",
    "format_rate_bps",
    "format_bytes",
    "quantity_value",
]

NS_PER_S = 1_000_000_000


class UnitError(ValueError):
    """A value that is not the quantity it should be; the message says how to fix it."""


TIME_UNITS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "ms": 1_000_000,
    "s": NS_PER_S,
    "min": 60 * NS_PER_S,
    "h": 3600 * NS_PER_S,
}

BIT_RATE_UNITS: dict[str, int] = {
    "bps": 1,
    "kbps": 10**3,
    "Mbps": 10**6,
    "Gbps": 10**9,
    "Tbps": 10**12,
}

PACKET_RATE_UNITS: dict[str, int] = {"pps": 1, "kpps": 10**3, "Mpps": 10**6}

SIZE_UNITS: dict[str, int] = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}

PACKET_UNITS = ("pkt",)
# The most values a Zipf size takes (the engine's `ZIPF_MAX_SUPPORT`: its support is tabulated).
ZIPF_MAX_PKTS = 10_000_000

# Units people write that mean something we accept: the spellings to suggest, likeliest first
# (the first one valid for the quantity at hand is offered).
_ALIASES: dict[str, tuple[str, ...]] = {
    "sec": ("s",),
    "secs": ("s",),
    "second": ("s",),
    "seconds": ("s",),
    "m": ("min", "MB"),
    "mins": ("min",),
    "minute": ("min",),
    "minutes": ("min",),
    "hr": ("h",),
    "hour": ("h",),
    "hours": ("h",),
    "msec": ("ms",),
    "msecs": ("ms",),
    "usec": ("us",),
    "usecs": ("us",),
    "nsec": ("ns",),
    "Kbps": ("kbps",),
    "kb/s": ("kbps",),
    "Mb/s": ("Mbps",),
    "Gb/s": ("Gbps",),
    "b/s": ("bps",),
    "kbit": ("kbps", "KB"),
    "Mbit": ("Mbps", "MB"),
    "Gbit": ("Gbps", "GB"),
    "k": ("kbps", "KB"),
    "K": ("kbps", "KB"),
    "M": ("Mbps", "MB"),
    "G": ("Gbps", "GB"),
    "kB": ("KB",),
    "kb": ("kbps", "KB"),
    "Mb": ("Mbps", "MB"),
    "Gb": ("Gbps", "GB"),
    "bytes": ("B",),
    "byte": ("B",),
    "b": ("bps", "B"),
    "pkts": ("pkt",),
    "packets": ("pkt",),
    "packet": ("pkt",),
    "p": ("pkt", "pps"),
}

# Read as the engine's reader reads text (units.rs split_text): ASCII digits, Unicode's White_Space
# (Rust's char::is_whitespace: Python's str.isspace less U+001C..U+001F), and a number taken
# whole, its exponent included when digits follow the e, never given back to a unit (an atomic
# group: "7e1+x" is not 7 followed by the unit "e1+x").
_WS_CHARS = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
_WS = f"[{re.escape(_WS_CHARS)}]"
_NOT_WS = f"[^{re.escape(_WS_CHARS)}]"
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_QUANTITY_RE = re.compile(rf"{_WS}*(?>({_NUMBER})){_WS}*((?![0-9.+-]){_NOT_WS}+)?{_WS}*")
# A plain number in a distribution, as Rust's f64 parser takes it (case aside, inf and nan too).
_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf|infinity|nan)", re.I)


def _strip(s: str) -> str:
    return s.strip(_WS_CHARS)

# Numbers are held as the engine's reader holds them (crates/bufferlab-core/src/file/decimal.rs),
# so that both read a value alike: at most 30 significant digits (later ones dropped) and the
# exponent kept within +-100000; the products and quotients below are then exact in a context of
# 120 digits, and no exponent typed (3333362e33707073) can overflow one.
_MAX_DIGITS = 30
_MAX_EXP = 100_000
_I64 = 2**63
_CTX = Context(prec=120, Emax=10**6, Emin=-(10**6), rounding=ROUND_HALF_EVEN)
_DEC_RE = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
# Beyond this many zeros a number in a message is written in scientific notation (Dec::show).
_SHOWN_ZEROS = 12


def _dec(number: str) -> Decimal:
    """``number`` (``[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?``) as the engine's reader reads it;
    InvalidOperation for anything else."""
    m = _DEC_RE.fullmatch(number)
    if not m or not (m.group(2) or m.group(3)):
        raise InvalidOperation(number)
    sign, whole, frac, e = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    exp = int(e) if e else 0
    if not -_I64 <= exp < _I64:  # the reader's exponent is an i64; past it, a million
        exp = -1_000_000 if e.startswith("-") else 1_000_000
    digits = (whole + frac).lstrip("0")
    exp += max(0, len(digits) - _MAX_DIGITS) - len(frac)
    exp = max(-_MAX_EXP, min(_MAX_EXP, exp))
    d = Decimal(f"{'-' if sign == '-' else ''}{digits[:_MAX_DIGITS] or '0'}E{exp}")
    return d.normalize(_CTX)


def _show(d: Decimal) -> str:
    """A number for a message: plain, unless that takes more than a dozen zeros (Dec::show)."""
    if d.is_zero():
        return "0"
    d = d.normalize(_CTX)
    sign, digits, exp = d.as_tuple()
    m = "".join(map(str, digits))
    zeros = exp if exp >= 0 else -exp - len(m)
    if zeros <= _SHOWN_ZEROS:
        return format(d, "f")
    rest = f".{m[1:]}" if len(m) > 1 else ""
    return f"{'-' if sign else ''}{m[0]}{rest}e{exp + len(m) - 1}"


# What each kind of quantity looks like, for messages.
_EXAMPLE = {
    "time": ('"{n}ms"', '"{n}s"'),
    "rate": ('"{n}Mbps"', '"{n}pps"'),
    "bit rate": ('"{n}Mbps"', '"{n}kbps"'),
    "size": ('"{n}B"', '"{n}pkt"'),
    "byte size": ('"{n}B"', '"{n}KB"'),
    "frequency": ('"{n}/s"', '"{n}/min"'),
}


def _kind_of_unit(unit: str) -> str | None:
    if unit in TIME_UNITS:
        return "time"
    if unit in BIT_RATE_UNITS or unit in PACKET_RATE_UNITS:
        return "rate"
    if unit in SIZE_UNITS or unit in PACKET_UNITS:
        return "size"
    if unit.startswith("/"):
        return "frequency"
    return None


# The largest rate a link takes: 10 Tb/s.
MAX_BPS = 10**13


def _bare_number_message(value: Any, kind: str, example: str | None = None) -> str:
    n = _strip(repr(value) if not isinstance(value, str) else value)
    head = f"{n} is a bare number; a {kind} needs a unit"
    try:
        d = _dec(n)
    except InvalidOperation:
        d = Decimal(0)
    if kind in ("rate", "bit rate") and d > MAX_BPS:
        # Beyond any rate in either unit: a conversion of it would only echo the mistake.
        return f"{head} (at most 10Tbps)"
    if kind in ("rate", "bit rate") and d >= 1000:
        # Tools that take bare rates (ns-3's DataRate, tc's default) read them as bits per
        # second: 10000000 is "10Mbps", not "10000000Mbps".
        return f'{head} (try "{_fmt_decimal_rate(d)}" if it is in bits per second)'
    if kind == "time" and 0 < d < 1:
        # A fraction is seconds (ns-3's Seconds(0.05), a config in s): "50ms".
        return f'{head} (try "{_show(_CTX.multiply(d, 1000))}ms" if it is in seconds)'
    a, b = _EXAMPLE[example or kind]
    return f"{head} (try {a.format(n=n)} or {b.format(n=n)})"



def _split(value: Any, kind: str, example: str | None = None) -> tuple[Decimal, str, str]:
    """Split ``"10Mbps"`` into (Decimal("10"), "Mbps", "10"). Rejects non-strings with a fix.

    ``kind`` names the quantity in messages; ``example`` picks the units they suggest.
    """
    ex = _EXAMPLE[example or kind]
    if isinstance(value, bool):
        raise UnitError(f"expected a {kind} such as {ex[0].format(n=10)}, got {str(value).lower()}")
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise UnitError(f"expected a {kind}, got {value}")
        raise UnitError(_bare_number_message(value, kind, example))
    if not isinstance(value, str):
        raise UnitError(
            f"expected a {kind} such as {ex[0].format(n=10)}, got {_type_name(value)}"
        )
    if re.fullmatch(rf"{_WS}*[+-]?[0-9]+,[0-9]+{_WS}*{_NOT_WS}*{_WS}*", value):
        raise UnitError(f"{_quote(value)}: write decimals with a point (try {_quote(_strip(value).replace(',', '.'))})")
    m = _QUANTITY_RE.fullmatch(value)
    if not m:
        raise UnitError(f"{_quote(value)} is not a {kind} (write a number and a unit, e.g. {ex[0].format(n=10)})")
    number, unit = m.group(1), m.group(2) or ""
    if not unit:
        raise UnitError(_bare_number_message(number, kind, example))
    try:
        d = _dec(number)
    except InvalidOperation:  # pragma: no cover - the regex only admits valid numbers
        raise UnitError(f"{_quote(value)} is not a {kind}") from None
    return d, unit, number


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return type(value).__name__


def _quote(value: str) -> str:
    """``value`` in double quotes for a message, as the engine's messages quote it: its quotes
    escaped, control characters and the line and paragraph separators as ``\\u`` + 4 hex digits."""
    return '"' + "".join(
        '\\"' if c == '"' else f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cc" or c in "\u2028\u2029" else c
        for c in value) + '"'


def _unknown_unit(value: str, number: str, unit: str, kind: str, units: list[str]) -> UnitError:
    """The error for a value whose unit is not one of ``units``, with the likeliest fix."""
    other = _kind_of_unit(unit)
    if other and other != kind and not (kind in ("bit rate",) and other == "rate"):
        return UnitError(f"{_quote(value)} is a {other}, not a {kind} (try {_EXAMPLE[kind][0].format(n=number)})")
    fix = next((a for a in _ALIASES.get(unit, ()) if a in units), None)
    lower = {u.lower(): u for u in units}
    if fix is None:
        fix = lower.get(unit.lower())
    if fix is None:
        close = difflib.get_close_matches(unit, units, n=1, cutoff=0.5)
        if not close:
            close = difflib.get_close_matches(unit.lower(), [u.lower() for u in units], n=1, cutoff=0.5)
            close = [lower[c] for c in close]
        fix = close[0] if close else None
    if fix is not None:
        return UnitError(f"{_quote(value)} is not a {kind} (try {_quote(number + fix)})")
    return UnitError(
        f"{_quote(value)} is not a {kind}: unknown unit {_quote(unit)} (use one of {', '.join(units)})"
    )


def parse_time_ns(value: Any) -> int:
    """``"0.5ms"`` -> 500000. Times are never negative."""
    d, unit, number = _split(value, "time")
    if unit not in TIME_UNITS:
        raise _unknown_unit(value, number, unit, "time", ["ns", "us", "ms", "s", "min", "h"])
    if d < 0:
        raise UnitError(f"{_quote(value)}: a time must not be negative")
    ns = _CTX.multiply(d, TIME_UNITS[unit]).to_integral_value(rounding=ROUND_HALF_EVEN)
    if ns >= 2**63:
        raise UnitError(f"{_quote(value)} is too long (at most about 292 years)")
    return int(ns)


@dataclass(frozen=True)
class Rate:
    """A rate: bits per second, or packets per second (exactly one is set)."""

    bps: int | None = None
    pps: float | None = None


def parse_rate(value: Any, *, allow_pps: bool = True) -> Rate:
    """``"10Mbps"`` -> Rate(bps=10_000_000); ``"250pps"`` -> Rate(pps=250.0). Rates are > 0."""
    kind = "rate"
    d, unit, number = _split(value, kind, None if allow_pps else "bit rate")
    units = list(BIT_RATE_UNITS) + (list(PACKET_RATE_UNITS) if allow_pps else [])
    if unit in ("Bps", "KBps", "MBps", "GBps", "B/s", "KB/s", "MB/s", "GB/s"):
        bits = _CTX.multiply(_CTX.multiply(d, 8), SIZE_UNITS[unit[0] + "B" if unit[0] != "B" else "B"])
        raise UnitError(
            f"{_quote(value)} is in bytes per second; rates are in bits (try {_quote(_fmt_decimal_rate(bits))})"
        )
    if unit in PACKET_RATE_UNITS and not allow_pps:
        raise UnitError(f"{_quote(value)}: this rate must be in bits per second (e.g. \"10Mbps\")")
    if unit not in units:
        raise _unknown_unit(value, number, unit, kind, units)
    if d <= 0:
        raise UnitError(f"{_quote(value)}: a rate must be greater than zero")
    if unit in BIT_RATE_UNITS:
        bps = _CTX.multiply(d, BIT_RATE_UNITS[unit]).to_integral_value(rounding=ROUND_HALF_EVEN)
        if bps < 1:
            raise UnitError(f"{_quote(value)} is below 1 bps")
        if bps > MAX_BPS:
            raise UnitError(f"{_quote(value)} is an absurd rate (at most 10Tbps)")
        return Rate(bps=int(bps))
    pps = float(_CTX.multiply(d, PACKET_RATE_UNITS[unit]))
    if pps > 1e9:
        raise UnitError(f"{_quote(value)} is an absurd rate (at most 10^9 packets per second)")
    return Rate(pps=pps)


def _fmt_decimal_rate(bps: Decimal) -> str:
    for unit, f in (("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3)):
        if bps >= f:
            return f"{_show(_CTX.divide(bps, f))}{unit}"
    return f"{_show(bps)}bps"


@dataclass(frozen=True)
class Size:
    """A size: bytes, or packets (exactly one is set)."""

    bytes: int | None = None
    pkts: int | None = None


def parse_size(value: Any, *, allow_pkt: bool = True) -> Size:
    """``"64KB"`` -> Size(bytes=64000); ``"120pkt"`` -> Size(pkts=120). Sizes are >= 0 whole units."""
    kind = "size"
    d, unit, number = _split(value, kind, None if allow_pkt else "byte size")
    units = list(SIZE_UNITS) + (list(PACKET_UNITS) if allow_pkt else [])
    if unit in PACKET_UNITS and not allow_pkt:
        raise UnitError(f"{_quote(value)}: this size must be in bytes (e.g. \"1500B\")")
    if unit not in units:
        raise _unknown_unit(value, number, unit, kind, units)
    if d < 0:
        raise UnitError(f"{_quote(value)}: a size must not be negative")
    if unit in PACKET_UNITS:
        if d != d.to_integral_value():
            raise UnitError(f"{_quote(value)}: a packet count must be a whole number")
        if d > 10**12:
            raise UnitError(f"{_quote(value)} is an absurd number of packets (at most 10^12)")
        return Size(pkts=int(d))
    b = _CTX.multiply(d, SIZE_UNITS[unit])
    if b > 2**50:
        raise UnitError(f"{_quote(value)} is an absurd size (at most 1 PiB)")
    if b != b.to_integral_value():
        raise UnitError(f"{_quote(value)} is not a whole number of bytes")
    return Size(bytes=int(b))


def parse_bytes(value: Any) -> int:
    """A size that must be in bytes (``"1500B"``, ``"64KiB"``)."""
    s = parse_size(value, allow_pkt=False)
    assert s.bytes is not None
    return s.bytes


_PER_RE = re.compile(rf"{_WS}*(?>({_NUMBER})){_WS}*/{_WS}*([0-9.]*){_WS}*([a-zµ]+){_WS}*")


def parse_per_second(value: Any) -> float:
    """An event rate: ``"1/s"``, ``"30/min"``, ``"5/100ms"`` -> events per second (> 0)."""
    if isinstance(value, bool) or not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise UnitError(f"{value} is a bare number; an event rate needs a unit (try \"{value}/s\")")
        raise UnitError(f"expected an event rate such as \"1/s\", got {_type_name(value)}")
    m = _PER_RE.fullmatch(value)
    if not m:
        m2 = _QUANTITY_RE.fullmatch(value)
        if m2 and not m2.group(2):
            raise UnitError(f"{value} is a bare number; an event rate needs a unit (try \"{_strip(value)}/s\")")
        hint = f' (try "{m2.group(1)}/s")' if m2 else ' (e.g. "1/s")'
        raise UnitError(f"{_quote(value)} is not an event rate{hint}")
    count, per_n, per_unit = _dec(m.group(1)), m.group(2) or "1", m.group(3)
    if per_unit not in TIME_UNITS:
        close = difflib.get_close_matches(per_unit, list(TIME_UNITS), n=1, cutoff=0.5)
        fix = f' (try "{m.group(1)}/{per_n if per_n != "1" else ""}{close[0]}")' if close else ""
        raise UnitError(f"{_quote(value)} is not an event rate: unknown time unit {_quote(per_unit)}{fix}")
    try:
        per_ns = _CTX.multiply(_dec(per_n), TIME_UNITS[per_unit])
    except InvalidOperation:
        raise UnitError(f"{_quote(value)} is not an event rate") from None
    if count <= 0 or per_ns <= 0:
        raise UnitError(f"{_quote(value)}: an event rate must be greater than zero")
    # As the engine's reader: each side to the nearest float, then one division (IEEE 754: x/0
    # is infinite, 0/0 not a number). Beyond floats either way is not a rate to simulate.
    num, den = float(_CTX.multiply(count, NS_PER_S)), float(per_ns)
    rate = num / den if den else (math.nan if num == 0 else math.inf)
    if not math.isfinite(rate):
        raise UnitError(f"{_quote(value)} is an absurd event rate")
    if rate == 0:
        raise UnitError(f"{_quote(value)}: an event rate must be greater than zero")
    return rate


# ---------------------------------------------------------------- distributions

_DIST_RE = re.compile(rf"{_WS}*([A-Za-z_][A-Za-z0-9_]*){_WS}*\((.*)\){_WS}*", re.S)

# name -> (positional parameter names, keyword parameter names, required names)
_DIST_SIGNATURES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "const": (("value",), ("value",)),
    "exp": (("mean",), ("mean",)),
    "uniform": (("lo", "hi"), ("lo", "hi")),
    "zipf": (("s", "max"), ("s", "max")),
    "pareto": (("shape", "mean"), ("shape", "mean")),
    "lognormal": (("mean", "sd"), ("mean", "sd")),
}
_DIST_EXAMPLES = {
    "const": "const(36KB)",
    "exp": "exp(1s)",
    "uniform": "uniform(0s,5s)",
    "zipf": "zipf(1.7, max=100000pkt)",
    "pareto": "pareto(1.2, mean=36KB)",
    "lognormal": "lognormal(mean=130ms, sd=30ms)",
}


def parse_dist(value: Any, quantity: str, *, pkt_bytes: int | None = None) -> dict[str, Any]:
    """A distribution of times (``quantity="time"``, in ns) or sizes (``"size"``, in bytes).

    A plain quantity (``"1s"``, ``"36KB"``) is a constant. Sizes in ``pkt`` count segments of
    ``pkt_bytes`` bytes (the TCP MSS). Returns the engine's form, e.g.
    ``{"dist": "exp", "mean": 1e9}``.
    """
    if quantity not in ("time", "size"):
        raise ValueError(f"quantity must be 'time' or 'size', not {quantity!r}")
    if isinstance(value, str):
        m = _DIST_RE.fullmatch(value)
    else:
        m = None
    if m is None:
        # A constant.
        try:
            return {"dist": "const", "value": float(_quantity(value, quantity, pkt_bytes))}
        except UnitError as e:
            if isinstance(value, str) and "(" in value:
                raise UnitError(f"{_quote(value)} is not a distribution (e.g. {_DIST_EXAMPLES['exp']})") from None
            raise UnitError(f"{e}; a distribution such as {_example_for(quantity)} also works") from None
    name, body = m.group(1), m.group(2)
    if name not in _DIST_SIGNATURES:
        close = difflib.get_close_matches(name, list(_DIST_SIGNATURES), n=1, cutoff=0.5)
        hint = f" (try {_quote(value.replace(name, close[0], 1))})" if close else ""
        raise UnitError(
            f"{_quote(value)}: unknown distribution {_quote(name)}{hint}; known: {', '.join(_DIST_SIGNATURES)}"
        )
    if name == "zipf" and quantity != "size":
        raise UnitError(f"{_quote(value)}: zipf is a distribution of sizes, not of times")
    positional, keywords = _DIST_SIGNATURES[name]
    args: dict[str, str] = {}
    parts = [_strip(p) for p in body.split(",")] if _strip(body) else []
    seen_keyword = False
    for i, part in enumerate(parts):
        if "=" in part:
            seen_keyword = True
            key, _, val = part.partition("=")
            key, val = _strip(key), _strip(val)
            if key not in keywords:
                close = difflib.get_close_matches(key, list(keywords), n=1, cutoff=0.5)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                raise UnitError(f"{_quote(value)}: {name} has no parameter {_quote(key)}{hint}; usage: {_DIST_EXAMPLES[name]}")
        else:
            if seen_keyword:
                raise UnitError(f"{_quote(value)}: positional value after a keyword; usage: {_DIST_EXAMPLES[name]}")
            if i >= len(positional):
                raise UnitError(f"{_quote(value)}: too many values for {name}; usage: {_DIST_EXAMPLES[name]}")
            key, val = positional[i], part
        if key in args:
            raise UnitError(f"{_quote(value)}: {key} given twice")
        if not val:
            raise UnitError(f"{_quote(value)}: empty value for {key}; usage: {_DIST_EXAMPLES[name]}")
        args[key] = val
    missing = [k for k in positional if k not in args]
    if missing:
        raise UnitError(f"{_quote(value)}: {name} needs {', '.join(missing)}; usage: {_DIST_EXAMPLES[name]}")

    def q(key: str) -> float:
        try:
            return float(_quantity(args[key], quantity, pkt_bytes))
        except UnitError as e:
            raise UnitError(f"{_quote(value)}: {key}: {e}") from None

    def plain(key: str) -> float:
        try:
            if not _FLOAT_RE.fullmatch(args[key]):
                raise ValueError(args[key])
            x = float(args[key])
        except ValueError:
            raise UnitError(f"{_quote(value)}: {key} must be a plain number, not {_quote(args[key])}") from None
        if not math.isfinite(x):
            raise UnitError(f"{_quote(value)}: {key} must be finite")
        return x

    if name == "const":
        return {"dist": "const", "value": q("value")}
    if name == "exp":
        mean = q("mean")
        if mean <= 0:
            raise UnitError(f"{_quote(value)}: the mean must be greater than zero")
        return {"dist": "exp", "mean": mean}
    if name == "uniform":
        lo, hi = q("lo"), q("hi")
        if lo > hi:
            raise UnitError(f"{_quote(value)}: the lower bound is above the upper (try uniform({args['hi']},{args['lo']}))")
        return {"dist": "uniform", "lo": lo, "hi": hi}
    if name == "zipf":
        s = plain("s")
        if s <= 0:
            raise UnitError(f"{_quote(value)}: the exponent s must be greater than zero")
        unit = pkt_bytes
        if unit is None:
            raise UnitError(f"{_quote(value)}: zipf needs a packet size here, which this value has none of")
        try:
            sz = parse_size(args["max"])
        except UnitError as e:
            raise UnitError(f"{_quote(value)}: max: {e}") from None
        kmax = sz.pkts if sz.pkts is not None else (sz.bytes or 0) // unit
        if kmax < 1:
            raise UnitError(f"{_quote(value)}: max must be at least 1pkt ({unit} B)")
        if kmax > ZIPF_MAX_PKTS:
            raise UnitError(f"{_quote(value)}: max is {kmax:,} packets; the engine tabulates the support and takes at "
                            f"most {ZIPF_MAX_PKTS:,} (lower max, or use pareto(shape, mean) for a tail without a bound)")
        return {"dist": "zipf", "s": s, "max": int(kmax), "unit": float(unit)}
    if name == "pareto":
        shape = plain("shape")
        if shape <= 1:
            raise UnitError(f"{_quote(value)}: the shape must be greater than 1 for a finite mean")
        mean = q("mean")
        if mean <= 0:
            raise UnitError(f"{_quote(value)}: the mean must be greater than zero")
        return {"dist": "pareto", "shape": shape, "mean": mean}
    # lognormal
    mean, sd = q("mean"), q("sd")
    if mean <= 0:
        raise UnitError(f"{_quote(value)}: the mean must be greater than zero")
    return {"dist": "lognormal", "mean": mean, "sd": sd}


def _example_for(quantity: str) -> str:
    return '"exp(1s)"' if quantity == "time" else '"pareto(1.2, mean=36KB)"'


def _quantity(value: Any, quantity: str, pkt_bytes: int | None) -> int:
    if quantity == "time":
        return parse_time_ns(value)
    if pkt_bytes is None:
        return parse_bytes(value)
    s = parse_size(value)
    return s.bytes if s.bytes is not None else (s.pkts or 0) * pkt_bytes


# ---------------------------------------------------------------- formatting (for tables)


def format_time_ns(ns: float) -> str:
    """500000 -> "500us"; for display only."""
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= f:
            return f"{ns / f:.4g}{unit}"
    return f"{ns:.4g}ns"


def format_rate_bps(bps: float) -> str:
    for unit, f in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if abs(bps) >= f:
            return f"{bps / f:.4g}{unit}"
    return f"{bps:.4g}bps"


def format_bytes(n: float) -> str:
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(n) >= f:
            return f"{n / f:.4g}{unit}"
    return f"{n:.4g}B"


# ---------------------------------------------------------------- quantities as numbers (sweeps)


def quantity_value(value: Any) -> tuple[float, str] | None:
    """A swept value as a number in its base unit and that unit: ``"20pkt"`` -> (20.0, "pkt"),
    ``"10Mbps"`` -> (1e7, "bps"), ``"666.67pps"`` -> (666.67, "pps"), ``"50ms"`` -> (0.05, "s"),
    ``"64KiB"`` -> (65536.0, "B"); a plain number is itself with unit ``""``. None for anything
    else (a table, a word, a distribution), which then has no order but its label's."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value), ""
    if not isinstance(value, str):
        return None
    try:
        return parse_time_ns(value) / NS_PER_S, "s"
    except UnitError:
        pass
    try:
        r = parse_rate(value)
        return (float(r.bps), "bps") if r.bps is not None else (float(r.pps or 0.0), "pps")
    except UnitError:
        pass
    try:
        z = parse_size(value)
        return (float(z.bytes), "B") if z.bytes is not None else (float(z.pkts or 0), "pkt")
    except UnitError:
        pass
    return None
