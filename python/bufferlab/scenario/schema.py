"""The engine's parameters, as the scenario file sees them.

Every engine parameter is declared once, in the engine's plan types: its type, unit, bounds,
default and doc line (``crates/bufferlab-core/src/scenario.rs`` and each discipline's and the
transport's parameters). The engine gives them as a JSON Schema (``_core.plan_schema()``). From it
this module derives the file's keys (the plan key without its unit: ``target_ns`` -> ``target``)
for the file's JSON Schema and its docs; the engine's reader derives them the same way.

    >>> sorted(qdisc_keys("codel"))             # doctest: +SKIP
    ['interval', 'target']
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from .. import _core  # type: ignore[attr-defined]

# The plan keys' unit suffixes, as the engine's reader strips them (`file::schema::UNIT_SUFFIXES`).
UNIT_SUFFIX = re.compile("(" + "|".join(re.escape(s) for s in _core.file_names()["unit_suffixes"]) + ")$")


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


__all__ = ["plan_schema", "definition", "deref", "user_key", "disciplines", "qdisc_keys", "tcp_keys", "describe_key"]
