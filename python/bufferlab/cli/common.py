"""What the commands share: the consoles, the common options, reading ``--set``, the exits for
bad input (status 2, one line each, no traceback), the progress line of a long run.

Everything here is cheap to import: every command loads it, including the ones that answer in a
few milliseconds (``validate``, ``version``).
"""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer
from rich.console import Console

from ..cost import hms, shorten_hint
from ..errors import LongRunError, ScenarioError

out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)
if not out_console.is_terminal:
    # Piped or in CI: no terminal width to fit, so let tables take their natural width.
    out_console.width = 200

SetOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help='Override a key of the file, e.g. `--set topology.bottleneck.rate=20Mbps` or `--set "traffic[0].cc=cubic"` (repeatable). VALUE is read as TOML, else as a string.',
    ),
]
SeedOption = Annotated[Optional[int], typer.Option("--seed", min=0, help="Replace run.seed (same file and seed, same results).")]
YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Run even if the estimate says a run takes over an hour.")]


def fail(msg: str, code: int = 2) -> NoReturn:
    """``error: msg`` on stderr, then exit ``code`` (2: bad input)."""
    err_console.print(f"error: {msg}", markup=False)
    raise typer.Exit(code)


def parse_sets(sets: list[str] | None) -> dict[str, Any]:
    """The ``--set KEY=VALUE`` options as overrides: VALUE read as TOML, else as a string."""
    out: dict[str, Any] = {}
    for item in sets or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f'--set {item}: expected KEY=VALUE (e.g. --set topology.pairs=20)')
        try:
            parsed = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            parsed = value
        out[key.strip()] = parsed
    return out


def report_problems(e: ScenarioError, file: Path | None) -> NoReturn:
    """Each of a scenario's problems on its own line, a count, exit 2."""
    for p in e.problems:
        err_console.print(p, markup=False)
    n = len(e.problems)
    where = f"{file}: " if file is not None and not any(str(file) in p for p in e.problems) else ""
    err_console.print(f"{where}{n} problem{'s' if n != 1 else ''}; nothing was run", markup=False, style="bold")
    raise typer.Exit(2)


@contextmanager
def progress_line(duration_s: float, quiet: bool) -> Iterator[Callable[[float, int], None] | None]:
    """A progress line on stderr for runs long enough to want one, when stderr is a terminal:
    simulated time, the engine's events per second and the time left."""
    if quiet or not err_console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("simulating"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:g} s simulated"),
        TextColumn("{task.fields[speed]}"),
        TextColumn("{task.fields[eta]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    task = bar.add_task("run", total=duration_s, speed="", eta="")
    started = False
    t0 = time.monotonic()

    def update(sim_s: float, events: int = 0) -> None:
        nonlocal started
        wall = time.monotonic() - t0
        if not started and wall > 0.5:
            # Marked first: a Ctrl-C that lands inside start() must still stop the bar (else its
            # refresh thread draws it again after the message that the run was interrupted).
            started = True
            bar.start()
        speed = f"{events / wall / 1e6:.1f} M events/s" if wall > 0 and events else ""
        left = (duration_s - sim_s) * wall / sim_s if sim_s > 0 else None
        eta = f"~{hms(left)} left" if left is not None else ""
        bar.update(task, completed=sim_s, speed=speed, eta=eta)

    try:
        yield update
    finally:
        if started:
            bar.stop()


def long_run_hint(e: LongRunError) -> str:
    """``estimated at about …; to shorten it, simulate less time (--set …) …``: a run the Python
    API refused (:func:`bufferlab.run`'s ``max_wall_s``), told as the command line tells it."""
    if e.estimate is None or e.duration_s is None:
        return f"estimated at about {hms(e.wall_s)}"
    return shorten_hint(e.duration_s, e.estimate)
