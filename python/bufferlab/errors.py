"""The exceptions bufferlab raises, and the problem strings a scenario check returns."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["Problem", "Loc", "loc_path", "parse_path", "BufferlabError", "ScenarioError", "EngineError"]


Loc = tuple[str | int, ...]


def loc_path(loc: Loc) -> str:
    """``("links", 0, "forward")`` -> ``"links[0].forward"``."""
    out = ""
    for step in loc:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out = f"{out}.{step}" if out else step
    return out


class Problem(str):
    """One problem with a scenario: ``"<key path>: <what is wrong and how to fix it>"``.

    A ``str`` (so it prints, compares and sorts as its message) that also keeps its parts:
    ``path`` (the key path as text), ``loc`` (the same as data: keys and list indices, as
    pydantic's ``loc``) and ``message``.
    """

    path: str
    message: str
    loc: Loc

    def __new__(cls, path: str | Loc, message: str) -> Problem:
        if isinstance(path, tuple):
            loc, path = path, loc_path(path)
        else:
            try:
                loc = parse_path(path)
            except ValueError:  # a message that names no key path
                loc = (path,)
        self = super().__new__(cls, f"{path}: {message}" if path else message)
        self.path = path
        self.message = message
        self.loc = loc
        return self

    def __reduce__(self):  # keep the parts across pickling (process pools, Dask)
        return (Problem, (self.loc, self.message))


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(path: str) -> Loc:
    """The steps of a key path (``"traffic[0].cc"``, also ``"traffic.0.cc"``); ``ValueError``
    if it is not one."""
    steps: list[str | int] = []
    pos = 0
    for m in _STEP.finditer(path):
        if m.start() != pos and path[pos:m.start()] != ".":
            raise ValueError(path)
        pos = m.end()
        if m.group(1) is not None:
            steps.append(int(m.group(1)) if m.group(1).isdigit() else m.group(1))
        else:
            steps.append(int(m.group(2)))
    if pos != len(path):
        raise ValueError(path)
    return tuple(steps)


class BufferlabError(Exception):
    """Base class of bufferlab's own errors."""


class ScenarioError(BufferlabError, ValueError):
    """A scenario that cannot run; ``.problems`` lists every problem found, each with its key path."""

    def __init__(self, problems: Iterable[str], source: str | None = None) -> None:
        self.problems: list[Problem] = [
            p if isinstance(p, Problem) else Problem("", str(p)) for p in problems
        ]
        self.source = source
        head = f"{source}: " if source else ""
        n = len(self.problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{head}{n} problem{'s' if n != 1 else ''} in the scenario:\n{lines}")

    def __reduce__(self):
        return (ScenarioError, (list(self.problems), self.source))


class EngineError(BufferlabError, RuntimeError):
    """The engine failed while running a scenario that passed every check (a bug: please report)."""


class LongRunError(BufferlabError):
    """A run, or a sweep's point, estimated to take longer than the caller's bound (``max_wall_s``
    of :func:`bufferlab.run` and :func:`bufferlab.sweep.run_sweep`, an hour by default); nothing
    was run. ``.wall_s`` is the estimate in wall seconds, ``.estimate`` the engine's whole
    estimate (None for a sweep), ``.duration_s`` the run's simulated seconds."""

    def __init__(self, message: str, wall_s: float, *, estimate: dict | None = None,
                 duration_s: float | None = None) -> None:
        super().__init__(message)
        self.wall_s = wall_s
        self.estimate = estimate
        self.duration_s = duration_s

    def __reduce__(self):
        return (_long_run_error, (str(self), self.wall_s, self.estimate, self.duration_s))


def _long_run_error(message: str, wall_s: float, estimate: dict | None, duration_s: float | None) -> LongRunError:
    return LongRunError(message, wall_s, estimate=estimate, duration_s=duration_s)
