"""The validation suite: bufferlab against ns-3 on fixed scenarios, written to docs/validation.md.

    python -m bufferlab.crosscheck.suite [--out docs/validation.md] [--seeds 8] [--only NAME ...] [--kernel]

(``make validate`` installs ns-3 into its own environment and runs this.) Each case is a scenario
file in ``suite/``, run over seeds 1..N in both simulators with random start times (each file's
``start``); the metrics below are compared on the means over seeds against tolerances fixed here
before any run. A row that does not hold links to ``ns3-differences.md``, where the differences
found are explained. Cases marked ``kernel`` also show the kernel backend's result (Linux's TCP
through the same queues, referee.py): stored in ``suite/kernel/``, re-measured with ``--kernel``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import plan_types as pt
from ..scenario import Scenario, load_scenario
from .compare import ALL, rel_diff
from .referee import load_kernel, run_kernel_case
from .runner import Pair, run_pair
from .translate import NS3_CC, flow_ids, path_delay_ns

__all__ = ["CASES", "TOLERANCES", "Case", "run_case", "rows_for", "render", "main"]

SUITE_DIR = Path(__file__).parent / "suite"
DIFFERENCES = "ns3-differences.md"
# Cases whose differences have their own section there (an HTML anchor named after the case).
EXPLAINED_AT = {"jabeen-two-flows", "codel", "fq-codel", "fq-codel-udp", "pie", "fifo-quarter-bdp", "mixed-rtts", "asymmetric-access"}

# Fixed before the suite was first run (issue 15). ("abs", x): |bufferlab - ns-3| <= x;
# ("rel", x): |bufferlab - ns-3| <= x * |ns-3|. All on the means over seeds.
TOLERANCES: dict[str, tuple[str, float]] = {
    "utilization": ("abs", 0.02),
    "aggregate goodput": ("rel", 0.03),
    "per-flow goodput": ("rel", 0.15),
    "mean sojourn": ("rel", 0.25),
}


@dataclass(frozen=True)
class Case:
    name: str  # the file suite/<name>.toml
    links: tuple[str, ...]  # the links whose utilization and sojourn are compared
    seeds: int = 8
    kernel: bool = False  # refereed by the kernel backend (referee.py)

    @property
    def file(self) -> Path:
        return SUITE_DIR / f"{self.name}.toml"

    def title(self) -> str:
        return file_title(self.file)


def file_title(path: Path) -> str:
    """A scenario file's description: its leading ``#`` comment lines, joined."""
    head = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        head.append(line.lstrip("#").strip())
    return " ".join(head)


DUMBBELL = ("r1->r2",)
CASES: tuple[Case, ...] = (
    Case("one-flow-fifo", DUMBBELL),
    Case("ten-flows-fifo", DUMBBELL),
    Case("hundred-flows-fifo", DUMBBELL),
    Case("fifo-quarter-bdp", DUMBBELL),
    Case("fifo-4bdp", DUMBBELL),
    Case("cubic-fifo", DUMBBELL),
    Case("newreno-no-sack", DUMBBELL),
    Case("no-delayed-ack", DUMBBELL),
    Case("codel", DUMBBELL),
    Case("fq-codel", DUMBBELL),
    # The queue model alone: constant-rate sources leave TCP out of the comparison.
    Case("fq-codel-udp", DUMBBELL),
    Case("pie", DUMBBELL),
    # Each flow its own class: one flow's goodput varies more from seed to seed than a pool's.
    Case("mixed-rtts", DUMBBELL, seeds=32),
    Case("asymmetric-access", ("client->server", "server->client")),
    # The kernel referees the long flow's recovery rules (docs/ns3-differences.md).
    Case("jabeen-two-flows", DUMBBELL, seeds=14, kernel=True),
)


@dataclass
class CaseResult:
    case: Case
    scenario: Scenario
    pairs: list[Pair]
    kernel: dict[str, Any] | None = None  # referee.py's record, when the case has one

    @property
    def bufferlab_wall_s(self) -> float:
        return sum(p.bufferlab_wall_s for p in self.pairs)

    @property
    def ns3_wall_s(self) -> float:
        return sum(p.ns3_wall_s for p in self.pairs)


