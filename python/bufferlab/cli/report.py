"""``bufferlab report``: a run, sweep or reproductions folder as one HTML page."""

from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import err_console, fail, out_console


def report(
    folder: Annotated[Path, typer.Argument(help="A run's --out folder, a sweep's results folder, or a reproductions folder.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write (self-contained: opens with no network).", show_default=False)],
    title: Annotated[Optional[str], typer.Option("--title", help="The page's title (default: the folder's name).")] = None,
) -> None:
    """Write an interactive HTML report of a run, a sweep or reproductions: tables, time series,
    CDFs, means with confidence intervals over seeds, claims beside their figures.

    Example: `bufferlab report out/rrul -o rrul.html`
    """
    from ..report import ReportError, write_report

    if out.suffix.lower() not in (".html", ".htm"):
        fail(f"--out {out}: write a .html file")
    if out.is_dir():
        fail(f"--out {out}: is a folder; give a file name")
    try:
        written = write_report(folder, out, title)
    except ReportError as e:
        fail(str(e))
    except ModuleNotFoundError as e:
        if not (e.name or "").startswith("plotly"):
            raise
        err_console.print("the report draws its figures with plotly, which is not installed (pip install plotly)", markup=False)
        raise typer.Exit(1) from None
    except OSError as e:
        from ..outpath import describe_os_error

        fail(f"--out {out}: writing failed: {describe_os_error(e)}", 1)
    out_console.print(f"wrote {written}", markup=False)
