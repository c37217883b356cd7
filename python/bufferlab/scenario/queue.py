"""The ``queue`` and ``ring`` tables of a port, into the plan's ``QueueSpec`` and ``RingSpec``.

Defaults:

* no ``queue`` at all: a FIFO of 1000 packets -- Linux's default ``txqueuelen``, whose ``pfifo``
  limit it sets.
* a ``queue`` with neither ``limit`` nor ``sizing``: 1000 packets for every discipline (the
  ``txqueuelen`` again; also the default ``limit`` of Linux's ``codel`` and ``pie``), except
  ``fq_codel``, whose Linux default is 10240 packets (``sch_fq_codel.c``).
* a ``ring`` without ``bql``: ``"auto"``, as with any Linux driver that supports BQL.

Discipline parameters the file leaves out are left out of the plan too: the engine's parameter
structs hold those defaults, each with its source. The keys each discipline takes, and how each is
read, come from the engine's parameter schema (:mod:`.schema`); their bounds are the engine's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..units import UnitError, parse_bytes, parse_size
from ._check import Problems, Table, choice, did_you_mean, integer, number
from .schema import qdisc_keys, reader

TXQUEUELEN_PKTS = 1000
FQ_CODEL_LIMIT_PKTS = 10240

DISCIPLINES = ("fifo", "red", "codel", "fq_codel", "pie", "splitbuff", "blind_splitbuff", "prio_small")

SIZING_RULES = {
    "bdp": "bdp",
    "bdp/sqrt(n)": "bdp/sqrt(n)",
    "connection-proportional": "connection-proportional",
    "max(bdp,connection-proportional)": "max(bdp, connection-proportional)",
    "2l": "2L",
    "rtt-adaptive": "rtt-adaptive",
}


def _red_threshold(value: Any) -> tuple[str, float]:
    """A RED threshold of average queue: ``"5pkt"`` or a plain number (packets, as in ns-2) or
    ``"30KB"`` (byte mode) -> (plan key suffix, value)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "", number()(value)
    s = parse_size(value)
    return ("_pkts", float(s.pkts)) if s.pkts is not None else ("_bytes", float(s.bytes or 0))


# RED's thresholds have three plan spellings (plain, `_pkts`, `_bytes`) and one file key.
_RED_SPELLINGS = ("min_th_pkts", "min_th_bytes", "max_th_pkts", "max_th_bytes")


def _params(disc: str) -> dict[str, tuple[str, Callable[[Any], Any]]]:
    """A discipline's file keys -> (plan key, reader), from the engine's parameter schema."""
    keys = qdisc_keys(disc, skip=_RED_SPELLINGS if disc == "red" else ())
    out = {k: (plan_key, reader(plan_key, prop)) for k, (plan_key, prop) in keys.items()}
    if disc == "red":
        out["min_th"] = ("min_th", _red_threshold)  # the plan key gets its unit: see read_queue
        out["max_th"] = ("max_th", _red_threshold)
    return out


_QUEUE_KEYS = ("discipline", "limit", "sizing", "scale")


def _all_param_keys() -> list[str]:
    return sorted({k for d in DISCIPLINES for k in _params(d)})


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
    all_params = _all_param_keys()
    if disc is not None:
        keys = list(_QUEUE_KEYS) + list(_params(disc))
    else:
        keys = list(_QUEUE_KEYS) + all_params
    # A key that belongs to another discipline: say so rather than only "unknown key".
    misplaced = [k for k in value if k not in keys and k in all_params]
    for key in misplaced:
        owners = [d for d in DISCIPLINES if key in _params(d)]
        problems.add(
            f"{path}.{key}",
            f"{disc} has no parameter {key!r} ({', '.join(owners)} {'has' if len(owners) == 1 else 'have'} it); "
            f"{disc}'s parameters: {', '.join(_params(disc)) or 'none besides limit and sizing'}",
        )
    t = Table(value, path, problems, keys + misplaced)

    qdisc: dict[str, Any] = {"kind": disc or "fifo"}
    if disc is not None:
        for key, (plan_key, parse) in _params(disc).items():
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
    """Give the thresholds their unit in the key (``min_th_bytes``); the engine checks that both
    share it and are in order."""
    for name in ("min_th", "max_th"):
        th = qdisc.pop(name, None)
        if th is not None:
            qdisc[name + th[0]] = th[1]


def _read_limit(value: Any, disc: str | None) -> dict[str, int] | UnitError:
    if disc == "fq_codel" and isinstance(value, int) and not isinstance(value, bool):
        # tc's fq_codel limit is a packet count; accept it as tc does.
        value = f"{value}pkt"
    try:
        s = parse_size(value)
    except UnitError as e:
        return e
    if s.pkts is not None:
        return {"limit_pkts": s.pkts}
    if disc == "fq_codel":
        return UnitError(f'"{value}": fq_codel\'s limit counts packets (e.g. "10240pkt")')
    assert s.bytes is not None
    return {"limit_bytes": s.bytes}


def _ring_size(value: Any) -> int:
    return integer(what="a number of descriptors (e.g. 512)")(value)


def _bql(value: Any) -> Any:
    if value in ("auto", "off"):
        return value
    if isinstance(value, str) and value.strip().lower() in ("auto", "off"):
        raise UnitError(f'"{value}": write "{value.strip().lower()}"')
    try:
        n = parse_bytes(value)
    except UnitError as e:
        raise UnitError(f'bql is "auto", "off" or a byte limit: {e}') from None
    return {"fixed": n}  # its bounds (64 B to DQL_MAX_LIMIT) are the engine's


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
