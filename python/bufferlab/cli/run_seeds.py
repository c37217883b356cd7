"""``bufferlab run FILE --seeds N``: the tables of :func:`bufferlab.seeds.run_seeds`, each figure
as its mean ± the half-width of its 95% interval over the seeds (or their JSON)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .common import err_console, fail, out_console
from .tables import FLOWS_LISTED, FLOWS_SHOWN, _host_nodes, _limit, _print_table, _split_host_ports, counted

if TYPE_CHECKING:
    import pandas as pd

# How each metric of :mod:`bufferlab.seeds` is shown: (heading, format).
SHOWN = {
    "goodput_bps": ("goodput", "rate"),
    "rtt_mean_s": ("rtt mean", "time"),
    "rtt_p99_s": ("rtt p99", "time"),
    "loss_rate": ("loss", "share"),
    "retransmits": ("retx", "count"),
    "timeouts": ("timeouts", "count"),
    "completion_time_s": ("done in", "time"),
    "sojourn_mean_s": ("sojourn mean", "time"),
    "sojourn_p99_s": ("sojourn p99", "time"),
    "occupancy_mean_pkts": ("mean occupancy", "pkts"),
    "dropped": ("dropped", "count"),
    "marked": ("marked", "count"),
    "utilization": ("utilization", "share"),
}
# Counts shown only where some row has one (a run without ECN marks no packet).
SHOWN_IF_ANY = {"marked", "timeouts"}


def _fmt(kind: str, v: float) -> str:
    from ..units import format_rate_bps, format_time_ns

    if kind == "rate":
        return format_rate_bps(v)
    if kind == "time":
        return format_time_ns(v * 1e9)
    if kind == "share":
        return f"{100 * v:.2f}%"
    if kind == "pkts":
        return f"{v:.3g} pkt"
    return f"{v:,.1f}" if abs(v) < 100 and v != round(v) else f"{v:,.0f}"


# Figures a kind of flow has none of, as the one-run table leaves them out: a ping carries no
# payload (no goodput), and neither a ping nor UDP retransmits.
NOT_FOR = {"goodput_bps": {"ping"}, "retransmits": {"ping", "udp"}, "timeouts": {"ping", "udp"}}


def _cell(row: dict[str, Any], metric: str, kind: str) -> str:
    """``mean ± half-width`` (the half-width left out with one seed or nothing to spread)."""
    from ..seeds import spread

    if row.get("kind") in NOT_FOR.get(metric, ()):
        return "-"
    mean = row.get(f"{metric}_mean")
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    text = _fmt(kind, mean)
    if spread(row, metric) > 0:
        text += " ± " + _fmt(kind, row[f"{metric}_ci"])
    return text


def _json_rows(df: "pd.DataFrame", key: str, keep: list[str], metrics: list[str]) -> list[dict[str, Any]]:
    def num(v: Any) -> Any:
        return None if isinstance(v, float) and math.isnan(v) else v

    out = []
    for r in df.to_dict("records"):
        d = {k: num(r.get(k)) for k in [key, *keep] if k in r}
        for m in metrics:
            if r.get(f"{m}_n"):
                d[m] = {s: num(r[f"{m}_{s}"]) for s in ("mean", "sd", "ci", "lo", "hi", "n")}
        out.append(d)
    return out


def run_seeds(
    file: Path,
    sc: Any,
    overrides: dict[str, Any],
    n: int,
    *,
    out: Path | None,
    as_json: bool,
    quiet: bool,
    yes: bool,
    workers: int | None,
    list_all: bool,
) -> None:
    """Run ``file`` (read as ``sc`` with ``overrides``) over ``n`` seeds and print its tables."""
    from ..cost import LONG_RUN_S
    from ..errors import EngineError, LongRunError, ScenarioError
    from ..outpath import OutputError
    from ..seeds import FLOW_KEEP, FLOW_METRICS, LINK_KEEP, LINK_METRICS, QUEUE_METRICS
    from ..seeds import run_seeds as over_seeds
    from ..store import StoreError
    from ..sweep import SweepInterrupted

    try:
        res = over_seeds(file, n, seed=sc.seed, overrides=overrides, out=out, workers=workers,
                         progress=not (quiet or as_json), max_wall_s=None if yes else LONG_RUN_S)
    except ScenarioError as e:
        for p in e.problems:
            err_console.print(p if str(file) in p else f"{file}: {p}", markup=False)
        raise typer.Exit(2) from None
    except OutputError as e:
        fail(f"--out {out}: {e}")
    except LongRunError as e:
        fail(f"{file}: {e}; pass --yes to run it as it is")
    except SweepInterrupted as e:
        r = e.report
        kept = f"; the {r.done + r.failed} finished are kept in {out}: run the same command to finish" if out else ""
        err_console.print(f"interrupted{kept}", markup=False)
        raise typer.Exit(130) from None
    except (StoreError, EngineError) as e:
        fail(str(e), 1)
    if as_json:
        doc = {
            "scenario": str(file), "seeds": res.seeds, "level": res.level,
            "flows": _json_rows(res.flows, "id", FLOW_KEEP, FLOW_METRICS),
            "queues": _json_rows(res.queues, "link", ["discipline"], QUEUE_METRICS),
            "links": _json_rows(res.links, "link", LINK_KEEP, LINK_METRICS),
            "warnings": res.warnings,
        }
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        return
    seeds = res.seeds
    out_console.print(
        f"{file}: {counted(len(seeds), 'seed')} ({seeds[0]}..{seeds[-1]}), {sc.duration_s:g} s simulated each, "
        f"in {res.wall_seconds:.3g} s ({res.engine_seconds:.3g} engine-seconds); "
        f"mean ± half-width of the {res.level:.0%} interval over the seeds",
        markup=False,
    )
    # A host's port is listed when it dropped packets (`_split_host_ports`): at any seed, on average.
    queues = [{**q, "dropped": q.get("dropped_mean")} for q in res.queues.to_dict("records")]
    _print_rows(res.flows.to_dict("records"), queues, res.links.to_dict("records"), _host_nodes(sc.plan), list_all)
    for w in res.warnings:
        out_console.print(f"warning: {w}", markup=False, style="bold")
    if out is not None:
        out_console.print(f"wrote {out} (a sweep's results folder: bufferlab query / plot / report read it)", markup=False)


def _print_rows(flows: list[dict[str, Any]], queues: list[dict[str, Any]], links: list[dict[str, Any]],
                hosts: set[str], list_all: bool) -> None:
    from ..seeds import FLOW_METRICS, LINK_METRICS, QUEUE_METRICS

    def cols(metrics: list[str], rows: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
        def any_of(m: str) -> bool:
            return any(not math.isnan(r.get(f"{m}_mean", math.nan)) and r[f"{m}_mean"] != 0 for r in rows)

        return [(SHOWN[m][0], "right", lambda r, m=m: _cell(r, m, SHOWN[m][1])) for m in metrics
                if m not in SHOWN_IF_ANY or any_of(m)]

    if flows:
        shown = flows if list_all or len(flows) <= FLOWS_SHOWN else flows[:FLOWS_LISTED]
        head = [("flow", "left", lambda r: str(r.get("id"))), ("kind", "left", lambda r: str(r.get("kind"))),
                ("path", "left", lambda r: f"{r.get('src')}->{r.get('dst')}")]
        _print_table(out_console, "flows", head + cols(FLOW_METRICS, flows), shown)
        if len(shown) < len(flows):
            out_console.print(f"+ {counted(len(flows) - len(shown), 'more flow')} (--all lists them)", markup=False)
    shown_q, hidden_q = _split_host_ports(queues, hosts, list_all)
    if shown_q:
        head = [("link", "left", lambda r: str(r.get("link"))), ("qdisc", "left", lambda r: str(r.get("discipline"))),
                ("limit", "right", _limit)]
        _print_table(out_console, "queues", head + cols(QUEUE_METRICS, shown_q), shown_q)
    if hidden_q:
        out_console.print(f"+ {counted(len(hidden_q), 'host queue')} not listed (--all lists them)", markup=False)
    shown_l, hidden_l = _split_host_ports(links, hosts, list_all)
    if shown_l:
        from ..units import format_rate_bps

        head = [("link", "left", lambda r: str(r.get("link"))),
                ("rate", "right", lambda r: format_rate_bps(r["rate_bps"]) if r.get("rate_bps") is not None else "-")]
        _print_table(out_console, "links", head + cols(LINK_METRICS, shown_l), shown_l)
    if hidden_l:
        out_console.print(f"+ {counted(len(hidden_l), 'host link')} not listed (--all lists them)", markup=False)