def run_case(case: Case, seeds: int | None = None, log=None, exe: Path | None = None, kernel: bool = False) -> CaseResult:
    sc = load_scenario(case.file)
    n = seeds or case.seeds
    pairs = []
    for s in range(1, n + 1):
        if log:
            log(f"{case.name}: seed {s}/{n}")
        pairs.append(run_pair(sc, s, exe))
    record = None
    if case.kernel:
        record = run_kernel_case(case.name, sc, list(range(1, n + 1)), log) if kernel else load_kernel(case.name)
    return CaseResult(case, sc, pairs, record)


def flow_classes(sc: Scenario) -> dict[str, list[str]]:
    """Flows that are alike (same traffic block and round-trip propagation time), pooled: their
    goodputs are draws of one distribution. Labelled ``tcp ×10, RTT 44 ms`` or ``tcp-2, RTT 990 ms``."""
    plan = pt.typed(sc)
    groups: dict[tuple[int, float], list[str]] = {}
    for fid, b, src, dst in flow_ids(plan):
        rtt_ms = (path_delay_ns(plan, src, dst) + path_delay_ns(plan, dst, src)) / 1e6
        groups.setdefault((b, rtt_ms), []).append(fid)
    out = {}
    for (b, rtt_ms), ids in groups.items():
        who = f"{plan.traffic[b].kind} ×{len(ids)}" if len(ids) > 1 else ids[0]
        out[f"{who}, RTT {rtt_ms:g} ms"] = ids
    return out


def _mean(xs: list[float]) -> float:
    v = [x for x in xs if x is not None and not math.isnan(x)]
    return statistics.fmean(v) if v else math.nan


def _get(summary: dict[str, Any], table: str, key: str, ident: str, metric: str) -> float:
    for row in summary.get(table, []):
        if row.get(key) == ident:
            v = row.get(metric)
            return float(v) if isinstance(v, (int, float)) else math.nan
    return math.nan


def _se(bl: list[float], ns: list[float], paired: bool = False) -> float:
    """The standard error of the difference of the two means over seeds (NaN with fewer than two
    values a side). ``paired``: value k of each side comes from the same seed's draws, so it is
    that of the mean of the per-seed differences (the seeds where both sides have a value)."""
    b = [x for x in bl if not math.isnan(x)]
    n = [x for x in ns if not math.isnan(x)]
    if len(b) < 2 or len(n) < 2:
        return math.nan
    d = [x - y for x, y in zip(bl, ns) if not (math.isnan(x) or math.isnan(y))] if paired and len(bl) == len(ns) else []
    if len(d) >= 2:
        return statistics.stdev(d) / math.sqrt(len(d))
    return math.sqrt(statistics.variance(b) / len(b) + statistics.variance(n) / len(n))


def _noise(kind: str, bl: list[float], ns: list[float], tols: dict[str, tuple[str, float]] = TOLERANCES,
           paired: bool = False) -> float:
    """Two standard errors of the difference of the two means over seeds (``_se``), in the
    difference's unit (a fraction of ns-3's mean for relative tolerances): what chance alone gives."""
    se = _se(bl, ns, paired)
    if math.isnan(se) or tols[kind][0] == "abs":
        return 2 * se
    m = abs(statistics.fmean(x for x in ns if not math.isnan(x)))
    return 2 * se / m if m > 0 else math.nan


def _verdict(kind: str, bl: float, ns: float, tols: dict[str, tuple[str, float]] = TOLERANCES) -> tuple[str, float, bool | None]:
    how, tol = tols[kind]
    if math.isnan(bl) or math.isnan(ns):
        return "-", math.nan, None
    if how == "abs":
        d = bl - ns
        return f"{100 * d:+.2f} pt", d, abs(d) <= tol
    d = rel_diff(bl, ns)
    return f"{100 * d:+.1f}%", d, abs(d) <= tol


def _noise_text(kind: str, noise: float, tols: dict[str, tuple[str, float]] = TOLERANCES) -> str:
    if math.isnan(noise):
        return "-"
    return f"±{100 * noise:.2f} pt" if tols[kind][0] == "abs" else f"±{100 * noise:.1f}%"


