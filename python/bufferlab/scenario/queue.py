"""The ``queue`` and ``ring`` tables of a port, into the plan's ``QueueSpec`` and ``RingSpec``.

Defaults:

* no ``queue`` at all: a FIFO of 1000 packets -- Linux's default ``txqueuelen``, whose ``pfifo``
  limit it sets.
* a ``queue`` with neither ``limit`` nor ``sizing``: 1000 packets for every discipline (the
  ``txqueuelen`` again; also the default ``limit`` of Linux's ``codel`` and ``pie``), except
  ``fq_codel``, whose Linux default is 10240 packets (``sch_fq_codel.c``).
* a ``ring`` without ``bql``: ``"auto"``, as with any Linux driver that supports BQL.

Discipline parameters the file leaves out are left out of the plan too: the engine's parameter
structs hold those defaults, each with its source.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..units import UnitError, parse_bytes, parse_size, parse_time_ns
from ._check import Problems, Table, boolean, choice, did_you_mean, integer, number

TXQUEUELEN_PKTS = 1000
FQ_CODEL_LIMIT_PKTS = 10240
MAX_LIMIT_PKTS = 100_000_000
MAX_LIMIT_BYTES = 1 << 40

DISCIPLINES = ("fifo", "red", "codel", "fq_codel", "pie", "splitbuff", "blind_splitbuff", "prio_small")

SIZING_RULES = {
    "bdp": "bdp",
    "bdp/sqrt(n)": "bdp/sqrt(n)",
    "connection-proportional": "connection-proportional",
    "max(bdp,connection-proportional)": "max(bdp, connection-proportional)",
    "2l": "2L",
    "rtt-adaptive": "rtt-adaptive",
}


def _positive_time(value: Any) -> int:
    ns = parse_time_ns(value)
    if ns <= 0:
        raise UnitError(f'"{value}": must be longer than zero')
    return ns


def _quantum(value: Any) -> int:
    """fq_codel's quantum: bytes, as ``"1514B"`` or a plain integer (as ``tc`` takes it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    else:
        n = parse_bytes(value)
    if not 64 <= n <= 1 << 20:
        raise UnitError(f"{n} B is not a usable quantum (64 B to 1 MiB; Linux's default is one MTU, 1514 B)")
    return n


def _threshold(value: Any) -> int:
    n = parse_bytes(value)
    if not 1 <= n <= 65535:
        raise UnitError(f'"{value}": the threshold is a packet size, 1 B to 65535 B')
    return n


