"""Every point of a sweep checked before any of it runs.

A typo'd key or a value the scenario checker refuses ("fast" for a rate, "-5pkt" for a limit)
would otherwise surface as failed runs, one per seed, after the good points had run. Each
distinct resolved scenario (one per point; the seed changes nothing the checker looks at) goes
through the same check as ``bufferlab validate`` -- the Python checks and the engine's -- and
every problem is reported with the swept values of the first point that has it. The same build
gives each point's cost estimate, so that a sweep can refuse a run as long as `bufferlab run`
would (a rate typed in Tbps for Mbps in one point of the grid).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..errors import Problem, ScenarioError
from .spec import Point

__all__ = ["check_points", "describe_point", "long_points"]


def describe_point(point: Point, number: int, total: int) -> str:
    """``point 3 of 8 (traffic[0].rate="fast", topology.up.queue.limit="10pkt")``."""
    values = ", ".join(f"{k}={json.dumps(v, sort_keys=True, default=str)}" for k, v in point.params.items())
    return f"point {number} of {total}" + (f" ({values})" if values else "")


def check_points(points: Iterable[Point], source: str | None = None) -> dict[str, float]:
    """Raise :class:`ScenarioError` naming the point and the key of every problem found in any
    point; when every point can run, return each point's estimated wall seconds per run (by
    ``point_id``; a point the engine cannot estimate is left out)."""
    from ..scenario import load_scenario
    from ..simulate import prepare_plan

    firsts: dict[str, Point] = {}
    for p in points:
        firsts.setdefault(p.point_id, p)
    found: dict[str, tuple[int, Point, int]] = {}
    wall_s: dict[str, float] = {}
    for number, p in enumerate(firsts.values(), 1):
        try:
            sc = load_scenario(p.scenario, engine_check=False)
            # The engine checks the plan as it builds it; the estimate comes from that build.
            prepared = prepare_plan(sc, origins=sc.origins, source=sc.source)
        except ScenarioError as e:
            for problem in e.problems:
                at, first, n = found.get(problem, (number, p, 0))
                found[problem] = (at, first, n + 1)
            continue
        try:
            wall_s[p.point_id] = float(json.loads(prepared.estimate())["wall_s"])
        except (ValueError, RuntimeError, KeyError):
            pass
    if not found:
        return wall_s
    total = len(firsts)
    out = []
    for problem, (number, p, n) in found.items():
        more = f" (and {n - 1} more point{'s' if n > 2 else ''})" if n > 1 else ""
        path = problem.path if isinstance(problem, Problem) else ""
        out.append(Problem(path, f"{problem.message if isinstance(problem, Problem) else problem} "
                                 f"-- in {describe_point(p, number, total)}{more}"))
    raise ScenarioError(out, source)


def long_points(points: Iterable[Point], wall_s: dict[str, float], bound_s: float) -> str | None:
    """``point 2 of 6 (…) is estimated at about 3.1 h a run (1 of 6 points over an hour; …)``:
    the longest of the points estimated at over ``bound_s`` wall seconds a run, or None."""
    from ..cost import bound_words, hms

    long = {pid: s for pid, s in wall_s.items() if s > bound_s}
    if not long:
        return None
    firsts = list(dict.fromkeys(p.point_id for p in points))
    worst = max(long, key=long.__getitem__)
    p = next(p for p in points if p.point_id == worst)
    return (f"{describe_point(p, firsts.index(worst) + 1, len(firsts))} is estimated at about "
            f"{hms(long[worst])} a run ({len(long)} of {len(firsts)} points over {bound_words(bound_s)}; `bufferlab "
            "validate` on the point's scenario says why)")


# What a sweep does with `run.capture`, and how to get the captures.
CAPTURE_NOTE = ("run.capture is set, but a sweep writes no packet captures (one pcap per point and seed would "
                "fill the results folder); capture one run with `bufferlab run FILE --seed S --out DIR` "
                "(its --capture, or the file's run.capture)")


def captures_ignored(points: Iterable[Point]) -> str | None:
    """:data:`CAPTURE_NOTE` when any point's scenario asks for packet captures, else None."""
    for p in points:
        run = p.scenario.get("run")
        if isinstance(run, dict) and run.get("capture"):
            return CAPTURE_NOTE
    return None
