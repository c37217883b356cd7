"""``bufferlab reproduce``: list the reproductions, or run one and print it beside the paper."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def register(app: typer.Typer) -> None:
    @app.command()
    def reproduce(
        name: Annotated[Optional[str], typer.Argument(help="A reproduction, e.g. braud/table2; none lists them.")] = None,
        seeds: Annotated[int, typer.Option("--seeds", min=1, help="Seeds to average over.")] = 3,
        quick: Annotated[bool, typer.Option("--quick", help="Shorter runs (a rougher estimate).")] = False,
        out: Annotated[Optional[Path], typer.Option("--out", help="Also write the table as CSV here.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON records.")] = False,
    ) -> None:
        """Run a seed paper's experiment and print our numbers beside the paper's."""
        from . import REPRODUCTIONS, get, run_reproduction

        console = Console(highlight=False)
        if not console.is_terminal:
            console.width = 200
        if name is None:
            t = Table(title="reproductions")
            for c in ("name", "paper", "what"):
                t.add_column(c)
            for r in REPRODUCTIONS.values():
                t.add_row(r.name, r.paper, r.what)
            console.print(t)
            return
        try:
            rep = get(name)
        except KeyError as e:
            Console(stderr=True).print(str(e.args[0]), markup=False)
            raise typer.Exit(2)
        df = run_reproduction(name, seeds=seeds, quick=quick)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            df.to_csv(out, index=False)
        if as_json:
            print(json.dumps(df.to_dict(orient="records")))
            return
        t = Table(title=f"{rep.name}: {rep.what}", caption=rep.paper)
        for c in ("quantity", "case", "paper", "bufferlab", "unit", "claim", "holds"):
            t.add_column(c, justify="right" if c in ("paper", "bufferlab") else "left")
        for row in df.itertuples(index=False):
            t.add_row(row.quantity, row.case, _fmt(row.paper), _fmt(row.bufferlab), row.unit, row.claim,
                      "[green]yes[/]" if row.holds else "[red]no[/]")
        console.print(t)
        for a in rep.assumptions:
            console.print(f"assumption: {a}", markup=False)
