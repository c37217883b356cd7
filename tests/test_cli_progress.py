"""The progress line a run shows when stderr is a terminal (tests run without one, so the other
command tests never draw it)."""

from __future__ import annotations

import io
import time

from rich.console import Console

from bufferlab.cli import common


def test_the_progress_line_counts_the_time_left(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(common, "err_console", Console(file=out, force_terminal=True, width=120))
    with common.progress_line(10.0, quiet=False) as update:
        assert update is not None
        update(1.0, 1_000_000)  # too soon to draw: a short run shows nothing
        assert out.getvalue() == ""
        time.sleep(0.6)
        update(5.0, 5_000_000)
    shown = out.getvalue()
    assert "5.0/10 s simulated" in shown
    assert " left" in shown


def test_no_progress_line_when_quiet_or_piped(monkeypatch):
    monkeypatch.setattr(common, "err_console", Console(file=io.StringIO(), force_terminal=True))
    with common.progress_line(10.0, quiet=True) as update:
        assert update is None
    monkeypatch.setattr(common, "err_console", Console(file=io.StringIO()))  # a pipe
    with common.progress_line(10.0, quiet=False) as update:
        assert update is None


def test_run_draws_the_progress_line_unless_quiet(monkeypatch):
    """`bufferlab run` on a terminal draws it for a run of over half a second (this one takes ~1.5 s); `--quiet` does not."""
    from typer.testing import CliRunner

    from bufferlab.cli import app
    from conftest import REPO

    bench = str(REPO / "scenarios" / "bench" / "dumbbell-100M-100.toml")
    for quiet, drawn in ((False, True), (True, False)):
        err = io.StringIO()
        monkeypatch.setattr(common, "err_console", Console(file=err, force_terminal=True, width=120))
        args = ["run", bench, "--set", 'run.duration="400s"'] + (["--quiet"] if quiet else [])
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        assert ("s simulated" in err.getvalue()) is drawn, err.getvalue()
