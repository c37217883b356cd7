"""``bufferlab crosscheck FILE``: the scenario in bufferlab and in ns-3, side by side."""

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import ScenarioError
from .common import err_console, fail, out_console, parse_sets, report_problems


def _fmt(metric: str, x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if metric.endswith("_bps"):
        return f"{x / 1e6:.3f} Mb/s"
    if metric.endswith("_s"):
        return f"{x * 1e3:.2f} ms"
    if metric == "utilization":
        return f"{100 * x:.2f}%"
    if metric in ("dropped", "enqueued", "retransmits", "timeouts", "duplicates"):
        return f"{x:,.1f}" if x != int(x) else f"{int(x):,}"
    return f"{x:.3g}"


def _pm(metric: str, mean: float, sd: float, n: int) -> str:
    s = _fmt(metric, mean)
    if n > 1 and not math.isnan(sd) and s != "-":
        s += f" ± {_fmt(metric, sd)}"
    return s


def _diff(d: float) -> str:
    if d is None or math.isnan(d):
        return "-"
    if math.isinf(d):
        return "ns-3 0"
    return f"{100 * d:+.1f}%"


def _active(summary: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The queues that queued and the links that were busy (a dumbbell of 100 pairs has 404
    directions; --out and --json have them all)."""
    out = set()
    for r in summary:
        top = max(_or0(r["bufferlab_mean"]), _or0(r["ns3_mean"]))
        if r["metric"] == "utilization" and top > 0.05:
            out.add(("link", r["id"]))
        if (r["metric"] == "dropped" and top > 0) or (r["metric"] == "occupancy_mean_pkts" and top > 0.1):
            out.add(("queue", r["id"]))
    return out


def _has_value(r: dict[str, Any]) -> bool:
    """A row with something to compare (a UDP flow has no RTT; ns-3 counts no retransmissions of it)."""
    b, n = r["bufferlab_mean"], r["ns3_mean"]
    nan = lambda x: x is None or math.isnan(x)  # noqa: E731
    return not ((nan(b) or b == 0) and (nan(n) or n == 0)) or not (nan(b) or nan(n))


def _or0(x: float) -> float:
    return 0.0 if x is None or math.isnan(x) else x


def print_tables(console: Any, summary: list[dict[str, Any]], seeds: list[int], max_flows: int = 20) -> None:
    from rich.table import Table

    from ..crosscheck.compare import ALL

    active = _active(summary)
    show_values = 1 < len(seeds) <= 10
    for obj, title in (("flow", "flows"), ("queue", "queues"), ("link", "links")):
        rows = [r for r in summary if r["object"] == obj and (obj == "flow" or (obj, r["id"]) in active) and _has_value(r)]
        if obj == "flow":
            ids = list(dict.fromkeys(r["id"] for r in rows if r["id"] != ALL))
            hidden = len(ids) - max_flows
            keep = set(ids[:max_flows]) | {ALL}
            rows = [r for r in rows if r["id"] in keep]
        if not rows:
            continue
        t = Table(title=f"{title} (bufferlab vs ns-3, mean ± sd over {len(seeds)} seed{'s' if len(seeds) != 1 else ''})", title_justify="left")
        for name, just in (("id", "left"), ("metric", "left"), ("bufferlab", "right"), ("ns-3", "right"), ("difference", "right")):
            t.add_column(name, justify=just, no_wrap=True)
        if show_values:
            t.add_column("per seed: bufferlab / ns-3", justify="left")
        for r in rows:
            cells = [str(r["id"]), r["metric"], _pm(r["metric"], r["bufferlab_mean"], r["bufferlab_sd"], r["seeds"]),
                     _pm(r["metric"], r["ns3_mean"], r["ns3_sd"], r["seeds"]), _diff(r["rel_diff"])]
            if show_values:
                bl = json.loads(r["bufferlab_values"])
                ns = json.loads(r["ns3_values"])
                cells.append(" ".join(f"{_short(r['metric'], a)}/{_short(r['metric'], b)}" for a, b in zip(bl, ns)))
            t.add_row(*cells)
        console.print(t)
        if obj == "flow" and hidden > 0:
            console.print(f"({hidden} more flows in --out / --json)", markup=False)


def _short(metric: str, x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if metric.endswith("_bps"):
        return f"{x / 1e6:.2f}"
    if metric.endswith("_s"):
        return f"{x * 1e3:.1f}"
    if metric == "utilization":
        return f"{100 * x:.1f}"
    return f"{x:.0f}"


def crosscheck(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    seeds: Annotated[int, typer.Option("--seeds", "-n", min=1, help="Run this many seeds (the file's seed and the next ones; seed s is ns-3's RngRun s).")] = 3,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write crosscheck.json and Parquet tables (records, summary, runs) to this directory (replaced atomically).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON records instead of tables.")] = False,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, help="First seed (default: the file's run.seed).")] = None,
    sets: Annotated[Optional[list[str]], typer.Option("--set", metavar="KEY=VALUE", help="Override a key of the file (as in `bufferlab run`).")] = None,
    ns3_opts: Annotated[Optional[list[str]], typer.Option("--ns3", metavar="KEY=VALUE", help="Put back one of ns-3's own rules, to measure a difference: recovery=prr, device_queue=N, socket.ATTR=VALUE, qdisc.ATTR=VALUE (repeatable; docs/crosscheck.md).")] = None,
) -> None:
    """Run a scenario in bufferlab and in ns-3 and compare flows, queues and links.

    Needs ns-3: `make ns3` in the source tree (or `pip install ns3==3.44.post0`). What ns-3 cannot express
    (SplitBuff, a NIC ring with BQL, ATM framing, ...) is refused naming the key that blocks it.
    """
    from .. import plan_types as pt
    from ..crosscheck.compare import records, summarize, write_out
    from ..crosscheck.ns3env import Ns3Missing, program
    from ..crosscheck.options import parse_ns3_options
    from ..crosscheck.runner import run_pair
    from ..crosscheck.translate import to_ns3
    from ..scenario import load_scenario

    try:
        options = parse_ns3_options(ns3_opts)
    except ScenarioError as e:
        report_problems(e, None)
    try:
        sc = load_scenario(file, overrides=parse_sets(sets))
        # What ns-3 cannot express, before anything runs (limits of sizing rules stand in).
        to_ns3(sc, limits={name: {"limit_pkts": 100} for name in sc.link_names}, options=options)
    except ScenarioError as e:
        report_problems(e, file)
    try:
        exe = program(progress=lambda m: err_console.print(m, markup=False))
    except Ns3Missing as e:
        fail(str(e))
    first = sc.seed if seed is None else seed
    seed_list = list(range(first, first + seeds))
    if not as_json and any(isinstance(b, pt.TCP_TRAFFIC) for b in pt.typed(sc).traffic):
        err_console.print("bufferlab runs with rack = false, frto = false, timestamps = false, gso = false, "
                          "rto_rearm = false, tlp = false, dsack = false, quickack = false, comp_sack = false, "
                          "push_ack = false, window_quickack = false and sack_rtt = false where the file leaves them "
                          "out (ns-3 has no RACK, F-RTO, GSO, tail loss probes, D-SACK, quick ACKs, SACK compression, "
                          "PSH, receive-window growth or RTT samples from SACKs, restarts its timer on new ACKs only, "
                          "and runs without the timestamp option's bytes), "
                          "and NewReno with ssthresh_from = \"flight\" (ns-3's NewReno reduces from FlightSize)",
                          markup=False)
    pairs = []
    for s in seed_list:
        if not as_json:
            err_console.print(f"seed {s}: bufferlab, then ns-3 ...", markup=False)
        try:
            pairs.append(run_pair(sc, s, exe, options))
        except ScenarioError as e:
            report_problems(e, file)
        except RuntimeError as e:
            err_console.print(f"{file}: seed {s}: {e}", markup=False)
            raise typer.Exit(1) from None
    recs = records(pairs)
    summary = summarize(recs)
    meta = {
        "scenario": str(file), "seeds": seed_list, "ns3_options": options.describe(),
        "bufferlab_wall_s": sum(p.bufferlab_wall_s for p in pairs), "ns3_wall_s": sum(p.ns3_wall_s for p in pairs),
    }
    if out is not None:
        try:
            write_out(out, pairs, recs, summary, meta)
        except (OSError, ValueError) as e:
            err_console.print(f"--out {out}: {e}", markup=False)
            raise typer.Exit(1) from None
    if as_json:
        sys.stdout.write(json.dumps(_finite({**meta, "summary": summary, "records": recs})) + "\n")
        return
    print_tables(out_console, summary, seed_list)
    out_console.print(f"wall time: bufferlab {meta['bufferlab_wall_s']:.2f} s, ns-3 {meta['ns3_wall_s']:.2f} s", markup=False)
    if out is not None:
        out_console.print(f"wrote {out}", markup=False)


def _finite(x: Any) -> Any:
    """JSON has no NaN: a value one side does not have is null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x
