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
