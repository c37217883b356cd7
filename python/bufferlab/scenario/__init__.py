"""Scenario files: load, check, and expand into the engine's plan.

The engine reads the scenario (``crates/bufferlab-core/src/file/``): units, templates, groups,
per-pair lists, ``--set`` overrides and every check, each key against its one declaration in the
plan's types, every problem at once and born with its file key. This module parses the TOML
(or takes a dict), hands the document over once, and keeps what Python needs of the answer:

    >>> sc = load_scenario("udp-fifo.toml")          # doctest: +SKIP
    >>> sc.plan["links"][0]["forward"]["rate_bps"]   # doctest: +SKIP
    10000000
"""

from __future__ import annotations

import copy
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import _core  # type: ignore[attr-defined]
from ..errors import Problem, ScenarioError, parse_path

__all__ = [
    "Scenario",
    "load_scenario",
    "loads_scenario",
    "validate",
    "read_document",
    "apply_overrides",
    "engine_problems",
    "translate_loc",
    "translate",
    "DEFAULT_SEED",
    "NAMES",
    "TCP_KINDS",
]

DEFAULT_SEED: int = _core.DEFAULT_SEED
#: The names the file takes, each declared once in the engine: disciplines, sizing rules,
#: distribution laws, traffic kinds, the kinds that run TCP, topology templates.
NAMES: dict[str, list[str]] = _core.file_names()
TCP_KINDS: tuple[str, ...] = tuple(NAMES["tcp_kinds"])

PathOrDict = str | os.PathLike[str] | Mapping[str, Any]
NS_PER_S = 1_000_000_000


class Scenario:
    """A checked scenario and its plan.

    The plan stays on the engine's side until Python asks for it (``plan``): checking and running
    a scenario then costs no JSON either way. A plan given as a dict (or changed through
    ``plan``) is what runs.
    """

    def __init__(
        self,
        plan: dict[str, Any] | None = None,
        document: dict[str, Any] | None = None,
        source: str | None = None,
        groups: dict[str, list[str]] | None = None,
        origins: list[tuple[str, str]] | None = None,
        *,
        handle: Any = None,
    ) -> None:
        if plan is None and handle is None:
            raise TypeError("a Scenario needs a plan")
        self._plan = plan
        self._handle = handle
        self.document = document if document is not None else {}
        self.source = source
        self.groups = groups or {}
        self.origins = origins or []

    @property
    def plan(self) -> dict[str, Any]:
        if self._plan is None:
            self._plan = json.loads(self._handle.json())
        return self._plan

    @plan.setter
    def plan(self, value: dict[str, Any]) -> None:
        self._plan = value

    def prepare(self) -> Any:
        """Check and build it once (``_core.Prepared``); ``_core.PlanError`` with the engine's
        problems."""
        if self._plan is None:
            return self._handle.prepare()
        return _core.prepare(json.dumps(self._plan))

    def counts(self) -> tuple[int, int, int]:
        """(nodes, link directions, traffic blocks)."""
        if self._plan is None:
            return tuple(self._handle.counts())  # type: ignore[return-value]
        p = self._plan
        return len(p["nodes"]), 2 * len(p["links"]), len(p["traffic"])

    def plan_json(self) -> str:
        return json.dumps(self.plan, sort_keys=True)

    @property
    def seed(self) -> int:
        if self._plan is None:
            return int(self._handle.run_spec()[1])
        return int(self.plan["run"]["seed"])

    @property
    def duration_s(self) -> float:
        if self._plan is None:
            return self._handle.run_spec()[0] / NS_PER_S
        return self.plan["run"]["duration_ns"] / NS_PER_S

    @property
    def nodes(self) -> list[str]:
        return list(self.plan["nodes"])

    @property
    def link_names(self) -> list[str]:
        """Every link direction, ``"FROM->TO"``, as the results name them."""
        out = []
        for link in self.plan["links"]:
            out += [f"{link['a']}->{link['b']}", f"{link['b']}->{link['a']}"]
        return out

    def __repr__(self) -> str:
        return f"Scenario(source={self.source!r}, groups={list(self.groups)})"


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
    new, bad = _core.apply_overrides(doc, list(overrides.items()))
    doc.clear()
    doc.update(new)
    return [Problem(path, msg) for path, msg in bad]


def engine_problems(problems: list[tuple[list[str | int], str]], origins: list[tuple[str, str]]) -> list[Problem]:
    """The engine's (loc, message) problems at the file's keys, each once (both directions of a
    template's link map to one key)."""
    return [Problem(path, msg) for path, msg in _core.place_problems(problems, origins)]


def translate_loc(loc: list[str | int] | tuple[str | int, ...], message: str, origins: list[tuple[str, str]]) -> Problem:
    """A problem the engine found at plan key path ``loc``, placed at the scenario file's key."""
    return engine_problems([(list(loc), message)], origins)[0]


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
        bad = _seed_problem(seed)
        if bad:
            raise ScenarioError([Problem("seed", bad)], src)
        seed = int(seed)
    if overrides:
        # Applied once, here: the document kept is the one read.
        bad = apply_overrides(doc, overrides)
        if bad:
            raise ScenarioError(bad, src)
    # Files the scenario names (link traces) are relative to its own folder.
    folder = str(Path(src).parent) if src is not None else None
    plan, problems, groups, origins = _core.read_scenario(doc, None, seed, engine_check, folder)
    if plan is None:
        raise ScenarioError([Problem(path, msg) for path, msg in problems], src)
    return Scenario(handle=plan, document=doc, source=src, groups=dict(groups), origins=[tuple(o) for o in origins])


def _seed_problem(seed: Any) -> str | None:
    """What is wrong with a seed given beside the file (None: nothing)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, float)):
        return f"expected a whole number, got {seed!r}"
    if isinstance(seed, float) and not seed.is_integer():
        return f"expected a whole number, got {seed}"
    if seed < 0:
        return f"{int(seed)} is too small (at least 0)"
    if seed > 2**64 - 1:
        return f"{int(seed)} is too large (at most {2**64 - 1})"
    return None


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
