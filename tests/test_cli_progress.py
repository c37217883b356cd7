"""The progress line a run shows when stderr is a terminal (tests run without one, so the other
command tests never draw it)."""

from __future__ import annotations

import io
import signal
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


def test_on_a_terminal_the_bar_shows_and_ctrl_c_ends_the_run_cleanly(tmp_path):
    """As a user sees it: `bufferlab run` in a terminal (a pty) draws the bar with the simulated
    time and the time left; Ctrl-C typed there clears it, says so in one line and exits 130."""
    import os
    import pty
    import select
    import sys

    from conftest import REPO

    bench = str(REPO / "scenarios" / "bench" / "dumbbell-100M-100.toml")
    argv = [sys.executable, "-m", "bufferlab", "run", bench, "--set", 'run.duration="3000s"', "--yes",
            "--out", str(tmp_path / "out")]
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, on the pty
        # As from a terminal: a test run started in the background of a shell inherits SIGINT
        # ignored, and Python would then keep ignoring it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execvp(argv[0], argv)
    out, sent, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                data = os.read(fd, 4096)
            except OSError:  # the child closed the pty
                break
            if not data:
                break
            out += data
        if not sent and b" left" in out:
            os.write(fd, b"\x03")  # Ctrl-C, as typed: the terminal sends SIGINT to the command
            sent = True
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    assert sent, text
    assert "s simulated" in text and " left" in text
    assert os.waitstatus_to_exitcode(status) == 130, text
    assert text.rstrip().endswith("interrupted; nothing written"), repr(text[-200:])
    assert "Traceback" not in text and not (tmp_path / "out").exists()
