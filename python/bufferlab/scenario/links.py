"""One direction of a link and the port at its head: ``rate``, ``delay``, ``framing``, ``queue``,
``ring``, ``loss`` -> the plan's ``DirSpec``.

A direction is read in layers (a link's common keys, then ``[link.forward]``; a dumbbell's
bottleneck, then ``bottleneck_reverse``): each layer gives some keys, later layers win, and only
then are missing keys reported or defaulted.
"""

from __future__ import annotations

from typing import Any

from ..units import NS_PER_S, UnitError, parse_rate, parse_time_ns
from ._check import Problems, Table, choice, join, number
from .queue import default_queue, read_queue, read_ring

DIR_KEYS = ("rate", "delay", "framing", "queue", "ring", "loss")
FRAMINGS = ("none", "ethernet", "atm")


def link_rate_bps(value: Any) -> int:
    r = parse_rate(value, allow_pps=False)
    assert r.bps is not None
    return r.bps


def link_delay_ns(value: Any) -> int:
    """A propagation delay (its bounds are the engine's: `DirSpec.delay_ns`)."""
    return parse_time_ns(value)


_loss = number(what="a loss probability (0 to 1)")


def read_layer(t: Table) -> dict[str, Any]:
    """The direction keys ``t`` gives, parsed to plan keys; a bad value is kept as ``None``."""
    out: dict[str, Any] = {}
    if t.has("rate"):
        out["rate_bps"] = t.get("rate", link_rate_bps)
    if t.has("delay"):
        out["delay_ns"] = t.get("delay", link_delay_ns)
    if t.has("framing"):
        out["framing"] = t.get("framing", choice(*FRAMINGS))
    if t.has("queue"):
        out["queue"] = read_queue(t.raw("queue"), t.at("queue"), t.problems)
    if t.has("ring"):
        out["ring"] = read_ring(t.raw("ring"), t.at("ring"), t.problems)
    if t.has("loss"):
        out["loss"] = t.get("loss", _loss)
    return out


def complete(layer: dict[str, Any], path: str, problems: Problems, defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plan's DirSpec from merged layers; reports a missing rate or delay at ``path``."""
    defaults = defaults or {}
    d = {**defaults, **layer}
    for key, plan_key, example in (("rate", "rate_bps", '"10Mbps"'), ("delay", "delay_ns", '"10ms"')):
        if plan_key not in d:
            problems.add(join(path, key), f"missing (e.g. {key} = {example})")
    spec: dict[str, Any] = {
        "rate_bps": d.get("rate_bps"),
        "delay_ns": d.get("delay_ns"),
        "framing": d.get("framing") or "none",
        "queue": d.get("queue") or default_queue(),
    }
    if d.get("ring") is not None:
        spec["ring"] = d["ring"]
    if d.get("loss"):
        spec["loss"] = d["loss"]
    return spec