def _red_threshold(value: Any) -> tuple[str, float]:
    """A RED threshold of average queue: ``"5pkt"`` or a plain number (packets, as in ns-2) or
    ``"30KB"`` (byte mode) -> (plan key suffix, value)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        suffix, x = "", float(value)
    else:
        s = parse_size(value)
        suffix, x = ("_pkts", float(s.pkts)) if s.pkts is not None else ("_bytes", float(s.bytes or 0))
    if not (math.isfinite(x) and 0 <= x <= 1e12):
        raise UnitError(f"{value} is not a usable threshold (0 or more packets or bytes)")
    return suffix, x


def _mean_pkt(value: Any) -> int:
    n = parse_bytes(value)
    if not 1 <= n <= 65535:
        raise UnitError(f'"{value}": a packet size is 1 B to 65535 B')
    return n


# Per discipline: key -> (plan key, parser). ``limit``, ``sizing`` and ``scale`` are the queue's.
_PARAMS: dict[str, dict[str, tuple[str, Callable[[Any], Any]]]] = {
    "fifo": {},
    # Floyd & Jacobson 1993, with ns-2's names: thresholds in packets of average queue.
    "red": {
        "min_th": ("min_th", _red_threshold),  # plan key gets the unit suffix: see read_queue
        "max_th": ("max_th", _red_threshold),
        "max_p": ("max_p", number(0, 1, lo_open=True, what="a probability in (0, 1]")),
        "weight": ("weight", number(0, 1, lo_open=True, what="an averaging weight in (0, 1]")),
        "gentle": ("gentle", boolean),
        "wait": ("wait", boolean),
        "mean_pkt": ("mean_pkt_bytes", _mean_pkt),
    },
    "codel": {
        "target": ("target_ns", _positive_time),
        "interval": ("interval_ns", _positive_time),
    },
    "fq_codel": {
        "target": ("target_ns", _positive_time),
        "interval": ("interval_ns", _positive_time),
        "flows": ("flows", integer(1, 65536, "a number of flow queues")),
        "quantum": ("quantum_bytes", _quantum),
    },
    "pie": {
        "target": ("target_ns", _positive_time),
        "tupdate": ("tupdate_ns", _positive_time),
        "alpha": ("alpha", number(0, 100, what="a number (PIE's alpha, 0.125 by default)")),
        "beta": ("beta", number(0, 100, what="a number (PIE's beta, 1.25 by default)")),
        "max_burst": ("max_burst_ns", parse_time_ns),
    },
    "splitbuff": {
        "buffers": ("buffers", integer(2, 3, "2 or 3")),
        "update": ("update_ns", _positive_time),
        "smoothing": ("smoothing", number(0, 1, lo_open=True, what="a weight in (0, 1]")),
    },
    "blind_splitbuff": {
        "buffers": ("buffers", integer(2, 3, "2 or 3")),
    },
    "prio_small": {
        "threshold": ("threshold_bytes", _threshold),
    },
}

_QUEUE_KEYS = ("discipline", "limit", "sizing", "scale")
_ALL_PARAM_KEYS = sorted({k for p in _PARAMS.values() for k in p})


def _sizing(value: Any) -> str:
    if not isinstance(value, str):
        raise UnitError(f'expected a sizing rule such as "bdp", got {value!r}')
    key = re.sub(r"\s+", "", value).lower()
    if key in SIZING_RULES:
        return SIZING_RULES[key]
    rules = ", ".join(f'"{r}"' for r in SIZING_RULES.values())
    raise UnitError(f'"{value}" is not a sizing rule{did_you_mean(value, list(SIZING_RULES.values()))}; known: {rules}')


def default_queue() -> dict[str, Any]:
    """The queue of a port the file gives none for: Linux's pfifo at txqueuelen."""
    return {"qdisc": {"kind": "fifo"}, "limit_pkts": TXQUEUELEN_PKTS}


def read_queue(value: Any, path: str, problems: Problems) -> dict[str, Any] | None:
    """The plan's QueueSpec from a ``queue`` table."""
    if not isinstance(value, dict):
        Table(value, path, problems, (), example='{ discipline = "fifo", limit = "100pkt" }')
        return None
    disc: str | None
    try:
        disc = choice(*DISCIPLINES)(value.get("discipline", "fifo"))
    except UnitError as e:
        problems.add(f"{path}.discipline", str(e))
        disc = None
    if disc is not None:
        keys = list(_QUEUE_KEYS) + list(_PARAMS[disc])
    else:
        keys = list(_QUEUE_KEYS) + _ALL_PARAM_KEYS
    # A key that belongs to another discipline: say so rather than only "unknown key".
    misplaced = [k for k in value if k not in keys and k in _ALL_PARAM_KEYS]
    for key in misplaced:
        owners = [d for d, ps in _PARAMS.items() if key in ps]
        problems.add(
            f"{path}.{key}",
            f"{disc} has no parameter {key!r} ({', '.join(owners)} {'has' if len(owners) == 1 else 'have'} it); "
            f"{disc}'s parameters: {', '.join(_PARAMS[disc]) or 'none besides limit and sizing'}",
        )
    t = Table(value, path, problems, keys + misplaced)

    qdisc: dict[str, Any] = {"kind": disc or "fifo"}
    if disc is not None:
        for key, (plan_key, parse) in _PARAMS[disc].items():
            v = t.get(key, parse)
            if v is not None:
                qdisc[plan_key] = v
    if disc == "red":
        _red_thresholds(qdisc, path, problems)
    spec: dict[str, Any] = {"qdisc": qdisc}
    has_limit, has_sizing = "limit" in t.data, "sizing" in t.data
    if has_limit and has_sizing:
        problems.add(f"{path}.limit", "give either limit or sizing, not both")
    if has_limit:
        limit = _read_limit(t.data["limit"], disc)
        if isinstance(limit, UnitError):
            problems.add(f"{path}.limit", str(limit))
        else:
            spec.update(limit)
    if has_sizing:
        rule = t.get("sizing", _sizing)
        scale = t.get("scale", number(0, 1e6, lo_open=True, what="a scale factor > 0"), 1.0)
        if rule is not None:
            spec["sizing"] = {"rule": rule, "scale": scale if scale is not None else 1.0}
    elif "scale" in t.data:
        problems.add(f"{path}.scale", 'scale multiplies a sizing rule; add sizing = "bdp" (or another rule)')
    if not has_limit and not has_sizing:
        spec["limit_pkts"] = FQ_CODEL_LIMIT_PKTS if disc == "fq_codel" else TXQUEUELEN_PKTS
    return spec


