"""Every point of a sweep checked before any of it runs.

A typo'd key or a value the scenario checker refuses ("fast" for a rate, "-5pkt" for a limit)
would otherwise surface as failed runs, one per seed, after the good points had run. Each
distinct resolved scenario (one per point; the seed changes nothing the checker looks at) goes
through the same check as ``bufferlab validate`` -- the Python checks and the engine's -- and
every problem is reported with the swept values of the first point that has it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..errors import Problem, ScenarioError
from .spec import Point

__all__ = ["check_points", "describe_point"]


def describe_point(point: Point, number: int, total: int) -> str:
    """``point 3 of 8 (traffic[0].rate="fast", topology.up.queue.limit="10pkt")``."""
    values = ", ".join(f"{k}={json.dumps(v, sort_keys=True, default=str)}" for k, v in point.params.items())
    return f"point {number} of {total}" + (f" ({values})" if values else "")


def check_points(points: Iterable[Point], source: str | None = None) -> None:
    """Raise :class:`ScenarioError` naming the point and the key of every problem found in any
    point; return quietly when every point can run."""
    from ..scenario import load_scenario

    firsts: dict[str, Point] = {}
    for p in points:
        firsts.setdefault(p.point_id, p)
    found: dict[str, tuple[int, Point, int]] = {}
    for number, p in enumerate(firsts.values(), 1):
        try:
            load_scenario(p.scenario)
        except ScenarioError as e:
            for problem in e.problems:
                at, first, n = found.get(problem, (number, p, 0))
                found[problem] = (at, first, n + 1)
    if not found:
        return
    total = len(firsts)
    out = []
    for problem, (number, p, n) in found.items():
        more = f" (and {n - 1} more point{'s' if n > 2 else ''})" if n > 1 else ""
        path = problem.path if isinstance(problem, Problem) else ""
        out.append(Problem(path, f"{problem.message if isinstance(problem, Problem) else problem} "
                                 f"-- in {describe_point(p, number, total)}{more}"))
    raise ScenarioError(out, source)
