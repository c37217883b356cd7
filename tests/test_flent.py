"""Flent's data files (docs/flent.md): the series each test names, their values against the run's
time series, and Debian's flent reading the file back (its plots, its own loader).

The tests that run Flent skip, saying why, where it is not installed (``make test`` installs it
from the distribution as root: the Makefile's ``tool-deps``)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bufferlab
from bufferlab.cli import app
from bufferlab.flent import FlentError, flent_data, write_result
from bufferlab.results import Result


def _flent() -> tuple[list[str], str | None]:
    """Flent's command, and why it cannot run (None: it can)."""
    exe = shutil.which("flent")
    if exe is None:
        return [], "flent is not installed (apt-get install flent python3-matplotlib)"
    real = Path(os.path.realpath(exe))
    first = real.read_text(errors="replace").splitlines()[0]
    python = first[2:].strip() if first.startswith("#!") else "python3"
    probe = subprocess.run([python, "-c", "import matplotlib"], capture_output=True, text=True)
    if probe.returncode != 0:
        return [], f"flent's python ({python}) has no matplotlib (apt-get install python3-matplotlib)"
    return [python, str(real.parent)], None


FLENT, WHY_NOT = _flent()
needs_flent = pytest.mark.skipif(WHY_NOT is not None, reason=f"Flent unavailable: {WHY_NOT}")

TOPOLOGY = """
[run]
duration = "{duration}"
{sample}
[topology]
template = "access"
up = {{ rate = "10Mbps", delay = "10ms", queue = {{ discipline = "fifo", limit = "100pkt" }} }}
down = {{ rate = "20Mbps", delay = "10ms", queue = {{ discipline = "fifo", limit = "100pkt" }} }}
"""


