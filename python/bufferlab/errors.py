"""The exceptions bufferlab raises, and the problem strings a scenario check returns."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Problem", "BufferlabError", "ScenarioError", "EngineError"]


class Problem(str):
    """One problem with a scenario: ``"<key path>: <what is wrong and how to fix it>"``.

    A ``str`` (so it prints, compares and sorts as its message) that also keeps its parts.
    """

    path: str
    message: str

    def __new__(cls, path: str, message: str) -> Problem:
        self = super().__new__(cls, f"{path}: {message}" if path else message)
        self.path = path
        self.message = message
        return self

    def __reduce__(self):  # keep the parts across pickling (process pools, Dask)
        return (Problem, (self.path, self.message))


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
