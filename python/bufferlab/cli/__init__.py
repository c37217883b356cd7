"""The ``bufferlab`` command: one module per command group, each command a plain function.

    run.py         run, validate
    info.py        schema, version
    sweep.py       sweep, query
    plot.py        plot timeseries | cdf | sweep | response
    ballast.py     ballast
    bench.py       bench
    reproduce.py   reproduce
    report.py      report
    crosscheck.py  crosscheck
    kernel.py      cleanup, exec, shell, compare (and run --backend kernel)

``common.py`` holds what they share (consoles, options, exits), ``tables.py`` the tables a run
prints. The commands import the backends they drive inside their bodies, so that starting the
command costs only what the command uses; nothing below this package imports it.

Exit status: 0 done; 1 the engine or the output failed; 2 the scenario (or the command line) has
problems, each printed on its own line on stderr as ``key.path: what is wrong (the fix)``.
"""

import sys
from typing import Annotated

import typer

from ..errors import LongRunError
from . import ballast, bench, crosscheck, info, kernel, plot, report, reproduce, run, sweep
from .common import err_console, long_run_hint

__all__ = ["app", "main"]

app = typer.Typer(
    name="bufferlab",
    help=(
        "A deterministic packet-level simulator for router-buffer experiments.\n\n"
        "Write a scenario (TOML: [run], [topology], [[traffic]]), check it with "
        "`bufferlab validate FILE`, run it with `bufferlab run FILE`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help and usage errors (click's layout), not typer's rich panels: rendering them imports
    # typer.rich_utils, and with it rich.markdown, markdown_it and rich.traceback: a third of what
    # `bufferlab --help` took (docs/BENCHMARKS.md, "The command line's help without rich"). The
    # commands' own output (tables, progress, problems) is still rich's.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_flag(value: bool) -> None:
    if value:
        info.version()
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version_flag, is_eager=True, help="Print the package's and the engine's versions (as `bufferlab version`) and exit."),
    ] = False,
) -> None:
    """A deterministic packet-level simulator for router-buffer experiments."""


# In the order `bufferlab --help` lists them.
app.command()(run.run)
app.command()(run.validate)
app.command()(info.schema)
app.command()(info.version)
app.command()(sweep.sweep)
app.command()(sweep.query)
app.command()(ballast.ballast)
app.command()(bench.bench)
app.command()(reproduce.reproduce)
app.command()(report.report)
app.command()(crosscheck.crosscheck)
app.command()(kernel.cleanup)
app.command(name="exec")(kernel.exec_)
app.command()(kernel.shell)
app.command()(kernel.compare)
app.add_typer(plot.plot_app, name="plot")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted", markup=False)
        sys.exit(130)
    except LongRunError as e:
        # A command that runs a scenario without a --yes of its own (crosscheck): the
        # run's cost is refused as `bufferlab run` refuses it.
        err_console.print(f"this run is {long_run_hint(e)}; `bufferlab run FILE --yes` runs it as it is", markup=False)
        sys.exit(2)
