"""``bufferlab report`` (docs/report.md): one self-contained HTML page per run, sweep or
reproductions folder, opened in headless Chromium, which must draw every figure with no console
message, and whose screenshot shows the figures' lines.

The Chromium tests skip, saying why, where it is not installed (``make test`` installs Debian's
``chromium`` as root: the Makefile's ``tool-deps``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bufferlab.cli import app
from bufferlab.report import ReportError, build_report, kind_of
from bufferlab.report.page import COLORS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium unavailable: not installed (apt-get install chromium)")


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


SCENARIO = """
[run]
duration = "3s"
sample = "100ms"

[topology]
template = "access"
up = { rate = "10Mbps", delay = "10ms", queue = { discipline = "fifo", limit = "50pkt" } }
down = { rate = "20Mbps", delay = "10ms", queue = { discipline = "fifo", limit = "50pkt" } }

[[traffic]]
kind = "rrul"
from = "client"
to = "server"
uploads = 2
downloads = 2
udp_probes = 1
delay = "1s"
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("report")
    (d / "s.toml").write_text(SCENARIO)
    assert cli("run", d / "s.toml", "--out", d / "run").exit_code == 0
    (d / "sweep.toml").write_text(textwrap.dedent("""
        base = "s.toml"
        seeds = 2
        [set]
        "run.duration" = "2s"
        [grid]
        "topology.up.queue.limit" = ["10pkt", "40pkt"]
        "traffic[0].cc" = ["newreno", "cubic"]
        """))
    r = cli("sweep", d / "sweep.toml", "--out", d / "sweep", "-j", "1", "--quiet")
    assert r.exit_code == 0, r.output
    r = cli("reproduce", "theory/md1", "--smoke", "--out", d / "repro")
    assert r.exit_code == 0, r.output
    return {"run": d / "run", "sweep": d / "sweep", "repro": d / "repro"}


@pytest.mark.parametrize("kind", ["run", "sweep", "repro"])
def test_each_folder_is_one_self_contained_page(folders, kind):
    assert kind_of(folders[kind]) == kind
    html, figures = build_report(folders[kind])
    assert html.startswith("<!DOCTYPE html>") and figures >= 1
    # No network: one inline script carries plotly.js; nothing is fetched.
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|@import", html)
    assert html.count("Plotly.newPlot(") == figures
    assert "plotly.js v" in html[:20_000] or "plotly.js" in html[:200_000]


def test_plotly_travels_gzipped_and_whole(folders):
    """The library is the page's bulk: it is carried gzipped and base64-encoded (with its licence
    header in the clear), unpacks to plotly.js byte for byte, and the figures' scripts wait for
    it (typed so that the browser does not run them as it reads the page)."""
    import base64
    import gzip

    from plotly.offline import get_plotlyjs

    page, figures = build_report(folders["run"])
    packed = re.search(r'atob\("([A-Za-z0-9+/=]+)"\)', page)
    assert packed, page[:3000]
    assert gzip.decompress(base64.b64decode(packed.group(1))).decode() == get_plotlyjs()
    assert "Licensed under the MIT license" in page[:20_000]
    assert page.count('<script type="text/x-bufferlab-figure">') == figures
    assert len(page) < 0.5 * len(get_plotlyjs())
    # The same folder gives the same page, byte for byte (gzip's header carries no time).
    assert build_report(folders["run"])[0] == page


def test_what_each_page_shows(folders):
    run, _ = build_report(folders["run"])
    for text in ("rrul-1", "Time series", "Distributions", "client-&gt;server", "queue length (packets)"):
        assert text in run
    sweep, n = build_report(folders["sweep"])
    assert "Against topology.up.queue.limit" in sweep and "cc=cubic" in sweep and n == 6
    repro, _ = build_report(folders["repro"])
    assert "theory/md1" in repro and "data:image/png;base64," in repro
    assert 'class="holds"' in repro or 'class="fails"' in repro


