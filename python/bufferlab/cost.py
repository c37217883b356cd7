"""What a run will cost, known before it is paid.

The engine estimates a built run (``Prepared.estimate()``: the packets its sources create, the
link transmissions, the events, and the wall time at this machine's measured speed). Beyond
:data:`LONG_RUN_S` a run is not started unless the caller says so: ``--yes`` on the command line,
``max_wall_s=None`` (or a larger bound) in :func:`bufferlab.run` and
:func:`bufferlab.sweep.run_sweep`. The refusal says how to shorten the run, and points at the
sources' rates when they create far more packets than the links carry (a ``10Tbps`` typed for
``10Mbps``).
"""

from __future__ import annotations

import json
from typing import Any

from .errors import LongRunError

# Beyond this estimated wall time a run waits for the caller's word.
LONG_RUN_S = 3600.0
# Packets created per link transmission beyond which the hint points at the sources' rates.
OVERLOAD = 100
# How the Python API sets the run's duration, for the hint.
API_DURATION = 'overrides={{"run.duration": "{}"}}'
# How an expanded plan (`bufferlab.run_plan`) sets it.
PLAN_DURATION = 'plan["run"]["duration_ns"] for {}'


def hms(seconds: float) -> str:
    """A wall time as a person would say it: ``4.2 s``, ``12 min``, ``1.5 h``."""
    if seconds < 60:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def bound_words(bound_s: float) -> str:
    """A wall-time bound in words: ``an hour`` for the default, else as :func:`hms` says it."""
    return "an hour" if bound_s == LONG_RUN_S else hms(bound_s)


def estimate(prepared: Any) -> dict[str, Any] | None:
    """The engine's estimate of a run's cost, from its built engine (``_core.Prepared``), or None
    if the engine cannot give one."""
    try:
        return json.loads(prepared.estimate())
    except (ValueError, RuntimeError):
        return None


def shorten_hint(duration_s: float, e: dict[str, Any], *, bound_s: float = LONG_RUN_S,
                 set_duration: str = '--set run.duration="{}"') -> str:
    """``estimated at about …; to shorten it, …``: the duration that fits ``bound_s`` at the
    estimated pace (``set_duration`` says how to set it), and the sources' rates when they
    create over :data:`OVERLOAD` times the packets the links carry."""
    target = duration_s * bound_s / max(e["wall_s"], 1e-9)
    fits = f"fits {bound_words(bound_s)}"
    hint = (
        f"estimated at about {hms(e['wall_s'])}; to shorten it, simulate less time "
        f"({set_duration.format(f'{max(target, 1):.0f}s')} {fits}) or fewer pairs/flows"
    )
    if e["packets"] > OVERLOAD * max(e["link_packets"], 1):
        hint += (f"; the sources create {e['packets'] / max(e['link_packets'], 1):,.0f}x the packets "
                 "the links carry (check the traffic rates' units)")
    return hint


def refuse_long(prepared: Any, duration_s: float, max_wall_s: float | None, source: str | None = None,
                *, set_duration: str = API_DURATION) -> None:
    """Raise :class:`~bufferlab.errors.LongRunError` if the built run is estimated at over
    ``max_wall_s`` wall seconds (None: no bound); the hint sets the duration as
    ``set_duration`` says."""
    if max_wall_s is None:
        return
    if not max_wall_s > 0:  # NaN too
        raise ValueError(f"max_wall_s={max_wall_s!r}: give a bound above 0 wall seconds, or None for none")
    e = estimate(prepared)
    if e is None or e["wall_s"] <= max_wall_s:
        return
    head = f"{source}: " if source else ""
    hint = shorten_hint(duration_s, e, bound_s=max_wall_s, set_duration=set_duration)
    raise LongRunError(f"{head}this run is {hint}; or pass max_wall_s=None to run it as it is",
                       e["wall_s"], estimate=e, duration_s=duration_s)