def scenario(tmp_path: Path, traffic: str, duration: str = "4s", sample: str = "", name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(TOPOLOGY.format(duration=duration, sample=sample) + textwrap.dedent(traffic))
    return p


def rrul(extra: str = "") -> str:
    return '\n[[traffic]]\nkind = "rrul"\nfrom = "client"\nto = "server"\ndelay = "1s"\n' + extra


def read(path: Path) -> dict:
    with gzip.open(path, "rt") as f:
        return json.load(f)


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


RRUL_SERIES = {
    *(f"TCP {d} {m}" for d in ("upload", "download") for m in ("BE", "BK", "CS5", "EF")),
    "Ping (ms) UDP EF", "Ping (ms) UDP BK", "Ping (ms) UDP BE", "Ping (ms) ICMP",
    "TCP upload avg", "TCP upload sum", "TCP download avg", "TCP download sum", "TCP totals", "Ping (ms) avg",
}


@pytest.fixture(scope="module")
def rrul_run(tmp_path_factory):
    """A 4 s rrul run with no run.sample, written with --out and --flent."""
    d = tmp_path_factory.mktemp("rrul")
    sc = scenario(d, rrul())
    r = cli("run", sc, "--out", d / "out", "--flent", d / "rrul.flent.gz")
    assert r.exit_code == 0, r.output
    return sc, d / "out", d / "rrul.flent.gz"


def test_an_rrul_run_is_flents_rrul_test(rrul_run):
    _, out, path = rrul_run
    data = read(path)
    assert data["version"] == 4
    m = data["metadata"]
    assert (m["NAME"], m["HOST"], m["LOCAL_HOST"], m["STEP_SIZE"]) == ("rrul", "server", "client", 0.2)
    assert (m["TOTAL_LENGTH"], m["LENGTH"]) == (4.0, 3.0)
    assert set(data["results"]) == RRUL_SERIES
    x = data["x_values"]
    # Sampling was turned on at Flent's step: 0, 0.2, ... 3.8 s.
    assert len(x) == 20 and x[0] == 0.0 and all(b - a == pytest.approx(0.2) for a, b in zip(x, x[1:]))
    assert all(len(v) == len(x) for v in data["results"].values())
    assert m["SERIES_META"]["TCP upload BE"]["UNITS"] == "Mbits/s"
    assert m["SERIES_META"]["Ping (ms) ICMP"]["UNITS"] == "ms"


def test_the_series_are_the_runs_time_series(rrul_run):
    _, out, path = rrul_run
    data = read(path)
    res = Result.read(out)
    ts = res.timeseries
    flows = res.flows.set_index("id")
    up = flows[(flows["kind"] == "tcp") & (flows["src"] == "client")].index.tolist()
    down = flows[(flows["kind"] == "tcp") & (flows["src"] == "server")].index.tolist()
    icmp = "ping-1"
    x = data["x_values"]

    def series(fid: str, metric: str) -> dict[float, float]:
        s = ts[(ts["id"] == fid) & (ts["metric"] == metric)]
        return dict(zip(s["time_s"].round(9), s["value"]))

    for name, fid in zip(("TCP upload BE", "TCP upload BK", "TCP upload CS5", "TCP upload EF"), up):
        g = series(fid, "goodput_bps")
        want = [g[round(t, 9)] / 1e6 if t > 1.0 else None for t in x]
        assert data["results"][name] == pytest.approx(want)
    assert data["results"]["TCP download EF"] == pytest.approx(
        [series(down[3], "goodput_bps")[round(t, 9)] / 1e6 if t > 1.0 else None for t in x])
    rtt = series(icmp, "rtt_s")
    assert data["results"]["Ping (ms) ICMP"] == pytest.approx([rtt[round(t, 9)] * 1e3 if round(t, 9) in rtt else None for t in x])
    # Before the streams, the probe sees the idle path; the raw values are the same points.
    assert data["results"]["Ping (ms) ICMP"][0] is None and 20.0 < data["results"]["Ping (ms) ICMP"][1] < 21.0
    assert [r["val"] for r in data["raw_values"]["Ping (ms) ICMP"]] == [v for v in data["results"]["Ping (ms) ICMP"] if v is not None]
    # Flent's computed series, as its runners compute them: per step, over the values present.
    i = x.index(pytest.approx(2.0))
    ups = [data["results"][f"TCP upload {m}"][i] for m in ("BE", "BK", "CS5", "EF")]
    assert data["results"]["TCP upload sum"][i] == pytest.approx(sum(ups))
    assert data["results"]["TCP upload avg"][i] == pytest.approx(sum(ups) / 4)
    assert data["results"]["TCP upload sum"][0] is None
    totals = [a + b for a, b in zip(data["results"]["TCP upload sum"][i:], data["results"]["TCP download sum"][i:])]
    assert data["results"]["TCP totals"][i:] == pytest.approx(totals)


def test_sampling_for_flent_changes_nothing_in_the_run(rrul_run, tmp_path):
    sc, out, _ = rrul_run
    plain = bufferlab.run(sc)
    sampled = json.loads((out / "summary.json").read_text())
    for a, b in zip(plain.summary["flows"], sampled["flows"]):
        assert a == b
    assert plain.summary["queues"] == sampled["queues"]


def test_the_same_run_gives_the_same_bytes(rrul_run, tmp_path):
    sc, _, path = rrul_run
    again = tmp_path / path.name
    assert cli("run", sc, "--flent", again).exit_code == 0
    assert again.read_bytes() == path.read_bytes()


def data_of(tmp_path: Path, traffic: str, duration: str = "2s") -> dict:
    r = bufferlab.run(scenario(tmp_path, traffic, duration=duration, sample='sample = "200ms"'))
    out = tmp_path / "f.flent.gz"
    write_result(r, out)
    return read(out)


def test_fifty_downloads_and_one_upload_is_flents_rrul_50_down(tmp_path):
    d = data_of(tmp_path, rrul("uploads = 1\ndownloads = 50\n"))
    assert d["metadata"]["NAME"] == "rrul_50_down"
    names = set(d["results"])
    assert {"TCP upload BE", "TCP download BE::1", "TCP download BE::50", "Ping (ms) UDP BE1", "Ping (ms) UDP BE3",
            "Ping (ms) ICMP", "TCP download sum"} <= names
    assert "TCP download BE::51" not in names and "TCP totals" not in names


def test_other_counts_are_rrul_be_nflows_with_its_parameters(tmp_path):
    d = data_of(tmp_path, rrul("uploads = 2\ndownloads = 3\nudp_probes = 1\n"))
    m = d["metadata"]
    assert (m["NAME"], m["TEST_PARAMETERS"]) == ("rrul_be_nflows", {"upload_streams": "2", "download_streams": "3"})
    assert {"TCP upload BE::2", "TCP download BE::3", "Ping (ms) UDP BE", "Ping (ms) ICMP"} <= set(d["results"])


TCP_AND_PING = """
[[traffic]]
kind = "tcp"
from = "client"
to = "server"
count = 2

[[traffic]]
kind = "ping"
from = "client"
to = "server"
interval = "200ms"

[[traffic]]
kind = "udp"
from = "server"
to = "client"
rate = "1Mbps"
size = "1000B"
"""


def test_tcp_flows_are_flents_tcp_nup_and_other_flows_keep_their_ids(tmp_path):
    d = data_of(tmp_path, TCP_AND_PING)
    m = d["metadata"]
    assert (m["NAME"], m["TEST_PARAMETERS"]) == ("tcp_nup", {"upload_streams": "2"})
    assert set(d["results"]) == {"TCP upload::1", "TCP upload::2", "Ping (ms) ICMP", "UDP udp-1",
                                 "TCP upload avg", "TCP upload sum"}
    # A stream starting at 0 has a value from the first step that ends after it on.
    assert d["results"]["TCP upload::1"][0] is None and d["results"]["TCP upload::1"][1] is not None
    assert d["results"]["UDP udp-1"][-1] == pytest.approx(1.0 * 972 / 1000, rel=0.01)


def test_probes_alone_are_flents_ping_test(tmp_path):
    d = data_of(tmp_path, '[[traffic]]\nkind = "ping"\nfrom = "client"\nto = "server"\ninterval = "200ms"\nproto = "udp"\n')
    assert d["metadata"]["NAME"] == "ping"
    assert set(d["results"]) == {"Ping (ms) UDP"}


def test_a_run_flent_cannot_show_is_refused(tmp_path):
    sc = scenario(tmp_path, '[[traffic]]\nkind = "udp"\nfrom = "client"\nto = "server"\nrate = "100pps"\nsize = "100B"\n')
    # Known from the scenario: refused before the run, as bad input (nothing run, nothing written).
    r = cli("run", sc, "--flent", tmp_path / "u.flent.gz", "--out", tmp_path / "out")
    assert r.exit_code == 2 and "neither" in r.output, r.output
    assert not (tmp_path / "out").exists() and not (tmp_path / "u.flent.gz").exists()
    spec = tmp_path / "spec.toml"
    spec.write_text(f'base = "{sc}"\nseeds = 1\n[grid]\n"traffic[0].rate" = ["100pps", "200pps"]\n')
    r = cli("sweep", spec, "--out", tmp_path / "sw", "--flent", tmp_path / "fl")
    assert r.exit_code == 2 and 'point 1 of 2 (traffic[0].rate="100pps")' in r.output and "neither" in r.output, r.output
    assert not (tmp_path / "sw").exists() and not (tmp_path / "fl").exists()
    r = cli("run", sc, "--flent", tmp_path / "u.json")
    assert r.exit_code == 2 and "*.flent.gz" in r.output
    with pytest.raises(FlentError):
        flent_data(bufferlab.load_scenario(sc).plan, bufferlab.run(sc).timeseries, flow_starts={}, step_s=0.2,
                   duration_s=4.0)


# ---------------------------------------------------------------- Flent itself

LOADER = """
import json, sys
from flent.resultset import load
r = load(sys.argv[1])
print(json.dumps({"name": r.meta("NAME"), "x": r.x_values,
                  "series": {n: r.series(n) for n in r.series_names},
                  "raw_icmp": [v for _, v in r.raw_series("Ping (ms) ICMP")]}))
"""


def flent_load(path: Path) -> dict:
    python, pkg = FLENT
    out = subprocess.run([python, "-c", LOADER, str(path)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": pkg})
    return json.loads(out.stdout)


def flent_plot(path: Path, plot: str, out: Path) -> None:
    r = subprocess.run(["flent", "-i", str(path), "-p", plot, "-o", str(out)], capture_output=True, text=True,
                       cwd=out.parent, timeout=120)
    assert r.returncode == 0, r.stderr
    assert out.is_file() and out.stat().st_size > 20_000, r.stderr


@needs_flent
def test_flent_draws_its_rrul_plots_from_the_file(rrul_run, tmp_path):
    _, _, path = rrul_run
    flent_plot(path, "all_scaled", tmp_path / "all_scaled.png")
    flent_plot(path, "ping_cdf", tmp_path / "ping_cdf.png")


@needs_flent
def test_flents_loader_reads_back_the_runs_values(rrul_run):
    _, _, path = rrul_run
    ours = read(path)
    got = flent_load(path)
    assert got["name"] == "rrul"
    assert got["x"] == ours["x_values"]
    for name in RRUL_SERIES:
        assert got["series"][name] == ours["results"][name], name
    # Raw values are placed against T0, the start of the run.
    assert got["raw_icmp"] == [v for v in ours["results"]["Ping (ms) ICMP"] if v is not None]


@needs_flent
def test_flent_reads_the_other_tests_files(tmp_path):
    big = tmp_path / "big"
    big.mkdir()
    d = data_of(big, rrul("uploads = 1\ndownloads = 50\n"))
    flent_plot(big / "f.flent.gz", "all_scaled", tmp_path / "50.png")
    assert flent_load(big / "f.flent.gz")["series"]["TCP download BE::50"] == d["results"]["TCP download BE::50"]
    nup = tmp_path / "nup"
    nup.mkdir()
    data_of(nup, TCP_AND_PING)
    flent_plot(nup / "f.flent.gz", "totals", tmp_path / "totals.png")


def test_a_sweep_writes_one_file_per_point_and_seed(tmp_path):
    scenario(tmp_path, rrul("uploads = 1\ndownloads = 1\nudp_probes = 1\n"), duration="2s", name="base.toml")
    spec = tmp_path / "sweep.toml"
    spec.write_text('base = "base.toml"\nseeds = [1, 2]\n[grid]\n"topology.up.queue.limit" = ["20pkt", "50pkt"]\n')
    r = cli("sweep", spec, "--out", tmp_path / "runs", "--flent", tmp_path / "flent", "-j", "1", "--quiet")
    assert r.exit_code == 0, r.output
    files = sorted((tmp_path / "flent").glob("*.flent.gz"))
    assert len(files) == 4 and {f.name.split(".")[1] for f in files} == {"s1", "s2"}
    d = read(files[0])
    m = d["metadata"]
    assert (m["NAME"], m["STEP_SIZE"]) == ("rrul_be_nflows", 0.2)
    assert m["TITLE"].startswith("topology.up.queue.limit=")
    assert any(v is not None for v in d["results"]["TCP upload BE::1"])
