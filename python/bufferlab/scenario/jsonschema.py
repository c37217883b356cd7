"""The scenario file's JSON Schema (``bufferlab schema``) and the key tables of
docs/scenario-format.md, from the same sources as the reader.

The file's structure (``[run]``, templates, ``[[traffic]]`` kinds, values written with units) is
the Python reader's; every engine parameter (a discipline's, a TCP option, a link direction's) is
the engine's plan schema (:mod:`.schema`), carried over with its doc line, its default in the
file's units and its bounds. Editors that read JSON Schema for TOML (Taplo, Even Better TOML)
complete and check scenario files with it:

    #:schema ./scenario.schema.json        (first line of a scenario file)
"""

from __future__ import annotations

from typing import Any

from .. import _core  # type: ignore[attr-defined]
from . import NAMES, TCP_KINDS
from .schema import definition, deref, describe_key, qdisc_keys, tcp_keys, user_key

DISCIPLINES = NAMES["disciplines"]
# RED's thresholds have three plan spellings and one file key each.
_RED_SPELLINGS = ("min_th_pkts", "min_th_bytes", "max_th_pkts", "max_th_bytes")


def _enum(name: str) -> list[str]:
    """The values of a plan enum (``Framing``, ``Arrivals``)."""
    d = deref(definition(name))
    return list(d.get("enum") or [b["const"] for b in d.get("oneOf", []) if "const" in b])

TIME = {"type": "string", "pattern": r"^\s*[0-9.eE+-]+\s*(ns|us|µs|ms|s|min|h)\s*$", "description": "a time with its unit, e.g. \"50ms\""}
RATE = {"type": "string", "description": "a rate with its unit, e.g. \"10Mbps\" or \"250pps\""}
SIZE = {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}], "description": "a size, e.g. \"1514B\", \"64KiB\", \"100pkt\""}
DIST = {"type": "string", "description": "a quantity or a distribution, e.g. \"uniform(0s,1s)\", \"exp(1MB)\""}


