"""Timing noise in the Linux validation: which rows' verdicts turn on tens of microseconds.

The simulator's timing is exact. The kernel side of every row is not: the kernel backend hands
each packet between its engine and a host's TUN device some tens of microseconds late (its
delivery lateness: p50 about 30 us, p99 66-82 us in the stored runs of 2026-11-26/27), and Linux's
timers and scheduling add their own. A single flow, or a few, through a drop-tail or CoDel
queue can lock into a cycle that repeats to the nanosecond in a deterministic run and that such
noise breaks (validation-linux-differences.md#bbr-fq-codel-1). So the page is built a second
and a third time with the simulator's host links carrying a random extra delay per packet,
uniform in [0, J] (the link key `jitter`, links.md#jitter), the kernel side unchanged, and the
rows whose verdict changes are listed: timing noise of the size the referee itself has moves them
across their tolerance.
"""

from __future__ import annotations

import statistics
import tomllib
from pathlib import Path
from typing import Any

# Bracketing the kernel backend's delivery lateness: uniform [0, 50 us] has its median at 25 us
# and its 99th percentile at 50 us, [0, 100 us] at 50 and 99 us.
JITTERS: tuple[str, ...] = ("50us", "100us")


def host_jitter(file: Path, jitter: str) -> dict[str, str]:
    """Overrides that give every link touching a host of ``file``'s template ``jitter``: the
    dumbbell's access links, or both links of the two-host access template."""
    template = tomllib.loads(file.read_text()).get("topology", {}).get("template")
    if template == "dumbbell":
        return {"topology.access.jitter": jitter}
    if template == "access":
        return {"topology.up.jitter": jitter, "topology.down.jitter": jitter}
    raise ValueError(f"{file.name}: no host links known for template {template!r}")


def flips(base: dict[str, list[dict[str, Any]]], noisy: dict[str, dict[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """The rows (by case, metric) whose verdict differs between ``base`` (case -> rows) and any
    jitter of ``noisy`` (jitter -> case -> rows); context rows (no verdict) are left out."""
    out = []
    for case, rows in base.items():
        for i, r in enumerate(rows):
            others = {j: noisy[j][case][i] for j in noisy if case in noisy[j]}
            if r["verdict"] is None or all(o["verdict"] == r["verdict"] for o in others.values()):
                continue
            out.append({"scenario": case, "metric": r["metric"], "linux": r["linux"], "base": r, "noisy": others})
    return out


def _label(j: str) -> str:
    return j.replace("us", " µs")


def lateness_text(records: dict[str, list[dict[str, Any]]]) -> str:
    """What the stored kernel runs say of their delivery lateness (the driver's p99 per run)."""
    p99 = [r["lateness_p99_s"] * 1e6 for rs in records.values() for r in rs if r.get("lateness_p99_s") is not None]
    if len(p99) < 2:
        return "its p99 is recorded by the runs made since 2026-11-26"
    q1, q2, q3 = statistics.quantiles(p99, n=4)
    return f"p99 {q2:.0f} µs, quartiles {q1:.0f}–{q3:.0f} µs, over the {len(p99)} stored runs that record it"


def _cell(r: dict[str, Any]) -> str:
    return f"{r['sim']} ({'holds' if r['verdict'] else 'differs'})"


def render(changed: list[dict[str, Any]], held: dict[str, tuple[int, int]], differences: str, lateness: str) -> list[str]:
    """The page's section: ``held`` is jitter -> (rows that hold, rows compared); ``lateness``
    what the kernel runs say of theirs (``lateness_text``)."""
    counts = "; ".join(f"with up to {_label(j)}, {h} of {n}" for j, (h, n) in held.items())
    lines = [
        "## Timing noise",
        "",
        "The simulator's timing is exact; the kernel side's is not: the backend hands each packet between "
        f"its engine and a host tens of microseconds late (its delivery lateness: {lateness}) and Linux's "
        "timers add their own. A flow or a few through one "
        "queue can lock into a cycle that a deterministic run repeats to the nanosecond and that such noise "
        f"breaks ([{differences}]({differences}#bbr-fq-codel-1)). The simulator side was therefore also run "
        "with every link that touches a host delaying each packet by a random extra amount, uniform in "
        "[0, J] (`jitter`: [links.md](links.md#jitter)), the kernel side unchanged. Rows that hold: "
        f"{counts}. The rows below change verdict with it, one way or the other: timing noise of the size "
        "the referee itself has moves them across their tolerance, so neither their agreement nor their "
        "difference can be read as a mechanism's. A fixed delay does it too: the kernel side's round trips "
        "are about 0.13 ms longer than the scenario's (the hosts' processing and the backend's delivery), and "
        "moving a flow's round trip by tens of microseconds moves where its packets fall against the "
        "bottleneck's departures and so which of them a full FIFO drops "
        f"([{differences}]({differences}#mixed-rtts), [reno-fifo-1bdp-1]({differences}#reno-fifo-1bdp-1)).",
        "",
    ]
    if not changed:
        return lines + ["No row changes verdict.", ""]
    js = list(next(iter(changed))["noisy"])
    lines += ["| scenario | metric | Linux | simulator | " + " | ".join(f"jitter ≤ {_label(j)}" for j in js) + " |",
              "|---|---|---|---|" + "---|" * len(js)]
    for c in changed:
        cells = [_cell(c["noisy"][j]) if j in c["noisy"] else "-" for j in js]
        lines.append(f"| {c['scenario']} | {c['metric']} | {c['linux']} | {_cell(c['base'])} | " + " | ".join(cells) + " |")
    return lines + [""]
