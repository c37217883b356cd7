"""Key paths into a user-facing scenario: ``run.duration``, ``traffic[0].rate``.

A path is dot-separated names, each optionally followed by ``[i]`` indexes into an array, the
same spelling the scenario checker uses in its messages, so a failed point's error names the key
the sweep varied.
"""

from __future__ import annotations

import copy
import re
from typing import Any

__all__ = ["KeyPathError", "parse", "set_path"]

_SEGMENT = re.compile(r"([A-Za-z0-9_-]+)((?:\[\d+\])*)")
_INDEX = re.compile(r"\[(\d+)\]")


class KeyPathError(ValueError):
    """A key path that is malformed or does not fit the scenario it is applied to."""


def parse(path: str) -> list[str | int]:
    """``"traffic[0].rate"`` -> ``["traffic", 0, "rate"]``."""
    if not isinstance(path, str) or not path:
        raise KeyPathError("a key path is a non-empty string such as \"run.duration\"")
    steps: list[str | int] = []
    for part in path.split("."):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            raise KeyPathError(
                f'"{path}" is not a key path: write names joined by dots, with [i] for an '
                'array entry, e.g. "traffic[0].rate"'
            )
        steps.append(m.group(1))
        steps.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return steps


def _show(steps: list[str | int]) -> str:
    out = ""
    for s in steps:
        out += f"[{s}]" if isinstance(s, int) else (f".{s}" if out else s)
    return out


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set ``path`` in ``doc`` (in place) to a deep copy of ``value``.

    Missing tables along the way are created (so ``run.sample`` can be added to a scenario that
    has none); an array index must exist, and a step into something that is not a table or an
    array is refused.
    """
    steps = parse(path)
    node: Any = doc
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        here = _show(steps[:i]) or "the scenario"
        if isinstance(step, int):
            if not isinstance(node, list):
                raise KeyPathError(f"{path}: {here} is not an array, so [{step}] does not apply")
            if step >= len(node):
                raise KeyPathError(
                    f"{path}: {here} has {len(node)} entr{'y' if len(node) == 1 else 'ies'}, "
                    f"so index {step} is out of range"
                )
        else:
            if not isinstance(node, dict):
                raise KeyPathError(f"{path}: {here} is not a table, so .{step} does not apply")
            if not last and step not in node:
                node[step] = [] if isinstance(steps[i + 1], int) else {}
        if last:
            node[step] = copy.deepcopy(value)
        else:
            node = node[step]
