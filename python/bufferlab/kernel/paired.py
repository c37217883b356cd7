"""Bulk TCP flows started when the kernel started them: a simulator run paired with a stored
kernel run of the same seed.

Kernel runs made before 2026-11-27 drew each bulk flow's start from its block's law with a
generator of their own, so a seed's starts differed between the backends (the kernel now takes the
simulator's draws, ``plan.bulk_starts``, as web and on/off flows did already, and a real
connection still begins some microseconds after its drawn time). Which of two flows starts first, and how full the queue is when
the second one's handshake measures its first RTT, can set a whole run: a BBR flow that starts
after a Cubic flow has filled four BDP of FIFO keeps a minimum RTT of 66-82 ms instead of 44 and
takes half as much again of the link (validation-linux-differences.md#bbr-cubic-fifo-4bdp). To
compare seed by seed, the simulator side can start each bulk flow when the kernel run started it:
each ``tcp`` block with a drawn start is split, in place and in order, into one block per flow
with that flow's recorded start as a constant. The flows keep their ids and their agents' places
(the engine keys each agent's random stream by its place), so every other draw of the run is the
one it would have been.
"""

from __future__ import annotations

from typing import Any

from .. import plan_types as pt


def with_kernel_starts(plan: dict[str, Any], flows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``plan`` (the engine's JSON form) with each drawn bulk start replaced by the start of the
    same flow in ``flows`` (a kernel run's summary flows: ``id``, ``start_s``); None when a flow to
    pair has no recorded start (a run stored before starts were kept)."""
    started = {f["id"]: f.get("start_s") for f in flows}
    blocks = pt.typed(plan).traffic
    ids: dict[int, list[tuple[str, list[str]]]] = {}
    for fid, b, src, dst in pt.flow_ids(plan):
        ids.setdefault(b, []).append((fid, [src, dst]))
    traffic: list[dict[str, Any]] = []
    for b, t in enumerate(plan["traffic"]):
        if not pt.drawn_bulk_start(blocks[b]):
            traffic.append(t)
            continue
        if any(started.get(fid) is None for fid, _ in ids[b]):
            return None
        for fid, pair in ids[b]:
            traffic.append({**t, "pairs": [pair], "count": 1,
                            "start_ns": {"dist": "const", "value": float(round(started[fid] * 1e9))}})
    return {**plan, "traffic": traffic}
