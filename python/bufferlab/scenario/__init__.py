"""Scenario files: load, check, and expand into the engine's plan.

A scenario (TOML file or dict, see SCENARIO-FORMAT) is checked as a whole -- every problem is
reported at once, each with its key path and a fix -- and then expanded into the plan the engine
takes (``crates/bufferlab-core/src/scenario.rs``): explicit nodes and links, quantities as
integers in base units with the unit in the key name, traffic groups expanded to pairs.

    >>> sc = load_scenario("udp-fifo.toml")          # doctest: +SKIP
    >>> sc.plan["links"][0]["forward"]["rate_bps"]   # doctest: +SKIP
    10000000

Every engine parameter's bounds, default and doc live once, in the engine's plan types (see
``bufferlab._core.plan_schema``); the engine checks them, with what only it knows (routes, sizing
rules), and its problems come back with their key path as data, placed at the file's keys.
"""

from __future__ import annotations

import copy
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Problem, ScenarioError, parse_path
from ..units import NS_PER_S, UnitError, parse_time_ns
from ._check import Problems, Table, describe, integer, join
from .schema import user_key
from .templates import Topology, link_names, read_topology
from .traffic import read_traffic

__all__ = [
    "Scenario",
    "load_scenario",
    "loads_scenario",
    "validate",
    "read_document",
    "apply_overrides",
    "build_plan",
    "DEFAULT_SEED",
]

DEFAULT_SEED = 1
TOP_KEYS = ("description", "run", "topology", "node", "link", "traffic")
RUN_KEYS = ("duration", "seed", "measure", "sample")

PathOrDict = str | os.PathLike[str] | Mapping[str, Any]


@dataclass
class Scenario:
    """A checked scenario and its plan."""

    plan: dict[str, Any]
    document: dict[str, Any]
    source: str | None = None
    groups: dict[str, list[str]] = field(default_factory=dict)
    origins: list[tuple[str, str]] = field(default_factory=list)

    def plan_json(self) -> str:
        return json.dumps(self.plan, sort_keys=True)

    @property
    def seed(self) -> int:
        return int(self.plan["run"]["seed"])

    @property
    def duration_s(self) -> float:
        return self.plan["run"]["duration_ns"] / NS_PER_S

    @property
    def nodes(self) -> list[str]:
        return list(self.plan["nodes"])

    @property
    def link_names(self) -> list[str]:
        """Every link direction, ``"FROM->TO"``, as the results name them."""
        return link_names(Topology(links=self.plan["links"]))


# ---------------------------------------------------------------- reading