def _red_thresholds(qdisc: dict[str, Any], path: str, problems: Problems) -> None:
    """Give the thresholds their unit in the key (``min_th_bytes``); both must share it."""
    lo, hi = qdisc.pop("min_th", None), qdisc.pop("max_th", None)
    for name, th in (("min_th", lo), ("max_th", hi)):
        if th is not None:
            qdisc[name + th[0]] = th[1]
    if lo is not None and hi is not None:
        in_bytes = lo[0] == "_bytes", hi[0] == "_bytes"
        if in_bytes[0] != in_bytes[1]:
            problems.add(f"{path}.max_th", "give both thresholds in the same unit (packets or bytes)")
        elif lo[1] >= hi[1]:
            problems.add(f"{path}.max_th", "must be above min_th")
    elif (lo or hi) is not None and (lo or hi)[0] == "_bytes":
        problems.add(f"{path}.{'max_th' if lo else 'min_th'}", "give both thresholds when they are in bytes (the defaults, 5 and 15, count packets)")


def _read_limit(value: Any, disc: str | None) -> dict[str, int] | UnitError:
    if disc == "fq_codel" and isinstance(value, int) and not isinstance(value, bool):
        # tc's fq_codel limit is a packet count; accept it as tc does.
        value = f"{value}pkt"
    try:
        s = parse_size(value)
    except UnitError as e:
        return e
    if s.pkts is not None:
        if s.pkts < 1:
            return UnitError(f'"{value}": a buffer must hold at least 1pkt')
        if s.pkts > MAX_LIMIT_PKTS:
            return UnitError(f'"{value}" is an absurd buffer (at most {MAX_LIMIT_PKTS:,} packets)')
        return {"limit_pkts": s.pkts}
    if disc == "fq_codel":
        return UnitError(f'"{value}": fq_codel\'s limit counts packets (e.g. "10240pkt")')
    assert s.bytes is not None
    if s.bytes < 64:
        return UnitError(f'"{value}": a buffer of under 64 B cannot hold a packet')
    if s.bytes > MAX_LIMIT_BYTES:
        return UnitError(f'"{value}" is an absurd buffer (at most 1TiB)')
    return {"limit_bytes": s.bytes}


def _ring_size(value: Any) -> int:
    return integer(1, 1 << 20, "a number of descriptors (e.g. 512)")(value)


def _bql(value: Any) -> Any:
    if value in ("auto", "off"):
        return value
    if isinstance(value, str) and value.strip().lower() in ("auto", "off"):
        raise UnitError(f'"{value}": write "{value.strip().lower()}"')
    try:
        n = parse_bytes(value)
    except UnitError as e:
        raise UnitError(f'bql is "auto", "off" or a byte limit: {e}') from None
    if n < 64:
        raise UnitError(f'"{value}": a BQL limit under 64 B would stall the ring')
    return {"fixed": n}


def read_ring(value: Any, path: str, problems: Problems) -> dict[str, Any] | None:
    t = Table(value, path, problems, ("size", "bql"), example='{ size = 512, bql = "auto" }')
    if not t.ok:
        return None
    size = t.get("size", _ring_size, required=True, example="512")
    bql = t.get("bql", _bql, "auto")
    if size is None or bql is None:
        return None
    return {"size": size, "bql": bql}


__all__ = ["read_queue", "read_ring", "default_queue", "DISCIPLINES", "SIZING_RULES"]
