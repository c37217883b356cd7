"""Reading a scenario table key by key while collecting every problem with its key path.

The loader never stops at the first problem: each reader records what is wrong in a shared
:class:`Problems` list and returns ``None`` for that value, and the plan is only built when the
list stays empty.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from ..errors import Problem
from ..units import UnitError

T = TypeVar("T")

Parser = Callable[[Any], T]


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean "x"?)`` for the closest choice, or ``""``."""
    choices = list(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        lower = {c.lower(): c for c in choices}
        close = [lower[c] for c in difflib.get_close_matches(word.lower(), list(lower), n=1, cutoff=0.6)]
    return f' (did you mean "{close[0]}"?)' if close else ""


def describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


class Problems:
    """Every problem found so far."""

    def __init__(self) -> None:
        self.items: list[Problem] = []
        # Paths that are not tables where tables belong: nothing under them is reported again.
        self.not_tables: set[str] = set()

    def add(self, path: str, message: str) -> None:
        if any(path.startswith(t + ".") for t in self.not_tables):
            return
        p = Problem(path, message)
        if p not in self.items:
            self.items.append(p)

    def not_a_table(self, path: str, message: str) -> None:
        self.add(path, message)
        self.not_tables.add(path)

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)


class Table:
    """A TOML table being read: known keys are taken with a parser, unknown ones are reported.

    ``unsupported`` names keys the format reserves but this version cannot honour yet; they are
    refused with a message rather than ignored.
    """

    def __init__(
        self,
        data: Any,
        path: str,
        problems: Problems,
        keys: Iterable[str],
        unsupported: Mapping[str, str] | None = None,
        example: str | None = None,
    ) -> None:
        self.path = path
        self.problems = problems
        self.keys = tuple(keys)
        self.ok = isinstance(data, dict)
        if not self.ok:
            hint = f" (e.g. {example})" if example else ""
            problems.not_a_table(path, f"expected a table, got {describe(data)}{hint}")
            data = {}
        self.data: dict[str, Any] = data
        unsupported = unsupported or {}
        for key in data:
            if key in self.keys:
                continue
            if key in unsupported:
                problems.add(join(path, key), f"not supported yet: {unsupported[key]}")
                continue
            problems.add(
                join(path, key),
                f"unknown key{did_you_mean(str(key), self.keys)}; known keys here: {', '.join(self.keys)}",
            )

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def at(self, key: str) -> str:
        return join(self.path, key)

    def get(
        self,
        key: str,
        parse: Parser[T],
        default: T | None = None,
        *,
        required: bool = False,
        example: str | None = None,
    ) -> T | None:
        """The parsed value of ``key``; ``default`` when absent; ``None`` (and a problem) when bad."""
        if key not in self.data:
            if required:
                ex = f" (e.g. {key} = {example})" if example else ""
                self.problems.add(self.at(key), f"missing{ex}")
            return default
        return self.parse(key, self.data[key], parse)

    def parse(self, key: str, value: Any, parse: Parser[T]) -> T | None:
        try:
            return parse(value)
        except UnitError as e:
            self.problems.add(self.at(key), str(e))
            return None

    def sub(
        self,
        key: str,
        keys: Iterable[str],
        unsupported: Mapping[str, str] | None = None,
        example: str | None = None,
    ) -> Table | None:
        """The sub-table ``key`` (``None`` when absent)."""
        if key not in self.data:
            return None
        return Table(self.data[key], self.at(key), self.problems, keys, unsupported, example)

    def problem(self, key: str | None, message: str) -> None:
        self.problems.add(self.at(key) if key else self.path, message)


# ---------------------------------------------------------------- plain value parsers


def integer(lo: int | None = None, hi: int | None = None, what: str = "a whole number") -> Parser[int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UnitError(f"expected {what}, got {describe(value)}")
        if isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                raise UnitError(f"expected {what}, got {value}")
            value = int(value)
        if lo is not None and value < lo:
            raise UnitError(f"{value} is too small (at least {lo})")
        if hi is not None and value > hi:
            raise UnitError(f"{value} is too large (at most {hi})")
        return value

    return parse


def number(
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    what: str = "a number",
) -> Parser[float]:
    def parse(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if isinstance(value, str):
                try:
                    float(value)
                except ValueError:
                    pass
                else:
                    raise UnitError(f"expected {what}, got the string {describe(value)} (write it without quotes)")
            raise UnitError(f"expected {what}, got {describe(value)}")
        x = float(value)
        if not math.isfinite(x):
            raise UnitError(f"expected {what}, got {value}")
        if lo is not None and (x < lo or (lo_open and x == lo)):
            raise UnitError(f"{value} is out of range (must be {'>' if lo_open else '>='} {lo:g})")
        if hi is not None and (x > hi or (hi_open and x == hi)):
            raise UnitError(f"{value} is out of range (must be {'<' if hi_open else '<='} {hi:g})")
        return x

    return parse


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        if isinstance(value, str) and value.lower() in ("true", "false"):
            raise UnitError(f"expected true or false, got the string {describe(value)} (write {value.lower()} without quotes)")
        raise UnitError(f"expected true or false, got {describe(value)}")
    return value


def choice(*choices: str) -> Parser[str]:
    def parse(value: Any) -> str:
        if not isinstance(value, str):
            raise UnitError(f"expected one of {', '.join(map(describe, choices))}, got {describe(value)}")
        if value not in choices:
            normal = value.strip().lower().replace("-", "_")
            for c in choices:
                if c.lower().replace("-", "_") == normal:
                    raise UnitError(f'"{value}" is not one of {", ".join(map(describe, choices))} (try "{c}")')
            raise UnitError(
                f'"{value}" is not one of {", ".join(map(describe, choices))}{did_you_mean(value, choices)}'
            )
        return value

    return parse


def name(value: Any) -> str:
    """A node or group name: a non-empty string without whitespace or ``->``."""
    if not isinstance(value, str):
        raise UnitError(f"expected a name (a string), got {describe(value)}")
    if not value or any(c.isspace() for c in value) or "->" in value or "," in value:
        raise UnitError(f'"{value}" is not a usable name (no spaces, commas or "->")')
    return value
