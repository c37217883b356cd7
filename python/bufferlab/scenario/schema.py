"""The engine's parameters, as the scenario file sees them.

Every engine parameter is declared once, in the engine's plan types: its type, unit, bounds,
default and doc line (``crates/bufferlab-core/src/scenario.rs`` and each discipline's and the
transport's parameters). The engine gives them as a JSON Schema (``_core.plan_schema()``). From it
this module derives the file's keys (the plan key without its unit: ``target_ns`` -> ``target``)
and how to read each value (by its unit). Bounds are the engine's to check: a value out of bounds
is reported by the engine, at the file's key, in the key's unit and with its default.

    >>> sorted(qdisc_keys("codel"))             # doctest: +SKIP
    ['interval', 'target']
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

from ..units import UnitError, parse_bytes, parse_time_ns
from ._check import boolean, choice, integer, number

UNIT_SUFFIX = re.compile(r"_(ns|bps|bytes|pkts|pps)$")

Reader = Callable[[Any], Any]


@functools.cache
def plan_schema() -> dict[str, Any]:
    """The plan's JSON Schema, from the engine."""
    from .. import _core  # type: ignore[attr-defined]

    return json.loads(_core.plan_schema())


def definition(name: str) -> dict[str, Any]:
    return plan_schema()["$defs"][name]


def deref(s: dict[str, Any]) -> dict[str, Any]:
    ref = s.get("$ref")
    return deref(definition(ref.rsplit("/", 1)[-1])) if ref else s


def user_key(plan_key: str) -> str:
    """The file's name of a plan key: without its unit (``quantum_bytes`` -> ``quantum``)."""
    return UNIT_SUFFIX.sub("", plan_key)


def _bytes(value: Any) -> int:
    """A byte count: ``"1514B"`` or a plain integer (as ``tc`` takes it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return parse_bytes(value)


def _types(prop: dict[str, Any]) -> set[str]:
    t = prop.get("type", [])
    return {t} if isinstance(t, str) else set(t)


def reader(plan_key: str, prop: dict[str, Any]) -> Reader:
    """How to read a value of ``plan_key`` from the file: by its unit, else by its type."""
    prop = deref(prop)
    if plan_key.endswith("_ns"):
        return parse_time_ns
    if plan_key.endswith("_bytes"):
        return _bytes
    if "enum" in prop:
        return choice(*prop["enum"])
    consts = [b["const"] for b in prop.get("oneOf", []) if "const" in b]
    if consts:
        return choice(*consts)
    types = _types(prop)
    if "boolean" in types:
        return boolean
    if "integer" in types:
        return integer()
    if "number" in types:
        return number()
    raise UnitError(f"the engine's key {plan_key} has a type this reader does not know")  # pragma: no cover


def _keys(props: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, tuple[str, dict[str, Any]]]:
    return {user_key(k): (k, p) for k, p in props.items() if k not in skip}


@functools.cache
def disciplines() -> dict[str, dict[str, Any]]:
    """Each discipline's parameter properties, by its ``kind``."""
    out: dict[str, dict[str, Any]] = {}
    for branch in definition("QdiscSpec")["oneOf"]:
        b = deref(branch)
        kind = b["properties"]["kind"]["const"]
        out[kind] = {k: v for k, v in b["properties"].items() if k != "kind"}
    return out


def qdisc_keys(kind: str, skip: tuple[str, ...] = ()) -> dict[str, tuple[str, dict[str, Any]]]:
    """The file's keys of a discipline: user key -> (plan key, property schema)."""
    return _keys(disciplines()[kind], skip)


def tcp_keys() -> dict[str, tuple[str, dict[str, Any]]]:
    """The file's TCP options: user key -> (plan key, property schema)."""
    return _keys(definition("TcpOptions")["properties"])


def describe_key(prop: dict[str, Any]) -> str:
    """The key's doc line (its first sentence)."""
    return " ".join((prop.get("description") or deref(prop).get("description", "")).split())


__all__ = ["plan_schema", "definition", "deref", "user_key", "reader", "disciplines", "qdisc_keys", "tcp_keys", "describe_key"]
