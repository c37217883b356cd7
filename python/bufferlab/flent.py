"""A run as Flent's data file (``.flent.gz``), so that Flent's plots and GUI read it as a testbed run.

The format is Flent 2.x's (``flent/resultset.py``, file format version 4): a gzip'ed JSON object
with ``metadata`` (the test's ``NAME``, ``T0``, ``STEP_SIZE``, ``LENGTH``, per-series
``SERIES_META``...), ``x_values`` (the time of each step, in seconds from the start),
``results`` (one list per series, aligned with ``x_values``, ``None`` where the series has no
value) and ``raw_values`` (per series, the measurements themselves: ``t`` in Unix seconds and
``val``). Flent loads the test named in ``NAME`` to know the series' plots, so each series is
named as that test names it (docs/flent.md):

- a run with an ``rrul`` test: Flent's ``rrul`` (4 uploads, 4 downloads, 3 UDP probes: the
  series ``TCP upload BE``/``BK``/``CS5``/``EF``, ``TCP download ...``, ``Ping (ms) UDP EF``/
  ``BK``/``BE``, ``Ping (ms) ICMP``), ``rrul_50_down`` (1 upload, 50 downloads: ``TCP download
  BE::1``... ``Ping (ms) UDP BE1``...) or ``rrul_be_nflows`` (any other counts, given as its test
  parameters: ``TCP upload BE::1``..., ``Ping (ms) UDP BE``, ``BE2``...);
- else a run with TCP flows: ``tcp_nup`` (``TCP upload::1``... and ``Ping (ms) ICMP``);
- else a run with probes: ``ping`` (``Ping (ms) ICMP``, ``Ping (ms) UDP``).

Flows the test has no name for are written too, under their own ids (``UDP udp-1``,
``Ping (ms) ping-3``); Flent's plots leave them out. The series with Flent's computed runners
(``TCP upload avg``/``sum``, ``TCP download avg``/``sum``, ``TCP totals``, ``Ping (ms) avg``) are
computed as Flent's ``ComputingRunner`` does: per step, over the values present.

Values come from the run's time series: a TCP flow's goodput per step in Mbit/s (netperf's
``-f m``: 10^6 bit/s), ``None`` until the flow has started; a probe's mean RTT over the replies of
the step in ms, ``None`` in a step without one. The file's times start at the Unix epoch (the run
has no wall-clock time), so the same run gives the same bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import plan_types as pt

if TYPE_CHECKING:
    import pandas as pd

    from .results import Result

__all__ = ["FILEFORMAT_VERSION", "STEP", "check_plan", "flent_data", "write_flent", "write_result", "sample_sweep",
           "write_sweep", "FlentError"]

# flent/resultset.py: the version Flent 2.x writes and reads.
FILEFORMAT_VERSION = 4
# Flent's --step-size: the sample step a run gets when it samples for a Flent file.
STEP = "200ms"
EPOCH = "1970-01-01T00:00:00.000000Z"
# Flent's rrul: its four streams each way and its UDP probes, by their DSCP marks.
RRUL_MARKS = ("BE", "BK", "CS5", "EF")
RRUL_UDP_MARKS = ("EF", "BK", "BE")
MBIT = 1e6


class FlentError(ValueError):
    """A run Flent's format cannot hold (no time series, no stream or probe)."""


@dataclass
class _Series:
    name: str
    flow: str
    units: str  # "Mbits/s" or "ms"
    runner: str


@dataclass
class _Test:
    name: str
    series: list[_Series] = field(default_factory=list)
    # Computed series: (name, runner, members, units).
    computed: list[tuple[str, str, list[str], str]] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    host: str | None = None
    local_host: str | None = None


@dataclass
class _Flow:
    id: str
    kind: str
    src: str
    dst: str
    group: str | None
    proto: str | None


def _flows(plan: Mapping[str, Any] | pt.Scenario) -> list[_Flow]:
    typed = pt.typed(plan)
    out = []
    for fid, b, src, dst in pt.flow_ids(typed):
        block = typed.traffic[b]
        proto = block.proto if isinstance(block, pt.PingTraffic) else None
        out.append(_Flow(fid, block.kind, src, dst, block.group, proto))
    return out