def _tol_text(kind: str, tols: dict[str, tuple[str, float]] = TOLERANCES) -> str:
    how, tol = tols[kind]
    return f"±{100 * tol:g} pt" if how == "abs" else f"±{100 * tol:g}%"


def rows_for(res: CaseResult) -> list[dict[str, Any]]:
    """The table rows of one case: compared metrics (with a verdict) and context (without)."""
    rows: list[dict[str, Any]] = []
    pairs = res.pairs
    # The kernel's runs (referee.py), as summaries, when the case has them.
    kruns = [r["summary"] for r in res.kernel["runs"]] if res.kernel else []
    kv: list[float] = []  # the kernel's per-seed values of the row being added

    def both(table: str, key: str, ident: str, metric: str) -> tuple[list[float], list[float]]:
        kv[:] = [_get(k, table, key, ident, metric) for k in kruns]
        return [_get(p.bufferlab, table, key, ident, metric) for p in pairs], [_get(p.ns3, table, key, ident, metric) for p in pairs]

    def add(metric: str, kind: str | None, bl: list[float], ns: list[float], fmt) -> None:
        b, n = _mean(bl), _mean(ns)
        kernel = {"kernel": fmt(_mean(kv)) if kv else "", "k_values": list(kv)}
        kv.clear()
        if kind is None:
            d = rel_diff(b, n)
            rows.append({"metric": metric, "bufferlab": fmt(b), "ns3": fmt(n), "difference": "-" if math.isnan(d) or math.isinf(d) else f"{100 * d:+.1f}%",
                         "tolerance": "", "verdict": None, "bl_values": bl, "ns_values": ns, "noise": "", "within_noise": False, **kernel})
            return
        text, d, ok = _verdict(kind, b, n)
        noise = _noise(kind, bl, ns)
        rows.append({"metric": metric, "bufferlab": fmt(b), "ns3": fmt(n), "difference": text, "tolerance": _tol_text(kind),
                     "verdict": ok, "bl_values": bl, "ns_values": ns, "noise": _noise_text(kind, noise),
                     "within_noise": not math.isnan(noise) and abs(d) <= noise, **kernel})

    mbps = lambda x: "-" if math.isnan(x) else f"{x / 1e6:.3f} Mb/s"  # noqa: E731
    ms = lambda x: "-" if math.isnan(x) else f"{x * 1e3:.2f} ms"  # noqa: E731
    pct = lambda x: "-" if math.isnan(x) else f"{100 * x:.2f}%"  # noqa: E731
    count = lambda x: "-" if math.isnan(x) else f"{x:,.0f}"  # noqa: E731

    for link in res.case.links:
        bl, ns = both("links", "link", link, "utilization")
        add(f"utilization {link}", "utilization", bl, ns, pct)
    bl = [sum(_num(f.get("goodput_bps")) for f in p.bufferlab["flows"]) for p in pairs]
    ns = [sum(_num(f.get("goodput_bps")) for f in p.ns3["flows"]) for p in pairs]
    kv[:] = [sum(_num(f.get("goodput_bps")) for f in k["flows"]) for k in kruns]
    add("aggregate goodput", "aggregate goodput", bl, ns, mbps)
    for label, ids in flow_classes(res.scenario).items():
        # One value per seed: the mean goodput of the class's flows.
        bl = [_mean([_get(p.bufferlab, "flows", "id", i, "goodput_bps") for i in ids]) for p in pairs]
        ns = [_mean([_get(p.ns3, "flows", "id", i, "goodput_bps") for i in ids]) for p in pairs]
        kv[:] = [_mean([_get(k, "flows", "id", i, "goodput_bps") for i in ids]) for k in kruns]
        add(f"per-flow goodput, {label}", "per-flow goodput", bl, ns, mbps)
    for link in res.case.links:
        bl, ns = both("queues", "link", link, "sojourn_mean_s")
        add(f"mean sojourn {link}", "mean sojourn", bl, ns, ms)
    for link in res.case.links:
        bl, ns = both("queues", "link", link, "dropped")
        add(f"drops {link}", None, bl, ns, count)
    for label, ids in flow_classes(res.scenario).items():
        if not label.startswith(("tcp", "web", "tcp_onoff")):
            continue
        bl = [_mean([_get(p.bufferlab, "flows", "id", i, "rtt_mean_s") for i in ids]) for p in pairs]
        ns = [_mean([_get(p.ns3, "flows", "id", i, "rtt_mean_s") for i in ids]) for p in pairs]
        kv[:] = [_mean([_get(k, "flows", "id", i, "rtt_mean_s") for i in ids]) for k in kruns]
        add(f"mean RTT, {label}", None, bl, ns, ms)
    return rows


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) else 0.0