def _fmt_default(plan_key: str, value: Any) -> Any:
    """A default in the file's units: ``5000000`` ns -> ``"5ms"``."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if plan_key.endswith("_ns"):
        # A day or more in whole hours (the engine's messages do the same: 30 days is 720h).
        if value >= 24 * 3600 * 10**9 and value % (3600 * 10**9) == 0:
            return f"{int(value // (3600 * 10**9))}h"
        for unit, name in ((10**9, "s"), (10**6, "ms"), (10**3, "us")):
            if value >= unit and value % unit == 0:
                return f"{int(value // unit)}{name}"
        return f"{int(value)}ns"
    if plan_key.endswith("_bytes"):
        return f"{int(value)}B"
    if plan_key.endswith("_bps"):
        from ..units import format_rate_bps

        return format_rate_bps(value)
    return value


def _num(plan_key: str, x: Any) -> str:
    v = _fmt_default(plan_key, x)
    return f"{v:g}" if isinstance(v, float) else str(v)


def _bounds_text(plan_key: str, prop: dict[str, Any]) -> str:
    lo, hi = prop.get("minimum"), prop.get("maximum")
    xlo, xhi = prop.get("exclusiveMinimum"), prop.get("exclusiveMaximum")
    parts = []
    if xlo is not None:
        parts.append(f"> {_num(plan_key, xlo)}")
    elif lo is not None and not (lo == 0 and prop.get("type") == "integer"):
        parts.append(f">= {_num(plan_key, lo)}")
    if xhi is not None:
        parts.append(f"< {_num(plan_key, xhi)}")
    elif hi is not None:
        parts.append(f"<= {_num(plan_key, hi)}")
    return ", ".join(parts)


def engine_key(plan_key: str, prop: dict[str, Any]) -> dict[str, Any]:
    """One engine parameter as the file writes it."""
    p = deref(prop)
    if plan_key.endswith("_ns"):
        out: dict[str, Any] = dict(TIME)
    elif plan_key.endswith("_bytes"):
        out = dict(SIZE)
    elif plan_key.endswith("_bps"):
        out = dict(RATE)
    else:
        out = {k: v for k, v in p.items() if k in ("type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}
        consts = [b["const"] for b in p.get("oneOf", []) if "const" in b]
        if consts:
            out = {"type": "string", "enum": consts}
    doc = describe_key(prop)
    bounds = _bounds_text(plan_key, p)
    out["description"] = f"{doc} [{bounds}]" if bounds and plan_key.endswith(("_ns", "_bytes", "_bps")) else doc
    if "default" in prop and prop["default"] is not None:
        out["default"] = _fmt_default(plan_key, prop["default"])
    return out


def _obj(props: dict[str, Any], required: tuple[str, ...] = (), description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    return out


def _queue() -> dict[str, Any]:
    props: dict[str, Any] = {
        "discipline": {"type": "string", "enum": list(DISCIPLINES), "default": "fifo", "description": "the queueing discipline"},
        "limit": {**SIZE, "description": "buffer limit: packets (\"100pkt\") or bytes (\"64KB\"); fq_codel and fq: a number of packets"},
        "sizing": {"type": "string", "enum": NAMES["sizing_rules"], "description": "a buffer-sizing rule in place of limit"},
        "scale": {"type": "number", "exclusiveMinimum": 0, "default": 1, "description": "multiplies the sizing rule"},
    }
    for disc in DISCIPLINES:
        for key, (plan_key, prop) in qdisc_keys(disc, skip=_RED_SPELLINGS).items():
            if key not in props:
                props[key] = engine_key(plan_key, prop)
    props["min_th"] = props["max_th"] = {"anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}], "description": "RED threshold of average queue: packets (a number or \"5pkt\") or bytes (\"30KB\")"}
    return _obj(props, description="a port's qdisc and its buffer; each discipline takes its own keys (docs/scenario-format.md)")


def _direction() -> dict[str, Any]:
    d = definition("DirSpec")["properties"]
    return {
        "rate": {**RATE, "description": describe_key(d["rate_bps"]).rstrip(".") + '; "trace(FILE)" sends at a Mahimahi trace\'s delivery opportunities (docs/links-trace.md)'},
        "delay": engine_key("delay_ns", d["delay_ns"]),
        "framing": {"type": "string", "enum": _enum("Framing"), "default": "none", "description": "what a packet costs on the wire"},
        "loss": engine_key("loss", d["loss"]),
        "queue": _queue(),
        "ring": _obj({"size": {"type": "integer", "minimum": 1}, "bql": {"anyOf": [{"enum": ["auto", "off"]}, SIZE]}}, ("size",), "a NIC transmit ring"),
    }


def _kind_props(kind: str) -> dict[str, Any]:
    """The plan properties of traffic kind ``kind`` (its ``TrafficSpec`` branch)."""
    for b in definition("TrafficSpec").get("oneOf", []):
        props = deref(b).get("properties", {})
        if props.get("kind", {}).get("const") == kind:
            return props
    raise KeyError(f"no traffic kind {kind!r} in the plan's schema")


def _traffic() -> dict[str, Any]:
    tcp = {k: engine_key(plan_key, prop) for k, (plan_key, prop) in tcp_keys().items()}
    tcp["mss"] = {**SIZE, "description": describe_key(tcp_keys()["mss"][1])}
    common = {
        "kind": {"type": "string", "enum": NAMES["kinds"]},
        "from": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}], "description": "sending node(s) or group"},
        "to": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}], "description": "receiving node(s) or group"},
        "start": {**DIST, "description": "when each source starts (a time or a distribution)"},
    }
    own = {
        "count": {"type": "integer", "minimum": 1, "default": 1, "description": "connections per pair"},
        "size": {"anyOf": [SIZE, DIST], "description": "bytes per transfer, or a distribution; \"inf\": bulk"},
        "arrival_rate": {"type": "string", "description": "new connections per unit time, e.g. \"1/s\" (Poisson)"},
        "idle": {**DIST, "description": "time between on/off transfers"},
        "rate": RATE,
        "arrivals": {"type": "string", "enum": _enum("Arrivals"), "default": "cbr"},
        "burst": _obj({"packets": {"type": "integer", "minimum": 1}, "every": TIME}, ("packets", "every")),
        "ttl": {"type": "integer", "minimum": 1, "maximum": 255},
        "stop": TIME,
        "interval": TIME,
        "auto": {"type": "boolean", "default": False, "description": "ballast: the automatic rate controller"},
        "target": TIME,
        "max_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.2},
        "period": TIME,
        "group": {"type": "string", "description": "a label for the block's flows (the flows table's group column)"},
        "proto": engine_key("proto", _kind_props("ping")["proto"]),
        "dscp": engine_key("dscp", _kind_props("udp")["dscp"]),
    }
    # The rrul test's own keys, as the plan declares them.
    for plan_key, prop in _kind_props("rrul").items():
        if plan_key not in ("pairs", "tcp", "group"):
            own[user_key(plan_key)] = engine_key(plan_key, prop)
    branches = []
    for kind, keys in _core.traffic_keys().items():
        props = {k: (common.get(k) or own[k]) for k in keys}
        props["kind"] = {"const": kind}
        if kind in TCP_KINDS:
            props.update(tcp)
        branches.append(_obj(props, ("kind", "from", "to"), f"a {kind} traffic block"))
    return {"type": "array", "items": {"oneOf": branches}}


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file."""
    direction = _obj(_direction())
    access = _direction()
    # A dumbbell's access delay may differ per pair: a list of delays or a distribution.
    access["delay"] = {"anyOf": [access["delay"], {"type": "array", "items": TIME}, DIST], "description": access["delay"]["description"]}
    run = definition("RunSpec")["properties"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "bufferlab scenario",
        "type": "object",
        "additionalProperties": False,
        "required": ["run"],
        "properties": {
            "description": {"type": "string"},
            "run": _obj({
                "duration": engine_key("duration_ns", run["duration_ns"]),
                "seed": {"type": "integer", "minimum": 0, "default": 1, "description": "every random stream derives from it"},
                "measure": {"type": "array", "items": TIME, "minItems": 2, "maxItems": 2, "description": "[start, end] of the statistics window"},
                "sample": {**TIME, "description": "record time series at this step"},
                "capture": {"type": "array", "items": {"type": "string"}, "description": describe_key(run["capture"])},
                "capture_snaplen": engine_key("capture_snaplen_bytes", run["capture_snaplen_bytes"]),
                "capture_limit": engine_key("capture_limit_bytes", run["capture_limit_bytes"]),
            }, ("duration",)),
            "topology": {
                "type": "object",
                "properties": {
                    "template": {"type": "string", "enum": NAMES["templates"]},
                    "pairs": {"type": "integer", "minimum": 1, "description": "dumbbell: sender/receiver pairs"},
                    "bottleneck": direction, "bottleneck_reverse": direction, "access": _obj(access),
                    "up": direction, "down": direction,
                    "groups": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
                },
            },
            "node": {"type": "array", "items": _obj({"name": {"type": "string"}}, ("name",))},
            "link": {"type": "array", "items": _obj({
                "between": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                **_direction(), "forward": direction, "reverse": direction,
            }, ("between",))},
            "traffic": _traffic(),
        },
    }