def _rrul(flows: list[_Flow]) -> _Test | None:
    """The first rrul test of the run: the flows of a group label that has an ICMP probe, its
    uploads the TCP flows from the probe's source, its downloads those to it."""
    for icmp in flows:
        if icmp.kind != "ping" or icmp.proto != "icmp" or icmp.group is None:
            continue
        mine = [f for f in flows if f.group == icmp.group]
        client, server = icmp.src, icmp.dst
        up = [f for f in mine if f.kind == "tcp" and f.src == client and f.dst == server]
        down = [f for f in mine if f.kind == "tcp" and f.src == server and f.dst == client]
        udp = [f for f in mine if f.kind == "ping" and f.proto == "udp"]
        return _rrul_test(up, down, udp, icmp, client, server)
    return None


def _rrul_test(up: list[_Flow], down: list[_Flow], udp: list[_Flow], icmp: _Flow, client: str, server: str) -> _Test:
    n, m, k = len(up), len(down), len(udp)
    if (n, m, k) == (4, 4, 3):
        t = _Test("rrul")
        up_names = [f"TCP upload {x}" for x in RRUL_MARKS]
        down_names = [f"TCP download {x}" for x in RRUL_MARKS]
        udp_names = [f"Ping (ms) UDP {x}" for x in RRUL_UDP_MARKS]
    elif (n, m, k) == (1, 50, 3):
        t = _Test("rrul_50_down")
        up_names = ["TCP upload BE"]
        down_names = [f"TCP download BE::{i}" for i in range(1, 51)]
        udp_names = [f"Ping (ms) UDP BE{i}" for i in range(1, 4)]
    else:
        t = _Test("rrul_be_nflows", parameters={"upload_streams": str(n), "download_streams": str(m)})
        up_names = [f"TCP upload BE::{i}" for i in range(1, n + 1)]
        down_names = [f"TCP download BE::{i}" for i in range(1, m + 1)]
        udp_names = ["Ping (ms) UDP BE"] + [f"Ping (ms) UDP BE{i}" for i in range(2, k + 1)]
    t.host, t.local_host = server, client
    t.series += [_Series(nm, f.id, "Mbits/s", "NetperfDemoRunner") for nm, f in zip(up_names, up)]
    t.series += [_Series(nm, f.id, "Mbits/s", "NetperfDemoRunner") for nm, f in zip(down_names, down)]
    t.series += [_Series(nm, f.id, "ms", "IrttRunner") for nm, f in zip(udp_names, udp)]
    t.series.append(_Series("Ping (ms) ICMP", icmp.id, "ms", "PingRunner"))
    t.computed += [
        ("TCP upload avg", "AverageRunner", up_names, "Mbits/s"),
        ("TCP upload sum", "SumRunner", up_names, "Mbits/s"),
        ("TCP download avg", "AverageRunner", down_names, "Mbits/s"),
        ("TCP download sum", "SumRunner", down_names, "Mbits/s"),
    ]
    if t.name != "rrul_50_down":
        t.computed.append(("TCP totals", "SumRunner", up_names + down_names, "Mbits/s"))
    t.computed.append(("Ping (ms) avg", "AverageRunner", udp_names + ["Ping (ms) ICMP"], "ms"))
    return t


def _test(flows: list[_Flow]) -> _Test:
    """Flent's test whose series the run's flows are (the module's docstring)."""
    t = _rrul(flows)
    if t is not None:
        return t
    tcp = [f for f in flows if f.kind == "tcp"]
    icmp = next((f for f in flows if f.kind == "ping" and f.proto == "icmp"), None)
    if tcp:
        t = _Test("tcp_nup", parameters={"upload_streams": str(len(tcp))})
        names = [f"TCP upload::{i}" for i in range(1, len(tcp) + 1)]
        t.series += [_Series(nm, f.id, "Mbits/s", "NetperfDemoRunner") for nm, f in zip(names, tcp)]
        t.computed += [("TCP upload avg", "AverageRunner", names, "Mbits/s"),
                       ("TCP upload sum", "SumRunner", names, "Mbits/s")]
        if icmp is not None:
            t.series.append(_Series("Ping (ms) ICMP", icmp.id, "ms", "PingRunner"))
        t.local_host, t.host = tcp[0].src, tcp[0].dst
        return t
    udp = next((f for f in flows if f.kind == "ping" and f.proto == "udp"), None)
    if icmp is None and udp is None:
        raise FlentError("Flent's tests measure TCP streams and latency probes; this run has neither "
                         "(add a tcp, ping or rrul traffic block)")
    t = _Test("ping")
    if icmp is not None:
        t.series.append(_Series("Ping (ms) ICMP", icmp.id, "ms", "PingRunner"))
    if udp is not None:
        t.series.append(_Series("Ping (ms) UDP", udp.id, "ms", "IrttRunner"))
    first = icmp or udp
    t.local_host, t.host = first.src, first.dst
    return t