def render(results: list[CaseResult], planned: int, started: str, seeds_override: int | None) -> str:
    from .ns3env import NS3_VERSION

    lines = [
        "# Validation against ns-3",
        "",
        f"Generated by `make validate` (`python -m bufferlab.crosscheck.suite`) on {started}, against ns-3 "
        f"{NS3_VERSION} (PyPI wheel `ns3==3.44.post0`). Do not edit by hand: run it again.",
        "",
        "Each scenario (files in `python/bufferlab/crosscheck/suite/`) runs in bufferlab with seed s and in "
        "ns-3 with RngRun s, s = 1..N; each bulk flow whose start the file draws starts in ns-3 when bufferlab's run "
        "of the seed started it (paired seeds, since 2026-11-27; the other draws are each simulator's own). "
        "How the scenario is built in ns-3 and where the models differ: [crosscheck.md](crosscheck.md) "
        f"(NewReno runs as {NS3_CC['newreno']}, with ssthresh from SND.NXT − SND.UNA, or from the pipe at a "
        f"timeout with SACK, Cubic as {NS3_CC['cubic']}; SACK blocks with PRR get ns-3's PRR recovery, the "
        "others its classic recovery; bufferlab runs without RACK and F-RTO, which ns-3 lacks). "
        "Values are means over the seeds; the per-seed values follow the table.",
        "",
        "Tolerances, fixed before the suite was first run: utilization ±2 percentage points, aggregate "
        "goodput ±3%, per-flow goodput (the mean of each class of alike flows: same traffic block and "
        "round-trip time) ±15%, mean sojourn ±25%. Drops and mean RTT are context, without a tolerance. "
        "The seed noise is two standard errors of the difference of the means (from the spread over seeds "
        "of each side): a difference within it is what chance alone gives with this many seeds. "
        f"A row that does not hold links to [{DIFFERENCES}]({DIFFERENCES}), where the differences are explained.",
        "",
    ]
    refereed = [r for r in results if r.kernel]
    for r in refereed:
        k = r.kernel
        settings = ", ".join(f"`{n.split('.')[-1]}` {v}" for n, v in k["sysctls"].items()) or "not recorded"
        lines += [
            f"The **kernel** column of {r.case.name} is Linux's own TCP (`reno`, with SACK, RACK-TLP and PRR as the "
            f"kernel has them) through bufferlab's queues on the kernel backend ([kernel-backend.md](kernel-backend.md)), "
            f"seeds 1..{len(k['runs'])}, {pt.typed(r.scenario).run.duration_ns / 1e9:g} s each in real time; measured "
            f"{k['measured']} on Linux {k['kernel']} (settings inside the hosts' namespaces: {settings}). "
            "It is kept in `python/bufferlab/crosscheck/suite/kernel/` and re-measured by "
            "`python -m bufferlab.crosscheck.suite --kernel` (root; `nice -n -5` recommended).",
            "",
        ]
    if len(results) < planned:
        lines += [f"**Partial run: {len(results)} of {planned} scenarios.**", ""]
    held = failed = 0
    kcol = bool(refereed)
    table = ["| scenario | metric | bufferlab | ns-3 | difference | seed noise | tolerance | verdict | wall bufferlab | wall ns-3 |" + (" kernel |" if kcol else ""),
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if kcol else "")]
    details = ["", "## Per-seed values", "",
               "Per-flow goodput classes (Mb/s) and mean sojourn (ms), seed by seed: bufferlab / ns-3.", ""]
    for res in results:
        rows = rows_for(res)
        n = len(res.pairs)
        for j, r in enumerate(rows):
            where = f"{DIFFERENCES}#{res.case.name}" if res.case.name in EXPLAINED_AT else DIFFERENCES
            verdict = verdict_text(r, where)
            held += r["verdict"] is True
            failed += r["verdict"] is False
            name = f"**{res.case.name}** ({n} seeds)" if j == 0 else ""
            walls = (f"{res.bufferlab_wall_s:.2f} s", f"{res.ns3_wall_s:.1f} s") if j == 0 else ("", "")
            table.append(f"| {name} | {r['metric']} | {r['bufferlab']} | {r['ns3']} | {r['difference']} | {r['noise']} | {r['tolerance']} | {verdict} | {walls[0]} | {walls[1]} |"
                         + (f" {r['kernel']} |" if kcol else ""))
            if r["metric"].startswith(("per-flow goodput", "mean sojourn")):
                scale, unit = (1e-6, "Mb/s") if "goodput" in r["metric"] else (1e3, "ms")
                vals = " ".join(f"{_f(a * scale)}/{_f(b * scale)}" for a, b in zip(r["bl_values"], r["ns_values"]))
                details.append(f"- {res.case.name}, {r['metric']} ({unit}): {vals}")
                if r["k_values"]:
                    details.append(f"  - kernel: {' '.join(_f(k * scale) for k in r['k_values'])}")
    lines.append(f"{held} of {held + failed} compared rows hold.")
    lines.append("")
    lines += ["| scenario | description |", "|---|---|"]
    lines += [f"| {r.case.name} | {r.case.title()} |" for r in results]
    lines.append("")
    lines += table
    lines += details
    total_bl = sum(r.bufferlab_wall_s for r in results)
    total_ns = sum(r.ns3_wall_s for r in results)
    lines += ["", f"Wall time over all runs: bufferlab {total_bl:.1f} s, ns-3 {total_ns:.1f} s "
              f"(one core each, runs one after another, on the machine that generated this page).", ""]
    return "\n".join(lines)