def sweep_schema() -> dict[str, Any]:
    """The JSON Schema of a sweep spec (docs/sweeps.md)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "bufferlab sweep spec",
        "type": "object",
        "additionalProperties": False,
        "required": ["base"],
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "base": {"type": "string", "description": "the scenario file the points start from"},
            "seeds": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "array", "items": {"type": "integer", "minimum": 0}}], "description": "seeds per point: a count or a list"},
            "set": {"type": "object", "description": "key path -> value, applied to every point"},
            "grid": {"type": "object", "additionalProperties": {"type": "array"}, "description": "key path -> values: every combination"},
            "zip": {"type": "object", "additionalProperties": {"type": "array"}, "description": "key path -> values: taken together"},
        },
    }


# ---------------------------------------------------------------- docs tables

BEGIN = "<!-- generated from the engine's parameter schema: `bufferlab schema --docs FILE` rewrites it -->"
END = "<!-- end of generated tables -->"


def _row(key: str, plan_key: str, prop: dict[str, Any]) -> str:
    p = deref(prop)
    default = _fmt_default(plan_key, prop.get("default"))
    if isinstance(default, bool):
        default = str(default).lower()
    bounds = _bounds_text(plan_key, p)
    doc = describe_key(prop).replace("|", "\\|")
    return f"| `{key}` | {'' if default is None else f'`{default}`'} | {bounds} | {doc} |"


def markdown_tables() -> str:
    """Every discipline's parameters and every TCP option: key, default, bounds, meaning."""
    lines = [BEGIN, "", "#### Discipline parameters", ""]
    for disc in DISCIPLINES:
        keys = qdisc_keys(disc, skip=_RED_SPELLINGS)
        if not keys:
            continue
        lines += [f"`{disc}`:", "", "| key | default | bounds | meaning |", "|---|---|---|---|"]
        lines += [_row(k, pk, p) for k, (pk, p) in keys.items()]
        lines.append("")
    lines += ["#### TCP options", "", "| key | default | bounds | meaning |", "|---|---|---|---|"]
    lines += [_row(k, pk, p) for k, (pk, p) in tcp_keys().items()]
    lines += ["", END]
    return "\n".join(lines)


def rewrite_docs(text: str) -> str:
    """``text`` with its generated tables replaced by current ones."""
    a, b = text.index(BEGIN), text.index(END) + len(END)
    return text[:a] + markdown_tables() + text[b:]


__all__ = ["scenario_schema", "sweep_schema", "markdown_tables", "rewrite_docs", "engine_key", "user_key"]