def _extras(test: _Test, flows: list[_Flow]) -> list[_Series]:
    """The flows the test has no name for, under their own ids."""
    named = {s.flow for s in test.series}
    out = []
    for f in flows:
        if f.id in named:
            continue
        if f.kind == "ping":
            out.append(_Series(f"Ping (ms) {f.id}", f.id, "ms", "PingRunner"))
        else:
            out.append(_Series(f"{f.kind.upper()} {f.id}", f.id, "Mbits/s", "bufferlab"))
    return out


def _mean(values: Iterable[float | None]) -> float | None:
    v = [x for x in values if x is not None]
    return math.fsum(v) / len(v) if v else None


def flent_data(
    plan: Mapping[str, Any] | pt.Scenario,
    timeseries: pd.DataFrame,
    *,
    flow_starts: Mapping[str, float | None],
    step_s: float,
    duration_s: float,
    title: str = "",
    note: str = "",
    filename: str = "bufferlab.flent.gz",
) -> dict[str, Any]:
    """The Flent data object of a run: its plan, its time series (the ``timeseries`` table) and
    each flow's start time (the flows table's ``start_s``)."""
    if not len(timeseries):
        raise FlentError("the run has no time series (set run.sample, e.g. \"200ms\", Flent's step)")
    flows = _flows(plan)
    test = _test(flows)
    series = test.series + _extras(test, flows)
    ts = timeseries[timeseries["object"] == "flow"]
    x_values = sorted(set(float(t) for t in timeseries["time_s"]))
    index = {x: i for i, x in enumerate(x_values)}
    by_flow: dict[tuple[str, str], dict[float, float]] = {}
    for (fid, metric), g in ts.groupby(["id", "metric"], sort=False):
        by_flow[(str(fid), str(metric))] = dict(zip(g["time_s"].astype(float), g["value"].astype(float)))

    results: dict[str, list[float | None]] = {}
    raw: dict[str, list[dict[str, Any]]] = {}
    meta: dict[str, dict[str, Any]] = {}
    for s in series:
        col: list[float | None] = [None] * len(x_values)
        rows = []
        if s.units == "ms":
            for t, v in by_flow.get((s.flow, "rtt_s"), {}).items():
                col[index[t]] = v * 1e3
        else:
            start = flow_starts.get(s.flow)
            for t, v in by_flow.get((s.flow, "goodput_bps"), {}).items():
                # A stream measures from its start on, as netperf does (a step ending at the
                # start carries nothing of it).
                if start is not None and t > start:
                    col[index[t]] = v / MBIT
        # As Flent's runners record them: netperf's interval (``dur``), a probe's sequence number.
        for t, v in zip(x_values, col):
            if v is not None:
                extra = {"dur": step_s} if s.units == "Mbits/s" else {"seq": len(rows)}
                rows.append({"t": t, "val": v, **extra})
        results[s.name] = col
        raw[s.name] = rows
        meta[s.name] = {"UNITS": s.units, "RUNNER": s.runner, "MEAN_VALUE": _mean(col), "BUFFERLAB_FLOW": s.flow}
    for name, runner, members, units in test.computed:
        present = [m for m in members if m in results]
        col = []
        for i in range(len(x_values)):
            vals = [results[m][i] for m in present if results[m][i] is not None]
            if not vals:
                col.append(None)
            else:
                total = math.fsum(vals)
                col.append(total / len(vals) if runner == "AverageRunner" else total)
        means = [meta[m]["MEAN_VALUE"] for m in present if meta[m]["MEAN_VALUE"] is not None]
        mean = (math.fsum(means) / len(means) if runner == "AverageRunner" else math.fsum(means)) if means else None
        results[name] = col
        raw[name] = []
        meta[name] = {"UNITS": units, "RUNNER": runner, "MEAN_VALUE": mean, "COMPUTED_LATE": False}

    # Flent's LENGTH is the streams' (TOTAL_LENGTH the whole test's): from the first one's start.
    starts = [flow_starts.get(s.flow) for s in test.series if s.units == "Mbits/s"]
    length = duration_s - min((x for x in starts if x is not None), default=0.0)
    metadata = {
        "NAME": test.name,
        "TITLE": title,
        "NOTE": note,
        "TIME": EPOCH,
        "T0": EPOCH,
        "HOST": test.host,
        "HOSTS": [test.host] if test.host else [],
        "LOCAL_HOST": test.local_host,
        "LENGTH": length,
        "TOTAL_LENGTH": duration_s,
        "STEP_SIZE": step_s,
        "TEST_PARAMETERS": dict(test.parameters),
        "IP_VERSION": 4,
        "FLENT_VERSION": None,
        "BATCH_NAME": None,
        "BATCH_TIME": None,
        "BATCH_TITLE": None,
        "BATCH_UUID": None,
        "DATA_FILENAME": filename,
        "HTTP_GETTER_URLLIST": None,
        "HTTP_GETTER_DNS": None,
        "HTTP_GETTER_WORKERS": None,
        "FAILED_RUNNERS": 0,
        "SERIES_META": meta,
    }
    return {"metadata": metadata, "version": FILEFORMAT_VERSION, "x_values": x_values, "results": results,
            "raw_values": raw}