def verdict_text(row: dict[str, Any], where: str) -> str:
    """A row's verdict cell: "holds", "differs[, within seed noise]: [explained](where)", or
    empty for a context row."""
    if row["verdict"] is True:
        return "holds"
    if row["verdict"] is False:
        noise = ", within seed noise" if row["within_noise"] else ""
        return f"differs{noise}: [explained]({where})"
    return ""


def _f(x: float) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.3g}"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bufferlab.crosscheck.suite", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=Path("docs/validation.md"))
    ap.add_argument("--seeds", type=int, default=None, help="seeds per case (default: each case's own, at least 8)")
    ap.add_argument("--only", nargs="*", default=None, help="run only these cases")
    ap.add_argument("--json", type=Path, default=None, help="also write every run's summaries here")
    ap.add_argument("--kernel", action="store_true",
                    help="re-measure the cases the kernel referees on the kernel backend (root; real time: seeds x duration) "
                         "and store them in suite/kernel/; without it their stored results are shown")
    args = ap.parse_args(argv)
    from .ns3env import Ns3Missing, program

    try:
        exe = program(progress=lambda m: print(m, file=sys.stderr))
    except Ns3Missing as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cases = [c for c in CASES if not args.only or c.name in args.only]
    started = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    results: list[CaseResult] = []
    raw: dict[str, Any] = {}
    for case in cases:
        t0 = time.perf_counter()
        res = run_case(case, args.seeds, log=lambda m: print(m, file=sys.stderr, flush=True), exe=exe, kernel=args.kernel)
        results.append(res)
        print(f"{case.name}: done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        # Written after every case: an interrupted suite still leaves a (marked) partial page.
        _write(args.out, render(results, len(cases), started, args.seeds))
        if args.json:
            raw[case.name] = [{"seed": p.seed, "bufferlab": p.bufferlab, "ns3": p.ns3} for p in res.pairs]
            _write(args.json, json.dumps(raw, default=str))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
