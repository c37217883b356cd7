"""The typed plan (bufferlab.plan_types): generated from the engine's schema and current with it,
faithful to every scenario's plan, and strict about keys."""

from __future__ import annotations

import copy
import dataclasses
import json
import tomllib
import typing
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import EXAMPLES_DIR, REPO

from bufferlab import _core
from bufferlab import plan_types as pt
from bufferlab.plan_types.__main__ import GENERATED
from bufferlab.plan_types.generate import COMMAND, generate
from bufferlab.scenario import load_scenario

SCHEMA = json.loads(_core.plan_schema())
SCENARIO_FILES = sorted(
    {p for d in (REPO / "scenarios", EXAMPLES_DIR) for p in d.glob("*.toml") if "base" not in tomllib.loads(p.read_text())}
)


def test_generated_module_is_current() -> None:
    """A field renamed, added or retyped in the engine fails here until the module is regenerated."""
    assert GENERATED.read_text() == generate(_core.plan_schema()), f"plan types out of date: run {COMMAND}"


def test_every_schema_type_has_a_python_type() -> None:
    assert set(SCHEMA["$defs"]) | {SCHEMA["title"]} <= set(pt.__all__)


def _within(small: Any, big: Any) -> bool:
    """Every key of ``small`` is in ``big`` with an equal value (recursively)."""
    if isinstance(small, dict):
        return isinstance(big, dict) and all(k in big and _within(v, big[k]) for k, v in small.items())
    if isinstance(small, list):
        return isinstance(big, list) and len(small) == len(big) and all(map(_within, small, big))
    return bool(small == big)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_plan_round_trips(path: Path) -> None:
    plan = load_scenario(path).plan
    typed = pt.typed(plan)
    assert pt.to_dict(typed) == plan
    assert json.dumps(pt.to_dict(typed)) == json.dumps(plan)  # key order too
    # With every default written: the plan's keys unchanged, a plan the engine and the schema
    # accept, and the same typed plan read back.
    full = pt.to_dict(typed, defaults=True)
    assert _within(plan, full)
    jsonschema.validate(full, SCHEMA)
    assert _core.check(json.dumps(full)) == []
    assert pt.from_dict(pt.Scenario, full) == typed


def test_defaults_are_the_engines() -> None:
    """The schema's default ``tcp`` table is the engine's ``TcpOptions::default()`` in full."""
    tcp_default = next(v for v in SCHEMA["$defs"]["TrafficSpec"]["oneOf"] if v["properties"]["kind"]["const"] == "tcp")
    assert pt.to_dict(pt.TcpOptions(), defaults=True) == {
        "beta": None, "tsq": None, "accecn": None, **tcp_default["properties"]["tcp"]["default"]
    }


def _plan() -> dict[str, Any]:
    return copy.deepcopy(load_scenario(EXAMPLES_DIR / "linux-stack.toml").plan)


def _error(plan: dict[str, Any]) -> pt.PlanTypeError:
    with pytest.raises(pt.PlanTypeError) as e:
        pt.typed(plan)
    return e.value


def test_unknown_key_is_refused_at_its_path() -> None:
    plan = _plan()
    plan["links"][0]["forward"]["queue"]["qdisc"]["quantum"] = 300
    e = _error(plan)
    assert e.path == "links[0].forward.queue.qdisc.quantum"
    assert "unknown key" in e.message and "quantum_bytes" in e.message


def test_missing_required_key_is_reported_at_its_path() -> None:
    plan = _plan()
    del plan["links"][0]["reverse"]["rate_bps"]
    e = _error(plan)
    assert e.path == "links[0].reverse.rate_bps" and "missing" in e.message


@pytest.mark.parametrize(("where", "value", "path"), [
    (("links", 0, "forward", "queue", "qdisc", "kind"), "sfq", "links[0].forward.queue.qdisc.kind"),
    (("links", 0, "forward", "rate_bps"), "10Mbit", "links[0].forward.rate_bps"),
    (("links", 0, "forward", "ring", "bql"), "on", "links[0].forward.ring.bql"),
    (("traffic", 0, "tcp", "cc"), "bic", "traffic[0].tcp.cc"),
    (("traffic", 1, "pairs", 0), ["client"], "traffic[1].pairs[0]"),
])
def test_misfit_values_are_refused_at_their_path(where: tuple[Any, ...], value: Any, path: str) -> None:
    plan = _plan()
    node = plan
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = value
    assert _error(plan).path == path


def test_types_and_tags() -> None:
    plan = pt.typed(load_scenario(EXAMPLES_DIR / "linux-stack.toml"))
    fwd = plan.links[0].forward
    assert isinstance(fwd.queue.qdisc, pt.FqCodelQdisc) and fwd.queue.qdisc.target_ns == 5_000_000
    assert fwd.ring is not None and fwd.ring.bql == "auto"
    assert isinstance(plan.traffic[0], pt.TcpTraffic) and plan.traffic[0].tcp.cc == "cubic"
    assert isinstance(plan.traffic[0].start_ns, pt.ConstDist)
    assert pt.typed(plan) is plan


def test_has_tells_given_keys_from_defaults() -> None:
    tcp = pt.from_dict(pt.TcpOptions, {"sack": True})
    assert tcp.has("sack") and not tcp.has("rack") and tcp.rack is True
    assert pt.to_dict(tcp) == {"sack": True}
    assert pt.to_dict(pt.TcpOptions(cc="cubic")) == {"cc": "cubic"}
    with pytest.raises(AttributeError, match="no plan key 'sack_on'"):
        tcp.has("sack_on")


def test_tcp_traffic_is_the_engines_tcp_kinds() -> None:
    """``TCP_TRAFFIC`` (spelt out so that ``isinstance`` narrows) is every kind with a ``tcp`` table."""
    from bufferlab.scenario import TCP_KINDS

    with_tcp = {c for c in typing.get_args(pt.TrafficSpec) if "tcp" in pt.field_names(c)}
    assert set(pt.TCP_TRAFFIC) == with_tcp
    assert {next(f.default for f in dataclasses.fields(c) if f.name == "kind") for c in with_tcp} == set(TCP_KINDS)
