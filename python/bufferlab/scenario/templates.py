"""Topologies: the ``dumbbell`` and ``access`` templates, and explicit ``[[node]]``/``[[link]]``.

Each becomes the plan's explicit form: a node list and links with a ``forward`` (a -> b) and a
``reverse`` (b -> a) direction, plus named groups of nodes that traffic blocks may use.

dumbbell (Gorinsky et al. 2005, section 3.1): ``s1..sN -> r1 -> r2 -> d1..dN``. The bottleneck is ``r1 -> r2``
(``links[0]``); the reverse direction copies it unless ``[topology.bottleneck_reverse]`` says
otherwise. Access links default to twice the bottleneck rate and 0.5 ms, and pair i's access delay
applies to both of its access links, so its round-trip propagation time is
``2 * (2 * access_i + bottleneck)``. An access delay given as a distribution is drawn once per pair
from the run's seed by the engine (``_core.draw``: its sampler and random streams).

access: ``client`` and ``server`` joined by one link whose forward direction is ``[topology.up]``
and reverse ``[topology.down]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..units import UnitError, parse_dist
from ._check import Problems, Table, choice, describe, did_you_mean, integer, join, name
from .links import DIR_KEYS, complete, link_delay_ns, link_rate_bps, read_layer

MAX_PAIRS = 10_000
DEFAULT_ACCESS_DELAY_NS = 500_000  # 0.5 ms (SCENARIO-FORMAT, dumbbell template)


@dataclass
class Topology:
    nodes: list[str] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)
    # (plan path prefix, user key path) for translating the engine's messages back to the file.
    origins: list[tuple[str, str]] = field(default_factory=list)

    def add_link(self, a: str, b: str, fwd: dict[str, Any], rev: dict[str, Any], fwd_from: str, rev_from: str) -> None:
        i = len(self.links)
        self.links.append({"a": a, "b": b, "forward": fwd, "reverse": rev})
        self.origins.append((f"links[{i}].forward", fwd_from))
        self.origins.append((f"links[{i}].reverse", rev_from))


TEMPLATES = ("dumbbell", "access")


def read_topology(doc: Table, problems: Problems, seed: int) -> Topology | None:
    """The topology of the whole document (``doc`` is its top-level table)."""
    explicit = doc.has("node") or doc.has("link")
    if not doc.has("topology"):
        if explicit:
            return _explicit(doc, problems, None)
        problems.add("topology", 'missing (e.g. [topology] template = "dumbbell", or [[node]] and [[link]] tables)')
        return None
    raw = doc.raw("topology")
    if not isinstance(raw, dict):
        problems.add("topology", f'expected a table, got {describe(raw)} (e.g. [topology] template = "access")')
        return None
    template = raw.get("template")
    if template is None:
        t = Table(raw, "topology", problems, ("groups", "node", "link"))
        if explicit and (t.has("node") or t.has("link")):
            problems.add("topology.node", "give [[node]]/[[link]] either at the top level or in [topology], not both")
            return None
        if not explicit and not (t.has("node") or t.has("link")):
            problems.add("topology.template", 'missing: give a template ("dumbbell" or "access") or [[node]] and [[link]] tables')
            return None
        return _explicit(doc if explicit else t, problems, t)
    try:
        choice(*TEMPLATES)(template)
    except UnitError as e:
        problems.add("topology.template", str(e))
        return None
    if explicit:
        problems.add("node" if doc.has("node") else "link", f'[[node]]/[[link]] cannot be combined with template = "{template}"')
    if template == "dumbbell":
        return _dumbbell(raw, problems, seed)
    return _access(raw, problems)


# ---------------------------------------------------------------- dumbbell

_BOTTLENECK_KEYS = DIR_KEYS
_ACCESS_KEYS = DIR_KEYS


def _dumbbell(raw: dict[str, Any], problems: Problems, seed: int) -> Topology | None:
    t = Table(raw, "topology", problems, ("template", "pairs", "bottleneck", "bottleneck_reverse", "access"))
    pairs = t.get("pairs", integer(1, MAX_PAIRS, "a number of sender/receiver pairs"), 1)
    bt = t.sub("bottleneck", _BOTTLENECK_KEYS, example='{ rate = "10Mbps", delay = "50ms" }')
    if bt is None:
        problems.add("topology.bottleneck", 'missing (e.g. [topology.bottleneck] rate = "10Mbps", delay = "50ms")')
        return None
    base = read_layer(bt)
    fwd = complete(base, "topology.bottleneck", problems)
    rt = t.sub("bottleneck_reverse", _BOTTLENECK_KEYS)
    rev_layer = read_layer(rt) if rt is not None else {}
    # A key missing from both is reported once, at the bottleneck.
    rev = complete({**base, **rev_layer}, "topology.bottleneck", problems)

    at = t.sub("access", _ACCESS_KEYS)
    acc_layer = read_layer_access(at, pairs or 1, seed) if at is not None else ({}, None)
    layer, delays = acc_layer
    if pairs is None:
        return None
    if "rate_bps" not in layer:
        layer["rate_bps"] = 2 * fwd["rate_bps"] if fwd["rate_bps"] else None
    if delays is None:
        d = layer.get("delay_ns", DEFAULT_ACCESS_DELAY_NS)
        delays = [d] * pairs
    layer.pop("delay_ns", None)

    topo = Topology()
    senders = [f"s{i}" for i in range(1, pairs + 1)]
    receivers = [f"d{i}" for i in range(1, pairs + 1)]
    topo.nodes = senders + ["r1", "r2"] + receivers
    topo.groups = {"senders": senders, "receivers": receivers}
    topo.add_link("r1", "r2", fwd, rev, "topology.bottleneck", "topology.bottleneck_reverse" if rt else "topology.bottleneck")
    for i in range(pairs):
        spec = complete({**layer, "delay_ns": delays[i]}, "topology.access", problems)
        # Both access links of a pair, both directions, carry the same rate and delay.
        topo.add_link(senders[i], "r1", spec, dict(spec), "topology.access", "topology.access")
        topo.add_link("r2", receivers[i], dict(spec), dict(spec), "topology.access", "topology.access")
    return topo


def read_layer_access(t: Table, pairs: int, seed: int) -> tuple[dict[str, Any], list[int] | None]:
    """The access table: a direction layer whose ``delay`` may also be a list or a distribution."""
    delay = t.raw("delay")
    if delay is None or isinstance(delay, str) and "(" not in delay:
        return read_layer(t), None
    rest = {k: v for k, v in t.data.items() if k != "delay"}
    layer = read_layer(Table(rest, t.path, t.problems, DIR_KEYS))
    path = t.at("delay")
    if isinstance(delay, list):
        if len(delay) != pairs:
            t.problems.add(path, f"gives {len(delay)} delays for {pairs} pairs (give one per pair, or a single delay)")
            return layer, None
        out: list[int] = []
        for i, v in enumerate(delay):
            try:
                out.append(link_delay_ns(v))
            except UnitError as e:
                t.problems.add(join(path, i), str(e))
        return layer, out if len(out) == pairs else None
    try:
        dist = parse_dist(delay, "time")
    except UnitError as e:
        t.problems.add(path, str(e))
        return layer, None
    # Drawn once per pair from the run's seed, by the engine's sampler and random family; the
    # resolved plan carries the values, so every backend (and ns-3) builds the same RTTs.
    from .. import _core  # type: ignore[attr-defined]

    try:
        return layer, _core.draw(json.dumps(dist), seed, pairs)
    except ValueError as e:
        t.problems.add(path, str(e))
        return layer, None


# ---------------------------------------------------------------- access


def _access(raw: dict[str, Any], problems: Problems) -> Topology | None:
    t = Table(raw, "topology", problems, ("template", "up", "down"))
    up = t.sub("up", DIR_KEYS, example='{ rate = "800kbps", delay = "52ms" }')
    down = t.sub("down", DIR_KEYS, example='{ rate = "5Mbps", delay = "42ms" }')
    for key, sub, what in (("up", up, "client -> server"), ("down", down, "server -> client")):
        if sub is None:
            problems.add(f"topology.{key}", f'missing: the {what} direction (e.g. [topology.{key}] rate = "10Mbps", delay = "10ms")')
    if up is None or down is None:
        return None
    fwd = complete(read_layer(up), "topology.up", problems)
    rev = complete(read_layer(down), "topology.down", problems)
    topo = Topology(nodes=["client", "server"])
    topo.add_link("client", "server", fwd, rev, "topology.up", "topology.down")
    return topo


# ---------------------------------------------------------------- explicit


def _explicit(where: Table, problems: Problems, topo_table: Table | None) -> Topology | None:
    base = "" if where.path == "" else where.path
    topo = Topology()
    nodes_raw = where.raw("node")
    node_path = join(base, "node")
    if nodes_raw is None:
        problems.add(node_path, 'missing: declare each node, e.g. [[node]] name = "r1"')
        nodes_raw = []
    if not isinstance(nodes_raw, list):
        problems.add(node_path, 'expected a list of tables ([[node]] name = "r1")')
        nodes_raw = []
    for i, n in enumerate(nodes_raw):
        nt = Table(n, join(node_path, i), problems, ("name",), example='{ name = "r1" }')
        nm = nt.get("name", name, required=True, example='"r1"')
        if nm is None:
            continue
        if nm in topo.nodes:
            problems.add(nt.at("name"), f'"{nm}" is declared twice')
            continue
        topo.nodes.append(nm)
    known = set(topo.nodes)

    links_raw = where.raw("link")
    link_path = join(base, "link")
    if links_raw is None:
        problems.add(link_path, 'missing: join nodes with [[link]] between = ["a", "b"], rate, delay')
        links_raw = []
    if not isinstance(links_raw, list):
        problems.add(link_path, 'expected a list of tables ([[link]] between = ["a", "b"])')
        links_raw = []
    seen: set[frozenset[str]] = set()
    for i, lraw in enumerate(links_raw):
        path = join(link_path, i)
        lt = Table(lraw, path, problems, ("between",) + DIR_KEYS + ("forward", "reverse"))
        between = lt.raw("between")
        a = b = None
        if between is None:
            problems.add(lt.at("between"), 'missing (e.g. between = ["r1", "r2"])')
        elif not (isinstance(between, list) and len(between) == 2 and all(isinstance(x, str) for x in between)):
            problems.add(lt.at("between"), f'expected two node names, e.g. ["r1", "r2"], got {describe(between)}')
        else:
            a, b = between
            for j, nm in enumerate((a, b)):
                if nm not in known:
                    problems.add(join(lt.at("between"), j), _unknown_node(nm, topo.nodes))
            if a == b:
                problems.add(lt.at("between"), f'a link joins two different nodes, not "{a}" to itself')
            elif frozenset((a, b)) in seen:
                problems.add(lt.at("between"), f'a second link between "{a}" and "{b}" (one link per pair of nodes)')
            seen.add(frozenset((a, b)))
        common = read_layer(lt)
        ft = lt.sub("forward", DIR_KEYS)
        rt = lt.sub("reverse", DIR_KEYS)
        # A key missing from both the link and its direction is reported once, at the link.
        fwd = complete({**common, **(read_layer(ft) if ft else {})}, path, problems)
        rev = complete({**common, **(read_layer(rt) if rt else {})}, path, problems)
        if a is not None and b is not None:
            topo.add_link(a, b, fwd, rev, lt.at("forward") if ft else path, lt.at("reverse") if rt else path)

    if topo_table is not None and topo_table.has("groups"):
        gt = Table(topo_table.raw("groups"), "topology.groups", problems, topo_table.raw("groups") if isinstance(topo_table.raw("groups"), dict) else ())
        for g, members in gt.data.items():
            gp = gt.at(g)
            if g in known:
                problems.add(gp, f'"{g}" is already a node name')
                continue
            if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
                problems.add(gp, f'expected a non-empty list of node names, got {describe(members)}')
                continue
            for j, m in enumerate(members):
                if m not in known:
                    problems.add(join(gp, j), _unknown_node(m, topo.nodes))
            topo.groups[g] = list(members)
    return topo


def _unknown_node(nm: str, nodes: list[str]) -> str:
    return f'unknown node "{nm}"{did_you_mean(nm, nodes)}; declared: {", ".join(nodes) or "none"}'


def link_names(topo: Topology) -> list[str]:
    """Every link direction, named "FROM->TO" as in the results."""
    out = []
    for link in topo.links:
        out.append(f"{link['a']}->{link['b']}")
        out.append(f"{link['b']}->{link['a']}")
    return out


__all__ = ["Topology", "read_topology", "link_names", "TEMPLATES", "link_rate_bps"]