def write_flent(data: Mapping[str, Any], path: str | Path) -> Path:
    """Write a Flent data object as Flent does (indented, sorted JSON), gzip'ed with no time
    stamp in its header, so the same run gives the same bytes."""
    path = Path(path)
    text = json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n"
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
        gz.write(text.encode())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)
    return path


def _starts(flows: pd.DataFrame | list[Mapping[str, Any]]) -> dict[str, float | None]:
    rows = flows.to_dict("records") if hasattr(flows, "to_dict") else list(flows)
    out = {}
    for r in rows:
        s = r.get("start_s")
        out[str(r["id"])] = None if s is None or (isinstance(s, float) and math.isnan(s)) else float(s)
    return out


def check_plan(plan: Mapping[str, Any]) -> None:
    """Raise :class:`FlentError` if a run of ``plan`` has nothing Flent's tests show (no TCP
    stream, latency probe or RRUL block): known from the plan, before anything runs."""
    _test(_flows(plan))


def write_result(result: Result, path: str | Path, *, title: str = "", note: str = "") -> Path:
    """Write a run's result (with its plan and time series) as a Flent data file."""
    if result.plan is None:
        raise FlentError("the result has no plan (plan.json) to name its flows by")
    run = result.summary.get("run", {})
    step = run.get("sample_s")
    if not step:
        raise FlentError("the run has no time series (set run.sample, e.g. \"200ms\", Flent's step)")
    path = Path(path)
    data = flent_data(
        result.plan, result.timeseries, flow_starts=_starts(result.summary.get("flows", [])),
        step_s=float(step), duration_s=float(run.get("duration_s", 0.0)), title=title, note=note,
        filename=path.name,
    )
    return write_flent(data, path)


# ---------------------------------------------------------------- sweeps


def sample_sweep(spec: Any) -> bool:
    """Make a sweep spec's points sample at Flent's step where neither its base nor its keys set
    ``run.sample`` (sampling reads the engine's counters and changes nothing in a run; the points'
    stored results are keyed on it, so a sweep run before without it runs again). Returns whether
    the spec changed."""
    keys = set(spec.set) | set(spec.grid) | {k for z in spec.zips for k in z}
    if "run.sample" in keys or (spec.base.get("run") or {}).get("sample") is not None:
        return False
    spec.set["run.sample"] = STEP
    return True


def write_sweep(points: Iterable[Any], store: str | Path, folder: str | Path, *, name: str = "") -> list[Path]:
    """One Flent data file per finished point × seed of a sweep's results folder ``store``:
    ``folder/<point_id>.s<seed>.flent.gz``, titled with the point's swept values. Points that
    failed or did not run are left out."""
    import pandas as pd

    from .scenario import load_scenario

    parts = Path(store) / "parts"
    folder = Path(folder)
    written = []
    for p in points:
        d = parts / p.part
        if not (d / "timeseries.parquet").is_file() or not (d / "flows.parquet").is_file():
            continue
        plan = load_scenario(p.scenario).plan
        run = plan["run"]
        flows = pd.read_parquet(d / "flows.parquet")
        ts = pd.read_parquet(d / "timeseries.parquet")
        title = ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in p.params.items())
        path = folder / f"{p.point_id}.s{p.seed}.flent.gz"
        data = flent_data(
            plan, ts, flow_starts=_starts(flows), step_s=run["sample_ns"] / 1e9,
            duration_s=run["duration_ns"] / 1e9, title=title, note=f"{name} point {p.point_id}, seed {p.seed}".strip(),
            filename=path.name,
        )
        written.append(write_flent(data, path))
    return written
