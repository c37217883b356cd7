"""The Linux validation suite: the simulator's default TCP against Linux's own TCP on the kernel
backend, through the same queue code, scenario by scenario; written to docs/validation-linux.md.

    python -m bufferlab.validate_linux [--out docs/validation-linux.md] [--only NAME ...] [--seeds N]
                                     [--kernel [--jobs N]] [--sim-only] [--no-noise]

(``make validate-linux`` runs it with ``--kernel``.) Each case is a scenario file in ``kernel/suite/``,
run over seeds 1..N on the simulator (its default TCP: SACK, RACK, F-RTO, PRR, delayed ACK, GSO) and on
the kernel backend (Linux's TCP in network namespaces, bufferlab's engine between them, in real
time). Web and on/off flows play the simulator's own workload draws for the seed on both sides
(kernel/plan.py), so their comparison is paired seed by seed. The kernel's runs are kept in
``kernel/suite/kernel/<case>.json``, one record per seed with the kernel release, the TCP settings
read inside the sender's namespace, the date, the scenario file's hash and, where the scenario
has web or on/off flows, the hash of the draws they played; ``--kernel`` measures only the (case,
seed) pairs whose stored run is missing, was made from another version of the file or played
other draws, and writes after every seed; ``--jobs N`` measures N groups of cases at once, each in its
own process (three on a machine of two cores: a run takes a fifth to a third of a core, the
engine's driver threads run under SCHED_FIFO, and the delivery lateness stays near the
one-at-a-time figure; the groups' drivers do not spin), then the BBR cases and asymmetric-access one at
a time, spinning as the backend does by default (``measured_alone``). Without ``--kernel`` the page
is built from the stored kernel runs and fresh simulator runs (seconds). ``--sim-only`` runs the
simulator side alone and prints its values (no page). The page's timing-noise section runs the
simulator side twice more with jitter on the hosts' links (validate_noise.py); ``--no-noise``
leaves it out.

The metrics are compared on the means over seeds against tolerances fixed here before the first
run (TOLERANCES and the two count rules below); a row that does not hold links to
``validation-linux-differences.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import hashlib
import json
import math
import multiprocessing
import os
import platform
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import plan_types as pt
from .crosscheck.compare import rel_diff
from .crosscheck.referee import SYSCTLS, _read_sysctls
from .crosscheck.suite import _f, _get, _mean, _noise, _se, _noise_text, _tol_text, _verdict, _write, file_title, flow_classes, verdict_text
from .kernel.paired import with_kernel_starts
from .kernel.plan import sim_matched, workload_draws
from . import validate_noise as noise
from .scenario import Scenario, load_scenario
from .kernel.compare import SRTT_STEP, srtt_quantile

# What a stopped (Ctrl-C) suite says, once, whichever process was waiting.
STOPPED = "stopped: the runs measured so far are stored; run it again to go on"

__all__ = ["CASES", "TOLERANCES", "Case", "case_rows", "run_sim", "load_record", "run_kernel_seeds", "render", "main"]

SUITE_DIR = Path(__file__).parent / "kernel" / "suite"
# Where the kernel's runs are kept; BUFFERLAB_VALIDATE_KERNEL_DIR puts them elsewhere (a second
# sitting measured beside the stored one, a trial of the suite's time).
KERNEL_DIR = Path(os.environ.get("BUFFERLAB_VALIDATE_KERNEL_DIR") or SUITE_DIR / "kernel")
DIFFERENCES = "validation-linux-differences.md"
SEEDS = 5
# Cases whose rows turn on a chance event per run (Case.seeds); web transfers' Zipf sizes most.
MORE_SEEDS, WEB_SEEDS = 10, 15
# mixed-rtts: ten classes of one flow each, so each per-class row is one flow's share of a
# sharing that moves from seed to seed by ±20% on both sides; ten such rows judged at two
# standard errors each leave about a 40% chance that one strays by chance alone, and twenty
# seeds halve each row's variance.
SHARE_SEEDS = 20

# Fixed before the suite was first run. ("abs", x): |simulator - Linux| <= x; ("rel", x):
# |simulator - Linux| <= x * |Linux|. All on the means over seeds.
TOLERANCES: dict[str, tuple[str, float]] = {
    "utilization": ("abs", 0.02),
    "aggregate goodput": ("rel", 0.03),
    "per-class goodput": ("rel", 0.15),
    "mean sojourn": ("rel", 0.25),
    "p99 sojourn": ("rel", 0.30),
    "RTT p50": ("rel", 0.15),
    "RTT p99": ("rel", 0.30),
    "drops": ("rel", 0.30),
    "marks": ("rel", 0.30),
    "retransmits": ("rel", 0.30),
    "completion median": ("rel", 0.25),
    "timeouts": ("rel", 0.50),
}
# Counts near zero: when both means are below NEAR_ZERO per run, a drops or retransmits row holds
# if the means differ by at most NEAR_ZERO_ABS (absolute).
COUNTS = ("drops", "marks", "retransmits")
NEAR_ZERO, NEAR_ZERO_ABS = 5.0, 3.0
# Timeouts are context unless both means exceed this per run; then TOLERANCES["timeouts"].
TIMEOUTS_COMPARED_ABOVE = 5.0
# Web transfers by size (bytes): completion times compared per class.
SIZE_CLASSES: tuple[tuple[str, float, float], ...] = (
    ("≤ 15 kB", 0, 15_000),
    ("15–150 kB", 15_000, 150_000),
    ("> 150 kB", 150_000, math.inf),
)


@dataclass(frozen=True)
class Case:
    name: str  # the file suite/<name>.toml
    links: tuple[str, ...]  # the links whose utilization, sojourn and drops are compared
    # Seeds per side. More where one chance event per run sets a row: the few large transfers
    # of a Zipf size law, which of ten RTTs starts first, whether an ECN SYN is lost.
    seeds: int = SEEDS

    @property
    def file(self) -> Path:
        return SUITE_DIR / f"{self.name}.toml"

    def title(self) -> str:
        return file_title(self.file)

    def file_hash(self) -> str:
        return hashlib.sha256(self.file.read_bytes()).hexdigest()


DUMBBELL = ("r1->r2",)
QUEUES = ("fifo-quarter-bdp", "fifo-1bdp", "fifo-4bdp", "codel", "fq-codel", "pie", "red")
# Single flows: the simulator's lose the same count in every seed (a lone flow's start only shifts
# its run), so the kernel's spread is the whole spread, and it moves between sittings more than
# between the seeds of one (validation-linux-differences.md#sittings): ten seeds, 1-5 from the
# first sitting (2026-11-25/26), 6-10 from a second on a quiet machine (2026-11-27).
TWO_SITTINGS = frozenset({f"{cc}-{q}-1" for cc in ("reno", "cubic") for q in QUEUES}
                         | {"bbr-fifo-1bdp-1", "bbr-fifo-10bdp-1", "bbr-fq-codel-1", "reno-fifo-1bdp-1-nogso",
                            "cubic-paced-fifo-1bdp-1"})
HEADLINE = "linux-stack-codel"


def _sittings_seeds(name: str) -> int:
    """Seeds of a case: ten if it has two sittings (``TWO_SITTINGS``), else five."""
    return MORE_SEEDS if name in TWO_SITTINGS else SEEDS


CASES: tuple[Case, ...] = (
    # The headline: Cardozo et al.'s Linux egress stack with CoDel as the qdisc.
    Case(HEADLINE, ("client->server",)),
    *(Case(f"{cc}-{q}-{n}", DUMBBELL, seeds=_sittings_seeds(f"{cc}-{q}-{n}"))
      for cc in ("reno", "cubic") for q in QUEUES for n in (1, 10)),
    Case("mixed-rtts", DUMBBELL, seeds=SHARE_SEEDS),
    Case("asymmetric-access", ("client->server", "server->client"), seeds=MORE_SEEDS),
    Case("linux-stack-fq-codel", ("client->server",)),
    Case("linux-stack-bql-off", ("client->server",)),
    Case("web-fifo-1bdp", ("server->client",), seeds=WEB_SEEDS),
    # ECN (RFC 3168): the marking AQMs with ECN senders.
    *(Case(f"{cc}-{q}-ecn-10", DUMBBELL, seeds=MORE_SEEDS if q != "fq-codel" else SEEDS)
      for cc in ("reno", "cubic") for q in ("codel", "fq-codel", "pie")),
    # BBR v1 (Linux `bbr`): alone in a FIFO of 1 and 10 BDP, against one Cubic flow from half a
    # BDP to 16, and behind FQ-CoDel.
    *(Case(f"bbr-fifo-{b}bdp-1", DUMBBELL, seeds=MORE_SEEDS) for b in (1, 10)),
    *(Case(f"bbr-cubic-fifo-{b}bdp", DUMBBELL) for b in ("half", 1, 4, 16)),
    *(Case(f"bbr-fq-codel-{n}", DUMBBELL, seeds=_sittings_seeds(f"bbr-fq-codel-{n}")) for n in (1, 10)),
    # TCP's own pacing (`pacing = true`), Cubic through one BDP of FIFO, alone and ten.
    *(Case(f"cubic-paced-fifo-1bdp-{n}", DUMBBELL, seeds=_sittings_seeds(f"cubic-paced-fifo-1bdp-{n}")) for n in (1, 10)),
    # GSO off on both sides (the simulator's `gso = false`, Linux's device at one segment per
    # buffer): what GSO changes in the single-flow FIFO rows.
    Case("reno-fifo-1bdp-1-nogso", DUMBBELL, seeds=MORE_SEEDS),
)
# asymmetric-access without GSO (`kernel/suite/asymmetric-access-nogso.toml`, its runs stored
# beside the others) was a case until 2026-11-29, the diagnostic of a GSO effect on Linux's side
# that was the kernel backend's latency (validation-linux-differences.md#asymmetric-access); it
# left the suite when asymmetric-access began to be measured alone, to keep the suite within 75
# minutes. `--only asymmetric-access-nogso` still measures and judges it.
EXTRA_CASES = (Case("asymmetric-access-nogso", ("client->server", "server->client"), seeds=MORE_SEEDS),)
# Measured first on the kernel (the rows tests/test_validation_linux.py checks).
KERNEL_FIRST = (HEADLINE, "cubic-codel-10", "reno-fifo-1bdp-10", "bbr-cubic-fifo-1bdp")


def measured_alone(case: Case) -> bool:
    """Whether ``--jobs`` leaves the case's kernel runs to a machine doing nothing else: BBR's
    max filter turns the hosts' scheduling under load into a bandwidth estimate above the link and
    a longer queue, which the backend's own lateness bound does not see
    (validation-linux-differences.md#bbr, mechanism 2; bbr-fifo-10bdp-1's mean sojourn 7.87 ms
    alone, 8.42 ms beside two other runs, 2026-11-28). And the asymmetric access link, whose
    download's share turns on tens of microseconds at the hosts: alone, the driver spins before
    each event as it does by default (the groups of ``--jobs`` do not), which took Linux's share
    from 76% to 66% on 2026-11-29 (validation-linux-differences.md#asymmetric-access)."""
    return case.name.startswith("bbr-") or case.name.startswith("asymmetric-access")


# -- one run, both backends: what the suite compares

_KEEP = {
    "flows": ("id", "kind", "goodput_bps", "rtt_mean_s", "rtt_p50_s", "rtt_p99_s", "retransmits", "timeouts", "start_s", "pkts_dropped"),
    "queues": ("link", "sojourn_mean_s", "sojourn_p99_s", "occupancy_mean_pkts", "dropped", "marked", "ring_sojourn_mean_s"),
    "links": ("link", "utilization"),
}


def slim(result: Any) -> dict[str, Any]:
    """Flows, queues and links (the compared columns) and the finished transfers that started
    in the measurement window, as ``[size_bytes, completion_time_s]``."""
    out: dict[str, Any] = {t: [{k: r.get(k) for k in ks} for r in result.summary.get(t, [])] for t, ks in _KEEP.items()}
    a, b = result.summary["run"]["measure_s"]
    tr = result.transfers
    rows = []
    if len(tr):
        for size, start, ct in zip(tr["size_bytes"], tr["start_s"], tr["completion_time_s"]):
            if a <= start < b and ct is not None and not math.isnan(ct):
                rows.append([int(size), float(ct)])
    out["transfers"] = rows
    _smoothed_rtts(result, out)
    return out


def _smoothed_rtts(result: Any, out: dict[str, Any]) -> None:
    """Each flow's ``srtt_p50_s``, ``srtt_p99_s``: quantiles of its smoothed RTT sampled every
    ``SRTT_STEP`` in the measurement window (kernel/compare.py), where the run sampled it."""
    for row in out["flows"]:
        for q, key in ((0.5, "srtt_p50_s"), (0.99, "srtt_p99_s")):
            v = srtt_quantile(result, row["id"], q)
            if v is not None:
                row[key] = v


def run_sim(case: Case, seeds: list[int], extra: dict[str, Any] | None = None,
            kernels: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The simulator's runs of ``case``, with ``extra`` overrides (the timing-noise pass's); where
    ``kernels`` (seed -> stored kernel run) has the seed, its bulk flows start when the kernel's
    did (kernel/paired.py)."""
    from .simulate import run

    # As the kernel backend runs it: its hosts' TCP small queues never see the engine's queues.
    matched = sim_matched(load_scenario(case.file))
    over = {"run.sample": SRTT_STEP, **matched, **(extra or {})}
    out = []
    for s in seeds:
        sc = load_scenario(case.file, seed=s, overrides=over)
        k = (kernels or {}).get(s)
        paired_plan = with_kernel_starts(sc.plan, k["summary"]["flows"]) if k else None
        if paired_plan is not None:
            sc.plan = paired_plan
        out.append(slim(run(sc)))
    return out


def _rtt(s: dict[str, Any], fid: str, q: str) -> float:
    """A flow's RTT quantile as the kernel measures it: the smoothed RTT's where the run has it
    (TCP flows of the simulator), else the histogram of every sample (pings; the kernel's rows)."""
    smoothed = _get(s, "flows", "id", fid, f"srtt_{q}_s")
    return smoothed if not math.isnan(smoothed) else _get(s, "flows", "id", fid, f"rtt_{q}_s")


# -- the kernel's runs, stored


def _record_path(name: str) -> Path:
    return KERNEL_DIR / f"{name}.json"


def load_record(name: str) -> dict[str, Any] | None:
    f = _record_path(name)
    return json.loads(f.read_text()) if f.is_file() else None


@functools.cache
def workload_sha256(case: Case, seed: int) -> str | None:
    """The hash of the web and on/off workload draws a run of ``case`` with ``seed`` plays (the
    simulator's, on both backends), or None where it has no such flow: a stored kernel run that
    played other draws (made before the sides shared them, or by an engine that draws otherwise)
    is not the seed's."""
    draws = workload_draws(load_scenario(case.file, seed=seed))  # {} without web or on/off flows
    if not draws:
        return None
    return hashlib.sha256(json.dumps([draws[k] for k in sorted(draws)], sort_keys=True).encode()).hexdigest()


def _current(case: Case, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs made from the file as it is now, with the draws their seed has now."""
    h = case.file_hash()
    return [r for r in runs if r.get("file_sha256") == h and r.get("workload_sha256") == workload_sha256(case, r["seed"])]


def stored_runs(case: Case, seeds: list[int]) -> list[dict[str, Any]]:
    """The current stored kernel runs of ``case`` for ``seeds`` (``_current``)."""
    rec = load_record(case.name)
    if not rec:
        return []
    by_seed = {r["seed"]: r for r in _current(case, [r for r in rec.get("runs", []) if r["seed"] in seeds])}
    return [by_seed[s] for s in seeds if s in by_seed]


def _store(case: Case, run: dict[str, Any]) -> None:
    rec = load_record(case.name) or {"case": case.name, "runs": []}
    h = case.file_hash()
    runs = _current(case, [r for r in rec["runs"] if r["seed"] != run["seed"]])
    runs.append(run)
    rec.update(file_sha256=h, runs=sorted(runs, key=lambda r: r["seed"]))
    KERNEL_DIR.mkdir(parents=True, exist_ok=True)
    _write(_record_path(case.name), json.dumps(rec, indent=1) + "\n")


def missing_seconds(case: Case, seeds: list[int]) -> float:
    """Real time the kernel side of ``case`` still needs: its duration for every seed of ``seeds``
    without a current stored run."""
    have = {r["seed"] for r in stored_runs(case, seeds)}
    return sum(1 for s in seeds if s not in have) * load_scenario(case.file).plan["run"]["duration_ns"] / 1e9


def kernel_groups(order: list[Case], seconds: dict[str, float], jobs: int) -> list[list[Case]]:
    """The cases with runs missing, in ``jobs`` groups of about equal real time, each in the order
    given (longest first onto the group with the least so far; empty groups left out)."""
    todo = [c for c in order if seconds[c.name] > 0]
    load = [0.0] * max(1, jobs)
    which: dict[str, int] = {}
    for c in sorted(todo, key=lambda c: -seconds[c.name]):
        g = min(range(len(load)), key=lambda i: load[i])
        which[c.name] = g
        load[g] += seconds[c.name]
    groups = [[c for c in todo if which[c.name] == g] for g in range(len(load))]
    return [g for g in groups if g]


# The suite's pace on the quiet two-core machine of docs/kernel-backend.md (2026-11-27, from
# nothing): wall seconds per second of scenario time, set-up and summaries included (the three
# groups 1.04-1.07, the cases measured alone 1.03), and the page after them (the simulator side of
# every case, one case per core: about 3 min).
PACE = 1.06
PAGE_SECONDS = 180
# On that machine 2 of the 410 runs came back busy. Once BUSY_WARN_AFTER of the groups' runs are
# stored, a busy share above BUSY_WARN_SHARE says the host cannot keep the suite's pace (each busy
# run is measured again alone after the groups), and the suite says so then, not an hour later.
BUSY_WARN_AFTER = 30
BUSY_WARN_SHARE = 0.10
# How often the parent of `--jobs` looks at what its groups stored.
BUSY_POLL_SECONDS = 20


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _stored_and_busy(cases: list[Case], seeds_of) -> tuple[int, int]:
    """How many current runs the cases have stored for their seeds, and how many of them busy."""
    runs = [r for c in cases for r in stored_runs(c, seeds_of(c))]
    return len(runs), sum("busy" in r for r in runs)


def _missing_runs(cases: list[Case], seeds_of) -> int:
    """How many of the cases' seeds have no current stored run."""
    return sum(len(seeds_of(c)) for c in cases) - _stored_and_busy(cases, seeds_of)[0]


def suite_estimate(group_seconds: list[float], alone_seconds: float, runs: int,
                   page_seconds: float = PAGE_SECONDS, scenario_seconds: float | None = None) -> str:
    """What measuring ``runs`` missing kernel runs takes at the quiet machine's pace: the groups
    side by side (the longest decides), then the cases measured alone, then the page (the whole
    suite's in ``page_seconds``)."""
    groups = max(group_seconds, default=0.0) * PACE
    alone = alone_seconds * PACE
    scenario = scenario_seconds if scenario_seconds is not None else sum(group_seconds) + alone_seconds
    side = f"{len(group_seconds)} groups side by side" if len(group_seconds) > 1 else "one case at a time"
    parts = [f"{side} about {_minutes(groups)}"] if group_seconds else []
    if alone_seconds:
        parts.append(f"the cases measured alone about {_minutes(alone)}")
    parts.append(f"the page about {_minutes(page_seconds)}")
    return (f"{runs} kernel run{'s' if runs != 1 else ''} to measure ({_minutes(scenario)} of scenario time): about "
            f"{_minutes(groups + alone + page_seconds)} on a quiet two-core machine ({', '.join(parts)}); "
            "a busier host takes longer (docs/kernel-backend.md)")


def busy_outlook(stored: int, busy: int, left: int, run_seconds: float) -> str | None:
    """A warning, once the groups have stored ``stored`` runs of which ``busy`` came back busy with
    ``left`` still to come, when that share says the host cannot keep the suite's pace: what
    measuring the busy ones again alone adds at that share (at least one attempt each), or None."""
    if stored < BUSY_WARN_AFTER or busy <= BUSY_WARN_SHARE * stored:
        return None
    expected = busy / stored * (stored + left)
    return (f"warning: {busy} of the first {stored} runs came back busy (a quiet machine: 2 of 410): this host "
            f"cannot keep the suite's pace. At that share about {expected:.0f} runs will be measured again alone "
            f"after the groups, at least {_minutes(expected * run_seconds * PACE)} more, and runs still busy then "
            "are stored marked `busy` (docs/kernel-backend.md)")


def run_kernel_seeds(case: Case, seeds: list[int], log=None, attempts: int | None = None,
                     redo_busy: bool = False) -> int:
    """Measure on the kernel backend every seed of ``seeds`` without a current stored run (and,
    with ``redo_busy``, every one whose stored run is marked `busy`), each up to ``attempts``
    times (default `KERNEL_ATTEMPTS`) and stored as soon as it is done. Returns how many were
    run."""
    from .kernel.run import busy_warnings, run_kernel

    attempts = attempts or KERNEL_ATTEMPTS
    have = {r["seed"] for r in stored_runs(case, seeds) if not (redo_busy and "busy" in r)}
    todo = [s for s in seeds if s not in have]
    for s in todo:
        sc = load_scenario(case.file, seed=s)
        plan = pt.typed(sc)
        if log:
            log(f"{case.name}: kernel, seed {s} ({plan.run.duration_ns / 1e9:g} s in real time)")
        sysctls: dict[str, str] = {}
        stop = threading.Event()
        sender = plan.traffic[0].pairs[0][0]
        t = threading.Thread(target=_read_sysctls, args=(f"bl{os.getpid()}", sender, sysctls, stop), daemon=True)
        t.start()
        t0 = time.monotonic()
        try:
            for attempt in range(1, attempts + 1):
                result = run_kernel(sc)
                busy = busy_warnings(result.summary.get("kernel", {}))
                if log:
                    for w in result.summary.get("warnings", []):
                        log(f"{case.name}: seed {s}: warning: {w}")
                if not busy:
                    break
                if log and attempt < attempts:
                    log(f"{case.name}: seed {s}: measured again (attempt {attempt + 1} of {attempts}): "
                        "a run the machine kept from real time is not a referee")
        finally:
            stop.set()
        errors = result.summary.get("kernel_errors")
        w = workload_sha256(case, s)
        _store(case, {
            "seed": s,
            "file_sha256": case.file_hash(),
            **({"workload_sha256": w} if w else {}),
            "measured": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "kernel": platform.release(),
            "sysctls": sysctls,
            "wall_s": round(time.monotonic() - t0, 1),
            "lateness_p99_s": result.summary.get("kernel", {}).get("driver", {}).get("lateness_p99_s"),
            "lateness_p50_s": result.summary.get("kernel", {}).get("driver", {}).get("lateness_p50_s"),
            # The driver's precision settings (kernel/run.py: spin margin, cores kept awake).
            "spin_us": result.summary.get("kernel", {}).get("driver", {}).get("spin_us"),
            "awake_cores": result.summary.get("kernel", {}).get("driver", {}).get("awake_cores"),
            # Each bulk flow's share of reads that found 3+ segments waiting (kernel/run.py).
            "reads_backlogged": {f: round(b["reads_backlogged"] / b["reads"], 5)
                                 for f, b in result.summary.get("kernel", {}).get("read_backlog", {}).items() if b.get("reads")},
            **({"errors": errors} if errors else {}),
            **({"busy": busy} if busy else {}),
            "summary": slim(result),
        })
    return len(todo)


# A kernel run whose backend ran late or whose receivers read late measured the machine's load as
# much as Linux (validation-linux-differences.md, sittings): such a run is measured again, up to
# this many times in all, and the last is stored with its warnings (`busy`) if it still has them.
# Under `--jobs`, a group's process measures each run once, and what comes back busy is measured
# again alone once the groups are done: on a host whose scheduling cannot keep three networks in
# real time, measuring again beside the same two others would only be late again.
KERNEL_ATTEMPTS = 3


# -- rows


def _sum(s: dict[str, Any], metric: str) -> float:
    vals = [f.get(metric) for f in s["flows"] if f.get("kind") in ("tcp", "web", "tcp_onoff")]
    if any(v is None for v in vals):
        return math.nan
    return float(sum(vals))


def _pct(xs: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of xs."""
    if not xs:
        return math.nan
    v = sorted(xs)
    return v[min(len(v) - 1, max(0, math.ceil(q * len(v)) - 1))]


def judge(kind: str | None, sim: list[float], lin: list[float]) -> dict[str, Any]:
    """The verdict of one row from the per-seed values of each side: difference text, seed noise,
    tolerance text, verdict (True, False, or None for context) and whether the difference is
    within seed noise."""
    s, k = _mean(sim), _mean(lin)
    out = {"sim_mean": s, "linux_mean": k, "sim_values": list(sim), "linux_values": list(lin)}
    if kind in COUNTS and not (math.isnan(s) or math.isnan(k)) and s < NEAR_ZERO and k < NEAR_ZERO:
        d = s - k
        noise = 2 * _se(sim, lin, paired=True)
        return {**out, "difference": f"{d:+.1f}", "noise": "-" if math.isnan(noise) else f"±{noise:.1f}",
                "tolerance": f"±{NEAR_ZERO_ABS:g} (both < {NEAR_ZERO:g})", "verdict": abs(d) <= NEAR_ZERO_ABS,
                "within_noise": not math.isnan(noise) and abs(d) <= noise}
    if kind == "timeouts" and not (s > TIMEOUTS_COMPARED_ABOVE and k > TIMEOUTS_COMPARED_ABOVE):
        kind = None
    if kind is None:
        d = rel_diff(s, k)
        return {**out, "difference": "-" if math.isnan(d) or math.isinf(d) else f"{100 * d:+.1f}%", "noise": "",
                "tolerance": "", "verdict": None, "within_noise": False}
    text, d, ok = _verdict(kind, s, k, TOLERANCES)
    noise = _noise(kind, sim, lin, TOLERANCES, paired=True)
    return {**out, "difference": text, "noise": _noise_text(kind, noise, TOLERANCES), "tolerance": _tol_text(kind, TOLERANCES),
            "verdict": ok, "within_noise": ok is False and not math.isnan(noise) and abs(d) <= noise}


def _fmt(unit: str, x: float) -> str:
    if x is None or math.isnan(x):
        return "-"
    if unit == "Mb/s":
        return f"{x / 1e6:.3f} Mb/s"
    if unit == "ms":
        return f"{x * 1e3:.2f} ms"
    if unit == "%":
        return f"{100 * x:.2f}%"
    return f"{x:,.1f}" if x < 10 else f"{x:,.0f}"


def case_rows(case: Case, sc: Scenario, sims: list[dict[str, Any]], kernels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table rows of one case from the per-seed slim summaries of each side."""
    rows: list[dict[str, Any]] = []

    def add(metric: str, kind: str | None, unit: str, f) -> None:
        sim = [f(s) for s in sims]
        lin = [f(k) for k in kernels]
        r = judge(kind, sim, lin)
        r.update(metric=metric, kind=kind, unit=unit, sim=_fmt(unit, r["sim_mean"]), linux=_fmt(unit, r["linux_mean"]))
        rows.append(r)

    for link in case.links:
        add(f"utilization {link}", "utilization", "%", lambda s, link=link: _get(s, "links", "link", link, "utilization"))
    add("aggregate goodput", "aggregate goodput", "Mb/s", lambda s: sum(float(f.get("goodput_bps") or 0.0) for f in s["flows"]))
    classes = flow_classes(sc)
    # Goodput classes: not the pings; a lone flow's goodput is the aggregate row already.
    data = {label: ids for label, ids in classes.items() if not label.startswith("ping")}
    for label, ids in data.items():
        if len(data) > 1 or len(ids) > 1:
            add(f"per-class goodput, {label}", "per-class goodput", "Mb/s",
                lambda s, ids=ids: _mean([_get(s, "flows", "id", i, "goodput_bps") for i in ids]))
    for link in case.links:
        add(f"mean sojourn {link}", "mean sojourn", "ms", lambda s, link=link: _get(s, "queues", "link", link, "sojourn_mean_s"))
        add(f"p99 sojourn {link}", "p99 sojourn", "ms", lambda s, link=link: _get(s, "queues", "link", link, "sojourn_p99_s"))
    for label, ids in classes.items():
        if label.startswith("udp"):
            continue
        for q, kind in (("p50", "RTT p50"), ("p99", "RTT p99")):
            add(f"RTT {q}, {label}", kind, "ms", lambda s, ids=ids, q=q: _mean([_rtt(s, i, q) for i in ids]))
    for link in case.links:
        add(f"drops {link}", "drops", "n", lambda s, link=link: _get(s, "queues", "link", link, "dropped"))
        if "-ecn" in case.name:
            add(f"marks {link}", "marks", "n", lambda s, link=link: _get(s, "queues", "link", link, "marked"))
    add("retransmits (all TCP flows)", "retransmits", "n", lambda s: _sum(s, "retransmits"))
    add("timeouts (all TCP flows)", "timeouts", "n", lambda s: _sum(s, "timeouts"))
    if any(s.get("transfers") for s in sims):
        for label, lo, hi in SIZE_CLASSES:
            def cts(s: dict[str, Any], lo=lo, hi=hi) -> list[float]:
                return [ct for size, ct in s.get("transfers", []) if lo < size <= hi]
            add(f"completion median, {label}", "completion median", "ms", lambda s, cts=cts: _pct(cts(s), 0.5))
            add(f"completion p99, {label}", None, "ms", lambda s, cts=cts: _pct(cts(s), 0.99))
            add(f"transfers finished, {label}", None, "n", lambda s, cts=cts: float(len(cts(s))))
    for r in rows:
        r["scenario"] = case.name
    return rows


# -- the page


def _kernel_meta(records: dict[str, list[dict[str, Any]]]) -> tuple[str, str, str]:
    runs = [r for rs in records.values() for r in rs]
    releases = sorted({r["kernel"] for r in runs})
    dates = sorted(r["measured"] for r in runs)
    sysctls: dict[str, set[str]] = {}
    for r in runs:
        for n, v in r.get("sysctls", {}).items():
            sysctls.setdefault(n, set()).add(v)
    settings = ", ".join(f"`{n.split('.')[-1]}` {'/'.join(sorted(v))}" for n, v in sysctls.items()) or "not recorded"
    when = f"{dates[0]} to {dates[-1]}" if dates else "-"
    return ", ".join(releases) or "-", settings, when


def _engine_provenance() -> str:
    """Which engine the simulator side ran: the checkout's commit, and whether the Rust sources
    differed from it (the extension is built from the working tree)."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "crates", "Cargo.toml", "Cargo.lock"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f" Simulator: the engine of commit {head}" + (" with uncommitted changes to its Rust sources" if dirty else "") + "."


def _precision(records: dict[str, list[dict[str, Any]]]) -> str:
    """Which stored runs the driver measured with its precision settings (a spin margin, the cores
    kept awake: kernel-backend.md, "Keeping the cores awake"), grouped by spin margin, and which
    without."""
    precise = sorted(n for n, runs in records.items() if runs and all(r.get("awake_cores") for r in runs))
    if not precise:
        return ""
    rest = sum(1 for n, runs in records.items() if runs and n not in precise)
    # Each scenario by its runs' spin margins: all one margin, or (-1) some runs spinning and some
    # not (the groups' runs that came back busy, measured again alone).
    by_spin: dict[float, list[str]] = {}
    for n in precise:
        spins = {r.get("spin_us") or 0.0 for r in records[n]}
        by_spin.setdefault(spins.pop() if len(spins) == 1 else -1.0, []).append(n)

    def p50(names: list[str]) -> str:
        v = [r["lateness_p50_s"] * 1e6 for n in names for r in records[n] if r.get("lateness_p50_s")]
        return f" (delivery lateness p50 {min(v):.0f}–{max(v):.0f} µs)" if v else ""

    def which(names: list[str]) -> str:
        return "every other scenario" if len(by_spin) > 1 and len(names) > len(precise) / 2 else ", ".join(names)

    spun = max(r.get("spin_us") or 0.0 for n in precise for r in records[n])

    def how(spin: float, names: list[str]) -> str:
        if spin < 0:
            return (f"{which(names)} with the driver sleeping until each event, but for the runs that came back busy "
                    f"and were measured again alone, spinning {spun:g} µs")
        if spin:
            return f"{which(names)} with the driver spinning {spin:g} µs before each event{p50(names)}"
        return f"{which(names)} with the driver sleeping until each event{p50(names)}"

    parts = [how(spin, names) for spin, names in sorted(by_spin.items(), key=lambda kv: len(kv[1]))]
    head = "Every scenario's runs were" if not rest else "The runs named here were"
    tail = (f"; those of the other {rest} scenarios slept until each event on idle cores, as the backend did when "
            f"they were measured." if rest else ".")
    return (f" {head} measured with every core kept awake, the backend's default since 2026-11-29 "
            f"([kernel-backend.md](kernel-backend.md#keeping-the-cores-awake)): {'; '.join(parts)}{tail}")


def render(done: list[tuple[Case, list[dict[str, Any]], int, int]], started: str, records: dict[str, list[dict[str, Any]]],
           noise: list[str] | None = None) -> str:
    """``done``: (case, rows, simulator seeds, kernel seeds) in page order; ``noise``: the timing-noise
    section's lines (validate_noise.render), placed after the summary."""
    release, settings, when = _kernel_meta(records)
    tol = TOLERANCES
    lines = [
        "# Validation against Linux",
        "",
        f"Generated by `make validate-linux` (`python -m bufferlab.validate_linux`) on {started}. Do not edit by hand: "
        "run it again (`make validate-linux` measures on the kernel only the runs that are missing or whose "
        "scenario file changed, then rebuilds this page; `python -m bufferlab.validate_linux` without `--kernel` "
        "rebuilds it from the stored kernel runs and fresh simulator runs in seconds).",
        "",
        "Each scenario (files in `python/bufferlab/kernel/suite/`) runs on the simulator with its **default TCP** "
        "(SACK, RACK, tail loss probes, F-RTO, D-SACK, PRR, delayed ACK with quick ACKs at a connection's start and at once for a pushed segment, SACK compression, GSO with PSH on each buffer, the timer restarted when the oldest segment is resent, growth only while the window is used; nothing pinned) and on the kernel backend "
        "([kernel-backend.md](kernel-backend.md)): Linux's own TCP in network namespaces, bufferlab's engine — the same "
        "queue code — between them, in real time. `newreno` runs as Linux `reno`, `cubic` as Linux `cubic`. Seeds 1..N "
        f"on each side, N = {SEEDS} unless the scenario's row says more ({MORE_SEEDS} where one chance event per run "
        f"sets a row: which of ten RTTs starts first, whether an ECN SYN is lost; {WEB_SEEDS} for web transfers, "
        "whose Zipf sizes give a run a few large transfers or none). Web and on/off flows play the simulator's own draws "
        "for the seed on both sides (arrival times, sizes, idle times: [kernel-backend.md](kernel-backend.md)), so their "
        "seeds are paired; so are bulk TCP flows' start times: the simulator starts each bulk flow when the stored "
        "kernel run of the same seed started it (`kernel/paired.py`; the stored runs drew their starts from the file's "
        "`start` with a generator of their own, where kernel runs since 2026-11-27 take the simulator's draws). Values "
        "are means over the seeds; per-seed values follow the table." + _engine_provenance(),
        "",
        f"Kernel runs: Linux {release}, measured {when}, stored in `python/bufferlab/kernel/suite/kernel/` with the "
        f"TCP settings read inside the sender's namespace ({settings}). Linux's segments carry a 12-byte "
        "timestamp option (1448 B of payload in a 1500 B packet, pure ACKs of 52 B), as the simulator's do by default. "
        "A TCP flow's RTT quantiles are those of its smoothed RTT read every 10 ms on both sides: `tcpi_rtt` on the "
        "kernel, the sender's SRTT sampled by the run (`run.sample = \"10ms\"`) on the simulator; a ping's are those "
        "of every echo on both. (Until 2026-11-26 the simulator's side used its raw sample of every ACK, whose tails "
        "are 30-39% above the smoothed RTT's: [validation-linux-differences.md](validation-linux-differences.md).)"
        + _precision(records),
        "",
        "Tolerances, fixed before the suite was first run (simulator relative to Linux): "
        f"utilization ±{100 * tol['utilization'][1]:g} percentage points; aggregate goodput ±{100 * tol['aggregate goodput'][1]:g}%; "
        f"per-class goodput (the mean goodput of each class of alike flows: same traffic block and round-trip time; "
        f"only where a scenario has more than one flow) ±{100 * tol['per-class goodput'][1]:g}%; "
        f"mean sojourn ±{100 * tol['mean sojourn'][1]:g}%; p99 sojourn ±{100 * tol['p99 sojourn'][1]:g}%; "
        f"RTT p50 ±{100 * tol['RTT p50'][1]:g}%; RTT p99 ±{100 * tol['RTT p99'][1]:g}%; drops ±{100 * tol['drops'][1]:g}%; "
        f"CE marks (ECN cases) ±{100 * tol['marks'][1]:g}%; retransmits ±{100 * tol['retransmits'][1]:g}%; median completion time per size class "
        f"±{100 * tol['completion median'][1]:g}%. Drops, marks and retransmits near zero: when both means are below "
        f"{NEAR_ZERO:g} per run, the row holds if they differ by at most {NEAR_ZERO_ABS:g} (absolute). Timeouts "
        f"(RTO expiries; Linux's `tcpi_total_rto`) are context unless both means exceed {TIMEOUTS_COMPARED_ABOVE:g} "
        f"per run, then ±{100 * tol['timeouts'][1]:g}%. Completion p99 and transfer counts are context. "
        "The seed noise is two standard errors of the mean of the per-seed differences (the seeds are paired: the same "
        "starts and the same web and on/off draws on both sides; until 2026-11-27, of the difference of the means, from "
        "each side's spread): a difference within it is what chance alone gives with this many seeds "
        "(\"differs, within seed noise\"). "
        f"A row that does not hold links to [{DIFFERENCES}]({DIFFERENCES}).",
        "",
    ]
    missing = [c.name for c, rows, ns, nk in done if nk == 0]
    partial = [f"{c.name} ({nk} of {ns})" for c, rows, ns, nk in done if 0 < nk < ns]
    if missing:
        lines += [f"**Not yet measured on the kernel ({len(missing)} scenarios, left out of the table):** {', '.join(missing)}.", ""]
    if partial:
        lines += [f"**Fewer kernel seeds than simulator seeds:** {', '.join(partial)}.", ""]
    held = failed = 0
    table = ["| scenario | metric | simulator | Linux | difference | seed noise | tolerance | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    details = ["", "## Per-seed values", "", "Simulator / Linux, seed by seed (Mb/s, ms, %, counts).", ""]
    failing: dict[str, list[str]] = {}
    for case, rows, ns, nk in done:
        if nk == 0:
            continue
        for j, r in enumerate(rows):
            verdict = verdict_text(r, f"{DIFFERENCES}#{case.name}")
            held += r["verdict"] is True
            failed += r["verdict"] is False
            if r["verdict"] is False:
                failing.setdefault(case.name, []).append(r["metric"])
            name = f"**{case.name}** ({ns}/{nk} seeds)" if j == 0 else ""
            table.append(f"| {name} | {r['metric']} | {r['sim']} | {r['linux']} | {r['difference']} | {r['noise']} | {r['tolerance']} | {verdict} |")
            scale = {"Mb/s": 1e-6, "ms": 1e3, "%": 100}.get(r["unit"], 1)
            sv = " ".join(_f(x * scale) for x in r["sim_values"])
            lv = " ".join(_f(x * scale) for x in r["linux_values"])
            details.append(f"- {case.name}, {r['metric']}: {sv} / {lv}")
    lines.append(f"**{held} of {held + failed} compared rows hold** ({len(done) - len(missing)} of {len(done)} scenarios measured on the kernel).")
    lines.append("")
    lines += ["| scenario | description |", "|---|---|"]
    lines += [f"| {c.name} | {c.title()} |" for c, *_ in done]
    lines.append("")
    lines += noise or []
    lines += ["## Rows", ""] if noise else []
    lines += table
    lines += details
    lines.append("")
    return "\n".join(lines)


def rows_on_page(page: str, scenario: str) -> dict[str, str]:
    """metric -> verdict text of one scenario's rows in a generated page (for the tests)."""
    out: dict[str, str] = {}
    current = None
    for line in page.splitlines():
        if not line.startswith("| ") or line.startswith(("| scenario", "|---")):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 8:
            continue
        if cells[0]:
            current = cells[0].split("**")[1] if "**" in cells[0] else cells[0]
        if current == scenario:
            out[cells[1]] = cells[7]
    return out


# The page's worker for one case (set by `main` before its processes are forked).
_PAGE_CASE: Any = None


def _page_case(case: Case) -> Any:
    return _PAGE_CASE(case)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bufferlab.validate_linux", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=Path("docs/validation-linux.md"))
    ap.add_argument("--seeds", type=int, default=None,
                    help=f"seeds per side for every case (default: each case's own, {SEEDS} for most)")
    ap.add_argument("--only", nargs="*", default=None, help="only these cases")
    ap.add_argument("--kernel", action="store_true",
                    help="measure on the kernel backend the runs missing from suite/kernel/ (root; real time: the scenario's duration each)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="with --kernel: measure this many cases at once, each group of cases in its own process "
                         "(real time: about the missing runs' total over JOBS)")
    # A --jobs worker: no page, and each run measured once (the parent measures again, alone, what
    # comes back busy).
    ap.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sim-only", action="store_true", help="run the simulator side only and print its values (no page)")
    ap.add_argument("--no-noise", action="store_true",
                    help="leave out the timing-noise section (the simulator side run again with jitter on the hosts' links)")
    args = ap.parse_args(argv)
    cases = [c for c in CASES if not args.only or c.name in args.only] + [c for c in EXTRA_CASES if c.name in (args.only or ())]
    unknown = set(args.only or ()) - {c.name for c in CASES + EXTRA_CASES}
    if unknown:
        print(f"error: unknown cases: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    def seeds_of(case: Case) -> list[int]:
        return list(range(1, (args.seeds or case.seeds) + 1))

    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    started = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    if args.sim_only:
        for case in cases:
            sc = load_scenario(case.file)
            for r in case_rows(case, sc, run_sim(case, seeds_of(case)), []):
                print(f"{case.name}\t{r['metric']}\t{r['sim']}")
        return 0

    def page(with_noise: bool) -> None:
        done, records = [], {}
        noisy: dict[str, dict[str, list[dict[str, Any]]]] = {j: {} for j in (noise.JITTERS if with_noise else ())}

        def one(case: Case) -> tuple[list[int], list[dict[str, Any]], list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
            sc = load_scenario(case.file)
            seeds = seeds_of(case)
            kruns = stored_runs(case, seeds)
            kernels = [r["summary"] for r in kruns]
            by_seed = {r["seed"]: r for r in kruns}
            rows = case_rows(case, sc, run_sim(case, seeds, kernels=by_seed), kernels) if kruns else []
            jittered = {j: case_rows(case, sc, run_sim(case, seeds, noise.host_jitter(case.file, j), by_seed), kernels)
                        for j in noisy if kruns}
            return seeds, kruns, rows, jittered

        # One process per core runs the cases' simulator sides side by side (threads got 1.2
        # cores of two: loading scenarios and summarizing runs hold the interpreter's lock); the
        # page is assembled in the cases' order. Forked, the workers find `one` where it was set.
        global _PAGE_CASE
        _PAGE_CASE = one
        with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=multiprocessing.get_context("fork")) as pool:
            for case, (seeds, kruns, rows, jittered) in zip(cases, pool.map(_page_case, cases)):
                records[case.name] = kruns
                done.append((case, rows, len(seeds), len(kruns)))
                for j, r in jittered.items():
                    noisy[j][case.name] = r
        section = None
        if noisy:
            held = {j: (sum(r["verdict"] is True for rs in by.values() for r in rs),
                        sum(r["verdict"] is not None for rs in by.values() for r in rs)) for j, by in noisy.items()}
            base = {c.name: rows for c, rows, _, nk in done if nk}
            section = noise.render(noise.flips(base, noisy), held, DIFFERENCES, noise.lateness_text(records))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        _write(args.out, render(done, started, records, section))

    if args.kernel:
        # The page's simulator side, for the cases this suite covers.
        page_seconds = PAGE_SECONDS * len(cases) / len(CASES)
        order = sorted(cases, key=lambda c: (KERNEL_FIRST.index(c.name) if c.name in KERNEL_FIRST else len(KERNEL_FIRST)))
        if args.jobs > 1:
            # The cases measured alone (`measured_alone`) go one at a time in this process, after
            # the others' groups.
            alone = [c for c in order if measured_alone(c)]
            order = [c for c in order if not measured_alone(c)]
            secs = {c.name: missing_seconds(c, seeds_of(c)) for c in order + alone}
            groups = kernel_groups(order, secs, args.jobs)
            grouped = [c for g in groups for c in g]
            stored0 = _stored_and_busy(grouped, seeds_of)
            todo = sum(len(seeds_of(c)) for c in grouped) - stored0[0]
            missing = todo + _missing_runs(alone, seeds_of)
            if missing:
                log(suite_estimate([sum(secs[c.name] for c in g) for g in groups],
                                   sum(secs[c.name] for c in alone), missing, page_seconds))
            seeds_arg = ["--seeds", str(args.seeds)] if args.seeds else []
            # Several drivers spinning at once would take the cores the hosts' programs need: the
            # groups sleep between events unless the spin margin was set by hand (kernel/run.py).
            from .kernel.run import SPIN_ENV
            env = {**os.environ, SPIN_ENV: os.environ.get(SPIN_ENV, "0")}
            procs = [subprocess.Popen([sys.executable, "-m", "bufferlab.validate_linux", "--kernel", "--measure-only",
                                       *seeds_arg, "--only", *[c.name for c in g]], env=env) for g in groups]
            run_seconds = sum(secs[c.name] for c in grouped) / todo if todo else 0.0
            try:
                warned = False
                while any(p.poll() is None for p in procs):
                    time.sleep(BUSY_POLL_SECONDS)
                    if not warned:
                        n, b = _stored_and_busy(grouped, seeds_of)
                        done_now = n - stored0[0]
                        msg = busy_outlook(done_now, b - stored0[1], todo - done_now, run_seconds)
                        if msg:
                            log(msg)
                            warned = True
                failed = [p.args for p in procs if p.wait() != 0]
            except KeyboardInterrupt:
                # The workers got the same SIGINT; each keeps the runs it stored.
                for p in procs:
                    p.wait()
                log(STOPPED)
                return 130
            if failed:
                log(f"error: {len(failed)} of {len(procs)} measuring processes failed; their cases keep the runs they stored")
                return 1
            # What the groups measured busy, alone now (`KERNEL_ATTEMPTS`), then the BBR cases.
            busy = _stored_and_busy(grouped, seeds_of)[1]
            if busy:
                log(f"{busy} run{'s' if busy != 1 else ''} came back busy: measured again alone now, up to "
                    f"{KERNEL_ATTEMPTS} times each (at least {_minutes(busy * run_seconds * PACE)})")
            for case in order:
                t0 = time.monotonic()
                n = run_kernel_seeds(case, seeds_of(case), log, redo_busy=True)
                if n:
                    log(f"{case.name}: {n} busy kernel run{'s' if n != 1 else ''} measured again alone in "
                        f"{time.monotonic() - t0:.0f} s")
            order = alone
        elif not args.measure_only:
            missing = _missing_runs(order, seeds_of)
            if missing:
                log(suite_estimate([sum(missing_seconds(c, seeds_of(c)) for c in order)], 0.0, missing, page_seconds))
        for case in order:
            t0 = time.monotonic()
            n = run_kernel_seeds(case, seeds_of(case), log, attempts=1 if args.measure_only and args.jobs <= 1 else None)
            if n:
                log(f"{case.name}: {n} kernel run{'s' if n != 1 else ''} in {time.monotonic() - t0:.0f} s")
                # One at a time, an interrupted suite still leaves a (marked) partial page; after
                # the groups of `--jobs`, the simulator side of every case (a minute) would follow
                # each BBR case.
                if not args.measure_only and args.jobs <= 1:
                    page(False)
    if args.measure_only:
        return 0
    page(not args.no_noise)
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # Ctrl-C: every run finished so far is stored (run_kernel_seeds writes after each seed),
        # the one under way is not. A `--jobs` group's process stops without a word: its parent
        # says it once for all of them.
        if "--measure-only" not in sys.argv:
            print(STOPPED, file=sys.stderr)
        sys.exit(130)
