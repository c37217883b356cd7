"""``bufferlab report``: a run's output folder, a sweep's results folder or a reproductions folder
as one self-contained HTML page with interactive figures (Plotly, its script inlined: the page
opens with no network). See docs/report.md."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ReportError", "build_report", "write_report", "kind_of"]


class ReportError(ValueError):
    """A folder the report cannot read."""


def kind_of(path: str | Path) -> str:
    """``"run"``, ``"sweep"`` or ``"repro"``: what the folder holds."""
    from .repro import is_repro
    from .run import is_run
    from .sweep import is_sweep

    p = Path(path)
    if not p.is_dir():
        raise ReportError(f"{p} is not a folder (give a run's --out folder, a sweep's results folder or a reproductions folder)")
    if is_run(p):
        return "run"
    if is_sweep(p):
        return "sweep"
    if is_repro(p):
        return "repro"
    raise ReportError(f"{p} holds no run (summary.json), no sweep (parts/) and no reproductions (claims.csv)")


def build_report(path: str | Path, title: str | None = None) -> tuple[str, int]:
    """The page of the folder at ``path``, and how many interactive figures it holds."""
    from .page import Page, render

    p = Path(path)
    kind = kind_of(p)
    page = Page(title or f"bufferlab: {p.name}", meta=f"{kind} folder {p}")
    if kind == "run":
        from ..results import Result
        from .run import run_sections

        run_sections(page, Result.read(p), p.name)
    elif kind == "sweep":
        from .sweep import sweep_sections

        sweep_sections(page, p)
    else:
        from .repro import repro_sections

        repro_sections(page, p)
    return render(page), page.figures


def write_report(path: str | Path, out: str | Path, title: str | None = None) -> Path:
    """Write the report of ``path`` to the HTML file ``out`` (complete, or not at all)."""
    text, _ = build_report(path, title)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.part")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return out