def read_document(path_or_dict: PathOrDict) -> tuple[dict[str, Any], str | None]:
    """The scenario document (a fresh copy) and a name for messages; ``ScenarioError`` if unreadable."""
    if isinstance(path_or_dict, Mapping):
        return copy.deepcopy(dict(path_or_dict)), None
    if not isinstance(path_or_dict, (str, os.PathLike)):
        raise TypeError(f"expected a path or a dict, got {type(path_or_dict).__name__}")
    path = Path(path_or_dict)
    src = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError([Problem("", f"{src}: no such file")]) from None
    except IsADirectoryError:
        raise ScenarioError([Problem("", f"{src}: is a directory, not a scenario file")]) from None
    except OSError as e:
        raise ScenarioError([Problem("", f"{src}: cannot read it ({e.strerror})")]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError([Problem("", f"{src}: not UTF-8 text (byte {e.start})")]) from None
    return _parse_toml(text, src), src


def _parse_toml(text: str, src: str | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        where = f"{src}: " if src else ""
        raise ScenarioError([Problem("", f"{where}not valid TOML: {e}")], src) from None


def apply_overrides(doc: dict[str, Any], overrides: Mapping[str, Any]) -> list[Problem]:
    """Set ``"topology.bottleneck.rate" = "20Mbps"``-style overrides in ``doc`` (in place).

    Paths are dotted keys, with ``[i]`` or ``.i`` for the i-th table of a list
    (``traffic[0].cc``). Missing tables are created; a missing list element is a problem.
    """
    problems: list[Problem] = []
    for key, value in overrides.items():
        try:
            steps = list(parse_path(key))
            if not steps:
                raise ValueError(key)
        except ValueError:
            problems.append(Problem(key, 'not a key path (e.g. "topology.bottleneck.rate" or "traffic[0].cc")'))
            continue
        node: Any = doc
        where = ""
        for j, step in enumerate(steps):
            last = j == len(steps) - 1
            if isinstance(step, int):
                if not isinstance(node, list) or step >= len(node):
                    n = len(node) if isinstance(node, list) else 0
                    problems.append(Problem(key, f"{where or 'document'} has {n} entries, no [{step}]"))
                    break
                if last:
                    node[step] = value
                else:
                    node = node[step]
                where = join(where, step)
                continue
            if not isinstance(node, dict):
                problems.append(Problem(key, f"{where} is {describe(node)}, not a table"))
                break
            if last:
                node[step] = value
            else:
                nxt = node.get(step)
                if nxt is None:
                    nxt = node[step] = [] if isinstance(steps[j + 1], int) else {}
                node = nxt
            where = join(where, step)
    return problems


# ---------------------------------------------------------------- checking and expansion


def _run(doc: Table, problems: Problems, seed: int | None) -> tuple[dict[str, Any], int | None]:
    rt = doc.sub("run", RUN_KEYS, example='{ duration = "60s", seed = 1 }')
    if rt is None:
        problems.add("run", 'missing (e.g. [run] duration = "60s")')
        return {}, None
    # Its bounds (longer than zero, at most 30 days) are the engine's, reported with ours.
    duration = rt.get("duration", parse_time_ns, required=True, example='"60s"')
    run: dict[str, Any] = {"duration_ns": duration}
    file_seed = rt.get("seed", integer(0, 2**64 - 1, "a seed (a whole number >= 0)"), DEFAULT_SEED)
    run["seed"] = seed if seed is not None else file_seed
    if rt.has("measure"):
        run["measure_ns"] = _measure(rt, duration)
    if rt.has("sample"):
        # Longer than zero, and at most ten million samples per series: the engine's checks.
        run["sample_ns"] = rt.get("sample", parse_time_ns)
    return run, duration


def _measure(rt: Table, duration: int | None) -> list[int] | None:
    raw = rt.raw("measure")
    if not (isinstance(raw, list) and len(raw) == 2):
        rt.problem("measure", f'expected a window [start, end], e.g. ["10s", "60s"], got {describe(raw)}')
        return None
    ends: list[int] = []
    for j, v in enumerate(raw):
        try:
            ends.append(parse_time_ns(v))
        except UnitError as e:
            rt.problems.add(join(rt.at("measure"), j), str(e))
    if len(ends) != 2:
        return None
    a, b = ends
    if a >= b:
        rt.problem("measure", f'the window ends before it starts (try ["{raw[1]}", "{raw[0]}"])' if a > b else "the window is empty")
        return None
    if duration is not None and b > duration:
        rt.problem("measure", f'the window ends at {raw[1]}, after the run (duration {rt.raw("duration")})')
        return None
    return ends


def build_plan(doc: dict[str, Any], *, seed: int | None = None) -> tuple[dict[str, Any] | None, list[Problem], list[tuple[str, str]], dict[str, list[str]]]:
    """Check ``doc`` and expand it: (plan or None, problems, origins, groups)."""
    problems = Problems()
    top = Table(doc, "", problems, TOP_KEYS)
    if top.has("description") and not isinstance(top.raw("description"), str):
        problems.add("description", "expected a string")
    run, _ = _run(top, problems, seed)
    topo_seed = run.get("seed", DEFAULT_SEED)
    topo = read_topology(top, problems, topo_seed if isinstance(topo_seed, int) else DEFAULT_SEED)
    traffic, t_origins = read_traffic(top, topo, problems)
    origins = [("run", "run")] + (topo.origins if topo else []) + t_origins
    if problems or topo is None:
        # One pass: the bounds of what could be read are reported with the reader's problems.
        partial = {"run": run, "nodes": topo.nodes if topo else [], "links": topo.links if topo else [], "traffic": traffic}
        return None, _with_bounds(list(problems.items), partial, origins), [], {}
    plan = {"run": run, "nodes": topo.nodes, "links": topo.links, "traffic": traffic}
    return plan, [], origins, topo.groups


def _with_bounds(found: list[Problem], partial: dict[str, Any], origins: list[tuple[str, str]]) -> list[Problem]:
    """``found`` and the engine's bound problems of a partial plan, each key reported once."""
    try:
        from .. import _core  # type: ignore[attr-defined]

        bounds = engine_problems(_core.check_bounds(json.dumps(partial)), origins)
    except (ImportError, AttributeError, TypeError, ValueError):
        return found
    seen = {p.path for p in found}
    return found + [p for p in bounds if p.path not in seen]


def _engine_check(plan: dict[str, Any], origins: list[tuple[str, str]]) -> list[Problem]:
    """The engine's own check of the plan, its problems placed at the file's keys."""
    try:
        from .. import _core  # type: ignore[attr-defined]
    except ImportError:
        return []
    check = getattr(_core, "check", None)
    if check is None:
        return []
    return engine_problems(check(json.dumps(plan)), origins)


def engine_problems(problems: list[tuple[list[str | int], str]], origins: list[tuple[str, str]]) -> list[Problem]:
    """The engine's (loc, message) problems at the file's keys, each once (both directions of a
    template's link map to one key)."""
    return list(dict.fromkeys(translate_loc(loc, msg, origins) for loc, msg in problems))


def translate_loc(loc: list[str | int] | tuple[str | int, ...], message: str, origins: list[tuple[str, str]]) -> Problem:
    """A problem the engine found at plan key path ``loc``, placed at the scenario file's key.

    ``origins`` maps plan paths (``"links[3].forward"``, ``"traffic[0]"``) to the file's
    (``"topology.bottleneck"``, ``"traffic[0]"``); below them the plan's keys become the file's by
    dropping the tables the file does not have (``qdisc``, ``tcp``) and the unit in the name
    (``target_ns`` -> ``target``).
    """
    loc = tuple(loc)
    best = max(
        ((o, len(_steps(o[0]))) for o in origins if loc[: len(_steps(o[0]))] == _steps(o[0])),
        key=lambda x: x[1],
        default=None,
    )
    if best is None:
        return Problem(tuple(user_key(s) if isinstance(s, str) else s for s in loc), message)
    (_, user), n = best
    tail: list[str | int] = []
    rest = loc[n:]
    for step in rest:
        if step == "tcp":
            continue
        if step == "qdisc":  # the discipline's keys sit in the file's queue table
            continue
        if tail and tail[-1] == "bql" and step == "fixed":  # the file gives the byte limit itself
            continue
        if tail and tail[-1] == "sizing" and step in ("rule", "scale"):
            if step == "scale":  # the file's scale sits beside sizing
                tail[-1] = "scale"
            continue
        tail.append(user_key(step) if isinstance(step, str) else step)
    return Problem(_steps(user) + tuple(tail), message)


def _steps(path: str) -> tuple[str | int, ...]:
    return parse_path(path)


def translate(message: str, origins: list[tuple[str, str]]) -> Problem:
    """:func:`translate_loc` for a ``"plan.path: message"`` line."""
    path, sep, rest = message.partition(": ")
    if not sep or " " in path:
        return Problem("", message)
    return translate_loc(parse_path(path), rest, origins)


def loads_scenario(
    text: str, *, seed: int | None = None, overrides: Mapping[str, Any] | None = None, engine_check: bool = True
) -> Scenario:
    """A scenario from TOML text."""
    return load_scenario(_parse_toml(text, None), seed=seed, overrides=overrides, engine_check=engine_check)


def load_scenario(
    path_or_dict: PathOrDict,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    engine_check: bool = True,
) -> Scenario:
    """Read, check and expand a scenario; raises :class:`ScenarioError` listing every problem.

    ``seed`` replaces ``run.seed``; ``overrides`` sets keys first (``{"topology.pairs": 20}``).
    """
    doc, src = read_document(path_or_dict)
    _refuse_sweep_spec(doc, src)
    if seed is not None:
        try:
            integer(0, 2**64 - 1)(seed)
        except UnitError as e:
            raise ScenarioError([Problem("seed", str(e))], src) from None
    if overrides:
        bad = apply_overrides(doc, overrides)
        if bad:
            raise ScenarioError(bad, src)
    plan, problems, origins, groups = build_plan(doc, seed=seed)
    if plan is None:
        raise ScenarioError(problems, src)
    if engine_check:
        found = _engine_check(plan, origins)
        if found:
            raise ScenarioError(found, src)
    return Scenario(plan=plan, document=doc, source=src, groups=groups, origins=origins)


SWEEP_KEYS = ("base", "grid", "zip", "seeds")


def _refuse_sweep_spec(doc: dict[str, Any], src: str | None) -> None:
    """A sweep spec given where a scenario goes: say which command takes it."""
    if "base" in doc and "topology" not in doc and any(k in doc for k in SWEEP_KEYS[1:] + ("set",)):
        name = src or "SPEC"
        raise ScenarioError([Problem("", f"{name} is a sweep spec (it has base and "
                                         f"{', '.join(k for k in ('grid', 'zip', 'seeds', 'set') if k in doc)}), "
                                         f"not a scenario: run it with `bufferlab sweep {name} --out DIR`")], src)


def validate(path_or_dict: PathOrDict, *, seed: int | None = None, overrides: Mapping[str, Any] | None = None) -> list[Problem]:
    """Every problem with a scenario (an empty list when it can run)."""
    try:
        load_scenario(path_or_dict, seed=seed, overrides=overrides)
    except ScenarioError as e:
        return e.problems
    return []
