"""One run: a scenario (or its plan) into the engine and its result back, as ``simulate.rs`` on
the engine's side. The backends, sweeps and commands call it here; the package re-exports it
(``bufferlab.run``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from .cost import LONG_RUN_S, PLAN_DURATION, refuse_long
from .errors import EngineError, ScenarioError
from .main_guard import refuse_in_a_starting_worker
from .results import Result
from .scenario import PathOrDict, Scenario, engine_problems, load_scenario

__all__ = ["run", "run_plan", "prepare_plan", "run_prepared", "engine_version", "engine_build", "engine"]


def engine() -> Any:
    """The engine extension, ``bufferlab._core``; ImportError saying how to build it if it is not."""
    try:
        import bufferlab._core as core  # type: ignore[import-not-found]
    except ImportError as e:
        raise ImportError(
            "bufferlab's engine extension (bufferlab._core) is not built; "
            "run `make demo` or `maturin develop --release` in the source tree"
        ) from e
    return core


def engine_version() -> str:
    """The version of the Rust engine the package is linked with."""
    core = engine()
    v = getattr(core, "version", None)
    return v() if callable(v) else str(getattr(core, "__version__", "unknown"))


def engine_build() -> str:
    """How the engine was compiled: ``"release"`` (``make build``) or ``"pgo"`` (the
    profile-guided build of ``make pgo``; the same results, faster)."""
    b = getattr(engine(), "build", None)
    return b() if callable(b) else "release"


def run(
    scenario: PathOrDict | Scenario,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: Callable[..., Any] | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
    max_wall_s: float | None = LONG_RUN_S,
) -> Result:
    """Run a scenario (a TOML path, a dict, or a loaded :class:`Scenario`) and return its result.

    ``seed`` replaces the file's ``run.seed``; ``overrides`` sets keys first, by dotted path
    (``{"topology.bottleneck.queue.limit": "50pkt"}``); ``progress(sim_seconds)`` (or
    ``progress(sim_seconds, events)``) is called about every 0.2 s while the engine runs.
    The scenario's packet captures (``run.capture``) are written into the existing folder
    ``capture_dir`` (and copied by :meth:`Result.write`); without one, none is written.
    Raises :class:`ScenarioError` (with ``.problems``) for a
    scenario that cannot run, before the engine starts; Ctrl-C stops the engine
    (``KeyboardInterrupt``). A run the engine estimates at over ``max_wall_s`` wall seconds (an
    hour, as ``bufferlab run`` without ``--yes``) raises :class:`~bufferlab.errors.LongRunError`
    before it starts, saying how to shorten it; ``max_wall_s=None`` runs it whatever it costs.
    """
    refuse_in_a_starting_worker("bufferlab.run")
    if isinstance(scenario, Scenario):
        if seed is not None or overrides:
            doc = scenario.document
            scenario = load_scenario(doc, seed=seed, overrides=overrides, engine_check=False)
        sc = scenario
    else:
        # The engine checks the plan as it builds it: one check, one build.
        sc = load_scenario(scenario, seed=seed, overrides=overrides, engine_check=False)
    prepared = prepare_plan(sc.plan, origins=sc.origins, source=sc.source)
    refuse_long(prepared, sc.duration_s, max_wall_s, sc.source)
    return run_prepared(prepared, sc.plan, progress=progress, capture_dir=capture_dir)


def run_plan(
    plan: dict[str, Any],
    *,
    origins: list[tuple[str, str]] | None = None,
    source: str | None = None,
    progress: Callable[..., Any] | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
    max_wall_s: float | None = LONG_RUN_S,
) -> Result:
    """Run an already expanded plan (the engine's JSON form). Like :func:`run`, a plan the
    engine estimates at over ``max_wall_s`` wall seconds raises
    :class:`~bufferlab.errors.LongRunError` before it starts; ``max_wall_s=None`` runs it
    whatever it costs."""
    prepared = prepare_plan(plan, origins=origins, source=source)
    duration_ns = (plan.get("run") or {}).get("duration_ns") if isinstance(plan, dict) else None
    duration_s = duration_ns / 1e9 if isinstance(duration_ns, (int, float)) else 0.0
    refuse_long(prepared, duration_s, max_wall_s, source, set_duration=PLAN_DURATION)
    return run_prepared(prepared, plan, progress=progress, capture_dir=capture_dir)


def prepare_plan(plan: dict[str, Any] | Scenario, *, origins: list[tuple[str, str]] | None = None, source: str | None = None) -> Any:
    """Check and build a plan (or a loaded scenario's) once (``bufferlab._core.Prepared``:
    ``estimate()``, then run it with :func:`run_prepared`); :class:`ScenarioError` with the
    engine's problems, placed at the file's keys."""
    core = engine()
    try:
        return plan.prepare() if isinstance(plan, Scenario) else core.prepare(json.dumps(plan))
    except core.PlanError as e:
        raise ScenarioError(engine_problems(e.args[1], origins or []), source) from None
    except RuntimeError as e:
        raise EngineError(f"the engine failed: {e}") from e


def run_prepared(
    prepared: Any,
    plan: dict[str, Any],
    *,
    progress: Callable[..., Any] | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
) -> Result:
    """Run a plan built by :func:`prepare_plan`; its captures into ``capture_dir`` if given."""
    cb = _progress_adapter(progress)
    try:
        out = prepared.run(cb, None if capture_dir is None else os.fspath(capture_dir))
    except RuntimeError as e:
        raise EngineError(f"the engine failed: {e}") from e
    except OSError as e:
        raise EngineError(f"the packet capture cannot start: {e}") from e
    summary = out["summary"]
    if isinstance(summary, (str, bytes)):
        summary = json.loads(summary)
    return Result(
        summary, out.get("timeseries"), out.get("transfers"), plan=plan,
        distributions=out.get("distributions"), capture_dir=capture_dir,
    )


def _progress_adapter(progress: Callable[..., Any] | None) -> Callable[[float, int], Any] | None:
    """The engine calls ``progress(sim_seconds, events)``; a callback of one argument gets the
    simulated seconds only."""
    if progress is None:
        return None
    import inspect

    try:
        params = inspect.signature(progress).parameters.values()
    except (TypeError, ValueError):
        return progress
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params):
        return progress
    return lambda sim_s, _events: progress(sim_s)
