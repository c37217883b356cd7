"""Running one scenario and seed in both simulators."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..scenario import Scenario
from .ns3env import program
from .options import Ns3Options
from .translate import matched_for_ns3, to_ns3

__all__ = ["Pair", "run_bufferlab", "run_ns3", "run_pair"]


@dataclass
class Pair:
    """One seed's summaries: bufferlab's and ns-3's (same fields), and their wall times."""

    seed: int
    bufferlab: dict[str, Any]
    ns3: dict[str, Any]
    bufferlab_wall_s: float
    ns3_wall_s: float


def run_bufferlab(sc: Scenario) -> tuple[dict[str, Any], float]:
    from ..simulate import run

    t0 = time.perf_counter()
    result = run(sc)
    return result.summary, time.perf_counter() - t0


def resolved_limits(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The limits bufferlab's engine resolved for sizing rules, by link direction."""
    return {q["link"]: {"limit_pkts": q.get("limit_pkts"), "limit_bytes": q.get("limit_bytes")} for q in summary.get("queues", [])}


def run_ns3(config: dict[str, Any], exe: Path | None = None) -> tuple[dict[str, Any], float]:
    exe = exe or program()
    with tempfile.TemporaryDirectory(prefix="bufferlab-ns3-") as tmp:
        cfg = Path(tmp) / "config.json"
        out = Path(tmp) / "result.json"
        cfg.write_text(json.dumps(config))
        t0 = time.perf_counter()
        r = subprocess.run([str(exe), str(cfg), str(out)], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise RuntimeError(f"ns-3 failed (exit {r.returncode}): {r.stderr.strip()[-2000:]}")
        return json.loads(out.read_text()), wall


def run_pair(sc: Scenario, seed: int, exe: Path | None = None, options: Ns3Options | None = None) -> Pair:
    """bufferlab with ``seed``, then ns-3 with RngRun ``seed`` and the buffers bufferlab resolved
    (``options``: ns-3 rules put back, options.py)."""
    from ..scenario import load_scenario

    # ns-3 has neither RACK nor F-RTO: bufferlab runs without them where the file leaves them out.
    seeded = load_scenario(matched_for_ns3(sc.document), seed=seed)
    seeded.source, seeded.origins = sc.source, sc.origins
    bl, bl_wall = run_bufferlab(seeded)
    # Paired: ns-3's bulk flows start when bufferlab's did (the seed's draws are bufferlab's).
    starts = {f["id"]: f["start_s"] for f in bl.get("flows", []) if f.get("start_s") is not None}
    config = to_ns3(seeded, limits=resolved_limits(bl), seed=seed, options=options, starts=starts)
    ns, ns_wall = run_ns3(config, exe)
    return Pair(seed, bl, ns, bl_wall, ns_wall)