def test_bad_folders_and_outputs_are_refused(tmp_path, folders):
    with pytest.raises(ReportError):
        kind_of(tmp_path)
    r = cli("report", tmp_path, "-o", tmp_path / "r.html")
    assert r.exit_code == 2 and "holds no run" in r.output
    r = cli("report", folders["run"], "-o", tmp_path / "r.txt")
    assert r.exit_code == 2 and ".html" in r.output
    r = cli("report", folders["run"], "-o", tmp_path / "sub" / "r.html")
    assert r.exit_code == 0 and (tmp_path / "sub" / "r.html").is_file()


# ---------------------------------------------------------------- in a browser


def chromium(page: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000", *args, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=180)


def console(stderr: str) -> list[str]:
    """The page's console messages and uncaught errors, as Chromium logs them."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@needs_chromium
@pytest.mark.parametrize("kind", ["run", "sweep", "repro"])
def test_chromium_draws_every_figure_with_no_console_message(folders, kind, tmp_path):
    out = tmp_path / f"{kind}.html"
    assert cli("report", folders[kind], "-o", out).exit_code == 0
    _, figures = build_report(folders[kind])
    # The run's page is also photographed, in the same launch (Chromium takes both flags at once:
    # a launch costs some 8 core-seconds on a page carrying Plotly).
    shot = tmp_path / f"{kind}.png"
    extra = [f"--screenshot={shot}", "--window-size=1280,2600"] if kind == "run" else []
    r = chromium(out, "--dump-dom", *extra)
    assert r.returncode == 0, r.stderr[-2000:]
    assert console(r.stderr) == []
    # Plotly replaces each figure's empty div with its drawing: a plot container and its SVG.
    assert r.stdout.count('class="plot-container plotly"') == figures
    assert r.stdout.count('class="main-svg"') >= figures
    if kind == "run":
        assert shot.is_file(), r.stderr[-2000:]
        the_screenshot_shows_the_figures_lines(shot)


def the_screenshot_shows_the_figures_lines(shot: Path) -> None:
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)[:, :, :3]
    # The first two series' colours (tab10 blue and orange) appear only in the figures' lines:
    # text is black, tables grey, links another blue.
    for color in COLORS[:2]:
        rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
        hits = np.all(np.abs(img - rgb) < 0.04, axis=2)
        assert hits.sum() > 300, f"{color}: {hits.sum()} pixels"
    # Where the lines are, the figure is drawn: its rows vary (axes, grid, lines), not one blank colour.
    rows = np.nonzero(np.all(np.abs(img - np.array([0x1F, 0x77, 0xB4]) / 255.0) < 0.04, axis=2).any(axis=1))[0]
    area = img[rows.min():rows.max() + 1]
    assert area.std() > 0.05


def test_a_folder_of_seeds_shows_its_figures_over_the_seeds(tmp_path):
    """`bufferlab run FILE --seeds N --out DIR` keeps a sweep of one point: its page has the
    flows, queues and links as mean ± half-width over the seeds (matching `bufferlab.run_seeds`),
    and the busiest queue's length seed by seed."""
    import bufferlab
    from conftest import example_path

    sets = {"run.duration": "6s", "run.measure": ["1s", "6s"], "run.sample": "100ms", "topology.pairs": 2}
    out = tmp_path / "seeds"
    s = bufferlab.run_seeds(example_path("dumbbell"), 3, overrides=sets, out=out)
    page, figures = build_report(out)
    assert "Over seeds" in page and figures == 1
    assert "Length of the queue r1" in page and "seed by seed" in page and '"name":"seed 3"' in page
    f = s.flows.set_index("id").loc["tcp-1"]
    cell = f"{f['goodput_bps_mean'] / 1e6:.4g} ± {f['goodput_bps_ci'] / 1e6:.4g}"
    assert cell in page, cell
    assert "Every seed gave the same figures" not in page
