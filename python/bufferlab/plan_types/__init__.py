"""The engine's plan as typed, frozen objects: readers write ``plan.run.duration_ns``, not
``plan["run"]["duration_ns"]``, so a renamed engine field breaks at type-check or import.

``generated.py`` is made from the engine's JSON schema (``python -m bufferlab.plan_types
--write``); ``typed`` reads a loaded scenario or a plan dict into its root, :class:`Scenario`
(the Rust type's name; :data:`Plan` where that would be read as the loaded file).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from .base import PlanObject, field_names
from .codec import PlanTypeError, from_dict, to_dict
from .generated import *  # noqa: F403
from .generated import RrulTraffic, Scenario, TcpOnoffTraffic, TcpTraffic, WebTraffic, __all__ as _generated

Plan: TypeAlias = Scenario
# The traffic kinds that run TCP (and carry a ``tcp`` table); ``isinstance`` narrows to them. An
# rrul block is one only in a plan made by hand: the scenario reader writes it as tcp and ping blocks.
TCP_TRAFFIC = (TcpTraffic, WebTraffic, TcpOnoffTraffic, RrulTraffic)


def typed(source: Any) -> Scenario:
    """The typed plan of a loaded scenario (anything with ``.plan``), a plan dict, or a typed
    plan (returned as it is); :class:`PlanTypeError` names the first key that does not fit."""
    plan = getattr(source, "plan", source)
    if isinstance(plan, Scenario):
        return plan
    if not isinstance(plan, Mapping):
        raise TypeError(f"typed() takes a scenario or a plan dict, not {type(source).__name__}")
    return from_dict(Scenario, plan)


def flow_ids(plan: Any) -> list[tuple[str, int, str, str]]:
    """(flow id, traffic block index, src, dst) in bufferlab's order: ``tcp-1``, ``udp-1``...,
    numbered per kind over the blocks, one per pair (times ``count`` for ``tcp``). ``plan`` is a
    loaded scenario, a plan dict or a typed plan, as the scenario reader writes it (its rrul
    blocks expanded)."""
    counters: dict[str, int] = {}
    out = []
    for b, block in enumerate(typed(plan).traffic):
        kind = block.kind
        per_pair = block.count if isinstance(block, TcpTraffic) else 1
        for src, dst in block.pairs:
            for _ in range(per_pair):
                counters[kind] = counters.get(kind, 0) + 1
                out.append((f"{kind}-{counters[kind]}", b, src, dst))
    return out


def drawn_bulk_start(block: Any) -> bool:
    """Whether ``block`` (a typed traffic block) is bulk TCP whose start is drawn from a law, not
    a constant: the flows whose start the backends pair (kernel/paired.py, kernel/plan.py, the
    crosscheck)."""
    return isinstance(block, TcpTraffic) and to_dict(block.start_ns).get("dist") != "const"


__all__ = [*_generated, "Plan", "PlanObject", "PlanTypeError", "TCP_TRAFFIC", "drawn_bulk_start", "field_names", "flow_ids",
           "from_dict", "to_dict", "typed"]
